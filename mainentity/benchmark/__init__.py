"""Benchmarks of our recognisers against the peers: the report with tables, intervals, plots and
disagreements (:mod:`mainentity.benchmark.report`)."""

from mainentity.benchmark.report import (
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
