"""On-disk cache of rendered pages, so training and evaluation never render a page twice.

An entry is keyed by a SHA-256 over the page's markup and URL, the render settings that change the
output (JavaScript, viewport, subresources), the browser's version
(:func:`~mainentity.render.settings.browser_version`), the version of the extraction script
(``blocks.js``) and, when subresources are served, the content of every stylesheet, font and image
the page requested and whether its dump holds anything but pages (:func:`cache_key`); it holds the
:class:`~mainentity.records.RenderedPage` (blocks and segments) as compact gzipped JSON (blocks as
arrays in :class:`~mainentity.records.TextBlock` field order) with the page's subresource record.
Writes are atomic (temporary file, then :func:`os.replace`), so an interrupted run leaves whole
entries or none.

Which subresources a page requests is known only once it has been rendered, so with subresources
served a lookup takes two steps: a small *request list* stored under the key of the page alone names
the stylesheet, font and image URLs the page requested last time; their files are looked up in the
page's site dump (or the records of its WARC input: the page's
:class:`~mainentity.sitedump.SubresourceSource`, given by the caller) now and hashed, and the entry is read
under the key that includes those hashes. A changed, added or removed file changes the key, so the
page is rendered again. The requests depend only on the page and the content of what it requested,
so the request list of the last rendering names the same URLs for an unchanged dump.

An entry holds a raw rendering, with scripts off or on. With ``javascript: "auto"`` a page's first
(scripts-off) rendering has the key ``javascript: false`` gives it, and its second (scripts-on)
rendering, for a page whose first looks unfinished, the key of ``javascript: true``; whether the
second is rendered and kept (:func:`~mainentity.render.scripts.unfinished_reason`,
:func:`~mainentity.render.scripts.shows_more`) is decided anew from them on every read, so a cold and a
warm cache give the same outcome, and switching between ``false`` and ``auto`` renders nothing anew.
A second rendering that timed out (scripts that loop or never settle) is remembered by a small *timeout
note* (:meth:`RenderCache.put_scripts_timeout`), so a warm run keeps the first rendering without paying
the timeout again. Its key is that of ``javascript: true`` over the subresources of the first rendering
(what the page requests with its scripts off) and ``timeout_s``: a changed page, stylesheet, setting or
timeout renders it again. Only these second renderings are remembered as failed: any other failure, and
a scripts-on rendering that is not a second one (``javascript: true``), is tried again on the next run.

After a Chromium upgrade, pages are rendered anew; the old entries stay until the directory is
cleared.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import itertools
import json
import logging
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from mainentity.records import Page, RenderedPage, TextBlock
from mainentity.render.blocks_payload import BLOCKS_JS_VERSION, META_KEYS
from mainentity.render.browser import Renderer
from mainentity.render.scripts import shows_more, unfinished_reason
from mainentity.render.settings import RenderOutcome, RenderSettings, browser_version, load_url
from mainentity.sitedump import SubresourceSource, SubresourceSources
from mainentity.text import counted

logger = logging.getLogger(__name__)

#: Version of the entry layout below; bump it when the stored JSON changes shape.
CACHE_FORMAT = 4

_BLOCK_FIELDS = tuple(field.name for field in dataclasses.fields(TextBlock))


def cache_key(
    page: Page, settings: RenderSettings, subresources: Iterable[tuple[str, str]] | None = None
) -> str:
    """Hex SHA-256 naming a page's cache entry (or, without ``subresources``, its request list).

    Covers the markup, the URL, whether scripts ran (``javascript: "auto"`` has the key of ``false``:
    its first rendering is the scripts-off one, its second is stored under the key of ``true``, see
    :func:`render_pages`), ``settings.subresources``, the viewport, the
    browser's version (of the executable at ``settings.executable_path``), the ``blocks.js`` version,
    the kept meta keys, the entry format and the given subresources; not the timeout, concurrency or
    retries, which do not change the output.

    Parameters
    ----------
    page : Page
    settings : RenderSettings
    subresources : iterable of (str, str), optional
        ``(url, sha256)`` of each stylesheet, font and image the page requested (``sha256`` empty when
        the dump does not hold it), as in :attr:`RenderOutcome.subresources`; order does not matter.

    Returns
    -------
    key : str
        64 hex digits.

    Examples
    --------
    >>> a = Page("s", "1.htm", "http://s.test/1", "<p>x</p>")
    >>> cache_key(a, RenderSettings()) == cache_key(a, RenderSettings(concurrency=1, timeout_s=5))
    True
    >>> cache_key(a, RenderSettings()) == cache_key(a, RenderSettings(javascript=True))
    False
    >>> cache_key(a, RenderSettings(javascript="auto")) == cache_key(a, RenderSettings(javascript=False))
    True
    >>> css = "http://s.test/site.css"
    >>> cache_key(a, RenderSettings(), [(css, "ab12")]) == cache_key(a, RenderSettings(), [(css, "cd34")])
    False
    """
    return entry_key(_page_digest(page, settings), subresources)


def _page_digest(page: Page, settings: RenderSettings):
    """SHA-256 state over what names the page in :func:`cache_key` (settings, versions, URL, markup), so
    the two keys of one lookup (request list and entry) hash the markup once."""
    return markup_digest(page, [
        BLOCKS_JS_VERSION,
        META_KEYS,
        settings.javascript is True,  # "auto" renders with scripts off first (render_pages)
        settings.subresources,
        settings.viewport_width,
        settings.viewport_height,
        browser_version(settings.executable_path),
    ])


def markup_digest(page: Page, reader: list):
    """SHA-256 state (``hashlib``) over the entry format, ``reader`` (JSON values naming what read the page:
    settings, versions), the page's URL and its markup: the start of every key of one page's entries
    (:func:`entry_key`)."""
    digest = hashlib.sha256(json.dumps([CACHE_FORMAT, *reader, page.url]).encode("utf-8"))
    digest.update(b"\0")
    digest.update(page.html.encode("utf-8", "surrogatepass"))
    return digest


def entry_key(page_digest, subresources: Iterable[tuple[str, str]] | None) -> str:
    """Hex SHA-256 of an entry: ``page_digest`` (a ``hashlib`` SHA-256 state over what names the page, left
    unchanged) extended by the ``(url, sha256)`` pairs ``subresources`` (sorted, each once); ``None``: the
    key of the page's request list. :func:`cache_key` with the page's :func:`_page_digest`."""
    digest = page_digest.copy()
    if subresources is not None:
        digest.update(b"\0")
        digest.update(json.dumps(sorted(set(map(tuple, subresources)))).encode("utf-8"))  # duplicates: once
    return digest.hexdigest()


def dump_outcome(outcome: RenderOutcome) -> bytes:
    """Serialise a rendered page and its subresource record to the cache's compact JSON (UTF-8, not
    yet compressed); the page itself is not stored.

    Raises
    ------
    ValueError
        If the outcome has no rendering (failed pages are not cached).

    Examples
    --------
    >>> block = TextBlock("Hi", "h1", "html[0]/body[1]/h1[0]", 32.0, 700, True, 8.0, 8.0, 40.0, 37.0)
    >>> page = Page("s", "1.htm", "http://s.test/1", "<h1>Hi</h1>")
    >>> outcome = RenderOutcome(page, RenderedPage("T", (("og:title", "Hi"),), (block,), 1024.0, 900.0),
    ...                         subresources=(("http://s.test/a.css", "ab12"),), n_subresources_served=1)
    >>> load_outcome(dump_outcome(outcome), page) == outcome
    True
    """
    rendered = outcome.rendered
    if rendered is None:
        raise ValueError(f"cannot cache a failed rendering: {outcome.error}")
    return json.dumps(
        {
            "format": CACHE_FORMAT,
            "fields": _BLOCK_FIELDS,
            "title": rendered.title,
            "meta": rendered.meta,
            "width": rendered.width,
            "height": rendered.height,
            "blocks": [[getattr(block, name) for name in _BLOCK_FIELDS] for block in rendered.blocks],
            "segments": [[getattr(block, name) for name in _BLOCK_FIELDS] for block in rendered.segments],
            "subresources": outcome.subresources,
            "n_subresources_served": outcome.n_subresources_served,
            "n_subresources_blocked": outcome.n_subresources_blocked,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")


def load_outcome(data: bytes, page: Page) -> RenderOutcome:
    """Inverse of :func:`dump_outcome`, for ``page``.

    Raises
    ------
    ValueError
        If ``data`` is not an entry of this format (corrupt, or written by another version).
    """
    try:
        return _outcome_from_json(data, page)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed cache entry: {exc!r}") from exc


def _outcome_from_json(data: bytes, page: Page) -> RenderOutcome:
    obj = json.loads(data)
    if obj["format"] != CACHE_FORMAT or tuple(obj["fields"]) != _BLOCK_FIELDS:
        raise ValueError(f"cache entry format {obj['format']} with fields {obj['fields']}")
    rendered = RenderedPage(
        title=obj["title"],
        meta=tuple((key, content) for key, content in obj["meta"]),
        blocks=_stored_blocks(obj["blocks"]),
        width=obj["width"],
        height=obj["height"],
        segments=_stored_blocks(obj["segments"]),
    )
    return RenderOutcome(
        page,
        rendered,
        subresources=tuple((url, sha256) for url, sha256 in obj["subresources"]),
        n_subresources_served=obj["n_subresources_served"],
        n_subresources_blocked=obj["n_subresources_blocked"],
    )


def _stored_blocks(rows: list[list]) -> tuple[TextBlock, ...]:
    """The :class:`TextBlock` of each stored row, each block's fields set at once.

    A frozen dataclass's ``__init__`` sets each of its 15 fields through ``object.__setattr__``; an entry
    holds hundreds of blocks, and setting the instance dictionary in one step builds an equal block in
    about 40% less time (``benchmarks/results/warm_cache_speed.md``). The rows were written from
    TextBlocks by :func:`dump_outcome` and the field names checked by :func:`load_outcome`; their lengths
    are checked here, all at once.

    Raises
    ------
    ValueError
        If a row does not hold one value per field.
    """
    n_fields = len(_BLOCK_FIELDS)
    if any(len(row) != n_fields for row in rows):
        raise ValueError(f"a stored block without exactly {n_fields} fields")
    new, set_attribute, fields = object.__new__, object.__setattr__, _BLOCK_FIELDS
    blocks = []
    for row in rows:
        block = new(TextBlock)
        set_attribute(block, "__dict__", dict(zip(fields, row, strict=False)))  # lengths checked above
        blocks.append(block)
    return tuple(blocks)


def current_subresources(
    page: Page, urls: Iterable[str], files: SubresourceSource | None = None
) -> tuple[tuple[str, str], ...]:
    """``(url, sha256)`` of the files the page's site dump (``files``) now holds for ``urls``, sorted.

    ``sha256`` is ``""`` for a URL the dump does not hold (or when the page's dump is unknown:
    ``files`` is ``None``), exactly as the renderer would record it
    (:func:`mainentity.sitedump.DumpFiles.find`).

    >>> current_subresources(Page("nowhere", "1.htm", "http://s.test/1", ""), ["http://s.test/a.css"])
    (('http://s.test/a.css', ''),)
    """
    if files is None or not files.holds_subresources:  # nothing to find: skip the file-system lookups
        return tuple(sorted((u, "") for u in set(urls)))
    url, path = load_url(page), page.path
    found = {u: files.find(u, url, path) for u in urls}
    return tuple(sorted((u, f.sha256 if f is not None else "") for u, f in found.items()))


def with_dump_state(
    subresources: Iterable[tuple[str, str]], files: SubresourceSource | None
) -> list[tuple[str, str]]:
    """``subresources`` plus whether the page's dump (``files``) holds anything to serve: when it holds
    pages only, the page's images are not even requested (nor its style sheets looked up by the static
    reader), so they are missing from its request list."""
    holds = files is not None and files.holds_subresources
    return [*subresources, ("", "dump holds subresources" if holds else "dump holds pages only")]


def write_entry(path: Path, data: bytes) -> None:
    """Write a cache file atomically (a temporary file beside it, then :func:`os.replace`): readers in other
    processes see the whole old file or the whole new one.

    Raises
    ------
    OSError
        If the directory cannot be created or written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class RenderCache:
    """A directory of rendered pages keyed by :func:`cache_key`.

    Entries live at ``<directory>/<key[:2]>/<key>.json.gz``, the request lists of pages rendered with
    subresources at ``<directory>/<key[:2]>/<key>.requests.json``, the timeout notes of second renderings
    at ``<directory>/<key[:2]>/<key>.timed-out.json`` (module docstring). Safe for several
    processes: writes are atomic, and a corrupt or foreign entry reads as a miss.

    Parameters
    ----------
    directory : str or path-like
        Created on first write if missing.

    Examples
    --------
    >>> import tempfile
    >>> cache = RenderCache(tempfile.mkdtemp())
    >>> page = Page("s", "1.htm", "http://s.test/1", "<title>T</title>")
    >>> cache.get(page, RenderSettings()) is None
    True
    >>> cache.put(RenderOutcome(page, RenderedPage("T", (), ())), RenderSettings())
    >>> cache.get(page, RenderSettings()).rendered.title
    'T'
    """

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)

    def _file(self, key: str, suffix: str) -> Path:
        return self.directory / key[:2] / f"{key}{suffix}"

    def path(self, page: Page, settings: RenderSettings, files: SubresourceSource | None = None) -> Path | None:
        """Where the entry of ``page`` rendered with ``settings`` is stored, given the files its site
        dump (``files``: what serves its subresources, ``None`` when unknown) holds now; ``None`` when
        subresources are served and the page has no request list yet."""
        page_digest = _page_digest(page, settings)
        if not settings.subresources:
            return self._file(entry_key(page_digest, None), ".json.gz")
        try:
            urls = json.loads(self._file(entry_key(page_digest, None), ".requests.json").read_bytes())
        except FileNotFoundError:
            return None
        except ValueError as exc:
            logger.warning("ignoring unreadable render cache request list of %s: %s", page.path, exc)
            return None
        subresources = with_dump_state(current_subresources(page, urls, files), files)
        return self._file(entry_key(page_digest, subresources), ".json.gz")

    def get(
        self, page: Page, settings: RenderSettings, files: SubresourceSource | None = None
    ) -> RenderOutcome | None:
        """The cached rendering of ``page`` with its subresource record, or ``None`` on a miss (absent,
        corrupt or foreign entry, or a subresource file changed since). ``files``: what serves the
        page's subresources (see :meth:`path`)."""
        path = self.path(page, settings, files)
        if path is None:
            return None
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return None
        try:
            return load_outcome(gzip.decompress(data), page)
        except (OSError, EOFError, ValueError) as exc:
            logger.warning("ignoring unreadable render cache entry %s: %s", path, exc)
            return None

    def _timeout_note(self, first: RenderOutcome, settings: RenderSettings, files: SubresourceSource | None) -> Path:
        """Where the timeout note of ``first.page`` rendered with ``settings`` is stored (module docstring)."""
        requested = with_dump_state(first.subresources, files) if settings.subresources else []
        key = entry_key(_page_digest(first.page, settings),
                        [*requested, ("", f"timed out after {settings.timeout_s!r} s")])
        return self._file(key, ".timed-out.json")

    def scripts_timeout(
        self, first: RenderOutcome, settings: RenderSettings, files: SubresourceSource | None = None
    ) -> str:
        """Why the second (scripts-on) rendering of ``first.page`` failed, as stored by
        :meth:`put_scripts_timeout` with these ``settings`` after the first rendering ``first``; ``""``
        when no note is stored (or it is unreadable). ``files``: as for :meth:`path`."""
        path = self._timeout_note(first, settings, files)
        try:
            return str(json.loads(path.read_bytes())["error"])
        except FileNotFoundError:
            return ""
        except (ValueError, KeyError, TypeError) as exc:
            logger.warning("ignoring unreadable render cache timeout note %s: %r", path, exc)
            return ""

    def put_scripts_timeout(
        self, first: RenderOutcome, second: RenderOutcome, settings: RenderSettings,
        files: SubresourceSource | None = None,
    ) -> None:
        """Remember that ``second``, the scripts-on rendering of ``first.page`` with ``settings``
        (``javascript: true``) after its first rendering ``first``, timed out (module docstring).

        Raises
        ------
        ValueError
            If ``second`` did not time out (:attr:`RenderOutcome.timed_out`) or is of another page.
        OSError
            If the directory cannot be created or written.
        """
        if not second.timed_out or second.page != first.page:
            raise ValueError(f"not a timed-out rendering of {first.page.path}: {second.error or 'rendered'}")
        note = json.dumps({"format": CACHE_FORMAT, "error": second.error}, ensure_ascii=False).encode("utf-8")
        write_entry(self._timeout_note(first, settings, files), note)

    def put(self, outcome: RenderOutcome, settings: RenderSettings, files: SubresourceSource | None = None) -> None:
        """Store a page's rendering atomically (replacing any previous entry), under the key of the
        subresources it was rendered with, and, when they are served, the page's request list.
        ``files``: what served the page's subresources (see :meth:`path`).

        Raises
        ------
        ValueError
            If the outcome has no rendering.
        OSError
            If the directory cannot be created or written.
        """
        data = gzip.compress(dump_outcome(outcome), compresslevel=6, mtime=0)
        page_digest = _page_digest(outcome.page, settings)
        if not settings.subresources:
            write_entry(self._file(entry_key(page_digest, None), ".json.gz"), data)
            return
        key = entry_key(page_digest, with_dump_state(outcome.subresources, files))
        write_entry(self._file(key, ".json.gz"), data)
        urls = json.dumps(sorted({url for url, _ in outcome.subresources})).encode("utf-8")
        write_entry(self._file(entry_key(page_digest, None), ".requests.json"), urls)



