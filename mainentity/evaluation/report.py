"""Evaluation reports: per-page scores, summaries by system / dataset / site, Markdown and CSV files.

:func:`evaluate_predictions` scores one recogniser's predictions on one dataset (one row per labeled
page, :data:`PER_PAGE_COLUMNS`); :func:`summarize` and :func:`per_site` average them;
:func:`write_report` writes ``report.md`` (and the same as ``report.html``), ``per_page.csv``, ``summary.csv``
and ``per_site.csv``.

Rules of the tables:

- A page is scored when its label list is non-empty. A labeled page whose prediction has an error, or
  that has no prediction at all (``error == "no prediction"``), scores 0 in every metric and counts in
  ``n_errors``. Predictions of unlabeled pages are left out and counted in ``n_unlabeled``.
- Every text metric is the mean over pages of the per-page value of
  :func:`~mainentity.evaluation.metrics.score_page` (``rouge1_f`` is the mean of per-page F1s, as
  ROUGE is usually reported).
- The candidate-set metrics follow Carullo & Binaghi (2010), section 4.1: ``h_precision`` and
  ``h_recall`` are the macro averages (means over pages) of ``P_H`` and ``R_H``, and the summary's
  ``h_f1`` is the F1 of those two averages, ``2 P R / (P + R)``; that is how the paper's Table 2
  relates P, R and F1 (0.78, 0.66 -> 0.72). The mean of per-page F1s is kept as ``h_f1_mean``.
  In ``per_page`` tables ``h_f1`` is the page's own F1.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mainentity._files import write_text_atomic
from mainentity.evaluation.figures import plot_coverage, plot_reliability
from mainentity.evaluation.html_page import write_html_report
from mainentity.evaluation.metrics import METRICS, SCORE_KEYS, expected_calibration_error, f1_from, score_page
from mainentity.records import Page, Prediction

__all__ = [
    "MEAN_COLUMNS",
    "NO_PREDICTION",
    "PER_PAGE_COLUMNS",
    "SUMMARY_METRICS",
    "concat_per_page",
    "evaluate_predictions",
    "markdown_table",
    "page_labels",
    "per_site",
    "screenshot_name",
    "summarize",
    "trust_table",
    "with_intervals",
    "worst_pages",
    "write_report",
]

#: Columns of a per-page table, in order. ``gold`` is the label alternative the text metrics used,
#: ``prediction`` the predicted main entity, ``best_candidate`` and ``score_kind`` as in a ``predict`` row,
#: ``error`` empty when the page was scored normally, ``n_candidates`` the size of the candidate set H;
#: then the metrics of :data:`SCORE_KEYS`.
PER_PAGE_COLUMNS: list[str] = [
    "system",
    "dataset",
    "site_id",
    "path",
    "url",
    "gold",
    "prediction",
    "best_candidate",
    "score",
    "score_kind",
    "error",
    "answered_by",
    "n_candidates",
    *SCORE_KEYS,
]

#: Summary column -> the per-page column whose mean over pages it is.
MEAN_COLUMNS: dict[str, str] = {
    **{name: name for name in METRICS},
    "h_precision": "h_precision",
    "h_recall": "h_recall",
    "h_f1_mean": "h_f1",
}

#: Metric columns of a summary, in order (``h_f1`` is the F1 of the macro ``h_precision``, ``h_recall``).
SUMMARY_METRICS: list[str] = [*METRICS, "h_precision", "h_recall", "h_f1", "h_f1_mean"]

_COUNT_COLUMNS = ["n_pages", "n_errors", "n_abstained", "n_unlabeled"]
_UNLABELED_KEYS = ("system", "dataset", "site_id", "path")
_SITE_TABLE_METRICS = ["rouge1_f", "jaccard", "dice", "exact", "h_precision", "h_recall", "h_f1"]
#: The ``error`` of a labeled page that got no prediction at all.
NO_PREDICTION = "no prediction"


def page_labels(pages: Iterable[Page]) -> dict[tuple[str, str], tuple[str, ...]]:
    """The labels of pages keyed by ``(site_id, path)``, as :func:`evaluate_predictions` takes them.

    Examples
    --------
    >>> page_labels([Page("s", "pages/1.htm", "http://s/1", "<p>x</p>", ("X",))])
    {('s', 'pages/1.htm'): ('X',)}
    """
    return {(page.site_id, page.path): page.main_entity for page in pages}


def _zero_scores() -> dict[str, float]:
    return dict.fromkeys(SCORE_KEYS, 0.0)


def evaluate_predictions(
    predictions: Sequence[Prediction],
    labels: Mapping[tuple[str, str], Sequence[str]],
    system: str = "",
    dataset: str = "",
) -> pd.DataFrame:
    """Score predictions against labels, one row per labeled page.

    Parameters
    ----------
    predictions : sequence of Prediction
        At most one per page; ``candidates`` is the set H, ``main_entity`` the top block.
    labels : mapping of (site_id, path) to sequence of str
        Acceptable labels per page; an empty sequence means unlabeled.
    system, dataset : str, optional
        Names written into the ``system`` and ``dataset`` columns.

    Returns
    -------
    per_page : DataFrame of shape (n_labeled_pages, len(PER_PAGE_COLUMNS))
        Columns :data:`PER_PAGE_COLUMNS`; rows of the predictions in input order, then one error row
        (``"no prediction"``, all metrics 0) per labeled page that has no prediction. Error
        predictions score 0 in every metric. ``per_page.attrs["unlabeled"]`` lists
        ``(system, dataset, site_id, path)`` of the predictions left out because their page has no label.

    Raises
    ------
    ValueError
        If two predictions name the same ``(site_id, path)``.

    Examples
    --------
    >>> preds = [Prediction("s", "a", "http://s/a", "Holy Bible", candidates=("Holy Bible", "Home")),
    ...          Prediction("s", "b", "http://s/b", error="render timeout")]
    >>> df = evaluate_predictions(preds, {("s", "a"): ["holy bible"], ("s", "b"): ["Psalms"]}, "msrbfn")
    >>> df[["path", "exact", "h_precision", "error"]].to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'path': 'a', 'exact': 1.0, 'h_precision': 0.5, 'error': ''},
     {'path': 'b', 'exact': 0.0, 'h_precision': 0.0, 'error': 'render timeout'}]
    """
    rows: list[dict] = []
    unlabeled: list[tuple[str, str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for prediction in predictions:
        key = (prediction.site_id, prediction.path)
        if key in seen:
            raise ValueError(f"two predictions for page {key[0]}/{key[1]}; expected at most one per page")
        seen.add(key)
        page_labels_ = tuple(labels.get(key, ()))
        if not page_labels_:
            unlabeled.append((system, dataset, *key))
            continue
        if prediction.error:
            scores = {**_zero_scores(), "best_label": page_labels_[0]}
        else:
            scores = score_page(prediction.main_entity, page_labels_, prediction.candidates)
        rows.append(_row(system, dataset, prediction, scores, prediction.error))
    for key, page_labels_ in labels.items():
        if key not in seen and len(page_labels_) > 0:
            missing = Prediction(site_id=key[0], path=key[1], url="")
            rows.append(_row(system, dataset, missing, {**_zero_scores(), "best_label": page_labels_[0]},
                             NO_PREDICTION))
    per_page = pd.DataFrame(rows, columns=PER_PAGE_COLUMNS)
    per_page["n_candidates"] = per_page["n_candidates"].astype(int)
    per_page[list(SCORE_KEYS)] = per_page[list(SCORE_KEYS)].astype(float)
    per_page.attrs["unlabeled"] = unlabeled
    return per_page


def _row(system: str, dataset: str, prediction: Prediction, scores: Mapping, error: str) -> dict:
    return {
        "system": system,
        "dataset": dataset,
        "site_id": prediction.site_id,
        "path": prediction.path,
        "url": prediction.url,
        "gold": scores["best_label"],
        "prediction": prediction.main_entity,
        "best_candidate": prediction.best_candidate,
        "score": prediction.score,
        "score_kind": prediction.score_kind,
        "error": error,
        "answered_by": prediction.answered_by,
        "n_candidates": len(prediction.candidates),
        **{key: scores[key] for key in SCORE_KEYS},
    }


def concat_per_page(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Stack per-page tables (several systems or datasets), keeping their unlabeled-page lists.

    ``pandas.concat`` drops ``attrs`` that differ between its inputs; this keeps the union of every
    input's ``attrs["unlabeled"]`` so :func:`summarize` can still count ``n_unlabeled``.

    Raises
    ------
    ValueError
        If ``frames`` is empty.
    """
    if not frames:
        raise ValueError("concat_per_page needs at least one per-page table; got none")
    combined = pd.concat(list(frames), ignore_index=True)
    combined.attrs = {"unlabeled": [key for frame in frames for key in frame.attrs.get("unlabeled", [])]}
    return combined


