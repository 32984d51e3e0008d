"""Tests of mainentity.linkgraph: URL normalisation and incoming link anchor texts (ILA)."""

from __future__ import annotations

import hashlib
import re
import statistics
from dataclasses import replace
from pathlib import Path

import pytest

from mainentity.linkgraph import (
    AnchorCoverage,
    UrlKey,
    incoming_anchors,
    learn_url_key,
    link_graph,
    normalize_url,
    with_incoming_anchors,
)
from mainentity.linkgraph.anchors import _Prefilter
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
        ("http://shop.example:8080/A/b/", "http://shop.example:8080/A/b"),
        ("https://User@Shop.Example:8443/x", "https://User@shop.example:8443/x"),
        ("  https://shop.example/a\n/b\t ", "https://shop.example/a/b"),
        ("https://shop.example/a/", "https://shop.example/a"),
        ("https://shop.example/a/index.html", "https://shop.example/a"),
        ("https://shop.example/Default.aspx?b=2&a=1", "https://shop.example/?a=1&b=2"),
        ("https://shop.example/%7euser/a%20b?q=%c3%a9", "https://shop.example/~user/a%20b?q=%C3%A9"),
        ("https://shop.example/p?utm_source=x&UTM_Medium=y&gclid=1&fbclid=2&id=3", "https://shop.example/p?id=3"),
        ("https://shop.example/p.jsp;jsessionid=0AB1?x=1", "https://shop.example/p.jsp?x=1"),
        ("http://shop.example:port/a#b", "http://shop.example:port/a"),
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
        '<a href="/k.html/reviews">Reviews</a> <a href="mailto:x@shop.example">Mail</a>'
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


def test_the_href_prefilter_loses_no_link(monkeypatch):
    body = (
        '<a href="..">Up</a> <a href="./">Here</a> <a href="">Empty</a> <a href="?q=1">Query</a>'
        '<a href="//shop.example">Scheme-relative</a> <a href="HTTPS://SHOP.EXAMPLE?x">Bare host</a>'
        '<a href=" ../ ">Spaced</a> <a href="../%20x.html">Encoded</a> <a href="..\n/d.html">Newline</a>'
        '<a href="../INDEX.HTML">Index</a> <a href="/c/d.html;jsessionid=A1?utm_source=x">Session</a>'
        '<a href="/elsewhere/p%64/%31/778?e=1">Encoded id</a> <a href="/v/pd/2/">Id with slash</a>'
    )
    urls = ["/", "/c/", "/c/d.html", "/c/d/", "/c/%20x.html", "/c/d.html?q=1", "/?x", "/y/pd/1", "/z/pd/2", "/w/pd/3"]
    pages = [page("src.html", f"{HOST}/c/d/", body)]
    pages += [page(f"{i}.html", HOST + url, "") for i, url in enumerate(urls)]
    fast = link_graph(pages)
    monkeypatch.setattr(_Prefilter, "__call__", lambda self, href: True)
    unfiltered = link_graph(pages)
    assert fast.anchors == unfiltered.anchors
    assert fast.url_key == unfiltered.url_key == UrlKey(frozenset({"q", "x"}), key_word="pd")
    anchors = fast.anchors
    assert anchors["0.html"] == ("Scheme-relative",)
    assert anchors["1.html"] == ("Up", "Spaced", "Index")
    assert anchors["2.html"] == ("Newline", "Session")
    assert anchors["4.html"] == ("Encoded",)
    assert anchors["5.html"] == ()  # ?q=1 resolves against /c/d/ -> /c/d/?q=1, not in the dump
    assert anchors["6.html"] == ("Bare host",)
    # the segment after "pd" (percent-decoded, before a session segment or a trailing slash) names the page
    assert (anchors["7.html"], anchors["8.html"], anchors["9.html"]) == (("Encoded id",), ("Id with slash",), ())


def test_sample_shop_anchors():
    (dump,) = read_dataset(REPO / "datasets" / "sample-shop")
    graph = link_graph(dump.pages)
    anchors = graph.anchors
    # "View details" links to every product of a category page: generic, so no product gets it
    assert anchors["pages/p/creme-brulee-torch.html"] == ("Brûlée Torch", "Crème Brûlée Torch")
    assert anchors["pages/index.html"] == ("Harbor Lane Goods", "Home")
    assert anchors["pages/c/kitchen/index.html"] == ("Kitchen", "Shop Kitchen")
    products = [p for p in dump.pages if p.path.startswith("pages/p/")]
    assert all(p.main_entity[0] in anchors[p.path] for p in products)
    assert not any("View details" in texts for texts in anchors.values())
    assert graph.coverage == AnchorCoverage(
        "sample-shop", 42, 42, n_links=592, n_hidden_links=0, n_generic_links=15,
        url_key="normalised URL, query parameters kept: none",
    )


