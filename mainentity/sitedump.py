"""Read site dumps (directories of HTML files from one web site) into :class:`~mainentity.records.Page`.

A *site dump* is a directory of HTML files (any nesting) from one site: files ending in ``.html``,
``.htm`` or ``.xhtml`` (any case), and files without an extension whose first bytes sniff as HTML. An
optional ``manifest.jsonl`` beside them lists the pages (one JSON object a line, format in
``datasets/README.md``): ``path`` (relative to the site directory), ``url`` and, for labeled data,
``main_entity`` (a list of acceptable labels). A *labeled dataset* is a directory ``sites/<site-id>/``
of site dumps.

The URL of a page is, in order of preference:

1. the manifest's ``url``;
2. the page's first ``<base href>`` (resolved against 3. or 4. when it is relative);
3. ``base_url`` joined with the page's relative path (``https://shop.example/`` + ``p/kettle.html``);
4. the ``file://`` URI of the file (so links between the files of the dump still resolve).

Bytes are decoded as a browser would, except that valid UTF-8 wins over a declared charset (some
saved pages declare ``gb2312`` while their bytes are UTF-8): see :func:`decode_html`. A page that
cannot be read (missing, empty, binary, or a symbolic link whose target lies outside the dump, which
is never followed) becomes a :class:`PageFailure` naming its path and the reason; the rest of the
dump is read.

Subresources (stylesheets, fonts, images) that a page requests are looked up in the dump it was read
from by :class:`DumpFiles` (see :func:`subresource_candidates` for the layouts understood). Nothing is
recorded behind the caller's back: the sources of each site's subresources (:class:`DumpFiles` of a
dump, the records of a WARC input: :class:`mainentity.warc.WarcSubresources`) travel with the pages as
a :class:`SubresourceSources`, passed to the renderer.
"""

from __future__ import annotations

import codecs
import functools
import hashlib
import html as html_lib
import itertools
import json
import logging
import os
import posixpath
import re
import stat
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol
from urllib.parse import quote, unquote, urljoin, urlsplit
from urllib.request import url2pathname

import charset_normalizer
import lxml.html
from lxml import etree

from mainentity.records import Page
from mainentity.text import collapse_whitespace

logger = logging.getLogger(__name__)

MANIFEST_NAME = "manifest.jsonl"
#: File name suffixes (lower-cased) read as HTML without sniffing.
HTML_SUFFIXES = (".html", ".htm", ".xhtml")

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
#: How many leading bytes the charset prescan and the HTML sniffing look at (the WHATWG prescan reads
#: 1024; saved pages often carry long comments or scripts before their ``<meta charset>``).
_PRESCAN_BYTES = 4096
#: Share of WHATWG "binary data bytes" (C0 controls other than TAB, LF, FF, CR, ESC) up to which a page
#: is text whatever its other bytes are.
_MAX_BINARY_FRACTION = 0.01
#: Share of binary data bytes up to which a page is still text when its other bytes decode (a few stray
#: NULs in a heading, which a browser shows as U+FFFD).
_MAX_CONTROL_FRACTION_OF_TEXT = 0.10
#: Share of the other bytes that must be valid UTF-8 for that second threshold to apply.
_MIN_DECODED_FRACTION = 0.95
_BINARY_BYTES = bytes([*range(0x00, 0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)])
#: Largest page file (or decoded WARC payload) read, in bytes: far above real pages (the largest page of
#: the bundled datasets is under 2 MB); a larger file gets an error row and is never read into memory.
MAX_PAGE_BYTES = 50 * 2**20
#: Largest ``manifest.jsonl`` read, in bytes (the lines of a million pages fit), and its longest line, line
#: ending included (the most labels a page may have, 20 of 2000 characters, fit many times over).
MAX_MANIFEST_BYTES = 4 * MAX_PAGE_BYTES
MAX_MANIFEST_LINE_BYTES = 2**20
_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISSOCK, "a socket"))