def summarize(per_page: pd.DataFrame, by: Sequence[str] = ("system", "dataset")) -> pd.DataFrame:
    """Average a per-page table over pages within groups.

    Parameters
    ----------
    per_page : DataFrame
        From :func:`evaluate_predictions` (or :func:`concat_per_page`, or read back from
        ``per_page.csv``, which loses the unlabeled count).
    by : sequence of str, optional
        Grouping columns.

    Returns
    -------
    summary : DataFrame
        One row per group, sorted by ``by``: the ``by`` columns, ``n_pages`` (labeled pages),
        ``n_errors``, ``n_abstained`` (pages answered with nothing, without an error: scored below the
        abstention threshold, or without a candidate; only when ``per_page`` has a ``prediction`` column;
        they score 0 like errors),
        ``n_unlabeled`` (only when ``per_page.attrs["unlabeled"]`` exists and every ``by``
        column is one of system, dataset, site_id), then :data:`SUMMARY_METRICS`: the means over pages of
        :data:`MEAN_COLUMNS`, and ``h_f1`` = F1 of the macro ``h_precision`` and ``h_recall``
        (Carullo & Binaghi 2010, section 4.1). A group with only unlabeled pages has ``n_pages`` 0 and
        NaN metrics.

    Raises
    ------
    ValueError
        If a ``by`` column or a metric column is missing from ``per_page``.

    Examples
    --------
    >>> df = pd.DataFrame({"system": "s", "dataset": "d", "error": ["", "boom"],
    ...                    **{c: [1.0, 0.0] for c in set(MEAN_COLUMNS.values())}})
    >>> summarize(df)[["n_pages", "n_errors", "exact", "h_f1", "h_f1_mean"]].to_dict("records")
    [{'n_pages': 2, 'n_errors': 1, 'exact': 0.5, 'h_f1': 0.5, 'h_f1_mean': 0.5}]
    """
    by = list(by)
    needed = [*by, "error", *sorted(set(MEAN_COLUMNS.values()))]
    missing = [column for column in needed if column not in per_page.columns]
    if missing:
        raise ValueError(f"per-page table lacks column(s) {', '.join(missing)}; has {list(per_page.columns)}")
    frame = per_page[needed].copy()
    frame["has_error"] = frame["error"].fillna("").astype(str).ne("")
    if "prediction" in per_page.columns:
        frame["abstained"] = ~frame["has_error"] & per_page["prediction"].fillna("").astype(str).str.strip().eq("")
    grouped = frame.groupby(by, sort=True, dropna=False)
    summary = pd.DataFrame(
        {summary_col: grouped[page_col].mean() for summary_col, page_col in MEAN_COLUMNS.items()}
    )
    summary["h_f1"] = f1_from(summary["h_precision"].to_numpy(), summary["h_recall"].to_numpy())
    summary["n_pages"] = grouped.size()
    summary["n_errors"] = grouped["has_error"].sum()
    count_columns = ["n_pages", "n_errors"]
    if "abstained" in frame.columns:
        summary["n_abstained"] = grouped["abstained"].sum()
        count_columns.append("n_abstained")
    unlabeled = per_page.attrs.get("unlabeled")
    if unlabeled is not None and set(by) <= {"system", "dataset", "site_id"}:
        unlabeled_frame = pd.DataFrame(list(unlabeled), columns=list(_UNLABELED_KEYS))
        counts = unlabeled_frame.groupby(by, sort=True, dropna=False).size()
        summary = summary.reindex(summary.index.union(counts.index))
        summary["n_unlabeled"] = counts.reindex(summary.index)
        count_columns.append("n_unlabeled")
    summary[count_columns] = summary[count_columns].fillna(0).astype(int)
    summary = summary.sort_index().reset_index()
    return summary[[*by, *count_columns, *SUMMARY_METRICS]]


