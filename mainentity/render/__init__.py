"""Render stage: headless Chromium (Playwright) turns pages into text blocks, with an on-disk cache."""
