"""Tests of the render cache (mainentity.render.cache). No browser is started."""

from __future__ import annotations

import gzip
import hashlib
import json

import pytest

from mainentity.records import Page, RenderedPage, TextBlock
from mainentity.render import RenderCache, RenderOutcome, RenderSettings, render_pages
from mainentity.render.cache import CACHE_FORMAT, cache_key, dump_outcome, load_outcome
from mainentity.render.settings import browser_version
from mainentity.sitedump import SubresourceSources, read_site_dump


def make_rendered(n_blocks: int = 3, title: str = "Lydia's Charm | Shop") -> RenderedPage:
    blocks = tuple(
        TextBlock(
            text=f"Block {i} — café 東京",
            tag="span",
            dom_path=f"html[0]/body[1]/div[{i}]/span[0]",
            font_size=16.0 + i / 3,
            font_weight=700 if i % 2 else 400,
            bold=bool(i % 2),
            x=8.0,
            y=100.25 * i,
            width=120.5,
            height=17.0,
            in_link=i % 3 == 0,
            heading_level=i % 7,
            hidden=i % 5 == 4,
            merged=i % 4 == 1,
        )
        for i in range(n_blocks)
    )
    meta = (("og:title", "Lydia's Charm"), ("description", "A novel"))
    return RenderedPage(title, meta, blocks, width=1024.0, height=2400.5)


PAGE = Page("shop", "pages/1.htm", "http://shop.test/1.htm", "<title>Lydia's Charm | Shop</title><p>x</p>")


def test_round_trip_is_exact():
    outcome = RenderOutcome(PAGE, make_rendered(50), "", (("http://shop.test/a.css", "ab" * 32),), 1, 2)
    loaded = load_outcome(dump_outcome(outcome), PAGE)
    assert loaded == outcome
    blocks = loaded.rendered.blocks
    assert type(blocks[0].font_weight) is int and type(blocks[0].bold) is bool
    assert loaded.rendered.meta_titles == ("Lydia's Charm",)


def test_failed_outcome_is_not_stored(tmp_path):
    with pytest.raises(ValueError, match="cannot cache a failed rendering: shop/pages/1.htm: timed out"):
        RenderCache(tmp_path).put(RenderOutcome(PAGE, None, "shop/pages/1.htm: timed out"), RenderSettings())


@pytest.mark.parametrize("subresources", [False, True])
def test_put_get_round_trip(tmp_path, subresources):
    cache, settings = RenderCache(tmp_path), RenderSettings(subresources=subresources)
    assert cache.get(PAGE, settings) is None
    outcome = RenderOutcome(PAGE, make_rendered(20), "", (("http://shop.test/a.css", ""),), 0, 1)
    cache.put(outcome, settings)
    assert cache.get(PAGE, settings) == outcome
    path = cache.path(PAGE, settings)
    assert path.is_file() and path.parent.parent == tmp_path
    names = sorted(p.name for p in tmp_path.glob("*/*"))  # no temporary file left behind
    assert names == sorted([path.name, f"{cache_key(PAGE, settings)}.requests.json"][: 1 + subresources])


def test_key_covers_what_changes_the_output():
    base = cache_key(PAGE, RenderSettings())
    assert cache_key(Page("other", "x.htm", PAGE.url, PAGE.html), RenderSettings()) == base
    assert cache_key(PAGE, RenderSettings(timeout_s=3, concurrency=1, retries=0)) == base
    changed = [
        cache_key(Page(PAGE.site_id, PAGE.path, PAGE.url, PAGE.html + " "), RenderSettings()),
        cache_key(Page(PAGE.site_id, PAGE.path, "http://shop.test/2.htm", PAGE.html), RenderSettings()),
        cache_key(PAGE, RenderSettings(javascript=True)),
        cache_key(PAGE, RenderSettings(viewport_width=1280)),
        cache_key(PAGE, RenderSettings(viewport_height=1024)),
        cache_key(PAGE, RenderSettings(subresources=False)),
        cache_key(PAGE, RenderSettings(), [("http://shop.test/a.css", "ab")]),
        cache_key(PAGE, RenderSettings(), [("http://shop.test/a.css", "cd")]),
        cache_key(PAGE, RenderSettings(), [("http://shop.test/a.css", "")]),
        cache_key(PAGE, RenderSettings(), []),
    ]
    assert len({base, *changed}) == 11
    # auto renders with scripts off first: its entries are those of false (true's for the second renderings)
    assert cache_key(PAGE, RenderSettings(javascript="auto")) == cache_key(PAGE, RenderSettings(javascript=False))
    pair = [("http://shop.test/b.png", "01"), ("http://shop.test/a.css", "ab")]
    assert cache_key(PAGE, RenderSettings(), pair) == cache_key(PAGE, RenderSettings(), pair[::-1])


