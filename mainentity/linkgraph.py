"""Incoming link anchor texts (ILA) from a site dump's own link graph.

Carullo & Binaghi (2010), section 2, give each page ``p`` the set ``A = {a_1, ..., a_n}`` of the
anchor texts of the links that point to ``p`` from other pages. Here the "web" is the site dump: every
``<a href>`` of every page is resolved against the page's ``<base href>`` (itself resolved against the
page URL) or the page URL, and when it names another page of the dump, the link's text is an anchor of
that page.

Which URLs name the same page is decided without help from the user:

1. :func:`normalize_url` puts every URL in a site-independent canonical form (w3lib's
   ``canonicalize_url``, plus default ports, directory indexes, trailing slashes, tracking parameters
   and session ids).
2. :func:`learn_url_key` learns from the dump itself, per site, which query parameters do not identify
   a page (parameters no page URL carries, session ids) and whether pages are identified by the path
   segment after a fixed word (``/pd/600150`` in ``/a-book/an-author/9781602600157/pd/600150/<session>``).
3. :func:`link_graph` matches the links to the pages and keeps the anchor texts a person reads: visible
   links, named by their own text or their image's ``alt``, and not the generic texts ("View details",
   "$9.99", "4 out of 5 stars") that the site uses for links to several different pages.

``data.anchor_url_pattern`` (the ``url_pattern`` argument) stays as an override for sites whose URLs
defeat these rules.
"""

from __future__ import annotations

import functools
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple
from urllib.parse import unquote, unquote_plus, urljoin, urlsplit, urlunsplit

import lxml.html
from lxml import etree
from w3lib.url import canonicalize_url

from mainentity.records import Page
from mainentity.text import MAX_ELEMENTS, collapse_whitespace, has_more_elements

logger = logging.getLogger(__name__)

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
_HTML_PARSER = lxml.html.HTMLParser(encoding="utf-8")
_ABSOLUTE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_BARE_HOST = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//[^/?#]*(?:[?#]|$)")
_CONTROL = re.compile(r"[\t\n\r]")

#: File names a server answers for a directory URL: ``/c/index.html`` is the page ``/c/``.
DIRECTORY_INDEXES = frozenset({
    "index.html", "index.htm", "index.shtml", "index.php", "index.asp", "index.aspx", "index.jsp",
    "default.htm", "default.html", "default.asp", "default.aspx",
})

#: Query parameters that never identify a page: the click ids of the large ad and social platforms,
#: e-mail and analytics campaign tags, and the session ids of common server frameworks. Names are
#: compared lower-cased; :data:`TRACKING_PREFIXES` adds the ``utm_*`` family and its kin.
TRACKING_PARAMS = frozenset({
    "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "fbclid", "msclkid", "yclid", "twclid", "ttclid",
    "igshid", "li_fat_id", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "srsltid",
    "jsessionid", "phpsessid", "aspsessionid", "cfid", "cftoken",
})
#: Prefixes of tracking parameters: Google Analytics (``utm_``), Matomo/Piwik (``mtm_``, ``pk_``),
#: HubSpot ads (``hsa_``).
TRACKING_PREFIXES = ("utm_", "mtm_", "pk_", "hsa_")
# Session ids carried as path parameters, as in /p/kettle.html;jsessionid=0A1B2C (Java servlets).
_SESSION_PATH_PARAM = re.compile(r";(?:jsessionid|phpsessid|sessionid)=[^/;]*", re.IGNORECASE)
# Inline CSS that hides an element (with its links) from a person reading the rendered page.
_HIDDEN_STYLE = re.compile(r"(?<![\w-])(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse))", re.I)

# A literal path segment is a candidate "id follows" word when at least this many pages have it.
_MIN_PAGES_PER_KEY_WORD = 3
# Only the key words found on the most pages are tried (the learning cost grows with each).
_MAX_KEY_WORDS = 5
# A query parameter is a session id when one value serves all links of at least this share of pages.
_SESSION_SHARE = 0.9


