"""Peers: each tool's title of small hand-made pages, offline, failures as error predictions."""

from __future__ import annotations

import importlib.metadata
import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from mainentity.recognizers import make_recognizer, peer_node, peers
from mainentity.recognizers.peers import (
    PEER_NAMES,
    DefuddleRecognizer,
    MozillaReadabilityRecognizer,
    PeerRecognizer,
    PeerUnavailableError,
    node_modules_dir,
    peer_versions,
)
from mainentity.records import Document, Page

REPO = Path(__file__).resolve().parents[1]

#: Peer name -> the Python module its tool provides (None: a node peer).
PEER_MODULES = {
    "trafilatura": "trafilatura",
    "goose3": "goose3",
    "newspaper4k": "newspaper",
    "readability-lxml": "readability",
    "mozilla-readability": None,
    "defuddle": None,
}
NODE_PEERS = [name for name, module in PEER_MODULES.items() if module is None]

ARTICLE = " ".join(["The Blue Widget 3000 is the bluest widget we have made, and it ships in a box."] * 12)

#: A product page: every peer should name its main entity "Blue Widget 3000".
PRODUCT_HTML = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8">
<title>Blue Widget 3000 | Acme Shop</title>
<meta property="og:title" content="Blue Widget 3000">
</head><body>
<nav><a href="/">Home</a> <a href="/widgets/">Widgets</a></nav>
<article><h1>Blue Widget 3000</h1><p>{ARTICLE}</p><p>{ARTICLE}</p></article>
<footer>Copyright Acme Shop</footer>
</body></html>"""

#: The same page stuffed with external resources a careless tool would fetch.
NETWORK_BAIT_HTML = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8">
<title>Blue Widget 3000 | Acme Shop</title>
<meta property="og:title" content="Blue Widget 3000">
<meta property="og:image" content="http://images.example.com/og.jpg">
<meta http-equiv="refresh" content="30; url=http://elsewhere.example.org/next.html">
<link rel="icon" href="http://static.example.com/favicon.ico">
<link rel="stylesheet" href="https://static.example.com/site.css">
<link rel="canonical" href="http://shop.example.com/blue-widget-3000">
<link rel="alternate" type="application/rss+xml" href="http://shop.example.com/feed.rss">
<script src="https://cdn.example.net/app.js"></script>
<script>fetch("http://tracker.example.com/hit");</script>
</head><body>
<article><h1>Blue Widget 3000</h1>
<img src="http://images.example.com/widget-large.jpg" width="800" height="600" alt="widget">
<img src="https://cdn.example.net/widget-side.png" width="400" height="300">
<p>{ARTICLE}</p>
<iframe src="https://video.example.com/embed/123" width="640" height="360"></iframe>
<video src="http://video.example.com/widget.mp4"></video>
<p>{ARTICLE} <a href="http://elsewhere.example.org/read-more">Read more</a></p>
</article></body></html>"""

URL = "http://shop.example.com/products/blue-widget-3000.html"


def _doc(html: str, path: str = "pages/1.html", url: str = URL) -> Document:
    return Document(Page(site_id="shop.example.com", path=path, url=url, html=html))


def _require_peer(name: str) -> None:
    """Skip when the peer's tool is genuinely not installed (never when it is)."""
    module = PEER_MODULES[name]
    if module is not None:
        pytest.importorskip(module, reason=f"peer {name!r}: not installed (pip install 'mainentity[peers]')")
    elif node_modules_dir(make_recognizer(name).npm_packages) is None or shutil.which("node") is None:
        pytest.skip(f"peer {name!r}: node or its npm packages not installed "
                    f"({peers.mozilla_readability_install_command()})")


@pytest.fixture(params=PEER_NAMES)
def peer_name(request) -> str:
    _require_peer(request.param)
    return request.param


def test_registry_builds_every_peer():
    for name in PEER_NAMES:
        recognizer = make_recognizer(name)
        assert isinstance(recognizer, PeerRecognizer)
        assert recognizer.peer_name == name
        assert recognizer.needs_render is False and recognizer.needs_training is False
        assert clone(recognizer).get_params() == recognizer.get_params()
        check_is_fitted(recognizer)  # stateless: predict needs no fit


