"""A per-page candidate ranker and a calibrator of its answers, on plain arrays.

The ranker scores every candidate of every page; a page's answer is its best-scoring candidate. It is
a pointwise learner with page-balanced sample weights: on each training page the positive candidates
share a weight of 1 and the negative ones a weight of 1, so a page with 600 candidates counts as much
as a page with 20, and the rare positives are not drowned (pointwise learning-to-rank, Liu 2009,
chapter 2). Three learners are offered: scikit-learn's histogram gradient boosting (``"gbm"``; trees
take the unscaled, mixed features as they are), a logistic regression on standardised features
(``"linear"``), and both (``"both"``: the sum of their log-odds, so that a page must convince the
smooth linear model and the trees alike).

Missing values (``nan``: the layout features of a page read without a browser, which has no boxes) are
taken as missing, not as a value: the boosted trees learn at each split which side missing values go
to (scikit-learn's native support), and the logistic regression is given the column means in their
place plus one 0/1 indicator column per feature that had missing values (``SimpleImputer`` with
``add_indicator``), so it can learn what a missing box says. A column missing on every training row
says nothing; both learners get it as a constant 0 (no split and no weight can use it; the trees
cannot bin a column without values). The imputer is added only when the
training data holds a missing value: a ranker fitted on rendered pages is the same model as before
missing values were allowed, bit for bit.

The calibrator maps a page's best score to the probability that the answer is right, by isotonic
regression on answers given on held-out pages (Zadrozny & Elkan 2002), with a logistic tail below the
lowest held-out score (Platt 1999) so that a score far below what was seen reads as unlikely, not as
the lowest step.
"""

from __future__ import annotations

import inspect
from functools import cache

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, clone
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_array, check_is_fitted
from threadpoolctl import ThreadpoolController

from mainentity.models.linear import rowwise_log_odds

#: Learners of :class:`CandidateRanker`.
RANKER_METHODS = ("gbm", "linear", "both")

#: ``check_array``'s keyword that lets ``nan`` through: ``ensure_all_finite`` from scikit-learn 1.6,
#: ``force_all_finite`` before.
_ALLOW_NAN = {("ensure_all_finite" if "ensure_all_finite" in inspect.signature(check_array).parameters
               else "force_all_finite"): "allow-nan"}


