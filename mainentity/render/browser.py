"""Render pages of a site dump in headless Chromium and extract their text blocks.

One :class:`Renderer` owns one Playwright driver and one Chromium for a whole batch; pages are
rendered ``concurrency`` at a time, each in a tab of its own browser context, at a 1024x768 viewport
(Carullo & Binaghi 2010, KDIR, section 3.4.1). The page's markup is served from the dump by request
routing under the page's own URL. With ``RenderSettings.subresources`` (the default), the stylesheets
(``@import`` included), fonts and images the page requests are served from the site dump it was read
from when the dump holds them (the caller passes a :class:`mainentity.sitedump.SubresourceSources`; paths resolved by
:func:`mainentity.sitedump.subresource_candidates`, read with its containment checks), or, for a page
of WARC files, from the input's stylesheet, font and image records of the same URL, with their own
``Content-Type`` (:class:`mainentity.warc.WarcSubresources`); every other
request is aborted, so nothing leaves the machine, no script is ever fetched and the page never
navigates away from itself (meta refresh, redirects and script-driven location changes are
cancelled). A page whose dump holds nothing but pages (:attr:`mainentity.sitedump.DumpFiles.holds_subresources`)
gets nothing but its own document, and is served with a Content-Security-Policy that keeps its images
from being requested at all (as with
subresources off, but ``data:`` images are shown): such requests could only be blocked, and each
costs about 2 ms of CPU. A page counts as loaded when its document is complete and no web font is
still loading.
A page with more elements than ``RenderSettings.max_elements`` (:func:`markup_problem`) is refused before
it reaches Chromium; a renderer whose memory goes past ``RenderSettings.max_renderer_mb`` all the same
(scripts, styles) is killed (:mod:`mainentity.render.memory`) and its page reported, not retried. A
crashed or hung tab is closed and replaced, and a failed page is retried in a fresh tab before it is
reported. A Chromium (or Playwright driver) that is gone, killed or out of memory, is relaunched with the
same executable and switches, and the page retried in a tab of the new browser; a Chromium that cannot
be kept up is given up on for the rest of the batch (:data:`MAX_LAUNCHES_WITHOUT_RENDER`).

Text blocks follow section 3.4.2 of the paper; the in-page extraction script is ``blocks.js`` next to
this module. Its rules:

- Every text node with non-space text is a block; its tag and ``dom_path`` are its parent element's.
- Each element whose content is only text and inline formatting elements (a, abbr, b, bdi, bdo, big,
  br, cite, code, data, del, dfn, em, font, i, ins, kbd, mark, nobr, q, s, samp, small, span, strike,
  strong, sub, sup, time, tt, u, var, wbr; images are ignored, br counts as a space) and that has at
  least two non-empty parts adds one merged block (``merged=True``) right after the blocks of its
  content. An element with a single part merges nothing: in the paper's example
  ``<div><b>This <em>is</em> the <span>ENTITY</span> <u>of</u> interest</b></div>`` the ``b`` adds
  "This is the ENTITY of interest" and the ``div`` adds nothing.
- Nothing inside head, script, style, template, iframe, noembed, noframes, canvas, video, audio or a
  ``display: none`` subtree is a block. ``<noscript>`` content is walked when the page's scripts are
  off (the default), since a browser then displays it, and skipped when they are on.
- A page is never hidden as a whole: ``display: none``, a ``visibility`` other than ``visible`` or
  ``opacity: 0`` on ``<html>`` or ``<body>`` is overridden (inline ``!important``) before extraction.
  Such root-level hiding is anti-flicker or frame-busting CSS that only the page's own scripts lift
  (e.g. ``html { display: none }`` with a script setting ``display: block`` when the page is not in a
  frame; Chartbeat's or an A/B-testing tool's ``body { visibility: hidden !important }`` removed by its
  script), and those scripts are off or blocked here, whereas a person sees the page. Hiding below
  ``<body>`` is kept as it is.
- ``hidden=True`` when the element's computed ``visibility`` is not ``visible``, the block's box
  (the bounding box of its text) has zero width or height, or the box lies entirely outside the page
  rectangle ``[0, page width] x [0, page height]`` (e.g. ``left: -9999px``). Clipping by an ancestor's
  ``overflow`` and ``opacity: 0`` are not detected.
- Font size and weight are the computed style of the block's element; ``bold`` is weight >= 600 or an
  enclosing (or own) ``<b>``/``<strong>``; ``in_link`` means an enclosing ``<a href>``;
  ``heading_level`` is that of the nearest enclosing ``<h1>``-``<h6>`` or ARIA heading
  (``role="heading"``, level ``aria-level``, default 2).
- Segments (:attr:`~mainentity.records.RenderedPage.segments`) are extra candidates for the general
  recogniser, beside the blocks: the style runs and the visible text of each merged block, and the
  visible text of each heading element whose content is not inline-only (see ``blocks.js``).

Playwright runs on its asyncio API in a background thread; :meth:`Renderer.render` is a plain
generator, so the renderer is usable from synchronous scripts.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import hashlib
import json
import logging
import mimetypes
import os
import shutil
import subprocess
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from urllib.parse import quote

from mainentity.records import META_TITLE_KEYS, Page, RenderedPage, TextBlock
from mainentity.render.memory import RendererMemoryCap, default_max_renderer_mb, launch_switch
from mainentity.sitedump import SubresourceSource, SubresourceSources
from mainentity.text import MAX_ELEMENTS, collapse_whitespace, has_more_elements, title_text

logger = logging.getLogger(__name__)

#: Source of the in-page extraction script (Carullo & Binaghi 2010, section 3.4.2).
BLOCKS_JS = resources.files("mainentity.render").joinpath("blocks.js").read_text(encoding="utf-8")

#: Version of the extraction: a hash of ``blocks.js``, so any change to it invalidates cached renders.
BLOCKS_JS_VERSION = hashlib.sha256(BLOCKS_JS.encode("utf-8")).hexdigest()[:16]

#: Meta tags the renderer keeps (see :attr:`mainentity.records.RenderedPage.meta`).
META_KEYS = (*META_TITLE_KEYS, "og:site_name", "keywords", "description")

#: Chromium switches: no background traffic, and no way out even for requests routing would miss
#: (host names never resolve, and everything, loopback included, goes to a proxy that cannot resolve).
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-default-apps",
    "--disable-quic",
    "--disable-domain-reliability",
    "--disable-breakpad",
    "--dns-prefetch-disable",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-server=http://proxy.invalid:1",
    "--proxy-bypass-list=<-loopback>",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
)

#: Added to :data:`CHROMIUM_ARGS` when subresources are not served: images are then not even
#: requested, which gives the layout of blocked images at ~25% less CPU.
NO_IMAGES_ARG = "--blink-settings=imagesEnabled=false"

#: Response header of a page whose dump has nothing to serve: images other than ``data:`` URIs are
#: not requested (a policy the page sets itself still applies too).
NO_IMAGES_POLICY = {"content-security-policy": "img-src data:"}

#: Playwright resource types served from the dump (``@import`` and ``srcset`` arrive as these too).
SERVED_RESOURCE_TYPES = ("stylesheet", "font", "image")

#: True once the document and its stylesheets and images are loaded and no web font is loading. The
#: layout is read first, so that fonts needed only by the laid-out text have started loading.
_READY_JS = (
    "document.readyState === 'complete' && "
    "(document.documentElement.getBoundingClientRect(), document.fonts.status === 'loaded')"
)

#: ``blocks.js`` run as soon as :data:`_READY_JS` holds, else ``null``: checking and extracting cost one
#: round trip to the page (Python -> Playwright's driver -> Chromium) instead of two.
_EXTRACT_WHEN_READY_JS = f"(metaKeys) => ({_READY_JS}) ? ({BLOCKS_JS.strip().rstrip(';')})(metaKeys) : null"

#: Seconds between checks of ``document.readyState`` while a page loads.
_POLL_S = 0.01

#: Launches of Chromium in a row, after it was lost, with no page rendered in between, after which a
#: batch gives up on it: a broken install or a browser that dies on every page cannot loop forever.
MAX_LAUNCHES_WITHOUT_RENDER = 3

#: Seconds a check that Chromium still answers (after a failed attempt) may take before it counts as
#: answering: a busy browser is not relaunched.
_PROBE_TIMEOUT_S = 5.0

#: Seconds closing a lost Chromium and its Playwright driver may take before a relaunch goes ahead.
_STOP_TIMEOUT_S = 10.0

#: URL a page is loaded under when its own URL is not http(s) (e.g. ``file://``).
PLACEHOLDER_ORIGIN = "http://mainentity.invalid/"

#: Environment variable naming the Chromium executable (the command line's ``--chromium`` sets it).
CHROMIUM_ENV = "MAINENTITY_CHROMIUM"

_INSTALL_HINT = (
    "install Debian's Chromium with `apt-get install -y chromium`, or name the executable with "
    f"`mainentity --chromium PATH` or the environment variable {CHROMIUM_ENV}"
)


def default_chromium() -> str:
    """The Chromium executable the user's environment names: ``$MAINENTITY_CHROMIUM``, else ``chromium``
    on ``PATH``, else Debian's ``/usr/bin/chromium``.

    Only the user chooses the program that renders: no config, model directory or model file can name
    it (a model is data; see :mod:`mainentity.config`).

    >>> import os
    >>> os.environ[CHROMIUM_ENV] = "/opt/chromium/chrome"; default_chromium()
    '/opt/chromium/chrome'
    >>> del os.environ[CHROMIUM_ENV]
    """
    return os.environ.get(CHROMIUM_ENV) or shutil.which("chromium") or "/usr/bin/chromium"



@dataclass(frozen=True)
class RenderSettings:
    """How pages are rendered.

    Attributes
    ----------
    executable_path : str
        Chromium binary; by default the one the user's environment names (:func:`default_chromium`).
    javascript : bool or "auto"
        Run the pages' scripts. Off by default: the DOM is then the HTML5 parse of the markup (with
        the parser's scripting flag off, so ``<noscript>`` content is parsed as markup). ``"auto"``:
        off, and a page whose rendering looks like an unfinished skeleton is rendered again with its
        scripts on (:mod:`mainentity.render.scripts`, done by :func:`mainentity.render.cache.render_pages`;
        a :class:`Renderer` itself renders ``"auto"`` with scripts off).
    viewport_width, viewport_height : int
        Viewport in CSS px (1024x768, Carullo & Binaghi 2010, section 3.4.1).
    timeout_s : float
        Time in seconds one attempt at one page may take (load and extraction) before it is cut off.
    concurrency : int
        Pages in flight at once, each in its own tab and browser context.
    retries : int
        Further attempts, each in a fresh tab, before a page is reported as failed.
    subresources : bool
        Serve the stylesheets, fonts and images a page requests from its site dump when the dump holds
        them, so text blocks carry the page's own font sizes, weights and positions. Off, every
        subresource is blocked and images are not requested: the page is laid out with the browser's
        default styles plus its inline ``<style>`` and ``style`` attributes.
    max_elements : int
        A page with more start tags than this is not rendered (:func:`markup_problem`): it gets an error
        and never reaches Chromium, so its memory cannot take the pages beside it down.
    max_renderer_mb : int
        Cap on the resident memory of each Chromium renderer process (one per page in flight), in MB;
        by default ``$MAINENTITY_MAX_RENDERER_MB``, else 2048
        (:func:`default_max_renderer_mb`). A renderer above it is killed and its page gets an error
        naming the cap (:mod:`mainentity.render.memory`); an idle renderer holds about 120 MB.

    Raises
    ------
    ValueError
        If a size, the timeout, the concurrency, ``max_elements`` or ``max_renderer_mb`` is not positive,
        ``retries`` is negative, or ``javascript`` is not true, false or ``"auto"``.

    Examples
    --------
    >>> RenderSettings(javascript=True).viewport_width
    1024
    >>> RenderSettings(concurrency=0)
    Traceback (most recent call last):
    ...
    ValueError: concurrency must be >= 1; got 0
    """

    executable_path: str = field(default_factory=default_chromium)
    javascript: bool | str = False
    viewport_width: int = 1024
    viewport_height: int = 768
    timeout_s: float = 20.0
    concurrency: int = 4
    retries: int = 1
    subresources: bool = True
    max_elements: int = MAX_ELEMENTS
    max_renderer_mb: int = field(default_factory=default_max_renderer_mb)

    def __post_init__(self) -> None:
        for name in ("viewport_width", "viewport_height", "concurrency", "max_elements", "max_renderer_mb"):
            value = getattr(self, name)
            if value < 1:
                raise ValueError(f"{name} must be >= 1; got {value}")
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0 seconds; got {self.timeout_s}")
        if self.retries < 0:
            raise ValueError(f"retries must be >= 0; got {self.retries}")
        if not (isinstance(self.javascript, bool) or self.javascript == "auto"):
            raise ValueError(f"javascript must be true, false or 'auto'; got {self.javascript!r}")


@dataclass(frozen=True)
class RenderOutcome:
    """The result of rendering one page.

    Attributes
    ----------
    page : Page
        The page as given.
    rendered : RenderedPage or None
        Its title tags and text blocks; ``None`` when rendering failed.
    error : str
        Empty when fine, else the reason, starting with ``"<site_id>/<path>: "``.
    subresources : tuple of (str, str)
        ``(url, sha256)`` of each stylesheet, font and image the page requested, sorted; ``sha256`` is
        the hex SHA-256 of the dump file (or WARC record payload) served, ``""`` when the request was
        blocked (not in the dump or WARC input, or subresources off). Images are not requested when
        subresources are off or the page's dump holds nothing but pages. Part of the render cache key.
    n_subresources_served : int
        Requests answered from the site dump (or the WARC input).
    n_subresources_blocked : int
        Requests of the page aborted: subresources not in the dump, and scripts, frames, media and
        the like, which are never served (navigations away from the page are not counted).
    scripts : str
        ``""`` when the page was rendered with its scripts off (or ``javascript`` is true for all);
        with ``javascript: "auto"``, why its first rendering looked unfinished when it was rendered
        again with scripts on and that rendering was kept
        (:func:`mainentity.render.scripts.unfinished_reason`).
    """

    page: Page
    rendered: RenderedPage | None
    error: str = ""
    subresources: tuple[tuple[str, str], ...] = ()
    n_subresources_served: int = 0
    n_subresources_blocked: int = 0
    scripts: str = ""


def page_label(page: Page) -> str:
    """Name a page in messages as ``site_id/path``.

    >>> page_label(Page("shop", "pages/1.htm", "http://shop.test/1", ""))
    'shop/pages/1.htm'
    """
    return f"{page.site_id}/{page.path}" if page.site_id else page.path


def markup_problem(html: str, max_elements: int = MAX_ELEMENTS) -> str:
    """Why a page's markup is not given to Chromium, or "" when it may be.

    A page with more than ``max_elements`` start tags (:func:`mainentity.text.has_more_elements`) is
    refused: the memory a renderer needs grows with the elements laid out (about 5.4 KB each,
    :data:`mainentity.text.MAX_ELEMENTS`).

    Parameters
    ----------
    html : str
        The page's markup.
    max_elements : int, default :data:`mainentity.text.MAX_ELEMENTS`

    Returns
    -------
    problem : str

    Examples
    --------
    >>> markup_problem("<p>a</p><p>b</p>", max_elements=2)
    ''
    >>> markup_problem("<p>a</p>" * 3, max_elements=2)
    "over 2 elements (start tags): not rendered, to bound the browser's memory"
    """
    if has_more_elements(html, max_elements):
        return f"over {max_elements} elements (start tags): not rendered, to bound the browser's memory"
    return ""


def load_url(page: Page) -> str:
    """The URL a page is loaded under: its own when http(s), else one under :data:`PLACEHOLDER_ORIGIN`.

    >>> load_url(Page("s", "a b.htm", "file:///dump/a b.htm", ""))
    'http://mainentity.invalid/a%20b.htm'
    >>> load_url(Page("s", "1.htm", "https://shop.test/1", ""))
    'https://shop.test/1'
    """
    if page.url.lower().startswith(("http://", "https://")):
        return page.url
    return PLACEHOLDER_ORIGIN + quote(page.path.lstrip("/"))


def _text_blocks(rows) -> tuple[TextBlock, ...]:
    """Text blocks (or segments, whose rows carry a 15th field, the kind) from ``blocks.js`` rows."""
    blocks = []
    for row in rows:
        text = collapse_whitespace(row[0])
        if not text:
            continue
        blocks.append(
            TextBlock(
                text, row[1], row[2], float(row[3]), int(row[4]), bool(row[5]), float(row[6]), float(row[7]),
                float(row[8]), float(row[9]), bool(row[10]), int(row[11]), bool(row[12]), bool(row[13]),
                str(row[14]) if len(row) > 14 else "block",
            )
        )
    return tuple(blocks)


def parse_blocks_payload(payload: dict) -> RenderedPage:
    """Turn the decoded JSON returned by ``blocks.js`` into a :class:`RenderedPage`.

    Block texts, the title and meta contents are whitespace-collapsed with
    :func:`mainentity.text.collapse_whitespace` (the title cut at any markup,
    :func:`mainentity.text.title_text`); blocks that end up empty are dropped.

    Parameters
    ----------
    payload : dict
        ``{"title", "meta", "width", "height", "blocks": [[text, tag, dom_path, font_size,
        font_weight, bold, x, y, width, height, in_link, heading_level, hidden, merged], ...],
        "segments": [[..., merged, kind], ...]}`` (``segments`` optional).

    Returns
    -------
    rendered : RenderedPage

    Raises
    ------
    ValueError
        If the payload does not have that shape.

    Examples
    --------
    >>> p = parse_blocks_payload({"title": " A  page ", "meta": [["og:title", "A"]], "width": 1024,
    ...     "height": 900, "blocks": [["Hi\\n there", "h1", "html[0]/body[1]/h1[0]", 32, 700, 1,
    ...     8, 21.5, 120, 37, 0, 1, 0, 0]]})
    >>> p.title, p.meta_titles, p.blocks[0].text, p.blocks[0].bold, p.blocks[0].heading_level
    ('A page', ('A',), 'Hi there', True, 1)
    """
    try:
        data = payload
        return RenderedPage(
            title=title_text(data["title"]),
            meta=tuple((key, collapse_whitespace(content)) for key, content in data["meta"]),
            blocks=_text_blocks(data["blocks"]),
            width=float(data["width"]),
            height=float(data["height"]),
            segments=_text_blocks(data.get("segments", ())),
        )
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(f"malformed blocks.js payload: {exc}") from exc


def chromium_args(settings: RenderSettings) -> list[str]:
    """The switches Chromium is started with: :data:`CHROMIUM_ARGS`, plus :data:`NO_IMAGES_ARG`
    when subresources are not served.

    >>> NO_IMAGES_ARG in chromium_args(RenderSettings(subresources=False))
    True
    >>> chromium_args(RenderSettings()) == list(CHROMIUM_ARGS)
    True
    """
    return [*CHROMIUM_ARGS, *(() if settings.subresources else (NO_IMAGES_ARG,))]


@functools.lru_cache(maxsize=8)
def browser_version(executable_path: str) -> str:
    """The first line ``<executable_path> --version`` prints, e.g. "Chromium 156.0.8078.114 built on Debian".

    Asked once per path and process (about 60 ms). A browser that is missing or does not answer
    within 10 seconds gives ``"unknown (<reason>)"``, so pages can still be looked up in a cache.

    >>> browser_version("/no/such/chromium")
    'unknown (not found)'
    """
    try:
        executable = check_executable(executable_path)
        done = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=10, check=False)
    except FileNotFoundError:
        return "unknown (not found)"
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unknown ({type(error).__name__})"
    lines = done.stdout.strip().splitlines()
    return lines[0].strip() if lines else f"unknown (exit status {done.returncode}, no output)"


def check_executable(path: str) -> str:
    """Return the Chromium executable's path, or raise a clear error if it is not there.

    Raises
    ------
    FileNotFoundError
        If ``path`` is not an executable file (nor a command on ``PATH``).
    """
    found = path if os.path.isfile(path) and os.access(path, os.X_OK) else shutil.which(path)
    if not found:
        raise FileNotFoundError(f"Chromium executable not found at {path!r}: {_INSTALL_HINT}")
    return found


class _Tab:
    """One browser context with one tab (of ``browser``), the page its router serves and that page's
    requests."""

    def __init__(self, browser, context, page) -> None:
        self.browser = browser
        self.context = context
        self.page = page
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
        """Serve ``page`` (and subresources from ``files``) from the next navigation on."""
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


class _TabFailure(Exception):
    """An attempt failed in a way that leaves the tab unusable."""


class _OverMemoryCap(_TabFailure):
    """The tab's renderer was killed for going past the memory cap: the page is not retried."""