class UrlParts(NamedTuple):
    """A URL in the canonical form of :func:`normalize_url`, split for matching.

    Attributes
    ----------
    scheme, netloc : str
        Lower-cased scheme; host (lower-cased, no default port) with user info and port if any.
    path : str
        Percent-encoding normalised, directory index and trailing ``/`` removed (``/`` for the root).
    query : tuple of str
        ``name=value`` pieces as w3lib writes them, sorted, tracking parameters removed.
    """

    scheme: str
    netloc: str
    path: str
    query: tuple[str, ...]


def _param_name(piece: str) -> str:
    """The decoded name of a ``name=value`` query piece."""
    return unquote_plus(piece.split("=", 1)[0])


def _is_tracking(name: str) -> bool:
    name = name.lower()
    return name in TRACKING_PARAMS or name.startswith(TRACKING_PREFIXES)


@functools.lru_cache(maxsize=1 << 17)
def url_parts(url: str) -> UrlParts:
    """Split a URL into its canonical :class:`UrlParts` (the work of :func:`normalize_url`).

    Parameters
    ----------
    url : str
        An absolute URL.

    Returns
    -------
    UrlParts
        Scheme, host, path and query pieces in canonical form.

    Examples
    --------
    >>> url_parts("HTTP://Books.Example:80/c/index.html?b=2&utm_source=mail&a=1#top")
    UrlParts(scheme='http', netloc='books.example', path='/c', query=('a=1', 'b=2'))
    """
    url = _CONTROL.sub("", url.strip())
    try:
        parts = urlsplit(canonicalize_url(url))
        port = parts.port
        netloc = parts.netloc
    except ValueError:  # a port that is not a number: compare the URL as written
        parts = urlsplit(url.split("#", 1)[0])
        port, netloc = None, parts.netloc.lower()
    scheme = parts.scheme.lower()
    if port is not None and port == _DEFAULT_PORTS.get(scheme):
        netloc = netloc.rsplit(":", 1)[0]
    path = _SESSION_PATH_PARAM.sub("", parts.path)
    head, _, last = path.rpartition("/")
    if last.lower() in DIRECTORY_INDEXES:
        path = head
    path = path.rstrip("/") or ("/" if netloc or path.startswith("/") else "")
    query = tuple(piece for piece in parts.query.split("&") if piece and not _is_tracking(_param_name(piece)))
    return UrlParts(scheme, netloc, path, query)


def normalize_url(url: str) -> str:
    """Normalise a URL so that links to the same page compare equal, on any site.

    w3lib's ``canonicalize_url`` (the one Scrapy uses) lower-cases scheme and host, normalises
    percent-encoding, sorts the query and drops the fragment; then the scheme's default port is
    dropped, a directory index (:data:`DIRECTORY_INDEXES`) and a trailing ``/`` are removed (``/a/``,
    ``/a`` and ``/a/index.html`` name one page), and tracking parameters (:data:`TRACKING_PARAMS`,
    :data:`TRACKING_PREFIXES`) and ``;jsessionid=`` path parameters are dropped. Tabs, newlines and
    surrounding white space (which browsers remove) go too. Path case is kept: ``/A`` and ``/a`` are
    different pages. Site-specific rules (session parameters of one site, identifier segments) are
    learnt by :func:`learn_url_key`.

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
    >>> normalize_url("http://shop.example:8080/P/Kettle.html?x=1&utm_medium=email#reviews")
    'http://shop.example:8080/P/Kettle.html?x=1'
    >>> normalize_url("https://shop.example/c/kitchen/index.html;jsessionid=A1B2?b=%7e&a")
    'https://shop.example/c/kitchen?a=&b=~'
    """
    parts = url_parts(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "&".join(parts.query), ""))


