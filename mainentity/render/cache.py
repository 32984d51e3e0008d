"""On-disk cache of rendered pages, so training and evaluation never render a page twice.

An entry is keyed by a SHA-256 over the page's markup and URL, the render settings that change the
output (JavaScript, viewport), the browser's version (:func:`~mainentity.render.browser.browser_version`)
and the version of the extraction script (``blocks.js``); it holds the
:class:`~mainentity.records.RenderedPage` as compact gzipped JSON (blocks as arrays in
:class:`~mainentity.records.TextBlock` field order). Writes are atomic (temporary file, then
:func:`os.replace`), so an interrupted run leaves whole entries or none. After a Chromium upgrade,
pages are rendered anew; the old entries stay until the directory is cleared.
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
from mainentity.render.browser import (
    BLOCKS_JS_VERSION,
    META_KEYS,
    Renderer,
    RenderOutcome,
    RenderSettings,
    browser_version,
)

logger = logging.getLogger(__name__)

#: Version of the entry layout below; bump it when the stored JSON changes shape.
CACHE_FORMAT = 1

_BLOCK_FIELDS = tuple(field.name for field in dataclasses.fields(TextBlock))


def cache_key(page: Page, settings: RenderSettings) -> str:
    """Hex SHA-256 naming a page's cache entry.

    Covers the markup, the URL, ``settings.javascript``, the viewport, the browser's version (of the
    executable at ``settings.executable_path``), the ``blocks.js`` version, the kept meta keys and the
    entry format; not the timeout, concurrency or retries, which do not change the output.

    >>> a = Page("s", "1.htm", "http://s.test/1", "<p>x</p>")
    >>> cache_key(a, RenderSettings()) == cache_key(a, RenderSettings(concurrency=1, timeout_s=5))
    True
    >>> cache_key(a, RenderSettings()) == cache_key(a, RenderSettings(javascript=True))
    False
    """
    head = json.dumps(
        [
            CACHE_FORMAT,
            BLOCKS_JS_VERSION,
            META_KEYS,
            settings.javascript,
            settings.viewport_width,
            settings.viewport_height,
            browser_version(settings.executable_path),
            page.url,
        ]
    )
    digest = hashlib.sha256(head.encode("utf-8"))
    digest.update(b"\0")
    digest.update(page.html.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def dump_rendered(rendered: RenderedPage) -> bytes:
    """Serialise a rendered page to the cache's compact JSON (UTF-8, not yet compressed).

    >>> block = TextBlock("Hi", "h1", "html[0]/body[1]/h1[0]", 32.0, 700, True, 8.0, 8.0, 40.0, 37.0)
    >>> page = RenderedPage("T", (("og:title", "Hi"),), (block,), 1024.0, 900.0)
    >>> load_rendered(dump_rendered(page)) == page
    True
    """
    return json.dumps(
        {
            "format": CACHE_FORMAT,
            "fields": _BLOCK_FIELDS,
            "title": rendered.title,
            "meta": rendered.meta,
            "width": rendered.width,
            "height": rendered.height,
            "blocks": [[getattr(block, name) for name in _BLOCK_FIELDS] for block in rendered.blocks],
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")


def load_rendered(data: bytes) -> RenderedPage:
    """Inverse of :func:`dump_rendered`.

    Raises
    ------
    ValueError
        If ``data`` is not an entry of this format (corrupt, or written by another version).
    """
    try:
        obj = json.loads(data)
        if obj["format"] != CACHE_FORMAT or tuple(obj["fields"]) != _BLOCK_FIELDS:
            raise ValueError(f"cache entry format {obj['format']} with fields {obj['fields']}")
        return RenderedPage(
            title=obj["title"],
            meta=tuple((key, content) for key, content in obj["meta"]),
            blocks=tuple(TextBlock(*row) for row in obj["blocks"]),
            width=obj["width"],
            height=obj["height"],
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed cache entry: {exc!r}") from exc


class RenderCache:
    """A directory of rendered pages keyed by :func:`cache_key`.

    Entries live at ``<directory>/<key[:2]>/<key>.json.gz``. Safe for several processes: writes are
    atomic, and a corrupt or foreign entry reads as a miss.

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
    >>> cache.put(page, RenderSettings(), RenderedPage("T", (), ()))
    >>> cache.get(page, RenderSettings()).title
    'T'
    """

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)

    def path(self, page: Page, settings: RenderSettings) -> Path:
        """Where the entry of ``page`` rendered with ``settings`` is stored."""
        key = cache_key(page, settings)
        return self.directory / key[:2] / f"{key}.json.gz"

    def get(self, page: Page, settings: RenderSettings) -> RenderedPage | None:
        """The cached rendering of ``page``, or ``None`` on a miss (absent, corrupt or foreign entry)."""
        path = self.path(page, settings)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return None
        try:
            return load_rendered(gzip.decompress(data))
        except (OSError, EOFError, ValueError) as exc:
            logger.warning("ignoring unreadable render cache entry %s: %s", path, exc)
            return None

    def put(self, page: Page, settings: RenderSettings, rendered: RenderedPage) -> None:
        """Store the rendering of ``page`` atomically (replacing any previous entry).

        Raises
        ------
        OSError
            If the directory cannot be created or written.
        """
        path = self.path(page, settings)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = gzip.compress(dump_rendered(rendered), compresslevel=6, mtime=0)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def render_pages(
    pages: Iterable[Page],
    settings: RenderSettings = RenderSettings(),  # noqa: B008 (frozen dataclass)
    cache_dir: str | os.PathLike | None = None,
    *,
    chunk_size: int = 256,
) -> Iterator[RenderOutcome]:
    """Render pages, reading and filling the render cache; start Chromium only for cache misses.

    Pages are taken ``chunk_size`` at a time: the chunk's cached pages are yielded first (in input
    order), then its misses are rendered by one :class:`Renderer` kept open for the whole call (in
    order of completion) and stored. Failed pages are not cached, so a later run tries them again.

    Parameters
    ----------
    pages : iterable of Page
        Consumed lazily.
    settings : RenderSettings
    cache_dir : str or path-like, optional
        Cache directory; ``None`` renders every page and caches nothing.
    chunk_size : int
        Pages looked up per round; bounds the memory held for cache hits.

    Yields
    ------
    outcome : RenderOutcome
        One per page.

    Raises
    ------
    FileNotFoundError
        If a page must be rendered and the Chromium executable does not exist.

    Examples
    --------
    >>> import tempfile
    >>> page = Page("s", "1.htm", "http://s.test/1", "<title>T</title>")
    >>> cache_dir = tempfile.mkdtemp()
    >>> RenderCache(cache_dir).put(page, RenderSettings(), RenderedPage("T", (), ()))
    >>> [o.rendered.title for o in render_pages([page], RenderSettings(), cache_dir)]  # no browser
    ['T']
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1; got {chunk_size}")
    cache = RenderCache(cache_dir) if cache_dir is not None else None
    source = iter(pages)
    renderer: Renderer | None = None
    try:
        while chunk := list(itertools.islice(source, chunk_size)):
            misses = []
            for page in chunk:
                rendered = cache.get(page, settings) if cache is not None else None
                if rendered is None:
                    misses.append(page)
                else:
                    yield RenderOutcome(page, rendered)
            if not misses:
                continue
            if renderer is None:
                renderer = Renderer(settings)
                renderer.start()
            for outcome in renderer.render(misses):
                if cache is not None and outcome.rendered is not None:
                    cache.put(outcome.page, settings, outcome.rendered)
                yield outcome
    finally:
        if renderer is not None:
            renderer.close()
