"""Read a site dump's ``manifest.jsonl``: its valid entries in file order and a failure per bad line.

The format (one JSON object a line: ``path``, ``url``, ``main_entity``) is described in
``datasets/README.md``; :func:`manifest_entry_problem` says what makes a line invalid.
"""

from __future__ import annotations

import itertools
import json
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from mainentity.sitedump.decoding import (
    MAX_MANIFEST_BYTES,
    MAX_MANIFEST_LINE_BYTES,
    PageReadError,
    escaped_name,
    open_regular_file,
)

MANIFEST_NAME = "manifest.jsonl"


@dataclass(frozen=True)
class PageFailure:
    """A page of a site dump or a WARC file that was skipped, or a damaged place of a WARC file.

    Attributes
    ----------
    site_id : str
        The site dump's id; for a WARC record the host of its URL
        (:func:`mainentity.warc.site_of`); for damage in a WARC file, the file.
    path : str
        The page path relative to the site directory (``manifest.jsonl:<line>`` for a bad manifest line);
        for a WARC record its ``WARC-Record-ID``; for damage in a WARC file ``@<byte offset>``.
    reason : str
        Why it was skipped.
    url : str, default ""
        The page's URL when known: the manifest's ``url`` of a site dump page, a WARC record's
        ``WARC-Target-URI``; empty for a bad manifest line or damage in a WARC file.
    """

    site_id: str
    path: str
    reason: str
    url: str = ""


def read_manifest(
    manifest: str | Path, site_id: str, *, max_bytes: int = MAX_MANIFEST_BYTES,
    max_line_bytes: int = MAX_MANIFEST_LINE_BYTES,
) -> tuple[list[dict], list[PageFailure]]:
    """Read a ``manifest.jsonl`` file: its valid entries in file order and its bad lines.

    Lines end at ``\\n``; a UTF-8 byte order mark before the first is skipped. A line is valid when it is UTF-8 JSON
    in which :func:`manifest_entry_problem` finds nothing wrong; its ``path`` is then normalised (:func:`page_key`).
    Blank lines are ignored; every other line becomes a :class:`PageFailure` at ``manifest.jsonl:<line>``, a line
    over ``max_line_bytes`` too (never held in memory whole). The file is read as a page is
    (:func:`~mainentity.sitedump.decoding.read_page_bytes`: a regular file, opened without blocking), up to
    ``max_bytes``.

    Parameters
    ----------
    manifest : str or Path
        The file (a site dump's manifest or a copy of it, e.g. a second annotator's labels).
    site_id : str
        Site id named in the failures.
    max_bytes : int, default :data:`~mainentity.sitedump.decoding.MAX_MANIFEST_BYTES`
        Largest manifest read, in bytes.
    max_line_bytes : int, default :data:`~mainentity.sitedump.decoding.MAX_MANIFEST_LINE_BYTES`
        Longest line read, in bytes, its ``\\n`` included.

    Returns
    -------
    entries : list of dict
        The decoded JSON objects, unknown fields kept, ``path`` normalised.
    failures : list of PageFailure

    Raises
    ------
    PageReadError
        If the file is not a regular file or is over ``max_bytes``; the message names the file.
    OSError
        If it cannot be read.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     file = Path(tmp) / "manifest.jsonl"
    ...     _ = file.write_text('{"path": "a.html", "main_entity": ["A"]}\\n{"path": "/etc/passwd"}\\n')
    ...     entries, failures = read_manifest(file, "shop")
    >>> [e["path"] for e in entries], failures[0].path, failures[0].reason
    (['a.html'], 'manifest.jsonl:2', "path '/etc/passwd' leaves the site directory")
    """
    entries, failures, seen = [], [], set()
    for lineno, line in _manifest_lines(Path(manifest), max_bytes, max_line_bytes):
        where = f"{MANIFEST_NAME}:{lineno}"
        if line is None:
            failures.append(PageFailure(site_id, where, f"line over the limit of {max_line_bytes} bytes: not read"))
            continue
        if not line.strip():
            continue
        try:  # a BOM before the first line (editors on Windows write one) is no part of its JSON
            entry = json.loads(line.decode("utf-8-sig" if lineno == 1 else "utf-8"))
        except UnicodeDecodeError as error:
            failures.append(PageFailure(site_id, where, f"not UTF-8 ({error}); a manifest is UTF-8 JSON lines"))
            continue
        except (json.JSONDecodeError, RecursionError) as error:
            failures.append(PageFailure(site_id, where, f"invalid JSON: {error}"))
            continue
        problem = manifest_entry_problem(entry, seen)
        if problem:
            failures.append(PageFailure(site_id, where, problem))
            continue
        entry = {**entry, "path": page_key(entry["path"])}
        seen.add(entry["path"])
        entries.append(entry)
    return entries, failures


