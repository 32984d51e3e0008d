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

Text blocks follow section 3.4.2 of the paper (:mod:`mainentity.render.blocks_payload`); the settings
and what a rendering gives are in :mod:`mainentity.render.settings`.

Playwright runs on its asyncio API in a background thread; :meth:`Renderer.render` is a plain
generator, so the renderer is usable from synchronous scripts.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import os
import threading
from collections.abc import Iterable, Iterator, Sequence

from mainentity.log_summary import RepeatedMessage
from mainentity.records import Page
from mainentity.render.blocks_payload import BLOCKS_JS, META_KEYS, parse_blocks_payload
from mainentity.render.memory import RendererMemoryCap, launch_switch
from mainentity.render.settings import (
    INSTALL_HINT,
    SERVED_RESOURCE_TYPES,
    RenderOutcome,
    RenderSettings,
    check_executable,
    chromium_args,
    markup_problem,
    page_label,
)
from mainentity.render.tab import (
    DRAW_BOXES_JS,
    RELAUNCH_GRACE_S,
    STOP_TIMEOUT_S,
    OverMemoryCap,
    Tab,
    TabFailure,
    TimedOut,
    close_context,
    content_type,
    first_line,
    lost_reason,
    stop_quietly,
    unread_failure_as_debug,
)
from mainentity.sitedump import SubresourceSource, SubresourceSources
from mainentity.text import counted

logger = logging.getLogger(__name__)

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
#: What Chromium reports for a navigation that another one cancelled (or that the router aborted).
_ABORTED = "net::ERR_ABORTED"