HREF = re.compile(r'(<a\b[^>]*\bhref=")([^"]*)"')


def add_to_links(page: Page, query: str, path_parameter: str = "") -> Page:
    """The page with ``path_parameter`` and ``query`` added to every link (fragment-only links excepted)."""

    def rewrite(match: re.Match) -> str:
        href = match.group(2)
        if href.startswith(("#", "mailto:", "javascript:")):
            return match.group(0)
        address, hash_mark, fragment = href.partition("#")
        path, _, old_query = address.partition("?")
        if path.count("/") == 2 and "//" in path:  # a bare host: its path is "/"
            path += "/"
        new_query = "&".join(part for part in (old_query, query) if part)
        return f'{match.group(1)}{path}{path_parameter}?{new_query}{hash_mark}{fragment}"'

    return replace(page, html=HREF.sub(rewrite, page.html))


def session_of(page: Page) -> str:
    return hashlib.sha1(page.path.encode()).hexdigest()[:12]


TRACKING = "utm_source=newsletter&utm_medium=email&utm_campaign=spring&gclid=Cj0KCQ&fbclid=IwAR2"


@pytest.mark.parametrize(
    "variant", ["crawl-session", "page-session", "jsessionid", "session-in-page-urls", "tracking-only"]
)
def test_session_ids_and_tracking_parameters_leave_the_link_graph_unchanged(variant):
    (dump,) = read_dataset(REPO / "datasets" / "sample-shop")
    pages = list(dump.pages)
    if variant == "crawl-session":
        changed = [add_to_links(p, f"sid=7F3A9C01&{TRACKING}") for p in pages]
    elif variant == "page-session":  # each page was fetched in its own session
        changed = [add_to_links(p, f"{TRACKING}&SESSIONID={session_of(p)}") for p in pages]
    elif variant == "jsessionid":
        changed = [add_to_links(p, TRACKING, ";jsessionid=0A1B2C3D4E") for p in pages]
    elif variant == "session-in-page-urls":  # the crawler saved each page under its session URL
        changed = [
            replace(add_to_links(p, f"s={session_of(p)}"), url=f"{p.url}?s={session_of(p)}") for p in pages
        ]
    else:
        changed = [add_to_links(p, TRACKING) for p in pages]
    assert changed[0].html != pages[0].html
    plain, tracked = link_graph(pages), link_graph(changed)
    assert tracked.anchors == plain.anchors
    assert tracked.coverage.n_pages_with_anchors == plain.coverage.n_pages_with_anchors == 42
    assert tracked.coverage.n_links == plain.coverage.n_links


def old_site(ids, links_of) -> list[Page]:
    """Pages item.php?id=N of an old site; ``links_of(n)`` gives the ids page N links to."""
    return [
        page(f"item-{n}.html", f"http://old.example/item.php?id={n}",
             "".join(f'<a href="item.php?id={m}&amp;sid=AB12&amp;utm_source=x">Item {m}</a>' for m in links_of(n)))
        for n in ids
    ]


def test_pages_that_differ_by_a_query_parameter_stay_apart():
    ids = range(1, 7)
    pages = old_site(ids, lambda n: [m for m in (n - 1, n + 1, 9) if m != n])  # item 9 is not in the dump
    graph = link_graph(pages)
    assert graph.anchors == {f"item-{n}.html": (f"Item {n}",) for n in ids}
    assert graph.url_key.page_params == frozenset({"id"})
    # with only one such page in the dump, links to the other items still do not reach it
    alone = old_site([1], lambda n: [2, 3])
    alone.append(page("home.html", "http://old.example/", '<a href="item.php?id=2">Item 2</a>'))
    assert link_graph(alone).anchors == {"item-1.html": (), "home.html": ()}


def test_learn_url_key_query_parameters():
    pages = ["https://b.example/product/978", "https://b.example/product/979?tab=info"]
    links = [(1, "https://b.example/product/978?id=4779530265026"), (0, "https://b.example/product/979?tab=info")]
    rule = learn_url_key(pages, links)
    assert rule == UrlKey(page_params=frozenset({"tab"}))
    assert rule.key(links[0][1]) == rule.key(pages[0])
    # a parameter on page URLs that tells two pages apart is kept, even when it looks like a session
    pages = ["https://b.example/a?v=1", "https://b.example/a?v=2", "https://b.example/b?v=1"]
    links = [(0, "https://b.example/b?v=1"), (0, "https://b.example/a?v=2"), (2, "https://b.example/a?v=1"),
             (2, "https://b.example/a?v=2")]
    assert learn_url_key(pages, links).page_params == frozenset({"v"})



