"""Read the records of one WARC file: pages, where its stylesheets, fonts and images lie, and damage.

See the package docstring (:mod:`mainentity.warc`) for what becomes a page and how a damaged file is
read on (:func:`iter_warc`).
"""

from __future__ import annotations

import io
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit

from mainentity.records import Page
from mainentity.sitedump import MAX_PAGE_BYTES, PageFailure, PageReadError, decode_html, sniff_html
from mainentity.warc.http_payload import decode_http_payload
from mainentity.warc.subresources import UNKNOWN_TYPES, SubresourceRecord, subresource_type

#: Content types of HTML pages.
HTML_TYPES = ("text/html", "application/xhtml+xml")

_GZIP_MAGIC = b"\x1f\x8b\x08"
_WARC_MAGIC = b"WARC/1."
_CONTENT_LENGTH = re.compile(rb"^content-length:\s*(\d+)", re.I | re.M)
_SEARCH_CHUNK = 1 << 20
#: A record header's start inside another record's payload: the end of a record (CRLF CRLF), then a
#: ``WARC/1.0`` or ``WARC/1.1`` line and a ``WARC-*`` or ``Content-*`` field.
_EMBEDDED_HEAD = re.compile(rb"\r\n\r\nWARC/1\.[01]\r\n(?:WARC|Content)-[A-Za-z-]*:")
#: How a record header starts: at a payload's very end after CRLF CRLF, a start of one of these (``W`` at
#: least) hints that the payload ran into the next record.
_CUT_HEAD_STARTS = tuple(b"WARC/" + version + b"\r\n" + field for version in (b"1.0", b"1.1")
                         for field in (b"WARC-", b"Content-"))
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


def site_of(url: str) -> str:
    """The site id of a URL: its host, lower-cased, with the port when the URL names one.

    >>> site_of("https://Shop.Example/p/1.html"), site_of("http://shop.example:8080/")
    ('shop.example', 'shop.example:8080')
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    return f"{host}:{parts.port}" if parts.port else host


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
        held = None  # the last record's item, yielded once the record after it is read (its length may be short)
        error, overran = None, False
        with file.open("rb") as stream:
            stream.seek(start)
            try:
                for record in ArchiveIterator(stream, parse_http=True):
                    offset = record.stream_pos  # FastWARC counts from the file's start, even after a seek
                    counts_before = WarcCounts(**vars(counts))
                    if held is not None:
                        yield held
                        held = None
                    try:
                        item = _record_item(record, WarcRecordType, counts, file, offset,
                                            partial(_swallows_next_record, file, offset, gz))
                    except _Overrun as overrun:  # the record's length runs over the next record: read on there
                        vars(counts).update(vars(counts_before))
                        counts.n_damaged += 1
                        if damage is not None:
                            yield _damage_failure(file, damage, resumed_at=start)
                            damage = None
                        overran, start = True, _next_record_start(file, offset + 1, gz)
                        yield _damaged_record_failure(file, offset, overrun.names, start, f"its Content-Length "
                                                      f"({overrun.content_length} bytes) runs over the next record",
                                                      counts)
                        break
                    except Exception as exc:  # noqa: BLE001 - one record's content is one failure, at its offset
                        vars(counts).update(vars(counts_before))
                        counts.n_damaged += 1
                        item = PageFailure(str(file), f"@{offset}", f"unreadable WARC record at byte {offset}: {exc}")
                    if damage is not None:  # a whole record after the damage: report it once
                        yield _damage_failure(file, damage, resumed_at=start)
                        damage = None
                    last, last_item, counts_before_last, held = offset, item, counts_before, item
            except Exception as exc:  # noqa: BLE001 - FastWARC raises OSError, ValueError, ...
                error = exc
        if overran:
            continue
        at = None if error is not None else _trailing_damage(file, last if last is not None else start, gz)
        short = (_short_record(file, last, gz) if last is not None and (error is not None or at not in (None, last))
                 else None)
        if short is not None:  # the record's length ends inside its own block: it is the damage
            vars(counts).update(vars(counts_before_last))
            counts.n_damaged += 1
            start = _next_record_start(file, last + 1, gz)
            content_length, whole = short
            yield _damaged_record_failure(file, last, _record_names(whole, WarcRecordType, file, last), start,
                                          f"its Content-Length ({content_length} bytes) ends before the record does",
                                          counts)
            continue
        if held is not None:
            yield held
        if error is not None:
            at = last if last is not None else start
            reason = f"corrupt WARC data at byte {at}: {error}"
        else:
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


class _Overrun(Exception):
    """A record whose ``Content-Length`` runs over the header of a next record (a wrong length): the
    record is damaged, and reading goes on at the next record start after its own."""

    def __init__(self, content_length: int, names: _RecordNames):
        super().__init__(content_length, names)
        self.content_length, self.names = content_length, names


@dataclass(frozen=True)
class _RecordNames:
    """What names a damaged record in its row: its ``WARC-Target-URI`` (``""`` without one) and, when the
    record is a page, the page's site id and path (its record id)."""

    url: str
    page: tuple[str, str] | None = None