#: Renderers kept open for the life of this process by :func:`hold_renderer`, by their settings.
_HELD: dict[RenderSettings, Renderer] = {}


def cached_pages(
    pages: Iterable[Page],
    settings: RenderSettings,
    cache_dir: str | os.PathLike | None,
    subresources: SubresourceSources | None = None,
) -> set[tuple[str, str]]:
    """The ``(site_id, path)`` of the pages whose (first) rendering with ``settings`` the cache holds now, as
    :func:`render_pages` would find it (the page's markup and URL, the settings, the browser's version, the
    subresources its site dump serves now): what ``--render auto`` reads from the cache instead of reading
    the page statically (:func:`mainentity.render_few.answer_pages`). No file is read but the request lists
    and the subresources they name; an absent cache directory costs nothing (not even the browser's
    version). A page whose rendering looked unfinished may still need its scripts-on rendering.

    >>> import tempfile
    >>> page = Page("s", "1.htm", "http://s.test/1", "<title>T</title>")
    >>> other = Page("s", "2.htm", "http://s.test/2", "<title>U</title>")
    >>> cache_dir = tempfile.mkdtemp()
    >>> RenderCache(cache_dir).put(RenderOutcome(page, RenderedPage("T", (), ())), RenderSettings(subresources=False))
    >>> cached_pages([page, other], RenderSettings(subresources=False), cache_dir)
    {('s', '1.htm')}
    """
    if cache_dir is None or not Path(cache_dir).is_dir():
        return set()
    cache, sources = RenderCache(cache_dir), subresources if subresources is not None else SubresourceSources()
    found = set()
    for page in pages:
        entry = cache.path(page, settings, sources.for_page(page))
        if entry is not None and entry.is_file():
            found.add((page.site_id, page.path))
    return found


