"""Match a site dump's links to its pages and keep the anchor texts a person reads (:func:`link_graph`)."""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple
from urllib.parse import unquote, urljoin, urlsplit

import lxml.html
from lxml import etree

from mainentity.linkgraph.url_keys import UrlKey, _compile_pattern, _key_word_candidates, _pattern_key, learn_url_key
from mainentity.linkgraph.urls import _CONTROL, DIRECTORY_INDEXES, UrlParts, url_parts
from mainentity.records import Page
from mainentity.text import MAX_ELEMENTS, collapse_whitespace, has_more_elements

logger = logging.getLogger(__name__)

_HTML_PARSER = lxml.html.HTMLParser(encoding="utf-8")
_ABSOLUTE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_BARE_HOST = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//[^/?#]*(?:[?#]|$)")
# Inline CSS that hides an element (with its links) from a person reading the rendered page.
_HIDDEN_STYLE = re.compile(r"(?<![\w-])(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse))", re.I)


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
    home_link_texts : dict of str to tuple of str
        ``page.path`` -> texts of the page's own visible links to its site's home page, for every page
        (:attr:`mainentity.records.Page.home_link_texts`).
    """

    anchors: dict[str, tuple[str, ...]]
    url_key: UrlKey
    coverage: AnchorCoverage
    home_link_texts: dict[str, tuple[str, ...]]

    def with_links(self, page: Page) -> Page:
        """A copy of one of the graph's pages with its ``anchors`` and ``home_link_texts`` filled in.

        Raises
        ------
        KeyError
            If the page's ``path`` is not one of the graph's.
        """
        return replace(page, anchors=self.anchors[page.path], home_link_texts=self.home_link_texts[page.path])


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


def _host(url: str) -> str:
    """A URL's host, lower-cased, without port or leading ``www.`` ("" for a file URI or a bad URL)."""
    try:
        return (urlsplit(url).hostname or "").removeprefix("www.")
    except ValueError:  # an unbalanced IPv6 bracket
        return ""


def _is_home_url(url: str) -> bool:
    """Whether an absolute URL names its host's home page: its path is empty, ``/`` or a directory
    index (:data:`~mainentity.linkgraph.urls.DIRECTORY_INDEXES`) at the root; query and fragment aside.

    >>> _is_home_url("https://longform.example/?ref=logo"), _is_home_url("https://longform.example/index.html")
    (True, True)
    >>> _is_home_url("https://longform.example/essays/")
    False
    """
    try:
        path = urlsplit(url).path
    except ValueError:
        return False
    return path.strip("/").lower() in ("", *DIRECTORY_INDEXES)


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
            if _BARE_HOST.match(head):  # "https://host/index.html": the host's home page
                return True
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
    index: int, page: Page, may_target: _Prefilter, pattern: re.Pattern | None, pattern_keys: set, joined: dict,
    home_host: str | None = None,
) -> list[_Link]:
    """The ``<a href>`` of a page that may name a page of the dump, resolved, with text and visibility:
    those that pass ``may_target`` and those whose ``pattern`` key is in ``pattern_keys``; with ``home_host``,
    only those to that host's home page (a dump of one page: no link can name another of its pages, and
    reading the text and visibility of every link was most of a lone page's loading). A page over
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
            try:
                base = urljoin(page.url, href.strip())
            except ValueError:  # "http://[::1": no browser resolves against it either
                logger.debug("page %s of site %s: <base href> %r ignored", page.path, page.site_id, href)
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
            try:
                url = urljoin(base, href)
                urlsplit(url)  # an empty base leaves the href unparsed
            except ValueError:  # a malformed URL ("http://[::1"): a link no one can follow
                continue
            joined[key] = url
        if not (candidate or _pattern_key(pattern, url) in pattern_keys):
            continue
        if home_host is not None and not (_is_home_url(url) and _host(url) == home_host):
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

    Each page's own visible links to its site's home page (same host, ``www.`` aside; root path,
    :func:`_is_home_url`) are kept apart, whether the home page is in the dump or not, as its
    ``home_link_texts``: the text of a logo or header link home is how the site names itself. The home
    page itself has none (its links home are self links).

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
        pages with the same key all receive the links to it), the ``url_key`` used, ``coverage``, and
        ``home_link_texts`` (``page.path`` -> distinct texts in document order).

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
    >>> graph.home_link_texts
    {'index.html': (), 'p/k.html': ('Home',)}
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
    if len(pages) == 1:  # its links can only be self links or links home (none when it is the home page)
        home_host = None if _is_home_url(pages[0].url) else _host(pages[0].url)
        links = [] if home_host is None else _page_links(0, pages[0], may_target, pattern, pattern_keys, joined,
                                                          home_host)
    else:
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
    return LinkGraph(result, rule, coverage, _home_link_texts(pages, links))


def _home_link_texts(pages: Sequence[Page], links: Sequence[_Link]) -> dict[str, tuple[str, ...]]:
    """``page.path`` -> distinct texts of the page's visible links to its own host's home page (none for
    the home page itself)."""
    hosts = [None if _is_home_url(page.url) else _host(page.url) for page in pages]
    texts: dict[str, dict[str, None]] = {page.path: {} for page in pages}
    for link in links:
        host = hosts[link.source]
        if host is not None and link.text and not link.hidden and _is_home_url(link.url) and _host(link.url) == host:
            texts[pages[link.source].path].setdefault(link.text, None)
    return {path: tuple(found) for path, found in texts.items()}


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
    """Return new pages with ``anchors`` set to their incoming anchor texts and ``home_link_texts`` to their
    links home (:func:`link_graph`).

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
    graph = link_graph(pages, url_pattern=url_pattern)
    return tuple(graph.with_links(page) for page in pages)
