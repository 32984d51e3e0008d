"""Write prediction rows as pages finish, so an interrupted run loses nothing and can resume.

Beside an output file a sidecar ``<output>.model.json`` records the model that wrote its rows (name,
directory, digest of the model file); resuming the output with another model is refused, since its rows
would mix two models' answers. ``evaluate`` records the model of a report's ``per_page.csv`` the same way.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sys
from pathlib import Path

from mainentity._files import check_writable, json_line
from mainentity.records import Prediction

#: Columns of a prediction row, in order.
COLUMNS = ("site_id", "path", "url", "main_entity", "score", "x", "y", "width", "height", "error", "answered_by",
           "best_candidate", "score_kind")
#: The output that stands for standard output (JSON Lines, never resumed).
STDOUT = "-"


def prediction_row(prediction: Prediction) -> dict:
    """One output row: identity, answer, score, bounding box (CSS px), error ("" when fine), how the page
    was answered (``rendered``, ``scripts`` when rendered again with its scripts on, ``slot`` or ``static``; see
    :attr:`mainentity.records.Prediction.answered_by`), the best
    candidate's text (the answer, or on a row that abstained, ``main_entity`` empty and the score below the
    model's ``abstain_below``, the text it would have given) and what the score is (``probability`` or
    ``raw``: :attr:`mainentity.records.Prediction.score_kind`).

    >>> prediction_row(Prediction("s", "a.html", "u", "Name", 0.5, (1.0, 2.0, 3.0, 4.0)))["height"]
    4.0
    >>> prediction_row(Prediction("s", "a.html", "u", "", 0.2, candidates=("Name", "Home")))["best_candidate"]
    'Name'
    """
    x, y, width, height = prediction.bbox if prediction.bbox is not None else (None,) * 4
    score = None if math.isnan(prediction.score) else prediction.score
    return {
        "site_id": prediction.site_id,
        "path": prediction.path,
        "url": prediction.url,
        "main_entity": prediction.main_entity,
        "score": score,
        "x": x,
        "y": y,
        "width": width,
        "height": height,
        "error": prediction.error,
        "answered_by": prediction.answered_by,
        "best_candidate": prediction.best_candidate,
        "score_kind": prediction.score_kind,
    }


class Interrupted(KeyboardInterrupt):
    """Ctrl-C while rows were being written: how many this run wrote, and where (they are kept, each
    flushed as written, so the same command resumes after them).

    Attributes
    ----------
    n_written : int
    output : str
        The output file, ``-`` for standard output.
    """

    def __init__(self, n_written: int, output: str | Path):
        super().__init__(n_written, str(output))
        self.n_written, self.output = n_written, str(output)


class PredictionWriter:
    """Append prediction rows to a ``.jsonl`` or ``.csv`` file, flushing each row.

    Opening an existing file resumes it: :attr:`done` holds the ``(site_id, path)`` of the rows already
    there (a partial last line left by a killed run is dropped), and new rows are appended.

    Parameters
    ----------
    path : str or Path
        Output file; its suffix (``.jsonl`` or ``.csv``) chooses the format.
    retry_errors : bool, default False
        Remove the rows that have an ``error`` from an existing file (rewritten atomically), so their
        pages are not in :attr:`done` and get predicted again.
    model : dict, optional
        Who writes the rows (:func:`model_identity`): recorded in the sidecar ``<path>.model.json``;
        an existing output with rows whose sidecar names another model (another digest), or that has no
        sidecar (its rows' model is unknown), is refused.
    overwrite : bool, default False
        Start the file afresh instead of resuming it.

    Raises
    ------
    ValueError
        If the suffix is neither ``.jsonl`` nor ``.csv`` (``-``: JSON Lines to standard output), or the
        output holds rows of another model or of an unknown one.
    """

    def __init__(self, path: str | Path, *, retry_errors: bool = False, model: dict | None = None,
                 overwrite: bool = False):
        self.to_stdout = str(path) == STDOUT
        self.path = Path(path)
        self.format = "jsonl" if self.to_stdout else self.path.suffix.lower().lstrip(".")
        check_output_path(path)
        self.retry_errors = retry_errors
        self.done: set[tuple[str, str]] = set()
        if self.to_stdout:
            self._file, self._csv = sys.stdout, None
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if overwrite:
            self.path.unlink(missing_ok=True)
        if model is not None:
            check_same_model(self.path, model)
        has_rows = self._load_done() if self.path.exists() else False
        if model is not None:
            record_model(self.path, model)
        self._file = self.path.open("a", encoding="utf-8", newline="")
        self._csv = csv.DictWriter(self._file, fieldnames=COLUMNS) if self.format == "csv" else None
        if self._csv is not None and not has_rows:
            self._csv.writeheader()
            self._file.flush()

    def _load_done(self) -> bool:
        """Read the rows already written; cut a partial last line. Returns whether a header exists."""
        if not self.path.is_file():
            raise ValueError(f"output {self.path} exists and is not a file")
        try:
            with self.path.open(encoding="utf-8", newline="") as file:  # a "\r" in a CSV field stays one
                text = file.read()
        except UnicodeDecodeError as error:
            raise ValueError(f"output {self.path} exists and is not a predictions file: {error}") from error
        if text and not text.endswith("\n"):
            text = text[: text.rfind("\n") + 1]
            with self.path.open("w", encoding="utf-8", newline="") as file:
                file.write(text)
        try:
            if self.format == "jsonl":
                rows = [_json_row(line, number) for number, line in enumerate(text.split("\n"), 1) if line.strip()]
            else:
                reader = csv.DictReader(io.StringIO(text, newline=""))
                header = tuple(reader.fieldnames or ())
                if text and 0 < len(header) < len(COLUMNS) and header == COLUMNS[:len(header)]:
                    raise ValueError(f"it was written by an older mainentity, without the "
                                     f"{', '.join(COLUMNS[len(header):])} column(s); write to a new output file")
                if text and tuple(reader.fieldnames or ()) != COLUMNS:
                    raise ValueError(f"its header is {reader.fieldnames}, not {list(COLUMNS)}")
                rows = list(reader)
            self.done.update((row["site_id"], row["path"]) for row in rows if not self._drops(row))
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(
                f"output {self.path} exists and is not a predictions file ({error}); choose another output"
            ) from error
        if self.retry_errors and any(self._drops(row) for row in rows):
            self._rewrite([row for row in rows if not self._drops(row)])
        return bool(text)

    def _drops(self, row: dict) -> bool:
        return self.retry_errors and bool(row.get("error"))

    def _rewrite(self, rows: list[dict]) -> None:
        """Replace the file by ``rows`` (temporary file, then a rename: a kill leaves the old or new file)."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        with tmp.open("w", encoding="utf-8", newline="") as file:
            if self.format == "csv":
                writer = csv.DictWriter(file, fieldnames=COLUMNS)
                writer.writeheader()
                writer.writerows(rows)
            else:
                file.writelines(json_line(row) + "\n" for row in rows)
        os.replace(tmp, self.path)

    def write(self, prediction: Prediction) -> None:
        """Append one row and flush it to the operating system."""
        row = prediction_row(prediction)
        if self._csv is not None:
            self._csv.writerow(row)
        else:
            self._file.write(json_line(row) + "\n")
        self._file.flush()
        self.done.add((prediction.site_id, prediction.path))

    def close(self) -> None:
        """Close the file (standard output stays open)."""
        if not self.to_stdout:
            self._file.close()

    def __enter__(self) -> PredictionWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _json_row(line: str, number: int) -> dict:
    """One JSON Lines row; a line that is not JSON raises ValueError naming its line ``number`` (1-based)."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"line {number}: {error.msg} at column {error.colno}") from error


def check_output_path(path: str | Path) -> None:
    """Refuse an output that :class:`PredictionWriter` cannot write, before any slow work.

    >>> check_output_path("out.txt")
    Traceback (most recent call last):
    ...
    ValueError: output out.txt must end in .jsonl or .csv (or be -, standard output); got '.txt'
    """
    if str(path) == STDOUT:
        return
    path = Path(path)
    if path.suffix.lower() not in (".jsonl", ".csv"):
        raise ValueError(f"output {path} must end in .jsonl or .csv (or be -, standard output); got {path.suffix!r}")
    check_writable(path, wanted="a .jsonl or .csv file")


def model_sidecar(path: str | Path) -> Path:
    """Where the model that wrote an output is recorded: ``<output>.model.json``.

    >>> model_sidecar("runs/out.jsonl").name
    'out.jsonl.model.json'
    """
    path = Path(path)
    return path.with_name(path.name + ".model.json")


def model_identity(name: str, directory: str | Path, model_file: str | Path, abstain_below: float | None = None,
                   ) -> dict:
    """The record of a model in an output's sidecar: its name, directory and the SHA-256 of its model file
    (the first 16 hex digits), and the probability below which it abstains when it has one (the model's
    ``abstain_below`` or ``--abstain-below``: rows of two thresholds must not share a file)."""
    import hashlib

    digest = hashlib.sha256(Path(model_file).read_bytes()).hexdigest()[:16]
    record = {"model": name, "directory": str(directory), "digest": digest}
    return record if abstain_below is None else {**record, "abstain_below": float(abstain_below)}


def record_model(path: str | Path, model: dict) -> None:
    """Write ``model`` (:func:`model_identity`) into the sidecar of ``path`` (:func:`model_sidecar`)."""
    model_sidecar(path).write_text(json.dumps(model, indent=2) + "\n", encoding="utf-8")


def check_same_model(path: str | Path, model: dict) -> None:
    """Refuse to resume or replace ``path`` when it has rows and its sidecar records a model other than
    ``model``, or records none (a file of an older mainentity, or of another program: its rows' model is
    unknown), or another ``abstain_below`` than ``model``'s (a sidecar that records none, of an older
    mainentity, is taken as it is).

    Raises
    ------
    ValueError
        Naming both models (or the missing record) and what to do: another output, or ``--overwrite``.
    """
    path = Path(path)
    sidecar = model_sidecar(path)
    if not path.is_file():
        return
    with path.open("rb") as file:
        n_lines = sum(1 for line in file if line.strip())
    if n_lines <= (1 if path.suffix.lower() == ".csv" else 0):  # no row yet (a CSV's header at most)
        return
    what_to_do = "write to another output (-o), or add --overwrite to replace it"
    try:
        written_by = json.loads(sidecar.read_text(encoding="utf-8"))
        if not isinstance(written_by, dict) or "digest" not in written_by:
            raise ValueError(f"{sidecar.name} names no model digest")
    except FileNotFoundError:
        raise ValueError(f"{path} holds rows of an unknown model (no {sidecar.name} beside it records which model "
                         f"wrote them); this run uses {model['model']!r}: {what_to_do}") from None
    except (OSError, ValueError) as error:
        raise ValueError(f"{path} holds rows of an unknown model ({sidecar} is unreadable: {error}); this run "
                         f"uses {model['model']!r}: {what_to_do}") from error
    if written_by.get("digest") != model["digest"]:
        raise ValueError(
            f"{path} holds rows of the model {written_by.get('model')!r} ({written_by.get('directory')}, "
            f"digest {written_by.get('digest')}); this run uses {model['model']!r} (digest {model['digest']}): "
            f"{what_to_do}"
        )
    if "abstain_below" in written_by and written_by["abstain_below"] != model.get("abstain_below"):
        raise ValueError(
            f"{path} holds rows that abstain below {written_by['abstain_below']}; this run abstains below "
            f"{model.get('abstain_below', 'nothing')}: give --abstain-below {written_by['abstain_below']} to resume "
            f"it, or {what_to_do}"
        )