def test_changed_added_or_removed_subresource_is_a_miss(tmp_path):
    dump = tmp_path / "dump"
    (dump / "css").mkdir(parents=True)
    (dump / "p.htm").write_text('<link rel="stylesheet" href="css/a.css"><link rel="stylesheet" href="b.css">')
    (dump / "css" / "a.css").write_text("p{font-size:40px}")
    site = read_site_dump(dump, base_url="http://shop.test/", site_id="cache-test-shop")
    (page,), files = site.pages, SubresourceSources.of_dumps([site]).for_page(site.pages[0])
    cache, settings = RenderCache(tmp_path / "cache"), RenderSettings()
    css_a, css_b = "http://shop.test/css/a.css", "http://shop.test/b.css"
    sha_a = hashlib.sha256(b"p{font-size:40px}").hexdigest()
    cache.put(RenderOutcome(page, make_rendered(), "", ((css_a, sha_a), (css_b, "")), 1, 1), settings, files)
    hit = cache.get(page, settings, files)
    assert hit is not None and (hit.n_subresources_served, hit.n_subresources_blocked) == (1, 1)
    (dump / "css" / "a.css").write_text("p{font-size:41px}")  # changed
    assert cache.get(page, settings, files) is None
    (dump / "css" / "a.css").write_text("p{font-size:40px}")  # back as it was
    assert cache.get(page, settings, files) == hit
    (dump / "b.css").write_text("p{font-weight:700}")  # a blocked request now in the dump
    assert cache.get(page, settings, files) is None
    (dump / "b.css").unlink()
    (dump / "css" / "a.css").unlink()  # removed
    assert cache.get(page, settings, files) is None


def test_first_file_other_than_pages_is_a_miss(tmp_path):
    """A page of a pages-only dump requests no images; a dump that gains a file may serve them."""
    (tmp_path / "dump").mkdir()
    (tmp_path / "dump" / "p.htm").write_text('<img src="a.png" alt="A">')
    site = read_site_dump(tmp_path / "dump", site_id="cache-test-pages-only")
    (page,), files = site.pages, SubresourceSources.of_dumps([site]).for_page(site.pages[0])
    cache, settings = RenderCache(tmp_path / "cache"), RenderSettings()
    cache.put(RenderOutcome(page, make_rendered()), settings, files)
    assert cache.get(page, settings, files) is not None
    (tmp_path / "dump" / "a.png").write_bytes(b"\x89PNG")
    assert files.holds_subresources is False  # looked up once per DumpFiles
    del files.holds_subresources  # as a new run would see the dump
    assert files.holds_subresources is True
    assert cache.get(page, settings, files) is None


def test_key_covers_the_browser_version_not_its_path(tmp_path):
    def fake_browser(name: str, version: str) -> str:
        path = tmp_path / name
        path.write_text(f"#!/bin/sh\necho '{version}'\necho 'wrapper noise' >&2\n")
        path.chmod(0o755)
        return str(path)

    paths = [fake_browser("a", "Chromium 156.0.8078.114 built on Debian"),
             fake_browser("b", "Chromium 156.0.8078.114 built on Debian"),
             fake_browser("c", "Chromium 157.0.1000.1 built on Debian")]
    assert browser_version(paths[2]) == "Chromium 157.0.1000.1 built on Debian"
    a, b, c = (cache_key(PAGE, RenderSettings(executable_path=path)) for path in paths)
    assert a == b and a != c
    assert browser_version(str(tmp_path / "missing")) == "unknown (not found)"


def test_corrupt_or_foreign_entry_is_a_miss(tmp_path, caplog):
    cache, settings = RenderCache(tmp_path), RenderSettings()
    outcome = RenderOutcome(PAGE, make_rendered())
    cache.put(outcome, settings)
    path = cache.path(PAGE, settings)
    path.write_bytes(b"not gzip")
    assert cache.get(PAGE, settings) is None
    assert "unreadable render cache entry" in caplog.text
    path.write_bytes(gzip.compress(dump_outcome(outcome).replace(b'"format":%d' % CACHE_FORMAT, b'"format":1')))
    assert cache.get(PAGE, settings) is None
    entry = json.loads(dump_outcome(outcome))
    entry["blocks"][0] = entry["blocks"][0][:-1]  # a block row one value short
    path.write_bytes(gzip.compress(json.dumps(entry).encode()))
    assert cache.get(PAGE, settings) is None
    assert "a stored block without exactly 15 fields" in caplog.text
    cache.put(outcome, settings)
    (tmp_path / cache_key(PAGE, settings)[:2] / f"{cache_key(PAGE, settings)}.requests.json").write_text("[")
    assert cache.get(PAGE, settings) is None
    assert "unreadable render cache request list of pages/1.htm" in caplog.text