def test_each_peer_names_the_product(peer_name):
    recognizer = make_recognizer(peer_name)
    assert recognizer.fit([]) is recognizer
    second = _doc(PRODUCT_HTML.replace("Blue Widget 3000", "Red Gadget Deluxe Edition"), path="pages/2.html",
                  url="http://shop.example.com/products/red-gadget.html")
    predictions = recognizer.predict([_doc(PRODUCT_HTML), second])
    assert [p.main_entity for p in predictions] == ["Blue Widget 3000", "Red Gadget Deluxe Edition"]
    assert [(p.site_id, p.path, p.url) for p in predictions] == [
        ("shop.example.com", "pages/1.html", URL),
        ("shop.example.com", "pages/2.html", "http://shop.example.com/products/red-gadget.html"),
    ]
    assert all(p.error == "" and p.candidates == () for p in predictions)


def test_title_tag_site_name(peer_name):
    """No og:title, no h1: all peers but goose3 and Defuddle cut the site name after the separator off ``<title>``.

    goose3 only cuts a site name that matches the URL's domain (here shop.example.com, not the
    "Christian Book Shop" of the title); Defuddle only one the page names (og:site_name, schema.org
    publisher, ...) or, unnamed, a dash suffix of at most 2 words.
    """
    title = "Know Your Bible: All 66 Books Explained - Christian Book Shop"
    html = f"<html><head><title>{title}</title></head><body><p>{ARTICLE}</p><p>{ARTICLE}</p></body></html>"
    (prediction,) = make_recognizer(peer_name).predict([_doc(html)])
    expected = title if peer_name in ("goose3", "defuddle") else "Know Your Bible: All 66 Books Explained"
    assert prediction.main_entity == expected


def test_defuddle_cuts_the_site_name_the_page_names():
    """Defuddle's own rules: the og:site_name is cut off ``<title>``; unnamed, a 1-2 word dash suffix is."""
    _require_peer("defuddle")
    title = "Know Your Bible: All 66 Books Explained - Christian Book Shop"
    body = f"<body><p>{ARTICLE}</p></body></html>"
    named = f'<html><head><title>{title}</title><meta property="og:site_name" content="Christian Book Shop">'
    short = "<html><head><title>Know Your Bible: All 66 Books Explained - Bookshop</title>"
    predictions = DefuddleRecognizer().predict([_doc(named + body), _doc(short + body, path="pages/2.html")])
    assert [p.main_entity for p in predictions] == ["Know Your Bible: All 66 Books Explained"] * 2


def test_predict_without_fit_and_on_no_pages(peer_name):
    recognizer = make_recognizer(peer_name)
    assert recognizer.predict([]) == []
    (prediction,) = recognizer.predict([_doc(PRODUCT_HTML)])
    assert prediction.main_entity == "Blue Widget 3000"


def test_empty_html_is_an_error_prediction_and_the_batch_goes_on(peer_name):
    predictions = make_recognizer(peer_name).predict([_doc("  \n"), _doc(PRODUCT_HTML, path="pages/2.html")])
    assert predictions[0].main_entity == ""
    assert "shop.example.com/pages/1.html" in predictions[0].error and "empty HTML" in predictions[0].error
    assert predictions[1].main_entity == "Blue Widget 3000" and predictions[1].error == ""


@pytest.mark.parametrize("name", ["goose3", "readability-lxml"])
def test_unparseable_page_is_an_error_prediction(name):
    """lxml finds no element in a comment-only page; goose3 and readability-lxml raise on it."""
    _require_peer(name)
    predictions = make_recognizer(name).predict([_doc("<!-- nothing here -->"),
                                                 _doc(PRODUCT_HTML, path="pages/2.html")])
    assert predictions[0].main_entity == ""
    assert predictions[0].error.startswith(f"{name} failed on page shop.example.com/pages/1.html: ")
    assert "Document is empty" in predictions[0].error
    assert predictions[1].main_entity == "Blue Widget 3000" and predictions[1].error == ""


def _raise_on_marker(original):
    def patched(*args, **kwargs):
        if any(isinstance(a, str) and "EXPLODE" in a for a in [*args, *kwargs.values()]):
            raise RuntimeError("boom\non two lines")
        return original(*args, **kwargs)
    return patched


def test_trafilatura_exception_is_an_error_prediction(monkeypatch):
    trafilatura = pytest.importorskip("trafilatura")
    monkeypatch.setattr(trafilatura, "extract_metadata", _raise_on_marker(trafilatura.extract_metadata))
    predictions = make_recognizer("trafilatura").predict([_doc("<p>EXPLODE</p>"),
                                                          _doc(PRODUCT_HTML, path="pages/2.html")])
    assert predictions[0].error == ("trafilatura failed on page shop.example.com/pages/1.html: "
                                    "RuntimeError: boom on two lines")
    assert predictions[1].main_entity == "Blue Widget 3000"