def hold_renderer(settings: RenderSettings) -> None:
    """Keep one :class:`Renderer` with ``settings`` for this process: :func:`render_pages` then uses it
    (started on the first cache miss) instead of starting and closing a Chromium per call.

    A worker process of a cluster holds one for its lifetime (:mod:`mainentity.distributed`), so the
    sites it is given one after another share one Chromium. Calls with the same settings keep the same
    renderer. Not for several threads rendering at once.

    >>> hold_renderer(RenderSettings()); release_renderers()  # nothing started until a page must render
    """
    _HELD.setdefault(settings, Renderer(settings))


def release_renderers() -> None:
    """Close the renderers kept by :func:`hold_renderer` (their Chromium, if started)."""
    while _HELD:
        _, renderer = _HELD.popitem()
        renderer.close()


def _unfinished(outcome: RenderOutcome, settings: RenderSettings) -> str:
    """Why ``outcome`` (a first, scripts-off rendering) is rendered again with scripts on under
    ``settings``: :func:`~mainentity.render.scripts.unfinished_reason` with ``javascript: "auto"``,
    else (or when it failed) ``""``."""
    if settings.javascript != "auto" or outcome.rendered is None:
        return ""
    return unfinished_reason(outcome.page, outcome.rendered)


def _kept(first: RenderOutcome, second: RenderOutcome | None, reason: str) -> RenderOutcome:
    """The scripts-on rendering ``second`` with its ``reason`` when it shows more than ``first``
    (:func:`~mainentity.render.scripts.shows_more`), else (it failed, timed out or is missing) ``first``."""
    if second is not None and second.rendered is not None and shows_more(second.rendered, first.rendered):
        return dataclasses.replace(second, scripts=reason)
    return first


