"""Site-level cleaning: drop the text blocks every page of a site shares before recognition."""
