"""Training labels of text blocks (Carullo & Binaghi 2010, section 3.3)."""

from __future__ import annotations

import numpy as np
import pytest

from mainentity.features.labels import main_entity_labels

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