def test_learn_url_key_finds_session_parameters_in_page_urls():
    sessions = {1: "A7", 2: "B8", 3: "C9"}
    pages = [f"http://o.example/p.php?id={n}&sid={sessions[n]}" for n in sessions]
    links = [(n - 1, f"http://o.example/p.php?id={m}&sid={sessions[n]}") for n in sessions for m in sessions if m != n]
    rule = learn_url_key(pages, links)
    assert rule.page_params == frozenset({"id"})
    assert rule.key(links[0][1]) == rule.key(pages[1])
    # a value that changes with the target, not with the linking page, is no session id
    links = [(n - 1, f"http://o.example/p.php?id={m}&sid={sessions[m]}") for n in sessions for m in sessions if m != n]
    assert learn_url_key(pages, links).page_params == frozenset({"id", "sid"})

def christianbook_like_site(n_pages: int = 4) -> list[Page]:
    """Product pages /<title>/<author>/<isbn>/pd/<id>; links add a session segment and vary the slug."""
    pages = []
    for n in range(n_pages):
        others = "".join(
            f'<a href="/title-{m}/co-author/978{m}/pd/{600 + m}/116663{n}?event=CF">Book {m}</a>'
            for m in range(n_pages) if m != n
        )
        pages.append(page(f"{n}.htm", f"http://books.example/title-{n}/author/978{n}/pd/{600 + n}", others))
    return pages


def test_the_page_id_segment_is_learnt():
    pages = christianbook_like_site()
    graph = link_graph(pages)
    assert graph.url_key == UrlKey(key_word="pd")
    assert graph.anchors == {f"{n}.htm": (f"Book {n}",) for n in range(4)}
    assert "page id: the segment after /pd/" in graph.coverage.url_key
    # two pages: too few to learn from
    assert link_graph(pages[:2]).anchors == {"0.htm": (), "1.htm": ()}


def test_a_segment_that_does_not_tell_pages_apart_is_not_a_page_id():
    # /news/<year>/<story>: the year after "news" repeats, so stories are matched by their whole path
    urls = ["/news/2023/a", "/news/2023/b", "/news/2024/c", "/news/2024/d"]
    body = '<a href="/news/2023/x/">Other story</a><a href="/news/2024/d/">Story d</a>'
    pages = [page(f"{i}.html", HOST + url, body) for i, url in enumerate(urls)]
    graph = link_graph(pages)
    assert graph.url_key.key_word is None
    assert graph.anchors == {"0.html": (), "1.html": (), "2.html": (), "3.html": ("Story d",)}


def test_hidden_links_and_generic_texts_are_left_out():
    body = (
        '<div style="color: red; DISPLAY : none"><a href="a.html">Hidden in div</a></div>'
        '<a href="a.html" hidden>Hidden attribute</a> <span style="visibility:hidden"><a href="a.html">V</a></span>'
        '<a href="a.html" style="display: block">Alpha</a> <a href="a.html">View details</a>'
        '<a href="b.html">View details</a> <a href="b.html"><img alt="Beta"></a>'
        '<a href="b.html" style="--display: none">Beta book</a>'
    )
    pages = [page("index.html", f"{HOST}/", body), page("a.html", f"{HOST}/a.html", ""),
             page("b.html", f"{HOST}/b.html", "")]
    graph = link_graph(pages)
    assert graph.anchors == {"index.html": (), "a.html": ("Alpha",), "b.html": ("Beta", "Beta book")}
    coverage = graph.coverage
    assert (coverage.n_pages, coverage.n_pages_with_anchors) == (3, 2)
    assert (coverage.n_links, coverage.n_hidden_links, coverage.n_generic_links) == (3, 3, 2)
    assert coverage.share_pages_with_anchors == pytest.approx(2 / 3)
    assert not coverage.silent


def test_coverage_of_a_site_without_links_between_its_pages():
    pages = [page("a.html", f"{HOST}/a.html", "<p>A</p>"), page("b.html", f"{HOST}/b.html", "<p>B</p>")]
    coverage = link_graph(pages).coverage
    assert coverage.silent and coverage.share_pages_with_anchors == 0.0
    assert coverage.summary().startswith("site shop: 0 of 2 pages (0.0%) have incoming anchor texts from 0 links")
    assert not link_graph(pages[:1]).coverage.silent  # one page cannot link to another
    assert link_graph([]).coverage == AnchorCoverage("", 0, 0, url_key="normalised URL, query parameters kept: none")