# WHATWG encoding labels whose decoder is a superset that Python names differently (the
# Encoding Standard maps latin1/ascii to windows-1252, gb2312/gbk to gb18030, and a meta
# declaring UTF-16 to UTF-8, since a page whose bytes reach the prescan is ASCII-compatible).
_WHATWG_ALIASES = {
    "ascii": "cp1252", "us-ascii": "cp1252", "iso-8859-1": "cp1252", "iso8859-1": "cp1252",
    "latin1": "cp1252", "latin-1": "cp1252", "l1": "cp1252", "iso_8859-1": "cp1252",
    "cp819": "cp1252", "ibm819": "cp1252", "x-user-defined": "cp1252",
    "iso-8859-9": "cp1254", "latin5": "cp1254", "iso-8859-11": "cp874", "tis-620": "cp874",
    "gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "gb_2312-80": "gb18030",
    "chinese": "gb18030", "csgb2312": "gb18030",
    "shift_jis": "cp932", "shift-jis": "cp932", "sjis": "cp932", "x-sjis": "cp932", "ms_kanji": "cp932",
    "windows-31j": "cp932", "euc-kr": "cp949", "ks_c_5601-1987": "cp949", "big5": "big5hkscs",
    "utf-16": "utf-8", "utf-16le": "utf-8", "utf-16be": "utf-8", "unicode": "utf-8",
}
_COMMENT = re.compile(rb"<!--.*?-->", re.S)
_META = re.compile(rb"<meta\b([^>]*)>", re.I)
_ATTR = re.compile(rb"""([a-zA-Z_:][-\w:.]*)\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)""")
_CONTENT_CHARSET = re.compile(rb"""charset\s*=\s*["']?([^\s"';]+)""", re.I)
_XML_DECL = re.compile(rb"""^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']""")
_BASE_HREF = re.compile(r"""<base\b[^>]*?\bhref\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)""", re.I)
_BODY_START = re.compile(r"<body\b", re.I)
# WHATWG MIME sniffing "HTML" patterns, plus head elements that saved pages start with (SWDE
# puts a <base> first).
_HTML_SNIFF = re.compile(
    rb"^(?:<!doctype html|<html|<head|<script|<iframe|<h1|<div|<font|<table|<a|<style|<title|<b|<body"
    rb"|<br|<p|<!--|<base|<meta|<link)[\s>/]",
    re.I,
)


class PageReadError(ValueError):
    """A page file that cannot be read as HTML; the message names the page path and the reason."""


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


@dataclass(frozen=True)
class SiteDump:
    """The readable pages of one site dump and the pages that failed.

    Attributes
    ----------
    site_id : str
        Short name of the site (its directory name unless given).
    directory : Path
        The site dump directory.
    pages : tuple of Page
        Pages in manifest order, or sorted by path when there is no manifest; ``anchors`` are empty
        (see :func:`mainentity.linkgraph.with_incoming_anchors`).
    failures : tuple of PageFailure
        Pages that could not be read, in the same order.
    """

    site_id: str
    directory: Path
    pages: tuple[Page, ...]
    failures: tuple[PageFailure, ...]


def _c1_fallback(error: UnicodeDecodeError) -> tuple[str, int]:
    # windows-1252 as the Encoding Standard defines it: the 5 bytes Python's cp1252 leaves undefined
    # (0x81, 0x8D, 0x8F, 0x90, 0x9D) decode to the C1 control of the same value.
    bad = error.object[error.start : error.end]
    return "".join(chr(b) for b in bad), error.end


codecs.register_error("mainentity-c1", _c1_fallback)


def _python_codec(label: bytes | str) -> str | None:
    """The Python codec for an encoding label (WHATWG supersets applied), or ``None`` if unknown."""
    if isinstance(label, bytes):
        label = label.decode("ascii", "replace")
    label = label.strip().strip("\"'").lower()
    name = _WHATWG_ALIASES.get(label, label)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def declared_charset(data: bytes) -> str | None:
    """Find the charset a page declares in its first bytes (XML declaration, meta charset, http-equiv).

    A simplified WHATWG prescan: comments are skipped, and the first ``<meta charset>`` or
    ``<meta http-equiv="content-type" content="...; charset=...">`` naming a known encoding wins.

    Parameters
    ----------
    data : bytes
        The page's raw bytes (only the first 4096 are read).

    Returns
    -------
    codec : str or None
        Python codec name of the declared encoding, with the Encoding Standard's supersets applied
        (``iso-8859-1`` -> ``cp1252``, ``gb2312`` -> ``gb18030``); ``None`` when nothing known is declared.

    Examples
    --------
    >>> declared_charset(b'<html><head><meta charset="ISO-8859-1">')
    'cp1252'
    >>> declared_charset(b'<meta http-equiv="Content-Type" content="text/html; charset=gb2312">')
    'gb18030'
    >>> declared_charset(b'<p>no declaration</p>') is None
    True
    """
    head = data[:_PRESCAN_BYTES]
    xml = _XML_DECL.match(head)
    if xml and _python_codec(xml.group(1)):
        return _python_codec(xml.group(1))
    for meta in _META.finditer(_COMMENT.sub(b"", head)):
        attrs = {name.lower(): value.strip(b"\"'") for name, value in _ATTR.findall(meta.group(1))}
        label = attrs.get(b"charset")
        if label is None and attrs.get(b"http-equiv", b"").lower() == b"content-type":
            found = _CONTENT_CHARSET.search(attrs.get(b"content", b""))
            label = found.group(1) if found else None
        if label and _python_codec(label):
            return _python_codec(label)
    return None


