"""Tests of mainentity.cleaning.dom: the HTML5 parse and the renderer's dom_path.

``rendered_from_html`` builds text blocks without a browser for the cleaning tests: one block per
non-space text node, tagged with its parent element's dom_path from :func:`parse_dom`, skipping the
subtrees the renderer skips (``blocks.js`` SKIP). That mirrors the renderer (same parse, same paths);
it leaves out the renderer's merged blocks, layout and styles, which cleaning does not read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mainentity.cleaning.dom import DomElement, index_by_path, iter_elements, parse_dom, path_steps
from mainentity.records import Document, Page, RenderedPage, TextBlock
from mainentity.text import collapse_whitespace

_SKIP = {"head", "script", "style", "noscript", "template", "iframe", "noembed", "noframes", "canvas",
         "video", "audio"}


def rendered_from_html(html: str) -> RenderedPage:
    """Text blocks of ``html`` as the renderer would list them (without merges and layout)."""
    blocks = []
    stack: list[DomElement] = [parse_dom(html)]
    while stack:
        element = stack.pop()
        for child in element.children:
            if isinstance(child, str) and child.strip():
                blocks.append(TextBlock(collapse_whitespace(child), element.tag, element.path,
                                        16.0, 400, False, 0.0, float(len(blocks)) * 20, 100.0, 20.0))
        stack.extend(reversed([c for c in element.element_children if c.tag not in _SKIP]))
    return RenderedPage(title="", meta=(), blocks=tuple(blocks))


def make_document(site_id: str, path: str, html: str, main_entity: tuple[str, ...] = ()) -> Document:
    """A Document of a hand-written page, rendered by :func:`rendered_from_html`."""
    page = Page(site_id, path, f"http://{site_id}/{path}", html, main_entity)
    return Document(page, rendered_from_html(html))


def test_implied_elements_and_indices_count_elements_only():
    root = parse_dom("<title>T</title><!-- c --><p>a</p>text<p>b</p>")
    paths = [element.path for element in iter_elements(root)]
    assert paths == ["html[0]", "html[0]/head[0]", "html[0]/head[0]/title[0]", "html[0]/body[1]",
                     "html[0]/body[1]/p[0]", "html[0]/body[1]/p[1]"]
    assert index_by_path(root)["html[0]/body[1]/p[1]"].text() == "b"


def test_tbody_insertion_and_foster_parenting():
    # The <div> inside <table> is foster-parented before the table (WHATWG 13.2.6.1).
    root = parse_dom("<table><tr><td>cell</td></tr><div>fostered</div></table>")
    index = index_by_path(root)
    assert index["html[0]/body[1]/div[0]"].text() == "fostered"
    assert index["html[0]/body[1]/table[1]/tbody[0]/tr[0]/td[0]"].text() == "cell"


def test_noscript_is_markup_and_template_content_is_not_a_child():
    root = parse_dom("<body><noscript><p>no js</p></noscript><template><i>t</i></template><b>x</b>")
    index = index_by_path(root)
    assert index["html[0]/body[1]/noscript[0]/p[0]"].text() == "no js"
    assert index["html[0]/body[1]/template[1]"].children == []
    assert "html[0]/body[1]/b[2]" in index


def test_tags_are_lower_cased_like_the_renderer():
    root = parse_dom("<DIV><svg><foreignObject><P>x</P></foreignObject></svg></DIV>")
    assert "html[0]/body[1]/div[0]/svg[0]/foreignobject[0]/p[0]" in index_by_path(root)


def test_text_collapses_white_space_and_respects_the_limit():
    element = parse_dom("<p> Holy\n <b>Bible</b>\tKJV </p>")
    assert element.text() == "Holy Bible KJV"
    assert element.text(limit=4) == "Holy"


def test_path_steps_parses_and_rejects():
    assert path_steps("html[0]/body[1]/DIV[12]") == [("html", 0), ("body", 1), ("div", 12)]
    with pytest.raises(ValueError, match="tag\\[i\\]"):
        path_steps("html[0]/body")


def test_every_block_of_the_mirror_resolves():
    html = "<header><a href='/'>Home</a></header><main><h1>Title</h1><p>one <b>two</b></p></main>"
    rendered = rendered_from_html(html)
    index = index_by_path(parse_dom(html))
    assert [b.text for b in rendered.blocks] == ["Home", "Title", "one", "two"]
    assert all(block.dom_path in index for block in rendered.blocks)


SHARED = Path(__file__).resolve().parents[2] / "shared"
CHRISTIANBOOK = SHARED / "datasets/swde-book-christianbook/sites/christianbook"


@pytest.mark.browser
@pytest.mark.shared_data
def test_chromium_dom_paths_resolve_in_the_parse():
    if not CHRISTIANBOOK.is_dir():
        pytest.skip(f"shared dataset not found at {CHRISTIANBOOK}")
    from mainentity.render.browser import Renderer
    from mainentity.render.settings import RenderSettings
    from mainentity.sitedump import read_site_dump

    pages = read_site_dump(CHRISTIANBOOK, max_pages=3).pages
    with Renderer(RenderSettings(concurrency=1)) as renderer:
        outcomes = list(renderer.render(pages))
    n_blocks = n_resolved = 0
    for outcome in outcomes:
        assert outcome.rendered is not None, outcome.error
        index = index_by_path(parse_dom(outcome.page.html))
        n_blocks += len(outcome.rendered.blocks)
        n_resolved += sum(block.dom_path in index for block in outcome.rendered.blocks)
    assert n_blocks > 100
    assert n_resolved == n_blocks