def test_render_pages_reads_cache_without_browser(tmp_path):
    settings = RenderSettings(executable_path="/nonexistent/chromium")
    pages = [Page("shop", f"{i}.htm", f"http://shop.test/{i}.htm", f"<p>{i}</p>") for i in range(5)]
    cache = RenderCache(tmp_path)
    for i, page in enumerate(pages):
        cache.put(RenderOutcome(page, make_rendered(title=f"T{i}")), settings)
    outcomes = list(render_pages(iter(pages), settings, tmp_path, chunk_size=2))
    assert [o.page for o in outcomes] == pages
    assert [o.rendered.title for o in outcomes] == [f"T{i}" for i in range(5)]
    assert all(o.error == "" for o in outcomes)


def test_auto_decides_again_from_the_entries_of_false_and_true(tmp_path, monkeypatch):
    """A cache filled with javascript false (and true) answers auto in full: the scripts-off entry is read,
    a page that looks unfinished gets true's entry when it shows more, with the reason; no Chromium."""
    import mainentity.render.cache as render_cache

    monkeypatch.setattr(render_cache, "Renderer", None)  # any rendering would fail
    skeleton = Page("jobs", "job.htm", "http://jobs.test/job.htm",
                    "<title>Careers</title><div id='app'>Loading...</div>"
                    "<script id='__NEXT_DATA__' type='application/json'>{}</script>")
    loading = TextBlock("Loading...", "div", "html[0]/body[1]/div[0]", 16, 400, False, 8, 8, 80, 18)
    built = make_rendered(n_blocks=20, title="Crane operator")
    cache = RenderCache(tmp_path)
    for page, rendered in ((PAGE, make_rendered()), (skeleton, RenderedPage("Careers", (), (loading,)))):
        cache.put(RenderOutcome(page, rendered), RenderSettings(javascript=False))
    cache.put(RenderOutcome(skeleton, built), RenderSettings(javascript=True))
    auto = RenderSettings(javascript="auto")
    assert cache.path(skeleton, auto) == cache.path(skeleton, RenderSettings(javascript=False))
    outcomes = {o.page.path: o for o in render_pages([skeleton, PAGE], auto, tmp_path)}
    assert outcomes["job.htm"].rendered == built
    assert outcomes["job.htm"].scripts == "1 words; loading placeholder; inline state"
    assert outcomes["pages/1.htm"].rendered == make_rendered() and outcomes["pages/1.htm"].scripts == ""
    # a scripts-on rendering that shows no more: the first is kept, with no reason
    cache.put(RenderOutcome(skeleton, RenderedPage("Careers", (), ())), RenderSettings(javascript=True))
    (kept,) = render_pages([skeleton], auto, tmp_path)
    assert kept.rendered.blocks == (loading,) and kept.scripts == ""
    # and javascript false reads the same first entry, never the second
    (first,) = render_pages([skeleton], RenderSettings(javascript=False), tmp_path)
    assert first.rendered.blocks == (loading,) and first.scripts == ""


def test_render_pages_miss_needs_chromium(tmp_path):
    settings = RenderSettings(executable_path="/nonexistent/chromium")
    with pytest.raises(FileNotFoundError, match=r"/nonexistent/chromium.*apt-get install -y chromium"):
        list(render_pages([PAGE], settings, tmp_path))
    with pytest.raises(ValueError, match="chunk_size must be >= 1; got 0"):
        list(render_pages([PAGE], settings, tmp_path, chunk_size=0))


def test_settings_validation():
    with pytest.raises(ValueError, match="timeout_s must be > 0 seconds; got 0"):
        RenderSettings(timeout_s=0)
    with pytest.raises(ValueError, match="retries must be >= 0; got -1"):
        RenderSettings(retries=-1)
    with pytest.raises(ValueError, match="viewport_width must be >= 1; got 0"):
        RenderSettings(viewport_width=0)