@dataclass(frozen=True)
class UrlKey:
    """How one site's URLs are matched to its pages: two URLs name the same page when their keys are equal.

    Attributes
    ----------
    page_params : frozenset of str
        The query parameters that identify a page; every other parameter is dropped before comparing.
    key_word : str or None
        When set, a URL whose path has this segment followed by another is keyed by that next segment
        (its scheme, host and identifying parameters) instead of its whole path: slugs before it and
        session segments after it do not matter.
    url_pattern : re.Pattern or None
        The user's override: URLs it matches (searched in the absolute URL as resolved) are keyed by its
        first group (the whole match if it has no group).
    """

    page_params: frozenset[str] = frozenset()
    key_word: str | None = None
    url_pattern: re.Pattern | None = None

    def key(self, url: str) -> tuple:
        """The key of an absolute URL (a tuple; equal keys name the same page).

        Examples
        --------
        >>> rule = UrlKey(key_word="pd")
        >>> rule.key("http://b.example/a-book/ann/pd/600150/1166633515?event=CF")
        ('http', 'b.example', 'pd', '600150', ())
        >>> rule.key("http://b.example/help/")
        ('http', 'b.example', '/help', ())
        """
        key = _pattern_key(self.url_pattern, url)
        return key if key is not None else self.key_of_parts(url_parts(url))

    def key_of_parts(self, parts: UrlParts) -> tuple:
        """The key of a URL already split by :func:`url_parts` (``url_pattern`` is not applied)."""
        query = tuple(piece for piece in parts.query if _param_name(piece) in self.page_params)
        if self.key_word is not None:
            segments = parts.path.split("/")
            if self.key_word in segments[:-1]:
                value = segments[segments.index(self.key_word) + 1]
                return (parts.scheme, parts.netloc, self.key_word, value, query)
        return (parts.scheme, parts.netloc, parts.path, query)

    def describe(self) -> str:
        """One line for logs and reports.

        >>> UrlKey(frozenset({"id"}), "pd").describe()
        'normalised URL, query parameters kept: id, page id: the segment after /pd/'
        """
        if self.url_pattern is not None:
            return f"anchor_url_pattern {self.url_pattern.pattern!r}, else normalised URL"
        params = ", ".join(sorted(self.page_params)) or "none"
        word = f", page id: the segment after /{self.key_word}/" if self.key_word is not None else ""
        return f"normalised URL, query parameters kept: {params}{word}"


def _pattern_key(pattern: re.Pattern | None, url: str) -> tuple | None:
    """``("pattern", first group or whole match)`` where ``pattern`` matches ``url``, else ``None``."""
    found = pattern.search(url) if pattern is not None else None
    if found is None:
        return None
    return ("pattern", found.group(1) if pattern.groups else found.group(0))


def _compile_pattern(url_pattern: str | None) -> re.Pattern | None:
    try:
        return re.compile(url_pattern) if url_pattern is not None else None
    except re.error as error:
        raise ValueError(f"url_pattern {url_pattern!r} is not a valid regular expression: {error}") from None


def _session_params(
    page_parts: Sequence[UrlParts], links: Sequence[tuple[int, UrlParts]], names: set[str]
) -> set[str]:
    """The parameters among ``names`` whose value is set by the linking page, not by the target.

    A session id has one value on all the links of a page to different pages of the dump (one value per
    crawl, or per page); a parameter that names the target changes from link to link. Only pages with
    links to at least two different targets (path and the other ``names``) carrying the parameter are
    evidence; at least two such pages are needed, and :data:`_SESSION_SHARE` of them must agree.
    """
    page_paths = {(parts.scheme, parts.netloc, parts.path) for parts in page_parts}
    values: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    targets: dict[str, dict[int, set[tuple]]] = defaultdict(lambda: defaultdict(set))
    for source, parts in links:
        if (parts.scheme, parts.netloc, parts.path) not in page_paths:
            continue
        for piece in parts.query:
            name = _param_name(piece)
            if name in names:
                values[name][source].add(piece)
                others = tuple(other for other in parts.query if other != piece and _param_name(other) in names)
                targets[name][source].add((parts.path, others))
    sessions = set()
    for name in names:
        evidence = [source for source, seen in targets[name].items() if len(seen) >= 2]
        one_value = sum(1 for source in evidence if len(values[name][source]) == 1)
        if len(evidence) >= 2 and one_value >= _SESSION_SHARE * len(evidence):
            sessions.add(name)
    return sessions