def decode_html(data: bytes, path: str = "<bytes>", *, http_charset: str | None = None) -> str:
    """Decode a page's bytes to text, the way a browser would but trusting valid UTF-8 first.

    Order: (1) a byte order mark (UTF-8, UTF-16 LE/BE); (1b) the charset of the HTTP ``Content-Type``
    header when given and known (a page of a crawl: the browser's transport-layer encoding, which
    wins over ``<meta>``), with replacement characters; (2) strict UTF-8 when the bytes are valid
    UTF-8 (saved pages often keep a stale ``<meta charset>``); (3) the declared charset
    (:func:`declared_charset`), strictly; (4) charset-normalizer's best guess (windows-1252 among
    equally good guesses); (5) the declared charset
    with replacement characters (what a browser shows), else windows-1252 (never fails). NUL characters
    become U+FFFD, as the HTML tokenizer does.

    Parameters
    ----------
    data : bytes
        The page file's content.
    path : str
        Name used in error messages.
    http_charset : str, optional
        The charset label of the page's HTTP ``Content-Type`` header (WHATWG labels: ``iso-8859-1``
        decodes as windows-1252); unknown labels are ignored.

    Returns
    -------
    html : str
        The decoded markup, without a BOM.

    Raises
    ------
    PageReadError
        If the page is empty (only white space), or binary (:func:`looks_binary` on its first 4096
        bytes after a BOM, e.g. NUL-heavy files, images).

    Examples
    --------
    >>> decode_html(b'<meta charset="gb2312"><p>\\xe4\\xb8\\xad</p>')
    '<meta charset="gb2312"><p>中</p>'
    >>> decode_html('<meta charset="windows-1252"><p>café</p>'.encode("cp1252"))
    '<meta charset="windows-1252"><p>café</p>'
    >>> decode_html("<p>café</p>".encode("cp1252"), http_charset="ISO-8859-1")
    '<p>café</p>'
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            html = data[len(bom) :].decode(codec, errors="replace")
            return _checked(html, path)
    if not data.strip():
        raise PageReadError(f"{path}: empty page ({len(data)} bytes)")
    head = data[:_PRESCAN_BYTES]
    if looks_binary(head):
        n_binary = sum(head.count(bytes([b])) for b in _BINARY_BYTES)
        raise PageReadError(
            f"{path}: not text ({n_binary} of the first {len(head)} bytes are control bytes such as NUL)"
        )
    transport = _python_codec(http_charset) if http_charset else None
    if transport is not None:
        return _checked(data.decode(transport, errors="mainentity-c1" if transport == "cp1252" else "replace"), path)
    declared = declared_charset(data)
    try:
        html = data.decode("utf-8")
        if not (declared and declared.startswith("iso2022") and b"\x1b" in data):
            return _checked(html, path)
    except UnicodeDecodeError:
        pass
    if declared:
        try:
            return _checked(data.decode(declared), path)
        except UnicodeDecodeError:
            pass
    sniffed = _sniff(data)
    if sniffed is not None:
        return _checked(sniffed, path)
    if declared:
        return _checked(data.decode(declared, errors="replace"), path)
    return _checked(data.decode("cp1252", errors="mainentity-c1"), path)


def looks_binary(head: bytes) -> bool:
    """Whether a file's first bytes are binary data rather than text with a few control characters.

    Two thresholds on the share of WHATWG binary data bytes (C0 controls other than TAB, LF, FF, CR,
    ESC): up to 1% the bytes are text; above 10% they are binary; in between they are text only when
    at least 95% of the other bytes are valid UTF-8 (stray NULs in a UTF-8 page, not an image or an
    archive, whose other bytes rarely decode).

    Parameters
    ----------
    head : bytes
        The first bytes of the file (after a BOM); empty is not binary.

    Returns
    -------
    binary : bool

    Examples
    --------
    >>> looks_binary(b"<h1>Caf\\xc3\\xa9 \\x00\\x00 menu</h1><p>Open daily from nine to five.</p>")
    False
    >>> looks_binary(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000140000000f00806000000"))
    True
    >>> looks_binary(b"a\\x00" * 20)  # UTF-16 without a BOM: half NULs
    True
    """
    if not head:
        return False
    n_binary = sum(head.count(bytes([b])) for b in _BINARY_BYTES)
    if n_binary <= _MAX_BINARY_FRACTION * len(head):
        return False
    if n_binary > _MAX_CONTROL_FRACTION_OF_TEXT * len(head):
        return True
    rest = head.translate(None, _BINARY_BYTES)
    n_undecoded = rest.decode("utf-8", errors="replace").count("\ufffd") - rest.count("\ufffd".encode())
    return n_undecoded > (1 - _MIN_DECODED_FRACTION) * len(rest)


def _sniff(data: bytes) -> str | None:
    """charset-normalizer's best decoding; among equally good guesses, windows-1252 (the web's
    default for undeclared legacy pages) wins, so short Western texts are not read as cp1250."""
    matches = charset_normalizer.from_bytes(data)
    best = matches.best()
    if best is None:
        return None
    tied = [m for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)]
    western = next((m for m in tied if "cp1252" in m.could_be_from_charset), None)
    return str(western or best)


def _checked(html: str, path: str) -> str:
    if not html.strip():
        raise PageReadError(f"{path}: empty page (only white space)")
    return html.replace("\x00", "\ufffd")


def read_page_bytes(file: str | Path, max_bytes: int = MAX_PAGE_BYTES, *, prefix: bool = False) -> bytes:
    """Read a page file that is a regular file of at most ``max_bytes`` bytes, without ever blocking.

    The file is checked with ``stat`` first (symbolic links followed): a FIFO, a device, a socket or a
    directory is never opened, and a file over the limit (a sparse file too) never read. It is then
    opened non-blocking and checked again (it may have been replaced meanwhile), and at most
    ``max_bytes + 1`` bytes are read (a file that grew past the limit is refused).

    Parameters
    ----------
    file : str or Path
    max_bytes : int, default :data:`MAX_PAGE_BYTES`
        Largest size read, in bytes.
    prefix : bool, default False
        Return the first ``max_bytes`` bytes of a regular file whatever its size (to sniff it).

    Returns
    -------
    data : bytes

    Raises
    ------
    PageReadError
        If the file is not a regular file (the message names what it is) or is larger than
        ``max_bytes``; the message is the reason alone, without the file's name.
    OSError
        If it is missing or cannot be opened.

    Examples
    --------
    >>> read_page_bytes("/dev/null")
    Traceback (most recent call last):
    ...
    mainentity.sitedump.PageReadError: a character device, not a regular file: not read
    """
    with _open_regular(file, max_bytes, prefix) as handle:
        data = handle.read(max_bytes if prefix else max_bytes + 1)
    _check_regular(stat.S_IFREG, max_bytes, len(data), prefix)
    return data


def _open_regular(file: str | Path, max_bytes: int, prefix: bool = False) -> BinaryIO:
    """``file`` opened for reading without blocking, after the checks of :func:`read_page_bytes` (made
    again on the open file, which may have been replaced meanwhile)."""
    status = os.stat(file)
    _check_regular(status.st_mode, max_bytes, status.st_size, prefix)
    handle = os.fdopen(os.open(file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)), "rb")
    try:
        status = os.fstat(handle.fileno())
        _check_regular(status.st_mode, max_bytes, status.st_size, prefix)
    except BaseException:
        handle.close()
        raise
    return handle


def _check_regular(mode: int, max_bytes: int, size: int, prefix: bool) -> None:
    for is_kind, kind in _FILE_KINDS:
        if is_kind(mode):
            raise PageReadError(f"{kind}, not a regular file: not read")
    if not stat.S_ISREG(mode):
        raise PageReadError("not a regular file: not read")
    if size > max_bytes and not prefix:
        raise PageReadError(f"{size} bytes, over the limit of {max_bytes} bytes: not read")


def escaped_name(name: str) -> str:
    """A file name as text that can always be written: bytes that are not UTF-8 (which Python keeps as
    lone surrogates) become ``\\xNN`` escapes.

    >>> escaped_name(os.fsdecode(b"caf\\xe9.html")), escaped_name("café.html")
    ('caf\\\\xe9.html', 'café.html')
    """
    try:
        return os.fsencode(name).decode("utf-8", errors="backslashreplace")
    except UnicodeEncodeError:  # a surrogate no file system name gives (from JSON, say)
        return name.encode("utf-8", errors="backslashreplace").decode("utf-8")


def sniff_html(data: bytes) -> bool:
    """Whether bytes look like HTML (WHATWG MIME sniffing patterns, plus ``<base``/``<meta``/``<link``).

    Leading white space and a BOM are skipped; the check is case-insensitive.

    >>> sniff_html(b"\\xef\\xbb\\xbf  <!DOCTYPE html><html>")
    True
    >>> sniff_html(b"\\x89PNG\\r\\n")
    False
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            data = data[len(bom) : 1024].decode(codec, errors="ignore").encode("utf-8", errors="ignore")
            break
    return bool(_HTML_SNIFF.match(data[:1024].lstrip()))