def per_site(per_page: pd.DataFrame) -> pd.DataFrame:
    """:func:`summarize` by ``(system, dataset, site_id)``: the per-site breakdown.

    Examples
    --------
    >>> preds = [Prediction("a.com", "1", "", "X"), Prediction("b.com", "1", "", "Y")]
    >>> per_site(evaluate_predictions(preds, {("a.com", "1"): ["x"], ("b.com", "1"): ["z"]}))[
    ...     ["site_id", "n_pages", "exact"]].to_dict("records")
    [{'site_id': 'a.com', 'n_pages': 1, 'exact': 1.0}, {'site_id': 'b.com', 'n_pages': 1, 'exact': 0.0}]
    """
    return summarize(per_page, by=("system", "dataset", "site_id"))


def _format_cell(value, floatfmt: str) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    if isinstance(value, float):
        return format(value, floatfmt)
    return str(value).replace("\n", " ").replace("|", "\\|")


def markdown_table(df: pd.DataFrame, floatfmt: str = ".3f") -> str:
    """Render a DataFrame as a GitHub pipe table (no ``tabulate`` dependency).

    Parameters
    ----------
    df : DataFrame
        Any table; its index is not written.
    floatfmt : str, optional
        ``format`` spec of float cells; NaN cells are left empty.

    Returns
    -------
    str
        Header, alignment row (numeric columns right-aligned) and one line per row, ``\\n``-separated,
        no trailing newline. ``|`` in cells is escaped, newlines become spaces.

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"site": ["a|b"], "n": [3], "f1": [0.12345]})))
    | site | n | f1 |
    | --- | ---: | ---: |
    | a\\|b | 3 | 0.123 |
    """
    header = "| " + " | ".join(_format_cell(str(c), floatfmt) for c in df.columns) + " |"
    align = "| " + " | ".join(
        "---:" if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) else "---"
        for c in df.columns
    ) + " |"
    lines = [header, align]
    for row in df.itertuples(index=False, name=None):
        lines.append("| " + " | ".join(_format_cell(value, floatfmt) for value in row) + " |")
    return "\n".join(lines)


