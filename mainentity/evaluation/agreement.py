"""Agreement between two annotators: two label files (``manifest.jsonl``) of the same site dump.

``mainentity agreement A B`` matches the pages of two label files by ``path`` and, on every page both
labeled, compares the labels as ``mainentity evaluate`` compares a prediction with its labels
(:mod:`mainentity.evaluation.metrics`): exact match of normalised text, and ROUGE-1 precision, recall
and F1, with A in the place of the prediction and B in the place of the reference (so ROUGE-1
precision of A against B is recall of B against A; F1 and exact are symmetric). A page may have
several acceptable labels on each side; it is scored by the pair of alternatives that agree best
(highest ROUGE-1 F1, then exact match, then file order): two annotators agree when some label of one is
acceptable to the other. Means over the compared pages come with 95% bootstrap intervals
(:func:`mainentity.evaluation.bootstrap.bootstrap_ci`). Pages labeled on one side only, skipped, or
unlabeled on both sides are counted, not scored.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mainentity._files import write_text_atomic
from mainentity.evaluation.bootstrap import bootstrap_ci
from mainentity.evaluation.metrics import score_page
from mainentity.evaluation.report import markdown_table
from mainentity.sitedump import read_manifest

__all__ = ["AGREEMENT_METRICS", "LabelFile", "agreement_per_page", "read_label_file", "write_agreement_report"]

#: The per-page agreement metrics, in report order.
AGREEMENT_METRICS = ("exact", "rouge1_p", "rouge1_r", "rouge1_f")


@dataclass(frozen=True)
class LabelFile:
    """The labels of one label file.

    Attributes
    ----------
    name : str
        How the report names it (its path as given).
    labels : dict of str to tuple of str
        ``path -> labels`` of every valid entry, ``()`` for an unlabeled page.
    skipped : frozenset of str
        Paths marked ``"skipped": true`` (by ``mainentity annotate``).
    n_bad_lines : int
        Lines that are not valid entries (left out, as ``mainentity predict`` leaves them out).
    """

    name: str
    labels: dict[str, tuple[str, ...]]
    skipped: frozenset[str] = frozenset()
    n_bad_lines: int = 0


def read_label_file(file: str | os.PathLike) -> LabelFile:
    """Read a label file (a ``manifest.jsonl``, :func:`mainentity.sitedump.read_manifest`).

    Raises
    ------
    FileNotFoundError
        If the file does not exist or is a directory.
    mainentity.sitedump.PageReadError
        If it is not UTF-8.
    """
    path = Path(file)
    if not path.is_file():
        what = "is a directory, not a label file (name its manifest.jsonl)" if path.is_dir() else "does not exist"
        raise FileNotFoundError(f"label file {str(path)!r} {what}")
    entries, failures = read_manifest(path, path.parent.name)
    return LabelFile(
        str(file),
        {entry["path"]: tuple(entry.get("main_entity", ())) for entry in entries},
        frozenset(entry["path"] for entry in entries if entry.get("skipped") is True),
        len(failures),
    )


def agreement_per_page(
    labels_a: Mapping[str, Sequence[str]], labels_b: Mapping[str, Sequence[str]]
) -> pd.DataFrame:
    """Score the agreement of two annotators on every page both labeled.

    Parameters
    ----------
    labels_a, labels_b : mapping of str to sequence of str
        ``path -> labels`` of each annotator; an empty sequence means unlabeled.

    Returns
    -------
    per_page : DataFrame of shape (n_pages_both, 7)
        Columns ``path``, ``label_a``, ``label_b`` (the pair of alternatives that agree best) and
        :data:`AGREEMENT_METRICS` in [0, 1]; rows in the order of ``labels_a``.

    Examples
    --------
    >>> df = agreement_per_page({"a": ["Ashgrove Kettle", "Kettle"], "b": ["Garden"], "c": ["X"]},
    ...                         {"a": ["ashgrove kettle"], "b": ["Garden - Harbor Lane"], "c": []})
    >>> df[["path", "label_a", "exact", "rouge1_f"]].round(3).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'path': 'a', 'label_a': 'Ashgrove Kettle', 'exact': 1.0, 'rouge1_f': 1.0},
     {'path': 'b', 'label_a': 'Garden', 'exact': 0.0, 'rouge1_f': 0.5}]
    """
    rows = []
    for path, alternatives_a in labels_a.items():
        alternatives_b = tuple(labels_b.get(path, ()))
        if not alternatives_a or not alternatives_b:
            continue
        best = None
        for label_a in alternatives_a:
            scores = score_page(label_a, alternatives_b)
            key = (scores["rouge1_f"], scores["exact"])
            if best is None or key > best[0]:
                best = (key, label_a, scores)
        _, label_a, scores = best
        rows.append({"path": path, "label_a": label_a, "label_b": scores["best_label"],
                     **{metric: scores[metric] for metric in AGREEMENT_METRICS}})
    return pd.DataFrame(rows, columns=["path", "label_a", "label_b", *AGREEMENT_METRICS])


def _counts(a: LabelFile, b: LabelFile) -> dict[str, int]:
    paths = list(dict.fromkeys([*a.labels, *b.labels]))
    labeled_a = {path for path in paths if a.labels.get(path)}
    labeled_b = {path for path in paths if b.labels.get(path)}
    return {
        "n_pages": len(paths),
        "n_compared": len(labeled_a & labeled_b),
        "n_only_a": len(labeled_a - labeled_b),
        "n_only_b": len(labeled_b - labeled_a),
        "n_neither": len(set(paths) - labeled_a - labeled_b),
        "n_skipped_a": len(a.skipped - labeled_a),
        "n_skipped_b": len(b.skipped - labeled_b),
    }


def write_agreement_report(
    file_a: str | os.PathLike, file_b: str | os.PathLike, out_dir: str | os.PathLike, *, random_state: int = 0
) -> dict:
    """Compare two label files of one site dump; write ``report.md``, ``per_page.csv`` and ``summary.csv``.

    Parameters
    ----------
    file_a, file_b : path
        The two label files (``manifest.jsonl`` of two copies of the dump, one per annotator).
    out_dir : path
        Created when missing; files are written atomically.
    random_state : int, default 0
        Seed of the bootstrap intervals.

    Returns
    -------
    summary : dict
        The page counts (``n_pages``, ``n_compared``, ``n_only_a``, ``n_only_b``, ``n_neither``,
        ``n_skipped_a``, ``n_skipped_b``: skipped and unlabeled), and per metric of :data:`AGREEMENT_METRICS`
        its mean over the compared pages with ``<metric>_low`` / ``<metric>_high``.

    Raises
    ------
    FileNotFoundError
        If a file does not exist.
    ValueError
        If the two files share no page path (not label files of the same dump).
    """
    a, b = read_label_file(file_a), read_label_file(file_b)
    if not set(a.labels) & set(b.labels):
        raise ValueError(f"{a.name} and {b.name} share no page path: they are not label files of the same site dump")
    per_page = agreement_per_page(a.labels, b.labels)
    summary: dict = _counts(a, b)
    for metric in AGREEMENT_METRICS:
        values = per_page[metric].to_numpy(dtype=float)
        mean = float(values.mean()) if len(values) else float("nan")
        low, high = bootstrap_ci(values, random_state=random_state) if len(values) else (float("nan"),) * 2
        summary.update({metric: mean, f"{metric}_low": low, f"{metric}_high": high})

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "per_page.csv", per_page.to_csv(index=False))
    write_text_atomic(out / "summary.csv", pd.DataFrame([summary]).to_csv(index=False))
    metrics_table = pd.DataFrame([
        {"metric": metric, "mean": summary[metric],
         "95% interval": "" if summary["n_compared"] == 0 else
         f"[{summary[f'{metric}_low']:.3f}, {summary[f'{metric}_high']:.3f}]"}
        for metric in AGREEMENT_METRICS
    ])
    counts_table = pd.DataFrame([{key: value for key, value in summary.items() if key.startswith("n_")}])
    disagreements = per_page[per_page["exact"] < 1.0].sort_values("rouge1_f", kind="stable")
    notes = [
        "A stands in the place of the prediction and B of the reference: rouge1_p is the share of A's tokens "
        "that B's label has, rouge1_r the share of B's tokens that A's label has; exact and rouge1_f are "
        "symmetric.",
        "Each page is scored by the pair of alternatives that agree best (highest ROUGE-1 F1, then exact match).",
        "Pages labeled on one side only, skipped, or unlabeled on both are counted, not scored; "
        f"bad lines left out: {a.n_bad_lines} in A, {b.n_bad_lines} in B.",
    ]
    report = (
        f"# Label agreement\n\n- A: `{a.name}`\n- B: `{b.name}`\n\n## Pages\n\n{markdown_table(counts_table)}\n\n"
        f"## Agreement on the {summary['n_compared']} pages both labeled\n\n{markdown_table(metrics_table)}\n\n"
        f"## Pages where the labels differ ({len(disagreements)})\n\n"
        + (markdown_table(disagreements) if len(disagreements) else "None.")
        + "\n\n## Notes\n\n" + "\n".join(f"- {note}" for note in notes) + "\n"
    )
    write_text_atomic(out / "report.md", report)
    return summary