def _key_word_candidates(page_parts: Sequence[UrlParts]) -> dict[str, set[str]]:
    """Path segments followed, on at least 3 pages, by a segment that differs from page to page.

    Returns ``word -> the segments that follow it`` for the :data:`_MAX_KEY_WORDS` words found on the
    most pages (ties by name).
    """
    following: dict[str, list[str]] = defaultdict(list)
    for parts in set(page_parts):
        segments = parts.path.split("/")
        for word in dict.fromkeys(segments[1:-1]):  # first occurrence of each word, not the last segment
            if word:
                following[word].append(segments[segments.index(word) + 1])
    candidates = [
        (word, values) for word, values in following.items()
        if len(values) >= _MIN_PAGES_PER_KEY_WORD and len(set(values)) == len(values)
    ]
    candidates.sort(key=lambda item: (-len(item[1]), item[0]))
    return {word: set(values) for word, values in candidates[:_MAX_KEY_WORDS]}


def _n_matched(rule: UrlKey, page_parts: Sequence[UrlParts], links: Sequence[tuple[int, UrlParts]]) -> int:
    """Distinct (linking page, linked page) pairs of the dump that ``rule`` matches."""
    by_key: dict[tuple, list[int]] = defaultdict(list)
    for index, parts in enumerate(page_parts):
        by_key[rule.key_of_parts(parts)].append(index)
    pairs = set()
    for source, parts in links:
        for target in by_key.get(rule.key_of_parts(parts), ()):
            if target != source:
                pairs.add((source, target))
    return len(pairs)


def _n_keys(rule: UrlKey, page_parts: Sequence[UrlParts]) -> int:
    """Distinct keys of the pages under ``rule``: fewer than distinct URLs when it merges pages."""
    return len({rule.key_of_parts(parts) for parts in page_parts})


def learn_url_key(page_urls: Sequence[str], links: Sequence[tuple[int, str]]) -> UrlKey:
    """Learn from one site dump which parts of its URLs identify its pages.

    Query parameters: a parameter that no page URL carries cannot tell two pages of the dump apart,
    so it is dropped (``?id=4779530265026`` on links to the page ``/product/9781420111927``; sort
    orders, tabs, referrers). A parameter that page URLs carry is kept (``item.php?id=1`` and
    ``?id=2`` stay two pages) unless it behaves as a session id: on (nearly) every page, its links to
    different pages all carry the same value of it, and the dump's pages stay apart without it.

    Path: sites like christianbook write a product's links with varying slugs and a session segment,
    ``/a-book/an-author/9781602600157/pd/600150/1166633515`` for the page
    ``/a-book/other-author/9781602600157/pd/600150``. For the few path words that precede, on at
    least three pages, a segment that differs on every page (``pd``), the rule "the page id is the
    segment after this word" is tried; of those that match more (linking page, linked page) pairs than
    whole paths do, the one that matches the most is kept. Pages of the dump stay apart by
    construction, but links to pages outside it can be taken for a page of the dump when the word is
    not followed by an id: with one story per year in the dump, ``/news/<year>/<story>`` would key
    stories by their year. ``url_pattern`` (:func:`link_graph`) overrides the rule for such sites.

    Parameters
    ----------
    page_urls : sequence of str
        The absolute URLs of the site's pages (index ``i`` is page ``i``).
    links : sequence of (int, str)
        ``(index of the linking page, absolute target URL)`` of the site's links; links that can name
        no page of the dump may be left out.

    Returns
    -------
    UrlKey
        The site's matching rule.

    Examples
    --------
    >>> pages = ["http://b.example/x/pd/1", "http://b.example/y/pd/2", "http://b.example/z/pd/3"]
    >>> links = [(0, "http://b.example/y2/pd/2/77?event=CF"), (1, "http://b.example/x/pd/1/78")]
    >>> learn_url_key(pages, links)
    UrlKey(page_params=frozenset(), key_word='pd', url_pattern=None)
    >>> learn_url_key(["http://o.example/item.php?id=1", "http://o.example/item.php?id=2"], []).page_params
    frozenset({'id'})
    """
    page_parts = [url_parts(url) for url in page_urls]
    link_parts = [(source, url_parts(url)) for source, url in links]
    names = {_param_name(piece) for parts in page_parts for piece in parts.query}
    rule = UrlKey(frozenset(names))
    n_apart = _n_keys(rule, page_parts)
    for name in sorted(_session_params(page_parts, link_parts, names)):
        candidate = replace(rule, page_params=rule.page_params - {name})
        if _n_keys(candidate, page_parts) == n_apart:
            rule = candidate
    best, best_matched = rule, _n_matched(rule, page_parts, link_parts)
    for word in _key_word_candidates(page_parts):
        candidate = replace(rule, key_word=word)
        if _n_keys(candidate, page_parts) != n_apart:
            continue
        matched = _n_matched(candidate, page_parts, link_parts)
        if matched > best_matched:
            best, best_matched = candidate, matched
    return best