def _damaged_record_failure(
    file: Path, offset: int, names: _RecordNames, resumed_at: int | None, why: str, counts: WarcCounts
) -> PageFailure:
    """The row of a record whose ``Content-Length`` is wrong: its page's (``site_id``, record id, URL)
    when it is a page (counted in ``counts.n_pages``), else the file's at ``@<offset>``, its reason naming
    the record's ``WARC-Target-URI`` when it has one."""
    resumed = f"reading resumed at byte {resumed_at}" if resumed_at is not None else "nothing readable after it"
    of_url = f" of {names.url}" if names.url and names.page is None else ""
    reason = f"{file}@{offset}: WARC record{of_url} damaged: {why}; {resumed}"
    if names.page is None:
        return PageFailure(str(file), f"@{offset}", reason)
    counts.n_pages += 1
    site_id, record_id = names.page
    return PageFailure(site_id, record_id, reason, names.url)


def _record_names(whole: bytes, record_types, file: Path, offset: int) -> _RecordNames:
    """The names of the record whose bytes, its ``Content-Length`` set right, are ``whole``: a page's
    when :func:`_record_content` reads it as one, else its ``WARC-Target-URI`` alone (``""`` when even
    its header is unreadable)."""
    from fastwarc.warc import ArchiveIterator

    try:
        record = next(iter(ArchiveIterator(io.BytesIO(whole), parse_http=True)))
        url = record.headers.get("WARC-Target-URI", "")
        item = _record_content(record, record_types, WarcCounts(), file, offset, lambda: False)
    except Exception:  # noqa: BLE001 - a header FastWARC cannot read names nothing
        return _RecordNames("")
    if isinstance(item, (Page, PageFailure)):
        return _RecordNames(item.url, (item.site_id, item.path))
    return _RecordNames(url)


def _record_item(
    record, record_types, counts: WarcCounts, file: Path, offset: int, swallows_next: Callable[[], bool]
) -> Page | PageFailure | SubresourceRecord | None:
    """The page (or failure) or subresource a record gives, or ``None`` for a record that is skipped
    (and counted).

    ``swallows_next()`` tells whether the record's ``Content-Length`` runs over a next record
    (:func:`_swallows_next_record`); it is asked only when the payload looks so (:func:`_overrun_at`).

    Raises
    ------
    _Overrun
        If the record's payload holds the start of a next record (:func:`_overrun_at`) and
        ``swallows_next()`` confirms it.
    """
    item = _record_content(record, record_types, counts, file, offset, swallows_next)
    if ((item is None or isinstance(item, SubresourceRecord)) and _overrun_at(b"", record.reader) is not None
            and swallows_next()):
        raise _Overrun(record.content_length, _RecordNames(record.headers.get("WARC-Target-URI", "")))
    return item