def with_intervals(summary: pd.DataFrame, floatfmt: str) -> pd.DataFrame:
    """Fold ``m_low``/``m_high`` columns into the ``m`` column as ``"0.812 [0.790, 0.830]"``."""
    table = summary.copy()
    for column in list(table.columns):
        low, high = f"{column}_low", f"{column}_high"
        if low in table.columns and high in table.columns:
            table[column] = [
                "" if math.isnan(v) else
                f"{v:{floatfmt}}" + ("" if math.isnan(lo) else f" [{lo:{floatfmt}}, {hi:{floatfmt}}]")
                for v, lo, hi in zip(table[column], table[low], table[high], strict=True)
            ]
            table = table.drop(columns=[low, high])
    return table


_DEFINITIONS = [
    "Text metrics (ROUGE-1 P/R/F1 with the letter-digit tokenizer, Jaccard and Dice of token sets, exact "
    "match of normalised text) compare the predicted main entity with the best label alternative (highest "
    "ROUGE-1 F1) and are averaged over labeled pages.",
    "h_precision / h_recall: how good the model's candidate set H is (the text blocks it marked as "
    "possible main entities before choosing one): macro averages over pages of P_H = matching candidates / "
    "|H| (how few wrong blocks it kept) and R_H = 1 if a candidate matches a label (whether the right block "
    "was among them) (Carullo & Binaghi 2010, section 4.1); h_f1 = 2PR/(P+R) of those averages; "
    "h_f1_mean = mean of per-page F1. Models without a candidate set score 0 there.",
    "n_pages: labeled pages scored; n_errors: those with a prediction error or no prediction; n_abstained: "
    "those answered with nothing (a score under the abstention threshold, or no candidate); n_unlabeled: "
    "predicted pages without a label, left out.",
    "Pages with a prediction error, no prediction or no answer score 0 in every metric (n_errors, "
    "n_abstained); unlabeled pages "
    "are excluded (n_unlabeled).",
]


def reliability_table(per_page: pd.DataFrame, n_bins: int = 10) -> pd.DataFrame:
    """Reliability diagram as a table: per bin of the predicted probability, how often it was right.

    Only pages whose ``score`` is a probability in [0, 1] count (recognisers with calibrated scores,
    e.g. ``general``); "right" is an exact match. A calibrated recogniser has ``accuracy`` close to
    ``mean_score`` in every bin (DeGroot & Fienberg 1983; Niculescu-Mizil & Caruana 2005).

    Parameters
    ----------
    per_page : DataFrame
        From :func:`evaluate_predictions` (columns ``score`` and ``exact``).
    n_bins : int, default 10
        Equal-width bins of [0, 1].

    Returns
    -------
    table : DataFrame
        Columns ``bin`` ("0.9-1.0"), ``n_pages``, ``mean_score``, ``accuracy``; non-empty bins only.

    Examples
    --------
    >>> df = pd.DataFrame({"score": [0.95, 0.92, 0.15, float("nan")], "exact": [1.0, 1.0, 0.0, 1.0]})
    >>> reliability_table(df).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'bin': '0.1-0.2', 'n_pages': 1, 'mean_score': 0.15, 'accuracy': 0.0},
     {'bin': '0.9-1.0', 'n_pages': 2, 'mean_score': 0.935, 'accuracy': 1.0}]
    """
    scored = per_page[per_page["score"].between(0.0, 1.0)]
    index = np.minimum((scored["score"].to_numpy() * n_bins).astype(int), n_bins - 1)
    rows = []
    for b in range(n_bins):
        chosen = scored[index == b]
        if len(chosen):
            rows.append({"bin": f"{b / n_bins:.1f}-{(b + 1) / n_bins:.1f}", "n_pages": len(chosen),
                         "mean_score": round(float(chosen["score"].mean()), 4),
                         "accuracy": round(float(chosen["exact"].mean()), 4)})
    return pd.DataFrame(rows, columns=["bin", "n_pages", "mean_score", "accuracy"])