def test_newspaper4k_exception_is_an_error_prediction(monkeypatch):
    newspaper = pytest.importorskip("newspaper")
    original = newspaper.Article.download

    def download(self, input_html=None, *args, **kwargs):
        if input_html and "EXPLODE" in input_html:
            raise RuntimeError("boom")
        return original(self, input_html, *args, **kwargs)

    monkeypatch.setattr(newspaper.Article, "download", download)
    predictions = make_recognizer("newspaper4k").predict([_doc("<p>EXPLODE</p>"),
                                                          _doc(PRODUCT_HTML, path="pages/2.html")])
    assert predictions[0].error == ("newspaper4k failed on page shop.example.com/pages/1.html: "
                                    "RuntimeError: boom")
    assert predictions[1].main_entity == "Blue Widget 3000"


def _seconds(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def _heavy_page(n_divs: int) -> str:
    return "<html><head><title>Heavy</title></head><body>" + "<div><p>word, word.</p></div>" * n_divs


def test_mozilla_readability_page_timeout_restarts_node():
    """A page Readability cannot finish in time gets an error; a new node process answers the next page.

    Nothing depends on the machine's load: the timeout is 3 times what a fresh node process takes here,
    now, to start and answer the light page (so the light page always makes it), and the heavy page is
    made 3 times the timeout long by the cost of a page of 1000 blocks measured just before
    (Readability's time grows at least linearly with the page; the heavy page is cut at the timeout, so
    its size costs nothing).
    """
    _require_peer("mozilla-readability")
    roomy = MozillaReadabilityRecognizer(timeout=600.0)
    light_s = _seconds(lambda: roomy.predict([_doc(PRODUCT_HTML)]))
    timeout = max(2.0, 3 * light_s)
    n_divs = 1000
    per_n_divs_s = max(_seconds(lambda: roomy.predict([_doc(_heavy_page(n_divs))])) - light_s, 0.01)
    n_divs = min(n_divs * math.ceil(3 * timeout / per_n_divs_s), 100 * n_divs)  # at most 3 MB
    predictions = MozillaReadabilityRecognizer(timeout=timeout).predict(
        [_doc(_heavy_page(n_divs)), _doc(PRODUCT_HTML, path="pages/2.html")])
    assert predictions[0].error == ("mozilla-readability failed on page shop.example.com/pages/1.html: "
                                    f"no answer within {timeout:g} s")
    assert predictions[1].main_entity == "Blue Widget 3000" and predictions[1].error == ""


@pytest.mark.parametrize("name", NODE_PEERS)
def test_node_peers_survive_odd_urls_and_characters(name):
    _require_peer(name)
    odd = "<title>Caf\u00e9 \u6771\u4eac \U0001f600 \u2028 line</title><h1>x</h1>"
    predictions = make_recognizer(name).predict(
        [_doc(odd, url="not a url"), _doc(PRODUCT_HTML, path="pages/2.html", url="")])
    assert predictions[0].main_entity == "Caf\u00e9 \u6771\u4eac \U0001f600 line"
    assert predictions[1].main_entity == "Blue Widget 3000"


# --- no network -------------------------------------------------------------------------------------

_PYTHON_GUARD = textwrap.dedent("""
    import json, socket, sys
    attempts = []
    def refuse(*args, **kwargs):
        attempts.append(repr(args[1:] if args and isinstance(args[0], socket.socket) else args)[:200])
        raise OSError("network access is disabled in this test")
    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    socket.gethostbyname = refuse

    from mainentity.records import Document, Page
    from mainentity.recognizers import make_recognizer
    name, html, url = json.loads(sys.stdin.read())
    docs = [Document(Page("shop.example.com", "pages/1.html", url, html)),
            Document(Page("shop.example.com", "pages/2.html", url, ""))]
    predictions = make_recognizer(name).fit(docs).predict(docs)
    print(json.dumps({"titles": [p.main_entity for p in predictions],
                      "errors": [p.error for p in predictions], "attempts": attempts}))
""")


@pytest.mark.parametrize("name", [name for name in PEER_NAMES if PEER_MODULES[name] is not None])
def test_python_peers_never_touch_the_network(name):
    """Import the tool and extract in a fresh interpreter whose sockets refuse to connect or resolve.

    A fresh interpreter, so import-time downloads (NLTK data, public suffix lists) would be caught too;
    the second page has empty HTML and a URL, on which goose3 would download the URL if asked.
    """
    _require_peer(name)
    result = subprocess.run(
        [sys.executable, "-c", _PYTHON_GUARD], input=json.dumps([name, NETWORK_BAIT_HTML, URL]),
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["attempts"] == []
    assert report["titles"] == ["Blue Widget 3000", ""]
    assert report["errors"][0] == "" and "empty HTML" in report["errors"][1]


_NODE_GUARD = textwrap.dedent("""
    const fs = require("node:fs");
    const log = process.env.MAINENTITY_TEST_NETLOG;
    function refuse(what) {
      return function () {
        fs.appendFileSync(log, what + " " + JSON.stringify(Array.from(arguments).slice(0, 2)) + "\\n");
        throw new Error("network access is disabled in this test");
      };
    }
    const net = require("node:net");
    net.Socket.prototype.connect = refuse("net.Socket.connect");
    net.connect = net.createConnection = refuse("net.connect");
    const dns = require("node:dns");
    dns.lookup = refuse("dns.lookup");
    dns.promises.lookup = refuse("dns.promises.lookup");
    globalThis.fetch = refuse("fetch");
""")


def _node_guard(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """The environment that preloads the guard into every node process, and the guard's log (empty)."""
    guard, log = tmp_path / "guard.js", tmp_path / "net.log"
    guard.write_text(_NODE_GUARD, encoding="utf-8")
    log.write_text("", encoding="utf-8")
    return {"NODE_OPTIONS": f"--require {guard}", "MAINENTITY_TEST_NETLOG": str(log)}, log


@pytest.mark.parametrize("name", NODE_PEERS)
def test_node_peers_never_touch_the_network(name, tmp_path, monkeypatch):
    """node runs with a preloaded guard that logs and refuses every connection and DNS lookup."""
    _require_peer(name)
    env, log = _node_guard(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    predictions = make_recognizer(name).predict([_doc(NETWORK_BAIT_HTML), _doc("", path="pages/2.html")])
    assert log.read_text(encoding="utf-8") == ""
    assert [p.main_entity for p in predictions] == ["Blue Widget 3000", ""]
    assert "empty HTML" in predictions[1].error


def test_node_guard_catches_a_connection(tmp_path):
    """The guard above is not vacuous: a script that does connect is logged and refused."""
    _require_peer("mozilla-readability")
    env, log = _node_guard(tmp_path)
    script = "try { require('node:net').connect(9, '127.0.0.1'); } catch (e) { console.log(e.message); }"
    result = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60,
                            env={**os.environ, **env})
    assert "network access is disabled" in result.stdout
    assert log.read_text(encoding="utf-8").startswith("net.connect ")


YOUTUBE_URL = "https://www.youtube.com/watch?v=dQw4w9WgXcQ"


def test_defuddle_never_fetches_what_its_async_extractors_would(tmp_path, monkeypatch):
    """On a YouTube page, Defuddle's default ``parseAsync`` (what ``defuddle/node`` calls) fetches the
    video's transcript from YouTube's API; the peer makes no request and still names the page."""
    _require_peer("defuddle")
    env, log = _node_guard(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    (prediction,) = DefuddleRecognizer().predict([_doc(NETWORK_BAIT_HTML, url=YOUTUBE_URL)])
    assert log.read_text(encoding="utf-8") == ""
    assert prediction.main_entity == "Blue Widget 3000" and prediction.error == ""
    # The bait is real: Defuddle with its defaults, on the same page, does reach for the network.
    script = ("const { JSDOM } = require('jsdom'); const Defuddle = require('defuddle');"
              "const [html, url] = JSON.parse(require('node:fs').readFileSync(0, 'utf-8'));"
              "new Defuddle(new JSDOM(html, { url }).window.document, { url }).parseAsync()"
              ".then((result) => console.log(result.title));")
    result = subprocess.run(
        ["node", "-e", script], input=json.dumps([NETWORK_BAIT_HTML, YOUTUBE_URL]), capture_output=True,
        text=True, timeout=120,
        env={**os.environ, **env, "NODE_PATH": str(node_modules_dir(DefuddleRecognizer.npm_packages))},
    )
    assert result.stdout.strip() == "Blue Widget 3000", result.stderr[-2000:]
    assert log.read_text(encoding="utf-8").startswith('fetch ["https://www.youtube.com/')


# --- missing peers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [name for name in PEER_NAMES if PEER_MODULES[name] is not None])
def test_missing_python_peer_raises_with_install_command(name, monkeypatch):
    monkeypatch.setitem(sys.modules, PEER_MODULES[name], None)  # makes ``import`` raise ImportError
    recognizer = make_recognizer(name)
    with pytest.raises(PeerUnavailableError, match=r"pip install 'mainentity\[peers\]'"):
        recognizer.fit([])
    with pytest.raises(ImportError, match=name):
        recognizer.predict([_doc(PRODUCT_HTML)])


@pytest.mark.parametrize(("name", "tool_package"), [("mozilla-readability", "@mozilla/readability"),
                                                   ("defuddle", "defuddle")])
def test_missing_node_raises_with_install_command(name, tool_package, monkeypatch):
    monkeypatch.setenv("MAINENTITY_NODE", "no-such-node-binary")
    recognizer = make_recognizer(name)
    with pytest.raises(PeerUnavailableError, match="'no-such-node-binary' is not found"):
        recognizer.fit([])
    assert recognizer.version() == f"{tool_package} not installed"


@pytest.mark.parametrize("name", NODE_PEERS)
def test_missing_npm_packages_raise_with_npm_command(name, tmp_path, monkeypatch):
    package = tmp_path / "package"
    package.mkdir()
    shutil.copy(REPO / "mainentity/recognizers/mozilla_readability/package.json", package)
    monkeypatch.setattr(peer_node, "_NODE_PACKAGE_DIR", package)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert node_modules_dir() is None
    with pytest.raises(PeerUnavailableError, match="npm ci --prefix") as caught:
        make_recognizer(name).predict([_doc(PRODUCT_HTML)])
    assert f"needs the npm packages {' and '.join(make_recognizer(name).npm_packages)}," in str(caught.value)
    assert "defuddle@0.19." in str(caught.value) and "@mozilla/readability@" in str(caught.value)


def test_npm_packages_found_in_the_user_cache_per_peer(tmp_path, monkeypatch):
    """An older install with Readability and jsdom only serves that peer; Defuddle needs its own package."""
    package = tmp_path / "package"
    package.mkdir()
    shutil.copy(REPO / "mainentity/recognizers/mozilla_readability/package.json", package)
    monkeypatch.setattr(peer_node, "_NODE_PACKAGE_DIR", package)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    modules = tmp_path / "cache" / "mainentity" / "mozilla_readability" / "node_modules"
    (modules / "@mozilla" / "readability").mkdir(parents=True)
    (modules / "jsdom").mkdir()
    assert node_modules_dir(MozillaReadabilityRecognizer.npm_packages) == modules
    assert node_modules_dir(DefuddleRecognizer.npm_packages) is None
    with pytest.raises(PeerUnavailableError, match="needs the npm packages defuddle and jsdom"):
        DefuddleRecognizer().check_available()
    (modules / "defuddle").mkdir()
    assert node_modules_dir(DefuddleRecognizer.npm_packages) == modules


def test_install_command_pins_the_package_json_versions():
    manifest = json.loads((REPO / "mainentity/recognizers/mozilla_readability/package.json").read_text())
    command = peers.mozilla_readability_install_command()
    for name, version in manifest["dependencies"].items():
        assert f"{name}@{version}" in command


def test_peer_versions_match_installed_packages():
    _require_peer("trafilatura")
    versions = peer_versions(["trafilatura", "readability-lxml"])
    assert versions["trafilatura"] == f"trafilatura {importlib.metadata.version('trafilatura')}"
    with pytest.raises(ValueError, match="not a peer: msrbfn"):
        peer_versions(["msrbfn"])


@pytest.mark.parametrize(("name", "tool_package"), [("mozilla-readability", "@mozilla/readability"),
                                                   ("defuddle", "defuddle")])
def test_node_peer_version_names_the_npm_packages(name, tool_package):
    _require_peer(name)
    pinned = json.loads((REPO / "mainentity/recognizers/mozilla_readability/package.json").read_text())[
        "dependencies"]
    version = make_recognizer(name).version()
    assert version.startswith(f"{tool_package} {pinned[tool_package]}, jsdom {pinned['jsdom']}, node v")


def test_node_that_cannot_run_the_script_raises_with_its_error(monkeypatch):
    """A broken interpreter is no page's fault: predict raises, quoting what the process printed."""
    _require_peer("mozilla-readability")
    monkeypatch.setenv("MAINENTITY_NODE", sys.executable)  # the user's environment names the program
    with pytest.raises(RuntimeError, match="could not start extract_titles.js: .*SyntaxError"):
        MozillaReadabilityRecognizer().predict([_doc(PRODUCT_HTML)])