class Renderer:
    """A headless Chromium that renders batches of pages into text blocks.

    A context manager: entering starts Playwright and one browser, leaving closes them. Pages are served
    from their markup (``page.html``) under their own URL (:func:`load_url`); every other request,
    including navigations away from the page, is aborted and counted in ``n_requests_blocked``.

    Parameters
    ----------
    settings : RenderSettings
        Browser and batch settings.

    Attributes
    ----------
    n_requests_blocked : int
        Requests aborted by the router since the browser started (scripts, navigations, and images, CSS
        and fonts that are not in the dump or when subresources are off).
    n_tabs_replaced : int
        Tabs closed after a crash, a timeout or another failure and replaced by fresh ones (the tabs of
        a lost Chromium included).
    n_browser_restarts : int
        Times Chromium was relaunched after it (or its Playwright driver) was found gone: disconnected
        (:meth:`playwright.async_api.Browser.is_connected`), or no longer answering after a failed
        attempt. Each relaunch logs a warning naming the reason.

    Raises
    ------
    FileNotFoundError
        On entering, if the Chromium executable does not exist.
    RuntimeError
        On entering, if Chromium does not start.

    Examples
    --------
    Not run here (it starts Chromium)::

        with Renderer(RenderSettings(concurrency=2)) as renderer:
            for outcome in renderer.render(pages):
                print(outcome.page.path, outcome.error or len(outcome.rendered.blocks))
    """

    def __init__(self, settings: RenderSettings = RenderSettings()) -> None:  # noqa: B008 (frozen)
        self.settings = settings
        self.n_requests_blocked = 0
        self.n_tabs_replaced = 0
        self.n_browser_restarts = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._executable = ""
        self._playwright = None
        self._browser = None
        self._pool: asyncio.Queue | None = None
        self._closing: set[asyncio.Future] = set()
        self._relaunching: asyncio.Lock | None = None
        self._n_launches_without_render = 0
        self._given_up = ""  # why Chromium is not relaunched again in this batch; "" while it may be
        self._memory_cap: RendererMemoryCap | None = None

    # -- lifecycle -------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """Whether the renderer has been started and not closed since (a lost Chromium is relaunched
        on its next use, so it need not be alive at this moment)."""
        return self._loop is not None

    def __enter__(self) -> Renderer:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def start(self) -> None:
        """Start Playwright and Chromium (idempotent).

        Raises
        ------
        FileNotFoundError
            If the Chromium executable does not exist.
        RuntimeError
            If Chromium fails to launch.
        """
        if self._loop is not None:
            return
        executable = check_executable(self.settings.executable_path)
        self._executable = executable
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mainentity-render", daemon=True)
        self._thread.start()
        self._memory_cap = RendererMemoryCap(self.settings.max_renderer_mb)
        try:
            self._call(self._start_pool())
        except Exception as exc:
            self.close()
            raise RuntimeError(f"Chromium at {executable!r} failed to start: {exc}; {_INSTALL_HINT}") from exc

    def close(self) -> None:
        """Close the browser and Playwright and stop the background thread (idempotent)."""
        if self._loop is None:
            return
        try:
            self._call(self._shutdown(), timeout=30)
        except Exception as exc:  # a browser that will not close must not hide the caller's error
            logger.warning("closing Chromium failed: %s", exc)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
        self._loop = self._thread = None
        self._memory_cap.close()

    def _call(self, coro, timeout: float | None = None):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    async def _start_pool(self) -> None:
        await self._launch()
        self._relaunching = asyncio.Lock()
        self._pool = asyncio.Queue()
        for _ in range(self.settings.concurrency):
            self._pool.put_nowait(None)  # tabs are opened on first use

    async def _launch(self) -> None:
        """Start a Playwright driver and a Chromium in it (``self._executable``, :func:`chromium_args`),
        its renderers under the memory cap."""
        from playwright.async_api import async_playwright

        playwright = await async_playwright().start()
        switch = launch_switch()
        try:
            browser = await playwright.chromium.launch(
                executable_path=self._executable, headless=True, args=[*chromium_args(self.settings), switch]
            )
        except Exception:
            await playwright.stop()
            raise
        self._playwright, self._browser = playwright, browser
        self._memory_cap.watch(switch)

    async def _shutdown(self) -> None:
        if self._browser is not None:
            await self._browser.close()
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None

    # -- a lost browser ----------------------------------------------------------------------------
    async def _ensure_browser(self) -> None:
        """Before a tab is opened: wait for a relaunch under way, and relaunch a disconnected Chromium.

        Raises
        ------
        _TabFailure
            If Chromium was given up on in this batch, or cannot be relaunched now.
        """
        async with self._relaunching:
            if not self._given_up and (self._browser is None or not self._browser.is_connected()):
                await self._relaunch("Chromium disconnected" if self._browser else "Chromium is not running")
            if self._given_up:
                raise _TabFailure(self._given_up)

    async def _recover(self, browser, failure: str) -> None:
        """After an attempt failed in ``browser``: relaunch Chromium if that browser is the current one
        and really gone (disconnected, or its driver or Chromium no longer answers)."""
        async with self._relaunching:
            if browser is not self._browser or self._given_up:
                return  # another page's attempt relaunched it (or gave up) meanwhile
            reason = await _lost_reason(browser)
            if reason:
                await self._relaunch(f"{reason}; a page failed with: {failure}")

    async def _relaunch(self, reason: str) -> None:
        """Replace the lost Chromium and driver by new ones (call with ``_relaunching`` held).

        The tabs of the lost browser are discarded by :meth:`_acquire` as they come back to the pool.
        After :data:`MAX_LAUNCHES_WITHOUT_RENDER` launches with no page rendered since the first,
        ``_given_up`` says why, and no tab is opened again in this batch.
        """
        logger.warning("Chromium is gone (%s); relaunching it", reason)
        await _stop_quietly(self._browser, self._playwright)  # frees its memory first (an OOM kill)
        self._browser = self._playwright = None
        while self._n_launches_without_render < MAX_LAUNCHES_WITHOUT_RENDER:
            self._n_launches_without_render += 1
            try:
                await self._launch()
            except Exception as exc:
                reason = f"relaunching Chromium at {self._executable!r} failed: {_first_line(exc)}"
                logger.warning("%s", reason)
                continue
            self.n_browser_restarts += 1
            return
        self._given_up = (
            f"Chromium was lost and launched {MAX_LAUNCHES_WITHOUT_RENDER} times in a row with no page "
            f"rendered in between (last: {reason}); not relaunched again in this batch"
        )
        logger.error("%s", self._given_up)

    # -- tabs --------------------------------------------------------------------------------------
    async def _new_tab(self) -> _Tab:
        s = self.settings
        context = await self._browser.new_context(
            viewport={"width": s.viewport_width, "height": s.viewport_height},
            java_script_enabled=s.javascript is True,
            service_workers="block",
            accept_downloads=False,
        )
        try:
            page = await context.new_page()
        except BaseException:
            await context.close()
            raise
        tab = _Tab(self._browser, context, page)

        async def route(route) -> None:
            request = route.request
            navigation = request.is_navigation_request()
            if not tab.served and navigation:
                tab.served = True
                await route.fulfill(status=200, headers=tab.headers, body=tab.document)
                return
            if not navigation and request.resource_type in SERVED_RESOURCE_TYPES:
                found = tab.files.find(request.url, tab.url, tab.path) if tab.files is not None else None
                tab.subresources.append((request.url, found.sha256 if found is not None else ""))
                if found is not None:
                    await route.fulfill(
                        status=200,
                        headers={
                            "content-type": found.content_type or _content_type(request.resource_type, found.path),
                            "access-control-allow-origin": "*",  # web fonts from another host
                        },
                        body=found.data,
                    )
                    return
            self.n_requests_blocked += 1
            if not navigation:
                tab.n_blocked += 1
            # "aborted" cancels a navigation in place (the document stays); other requests just fail.
            await route.abort("aborted" if navigation else "blockedbyclient")

        async def close_popup(popup) -> None:
            if popup is not tab.page:
                await popup.close()

        async def close_web_socket(web_socket) -> None:
            self.n_requests_blocked += 1
            await web_socket.close()

        def on_crash(_page) -> None:
            tab.crashed = True

        await context.route("**/*", route)
        await context.route_web_socket("**/*", close_web_socket)
        context.on("page", close_popup)
        page.on("crash", on_crash)
        page.set_default_timeout(2 * s.timeout_s * 1000)  # the attempt's own timeout comes first
        return tab

    async def _acquire(self) -> _Tab:
        await self._ensure_browser()
        tab = await self._pool.get()
        if tab is not None and (tab.crashed or tab.page.is_closed() or tab.browser is not self._browser):
            self._discard(tab)  # crashed while idle, or a tab of a lost browser
            tab = None
        if tab is None:
            try:
                tab = await self._new_tab()
            except BaseException:
                self._pool.put_nowait(None)
                raise
        return tab

    def _release(self, tab: _Tab, healthy: bool) -> None:
        if healthy and not tab.crashed:
            self._pool.put_nowait(tab)
            return
        self._pool.put_nowait(None)
        self._discard(tab)

    def _discard(self, tab: _Tab) -> None:
        """Close a broken tab's context in the background (a hung renderer must not block the batch)."""
        self.n_tabs_replaced += 1
        task = asyncio.ensure_future(self._close_context(tab.context))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    @staticmethod
    async def _close_context(context) -> None:
        try:
            await asyncio.wait_for(context.close(), timeout=10)
        except Exception as exc:
            logger.debug("closing a broken tab failed: %s", exc)

    # -- rendering ---------------------------------------------------------------------------------
    async def _navigate(self, tab: _Tab, page: Page, files: SubresourceSource | None) -> None:
        """Serve ``page`` into ``tab`` under :func:`load_url` and wait for the navigation's commit.

        Playwright's own "load" wait never ends when the page starts a navigation that the router
        then cancels, so the callers poll the document's readiness (:data:`_READY_JS`) instead.
        """
        tab.serve(page, files if self.settings.subresources else None)
        await tab.page.goto(tab.url, wait_until="commit")

    async def _load(self, tab: _Tab, page: Page, files: SubresourceSource | None) -> None:
        """Serve ``page`` (and subresources from ``files``) into ``tab`` and wait until it is ready
        (:data:`_READY_JS`)."""
        await self._navigate(tab, page, files)
        while not await tab.page.evaluate(_READY_JS):
            await asyncio.sleep(_POLL_S)

    async def _extract(self, tab: _Tab, page: Page, files: SubresourceSource | None) -> RenderOutcome:
        await self._navigate(tab, page, files)
        while (extracted := await tab.page.evaluate(_EXTRACT_WHEN_READY_JS, list(META_KEYS))) is None:
            await asyncio.sleep(_POLL_S)
        url = tab.page.url
        payload = json.loads(extracted)
        if payload.get("url") != url:
            raise _TabFailure(f"page navigated away to {payload.get('url')!r}")
        subresources = tuple(sorted(tab.subresources))
        n_served = sum(1 for _, sha256 in subresources if sha256)
        logger.debug("%s: %d subresources served, %d requests blocked", page_label(page), n_served, tab.n_blocked)
        return RenderOutcome(page, parse_blocks_payload(payload), "", subresources, n_served, tab.n_blocked)

    async def _attempt(self, page: Page, files: SubresourceSource | None) -> RenderOutcome:
        browser = self._browser
        try:
            outcome = await self._attempt_in_tab(page, files)
        except _TabFailure as exc:
            await self._recover(browser, str(exc))
            raise
        self._n_launches_without_render = 0
        return outcome

    async def _attempt_in_tab(self, page: Page, files: SubresourceSource | None) -> RenderOutcome:
        try:
            tab = await self._acquire()
        except _TabFailure:
            raise
        except Exception as exc:
            raise _TabFailure(f"could not open a tab: {_first_line(exc)}") from exc
        healthy, n_kills = False, self._memory_cap.n_kills
        try:
            outcome = await asyncio.wait_for(self._extract(tab, page, files), self.settings.timeout_s)
            healthy = True
            return outcome
        except asyncio.TimeoutError:
            raise _TabFailure(f"timed out after {self.settings.timeout_s:g} s") from None
        except Exception as exc:
            if tab.crashed or (not isinstance(exc, _TabFailure) and "crash" in str(exc).lower()):
                tab.crashed = True
                over_cap = self._memory_cap.claim_kill(since=n_kills)
                raise (_OverMemoryCap(over_cap) if over_cap else _TabFailure("the renderer tab crashed")) from exc
            if isinstance(exc, _TabFailure):
                raise
            raise _TabFailure(_first_line(exc)) from exc
        finally:
            self._release(tab, healthy)

    async def _render_one(self, page: Page, files: SubresourceSource | None) -> RenderOutcome:
        problem = markup_problem(page.html, self.settings.max_elements)
        if problem:
            return RenderOutcome(page, None, f"{page_label(page)}: {problem}")
        n_attempts = 1 + self.settings.retries
        reasons = []
        for attempt in range(n_attempts):
            try:
                return await self._attempt(page, files)
            except _TabFailure as exc:
                reasons.append(str(exc))
                logger.info("%s: attempt %d failed: %s", page_label(page), attempt + 1, exc)
                if isinstance(exc, _OverMemoryCap):
                    break  # it would only grow as large again
        detail = reasons[-1] if len(set(reasons)) == 1 else "; ".join(reasons)
        return RenderOutcome(
            page, None, f"{page_label(page)}: render failed after {len(reasons)} attempt(s): {detail}"
        )

    def render(
        self, pages: Iterable[Page], subresources: SubresourceSources | None = None
    ) -> Iterator[RenderOutcome]:
        """Render pages, ``settings.concurrency`` at a time, yielding each outcome as it finishes.

        A page that fails (timeout, crash, navigation away, bad markup) is retried ``settings.retries``
        times in a fresh tab, then yielded with ``rendered=None`` and an error naming it; the batch goes
        on. A page over ``settings.max_elements`` (:func:`markup_problem`) is yielded with its error at
        once, without Chromium; one whose renderer went past ``settings.max_renderer_mb`` after its
        first attempt. ``pages`` is consumed lazily.

        Parameters
        ----------
        pages : iterable of Page
        subresources : SubresourceSources, optional
            What serves each page's stylesheets, fonts and images when ``settings.subresources`` is on
            (:meth:`~mainentity.sitedump.SubresourceSources.for_page`); by default only a page whose URL
            is its file's ``file://`` URI finds the files of its directory.

        Yields
        ------
        outcome : RenderOutcome
            One per page, in order of completion (not input order).

        Raises
        ------
        RuntimeError
            If the renderer has not been started (use it as a context manager).
        TypeError
            If an item of ``pages`` is not a :class:`Page`.
        """
        if self._loop is None:
            raise RuntimeError("Renderer is not started; use `with Renderer(settings) as renderer:`")
        self._call(self._new_batch())
        window = 2 * self.settings.concurrency
        subresources = subresources if subresources is not None else SubresourceSources()
        source = iter(pages)
        pending: set[concurrent.futures.Future] = set()
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < window:
                    page = next(source, None)
                    if page is None:
                        exhausted = True
                    elif not isinstance(page, Page):
                        raise TypeError(f"render expects Page records; got {type(page).__name__}")
                    else:
                        rendering = self._render_one(page, subresources.for_page(page))
                        pending.add(asyncio.run_coroutine_threadsafe(rendering, self._loop))
                if not pending:
                    return
                done, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for future in done:
                    yield future.result()
        finally:
            for future in pending:
                future.cancel()

    async def _new_batch(self) -> None:
        """Let a batch relaunch a Chromium that an earlier batch gave up on (the cause may be gone)."""
        async with self._relaunching:
            self._given_up = ""
            self._n_launches_without_render = 0

    def screenshot(
        self,
        page: Page,
        path: str | os.PathLike,
        *,
        full_page: bool = True,
        boxes: Sequence[tuple[float, float, float, float]] = (),
        subresources: SubresourceSources | None = None,
    ) -> None:
        """Render one page and save a PNG screenshot of it, optionally with boxes drawn on top.

        The page is shown as the text block extraction sees it (a wholly hidden page un-hidden).

        Parameters
        ----------
        page : Page
        path : str or path-like
            Where to write the PNG.
        full_page : bool
            The whole laid-out page rather than the 1024x768 viewport.
        boxes : sequence of (x, y, width, height)
            Rectangles in CSS px from the page top (as in :class:`TextBlock`), outlined in red.
        subresources : SubresourceSources, optional
            What serves the page's stylesheets, fonts and images (as for :meth:`render`).

        Raises
        ------
        RuntimeError
            If the renderer is not started, or the page cannot be rendered.
        """
        if self._loop is None:
            raise RuntimeError("Renderer is not started; use `with Renderer(settings) as renderer:`")
        try:
            files = (subresources if subresources is not None else SubresourceSources()).for_page(page)
            self._call(self._screenshot(page, files, os.fspath(path), full_page, [list(b) for b in boxes]))
        except Exception as exc:
            raise RuntimeError(f"{page_label(page)}: screenshot failed: {exc}") from exc

    async def _screenshot(
        self, page: Page, files: SubresourceSource | None, path: str, full_page: bool, boxes: list
    ) -> None:
        problem = markup_problem(page.html, self.settings.max_elements)
        if problem:
            raise ValueError(problem)
        tab = await self._acquire()
        try:
            await asyncio.wait_for(self._load(tab, page, files), self.settings.timeout_s)
            # The extraction un-hides a wholly hidden page (module docstring): show what it saw.
            await tab.page.evaluate(BLOCKS_JS, list(META_KEYS))
            await tab.page.evaluate(_DRAW_BOXES_JS, boxes)
            await tab.page.screenshot(path=path, full_page=full_page)
        finally:
            # The overlay changed the DOM; a fresh tab keeps later renders clean.
            self._release(tab, healthy=False)


