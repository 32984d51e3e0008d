"""Read crawls in WARC files (``.warc``, ``.warc.gz``) into :class:`~mainentity.records.Page`, one site per host.

A crawl (Common Crawl, Heritrix, ``wget --warc-file``, browsertrix) mixes many hosts in one file. Each
``response`` record with HTTP status 200 whose ``Content-Type`` is HTML (``text/html``,
``application/xhtml+xml``), or that has no useful type (none, ``application/octet-stream``,
``unknown/unknown``) and sniffs as HTML (:func:`mainentity.sitedump.sniff_html`), becomes a page:

- ``site_id`` is the host of its ``WARC-Target-URI`` (lower-cased, with the port when one is given):
  the unit of the link graph and of site-level cleaning;
- ``path`` is its ``WARC-Record-ID`` (unique in a crawl, and what the output row carries to find the
  record again), ``url`` its ``WARC-Target-URI``;
- its bytes are decoded with the HTTP header's charset first, as a browser does
  (:func:`mainentity.sitedump.decode_html` with ``http_charset``).

Revisit records, non-HTML responses and other statuses are skipped and counted (:class:`WarcCounts`);
``request``, ``warcinfo`` and ``metadata`` records are counted as other records. A record that cannot
be decoded (binary, empty) becomes a :class:`~mainentity.sitedump.PageFailure` of its host. A truncated
or corrupt file becomes a failure whose ``site_id`` is the file and whose ``path`` is
``@<byte offset>``; reading goes on at the next record start found after the damage (the next gzip
member of a ``.warc.gz``, the next ``WARC/1.`` line of a ``.warc``), then with the next file.

Labels for evaluation come from a ``manifest.jsonl`` in the folder of the WARC files: lines with
``url`` and ``main_entity`` (the site dump format of ``datasets/README.md``, matched by URL).

Records are read with FastWARC (``pip install -e '.[crawl]'``): 5-12x faster than warcio on the same
file (``benchmarks/results/warc_readers.md``).
"""

from __future__ import annotations

import json
import logging
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from mainentity.records import Page
from mainentity.sitedump import (
    HTML_SUFFIXES,
    MANIFEST_NAME,
    PageFailure,
    PageReadError,
    SiteDump,
    decode_html,
    sniff_html,
)

logger = logging.getLogger(__name__)

#: File name endings (lower-cased) of WARC files.
WARC_SUFFIXES = (".warc", ".warc.gz")
#: Content types of HTML pages.
HTML_TYPES = ("text/html", "application/xhtml+xml")
#: Content types that say nothing, so the payload is sniffed (WHATWG MIME sniffing's "unknown" types).
UNKNOWN_TYPES = ("", "application/octet-stream", "unknown/unknown", "application/unknown", "*/*")

_GZIP_MAGIC = b"\x1f\x8b\x08"
_WARC_MAGIC = b"WARC/1."
_CONTENT_LENGTH = re.compile(rb"^content-length:\s*(\d+)", re.I | re.M)
_SEARCH_CHUNK = 1 << 20


