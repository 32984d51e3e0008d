"""The MS-RBFN estimator (Carullo & Binaghi 2010, section 3.2)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from mainentity.models.emd import emd
from mainentity.models.msrbfn_network import MSRBFN


@parametrize_with_checks([MSRBFN(m1=10, m2=5, pi=2, random_state=0)])
def test_scikit_learn_contract(estimator, check):
    check(estimator)


def separable_problem(seed: int, n: int = 120):
    """Two classes apart in both sources: theta near (0.8, 0.9) and gamma sets near 1 for class True."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.25
    X = np.where(y[:, None], [0.8, 0.9], [0.2, 0.1]) + rng.normal(0, 0.05, (n, 2))
    gammas = [
        (rng.uniform(0.7, 1.0) if label else rng.uniform(0.0, 0.2)) * np.ones((rng.integers(1, 4), 1))
        for label in y
    ]
    return X, y, gammas


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("sources", ["both", "theta", "gamma"])
def test_learns_a_separable_problem(seed, sources):
    X, y, gammas = separable_problem(seed)
    if sources == "theta":
        gammas = None
    elif sources == "gamma":
        X = X[:, :0]
    model = MSRBFN(m1=8, m2=8, pi=2, random_state=seed).fit(X, y, gammas)
    np.testing.assert_array_equal(model.predict(X, gammas), y)  # accuracy 1.0
    scores = model.decision_function(X, gammas)
    assert scores.shape == (len(y),)
    assert (scores[y] > 0).all() and (scores[~y] <= 0).all()


def test_learned_state_shapes_and_the_positive_class():
    X, y, gammas = separable_problem(0)
    model = MSRBFN(m1=6, m2=4, pi=2, random_state=0).fit(X, y, gammas)
    assert model.classes_.tolist() == [False, True]
    assert model.n_features_in_ == 2 and model.n_anchor_features_in_ == 1
    assert model.centroids_theta_.shape == (6, 2) and model.spreads_theta_.shape == (6,)
    assert len(model.centroids_gamma_) == 4 and model.spreads_gamma_.shape == (4,)
    assert all(centroid.ndim == 2 and centroid.shape[1] == 1 for centroid in model.centroids_gamma_)
    assert model.weights_.shape == (10, 2)
    assert set(model.fit_seconds_) == {
        "kmeans_theta",
        "kmeans_gamma",
        "spreads",
        "activations",
        "least_squares",
    }
    # Gamma centroids are medoids: training sets.
    assert all(any(emd(centroid, gamma) == 0 for gamma in gammas) for centroid in model.centroids_gamma_)


@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_decision_function_is_o1_minus_o2_of_phi_w(class_weight):
    X, y, gammas = separable_problem(1, n=40)
    model = MSRBFN(m1=3, m2=2, pi=1, class_weight=class_weight, random_state=0).fit(X, y, gammas)
    phi_theta = np.exp(
        -np.linalg.norm(X[:, None] - model.centroids_theta_[None], axis=2) / model.spreads_theta_
    )
    emds = np.array([[emd(gamma, centroid) for centroid in model.centroids_gamma_] for gamma in gammas])
    phi = np.hstack([phi_theta, np.exp(-emds / model.spreads_gamma_)])
    outputs = phi @ model.weights_
    np.testing.assert_allclose(model.decision_function(X, gammas), outputs[:, 1] - outputs[:, 0], atol=1e-10)
    # None is the paper's W = pinv(Phi) T; "balanced" scales the rows by sqrt(n / (2 n_class)).
    scale = (
        np.ones(len(y)) if class_weight is None else np.sqrt(len(y) / (2 * np.where(y, y.sum(), (~y).sum())))
    )
    targets = np.eye(2)[y.astype(int)]
    expected = np.linalg.pinv(scale[:, None] * phi) @ (scale[:, None] * targets)
    np.testing.assert_allclose(model.weights_, expected, atol=1e-8)


