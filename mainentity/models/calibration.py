"""A calibrator of answers from several signals of doubt, on plain arrays.

:class:`~mainentity.models.ranker.AnswerCalibrator` maps the ranker's best score alone to a probability. On
a site no training page came from, the score says little: the ranker is sure of every answer its features
like, right or wrong (ECE 0.13 to 0.23 on pages of sites never seen). :class:`DoubtCalibrator` is a
logistic regression (Platt scaling [1]_ with more inputs than the score, as in Niculescu-Mizil & Caruana
[2]_) over signals a new site's wrong answers show: a small margin to the runner-up, sources of the page
that do not agree with the answer, text the site repeats on its pages. It is fitted on answers given on
held-out sites, so the mistakes it learns from are those of a model on a site it never saw. Fitted on
answers whose share of right ones is not that of real use (wrong answers made up, as the general
recogniser's counterfactual ones), it takes the real share as ``base_rate`` and corrects its intercept.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_array, check_is_fitted

from mainentity.models.linear import rowwise_log_odds


class DoubtCalibrator(BaseEstimator):
    """Probability that a page's answer is right, from its signals of doubt.

    ``p = sigmoid(w . standardise(signals) + b)``, fitted by L2-regularised logistic regression on
    answers given on held-out pages (1 when the answer was right), each weighted as given.

    Parameters
    ----------
    l2 : float, default 1.0
        Inverse of scikit-learn's ``C``: larger pulls the weights towards 0 (the probability towards the
        held-out accuracy).

    Attributes
    ----------
    scaler_ : StandardScaler
    model_ : LogisticRegression or None
        ``None`` when every held-out answer had the same outcome; then the probability is ``constant_``.
    constant_ : float
        The held-out accuracy, with one added right and one added wrong answer (Laplace), so a calibrator
        that saw only right answers does not claim certainty.
    n_features_in_ : int

    References
    ----------
    .. [1] Platt (1999), "Probabilistic outputs for support vector machines and comparisons to
       regularized likelihood methods", Advances in Large Margin Classifiers.
    .. [2] Niculescu-Mizil & Caruana (2005), "Predicting good probabilities with supervised learning", ICML.
    .. [3] King & Zeng (2001), "Logistic regression in rare events data", Political Analysis 9(2).

    Examples
    --------
    >>> signals = np.array([[5.0, 3.0], [4.0, 2.5], [1.0, 0.1], [0.5, 0.2], [4.5, 0.3], [1.5, 2.0]])
    >>> calibrator = DoubtCalibrator().fit(signals, np.array([1, 1, 0, 0, 1, 0]))
    >>> p = calibrator.predict_proba(np.array([[5.0, 3.0], [0.5, 0.1]]))
    >>> bool(p[0] > 0.5 > p[1])
    True
    """

    def __init__(self, l2=1.0):
        self.l2 = l2

    def fit(self, signals, correct, sample_weight=None, base_rate=None) -> DoubtCalibrator:
        """Fit on ``signals`` of shape (n_pages, n_signals) and ``correct`` of shape (n_pages,).

        ``sample_weight`` of shape (n_pages,), optional: the weight of each answer. ``base_rate``,
        optional: the share of right answers where the calibrator will be used, when the answers given
        were not drawn at that share (wrong answers added, as counterfactual ones); the intercept is then
        moved from the log-odds of the weighted share of right answers given to those of ``base_rate``
        (prior correction of King & Zeng [3]_, section 4.1), and ``constant_`` is ``base_rate``.

        Raises
        ------
        ValueError
            If the lengths differ, there is no page, a signal is not finite, or ``base_rate`` is not in (0, 1).
        """
        signals = check_array(signals)
        correct = np.asarray(correct, dtype=float)
        if len(correct) != len(signals):
            raise ValueError(f"need one correctness per row of signals; got {len(correct)} and {len(signals)}")
        if base_rate is not None and not 0.0 < base_rate < 1.0:
            raise ValueError(f"base_rate must be in (0, 1); got {base_rate}")
        weights = np.ones(len(correct)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        self.n_features_in_ = signals.shape[1]
        self.scaler_ = StandardScaler().fit(signals)
        share = float((np.sum(weights * correct) + 1.0) / (np.sum(weights) + 2.0))
        self.constant_ = share if base_rate is None else float(base_rate)
        self.model_ = None
        if len(np.unique(correct)) == 2:
            self.model_ = LogisticRegression(C=1.0 / self.l2).fit(
                self.scaler_.transform(signals), correct.astype(int), sample_weight=weights)
            if base_rate is not None:
                given = np.sum(weights * correct) / np.sum(weights)
                self.model_.intercept_ += _logit(base_rate) - _logit(given)
        return self

    def predict_proba(self, signals) -> np.ndarray:
        """Probability in [0, 1] that each answer is right; ``signals`` of shape (n_pages, n_signals).

        Raises
        ------
        ValueError
            If the number of signals differs from the fitted one.
        """
        check_is_fitted(self)
        signals = check_array(signals, ensure_min_samples=0)
        if signals.shape[1] != self.n_features_in_:
            raise ValueError(f"signals have {signals.shape[1]} columns; the calibrator was fitted with "
                             f"{self.n_features_in_}")
        if self.model_ is None or len(signals) == 0:
            return np.full(len(signals), self.constant_)
        return expit(rowwise_log_odds(self.model_, self.scaler_.transform(signals)))  # same bits in any batch


def _logit(p: float) -> float:
    """log(p / (1 - p))."""
    return float(np.log(p / (1.0 - p)))
