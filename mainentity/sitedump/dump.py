"""Read site dumps (directories of HTML files from one web site) into :class:`~mainentity.records.Page`.

See the package docstring (:mod:`mainentity.sitedump`) for what a site dump is and how a page's URL is
found. A page that cannot be read becomes a :class:`~mainentity.sitedump.manifest_entries.PageFailure`
naming its path and the reason; the rest of the dump is read.
"""

from __future__ import annotations

import hashlib
import logging
import os
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

import lxml.html
from lxml import etree

from mainentity.log_summary import RepeatedMessage
from mainentity.records import Page
from mainentity.sitedump.decoding import (
    MAX_PAGE_BYTES,
    PageReadError,
    check_decoded,
    decode_html,
    escaped_name,
    read_page_bytes,
    sniff_html,
)
from mainentity.sitedump.manifest_entries import MANIFEST_NAME, PageFailure, manifest_labels, read_manifest
from mainentity.sitedump.own_urls import MARKER_PLURALS, URL_MARKERS, find_base_href, own_url, site_of_url
from mainentity.text import collapse_whitespace, counted

logger = logging.getLogger(__name__)

#: File name suffixes (lower-cased) read as HTML without sniffing.
HTML_SUFFIXES = (".html", ".htm", ".xhtml")


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


def outside_reason(file: Path, root: Path, within: str = "the site dump") -> str:
    """Why ``file`` may not be read as part of the dump (or folder) at ``root``, or "" when it may.

    A file may be read when its real path (every symbolic link followed) lies inside ``root``;
    a link whose target is outside (or a link loop) must not be followed.

    Parameters
    ----------
    file : Path
        A path inside the dump directory (possibly a symbolic link, or under a linked directory).
    root : Path
        The dump directory, already resolved.
    within : str, default "the site dump"
        What ``root`` is, in the reason.

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
    return f"symbolic link to a file outside {within}: not read"


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
    also logged, as one warning (:func:`log_failures`).

    Parameters
    ----------
    site_dir : str or Path
        The site dump directory.
    base_url : str, optional
        URL of the site directory, for pages the manifest does not give a URL and that have no
        ``<base href>``.
    site_id : str, optional
        Site id of the pages; default the directory's name as given (a symbolic link's own name, not its
        target's; a name that is not UTF-8 with ``\\xNN`` escapes, :func:`escaped_name`).
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
    dump = _read_dump(site_dir, base_url=base_url, site_id=site_id, max_pages=max_pages, max_page_bytes=max_page_bytes)
    log_failures(dump.failures, len(dump.pages) + len(dump.failures))
    return dump


def log_failures(failures: Sequence[PageFailure], n_pages: int) -> None:
    """Log the pages that could not be read as one warning (each page's line when it is the only one;
    ``-v`` lists them all: :class:`mainentity.log_summary.RepeatedMessage`).

    Parameters
    ----------
    failures : sequence of PageFailure
    n_pages : int
        How many pages were listed, read or not.
    """
    skipped = RepeatedMessage(logger, "{n} of {total} pages could not be read and were skipped")
    for failure in failures:
        skipped.add(f"{failure.site_id}/{failure.path}",
                    f"skipped page {failure.path} of site {failure.site_id}: {failure.reason}")
    skipped.log(total=n_pages)


def folder_name(directory: str | Path) -> str:
    """The name of a folder as given: that of a symbolic link, not of its target (``sites/alpha`` linked to
    ``/crawls/a/html`` is ``alpha``); ``.`` and ``..`` are first made absolute.

    >>> folder_name("sites/alpha/"), folder_name("/")
    ('alpha', '')
    """
    return Path(os.path.abspath(directory)).name


def _read_dump(site_dir: str | Path, *, base_url: str | None, site_id: str | None, max_pages: int | None,
               max_page_bytes: int = MAX_PAGE_BYTES) -> SiteDump:
    """:func:`read_site_dump` without logging its failures."""
    site_dir = Path(site_dir)
    if not site_dir.is_dir():
        raise ValueError(f"site dump {str(site_dir)!r} is not a directory")
    if max_pages is not None and max_pages < 1:
        raise ValueError(f"max_pages must be >= 1; got {max_pages}")
    root = site_dir.resolve()
    site_id = site_id or escaped_name(folder_name(site_dir))
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
    return Page(site_id=site_id, path=relative, url=url, html=html, main_entity=manifest_labels(entry))


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
        :data:`mainentity.render.settings.PLACEHOLDER_ORIGIN`).
    site_id : str, optional
        The site the page belongs to; pages with the same site id are one site for site-level
        recognisers. Default: the URL's host (``shop.example:8080``), so pages of one host form one
        site; a page without URL is a site of its own, ``html-<digest>`` (:func:`page_digest`).

    Returns
    -------
    page : Page
        ``url`` is the URL and ``path`` its path and query (:func:`url_path`: the page's name within
        its site, unique per host), or ``<digest>.html`` when there is no URL; no labels and no
        anchors. Nothing is read from disk, so the renderer serves no stylesheet, font or image to it
        (read the site dump with :func:`read_site_dump` for those).

    Raises
    ------
    PageReadError
        A ``ValueError`` naming the page (its URL, else ``<html>``) when the markup is empty, binary, or
        over :data:`MAX_PAGE_BYTES` (as bytes, or as a string once encoded in UTF-8: the limit of a page
        file), or ``url`` is not a valid URL.
    TypeError
        If ``html`` is neither ``str`` nor ``bytes``, or ``url`` is not a string.

    Examples
    --------
    >>> page = page_from_html("<title>Kettle</title><h1>Kettle</h1>", "https://shop.example/p/kettle")
    >>> page.site_id, page.path, page.url
    ('shop.example', '/p/kettle', 'https://shop.example/p/kettle')
    >>> page = page_from_html(b"<h1>A</h1>")
    >>> page.site_id, page.path, page.url
    ('html-af90603dd63fdeb4', 'af90603dd63fdeb4.html', '')
    >>> page_from_html(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00\\x00\\rIHDR\\x00\\x00", "https://s.example/a.png")
    Traceback (most recent call last):
    ...
    mainentity.sitedump.decoding.PageReadError: https://s.example/a.png: not text (6 of the first 18 bytes are ...
    """
    if url is not None and not isinstance(url, str):
        raise TypeError(f"url must be a string or None; got {type(url).__name__}")
    name = url or "<html>"
    if url:
        try:
            urlsplit(url).port  # noqa: B018 - parses the host and port, raising on a malformed one
        except ValueError as error:
            raise PageReadError(f"{url!r} is not a valid URL: {error}") from None
    if isinstance(html, (bytes, str)) and _encoded_size_over(html, MAX_PAGE_BYTES):
        raise PageReadError(f"{name}: over the limit of {MAX_PAGE_BYTES} bytes (the limit of a page file): not read")
    if isinstance(html, bytes):
        html = decode_html(html, name)
    elif isinstance(html, str):
        html = check_decoded(html, name)
    else:
        raise TypeError(f"{name}: html must be str or bytes; got {type(html).__name__}")
    if not url:
        base = find_base_href(html)
        url = base if base and urlsplit(base).scheme in ("http", "https") else ""
    digest = page_digest(Page("", "", "", html))
    if site_id is None:
        site_id = urlsplit(url).netloc.lower() or f"html-{digest}"
    return Page(site_id=site_id, path=url_path(url) if url else f"{digest}.html", url=url, html=html)


