"""Tests of mainentity.evaluation.metrics: properties over the metric registry and worked values."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from rouge_score import rouge_scorer

from mainentity.evaluation.metrics import (
    METRICS,
    SCORE_KEYS,
    dice,
    exact_match,
    f1_from,
    h_scores,
    jaccard,
    rouge1,
    score_page,
)
from mainentity.text import normalize_text, tokenize

_VOCAB = ["the", "The", "quick", "fox", "FOX", "jumps", "1st", "R2-D2", "東京", "タワー", "café", "Café",
          "!", "--", "over", "lazy", "dog,", "42"]
_SYMMETRIC = ["jaccard", "dice", "exact", "rouge1_f"]


def _random_texts(n_pairs: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)

    def text() -> str:
        return " ".join(rng.choice(_VOCAB) for _ in range(rng.randint(0, 6)))

    return [(text(), text()) for _ in range(n_pairs)]


PAIRS = _random_texts(300, seed=12345)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_metric_in_unit_interval(name):
    metric = METRICS[name]
    values = [metric(a, b) for a, b in PAIRS]
    assert all(0.0 <= v <= 1.0 for v in values)
    # the pairs are varied enough that every metric takes intermediate or both extreme values
    assert len(set(values)) > 1


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize("text", ["the quick fox", "Know Your Bible: All 66 Books", "東京タワー", "", "!!"])
def test_metric_is_one_on_identical_texts(name, text):
    assert METRICS[name](text, text) == 1.0


@pytest.mark.parametrize("name", _SYMMETRIC)
def test_symmetric_metrics(name):
    metric = METRICS[name]
    for a, b in PAIRS:
        assert metric(a, b) == pytest.approx(metric(b, a))


def test_rouge1_precision_and_recall_swap_with_arguments():
    for a, b in PAIRS:
        p_ab, r_ab, _ = rouge1(a, b)
        p_ba, r_ba, _ = rouge1(b, a)
        assert p_ab == pytest.approx(r_ba)
        assert r_ab == pytest.approx(p_ba)


def test_dice_equals_2j_over_1_plus_j():
    for a, b in PAIRS:
        j = jaccard(a, b)
        assert dice(a, b) == pytest.approx(2 * j / (1 + j))


def test_rouge1_hand_worked_values():
    assert rouge1("the quick brown fox", "the quick fox jumps") == pytest.approx((0.75, 0.75, 0.75))
    # prediction shorter than the reference: all predicted tokens found, 2 of 6 reference tokens
    assert rouge1("the cat", "the cat sat on the mat") == pytest.approx((1.0, 1 / 3, 0.5))
    # ROUGE-1 counts multiplicity (clipped), token-set metrics do not
    assert rouge1("the the the", "the") == pytest.approx((1 / 3, 1.0, 0.5))
    assert jaccard("the the the", "the") == 1.0


def test_set_metrics_hand_worked_values():
    assert jaccard("the quick brown fox", "the quick fox jumps") == pytest.approx(3 / 5)
    assert dice("the quick brown fox", "the quick fox jumps") == pytest.approx(6 / 8)
    assert jaccard("a b", "c d") == 0.0


def test_our_tokenizer_is_used():
    # punctuation and case do not matter; digits split from letters (letter-digit tokenizer)
    assert rouge1("Lydia's Charm!", "lydia s charm") == (1.0, 1.0, 1.0)
    assert rouge1("R2-D2", "r 2 d 2") == (1.0, 1.0, 1.0)
    # CJK: one token per character, so a partial match scores partially
    p, r, f = rouge1("東京", "東京タワー")
    assert (p, r) == pytest.approx((1.0, 2 / 5))
    assert f == pytest.approx(2 * 0.4 / 1.4)
    # rouge-score's default tokenizer drops non-ASCII text entirely: it would give 0 here
    default = rouge_scorer.RougeScorer(["rouge1"]).score("東京タワー", "東京")["rouge1"]
    assert default.fmeasure == 0.0
    assert jaccard("東京", "東京タワー") == pytest.approx(2 / 5)


def test_empty_text_conventions():
    assert jaccard("", "") == 1.0 and dice("", "") == 1.0
    assert jaccard("", "fox") == 0.0 and dice("fox", "") == 0.0
    assert rouge1("", "fox") == (0.0, 0.0, 0.0)
    assert rouge1("fox", "") == (0.0, 0.0, 0.0)
    assert rouge1("...", "!") == (1.0, 1.0, 1.0)


def test_exact_match_uses_normalize_text():
    assert exact_match("  The  Holy\tBible ", "the holy bible") == 1.0
    assert exact_match("ＡＢＣ", "abc") == 1.0  # NFKC folds full-width letters
    assert exact_match("Holy Bible!", "Holy Bible") == 0.0  # punctuation still counts
    assert exact_match("Holy Bible", "Holy Bibles") == 0.0


def test_score_page_keys_and_types():
    scores = score_page("The Holy Bible", ["holy bible"], ["The Holy Bible"])
    assert set(scores) == {*SCORE_KEYS, "best_label"}
    assert all(isinstance(scores[k], float) for k in SCORE_KEYS)
    assert isinstance(scores["best_label"], str)


def test_score_page_chooses_best_alternative_for_every_metric():
    labels = ["Holy Bible - Christianbook.com", "The Holy Bible, KJV"]
    scores = score_page("The Holy Bible", labels)
    assert scores["best_label"] == "The Holy Bible, KJV"
    assert scores["rouge1_p"] == pytest.approx(1.0)
    assert scores["rouge1_r"] == pytest.approx(3 / 4)
    assert scores["jaccard"] == pytest.approx(jaccard("The Holy Bible", labels[1]))
    assert scores["dice"] == pytest.approx(dice("The Holy Bible", labels[1]))
    assert scores["exact"] == 0.0
    # with an exactly matching alternative, every text metric is 1
    perfect = score_page("The Holy Bible", [*labels, "the holy bible"])
    assert perfect["best_label"] == "the holy bible"
    assert [perfect[k] for k in METRICS] == [1.0] * len(METRICS)


def test_score_page_tie_breaks_by_exact_match_then_order():
    # same tokens, so equal ROUGE-1 F1; the exact match wins although it comes second
    assert score_page("fox the", ["the fox", "Fox  the"])["best_label"] == "Fox  the"
    # nothing distinguishes the alternatives: the first one is used
    assert score_page("zebra", ["alpha", "beta"])["best_label"] == "alpha"


def test_score_page_rejects_missing_labels():
    with pytest.raises(ValueError, match="at least one label"):
        score_page("x", [])
    with pytest.raises(ValueError, match="not one string"):
        score_page("x", "x")


def test_h_scores_examples():
    # 2 of 3 candidates match (normalised), so P_H = 2/3, R_H = 1, F1 = 0.8
    assert h_scores(["Bible", "Home", "bible "], ["bible"]) == pytest.approx((2 / 3, 1.0, 0.8))
    # one of four matches the second alternative
    assert h_scores(["Home", "Cart", "The Holy Bible", "Login"], ["Holy Bible", "the holy bible"]) \
        == pytest.approx((0.25, 1.0, 0.4))
    # no candidate matches: 0 everywhere; a partial overlap is not a match
    assert h_scores(["Holy", "Bible"], ["Holy Bible"]) == (0.0, 0.0, 0.0)
    # empty H
    assert h_scores([], ["Holy Bible"]) == (0.0, 0.0, 0.0)
    # a single correct candidate
    assert h_scores(["Holy Bible"], ["holy bible"]) == (1.0, 1.0, 1.0)


def test_score_page_h_metrics_use_candidates_not_top_block():
    scores = score_page("Home", ["Holy Bible"], candidates=["Home", "Holy Bible"])
    assert scores["exact"] == 0.0
    assert (scores["h_precision"], scores["h_recall"]) == (0.5, 1.0)
    assert scores["h_f1"] == pytest.approx(2 / 3)


def test_f1_from_matches_paper_table_2():
    # Carullo & Binaghi (2010), Table 2: rows (P, R, F1) reproduced to two decimals
    assert round(f1_from(0.78, 0.66), 2) == 0.72
    assert round(f1_from(0.88, 0.84), 2) == 0.86
    assert f1_from(0.0, 0.0) == 0.0
    assert math.isnan(f1_from(float("nan"), 0.5))
    np.testing.assert_allclose(f1_from(np.array([1.0, 0.5, 0.0]), np.array([1.0, 1.0, 0.0])),
                               [1.0, 2 / 3, 0.0], atol=1e-12)


def test_expected_calibration_error():
    from mainentity.evaluation.metrics import expected_calibration_error

    assert expected_calibration_error([1.0, 1.0, 0.0], [1, 1, 0]) == 0.0  # 1.0 falls in the last bin
    assert expected_calibration_error([0.9, 0.9], [0, 0]) == pytest.approx(0.9)
    # bins 0.8-0.9 (mean 0.85, accuracy 0.5) and 0.3-0.4 (mean 0.3, accuracy 1): (0.35 * 2 + 0.7) / 3
    assert expected_calibration_error([0.8, 0.9 - 1e-9, 0.3], [1, 0, 1]) == pytest.approx(1.4 / 3)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        expected_calibration_error([1.2], [1])


def test_soft_hyphens_split_no_word_when_texts_are_compared():
    # a gold label of fundus keeps the soft hyphen its page has (TagesAnzeiger); the answer drops it
    gold = "Trump plant Helikopter\u00adlandeplatz beim Weissen Haus"
    answer = "Trump plant Helikopterlandeplatz beim Weissen Haus"
    assert normalize_text(gold) == normalize_text(answer) == "trump plant helikopterlandeplatz beim weissen haus"
    assert tokenize(gold) == ("trump", "plant", "helikopterlandeplatz", "beim", "weissen", "haus")
    assert rouge1(answer, gold) == (1.0, 1.0, 1.0)
    assert exact_match(answer, gold) == 1.0