@dataclass
class WarcCounts:
    """What the records of the WARC files were (counts of records).

    Attributes
    ----------
    n_pages : int
        HTML responses with status 200 that became pages (decoded or failed).
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
    """

    n_pages: int = 0
    n_revisits: int = 0
    n_not_html: int = 0
    n_other_status: int = 0
    n_other_records: int = 0
    n_damaged: int = 0

    def summary(self) -> str:
        """One log line.

        >>> WarcCounts(n_pages=3, n_revisits=1).summary()
        'WARC: 3 HTML pages; skipped 1 revisits, 0 non-HTML responses, 0 responses not 200; 0 other records; 0 damaged'
        """
        return (f"WARC: {self.n_pages} HTML pages; skipped {self.n_revisits} revisits, {self.n_not_html} non-HTML "
                f"responses, {self.n_other_status} responses not 200; {self.n_other_records} other records; "
                f"{self.n_damaged} damaged")


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
    """

    sites: tuple[SiteDump, ...]
    failures: tuple[PageFailure, ...]
    counts: WarcCounts = field(default_factory=WarcCounts)


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

    Returns
    -------
    warc_input : WarcInput

    Raises
    ------
    ValueError
        If a path is neither a WARC file nor a folder holding one.
    ImportError
        If FastWARC is not installed.
    """
    files: list[Path] = []
    for path in paths:
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
    for file in files:
        for item in iter_warc(file, counts):
            if isinstance(item, PageFailure) and item.path.startswith("@"):
                damaged.append(item)
                continue
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
    for failure in damaged:
        logger.warning("%s: %s", failure.site_id, failure.reason)
    sites = tuple(
        SiteDump(site_id, where[site_id], tuple(pages.get(site_id, ())), tuple(site_failures.get(site_id, ())))
        for site_id in sorted(where)
    )
    return WarcInput(sites, tuple(damaged), counts)


def _labels_beside(files: Iterable[Path]) -> dict[str, tuple[str, ...]]:
    """``url -> main_entity`` from the ``manifest.jsonl`` files in the folders of the WARC files."""
    labels: dict[str, tuple[str, ...]] = {}
    for folder in dict.fromkeys(file.parent for file in files):
        manifest = folder / MANIFEST_NAME
        if not manifest.is_file():
            continue
        for number, line in enumerate(manifest.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                labels[entry["url"]] = tuple(entry.get("main_entity", ()))
            except (ValueError, KeyError, TypeError) as error:
                logger.warning("%s line %d skipped: %s", manifest, number, error)
    return labels


def iter_warc(file: str | Path, counts: WarcCounts | None = None) -> Iterator[Page | PageFailure]:
    """Yield the HTML pages of one WARC file in file order, and a failure for each bad record or damage.

    Pages carry no labels; see the module docstring for what becomes a page. ``counts`` is updated in
    place. A damaged place yields ``PageFailure(str(file), "@<offset>", reason)`` and reading resumes at
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
        error = None
        with file.open("rb") as stream:
            stream.seek(start)
            try:
                for record in ArchiveIterator(stream, parse_http=True):
                    offset = record.stream_pos  # FastWARC counts from the file's start, even after a seek
                    item = _record_item(record, WarcRecordType, counts, file, offset)
                    if damage is not None:  # a whole record after the damage: report it once
                        yield _damage_failure(file, damage, resumed_at=start)
                        damage = None
                    last = offset
                    if item is not None:
                        yield item
            except Exception as exc:  # noqa: BLE001 - FastWARC raises OSError, ValueError, ...
                error = exc
        if error is not None:
            at = last if last is not None else start
            reason = f"corrupt WARC data after byte {at}: {error}"
        else:
            at = _trailing_damage(file, last if last is not None else start, gz)
            if at is None:
                break
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


def _record_item(record, record_types, counts: WarcCounts, file: Path, offset: int) -> Page | PageFailure | None:
    """The page (or failure) a record gives, or ``None`` for a record that is skipped (and counted)."""
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
    record_id = record.record_id or f"{file.name}@{offset}"
    payload = record.reader.read()
    if content_type not in HTML_TYPES and not (content_type in UNKNOWN_TYPES and sniff_html(payload)):
        counts.n_not_html += 1
        return None
    counts.n_pages += 1
    site_id = site_of(url)
    if record.reader.tell() < record.content_length:
        return PageFailure(site_id, record_id, f"{file}@{offset}: record truncated "
                           f"({record.reader.tell()} of {record.content_length} bytes)")
    try:
        html = decode_html(payload, url, http_charset=record.http_charset)
    except PageReadError as error:
        return PageFailure(site_id, record_id, str(error).removeprefix(f"{url}: "))
    return Page(site_id, record_id, url, html)


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
        if length is None:
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
