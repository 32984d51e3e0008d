"""Answers of the benchmark's stateless systems kept between runs: a peer's title of a page depends only on the
page's HTML and the tool's version, so a rerun of the cross-site protocol (every change to the model reruns it)
need not run five title extractors over 3000 pages again.

One JSON Lines file per (dataset label, system) under ``<runs_dir>/<benchmark name>/peer_answers/``: a header
line with the tool's version and the speed measured when the answers were made, then one line per page with the
SHA-1 of its HTML. Answers are reused only when the version and every test page's digest match.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from pathlib import Path

from mainentity._files import write_text_atomic
from mainentity.records import Page, Prediction

__all__ = ["load_answers", "save_answers"]


def _digest(page: Page) -> str:
    return hashlib.sha1(page.html.encode("utf-8", "surrogatepass")).hexdigest()


def _path(root: Path, dataset: str, system: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{dataset}--{system}")
    return root / f"{safe}.jsonl"


def save_answers(root: str | Path, dataset: str, system: str, version: str, pages: Sequence[Page],
                 predictions: Sequence[Prediction], speed: dict) -> Path:
    """Keep a stateless system's predictions of ``pages`` (one per page, in order) with the speed measured.

    Parameters
    ----------
    root : path
        The answers' directory (created when missing).
    dataset, system, version : str
        The benchmark's dataset label, the system's label and its tool's version.
    pages, predictions : sequence
        The test pages and the system's predictions, as many, in the same order.
    speed : dict
        The speed row measured while predicting (``pages_per_s``, ``peak_rss_mb``, ...).

    Returns
    -------
    path : Path
        The file written (atomically).

    Raises
    ------
    ValueError
        If ``pages`` and ``predictions`` differ in length.
    """
    if len(pages) != len(predictions):
        raise ValueError(f"one prediction per page; got {len(predictions)} for {len(pages)} pages")
    lines = [json.dumps({"version": version, "speed": {k: v for k, v in speed.items() if not _is_nan(v)}},
                        ensure_ascii=True)]
    for page, prediction in zip(pages, predictions, strict=True):
        lines.append(json.dumps({"site_id": page.site_id, "path": page.path, "sha1": _digest(page),
                                 "main_entity": prediction.main_entity, "score": None if _is_nan(prediction.score)
                                 else prediction.score, "error": prediction.error,
                                 "score_kind": prediction.score_kind, "answered_by": prediction.answered_by},
                                ensure_ascii=True))
    path = _path(Path(root), dataset, system)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, "\n".join(lines) + "\n")
    return path


def load_answers(root: str | Path, dataset: str, system: str, version: str,
                 pages: Sequence[Page]) -> tuple[list[Prediction], dict] | None:
    """The kept predictions of ``pages`` (their answer, score, error and ``answered_by``) and the speed row, or
    ``None`` when any page or the version differs, or the file is from before ``answered_by`` was kept.

    >>> import tempfile
    >>> page = Page("s", "a.html", "https://s.example/a", "<title>Tin</title>")
    >>> root = tempfile.mkdtemp()
    >>> _ = save_answers(root, "d", "peer", "peer 1.0", [page], [Prediction("s", "a.html", page.url, "Tin")],
    ...                  {"pages_per_s": 10.0})
    >>> predictions, speed = load_answers(root, "d", "peer", "peer 1.0", [page])
    >>> predictions[0].main_entity, speed["pages_per_s"]
    ('Tin', 10.0)
    >>> load_answers(root, "d", "peer", "peer 1.1", [page]) is None  # another version answers anew
    True
    """
    path = _path(Path(root), dataset, system)
    try:
        header, *rows = (json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line)
    except (OSError, ValueError):
        return None
    if header.get("version") != version:
        return None
    by_key = {(row["site_id"], row["path"]): row for row in rows}
    predictions = []
    for page in pages:
        row = by_key.get((page.site_id, page.path))
        # a file kept before answered_by was kept is answered anew
        if row is None or row["sha1"] != _digest(page) or "answered_by" not in row:
            return None
        score = float("nan") if row["score"] is None else row["score"]
        predictions.append(Prediction(page.site_id, page.path, page.url, row["main_entity"], score,
                                      error=row["error"], score_kind=row["score_kind"],
                                      answered_by=row["answered_by"]))
    return predictions, header.get("speed", {})


def _is_nan(value) -> bool:
    return isinstance(value, float) and math.isnan(value)