#: Launches of Chromium in a row, after it was lost, with no page rendered in between, after which a
#: batch gives up on it: a broken install or a browser that dies on every page cannot loop forever.
MAX_LAUNCHES_WITHOUT_RENDER = 3

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
        self._pools: dict[bool, asyncio.Queue] = {}  # idle tabs by whether their scripts run
        self._closing: set[asyncio.Future] = set()
        self._rendering: set[asyncio.Task] = set()  # the pages being rendered, cancelled on close
        self._stopping = False  # closing: a lost Chromium is not relaunched
        self._relaunching: asyncio.Lock | None = None
        self._n_launches_without_render = 0
        self._given_up = ""  # why Chromium is not relaunched again in this batch; "" while it may be
        self._memory_cap: RendererMemoryCap | None = None
        self._starting = threading.Lock()  # threads that share a renderer may start it at once

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
        """Start Playwright and Chromium (idempotent, thread-safe).

        Raises
        ------
        FileNotFoundError
            If the Chromium executable does not exist.
        RuntimeError
            If Chromium fails to launch.
        """
        with self._starting:
            self._start()

    def _start(self) -> None:
        if self._loop is not None:
            return
        executable = check_executable(self.settings.executable_path)
        self._executable = executable
        self._loop = asyncio.new_event_loop()
        self._loop.set_exception_handler(unread_failure_as_debug)
        self._stopping = False
        self._thread = threading.Thread(target=self._loop.run_forever, name="mainentity-render", daemon=True)
        self._thread.start()
        self._memory_cap = RendererMemoryCap(self.settings.max_renderer_mb)
        try:
            self._call(self._start_pool())
        except Exception as exc:
            self.close()
            raise RuntimeError(f"Chromium at {executable!r} failed to start: {exc}; {INSTALL_HINT}") from exc

    def close(self) -> None:
        """Cancel the pages still rendering, close the browser and Playwright, stop the thread (idempotent)."""
        if self._loop is None:
            return
        self._stopping = True
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
        self._pools = {}

    def _pool(self, scripts: bool) -> asyncio.Queue:
        """The idle tabs whose contexts run scripts (``scripts``) or not, ``settings.concurrency`` slots
        each (``None``: a tab opened on first use); the scripts-on pool of a renderer whose pages are
        rendered with scripts off first (``javascript: "auto"``) is made on its first use."""
        if scripts not in self._pools:
            self._pools[scripts] = asyncio.Queue()
            for _ in range(self.settings.concurrency):
                self._pools[scripts].put_nowait(None)
        return self._pools[scripts]

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
        for task in self._rendering:  # a batch left early (Ctrl-C, an error): none is left pending
            task.cancel()
        if self._rendering:
            await asyncio.wait(list(self._rendering), timeout=STOP_TIMEOUT_S)
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
        TabFailure
            If Chromium was given up on in this batch, or cannot be relaunched now.
        """
        async with self._relaunching:
            if not self._given_up and (self._browser is None or not self._browser.is_connected()):
                await self._relaunch("Chromium disconnected" if self._browser else "Chromium is not running")
            if self._given_up:
                raise TabFailure(self._given_up)

    async def _recover(self, browser, failure: str) -> None:
        """After an attempt failed in ``browser``: relaunch Chromium if that browser is the current one
        and really gone (disconnected, or its driver or Chromium no longer answers)."""
        async with self._relaunching:
            if browser is not self._browser or self._given_up:
                return  # another page's attempt relaunched it (or gave up) meanwhile
            reason = await lost_reason(browser)
            if reason:
                await self._relaunch(f"{reason}; a page failed with: {failure}")

    async def _relaunch(self, reason: str) -> None:
        """Replace the lost Chromium and driver by new ones (call with ``_relaunching`` held).

        The tabs of the lost browser are discarded by :meth:`_acquire` as they come back to the pool.
        After :data:`MAX_LAUNCHES_WITHOUT_RENDER` launches with no page rendered since the first,
        ``_given_up`` says why, and no tab is opened again in this batch. Ctrl-C stops the Playwright
        driver with this process: after :data:`RELAUNCH_GRACE_S` a renderer that the interrupted caller
        is closing meanwhile launches nothing (TabFailure).
        """
        await asyncio.sleep(RELAUNCH_GRACE_S)
        if self._stopping:
            raise TabFailure("the renderer is closing")
        logger.warning("Chromium is gone (%s); relaunching it", reason)
        await stop_quietly(self._browser, self._playwright)  # frees its memory first (an OOM kill)
        self._browser = self._playwright = None
        while self._n_launches_without_render < MAX_LAUNCHES_WITHOUT_RENDER:
            self._n_launches_without_render += 1
            try:
                await self._launch()
            except Exception as exc:
                reason = f"relaunching Chromium at {self._executable!r} failed: {first_line(exc)}"
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
    async def _new_tab(self, scripts: bool) -> Tab:
        s = self.settings
        context = await self._browser.new_context(
            viewport={"width": s.viewport_width, "height": s.viewport_height},
            java_script_enabled=scripts,
            service_workers="block",
            accept_downloads=False,
        )
        try:
            page = await context.new_page()
        except BaseException:
            await context.close()
            raise
        tab = Tab(self._browser, context, page, scripts)

        async def route(route) -> None:
            request = route.request
            navigation = request.is_navigation_request()
            # the renderer's own navigation carries no Referer; one a script of the tab's last page
            # started late (a pooled tab) does, and must not take the document served for this one
            if not tab.served and navigation and "referer" not in request.headers:
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
                            "content-type": found.content_type or content_type(request.resource_type, found.path),
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

    async def _acquire(self, scripts: bool) -> Tab:
        """An idle tab whose scripts run (``scripts``) or not, opened if its pool has none."""
        await self._ensure_browser()
        pool = self._pool(scripts)
        tab = await pool.get()
        if tab is not None and (tab.crashed or tab.page.is_closed() or tab.browser is not self._browser):
            self._discard(tab)  # crashed while idle, or a tab of a lost browser
            tab = None
        if tab is None:
            try:
                tab = await self._new_tab(scripts)
            except BaseException:
                pool.put_nowait(None)
                raise
        return tab

    def _release(self, tab: Tab, healthy: bool) -> None:
        """Give ``tab`` back to its pool, or, when it is not healthy (crashed, timed out: a page whose
        scripts loop), close its context, which ends its renderer process, and free its slot."""
        pool = self._pool(tab.scripts)
        if healthy and not tab.crashed:
            pool.put_nowait(tab)
            return
        pool.put_nowait(None)
        self._discard(tab)

    def _discard(self, tab: Tab) -> None:
        """Close a broken tab's context in the background (a hung renderer must not block the batch)."""
        self.n_tabs_replaced += 1
        task = asyncio.ensure_future(close_context(tab.context))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    # -- rendering ---------------------------------------------------------------------------------
    async def _navigate(self, tab: Tab, page: Page, files: SubresourceSource | None) -> None:
        """Serve ``page`` into ``tab`` under :func:`load_url` and wait for the navigation's commit.

        Playwright's own "load" wait never ends when the page starts a navigation that the router
        then cancels, so the callers poll the document's readiness (:data:`_READY_JS`) instead.

        A pooled tab's last page lives until this navigation commits, and a navigation its scripts start
        meanwhile (a timer's ``location.replace``) cancels this one (``net::ERR_ABORTED``): the tab is then
        blanked, which ends that page and its timers, and the page loaded again, once.
        """
        served_files = files if self.settings.subresources else None
        tab.serve(page, served_files)
        try:
            await tab.page.goto(tab.url, wait_until="commit")
        except Exception as error:
            if _ABORTED not in str(error):
                raise
            logger.debug("%s: its load was cancelled by the tab's last page; loaded again", page_label(page))
            await tab.page.goto("about:blank")
            tab.serve(page, served_files)
            await tab.page.goto(tab.url, wait_until="commit")

    async def _load(self, tab: Tab, page: Page, files: SubresourceSource | None) -> None:
        """Serve ``page`` (and subresources from ``files``) into ``tab`` and wait until it is ready
        (:data:`_READY_JS`)."""
        await self._navigate(tab, page, files)
        while not await tab.page.evaluate(_READY_JS):
            await asyncio.sleep(_POLL_S)

    async def _extract(self, tab: Tab, page: Page, files: SubresourceSource | None) -> RenderOutcome:
        await self._navigate(tab, page, files)
        while (extracted := await tab.page.evaluate(_EXTRACT_WHEN_READY_JS, list(META_KEYS))) is None:
            await asyncio.sleep(_POLL_S)
        url = tab.page.url
        payload = json.loads(extracted)
        if payload.get("url") != url:
            raise TabFailure(f"page navigated away to {payload.get('url')!r}")
        subresources = tuple(sorted(tab.subresources))
        n_served = sum(1 for _, sha256 in subresources if sha256)
        logger.debug("%s: %d subresources served, %d requests blocked", page_label(page), n_served, tab.n_blocked)
        return RenderOutcome(page, parse_blocks_payload(payload), "", subresources, n_served, tab.n_blocked)

    async def _attempt(self, page: Page, files: SubresourceSource | None, scripts: bool) -> RenderOutcome:
        browser = self._browser
        try:
            outcome = await self._attempt_in_tab(page, files, scripts)
        except TabFailure as exc:
            await self._recover(browser, str(exc))
            if isinstance(exc, TimedOut) and self._browser is not browser:
                raise TabFailure(str(exc)) from exc  # Chromium was lost meanwhile: not the page's own doing
            raise
        self._n_launches_without_render = 0
        return outcome

    async def _attempt_in_tab(self, page: Page, files: SubresourceSource | None, scripts: bool) -> RenderOutcome:
        try:
            tab = await self._acquire(scripts)
        except TabFailure:
            raise
        except Exception as exc:
            raise TabFailure(f"could not open a tab: {first_line(exc)}") from exc
        healthy, n_kills = False, self._memory_cap.n_kills
        try:
            outcome = await asyncio.wait_for(self._extract(tab, page, files), self.settings.timeout_s)
            healthy = True
            return outcome
        except asyncio.TimeoutError:
            raise TimedOut(f"timed out after {self.settings.timeout_s:g} s") from None
        except Exception as exc:
            if tab.crashed or (not isinstance(exc, TabFailure) and "crash" in str(exc).lower()):
                tab.crashed = True
                over_cap = self._memory_cap.claim_kill(since=n_kills)
                raise (OverMemoryCap(over_cap) if over_cap else TabFailure("the renderer tab crashed")) from exc
            if isinstance(exc, TabFailure):
                raise
            raise TabFailure(first_line(exc)) from exc
        finally:
            self._release(tab, healthy)

    async def _render_one(self, page: Page, files: SubresourceSource | None, scripts: bool,
                          n_attempts: int, failed_attempts: RepeatedMessage) -> RenderOutcome:
        self._rendering.add(task := asyncio.current_task())
        task.add_done_callback(self._rendering.discard)
        problem = markup_problem(page.html, self.settings.max_elements)
        if problem:
            return RenderOutcome(page, None, f"{page_label(page)}: {problem}")
        reasons, timed_out = [], False
        for attempt in range(n_attempts):
            try:
                return await self._attempt(page, files, scripts)
            except TabFailure as exc:
                reasons.append(str(exc))
                timed_out = isinstance(exc, TimedOut)
                failed_attempts.add(page_label(page), f"{page_label(page)}: attempt {attempt + 1} failed: {exc}")
                if isinstance(exc, OverMemoryCap):
                    break  # it would only grow as large again
        detail = reasons[-1] if len(set(reasons)) == 1 else "; ".join(reasons)
        return RenderOutcome(
            page, None, f"{page_label(page)}: render failed after {len(reasons)} attempt(s): {detail}",
            timed_out=timed_out,
        )

    def render(
        self, pages: Iterable[Page], subresources: SubresourceSources | None = None, *, scripts: bool = False
    ) -> Iterator[RenderOutcome]:
        """Render pages, ``settings.concurrency`` at a time, yielding each outcome as it finishes.

        A page that fails (timeout, crash, navigation away, bad markup) is retried ``settings.retries``
        times in a fresh tab, then yielded with ``rendered=None`` and an error naming it; the batch goes
        on; the failed attempts are logged once when the batch ends (info; ``-v`` lists each:
        :class:`mainentity.log_summary.RepeatedMessage`). A page over ``settings.max_elements``
        (:func:`markup_problem`) is yielded with its error at
        once, without Chromium; one whose renderer went past ``settings.max_renderer_mb`` after its
        first attempt. ``pages`` is consumed lazily.

        Parameters
        ----------
        pages : iterable of Page
        subresources : SubresourceSources, optional
            What serves each page's stylesheets, fonts and images when ``settings.subresources`` is on
            (:meth:`~mainentity.sitedump.SubresourceSources.for_page`); by default only a page whose URL
            is its file's ``file://`` URI finds the files of its directory.
        scripts : bool
            Render with the pages' scripts on whatever ``settings.javascript`` says: the second
            rendering of ``javascript: "auto"``, in tabs of their own in the same Chromium (same
            routing, memory cap and timeout), each page tried once (a page whose scripts loop would
            only time out again; its tab is closed, which ends its renderer process). The tabs stay open
            for the next pages until :meth:`close_idle_tabs`.

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
        second_rendering = scripts and self.settings.javascript is not True  # once: a loop would loop again
        n_attempts = 1 if second_rendering else 1 + self.settings.retries
        scripts = scripts or self.settings.javascript is True
        subresources = subresources if subresources is not None else SubresourceSources()
        source = iter(pages)
        pending: set[concurrent.futures.Future] = set()
        exhausted, n_pages = False, 0
        failed_attempts = RepeatedMessage(logger, "{n} rendering attempts failed over {total} pages (a page is "
                                          f"tried {counted(n_attempts, 'time')} at most)", level=logging.INFO)
        try:
            while True:
                while not exhausted and len(pending) < window:
                    page = next(source, None)
                    if page is None:
                        exhausted = True
                    elif not isinstance(page, Page):
                        raise TypeError(f"render expects Page records; got {type(page).__name__}")
                    else:
                        n_pages += 1
                        rendering = self._render_one(page, subresources.for_page(page), scripts, n_attempts,
                                                     failed_attempts)
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
            failed_attempts.log(total=n_pages)

    def close_idle_tabs(self, scripts: bool) -> int:
        """Close the idle tabs whose scripts run (``scripts``) or not, which ends their renderer processes.

        :func:`~mainentity.render.cache.render_pages` closes the scripts-on tabs of ``javascript: "auto"``
        once a chunk's second renderings are done: few pages need them, and a long crawl should not keep
        one more renderer process per slot. Tabs in use are left alone; a closed tab's slot opens a new
        one on its next use. Nothing happens when the renderer is not running.

        Returns
        -------
        n_closed : int
            Idle tabs closed.
        """
        if self._loop is None:
            return 0
        return self._call(self._close_idle_tabs(scripts))

    async def _close_idle_tabs(self, scripts: bool) -> int:
        pool = self._pools.get(scripts)
        if pool is None:
            return 0
        idle = []
        for _ in range(pool.qsize()):  # no await in between: every slot is seen once and given back empty
            tab = pool.get_nowait()
            pool.put_nowait(None)
            if tab is not None and (tab.crashed or tab.page.is_closed() or tab.browser is not self._browser):
                self._discard(tab)  # as _acquire would: crashed while idle, or a tab of a lost browser
            elif tab is not None:
                idle.append(tab)
        await asyncio.gather(*(close_context(tab.context) for tab in idle))
        return len(idle)

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
        scripts: bool = False,
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
        scripts : bool
            Run the page's scripts whatever ``settings.javascript`` says (as for :meth:`render`): pass
            ``bool(outcome.scripts)`` of the page's :class:`RenderOutcome`, so that under
            ``javascript: "auto"`` a page read from its scripts-on rendering is shown as it was read.

        Raises
        ------
        RuntimeError
            If the renderer is not started, or the page cannot be rendered.
        """
        if self._loop is None:
            raise RuntimeError("Renderer is not started; use `with Renderer(settings) as renderer:`")
        try:
            files = (subresources if subresources is not None else SubresourceSources()).for_page(page)
            shot = self._screenshot(page, files, os.fspath(path), full_page, [list(b) for b in boxes],
                                    scripts or self.settings.javascript is True)
            self._call(shot)
        except Exception as exc:
            raise RuntimeError(f"{page_label(page)}: screenshot failed: {exc}") from exc

    async def _screenshot(
        self, page: Page, files: SubresourceSource | None, path: str, full_page: bool, boxes: list, scripts: bool
    ) -> None:
        problem = markup_problem(page.html, self.settings.max_elements)
        if problem:
            raise ValueError(problem)
        tab = await self._acquire(scripts)
        try:
            await asyncio.wait_for(self._load(tab, page, files), self.settings.timeout_s)
            # The extraction un-hides a wholly hidden page (module docstring): show what it saw.
            await tab.page.evaluate(BLOCKS_JS, list(META_KEYS))
            await tab.page.evaluate(DRAW_BOXES_JS, boxes)
            await tab.page.screenshot(path=path, full_page=full_page)
        finally:
            # The overlay changed the DOM; a fresh tab keeps later renders clean.
            self._release(tab, healthy=False)

