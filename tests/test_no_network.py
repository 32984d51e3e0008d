"""No-network suite: pages that reach for a loopback HTTP server in every way a page can; it must get 0
requests, with the page's scripts off (the default) and on. Starts Chromium.

The same pages loaded by a bare Playwright Chromium (``set_content``, no routing) made 62 requests to
38 distinct paths of the server, so each reference below does reach out when nothing stops it.
"""

from __future__ import annotations

import http.server
import threading
import urllib.request

import pytest
from test_render import make_page, run_in_tab

from mainentity.records import Page
from mainentity.render import Renderer, RenderSettings

pytestmark = pytest.mark.browser


class _Recorder(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def _record(self):
        self.hits.append(f"{self.command} {self.path}")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_HEAD = do_OPTIONS = _record  # noqa: N815 (http.server's names)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}", _Recorder.hits
    server.shutdown()
    server.server_close()


def hostile_pages(host: str) -> list[Page]:
    """Pages referencing ``http://host/...`` through subresources, prefetch, forms, frames, refresh, CSS."""
    url = f"http://{host}"
    head = "".join([
        f'<link rel="stylesheet" href="{url}/link.css">',
        f'<link rel="alternate stylesheet" href="{url}/alt.css" title="alt">',
        f'<link rel="prefetch" href="{url}/prefetch">',
        f'<link rel="preload" href="{url}/preload.js" as="script">',
        f'<link rel="modulepreload" href="{url}/modulepreload.js">',
        f'<link rel="prerender" href="{url}/prerender">',
        f'<link rel="preconnect" href="{url}">',
        f'<link rel="dns-prefetch" href="{url}">',
        f'<link rel="icon" href="{url}/favicon.ico">',
        f'<link rel="manifest" href="{url}/manifest.json">',
        f'<script src="{url}/script.js"></script>',
        f'<script type="module" src="{url}/module.js"></script>',
        f'<script type="speculationrules">{{"prefetch": [{{"source": "list", "urls": ["{url}/speculation"]}}]}}'
        "</script>",
        f"<style>@import url({url}/import.css); @font-face {{ font-family: F; src: url({url}/font.woff); }}"
        f"body {{ background: url({url}/bg.png); cursor: url({url}/cursor.cur), auto; font-family: F; }}"
        f"ul {{ list-style-image: url({url}/bullet.png); }}</style>",
        f'<meta http-equiv="refresh" content="0; url={url}/refresh">',
    ])
    body = "".join([
        "<h1>Offline Page</h1><ul><li>item</li></ul>",
        f'<img src="{url}/img.png" alt="i"><img srcset="{url}/srcset.png 2x" alt="s">',
        f'<picture><source srcset="{url}/source.webp"><img alt="p"></picture>',
        f'<input type="image" src="{url}/input.png" alt="in">',
        f'<video poster="{url}/poster.png" src="{url}/video.mp4" autoplay></video>',
        f'<audio src="{url}/audio.mp3" autoplay><track src="{url}/track.vtt"></audio>',
        f'<object data="{url}/object.swf"></object><embed src="{url}/embed.swf">',
        f'<iframe src="{url}/iframe.htm"></iframe>',
        f'<iframe srcdoc="<img src=&quot;{url}/srcdoc.png&quot;>"></iframe>',
        f'<svg><image href="{url}/svg-image.png" width="10" height="10"/><use href="{url}/sprite.svg#a"/></svg>',
        f'<a ping="{url}/ping" href="{url}/link">a link</a>',
        f'<form id="f" action="{url}/form" method="post"><input name="q" value="x" autofocus>'
        f'<button formaction="{url}/formaction">go</button></form>',
        f'<p style="background-image: url({url}/inline-style.png)">styled</p>',
    ])
    script = (
        "<script>"
        f"var x = new XMLHttpRequest(); x.open('GET', '{url}/xhr', false); try {{ x.send(); }} catch (e) {{}}"
        f"fetch('{url}/fetch').catch(() => 0);"
        f"try {{ new WebSocket('ws://{host}/ws'); }} catch (e) {{}}"
        f"try {{ new EventSource('{url}/events'); }} catch (e) {{}}"
        f"try {{ navigator.sendBeacon('{url}/beacon', 'x'); }} catch (e) {{}}"
        f"try {{ new Worker('{url}/worker.js'); }} catch (e) {{}}"
        f"import('{url}/dynamic.js').catch(() => 0);"
        f"new Image().src = '{url}/image.gif';"
        f"try {{ window.open('{url}/popup'); }} catch (e) {{}}"
        "document.getElementById('f').submit();"
        f"setTimeout(() => location.assign('{url}/assign'), 10);"
        "</script>"
    )
    based = (f'<base href="{url}/base/">', '<img src="relative.png" alt="r"><a href="rel">rel</a><p>Based</p>')
    return [
        make_page(body + script, head=head, path="all.htm"),
        make_page(based[1], head=based[0], path="base.htm"),
        Page("shop", "frames.htm", "http://shop.test/frames.htm",
             f'<html><frameset cols="50%,50%"><frame src="{url}/frame1"><frame src="{url}/frame2"></frameset></html>'),
    ]


@pytest.mark.parametrize("javascript", [False, True], ids=["scripts off", "scripts on"])
def test_a_loopback_server_referenced_every_way_gets_no_request(server, javascript):
    host, hits = server
    with urllib.request.urlopen(f"http://{host}/probe", timeout=5):  # the recorder works
        pass
    assert hits == ["GET /probe"]
    hits.clear()
    pages = hostile_pages(host)
    with Renderer(RenderSettings(javascript=javascript, concurrency=1, timeout_s=15)) as renderer:
        outcomes = {outcome.page.path: outcome for outcome in renderer.render(pages)}
        assert [b.text for b in outcomes["all.htm"].rendered.blocks][:2] == ["Offline Page", "item"]
        assert "Based" in [b.text for b in outcomes["base.htm"].rendered.blocks]
        assert outcomes["frames.htm"].error == "" and outcomes["frames.htm"].rendered.blocks == ()
        for page in pages:  # give timers, refreshes, form posts and late requests time to try
            url, _ = run_in_tab(renderer, page, 1.0)
            assert url == page.url
        assert renderer.n_requests_blocked >= 20
    assert hits == []
