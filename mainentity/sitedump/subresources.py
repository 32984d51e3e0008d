"""Serve the subresources (stylesheets, fonts, images) a page requests from the site dump it was read from.

:class:`DumpFiles` looks files up in one dump (see :func:`subresource_candidates` for the layouts
understood) with containment checks. Nothing is recorded behind the caller's back: the sources of each
site's subresources (:class:`DumpFiles` of a dump, the records of a WARC input:
:class:`mainentity.warc.WarcSubresources`) travel with the pages as a :class:`SubresourceSources`,
passed to the renderer.
"""

from __future__ import annotations

import functools
import hashlib
import os
import posixpath
import stat
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from mainentity.records import Page
from mainentity.sitedump.dump import HTML_SUFFIXES, SiteDump
from mainentity.sitedump.manifest_entries import MANIFEST_NAME

#: Bytes of subresource files kept in memory per dump (past this, the oldest files are dropped).
MAX_CACHED_BYTES = 64 * 2**20


@dataclass(frozen=True)
class DumpFile:
    """A file of a site dump, read for serving as a page's subresource.

    Attributes
    ----------
    path : str
        Path relative to the dump directory, ``/``-separated.
    data : bytes
        The file's content.
    sha256 : str
        Hex SHA-256 of ``data``.
    content_type : str
        The ``Content-Type`` to serve it with (a WARC record's own); empty for a file of a site dump,
        whose type the renderer derives from the request and the name.
    """

    path: str
    data: bytes
    sha256: str
    content_type: str = ""


class SubresourceSource(Protocol):
    """What serves the subresources of a site's pages to the renderer: :class:`DumpFiles` for a site
    dump, :class:`mainentity.warc.WarcSubresources` for the pages of WARC files.

    Attributes
    ----------
    holds_subresources : bool
        Whether there is anything to serve at all (else the renderer does not even request images).
    """

    holds_subresources: bool

    def holds_page(self, page: Page) -> bool:
        """Whether ``page`` was read from this source (a registration under the same site id by other
        input must not serve its files to the page)."""

    def find(self, url: str, page_url: str, page_path: str) -> DumpFile | None:
        """The file served for the absolute request ``url`` of the page at ``page_url`` (``page_path``
        its path in the input), or ``None``: the request is then aborted."""


class FileMemo:
    """Files read for serving, kept in memory up to ``max_bytes`` (the oldest dropped first), each with
    a stamp of its source (size and modification time) so that a changed source is read again. Safe to
    use from several threads.

    Parameters
    ----------
    max_bytes : int
        Bytes of file content kept at most; a larger file is never kept.

    Examples
    --------
    >>> memo = FileMemo(max_bytes=4)
    >>> memo.put("a.css", (3, 1), DumpFile("a.css", b"p{}", "ab"))
    >>> memo.get("a.css", (3, 1)).data, memo.get("a.css", (3, 2))
    (b'p{}', None)
    """

    def __init__(self, max_bytes: int = MAX_CACHED_BYTES) -> None:
        self.max_bytes = max_bytes
        self._files: dict[object, tuple[object, DumpFile]] = {}
        self._n_bytes = 0
        self._lock = threading.Lock()

    def get(self, key, stamp) -> DumpFile | None:
        """The file kept under ``key`` if it was read with this ``stamp``, else ``None``."""
        with self._lock:
            kept = self._files.get(key)
        return kept[1] if kept is not None and kept[0] == stamp else None

    def put(self, key, stamp, found: DumpFile) -> None:
        """Keep ``found`` under ``key`` (replacing what was there), dropping the oldest files past the budget."""
        with self._lock:
            old = self._files.pop(key, None)
            if old is not None:
                self._n_bytes -= len(old[1].data)
            if len(found.data) > self.max_bytes:
                return
            while self._files and self._n_bytes + len(found.data) > self.max_bytes:
                _, dropped = self._files.pop(next(iter(self._files)))  # the oldest entry
                self._n_bytes -= len(dropped.data)
            self._files[key] = (stamp, found)
            self._n_bytes += len(found.data)