def page_balanced_weights(y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Sample weights giving each page's positives a total of 1 and its negatives a total of 1.

    Parameters
    ----------
    y : ndarray of shape (n_candidates,)
        1 for a main-entity candidate, 0 otherwise.
    groups : ndarray of shape (n_candidates,)
        Page id of each candidate.

    Returns
    -------
    weights : ndarray of shape (n_candidates,)

    Examples
    --------
    >>> page_balanced_weights(np.array([1, 0, 0, 0, 1]), np.array([0, 0, 0, 1, 1])).tolist()
    [1.0, 0.5, 0.5, 1.0, 1.0]
    """
    y = np.asarray(y).astype(bool)
    _, page = np.unique(groups, return_inverse=True)
    n_pos = np.bincount(page, weights=y)
    n_neg = np.bincount(page, weights=~y)
    return np.where(y, 1.0 / np.maximum(n_pos[page], 1), 1.0 / np.maximum(n_neg[page], 1))


def best_per_group(scores: np.ndarray, groups: np.ndarray) -> dict:
    """Index of the best-scoring row of each group (the first one on ties).

    >>> best_per_group(np.array([0.1, 0.9, 0.3, 0.2]), [7, 7, 8, 8])
    {7: 1, 8: 2}
    """
    best: dict = {}
    for i, (score, group) in enumerate(zip(scores, groups, strict=True)):
        if group not in best or score > scores[best[group]]:
            best[group] = i
    return best


class CandidateRanker(BaseEstimator):
    """Score main-entity candidates; higher is more likely the page's main entity.

    Parameters
    ----------
    method : {"gbm", "linear", "both"}, default "gbm"
        Histogram gradient boosting, logistic regression on standardised features, or the sum of both.
    max_iter : int, default 200
        Boosting iterations (``gbm``) or solver iterations (``linear``).
    learning_rate : float, default 0.1
        Boosting shrinkage (``gbm``).
    max_depth : int, default 4
        Depth of each tree (``gbm``).
    min_samples_leaf : int, default 40
        Least candidates in a leaf (``gbm``): shallow, well-populated trees transfer better to new
        sites than ones that learn one site's exact pixel positions.
    l2 : float, default 1.0
        L2 regularisation (``gbm``: ``l2_regularization``; ``linear``: ``1 / C``).
    monotonic : sequence of int or None, default None
        Per feature, +1 (the score may only grow with it), -1 (only fall) or 0 (free); ``gbm`` only.
    random_state : int or None, default None

    Attributes
    ----------
    estimators_ : list of estimator
        The fitted scikit-learn classifiers (positive class 1): one, or two for ``"both"``.
    n_features_in_ : int
    allows_missing_ : bool
        The training data held missing values (``nan``), so the ranker takes them when it scores (the
        logistic regression then starts with an imputer); a ranker fitted without any refuses them.
    empty_columns_ : ndarray of shape (n_features_in_,) of bool
        Columns missing on every training row, given to the learners as 0 (when ``allows_missing_``).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.9, 0.1], [0.2, 0.8]])
    >>> ranker = CandidateRanker("linear").fit(X, np.array([1, 0, 1, 0]), np.array([0, 0, 1, 1]))
    >>> bool(ranker.decision_function(X)[0] > ranker.decision_function(X)[1])
    True
    """

    def __init__(self, method="gbm", max_iter=200, learning_rate=0.1, max_depth=4, min_samples_leaf=40, l2=1.0,
                 monotonic=None, random_state=None):
        self.method = method
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2 = l2
        self.monotonic = monotonic
        self.random_state = random_state

    def _make_estimators(self, missing: bool) -> list:
        """The unfitted classifiers; ``missing``: the training data holds ``nan`` (the linear model imputes)."""
        if self.method not in RANKER_METHODS:
            raise ValueError(f"unknown ranker method {self.method!r}; valid: {', '.join(RANKER_METHODS)}")
        estimators = []
        if self.method in ("gbm", "both"):
            estimators.append(HistGradientBoostingClassifier(
                max_iter=self.max_iter, learning_rate=self.learning_rate, max_depth=self.max_depth,
                min_samples_leaf=self.min_samples_leaf, l2_regularization=self.l2, early_stopping=False,
                monotonic_cst=None if self.monotonic is None else list(self.monotonic), random_state=self.random_state,
            ))
        if self.method in ("linear", "both"):
            steps = [SimpleImputer(add_indicator=True)] if missing else []
            estimators.append(make_pipeline(
                *steps, StandardScaler(), LogisticRegression(C=1.0 / self.l2, max_iter=max(self.max_iter, 500))))
        return estimators

    def fit(self, X, y, groups) -> CandidateRanker:
        """Learn from candidates of labeled pages.

        Parameters
        ----------
        X : array-like of shape (n_candidates, n_features)
            Finite values or ``nan`` (missing).
        y : array-like of shape (n_candidates,)
            1 for a main-entity candidate, 0 otherwise; both classes must occur.
        groups : array-like of shape (n_candidates,)
            Page id of each candidate (for the page-balanced weights).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If ``method`` is unknown, shapes disagree, ``X`` holds an infinite value, or ``y`` holds one
            class only.
        """
        X = check_array(X, **_ALLOW_NAN)
        y = np.asarray(y).astype(int)
        groups = np.asarray(groups)
        if len(y) != len(X) or len(groups) != len(X):
            raise ValueError(f"X, y and groups must have one row per candidate; got {len(X)}, {len(y)}, {len(groups)}")
        if len(np.unique(y)) < 2:
            raise ValueError("the training candidates must hold both main entities (1) and others (0)")
        missing = bool(np.isnan(X).any())
        self.empty_columns_ = np.isnan(X).all(axis=0) if len(X) else np.zeros(X.shape[1], bool)
        X = self._without_empty_columns(X) if missing else X
        estimators = self._make_estimators(missing)
        weights = page_balanced_weights(y, groups)
        # one thread, as when scoring: on a busy machine OpenMP's threads spin against the other processes
        # (a fit on both shared datasets took 207 s against 6.6 s with one thread on 2 loaded cores)
        with _thread_pools().limit(limits=1, user_api="openmp"):
            for estimator in estimators:
                if isinstance(estimator, HistGradientBoostingClassifier):
                    estimator.fit(X, y, sample_weight=weights)
                else:
                    estimator.fit(X, y, logisticregression__sample_weight=weights)
        self.estimators_ = estimators
        self.n_features_in_ = X.shape[1]
        self.allows_missing_ = missing
        return self

    def _without_empty_columns(self, X: np.ndarray) -> np.ndarray:
        """``X`` with the columns missing on every training row set to 0 (a copy when there are any)."""
        if not self.empty_columns_.any():
            return X
        X = X.copy()
        X[:, self.empty_columns_] = 0.0
        return X

    def decision_function(self, X) -> np.ndarray:
        """Candidate scores (log-odds of being a main entity under the page-balanced weights).

        Parameters
        ----------
        X : array-like of shape (n_candidates, n_features)
            Finite values, or ``nan`` when the ranker was fitted on data with missing values.

        Returns
        -------
        scores : ndarray of shape (n_candidates,)

        Raises
        ------
        ValueError
            If ``n_features`` differs from the fitted one, or ``X`` holds ``nan`` and the training data
            held none (a ranker of rendered pages asked about pages without layout).
        """
        check_is_fitted(self)
        X = check_array(X, ensure_min_samples=0, **_ALLOW_NAN)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features; the ranker was fitted with {self.n_features_in_}")
        # model files written before missing values were allowed lack the attribute: their data had none
        if not getattr(self, "allows_missing_", False) and np.isnan(X).any():
            columns = np.flatnonzero(np.isnan(X).any(axis=0)).tolist()
            raise ValueError(f"X has missing values (nan) in columns {columns}; the ranker was fitted on data "
                             "without any: fit it on data with missing values (pages read without layout)")
        if getattr(self, "allows_missing_", False):
            X = self._without_empty_columns(X)
        if len(X) == 0:
            return np.zeros(0)
        # one thread: a site's candidates are too few for OpenMP's start-up to pay off, and on a busy
        # machine its threads spin against the other processes (16x the CPU time measured on 2 cores)
        with _thread_pools().limit(limits=1, user_api="openmp"):
            return np.concatenate([
                np.sum([_log_odds(estimator, X[start:start + SCORED_ROWS]) for estimator in self.estimators_], axis=0)
                for start in range(0, len(X), SCORED_ROWS)])


def _log_odds(estimator, X: np.ndarray) -> np.ndarray:
    """``estimator.decision_function(X)`` of shape (n_rows,); for the linear pipeline each row's dot product
    summed on its own (:func:`~mainentity.models.linear.rowwise_log_odds`), so a candidate's score does not
    depend on the other rows scored with it (a site scored whole or in shards)."""
    if isinstance(estimator, HistGradientBoostingClassifier):
        return np.asarray(estimator.decision_function(X), dtype=float)  # tree sums: row by row already
    return rowwise_log_odds(estimator[-1], estimator[:-1].transform(X))


#: Candidates scored per call of the estimators: the boosted trees walk all the rows once per tree, and
#: the rows of a large site (200 christianbook pages: 109 000 candidates, 35 MB) fall out of the
#: processor's cache between trees; in blocks of this many rows the trees take about 40% less time.
SCORED_ROWS = 16384


@cache
def _thread_pools() -> ThreadpoolController:
    """The process's thread pools, found once: ``threadpool_limits`` looks for them on every call (about
    3 ms, as long as the trees' work on a small site)."""
    return ThreadpoolController()


