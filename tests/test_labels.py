"""Training labels of text blocks (Carullo & Binaghi 2010, section 3.3)."""

from __future__ import annotations

import numpy as np
import pytest

from mainentity.features.candidates import title_segment_candidates
from mainentity.features.labels import main_entity_labels, shown_main_entity_labels
from mainentity.records import RenderedPage, TextBlock

BLOCKS = ["Home", "Know Your Bible", "Know Your Bible: All 66 Books", "Add to cart", "KNOW  your bible"]


def test_exact_match_after_normalisation_marks_every_equal_block():
    labels = main_entity_labels(BLOCKS, ["Know Your Bible"])
    assert labels.dtype == bool and labels.shape == (5,)
    assert labels.tolist() == [False, True, False, False, True]


def test_any_alternative_label_counts():
    assert main_entity_labels(BLOCKS, ["Psalms", "add to CART"]).tolist() == [
        False,
        False,
        False,
        True,
        False,
    ]


def test_exact_match_wins_over_the_dice_fallback():
    # "Home" matches exactly; the fallback is not consulted, so the Bible blocks stay negative.
    assert main_entity_labels(BLOCKS, ["Know Your Bible.", "home"]).tolist() == [
        True,
        False,
        False,
        False,
        False,
    ]


def test_fallback_takes_the_best_dice_block_above_the_threshold():
    # A site suffix: Dice("know your bible all 66 books", label) = 2*6 / (6 + 7) = 0.92.
    labels = main_entity_labels(BLOCKS, ["Know Your Bible: All 66 Books - Christianbook"])
    assert labels.tolist() == [False, False, True, False, False]


def test_fallback_below_the_threshold_marks_nothing():
    # Best Dice 2*3 / (3 + 6) = 0.67 < 0.8.
    label = ["Know Your Bible - Christianbook.com Store"]
    assert not main_entity_labels(BLOCKS, label).any()
    np.testing.assert_array_equal(main_entity_labels(BLOCKS, label, min_dice=0.6), [0, 1, 0, 0, 1])


def test_no_labels_or_no_blocks():
    assert main_entity_labels(BLOCKS, []).tolist() == [False] * 5
    assert main_entity_labels([], ["x"]).shape == (0,)


@pytest.mark.parametrize("min_dice", [0.0, 1.5])
def test_min_dice_out_of_range(min_dice):
    with pytest.raises(ValueError, match="min_dice"):
        main_entity_labels(BLOCKS, ["x"], min_dice=min_dice)


def test_a_text_marked_exact_only_is_the_main_entity_only_when_it_equals_a_label():
    # The Dice fallback would take a headline's <title> with its section and site:
    # Dice = 2*7 / (7 + 9) = 0.875 >= 0.8.
    texts = ["Storm closes the old harbour bridge again - Politics | Daily", "Storm closes the bridge"]
    label = ["Storm closes the old harbour bridge again"]
    assert main_entity_labels(texts, label).tolist() == [True, False]
    assert main_entity_labels(texts, label, exact_only=[True, False]).tolist() == [False, False]
    # an exact match still counts, and the fallback still reaches the other texts
    assert main_entity_labels(texts, [texts[0]], exact_only=[True, False]).tolist() == [True, False]
    assert main_entity_labels(texts, ["Storm closes the bridge now"], exact_only=[True, False]).tolist() == [
        False, True]


def test_exact_only_needs_one_entry_per_text():
    with pytest.raises(ValueError, match="exact_only has 1 entries for 5 blocks"):
        main_entity_labels(BLOCKS, ["x"], exact_only=[True])


# The label convention for titles a page does not show (shown_main_entity_labels)
HEADLINE = "Rudy Giuliani Is No Longer In The Running To Become Donald Trump's Secretary Of State"
SEO_TITLE = "Rudy Giuliani Is No Longer In The Running For Secretary Of State"


def _block(text: str, tag: str, level: int = 0, in_link: bool = False, hidden: bool = False) -> TextBlock:
    return TextBlock(text, tag, f"html[0]/body[1]/{tag}[0]", 32 if level else 16, 700, bool(level), 8, 1900, 600, 37,
                     in_link=in_link, heading_level=level, hidden=hidden)


def _candidates(title: str, blocks: list[TextBlock]) -> list[TextBlock]:
    """The page's blocks and its title candidates, as the general recogniser takes them."""
    return [*blocks, *title_segment_candidates(RenderedPage(title, (), tuple(blocks)), blocks)]


def test_a_label_the_page_shows_only_as_its_title_moves_to_the_headline_that_words_it_apart():
    blocks = [_block("Uproxx", "a", in_link=True), _block(HEADLINE, "h1", 1), _block("By A. Writer", "p")]
    candidates = _candidates(SEO_TITLE, blocks)
    assert [c.text for c in candidates][-1] == SEO_TITLE  # an unshown title candidate
    y = main_entity_labels([c.text for c in candidates], [SEO_TITLE])
    assert y.tolist() == [False, False, False, True]
    assert shown_main_entity_labels(candidates, y, [SEO_TITLE]).tolist() == [False, True, False, False]


def test_where_the_page_shows_a_label_too_only_what_it_shows_is_the_main_entity():
    # Readability's labels: its title output, with the displayed headline as an alternative
    candidates = _candidates(SEO_TITLE, [_block(HEADLINE, "h1", 1)])
    y = main_entity_labels([c.text for c in candidates], [SEO_TITLE, HEADLINE])
    assert y.tolist() == [True, True]
    assert shown_main_entity_labels(candidates, y, [SEO_TITLE, HEADLINE]).tolist() == [True, False]


def test_an_unshown_title_stays_the_main_entity_without_a_visible_headline_that_states_it():
    unrelated = _block("Markets close higher on Friday", "h1", 1)
    linked = _block(HEADLINE, "h1", 1, in_link=True)  # a teaser's link, not the page's heading
    hidden = _block(HEADLINE, "h1", 1, hidden=True)
    for blocks in ([unrelated], [linked], [hidden], [_block(HEADLINE, "h2", 2)]):
        candidates = _candidates(SEO_TITLE, blocks)
        y = main_entity_labels([c.text for c in candidates], [SEO_TITLE])
        assert shown_main_entity_labels(candidates, y, [SEO_TITLE]).tolist() == y.tolist() == [False, True]


def test_labels_without_an_unshown_title_are_left_as_they_are():
    candidates = _candidates(HEADLINE, [_block(HEADLINE, "h1", 1)])  # the title is shown: the h1 holds it
    y = main_entity_labels([c.text for c in candidates], [HEADLINE])
    assert shown_main_entity_labels(candidates, y, [HEADLINE]) is y