@dataclass(frozen=True)
class AnchorCoverage:
    """How many pages of one site dump received incoming anchor texts, and how links were matched.

    Attributes
    ----------
    site_id : str
        The site dump.
    n_pages : int
        Pages of the dump.
    n_pages_with_anchors : int
        Pages with at least one incoming anchor text.
    n_links : int
        Links whose text became an anchor: visible, pointing to another page of the dump, generic
        texts excluded.
    n_hidden_links : int
        Links to another page of the dump left out because inline CSS or the ``hidden`` attribute hides
        them (or an ancestor).
    n_generic_links : int
        Links to another page of the dump left out because their text is generic (used for links to
        several different pages).
    url_key : str
        How URLs were matched (:meth:`UrlKey.describe`).
    """

    site_id: str
    n_pages: int
    n_pages_with_anchors: int
    n_links: int = 0
    n_hidden_links: int = 0
    n_generic_links: int = 0
    url_key: str = ""

    @property
    def share_pages_with_anchors(self) -> float:
        """``n_pages_with_anchors / n_pages`` in [0, 1] (0 for an empty dump)."""
        return self.n_pages_with_anchors / self.n_pages if self.n_pages else 0.0

    @property
    def silent(self) -> bool:
        """A site of several pages where no page received an anchor text: the anchor features are empty."""
        return self.n_pages >= 2 and self.n_pages_with_anchors == 0

    def summary(self) -> str:
        """One line for logs and reports.

        >>> AnchorCoverage("shop", 4, 3, 7, 1, 2, "normalised URL").summary()
        'site shop: 3 of 4 pages (75.0%) have incoming anchor texts from 7 links (1 hidden and 2 generic \
links left out; normalised URL)'
        """
        return (
            f"site {self.site_id}: {self.n_pages_with_anchors} of {self.n_pages} pages "
            f"({self.share_pages_with_anchors:.1%}) have incoming anchor texts from {self.n_links} links "
            f"({self.n_hidden_links} hidden and {self.n_generic_links} generic links left out; {self.url_key})"
        )


@dataclass(frozen=True)
class LinkGraph:
    """The incoming anchor texts of one site dump's pages and how they were found.

    Attributes
    ----------
    anchors : dict of str to tuple of str
        ``page.path`` -> anchor texts (the ILA set A), for every page.
    url_key : UrlKey
        The matching rule used.
    coverage : AnchorCoverage
        Counts for logs and reports.
    """

    anchors: dict[str, tuple[str, ...]]
    url_key: UrlKey
    coverage: AnchorCoverage


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


def _is_hidden(link: etree._Element) -> bool:
    """The link or an ancestor has the ``hidden`` attribute or inline ``display: none`` /
    ``visibility: hidden``."""
    for element in (link, *link.iterancestors()):
        if element.get("hidden") is not None or _HIDDEN_STYLE.search(element.get("style") or ""):
            return True
    return False


def _loose_segments(path: str) -> list[str]:
    """Percent-decoded path segments without path parameters; a directory index names its directory."""
    segments = [unquote(segment.split(";", 1)[0]) for segment in path.split("/")]
    if len(segments) > 1 and segments[-1].lower() in DIRECTORY_INDEXES:
        segments.pop()
    return segments


