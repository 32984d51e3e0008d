"""Render stage: headless Chromium (Playwright) turns pages into text blocks, with an on-disk cache."""

from mainentity.render.browser import Renderer
from mainentity.render.cache import RenderCache, render_pages
from mainentity.render.settings import RenderOutcome, RenderSettings

__all__ = ["RenderCache", "RenderOutcome", "RenderSettings", "Renderer", "render_pages"]
