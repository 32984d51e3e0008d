"""Feature stage: per-page arrays computed from text blocks, titles and anchor texts."""
