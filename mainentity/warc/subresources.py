"""Serve the stylesheets, fonts and images recorded in WARC files to the pages of the same input.

Only where each record lies is kept (:class:`SubresourceRecord`: file and byte offset); a record is
read when a page requests it (:func:`read_subresource`), into a bounded in-memory copy shared by the
process. :class:`WarcSubresources` is the :class:`mainentity.sitedump.SubresourceSource` of one site.
"""

from __future__ import annotations

import hashlib
import logging
import mimetypes
import os
import posixpath
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from w3lib.url import canonicalize_url

from mainentity.records import Page
from mainentity.sitedump import MAX_PAGE_BYTES, DumpFile, FileMemo
from mainentity.warc.http_payload import decode_http_payload

logger = logging.getLogger(__name__)

#: Content types that say nothing, so the payload is sniffed (WHATWG MIME sniffing's "unknown" types).
UNKNOWN_TYPES = ("", "application/octet-stream", "unknown/unknown", "application/unknown", "*/*")
#: Content types of fonts under ``application/`` (besides ``font/*``), as servers still send them.
FONT_APPLICATION_TYPES = (
    "application/font-woff", "application/font-woff2", "application/x-font-woff", "application/font-sfnt",
    "application/x-font-ttf", "application/x-font-truetype", "application/x-font-otf",
    "application/x-font-opentype", "application/vnd.ms-fontobject",
)
#: URL path endings that make a response of an unknown content type a stylesheet, font or image.
SUBRESOURCE_SUFFIXES = (
    ".css", ".woff", ".woff2", ".ttf", ".otf", ".eot",
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".svg", ".ico", ".bmp",
)
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class SubresourceRecord:
    """Where a stylesheet, font or image response lies in a WARC file (its bytes are read when served).

    Attributes
    ----------
    url : str
        Its ``WARC-Target-URI``.
    file : str
        The WARC file.
    offset : int
        Byte offset of the record in the file (of its gzip member in a ``.warc.gz``).
    content_type : str
        The ``Content-Type`` it is served with (:func:`subresource_type`).
    """

    url: str
    file: str
    offset: int
    content_type: str


@dataclass(frozen=True)
class WarcSubresources:
    """The stylesheet, font and image records of a WARC input that serve one site's pages: the
    :class:`mainentity.sitedump.SubresourceSource` of the site (one host).

    A request is matched with a record by URL (:func:`url_key` of both). The renderer sees absolute
    request URLs, relative references already resolved by Chromium against the page's URL (its
    ``WARC-Target-URI``) or its ``<base href>``. A site's records are those of its own host and those of
    the hosts that have no page in the input (a CDN, a font service): what a task of a cluster carries
    stays proportional to the site, however many hosts the crawl holds. A stylesheet of another host
    that has pages of its own is not served. Where a URL was recorded twice, the first record in file
    order is served. Picklable (no lock, no open file).

    Attributes
    ----------
    page_paths : frozenset of str
        ``WARC-Record-ID`` of each page of the site (:meth:`holds_page`).
    own : mapping of str to SubresourceRecord
        Records of the site's host, by :func:`url_key`.
    shared : mapping of str to SubresourceRecord
        Records of hosts without pages, by :func:`url_key` (one mapping for every site of the input).

    Examples
    --------
    >>> css = SubresourceRecord("https://s.example/a.css", "crawl.warc.gz", 1234, "text/css")
    >>> files = WarcSubresources(frozenset({"<urn:uuid:1>"}), {url_key(css.url): css}, {})
    >>> files.holds_subresources, files.holds_page(Page("s.example", "<urn:uuid:1>", "https://s.example/", ""))
    (True, True)
    >>> files.find("https://s.example/b.css", "https://s.example/", "<urn:uuid:1>") is None
    True
    """

    page_paths: frozenset[str]
    own: Mapping[str, SubresourceRecord]
    shared: Mapping[str, SubresourceRecord]

    @property
    def holds_subresources(self) -> bool:
        """Whether there is any record to serve."""
        return bool(self.own) or bool(self.shared)

    def holds_page(self, page: Page) -> bool:
        """Whether ``page`` is one of the site's records (by its ``WARC-Record-ID``)."""
        return page.path in self.page_paths

    def find(self, url: str, page_url: str = "", page_path: str = "") -> DumpFile | None:
        """The record of the absolute request ``url``, read (:func:`read_subresource`), or ``None`` when
        the input has no such record or it cannot be read. ``page_url`` and ``page_path`` are not
        needed: records are found by their absolute URL."""
        key = url_key(url)
        record = self.own.get(key) or self.shared.get(key)
        return read_subresource(record) if record is not None else None


def url_key(url: str) -> str:
    """A URL as a browser requests it, to match a page's request with a record's ``WARC-Target-URI``.

    The angle brackets some WARC writers put around the URI are dropped; w3lib's ``canonicalize_url``
    percent-encodes the path and query as browsers do (UTF-8), lower-cases the scheme and host (IDNA),
    drops the fragment and sorts the query's arguments; the scheme's default port is dropped.

    >>> url_key("<https://Shop.Example:443/css/a b.css#top>")
    'https://shop.example/css/a%20b.css'
    >>> url_key("http://cdn.example/caf\u00e9.woff2?v=2&b=1") == url_key("http://cdn.example:80/caf%C3%A9.woff2?b=1&v=2")
    True
    """
    url = url.strip().removeprefix("<").removesuffix(">")
    try:
        parts = urlsplit(canonicalize_url(url, keep_fragments=False))
        if parts.port is not None and _DEFAULT_PORTS.get(parts.scheme) == parts.port:
            parts = parts._replace(netloc=parts.netloc.rsplit(":", 1)[0])
    except ValueError:  # no valid URL: matched as it is
        return url
    return urlunsplit(parts)


