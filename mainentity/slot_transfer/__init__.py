"""Per-site sampling and slot transfer: render a few pages of each template, read the others from their HTML."""
