"""Candidates finer and coarser than a text block (mainentity.features.candidates)."""

from __future__ import annotations

import pytest

from mainentity.features.candidates import MAX_UNSHOWN_PARTS, page_candidates, title_segment_candidates
from mainentity.records import RenderedPage, TextBlock


def block(text, y=0.0, size=16.0, kind="block", hidden=False, merged=False, level=0, path="html[0]/body[1]/p[0]"):
    return TextBlock(text, "p", path, size, 400, False, 10.0, y, 200.0, 20.0, heading_level=level, hidden=hidden,
                     merged=merged, kind=kind)


def test_blocks_then_segments_then_title_segments():
    rendered = RenderedPage(
        "The Long Road - Good Books",
        (),
        (block("The Long Road (Paperback)", merged=True), block("Menu", y=50)),
        segments=(block("The Long Road", kind="run"), block("(Paperback)", kind="run")),
    )
    kinds = [(c.kind, c.text) for c in page_candidates(rendered)]
    # the title segment "The Long Road" is the run already there; the whole title, not shown, has no box
    assert kinds == [("block", "The Long Road (Paperback)"), ("block", "Menu"), ("run", "The Long Road"),
                     ("run", "(Paperback)"), ("title", "The Long Road - Good Books")]
    assert page_candidates(rendered)[-1].width == 0.0


def test_title_segments_take_the_box_of_the_tightest_block_holding_them():
    rendered = RenderedPage("Lantern makers | North Shore Journal", (), ())
    long = block("Read: Lantern makers and their craft", y=500)
    short = block("Lantern makers at work", y=100)
    whole, candidate = title_segment_candidates(rendered, [long, short])
    assert (candidate.text, candidate.kind, candidate.y) == ("Lantern makers", "title", 100.0)
    assert (whole.text, whole.width, whole.font_size) == ("Lantern makers | North Shore Journal", 0.0, 0.0)


def test_hidden_and_wordless_candidates_are_left_out_unless_nothing_is_visible():
    rendered = RenderedPage("", (), (block("Hidden", hidden=True), block("·"), block("Shown")))
    assert [c.text for c in page_candidates(rendered)] == ["Shown"]
    all_hidden = RenderedPage("", (), (block("Hidden", hidden=True),))
    assert [c.text for c in page_candidates(all_hidden)] == ["Hidden"]


def test_same_text_at_another_place_is_another_candidate():
    rendered = RenderedPage("", (), (block("Title", y=0), block("title", y=0), block("Title", y=300)))
    assert [(c.text, c.y) for c in page_candidates(rendered)] == [("Title", 0.0), ("Title", 300.0)]


def line(text, i, y, size=40.0, x=64.0, height=48.0):
    return TextBlock(text, "div", f"html[0]/body[1]/div[0]/div[{i}]", size, 400, False, x, y, 400, height)


BODY = [line("The fleet grew by two ships and lost one to a storm in March. " * 3, 9, 600, size=18, height=22)]


def test_positioned_lines_of_one_text_are_joined_after_their_last_line():
    blocks = [line("Quarterly Review", 0, 100), line("of the Northern Fleet", 1, 148), *BODY]
    candidates = page_candidates(RenderedPage("PowerPoint Presentation", (), tuple(blocks)))
    assert [(c.kind, c.text) for c in candidates[:3]] == [
        ("block", "Quarterly Review"), ("block", "of the Northern Fleet"),
        ("lines", "Quarterly Review of the Northern Fleet")]
    joined = candidates[2]
    assert (joined.dom_path, joined.merged, joined.y, joined.height) == ("html[0]/body[1]/div[0]", True, 100, 96)


def test_lines_that_do_not_continue_one_another_are_not_joined():
    cases = {
        "another left edge": [line("Quarterly Review", 0, 100), line("of the Fleet", 1, 148, x=200)],
        "two lines apart": [line("Quarterly Review", 0, 100), line("of the Fleet", 1, 196)],
        "another size": [line("Quarterly Review", 0, 100), line("of the Fleet", 1, 148, size=30)],
        "body text": [line("One line of body text.", 0, 100, size=18, height=22),
                      line("The next line of it.", 1, 122, size=18, height=22)],
        "a paragraph": [line(f"Line {i} of a long text", i, 100 + 48 * i) for i in range(5)],
    }
    for name, blocks in cases.items():
        candidates = page_candidates(RenderedPage("T", (), tuple(blocks + BODY)))
        assert [c.text for c in candidates if c.kind == "lines"] == [], name


def test_of_two_og_titles_the_one_the_page_bears_out_wins():
    shown = (block("Stories from a small harbour", 0), block("Salt marsh walks", 40))
    stale_first = (("og:title", "Stories from a small harbour"), ("og:title", "Salt marsh walks"))
    # both shown: the last, the page's own template's
    assert RenderedPage("Harbour Notes", stale_first, shown).meta_titles == ("Salt marsh walks",)
    # a last tag the page does not show loses to one it does
    stale_last = (("og:title", "Salt marsh walks"), ("twitter:title", "Harbour"), ("og:title", "Home page"))
    assert RenderedPage("Harbour Notes", stale_last, shown).meta_titles == ("Salt marsh walks", "Harbour")