def subresource_type(content_type: str, url: str) -> str | None:
    """The ``Content-Type`` a status-200 response is served to pages with when it is a stylesheet, a
    font or an image; ``None`` when it is none of them.

    A stylesheet (``text/css``), a font (``font/*``, :data:`FONT_APPLICATION_TYPES`) or an image
    (``image/*``) keeps its header as recorded (a stylesheet's ``charset`` tells the browser how to
    decode it). A response of a type that says nothing (:data:`UNKNOWN_TYPES`) whose URL path ends in
    one of :data:`SUBRESOURCE_SUFFIXES` gets the type that ending names.

    Parameters
    ----------
    content_type : str
        The response's HTTP ``Content-Type`` header, parameters included (empty when it has none).
    url : str
        Its URL.

    Returns
    -------
    content_type : str or None

    Examples
    --------
    >>> subresource_type("text/css; charset=utf-8", "https://s.example/a.css")
    'text/css; charset=utf-8'
    >>> subresource_type("application/octet-stream", "https://s.example/f/a.woff2?v=3")
    'font/woff2'
    >>> subresource_type("text/javascript", "https://s.example/a.js") is None
    True
    """
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "text/css" or media.startswith(("font/", "image/")) or media in FONT_APPLICATION_TYPES:
        return content_type.strip()
    path = urlsplit(url).path.lower()
    if media in UNKNOWN_TYPES and path.endswith(SUBRESOURCE_SUFFIXES):
        return mimetypes.guess_type(posixpath.basename(path), strict=False)[0] or "application/octet-stream"
    return None


#: Records read for serving, shared by every site of the process (bounded: :class:`mainentity.sitedump.FileMemo`).
_READ_RECORDS = FileMemo()


def read_subresource(record: SubresourceRecord) -> DumpFile | None:
    """Read a stylesheet, font or image record's HTTP payload for serving, or ``None`` if it cannot be.

    The payload is decoded as a browser receives it (:func:`decode_http_payload`). Payloads are kept in memory up to
    :data:`mainentity.sitedump.MAX_CACHED_BYTES` for the whole process, and read again when the file's
    size or modification time changes. A record that is missing, truncated, not the response of its
    URL, or in a content coding that cannot be decoded is logged (WARNING) and not served.

    Parameters
    ----------
    record : SubresourceRecord

    Returns
    -------
    file : DumpFile or None
        ``path`` the record's URL, ``data`` the payload, ``sha256`` its hex SHA-256 and
        ``content_type`` the record's.

    Raises
    ------
    ImportError
        If warcio is not installed (``pip install -e '.[crawl]'``).
    """
    try:
        status = os.stat(record.file)
    except OSError as error:
        logger.warning("%s: not served: %s", record.url, error)
        return None
    key, stamp = (record.file, record.offset), (status.st_size, status.st_mtime_ns)
    found = _READ_RECORDS.get(key, stamp)
    if found is not None:
        return found
    try:
        data = _payload(record)
    except (OSError, ValueError, EOFError, zlib.error) as error:
        logger.warning("%s (%s@%d): not served: %s", record.url, record.file, record.offset, error)
        return None
    found = DumpFile(record.url, data, hashlib.sha256(data).hexdigest(), record.content_type)
    _READ_RECORDS.put(key, stamp, found)
    return found


def _payload(record: SubresourceRecord) -> bytes:
    """The decoded HTTP payload of the response record at ``record.offset`` (:func:`decode_http_payload`).

    Raises
    ------
    ValueError
        If no response record of ``record.url`` starts there, its content coding cannot be decoded or
        the record is truncated.
    """
    try:
        from warcio.archiveiterator import ArchiveIterator
    except ImportError as error:
        raise ImportError("serving stylesheets from WARC files needs warcio: pip install -e '.[crawl]'") from error
    with open(record.file, "rb") as stream:
        stream.seek(record.offset)
        found = next(iter(ArchiveIterator(stream)), None)
        uri = found.rec_headers.get_header("WARC-Target-URI", "") if found is not None else ""
        if found is None or found.rec_type != "response" or found.http_headers is None or uri != record.url:
            raise ValueError(f"no response record of {record.url} at byte {record.offset}")
        raw = found.raw_stream.read(MAX_PAGE_BYTES + 1)
        if len(raw) > MAX_PAGE_BYTES:
            raise ValueError(f"payload over the limit of {MAX_PAGE_BYTES} bytes: not read")
        if getattr(found.raw_stream, "limit", 0):
            raise ValueError(f"record truncated ({found.raw_stream.limit} bytes missing)")
        headers = found.http_headers
        return decode_http_payload(raw, headers.get_header("Content-Encoding") or "",
                                   headers.get_header("Transfer-Encoding") or "")