def _encoded_size_over(html: str | bytes, max_bytes: int) -> bool:
    """Whether markup is over ``max_bytes`` as bytes, or as a string once encoded in UTF-8 (counted without
    encoding it: 1 to 4 bytes a character).

    >>> _encoded_size_over("é" * 3, 5), _encoded_size_over("é" * 2, 5), _encoded_size_over(b"abc", 2)
    (True, False, True)
    """
    if isinstance(html, bytes) or len(html) > max_bytes or 4 * len(html) <= max_bytes:
        return len(html) > max_bytes
    pieces = (html[start:start + (1 << 20)] for start in range(0, len(html), 1 << 20))  # 1 M characters at a time
    return sum(len(piece.encode("utf-8", "surrogatepass")) for piece in pieces) > max_bytes


def url_path(url: str) -> str:
    """A page's path within its site, from its URL: the URL's path and query (``/`` for none).

    >>> url_path("https://shop.example/p/kettle?colour=red#reviews"), url_path("https://shop.example")
    ('/p/kettle?colour=red', '/')
    """
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def sites_by_own_url(dump: SiteDump, *, max_pages: int | None = None) -> tuple[list[SiteDump], str]:
    """The pages of a folder read without a manifest, grouped into sites by their own URLs.

    Parameters
    ----------
    dump : SiteDump
        The folder read as one dump (no manifest, no base URL): every page's ``url`` is its ``<base href>``
        or its file's ``file://`` URI.
    max_pages : int, optional
        Keep at most this many pages per site (the first, in path order).

    Returns
    -------
    sites : list of SiteDump
        One per host of the pages' own URLs (:func:`site_of_url`), and one per page without a URL
        (site id ``html-<digest>``, :func:`page_digest`; ``-1``, ``-2`` ... after it for copies of a page
        already seen), in the order of each site's first page. A page keeps its ``<base href>`` URL; one
        without takes its own URL, so its URL features and links are the site's. The folder's failures
        go with the first site (a folder with no readable page is returned as it is).
    summary : str
        How the folder was grouped, for the log.

    Examples
    --------
    >>> from pathlib import Path
    >>> pages = (Page("flat", "a.html", "file:///f/a.html", '<link rel="canonical" href="https://a.example/1">'),
    ...          Page("flat", "b.html", "file:///f/b.html", "<h1>No URL</h1>"))
    >>> sites, summary = sites_by_own_url(SiteDump("flat", Path("/f"), pages, ()))
    >>> [(site.site_id, [(p.path, p.url) for p in site.pages]) for site in sites]
    [('a.example', [('a.html', 'https://a.example/1')]), ('html-b57612a221fc039f', [('b.html', 'file:///f/b.html')])]
    >>> summary
    'flat: 2 pages without a manifest: 1 site from the URL 1 page gives for itself (1 canonical link), 1 lone page \
without a URL (each a site of its own; --base-url reads the folder as one site)'
    """
    grouped: dict[str, list[Page]] = {}
    markers: Counter[str] = Counter()
    hosts: set[str] = set()
    for page in dump.pages:
        found = own_url(page.html)
        if found is None:  # a site of its own, even beside a copy of itself
            site_id = f"html-{page_digest(page)}"
            site_id += f"-{sum(1 for other in grouped if other.startswith(site_id))}" if site_id in grouped else ""
        else:
            url, marker = found
            markers[marker] += 1
            site_id = site_of_url(url)
            hosts.add(site_id)
            if not urlsplit(page.url).scheme.startswith("http"):
                page = replace(page, url=url)
        grouped.setdefault(site_id, []).append(replace(page, site_id=site_id))
    sites = [SiteDump(site_id, dump.directory, tuple(pages[:max_pages]), ()) for site_id, pages in grouped.items()]
    if not sites:
        sites = [dump]
    elif dump.failures:
        sites[0] = replace(sites[0], failures=dump.failures)
    n_named = sum(markers.values())
    n_lone = len(dump.pages) - n_named
    how = ", ".join(counted(n, marker, MARKER_PLURALS[marker]) for marker in URL_MARKERS if (n := markers[marker]))
    gives = "URL 1 page gives for itself" if n_named == 1 else f"URLs {n_named} pages give for themselves"
    summary = f"{dump.site_id}: {counted(len(dump.pages), 'page')} without a manifest: "
    summary += f"{counted(len(hosts), 'site')} from the {gives} ({how})" if hosts else "no page names its URL"
    if n_lone:
        summary += (f", {counted(n_lone, 'lone page')} without a URL (each a site of its own; --base-url reads "
                    "the folder as one site)")
    return sites, summary


