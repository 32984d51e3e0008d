"""Bootstrap confidence intervals over pages for the evaluation metrics.

Percentile bootstrap (Efron & Tibshirani 1993, ch. 13): resample the pages with replacement
``n_resamples`` times, compute the statistic on each resample, and take the ``(1 - confidence) / 2`` and
``(1 + confidence) / 2`` quantiles of those values. Resampling is vectorised with numpy in chunks of
about 2**19 drawn page indices, so memory stays bounded for millions of pages.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mainentity.evaluation.metrics import f1_from
from mainentity.evaluation.report import MEAN_COLUMNS

__all__ = ["add_ci_columns", "bootstrap_ci", "bootstrap_means"]

_CHUNK_CELLS = 2**19


def _check_values(values) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim not in (1, 2) or array.shape[0] == 0:
        raise ValueError(f"values must be a non-empty array of shape (n_pages,) or (n_pages, k); "
                         f"got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("values must be finite; got NaN or infinity")
    return array


def bootstrap_means(values, n_resamples: int = 1000, random_state=0) -> np.ndarray:
    """Means of ``n_resamples`` bootstrap resamples of the pages (rows) of ``values``.

    All columns share the same resampled pages, so statistics derived from several columns (an F1
    of mean precision and mean recall) stay paired.

    Parameters
    ----------
    values : array_like of shape (n_pages,) or (n_pages, k)
        Per-page values, finite.
    n_resamples : int, optional
        Number of bootstrap resamples, >= 1.
    random_state : int, numpy.random.Generator or None, optional
        Seed of ``numpy.random.default_rng``; the same seed gives the same resamples.

    Returns
    -------
    means : ndarray of shape (n_resamples,) or (n_resamples, k)
        Column means of each resample.

    Raises
    ------
    ValueError
        If ``values`` is empty, not 1-D or 2-D, or not finite, or ``n_resamples < 1``.

    Examples
    --------
    >>> bootstrap_means([0.5, 0.5, 0.5], n_resamples=2)
    array([0.5, 0.5])
    """
    array = _check_values(values)
    if int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be an integer >= 1; got {n_resamples!r}")
    n_resamples = int(n_resamples)
    rng = np.random.default_rng(random_state)
    n_pages = array.shape[0]
    rows_per_chunk = max(1, _CHUNK_CELLS // n_pages)
    chunks = []
    for start in range(0, n_resamples, rows_per_chunk):
        n_rows = min(rows_per_chunk, n_resamples - start)
        index = rng.integers(0, n_pages, size=(n_rows, n_pages))
        chunks.append(array[index].mean(axis=1))
    return np.concatenate(chunks, axis=0)


def _interval(samples: np.ndarray, confidence: float) -> np.ndarray:
    alpha = 1.0 - confidence
    return np.quantile(samples, [alpha / 2, 1 - alpha / 2], axis=0)


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}")


def bootstrap_ci(
    values, n_resamples: int = 1000, confidence: float = 0.95, random_state=0
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the mean of per-page values.

    Parameters
    ----------
    values : array_like of shape (n_pages,)
        Per-page values of one metric, finite.
    n_resamples : int, optional
        Number of bootstrap resamples, >= 1.
    confidence : float, optional
        Coverage level in (0, 1).
    random_state : int, numpy.random.Generator or None, optional
        Seed; the same seed gives the same interval.

    Returns
    -------
    low, high : float
        The ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the resampled means.

    Raises
    ------
    ValueError
        If ``values`` is empty, not 1-D, or not finite, ``n_resamples < 1``, or ``confidence`` is
        outside (0, 1).

    Examples
    --------
    >>> low, high = bootstrap_ci([0.0, 1.0] * 50)
    >>> bool(low < 0.5 < high), bool(high - low < 0.25)
    (True, True)
    """
    _check_confidence(confidence)
    array = _check_values(values)
    if array.ndim != 1:
        raise ValueError(f"values must be 1-D (one metric); got shape {array.shape}")
    low, high = _interval(bootstrap_means(array, n_resamples, random_state), confidence)
    return float(low), float(high)


def add_ci_columns(
    summary: pd.DataFrame,
    per_page: pd.DataFrame,
    by: Sequence[str] = ("system", "dataset"),
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state=0,
) -> pd.DataFrame:
    """Add ``<metric>_low`` and ``<metric>_high`` bootstrap columns to a summary.

    For every summary row, the pages of ``per_page`` with the same ``by`` values are resampled
    (seeded with ``random_state``, the same for every group) and, for each metric of
    :data:`mainentity.evaluation.report.MEAN_COLUMNS`, the percentile interval of the resampled mean
    is taken; ``h_f1`` gets the interval of the F1 of the resampled macro ``h_precision`` and
    ``h_recall`` (Carullo & Binaghi 2010, section 4.1), from the same resamples. Rows without pages
    get NaN intervals.

    Parameters
    ----------
    summary : DataFrame
        From :func:`mainentity.evaluation.report.summarize` with the same ``by``.
    per_page : DataFrame
        The per-page table the summary was made from.
    by : sequence of str, optional
        The grouping columns of ``summary``.
    n_resamples, confidence, random_state
        As in :func:`bootstrap_ci`.

    Returns
    -------
    DataFrame
        A copy of ``summary`` with the interval columns appended (``<metric>_low`` then
        ``<metric>_high``, metrics in summary order) and ``attrs["confidence"]`` set.

    Raises
    ------
    ValueError
        If a ``by`` or metric column is missing, or as :func:`bootstrap_ci`.
    """
    _check_confidence(confidence)
    by = list(by)
    page_columns = list(MEAN_COLUMNS.values())
    missing = [c for c in [*by, *page_columns] if c not in per_page.columns] + [
        c for c in [*by, *MEAN_COLUMNS, "h_f1"] if c not in summary.columns
    ]
    if missing:
        raise ValueError(f"missing column(s) for bootstrap intervals: {', '.join(missing)}")
    metrics = [c for c in summary.columns if c in MEAN_COLUMNS or c == "h_f1"]
    intervals = {metric: np.full((len(summary), 2), np.nan) for metric in metrics}
    groups = per_page.groupby(by, sort=False, dropna=False).indices
    page_values = per_page[page_columns].to_numpy(dtype=float)
    for row, key in enumerate(summary[by].itertuples(index=False, name=None)):
        index = groups.get(key if len(by) > 1 else key[0])
        if index is None or len(index) == 0:
            continue
        means = bootstrap_means(page_values[index], n_resamples, random_state)
        by_metric = dict(zip(MEAN_COLUMNS, means.T, strict=True))
        by_metric["h_f1"] = f1_from(by_metric["h_precision"], by_metric["h_recall"])
        for metric in metrics:
            intervals[metric][row] = _interval(by_metric[metric], confidence)
    out = summary.copy()
    for metric in metrics:
        out[f"{metric}_low"] = intervals[metric][:, 0]
        out[f"{metric}_high"] = intervals[metric][:, 1]
    out.attrs["confidence"] = confidence
    return out
