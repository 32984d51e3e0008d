"""How pages are rendered (:class:`RenderSettings`, Chromium's switches and executable) and what a
rendering gives (:class:`RenderOutcome`), for the renderer (:mod:`mainentity.render.browser`) and the
render cache."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from urllib.parse import quote

from mainentity.records import Page, RenderedPage
from mainentity.render.memory import default_max_renderer_mb
from mainentity.text import MAX_ELEMENTS, MAX_TEXT_CHARS, has_more_elements, has_more_text

#: Chromium features turned off. Chromium reads only the last ``--disable-features`` switch and Playwright
#: passes its own before ours, so this repeats Playwright's list (1.65: ``HttpsUpgrades`` among them, which
#: would send our ``http://`` pages to https; ``tests/test_render.py`` checks that ours still holds
#: all of it) and adds the address-bar popup that Chromium 151.0.7922.137 and later pre-render at start,
#: headless too: two renderers of their own, about 120 MB (PSS) per browser, measured on Chromium 156.
DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
)

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
    "--disable-features=" + ",".join(DISABLED_FEATURES),
)

#: Added to :data:`CHROMIUM_ARGS` when subresources are not served: images are then not even
#: requested, which gives the layout of blocked images at ~25% less CPU.
NO_IMAGES_ARG = "--blink-settings=imagesEnabled=false"

#: Response header of a page whose dump has nothing to serve: images other than ``data:`` URIs are
#: not requested (a policy the page sets itself still applies too).
NO_IMAGES_POLICY = {"content-security-policy": "img-src data:"}

#: Playwright resource types served from the dump (``@import`` and ``srcset`` arrive as these too).
SERVED_RESOURCE_TYPES = ("stylesheet", "font", "image")

#: URL a page is loaded under when its own URL is not http(s) (e.g. ``file://``).
PLACEHOLDER_ORIGIN = "http://mainentity.invalid/"

#: Environment variable naming the Chromium executable (the command line's ``--chromium`` sets it).
CHROMIUM_ENV = "MAINENTITY_CHROMIUM"

INSTALL_HINT = (
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
        Run the pages' scripts. ``False``: never; the DOM is then the HTML5 parse of the markup (with
        the parser's scripting flag off, so ``<noscript>`` content is parsed as markup). ``"auto"`` (the
        default): off, and a page whose rendering looks like an unfinished skeleton is rendered again
        with its scripts on, in the same Chromium (:mod:`mainentity.render.scripts`, done by
        :func:`mainentity.render.cache.render_pages` through ``Renderer.render(..., scripts=True)``;
        :meth:`Renderer.render` itself renders ``"auto"`` with scripts off).
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
    javascript: bool | str = "auto"
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
    timed_out : bool
        Whether the page failed because its last attempt ran past ``timeout_s`` in a Chromium that was not
        lost meanwhile (:class:`mainentity.render.tab.TimedOut`); the render cache remembers this of a
        second, scripts-on rendering (:func:`mainentity.render.cache.render_pages`).
    """

    page: Page
    rendered: RenderedPage | None
    error: str = ""
    subresources: tuple[tuple[str, str], ...] = ()
    n_subresources_served: int = 0
    n_subresources_blocked: int = 0
    scripts: str = ""
    timed_out: bool = False


def page_label(page: Page) -> str:
    """Name a page in messages as ``site_id/path``.

    >>> page_label(Page("shop", "pages/1.htm", "http://shop.test/1", ""))
    'shop/pages/1.htm'
    """
    return f"{page.site_id}/{page.path}" if page.site_id else page.path


def markup_problem(html: str, max_elements: int = MAX_ELEMENTS) -> str:
    """Why a page's markup is not given to Chromium or the static reader, or "" when it may be.

    A page with more than ``max_elements`` start tags (:func:`mainentity.text.has_more_elements`) or
    more than :data:`mainentity.text.MAX_TEXT_CHARS` characters of text
    (:func:`mainentity.text.has_more_text`) is refused: the memory a renderer needs grows with the
    elements laid out (about 5.4 KB each, :data:`mainentity.text.MAX_ELEMENTS`) and the text shaped,
    and the static reader's with both too.

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
    'over 2 elements (start tags): not read, to bound memory'
    >>> markup_problem("<p>" + "w" * 3_000_000 + "</p>")
    'over 2000000 characters of text: not read, to bound memory'
    """
    if has_more_elements(html, max_elements):
        return f"over {max_elements} elements (start tags): not read, to bound memory"
    if has_more_text(html):
        return f"over {MAX_TEXT_CHARS} characters of text: not read, to bound memory"
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
        raise FileNotFoundError(f"Chromium executable not found at {path!r}: {INSTALL_HINT}")
    return found