#: Thresholds of the report's coverage table: abstaining below each.
COVERAGE_THRESHOLDS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)


def coverage_table(per_page: pd.DataFrame, thresholds: Sequence[float] = COVERAGE_THRESHOLDS) -> pd.DataFrame:
    """Coverage and accuracy when abstaining below each threshold of the predicted probability.

    What ``abstain_below`` trades (selective prediction: the risk-coverage curve of El-Yaniv & Wiener
    2010): the share of pages still answered, and how often those answers are exactly right. Only pages
    whose ``score`` is a probability in [0, 1] count.

    Parameters
    ----------
    per_page : DataFrame
        From :func:`evaluate_predictions` (columns ``score`` and ``exact``).
    thresholds : sequence of float, default COVERAGE_THRESHOLDS

    Returns
    -------
    table : DataFrame
        Columns ``abstain_below``, ``n_answered``, ``coverage`` (share of the scored pages answered) and
        ``accuracy`` (exact match of those; ``nan`` when none is); empty without a scored page.

    Examples
    --------
    >>> df = pd.DataFrame({"score": [0.95, 0.92, 0.15, 0.6], "exact": [1.0, 1.0, 0.0, 0.0]})
    >>> coverage_table(df, (0.0, 0.5, 0.9)).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'abstain_below': 0.0, 'n_answered': 4, 'coverage': 1.0, 'accuracy': 0.5},
     {'abstain_below': 0.5, 'n_answered': 3, 'coverage': 0.75, 'accuracy': 0.6667},
     {'abstain_below': 0.9, 'n_answered': 2, 'coverage': 0.5, 'accuracy': 1.0}]
    """
    scored = per_page[per_page["score"].between(0.0, 1.0)]
    rows = []
    for threshold in thresholds if len(scored) else ():
        answered = scored[scored["score"] >= threshold]
        rows.append({"abstain_below": threshold, "n_answered": len(answered),
                     "coverage": round(len(answered) / len(scored), 4),
                     "accuracy": round(float(answered["exact"].mean()), 4) if len(answered) else float("nan")})
    return pd.DataFrame(rows, columns=["abstain_below", "n_answered", "coverage", "accuracy"])


def coverage_by_group(per_page: pd.DataFrame, by: Sequence[str] = ("system", "dataset"),
                      thresholds: Sequence[float] = COVERAGE_THRESHOLDS) -> pd.DataFrame:
    """:func:`coverage_table` of each group of pages whose ``score_kind`` is ``probability``.

    Parameters
    ----------
    per_page : DataFrame
        From :func:`evaluate_predictions` (columns ``score``, ``score_kind``, ``exact`` and ``by``).
    by : sequence of str, default ("system", "dataset")
    thresholds : sequence of float, default COVERAGE_THRESHOLDS

    Returns
    -------
    table : DataFrame
        Columns ``by`` then those of :func:`coverage_table`, one row per group and threshold; empty
        (with these columns) when no page has a probability.

    Examples
    --------
    >>> df = pd.DataFrame({"system": "s", "dataset": ["a", "a", "b"], "score_kind": "probability",
    ...                    "score": [0.95, 0.4, 0.8], "exact": [1.0, 0.0, 1.0]})
    >>> coverage_by_group(df, thresholds=(0.5,))[["dataset", "coverage", "accuracy"]].to_dict("records")
    [{'dataset': 'a', 'coverage': 0.5, 'accuracy': 1.0}, {'dataset': 'b', 'coverage': 1.0, 'accuracy': 1.0}]
    """
    by = list(by)
    columns = [*by, "abstain_below", "n_answered", "coverage", "accuracy"]
    if "score_kind" not in per_page.columns:
        return pd.DataFrame(columns=columns)
    scored = per_page[per_page["score_kind"].eq("probability")]
    tables = [coverage_table(group, thresholds).assign(**dict(zip(by, key if isinstance(key, tuple) else (key,),
                                                                  strict=True)))
              for key, group in scored.groupby(by, sort=True)]
    tables = [table for table in tables if len(table)]
    return pd.concat(tables, ignore_index=True)[columns] if tables else pd.DataFrame(columns=columns)


