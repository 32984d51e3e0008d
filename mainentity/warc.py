"""Read crawls in WARC files (``.warc``, ``.warc.gz``) into :class:`~mainentity.records.Page`, one site per host.

A crawl (Common Crawl, Heritrix, ``wget --warc-file``, browsertrix) mixes many hosts in one file. Each
``response`` record with HTTP status 200 whose ``Content-Type`` is HTML (``text/html``,
``application/xhtml+xml``), or that has no useful type (none, ``application/octet-stream``,
``unknown/unknown``) and sniffs as HTML (:func:`mainentity.sitedump.sniff_html`), becomes a page:

- ``site_id`` is the host of its ``WARC-Target-URI`` (lower-cased, with the port when one is given):
  the unit of the link graph and of site-level cleaning;
- ``path`` is its ``WARC-Record-ID`` (unique in a crawl, and what the output row carries to find the
  record again), ``url`` its ``WARC-Target-URI``;
- its payload is decoded as a browser receives it (:func:`decode_http_payload`: chunked transfer
  coding, ``gzip``/``deflate``/``br`` content coding), then its bytes with the HTTP header's charset
  first, as a browser does (:func:`mainentity.sitedump.decode_html` with ``http_charset``).

Of page records with the same ``WARC-Record-ID`` or URL in the inputs, the first is kept
(:func:`read_warcs`).

Status-200 responses that are stylesheets, fonts or images (:func:`subresource_type`) are not pages
but are served to the pages of the same input when the renderer requests their URL
(:class:`WarcSubresources`, one per host, in :attr:`WarcInput.subresources`: the caller passes them to
the renderer), as the files of a site dump are. Only where each
record lies is kept (file and byte offset, a few hundred bytes a record, whatever its size); a record
is read when a page requests it, into a bounded in-memory copy shared by the process. So a crawl full
of images costs no memory for them, and a task sent to a worker of a cluster carries its site's list
of records, not their bytes (the worker reads them from the same WARC path: a shared file system, as
for site dumps).

Revisit records, other responses and other statuses are skipped and counted (:class:`WarcCounts`);
``request``, ``warcinfo`` and ``metadata`` records are counted as other records. A record that cannot
be decoded (binary, empty, an unknown content coding) becomes a :class:`~mainentity.sitedump.PageFailure`
of its host, with its URL. A truncated
or corrupt file becomes a failure whose ``site_id`` is the file and whose ``path`` is
``@<byte offset>``; reading goes on at the next record start found after the damage (the next gzip
member of a ``.warc.gz``, the next ``WARC/1.`` line of a ``.warc``), then with the next file. A record
whose content cannot be taken (a malformed ``WARC-Target-URI``, say) is a failure of the same kind at
its own offset, and the next record is read as usual. A page payload over
:data:`mainentity.sitedump.MAX_PAGE_BYTES`, recorded or once decoded, is a failure of its host: it is
never read or decompressed past that limit (a decompression bomb costs no more memory than a large page).

Labels for evaluation come from a ``manifest.jsonl`` in the folder of the WARC files: lines with
``url`` and ``main_entity`` (the site dump format of ``datasets/README.md``, matched by URL).

Records are read with FastWARC (``pip install -e '.[crawl]'``): 5-12x faster than warcio on the same
file (``benchmarks/results/warc_readers.md``).
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import mimetypes
import os
import posixpath
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from w3lib.url import canonicalize_url

from mainentity.records import Page
from mainentity.sitedump import (
    HTML_SUFFIXES,
    MANIFEST_NAME,
    MAX_MANIFEST_BYTES,
    MAX_PAGE_BYTES,
    DumpFile,
    FileMemo,
    PageFailure,
    PageReadError,
    SiteDump,
    decode_html,
    read_page_bytes,
    sniff_html,
)

logger = logging.getLogger(__name__)

#: File name endings (lower-cased) of WARC files.
WARC_SUFFIXES = (".warc", ".warc.gz")
#: Content types of HTML pages.
HTML_TYPES = ("text/html", "application/xhtml+xml")
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

_GZIP_MAGIC = b"\x1f\x8b\x08"
_WARC_MAGIC = b"WARC/1."
_CONTENT_LENGTH = re.compile(rb"^content-length:\s*(\d+)", re.I | re.M)
_SEARCH_CHUNK = 1 << 20
#: Bytes of an undecodable payload kept to sniff whether it is a page.
_PRESCAN_HEAD = 1024


@dataclass
class WarcCounts:
    """What the records of the WARC files were (counts of records).

    Attributes
    ----------
    n_pages : int
        HTML responses with status 200 that became pages (decoded or failed).
    n_subresources : int
        Status-200 stylesheets, fonts and images kept to serve to the pages (:func:`subresource_type`).
    n_revisits : int
        ``revisit`` records (skipped).
    n_not_html : int
        Status-200 responses of another content type (skipped).
    n_other_status : int
        Responses with a status other than 200 (skipped).
    n_other_records : int
        Records of other types (``request``, ``warcinfo``, ``metadata``, ...).
    n_damaged : int
        Places where a file was truncated or corrupt.
    n_duplicates : int
        Page records skipped because an earlier record had the same ``WARC-Record-ID`` (the same file
        given twice, a ``.warc`` beside its ``.warc.gz``) or the same URL (:func:`url_key`; a re-crawl).
    """

    n_pages: int = 0
    n_subresources: int = 0
    n_revisits: int = 0
    n_not_html: int = 0
    n_other_status: int = 0
    n_other_records: int = 0
    n_damaged: int = 0
    n_duplicates: int = 0

    def summary(self) -> str:
        """One log line.

        >>> WarcCounts(n_pages=3, n_subresources=2, n_revisits=1).summary()  # doctest: +NORMALIZE_WHITESPACE
        'WARC: 3 HTML pages, 2 stylesheets, fonts and images kept to serve them; skipped 1 revisits,
        0 other responses, 0 responses not 200, 0 duplicate pages; 0 other records; 0 damaged'
        """
        return (f"WARC: {self.n_pages} HTML pages, {self.n_subresources} stylesheets, fonts and images kept to "
                f"serve them; skipped {self.n_revisits} revisits, {self.n_not_html} other responses, "
                f"{self.n_other_status} responses not 200, {self.n_duplicates} duplicate pages; "
                f"{self.n_other_records} other records; {self.n_damaged} damaged")


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


@dataclass(frozen=True)
class WarcInput:
    """The pages of WARC files grouped into sites by host, and what could not be read.

    Attributes
    ----------
    sites : tuple of SiteDump
        One per host, sorted by host; ``directory`` is the first WARC file that held a page of it.
    failures : tuple of PageFailure
        Damaged places in the files (``site_id`` the file, ``path`` ``@<byte offset>``); records that
        could not be decoded are in their site's ``failures``.
    counts : WarcCounts
    subresources : mapping of str to WarcSubresources
        ``site_id -> `` what serves its pages' stylesheets, fonts and images (to pass to the renderer in
        a :class:`mainentity.sitedump.SubresourceSources`).
    """

    sites: tuple[SiteDump, ...]
    failures: tuple[PageFailure, ...]
    counts: WarcCounts = field(default_factory=WarcCounts)
    subresources: Mapping[str, WarcSubresources] = field(default_factory=dict)


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


def decode_http_payload(
    raw: bytes, content_encoding: str = "", transfer_encoding: str = "", max_bytes: int = MAX_PAGE_BYTES
) -> bytes:
    """An HTTP payload as a browser receives it: the chunked transfer coding and a ``gzip``, ``deflate``
    or ``br`` content coding removed.

    WARC writers such as ``wget`` and browsertrix record the payload as sent, and FastWARC leaves it so.
    warcio's readers remove the chunking and ``gzip``/``deflate``; Brotli's own ``decompress`` removes
    ``br`` (warcio's ``br`` reader does not work with brotli >= 1.2). As warcio does, a payload that its
    ``Transfer-Encoding`` calls chunked but that is not, or whose first bytes are not ``gzip``/``deflate``
    data, is taken as it is (servers mislabel payloads).

    Parameters
    ----------
    raw : bytes
        The HTTP payload as recorded (after the HTTP headers).
    content_encoding, transfer_encoding : str
        The response's ``Content-Encoding`` and ``Transfer-Encoding`` headers (empty when absent).
    max_bytes : int, default :data:`mainentity.sitedump.MAX_PAGE_BYTES`
        Largest payload returned, in bytes: decompression stops past it (a decompression bomb).

    Returns
    -------
    payload : bytes

    Raises
    ------
    ValueError
        If the content coding is none of these, the payload is not valid in it, or it is larger than
        ``max_bytes`` once decoded.
    ImportError
        If warcio is not installed (``pip install -e '.[crawl]'``).

    Examples
    --------
    >>> import gzip
    >>> body = gzip.compress(b"<h1>Hi</h1>")
    >>> decode_http_payload(b"%x\\r\\n%s\\r\\n0\\r\\n\\r\\n" % (len(body), body), "gzip", "chunked")
    b'<h1>Hi</h1>'
    >>> decode_http_payload(gzip.compress(bytes(10_000)), "gzip", max_bytes=1000)
    Traceback (most recent call last):
    ...
    ValueError: payload over the limit of 1000 bytes once decoded (content coding 'gzip'): not read
    """
    try:
        from warcio.bufferedreaders import BufferedReader, ChunkedDataReader
    except ImportError as error:
        raise ImportError("decoding HTTP payloads of WARC records needs warcio: pip install -e '.[crawl]'") from error
    coding = content_encoding.strip().lower()
    coding = {"identity": "", "x-gzip": "gzip"}.get(coding, coding)
    if coding not in ("", "gzip", "deflate", "br"):
        raise ValueError(f"content coding {content_encoding.strip()!r} cannot be decoded")
    if transfer_encoding.split(",")[-1].strip().lower() == "chunked":
        raw = ChunkedDataReader(io.BytesIO(raw)).read()
    try:
        if coding == "br":
            import brotli  # a dependency of FastWARC

            payload = brotli.Decompressor().process(raw, output_buffer_limit=max_bytes + 1)
        else:
            payload = BufferedReader(io.BytesIO(raw), decomp_type=coding).read(max_bytes + 1) if coding else raw
    except Exception as error:  # noqa: BLE001 - zlib.error, brotli.error: the codings' own errors
        raise ValueError(f"payload not valid in its content coding {coding!r}: {error}") from error
    if len(payload) > max_bytes:
        raise ValueError(f"payload over the limit of {max_bytes} bytes once decoded (content coding {coding!r}): "
                         "not read")
    return payload


def is_warc_file(path: str | Path) -> bool:
    """Whether ``path`` names a WARC file by its ending.

    >>> is_warc_file("crawl/CC-MAIN-0001.warc.gz"), is_warc_file("a.WARC"), is_warc_file("a.html")
    (True, True, False)
    """
    return str(path).lower().endswith(WARC_SUFFIXES)


def warc_files(path: str | Path) -> list[Path]:
    """The WARC files an input names: the file itself, or those in a folder (recursively, sorted).

    Hidden files and folders (name starting with ``.``) are skipped.
    """
    path = Path(path)
    if path.is_file():
        return [path] if is_warc_file(path) else []
    if not path.is_dir():
        return []
    return sorted(file for file in path.rglob("*") if is_warc_file(file.name) and file.is_file()
                  and not any(part.startswith(".") for part in file.relative_to(path).parts))


def is_warc_input(path: str | Path) -> bool:
    """Whether ``path`` is a WARC file, or a folder of WARC files rather than a site dump or dataset.

    A folder counts when it holds WARC files and neither a ``sites/`` folder nor HTML files at its top.

    >>> is_warc_input("missing.warc.gz"), is_warc_input("datasets/sample-shop")
    (True, False)
    """
    path = Path(path)
    if is_warc_file(path):
        return True
    if not path.is_dir() or (path / "sites").is_dir():
        return False
    if any(child.suffix.lower() in HTML_SUFFIXES for child in path.iterdir()):
        return False
    return bool(warc_files(path))


def site_of(url: str) -> str:
    """The site id of a URL: its host, lower-cased, with the port when the URL names one.

    >>> site_of("https://Shop.Example/p/1.html"), site_of("http://shop.example:8080/")
    ('shop.example', 'shop.example:8080')
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    return f"{host}:{parts.port}" if parts.port else host


def read_warcs(
    paths: Iterable[str | Path], *, max_pages_per_site: int | None = None
) -> WarcInput:
    """Read the HTML pages of WARC files (or folders of them) into one site per host.

    Parameters
    ----------
    paths : iterable of str or Path
        WARC files (``.warc``, ``.warc.gz``) and folders of them; a host spread over several files is
        one site.
    max_pages_per_site : int, optional
        Keep at most this many pages per host (in file order).

    Notes
    -----
    Of page records with the same ``WARC-Record-ID`` (the same file given twice, a ``.warc`` beside
    its ``.warc.gz``) or the same URL (:func:`url_key`; an overlapping re-crawl), the first in the
    order of ``paths`` is kept; the others are counted (``WarcCounts.n_duplicates``) and logged.

    Returns
    -------
    warc_input : WarcInput
        Each site's :class:`WarcSubresources` is in ``warc_input.subresources``: the renderer serves them
        to its pages when given them.

    Raises
    ------
    FileNotFoundError
        If a path does not exist.
    ValueError
        If a path is neither a WARC file nor a folder holding one.
    ImportError
        If FastWARC is not installed.
    """
    files: list[Path] = []
    for path in paths:
        if not Path(path).exists():
            raise FileNotFoundError(f"{str(path)!r} does not exist")
        found = warc_files(path)
        if not found:
            raise ValueError(f"{str(path)!r} is neither a WARC file (.warc, .warc.gz) nor a folder of them")
        files.extend(found)
    labels = _labels_beside(files)
    counts = WarcCounts()
    pages: dict[str, list[Page]] = {}
    site_failures: dict[str, list[PageFailure]] = {}
    where: dict[str, Path] = {}
    damaged: list[PageFailure] = []
    records: dict[str, dict[str, SubresourceRecord]] = {}  # host -> url_key -> first record
    first_of: dict[str, str] = {}  # WARC-Record-ID and url_key of each page record kept -> where it is
    duplicates: list[str] = []
    for file in files:
        for item in iter_warc(file, counts):
            if isinstance(item, SubresourceRecord):
                records.setdefault(site_of(item.url), {}).setdefault(url_key(item.url), item)
                continue
            if isinstance(item, PageFailure) and item.path.startswith("@"):
                damaged.append(item)
                continue
            keys = (item.path, url_key(item.url)) if item.url else (item.path,)
            earlier = next((first_of[key] for key in keys if key in first_of), None)
            if earlier is not None:
                counts.n_pages -= 1  # iter_warc counted it as a page
                counts.n_duplicates += 1
                duplicates.append(f"{item.url} ({item.path} in {file}) duplicates {earlier}")
                continue
            first_of.update(dict.fromkeys(keys, f"{item.path} in {file}"))
            site_id = item.site_id
            where.setdefault(site_id, file)
            if isinstance(item, PageFailure):
                site_failures.setdefault(site_id, []).append(item)
                continue
            site_pages = pages.setdefault(site_id, [])
            if max_pages_per_site is None or len(site_pages) < max_pages_per_site:
                site_pages.append(Page(item.site_id, item.path, item.url, item.html,
                                       main_entity=labels.get(item.url, ())))
    logger.info("%s (%d files)", counts.summary(), len(files))
    if duplicates:
        logger.info("skipped %d duplicate page records (first kept), e.g. %s", len(duplicates), duplicates[0])
        for duplicate in duplicates:
            logger.debug("duplicate skipped: %s", duplicate)
    for failure in damaged:
        logger.warning("%s: %s", failure.site_id, failure.reason)
    sites = tuple(
        SiteDump(site_id, where[site_id], tuple(pages.get(site_id, ())), tuple(site_failures.get(site_id, ())))
        for site_id in sorted(where)
    )
    shared = {key: record for host, by_url in records.items() if host not in where for key, record in by_url.items()}
    subresources = {}
    for site in sites:
        subresources[site.site_id] = WarcSubresources(
            frozenset(page.path for page in site.pages), records.get(site.site_id, {}), shared)
    return WarcInput(sites, tuple(damaged), counts, subresources)


def _labels_beside(files: Iterable[Path]) -> dict[str, tuple[str, ...]]:
    """``url -> main_entity`` from the ``manifest.jsonl`` files in the folders of the WARC files. Labels
    are optional (``predict`` needs none): a manifest that cannot be read (not a regular file, over
    :data:`mainentity.sitedump.MAX_MANIFEST_BYTES`), and each line that is not an object with a string
    ``url`` and a list of string labels (bytes that are not UTF-8 included), is logged (WARNING) and skipped."""
    labels: dict[str, tuple[str, ...]] = {}
    for folder in dict.fromkeys(file.parent for file in files):
        manifest = folder / MANIFEST_NAME
        try:
            text = read_page_bytes(manifest, MAX_MANIFEST_BYTES).decode("utf-8", errors="replace")
        except FileNotFoundError:
            continue
        except (OSError, PageReadError) as error:
            logger.warning("%s: labels not read: %s", manifest, error)
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError) as error:
                entry = error
            found = entry.get("main_entity", []) if isinstance(entry, dict) else None
            if not (isinstance(found, list) and all(isinstance(label, str) for label in found)
                    and isinstance(entry.get("url"), str)):
                logger.warning("%s line %d skipped: not an object with a 'url' string and 'main_entity' strings"
                               "%s", manifest, number, f" ({entry})" if isinstance(entry, Exception) else "")
                continue
            labels[entry["url"]] = tuple(found)
    return labels