@pytest.mark.shared_data
def test_christianbook_link_graph():
    dump = read_site_dump(SHARED / "swde-book-christianbook" / "sites" / "christianbook")
    assert len(dump.pages) == 1000
    # product links carry a session segment and a tracking query (.../pd/600150/1166633515?event=AAI)
    # and differing slugs: the learnt rule keys product pages by the segment after /pd/
    learnt = link_graph(dump.pages)
    assert learnt.url_key == UrlKey(key_word="pd")
    with_pattern = link_graph(dump.pages, url_pattern=r"/pd/(\d+)")
    pages_with = {name: {p.path for p in dump.pages if graph.anchors[p.path]}
                  for name, graph in (("learnt", learnt), ("pattern", with_pattern))}
    assert len(pages_with["learnt"]) == 221 and len(pages_with["pattern"]) == 224
    # the pattern's 3 extra pages are wrong: it cuts the ids 10681X, 562286DA, 5407X to links of 10681, ...
    extra = pages_with["pattern"] - pages_with["learnt"]
    urls = {p.url.rsplit("/pd/", 1)[1] for p in dump.pages if p.path in extra}
    assert pages_with["learnt"] < pages_with["pattern"] and urls == {"10681X", "562286DA", "5407X"}
    sizes = [len(texts) for texts in learnt.anchors.values()]
    assert statistics.mean(sizes) == pytest.approx(0.481)
    assert sum(1 for p in dump.pages if set(p.main_entity) & set(learnt.anchors[p.path])) == 211
    assert learnt.coverage.n_generic_links == 556


def test_links_home_are_kept_apart_per_page():
    """Each page's visible links to its own host's root, with or without www, index file or query, whether
    the home page is in the dump or not; none on the home page itself, none to another host."""
    home = page("index.html", f"{HOST}/", '<a href="/">Harbor Lane Goods</a> <a href="p/k.html">Kettle</a>')
    kettle = page("p/k.html", f"{HOST}/p/k.html",
                  '<header><a href="../index.html?ref=logo"><img alt="Harbor Lane Goods logo"></a>'
                  ' <a href="https://www.shop.example">Home</a> <a href="/c/">Kitchen</a>'
                  ' <a href="/" hidden>Hidden home</a> <a href="https://other.example/">Other</a>'
                  ' <a href="/#top">Home</a></header>')
    graph = link_graph([home, kettle])
    assert graph.home_link_texts == {"index.html": (), "p/k.html": ("Harbor Lane Goods logo", "Home")}
    linked = with_incoming_anchors([home, kettle])
    assert [p.home_link_texts for p in linked] == [(), ("Harbor Lane Goods logo", "Home")]
    # a page alone: its home page is not in the dump, its link home still names the site
    (alone,) = with_incoming_anchors([kettle])
    assert alone.home_link_texts == ("Harbor Lane Goods logo", "Home") and alone.anchors == ()
    # the home page alone: none (its links home are self links, its other links name no page of the dump)
    (home_alone,) = with_incoming_anchors([home])
    assert home_alone.home_link_texts == () and home_alone.anchors == ()


def test_a_malformed_href_or_base_is_skipped_not_raised():
    """``http://[::1`` makes ``urljoin`` raise: the link (or the ``<base href>``) is skipped, the page's other
    links still count, as a browser would follow them."""
    odd = page("p/k.html", f"{HOST}/p/k.html", '<base href="http://[::1"><a href="http://[::1">Broken</a>'
               '<a href="http://[::1/">Broken too</a> <a href="https://shop.example/index.html">Harbor Lane Goods</a>'
               ' <a href="c.html">Kitchen</a>')
    kitchen = page("p/c.html", f"{HOST}/p/c.html", "<p>Kitchen</p>")
    graph = link_graph([odd, kitchen])
    assert graph.anchors == {"p/k.html": (), "p/c.html": ("Kitchen",)}
    # an absolute link to the host's index file is a link home
    assert graph.home_link_texts == {"p/k.html": ("Harbor Lane Goods",), "p/c.html": ()}


def test_a_page_without_a_url_and_a_malformed_href_is_linked():
    """A page built from HTML alone has no URL: the malformed href cannot even be joined to one."""
    alone = Page("s", "p.html", "", '<a href="http://[::1">x</a> <a href="/">Home page</a>')
    assert link_graph([alone]).anchors == {"p.html": ()}
