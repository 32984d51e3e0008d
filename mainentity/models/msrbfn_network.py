"""The Multi-Source Radial Basis Function Network (MS-RBFN) of Carullo & Binaghi (2010), section 3.2.

The network classifies a text block from two sources at once: its textblock feature vector theta
(a point of R^n, Euclidean distance) and its anchor-text set gamma (a variable-size set, EMD).

- First level: M1 units phi_i(theta) = exp(-||theta - mu_i|| / sigma_i) and M2 units
  psi_j(gamma) = exp(-emd(gamma, mu_j) / sigma_j) (:func:`~mainentity.models.rbf.rbf_activations`).
- Second level: output o_c = sum_i phi_i w_ic + sum_j psi_j w_(M1+j)c for each class c, label argmax_c.

Training (section 3.2, two phases): centroids by k-means (scikit-learn) on theta and by the EMD
k-means (:func:`~mainentity.models.rbf.emd_kmeans`) on gamma, spreads by the p-means heuristic, then
W = pinv(Phi) T, solved by least squares with torch.

Training is linear in the number of blocks: k-means runs on the distinct theta vectors and gamma
distributions (weighted by their counts), activations are computed once per distinct input, and the
least squares runs over the distinct (theta, gamma, class) samples, each row weighted by its count
(which leaves the solution unchanged).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence

import numpy as np
import torch
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mainentity.models.emd import emd_to_centroids, pairwise_emd, unique_gammas
from mainentity.models.rbf import emd_kmeans, p_means_spreads, rbf_activations


class MSRBFN(ClassifierMixin, BaseEstimator):
    """MS-RBFN classifier over textblock features theta and anchor-text sets gamma.

    Parameters
    ----------
    m1 : int, default 50
        Number M1 of RBF units on the textblock space (fewer, with a warning, when the training data
        has fewer distinct theta vectors).
    m2 : int, default 50
        Number M2 of RBF units on the anchor-text space (fewer, with a warning, when there are fewer
        distinct gamma distributions).
    pi : int, default 5
        The pi of the p-means heuristic: a unit's spread is the RMS distance from its centroid to the
        pi nearest other centroids of its space.
    class_weight : None, "balanced" or dict, default None
        Weights of the classes in the least squares. None is the paper's plain W = pinv(Phi) T. About
        one block in 200 is the main entity, so the unweighted fit puts o_1 > o_2 on few blocks (the
        set H is small), but its o_1 - o_2 still ranks the blocks of a page, and ranks them best: on 40
        christianbook pages (4-fold, 2 seeds) the best block was the main entity on 0.975 of test pages
        with None, 0.49 with "balanced". "balanced" weighs each sample by
        n_samples / (n_classes * n_samples_of_its_class), i.e. solves the weighted problem
        min_W sum_n s_n ||Phi_n W - T_n||^2 as W = pinv(S^1/2 Phi) S^1/2 T: more blocks reach o_1 > o_2
        (a larger H) at the cost of that ranking. A dict maps class -> weight.
    max_iter : int, default 100
        Iteration cap of both k-means runs.
    random_state : int, RandomState or None, default None
        Seeds the k-means++ draws of both k-means (scikit-learn's for theta, numpy's for gamma). The
        least squares (torch) is deterministic, so a fixed seed gives identical fits.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted. For the main-entity task y is boolean (True for omega_1, the main
        entity), so ``classes_ = [False, True]`` and the positive class ``classes_[1]`` is the main
        entity.
    n_features_in_ : int
        Number of textblock features (columns of X); may be 0 when anchor-text sets are given.
    n_anchor_features_in_ : int
        Number of anchor-text features (columns of each gamma set); 0 when fitted without gammas.
    centroids_theta_ : ndarray of shape (M1, n_features_in_)
        Centroids mu^theta_i; M1 = 0 rows when X has no columns.
    spreads_theta_ : ndarray of shape (M1,)
    centroids_gamma_ : list of M2 ndarrays of shape (n_rows_j, n_anchor_features_in_)
        Centroid sets mu^gamma_j (training sets that are cluster medoids); empty without gammas.
    spreads_gamma_ : ndarray of shape (M2,)
    weights_ : ndarray of shape (M1 + M2, n_classes)
        Output weights W; rows in unit order (theta units first).
    n_iter_ : int
        Most iterations that either k-means (theta or gamma) ran.
    fit_seconds_ : dict of str to float
        Wall-clock seconds of each training phase: ``kmeans_theta``, ``kmeans_gamma``, ``spreads``,
        ``activations`` (Phi over the distinct samples) and ``least_squares``.

    References
    ----------
    .. [1] Carullo & Binaghi (2010), Machine learning and link analysis for web content mining, KDIR,
       section 3.2.
    .. [2] Moody & Darken (1989), Fast learning in networks of locally-tuned processing units.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [1.0, 1.0], [0.9, 1.0]])
    >>> gammas = [np.zeros((1, 1)), np.zeros((2, 1)), np.ones((1, 1)), np.array([[1.0], [0.8]])]
    >>> model = MSRBFN(m1=2, m2=2, pi=1, random_state=0).fit(X, [False, False, True, True], gammas)
    >>> model.predict(X, gammas).tolist()
    [False, False, True, True]
    """

    def __init__(self, m1=50, m2=50, pi=5, class_weight=None, max_iter=100, random_state=None):
        self.m1 = m1
        self.m2 = m2
        self.pi = pi
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y, gammas: Sequence | None = None) -> MSRBFN:
        """Learn centroids, spreads and output weights from labeled text blocks.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Textblock features theta; may have 0 columns (F = {}) when ``gammas`` is given.
        y : array-like of shape (n_samples,)
            Class labels, at least two classes (e.g. bool: True = main entity).
        gammas : sequence of n_samples array-likes of shape (n_anchors_i, n_anchor_features), optional
            Anchor-text sets; None turns the M2 units off (G = {}).

        Returns
        -------
        self : MSRBFN

        Raises
        ------
        ValueError
            If a parameter is out of range, X or y are invalid, y has one class, ``gammas`` has not
            n_samples valid sets, or there are neither textblock features nor gammas.

        Warns
        -----
        UserWarning
            When there are fewer distinct theta vectors (gamma distributions) than M1 (M2): that many
            units are used.
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_features=0 if gammas is not None else 1)
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"MSRBFN needs samples of at least 2 classes; got 1 class: {self.classes_[0]!r}")
        self._check_gammas(gammas, len(X))
        rng = check_random_state(self.random_state)
        self.fit_seconds_ = dict.fromkeys(
            ("kmeans_theta", "kmeans_gamma", "spreads", "activations", "least_squares"), 0.0
        )
        self.n_iter_ = 0
        # Each source maps a sample to a distinct input (row of X, gamma distribution) and gives the
        # activations of the distinct inputs only.
        theta_ids, theta_activations = np.zeros(len(X), dtype=np.intp), np.ones((1, 0))
        if X.shape[1] > 0:
            theta_ids, theta_activations = self._fit_theta_units(X, rng)
        else:
            self.centroids_theta_, self.spreads_theta_ = np.empty((0, 0)), np.empty(0)
        gamma_ids, gamma_activations = np.zeros(len(X), dtype=np.intp), np.ones((1, 0))
        if gammas is not None:
            gamma_ids, gamma_activations = self._fit_gamma_units(gammas, rng)
            self.n_anchor_features_in_ = self.centroids_gamma_[0].shape[1]
        else:
            self.n_anchor_features_in_ = 0
            self.centroids_gamma_, self.spreads_gamma_ = [], np.empty(0)
        self.weights_ = self._solve_weights(
            theta_ids, theta_activations, gamma_ids, gamma_activations, y, y_index
        )
        return self

    def _solve_weights(
        self, theta_ids, theta_activations, gamma_ids, gamma_activations, y, y_index
    ) -> np.ndarray:
        """W = pinv(S^1/2 Phi) S^1/2 T by least squares over the distinct (theta, gamma, class) samples.

        Samples with the same inputs and class have equal rows of Phi and T, so k of them are one row
        weighted by k: the normal equations, hence the minimum-norm solution, are unchanged, and the
        problem shrinks from n_samples rows to the number of distinct samples.
        """
        start = time.perf_counter()
        n_classes, n_gammas = len(self.classes_), len(gamma_activations)
        keys = (theta_ids * n_gammas + gamma_ids) * n_classes + y_index
        _, first, counts = np.unique(keys, return_index=True, return_counts=True)
        phi = np.hstack([theta_activations[theta_ids[first]], gamma_activations[gamma_ids[first]]])
        targets = np.eye(n_classes)[y_index[first]]
        class_weights = compute_class_weight(self.class_weight, classes=self.classes_, y=y)
        scale = np.sqrt(class_weights[y_index[first]] * counts)[:, None]
        self.fit_seconds_["activations"] += time.perf_counter() - start
        start = time.perf_counter()
        solution = torch.linalg.lstsq(
            torch.from_numpy(phi * scale), torch.from_numpy(targets * scale), driver="gelsd"
        ).solution
        self.fit_seconds_["least_squares"] = time.perf_counter() - start
        return solution.numpy()

    def decision_function(self, X, gammas: Sequence | None = None) -> np.ndarray:
        """Scores of the positive class: o_1 - o_0 for two classes, else all outputs o_c.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)
        gammas : sequence of n_samples array-likes of shape (n_anchors_i, n_anchor_features_in_)
            Required when the model was fitted with gammas, else must be None.

        Returns
        -------
        scores : ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
            For two classes, ``o[:, 1] - o[:, 0]``: positive means ``classes_[1]`` (the main entity).

        Raises
        ------
        ValueError
            If X has the wrong number of columns or gammas do not match the fitted model.
        """
        outputs = self._outputs(X, gammas)
        return outputs[:, 1] - outputs[:, 0] if len(self.classes_) == 2 else outputs

    def predict(self, X, gammas: Sequence | None = None) -> np.ndarray:
        """Class of each sample: ``classes_[argmax_c o_c]`` (ties go to ``classes_[0]``).

        Parameters
        ----------
        X, gammas
            As in :meth:`decision_function`.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        winners = self._outputs(X, gammas).argmax(axis=1)
        return self.classes_[winners]

    def _check_params(self) -> None:
        for name in ("m1", "m2", "pi", "max_iter"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1; got {value!r}")

    def _check_gammas(self, gammas: Sequence | None, n_samples: int) -> None:
        if gammas is not None and len(gammas) != n_samples:
            raise ValueError(f"gammas must have one set per sample ({n_samples}); got {len(gammas)}")

    def _fit_theta_units(self, X: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
        """k-means centroids and p-means spreads of the theta units.

        Returns the index of each sample's distinct theta, shape (n_samples,), and the activations of
        the distinct thetas, shape (n_distinct, M1).
        """
        start = time.perf_counter()
        distinct, inverse, counts = np.unique(X, axis=0, return_inverse=True, return_counts=True)
        n_units = self._n_units(self.m1, len(distinct), "M1", "textblock feature vectors")
        kmeans = KMeans(n_units, max_iter=self.max_iter, random_state=rng.randint(np.iinfo(np.int32).max))
        self.centroids_theta_ = kmeans.fit(distinct, sample_weight=counts).cluster_centers_
        self.n_iter_ = max(self.n_iter_, kmeans.n_iter_)
        self.fit_seconds_["kmeans_theta"] = time.perf_counter() - start
        start = time.perf_counter()
        self.spreads_theta_ = p_means_spreads(cdist(self.centroids_theta_, self.centroids_theta_), self.pi)
        self.fit_seconds_["spreads"] += time.perf_counter() - start
        start = time.perf_counter()
        activations = rbf_activations(cdist(distinct, self.centroids_theta_), self.spreads_theta_)
        self.fit_seconds_["activations"] += time.perf_counter() - start
        return inverse.ravel(), activations

    def _fit_gamma_units(self, gammas: Sequence, rng) -> tuple[np.ndarray, np.ndarray]:
        """EMD k-means centroids and p-means spreads of the gamma units.

        Returns the index of each sample's distinct gamma distribution, shape (n_samples,), and the
        activations of the distinct distributions, shape (n_distinct, M2).
        """
        start = time.perf_counter()
        distinct, inverse, counts, first = unique_gammas(gammas)
        n_units = self._n_units(self.m2, len(distinct), "M2", "anchor-text set distributions")
        medoids, _, n_iter = emd_kmeans(
            distinct, n_units, sample_weight=counts, max_iter=self.max_iter, random_state=rng
        )
        self.n_iter_ = max(self.n_iter_, n_iter)
        self.centroids_gamma_ = [np.asarray(gammas[first[medoid]], dtype=np.float64) for medoid in medoids]
        centroids = distinct.take(medoids)
        self.fit_seconds_["kmeans_gamma"] = time.perf_counter() - start
        start = time.perf_counter()
        self.spreads_gamma_ = p_means_spreads(pairwise_emd(centroids, centroids), self.pi)
        self.fit_seconds_["spreads"] += time.perf_counter() - start
        start = time.perf_counter()
        activations = rbf_activations(pairwise_emd(distinct, centroids), self.spreads_gamma_)
        self.fit_seconds_["activations"] += time.perf_counter() - start
        return inverse, activations

    @staticmethod
    def _n_units(requested: int, n_distinct: int, name: str, what: str) -> int:
        if n_distinct < requested:
            warnings.warn(
                f"only {n_distinct} distinct {what}; "
                f"using {name} = {n_distinct} RBF units instead of {requested}",
                UserWarning,
                stacklevel=4,
            )
        return min(requested, n_distinct)

    def _outputs(self, X, gammas: Sequence | None) -> np.ndarray:
        """Network outputs o = Phi W, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        X = validate_data(
            self, X, dtype=np.float64, reset=False, ensure_min_features=0 if self.n_features_in_ == 0 else 1
        )
        fitted_with_gammas = self.n_anchor_features_in_ > 0
        if fitted_with_gammas != (gammas is not None):
            raise ValueError(
                "this MSRBFN was fitted with anchor-text sets: pass gammas"
                if fitted_with_gammas
                else "this MSRBFN was fitted without anchor-text sets: gammas must be None"
            )
        self._check_gammas(gammas, len(X))
        columns = []
        if self.n_features_in_ > 0:
            columns.append(rbf_activations(cdist(X, self.centroids_theta_), self.spreads_theta_))
        if fitted_with_gammas:
            columns.append(
                rbf_activations(emd_to_centroids(gammas, self.centroids_gamma_), self.spreads_gamma_)
            )
        return np.hstack(columns) @ self.weights_