#: A score from which an answer counts as certain: a wrong answer scored this high is "wrong and certain".
CERTAIN_SCORE = 0.9


def trust_table(per_page: pd.DataFrame, by: Sequence[str] = ("system", "dataset"), *,
                abstain_below: float = 0.5) -> pd.DataFrame:
    """Whether the scores can be acted on, per group: ECE, wrong answers scored as certain, and abstention.

    Only rows whose ``score_kind`` is ``probability`` count (a model whose scores are on its own scale
    has no row); "right" is an exact match.

    Parameters
    ----------
    per_page : DataFrame
        From :func:`evaluate_predictions` (columns ``score``, ``score_kind``, ``exact`` and ``by``).
    by : sequence of str, default ("system", "dataset")
        Grouping columns.
    abstain_below : float, default 0.5
        The threshold of the abstention columns.

    Returns
    -------
    table : DataFrame
        One row per group with scored pages: ``by``, ``n_scored``, ``exact`` (over the scored pages),
        ``mean_score``, ``ece`` (:func:`~mainentity.evaluation.metrics.expected_calibration_error`, 10
        bins, against exact match), ``n_wrong``, ``n_wrong_certain`` (wrong with a score >=
        :data:`CERTAIN_SCORE`), ``wrong_certain_share`` (of the scored pages), ``kept_share`` and
        ``kept_exact`` (the pages scored >= ``abstain_below``, and exact match among them; ``nan`` when
        none is kept). Empty, with these columns, when no page has a probability.

    Examples
    --------
    >>> df = pd.DataFrame({"system": "s", "dataset": "d", "score_kind": "probability",
    ...                    "score": [0.95, 0.95, 0.15, 0.6], "exact": [1.0, 0.0, 0.0, 1.0]})
    >>> trust_table(df)[["n_wrong_certain", "wrong_certain_share", "kept_share", "kept_exact"]].to_dict("records")
    [{'n_wrong_certain': 1, 'wrong_certain_share': 0.25, 'kept_share': 0.75, 'kept_exact': 0.6667}]
    """
    by = list(by)
    columns = [*by, "n_scored", "exact", "mean_score", "ece", "n_wrong", "n_wrong_certain", "wrong_certain_share",
               "kept_share", "kept_exact"]
    if "score_kind" not in per_page.columns:
        return pd.DataFrame(columns=columns)
    scored = per_page[per_page["score_kind"].eq("probability") & per_page["score"].between(0.0, 1.0)]
    rows = []
    for key, group in scored.groupby(by, sort=True):
        scores, exact = group["score"].to_numpy(float), group["exact"].to_numpy(float)
        kept = scores >= abstain_below
        wrong_certain = int(np.sum((exact < 1.0) & (scores >= CERTAIN_SCORE)))
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
                     "n_scored": len(group), "exact": round(float(exact.mean()), 4),
                     "mean_score": round(float(scores.mean()), 4),
                     "ece": round(expected_calibration_error(scores, exact), 4),
                     "n_wrong": int(np.sum(exact < 1.0)), "n_wrong_certain": wrong_certain,
                     "wrong_certain_share": round(wrong_certain / len(group), 4),
                     "kept_share": round(float(kept.mean()), 4),
                     "kept_exact": round(float(exact[kept].mean()), 4) if kept.any() else float("nan")})
    return pd.DataFrame(rows, columns=columns)


#: How many pages the report's worst-pages list shows.
N_WORST_PAGES = 10


