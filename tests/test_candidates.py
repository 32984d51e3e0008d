"""Candidates finer and coarser than a text block (mainentity.features.candidates)."""

from __future__ import annotations

from mainentity.features.candidates import page_candidates, title_segment_candidates
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
