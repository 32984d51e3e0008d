"""The static reading cache: a warm run reads a page's stored reading, and a changed page, style sheet or reader
reads it anew."""

from __future__ import annotations

import gzip
import platform

import pytest

import mainentity.render.static_cache as static_cache
from mainentity.loading import load_inputs
from mainentity.render.static import read_static
from mainentity.render.static_cache import StaticReadingCache, reader_modules
from mainentity.source_digest import source_digest

PAGE = ('<!doctype html><html><head><title>Kettle | Shop</title>'
        '<link rel="canonical" href="http://shop.test/item.html"><link rel="stylesheet" href="css/site.css">'
        '</head><body><h1 class="name">Kettle</h1><p>In stock</p></body></html>')


def site_dump(root, css: str = ".name { font-size: 40px }", page: str = PAGE):
    """A one-page site dump with one linked style sheet: its page and what serves the style sheet."""
    (root / "shop" / "css").mkdir(parents=True, exist_ok=True)
    (root / "shop" / "item.html").write_text(page)
    (root / "shop" / "css" / "site.css").write_text(css)
    loaded = load_inputs([str(root / "shop")])
    return loaded.pages[0], loaded.subresources.for_page(loaded.pages[0])


def font_sizes(rendered) -> dict[str, float]:
    return {block.text: block.font_size for block in rendered.blocks}


def forbid_reading(monkeypatch):
    def refuse(page, files=None):
        raise AssertionError(f"{page.path} read again")

    monkeypatch.setattr(static_cache, "read_static", refuse)


def test_a_stored_reading_is_read_back_unchanged_and_the_page_is_not_read_again(tmp_path, monkeypatch):
    page, files = site_dump(tmp_path)
    cache = StaticReadingCache(tmp_path / "cache")
    first = cache.read(page, files)
    assert font_sizes(first) == {"Kettle": 40.0, "In stock": 16.0}
    assert repr(first) == repr(read_static(page, files))
    forbid_reading(monkeypatch)
    assert repr(StaticReadingCache(tmp_path / "cache").read(page, files)) == repr(first)


@pytest.mark.parametrize("change", ["style sheet", "page", "reader"])
def test_a_changed_style_sheet_page_or_reader_reads_the_page_anew(tmp_path, monkeypatch, change):
    page, files = site_dump(tmp_path)
    cache = StaticReadingCache(tmp_path / "cache")
    cache.read(page, files)
    if change == "style sheet":
        page, files = site_dump(tmp_path, css=".name { font-size: 50px }")
    elif change == "page":
        page, files = site_dump(tmp_path, page=PAGE.replace("Kettle</h1>", "Kettle 2</h1>"))
    else:
        monkeypatch.setattr(static_cache, "reader_digest", lambda: "another reader")
    assert cache.get(page, files) is None
    assert font_sizes(cache.read(page, files))["Kettle 2" if change == "page" else "Kettle"] == (
        50.0 if change == "style sheet" else 40.0)


def test_a_dump_that_gains_its_style_sheets_reads_the_page_anew(tmp_path):
    """Read without a dump that serves anything, the page looked nothing up; with its style sheet, it must."""
    page, files = site_dump(tmp_path)
    cache = StaticReadingCache(tmp_path / "cache")
    assert font_sizes(cache.read(page, None))["Kettle"] == 32.0
    assert font_sizes(cache.read(page, files))["Kettle"] == 40.0


def test_a_refused_page_is_not_stored_and_a_corrupt_entry_is_a_miss(tmp_path, caplog):
    cache = StaticReadingCache(tmp_path / "cache")
    page, files = site_dump(tmp_path, page=PAGE.replace("<body>", '<body><div><template shadowrootmode="open">'
                                                              "<p>x</p></template></div>"))
    with pytest.raises(ValueError, match="item.html: a declarative shadow root"):
        cache.read(page, files)
    assert not (tmp_path / "cache").exists()
    page, files = site_dump(tmp_path)
    cache.read(page, files)
    (entry,) = (tmp_path / "cache").glob("*/*.static.json.gz")
    entry.write_bytes(gzip.compress(b"{not json"))
    assert cache.get(page, files) is None
    assert "ignoring unreadable static reading cache entry of shop.test/item.html" in caplog.text
    assert font_sizes(cache.read(page, files))["Kettle"] == 40.0
    (requests,) = (tmp_path / "cache").glob("*/*.static-requests.json")
    requests.write_text("{}")  # a page with no style sheet would find its entry under an empty list
    assert cache.get(page, files) is None


def test_a_cache_that_cannot_be_written_costs_speed_not_readings(tmp_path, monkeypatch, caplog):
    """A read-only or full disk: each page is read and answered, and the failure said once."""
    def full_disk(path, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(static_cache, "write_entry", full_disk)
    page, files = site_dump(tmp_path)
    cache = StaticReadingCache(tmp_path / "cache")
    assert [font_sizes(cache.read(page, files))["Kettle"] for _ in range(3)] == [40.0, 40.0, 40.0]
    assert caplog.text.count("static readings not stored in the render cache") == 1
    assert "No space left on device" in caplog.text


def test_the_reader_digest_covers_pythons_version(monkeypatch):
    before = static_cache.reader_digest()
    source_digest.cache_clear()
    monkeypatch.setattr(platform, "python_version", lambda: "3.99.0")
    try:
        assert static_cache.reader_digest() != before
    finally:
        source_digest.cache_clear()


def test_the_reader_digest_covers_the_reader_and_what_it_imports_not_the_model():
    modules = reader_modules()
    assert {"mainentity.render.static", "mainentity.render.static_css", "mainentity.text",
            "mainentity.render.scripts", "mainentity.records"} <= modules
    assert not any(name.startswith(("mainentity.features", "mainentity.recognizers")) for name in modules)
