"""Tests of the static page reader (mainentity.render.static): blocks and styles from HTML without a browser.

Small hand-made pages check the cascade, inheritance, hiding, merges, headings, links, linked style
sheets and ``@import``; the browser test checks that the reader agrees with Chromium's rendering of the
embedded sample shop, and the shared-data test with that of the readability-realworld pages.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import replace

import pytest
from conftest import SAMPLE_SHOP

from mainentity.records import Page
from mainentity.render import RenderSettings, render_pages
from mainentity.render.static import read_static, read_static_pages
from mainentity.render.static_agreement import agreement
from mainentity.render.static_css import is_quirks, media_applies
from mainentity.sitedump import DumpFile, SubresourceSources, read_site_dump

DOCTYPE = "<!DOCTYPE html>"


def page_of(body: str, head: str = "", doctype: str = DOCTYPE, name: str = "p/1") -> Page:
    html = f"{doctype}<html><head>{head}</head><body>{body}</body></html>"
    return Page("s", f"{name}.htm", f"http://shop.test/{name}.htm", html)


def read(body: str, head: str = "", subresources=None, doctype: str = DOCTYPE):
    return read_static(page_of(body, head, doctype), subresources)


def block(rendered, text: str):
    """The one block with this text."""
    (found,) = [b for b in rendered.blocks if b.text == text]
    return found


class FakeFiles:
    """A SubresourceSource serving style sheets from a dict of absolute URLs."""

    holds_subresources = True

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.requests: list[tuple[str, str, str]] = []

    def holds_page(self, page: Page) -> bool:
        return True

    def find(self, url: str, page_url: str, page_path: str) -> DumpFile | None:
        self.requests.append((url, page_url, page_path))
        if url not in self.files:
            return None
        data = self.files[url].encode("utf-8")
        return DumpFile(url.rsplit("/", 1)[-1], data, hashlib.sha256(data).hexdigest())


def test_cascade_orders_by_specificity_then_source_order():
    css = "<style>#a { font-size: 20px } p.x { font-size: 30px } p { font-size: 10px } .y { font-size: 11px }</style>"
    rendered = read('<p id="a" class="x">one</p><p class="x">two</p><p class="y">three</p>', css)
    assert [block(rendered, t).font_size for t in ("one", "two", "three")] == [20.0, 30.0, 11.0]


def test_an_invalid_selector_drops_its_whole_rule():
    css = ("<style>p { font-size: 20px } .a&gt; p, p.x { font-size: 10px }"
           " p::-moz-selection, p.y { font-size: 9px }</style>")
    rendered = read('<p class="x">one</p><p class="y">two</p>', css)
    assert [block(rendered, t).font_size for t in ("one", "two")] == [20.0, 20.0]


def test_important_beats_specificity_and_inline_style():
    css = "<style>p { font-size: 12px !important; font-weight: 300 } #a { font-size: 30px; font-weight: 800 }</style>"
    rendered = read('<p id="a" style="font-size: 40px">one</p><p style="font-weight: 700 !important">two</p>', css)
    one, two = block(rendered, "one"), block(rendered, "two")
    assert (one.font_size, one.font_weight, one.bold) == (12.0, 800, True)
    assert (two.font_size, two.font_weight, two.bold) == (12.0, 700, True)


def test_relative_font_sizes_and_weights_inherit():
    css = (
        "<style>html { font-size: 10px } div { font-size: 20px; font-weight: 300 } .em { font-size: 1.5em }"
        " .pc { font-size: 50% } .rem { font-size: 2rem } .kw { font-size: x-large } b { font-weight: bolder }</style>"
    )
    rendered = read(
        '<div><span class="em">em</span><span class="pc">pc<i class="em">nested</i></span>'
        '<span class="rem">rem</span><span class="kw">kw</span><small>small</small><b>b</b><h1>h</h1></div>', css
    )
    sizes = {t: block(rendered, t).font_size for t in ("em", "pc", "nested", "rem", "kw", "small", "b", "h")}
    assert sizes == {"em": 30.0, "pc": 10.0, "nested": 15.0, "rem": 20.0, "kw": 24.0, "small": 16.6667,
                     "b": 20.0, "h": 40.0}
    assert block(rendered, "b").font_weight == 400 and block(rendered, "b").bold  # bolder than 300; inside <b>
    assert block(rendered, "h").font_weight == 700


def test_monospace_and_form_controls_use_chromium_default_sizes():
    rendered = read('<p>text <code>code</code></p><pre>pre</pre><p style="font-size: 20px"><code>big</code></p>'
                    "<button>Buy</button>")
    assert [block(rendered, t).font_size for t in ("code", "pre", "big", "Buy")] == [13.0, 13.0, 20.0, 13.3333]


def test_display_none_subtree_is_skipped_and_visibility_hides():
    css = "<style>.gone { display: none } .ghost { visibility: hidden } .back { visibility: visible }</style>"
    rendered = read(
        '<div class="gone"><p>never</p></div><div hidden>nor this</div><div class="ghost">ghost'
        '<p class="back">back</p></div><p>seen</p>', css
    )
    texts = [b.text for b in rendered.blocks]
    assert "never" not in texts and "nor this" not in texts
    assert block(rendered, "ghost").hidden and not block(rendered, "back").hidden and not block(rendered, "seen").hidden
    # skipped elements still count in dom_path indices
    assert block(rendered, "seen").dom_path == "html[0]/body[1]/p[3]"


def test_off_page_text_is_hidden():
    css = "<style>.logo { text-indent: -9999px } .sr { position: absolute; left: -10000px }</style>"
    rendered = read('<h1 class="logo"><a href="/">Shop</a></h1><div class="sr">skip</div><p>main</p>', css)
    assert block(rendered, "Shop").hidden and block(rendered, "skip").hidden and not block(rendered, "main").hidden


def test_text_scaled_to_nothing_is_hidden():
    """A box scaled to nothing on an axis shows nothing, its content neither (Chromium gives it no area); a
    site name set huge and scaled away would otherwise be read as the page's largest heading."""
    css = "<style>.gone { transform: rotate(2deg) scaleY(0) } .half { transform: scale(0.5) }</style>"
    rendered = read('<h1 style="font-size:96px;transform:scale(0)">The Daily Gull</h1><div class="gone"><p>menu</p>'
                    '</div><p class="half">small</p><h2 style="transform: scale(1, 0.0)">flat</h2><h2>Headline</h2>',
                    css)
    assert all(block(rendered, text).hidden for text in ("The Daily Gull", "menu", "flat"))
    assert not block(rendered, "small").hidden and not block(rendered, "Headline").hidden