def find_page_files(site_dir: str | Path) -> list[Path]:
    """List the HTML files of a site dump, recursively.

    Files ending in ``.html``, ``.htm`` or ``.xhtml`` (any case) count, and regular files without an
    extension when :func:`sniff_html` accepts their first 1024 bytes. A FIFO, device or socket with such
    a name is listed too (reading it gives an error row; it is never opened here). ``manifest.jsonl``,
    other extensions and hidden files and directories (name starting with ``.``) are skipped. A
    symbolic link to a file that lies outside the dump is listed when its name would be (without an
    extension: always, since it is not opened to sniff), so that reading it gives an error row;
    symbolic links to directories are not
    walked.

    Parameters
    ----------
    site_dir : str or Path
        The site dump directory.

    Returns
    -------
    files : list of Path
        Paths of the page files, sorted by their path relative to ``site_dir`` (``/``-separated).

    Raises
    ------
    ValueError
        If ``site_dir`` is not a directory.
    """
    site_dir = Path(site_dir)
    if not site_dir.is_dir():
        raise ValueError(f"site dump {str(site_dir)!r} is not a directory")
    root = site_dir.resolve()
    found = []
    for file in site_dir.rglob("*"):
        relative = file.relative_to(site_dir)
        if any(part.startswith(".") for part in relative.parts) or relative.as_posix() == MANIFEST_NAME:
            continue
        suffix = file.suffix.lower()
        if suffix not in HTML_SUFFIXES and suffix != "":
            continue
        if outside_reason(file, root):
            if file.is_symlink() and not file.is_dir():
                found.append(file)
            continue
        if file.is_dir():
            continue
        if suffix in HTML_SUFFIXES:
            found.append(file)
            continue
        try:
            if sniff_html(read_page_bytes(file, 1024, prefix=True)):
                found.append(file)
        except (OSError, PageReadError):  # not a regular file, or unreadable: not a page by its name
            continue
    return sorted(found, key=lambda f: f.relative_to(site_dir).as_posix())