def _record_content(
    record, record_types, counts: WarcCounts, file: Path, offset: int, swallows_next: Callable[[], bool]
) -> Page | PageFailure | SubresourceRecord | None:
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
    overrun_at = _overrun_at(raw, record.reader)
    if overrun_at is not None and swallows_next():
        is_page = content_type in HTML_TYPES or sniff_html(raw[:overrun_at])
        page = (site_of(url), record.record_id or f"{file.name}@{offset}") if is_page else None
        raise _Overrun(record.content_length, _RecordNames(url, page))
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


def _short_record(file: Path, at: int, gz: bool) -> tuple[int, bytes] | None:
    """The ``Content-Length`` of the record at byte ``at`` and the record's bytes with its length set to
    where its block really ends (before the next record's header, or the gzip member's end), when its
    block ends inside the record (the bytes at its declared end are not the CRLF CRLF that ends a
    record); else ``None`` (a record that ends where it says, or runs past the end of the file: a
    truncation)."""
    data = _record_bytes(file, at, gz)
    if data is None:
        return None
    head_end = data.find(b"\r\n\r\n", 0, _SEARCH_CHUNK)
    length = _CONTENT_LENGTH.search(data[:head_end]) if head_end >= 0 else None
    if length is None:
        return None
    end = head_end + 4 + int(length.group(1))
    if len(data) < end + 4 or data[end:end + 4] == b"\r\n\r\n":
        return None
    next_head = _EMBEDDED_HEAD.search(data, end)
    block_end = next_head.start() if next_head else len(data) - 4 * data.endswith(b"\r\n\r\n")
    whole = (bytes(data[:length.start(1)]) + str(block_end - head_end - 4).encode()
             + bytes(data[length.end(1):block_end]) + b"\r\n\r\n")
    return int(length.group(1)), whole


def _record_bytes(file: Path, at: int, gz: bool) -> bytes | None:
    """The bytes of the record at byte ``at`` and what follows it: its gzip member inflated
    (``.warc.gz``; ``None`` when the member is corrupt or inflates past ``MAX_PAGE_BYTES`` and a search
    chunk), or the file's next ``MAX_PAGE_BYTES`` and a search chunk (``.warc``)."""
    with file.open("rb") as stream:
        stream.seek(at)
        if not gz:
            return stream.read(MAX_PAGE_BYTES + _SEARCH_CHUNK)
        inflater, data = zlib.decompressobj(wbits=31), bytearray()
        try:
            while not inflater.eof and (chunk := stream.read(_SEARCH_CHUNK)):
                data += inflater.decompress(chunk)
                if len(data) > MAX_PAGE_BYTES + _SEARCH_CHUNK:
                    return None
        except zlib.error:
            return None
    return bytes(data)


def _declared_end(data: bytes, start: int) -> int | None:
    """Where the block of the record whose header starts at ``data[start]`` ends by its
    ``Content-Length`` (the offset of the CRLF CRLF that should end the record), or ``None`` when its
    header has no end or no ``Content-Length``."""
    head_end = data.find(b"\r\n\r\n", start, start + _SEARCH_CHUNK)
    length = _CONTENT_LENGTH.search(data, start, head_end) if head_end >= 0 else None
    return head_end + 4 + int(length.group(1)) if length else None


def _ends_where_it_says(data: bytes, start: int) -> bool:
    """Whether the record whose header starts at ``data[start]`` ends where its ``Content-Length``
    says: CRLF CRLF there, then a next record's header or nothing but padding (the end of the
    gzip member or the file)."""
    end = _declared_end(data, start)
    return end is not None and (_EMBEDDED_HEAD.match(data, end) is not None
                                or data[end:end + 4] == b"\r\n\r\n" and not data[end + 4:].strip(b"\r\n\0 "))