def test_balanced_class_weight_raises_the_rare_class():
    # One positive in 100, as main entities are, inside the negatives' range: the unweighted fit
    # never reaches o_1 > o_2 there, the balanced one does.
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (600, 1))
    y = np.zeros(600, dtype=bool)
    y[np.argsort(X[:, 0])[-6:]] = True
    plain = MSRBFN(m1=4, m2=1, pi=2, random_state=0).fit(X, y)
    balanced = MSRBFN(m1=4, m2=1, pi=2, class_weight="balanced", random_state=0).fit(X, y)
    assert not plain.predict(X).any()
    assert balanced.predict(X)[y].all()
    # Both rank the positives above the bulk of the negatives.
    for model in (plain, balanced):
        scores = model.decision_function(X)
        assert scores[y].min() > np.median(scores[~y])


@pytest.mark.parametrize("seed", [0, 7])
def test_same_seed_same_model(seed):
    X, y, gammas = separable_problem(3)
    first = MSRBFN(m1=8, m2=8, pi=2, random_state=seed).fit(X, y, gammas)
    second = clone(first).fit(X, y, gammas)
    np.testing.assert_array_equal(first.centroids_theta_, second.centroids_theta_)
    np.testing.assert_array_equal(first.weights_, second.weights_)
    assert all(
        np.array_equal(a, b) for a, b in zip(first.centroids_gamma_, second.centroids_gamma_, strict=True)
    )
    np.testing.assert_array_equal(first.decision_function(X, gammas), second.decision_function(X, gammas))


def test_fewer_distinct_points_than_units_warns_and_uses_fewer_units():
    X = np.array([[0.0], [0.0], [1.0], [1.0], [0.5]])
    y = np.array([0, 0, 1, 1, 0])
    gammas = [np.zeros((1, 1)), np.zeros((2, 1)), np.ones((1, 1)), np.ones((1, 1)), np.zeros((1, 1))]
    with pytest.warns(UserWarning) as record:
        model = MSRBFN(m1=50, m2=50, pi=5, random_state=0).fit(X, y, gammas)
    messages = [str(warning.message) for warning in record]
    assert any("only 3 distinct textblock feature vectors; using M1 = 3" in message for message in messages)
    assert any(
        "only 2 distinct anchor-text set distributions; using M2 = 2" in message for message in messages
    )
    assert model.centroids_theta_.shape == (3, 1) and len(model.centroids_gamma_) == 2
    np.testing.assert_array_equal(model.predict(X, gammas), y)


def test_a_single_unit_per_space_works():
    X = np.array([[0.0], [0.0], [0.0], [0.0]])
    gammas = [np.zeros((1, 1)), np.zeros((1, 1)), np.ones((1, 1)), np.ones((1, 1))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = MSRBFN(m1=5, m2=1, pi=5, random_state=0).fit(X, [0, 0, 1, 1], gammas)
    assert model.spreads_theta_.tolist() == [1.0] and model.spreads_gamma_.tolist() == [1.0]
    assert np.isfinite(model.decision_function(X, gammas)).all()


def test_gammas_must_match_how_the_model_was_fitted():
    X, y, gammas = separable_problem(0, n=30)
    with_gammas = MSRBFN(m1=3, m2=3, pi=1, random_state=0).fit(X, y, gammas)
    with pytest.raises(ValueError, match="pass gammas"):
        with_gammas.predict(X)
    with pytest.raises(ValueError, match="one set per sample"):
        with_gammas.predict(X, gammas[:-1])
    with pytest.raises(ValueError, match="anchor features"):
        with_gammas.predict(X, [np.zeros((1, 2))] * len(X))
    without = MSRBFN(m1=3, m2=3, pi=1, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="gammas must be None"):
        without.predict(X, gammas)
    with pytest.raises(ValueError, match="one set per sample"):
        MSRBFN().fit(X, y, gammas[:2])


def test_no_features_at_all_is_an_error():
    with pytest.raises(ValueError, match="0 feature"):
        MSRBFN().fit(np.empty((4, 0)), [0, 1, 0, 1])


@pytest.mark.parametrize(
    "param", [{"m1": 0}, {"m2": -1}, {"pi": 0}, {"max_iter": 0}, {"m1": 2.5}, {"pi": True}]
)
def test_bad_parameters(param):
    X, y, _ = separable_problem(0, n=20)
    with pytest.raises(ValueError, match=f"{next(iter(param))} must be an integer >= 1"):
        MSRBFN(**param).fit(X, y)


def test_predict_before_fit():
    with pytest.raises(NotFittedError):
        MSRBFN().predict(np.zeros((1, 2)))
