"""Tests of the render cache (mainentity.render.cache). No browser is started."""

from __future__ import annotations

import gzip

import pytest

from mainentity.records import Page, RenderedPage, TextBlock
from mainentity.render import RenderCache, RenderSettings, render_pages
from mainentity.render.browser import browser_version
from mainentity.render.cache import cache_key, dump_rendered, load_rendered


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
    rendered = make_rendered(50)
    loaded = load_rendered(dump_rendered(rendered))
    assert loaded == rendered
    assert type(loaded.blocks[0].font_weight) is int and type(loaded.blocks[0].bold) is bool
    assert loaded.meta_titles == ("Lydia's Charm",)


def test_put_get_round_trip(tmp_path):
    cache, settings = RenderCache(tmp_path), RenderSettings()
    assert cache.get(PAGE, settings) is None
    rendered = make_rendered(20)
    cache.put(PAGE, settings, rendered)
    assert cache.get(PAGE, settings) == rendered
    path = cache.path(PAGE, settings)
    assert path.is_file() and path.parent.parent == tmp_path
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind


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
    ]
    assert len({base, *changed}) == 6


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
    cache.put(PAGE, settings, make_rendered())
    path = cache.path(PAGE, settings)
    path.write_bytes(b"not gzip")
    assert cache.get(PAGE, settings) is None
    assert "unreadable render cache entry" in caplog.text
    path.write_bytes(gzip.compress(dump_rendered(make_rendered()).replace(b'"format":1', b'"format":0')))
    assert cache.get(PAGE, settings) is None


def test_render_pages_reads_cache_without_browser(tmp_path):
    settings = RenderSettings(executable_path="/nonexistent/chromium")
    pages = [Page("shop", f"{i}.htm", f"http://shop.test/{i}.htm", f"<p>{i}</p>") for i in range(5)]
    cache = RenderCache(tmp_path)
    for i, page in enumerate(pages):
        cache.put(page, settings, make_rendered(title=f"T{i}"))
    outcomes = list(render_pages(iter(pages), settings, tmp_path, chunk_size=2))
    assert [o.page for o in outcomes] == pages
    assert [o.rendered.title for o in outcomes] == [f"T{i}" for i in range(5)]
    assert all(o.error == "" for o in outcomes)


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