def iter_warc(
    file: str | Path, counts: WarcCounts | None = None
) -> Iterator[Page | PageFailure | SubresourceRecord]:
    """Yield the HTML pages of one WARC file in file order, where its stylesheets, fonts and images lie,
    and a failure for each bad record or damage.

    Pages carry no labels; see the module docstring for what becomes a page. The payload of a
    stylesheet, font or image is not read here (:func:`read_subresource` reads it). ``counts`` is
    updated in place. A damaged place yields ``PageFailure(str(file), "@<offset>", reason)`` and reading resumes at
    the next record start found after it.

    Raises
    ------
    ImportError
        If FastWARC is not installed.
    """
    try:
        from fastwarc.warc import ArchiveIterator, WarcRecordType
    except ImportError as error:
        raise ImportError("reading WARC files needs FastWARC: pip install -e '.[crawl]'") from error

    counts = counts if counts is not None else WarcCounts()
    file = Path(file)
    gz = file.name.lower().endswith(".gz")
    size = file.stat().st_size
    start: int | None = 0
    damage: tuple[int, str] | None = None  # where the damage being skipped began, and why
    while start is not None and start < size:
        last = None  # byte offset of the last record read whole in this pass
        last_item, counts_before_last = None, counts
        error = None
        with file.open("rb") as stream:
            stream.seek(start)
            try:
                for record in ArchiveIterator(stream, parse_http=True):
                    offset = record.stream_pos  # FastWARC counts from the file's start, even after a seek
                    counts_before = WarcCounts(**vars(counts))
                    try:
                        item = _record_item(record, WarcRecordType, counts, file, offset)
                    except Exception as exc:  # noqa: BLE001 - one record's content is one failure, at its offset
                        vars(counts).update(vars(counts_before))
                        counts.n_damaged += 1
                        item = PageFailure(str(file), f"@{offset}", f"unreadable WARC record at byte {offset}: {exc}")
                    if damage is not None:  # a whole record after the damage: report it once
                        yield _damage_failure(file, damage, resumed_at=start)
                        damage = None
                    last, last_item, counts_before_last = offset, item, counts_before
                    if item is not None:
                        yield item
            except Exception as exc:  # noqa: BLE001 - FastWARC raises OSError, ValueError, ...
                error = exc
        if error is not None:
            at = last if last is not None else start
            reason = f"corrupt WARC data at byte {at}: {error}"
        else:
            at = _trailing_damage(file, last if last is not None else start, gz)
            if at is None:
                break
            if at == last and isinstance(last_item, PageFailure):  # the cut page already has its failure row
                counts.n_damaged += 1
                break
            if at == last:  # the cut record (say, cut in its HTTP headers) is damage, not a record of its type
                vars(counts).update(vars(counts_before_last))
            reason = f"truncated or unreadable WARC record at byte {at}"
        if damage is None:
            counts.n_damaged += 1
            damage = (at, reason)
        start = _next_record_start(file, at + 1, gz)
    if damage is not None:
        yield _damage_failure(file, damage, resumed_at=None)


