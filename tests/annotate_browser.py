"""Helpers to run `mainentity annotate` in-process and drive it with Debian's Chromium (tests and docs)."""

from __future__ import annotations

import contextlib
import threading
import time
from urllib.parse import urlsplit

from mainentity.annotate.app import app_url, bind, create_app, make_server
from mainentity.annotate.session import AnnotationSession
from mainentity.render.settings import CHROMIUM_ARGS

CHROMIUM = "/usr/bin/chromium"


@contextlib.contextmanager
def running_app(session: AnnotationSession, *, token: str | None = None, default_order: str | None = None):
    """Serve the session's app on a free loopback port in a thread; yield its URL; stop it after."""
    sock = bind("127.0.0.1", 0)
    server = make_server(create_app(session, token=token, default_order=default_order))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the annotate app did not start")
        time.sleep(0.02)
    try:
        yield app_url(sock, token)
    finally:
        server.should_exit = True
        thread.join(timeout=60)
        sock.close()


def driver_args(url: str) -> list[str]:
    """The renderer's Chromium switches (no sandbox, no background traffic, no DNS, every request to a
    dead proxy), except that the app's own loopback address bypasses the proxy and the resolver rule:
    the browser reaches the app and nothing else."""
    parts = urlsplit(url)
    changed = {
        "--proxy-bypass-list=": f"--proxy-bypass-list={parts.netloc}",
        "--host-resolver-rules=": f"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE {parts.hostname}",
    }
    args = []
    for arg in CHROMIUM_ARGS:
        prefix = next((p for p in changed if arg.startswith(p)), None)
        args.append(changed[prefix] if prefix else arg)
    return args


def open_app(playwright, url: str, *, viewport=(1400, 900)):
    """Launch Chromium for the app and open one tab on it; return ``(browser, context, page, foreign)``,
    where ``foreign`` collects every request the page made to anything but the app (each is aborted)."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=driver_args(url))
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    foreign: list[str] = []

    def guard(route) -> None:
        if route.request.url.startswith(origin + "/"):
            route.continue_()
        else:
            foreign.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.goto(url)
    return browser, context, page, foreign


def wait_for_page(page, path: str, timeout_ms: float = 60_000) -> None:
    """Wait until the app shows ``path`` with its screenshot loaded and its boxes drawn."""
    page.wait_for_selector(f'#shot[data-loaded="{path}"] .box', state="attached", timeout=timeout_ms)


def shown_path(page, timeout_ms: float = 60_000) -> str:
    """The path of the page the app shows, once it shows one with its screenshot and boxes."""
    page.wait_for_selector("body[data-page]", state="attached", timeout=timeout_ms)
    path = page.get_attribute("body", "data-page")
    wait_for_page(page, path, timeout_ms)
    return path


@contextlib.contextmanager
def app_in_chromium(session: AnnotationSession, **app_options):
    """Serve the session's app and open it in Chromium; yield ``(url, context, page, foreign)`` as
    :func:`open_app` gives them; close the browser and stop the app after."""
    from playwright.sync_api import sync_playwright

    with running_app(session, **app_options) as url, sync_playwright() as playwright:
        browser, context, page, foreign = open_app(playwright, url)
        try:
            yield url, context, page, foreign
        finally:
            browser.close()