def _manifest_lines(manifest: Path, max_bytes: int, max_line_bytes: int) -> Iterator[tuple[int, bytes | None]]:
    """``(line number, line)`` of each line of ``manifest`` (see :func:`read_manifest`); ``None`` for a
    line over ``max_line_bytes``, whose rest is skipped in pieces of that size."""
    try:
        handle = open_regular_file(manifest, max_bytes)
    except PageReadError as error:
        raise PageReadError(f"{manifest}: {error}") from error
    with handle:
        n_read = 0
        for lineno in itertools.count(1):
            line = handle.readline(max_line_bytes + 1)
            n_read += len(line)
            too_long = len(line) > max_line_bytes
            while too_long and line and not line.endswith(b"\n"):
                line = handle.readline(max_line_bytes)
                n_read += len(line)
            if n_read > max_bytes:  # it grew after it was checked
                raise PageReadError(f"{manifest}: over the limit of {max_bytes} bytes: not read")
            if not line and not too_long:
                return
            yield lineno, None if too_long else line


def page_key(path: str) -> str:
    """The key a page path of a manifest is known by: ``./``, repeated and trailing ``/`` removed, so that
    every spelling of one file is one page.

    >>> [page_key(path) for path in ("./page.html", "page.html/", "p//a.html", "page.html")]
    ['page.html', 'page.html', 'p/a.html', 'page.html']
    """
    return posixpath.normpath(path)


def manifest_entry_problem(entry: object, seen: set[str]) -> str:
    """What is wrong with one decoded manifest line, or "" when it is a valid entry.

    Parameters
    ----------
    entry : object
        The decoded JSON of the line.
    seen : set of str
        :func:`page_key` of the paths of the valid entries before it (a page listed twice, under any
        spelling of its path, is an error).

    Returns
    -------
    problem : str

    Examples
    --------
    >>> manifest_entry_problem({"path": "../x.html"}, set())
    "path '../x.html' leaves the site directory"
    >>> manifest_entry_problem({"path": "./a.html"}, {"a.html"})
    "path './a.html' listed twice"
    >>> manifest_entry_problem({"path": "a.html", "url": "http://[::1"}, set())
    "'url' 'http://[::1' is not a valid URL: Invalid IPv6 URL"
    >>> manifest_entry_problem({"path": "a.html", "main_entity": ["A"], "note": 1}, set())
    ''
    """
    if not isinstance(entry, dict):
        return f"expected a JSON object; got {type(entry).__name__}"
    path = entry.get("path")
    if not isinstance(path, str) or not path:
        return "missing 'path'"
    try:
        json.dumps(entry, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return f"the line holds text that is not valid Unicode (a lone surrogate): path {escaped_name(path)!r}"
    if "\x00" in path:
        return f"path {path!r} holds a NUL character"
    if path.startswith("/") or ".." in path.split("/"):
        return f"path {path!r} leaves the site directory"
    if page_key(path) == ".":
        return f"path {path!r} names the site directory, not a page"
    if page_key(path) == MANIFEST_NAME:
        return f"path {path!r} is the manifest itself, not a page"
    if page_key(path) in seen:
        return f"path {path!r} listed twice"
    url = entry.get("url", "")
    if not isinstance(url, str):
        return "'url' is not a string"
    try:
        urlsplit(url).port  # noqa: B018 - parses the host and port, raising on a malformed one
    except ValueError as error:
        return f"'url' {url!r} is not a valid URL: {error}"
    if "\x00" in url:
        return f"'url' {url!r} holds a NUL character"
    labels = entry.get("main_entity", [])
    if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
        return "'main_entity' is not a list of strings"
    return ""


def manifest_labels(entry: dict) -> tuple[str, ...]:
    """The labels (``main_entity``) of a manifest entry that :func:`manifest_entry_problem` accepted, without
    blank ones: an empty or white-space label names nothing, so a page whose labels are all blank is
    unlabeled (it was scored 0 against an empty label and counted as labeled).

    >>> manifest_labels({"path": "a.html", "main_entity": ["", "Oak Shelf", "  "]}), manifest_labels({"path": "b.html"})
    (('Oak Shelf',), ())
    """
    return tuple(label for label in entry.get("main_entity", ()) if label.strip())