def _damage_failure(file: Path, damage: tuple[int, str], resumed_at: int | None) -> PageFailure:
    at, reason = damage
    resumed = f"; reading resumed at byte {resumed_at}" if resumed_at is not None else "; nothing readable after it"
    return PageFailure(str(file), f"@{at}", f"{reason}{resumed}")


def _record_item(
    record, record_types, counts: WarcCounts, file: Path, offset: int
) -> Page | PageFailure | SubresourceRecord | None:
    """The page (or failure) or subresource a record gives, or ``None`` for a record that is skipped
    (and counted)."""
    if record.record_type == record_types.revisit:
        counts.n_revisits += 1
        return None
    if record.record_type != record_types.response or record.http_headers is None:
        counts.n_other_records += 1
        return None
    if record.http_headers.status_code != 200:
        counts.n_other_status += 1
        return None
    content_type = (record.http_content_type or "").lower()
    url = record.headers.get("WARC-Target-URI", "")
    try:
        urlsplit(url).port  # noqa: B018 - parses the host and port, raising on a malformed one
    except ValueError as error:
        raise ValueError(f"malformed WARC-Target-URI {url!r}: {error}") from None
    if content_type not in HTML_TYPES and content_type not in UNKNOWN_TYPES:  # no payload to read
        return _subresource_item(record, counts, file, offset, url)
    raw = record.reader.read(MAX_PAGE_BYTES + 1)
    try:
        if len(raw) > MAX_PAGE_BYTES:
            raise ValueError(f"payload over the limit of {MAX_PAGE_BYTES} bytes: not read")
        payload, undecodable = decode_http_payload(raw, record.http_headers.get("Content-Encoding") or "",
                                                   record.http_headers.get("Transfer-Encoding") or ""), None
    except ValueError as error:
        payload, undecodable = raw[:_PRESCAN_HEAD], error
    if content_type not in HTML_TYPES and not sniff_html(payload):
        return _subresource_item(record, counts, file, offset, url)
    record_id = record.record_id or f"{file.name}@{offset}"
    counts.n_pages += 1
    site_id = site_of(url)
    if undecodable is None and record.reader.tell() < record.content_length:
        return PageFailure(site_id, record_id, f"{file}@{offset}: record truncated "
                           f"({record.reader.tell()} of {record.content_length} bytes)", url)
    if undecodable is not None:
        return PageFailure(site_id, record_id, f"{file}@{offset}: {undecodable}", url)
    try:
        html = decode_html(payload, url, http_charset=record.http_charset)
    except PageReadError as error:
        return PageFailure(site_id, record_id, str(error).removeprefix(f"{url}: "), url)
    return Page(site_id, record_id, url, html)


