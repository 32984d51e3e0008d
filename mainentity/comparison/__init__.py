"""The comparison of our recognisers with the peers (``mainentity benchmark``): every system trained and
scored on the same test pages (:mod:`mainentity.comparison.compare`), and the report with tables,
intervals, plots and disagreements (:mod:`mainentity.comparison.comparison_report`).

Named ``comparison`` so that it is not confused with the ``benchmarks/`` scripts of the repository, which
measure speed and memory."""

from mainentity.comparison.comparison_report import (
    DISAGREEMENT_COLUMNS,
    SPEED_COLUMNS,
    best_systems,
    find_disagreements,
    rank_systems,
    write_benchmark_report,
)

__all__ = [
    "DISAGREEMENT_COLUMNS",
    "SPEED_COLUMNS",
    "best_systems",
    "find_disagreements",
    "rank_systems",
    "write_benchmark_report",
]