def test_a_subresource_requested_twice_keys_the_entry_as_once():
    page = Page("s", "1.htm", "http://s.test/1", "<h1>Hi</h1>")
    once = [("http://s.test/a.css", "ab12"), ("", "dump holds subresources")]
    twice = [once[0], *once]
    assert cache_key(page, RenderSettings(), twice) == cache_key(page, RenderSettings(), once)


def test_a_timed_out_second_rendering_is_noted_under_its_page_settings_and_subresources(tmp_path, monkeypatch):
    """javascript auto: a scripts-on rendering that timed out is noted, so a warm run keeps the first rendering
    with no Chromium; the note holds only for the same page, settings, timeout and subresources."""
    import dataclasses

    import mainentity.render.cache as render_cache

    skeleton = Page("jobs", "job.htm", "http://jobs.test/job.htm",
                    "<title>Careers</title><div id='app'>Loading...</div>"
                    "<script id='__NEXT_DATA__' type='application/json'>{}</script><script>for(;;){}</script>")
    loading = TextBlock("Loading...", "div", "html[0]/body[1]/div[0]", 16, 400, False, 8, 8, 80, 18)
    css = "http://jobs.test/site.css"
    first = RenderOutcome(skeleton, RenderedPage("Careers", (), (loading,)), "", ((css, ""),), 0, 1)  # not in a dump
    auto = RenderSettings(javascript="auto", timeout_s=4)
    on = RenderSettings(javascript=True, timeout_s=4)
    cache = RenderCache(tmp_path)
    cache.put(first, RenderSettings(javascript=False, timeout_s=4))
    timed_out = RenderOutcome(skeleton, None, "jobs/job.htm: render failed after 1 attempt(s): timed out after 4 s",
                              timed_out=True)
    with pytest.raises(ValueError, match="not a timed-out rendering of job.htm"):
        cache.put_scripts_timeout(first, dataclasses.replace(timed_out, timed_out=False), on)
    assert cache.scripts_timeout(first, on) == ""
    cache.put_scripts_timeout(first, timed_out, on)
    assert cache.scripts_timeout(first, on) == timed_out.error
    assert cache.get(skeleton, on) is None  # the note is no entry: javascript true renders the page
    assert cache.scripts_timeout(first, dataclasses.replace(on, timeout_s=8)) == ""  # a longer timeout: again
    assert cache.scripts_timeout(first, dataclasses.replace(on, viewport_width=800)) == ""
    assert cache.scripts_timeout(dataclasses.replace(first, subresources=((css, "cd34"),)), on) == ""
    changed = Page(skeleton.site_id, skeleton.path, skeleton.url, skeleton.html + "<p>new</p>")
    assert cache.scripts_timeout(dataclasses.replace(first, page=changed), on) == ""
    # a warm run: the first rendering from the cache, the note instead of a second rendering, no Chromium
    monkeypatch.setattr(render_cache, "Renderer", None)  # any rendering would fail
    (kept,) = render_pages([skeleton], auto, tmp_path)
    assert kept.rendered == first.rendered and kept.scripts == "" and kept.error == ""
    # another timeout: the note does not hold, the page is rendered again (here: fails for want of Chromium)
    with pytest.raises(TypeError):
        list(render_pages([skeleton], dataclasses.replace(auto, timeout_s=8), tmp_path))


def test_a_cache_that_cannot_be_written_costs_speed_not_renderings(tmp_path, monkeypatch, caplog):
    """A read-only or full disk: every page is rendered and yielded, and the failure said once."""
    import mainentity.render.cache as render_cache

    class FakeRenderer:  # renders without Chromium
        def __init__(self, settings):
            self.settings = settings

        def start(self):
            pass

        def render(self, pages, subresources, scripts=False):
            return (RenderOutcome(page, make_rendered(title=page.path)) for page in pages)

        def close(self):
            pass

    def full_disk(path, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(render_cache, "Renderer", FakeRenderer)
    monkeypatch.setattr(render_cache, "write_entry", full_disk)
    pages = [Page("shop", f"pages/{i}.htm", f"http://shop.test/{i}.htm", "<p>x</p>") for i in range(3)]
    for _ in range(2):  # nothing stored: the second run renders every page again
        outcomes = list(render_pages(pages, RenderSettings(), tmp_path / "cache"))
        assert [o.rendered.title for o in outcomes] == [page.path for page in pages]
    assert caplog.text.count("renderings not stored in the render cache") == 2  # once per run
    assert "No space left on device" in caplog.text