def _subresource_item(record, counts: WarcCounts, file: Path, offset: int, url: str) -> SubresourceRecord | None:
    """Where the record lies when it is a stylesheet, font or image (:func:`subresource_type`), else
    ``None`` (counted as another response)."""
    served_type = subresource_type(record.http_headers.get("Content-Type") or "", url)
    if served_type is None:
        counts.n_not_html += 1
        return None
    counts.n_subresources += 1
    return SubresourceRecord(url, str(file), offset, served_type)


def _trailing_damage(file: Path, last: int, gz: bool) -> int | None:
    """Offset of unread bytes after the record at ``last`` (a truncated last record), or ``None``.

    FastWARC ends without an error on a truncated last record; the bytes after the last record read
    whole tell it: a ``.warc.gz`` member must end and leave nothing but padding, a ``.warc`` record must
    be as long as its ``Content-Length`` says.
    """
    with file.open("rb") as stream:
        stream.seek(last)
        rest = stream.read()
    if gz:
        inflater = zlib.decompressobj(wbits=31)
        try:
            inflater.decompress(rest)
        except zlib.error:
            return last
        if not inflater.eof:
            return last
        leftover = inflater.unused_data
    else:
        head_end = rest.find(b"\r\n\r\n")
        length = _CONTENT_LENGTH.search(rest[:head_end]) if head_end >= 0 else None
        if length is None or len(rest) < head_end + 4 + int(length.group(1)):
            return last
        leftover = rest[head_end + 4 + int(length.group(1)):]
    if not leftover.strip(b"\r\n\0 "):
        return None
    return last + len(rest) - len(leftover)


def _next_record_start(file: Path, after: int, gz: bool) -> int | None:
    """The first offset at or after ``after`` where a gzip member (``.warc.gz``) or ``WARC/1.`` starts."""
    magic = _GZIP_MAGIC if gz else _WARC_MAGIC
    with file.open("rb") as stream:
        stream.seek(after)
        position, tail = after, b""
        while chunk := stream.read(_SEARCH_CHUNK):
            found = (tail + chunk).find(magic)
            if found >= 0:
                return position - len(tail) + found
            tail = chunk[-(len(magic) - 1):]
            position += len(chunk)
    return None
