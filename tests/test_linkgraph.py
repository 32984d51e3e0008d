"""Tests of mainentity.linkgraph: URL normalisation and incoming link anchor texts (ILA)."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from mainentity.linkgraph import incoming_anchors, normalize_url, with_incoming_anchors
from mainentity.records import Page
from mainentity.sitedump import read_dataset, read_site_dump

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "datasets"
HOST = "https://shop.example"


def page(path: str, url: str, body: str) -> Page:
    return Page(site_id="shop", path=path, url=url, html=f"<html><body>{body}</body></html>")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTPS://Shop.Example", "https://shop.example/"),
        ("https://shop.example:443/a?b=1#frag", "https://shop.example/a?b=1"),
        ("http://shop.example:80/", "http://shop.example/"),
        ("http://shop.example:8080/A/b/", "http://shop.example:8080/A/b/"),
        ("https://User@Shop.Example:8443/x", "https://User@shop.example:8443/x"),
        ("  https://shop.example/a\n/b\t ", "https://shop.example/a/b"),
        ("https://shop.example/a/", "https://shop.example/a/"),
        ("file:///tmp/Dump/a.html#x", "file:///tmp/Dump/a.html"),
    ],
)
def test_normalize_url(url, expected):
    assert normalize_url(url) == expected


def test_relative_links_resolve_against_the_page_url():
    pages = [
        page("c/kitchen.html", f"{HOST}/c/kitchen.html", '<a href="../p/kettle.html">Enamel Kettle</a>'),
        page("p/kettle.html", f"{HOST}/p/kettle.html", '<a href="mug.html">Stoneware Mug</a>'),
        page("p/mug.html", f"{HOST}/p/mug.html", '<a href="/c/kitchen.html">Kitchen</a>'),
    ]
    assert incoming_anchors(pages) == {
        "c/kitchen.html": ("Kitchen",),
        "p/kettle.html": ("Enamel Kettle",),
        "p/mug.html": ("Stoneware Mug",),
    }


def test_base_href_changes_the_resolution():
    # the <base> is itself relative to the page URL: links resolve against /p/
    source = Page(
        "shop", "x/index.html", f"{HOST}/x/index.html",
        '<html><head><base href="../p/"></head><body><a href="kettle.html">Kettle</a></body></html>',
    )
    pages = [source, page("p/kettle.html", f"{HOST}/p/kettle.html", "")]
    pages.append(page("x/k.html", f"{HOST}/x/kettle.html", ""))
    anchors = incoming_anchors(pages)
    assert anchors["p/kettle.html"] == ("Kettle",)
    assert anchors["x/k.html"] == ()


def test_fragments_host_case_and_trailing_slash_normalise():
    pages = [
        page("index.html", f"{HOST}/", '<a href="HTTPS://SHOP.EXAMPLE:443/p/k.html#reviews">12 reviews</a>'),
        page("p/k.html", f"{HOST}/p/k.html", f'<a href="{HOST}">Home</a> <a href="https://Shop.example#top">Start</a>'),
    ]
    assert incoming_anchors(pages) == {"index.html": ("Home", "Start"), "p/k.html": ("12 reviews",)}


def test_self_links_do_not_count():
    pages = [
        page("a.html", f"{HOST}/a.html", '<a href="#t">Top</a><a href="a.html">Me</a><a href="A.html">A</a>'),
        page("A.html", f"{HOST}/A.html", '<a href="HTTPS://shop.example/a.html#x">Lower</a>'),
    ]
    # the path is case-sensitive: /A.html is another page
    assert incoming_anchors(pages) == {"a.html": ("Lower",), "A.html": ("A",)}


def test_image_alt_when_the_link_text_is_empty():
    body = (
        '<a href="k.html"><img src="data:," alt="  Enamel\n Kettle "></a>'
        '<a href="k.html"><img src="data:,"><img alt="Second image"></a>'
        '<a href="k.html"><img alt="Ignored alt"> Visible text</a>'
        '<a href="k.html"><img src="data:,"></a>'
    )
    pages = [page("c.html", f"{HOST}/c.html", body), page("k.html", f"{HOST}/k.html", "")]
    assert incoming_anchors(pages)["k.html"] == ("Enamel Kettle", "Second image", "Visible text")


def test_links_outside_the_dump_are_ignored():
    body = (
        '<a href="https://other.example/k.html">Elsewhere</a> <a href="/help/returns.html">Returns</a>'
        '<a href="k.html?ref=home">Tracked</a> <a href="mailto:x@shop.example">Mail</a>'
        '<a href="javascript:void(0)">Script</a> <a name="k.html">No href</a> <a href="k.html">Kettle</a>'
    )
    pages = [page("c.html", f"{HOST}/c.html", body), page("k.html", f"{HOST}/k.html", "")]
    assert incoming_anchors(pages) == {"c.html": (), "k.html": ("Kettle",)}


def test_anchors_are_distinct_in_first_seen_order():
    nav = '<a href="/k.html">Kettle</a><a href="/k.html"><b>Enamel</b>  Kettle</a><a href="k.html">Kettle</a>'
    pages = [
        page("a.html", f"{HOST}/a.html", nav),
        page("b.html", f"{HOST}/b.html", '<a href="/k.html">KETTLE</a>' + nav),
        page("k.html", f"{HOST}/k.html", ""),
    ]
    assert incoming_anchors(pages)["k.html"] == ("Kettle", "Enamel Kettle", "KETTLE")


def test_pages_sharing_a_url_all_receive_its_links():
    pages = [
        page("a.html", f"{HOST}/a.html", '<a href="/story">Story</a>'),
        page("story-1.html", f"{HOST}/story", ""),
        page("story-2.html", f"{HOST}/story#capture-2", ""),
    ]
    anchors = incoming_anchors(pages)
    assert anchors["story-1.html"] == anchors["story-2.html"] == ("Story",)


def test_url_pattern_matches_links_with_session_ids():
    pages = [
        page("0.htm", "http://books.example/know-your-bible/pd/600150",
             '<a href="http://books.example/know-your-bible/paul-kent/pd/261024/1166?event=AAI">Conoce</a>'
             '<a href="/know-your-bible/pd/600150/1166#reviews">Self</a>'),
        page("1.htm", "http://books.example/conoce-tu-biblia/pd/261024", ""),
    ]
    assert incoming_anchors(pages)["1.htm"] == ()
    anchors = incoming_anchors(pages, url_pattern=r"/pd/(\d+)")
    assert anchors == {"0.htm": (), "1.htm": ("Conoce",)}
    with pytest.raises(ValueError, match="not a valid regular expression"):
        incoming_anchors(pages, url_pattern="(")


def test_duplicate_paths_are_an_error():
    pages = [page("a.html", f"{HOST}/a.html", ""), page("a.html", "https://other.example/a.html", "")]
    with pytest.raises(ValueError, match=r"unique.*\['a.html'\]"):
        incoming_anchors(pages)


def test_with_incoming_anchors_returns_new_pages():
    pages = [page("a.html", f"{HOST}/a.html", '<a href="b.html">Bee</a>')]
    pages.append(page("b.html", f"{HOST}/b.html", ""))
    out = with_incoming_anchors(pages)
    assert isinstance(out, tuple) and [p.anchors for p in out] == [(), ("Bee",)]
    assert [p.anchors for p in pages] == [(), ()]
    assert out[1].html == pages[1].html and out[1].url == pages[1].url


def test_odd_hrefs_agree_with_the_unfiltered_path():
    # the last-segment pre-filter must not lose links: compare with url_pattern that never matches
    body = (
        '<a href="..">Up</a> <a href="./">Here</a> <a href="">Empty</a> <a href="?q=1">Query</a>'
        '<a href="//shop.example">Scheme-relative</a> <a href="HTTPS://SHOP.EXAMPLE?x">Bare host</a>'
        '<a href=" ../ ">Spaced</a> <a href="../%20x.html">Encoded</a> <a href="..\n/d.html">Newline</a>'
    )
    urls = ["/", "/c/", "/c/d.html", "/c/d/", "/c/%20x.html", "/c/d.html?q=1", "/?x"]
    pages = [page("src.html", f"{HOST}/c/d/", body)]
    pages += [page(f"{i}.html", HOST + url, "") for i, url in enumerate(urls)]
    fast = incoming_anchors(pages)
    assert fast == incoming_anchors(pages, url_pattern="(?!)")
    assert fast["0.html"] == ("Scheme-relative",)
    assert fast["1.html"] == ("Up", "Spaced")
    assert fast["2.html"] == ("Newline",)
    assert fast["4.html"] == ("Encoded",)
    assert fast["5.html"] == ()  # ?q=1 resolves against /c/d/ -> /c/d/?q=1, not in the dump
    assert fast["6.html"] == ("Bare host",)


def test_sample_shop_anchors():
    (dump,) = read_dataset(REPO / "datasets" / "sample-shop")
    anchors = incoming_anchors(dump.pages)
    expected = ("Brûlée Torch", "Crème Brûlée Torch", "View details")
    assert anchors["pages/p/creme-brulee-torch.html"] == expected
    assert anchors["pages/index.html"] == ("Harbor Lane Goods", "Home")
    products = [p for p in dump.pages if p.path.startswith("pages/p/")]
    assert all(p.main_entity[0] in anchors[p.path] for p in products)


@pytest.mark.shared_data
def test_christianbook_link_graph():
    dump = read_site_dump(SHARED / "swde-book-christianbook" / "sites" / "christianbook")
    assert len(dump.pages) == 1000
    # product links carry a session id and a tracking query (.../pd/600150/1166633515?event=AAI) and
    # differing slugs, so exact URLs never match another page of the dump
    strict = incoming_anchors(dump.pages)
    assert sum(1 for texts in strict.values() if texts) == 0
    by_id = incoming_anchors(dump.pages, url_pattern=r"/pd/(\d+)")
    sizes = [len(texts) for texts in by_id.values()]
    assert sum(1 for n in sizes if n) == 224
    assert statistics.mean(sizes) == pytest.approx(0.697)
    assert sum(1 for p in dump.pages if set(p.main_entity) & set(by_id[p.path])) == 211