class _Prefilter:
    """Cheap test on a raw ``href``: ``False`` only when it can resolve to no page of the dump.

    Resolution keeps an href's segments except dot segments, so a link to a page ends with the page's
    last segment (or with ``/``, ``.``, ``..``, or is a bare ``//host``), or has a key word followed by
    a page's id segment (:func:`_key_word_candidates`). Segments are compared percent-decoded, which is
    what :func:`url_parts` preserves.
    """

    def __init__(self, page_parts: Sequence[UrlParts]):
        self.last_segments = {_loose_segments(parts.path)[-1] for parts in page_parts}
        self.key_words = {
            unquote(word): {unquote(value) for value in values}
            for word, values in _key_word_candidates(page_parts).items()
        }

    def __call__(self, href: str) -> bool:
        if _BARE_HOST.match(href):
            return True
        path = href.split("#", 1)[0].split("?", 1)[0]
        head, _, last = path.rpartition("/")
        if last.lower() in DIRECTORY_INDEXES:
            last = head.rpartition("/")[2]
        last = unquote(last.split(";", 1)[0])
        if last in ("", ".", "..") or last in self.last_segments:
            return True
        decoded = unquote(path)
        if not any(word in decoded for word in self.key_words):
            return False
        segments = _loose_segments(path)
        return any(
            segment in self.key_words and following in self.key_words[segment]
            for segment, following in zip(segments[:-1], segments[1:], strict=True)
        )


class _Link(NamedTuple):
    source: int
    url: str
    text: str
    hidden: bool
    may_target: bool  # passes the pre-filter: may name a page under a learnt rule


def _page_links(
    index: int, page: Page, may_target: _Prefilter, pattern: re.Pattern | None, pattern_keys: set, joined: dict
) -> list[_Link]:
    """The ``<a href>`` of a page that may name a page of the dump, resolved, with text and visibility:
    those that pass ``may_target`` and those whose ``pattern`` key is in ``pattern_keys``. A page over
    :data:`mainentity.text.MAX_ELEMENTS` start tags is not parsed (none; its parse would keep hundreds of MB)."""
    if has_more_elements(page.html):
        logger.warning("no links read from page %s of site %s: over %d elements (start tags)", page.path,
                       page.site_id, MAX_ELEMENTS)
        return []
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
        href = _CONTROL.sub("", href.strip())
        candidate = may_target(href)
        if not (candidate or pattern is not None):
            continue
        key = ("", href) if _ABSOLUTE.match(href) else (base, href)
        url = joined.get(key)
        if url is None:
            url = joined[key] = urljoin(base, href)
        if not (candidate or _pattern_key(pattern, url) in pattern_keys):
            continue
        links.append(_Link(index, url, _link_text(link), _is_hidden(link), candidate))
    return links


