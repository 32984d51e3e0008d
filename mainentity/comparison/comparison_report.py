"""The benchmark report: accuracy with intervals, speed, plots and the pages where systems disagree.

:func:`write_benchmark_report` turns a per-page table of several systems on several datasets (from
:func:`mainentity.evaluation.report.evaluate_predictions`, stacked with
:func:`~mainentity.evaluation.report.concat_per_page`) and a speed table into:

- ``report.md`` and a self-contained ``report.html`` (figures embedded as base64 ``data:`` URIs): the
  command, tool versions, one accuracy table per dataset (ROUGE-1 P/R/F1 with a bootstrap interval,
  Jaccard, Dice, exact match, pages/s, peak RSS), the figures, and the pages where our best system and
  the best peer disagree most;
- an "Answered by" table: per dataset and system, how many test pages each path of the predict path answered
  (:func:`answered_by_table`; also ``answered_by.csv``);
- ``f1_bars.svg``/``.png`` (mean ROUGE-1 F1 per system and dataset with its interval),
  ``speed_accuracy.svg``/``.png`` (pages/s against mean ROUGE-1 F1), ``disagreements.csv`` and
  ``benchmark_summary.csv`` (the accuracy and speed numbers, intervals as ``<metric>_low``/``_high``).

Plots use matplotlib's object-oriented API with the Agg canvas (no pyplot, no global backend change),
imported only when a report is written: ``pip install 'mainentity[report]'``.
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import pandas as pd

from mainentity._files import write_text_atomic
from mainentity.evaluation.bootstrap import add_ci_columns
from mainentity.evaluation.figures import import_matplotlib as _import_matplotlib
from mainentity.evaluation.figures import plot_scores_by_dataset
from mainentity.evaluation.figures import save_figure as _save_figure
from mainentity.evaluation.html_page import data_uri, html_document, html_table
from mainentity.evaluation.report import (
    CERTAIN_SCORE,
    coverage_by_group,
    markdown_table,
    reliability_table,
    summarize,
    trust_table,
    with_intervals,
)
from mainentity.recognizers.peers import PEER_NAMES
from mainentity.records import ANSWERED_BY

__all__ = [
    "ANSWERED_BY_COLUMNS",
    "DISAGREEMENT_COLUMNS",
    "SPEED_COLUMNS",
    "WITHHELD",
    "answered_by_table",
    "best_systems",
    "find_disagreements",
    "rank_systems",
    "write_benchmark_report",
]

#: Columns the speed table must have: pages/s of prediction (render included when the system renders)
#: and the peak resident set size of the process, in MB.
SPEED_COLUMNS: list[str] = ["system", "dataset", "pages_per_s", "peak_rss_mb"]

#: What replaces gold and predicted texts of the datasets a report is told to redact.
WITHHELD = "[withheld]"

#: Columns of :func:`find_disagreements`' table (and ``disagreements.csv``).
DISAGREEMENT_COLUMNS: list[str] = [
    "dataset", "site_id", "path", "url", "gold",
    "system", "system_prediction", "system_error", "system_rouge1_f",
    "peer", "peer_prediction", "peer_error", "peer_rouge1_f",
    "difference",
]

#: The paths a test page can be answered by (:data:`mainentity.records.ANSWERED_BY`), as columns of
#: :func:`answered_by_table`, and ``none`` for a page without an answer (an error row).
ANSWERED_BY_PATHS: list[str] = [*ANSWERED_BY, "none"]

#: Columns of :func:`answered_by_table` (and ``answered_by.csv``).
ANSWERED_BY_COLUMNS: list[str] = ["dataset", "system", "n_pages", *ANSWERED_BY_PATHS, "rendered_share"]

_TABLE_METRICS = ["rouge1_p", "rouge1_r", "rouge1_f", "jaccard", "dice", "exact"]
_PAGE_KEYS = ["dataset", "site_id", "path"]


def rank_systems(per_page: pd.DataFrame) -> pd.Series:
    """Systems by mean ROUGE-1 F1, best first: the mean over datasets of each dataset's mean over pages.

    Averaging per dataset first keeps a large dataset from outweighing the others.

    Parameters
    ----------
    per_page : DataFrame
        With columns ``system``, ``dataset``, ``rouge1_f`` (one row per page).

    Returns
    -------
    scores : Series
        Indexed by system, sorted by score descending, ties by name.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["a", "a", "b", "b"], "dataset": ["x", "y", "x", "y"],
    ...                    "rouge1_f": [1.0, 0.0, 0.4, 0.4]})
    >>> rank_systems(df).to_dict()
    {'a': 0.5, 'b': 0.4}
    """
    by_dataset = per_page.groupby(["system", "dataset"])["rouge1_f"].mean()
    scores = by_dataset.groupby(level="system").mean()
    order = sorted(scores.index, key=lambda name: (-scores[name], name))
    return scores.loc[order]


def best_systems(
    per_page: pd.DataFrame, peers: Collection[str] = PEER_NAMES
) -> tuple[str | None, str | None]:
    """The best of our systems and the best peer by :func:`rank_systems`.

    Parameters
    ----------
    per_page : DataFrame
        With columns ``system``, ``dataset``, ``rouge1_f``.
    peers : collection of str, optional
        Names of the peer systems; every other system is ours.

    Returns
    -------
    best_ours, best_peer : str or None
        ``None`` when the table has no system of that kind.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["msrbfn", "trafilatura", "goose3"], "dataset": "x",
    ...                    "rouge1_f": [0.9, 0.7, 0.8]})
    >>> best_systems(df)
    ('msrbfn', 'goose3')
    """
    ranked = list(rank_systems(per_page).index)
    ours = next((name for name in ranked if name not in peers), None)
    peer = next((name for name in ranked if name in peers), None)
    return ours, peer


def find_disagreements(per_page: pd.DataFrame, system: str, peer: str, n_pages: int = 20) -> pd.DataFrame:
    """The pages where two systems' ROUGE-1 F1 differ most.

    Parameters
    ----------
    per_page : DataFrame
        Per-page table with columns ``system, dataset, site_id, path, gold, prediction, error,
        rouge1_f`` (``url`` optional).
    system, peer : str
        The two systems compared (our best system and the best peer).
    n_pages : int, optional
        How many pages to keep, >= 0.

    Returns
    -------
    disagreements : DataFrame of shape (min(n_pages, n_shared_pages), len(DISAGREEMENT_COLUMNS))
        Columns :data:`DISAGREEMENT_COLUMNS`, one row per page both systems answered (inner join on
        dataset, site_id, path); ``difference`` = ``|system_rouge1_f - peer_rouge1_f|``; sorted by
        difference descending, then dataset, site_id, path. ``gold`` is the label alternative scored
        against our system's prediction.

    Raises
    ------
    ValueError
        If a column is missing or ``n_pages < 0``.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["a", "a", "p", "p"], "dataset": "d", "site_id": "s",
    ...                    "path": ["1", "2", "1", "2"], "gold": ["X", "Y", "X", "Y"],
    ...                    "prediction": ["X", "Y", "Q", "Y"], "error": "", "rouge1_f": [1.0, 1.0, 0.0, 1.0]})
    >>> find_disagreements(df, "a", "p")[["path", "system_prediction", "peer_prediction", "difference"]
    ...     ].to_dict("records")
    [{'path': '1', 'system_prediction': 'X', 'peer_prediction': 'Q', 'difference': 1.0}, \
{'path': '2', 'system_prediction': 'Y', 'peer_prediction': 'Y', 'difference': 0.0}]
    """
    if n_pages < 0:
        raise ValueError(f"n_pages must be >= 0; got {n_pages}")
    needed = ["system", *_PAGE_KEYS, "gold", "prediction", "error", "rouge1_f"]
    missing = [c for c in needed if c not in per_page.columns]
    if missing:
        raise ValueError(f"per-page table lacks column(s) {', '.join(missing)}; has {list(per_page.columns)}")
    with_url = per_page if "url" in per_page.columns else per_page.assign(url="")
    columns = [*_PAGE_KEYS, "url", "gold", "prediction", "error", "rouge1_f"]
    ours = with_url.loc[with_url["system"] == system, columns]
    theirs = with_url.loc[with_url["system"] == peer, [*_PAGE_KEYS, "prediction", "error", "rouge1_f"]]
    both = ours.merge(theirs, on=_PAGE_KEYS, suffixes=("_system", "_peer"), validate="one_to_one")
    table = pd.DataFrame({
        **{key: both[key] for key in [*_PAGE_KEYS, "url", "gold"]},
        "system": system,
        "system_prediction": both["prediction_system"],
        "system_error": both["error_system"].fillna(""),
        "system_rouge1_f": both["rouge1_f_system"].astype(float),
        "peer": peer,
        "peer_prediction": both["prediction_peer"],
        "peer_error": both["error_peer"].fillna(""),
        "peer_rouge1_f": both["rouge1_f_peer"].astype(float),
    })
    table["difference"] = (table["system_rouge1_f"] - table["peer_rouge1_f"]).abs()
    table = table.sort_values(["difference", *_PAGE_KEYS], ascending=[False, True, True, True], kind="stable")
    return table.head(n_pages).reset_index(drop=True)[DISAGREEMENT_COLUMNS]


def answered_by_table(per_page: pd.DataFrame) -> pd.DataFrame:
    """How each system's test pages were answered, per dataset: the number of pages of each path.

    Parameters
    ----------
    per_page : DataFrame
        Per-page rows with ``dataset``, ``system`` and ``answered_by`` (empty for an error row or a page
        without a prediction, counted as ``none``).

    Returns
    -------
    table : DataFrame
        Columns :data:`ANSWERED_BY_COLUMNS`, one row per (dataset, system) sorted by both: ``n_pages`` test
        pages, a page count per path of :data:`ANSWERED_BY_PATHS`, and ``rendered_share`` the share of the
        pages rendered in Chromium (``rendered`` plus ``scripts``), in [0, 1].

    Raises
    ------
    ValueError
        If a page's ``answered_by`` is not one of :data:`ANSWERED_BY_PATHS`.

    Examples
    --------
    >>> rows = pd.DataFrame({"dataset": "shop", "system": "general-auto", "answered_by": ["static", "slot", ""]})
    >>> answered_by_table(rows)[["n_pages", "static", "slot", "rendered", "none", "rendered_share"]].to_dict("records")
    [{'n_pages': 3, 'static': 1, 'slot': 1, 'rendered': 0, 'none': 1, 'rendered_share': 0.0}]
    """
    paths = per_page["answered_by"].fillna("").replace("", "none")
    unknown = sorted(set(paths) - set(ANSWERED_BY_PATHS))
    if unknown:
        raise ValueError(f"unknown answered_by value(s) {', '.join(unknown)}; expected {', '.join(ANSWERED_BY_PATHS)}")
    counts = (pd.crosstab([per_page["dataset"], per_page["system"]], paths)
              .reindex(columns=ANSWERED_BY_PATHS, fill_value=0).reset_index())
    counts.columns.name = None
    counts.insert(2, "n_pages", counts[ANSWERED_BY_PATHS].sum(axis=1))
    counts["rendered_share"] = (counts["rendered"] + counts["scripts"]) / counts["n_pages"]
    return counts[ANSWERED_BY_COLUMNS].sort_values(["dataset", "system"], ignore_index=True)


def _accuracy_table(per_page: pd.DataFrame, speed: pd.DataFrame, peers: Collection[str], *,
                    n_resamples: int, confidence: float, random_state) -> pd.DataFrame:
    summary = add_ci_columns(summarize(per_page), per_page, n_resamples=n_resamples,
                             confidence=confidence, random_state=random_state)
    interval_columns = [f"{m}_{end}" for m in _TABLE_METRICS for end in ("low", "high")]
    table = summary[["system", "dataset", "n_pages", "n_errors", *_TABLE_METRICS, *interval_columns]]
    table = table.merge(speed[SPEED_COLUMNS], on=["system", "dataset"], how="left", validate="one_to_one")
    table.insert(1, "kind", ["peer" if name in peers else "ours" for name in table["system"]])
    table = table.sort_values(["dataset", "rouge1_f", "system"], ascending=[True, False, True], kind="stable")
    table = table.reset_index(drop=True)
    table.attrs["confidence"] = confidence
    return table


def _display_table(table: pd.DataFrame) -> pd.DataFrame:
    """Strings for reading: ROUGE-1 F1 and exact match with their intervals, speed with one decimal."""
    shown = table.drop(columns=[c for c in table.columns
                                if c.endswith(("_low", "_high")) and not c.startswith(("rouge1_f_", "exact_"))])
    shown = with_intervals(shown, ".3f")
    for column in ("pages_per_s", "peak_rss_mb"):
        shown[column] = ["" if pd.isna(v) else f"{v:.1f}" for v in shown[column]]
    return shown


def _check_inputs(per_page: pd.DataFrame, speed: pd.DataFrame) -> None:
    needed = ["system", *_PAGE_KEYS, "gold", "prediction", "error", *_TABLE_METRICS]
    missing = [c for c in needed if c not in per_page.columns]
    if missing:
        raise ValueError(f"per-page table lacks column(s) {', '.join(missing)}; has {list(per_page.columns)}")
    if per_page.empty:
        raise ValueError("per-page table is empty; nothing to report")
    missing = [c for c in SPEED_COLUMNS if c not in speed.columns]
    if missing:
        raise ValueError(f"speed table lacks column(s) {', '.join(missing)}; has {list(speed.columns)}")
    duplicated = speed.duplicated(["system", "dataset"])
    if duplicated.any():
        first = speed.loc[duplicated, ["system", "dataset"]].iloc[0].tolist()
        raise ValueError(f"speed table has more than one row for system/dataset {first[0]}/{first[1]}")


def _system_colors(systems: list[str]) -> dict[str, tuple]:
    matplotlib, _ = _import_matplotlib()
    cmap = matplotlib.colormaps["tab10" if len(systems) <= 10 else "tab20"]
    return {name: cmap(i % cmap.N) for i, name in enumerate(systems)}


def _plot_f1_bars(table: pd.DataFrame, systems: list[str], peers: Collection[str], stem: Path):
    matplotlib, Figure = _import_matplotlib()
    datasets = sorted(table["dataset"].unique())
    colors = _system_colors(systems)
    width = 0.8 / len(systems)
    figure = Figure(figsize=(max(6.0, 1.0 + 0.45 * len(systems) * len(datasets)), 4.5))
    ax = figure.add_subplot()
    for i, name in enumerate(systems):
        rows = table[table["system"] == name].set_index("dataset").reindex(datasets)
        x = [d + (i - (len(systems) - 1) / 2) * width for d in range(len(datasets))]
        f1 = rows["rouge1_f"].to_numpy(dtype=float)
        low = (f1 - rows["rouge1_f_low"].to_numpy(dtype=float)).clip(min=0)
        high = (rows["rouge1_f_high"].to_numpy(dtype=float) - f1).clip(min=0)
        ax.bar(x, f1, width=width, color=colors[name], edgecolor="black", linewidth=0.5,
               hatch="//" if name in peers else None, label=name + (" (peer)" if name in peers else ""),
               yerr=[low, high], capsize=2, error_kw={"elinewidth": 0.8})
    ax.set_xticks(range(len(datasets)), datasets)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("mean ROUGE-1 F1")
    confidence = table.attrs.get("confidence", 0.95)
    ax.set_title(f"ROUGE-1 F1 per system and dataset ({confidence:.0%} bootstrap intervals)")
    ax.grid(axis="y", linewidth=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)
    return _save_figure(figure, stem)


def _minor_log_label(value: float, _position) -> str:
    """Label the 2 and 5 of each decade on a log axis (``"0.2"``, ``"50"``), leave the others blank."""
    if value <= 0:
        return ""
    leading = round(value / 10 ** math.floor(math.log10(value)))
    return f"{value:g}" if leading in (2, 5) else ""


def _plot_speed_accuracy(table: pd.DataFrame, systems: list[str], peers: Collection[str], stem: Path):
    matplotlib, Figure = _import_matplotlib()
    from matplotlib import ticker
    colors = _system_colors(systems)
    datasets = sorted(table["dataset"].unique())
    markers = dict(zip(datasets, "osD^vP*Xph", strict=False))
    figure = Figure(figsize=(7.5, 5.0))
    ax = figure.add_subplot()
    timed = table[table["pages_per_s"].notna() & (table["pages_per_s"] > 0)]
    for row in timed.itertuples(index=False):
        peer = row.system in peers
        ax.scatter(row.pages_per_s, row.rouge1_f, s=60, marker=markers.get(row.dataset, "o"),
                   facecolors="none" if peer else colors[row.system], edgecolors=colors[row.system],
                   linewidths=1.5, zorder=3)
        ax.annotate(row.system, (row.pages_per_s, row.rouge1_f), xytext=(4, 4), textcoords="offset points",
                    fontsize="x-small")
    if len(timed):
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(ticker.FuncFormatter(_minor_log_label))
    else:
        ax.text(0.5, 0.5, "no speed measurements", ha="center", va="center", transform=ax.transAxes)
    for dataset in datasets:
        ax.scatter([], [], marker=markers.get(dataset, "o"), color="grey", label=dataset)
    ax.scatter([], [], marker="o", facecolors="none", edgecolors="grey", label="peer (hollow)")
    ax.set_xlabel("speed (pages/s, log scale)")
    ax.set_ylabel("mean ROUGE-1 F1")
    ax.set_ylim(0, 1.05)
    ax.set_title("Speed vs accuracy")
    ax.grid(linewidth=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)
    return _save_figure(figure, stem)


def _notes(confidence: float, n_resamples: int, best: str | None, peer: str | None) -> list[str]:
    return [
        "ROUGE-1 P/R/F1 (letter-digit tokens), Jaccard and Dice (token sets) and exact match (normalised "
        "text) compare each page's predicted main entity with its best label alternative, averaged over "
        "labeled pages; a page with an error scores 0 (n_errors).",
        f"[low, high]: {confidence:.0%} percentile bootstrap interval of the mean over pages "
        f"({n_resamples} resamples).",
        "pages_per_s and peak_rss_mb come from the speed table given to the report (prediction of the whole "
        "dataset, rendering included for systems that render).",
        f"Best system ({best or 'none'}) and best peer ({peer or 'none'}): highest mean over datasets of "
        "the per-dataset mean ROUGE-1 F1.",
    ]


def write_benchmark_report(
    per_page: pd.DataFrame,
    speed: pd.DataFrame,
    out_dir: str | os.PathLike,
    *,
    title: str,
    command: str,
    versions: Mapping[str, str],
    peers: Collection[str] = PEER_NAMES,
    n_disagreements: int = 20,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state=0,
    notes: Sequence[str] = (),
    redact_datasets: Collection[str] = (),
) -> dict[str, Path]:
    """Write the benchmark report (Markdown, self-contained HTML, plots, CSVs) into ``out_dir``.

    Parameters
    ----------
    per_page : DataFrame
        Per-page scores of every system on every dataset, as
        :func:`mainentity.evaluation.report.evaluate_predictions` returns them (columns
        :data:`~mainentity.evaluation.report.PER_PAGE_COLUMNS`, at least ``system, dataset, site_id, path,
        gold, prediction, error``, the text metrics ``rouge1_p, rouge1_r, rouge1_f, jaccard, dice, exact``
        and ``h_precision, h_recall, h_f1``).
    speed : DataFrame
        One row per (system, dataset) with :data:`SPEED_COLUMNS`: ``pages_per_s`` (pages/s) and
        ``peak_rss_mb`` (MB). A system/dataset without a row shows no speed and is left out of the
        scatter plot.
    out_dir : path
        Created (with parents) when missing.
    title : str
        First heading of the report.
    command : str
        The command that produced the numbers, shown verbatim.
    versions : mapping of str to str
        Name -> version of each tool and of mainentity (e.g. from
        :func:`mainentity.recognizers.peers.peer_versions`).
    peers : collection of str, optional
        Which systems are peers (hatched bars, hollow markers); every other system is ours.
    n_disagreements : int, optional
        How many pages of largest disagreement to list (default 20).
    n_resamples, confidence, random_state
        Bootstrap settings, as :func:`mainentity.evaluation.bootstrap.bootstrap_ci`.
    notes : sequence of str, optional
        Further notes appended to the report's notes (e.g. systems that were skipped).
    redact_datasets : collection of str, optional
        Datasets whose page texts must not appear (third-party content): their disagreement rows keep
        the page path, the systems and the scores but ``url``, ``gold``, ``system_prediction`` and
        ``peer_prediction`` are replaced by :data:`WITHHELD` (a URL slug often spells the title).

    Returns
    -------
    paths : dict of str to Path
        Keys ``"report"`` (report.md), ``"html"`` (report.html), ``"f1_bars_svg"``, ``"f1_bars_png"``,
        ``"speed_accuracy_svg"``, ``"speed_accuracy_png"``, ``"disagreements"`` (disagreements.csv,
        header only when there is no peer or no system of ours), ``"summary"``
        (benchmark_summary.csv), ``"trust"`` (trust.csv: :func:`~mainentity.evaluation.report.trust_table`
        of the systems whose scores are probabilities, also shown in the report's "Scores" section),
        ``"coverage"`` (coverage.csv: :func:`~mainentity.evaluation.report.coverage_by_group`, the same
        systems), ``"answered_by"`` (answered_by.csv: :func:`answered_by_table` of every system; the report's
        "Answered by" table shows the systems that read some page rendered or statically) and
        ``"scores_<system>"`` (scores-<system>.png, each such system's reliability and coverage curves per
        dataset: :func:`~mainentity.evaluation.figures.plot_scores_by_dataset`).

    Raises
    ------
    ValueError
        If a needed column is missing, ``per_page`` is empty, or ``speed`` has two rows for one
        system/dataset.
    ImportError
        If matplotlib is not installed (the message gives the pip command).

    Notes
    -----
    Every file is written to a temporary file in ``out_dir`` and moved into place with
    :func:`os.replace`; ``report.md`` and ``report.html`` come last, so an interrupted run never leaves a
    report that points at missing figures.
    """
    _check_inputs(per_page, speed)
    matplotlib, _ = _import_matplotlib()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    table = _accuracy_table(per_page, speed, peers, n_resamples=n_resamples, confidence=confidence,
                            random_state=random_state)
    systems = list(rank_systems(per_page).index)
    best, peer = best_systems(per_page, peers)
    if best is not None and peer is not None:
        disagreements = find_disagreements(per_page, best, peer, n_disagreements)
        withheld = disagreements["dataset"].isin(list(redact_datasets))
        # URLs too: a page's URL slug often spells its title.
        disagreements.loc[withheld, ["url", "gold", "system_prediction", "peer_prediction"]] = WITHHELD
    else:
        disagreements = pd.DataFrame(columns=DISAGREEMENT_COLUMNS)

    paths: dict[str, Path] = {}
    with matplotlib.rc_context({"svg.hashsalt": "mainentity", "svg.fonttype": "none"}):
        paths["f1_bars_svg"], paths["f1_bars_png"] = _plot_f1_bars(table, systems, peers, out / "f1_bars")
        paths["speed_accuracy_svg"], paths["speed_accuracy_png"] = _plot_speed_accuracy(
            table, systems, peers, out / "speed_accuracy")
    paths["disagreements"] = out / "disagreements.csv"
    write_text_atomic(paths["disagreements"], disagreements.to_csv(index=False))
    paths["summary"] = out / "benchmark_summary.csv"
    write_text_atomic(paths["summary"], table.to_csv(index=False))
    scores = _scores(per_page, out, paths)
    answered = answered_by_table(per_page)
    paths["answered_by"] = out / "answered_by.csv"
    write_text_atomic(paths["answered_by"], answered.to_csv(index=False))
    answered = answered[answered[["static", "slot", "rendered", "scripts"]].sum(axis=1) > 0]

    notes = [*_notes(confidence, n_resamples, best, peer), *notes]
    untimed = sorted(set(table.loc[table["pages_per_s"].isna(), "system"]))
    if untimed:
        notes.append(f"No speed measurement (left out of the speed plot): {', '.join(untimed)}.")
    versions_table = pd.DataFrame({"tool": list(versions), "version": list(versions.values())})
    shown = _display_table(table)
    datasets = sorted(table["dataset"].unique())
    if best is None or peer is None:
        missing = "no peer" if peer is None else "no system of ours"
        disagreement_intro = f"No comparison: the results have {missing}."
    else:
        disagreement_intro = (
            f"The {len(disagreements)} pages where {best} (our best system) and {peer} (the best peer) "
            f"differ most in ROUGE-1 F1 (also in disagreements.csv, with URLs and error messages)."
        )
    paths["report"] = out / "report.md"
    write_text_atomic(paths["report"], _markdown(title, command, versions_table, shown, datasets,
                                             disagreements, disagreement_intro, notes, scores, answered))
    paths["html"] = out / "report.html"
    write_text_atomic(paths["html"], _html(title, command, versions_table, shown, datasets, disagreements,
                                       disagreement_intro, notes, paths, scores, answered))
    return paths


def _short_disagreements(disagreements: pd.DataFrame) -> pd.DataFrame:
    """The disagreement table for reading: page, gold, both predictions (or their errors) and F1s."""
    def answers(side: str) -> list[str]:
        return [f"(error: {error})" if error else prediction
                for prediction, error in zip(disagreements[f"{side}_prediction"],
                                             disagreements[f"{side}_error"], strict=True)]

    system, peer = disagreements["system"].iloc[0], disagreements["peer"].iloc[0]
    return pd.DataFrame({
        "dataset": disagreements["dataset"],
        "page": disagreements["site_id"] + "/" + disagreements["path"],
        "gold": disagreements["gold"],
        system: answers("system"),
        f"{system} F1": disagreements["system_rouge1_f"].astype(float),
        peer: answers("peer"),
        f"{peer} F1": disagreements["peer_rouge1_f"].astype(float),
    })


#: The abstention thresholds the report's coverage table shows (coverage.csv has them all).
SHOWN_THRESHOLDS = (0.5, 0.7, 0.9, 0.95)


def _scores(per_page: pd.DataFrame, out: Path, paths: dict[str, Path]) -> dict:
    """Write trust.csv, coverage.csv and a scores figure per system with probabilities (added to ``paths``);
    return the report's "Scores" parts: ``trust``, ``coverage`` (kept share / exact among kept, per
    :data:`SHOWN_THRESHOLDS`) and ``figures`` (system -> PNG path)."""
    trust = trust_table(per_page)
    paths["trust"] = out / "trust.csv"
    write_text_atomic(paths["trust"], trust.to_csv(index=False))
    coverage = coverage_by_group(per_page)
    paths["coverage"] = out / "coverage.csv"
    write_text_atomic(paths["coverage"], coverage.to_csv(index=False))
    figures = {}
    probability = per_page[per_page["score_kind"].eq("probability")] if "score_kind" in per_page else per_page[:0]
    for system, rows in probability.groupby("system", sort=True):
        reliability = {dataset: reliability_table(group) for dataset, group in rows.groupby("dataset")}
        curves = {dataset: group for dataset, group in coverage[coverage["system"] == system].groupby("dataset")}
        figures[system] = paths[f"scores_{system}"] = plot_scores_by_dataset(
            reliability, curves, f"{system}: scores on each dataset", out / f"scores-{system}.png")
    shown = coverage[coverage["abstain_below"].isin(SHOWN_THRESHOLDS)]
    cells = shown.assign(cell=[f"{kept:.2f} / {exact:.3f}" for kept, exact in zip(shown["coverage"],
                                                                                 shown["accuracy"], strict=True)])
    table = (cells.pivot(index=["system", "dataset"], columns="abstain_below", values="cell")
             .rename(columns=lambda threshold: f"abstain below {threshold}").reset_index()
             if len(cells) else cells)
    return {"trust": trust, "coverage": table, "figures": figures}


#: What the report says of its coverage table.
COVERAGE_INTRO = ("Abstaining below a threshold (`--abstain-below`): share of the pages still answered / exact "
                  "match among them, per threshold (every threshold in coverage.csv); the figures draw these "
                  "curves beside each dataset's reliability curve.")

#: What the report says of its "Answered by" table.
ANSWERED_BY_INTRO = ("How each system's test pages were answered (answered_by.csv): static = read from the HTML and "
                     "answered by the static model, slot = read through the template's slot locator, rendered = "
                     "rendered in Chromium, scripts = rendered again with its scripts on, none = no answer; "
                     "rendered_share = (rendered + scripts) / n_pages. The systems that read every page's markup "
                     "themselves (html: the peers and baselines) are in answered_by.csv only.")

#: What the report says of its scores table.
TRUST_INTRO = (f"Systems whose score is a probability that the answer is right: ECE (10 bins, against exact "
               f"match), wrong answers scored >= {CERTAIN_SCORE} (count and share of the pages), and what "
               "abstaining below 0.5 keeps (share of pages, exact match among them); also in trust.csv.")


def _markdown(title, command, versions_table, shown, datasets, disagreements, intro, notes, scores, answered) -> str:
    parts = [f"# {title}", "", "Command:", "", "```", command, "```", "", "## Versions", "",
             markdown_table(versions_table), "", "## Accuracy and speed", ""]
    for dataset in datasets:
        rows = shown[shown["dataset"] == dataset].drop(columns=["dataset"])
        parts += [f"### {dataset}", "", markdown_table(rows), ""]
    if len(answered):
        parts += ["## Answered by", "", ANSWERED_BY_INTRO, "", markdown_table(answered), ""]
    if len(scores["trust"]):
        parts += ["## Scores", "", TRUST_INTRO, "", markdown_table(scores["trust"]), "", COVERAGE_INTRO, "",
                  markdown_table(scores["coverage"]), "",
                  *[f"![{system}: scores on each dataset]({path.name})\n"
                    for system, path in scores["figures"].items()]]
    parts += ["## ROUGE-1 F1 per system and dataset", "", "![ROUGE-1 F1 per system and dataset](f1_bars.png)",
              "", "## Speed vs accuracy", "", "![Speed vs accuracy](speed_accuracy.png)", "",
              "## Largest disagreements", "", intro, ""]
    if len(disagreements):
        parts += [markdown_table(_short_disagreements(disagreements)), ""]
    parts += ["## Notes", "", *[f"- {note}" for note in notes], ""]
    return "\n".join(parts)


def _html(title, command, versions_table, shown, datasets, disagreements, intro, notes, paths, scores,
          answered) -> str:
    esc = html.escape
    body = [f"<h1>{esc(title)}</h1>", "<p>Command:</p>", f"<pre>{esc(command)}</pre>",
            "<h2>Versions</h2>", html_table(versions_table), "<h2>Accuracy and speed</h2>"]
    for dataset in datasets:
        rows = shown[shown["dataset"] == dataset].drop(columns=["dataset"])
        body += [f"<h3>{esc(dataset)}</h3>", html_table(rows)]
    if len(answered):
        body += ["<h2>Answered by</h2>", f"<p>{esc(ANSWERED_BY_INTRO)}</p>", html_table(answered)]
    if len(scores["trust"]):
        body += ["<h2>Scores</h2>", f"<p>{esc(TRUST_INTRO)}</p>", html_table(scores["trust"]),
                 f"<p>{esc(COVERAGE_INTRO)}</p>", html_table(scores["coverage"]),
                 *[f'<img alt="{esc(system)}: scores on each dataset" src="{data_uri(path)}">'
                   for system, path in scores["figures"].items()]]
    body += ["<h2>ROUGE-1 F1 per system and dataset</h2>",
             f'<img alt="ROUGE-1 F1 per system and dataset" src="{data_uri(paths["f1_bars_svg"])}">',
             "<h2>Speed vs accuracy</h2>",
             f'<img alt="Speed vs accuracy" src="{data_uri(paths["speed_accuracy_svg"])}">',
             "<h2>Largest disagreements</h2>", f"<p>{esc(intro)}</p>"]
    if len(disagreements):
        body.append(html_table(_short_disagreements(disagreements)))
    body += ["<h2>Notes</h2>", "<ul>", *[f"<li>{esc(note)}</li>" for note in notes], "</ul>"]
    return html_document(title, body)
