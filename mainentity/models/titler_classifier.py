"""Titler's classifiers: one scikit-learn estimator over the candidates' feature vectors.

Gali & Fränti (2016), "Web title extraction", slide "Classifiers": naive Bayes, SVM, clustering and
k-NN learn from the nine features of every candidate whether it is the page's title. All four sit
behind :class:`TitlerClassifier` (``method`` chooses), so recognisers score candidates the same way:
:meth:`TitlerClassifier.decision_function` is larger for more title-like candidates and positive
exactly where :meth:`TitlerClassifier.predict` says "title".

The clustering variant (``method="clus"``) runs k-means on the training candidates; the cluster that
holds the most true titles (ties: the higher share of titles) is the title cluster, and a candidate is
a title when its nearest centroid is that cluster's.

The estimator takes plain arrays; it knows nothing of pages or features.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.cluster import KMeans
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["METHODS", "TitlerClassifier"]

#: Valid values of ``TitlerClassifier.method``.
METHODS = ("svm", "knn", "nb", "clus")


class TitlerClassifier(ClassifierMixin, BaseEstimator):
    """Binary classifier of title candidates: SVM, k-NN, naive Bayes or k-means clustering.

    Parameters
    ----------
    method : {"svm", "knn", "nb", "clus"}, default "svm"
        The classifier (Gali & Fränti 2016, slide "Classifiers").
    C : float, default 1.0
        SVM regularisation (``sklearn.svm.SVC``).
    kernel : str, default "rbf"
        SVM kernel.
    gamma : float or {"scale", "auto"}, default "scale"
        SVM kernel coefficient.
    class_weight : dict, "balanced" or None, default "balanced"
        SVM class weights; "balanced" offsets the one-title-per-page imbalance.
    n_neighbors : int, default 5
        k of k-NN (``sklearn.neighbors.KNeighborsClassifier``).
    weights : {"uniform", "distance"}, default "distance"
        k-NN neighbour weights; "distance" breaks the ties that make many candidates score alike.
    var_smoothing : float, default 1e-9
        Naive Bayes variance smoothing (``sklearn.naive_bayes.GaussianNB``).
    n_clusters : int, default 8
        k of k-means for ``method="clus"``, at least 2 (at most the number of training samples is used).
    random_state : int, RandomState or None, default None
        Seed of k-means and of the SVM's internal shuffling.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two class labels; ``classes_[1]`` is "title".
    estimator_ : SVC, KNeighborsClassifier, GaussianNB or KMeans
        The fitted scikit-learn model.
    title_cluster_ : int
        For ``method="clus"``: index of the title cluster among ``estimator_.cluster_centers_``.
    n_features_in_ : int
        Number of features seen in :meth:`fit`.

    References
    ----------
    .. [1] Gali & Fränti (2016), "Web title extraction", slides "Classifiers" and "Results".

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 1.0], [0.9, 1.0], [0.0, 0.1], [0.1, 0.0], [0.2, 0.1], [0.0, 0.2]])
    >>> y = np.array([1, 1, 0, 0, 0, 0])
    >>> model = TitlerClassifier(method="clus", n_clusters=2, random_state=0).fit(X, y)
    >>> model.predict([[0.95, 0.9], [0.1, 0.1]]).tolist()
    [1, 0]
    """

    def __init__(
        self,
        method="svm",
        C=1.0,
        kernel="rbf",
        gamma="scale",
        class_weight="balanced",
        n_neighbors=5,
        weights="distance",
        var_smoothing=1e-9,
        n_clusters=8,
        random_state=None,
    ):
        self.method = method
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.class_weight = class_weight
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.var_smoothing = var_smoothing
        self.n_clusters = n_clusters
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        # k-means learns without the labels (they only pick the title cluster): no accuracy guarantee.
        tags.classifier_tags.poor_score = self.method == "clus"
        return tags

    def fit(self, X, y):
        """Fit the chosen classifier on candidate features and title labels.

        Parameters
        ----------
        X : array-like of shape (n_candidates, n_features)
            Candidate features (for Titler, the nine features of
            :func:`mainentity.features.ngram_candidates.extract_candidates`).
        y : array-like of shape (n_candidates,)
            Exactly two classes; the larger label (``True``, ``1``) is "title".

        Returns
        -------
        self : TitlerClassifier

        Raises
        ------
        ValueError
            If ``method`` is unknown, ``n_clusters < 2`` with ``method="clus"``, ``y`` is not binary
            ("Only binary classification is supported"; one class is not enough either), or ``X`` is
            invalid (NaN, infinite, wrong shape).
        """
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}; got {self.method!r}")
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y")
        if y_type != "binary":
            raise ValueError(
                "Only binary classification is supported (title / not title). The type of the target "
                f"is {y_type}."
            )
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if len(self.classes_) != 2:
            raise ValueError("TitlerClassifier needs both classes (title and not title); y holds one class")
        if self.method == "clus" and self.n_clusters < 2:
            raise ValueError(f"n_clusters must be >= 2 for method='clus'; got {self.n_clusters}")
        if self.method == "svm":
            self.estimator_ = SVC(
                C=self.C,
                kernel=self.kernel,
                gamma=self.gamma,
                class_weight=self.class_weight,
                random_state=self.random_state,
            ).fit(X, y_index)
        elif self.method == "knn":
            knn = KNeighborsClassifier(n_neighbors=min(self.n_neighbors, len(X)), weights=self.weights)
            self.estimator_ = knn.fit(X, y_index)
        elif self.method == "nb":
            self.estimator_ = GaussianNB(var_smoothing=self.var_smoothing).fit(X, y_index)
        else:
            n_clusters = min(self.n_clusters, len(X))
            self.estimator_ = KMeans(n_clusters=n_clusters, n_init=10, random_state=self.random_state).fit(X)
            clusters = self.estimator_.labels_
            titles = np.bincount(clusters[y_index == 1], minlength=n_clusters)
            sizes = np.bincount(clusters, minlength=n_clusters)
            share = titles / np.maximum(sizes, 1)
            self.title_cluster_ = int(np.lexsort((-share, -titles))[0])
        return self

    def decision_function(self, X):
        """Title score of each candidate: larger is more title-like, positive means "title".

        - svm: the SVC's signed distance to the separating surface;
        - knn: the (weighted) share of title neighbours minus 0.5;
        - nb: ``log P(title | x) - log P(other | x)``;
        - clus: distance to the nearest other centroid minus distance to the title centroid.

        Parameters
        ----------
        X : array-like of shape (n_candidates, n_features)

        Returns
        -------
        scores : ndarray of shape (n_candidates,)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If called before :meth:`fit`.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        if self.method == "svm":
            return self.estimator_.decision_function(X)
        if self.method == "knn":
            return self.estimator_.predict_proba(X)[:, 1] - 0.5
        if self.method == "nb":
            log_proba = self.estimator_.predict_log_proba(X)
            return log_proba[:, 1] - log_proba[:, 0]
        distances = self.estimator_.transform(X)
        title = distances[:, self.title_cluster_]
        return np.delete(distances, self.title_cluster_, axis=1).min(axis=1) - title

    def predict(self, X):
        """Class of each candidate: ``classes_[1]`` where :meth:`decision_function` is positive.

        Parameters
        ----------
        X : array-like of shape (n_candidates, n_features)

        Returns
        -------
        y : ndarray of shape (n_candidates,)
        """
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
