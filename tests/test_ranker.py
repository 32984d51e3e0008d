"""The candidate ranker and the answer calibrator (mainentity.models.ranker)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.isotonic import IsotonicRegression

from mainentity.models import ranker as ranker_module
from mainentity.models.ranker import (
    AnswerCalibrator,
    CandidateRanker,
    best_per_group,
    cross_fitted_scores,
    page_balanced_weights,
)


def ranking_data(random_state, n_pages=40, n_candidates=30):
    """Pages whose main entity has the largest feature 0 by a margin; features 1 and 2 are noise."""
    rng = np.random.default_rng(random_state)
    X = rng.normal(size=(n_pages * n_candidates, 3))
    groups = np.repeat(np.arange(n_pages), n_candidates)
    y = np.zeros(len(X), dtype=int)
    for page in range(n_pages):
        rows = np.flatnonzero(groups == page)
        y[rows[np.argmax(X[rows, 0])]] = 1
    X[y == 1, 0] += 1.0  # a margin, as a headline stands out from the rest of its page
    return X, y, groups


def test_page_balanced_weights_give_each_page_one_unit_per_class():
    y = np.array([1, 0, 0, 0, 1, 1, 0])
    groups = np.array([0, 0, 0, 0, 1, 1, 1])
    weights = page_balanced_weights(y, groups)
    for page in (0, 1):
        assert weights[(groups == page) & (y == 1)].sum() == pytest.approx(1.0)
        assert weights[(groups == page) & (y == 0)].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("method", ["gbm", "linear", "both"])
@pytest.mark.parametrize("random_state", [0, 1])
def test_ranker_puts_the_main_entity_first_on_new_pages(method, random_state):
    X, y, groups = ranking_data(random_state)
    ranker = CandidateRanker(method, min_samples_leaf=5, random_state=random_state).fit(X, y, groups)
    X_new, y_new, groups_new = ranking_data(random_state + 100)
    best = best_per_group(ranker.decision_function(X_new), groups_new)
    accuracy = np.mean([y_new[i] for i in best.values()])
    assert accuracy >= 0.9


def test_scores_in_blocks_of_rows_equal_scores_of_each_row(monkeypatch):
    X, y, groups = ranking_data(0)
    ranker = CandidateRanker("both", min_samples_leaf=5, random_state=0).fit(X, y, groups)
    one_by_one = np.concatenate([ranker.decision_function(X[i:i + 1]) for i in range(len(X))])
    monkeypatch.setattr(ranker_module, "SCORED_ROWS", 7)  # 1200 rows: 172 blocks, the last one short
    # equal up to the last bits of the linear part's BLAS sums, which depend on how many rows a call gets
    np.testing.assert_allclose(ranker.decision_function(X), one_by_one, rtol=0, atol=1e-12)


def test_monotonic_constraints_hold():
    X, y, groups = ranking_data(0)
    ranker = CandidateRanker("gbm", monotonic=[1, -1, 0], min_samples_leaf=5, random_state=0).fit(X, y, groups)
    grid = np.zeros((50, 3))
    grid[:, 0] = np.linspace(-3, 3, 50)
    assert np.all(np.diff(ranker.decision_function(grid)) >= -1e-12)
    grid = np.zeros((50, 3))
    grid[:, 1] = np.linspace(-3, 3, 50)
    assert np.all(np.diff(ranker.decision_function(grid)) <= 1e-12)


def test_ranker_contract_and_errors():
    X, y, groups = ranking_data(0, n_pages=5)
    ranker = CandidateRanker("gbm", max_iter=5)
    assert clone(ranker).get_params() == ranker.get_params()
    with pytest.raises(ValueError, match="unknown ranker method 'tree'"):
        CandidateRanker("tree").fit(X, y, groups)
    with pytest.raises(ValueError, match="both main entities"):
        CandidateRanker().fit(X, np.zeros(len(X)), groups)
    fitted = ranker.fit(X, y, groups)
    with pytest.raises(ValueError, match="fitted with 3"):
        fitted.decision_function(X[:, :2])


def test_cross_fitted_scores_never_score_a_page_with_a_model_that_saw_it():
    X, y, groups = ranking_data(0, n_pages=6, n_candidates=5)
    folds = groups % 3
    scores = cross_fitted_scores(CandidateRanker("linear"), X, y, groups, folds)
    assert np.isfinite(scores).all()
    # fold 0's scores equal those of a model fitted on folds 1 and 2 only
    held = folds == 0
    alone = CandidateRanker("linear").fit(X[~held], y[~held], groups[~held]).decision_function(X[held])
    assert np.allclose(scores[held], alone)


def test_calibrator_is_a_monotone_probability():
    rng = np.random.default_rng(0)
    scores = rng.normal(size=500)
    correct = (rng.random(500) < 1 / (1 + np.exp(-3 * scores))).astype(float)
    calibrator = AnswerCalibrator().fit(scores, correct)
    probabilities = calibrator.predict_proba(np.linspace(-4, 4, 100))
    assert (probabilities >= 0).all() and (probabilities <= 1).all()
    assert np.all(np.diff(probabilities) >= 0)
    # on the fitted data, the mean probability equals the accuracy (isotonic regression keeps the mean)
    assert calibrator.predict_proba(scores).mean() == pytest.approx(correct.mean(), abs=1e-9)
    with pytest.raises(ValueError, match="one correctness per score"):
        AnswerCalibrator().fit([], [])


def shifted_answers(random_state, n=300):
    """Held-out best scores from 2 to 8 whose lowest answers are right half the time (as the general
    model's are): isotonic regression's lowest step is about 0.5."""
    rng = np.random.default_rng(random_state)
    scores = np.concatenate([np.full(20, 2.0), rng.uniform(2.0, 8.0, size=n - 20)])
    correct = (rng.random(n) < 0.5 + 0.5 * (scores - 2.0) / 6.0).astype(float)
    correct[:20] = np.arange(20) % 2  # the lowest score's pages: half right
    return scores, correct


@pytest.mark.parametrize("random_state", [0, 1, 2])
def test_calibrator_falls_towards_zero_below_the_seen_scores_and_keeps_the_isotonic_map_within(random_state):
    scores, correct = shifted_answers(random_state)
    calibrator = AnswerCalibrator().fit(scores, correct)
    isotonic = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(scores, correct)
    within = np.linspace(scores.min(), scores.max() + 5.0, 200)  # the seen range and above it
    assert np.allclose(calibrator.predict_proba(within), isotonic.predict(within))
    lowest = calibrator.predict_proba([scores.min()])[0]
    assert lowest > 0.3  # the lowest step is far from 0: clipping kept every lower score there
    far_below = calibrator.predict_proba([scores.min() - 20.0, -100.0])
    assert far_below[0] < 0.05 and far_below[1] < 1e-6
    below = np.linspace(-100.0, scores.min(), 300)
    probabilities = calibrator.predict_proba(below)
    assert np.all(np.diff(probabilities) >= 0) and probabilities[-1] == pytest.approx(lowest)
    assert calibrator.tail_slope_ > 0


def test_calibrator_keeps_the_lowest_step_when_scores_do_not_separate_answers():
    scores = np.array([1.0, 2.0, 3.0, 4.0])
    for correct in (np.ones(4), np.array([1.0, 1.0, 0.0, 0.0])):  # one class; right answers score lower
        calibrator = AnswerCalibrator().fit(scores, correct)
        assert calibrator.tail_slope_ == 0.0
        assert calibrator.predict_proba([-50.0])[0] == calibrator.predict_proba([1.0])[0]


@pytest.mark.parametrize("method", ["linear", "both"])
def test_a_candidates_score_does_not_depend_on_the_rows_scored_with_it(method):
    """A site scored whole in one process or in shards of a few pages on a cluster gives the same bits
    (a BLAS product's blocking depends on the number of rows; the ranker sums each row on its own)."""
    X, y, groups = ranking_data(0, n_pages=40, n_candidates=30)
    X = np.hstack([X, np.random.default_rng(1).normal(size=(len(X), 39))])  # 42 features, as the general model
    ranker = CandidateRanker(method, max_iter=20, min_samples_leaf=5, random_state=0).fit(X, y, groups)
    whole = ranker.decision_function(X)
    in_threes = np.concatenate([ranker.decision_function(X[start:start + 3]) for start in range(0, len(X), 3)])
    np.testing.assert_array_equal(in_threes, whole)