def test_text_without_a_box_is_hidden():
    rendered = read(
        '<svg><title>Logo</title><text>Drawn</text></svg><textarea>typed</textarea><details><summary>More</summary>'
        "<p>folded</p></details><p>\u200b</p><title>not shown</title>"
    )
    hidden = {b.text: b.hidden for b in rendered.blocks}
    assert hidden == {"Logo": True, "Drawn": False, "typed": True, "More": False, "folded": False, "\u200b": True}


def test_root_hiding_is_undone():
    rendered = read("<p>shown</p>", "<style>html { display: none } body { visibility: hidden !important }</style>")
    assert not block(rendered, "shown").hidden


def test_inline_only_content_merges_once():
    rendered = read("<div><b>This <em>is</em> the <span>ENTITY</span> <u>of</u> interest</b></div><p>A<br>B</p>")
    merged = [(b.text, b.tag, b.dom_path) for b in rendered.blocks if b.merged]
    assert merged == [("This is the ENTITY of interest", "b", "html[0]/body[1]/div[0]/b[0]"),
                      ("A B", "p", "html[0]/body[1]/p[1]")]
    assert [b.text for b in rendered.blocks][:6] == ["This", "is", "the", "ENTITY", "of", "interest"]
    assert block(rendered, "ENTITY").tag == "span" and block(rendered, "ENTITY").bold


def test_headings_links_and_aria_levels():
    rendered = read(
        '<h2>Two</h2><div role="heading" aria-level="4">Four</div><div role="heading">Default</div>'
        '<div role="heading" aria-level="9">Bad</div><a href="/x">link</a><a name="top">anchor</a>'
        '<h3><a href="/y">linked heading</a></h3>'
    )
    levels = {t: block(rendered, t).heading_level for t in ("Two", "Four", "Default", "Bad", "link", "linked heading")}
    assert levels == {"Two": 2, "Four": 4, "Default": 2, "Bad": 2, "link": 0, "linked heading": 3}
    assert block(rendered, "Two").font_size == 24.0 and block(rendered, "Four").font_size == 16.0
    assert block(rendered, "link").in_link and not block(rendered, "anchor").in_link
    assert block(rendered, "linked heading").in_link


