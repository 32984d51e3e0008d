"""Render stage: headless Chromium (Playwright) turns pages into text blocks, with an on-disk cache."""

from mainentity.render.browser import Renderer, RenderOutcome, RenderSettings
from mainentity.render.cache import RenderCache, render_pages

__all__ = ["RenderCache", "RenderOutcome", "RenderSettings", "Renderer", "render_pages"]