#: A 2008 news page of the shape of issue 37's: its ad's ``document.write`` source shown as text, where the
#: readers keep script-like text (an element that shows code, here ``<tt>``) and in the ``<title>`` its broken
#: markup swallowed, set larger and bolder than the headline; and a link's inline handler shown as text.
SCRIPT_SHOWN_PAGE = """<!DOCTYPE html><html><head>
<title>Storm closes bridge'?' + OAS_query + '"&gt;&lt;\\/SCRIPT&gt;'); //--&gt;</title></head><body>
<tt style="font-size:30px;font-weight:700">Storm closes bridge'?' + OAS_query + '"&gt;&lt;\\/SCRIPT&gt;'); //--&gt;</tt>
<p style="font-size:22px;font-weight:bold">onclick="window.open('/poll.html','poll','width=300'); return false;"</p>
<h1 style="font-size:24px">Storm closes bridge</h1>
<p>The harbour bridge was closed on Tuesday night as gusts reached 120 km/h, the port authority said.</p>
<p>Ferries ran every twenty minutes until the morning.</p>
</body></html>"""


def shown_script_page():
    from mainentity.records import Page

    return Page("gazette.example", "2008/storm.html", "https://gazette.example/2008/storm.html", SCRIPT_SHOWN_PAGE)


def is_script(text):
    return "OAS_query" in text or "window.open" in text


def assert_no_script_candidate(rendered):
    texts = [candidate.text for candidate in page_candidates(rendered)]
    assert "Storm closes bridge" in texts
    # the reader shows both texts as blocks, and the title as it is ...
    assert len([block.text for block in rendered.blocks if is_script(block.text)]) == 2, rendered.blocks
    assert is_script(rendered.title)
    assert not [text for text in texts if is_script(text)], texts  # ... none is a candidate


def test_script_source_shown_as_text_is_no_candidate_of_the_static_reader():
    from mainentity.api import load_model
    from mainentity.render.static import read_static

    page = shown_script_page()
    assert_no_script_candidate(read_static(page))
    prediction = load_model("general-static").extract(page.html, page.url)
    assert prediction.main_entity == "Storm closes bridge"


@pytest.mark.browser
def test_script_source_shown_as_text_is_no_candidate_of_the_rendered_page(render_cache_dir):
    from mainentity.api import load_model
    from mainentity.render import RenderSettings, render_pages

    page = shown_script_page()
    (outcome,) = render_pages([page], RenderSettings(), render_cache_dir)
    assert_no_script_candidate(outcome.rendered)
    with load_model("general", cache_dir=render_cache_dir, render_policy="always") as model:
        assert model.extract(page.html, page.url).main_entity == "Storm closes bridge"


def test_an_unshown_title_of_many_parts_offers_only_its_first_parts():
    # a title of a thousand parts compared each with every block cost 30 s on a page of 5000 blocks
    title = " | ".join(f"part{i} words" for i in range(1000))
    blocks = [TextBlock(f"paragraph {i}", "p", f"html[0]/body[1]/p[{i}]", 16, 400, False, 8, 20 * i, 600, 18)
              for i in range(50)]
    texts = [c.text for c in title_segment_candidates(RenderedPage(title, (), ()), blocks)]
    assert texts == [title] + [f"part{i} words" for i in range(MAX_UNSHOWN_PARTS)]


def test_a_heading_stops_the_unshown_title_parts_only_where_its_words_start_one():
    # "Ban" is no word of "Bank robbery ...": the headline part stays a candidate; "Stuff" is one of "Stuff by ..."
    def heading(text):
        return TextBlock(text, "h3", "html[0]/body[1]/h3[0]", 20, 700, True, 8, 8, 60, 24, heading_level=3)

    bank = RenderedPage("Bank robbery suspect arrested downtown | Daily Bugle", (), ())
    assert [c.text for c in title_segment_candidates(bank, [heading("Ban")])] == [
        bank.title, "Bank robbery suspect arrested downtown", "Daily Bugle"]
    stuff = RenderedPage("Stuff by Randy O. Frost | Shop", (), ())
    assert [c.text for c in title_segment_candidates(stuff, [heading("Stuff")])] == [stuff.title]


def test_a_drop_cap_letter_is_no_candidate_where_its_heading_continues_the_word():
    """A headline's floated first letter ("A" of "An old ferry ...", 84 px) is a block of its own; the
    heading's text goes on with the same word, so the letter is no candidate. A one-letter word stays."""
    def heading(rest):
        return RenderedPage("", (), (
            block("A", size=84, path="html[0]/body[1]/h2[0]/span[0]"),
            block(rest, size=36, path="html[0]/body[1]/h2[0]"),
            block("A" + rest, size=36, path="html[0]/body[1]/h2[0]", merged=True)))

    assert [c.text for c in page_candidates(heading("n old ferry finds a new route"))] == [
        "n old ferry finds a new route", "An old ferry finds a new route"]
    assert [c.text for c in page_candidates(heading(" new route for the old ferry"))] == [
        "A", "new route for the old ferry", "A new route for the old ferry"]


def test_a_one_letter_name_beside_text_that_starts_with_its_letter_stays():
    """A film page's heading "Q" over its element's own line "Quebec, 2011 ...": that line is not the
    element's whole text (no merged block starts "QQuebec"), so the letter is no drop cap."""
    rendered = RenderedPage("Filmhaus – Q (2011)", (), (
        block("Q", size=40, level=1, path="html[0]/body[1]/div[0]/h1[0]"),
        block("Quebec, 2011 · 94 minutes", path="html[0]/body[1]/div[0]"),
        block("Q Quebec, 2011 · 94 minutes", path="html[0]/body[1]/div[0]", merged=True)))
    assert [c.text for c in page_candidates(rendered)][:3] == [
        "Q", "Quebec, 2011 · 94 minutes", "Q Quebec, 2011 · 94 minutes"]