def test_linked_stylesheet_and_import_are_read_through_the_source():
    files = FakeFiles({
        "http://cdn.test/css/site.css": "@import url('type.css'); .name { font-size: 40px }",
        "http://cdn.test/css/type.css": "@import 'deeper.css' print; .stock { font-weight: 700 }",
    })
    head = ('<base href="http://cdn.test/"><link rel="stylesheet" href="css/site.css">'
            '<link rel="alternate stylesheet" href="css/alt.css">')
    rendered = read('<h1 class="name">Kettle</h1><p class="stock">In stock</p>', head, files)
    assert block(rendered, "Kettle").font_size == 40.0 and block(rendered, "In stock").bold
    assert [url for url, _, _ in files.requests] == ["http://cdn.test/css/site.css", "http://cdn.test/css/type.css"]
    assert files.requests[0][1:] == ("http://shop.test/p/1.htm", "p/1.htm")
    assert block(read('<h1 class="name">Kettle</h1>', head), "Kettle").font_size == 32.0  # no source: UA only


def test_media_queries_at_the_renderer_viewport():
    css = ("<style>@media (max-width: 600px) { p { font-size: 10px } } @media screen and (min-width: 800px)"
           " { p { font-weight: 700 } } @media print { p { font-size: 50px } }</style>")
    one = block(read("<p>one</p>", css), "one")
    assert (one.font_size, one.bold) == (16.0, True)
    assert media_applies("") and not media_applies("print") and media_applies("not print")


def test_quirks_mode_tables_do_not_inherit_fonts():
    body = '<div style="font-size: 20px; font-weight: bold"><table><tr><td>cell</td></tr></table></div>'
    quirks, standard = block(read(body, doctype=""), "cell"), block(read(body), "cell")
    assert (quirks.font_size, quirks.bold, standard.font_size, standard.bold) == (16.0, False, 20.0, True)
    assert is_quirks('<base href="x"><!DOCTYPE html>') and not is_quirks("<!-- c --><!doctype html>")


def test_title_meta_and_missing_boxes():
    head = ('<title> The  Kettle </title><meta property="og:title" content="Kettle"><meta name="Description"'
            ' content=" A kettle "><meta name="viewport" content="width=device-width">')
    rendered = read("<svg><title>icon</title></svg><p>x</p>", head)
    assert rendered.title == "The Kettle"
    assert rendered.meta == (("og:title", "Kettle"), ("description", "A kettle"))
    assert math.isnan(rendered.width) and math.isnan(rendered.height)
    assert all(math.isnan(v) for v in (rendered.blocks[0].x, rendered.blocks[0].y, rendered.blocks[0].height))


def test_a_meta_tag_saved_by_the_postlight_parser_says_its_value():
    head = ('<meta value="Storm Hits Coast | Bay News" name="og:title">'
            '<meta name="twitter:title" content="Storm" value="x">')
    assert read("<p>x</p>", head).meta == (("og:title", "Storm Hits Coast | Bay News"), ("twitter:title", "Storm"))


def test_segments_runs_visible_text_and_headings():
    css = "<style>.sr { position: absolute; clip: rect(0 0 0 0) } .sub { font-size: 12px }</style>"
    rendered = read('<h1>Kettle <span class="sub">enamel, 1 l</span></h1><p><span class="sr">Price:</span> 9 EUR</p>'
                    "<h2><div>Split</div><div>heading</div></h2>", css)
    segments = [(s.kind, s.text, s.font_size) for s in rendered.segments]
    assert segments == [("run", "Kettle", 32.0), ("run", "enamel, 1 l", 12.0), ("visible", "9 EUR", 16.0),
                        ("heading", "Split heading", 24.0)]


