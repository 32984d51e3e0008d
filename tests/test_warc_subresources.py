"""Pages read from WARC files get their stylesheets, fonts and images from the same WARC input (mainentity.warc):
matched by URL, served with the record's Content-Type, read lazily, part of the render cache key, and
carried to the workers of a cluster by the site's task. The WARC files are written by the tests with
warcio's writer (``datasets/make_sample_warc.py``)."""

from __future__ import annotations

import gzip
import pickle
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import REPO
from test_warc import make_sample_warc

from mainentity.records import Page, RenderedPage
from mainentity.render import RenderCache, RenderSettings, render_pages
from mainentity.render.cache import current_subresources
from mainentity.render.settings import RenderOutcome
from mainentity.scaleout import site_tasks
from mainentity.sitedump import SubresourceSources, read_site_dump
from mainentity.warc import WarcSubresources, read_warcs

PAGE_URL = "https://css.example/p/kettle.html"
CSS_URL = "https://css.example/css/site.css"
# The page links its stylesheet relatively: Chromium resolves it against the record's URL.
PAGE = b"""<!doctype html><html><head><title>Kettle</title><link rel="stylesheet" href="../css/site.css"></head>
<body><h1>Ashgrove Enamel Kettle</h1><p class="note">Enamel that mellows over the years.</p></body></html>"""
SITE_CSS = b"h1 { font-size: 50px; font-weight: 300 } .note { font-size: 11px }"


def write_warc(path: Path, responses) -> Path:
    """A WARC file of ``(url, content_type, body, *http_headers)`` status-200 responses."""
    from warcio.warcwriter import WARCWriter

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=path.suffix == ".gz")
        for number, (url, content_type, body, *headers) in enumerate(responses):
            make_sample_warc.write_response(writer, url, "200 OK", content_type, body, 2 * number + 1, tuple(headers))
    return path


