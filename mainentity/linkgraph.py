"""Incoming link anchor texts (ILA) from a site dump's own link graph.

Carullo & Binaghi (2010), section 2, give each page ``p`` the set ``A = {a_1, ..., a_n}`` of the
anchor texts of the links that point to ``p`` from other pages. Here the "web" is the site dump: for
every ``<a href>`` of every page, the link target is resolved against the page's ``<base href>``
(itself resolved against the page URL) or the page URL, normalised with :func:`normalize_url`, and
when it is another page of the dump, the link's text is an anchor of that page.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import replace
from urllib.parse import urljoin, urlsplit, urlunsplit

import lxml.html
from lxml import etree

from mainentity.records import Page
from mainentity.text import collapse_whitespace

logger = logging.getLogger(__name__)

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
_HTML_PARSER = lxml.html.HTMLParser(encoding="utf-8")
_ABSOLUTE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_BARE_HOST = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//[^/?#]*(?:[?#]|$)")


def normalize_url(url: str) -> str:
    """Normalise a URL so that links to the same page compare equal.

    The fragment is dropped, scheme and host are lower-cased, the scheme's default port is dropped,
    an empty path of a URL with a host becomes ``/``, and tabs/newlines (which the URL parser of
    browsers removes) and surrounding white space are removed. Path and query are kept as they are
    (``/a`` and ``/a/`` stay different pages).

    Parameters
    ----------
    url : str
        An absolute URL.

    Returns
    -------
    str
        The normalised URL.

    Examples
    --------
    >>> normalize_url("HTTPS://Shop.Example:443#top")
    'https://shop.example/'
    >>> normalize_url("http://shop.example:8080/P/Kettle.html?x=1#reviews")
    'http://shop.example:8080/P/Kettle.html?x=1'
    """
    url = url.strip().replace("\t", "").replace("\n", "").replace("\r", "")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    netloc = parts.netloc
    if parts.hostname is not None:
        userinfo, _, hostport = netloc.rpartition("@")
        host, port = hostport.lower(), None
        try:
            port = parts.port
        except ValueError:  # a port that is not a number: keep it as written
            pass
        if port is not None and port == _DEFAULT_PORTS.get(scheme):
            host = host.rsplit(":", 1)[0]
        netloc = f"{userinfo}@{host}" if userinfo else host
    path = parts.path or ("/" if netloc else "")
    return urlunsplit((scheme, netloc, path, parts.query, ""))


def _link_text(link: etree._Element) -> str:
    """The link's text, whitespace collapsed, or the ``alt`` of its first image with one."""
    text = collapse_whitespace(link.text_content())
    if text:
        return text
    for image in link.iter("img"):
        alt = collapse_whitespace(image.get("alt", ""))
        if alt:
            return alt
    return ""


def _last_segment(url: str) -> str:
    """The part of a URL or href after its last ``/``, without query and fragment."""
    return url.split("#", 1)[0].split("?", 1)[0].rsplit("/", 1)[-1]


def _may_target(href: str, last_segments: set[str]) -> bool:
    """Cheap pre-filter: ``False`` only when ``href`` cannot resolve to a URL whose last path segment is
    in ``last_segments`` (resolution keeps an href's last segment unless it is empty, ``.``, ``..``
    or the href is a bare ``scheme://host`` or ``//host``)."""
    segment = _last_segment(href)
    return segment in last_segments or segment in ("", ".", "..") or bool(_BARE_HOST.match(href))


class _PageKeys:
    """Map URLs to the keys pages are matched by: the normalised URL, or the ``url_pattern`` match."""

    def __init__(self, url_pattern: str | None):
        try:
            self.pattern = re.compile(url_pattern) if url_pattern is not None else None
        except re.error as error:
            raise ValueError(
                f"url_pattern {url_pattern!r} is not a valid regular expression: {error}"
            ) from None
        self._cache: dict[tuple[str, str], str] = {}

    def of(self, url: str) -> str:
        found = self.pattern.search(url) if self.pattern is not None else None
        if found is None:
            return normalize_url(url)
        return "pattern:" + (found.group(1) if self.pattern.groups else found.group(0))

    def of_link(self, base: str, href: str) -> str:
        """``of(urljoin(base, href))``, memoised: a site's templates repeat the same links."""
        key = ("", href) if _ABSOLUTE.match(href) else (base, href)
        target = self._cache.get(key)
        if target is None:
            target = self._cache[key] = self.of(urljoin(base, href))
        return target


def _outgoing_links(
    page: Page, targets: dict[str, list[str]], last_segments: set[str] | None, keys: _PageKeys
) -> list[tuple[str, str]]:
    """``(target key, anchor text)`` for every ``<a href>`` of the page whose target key is in
    ``targets`` and that has a non-empty text; ``last_segments`` enables the :func:`_may_target`
    pre-filter."""
    try:
        root = lxml.html.document_fromstring(page.html.encode("utf-8", errors="replace"), parser=_HTML_PARSER)
    except (etree.ParserError, ValueError) as error:
        logger.warning("no links read from page %s of site %s: %s", page.path, page.site_id, error)
        return []
    base = page.url
    for element in root.iter("base"):
        href = element.get("href")
        if href is not None and href.strip():
            base = urljoin(page.url, href.strip())
            break
    links = []
    for link in root.iter("a"):
        href = link.get("href")
        if href is None:
            continue
        href = href.strip().replace("\t", "").replace("\n", "").replace("\r", "")
        if last_segments is not None and not _may_target(href, last_segments):
            continue
        target = keys.of_link(base, href)
        if target in targets:
            text = _link_text(link)
            if text:
                links.append((target, text))
    return links