def test_a_reading_within_slot_paths_holds_their_blocks_as_the_whole_reading_does():
    """A locator reads a page where its slots are only: the elements at the given paths (an index of None is
    any) and their content, each block and segment as the whole reading has it (inherited style, heading,
    link); nothing else, and no check that needs the whole page."""
    css = "<style>.box { font-size: 20px } .t { position: absolute }</style>"
    body = ("<nav><a href='/'>Home</a></nav><div class='box'><h1><a href='#'>Tin <b>cup</b></a></h1></div>"
            "<div class='box'><h1>Oak board</h1></div><p>Made by hand</p>"
            + "".join(f"<div class='t'>Line {i}</div>" for i in range(6)))
    page = page_of(body, css)
    with pytest.raises(ValueError, match="positioned lines"):
        read_static(page)
    slot = (("html", 0), ("body", 1), ("div", None), ("h1", 0))
    part = read_static(page, within=[slot])
    whole = read_static(replace(page, html=page.html.replace("class='t'", "")))
    at_slot = [b for b in (*whole.blocks, *whole.segments) if b.dom_path.rsplit("/", 1)[0].startswith(
        "html[0]/body[1]/div[") and "/h1[0]" in b.dom_path]
    assert (*part.blocks, *part.segments) == tuple(at_slot) and part.title == whole.title
    assert [(b.text, b.font_size, b.in_link, b.heading_level) for b in part.blocks if b.merged] == [
        ("Tin cup", 40.0, True, 1)]  # 2em of the box's 20px
    assert [b.text for b in part.blocks if not b.merged] == ["Tin", "cup", "Oak board"]
    assert read_static(page, within=[(("html", 0), ("body", 1), ("div", 3))]).blocks == ()


def test_a_declarative_shadow_root_is_left_to_the_renderer():
    page = Page("s", "d.htm", "http://s.test/d", '<doc-page><template shadowrootmode="open"><h1><slot></slot></h1>'
                "</template>Title</doc-page>")
    with pytest.raises(ValueError, match="s/d.htm: a declarative shadow root"):
        read_static(page)
    # an empty one (a browser extension's host in a saved page) shows nothing of its host, as in Chromium
    empty = replace(page, html='<div><template shadowrootmode="open"> </template><b>light</b></div><p>after</p>')
    assert [(b.text, b.dom_path) for b in read_static(empty).blocks] == [("after", "html[0]/body[1]/p[1]")]
    # an ordinary template is no shadow root
    assert [b.text for b in read_static(replace(page, html="<template><p>x</p></template><p>y</p>")).blocks] == ["y"]


def test_text_set_in_positioned_lines_is_left_to_the_renderer():
    """A slide deck as HTML (every line an absolutely positioned div): which lines continue one another is
    known from their boxes only. A page with a positioned menu beside its text in the flow is still read."""
    lines = "".join(f"<div class='t' style='top:{60 + 48 * i}px'>Line {i}</div>" for i in range(4))
    head = "<style>.t{position:absolute;left:64px} .pf{position:relative}</style>"
    with pytest.raises(ValueError, match=r"p/1.htm: text set in positioned lines \(4 of 4 shown texts"):
        read(f"<div class='pf'>{lines}</div>", head)
    menu = "<ul style='position:absolute'><li>Shop</li><li>About</li><li>Help</li></ul>"
    prose = "".join(f"<p>Paragraph {i}</p>" for i in range(4))
    assert len(read(f"{menu}<h1>Title</h1>{prose}", head).blocks) == 8  # 3 positioned of 8 shown
    with pytest.raises(ValueError, match="3 of 5 shown texts"):
        read(f"{menu}<h1>Title</h1><p>One paragraph</p>", head)


def test_batch_reports_a_failing_page_and_goes_on():
    good = Page("s", "a.htm", "http://s.test/a", "<p>a</p>")
    deep = Page("s", "b.htm", "http://s.test/b", "<div>" * 5000 + "deep")
    results = list(read_static_pages([deep, good]))
    assert results[0][1] is None and "s/b.htm" in results[0][2]
    assert results[1][1].blocks[0].text == "a" and results[1][2] == ""