def read_dataset(
    dataset_dir: str | Path, *, base_url: str | None = None, max_pages_per_site: int | None = None
) -> list[SiteDump]:
    """Read a labeled dataset (``sites/<site-id>/`` site dumps), a single site dump, or a folder of pages.

    A directory without ``sites/`` is one site dump when it has a manifest or ``base_url`` is given; else
    it is a folder of pages, grouped into sites by each page's own URL (canonical link, ``og:url``,
    ``<base href>``, saved-from comment), a page without one a site of its own
    (:func:`sites_by_own_url`; how is logged). The pages that cannot be read
    are logged as one warning (:func:`log_failures`).

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
        One per site, sorted by site id (a folder of pages: in the order of each site's first page). A site
        directory with no pages is skipped with a warning.

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
        if not (dataset_dir / MANIFEST_NAME).is_file() and (nested := sorted(
                p.parent.name for p in dataset_dir.glob(f"*/{MANIFEST_NAME}") if not p.parent.name.startswith("."))):
            # read as a folder of pages, their manifests (URLs, labels) unread: say so, and how to make them sites
            holds = "holds its" if len(nested) == 1 else "hold their"
            warnings.warn(f"dataset {str(dataset_dir)!r} is read as a folder of pages, but {', '.join(nested[:3])}"
                          f"{' ...' if len(nested) > 3 else ''} {holds} own {MANIFEST_NAME}: to read them as sites, "
                          f"put them under {str(sites)!r}", stacklevel=2)
        if base_url or (dataset_dir / MANIFEST_NAME).is_file():
            return [read_site_dump(dataset_dir, base_url=base_url, max_pages=max_pages_per_site)]
        folder = _read_dump(dataset_dir, base_url=None, site_id=None, max_pages=None)
        log_failures(folder.failures, len(folder.pages) + len(folder.failures))
        dumps, summary = sites_by_own_url(folder, max_pages=max_pages_per_site)
        logger.info("%s", summary)
        return dumps
    dumps = []
    for site_dir in sorted(p for p in sites.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            dumps.append(_read_dump(site_dir, base_url=base_url, site_id=None, max_pages=max_pages_per_site))
        except ValueError as error:
            warnings.warn(f"skipped site {site_dir.name!r}: {error}", stacklevel=2)
    if not dumps:
        raise ValueError(f"dataset {str(dataset_dir)!r} has no readable site dump under {str(sites)!r}")
    log_failures([failure for dump in dumps for failure in dump.failures],
                 sum(len(dump.pages) + len(dump.failures) for dump in dumps))
    return dumps