def chunked(data: bytes, size: int = 7) -> bytes:
    """``data`` in HTTP/1.1 chunked transfer coding."""
    pieces = [data[i:i + size] for i in range(0, len(data), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"


def kettle_page(warc: Path) -> Page:
    [site] = [site for site in read_warcs([warc]).sites if site.site_id == "css.example"]
    return site.pages[0]


def warc_sources(warc: Path) -> SubresourceSources:
    """What serves the subresources of the WARC's pages, as ``load_pages`` passes it to the renderer."""
    return SubresourceSources(read_warcs([warc]).subresources)


def test_records_are_served_by_url_decoded_with_their_content_type(tmp_path):
    font = b"\x00\x01\x00\x00fake font bytes"
    warc = write_warc(tmp_path / "crawl.warc.gz", [
        (PAGE_URL, "text/html; charset=utf-8", PAGE),
        (CSS_URL, "text/css; charset=utf-8", gzip.compress(SITE_CSS), ("Content-Encoding", "gzip")),
        ("https://css.example/css/print.css", "text/css", chunked(b"h2{color:red}"), ("Transfer-Encoding", "chunked")),
        ("https://css.example/fonts/wide.woff2?v=3", "application/octet-stream", font),
        ("https://css.example/img/a%20b.png", "image/png", b"\x89PNG\r\n\x1a\nnot really"),
        ("https://css.example/app.js", "text/javascript", b"alert(1)"),
    ])
    warc_input = read_warcs([warc])
    counts = warc_input.counts
    assert (counts.n_pages, counts.n_subresources, counts.n_not_html) == (1, 4, 1)  # the script is skipped
    page = kettle_page(warc)
    files = SubresourceSources(warc_input.subresources).for_page(page)
    css = files.find(CSS_URL, page.url, page.path)
    assert (css.data, css.content_type) == (SITE_CSS, "text/css; charset=utf-8")  # gzip content coding removed
    assert files.find("https://css.example/css/print.css", page.url, page.path).data == b"h2{color:red}"
    woff = files.find("https://css.example/fonts/wide.woff2?v=3", page.url, page.path)
    assert (woff.data, woff.content_type) == (font, "font/woff2")  # an unknown type: the one its name says
    # matched as the browser requests it: host case, default port, fragment and the path's escapes do not matter
    assert files.find("https://CSS.example:443/img/a b.png#x", page.url, page.path).content_type == "image/png"
    assert files.find("https://css.example/app.js", page.url, page.path) is None
    assert files.find("https://css.example/css/other.css", page.url, page.path) is None


def test_records_reach_only_pages_of_their_own_input(tmp_path):
    warc = write_warc(tmp_path / "crawl.warc", [
        (PAGE_URL, "text/html", PAGE),
        ("https://notes.example/", "text/html", b"<h1>Field notes</h1>"),
        (CSS_URL, "text/css", SITE_CSS),
        ("https://cdn.example/fonts.css", "text/css", b"p{font-size:12px}"),  # a host without pages
        ("https://notes.example/notes.css", "text/css", b"h1{font-size:9px}"),
    ])
    warc_input = read_warcs([warc])
    kettle = kettle_page(warc)
    notes = next(site for site in warc_input.sites if site.site_id == "notes.example").pages[0]
    sources = SubresourceSources(warc_input.subresources)
    kettle_files, notes_files = sources.for_page(kettle), sources.for_page(notes)
    assert kettle_files.find("https://cdn.example/fonts.css").data == b"p{font-size:12px}"  # shared by every site
    assert notes_files.find("https://cdn.example/fonts.css").data == b"p{font-size:12px}"
    assert notes_files.find(CSS_URL) is None  # another site's own records: not in the notes' task
    assert kettle_files.find("https://notes.example/notes.css") is None
    # a page built elsewhere under the same host is not served the WARC's records
    assert sources.for_page(Page("css.example", PAGE_URL, PAGE_URL, PAGE.decode())) is None


def test_a_truncated_or_vanished_record_is_not_served(tmp_path, caplog):
    warc = write_warc(tmp_path / "crawl.warc", [(PAGE_URL, "text/html", PAGE), (CSS_URL, "text/css", SITE_CSS)])
    files = warc_sources(warc).for_page(kettle_page(warc))
    warc.write_bytes(warc.read_bytes()[:-len(SITE_CSS) // 2 - 4])
    assert files.find(CSS_URL) is None
    warc.unlink()
    assert files.find(CSS_URL) is None
    assert "record truncated" in caplog.text and "No such file" in caplog.text


def test_the_render_cache_key_covers_the_stylesheet_record(tmp_path):
    settings = RenderSettings(concurrency=1, timeout_s=15)
    cache = RenderCache(tmp_path / "cache")
    warc = tmp_path / "crawl" / "crawl.warc.gz"
    write_warc(warc, [(PAGE_URL, "text/html", PAGE), (CSS_URL, "text/css", SITE_CSS)])
    page = kettle_page(warc)
    files = warc_sources(warc).for_page(page)
    served = current_subresources(page, [CSS_URL], files)
    assert served[0][1] != ""  # the record's hash, as the renderer records it
    cache.put(RenderOutcome(page, RenderedPage("Kettle", (), ()), subresources=served, n_subresources_served=1),
              settings, files)
    before = cache.path(page, settings, files)
    assert cache.get(page, settings, files) is not None
    # the same page with a stylesheet of the same length but another size: a miss
    write_warc(warc, [(PAGE_URL, "text/html", PAGE), (CSS_URL, "text/css", SITE_CSS.replace(b"50px", b"60px"))])
    page = kettle_page(warc)
    files = warc_sources(warc).for_page(page)
    assert cache.path(page, settings, files) != before and cache.get(page, settings, files) is None


def test_a_cluster_task_carries_the_records_to_a_fresh_process(tmp_path):
    warc = write_warc(tmp_path / "crawl.warc.gz", [(PAGE_URL, "text/html", PAGE), (CSS_URL, "text/css", SITE_CSS)])
    model = SimpleNamespace(recognizer=SimpleNamespace(site_level=True), cleaners={},
                            config=SimpleNamespace(cleaning=SimpleNamespace(method="none")))
    # a small site: one task, whole
    [(task, statistics)] = site_tasks(model, [kettle_page(warc)], cluster=None, subresources=warc_sources(warc))
    assert statistics is None
    assert [type(source) for source in task.sources] == [WarcSubresources]
    task_file = tmp_path / "task.pickle"
    task_file.write_bytes(pickle.dumps(task))
    code = (
        "import pickle, sys\n"
        "task = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        f"print(task.subresources().for_page(task.pages[0]).find({CSS_URL!r}).data.decode())\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(task_file)], capture_output=True, text=True,
                          cwd=REPO, check=True)
    assert done.stdout.strip() == SITE_CSS.decode()


def heading(outcome: RenderOutcome):
    return next(block for block in outcome.rendered.blocks if block.text == "Ashgrove Enamel Kettle")


@pytest.mark.browser
def test_a_warc_page_is_styled_by_its_stylesheet_record_as_from_a_site_dump(tmp_path):
    settings = RenderSettings(concurrency=1, timeout_s=15)
    warc = write_warc(tmp_path / "crawl" / "crawl.warc.gz",
                      [(PAGE_URL, "text/html; charset=utf-8", PAGE), (CSS_URL, "text/css", SITE_CSS)])
    (from_warc,) = render_pages([kettle_page(warc)], settings, subresources=warc_sources(warc))
    dump = tmp_path / "dump"
    (dump / "p").mkdir(parents=True)
    (dump / "css").mkdir()
    (dump / "p" / "kettle.html").write_bytes(PAGE)
    (dump / "css" / "site.css").write_bytes(SITE_CSS)
    site = read_site_dump(dump, site_id="warc-css-dump", base_url="https://css.example/")
    (from_dump,) = render_pages(site.pages, settings, subresources=SubresourceSources.of_dumps([site]))
    assert from_warc.subresources == ((CSS_URL, from_dump.subresources[0][1]),)
    assert (heading(from_warc).font_size, heading(from_warc).font_weight) == (50.0, 300)
    assert heading(from_warc) == heading(from_dump)  # same font, weight and box
    note = next(block for block in from_warc.rendered.blocks if block.text.startswith("Enamel"))
    assert note.font_size == 11.0

    bare = write_warc(tmp_path / "bare" / "crawl.warc.gz", [(PAGE_URL, "text/html; charset=utf-8", PAGE)])
    (unstyled,) = render_pages([kettle_page(bare)], settings, subresources=warc_sources(bare))
    assert (heading(unstyled).font_size, heading(unstyled).font_weight) == (32.0, 700)  # Chromium's h1
    assert (unstyled.n_subresources_served, unstyled.n_subresources_blocked) == (0, 1)


@pytest.mark.browser
def test_a_changed_stylesheet_record_renders_the_page_again(tmp_path):
    settings = RenderSettings(concurrency=1, timeout_s=15)
    cache_dir = tmp_path / "cache"
    warc = tmp_path / "crawl" / "crawl.warc.gz"

    def heading_size(css: bytes) -> float:
        write_warc(warc, [(PAGE_URL, "text/html", PAGE), (CSS_URL, "text/css", css)])
        (outcome,) = render_pages([kettle_page(warc)], settings, cache_dir, subresources=warc_sources(warc))
        return heading(outcome).font_size

    assert heading_size(SITE_CSS) == 50.0
    assert heading_size(SITE_CSS.replace(b"50px", b"60px")) == 60.0
    assert heading_size(SITE_CSS) == 50.0  # from the cache: both versions are kept
    assert len(list(cache_dir.glob("*/*.json.gz"))) == 2