def find_base_href(html: str) -> str | None:
    """The ``href`` of the page's first ``<base href>`` before ``<body>``, or ``None``.

    >>> find_base_href('<base href="https://shop.example/p/kettle.html"/><html>')
    'https://shop.example/p/kettle.html'
    """
    body = _BODY_START.search(html)
    found = _BASE_HREF.search(html, 0, body.start() if body else len(html))
    if not found:
        return None
    href = html_lib.unescape(found.group(1).strip("\"'")).strip()
    return href or None


def page_url(html: str, relative_path: str, file: Path, base_url: str | None = None) -> str:
    """The URL of a page that the manifest does not name.

    Parameters
    ----------
    html : str
        The decoded page.
    relative_path : str
        Its path relative to the site directory, ``/``-separated.
    file : Path
        The page file (for the ``file://`` fallback).
    base_url : str, optional
        URL of the site directory (``https://shop.example/``); a missing trailing ``/`` is added.

    Returns
    -------
    url : str
        The page's ``<base href>`` (resolved against the fallback when relative), else ``base_url``
        joined with the percent-encoded ``relative_path``, else the ``file://`` URI of ``file``.

    Examples
    --------
    >>> page_url("<p>hi</p>", "p/kettle.html", Path("/dump/p/kettle.html"), "https://shop.example")
    'https://shop.example/p/kettle.html'
    >>> page_url('<base href="/p/1.html"><p>hi</p>', "x.html", Path("/d/x.html"), "https://shop.example/")
    'https://shop.example/p/1.html'
    """
    if base_url:
        fallback = urljoin(base_url if base_url.endswith("/") else base_url + "/", quote(relative_path))
    else:
        fallback = file.resolve().as_uri()
    base = find_base_href(html)
    return urljoin(fallback, base) if base else fallback


def label_in_page(html: str, labels: Iterable[str]) -> bool:
    """Whether a label occurs in the page's visible text or ``<title>`` (the manifest's ``label_in_page``).

    Both sides are lower-cased and whitespace-collapsed; the page is parsed with lxml.html and its
    ``script`` and ``style`` elements are dropped.

    Parameters
    ----------
    html : str
        The decoded page.
    labels : iterable of str
        Acceptable labels of the page's main entity.

    Returns
    -------
    bool
        ``True`` when at least one non-empty label occurs; ``False`` for no labels.

    Examples
    --------
    >>> label_in_page("<title>Shop</title><h1>Lantern  <b>Kettle</b></h1>", ["lantern kettle"])
    True
    >>> label_in_page("<script>x='Kettle'</script><p>Cart</p>", ["Kettle"])
    False
    """
    wanted = [collapse_whitespace(label).lower() for label in labels]
    wanted = [label for label in wanted if label]
    if not wanted:
        return False
    try:
        root = lxml.html.document_fromstring(
            html.encode("utf-8", errors="replace"), parser=lxml.html.HTMLParser(encoding="utf-8")
        )
    except (etree.ParserError, ValueError):
        return False
    for element in root.xpath("//script | //style"):
        element.drop_tree()
    text = collapse_whitespace(root.text_content()).lower()
    return any(label in text for label in wanted)