def link_graph(pages: Sequence[Page], *, url_pattern: str | None = None) -> LinkGraph:
    r"""Incoming link anchor texts (ILA, the set ``A``) of every page of one site dump, with coverage.

    A link counts when its resolved URL and the URL of a page of the dump other than the linking page
    have the same key under the site's :class:`UrlKey` (learnt by :func:`learn_url_key`, or given as
    ``url_pattern``); self links, including links to the page's own fragments, do not count, nor do
    links to pages outside the dump. Anchor texts are what a person reads:

    - the link's text with white space collapsed, or, when that is empty, the ``alt`` of the first
      image inside the link that has one; links with neither are skipped;
    - hidden links are dropped (counted in ``coverage.n_hidden_links``): a link with the ``hidden``
      attribute or inline ``display: none`` / ``visibility: hidden`` on it or an ancestor. The link
      graph is read from the HTML before rendering, so links hidden by style sheet rules stay;
    - generic texts are dropped (counted in ``coverage.n_generic_links``): a text that the site uses
      for links to two or more different pages of the dump ("View details", "Read more", a price, a
      star rating) names none of them, and in ``A`` it would match the same text on every page it
      points to and teach the model nothing about the main entity.

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
        Override for sites whose URLs defeat the learnt rule: two URLs name the same page when the
        pattern matches both (searched in the absolute URL as resolved, before normalisation) with
        the same first group (the whole match if it has no group); URLs it does not match compare by
        the learnt rule. E.g. ``r"/pd/(\d+)"`` for christianbook.com product ids.

    Returns
    -------
    LinkGraph
        ``anchors`` (``page.path`` -> anchor texts, an empty tuple when no link points to the page;
        pages with the same key all receive the links to it), the ``url_key`` used, and ``coverage``.

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
    ...             '<a href="p/k.html?sid=9">Enamel Kettle</a> <a href="p/k.html" hidden>Kettle</a>')
    >>> kettle = Page("shop", "p/k.html", "https://shop.example/p/k.html", '<a href="/"><img alt="Home"></a>')
    >>> graph = link_graph([home, kettle])
    >>> graph.anchors
    {'index.html': ('Home',), 'p/k.html': ('Enamel Kettle',)}
    >>> graph.coverage.n_pages_with_anchors, graph.coverage.n_hidden_links
    (2, 1)
    """
    paths = [page.path for page in pages]
    if len(set(paths)) != len(paths):
        duplicated = sorted({path for path, count in Counter(paths).items() if count > 1})
        raise ValueError(f"page paths must be unique (pass one site dump at a time); repeated: {duplicated}")
    pattern = _compile_pattern(url_pattern)
    page_parts = [url_parts(page.url) for page in pages]
    # The href pre-filter is exact for the learnt rule, not for a pattern: links whose pattern key is a
    # page's are read too; the rule for the URLs the pattern does not match is learnt from the others.
    may_target = _Prefilter(page_parts)
    pattern_keys = {_pattern_key(pattern, page.url) for page in pages} - {None}
    joined: dict[tuple[str, str], str] = {}
    links = [
        link for index, page in enumerate(pages)
        for link in _page_links(index, page, may_target, pattern, pattern_keys, joined)
    ]
    learnt = learn_url_key([page.url for page in pages], [(link.source, link.url) for link in links if link.may_target])
    rule = replace(learnt, url_pattern=pattern)

    page_keys = [rule.key(page.url) for page in pages]
    by_key: dict[tuple, list[int]] = defaultdict(list)
    for index, key in enumerate(page_keys):
        by_key[key].append(index)
    matched: list[tuple[tuple, str]] = []
    targets_of_text: dict[str, set[tuple]] = defaultdict(set)
    n_hidden = 0
    for link in links:
        target = rule.key(link.url)
        if target not in by_key or target == page_keys[link.source] or not link.text:
            continue
        if link.hidden:
            n_hidden += 1
            continue
        matched.append((target, link.text))
        targets_of_text[link.text].add(target)
    anchors: dict[str, dict[str, None]] = {page.path: {} for page in pages}
    n_links = n_generic = 0
    for target, text in matched:
        if len(targets_of_text[text]) > 1:
            n_generic += 1
            continue
        n_links += 1
        for index in by_key[target]:
            anchors[pages[index].path].setdefault(text, None)
    result = {path: tuple(texts) for path, texts in anchors.items()}
    coverage = AnchorCoverage(
        site_id=pages[0].site_id if pages else "",
        n_pages=len(pages),
        n_pages_with_anchors=sum(1 for texts in result.values() if texts),
        n_links=n_links,
        n_hidden_links=n_hidden,
        n_generic_links=n_generic,
        url_key=rule.describe(),
    )
    return LinkGraph(result, rule, coverage)


def incoming_anchors(pages: Sequence[Page], *, url_pattern: str | None = None) -> dict[str, tuple[str, ...]]:
    """Incoming link anchor texts (ILA) of every page of one site dump: ``link_graph(...).anchors``.

    Parameters
    ----------
    pages : sequence of Page
        The pages of one site dump; ``path`` must be unique.
    url_pattern : str, optional
        Passed to :func:`link_graph`.

    Returns
    -------
    anchors : dict of str to tuple of str
        ``page.path`` -> anchor texts, for every page (an empty tuple when no link points to it).

    Raises
    ------
    ValueError
        If two pages share a ``path``, or ``url_pattern`` is not a valid regular expression.

    Examples
    --------
    >>> home = Page("shop", "index.html", "https://shop.example/", '<a href="p/k.html#buy">Enamel  Kettle</a>')
    >>> kettle = Page("shop", "p/k.html", "https://shop.example/p/k.html", '<a href="#top">Top</a>')
    >>> incoming_anchors([home, kettle])
    {'index.html': (), 'p/k.html': ('Enamel Kettle',)}
    """
    return link_graph(pages, url_pattern=url_pattern).anchors


def with_incoming_anchors(pages: Sequence[Page], *, url_pattern: str | None = None) -> tuple[Page, ...]:
    """Return new pages with ``anchors`` set to their incoming anchor texts (:func:`link_graph`).

    Parameters
    ----------
    pages : sequence of Page
        The pages of one site dump (unchanged).
    url_pattern : str, optional
        Passed to :func:`link_graph`.

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
