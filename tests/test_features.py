"""Textblock and anchor-text features (Carullo & Binaghi 2010, section 3.1)."""

from __future__ import annotations

import numpy as np
import pytest

from mainentity.features.anchortext import (
    ANCHORTEXT_FEATURES,
    anchortext_features,
    check_anchortext_features,
    dice_matrix,
)
from mainentity.features.textblock import (
    TEXTBLOCK_FEATURES,
    check_textblock_features,
    intitle_feature,
    term_counts,
    textblock_features,
)
from mainentity.records import TextBlock

TITLE = "The quick brown fox jumps over the lazy dog"


def block(text: str, font_size: float = 12.0, bold: bool = False) -> TextBlock:
    return TextBlock(
        text, "div", "html[0]/body[1]/div[0]", font_size, 700 if bold else 400, bold, 0, 0, 100, 20
    )


def test_intitle_is_the_papers_worked_example():
    # 16 = |the| + |quick| + |brown| + |fox|; 35 = letters of the title's terms.
    assert intitle_feature(["The quick brown fox"], TITLE)[0] == 16 / 35


def test_intitle_intersects_term_multisets_and_stays_in_unit_interval():
    # "the" occurs twice in the title, so a block may match it twice; "fox" and "lazy" only once.
    values = intitle_feature(["fox fox fox", TITLE, "THE LAZY, lazy dog! the the", "cat", ""], TITLE)
    np.testing.assert_allclose(values, [3 / 35, 1.0, (2 * 3 + 4 + 3) / 35, 0.0, 0.0], atol=1e-12)


def test_intitle_is_zero_without_title_terms():
    np.testing.assert_array_equal(intitle_feature(["fox", "dog"], " -- "), [0.0, 0.0])


def test_term_counts_share_a_vocabulary():
    counts, vocabulary = term_counts(["a b a", "", "b 2c"])
    assert vocabulary.tolist() == ["2", "a", "b", "c"]
    assert counts.toarray().tolist() == [[0, 2, 1, 0], [0, 0, 0, 0], [1, 0, 1, 1]]


def test_term_counts_of_no_terms_are_empty():
    counts, vocabulary = term_counts(["!!", ""])
    assert counts.shape == (2, 0) and len(vocabulary) == 0
    np.testing.assert_array_equal(intitle_feature(["!!"], "!!"), [0.0])


def test_textblock_features_columns_follow_the_names():
    blocks = [block("The quick brown fox", 36.0, True), block("jumps", 60.0), block("cat", 0.0)]
    theta = textblock_features(blocks, TITLE)
    assert theta.shape == (3, 3)
    np.testing.assert_allclose(theta[:, 0], [16 / 35, 5 / 35, 0.0], atol=1e-12)
    np.testing.assert_allclose(theta[:, 1], [0.75, 1.0, 0.0], atol=1e-12)  # 36/48; 60/48 clipped to 1
    np.testing.assert_array_equal(theta[:, 2], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(textblock_features(blocks, TITLE, ["fbold", "fsize"], 72.0)[0], [1.0, 0.5])


def test_textblock_features_of_empty_sets():
    assert textblock_features([block("a")], TITLE, []).shape == (1, 0)
    assert textblock_features([], TITLE).shape == (0, 3)


@pytest.mark.parametrize("fsize_max", [0.0, -1.0, float("nan")])
def test_textblock_features_reject_bad_fsize_max(fsize_max):
    with pytest.raises(ValueError, match="fsize_max"):
        textblock_features([block("a")], TITLE, fsize_max=fsize_max)


def test_unknown_feature_names_list_the_valid_ones():
    with pytest.raises(ValueError, match="unknown textblock feature.*'size'.*intitle, fsize, fbold"):
        check_textblock_features(["intitle", "size"])
    with pytest.raises(ValueError, match="unknown anchor-text feature.*valid: dice"):
        check_anchortext_features(["jaccard"])
    with pytest.raises(ValueError, match="repeat"):
        check_textblock_features(["fbold", "fbold"])
    with pytest.raises(ValueError, match="string"):
        check_anchortext_features("dice")
    assert check_textblock_features(TEXTBLOCK_FEATURES) == TEXTBLOCK_FEATURES
    assert check_anchortext_features(()) == ()


def test_dice_worked_values():
    # The paper's Table 1 anchors: 2C / (|a| + |b|) over distinct letter-digit terms.
    dice = dice_matrix(
        ["IKEA STOCKHOLM rahi", "Put in your basket", "MARIONETA ANAO 35 CM"],
        ["IKEA STOCKHOLM", "Marioneta enanito 35 cm", "put put"],
    )
    expected = [[2 * 2 / (3 + 2), 0, 0], [0, 0, 2 * 1 / (4 + 1)], [0, 2 * 3 / (4 + 4), 0]]
    np.testing.assert_allclose(dice, expected, atol=1e-12)  # Dice in [0, 1]


def test_dice_is_symmetric_one_on_same_terms_and_zero_without_terms():
    texts = ["Holy Bible, KJV", "kjv holy bible", "", "Bible"]
    dice = dice_matrix(texts, texts)
    np.testing.assert_allclose(dice, dice.T, atol=1e-12)
    assert dice[0, 1] == 1.0 and dice[2, 2] == 0.0 and dice[0, 3] == 0.5
    assert ((dice >= 0) & (dice <= 1)).all()


def test_anchortext_features_give_one_row_per_anchor():
    gammas = anchortext_features(
        ["IKEA STOCKHOLM", "Price 199"], ["IKEA STOCKHOLM rahi", "IKEA STOCKHOLM rahi 199"]
    )
    assert len(gammas) == 2 and all(gamma.shape == (2, 1) for gamma in gammas)
    np.testing.assert_allclose(gammas[0][:, 0], [0.8, 2 * 2 / (4 + 2)])
    np.testing.assert_allclose(gammas[1][:, 0], [0.0, 2 * 1 / (4 + 2)], atol=1e-12)


def test_a_page_without_anchors_has_the_zero_set():
    gammas = anchortext_features(["Sweet Time SY.6231M/26", "Home"], [])
    assert len(gammas) == 2
    for gamma in gammas:
        np.testing.assert_array_equal(gamma, np.zeros((1, len(ANCHORTEXT_FEATURES))))


def test_anchortext_features_need_a_feature():
    with pytest.raises(ValueError, match="at least one"):
        anchortext_features(["a"], ["a"], [])