def incoming_anchors(pages: Sequence[Page], *, url_pattern: str | None = None) -> dict[str, tuple[str, ...]]:
    r"""Incoming link anchor texts (ILA, the set ``A``) of every page of one site dump.

    A link counts when its resolved, normalised target (:func:`normalize_url`) is the normalised URL
    of a page in ``pages`` other than the linking page (self links, including links to the page's
    own fragments, do not count). Its anchor text is the link's text with white space collapsed, or,
    when that is empty, the ``alt`` of the first image inside the link that has one; links with
    neither are skipped. Links to pages outside ``pages`` are ignored.

    ``A`` keeps *distinct* texts (exact strings after whitespace collapsing) in first-seen order
    (pages in the given order, links in document order). Without deduplication a navigation or
    breadcrumb link repeated on every page of the site would appear hundreds of times in ``A`` of
    its target and dominate the anchor-text features, which treat ``A`` as a distribution
    (Carullo & Binaghi 2010, section 3.2: the EMD between anchor-feature sets).

    Parameters
    ----------
    pages : sequence of Page
        The pages of one site dump; ``path`` must be unique.
    url_pattern : str, optional
        A regular expression for sites whose links carry session ids, tracking queries or varying
        slugs: two URLs name the same page when the pattern matches both (searched in the absolute
        URL as resolved, before normalisation) with the same first group (the whole match if it has
        no group); URLs it does not match compare normalised. E.g. ``r"/pd/(\d+)"`` for
        christianbook.com product ids.

    Returns
    -------
    anchors : dict of str to tuple of str
        ``page.path`` -> anchor texts, for every page (an empty tuple when no link points to it).
        Several pages with the same URL (or key) all receive the links to it.

    Raises
    ------
    ValueError
        If two pages share a ``path`` (e.g. pages of several site dumps passed together), or
        ``url_pattern`` is not a valid regular expression.

    References
    ----------
    .. [1] Carullo & Binaghi (2010), KDIR, section 2 (MERP, the ILA set A).

    Examples
    --------
    >>> home = Page("shop", "index.html", "https://shop.example/",
    ...             '<a href="p/k.html">Enamel Kettle</a> <a href="p/k.html#buy">Enamel  Kettle</a>')
    >>> kettle = Page("shop", "p/k.html", "https://shop.example/p/k.html",
    ...               '<a href="/"><img alt="Home"></a> <a href="#top">Top</a>')
    >>> incoming_anchors([home, kettle])
    {'index.html': ('Home',), 'p/k.html': ('Enamel Kettle',)}
    """
    paths = [page.path for page in pages]
    if len(set(paths)) != len(paths):
        duplicated = sorted({path for path in paths if paths.count(path) > 1})
        raise ValueError(f"page paths must be unique (pass one site dump at a time); repeated: {duplicated}")
    keys = _PageKeys(url_pattern)
    page_keys = [keys.of(page.url) for page in pages]
    by_key: dict[str, list[str]] = {}
    for page, key in zip(pages, page_keys, strict=True):
        by_key.setdefault(key, []).append(page.path)
    # The last-segment pre-filter is exact for normalised URLs only, not for pattern keys.
    last_segments = {_last_segment(key) for key in by_key} if url_pattern is None else None
    anchors: dict[str, dict[str, None]] = {page.path: {} for page in pages}
    for page, own_key in zip(pages, page_keys, strict=True):
        for target, text in _outgoing_links(page, by_key, last_segments, keys):
            if target == own_key:
                continue
            for path in by_key[target]:
                anchors[path].setdefault(text, None)
    return {path: tuple(texts) for path, texts in anchors.items()}


def with_incoming_anchors(pages: Sequence[Page], *, url_pattern: str | None = None) -> tuple[Page, ...]:
    """Return new pages with ``anchors`` set to their incoming anchor texts (:func:`incoming_anchors`).

    Parameters
    ----------
    pages : sequence of Page
        The pages of one site dump (unchanged).
    url_pattern : str, optional
        Passed to :func:`incoming_anchors`.

    Returns
    -------
    tuple of Page
        Copies of ``pages`` (same order) whose ``anchors`` is the ILA set A.

    Raises
    ------
    ValueError
        If two pages share a ``path``, or ``url_pattern`` is not a valid regular expression.

    Examples
    --------
    >>> a = Page("s", "a.html", "https://s.example/a.html", '<a href="b.html">Bee</a>')
    >>> b = Page("s", "b.html", "https://s.example/b.html", "<p>b</p>")
    >>> [p.anchors for p in with_incoming_anchors([a, b])]
    [(), ('Bee',)]
    """
    anchors = incoming_anchors(pages, url_pattern=url_pattern)
    return tuple(replace(page, anchors=anchors[page.path]) for page in pages)