def outside_reason(file: Path, root: Path) -> str:
    """Why ``file`` may not be read as part of the dump at ``root``, or "" when it may.

    A file may be read when its real path (every symbolic link followed) lies inside ``root``;
    a link whose target is outside (or a link loop) must not be followed.

    Parameters
    ----------
    file : Path
        A path inside the dump directory (possibly a symbolic link, or under a linked directory).
    root : Path
        The dump directory, already resolved.

    Returns
    -------
    reason : str

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = Path(tempfile.mkdtemp()).resolve()
    >>> (tmp / "dump").mkdir()
    >>> _ = (tmp / "secret.txt").write_text("x"), (tmp / "dump" / "a.html").write_text("a")
    >>> os.symlink(tmp / "secret.txt", tmp / "dump" / "leak.html"); os.symlink("a.html", tmp / "dump" / "b.html")
    >>> outside_reason(tmp / "dump" / "b.html", tmp / "dump")
    ''
    >>> outside_reason(tmp / "dump" / "leak.html", tmp / "dump")
    'symbolic link to a file outside the site dump: not read'
    """
    try:
        target = file.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symbolic link loop (Python < 3.13)
        return "symbolic link loop: not read"
    if target == root or root in target.parents:
        return ""
    return "symbolic link to a file outside the site dump: not read"


