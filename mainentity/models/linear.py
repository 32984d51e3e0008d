"""The log-odds of a fitted binary logistic regression, row by row.

scikit-learn's ``LogisticRegression.decision_function`` is a BLAS matrix product, whose blocking depends on
how many rows share the call: a row's score can differ in its last bit with the batch it came in. The
general recogniser scores a site's pages in one call in one process and in shards of a few pages on a
cluster (:mod:`mainentity.scaleout`); with a calibrator that is smooth in the score, that last bit reached
the rows (0.9664215734739597 against ...595). Each row's dot product summed on its own (numpy's pairwise
sum along a contiguous row) gives the same bits whatever the batch.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression


def rowwise_log_odds(model: LogisticRegression, X: np.ndarray) -> np.ndarray:
    """``X @ coef + intercept`` of a fitted binary ``model``, each row summed on its own.

    Parameters
    ----------
    model : LogisticRegression
        Fitted on two classes (``coef_`` of shape (1, n_features)).
    X : ndarray of shape (n_rows, n_features)
        Finite values, already transformed as the model's input.

    Returns
    -------
    log_odds : ndarray of shape (n_rows,)
        Equal to ``model.decision_function(X)`` up to rounding, and bit for bit the same for a row
        whatever other rows are in ``X``.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(500, 42))
    >>> model = LogisticRegression().fit(X, X[:, 0] > 0)
    >>> whole = rowwise_log_odds(model, X)
    >>> bool(np.allclose(whole, model.decision_function(X)))
    True
    >>> all((rowwise_log_odds(model, X[i:i + 3]) == whole[i:i + 3]).all() for i in range(0, 500, 3))
    True
    """
    X = np.ascontiguousarray(X, dtype=float)
    return (X * model.coef_[0]).sum(axis=1) + model.intercept_[0]
