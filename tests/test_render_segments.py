"""Segments of the renderer (blocks.js): style runs, visible texts and whole headings. Start Chromium."""

from __future__ import annotations

import pytest

from mainentity.records import Page
from mainentity.render import Renderer, RenderSettings

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def renderer():
    with Renderer(RenderSettings(concurrency=1, timeout_s=15)) as r:
        yield r


def render(renderer, body: str, head: str = ""):
    html = f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"
    page = Page("s", "p.htm", "http://s.test/p.htm", html)
    (outcome,) = list(renderer.render([page]))
    assert outcome.error == ""
    return outcome.rendered


def segments(rendered, kind):
    return [segment.text for segment in rendered.segments if segment.kind == kind]


def test_style_runs_split_a_title_from_its_smaller_format_note(renderer):
    rendered = render(renderer, '<h2>The Long Road<span style="font-size:12px"> (Paperback)</span></h2>')
    assert segments(rendered, "run") == ["The Long Road", "(Paperback)"]
    run = rendered.segments[0]
    assert (run.tag, run.heading_level, run.font_size, run.hidden) == ("h2", 2, 24.0, False)
    assert run.width > 0 and run.height > 0
    # the paper's blocks are unchanged: two text nodes and their merge
    assert [block.text for block in rendered.blocks] == ["The Long Road", "(Paperback)", "The Long Road (Paperback)"]


def test_visible_text_drops_a_visually_hidden_copy_of_a_drop_cap(renderer):
    head = ("<style>.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}"
            ".cap{float:left;font-size:80px}</style>")
    rendered = render(renderer, '<h1><span class="cap" aria-hidden="true">W</span><span class="vh">W</span>'
                                "inter comes early to the coast</h1>", head)
    assert segments(rendered, "visible") == ["Winter comes early to the coast"]
    # the merged block keeps the DOM text, as the paper defines it
    assert "WWinter comes early to the coast" in [block.text for block in rendered.blocks]


def test_visible_text_drops_a_copy_moved_off_the_page(renderer):
    # the older screen-reader pattern: positioned far off the left edge instead of clipped
    head = "<style>.offscreen{position:absolute;left:-9999px}.cap{float:left;font-size:80px}</style>"
    rendered = render(renderer, '<h1><span class="cap" aria-hidden="true">S</span><span class="offscreen">S</span>'
                                "torm warning for the islands</h1>", head)
    assert segments(rendered, "visible") == ["Storm warning for the islands"]


def test_a_heading_split_over_block_elements_is_one_heading_segment(renderer):
    rendered = render(renderer, "<h1><div>Harbour towns</div><div>turn fish markets into food halls</div></h1>")
    assert segments(rendered, "heading") == ["Harbour towns turn fish markets into food halls"]
    assert rendered.segments[0].heading_level == 1


def test_aria_headings_have_their_level(renderer):
    rendered = render(renderer, '<div role="heading" aria-level="1">Site of the day</div><div role="heading">Sub</div>')
    levels = {block.text: block.heading_level for block in rendered.blocks}
    assert levels == {"Site of the day": 1, "Sub": 2}


def test_one_style_merges_have_no_runs(renderer):
    rendered = render(renderer, "<p>Plain <em>text</em> in one style</p>")
    assert segments(rendered, "run") == []
    assert segments(rendered, "visible") == []


DOCS_HOST = ('<doc-page><template shadowrootmode="open"><style>h1 { font-size: 40px }</style><nav>Guide</nav>'
             '<main><h1><slot name="title">Untitled</slot></h1><slot></slot></main></template>'
             '<span slot="title">Configuring the build cache</span><p>The cache keeps <b>compiled</b> outputs.</p>'
             '<div slot="elsewhere">not shown</div></doc-page>')


def test_a_declarative_shadow_root_is_walked_with_its_slotted_content(renderer):
    rendered = render(renderer, f"<header>Docs Hub</header>{DOCS_HOST}<footer>Footer</footer>")
    shown = {block.text: block for block in rendered.blocks}
    # the shadow tree's own text lives under the host's #shadow-root step
    assert shown["Guide"].dom_path == "html[0]/body[1]/doc-page[1]/#shadow-root[0]/nav[1]"
    # slotted light children keep their light-DOM path and take the shadow tree's styles and heading level
    title = shown["Configuring the build cache"]
    assert (title.dom_path, title.font_size, title.heading_level) == ("html[0]/body[1]/doc-page[1]/span[0]", 40.0, 1)
    assert shown["The cache keeps compiled outputs."].dom_path == "html[0]/body[1]/doc-page[1]/p[1]"
    # the slot's fallback is replaced; a light child no slot takes is not shown
    assert "Untitled" not in shown and "not shown" not in shown
    assert [block.text for block in rendered.blocks if not block.merged][-1] == "Footer"


def test_a_shadow_root_attached_by_script_is_walked_when_scripts_run():
    body = ('<x-card id="c"><b>light child</b></x-card><script>document.getElementById("c")'
            '.attachShadow({mode: "open"}).innerHTML = "<h2>Made by script</h2><slot></slot>";</script>')
    with Renderer(RenderSettings(javascript=True, concurrency=1, timeout_s=15)) as js_renderer:
        rendered = render(js_renderer, body)
    assert [(b.text, b.dom_path, b.heading_level) for b in rendered.blocks] == [
        ("Made by script", "html[0]/body[1]/x-card[0]/#shadow-root[0]/h2[0]", 2),
        ("light child", "html[0]/body[1]/x-card[0]/b[0]", 0)]


def test_block_spans_of_one_heading_merge_with_a_space_and_a_drop_cap_does_not(renderer):
    head = "<style>.line { display: block } .cap { display: block; float: left; font-size: 60px }</style>"
    rendered = render(renderer, '<h1><span class="line">Winter Orchards</span><span class="line">and the Growers Who'
                                ' Save Them</span></h1><p><span class="cap">T</span>he tide turned</p>', head)
    merged = [block.text for block in rendered.blocks if block.merged]
    assert merged == ["Winter Orchards and the Growers Who Save Them", "The tide turned"]


def test_script_source_the_parser_lets_out_is_no_text_block(renderer):
    body = ("<h2>Dam repairs<script>if (ads) document.write('<SCRIPT SRC=\"/ad/Nation' + ad_query + '\"></SCRIPT>');"
            " //--></script></h2><pre>document.write('x' + name + 'y');</pre>")
    rendered = render(renderer, body)
    assert [block.text for block in rendered.blocks] == ["Dam repairs", "document.write('x' + name + 'y');"]


def test_a_title_with_a_mangled_end_tag_carries_no_markup(renderer):
    # the parser reads the title's text on to the end of the file: the page shows nothing
    rendered = render(renderer, "<p>swallowed</p>", "<title>Dam repairs - Gazette</titlexyz>")
    assert (rendered.title, rendered.blocks) == ("Dam repairs - Gazette", ())