def read_manifest(
    manifest: str | Path, site_id: str, *, max_bytes: int = MAX_MANIFEST_BYTES,
    max_line_bytes: int = MAX_MANIFEST_LINE_BYTES,
) -> tuple[list[dict], list[PageFailure]]:
    """Read a ``manifest.jsonl`` file: its valid entries in file order and its bad lines.

    Lines end at ``\\n``. A line is valid when it is UTF-8 JSON in which :func:`manifest_entry_problem`
    finds nothing wrong; its ``path`` is then normalised (:func:`page_key`). Blank lines are ignored;
    every other line becomes a :class:`PageFailure` at ``manifest.jsonl:<line>``, a line over
    ``max_line_bytes`` too (never held in memory whole). The file is read as a page is
    (:func:`read_page_bytes`: a regular file, opened without blocking), up to ``max_bytes``.

    Parameters
    ----------
    manifest : str or Path
        The file (a site dump's manifest or a copy of it, e.g. a second annotator's labels).
    site_id : str
        Site id named in the failures.
    max_bytes : int, default :data:`MAX_MANIFEST_BYTES`
        Largest manifest read, in bytes.
    max_line_bytes : int, default :data:`MAX_MANIFEST_LINE_BYTES`
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
        try:
            entry = json.loads(line.decode("utf-8"))
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
        handle = _open_regular(manifest, max_bytes)
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


def read_site_dump(
    site_dir: str | Path,
    *,
    base_url: str | None = None,
    site_id: str | None = None,
    max_pages: int | None = None,
    max_page_bytes: int = MAX_PAGE_BYTES,
) -> SiteDump:
    """Read the pages of one site dump.

    With a ``manifest.jsonl``, its pages in its order (a listed file that is missing or unreadable,
    or a malformed line, becomes a :class:`PageFailure`); without one, every file
    :func:`find_page_files` finds. Only regular files of at most ``max_page_bytes`` are read
    (:func:`read_page_bytes`): a FIFO, a device, a socket, a larger file, or a file whose name is not
    UTF-8 (named with ``\\xNN`` escapes, :func:`escaped_name`) becomes a :class:`PageFailure`. URLs
    as described in the module docstring; ``main_entity`` from the manifest, else ``()``. Failures are
    also logged as warnings.

    Parameters
    ----------
    site_dir : str or Path
        The site dump directory.
    base_url : str, optional
        URL of the site directory, for pages the manifest does not give a URL and that have no
        ``<base href>``.
    site_id : str, optional
        Site id of the pages; default the directory name.
    max_pages : int, optional
        Read only the first ``max_pages`` listed pages (failures among them count).
    max_page_bytes : int, default :data:`MAX_PAGE_BYTES`
        Largest page file read, in bytes.

    Returns
    -------
    SiteDump

    Raises
    ------
    ValueError
        If ``site_dir`` is not a directory, has neither a manifest nor page files, its manifest is a
        symbolic link out of it, or ``max_pages < 1``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "a.html").write_text('<a href="b.html">B</a>')
    ...     _ = (Path(tmp) / "b.html").write_bytes(b"")
    ...     dump = read_site_dump(tmp, base_url="https://shop.example/", site_id="shop")
    >>> [(p.path, p.url) for p in dump.pages]
    [('a.html', 'https://shop.example/a.html')]
    >>> dump.failures[0].path, dump.failures[0].reason
    ('b.html', 'empty page (0 bytes)')
    """
    site_dir = Path(site_dir)
    if not site_dir.is_dir():
        raise ValueError(f"site dump {str(site_dir)!r} is not a directory")
    if max_pages is not None and max_pages < 1:
        raise ValueError(f"max_pages must be >= 1; got {max_pages}")
    root = site_dir.resolve()
    site_id = site_id or root.name
    failures: list[PageFailure] = []
    if outside_reason(site_dir / MANIFEST_NAME, root):
        raise ValueError(f"site dump {str(site_dir)!r}: {MANIFEST_NAME} is a symbolic link out of the dump")
    if (site_dir / MANIFEST_NAME).is_file():
        entries, failures = read_manifest(site_dir / MANIFEST_NAME, site_id)
    else:
        entries = [{"path": f.relative_to(site_dir).as_posix()} for f in find_page_files(site_dir)]
        if not entries:
            raise ValueError(f"site dump {str(site_dir)!r} has no {MANIFEST_NAME} and no HTML files")
    pages = []
    for entry in entries[:max_pages]:
        read = _read_entry(site_dir, entry, site_id, base_url, max_page_bytes)
        (pages if isinstance(read, Page) else failures).append(read)
    for failure in failures:
        logger.warning("skipped page %s of site %s: %s", failure.path, failure.site_id, failure.reason)
    return SiteDump(site_id, site_dir, tuple(pages), tuple(failures))


def _read_entry(site_dir: Path, entry: dict, site_id: str, base_url: str | None, max_bytes: int) -> Page | PageFailure:
    """The page of one manifest entry (or listed file), or the failure saying why it cannot be read."""
    relative, url = entry["path"], entry.get("url", "")
    try:
        relative.encode("utf-8")
    except UnicodeEncodeError:
        return PageFailure(site_id, escaped_name(relative), "file name is not UTF-8: not read", url)
    file = site_dir / relative
    reason = outside_reason(file, site_dir.resolve())
    if reason:
        return PageFailure(site_id, relative, reason, url)
    try:
        html = decode_html(read_page_bytes(file, max_bytes), relative)
    except OSError as error:
        return PageFailure(site_id, relative, f"cannot read: {error.strerror or error}", url)
    except PageReadError as error:
        return PageFailure(site_id, relative, str(error).removeprefix(f"{relative}: "), url)
    url = url or page_url(html, relative, file, base_url)
    return Page(site_id=site_id, path=relative, url=url, html=html, main_entity=tuple(entry.get("main_entity", ())))


def is_input_directory(path: str | Path) -> bool:
    """Whether ``path`` is a directory that :func:`read_dataset` can read: it has a ``sites/`` folder, a
    manifest, or an HTML file (by name) somewhere below it. Stops at the first HTML file found.

    >>> is_input_directory("datasets/sample-shop"), is_input_directory("mainentity/pretrained")
    (True, False)
    """
    path = Path(path)
    if not path.is_dir():
        return False
    if (path / "sites").is_dir() or (path / MANIFEST_NAME).is_file():
        return True
    return any(file.suffix.lower() in HTML_SUFFIXES for file in path.rglob("*"))


def page_digest(page: Page) -> str:
    """A short SHA-256 digest of a page's HTML: the same page in another copy of a dataset has the same one.

    >>> page_digest(Page("s", "a.html", "http://s/a.html", "<h1>A</h1>"))
    'af90603dd63fdeb4'
    """
    return hashlib.sha256(page.html.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def page_from_html(html: str | bytes, url: str | None = None, *, site_id: str | None = None) -> Page:
    """A page built in memory from its markup, as a crawler holds it: no file, no site dump.

    Parameters
    ----------
    html : str or bytes
        The markup; bytes are decoded as a page file of a dump is (:func:`decode_html`: BOM, valid
        UTF-8, declared charset, sniffing).
    url : str, optional
        The page's absolute URL. Without one, the page's absolute ``<base href>`` is its URL; else its
        ``url`` is ``""`` (unknown: URL features are then empty, and the page is loaded under
        :data:`mainentity.render.browser.PLACEHOLDER_ORIGIN`).
    site_id : str, optional
        The site the page belongs to; pages with the same site id are one site for site-level
        recognisers. Default: the URL's host (``shop.example:8080``), so pages of one host form one
        site; a page without URL is a site of its own, ``html-<digest>`` (:func:`page_digest`).

    Returns
    -------
    page : Page
        ``path`` is the URL (its name within the site; unique per site), or ``<digest>.html`` when
        there is no URL; no labels and no anchors. Nothing is read from disk, so the renderer serves
        no stylesheet, font or image to it (read the site dump with :func:`read_site_dump` for those).

    Raises
    ------
    PageReadError
        A ``ValueError`` naming the page (its URL, else ``<html>``) when the markup is empty or binary.
    TypeError
        If ``html`` is neither ``str`` nor ``bytes``, or ``url`` is not a string.

    Examples
    --------
    >>> page = page_from_html("<title>Kettle</title><h1>Kettle</h1>", "https://shop.example/p/kettle")
    >>> page.site_id, page.path, page.url
    ('shop.example', 'https://shop.example/p/kettle', 'https://shop.example/p/kettle')
    >>> page = page_from_html(b"<h1>A</h1>")
    >>> page.site_id, page.path, page.url
    ('html-af90603dd63fdeb4', 'af90603dd63fdeb4.html', '')
    >>> page_from_html(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00\\x00\\rIHDR\\x00\\x00", "https://s.example/a.png")
    Traceback (most recent call last):
    ...
    mainentity.sitedump.PageReadError: https://s.example/a.png: not text (6 of the first 18 bytes are ...
    """
    if url is not None and not isinstance(url, str):
        raise TypeError(f"url must be a string or None; got {type(url).__name__}")
    name = url or "<html>"
    if isinstance(html, bytes):
        html = decode_html(html, name)
    elif isinstance(html, str):
        html = _checked(html, name)
    else:
        raise TypeError(f"{name}: html must be str or bytes; got {type(html).__name__}")
    if not url:
        base = find_base_href(html)
        url = base if base and urlsplit(base).scheme in ("http", "https") else ""
    digest = page_digest(Page("", "", "", html))
    if site_id is None:
        site_id = urlsplit(url).netloc.lower() or f"html-{digest}"
    return Page(site_id=site_id, path=url or f"{digest}.html", url=url, html=html)


def read_dataset(
    dataset_dir: str | Path, *, base_url: str | None = None, max_pages_per_site: int | None = None
) -> list[SiteDump]:
    """Read a labeled dataset (``sites/<site-id>/`` site dumps) or a single site dump.

    Parameters
    ----------
    dataset_dir : str or Path
        A directory with a ``sites/`` subdirectory (one site dump per child directory), or a site
        dump directory itself.
    base_url : str, optional
        Passed to :func:`read_site_dump` (sensible for a single site dump only).
    max_pages_per_site : int, optional
        Passed to :func:`read_site_dump` as ``max_pages``.

    Returns
    -------
    dumps : list of SiteDump
        One per site, sorted by site id. A site directory with no pages is skipped with a warning.

    Raises
    ------
    ValueError
        If ``dataset_dir`` holds no site dump at all (the message names the path).
    """
    dataset_dir = Path(dataset_dir)
    if not dataset_dir.is_dir():
        raise ValueError(f"dataset {str(dataset_dir)!r} is not a directory")
    sites = dataset_dir / "sites"
    if not sites.is_dir():
        if not (dataset_dir / MANIFEST_NAME).is_file() and not find_page_files(dataset_dir):
            raise ValueError(
                f"dataset {str(dataset_dir)!r} has no sites/ directory, no {MANIFEST_NAME} and no HTML files"
            )
        return [read_site_dump(dataset_dir, base_url=base_url, max_pages=max_pages_per_site)]
    dumps = []
    for site_dir in sorted(p for p in sites.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            dumps.append(read_site_dump(site_dir, base_url=base_url, max_pages=max_pages_per_site))
        except ValueError as error:
            warnings.warn(f"skipped site {site_dir.name!r}: {error}", stacklevel=2)
    if not dumps:
        raise ValueError(f"dataset {str(dataset_dir)!r} has no readable site dump under {str(sites)!r}")
    return dumps


# --- subresources ------------------------------------------------------------------------------------

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
    """What serves the subresources of the pages of each site: ``site_id -> SubresourceSource``.

    The renderer and the render cache are given one (:func:`mainentity.render.cache.render_pages`):
    :func:`mainentity.loading.load_pages` builds it from the site dumps read (a :class:`DumpFiles` per
    dump) and the records of WARC inputs. :meth:`for_page` gives a page its source, provided the page
    was read from it (``holds_page``: for a dump, the page's file is there); else, for a page whose URL
    is the ``file://`` URI of its file (a dump read without manifest, ``<base href>`` or ``base_url``),
    the directory that URI and the page's relative path imply. Site ids are unique within a run, as
    everywhere in the pipeline. Safe to use from several threads.

    Parameters
    ----------
    sources : mapping of str to SubresourceSource, optional
        By site id; none by default (then only ``file://`` pages find their files).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "a.html").write_text("<p>A</p>")
    ...     dump = read_site_dump(tmp, site_id="doc-example")
    ...     sources = SubresourceSources.of_dumps([dump])
    ...     found = sources.for_page(dump.pages[0]).directory == Path(tmp).resolve()
    >>> found, sources.for_page(Page("nowhere", "a.html", "https://x.example/a.html", "<p>A</p>"))
    (True, None)
    """

    def __init__(self, sources: Mapping[str, SubresourceSource] | None = None) -> None:
        self.sources = dict(sources or {})
        self._by_directory: dict[Path, DumpFiles] = {}
        self._lock = threading.Lock()

    @classmethod
    def of_dumps(cls, dumps: Iterable[SiteDump]) -> SubresourceSources:
        """The :class:`DumpFiles` of each site dump, by its site id."""
        return cls({dump.site_id: DumpFiles(Path(dump.directory).resolve()) for dump in dumps})

    def for_page(self, page: Page) -> SubresourceSource | None:
        """What serves ``page``'s subresources, or ``None`` when unknown."""
        known = self.sources.get(page.site_id)
        if known is not None and known.holds_page(page):
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
