"""Evaluation: metrics of predicted main entities against labels, and reports."""

from mainentity.evaluation.bootstrap import add_ci_columns, bootstrap_ci
from mainentity.evaluation.metrics import dice, exact_match, jaccard, rouge1, score_page
from mainentity.evaluation.report import (
    PER_PAGE_COLUMNS,
    evaluate_predictions,
    per_site,
    summarize,
    write_report,
)

__all__ = [
    "PER_PAGE_COLUMNS",
    "add_ci_columns",
    "bootstrap_ci",
    "dice",
    "evaluate_predictions",
    "exact_match",
    "jaccard",
    "per_site",
    "rouge1",
    "score_page",
    "summarize",
    "write_report",
]
