"""The calibrator of answers from signals of doubt (mainentity.models.calibration) and the signals
(mainentity.recognizers.doubt)."""

from __future__ import annotations

import numpy as np
import pytest

from mainentity.features.transfer import TRANSFER_FEATURES
from mainentity.models.calibration import DoubtCalibrator
from mainentity.recognizers.doubt import DOUBT_SIGNALS, counterfactual_signals, doubt_signals


@pytest.mark.parametrize("seed", [0, 1])
def test_the_calibrator_learns_doubt_from_a_signal_the_score_does_not_carry(seed):
    rng = np.random.default_rng(seed)
    score = rng.normal(5.0, 1.0, 400)  # the same for right and wrong answers
    agree = rng.integers(0, 2, 400).astype(float)
    correct = (rng.random(400) < np.where(agree == 1, 0.95, 0.4)).astype(float)
    calibrator = DoubtCalibrator().fit(np.column_stack([score, agree]), correct)
    p = calibrator.predict_proba(np.column_stack([np.full(2, 5.0), [1.0, 0.0]]))
    assert p[0] == pytest.approx(0.95, abs=0.05) and p[1] == pytest.approx(0.4, abs=0.1)
    assert np.all((calibrator.predict_proba(np.column_stack([score, agree])) >= 0)
                  & (calibrator.predict_proba(np.column_stack([score, agree])) <= 1))


def test_a_calibrator_that_saw_only_right_answers_does_not_claim_certainty():
    calibrator = DoubtCalibrator().fit(np.ones((8, 2)), np.ones(8))
    assert calibrator.predict_proba(np.zeros((3, 2))).tolist() == [0.9] * 3  # (8 + 1) / (8 + 2)


def test_the_calibrator_rejects_signals_of_another_width():
    calibrator = DoubtCalibrator().fit(np.eye(4), [1, 0, 1, 0])
    with pytest.raises(ValueError, match="4"):
        calibrator.predict_proba(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="correctness"):
        DoubtCalibrator().fit(np.eye(4), [1, 0])


def test_signals_read_the_answer_its_runner_up_of_another_text_and_its_sources():
    x = np.zeros((3, len(TRANSFER_FEATURES)))
    answer = {"title_segment_exact": 1.0, "meta_dice": 0.9, "jsonld_dice": 0.5, "template_share": 0.2}
    for name, value in answer.items():
        x[0, TRANSFER_FEATURES.index(name)] = value
    x[0, TRANSFER_FEATURES.index("h1")] = np.nan  # a layout feature of a page without boxes
    signals = dict(zip(DOUBT_SIGNALS, doubt_signals(x, np.array([4.0, 3.5, 1.0]), ["A", "A", "B"]), strict=True))
    assert signals["score"] == 4.0 and signals["margin"] == 3.0  # the runner-up "A" is the answer's own text
    assert signals["n_sources_agree"] == 2.0 and signals["template_share"] == 0.2
    alone = doubt_signals(x[:1], np.array([40.0]), ["A"])
    assert alone[0] == 20.0 and alone[1] == 20.0  # bounded; no other text: the full margin
    with pytest.raises(ValueError, match="one score at least"):
        doubt_signals(x[:0], np.zeros(0), [])


def test_a_counterfactual_answer_is_the_best_wrong_candidate_in_the_answers_place_with_its_score_and_margin():
    x = np.zeros((4, len(TRANSFER_FEATURES)))
    x[[0, 1], TRANSFER_FEATURES.index("first_h1")] = 1.0  # the answer, twice (its h1 and a title segment)
    x[2, TRANSFER_FEATURES.index("template_share")] = 0.9  # the runner-up: text the site repeats
    texts, right = ["Moby Dick", "Moby Dick", "Home", "Cart"], [True, True, False, False]
    scores = np.array([6.0, 5.5, 2.0, -1.0])
    signals = dict(zip(DOUBT_SIGNALS, counterfactual_signals(x, scores, texts, right), strict=True))
    assert signals["score"] == 6.0 and signals["margin"] == 4.0  # the page's own score and lead
    assert signals["first_h1"] == 0.0 and signals["template_share"] == 0.9  # the runner-up's evidence
    assert counterfactual_signals(x[:2], scores[:2], texts[:2], right[:2]) is None  # no wrong text to swap in
    with pytest.raises(ValueError, match="one correctness per score"):
        counterfactual_signals(x, scores, texts, right[:3])


def test_a_base_rate_moves_the_intercept_from_the_given_share_of_right_answers_to_it():
    rng = np.random.default_rng(0)
    signals = rng.normal(size=(200, 2))
    correct = (signals[:, 0] + rng.normal(size=200) > 0).astype(float)
    given = DoubtCalibrator().fit(signals, correct)
    corrected = DoubtCalibrator().fit(signals, correct, base_rate=0.99)

    def logit(p):
        return np.log(p / (1 - p))

    shift = logit(corrected.predict_proba(signals)) - logit(given.predict_proba(signals))
    np.testing.assert_allclose(shift, logit(0.99) - logit(correct.mean()), atol=1e-9)  # log-odds: 0 if equal
    assert corrected.constant_ == 0.99
    with pytest.raises(ValueError, match=r"base_rate must be in \(0, 1\); got 1.0"):
        DoubtCalibrator().fit(signals, correct, base_rate=1.0)


def test_an_answers_probability_does_not_depend_on_the_answers_scored_with_it():
    """The same bits for a page's answer whether its site is scored whole or in shards of a few pages."""
    rng = np.random.default_rng(0)
    signals = rng.normal(size=(3000, 12))
    correct = (signals[:, 0] + rng.normal(size=3000) > 0).astype(int)
    calibrator = DoubtCalibrator().fit(signals, correct)
    whole = calibrator.predict_proba(signals)
    in_threes = np.concatenate([calibrator.predict_proba(signals[start:start + 3]) for start in range(0, 3000, 3)])
    np.testing.assert_array_equal(in_threes, whole)
