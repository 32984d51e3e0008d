"""Figures of the reports: matplotlib (the ``report`` extra) imported on demand, files written atomically.

Plots use matplotlib's object-oriented API with the Agg canvas (no pyplot, no global backend change).
:func:`plot_reliability` draws the reliability diagram of an evaluation report
(:func:`mainentity.evaluation.report.reliability_table`), :func:`plot_coverage` its coverage and accuracy
when abstaining below each threshold (:func:`mainentity.evaluation.report.coverage_table`), and
:func:`plot_scores_by_dataset` both, one line per dataset, for the benchmark report.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd


def import_matplotlib():
    """``(matplotlib, Figure)``.

    Raises
    ------
    ImportError
        If matplotlib is not installed (the message gives the pip command).
    """
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as err:
        raise ImportError(
            f"the reports draw their plots with matplotlib, which is not installed ({err}); "
            "install it with: pip install 'mainentity[report]'"
        ) from err
    return matplotlib, Figure


def save_figure(figure, stem: Path, formats: tuple[str, ...] = ("svg", "png")) -> tuple[Path, ...]:
    """Write ``stem.<format>`` for each format (PNG at 150 dpi), each through a temporary file and os.replace."""
    paths = []
    for fmt in formats:
        path = stem.with_suffix(f".{fmt}")
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(handle)
        try:
            metadata = {"Date": None} if fmt == "svg" else {"Software": None}
            figure.savefig(tmp, format=fmt, dpi=150, bbox_inches="tight", metadata=metadata)
            os.chmod(tmp, 0o644)  # mkstemp creates 0600; a report is meant to be read
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        paths.append(path)
    return tuple(paths)


def plot_reliability(table: pd.DataFrame, ece: float, path: Path) -> Path:
    """Draw a reliability diagram into the PNG file ``path``: per score bin, accuracy against mean score.

    Parameters
    ----------
    table : DataFrame
        :func:`~mainentity.evaluation.report.reliability_table` (``bin``, ``n_pages``, ``mean_score``,
        ``accuracy``).
    ece : float
        Its expected calibration error, shown in the title.
    path : Path
        Where the PNG goes (``.png``).

    Returns
    -------
    path : Path

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    """
    _, Figure = import_matplotlib()
    figure = Figure(figsize=(4.5, 4.5))
    axes = figure.add_subplot()
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="calibrated")
    lows = [float(label.split("-")[0]) for label in table["bin"]]
    axes.bar(lows, table["accuracy"], width=0.1, align="edge", alpha=0.35, edgecolor="black", label="accuracy")
    axes.plot(table["mean_score"], table["accuracy"], marker="o", color="C0", label="accuracy at mean score")
    for low, accuracy, n_pages in zip(lows, table["accuracy"], table["n_pages"], strict=True):
        axes.annotate(str(n_pages), (low + 0.05, accuracy), ha="center", va="bottom", fontsize=7)
    axes.set(xlim=(0, 1), ylim=(0, 1.05), xlabel="score (calibrated probability)", ylabel="exact match",
             title=f"Reliability (ECE {ece:.3f}; pages per bin)")
    axes.legend(loc="upper left", fontsize=8)
    return save_figure(figure, path.with_suffix(""), ("png",))[0]


def plot_coverage(table: pd.DataFrame, path: Path) -> Path:
    """Draw coverage and accuracy against the ``abstain_below`` threshold into the PNG file ``path``.

    Parameters
    ----------
    table : DataFrame
        :func:`~mainentity.evaluation.report.coverage_table` (``abstain_below``, ``coverage``, ``accuracy``).
    path : Path
        Where the PNG goes (``.png``).

    Returns
    -------
    path : Path

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    """
    _, Figure = import_matplotlib()
    figure = Figure(figsize=(4.5, 4.5))
    axes = figure.add_subplot()
    axes.plot(table["abstain_below"], table["coverage"], marker="o", label="coverage (pages answered)")
    axes.plot(table["abstain_below"], table["accuracy"], marker="s", label="accuracy of the answers (exact)")
    axes.set(xlim=(0, 1), ylim=(0, 1.05), xlabel="abstain_below (score threshold)", ylabel="share",
             title="Abstaining below a threshold")
    axes.legend(loc="lower left", fontsize=8)
    return save_figure(figure, path.with_suffix(""), ("png",))[0]


def plot_scores_by_dataset(reliability: dict[str, pd.DataFrame], coverage: dict[str, pd.DataFrame], title: str,
                           path: Path) -> Path:
    """Draw one system's reliability curves and coverage / accuracy curves, one line per dataset, into ``path``.

    Left, per dataset, the exact match of each score bin against its mean score (the reliability diagram
    of :func:`plot_reliability` as a line); right, the exact match of the answers kept against the share
    of pages kept as the ``abstain_below`` threshold moves (a risk-coverage curve, El-Yaniv & Wiener 2010).

    Parameters
    ----------
    reliability : dict of str to DataFrame
        Dataset -> :func:`~mainentity.evaluation.report.reliability_table`.
    coverage : dict of str to DataFrame
        Dataset -> :func:`~mainentity.evaluation.report.coverage_table` (``coverage``, ``accuracy``).
    title : str
        The figure's title (the system).
    path : Path
        Where the PNG goes (``.png``).

    Returns
    -------
    path : Path

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    """
    _, Figure = import_matplotlib()
    figure = Figure(figsize=(9, 4.5))
    calibration, selection = figure.subplots(1, 2)
    calibration.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="calibrated")
    for k, (dataset, table) in enumerate(sorted(reliability.items())):
        calibration.plot(table["mean_score"], table["accuracy"], marker="o", color=f"C{k}", label=dataset)
    calibration.set(xlim=(0, 1), ylim=(0, 1.05), xlabel="mean score of the bin", ylabel="exact match",
                    title="Reliability per dataset")
    calibration.legend(loc="upper left", fontsize=7)
    for k, (dataset, table) in enumerate(sorted(coverage.items())):
        selection.plot(table["coverage"], table["accuracy"], marker="s", color=f"C{k}", label=dataset)
    selection.set(xlim=(0, 1.02), xlabel="share of pages answered (coverage)", ylabel="exact match of the answers",
                  title="Abstaining below a threshold")
    selection.legend(loc="lower left", fontsize=7)
    figure.suptitle(title)
    return save_figure(figure, path.with_suffix(""), ("png",))[0]