def worst_pages(per_page: pd.DataFrame, n: int = N_WORST_PAGES) -> pd.DataFrame:
    """The ``n`` labeled pages with the lowest ROUGE-1 F1 (errors first), for a reader to look at.

    Examples
    --------
    >>> preds = [Prediction("a.com", "1", "", "X"), Prediction("a.com", "2", "", "Y")]
    >>> worst_pages(evaluate_predictions(preds, {("a.com", "1"): ["x"], ("a.com", "2"): ["z"]}))[
    ...     ["path", "prediction", "gold", "rouge1_f"]].to_dict("records")
    [{'path': '2', 'prediction': 'Y', 'gold': 'z', 'rouge1_f': 0.0}]
    """
    wrong = per_page[(per_page["rouge1_f"] < 1) | (per_page["error"] != "")]
    wrong = wrong.assign(_has_error=wrong["error"] != "")
    wrong = wrong.sort_values(["_has_error", "rouge1_f", "site_id", "path"], ascending=[False, True, True, True])
    columns = [c for c in ("site_id", "path", "prediction", "gold", "score", "rouge1_f", "error") if c in wrong]
    return wrong[columns].head(n).reset_index(drop=True)


def _sites_worst_first(sites: pd.DataFrame) -> pd.DataFrame:
    """The per-site table ordered worst first (ROUGE-1 F1, then exact), so the failing sites lead."""
    keys = [c for c in ("rouge1_f", "exact", "site_id") if c in sites.columns]
    return sites.sort_values(keys, kind="stable") if keys else sites


def _left_out_note(per_page: pd.DataFrame, reliability: pd.DataFrame) -> list[str]:
    """A note naming the pages the reliability table leaves out (score outside [0, 1] or missing)."""
    if not len(reliability) or "score" not in per_page.columns:
        return []
    scores = pd.to_numeric(per_page["score"], errors="coerce")
    n_out = int((~scores.between(0, 1)).sum())
    if not n_out:
        return []
    return [f"{n_out} of the {len(per_page)} pages are left out of the reliability table: their score is "
            "missing (an error, no answer) or is not in [0, 1] (a raw score, not a probability)."]


#: Where a report's directory keeps the screenshot of a page (:func:`screenshot_name`), when taken.
SCREENSHOTS_DIR = "screenshots"


def screenshot_name(site_id: str, path: str) -> str:
    """The file, relative to a report's directory, of a page's screenshot (a safe name: a page's path
    may be a URL).

    >>> screenshot_name("shop", "pages/p/kettle.html")
    'screenshots/shop_pages_p_kettle.html.png'
    """
    return f"{SCREENSHOTS_DIR}/{re.sub(r'[^A-Za-z0-9._-]+', '_', f'{site_id}_{path}')[:150]}.png"


def _worst_pages_md(per_page: pd.DataFrame, out: Path) -> str:
    """The worst pages' section; a page whose screenshot is in ``out`` (:func:`screenshot_name`) links to it."""
    worst = worst_pages(per_page)
    if not len(worst):
        return ""
    shots = [screenshot_name(site, path) for site, path in zip(worst["site_id"], worst["path"], strict=True)]
    if any((out / shot).is_file() for shot in shots):
        worst.insert(2, "screenshot", [f"[png]({shot})" if (out / shot).is_file() else "" for shot in shots])
    lead = ("The one labeled page with a ROUGE-1 F1 under 1 or an error" if len(worst) == 1 else
            f"The {len(worst)} labeled pages with the lowest ROUGE-1 F1 (errors first; all of them in per_page.csv)")
    return f"## Worst pages\n\n{lead}:\n\n{markdown_table(worst)}\n\n"


def _reliability_section(per_page: pd.DataFrame, out: Path, paths: dict[str, Path]) -> str:
    """The report's section on calibrated scores: ECE, reliability table and diagram (added to ``paths``)."""
    reliability = reliability_table(per_page) if "score" in per_page.columns else pd.DataFrame()
    if not len(reliability):
        return ""
    scored = per_page[per_page["score"].between(0.0, 1.0)]
    ece = expected_calibration_error(scored["score"], scored["exact"])
    coverage = coverage_table(per_page)
    try:
        paths["reliability"] = plot_reliability(reliability, ece, out / "reliability.png")
        paths["coverage"] = plot_coverage(coverage, out / "coverage.png")
        diagram = "![reliability diagram](reliability.png)\n\n"
        curve = "![coverage and accuracy](coverage.png)\n\n"
    except ImportError:
        diagram = "(No reliability diagram: it needs matplotlib, `pip install 'mainentity[report]'`.)\n\n"
        curve = ""
    return ("## Reliability of the scores\n\nThe score is the probability that the answer is right. Pages "
            f"binned by it, against how often they were exactly right; expected calibration error (ECE, 10 "
            f"equal-width bins) **{ece:.3f}**:\n\n{markdown_table(reliability)}\n\n{diagram}"
            "## Coverage and accuracy when abstaining\n\nWith `abstain_below` (`--abstain-below`) a page "
            "scored below the threshold gets no answer: the share of pages still answered, and how often "
            f"those answers are exactly right:\n\n{markdown_table(coverage)}\n\n{curve}")


