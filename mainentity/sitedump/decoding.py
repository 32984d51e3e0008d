"""Page bytes to text: read a page file safely, tell HTML from binary data, decode as a browser would.

Bytes are decoded as a browser would, except that valid UTF-8 wins over a declared charset (some saved
pages declare ``gb2312`` while their bytes are UTF-8): see :func:`decode_html`. Only regular files up to
:data:`MAX_PAGE_BYTES` are read (:func:`read_page_bytes`); what cannot be read as a page raises
:class:`PageReadError` naming the page and the reason.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from pathlib import Path
from typing import BinaryIO

import charset_normalizer

#: Byte order marks and their codecs; UTF-32's come first (its little-endian mark starts with UTF-16's).
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
#: How many leading bytes the charset prescan and the HTML sniffing look at (the WHATWG prescan reads
#: 1024; saved pages often carry long comments or scripts before their ``<meta charset>``).
_PRESCAN_BYTES = 4096
#: Share of WHATWG "binary data bytes" (C0 controls other than TAB, LF, FF, CR, ESC) up to which a page
#: is text whatever its other bytes are.
_MAX_BINARY_FRACTION = 0.01
#: Share of binary data bytes up to which a page is still text when its other bytes decode (a few stray
#: NULs in a heading, which a browser drops).
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
# WHATWG MIME sniffing "HTML" patterns, plus head elements that saved pages start with (SWDE
# puts a <base> first).
_HTML_SNIFF = re.compile(
    rb"^(?:<!doctype html|<html|<head|<script|<iframe|<h1|<div|<font|<table|<a|<style|<title|<b|<body"
    rb"|<br|<p|<!--|<base|<meta|<link)[\s>/]",
    re.I,
)


class PageReadError(ValueError):
    """A page file that cannot be read as HTML; the message names the page path and the reason."""


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

    Order: (1) a byte order mark (UTF-8, UTF-16 LE/BE with replacement characters; UTF-32 LE/BE
    strictly: it is no web encoding, so a page that names it must be valid UTF-32, or it is refused);
    (1b) the charset of the HTTP ``Content-Type`` header when given and known (a page of a crawl: the
    browser's transport-layer encoding, which wins over ``<meta>``), with replacement characters;
    (2) strict UTF-8 when the bytes are valid UTF-8 (saved pages often keep a stale ``<meta charset>``);
    (3) the declared charset (:func:`declared_charset`), strictly; (4) charset-normalizer's best guess
    (windows-1252 among equally good guesses); (5) the declared charset with replacement characters
    (what a browser shows), else windows-1252 (never fails). NUL characters are dropped, as a browser
    drops them from a page's text (:func:`check_decoded`).

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
        bytes after a BOM, e.g. NUL-heavy files, images), or not valid UTF-32 after a UTF-32 BOM.

    Examples
    --------
    >>> decode_html(b'<meta charset="gb2312"><p>\\xe4\\xb8\\xad</p>')
    '<meta charset="gb2312"><p>中</p>'
    >>> decode_html('<meta charset="windows-1252"><p>café</p>'.encode("cp1252"))
    '<meta charset="windows-1252"><p>café</p>'
    >>> decode_html("<p>café</p>".encode("cp1252"), http_charset="ISO-8859-1")
    '<p>café</p>'
    >>> decode_html("\\ufeff<p>\\U0001d11e</p>".encode("utf-32-be"))
    '<p>\\U0001d11e</p>'
    >>> decode_html(b"\\xff\\xfe\\x00\\x00\\xde\\xad\\xbe\\xef", "a.html")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mainentity.sitedump.decoding.PageReadError: a.html: not text (a UTF-32-LE byte order mark, then bytes that ...)
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            strict = codec.startswith("utf-32")
            try:
                html = data[len(bom) :].decode(codec, errors="strict" if strict else "replace")
            except UnicodeDecodeError as error:
                raise PageReadError(
                    f"{path}: not text (a {codec.upper()} byte order mark, then bytes that are not {codec.upper()}: "
                    f"{error.reason} at byte {len(bom) + error.start})") from None
            return check_decoded(html, path)
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
        errors = "mainentity-c1" if transport == "cp1252" else "replace"
        return check_decoded(data.decode(transport, errors=errors), path)
    declared = declared_charset(data)
    try:
        html = data.decode("utf-8")
        if not (declared and declared.startswith("iso2022") and b"\x1b" in data):
            return check_decoded(html, path)
    except UnicodeDecodeError:
        pass
    if declared:
        try:
            return check_decoded(data.decode(declared), path)
        except UnicodeDecodeError:
            pass
    sniffed = _sniff(data)
    if sniffed is not None:
        return check_decoded(sniffed, path)
    if declared:
        return check_decoded(data.decode(declared, errors="replace"), path)
    return check_decoded(data.decode("cp1252", errors="mainentity-c1"), path)


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


def check_decoded(html: str, path: str) -> str:
    """The decoded page without its NUL characters: the HTML tree builder ignores a NUL in a page's text
    (HTML Living Standard, 13.2.6.4.7, "in body"), so a browser shows none, and no answer or block text
    carries one or the U+FFFD the tokenizer makes of it elsewhere (a title, an attribute).

    Raises
    ------
    PageReadError
        If the page is only white space (the message names ``path``).

    >>> check_decoded("<p>a\\x00b</p>", "a.html")
    '<p>ab</p>'
    """
    html = html.replace("\x00", "")
    if not html.strip():
        raise PageReadError(f"{path}: empty page (only white space)")
    return html


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
    mainentity.sitedump.decoding.PageReadError: a character device, not a regular file: not read
    """
    with open_regular_file(file, max_bytes, prefix) as handle:
        data = handle.read(max_bytes if prefix else max_bytes + 1)
    _check_regular(stat.S_IFREG, max_bytes, len(data), prefix)
    return data


def open_regular_file(file: str | Path, max_bytes: int, prefix: bool = False) -> BinaryIO:
    """``file`` opened for reading without blocking, after the checks of :func:`read_page_bytes` (made
    again on the open file, which may have been replaced meanwhile).

    Raises
    ------
    PageReadError
        As :func:`read_page_bytes`.
    OSError
        If it is missing or cannot be opened.
    """
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
