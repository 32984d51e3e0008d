"""On-disk cache of static readings (:func:`mainentity.render.static.read_static`), in the render cache's directory.

A warm ``--render auto`` run answers most lone pages from their static reading: without this cache it parses
each page and computes its CSS cascade again, which costs about as much as trafilatura's whole extraction of
it; reading the stored reading back costs a gzip and JSON decoding (``benchmarks/render_cost.py --warm``:
``benchmarks/results/render_cost.md``).

An entry is keyed as a rendering is (:mod:`mainentity.render.cache`), in two steps: a *request list* under the
key of the page alone (its markup and URL, :func:`reader_digest`) names the style sheets the reader looked up
in the page's site dump (linked ones and their ``@import``); the entry's key adds the SHA-256 of each as the
dump holds it now (``""`` when it holds none) and whether the dump holds anything but pages. A changed style
sheet, page or reader reads the page anew. Entries are :func:`~mainentity.render.cache.dump_outcome`'s JSON,
gzipped, at ``<directory>/<key[:2]>/<key>.static.json.gz``, request lists at ``<key>.static-requests.json``;
writes are atomic. A page the reader refuses (``ValueError``) is not stored: it is read, and refused, again.
Neither is the part of a page a template's locator reads (``read_static(page, within=paths)``,
:mod:`mainentity.slot_transfer`): read again, it costs less than a stored whole reading did to decode (booksamillion
with a warm cache, ``benchmarks/results/render_cost.md``).
"""

from __future__ import annotations

import gzip
import json
import logging
import os
from pathlib import Path

from mainentity.records import Page, RenderedPage
from mainentity.render.cache import (
    OnceUnwritable,
    current_subresources,
    dump_outcome,
    entry_key,
    load_outcome,
    markup_digest,
    with_dump_state,
    write_entry,
)
from mainentity.render.settings import RenderOutcome, page_label
from mainentity.render.static import read_static
from mainentity.sitedump import DumpFile, SubresourceSource
from mainentity.source_digest import modules_of, source_digest

logger = logging.getLogger(__name__)

#: Third-party packages whose output the static reading depends on (parser, CSS tokenizer, selectors).
READER_PACKAGES = ("selectolax", "tinycss2", "cssselect2")


def reader_modules() -> set[str]:
    """The ``mainentity`` modules whose code makes a static reading: :mod:`mainentity.render.static` and every
    module it imports, directly or not (:func:`mainentity.source_digest.modules_of`)."""
    return modules_of("mainentity.render.static")


def reader_digest() -> str:
    """Hex SHA-256 over the source of the :func:`reader_modules`, the versions of :data:`READER_PACKAGES` and
    Python's own version (:func:`mainentity.source_digest.source_digest`): a changed reader keys every page anew,
    without a version number to remember to bump. Computed once per process (a few ms)."""
    return source_digest("mainentity.render.static", READER_PACKAGES)


class _LookupRecord:
    """A :class:`SubresourceSource` that notes the SHA-256 of each file looked up in it (``""`` when absent)."""

    def __init__(self, source: SubresourceSource) -> None:
        self._source = source
        self.holds_subresources = source.holds_subresources
        self.found: dict[str, str] = {}

    def holds_page(self, page: Page) -> bool:
        return self._source.holds_page(page)

    def find(self, url: str, page_url: str, page_path: str) -> DumpFile | None:
        found = self._source.find(url, page_url, page_path)
        self.found[url] = found.sha256 if found is not None else ""
        return found


class StaticReadingCache:
    """A directory of static readings keyed as in the module docstring.

    Parameters
    ----------
    directory : str or path-like
        Created on the first write if missing; the render cache's directory serves.

    Examples
    --------
    >>> import tempfile
    >>> cache = StaticReadingCache(tempfile.mkdtemp())
    >>> page = Page("s", "1.htm", "http://s.test/1", "<title>T</title><h1>Hello</h1>")
    >>> cache.get(page) is None
    True
    >>> [block.text for block in cache.read(page).blocks]
    ['Hello']
    >>> repr(cache.get(page)) == repr(read_static(page))  # repr: a reading's boxes are NaN, unequal to themselves
    True
    """

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)
        self._writes = OnceUnwritable(self.directory, "static readings", "read")

    def read(self, page: Page, files: SubresourceSource | None = None) -> RenderedPage:
        """:func:`~mainentity.render.static.read_static` of ``page`` with its site dump's style sheets
        (``files``, ``None`` when unknown): the stored reading when the cache holds it, else read and stored.

        A reading that cannot be stored (a read-only or full disk) is returned all the same; the first such
        failure is logged as a warning, the others are not.

        Raises
        ------
        ValueError
            As :func:`~mainentity.render.static.read_static` does (nothing is stored then).
        """
        stored = self.get(page, files)
        if stored is not None:
            return stored
        record = _LookupRecord(files) if files is not None else None
        rendered = read_static(page, record)
        self._writes.store(self._put, page, rendered, record, files)
        return rendered

    def get(self, page: Page, files: SubresourceSource | None = None) -> RenderedPage | None:
        """The stored static reading of ``page``, or ``None`` on a miss (absent, corrupt or foreign entry,
        or a style sheet changed since)."""
        page_digest = markup_digest(page, ["static reading", reader_digest()])
        try:
            urls = json.loads(self._file(entry_key(page_digest, None), ".static-requests.json").read_bytes())
            data = self._file(entry_key(page_digest, _looked_up(page, urls, files)), ".static.json.gz").read_bytes()
            return load_outcome(gzip.decompress(data), page).rendered
        except FileNotFoundError:
            return None
        except (OSError, EOFError, ValueError, TypeError) as exc:
            logger.warning("ignoring unreadable static reading cache entry of %s: %s", page_label(page), exc)
            return None

    def _put(self, page: Page, rendered: RenderedPage, record: _LookupRecord | None,
             files: SubresourceSource | None) -> None:
        """Store ``rendered`` under the style sheets ``record`` saw, and their URLs as the page's request list."""
        found = sorted(record.found.items()) if record is not None else []
        page_digest = markup_digest(page, ["static reading", reader_digest()])
        data = gzip.compress(dump_outcome(RenderOutcome(page, rendered, subresources=tuple(found))),
                             compresslevel=6, mtime=0)
        write_entry(self._file(entry_key(page_digest, with_dump_state(found, files)), ".static.json.gz"), data)
        urls = json.dumps([url for url, _ in found]).encode("utf-8")
        write_entry(self._file(entry_key(page_digest, None), ".static-requests.json"), urls)

    def _file(self, key: str, suffix: str) -> Path:
        return self.directory / key[:2] / f"{key}{suffix}"


def _looked_up(page: Page, urls: list, files: SubresourceSource | None) -> list[tuple[str, str]]:
    """``(url, sha256)`` now of the style sheets a request list names, with the dump's state, as :meth:`_put`
    keyed them; a request list that is no list of URLs raises ``TypeError``."""
    if not isinstance(urls, list) or not all(isinstance(url, str) for url in urls):
        raise TypeError(f"a request list that is not a list of URLs: {urls!r:.80}")
    return with_dump_state(current_subresources(page, urls, files), files)