#: Small pages whose every block and segment (boxes aside) must be read as Chromium renders them:
#: ``(head, body, doctype)``.
CROSS_CHECKED = {
    "cascade": (
        "<style>#a { font-size: 20px } p.x { font-size: 30px } p { font-size: 10px } .y { font-size: 11px }"
        " p.z { font-weight: 300 !important } #b { font-weight: 800 }</style>",
        '<p id="a" class="x">one</p><p class="x">two</p><p class="y">three</p><p id="b" class="z">four</p>', DOCTYPE,
    ),
    "sizes": (
        "<style>html { font-size: 10px } div { font-size: 20px; font-weight: 300 } .em { font-size: 1.5em }"
        " .pc { font-size: 50% } .rem { font-size: 2rem } .kw { font-size: x-large } .l { font-size: larger }"
        " .w { font-weight: lighter } .n { font: italic 600 14px/2 Georgia, serif }</style>",
        '<div><span class="em">em</span><span class="pc">pc<i class="em">nested</i></span><span class="rem">rem</span>'
        '<span class="kw">kw</span><small>small</small><b>b</b><h1>h <span class="w">w</span></h1></div>'
        '<p class="l">larger <span class="l">more</span></p><p class="n">short</p><sub>sub</sub><big>big</big>'
        "<table><tr><th>head</th></tr></table>", DOCTYPE,
    ),
    "monospace": (
        "", '<p>text <code>code</code></p><pre>pre</pre><p style="font-size: 20px"><code>big</code></p>'
        '<button>Buy</button><div style="font-size: 1.2em"><code>rel</code> <kbd style="font-size: .9em">k</kbd></div>',
        DOCTYPE,
    ),
    "hiding": (
        "<style>html { display: none } body { visibility: hidden !important } .gone { display: none }"
        " .ghost { visibility: hidden } .back { visibility: visible } .logo { text-indent: -9999px }"
        " .sr { position: absolute; left: -10000px }</style>",
        '<div class="gone"><p>never</p></div><div hidden>nor this</div><div class="ghost">ghost<p class="back">back'
        '</p></div><h1 class="logo"><a href="/">Shop</a></h1><div class="sr">skip</div><p>seen</p><svg><title>Logo'
        "</title><text>Drawn</text></svg><textarea>typed</textarea><select><option>option</option></select>"
        "<details><summary>More</summary><p>folded</p></details><p>\u200b</p>", DOCTYPE,
    ),
    "merges-and-headings": (
        "<style>.clip { position: absolute; clip: rect(0 0 0 0) } .sub { font-size: 12px }</style>",
        "<div><b>This <em>is</em> the <span>ENTITY</span> <u>of</u> interest</b></div><p>A<br>B</p>"
        '<h2>Two</h2><div role="heading" aria-level="4">Four</div><div role="heading" aria-level="9">Bad</div>'
        '<a href="/x">link</a><a name="top">anchor</a><h3><a href="/y">linked heading</a></h3>'
        "<section><h1>In section</h1></section><h1>Kettle <span class=\"sub\">enamel, 1 l</span></h1>"
        '<p><span class="clip">Price:</span> 9 EUR</p><h2><div>Split</div><div>heading</div></h2>'
        '<p>a <span style="opacity: 0">b</span> c</p>', DOCTYPE,
    ),
    "lines-and-leaked-code": (
        "<style>.l1, .l2 { display: block } .l2 { font-size: 20px } .cap { display: block; float: left;"
        " font-size: 60px } .pin { display: block; position: absolute; left: 300px }</style>",
        "<h1><span class=\"l1\">Winter Orchards</span><span class=\"l2\">and the Growers</span></h1>"
        '<p><span class="cap">T</span>he rest <span class="pin">pinned</span></p>'
        "<h2>Dam repairs<script>document.write('<SCRIPT SRC=\"/ad/Nation' + q + '\"></SCRIPT>'); //--></script></h2>"
        "<p>x<script>document.write('<SCRIPT></SCRIPT>');</script><\\/SCRIPT> a</p>"
        "<pre>document.write('<b>' + name + '</b>');</pre><p>It's a \"quote\" + 'more'</p>"
        '<div><template shadowrootmode="open"></template><b>light</b></div><p>after</p>', DOCTYPE,
    ),
    "mangled-title": ("<title>Harbour Days - Bay News</titlexyz>", "<p>swallowed</p>", DOCTYPE),
    "quirks": (
        "", '<div style="font-size: 20px; font-weight: bold"><table><tr><td>cell</td></tr></table></div>'
        '<font size="5">five</font><font size="-1">minus</font>', "",
    ),
}