def write_report(
    per_page: pd.DataFrame,
    out_dir: str | os.PathLike,
    *,
    title: str,
    notes: Sequence[str] = (),
    summary: pd.DataFrame | None = None,
    probability_scores: bool = False,
) -> dict[str, Path]:
    """Write ``report.md``, ``report.html``, ``per_page.csv``, ``summary.csv`` and ``per_site.csv`` into ``out_dir``.

    ``report.html`` is ``report.md`` as one page to open in a browser, with its figures embedded
    (:func:`mainentity.evaluation.html_page.write_html_report`). A worst page whose screenshot is in
    ``out_dir`` (:func:`screenshot_name`) links to it in both.

    When the scores are probabilities (``probability_scores``), the report also gives their expected
    calibration error, the reliability table and a reliability diagram, ``reliability.png`` beside
    ``report.md``, and the coverage and accuracy when abstaining below each threshold
    (:func:`coverage_table`) with their curve, ``coverage.png`` (the PNGs when matplotlib, the ``report``
    extra, is installed); otherwise it says that the scores are not probabilities and gives none of them.

    Each file is written to a temporary file in ``out_dir`` and moved into place with
    :func:`os.replace`, so an interrupted run leaves either the old file or the new one; ``report.md``
    and ``report.html`` come last.

    Parameters
    ----------
    per_page : DataFrame
        From :func:`evaluate_predictions` or :func:`concat_per_page`.
    out_dir : path
        Created (with parents) when missing.
    title : str
        First heading of ``report.md``.
    notes : sequence of str, optional
        Extra bullet points for the report's Notes section (written before the metric definitions).
    summary : DataFrame, optional
        The overall table to write instead of ``summarize(per_page)``, e.g. with the confidence
        interval columns of :func:`mainentity.evaluation.bootstrap.add_ci_columns`; ``m_low`` and
        ``m_high`` columns are shown in ``report.md`` as ``m [low, high]``.
    probability_scores : bool, default False
        The ``score`` column holds the probability that each answer is right (the general recogniser's
        calibrated score), not a score on a scale of its own (the MS-RBFN's RBF output, Titler's margin).

    Returns
    -------
    paths : dict of str to Path
        Keys ``"report"``, ``"html"``, ``"per_page"``, ``"summary"``, ``"per_site"``, and ``"reliability"`` and
        ``"coverage"`` when the diagrams were drawn.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize(per_page) if summary is None else summary
    sites = per_site(per_page)
    paths = {
        "per_page": out / "per_page.csv",
        "summary": out / "summary.csv",
        "per_site": out / "per_site.csv",
        "report": out / "report.md",
    }
    write_text_atomic(paths["per_page"], per_page.to_csv(index=False))
    write_text_atomic(paths["summary"], summary.to_csv(index=False))
    write_text_atomic(paths["per_site"], sites.to_csv(index=False))
    site_columns = [c for c in ["system", "dataset", "site_id", *_COUNT_COLUMNS, *_SITE_TABLE_METRICS]
                    if c in sites.columns]
    reliability = (reliability_table(per_page) if probability_scores and "score" in per_page.columns
                   else pd.DataFrame())
    notes_md = "\n".join(f"- {note}" for note in [*notes, *_left_out_note(per_page, reliability), *_DEFINITIONS])
    if any(column.endswith("_low") for column in summary.columns):
        confidence = summary.attrs.get("confidence")
        level = f"{confidence:.0%} " if confidence is not None else ""
        notes_md += f"\n- [low, high]: {level}bootstrap percentile confidence interval over pages."
    reliability_md = _reliability_section(per_page, out, paths) if probability_scores else (
        "## Reliability of the scores\n\nThis model's scores are not probabilities that the answer is right: "
        "no reliability table.\n\n")
    report = (
        f"# {title}\n\n## Overall\n\n{markdown_table(with_intervals(summary, '.3f'))}\n\n"
        f"## Per site, worst first\n\n{markdown_table(_sites_worst_first(sites)[site_columns])}\n\n"
        f"{_worst_pages_md(per_page, out)}{reliability_md}## Notes\n\n{notes_md}\n"
    )
    write_text_atomic(paths["report"], report)
    paths["html"] = write_html_report(paths["report"])
    return paths
