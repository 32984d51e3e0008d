"""The labels of a site dump's ``manifest.jsonl``, read and changed one page at a time.

``mainentity annotate`` stores what a person decides about a page in the page's manifest line
(format: ``datasets/README.md``): ``main_entity`` (the acceptable labels, whitespace-collapsed),
``label_in_page`` (recomputed whenever the labels change, as :func:`mainentity.sitedump.label_in_page`
defines it) and ``"skipped": true`` on a page the person passed over (the key is absent otherwise).
A page counts as *labeled* when it has labels, else as *skipped* when marked so, else as *left*.

Every change is a read-modify-write of one page's line under an exclusive lock (the hidden file
``.manifest.jsonl.lock`` beside the manifest, through the ``filelock`` package), re-reading the
manifest from disk each time, so two browser tabs, or two ``annotate`` processes, on the same dump
never drop each other's changes. Each page state has a version (a digest of its labels and skipped
flag); a change names the version it was made from, and is refused with :class:`LabelConflict` when
the page changed since, so one tab never overwrites labels it has not seen. The new manifest is
written to a temporary file, flushed to disk and renamed over the old one, keeping its permission bits
(:func:`mainentity._files.write_text_atomic`): a crash or Ctrl-C leaves the old manifest or
the new one, and at worst a hidden ``.manifest.jsonl.*.tmp`` file, which the next session removes
(:meth:`ManifestLabels.remove_temporary_files`). Every other line is kept byte for byte (bad lines and
duplicates included), and the changed line keeps its other fields and their order. A lock file that is
not a regular file (a symbolic link, which is never followed, or a directory) is refused with
:class:`LockFileError`.

A dump without a manifest gets one on the first change, listing every page file of the dump
(:func:`mainentity.sitedump.find_page_files`, unreadable ones included, but not those whose name is
not UTF-8) with ``main_entity: []``,
so that the dump keeps the same pages for ``predict`` (with a manifest, the pages it lists are the
dump). Those lines carry no ``url``: a page's URL is then found as before (its ``<base href>`` or its
file URI).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from mainentity._files import json_line, write_text_atomic
from mainentity.sitedump import (
    MANIFEST_NAME,
    MAX_MANIFEST_BYTES,
    PageReadError,
    escaped_name,
    find_page_files,
    manifest_entry_problem,
    page_key,
    read_page_bytes,
)
from mainentity.text import collapse_whitespace

logger = logging.getLogger(__name__)

__all__ = ["LOCK_NAME", "LabelConflict", "LabelState", "LockFileError", "ManifestLabels", "clean_labels"]

#: The lock file beside the manifest (hidden, so never read as a page of the dump).
LOCK_NAME = f".{MANIFEST_NAME}.lock"
#: Most labels one page may have, and the longest label (characters): a guard against junk requests.
MAX_LABELS = 20
MAX_LABEL_CHARS = 2000


@dataclass(frozen=True)
class LabelState:
    """What the manifest says about one page.

    Attributes
    ----------
    main_entity : tuple of str
        The acceptable labels; empty when the page has none.
    skipped : bool
        The page was passed over (``"skipped": true`` in its line).
    """

    main_entity: tuple[str, ...] = ()
    skipped: bool = False

    @property
    def version(self) -> str:
        """16 hex digits naming this state: a change made from another version is a conflict.

        >>> LabelState(("A",)).version == LabelState(("A",)).version != LabelState(("A",), True).version
        True
        """
        state = json.dumps([list(self.main_entity), self.skipped], ensure_ascii=False)
        return hashlib.sha256(state.encode("utf-8")).hexdigest()[:16]

    @property
    def status(self) -> str:
        """``"labeled"``, ``"skipped"`` or ``"left"`` (labels win over the skipped mark).

        >>> LabelState(("A",), skipped=True).status, LabelState(skipped=True).status, LabelState().status
        ('labeled', 'skipped', 'left')
        """
        return "labeled" if self.main_entity else "skipped" if self.skipped else "left"


class LabelConflict(Exception):
    """A change was made from a version of the page that is no longer the one on disk.

    Attributes
    ----------
    path : str
        The page.
    current : LabelState
        Its state on disk now.
    """

    def __init__(self, path: str, current: LabelState) -> None:
        super().__init__(f"{path}: the labels changed since they were read (another tab or process); "
                         "read them again")
        self.path = path
        self.current = current


class LockFileError(OSError):
    """The lock file beside the manifest cannot be used (a symbolic link, a directory, unreadable); the
    message names it and says to remove it."""


def clean_labels(labels: Iterable[str]) -> tuple[str, ...]:
    """Labels as the manifest stores them: whitespace-collapsed, empty ones and repeats dropped.

    Parameters
    ----------
    labels : iterable of str

    Returns
    -------
    labels : tuple of str
        In the given order.

    Raises
    ------
    ValueError
        If an item is not a string, a label is longer than :data:`MAX_LABEL_CHARS` characters or holds a
        control character other than white space (a NUL: page text never has one), or there are more
        than :data:`MAX_LABELS` labels.

    Examples
    --------
    >>> clean_labels(["  Ashgrove\\n Kettle ", "", "Ashgrove Kettle", "Kettle"])
    ('Ashgrove Kettle', 'Kettle')
    >>> clean_labels(["Ash\\x00grove"])
    Traceback (most recent call last):
    ...
    ValueError: a label may not hold a control character (U+0000); no page text has one
    """
    cleaned: dict[str, None] = {}
    for label in labels:
        if not isinstance(label, str):
            raise ValueError(f"a label must be a string; got {type(label).__name__}")
        if len(label) > MAX_LABEL_CHARS:
            raise ValueError(f"a label is at most {MAX_LABEL_CHARS} characters; got {len(label)}")
        if control := next((char for char in label if unicodedata.category(char) == "Cc" and not char.isspace()),
                           None):
            raise ValueError(f"a label may not hold a control character (U+{ord(control):04X}); no page text has one")
        label = collapse_whitespace(label)
        if label:
            cleaned[label] = None
    if len(cleaned) > MAX_LABELS:
        raise ValueError(f"a page has at most {MAX_LABELS} labels; got {len(cleaned)}")
    return tuple(cleaned)


def _state_of(entry: dict) -> LabelState:
    return LabelState(tuple(entry.get("main_entity", ())), entry.get("skipped") is True)


class ManifestLabels:
    """Read and change the labels of a site dump's pages in its ``manifest.jsonl`` (module docstring).

    Parameters
    ----------
    site_dir : str or Path
        The site dump directory.
    lock_timeout_s : float, default 10
        Seconds to wait for the lock before a change fails.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "a.html").write_text("<h1>Ashgrove Kettle</h1>")
    ...     labels = ManifestLabels(tmp)
    ...     state = labels.write("a.html", ["Ashgrove Kettle"], False, LabelState().version,
    ...                          label_in_page=True)
    ...     line = (Path(tmp) / "manifest.jsonl").read_text()
    >>> line
    '{"path": "a.html", "main_entity": ["Ashgrove Kettle"], "label_in_page": true}\\n'
    """

    def __init__(self, site_dir: str | Path, *, lock_timeout_s: float = 10.0) -> None:
        self.site_dir = Path(site_dir)
        self.manifest = self.site_dir / MANIFEST_NAME
        self.lock_timeout_s = lock_timeout_s

    def check_lock_file(self) -> Path:
        """The lock file's path, when it is a regular file or does not exist yet.

        Raises
        ------
        LockFileError
            If it is a symbolic link (the lock would be taken on its target, wherever that is), another
            kind of file, or cannot be looked at.
        """
        path = self.site_dir / LOCK_NAME
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return path
        except OSError as error:
            raise LockFileError(f"{path}: the lock file cannot be used ({error.strerror or error})") from error
        if not stat.S_ISREG(mode):
            kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
            raise LockFileError(f"{path}: the lock file is {kind}; remove it (no annotate may be running)")
        return path

    def _lock(self, timeout_s: float) -> FileLock:
        """The manifest's lock, acquired (release it).

        Raises
        ------
        LockFileError
            If the lock file is not a regular file or cannot be opened.
        TimeoutError
            If it is not free within ``timeout_s`` seconds.
        """
        path = self.check_lock_file()
        lock = FileLock(path, timeout=timeout_s)
        try:
            lock.acquire()
        except Timeout as error:
            raise TimeoutError(f"{self.manifest}: locked by another process for over {timeout_s:g} s "
                               f"(lock file {LOCK_NAME})") from error
        except OSError as error:
            raise LockFileError(f"{path}: the lock file cannot be used ({error.strerror or error}); remove it "
                                "(no annotate may be running)") from error
        return lock

    def remove_temporary_files(self) -> list[str]:
        """Remove the temporary files a killed writer left beside the manifest (``.manifest.jsonl.*.tmp``),
        under the lock, so no write under way loses its file.

        Returns
        -------
        removed : list of str
            Their names; none when the lock is held elsewhere for over ``lock_timeout_s`` (a later
            session removes them).

        Raises
        ------
        LockFileError
            If the lock file cannot be used.
        """
        try:
            lock = self._lock(self.lock_timeout_s)
        except TimeoutError:
            return []
        try:
            removed = sorted(path.name for path in self.site_dir.glob(f".{MANIFEST_NAME}.*.tmp") if path.is_file())
            for name in removed:
                (self.site_dir / name).unlink(missing_ok=True)
        finally:
            lock.release()
        if removed:
            logger.info("removed %d temporary files a killed writer left: %s", len(removed), ", ".join(removed))
        return removed

    def _lines(self) -> list[str]:
        """The manifest's lines with their line endings (split at ``\\n`` only, so every byte is kept);
        for a dump without one, the lines it gets."""
        try:
            text = read_page_bytes(self.manifest, MAX_MANIFEST_BYTES).decode("utf-8")
        except FileNotFoundError:
            paths = [file.relative_to(self.site_dir).as_posix() for file in find_page_files(self.site_dir)]
            return [json_line({"path": path, "main_entity": []}) + "\n" for path in paths
                    if escaped_name(path) == path]  # a name that is not UTF-8 is never a page
        except UnicodeDecodeError as error:
            raise PageReadError(f"{self.manifest}: not UTF-8 ({error}); a manifest is UTF-8 JSON lines") from error
        lines = [line + "\n" for line in text.split("\n")]
        lines[-1] = lines[-1][:-1]
        return lines if lines[-1] else lines[:-1]

    @staticmethod
    def _index(lines: list[str]) -> dict[str, tuple[int, dict]]:
        """``path -> (line number, entry)`` of the valid entries, by their normalised path
        (:func:`mainentity.sitedump.page_key`), the first of a path winning (as
        :func:`mainentity.sitedump.read_site_dump` reads them)."""
        found: dict[str, tuple[int, dict]] = {}
        seen: set[str] = set()
        for number, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                continue
            if not manifest_entry_problem(entry, seen):
                seen.add(page_key(entry["path"]))
                found[page_key(entry["path"])] = (number, entry)
        return found

    def read(self) -> dict[str, LabelState]:
        """The state of every page the manifest lists, read from disk now (``{}`` without a manifest).

        Raises
        ------
        mainentity.sitedump.PageReadError
            If the manifest is not UTF-8, not a regular file or over :data:`mainentity.sitedump.MAX_MANIFEST_BYTES`.
        """
        if not self.manifest.is_file():
            return {}
        return {path: _state_of(entry) for path, (_, entry) in self._index(self._lines()).items()}

    def write(
        self,
        path: str,
        main_entity: Iterable[str],
        skipped: bool,
        expected_version: str,
        *,
        label_in_page: bool | None = None,
    ) -> LabelState:
        """Set one page's labels and skipped mark, if the page is still at ``expected_version``.

        Parameters
        ----------
        path : str
            The page's path relative to the dump, as the manifest names it (the caller checks that it
            is a page of the dump).
        main_entity : iterable of str
            The new labels (cleaned by :func:`clean_labels`); empty to remove them.
        skipped : bool
            Mark the page skipped (``"skipped": true``) or remove the mark. A page with labels is never
            marked: skipping a labeled page keeps its labels, and it counts as labeled.
        expected_version : str
            :attr:`LabelState.version` of the state the change was made from (a page the manifest does
            not list has the version of ``LabelState()``).
        label_in_page : bool, optional
            Stored as the line's ``label_in_page`` when given.

        Returns
        -------
        state : LabelState
            The page's new state.

        Raises
        ------
        LabelConflict
            If the page's state on disk is not at ``expected_version``; nothing is written.
        ValueError
            If the labels are not valid (:func:`clean_labels`).
        TimeoutError
            If the lock is not free within ``lock_timeout_s`` seconds.
        LockFileError
            If the lock file cannot be used (an ``OSError``).
        OSError
            If the manifest cannot be written; it is then unchanged.
        """
        labels = clean_labels(main_entity)
        skipped = skipped and not labels
        lock = self._lock(self.lock_timeout_s)
        try:
            lines = self._lines()
            number, entry = self._index(lines).get(path, (None, {"path": path}))
            current = _state_of(entry)
            if current.version != expected_version:
                raise LabelConflict(path, current)
            entry = dict(entry)
            entry["main_entity"] = list(labels)
            if label_in_page is not None:
                entry["label_in_page"] = label_in_page
            if skipped:
                entry["skipped"] = True
            else:
                entry.pop("skipped", None)
            text = json_line(entry)
            if number is None:
                if lines and not lines[-1].endswith(("\n", "\r")):
                    lines[-1] += "\n"
                lines.append(text + "\n")
            else:
                old = lines[number]
                lines[number] = text + old[len(old.rstrip("\r\n")):]
            write_text_atomic(self.manifest, "".join(lines))
        finally:
            lock.release()
        return LabelState(labels, skipped)