async def _lost_reason(browser) -> str:
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
        session = await asyncio.wait_for(browser.new_browser_cdp_session(), _PROBE_TIMEOUT_S)
        await asyncio.wait_for(session.detach(), _PROBE_TIMEOUT_S)
    except asyncio.TimeoutError:
        return ""
    except Exception as exc:
        return f"Chromium or its Playwright driver stopped answering: {_first_line(exc)}"
    return ""


async def _stop_quietly(browser, playwright) -> None:
    """Close a (lost) Chromium and stop its Playwright driver, each step bounded by
    :data:`_STOP_TIMEOUT_S`; failures are logged, not raised (the browser is being replaced)."""
    steps = [("closing Chromium", browser.close)] if browser is not None else []
    if playwright is not None:
        steps.append(("stopping Playwright", playwright.stop))
    for step, stop in steps:
        try:
            await asyncio.wait_for(stop(), _STOP_TIMEOUT_S)
        except Exception as exc:
            logger.debug("%s after it was lost failed: %s", step, _first_line(exc))


def _first_line(exc: BaseException) -> str:
    """The first line of an exception's message, or its type's name when it has none.

    >>> _first_line(ValueError("bad\\nmore")), _first_line(TimeoutError())
    ('bad', 'TimeoutError')
    """
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _content_type(resource_type: str, path: str) -> str:
    """The Content-Type a served dump file gets: CSS for stylesheets (wget and HTTrack may save them
    under other names), else the type its name suggests, else ``application/octet-stream`` (Chromium
    sniffs images and fonts).

    >>> _content_type("stylesheet", "css/site.css?v=2"), _content_type("image", "img/a.png")
    ('text/css', 'image/png')
    """
    if resource_type == "stylesheet":
        return "text/css"
    return mimetypes.guess_type(path, strict=False)[0] or "application/octet-stream"


_DRAW_BOXES_JS = """(boxes) => {
  for (const [x, y, w, h] of boxes) {
    const d = document.createElement("div");
    d.style.cssText = "position:absolute;box-sizing:border-box;border:2px solid red;" +
      "pointer-events:none;z-index:2147483647;left:" + x + "px;top:" + y + "px;width:" + w +
      "px;height:" + h + "px";
    document.documentElement.appendChild(d);
  }
}"""