class OnceUnwritable:
    """Stores into a cache directory, and says once when it cannot: a read-only or full disk costs the next
    run's speed, never this run's output.

    Parameters
    ----------
    directory : path-like
        The cache directory (named in the warning).
    what : str
        What is stored, plural ("renderings").
    redone : str
        What the next run does instead, past participle ("rendered").
    """

    def __init__(self, directory: str | os.PathLike, what: str, redone: str) -> None:
        self.directory, self.what, self.redone = directory, what, redone
        self.failed = False

    def store(self, put, *args) -> None:
        """``put(*args)``; an ``OSError`` is logged as a warning the first time, and not raised."""
        try:
            put(*args)
        except OSError as error:
            if not self.failed:
                logger.warning("%s not stored in the render cache %s (%s): pages are %s again on the next run",
                               self.what, self.directory, error, self.redone)
            self.failed = True


def render_pages(
    pages: Iterable[Page],
    settings: RenderSettings = RenderSettings(),  # noqa: B008 (frozen dataclass)
    cache_dir: str | os.PathLike | None = None,
    *,
    chunk_size: int = 256,
    renderer: Renderer | None = None,
    subresources: SubresourceSources | None = None,
) -> Iterator[RenderOutcome]:
    """Render pages, reading and filling the render cache; start Chromium only for cache misses.

    Pages are taken ``chunk_size`` at a time: the chunk's cached pages are yielded first (in input
    order), then its misses are rendered by one :class:`Renderer` kept open for the whole call (in
    order of completion) and stored. Failed pages are not cached, so a later run tries them again
    (except a second rendering that timed out, below).
    The subresources served and blocked per rendered page are logged at the end (INFO).

    With ``settings.javascript == "auto"``, the chunk's pages whose first rendering (cached or not)
    looks unfinished come last: each gets its scripts-on rendering from the cache (under the key of
    ``javascript: true``) or from the same renderer's scripts-on tabs (``Renderer.render(...,
    scripts=True)``: one attempt within ``settings.timeout_s``), and is yielded with it when it shows
    more (``scripts`` says why), else with its first rendering (module docstring). A second rendering
    that timed out is noted in the cache, and not tried again while the note holds (module docstring).
    The scripts-on tabs are closed once the chunk's second renderings are done
    (:meth:`Renderer.close_idle_tabs`). A rendering the cache cannot store (a read-only or full disk) is
    yielded all the same; the first such failure is logged as a warning, the others are not.

    A caller that renders many small batches (one page at a time, as :func:`mainentity.api.extract`
    does) passes its own ``renderer``: it is started on the first cache miss if it is not running and
    left running, so the next call reuses the same Chromium; the caller closes it.

    Parameters
    ----------
    pages : iterable of Page
        Consumed lazily.
    settings : RenderSettings
    cache_dir : str or path-like, optional
        Cache directory; ``None`` renders every page and caches nothing.
    chunk_size : int
        Pages looked up per round; bounds the memory held for cache hits.
    renderer : Renderer, optional
        The renderer of the cache misses, with these ``settings``; not closed here. Default: the one
        :func:`hold_renderer` keeps for these settings, else one started on the first miss and closed
        when the iteration ends.
    subresources : SubresourceSources, optional
        What serves each site's stylesheets, fonts and images (the ``subresources`` of
        :func:`mainentity.loading.load_pages`); by default only a page whose URL is its file's
        ``file://`` URI finds the files of its directory.

    Yields
    ------
    outcome : RenderOutcome
        One per page.

    Raises
    ------
    FileNotFoundError
        If a page must be rendered and the Chromium executable does not exist.
    ValueError
        If ``chunk_size < 1``, or ``renderer`` has other settings than ``settings``.

    Examples
    --------
    >>> import tempfile
    >>> page = Page("s", "1.htm", "http://s.test/1", "<title>T</title>")
    >>> cache_dir = tempfile.mkdtemp()
    >>> RenderCache(cache_dir).put(RenderOutcome(page, RenderedPage("T", (), ())), RenderSettings())
    >>> [o.rendered.title for o in render_pages([page], RenderSettings(), cache_dir)]  # no browser
    ['T']
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1; got {chunk_size}")
    if renderer is not None and renderer.settings != settings:
        raise ValueError(f"the renderer's settings {renderer.settings} differ from {settings}")
    if renderer is None:
        renderer = _HELD.get(settings)  # the process's own (hold_renderer), when it keeps one
    owned = renderer is None
    cache = RenderCache(cache_dir) if cache_dir is not None else None
    subresources = subresources if subresources is not None else SubresourceSources()
    source = iter(pages)
    n_rendered = n_served = n_blocked = 0
    store = OnceUnwritable(cache_dir, "renderings", "rendered").store

    def cached(page: Page, keyed: RenderSettings) -> RenderOutcome | None:
        return cache.get(page, keyed, subresources.for_page(page)) if cache is not None else None

    def timed_out_before(first: RenderOutcome, keyed: RenderSettings) -> str:
        return cache.scripts_timeout(first, keyed, subresources.for_page(first.page)) if cache is not None else ""

    def rendered(misses: list[Page], keyed: RenderSettings) -> Iterator[RenderOutcome]:
        """The renderings of ``misses`` with scripts on when ``keyed`` says so, each stored under its key."""
        nonlocal renderer, n_rendered, n_served, n_blocked
        if renderer is None:
            renderer = Renderer(settings)
        renderer.start()  # idempotent: a caller's running renderer is reused
        for outcome in renderer.render(misses, subresources, scripts=keyed.javascript is True):
            if cache is not None and outcome.rendered is not None:
                store(cache.put, outcome, keyed, subresources.for_page(outcome.page))
            n_rendered += 1
            n_served += outcome.n_subresources_served
            n_blocked += outcome.n_subresources_blocked
            yield outcome

    try:
        while chunk := list(itertools.islice(source, chunk_size)):
            misses, unfinished = [], []  # unfinished: (first rendering, reason) to render with scripts on
            for page in chunk:
                outcome = cached(page, settings)
                if outcome is None:
                    misses.append(page)
                elif reason := _unfinished(outcome, settings):
                    unfinished.append((outcome, reason))
                else:
                    yield outcome
            for outcome in rendered(misses, settings) if misses else ():
                if reason := _unfinished(outcome, settings):
                    unfinished.append((outcome, reason))
                else:
                    yield outcome
            if not unfinished:
                continue
            # javascript "auto": the second renderings, from the cache (under true's key) or Chromium
            scripts_on = dataclasses.replace(settings, javascript=True)  # cached under javascript: true's key
            seconds = {id(first): cached(first.page, scripts_on) for first, _ in unfinished}
            missing = [first for first, _ in unfinished if seconds[id(first)] is None]
            again = [first for first in missing if not timed_out_before(first, scripts_on)]
            fresh = {}
            if again:
                fresh = {(o.page.site_id, o.page.path): o for o in rendered([f.page for f in again], scripts_on)}
                renderer.close_idle_tabs(scripts=True)  # few pages need them: no renderer process kept per slot
            for first in again if cache is not None else ():
                second = fresh.get((first.page.site_id, first.page.path))
                if second is not None and second.timed_out:
                    store(cache.put_scripts_timeout, first, second, scripts_on, subresources.for_page(first.page))
            kept = [
                _kept(first, seconds[id(first)] or fresh.get((first.page.site_id, first.page.path)), reason)
                for first, reason in unfinished
            ]
            logger.info("%d of %d pages looked unfinished with scripts off, %d rendered again with scripts on "
                        "(%d not: timed out before), %d of those renderings kept", len(unfinished), len(chunk),
                        len(again), len(missing) - len(again), sum(1 for o in kept if o.scripts))
            yield from kept
    finally:
        if n_rendered:
            logger.info(
                "%s in Chromium (a page rendered again with scripts on counts twice): %.1f subresources "
                "served from the dump and %.1f requests blocked per rendering", counted(n_rendered, "rendering"),
                n_served / max(n_rendered, 1), n_blocked / max(n_rendered, 1)
            )
        if owned and renderer is not None:
            renderer.close()
