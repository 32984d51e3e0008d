"""Learn from a site dump, per site, which URLs name the same page (:func:`learn_url_key`)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from mainentity.linkgraph.urls import UrlParts, _param_name, url_parts

# A literal path segment is a candidate "id follows" word when at least this many pages have it.
_MIN_PAGES_PER_KEY_WORD = 3
# Only the key words found on the most pages are tried (the learning cost grows with each).
_MAX_KEY_WORDS = 5
# A query parameter is a session id when one value serves all links of at least this share of pages.
_SESSION_SHARE = 0.9


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
    names = {_param_name(piece) for parts in page_parts for piece in parts.query}
    rule = UrlKey(frozenset(names))
    if len(page_parts) < 2:  # nothing to tell apart and no session to see: a lone page's links are not read
        return rule
    link_parts = [(source, url_parts(url)) for source, url in links]
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


