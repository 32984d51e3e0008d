"""Hostile inputs to the readers of site dumps and WARC files (issue 22): each is one error row, never a hang,
never unbounded memory, never the end of the batch.

Hang checks run the reader in a thread joined with a generous bound (a guard that fails the test instead
of hanging the suite, not a speed check); memory checks compare the process's peak RSS before and after
with a bound far below what reading the input whole would take.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import resource
import socket
import stat
import subprocess
import sys
import threading
import time
import zlib

import pytest
from conftest import REPO

from mainentity.sitedump import (
    MAX_MANIFEST_BYTES,
    MAX_MANIFEST_LINE_BYTES,
    MAX_PAGE_BYTES,
    PageReadError,
    find_page_files,
    read_manifest,
    read_page_bytes,
    read_site_dump,
)

#: Most the peak RSS of the test process may grow while reading an input that is 1-2 GB when read whole.
MAX_GROWTH_MB = 400
#: Seconds after which a reader that has not returned counts as hung (it returns in well under one).
HANG_GUARD_S = 120


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def without_hanging(function, *fifos):
    """``function()``'s result; fails (instead of hanging the suite) when it has not returned within
    :data:`HANG_GUARD_S`, then unblocks a reader stuck on one of ``fifos`` by opening it for writing."""
    result, error = [], []

    def run():
        try:
            result.append(function())
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            error.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_GUARD_S)
    hung = thread.is_alive()
    for fifo in fifos:
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # EOF for a blocked reader
        except OSError:
            pass
    assert not hung, f"{function} blocked for {HANG_GUARD_S} s"
    if error:
        raise error[0]
    return result[0]


def hostile_dump(site, *, manifest: bool):
    """A dump with good pages beside a FIFO, a socket, a character device (as root), a sparse 2 GB file
    and a file whose name is not UTF-8; returns ``(path -> expected reason, FIFO paths)``."""
    site.mkdir(parents=True)
    (site / "good.html").write_text("<h1>Good Page</h1>")
    (site / "zz-last.html").write_text("<h1>Last Page</h1>")
    os.mkfifo(site / "fifo.html")
    os.mkfifo(site / "fifo-noext")  # no extension: would be sniffed, never opened
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(site / "socket.html"))
    listener.close()
    with open(site / "sparse.html", "wb") as handle:
        handle.truncate(2 * 2**30)
    (site / os.fsdecode(b"caf\xe9.html")).write_text("<h1>Latin-1 Name</h1>")
    expected = {"fifo.html": "a FIFO (named pipe), not a regular file", "socket.html": "a socket, not a regular file",
                "sparse.html": f"2147483648 bytes, over the limit of {MAX_PAGE_BYTES} bytes",
                "caf\\xe9.html": "file name is not UTF-8"}
    if os.geteuid() == 0:
        os.mknod(site / "zero.html", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero
        expected["zero.html"] = "a character device, not a regular file"
    if manifest:
        names = ["good.html", *sorted(name for name in expected if "\\" not in name), "zz-last.html"]
        (site / "manifest.jsonl").write_text("".join(json.dumps({"path": name}) + "\n" for name in names))
        del expected["caf\\xe9.html"]  # not listed
    return expected, [site / "fifo.html", site / "fifo-noext"]


@pytest.mark.parametrize("manifest", [False, True])
def test_fifos_devices_sockets_sparse_files_and_bad_names_are_rows_not_hangs(tmp_path, manifest):
    expected, fifos = hostile_dump(tmp_path / "site", manifest=manifest)
    before = peak_rss_mb()
    dump = without_hanging(lambda: read_site_dump(tmp_path / "site"), *fifos)
    assert peak_rss_mb() - before < MAX_GROWTH_MB
    assert [page.path for page in dump.pages] == ["good.html", "zz-last.html"]
    reasons = {failure.path: failure.reason for failure in dump.failures}
    assert set(reasons) == set(expected)
    for path, reason in expected.items():
        assert reason in reasons[path], (path, reasons[path])


def test_read_page_bytes_never_opens_what_is_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(PageReadError, match="FIFO"):
        without_hanging(lambda: read_page_bytes(tmp_path / "pipe"), tmp_path / "pipe")
    with pytest.raises(PageReadError, match="character device"):
        read_page_bytes("/dev/zero")
    (tmp_path / "big.html").write_bytes(b"<p>" + b"x" * 200)
    with pytest.raises(PageReadError, match="203 bytes, over the limit of 100 bytes"):
        read_page_bytes(tmp_path / "big.html", 100)
    assert read_page_bytes(tmp_path / "big.html", 100, prefix=True) == b"<p>" + b"x" * 97
    assert without_hanging(lambda: find_page_files(tmp_path)) == [tmp_path / "big.html"]


def test_bad_manifest_lines_are_one_row_each_and_aliases_one_page(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "page.html").write_text("<h1>The Page</h1>")
    (site / "other.html").write_text("<h1>Other Page</h1>")
    lines = [json.dumps({"path": "page.html", "url": "http://s.test/page.html"}),
             json.dumps({"path": "./page.html"}), json.dumps({"path": "page.html/"}),
             json.dumps({"path": "manifest.jsonl"}), json.dumps({"path": "./manifest.jsonl"}),
             json.dumps({"path": "a\x00b.html"}), json.dumps({"path": "x.html", "url": "http://[::1"}),
             json.dumps({"path": "y.html", "url": "http://s.test:99999/"}),
             '{"path": "\\udce9.html"}', "[" * 30_000, json.dumps({"path": "other.html"})]
    (site / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    dump = read_site_dump(site)
    assert [(page.path, page.url) for page in dump.pages][0] == ("page.html", "http://s.test/page.html")
    assert [page.path for page in dump.pages] == ["page.html", "other.html"]
    reasons = {failure.path: failure.reason for failure in dump.failures}
    assert reasons == {
        "manifest.jsonl:2": "path './page.html' listed twice",
        "manifest.jsonl:3": "path 'page.html/' listed twice",
        "manifest.jsonl:4": "path 'manifest.jsonl' is the manifest itself, not a page",
        "manifest.jsonl:5": "path './manifest.jsonl' is the manifest itself, not a page",
        "manifest.jsonl:6": "path 'a\\x00b.html' holds a NUL character",
        "manifest.jsonl:7": "'url' 'http://[::1' is not a valid URL: Invalid IPv6 URL",
        "manifest.jsonl:8": "'url' 'http://s.test:99999/' is not a valid URL: Port out of range 0-65535",
        "manifest.jsonl:9": "the line holds text that is not valid Unicode (a lone surrogate): path '\\\\xe9.html'",
        "manifest.jsonl:10": reasons["manifest.jsonl:10"],
    }
    assert reasons["manifest.jsonl:10"].startswith("invalid JSON: maximum recursion depth exceeded")



def test_a_gigantic_manifest_line_is_one_row_and_a_gigantic_manifest_is_refused(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "page.html").write_text("<h1>The Page</h1>")
    (site / "other.html").write_text("<h1>Other Page</h1>")
    with open(site / "manifest.jsonl", "wb") as handle:  # a 64 MB line, written without holding it
        handle.write(json.dumps({"path": "page.html"}).encode() + b'\n{"path": "page.html", "main_entity": ["')
        for _ in range(64):
            handle.write(b"x" * 2**20)
        handle.write(b'"]}\n{"path": "caf\xe9.html"}\n' + json.dumps({"path": "other.html"}).encode())  # no \n
    before = peak_rss_mb()
    dump = read_site_dump(site)
    assert peak_rss_mb() - before < 16  # MB: the line was never held whole
    assert [page.path for page in dump.pages] == ["page.html", "other.html"]
    reasons = {failure.path: failure.reason for failure in dump.failures}
    assert reasons == {"manifest.jsonl:2": f"line over the limit of {MAX_MANIFEST_LINE_BYTES} bytes: not read",
                       "manifest.jsonl:3": reasons["manifest.jsonl:3"]}
    assert reasons["manifest.jsonl:3"].startswith("not UTF-8 ('utf-8' codec can't decode byte 0xe9")
    # the limit counts the line ending: a line of exactly max_line_bytes is read, one byte more is not
    line = json.dumps({"path": "page.html"}).encode() + b"\n"
    (tmp_path / "m.jsonl").write_bytes(line + b" " + line + line)
    entries, failures = read_manifest(tmp_path / "m.jsonl", "s", max_line_bytes=len(line))
    assert len(entries) == 1 and [(f.path, f.reason) for f in failures] == [
        ("manifest.jsonl:2", f"line over the limit of {len(line)} bytes: not read"),
        ("manifest.jsonl:3", "path 'page.html' listed twice")]
    with open(site / "manifest.jsonl", "wb") as handle:  # sparse: never read
        handle.truncate(MAX_MANIFEST_BYTES + 1)
    with pytest.raises(PageReadError, match=f"manifest.jsonl: {MAX_MANIFEST_BYTES + 1} bytes, over the limit of "
                                            f"{MAX_MANIFEST_BYTES} bytes: not read"):
        read_site_dump(site)
    os.mkfifo(tmp_path / "fifo.jsonl")
    with pytest.raises(PageReadError, match="fifo.jsonl: a FIFO"):
        without_hanging(lambda: read_manifest(tmp_path / "fifo.jsonl", "s"), tmp_path / "fifo.jsonl")


# --- WARC --------------------------------------------------------------------------------------------


def _sample_warc_maker():
    spec = importlib.util.spec_from_file_location("make_sample_warc_hostile", REPO / "datasets" / "make_sample_warc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gzip_bomb(n_mib: int) -> bytes:
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    zeros = bytes(2**20)
    return compressor.compress(b"<html><h1>Bomb</h1>") + b"".join(compressor.compress(zeros) for _ in range(n_mib)) \
        + compressor.flush()


def _brotli_bomb(n_mib: int) -> bytes:
    import brotli

    compressor = brotli.Compressor(quality=1)
    zeros = bytes(2**20)
    return compressor.process(b"<html><h1>Bomb</h1>") + b"".join(compressor.process(zeros) for _ in range(n_mib)) \
        + compressor.finish()


def test_decompression_bombs_and_a_malformed_uri_are_rows_and_the_rest_is_read(tmp_path):
    pytest.importorskip("fastwarc")
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    from mainentity.warc import read_warcs

    maker = _sample_warc_maker()
    path = tmp_path / "hostile.warc.gz"
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        maker.write_response(writer, "https://shop.example/first", "200 OK", "text/html", b"<h1>First Good</h1>", 1)
        bad = writer.create_warc_record(
            "http://[::1", "response", payload=io.BytesIO(b"<h1>Bad URI</h1>"),
            http_headers=StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1"),
            warc_headers_dict={"WARC-Record-ID": "<urn:uuid:bad-uri>"})
        bad_offset = stream.tell()
        writer.write_record(bad)
        maker.write_response(writer, "https://shop.example/next", "200 OK", "text/html", b"<h1>Next Good</h1>", 3)
        maker.write_response(writer, "https://shop.example/gzip-bomb", "200 OK", "text/html", _gzip_bomb(1024), 5,
                             (("Content-Encoding", "gzip"),))
        maker.write_response(writer, "https://shop.example/br-bomb", "200 OK", "text/html", _brotli_bomb(1024), 7,
                             (("Content-Encoding", "br"),))
        maker.write_response(writer, "https://shop.example/last", "200 OK", "text/html", b"<h1>Last Good</h1>", 9)
    (tmp_path / "manifest.jsonl").write_bytes(  # a broken labels file: predict needs no labels
        b'[1, 2]\n{"url": 5}\n{"url": "https://shop.example/first", "main_entity": "First"}\n\xff\xfe\n'
        + b"[" * 30_000 + b"\n" + json.dumps({"url": "https://shop.example/last", "main_entity": ["Last"]}).encode())
    before = peak_rss_mb()
    warc_input = without_hanging(lambda: read_warcs([path]))
    assert peak_rss_mb() - before < MAX_GROWTH_MB
    [site] = warc_input.sites
    assert [(page.url, page.main_entity) for page in site.pages] == [
        ("https://shop.example/first", ()), ("https://shop.example/next", ()), ("https://shop.example/last", ("Last",))]
    bombs = {failure.url: failure.reason for failure in site.failures}
    assert set(bombs) == {"https://shop.example/gzip-bomb", "https://shop.example/br-bomb"}
    assert all(f"over the limit of {MAX_PAGE_BYTES} bytes once decoded" in reason for reason in bombs.values())
    [damage] = warc_input.failures
    assert (damage.site_id, damage.path) == (str(path), f"@{bad_offset}")
    assert "malformed WARC-Target-URI 'http://[::1': Invalid IPv6 URL" in damage.reason
    assert warc_input.counts.n_damaged == 1


def test_a_labels_file_that_is_not_a_file_is_skipped(tmp_path, caplog):
    pytest.importorskip("fastwarc")
    from warcio.warcwriter import WARCWriter

    from mainentity.warc import read_warcs

    path = tmp_path / "a.warc.gz"
    with path.open("wb") as stream:
        _sample_warc_maker().write_response(WARCWriter(stream, gzip=True), "https://s.example/", "200 OK",
                                            "text/html", b"<h1>Home</h1>", 1)
    os.mkfifo(tmp_path / "manifest.jsonl")
    with caplog.at_level("WARNING", logger="mainentity.warc"):
        [site] = without_hanging(lambda: read_warcs([path]), tmp_path / "manifest.jsonl").sites
    assert [page.url for page in site.pages] == ["https://s.example/"] and "labels not read" in caplog.text


#: A "browser" process that starts two "renderers" (by their command line): one holding 300 MB, one idle.
_FAKE_BROWSER = """
import subprocess, sys, time
hold, idle = "import time; x = b'x' * (300 * 2**20); time.sleep(600)", "import time; time.sleep(600)"
kids = [subprocess.Popen([sys.executable, "-c", code, "--type=renderer"]) for code in (hold, idle)]
print(" ".join(str(kid.pid) for kid in kids), flush=True)
time.sleep(600)
"""


def test_memory_cap_kills_the_renderer_above_it_and_only_that_one():
    from mainentity.render.memory import RendererMemoryCap, launch_switch, rss_mb

    switch = launch_switch()
    browser = subprocess.Popen([sys.executable, "-c", _FAKE_BROWSER, switch], stdout=subprocess.PIPE, text=True)
    cap = RendererMemoryCap(150)
    try:
        big, idle = map(int, browser.stdout.readline().split())
        while os.path.exists(f"/proc/{big}") and rss_mb(big) < 300:  # until it holds its 300 MB
            time.sleep(0.05)
        cap.watch(switch)
        while os.path.exists(f"/proc/{big}") and open(f"/proc/{big}/stat").read().split()[2] != "Z":
            time.sleep(0.05)
        assert cap.n_kills == 1 and cap.peak_mb > 300
        assert os.path.exists(f"/proc/{idle}") and 0 < rss_mb(idle) < 150
        assert cap.claim_kill(since=1) == ""  # a kill before the attempt began is not its own
        assert cap.claim_kill(since=0).startswith("the renderer went past the memory cap of 150 MB (")
        assert cap.claim_kill(since=0) == ""  # claimed once
    finally:
        cap.close()
        for pid in (big, idle):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        browser.kill()
        browser.wait()


def test_the_renderer_memory_cap_is_the_users_setting_never_a_models(monkeypatch):
    from mainentity.config import ConfigError, model_config_from_dict
    from mainentity.render.memory import MAX_RENDERER_MB, MAX_RENDERER_MB_ENV
    from mainentity.render.settings import RenderSettings

    assert RenderSettings().max_renderer_mb == MAX_RENDERER_MB == 2048
    monkeypatch.setenv(MAX_RENDERER_MB_ENV, "512")
    assert RenderSettings().max_renderer_mb == 512
    monkeypatch.setenv(MAX_RENDERER_MB_ENV, "lots")
    with pytest.raises(ValueError, match="MAINENTITY_MAX_RENDERER_MB must be a whole number of MB; got 'lots'"):
        RenderSettings()
    with pytest.raises(ValueError, match="max_renderer_mb must be >= 1; got 0"):
        RenderSettings(max_renderer_mb=0)
    with pytest.raises(ConfigError, match="a model may not set 'render.max_renderer_mb'"):
        model_config_from_dict({"render": {"max_renderer_mb": 100000}})


#: Pages that never finish, having grown their renderer to about 1.3 GB (uncapped): JavaScript arrays (V8's
#: heap) and elements (Blink's); bounded, so that a cap that failed would cost a timeout, not the machine.
GROWING_PAGES = {
    "arrays": "<h1>Arrays</h1><script>const a = []; for (let i = 0; i < 150; i++) a.push(new Array(1e6).fill(1.5));"
              " for (;;);</script>",
    "elements": "<h1>Elements</h1><script>for (let i = 0; i < 3e6; i++) document.body.appendChild("
                "document.createElement('p')).textContent = 'x'.repeat(200); for (;;);</script>",
}


@pytest.mark.browser
@pytest.mark.parametrize("kind", sorted(GROWING_PAGES))
def test_a_renderer_past_the_memory_cap_is_one_row_and_its_neighbours_are_answered(kind):
    """The growing page never finishes: its renderer is killed at the cap (reached in seconds), which the row
    names, and it is not retried; the pages beside it and after it are answered by the same Chromium."""
    from mainentity.records import Page
    from mainentity.render.browser import Renderer
    from mainentity.render.settings import RenderSettings

    pages = [Page("s", f"{kind}.html", f"http://s.test/{kind}.html", GROWING_PAGES[kind])]
    pages += [Page("s", f"p{i}.html", f"http://s.test/p{i}.html", f"<h1>Page {i}</h1>") for i in range(3)]
    settings = RenderSettings(javascript=True, concurrency=2, timeout_s=120, retries=1, max_renderer_mb=400)
    with Renderer(settings) as renderer:
        outcomes = {outcome.page.path: outcome for outcome in renderer.render(pages)}
        assert renderer.n_browser_restarts == 0
    error = outcomes.pop(f"{kind}.html").error
    assert error.startswith(f"s/{kind}.html: render failed after 1 attempt(s): the renderer went past the memory "
                            "cap of 400 MB ("), error
    assert {path: outcome.rendered.title or outcome.rendered.blocks[0].text for path, outcome in outcomes.items()} == {
        f"p{i}.html": f"Page {i}" for i in range(3)}


if sys.platform == "win32":  # FIFOs, sockets and devices are POSIX
    pytestmark = pytest.mark.skip("POSIX file types")


def test_a_symbolic_link_named_as_a_page_obeys_the_rule_of_a_link_found_in_its_folder(tmp_path):
    from mainentity.cli import _check_paths
    from mainentity.loading import load_inputs

    folder = tmp_path / "dir"
    folder.mkdir()
    (tmp_path / "outside.html").write_text("<h1>Outside Secret</h1>")
    (folder / "in.html").write_text("<h1>Inside Page</h1>")
    links = {"etc.html": "/etc/hostname", "up.html": "../outside.html", "loop.html": "loop.html", "ok.html": "in.html"}
    for name, target in links.items():
        os.symlink(target, folder / name)
    named = [str(folder / name) for name in links]
    _check_paths(named, "input")  # a loop exists: it is not "missing"
    loaded = load_inputs(named)
    assert {failure.path: failure.reason for failure in loaded.failures} == {
        "etc.html": f"{folder / 'etc.html'}: symbolic link to a file outside its folder: not read",
        "up.html": f"{folder / 'up.html'}: symbolic link to a file outside its folder: not read",
        "loop.html": f"{folder / 'loop.html'}: symbolic link loop: not read"}
    assert {failure.site_id for failure in loaded.failures} == {"dir"}
    [page] = loaded.pages  # the link inside its folder is read, as in a run over the folder
    assert "Inside Page" in page.html and "Secret" not in page.html
    over_folder = load_inputs([str(folder)])
    assert sorted(failure.reason for failure in over_folder.failures) == sorted(
        failure.reason.removeprefix(f"{folder / failure.path}: ").replace("its folder", "the site dump")
        for failure in loaded.failures)


def test_a_lone_file_that_is_refused_is_named_by_the_path_given(tmp_path, monkeypatch):
    from mainentity.loading import PageFileError, load_inputs, read_page_file

    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "saved" / "news"
    folder.mkdir(parents=True)
    (folder / "binary.html").write_bytes(b"\x00\x01\x02\x03<h1>x</h1>")
    (folder / "empty.html").write_bytes(b"")
    with (folder / "huge.html").open("wb") as stream:
        stream.truncate(MAX_PAGE_BYTES + 1)  # sparse: no disk used
    given = ["saved/news/binary.html", "saved/news/empty.html", "saved/news/huge.html"]
    loaded = load_inputs(given)
    assert {failure.path: failure.reason for failure in loaded.failures} == {
        "binary.html": "saved/news/binary.html: not text (4 of the first 14 bytes are control bytes such as NUL)",
        "empty.html": "saved/news/empty.html: empty page (0 bytes)",
        "huge.html": f"saved/news/huge.html: {MAX_PAGE_BYTES + 1} bytes, over the limit of {MAX_PAGE_BYTES} bytes: "
                     "not read"}
    assert {failure.site_id for failure in loaded.failures} == {"news"}  # the key a readable file there gets
    with pytest.raises(PageFileError, match=r"^saved/news/huge\.html: \d+ bytes, over the limit"):
        read_page_file("saved/news/huge.html")  # explain's message


def test_a_page_marked_utf_32_that_is_not_is_refused_and_a_utf_32_page_is_read(tmp_path, monkeypatch):
    """A UTF-32 byte order mark before bytes that are not UTF-32 is a row naming the page (before, the page
    was read as UTF-16 or sniffed, and its garbage answered); valid UTF-32 pages, both byte orders, are read."""
    from mainentity.loading import load_inputs

    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "saved" / "news"
    folder.mkdir(parents=True)
    garbage = b"\xde\xad\xbe\xef" * 64 + b"<h1>Kettle</h1>"  # no code point: over U+10FFFF in both orders
    (folder / "le-garbage.html").write_bytes(b"\xff\xfe\x00\x00" + garbage)
    (folder / "be-garbage.html").write_bytes(b"\x00\x00\xfe\xff" + garbage)
    page = "<title>Kettle \U0001f375</title><h1>Kettle \U0001f375 中</h1>"  # a code point past U+FFFF
    (folder / "le.html").write_bytes(("\ufeff" + page).encode("utf-32-le"))
    (folder / "be.html").write_bytes(("\ufeff" + page).encode("utf-32-be"))
    names = ["be-garbage.html", "be.html", "le-garbage.html", "le.html"]
    loaded = load_inputs([f"saved/news/{name}" for name in names])
    assert {failure.path: failure.reason for failure in loaded.failures} == {
        f"{order}-garbage.html": f"saved/news/{order}-garbage.html: not text (a UTF-32-{order.upper()} byte order "
                                 f"mark, then bytes that are not UTF-32-{order.upper()}: code point not in "
                                 "range(0x110000) at byte 4)"
        for order in ("le", "be")}
    assert {page.path: page.html for page in loaded.pages} == {"le.html": page, "be.html": page}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_fifo_named_beside_a_page_gets_its_row_and_the_page_its_answer(tmp_path, monkeypatch):
    """A FIFO named on the command line is refused with a row naming it (reading it would block for ever);
    the page named beside it is still read (before, the batch stopped: "dataset ... is not a directory")."""
    from mainentity.loading import is_page_input, load_inputs

    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "good page.html").write_text("<title>Kettle</title><h1>Kettle</h1>", encoding="utf-8")
    os.mkfifo(folder / "fifo.html")
    assert is_page_input("sub/fifo.html") and not is_page_input("sub")
    loaded = load_inputs(["sub/good page.html", "sub/fifo.html"])
    assert [page.path for page in loaded.pages] == ["good page.html"]
    assert [(failure.path, failure.reason) for failure in loaded.failures] == [
        ("fifo.html", "sub/fifo.html: a FIFO (named pipe), not a regular file: not read")]
