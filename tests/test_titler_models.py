import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from mainentity.models.titler_classifier import METHODS, TitlerClassifier

_CLASS_WEIGHT = "class_weight only reaches the SVM; k-NN, naive Bayes and k-means ignore it"
_ONE_CLUSTER = "the check sets n_clusters=1, but clustering needs a title cluster and another to compare"


def _expected_failed_checks(estimator):
    if estimator.method in ("knn", "nb"):
        return {"check_class_weight_classifiers": _CLASS_WEIGHT}
    if estimator.method == "clus":  # its poor_score tag already skips the class-weight check
        return {
            "check_dont_overwrite_parameters": _ONE_CLUSTER,
            "check_methods_subset_invariance": _ONE_CLUSTER,
            "check_fit2d_1feature": _ONE_CLUSTER,
            "check_fit2d_predict1d": _ONE_CLUSTER,
        }
    return {}


@parametrize_with_checks(
    [TitlerClassifier(method=method, random_state=0) for method in METHODS],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def titler_like_slice(n_pages, random_state):
    """Candidates of ``n_pages`` pages in the Titler feature space: one title per page among 20.

    Titles sit in the title tag and meta title, are capitalised, often in headings and whole blocks;
    the others are mostly not. Features in [0, 1] as after the per-page normalisation.
    """
    rng = np.random.default_rng(random_state)
    X, y, page = [], [], []
    for p in range(n_pages):
        n = 20
        features = rng.uniform(0.0, 0.4, size=(n, 9))
        features[:, [1, 2, 5, 7]] = rng.random((n, 4)) < 0.15
        features[0] = [rng.uniform(0.5, 1.0), 1, 1, rng.uniform(0.6, 1.0), rng.uniform(0.5, 1.0), 1,
                       rng.uniform(0.5, 1.0), rng.random() < 0.8, rng.uniform(0.2, 0.6)]
        order = rng.permutation(n)
        X.append(features[order])
        y.append(order == 0)
        page.append(np.full(n, p))
    return np.vstack(X), np.concatenate(y), np.concatenate(page)


@pytest.mark.parametrize("method", METHODS)
def test_each_classifier_ranks_titles_first_on_held_out_pages(method):
    X, y, page = titler_like_slice(40, random_state=1)
    train = page < 30
    model = TitlerClassifier(method=method, n_clusters=4, random_state=0).fit(X[train], y[train])
    assert model.classes_.tolist() == [False, True]
    scores = model.decision_function(X[~train])
    hits = [y[~train][page[~train] == p][np.argmax(scores[page[~train] == p])] for p in range(30, 40)]
    assert np.mean(hits) >= 0.9
    assert (model.predict(X[~train]) == (scores > 0)).all()


@pytest.mark.parametrize("method", METHODS)
def test_fit_is_reproducible_with_random_state(method):
    X, y, _ = titler_like_slice(10, random_state=2)
    first = TitlerClassifier(method=method, random_state=3).fit(X, y).decision_function(X)
    second = clone(TitlerClassifier(method=method, random_state=3)).fit(X, y).decision_function(X)
    np.testing.assert_array_equal(first, second)


def test_clustering_picks_the_cluster_of_the_titles():
    X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [1.0, 1.0], [0.9, 1.0], [5.0, 5.0], [5.1, 5.0]])
    y = np.array([0, 0, 0, 1, 1, 0, 0])
    model = TitlerClassifier(method="clus", n_clusters=3, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.estimator_.cluster_centers_[model.title_cluster_], [0.95, 1.0])
    # Distance to the nearest other centroid minus distance to the title centroid.
    assert model.decision_function([[0.95, 1.0]])[0] == pytest.approx(np.hypot(0.95 - 1 / 30, 1 - 1 / 30))
    assert model.predict([[1.0, 0.9], [0.05, 0.05], [4.0, 4.0]]).tolist() == [1, 0, 0]


def test_naive_bayes_score_is_a_log_odds():
    X, y, _ = titler_like_slice(10, random_state=4)
    model = TitlerClassifier(method="nb").fit(X, y)
    log_proba = model.estimator_.predict_log_proba(X[:5])
    expected = log_proba[:, 1] - log_proba[:, 0]  # log-odds: 0 for an even page
    np.testing.assert_allclose(model.decision_function(X[:5]), expected, atol=1e-12 * np.abs(log_proba).max())


def test_errors():
    X, y, _ = titler_like_slice(3, random_state=5)
    with pytest.raises(NotFittedError):
        TitlerClassifier().predict(X)
    with pytest.raises(ValueError, match="method must be one of svm, knn, nb, clus; got 'tree'"):
        TitlerClassifier(method="tree").fit(X, y)
    with pytest.raises(ValueError, match="n_clusters must be >= 2"):
        TitlerClassifier(method="clus", n_clusters=1).fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        TitlerClassifier().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="Only binary classification"):
        TitlerClassifier().fit(X, np.arange(len(X)) % 3)
    with pytest.raises(ValueError, match="features"):
        TitlerClassifier(method="knn").fit(X, y).decision_function(X[:, :5])