class AnswerCalibrator(BaseEstimator):
    """Map a page's best candidate score to the probability that its answer is right.

    Within the range of held-out scores it was fitted on, and above it, the map is isotonic regression
    (non-decreasing, clipped above the range) [1]_. Below the lowest seen score ``s_0`` isotonic
    regression knows nothing and would repeat its lowest step for every lower score, however far; there
    the log-odds fall linearly from that step's probability ``p_0`` with the slope ``a`` of a logistic
    regression fitted to the same answers (Platt scaling [2]_):

        p(s) = sigmoid(logit(p_0) + a (s - s_0)),  s < s_0,

    continuous at ``s_0`` and tending to 0 as ``s`` falls (``p_0`` is first clipped into
    [1e-6, 1 - 1e-6] so that a lowest step of 1 still falls). A slope that is not positive (scores that
    do not separate right from wrong answers) leaves the lowest step flat, as before.

    Attributes
    ----------
    thresholds_x_, thresholds_y_ : ndarray of shape (n_thresholds,)
        The fitted step function (scores and probabilities), interpolated linearly.
    tail_slope_ : float
        ``a`` above, >= 0, in log-odds per score unit.

    References
    ----------
    .. [1] Zadrozny & Elkan (2002), "Transforming classifier scores into accurate multiclass
       probability estimates", KDD.
    .. [2] Platt (1999), "Probabilistic outputs for support vector machines and comparisons to
       regularized likelihood methods", Advances in Large Margin Classifiers.

    Examples
    --------
    >>> calibrator = AnswerCalibrator().fit(np.array([-2.0, -1.0, 1.0, 2.0]), np.array([1, 0, 1, 1]))
    >>> calibrator.predict_proba(np.array([-2.0, -1.0, 2.0, 9.0])).tolist()  # isotonic, clipped above
    [0.5, 0.5, 1.0, 1.0]
    >>> bool(calibrator.predict_proba([-3.0])[0] < 0.5), bool(calibrator.predict_proba([-40.0])[0] < 0.01)
    (True, True)
    """

    #: Bound on ``p_0`` away from 0 and 1 for the tail's log-odds.
    TAIL_EPSILON = 1e-6

    def fit(self, scores, correct) -> AnswerCalibrator:
        """Fit on ``scores`` of shape (n_pages,) and ``correct`` (1 when that answer was right).

        Raises
        ------
        ValueError
            If the two differ in length or are empty.
        """
        scores = np.asarray(scores, dtype=float)
        correct = np.asarray(correct, dtype=float)
        if len(scores) == 0 or len(scores) != len(correct):
            raise ValueError(f"need one correctness per score and at least one; got {len(scores)}, {len(correct)}")
        isotonic = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(scores, correct)
        self.thresholds_x_ = np.asarray(isotonic.X_thresholds_, dtype=float)
        self.thresholds_y_ = np.asarray(isotonic.y_thresholds_, dtype=float)
        self.tail_slope_ = 0.0
        if len(np.unique(correct)) == 2:
            platt = LogisticRegression().fit(scores.reshape(-1, 1), correct.astype(int))
            self.tail_slope_ = max(float(platt.coef_[0, 0]), 0.0)
        return self

    def predict_proba(self, scores) -> np.ndarray:
        """Probability in [0, 1] that each answer is right; shape (n_pages,)."""
        check_is_fitted(self)
        scores = np.asarray(scores, dtype=float)
        probabilities = np.interp(scores, self.thresholds_x_, self.thresholds_y_)
        below = scores < self.thresholds_x_[0]
        if self.tail_slope_ > 0 and below.any():
            p_0 = np.clip(self.thresholds_y_[0], self.TAIL_EPSILON, 1.0 - self.TAIL_EPSILON)
            log_odds = np.log(p_0 / (1.0 - p_0)) + self.tail_slope_ * (scores[below] - self.thresholds_x_[0])
            probabilities[below] = np.minimum(expit(log_odds), self.thresholds_y_[0])
        return probabilities


def cross_fitted_scores(ranker: CandidateRanker, X, y, groups, folds) -> np.ndarray:
    """Scores of every candidate from a clone of ``ranker`` fitted without that candidate's fold.

    Parameters
    ----------
    ranker : CandidateRanker
        Unfitted template (cloned per fold).
    X, y, groups
        As in :meth:`CandidateRanker.fit`.
    folds : ndarray of shape (n_candidates,)
        Fold id of each candidate (all candidates of a page, or of a site, in one fold).

    Returns
    -------
    scores : ndarray of shape (n_candidates,)
        Held-out scores; ``nan`` for candidates of a fold whose training part held one class only.
    """
    scores = np.full(len(y), np.nan)
    for fold in np.unique(folds):
        held = folds == fold
        if len(np.unique(np.asarray(y)[~held])) < 2:
            continue
        model = clone(ranker).fit(X[~held], np.asarray(y)[~held], np.asarray(groups)[~held])
        scores[held] = model.decision_function(X[held])
    return scores
