"""Read a site dump's ``manifest.jsonl``: its valid entries in file order and a failure per bad line.

The format (one JSON object a line: ``path``, ``url``, ``main_entity``) is described in
``datasets/README.md``; :func:`manifest_entry_problem` says what makes a line invalid.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from mainentity.sitedump.decoding import PageReadError, escaped_name

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


def read_manifest(manifest: str | Path, site_id: str) -> tuple[list[dict], list[PageFailure]]:
    """Read a ``manifest.jsonl`` file: its valid entries in file order and its bad lines.

    A line is valid when :func:`manifest_entry_problem` finds nothing wrong with it; its ``path`` is
    then normalised (:func:`page_key`). Blank lines are ignored; every other line becomes a
    :class:`PageFailure` at ``manifest.jsonl:<line>``.

    Parameters
    ----------
    manifest : str or Path
        The file (a site dump's manifest or a copy of it, e.g. a second annotator's labels).
    site_id : str
        Site id named in the failures.

    Returns
    -------
    entries : list of dict
        The decoded JSON objects, unknown fields kept, ``path`` normalised.
    failures : list of PageFailure

    Raises
    ------
    PageReadError
        If the file is not UTF-8.
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
    manifest = Path(manifest)
    try:
        lines = manifest.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise PageReadError(f"{manifest}: not UTF-8 ({error}); a manifest is UTF-8 JSON lines") from error
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{MANIFEST_NAME}:{lineno}"
        try:
            entry = json.loads(line)
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