def _swallows_next_record(file: Path, at: int, gz: bool) -> bool:
    """Whether the ``Content-Length`` of the record at byte ``at`` runs over a next record, read from the
    file: the record does not end where its length says (:func:`_ends_where_it_says`), or a record
    that does starts inside its block.

    :func:`_overrun_at` finds what looks like a next record's header in a payload; a page may hold
    those bytes itself (a page about WARC files showing a record in a ``<pre>``), and then its
    record ends where its length says and no sound record starts inside it. A record whose bytes
    cannot be read back (a corrupt gzip member, a block past ``MAX_PAGE_BYTES``) keeps the suspicion.
    """
    data = _record_bytes(file, at, gz)
    if data is None or not _ends_where_it_says(data, 0):
        return True
    head_end, end = data.find(b"\r\n\r\n"), _declared_end(data, 0)
    return any(_ends_where_it_says(data, found.start() + 4) for found in _EMBEDDED_HEAD.finditer(data, head_end, end))


def _overrun_at(head: bytes, reader) -> int | None:
    """Where a next record's header seems to start in a record's payload (``head``, the bytes of it
    already read, then the rest of ``reader``), as when the record's ``Content-Length`` runs over it;
    else ``None``.

    A record ends with CRLF CRLF; a ``WARC/1.0`` or ``WARC/1.1`` line and a ``WARC-*`` or ``Content-*``
    field after them, or the start of those (at least ``\\r\\n\\r\\nW``) at the payload's very end,
    looks like a next record swallowed by a length too large. The payload may hold those bytes
    itself: :func:`_swallows_next_record` tells from the file.

    >>> import io
    >>> _overrun_at(b"<p>x</p>\\r\\n\\r\\nWARC/1.0\\r\\nWARC-Type: response\\r\\n", io.BytesIO())
    12
    >>> _overrun_at(b"<p>x</p>", io.BytesIO(b"\\r\\n\\r\\nWARC/1.1\\r\\nWAR"))
    12
    >>> _overrun_at(b"<p>x</p>\\r\\n\\r\\nWA", io.BytesIO())
    12
    >>> _overrun_at(b"<p>WARC/1.0</p>", io.BytesIO()) is None
    True
    """
    position, data, tail = 0, head, b""
    while True:
        buffer = tail + data
        found = _EMBEDDED_HEAD.search(buffer)
        if found:
            return position - len(tail) + found.start() + 4
        more = reader.read(_SEARCH_CHUNK)
        if not more:
            break
        position, data, tail = position + len(data), more, buffer[-64:]
    cut = buffer.rfind(b"\r\n\r\nW", len(buffer) - 64)
    rest = buffer[cut + 4:] if cut >= 0 else b""
    if cut >= 0 and any(start.startswith(rest) or rest.startswith(start) for start in _CUT_HEAD_STARTS):
        return position - len(tail) + cut + 4
    return None


def _is_record_start(stream, at: int, gz: bool) -> bool:
    """Whether a record starts at byte ``at``: a gzip member whose text starts with ``WARC/1.``
    (``.warc.gz``), or a ``WARC/1.0`` or ``WARC/1.1`` line and a ``WARC-*`` or ``Content-*`` field."""
    stream.seek(at)
    head = stream.read(256)
    if gz:
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, len(_WARC_MAGIC))
        except zlib.error:
            return False
        return head == _WARC_MAGIC
    return _EMBEDDED_HEAD.match(b"\r\n\r\n" + head) is not None or len(head) < 32 and head.startswith(_WARC_MAGIC)


def _next_record_start(file: Path, after: int, gz: bool) -> int | None:
    """The first offset at or after ``after`` where a record starts (:func:`_is_record_start`): a
    gzip member (``.warc.gz``) or a ``WARC/1.`` header (``.warc``)."""
    magic = _GZIP_MAGIC if gz else _WARC_MAGIC
    with file.open("rb") as stream, file.open("rb") as probe:
        stream.seek(after)
        position, tail = after, b""
        while chunk := stream.read(_SEARCH_CHUNK):
            buffer, searched = tail + chunk, 0
            while (found := buffer.find(magic, searched)) >= 0:
                if _is_record_start(probe, position - len(tail) + found, gz):
                    return position - len(tail) + found
                searched = found + 1
            tail = chunk[-(len(magic) - 1):]
            position += len(chunk)
    return None
