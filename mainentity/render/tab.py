"""A renderer's tab and what a rendering attempt can end in (:class:`Tab`, :class:`TabFailure`), what a
screenshot draws in it, and the checks and clean-up of a lost Chromium, for
:class:`mainentity.render.browser.Renderer`."""

from __future__ import annotations

import asyncio
import logging
import mimetypes

from mainentity.records import Page
from mainentity.render.settings import NO_IMAGES_POLICY, load_url
from mainentity.sitedump import SubresourceSource

logger = logging.getLogger(__name__)

#: Seconds a check that Chromium still answers (after a failed attempt) may take before it counts as
#: answering: a busy browser is not relaunched.
PROBE_TIMEOUT_S = 5.0

#: Seconds closing a lost Chromium and its Playwright driver may take before a relaunch goes ahead.
STOP_TIMEOUT_S = 10.0

#: Seconds a relaunch of a lost Chromium waits first: Ctrl-C stops the Playwright driver along with the
#: process, whose interrupted main thread then closes the renderer; nothing is launched only to be closed.
RELAUNCH_GRACE_S = 0.5

#: What a screenshot draws in its tab: each box ``[x, y, width, height]`` (CSS px from the page top) outlined
#: in red, above everything.
DRAW_BOXES_JS = """(boxes) => {
  for (const [x, y, w, h] of boxes) {
    const d = document.createElement("div");
    d.style.cssText = "position:absolute;box-sizing:border-box;border:2px solid red;" +
      "pointer-events:none;z-index:2147483647;left:" + x + "px;top:" + y + "px;width:" + w +
      "px;height:" + h + "px";
    document.documentElement.appendChild(d);
  }
}"""


class Tab:
    """One browser context with one tab (of ``browser``), whether the context runs scripts, the page
    its router serves and that page's requests."""

    def __init__(self, browser, context, page, scripts: bool) -> None:
        self.browser = browser
        self.context = context
        self.page = page
        self.scripts = scripts
        self.document: bytes | None = None
        self.served = True
        self.crashed = False
        self.url = ""
        self.path = ""
        self.files: SubresourceSource | None = None
        self.headers: dict[str, str] = {}
        self.subresources: list[tuple[str, str]] = []
        self.n_blocked = 0

    def serve(self, page: Page, files: SubresourceSource | None) -> None:
        """Serve ``page`` (and subresources from ``files``) from the renderer's next navigation on (one
        without a Referer: a late navigation of the last page's scripts is not served)."""
        self.document = page.html.encode("utf-8", "surrogatepass")
        self.served = False
        self.url = load_url(page)
        self.path = page.path
        # a dump of pages only serves nothing (the render cache looks nothing up for it either)
        self.files = files if files is not None and files.holds_subresources else None
        self.headers = {"content-type": "text/html; charset=utf-8"}
        if self.files is None:
            self.headers.update(NO_IMAGES_POLICY)
        self.subresources = []
        self.n_blocked = 0


class TabFailure(Exception):
    """An attempt failed in a way that leaves the tab unusable."""


class OverMemoryCap(TabFailure):
    """The tab's renderer was killed for going past the memory cap: the page is not retried."""


class TimedOut(TabFailure):
    """The page was not ready, or its blocks not read, within ``RenderSettings.timeout_s`` in a Chromium
    that was not lost meanwhile: its scripts loop or never settle (or the machine was too busy)."""


async def lost_reason(browser) -> str:
    """Why ``browser`` (a Playwright ``Browser``) is gone, or ``""`` when it still answers.

    A killed Chromium disconnects its ``Browser`` (:meth:`~playwright.async_api.Browser.is_connected`);
    a killed Playwright driver leaves it connected but fails every call, so one browser-level call
    (opening and detaching a CDP session, no page involved) tells. A call that is merely slow is not
    taken for a lost browser.
    """
    if browser is None:
        return "Chromium is not running"
    if not browser.is_connected():
        return "Chromium disconnected"
    try:
        session = await asyncio.wait_for(browser.new_browser_cdp_session(), PROBE_TIMEOUT_S)
        await asyncio.wait_for(session.detach(), PROBE_TIMEOUT_S)
    except asyncio.TimeoutError:
        return ""
    except Exception as exc:
        return f"Chromium or its Playwright driver stopped answering: {first_line(exc)}"
    return ""


async def stop_quietly(browser, playwright) -> None:
    """Close a (lost) Chromium and stop its Playwright driver, each step bounded by
    :data:`STOP_TIMEOUT_S`; failures are logged, not raised (the browser is being replaced)."""
    steps = [("closing Chromium", browser.close)] if browser is not None else []
    if playwright is not None:
        steps.append(("stopping Playwright", playwright.stop))
    for step, stop in steps:
        try:
            await asyncio.wait_for(stop(), STOP_TIMEOUT_S)
        except Exception as exc:
            logger.debug("%s after it was lost failed: %s", step, first_line(exc))


async def close_context(context) -> None:
    """Close a broken tab's browser context, bounded by :data:`STOP_TIMEOUT_S`; a failure is logged."""
    try:
        await asyncio.wait_for(context.close(), timeout=STOP_TIMEOUT_S)
    except Exception as exc:
        logger.debug("closing a broken tab failed: %s", exc)


def unread_failure_as_debug(loop: asyncio.AbstractEventLoop, context: dict) -> None:
    """A renderer loop's report of a failure nobody read: a debug message when it is a future's.

    A Playwright driver that stops (Ctrl-C reaches it with the process; a crash) fails what it still
    owed, and Playwright leaves some of those futures unread; asyncio would print each as a multi-line
    error ("Future exception was never retrieved") when it is collected, often after the command's last
    line. The renderer tells of a lost driver itself. Anything else (a task that failed unread) goes to
    asyncio's default handler.
    """
    future = context.get("future")
    if isinstance(future, asyncio.Future) and not isinstance(future, asyncio.Task) and "exception" in context:
        logger.debug("%s: %s", context.get("message"), first_line(context["exception"]))
        return
    loop.default_exception_handler(context)


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message, or its type's name when it has none.

    >>> first_line(ValueError("bad\\nmore")), first_line(TimeoutError())
    ('bad', 'TimeoutError')
    """
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def content_type(resource_type: str, path: str) -> str:
    """The Content-Type a served dump file gets: CSS for stylesheets (wget and HTTrack may save them
    under other names), else the type its name suggests, else ``application/octet-stream`` (Chromium
    sniffs images and fonts).

    >>> content_type("stylesheet", "css/site.css?v=2"), content_type("image", "img/a.png")
    ('text/css', 'image/png')
    """
    if resource_type == "stylesheet":
        return "text/css"
    return mimetypes.guess_type(path, strict=False)[0] or "application/octet-stream"