@pytest.mark.browser
def test_small_pages_read_as_chromium_renders_them(render_cache_dir):
    pages = [
        page_of(body, head, doctype, name=name) for name, (head, body, doctype) in CROSS_CHECKED.items()
    ]

    def fields(rendered):
        return [(b.kind, b.dom_path, b.text, round(b.font_size, 2), b.font_weight, b.bold, b.in_link, b.heading_level,
                 b.hidden, b.merged) for b in rendered.blocks + rendered.segments]

    for outcome in render_pages(pages, RenderSettings(), render_cache_dir):
        static = read_static(outcome.page)
        assert fields(static) == fields(outcome.rendered), outcome.page.path
        assert (static.title, static.meta) == (outcome.rendered.title, outcome.rendered.meta)


def summed_agreement(dumps, cache_dir) -> tuple[int, ...]:
    """(visible, static visible, matched, equal size, equal bold, equal level) summed over the dumps' pages,
    both readers served the dumps' stylesheets. A page the static reader leaves to the renderer (text set in
    positioned lines) is left out: every run renders it; at most 2% of the pages may be."""
    sources = SubresourceSources.of_dumps(dumps)
    pages = [page for dump in dumps for page in dump.pages]
    totals, left = [0] * 10, []
    for outcome in render_pages(pages, RenderSettings(), cache_dir, subresources=sources):
        assert outcome.rendered is not None, outcome.error
        try:
            static = read_static(outcome.page, sources.for_page(outcome.page))
        except ValueError as error:
            assert "positioned lines" in str(error), error
            left.append(outcome.page.path)
            continue
        result = agreement(static, outcome.rendered)
        totals = [a + b for a, b in zip(totals, vars(result).values(), strict=True)]
    assert len(left) <= 0.02 * len(pages), left
    return tuple(totals[:6])


@pytest.mark.browser
def test_agrees_with_chromium_on_the_sample_shop(render_cache_dir):
    dumps = [read_site_dump(SAMPLE_SHOP / "sites" / "sample-shop")]
    n_visible, n_static_visible, n_matched, n_size, n_bold, n_level = summed_agreement(dumps, render_cache_dir)
    # measured: all 1653 visible blocks matched, with equal size, bold and level
    assert n_visible > 1000
    assert n_matched >= 0.98 * n_visible and n_matched >= 0.98 * n_static_visible
    assert min(n_size, n_bold, n_level) >= 0.98 * n_matched


@pytest.mark.browser
@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("dataset", "n_pages", "floor"),
    [
        ("swde-book-christianbook", 100, 0.98),  # measured: 1.000 of 56926 blocks, all attributes 1.000
        ("readability-realworld", None, 0.97),  # measured: 1.000 matched (50411), size 0.999, precision 0.999
    ],
)
def test_agrees_with_chromium_on_shared_pages(shared_datasets, render_cache_dir, dataset, n_pages, floor):
    dumps = [read_site_dump(site_dir, max_pages=n_pages)
             for site_dir in sorted((shared_datasets / dataset / "sites").iterdir())]
    n_visible, n_static_visible, n_matched, n_size, n_bold, n_level = summed_agreement(dumps, render_cache_dir)
    print(f"{dataset}: {n_matched / n_visible:.4f} of {n_visible} visible blocks matched, precision "
          f"{n_matched / n_static_visible:.4f}; size {n_size / n_matched:.4f}, bold {n_bold / n_matched:.4f}, "
          f"level {n_level / n_matched:.4f}")
    assert n_matched >= floor * n_visible and n_matched >= floor * n_static_visible
    assert min(n_size, n_bold, n_level) >= floor * n_matched


@pytest.mark.parametrize(("html", "problem"), [
    ("<h1>T</h1>" + "<span>w </span>" * 100_000, "over 100000 elements (start tags)"),
    ("<h1>T</h1><p>" + "w" * 2_000_000 + "</p>", "over 2000000 characters of text"),
], ids=["100 001 elements", "2 000 001 characters"])
def test_the_static_reader_refuses_a_page_over_the_renderers_limits_before_parsing_it(html, problem):
    from mainentity.render.settings import markup_problem

    page = Page("s", "big.htm", "http://s.test/big", html)
    assert problem in markup_problem(html)  # the renderer's own check
    with pytest.raises(ValueError, match=re.escape(f"s/big.htm: {problem}: not read, to bound memory")):
        read_static(page)
    [(_, rendered, error)] = read_static_pages([page])
    assert rendered is None and problem in error
    under = Page("s", "big.htm", "http://s.test/big", html[:len(html) // 2])  # under both: read
    assert read_static(under).blocks[0].text == "T"