def subresource_candidates(url: str, page_url: str, page_path: str) -> list[str]:
    """Dump-relative paths where the file behind a page's subresource request may be, best first.

    Four layouts are tried:

    1. the dump mirrors the page's site: a URL on the page's own origin is taken relative to the page
       (the URL's path relative to the directory of ``page_url``, applied to the directory of
       ``page_path``), which covers relative links, root-relative links and links rewritten by
       ``wget --convert-links``, HTTrack or a browser's "Save page, complete";
    2. the page's directory or any directory above it (the dump root included) is the site's root:
       ``<path>`` under it, for a URL on the page's own origin. This finds the files of a converted
       link that climbs above the site root of ``page_url`` (``../../fonts.example/a.woff2`` from
       ``https://shop.example/css/`` ends at the origin's root, while the file is beside the
       ``shop.example`` directory);
    3. host directories, as ``wget --mirror`` and HTTrack write them: ``<host>/<path>`` under the
       page's directory or any directory above it;
    4. "Save page, complete": ``<page name>_files/<file name>`` beside the page, for references the
       browser did not rewrite.

    A URL with a query also tries the names wget gives such files (``style.css?v=2``, ``style.css@v=2``
    with ``--restrict-file-names=windows``, ``style.css?v=2.css`` with ``--adjust-extension``). A
    candidate that would leave the dump (more ``..`` than directories above it) is dropped, so every
    path returned is relative and free of ``..``.

    Parameters
    ----------
    url : str
        The absolute URL Chromium requests (http or https; other schemes give no candidate).
    page_url : str
        The URL the page is loaded under (its own, or the placeholder for non-http pages).
    page_path : str
        The page file's path relative to the dump directory, ``/``-separated.

    Returns
    -------
    paths : list of str
        Candidate paths relative to the dump directory, without duplicates.

    Examples
    --------
    >>> subresource_candidates("https://shop.example/css/site.css", "https://shop.example/p/1.html",
    ...                        "pages/p/1.html")[:3]
    ['pages/css/site.css', 'pages/p/css/site.css', 'css/site.css']
    >>> subresource_candidates("https://cdn.example/a.woff2", "https://shop.example/p/1.html",
    ...                        "shop.example/p/1.html")
    ['shop.example/p/cdn.example/a.woff2', 'shop.example/cdn.example/a.woff2', 'cdn.example/a.woff2', \
'shop.example/p/1_files/a.woff2']
    >>> subresource_candidates("https://evil.example/x", "https://shop.example/a.html", "a.html")
    ['evil.example/x', 'a_files/x']
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return []
    request_path = unquote(parts.path) or "/"
    page_parts = urlsplit(page_url)
    page_dir = posixpath.dirname(page_path)
    ancestors = [page_dir]
    while ancestors[-1]:
        ancestors.append(posixpath.dirname(ancestors[-1]))
    relatives: list[tuple[str, str]] = []  # (directory in the dump, path below it)
    if (parts.scheme, parts.netloc.lower()) == (page_parts.scheme, page_parts.netloc.lower()):
        page_url_dir = posixpath.dirname(unquote(page_parts.path) or "/")
        relatives.append((page_dir, posixpath.relpath(request_path, page_url_dir)))
        relatives.extend((directory, request_path.lstrip("/")) for directory in ancestors)
    for host in dict.fromkeys([parts.netloc.lower(), parts.hostname]):
        relatives.extend((directory, host + request_path) for directory in ancestors)
    stem = posixpath.splitext(posixpath.basename(page_path))[0]
    relatives.append((page_dir, f"{stem}_files/{posixpath.basename(request_path)}"))
    candidates: dict[str, None] = {}
    for directory, relative in relatives:
        joined = posixpath.normpath(posixpath.join(directory, relative))
        if joined in (".", "..") or joined.startswith(("../", "/")) or joined.endswith("/"):
            continue
        if parts.query:
            for name in (f"{joined}?{parts.query}", f"{joined}@{parts.query}", f"{joined}?{parts.query}.css"):
                candidates[name] = None
        candidates[joined] = None
    return list(candidates)


class DumpFiles:
    """Read subresource files from one site dump, with containment checks and an in-memory copy.

    A path is served only when it is relative, has no ``..``, no empty part and no hidden part (name
    starting with ``.``), and the file it names, with every symbolic link resolved, is a regular file
    inside the dump directory (a link pointing out of the dump is refused). Files are kept in memory
    (at most :data:`MAX_CACHED_BYTES` per dump) and read again when their size or modification time
    changes. Safe to use from several threads. :attr:`holds_subresources` tells whether the dump has
    anything but pages to serve at all.

    Parameters
    ----------
    directory : str or Path
        The site dump directory.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "css").mkdir()
    ...     _ = (Path(tmp) / "css" / "site.css").write_text("h1{font-size:40px}")
    ...     files = DumpFiles(tmp)
    ...     found = files.find("https://s.example/css/site.css", "https://s.example/p.html", "p.html")
    ...     outside = files.read("../etc/passwd")
    >>> found.path, found.data, outside
    ('css/site.css', b'h1{font-size:40px}', None)
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self._root = os.path.realpath(self.directory)
        self._memo = FileMemo()

    @functools.cached_property
    def holds_subresources(self) -> bool:
        """Whether the dump has a file other than pages (``.html``, ``.htm``, ``.xhtml``) and the
        manifest, hidden files aside; looked up once per instance. A dump of pages only (SWDE, the
        Readability set) has nothing to serve, so the renderer does not even request its pages' images.
        """
        for file in self.directory.rglob("*"):
            relative = file.relative_to(self.directory)
            if any(part.startswith(".") for part in relative.parts) or relative.as_posix() == MANIFEST_NAME:
                continue
            if file.suffix.lower() not in HTML_SUFFIXES and file.is_file():
                return True
        return False

    def holds_page(self, page: Page) -> bool:
        """Whether the page's file is in the dump (``page.path`` relative to it)."""
        return (self.directory / page.path).is_file()

    def read(self, path: str) -> DumpFile | None:
        """The file at ``path`` (relative to the dump), or ``None`` if it is absent or not allowed."""
        parts = path.split("/")
        if path.startswith("/") or any(part in ("", ".", "..") or part.startswith(".") for part in parts):
            return None
        try:
            status = os.stat(os.path.join(self._root, *parts))  # most candidates do not exist: one call
        except OSError:
            return None
        if not stat.S_ISREG(status.st_mode):
            return None
        real = os.path.realpath(os.path.join(self._root, *parts))
        if os.path.commonpath([self._root, real]) != self._root:
            return None
        stamp = (status.st_size, status.st_mtime_ns)
        found = self._memo.get(path, stamp)
        if found is not None:
            return found
        try:
            with open(real, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        found = DumpFile(path, data, hashlib.sha256(data).hexdigest())
        self._memo.put(path, stamp, found)
        return found

    def find(self, url: str, page_url: str, page_path: str) -> DumpFile | None:
        """The first file of :func:`subresource_candidates` that :meth:`read` allows, or ``None``."""
        for path in subresource_candidates(url, page_url, page_path):
            found = self.read(path)
            if found is not None:
                return found
        return None


class SubresourceSources:
    """What serves the subresources of the pages of each site: the :class:`SubresourceSource` of each site
    dump, by site id.

    The renderer and the render cache are given one (:func:`mainentity.render.cache.render_pages`):
    :func:`mainentity.loading.load_pages` builds it from the site dumps read (a :class:`DumpFiles` per
    dump) and the records of WARC inputs. :meth:`for_page` gives a page its source, provided the page
    was read from it (``holds_page``: for a dump, the page's file is there): a site id that several inputs
    share (one host's dumps in two datasets) has a source per input, and each page is served by its own
    dump's. Else, for a page whose URL is the ``file://`` URI of its file (a dump read without manifest,
    ``<base href>`` or ``base_url``), the directory that URI and the page's relative path imply. Safe to
    use from several threads.

    Parameters
    ----------
    sources : mapping of str to SubresourceSource, or iterable of (str, SubresourceSource), optional
        By site id (pairs when a site id has several sources, as :meth:`items` gives them); none by
        default (then only ``file://`` pages find their files).

    Examples
    --------
    >>> import tempfile
    >>> from mainentity.sitedump import read_site_dump
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "a.html").write_text("<p>A</p>")
    ...     dump = read_site_dump(tmp, site_id="doc-example")
    ...     sources = SubresourceSources.of_dumps([dump])
    ...     found = sources.for_page(dump.pages[0]).directory == Path(tmp).resolve()
    >>> found, sources.for_page(Page("nowhere", "a.html", "https://x.example/a.html", "<p>A</p>"))
    (True, None)
    """

    def __init__(
        self, sources: Mapping[str, SubresourceSource] | Iterable[tuple[str, SubresourceSource]] | None = None
    ) -> None:
        self._by_site: dict[str, list[SubresourceSource]] = {}
        for site_id, source in sources.items() if isinstance(sources, Mapping) else sources or ():
            self._by_site.setdefault(site_id, []).append(source)
        self._by_directory: dict[Path, DumpFiles] = {}
        self._lock = threading.Lock()

    @classmethod
    def of_dumps(cls, dumps: Iterable[SiteDump]) -> SubresourceSources:
        """The :class:`DumpFiles` of each site dump, by its site id."""
        return cls((dump.site_id, DumpFiles(Path(dump.directory).resolve())) for dump in dumps)

    def items(self) -> list[tuple[str, SubresourceSource]]:
        """Every ``(site id, source)``, in the order given: what the sources of several inputs are joined
        from (``SubresourceSources([*a.items(), *b.items()])``)."""
        return [(site_id, source) for site_id, sources in self._by_site.items() for source in sources]

    def for_page(self, page: Page) -> SubresourceSource | None:
        """What serves ``page``'s subresources, or ``None`` when unknown."""
        for known in self._by_site.get(page.site_id, ()):
            if known.holds_page(page):
                return known
        parts = urlsplit(page.url)
        if parts.scheme != "file":
            return None
        file = Path(url2pathname(parts.path))
        relative = Path(*page.path.split("/"))
        if file.parts[-len(relative.parts) :] != relative.parts or not file.is_file():
            return None
        directory = Path(*file.parts[: -len(relative.parts)])
        with self._lock:
            return self._by_directory.setdefault(directory, DumpFiles(directory))
