"""Candidate features that transfer across sites: the extended set beside the paper's F and G.

The paper's textblock features F (f_intitle, f_fsize, f_fbold; Carullo & Binaghi 2010, section 3.1)
and anchor-text features G stay as they are (:mod:`mainentity.features.textblock`,
:mod:`mainentity.features.anchortext`). A model that must name the main entity on sites it never saw
needs evidence that means the same on every site: relative, not absolute, layout; agreement with the
page's own statements of its title; and the site's template. Every column of
:func:`candidate_features` (named by :data:`TRANSFER_FEATURES`, values bounded, mostly in [0, 1]):

layout and style (what a person sees)
    ``h1`` heading level 1 (``<h1>`` or ARIA ``role="heading"`` level 1); ``heading`` 1 for h1 down to
    1/6 for h6, 0 outside headings and for a heading inside a ``<nav>`` (:func:`page_heading_level`);
    ``fsize_ratio`` font size over the page's largest visible one;
    ``fsize_rank`` 1 for the page's largest font size, falling linearly to 0 for its smallest;
    ``bold``; ``weight`` font weight / 900; ``y_fold`` top of the box over the 768 px fold (capped at
    4); ``above_fold``; ``x_centre`` horizontal centre over the page width; ``width`` box width over
    the page width; ``lines`` box height over 1.2 font sizes (capped at 10) / 10. These five need a
    box: they are ``nan`` (missing) for a candidate whose box is not finite, as on a page read without
    layout (:func:`mainentity.render.static.read_static`), and ``x_centre`` and ``width`` also when
    the page's width is not.
text
    ``log_words`` log(1 + word count) / log(101); ``upper_share`` upper-case share of its letters;
    ``digit_share`` digits among its letters and digits; ``in_link``; ``continues`` the text starts with a
    joining mark (:data:`CONTINUATION_MARKS`: ": A Quiet Place to Stay", " : One Woman's Search ...",
    "- Size M"), so it is the second part of a text split over elements, not a name on its own.
the page's own statements of its title (Gali & Fränti 2016: title tag, meta titles; JSON-LD)
    ``title_dice`` token Dice with the whole ``<title>``; ``title_segment_dice`` best Dice with a
    ``<title>`` segment (the pieces delimiters cut, and the whole title when it holds no site name);
    ``title_segment_exact`` equal
    to a segment of any title; ``segment_recall`` the best share of a title segment's terms that the
    candidate holds ("the" holds 1/6 of "Bartleby the Scrivener Web Study Text");
    ``title_last_segment`` equal to the
    last of two or more segments of a title (where sites put their name); ``in_title`` the
    candidate's text occurs in a title as whole words; ``title_precision`` share of its terms in the titles;
    ``meta_dice`` best Dice with og:title/twitter:title/meta title; ``jsonld_dice`` best Dice with a
    JSON-LD ``headline`` or ``name``; ``url_dice`` Dice with the terms of the URL's last path segment (none when it
    holds no letter: an id or a date, "/product/9780151014231", names no page);
    ``site_name`` its letters and digits, run together, hold or are held by the page's
    ``og:site_name``, a title segment that most pages of the site repeat, a title's last segment that
    the page's link to its site's home page shows (``Page.home_link_texts``), a title's segments that a
    shorter title of the page leaves out (its og:title without " – OL Paris 2024": a section's name),
    the URL's domain
    (:func:`~mainentity.features.title_segments.url_parts`), or a document generator's default title
    ("PowerPoint Presentation": it names the software, not the page), at least 4 characters: "Quanta
    Magazine" on quantamagazine.org; a name of 2 or 3 characters only when the text is that name whole
    ("V8", the name the link home shows, on v8.dev; :data:`MIN_SHORT_NAME_CHARS`); ``holds_site_name``
    the text, cut at title delimiters, has two or more segments and one of them names the site ("God
    Calling: A.J. Russell: Christianbook.com", a whole ``<title>`` that carries the site's name beside the
    page's own). Title segments that name the site
    are left out of the title features: a ``<title>`` that is only the site's name says nothing of
    the page; so is a whole title that other pages of the site (not copies of this one) share
    (:attr:`~mainentity.features.site.SiteProfile.shared_title_texts`): it names a section;
    ``anchor_dice`` best Dice with an incoming anchor text (ILA);
    ``title_unsupported`` for a title candidate (kind ``title``) or a candidate whose text is a whole
    title, 1 minus its best Dice with the page's most prominent visible texts (its level-1 headings and
    the texts in its largest font size, then its level-2 headings, the first :data:`MAX_PROMINENT` of
    them: what a person reads first) and with the URL's last path segment; 0 for other candidates.
    A ``<title>`` that names the page agrees with what the page shows largest or with its URL; a
    generic one ("Home", "Untitled", the site's name alone) does neither, whether the page shows it (in
    its navigation) or not. Title segments (an author's name beside a book's) are left alone: they are
    the title features' business.
kind and place among the page's candidates
    ``kind_title`` a title segment found in the page (its layout is that of the block that holds it);
    ``in_page`` 0 for a whole title the page does not show (no box), else 1;
    ``merged`` a merged block; ``coverage`` the candidate's share (in characters) of the text of the
    nearest merged block that holds it (1 when none does: a headline's linked word or a style run is a
    fragment, the merged headline is whole). Other kinds (style runs, visible texts, whole headings) have no column
    of their own: they are rarely the answer in training data, and a column would teach the ranker to
    distrust the very candidates that fix split headlines on new sites;
    ``order`` position among the candidates / their number; ``repeats`` log(1 + other candidates with
    the same text) / log(11); ``first_h1`` the h1 candidate(s) highest on the page (``nan`` for every
    h1 candidate when one of them has no finite ``y``: which is highest is not known; 0 for the others);
    a candidate without a finite box is ``in_page`` (it is a text of the page, not a title it lacks);
    ``best_title_dice`` its ``title_segment_dice`` is the page's highest (and > 0).
one text read whole (:func:`whole_share`)
    ``whole_share`` the candidate's share (in characters) of the text set over several lines that it
    is one line of: a heading element's text, or a run of positioned lines that continue one another
    (kind ``lines``); 1 for the whole itself and for a candidate that is no such line.
site (:mod:`mainentity.features.site`)
    ``has_site``, ``template_share``, ``slot_share``, ``slot_variety``.
"""

from __future__ import annotations

import functools
import math
import re
import string
from collections import Counter
from collections.abc import Sequence

import numpy as np

from mainentity.features.anchortext import dice_matrix
from mainentity.features.candidates import HEADING_TAGS, title_strings
from mainentity.features.jsonld import jsonld_titles
from mainentity.features.site import SITE_FEATURES, SiteProfile
from mainentity.features.title_segments import HANGUL_BAR, split_title, url_parts
from mainentity.records import Page, RenderedPage, TextBlock
from mainentity.text import is_word_char, normalize_text, short_text_cache, term_set, tokenize

#: The fold of the 1024x768 viewport, in CSS px (Carullo & Binaghi 2010, section 3.4.1).
FOLD_PX = 768.0

#: Most prominent texts (``title_unsupported``) a page's title candidates are compared with: a page set all
#: in one font size has every text at its largest.
MAX_PROMINENT = 20

#: The columns of :func:`whole_share` (kept apart from the others: their own block of code).
WHOLE_TEXT_FEATURES = ("whole_share",)

#: A whole text at least this many times as tall as a candidate it holds is set over more lines than it
#: (:func:`whole_share`).
MIN_WHOLE_LINES = 1.4

#: A ``<nav>`` element among a dom_path's steps (:func:`page_heading_level`).
_IN_NAV = re.compile(r"(?:^|/)nav\[")

#: Column names of :func:`candidate_features`, in order.
TRANSFER_FEATURES = (
    "h1", "heading", "fsize_ratio", "fsize_rank", "bold", "weight", "y_fold", "above_fold", "x_centre",
    "width", "lines", "log_words", "upper_share", "digit_share", "in_link", "continues", "title_dice",
    "title_segment_dice", "title_segment_exact", "segment_recall", "title_last_segment", "in_title",
    "title_precision", "meta_dice", "jsonld_dice", "url_dice", "site_name", "holds_site_name", "anchor_dice",
    "title_unsupported", "kind_title", "in_page", "merged", "coverage", "order", "repeats", "first_h1",
    "best_title_dice", *WHOLE_TEXT_FEATURES, *SITE_FEATURES,
)

#: Features whose larger values can only make a candidate more (+1) or less (-1) likely the main entity,
#: on any site: prior knowledge a learner may enforce (monotonic constraints) so that what it learns on
#: one site's pages cannot invert them on another's.
MONOTONIC_FEATURES = {
    "h1": 1, "heading": 1, "fsize_ratio": 1, "fsize_rank": 1, "title_dice": 1, "title_segment_dice": 1,
    "title_segment_exact": 1, "segment_recall": 1, "meta_dice": 1, "jsonld_dice": 1, "url_dice": 1, "anchor_dice": 1,
    "title_unsupported": -1,
    "site_name": -1, "holds_site_name": -1, "title_last_segment": -1, "template_share": -1, "slot_variety": 1,
    "whole_share": 1, "continues": -1,
}

#: Marks that join the second part of a text to its first (a subtitle's colon, a variant's dash): a text
#: that starts with one continues another (``continues``).
CONTINUATION_MARKS = frozenset(":;,-\u2013\u2014/|")
#: The ASCII letters, upper-case letters and digits: what ``str.isalpha``, ``isupper`` and ``isdigit`` accept
#: among ASCII characters (:func:`_char_counts`).
_ASCII_CLASSES = (string.ascii_letters.encode(), string.ascii_uppercase.encode(), string.digits.encode())



@short_text_cache
def _text_stats(text: str) -> tuple[int, float, float, str]:
    """Word count, upper-case share of letters, digit share of letters and digits, and the tokens run
    together, of one text (cached: template texts repeat on every page of a site).

    Numbers and a string only: the garbage collector stops tracking such a tuple, while one that held the
    text's term set (:func:`~mainentity.text.term_set`, cached on its own) would be one more object that each
    full collection walks and whose number, growing with the cache, sets the next one off.
    """
    tokens = tokenize(text)
    n_letters, n_upper, n_digits = _char_counts(text)
    return (len(tokens), n_upper / n_letters if n_letters else 0.0, n_digits / max(n_letters + n_digits, 1),
            "".join(tokens))


def _char_counts(text: str) -> tuple[int, int, int]:
    """The letters (``str.isalpha``), upper-case letters and digits (``str.isdigit``) of a text; no character
    is both a letter and a digit.

    >>> _char_counts("Know 66 BOOKS"), _char_counts("Ærø 7½")
    ((9, 6, 2), (3, 1, 1))
    """
    if text.isascii():  # the common case, counted in C: each class deleted from the bytes
        raw = text.encode("ascii")
        return tuple(len(raw) - len(raw.translate(None, chars)) for chars in _ASCII_CLASSES)
    letters = "".join(filter(str.isalpha, text))
    return len(letters), sum(map(str.isupper, letters)), sum(map(str.isdigit, text))


def _coverage(candidates: Sequence[TextBlock], normalized: Sequence[str]) -> np.ndarray:
    """Share of the nearest enclosing merged block's text that each candidate is (1 without one).

    The enclosing merged block is found by walking up the candidate's ``dom_path`` (a merged block's
    path is its element's); it must hold the candidate's normalised text.
    """
    merged = {}
    for candidate, text in zip(candidates, normalized, strict=True):
        if candidate.merged:
            merged.setdefault(candidate.dom_path, text)
    out = np.ones(len(candidates))
    if not merged:
        return out
    enclosing: dict[str, tuple[str, ...]] = {"": ()}

    def merged_above(path: str) -> tuple[str, ...]:
        """Texts of the merged blocks at ``path`` and above it, nearest first (memoised: candidates share
        their ancestors, so each path of the page is walked once)."""
        below = []
        while path not in enclosing:
            below.append(path)
            path = path.rpartition("/")[0]
        found = enclosing[path]
        for path in reversed(below):
            own = merged.get(path)
            found = found if own is None else (own, *found)
            enclosing[path] = found
        return found

    for i, (candidate, text) in enumerate(zip(candidates, normalized, strict=True)):
        if candidate.merged or not text:
            continue
        wholes = enclosing.get(candidate.dom_path)  # most paths are known: no call
        for whole in merged_above(candidate.dom_path) if wholes is None else wholes:
            if text in whole:
                out[i] = len(text) / len(whole)
                break
    return out


def _whole_texts(candidates: Sequence[TextBlock], normalized: Sequence[str]) -> dict[str, tuple[str, float]]:
    """The whole texts of the page by element path, with their box heights in CSS px: each heading
    element's text (a ``heading`` segment, or a block of an ``h1``-``h6`` element) and each run of joined
    positioned lines (kind ``lines``), the longest at each path."""
    wholes: dict[str, tuple[str, float]] = {}
    for candidate, text in zip(candidates, normalized, strict=True):
        if candidate.kind in ("heading", "lines") or (
                candidate.kind == "block" and candidate.heading_level > 0 and candidate.tag in HEADING_TAGS):
            if len(text) > len(wholes.get(candidate.dom_path, ("", 0.0))[0]):
                wholes[candidate.dom_path] = (text, candidate.height)
    return wholes


def whole_share(candidates: Sequence[TextBlock], normalized: Sequence[str]) -> np.ndarray:
    """Each candidate's share (in characters) of the text set over several lines that it is one line of;
    1 when it is no such line.

    A heading element states one title, and a run of positioned lines that continue one another (same
    font, size and left edge, one line-height apart; :func:`mainentity.features.candidates.line_candidates`)
    is one text set over lines. A line of it (a display headline's first line, a ``<title>`` segment
    found in that line) is a part, not the title: the whole is what a reader takes in. This holds on any
    site, whatever its template and font sizes (the share is relative to the page's own text), so it
    transfers. The shared datasets hardly show it (among the candidates of their 1093 pages, 40 are such
    lines and none is a main entity), so training adds pages with their heading set over two lines
    (:mod:`mainentity.features.split_headings`).
    A piece on the same line as the rest of its heading (a title beside a smaller format note,
    ``<h2>Title<span> (Paperback)</span></h2>``) is left alone: which of the two names the page is for
    the other features to tell.

    The whole a candidate belongs to is the nearest one found walking up its ``dom_path`` (its own
    element first) whose normalised text holds the candidate's; the candidate is one of its lines when
    the whole's box is at least :data:`MIN_WHOLE_LINES` times as tall as the candidate's (boxes in CSS
    px; never on a page read without layout, whose boxes are ``nan``).

    Parameters
    ----------
    candidates : sequence of TextBlock
        The page's candidates (:func:`mainentity.features.candidates.page_candidates`).
    normalized : sequence of str
        Their normalised texts (:func:`mainentity.text.normalize_text`).

    Returns
    -------
    share : ndarray of shape (n_candidates,)
        In (0, 1]; 1 for a whole and for a candidate that is no line of one.

    Examples
    --------
    >>> first = TextBlock("Winter Orchards", "span", "html[0]/body[1]/h1[0]/span[0]", 44, 400, False, 8, 8, 300, 53,
    ...                   heading_level=1)
    >>> both = TextBlock("Winter Orchards and the Growers", "h1", "html[0]/body[1]/h1[0]", 44, 400, False, 8, 8,
    ...                  300, 89, heading_level=1, kind="heading")
    >>> whole_share([first, both], ["winter orchards", "winter orchards and the growers"]).round(3).tolist()
    [0.484, 1.0]
    >>> import dataclasses
    >>> one_line = dataclasses.replace(both, height=53.0)  # the rest on the same line: no line of a taller text
    >>> whole_share([first, one_line], ["winter orchards", "winter orchards and the growers"]).tolist()
    [1.0, 1.0]
    """
    wholes = _whole_texts(candidates, normalized)
    out = np.ones(len(candidates))
    if not wholes:
        return out
    for i, (candidate, text) in enumerate(zip(candidates, normalized, strict=True)):
        if not candidate.height > 0:  # no box (a page read without layout): no line of a taller whole
            continue
        path = candidate.dom_path
        while text and path:
            whole, height = wholes.get(path, ("", 0.0))
            if text in whole:
                if height >= MIN_WHOLE_LINES * candidate.height > 0:
                    out[i] = len(text) / len(whole)
                break
            path = path.rpartition("/")[0]
    return out


#: Fewest letters and digits of a site name, and of a text, for the one to hold the other ("Quanta" in
#: "quantamagazine"): shorter pieces occur inside any name by chance.
MIN_SITE_NAME_CHARS = 4
#: Fewest letters and digits of a site name that counts when a text equals it whole: "V8", the name a
#: header link home shows beside the title "Blog · V8" on v8.dev, names the site; "V8" inside "V8 release
#: v9.4" does not.
MIN_SHORT_NAME_CHARS = 2


def _site_names(rendered: RenderedPage, domain: str, site_titles: Sequence[str] = (),
                home_link_texts: Sequence[str] = ()) -> tuple[str, ...]:
    """The site's names, squashed to letters and digits: ``og:site_name`` values, the URL's domain and, for
    a domain of several labels, its last one (the name a host under it shares: "pixnet" of
    "stevenhgm.pixnet", whose pages end their titles with "痞客邦 PIXNET"), the
    title segments of :data:`MIN_SITE_NAME_CHARS` or more that most pages of the site repeat, the last
    title segments that a link of the page to its site's home page shows (:func:`_named_by_home_link`),
    the segments that a shorter title of the page leaves out (:func:`_decoration_segments`),
    and a document generator's default title (:data:`GENERATOR_TITLES`), which names the software, not
    the page.

    >>> _site_names(RenderedPage("Oolong | Tea | Harbor Tea Co", (), ()), "harbortea", ["Tea", "Harbor Tea Co"])
    ('harborteaco', 'harbortea')
    >>> _site_names(RenderedPage("Maple Trail (2) @ Hiker :: 痞客邦 PIXNET ::", (), ()), "stevenhgm.pixnet")
    ('stevenhgmpixnet', 'pixnet')
    """
    names = [_text_stats(content)[3] for key, content in rendered.meta if key == "og:site_name"]
    # a short segment most titles repeat is as often a category ("Tea") as the site's name
    names += [name for segment in site_titles if len(name := _text_stats(segment)[3]) >= MIN_SITE_NAME_CHARS]
    names += _named_by_home_link(rendered, home_link_texts)
    names += [_text_stats(segment)[3] for segment in _decoration_segments(rendered)]
    if (title := _text_stats(rendered.title)[3]) in _GENERATOR_TITLE_KEYS:
        names.append(title)
    domains = [domain.replace(".", ""), *([domain.rsplit(".", 1)[1]] if "." in domain else [])]
    return tuple(name for name in [*names, *domains] if len(name) >= MIN_SHORT_NAME_CHARS)


def _decoration_segments(rendered: RenderedPage) -> list[str]:
    """The segments of a page's ``<title>`` or meta title that another of its titles, all of whose segments
    the first one begins or ends with, leaves out: the publisher's shorter statement of the title says they
    name a section or the site ("OL Paris 2024" of NRK's "<headline> – OL Paris 2024", whose og:title is the
    headline; "Sport" and "BILD.de" of Bild's "<headline> | Sport | BILD.de").

    >>> _decoration_segments(RenderedPage("Tide turns – Ferry Week", (("og:title", "Tide turns"),), ()))
    ['Ferry Week']
    >>> _decoration_segments(RenderedPage("Ferry Week | Tide turns", (("og:title", "Tide turns"),), ()))
    ['Ferry Week']
    >>> _decoration_segments(RenderedPage("Tide turns", (("og:title", "Tide turns"),), ()))
    []
    >>> kicker = "Ferry Week: Tide turns"
    >>> _decoration_segments(RenderedPage(f"{kicker} – Ferry Week", (("og:title", kicker),), ()))
    []
    """
    cut = [(pieces, [normalize_text(piece) for piece in pieces])
           for pieces in (split_title(title) for title in (rendered.title, *rendered.meta_titles) if title)]
    segments = []
    for pieces, keys in cut:
        for _, part in cut:
            if 0 < len(part) < len(keys):
                if keys[:len(part)] == part:
                    rest = pieces[len(part):]
                elif keys[-len(part):] == part:
                    rest = pieces[:-len(part)]
                else:
                    continue
                # a kicker that repeats the section ("Sport: <headline> | Sport") is the headline's own
                segments += [piece for piece in rest if normalize_text(piece) not in part]
    return list(dict.fromkeys(segments))


def _named_by_home_link(rendered: RenderedPage, home_link_texts: Sequence[str]) -> list[str]:
    """The last segments (squashed) of the titles cut in two or more that the text of a link home holds,
    with at most 8 characters more (:func:`_barely_holds`, as :func:`_is_site_name`): a header link "Longform
    Quarterly" to the site's root names the segment "Longform Quarterly" of "Winter Orchards | Longform
    Quarterly" the site, on a page alone as on a site of many. A link home that only holds part of a
    segment ("Home" in "Home & Garden") names nothing. Only the last segment, where sites put their name:
    a first segment that the link home shows may be the page's own subject with the site's name in it
    ("Daring Fireball: Colophon", the page about the site, whose label is the whole title; naming any
    segment lost pages on the cross-site protocol, the last one alone lost none).

    >>> rendered = RenderedPage("Winter Orchards | Longform Quarterly", (), ())
    >>> _named_by_home_link(rendered, ["Longform Quarterly logo"]), _named_by_home_link(rendered, ["Home"])
    (['longformquarterly'], [])
    >>> _named_by_home_link(RenderedPage("Longform Quarterly: About", (), ()), ["Longform Quarterly"])
    []

    A short segment (:data:`MIN_SHORT_NAME_CHARS`) must be the link's whole text: "Art" is in "Start".

    >>> rendered = RenderedPage("Nordhaus – Art", (), ())
    >>> _named_by_home_link(rendered, ["Start"]), _named_by_home_link(rendered, ["Art"])
    ([], ['art'])
    """
    homes = [_text_stats(text)[3] for text in home_link_texts]
    segments = (_text_stats(pieces[-1])[3] for title in title_strings(rendered)
                if len(pieces := split_title(title)) >= 2)
    return [segment for segment in dict.fromkeys(segments)
            if any(home == segment or (len(segment) >= MIN_SITE_NAME_CHARS and _barely_holds(home, segment))
                   for home in homes if len(segment) >= MIN_SHORT_NAME_CHARS)]


#: Default ``<title>`` texts of document generators (office suites, slide and PDF converters): a page
#: exported with one is titled by the software, not by its topic. Matched squashed (case, spaces and
#: punctuation ignored); a file name after the generator's ("Microsoft Word - report.docx") is not.
GENERATOR_TITLES = (
    "PowerPoint Presentation", "PowerPoint-Präsentation", "Présentation PowerPoint", "Presentación de PowerPoint",
    "Untitled presentation", "Untitled document", "Untitled spreadsheet", "Slide 1", "Presentation1",
    "Document1", "Keynote Presentation",
)
_GENERATOR_TITLE_KEYS = frozenset(_text_stats(title)[3] for title in GENERATOR_TITLES)


@short_text_cache  # template texts repeat on every page of a site
def _is_site_name(text: str, site_names: tuple[str, ...]) -> bool:
    """Whether a text names the site: squashed, it equals one of ``site_names``, or (both at least
    :data:`MIN_SITE_NAME_CHARS` long) holds it with a few characters more or is held by it.

    >>> _is_site_name("Quanta Magazine", ("quantamagazine",)), _is_site_name("Chaos", ("quantamagazine",))
    (True, False)
    >>> _is_site_name("Know Your Bible - Christianbook.com", ("christianbook",))
    False
    >>> _is_site_name("V8", ("v8",)), _is_site_name("V8 release", ("v8",)), _is_site_name("V8", ("v8dev",))
    (True, False, False)
    """
    if text.isascii() and sum(_char_counts(text)[::2]) > max(map(len, site_names), default=0) + 8:
        return False  # squashed, an ASCII text is its letters and digits: more than a name has (a paragraph)
    squashed = _text_stats(text)[3]
    if len(squashed) < MIN_SHORT_NAME_CHARS:
        return False
    return any(squashed == name or (
        min(len(squashed), len(name)) >= MIN_SITE_NAME_CHARS and (squashed in name or _barely_holds(squashed, name)))
        for name in site_names)


def _barely_holds(squashed: str, name: str) -> bool:
    """Whether a squashed text holds ``name`` with at most 8 characters more: "christianbookcom" holds
    "christianbook", a headline that mentions the site does not name it."""
    return name in squashed and len(squashed) <= len(name) + 8


def holds_words(text: str, part: str) -> bool:
    """Whether ``part`` occurs in ``text`` as whole words, not inside one.

    >>> holds_words("google - site reliability engineering", "site reliability")
    True
    >>> holds_words("google - site reliability engineering", "n")
    False
    """
    start = text.find(part)
    while part and start >= 0:
        end = start + len(part)
        if not (start > 0 and is_word_char(text[start - 1]) and is_word_char(part[0])) and not (
                end < len(text) and is_word_char(text[end]) and is_word_char(part[-1])):
            return True
        start = text.find(part, start + 1)
    return False


@short_text_cache
def _holds_site_name(text: str, site_names: tuple[str, ...]) -> bool:
    """Whether a text cut at title delimiters has two or more segments, one of which names the site.

    >>> _holds_site_name("The Giver: Lois Lowry: 9780395645666: Christianbook.com", ("christianbookcom",))
    True
    >>> _holds_site_name("Christianbook.com", ("christianbookcom",))
    False
    >>> _holds_site_name("Abc\u1100\u3163한국일보 기사", ("abc\u1100",))  # the segment "Abcᄀ" names the site
    True
    """
    # A segment's squashed text is a part of the whole's: a segment that equals or holds a name needs the
    # name in the whole, one held by a name needs a part of it; a text with neither is not cut (most texts).
    # Not so across the Hangul bar (U+3163): NFKC makes it a vowel that joins a leading consonant before it.
    if HANGUL_BAR not in text and not _name_parts(site_names).search(_text_stats(text)[3]):
        return False
    segments = split_title(text)
    return len(segments) >= 2 and any(_is_site_name(segment, site_names) for segment in segments)


def _site_name_columns(texts: Sequence[str], squashed: Sequence[str], site_names: tuple[str, ...],
                       ) -> tuple[np.ndarray, np.ndarray]:
    """``site_name`` (:func:`_is_site_name`) and ``holds_site_name`` (:func:`_holds_site_name`) of each text,
    ``squashed`` its tokens run together.

    A text that names the site, or holds a segment that does, holds a name or a part of one squashed
    (:func:`_name_parts`; the Hangul bar aside, see :func:`_holds_site_name`): one search rules out most
    texts, where two cached calls a text cost twice as much on the lone pages.
    """
    is_name, holds_name = np.zeros(len(texts)), np.zeros(len(texts))
    parts = _name_parts(site_names)
    for i, (text, key) in enumerate(zip(texts, squashed, strict=True)):
        if parts.search(key):
            is_name[i] = _is_site_name(text, site_names)
            holds_name[i] = _holds_site_name(text, site_names)
        elif HANGUL_BAR in text:
            holds_name[i] = _holds_site_name(text, site_names)
    return is_name, holds_name


@functools.lru_cache(maxsize=256)  # one per site
def _name_parts(site_names: tuple[str, ...]) -> re.Pattern:
    """A pattern that finds, in a squashed text, one of ``site_names`` or a part of one of
    :data:`MIN_SITE_NAME_CHARS` characters (a pattern that finds nothing when there is no name).

    >>> bool(_name_parts(("quantamagazine",)).search("readthequantareport")), _name_parts(("v8",)).search("v9")
    (True, None)
    """
    parts = {name[start : start + MIN_SITE_NAME_CHARS] for name in site_names
             for start in range(len(name) - MIN_SITE_NAME_CHARS + 1)}
    return re.compile("|".join(map(re.escape, sorted(parts | set(site_names)))) or "(?!)")


def _dice_with_references(texts: Sequence[str], reference_groups: Sequence[Sequence[str]]) -> np.ndarray:
    """Best token Dice (:func:`mainentity.features.anchortext.dice_matrix`) of each text with each group
    of reference texts, all groups in one call.

    Returns
    -------
    dice : ndarray of shape (len(texts), len(reference_groups))
        Per group, the best Dice with any of its texts; 0 for an empty group.
    """
    references = [text for group in reference_groups for text in group]
    out = np.zeros((len(texts), len(reference_groups)))
    if not references or not len(texts):
        return out
    dice = dice_matrix(texts, references)
    bounds = np.cumsum([0] + [len(group) for group in reference_groups])
    for group, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        if stop > start:
            out[:, group] = dice[:, start:stop].max(axis=1)
    return out


def _prominent_texts(texts: Sequence[str], level: np.ndarray, size: np.ndarray) -> list[str]:
    """The page's most prominent texts: level-1 headings and texts in the largest font size, then level-2
    headings, each once, in candidate order within each, the first :data:`MAX_PROMINENT`.

    >>> _prominent_texts(["Home", "Lamp", "Shop", "Lamp"], np.array([0, 2, 1, 0]), np.array([14.0, 24.0, 20.0, 30.0]))
    ['Shop', 'Lamp']
    """
    largest = size.max() if len(size) else 0.0
    first = (level == 1) | ((size == largest) & (largest > 0))
    ordered = [text for text, keep in zip(texts, first, strict=True) if keep]
    ordered += [text for text, keep in zip(texts, level == 2, strict=True) if keep]
    return list(dict.fromkeys(ordered))[:MAX_PROMINENT]


def _box(candidates: Sequence[TextBlock], name: str) -> np.ndarray:
    """One box coordinate (``x``, ``y``, ``width`` or ``height``) of each candidate, in CSS px; ``nan``
    where it is not finite (no layout)."""
    values = np.array([getattr(candidate, name) for candidate in candidates], dtype=float)
    return np.where(np.isfinite(values), values, np.nan)


def _layout_columns(candidates: Sequence[TextBlock], rendered: RenderedPage, size: np.ndarray) -> dict[str, np.ndarray]:
    """The columns that need a box: ``y_fold``, ``above_fold``, ``x_centre``, ``width``, ``lines``; ``nan``
    where the box (or, for ``x_centre`` and ``width``, the page's width) is not finite."""
    x, y, width, height = (_box(candidates, name) for name in ("x", "y", "width", "height"))
    page_width = max(rendered.width, 1.0) if math.isfinite(rendered.width) else math.nan
    with np.errstate(invalid="ignore"):  # comparisons with nan are False; the nan is put back below
        above = np.where(np.isnan(y + height), np.nan, y + height / 2 < FOLD_PX)
    return {
        "y_fold": np.clip(y / FOLD_PX, 0.0, 4.0),  # np.clip keeps nan
        "above_fold": above,
        "x_centre": np.clip((x + width / 2) / page_width, 0.0, 1.0),
        "width": np.clip(width / page_width, 0.0, 1.0),
        "lines": np.clip(height / np.maximum(1.2 * size, 1.0), 0.0, 10.0) / 10.0,
    }


def page_heading_level(candidate: TextBlock) -> int:
    """The candidate's heading level as a heading of the page: its ``heading_level`` (1-6, 0 outside
    headings), but 0 inside a ``<nav>`` element.

    A heading inside a ``<nav>`` heads the navigation, not the page (HTML Living Standard, section 4.3.4:
    "a section with navigation links"): a menu's title ("Chapters", a book's other chapter in a sidebar),
    or the last crumb of a breadcrumb trail that some publishers set as an ``<h1>`` copy of the ``<title>``
    while the story's headline is a heading further on.

    >>> from mainentity.records import TextBlock
    >>> crumb = TextBlock("Chiesa ruft zum Widerstand auf", "h1", "html[0]/body[1]/nav[0]/div[1]/h1[0]",
    ...                   14, 700, True, 0, 0, 300, 20, heading_level=1)
    >>> page_heading_level(crumb), page_heading_level(TextBlock("Chiesa", "h1", "html[0]/body[1]/h1[0]",
    ...                   32, 700, True, 0, 0, 300, 40, heading_level=1))
    (0, 1)
    """
    level = candidate.heading_level
    return 0 if level and _IN_NAV.search(candidate.dom_path) else level  # most candidates are no heading


def _first_h1(candidates: Sequence[TextBlock], h1: np.ndarray) -> np.ndarray:
    """1 for the h1 candidate(s) highest on the page, 0 for the other candidates; ``nan`` for every h1
    candidate when one of them has no finite ``y`` (which is highest is then unknown)."""
    out = np.zeros(len(candidates))
    h1_indices = np.flatnonzero(h1)
    if not len(h1_indices):
        return out
    tops = _box([candidates[i] for i in h1_indices], "y")
    out[h1_indices] = np.nan if np.isnan(tops).any() else (tops == tops.min()).astype(float)
    return out


def _style_columns(
    candidates: Sequence[TextBlock], rendered: RenderedPage, stats: list, level: np.ndarray, size: np.ndarray
) -> dict[str, np.ndarray]:
    """The columns of the candidates' own style, layout and text: ``h1`` to ``in_link`` in the module
    docstring's table (``size``: font sizes in CSS px, 0 where unknown)."""
    columns = {"h1": (level == 1).astype(float), "heading": np.where(level > 0, (7.0 - level) / 6.0, 0.0),
               "fsize_ratio": size / max(size.max(), 1e-9)}
    distinct = np.unique(size)[::-1]
    rank = np.searchsorted(-distinct, -size)
    columns["fsize_rank"] = 1.0 - rank / max(len(distinct) - 1, 1)
    columns["bold"] = np.array([candidate.bold for candidate in candidates], dtype=float)
    columns["weight"] = np.array([candidate.font_weight for candidate in candidates], dtype=float) / 900.0
    columns.update(_layout_columns(candidates, rendered, size))
    columns["log_words"] = np.array([min(math.log1p(stat[0]) / math.log(101), 1.0) for stat in stats])
    columns["upper_share"] = np.array([stat[1] for stat in stats])
    columns["digit_share"] = np.array([stat[2] for stat in stats])
    columns["in_link"] = np.array([candidate.in_link for candidate in candidates], dtype=float)
    columns["continues"] = np.array([candidate.text.lstrip()[:1] in CONTINUATION_MARKS for candidate in candidates],
                                    dtype=float)
    return columns


def _title_columns(
    candidates: Sequence[TextBlock], page: Page, rendered: RenderedPage, profile: SiteProfile,
    normalized: list[str], stats: list, level: np.ndarray, size: np.ndarray,
) -> dict[str, np.ndarray]:
    """The columns that compare each candidate with the page's titles, meta titles, JSON-LD, URL slug and
    incoming anchor texts, and with the site's name: ``title_dice`` to ``title_unsupported`` (``stats``: the
    candidates' :func:`_text_stats`)."""
    texts = [candidate.text for candidate in candidates]
    terms = [term_set(text) for text in texts]
    domain, _, slug = url_parts(page.url) if page.url else ("", "", "")
    slug = slug if any(ch.isalpha() for ch in slug) else ""  # an id or a date ("9780151014231") names no page
    site_names = _site_names(rendered, domain, profile.site_title_segments, page.home_link_texts)
    # a whole title that several pages of the site share names a section or the site, not this page
    shared = profile.shared_title_texts
    titles = [title for title in title_strings(rendered) if normalize_text(title) not in shared]
    split_titles = [split_title(title) for title in titles]
    # the pieces a delimiter cuts, and a whole title only when it carries no site name: "Title: Author:
    # Shop" is no segment, a headline cut at its comma is still one
    whole = [title for title in titles if not _holds_site_name(title, site_names)]
    segments = [segment for segment in dict.fromkeys([*(p for pieces in split_titles for p in pieces), *whole])
                if not _is_site_name(segment, site_names)]
    segment_keys = {normalize_text(segment) for segment in segments}
    title_keys = [normalize_text(title) for title in titles]
    title_terms = frozenset(term for title in titles for term in term_set(title))
    meta = [title for title in rendered.meta_titles if normalize_text(title) not in shared]
    own_title = rendered.title if rendered.title and normalize_text(rendered.title) not in shared else ""
    distinct = {text: row for row, text in enumerate(dict.fromkeys(texts))}  # a text in several candidates
    dice = _dice_with_references(list(distinct), [
        [own_title] if own_title and not _is_site_name(own_title, site_names) else [], segments,
        meta + [s for title in meta for s in split_title(title)],
        jsonld_titles(page.html), [slug], list(page.anchors),
        _prominent_texts(texts, level, size),
    ])[[distinct[text] for text in texts]]
    columns = {"title_dice": dice[:, 0], "title_segment_dice": dice[:, 1]}
    columns["title_segment_exact"] = np.array([key in segment_keys for key in normalized], dtype=float)
    segment_terms = [terms_ for terms_ in map(term_set, segments) if terms_]
    any_segment_term = frozenset().union(*segment_terms)
    columns["segment_recall"] = np.array([
        0.0 if t.isdisjoint(any_segment_term) else max(len(t & st) / len(st) for st in segment_terms)
        for t in terms])
    last_keys = {normalize_text(pieces[-1]) for pieces in split_titles if len(pieces) >= 2}
    columns["title_last_segment"] = np.array([key in last_keys for key in normalized], dtype=float)
    all_titles = "\n".join(title_keys)  # normalised texts hold no newline: one substring test rules most out
    columns["in_title"] = np.array([key in all_titles and any(holds_words(title, key) for title in title_keys)
                                    for key in normalized], dtype=float)
    columns["title_precision"] = np.array([len(t & title_terms) / len(t) if t else 0.0 for t in terms])
    columns["meta_dice"], columns["jsonld_dice"] = dice[:, 2], dice[:, 3]
    columns["url_dice"] = dice[:, 4]
    columns["site_name"], columns["holds_site_name"] = _site_name_columns(texts, [stat[3] for stat in stats],
                                                                          site_names)
    columns["anchor_dice"] = dice[:, 5]
    is_title = np.array([candidate.kind == "title" for candidate in candidates])
    whole_keys = set(title_keys)
    is_whole_title = is_title | np.array([key in whole_keys for key in normalized])
    columns["title_unsupported"] = np.where(is_whole_title, 1.0 - np.maximum(dice[:, 6], dice[:, 4]), 0.0)
    return columns


def _position_columns(
    candidates: Sequence[TextBlock], normalized: list[str], computed: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The columns of the candidate's kind and place among the page's candidates: ``kind_title`` to
    ``best_title_dice`` (``computed``: the style and title columns, for ``h1`` and ``title_segment_dice``)."""
    n = len(candidates)
    columns = {}
    is_title = np.array([candidate.kind == "title" for candidate in candidates])
    columns["kind_title"] = is_title.astype(float)
    width = np.array([candidate.width for candidate in candidates], dtype=float)
    columns["in_page"] = np.where(np.isfinite(width), width > 0, 1.0)
    columns["merged"] = np.array([candidate.merged for candidate in candidates], dtype=float)
    columns["coverage"] = _coverage(candidates, normalized)
    columns["order"] = np.arange(n) / n
    counts = Counter(normalized)
    columns["repeats"] = np.array([min(math.log1p(counts[key] - 1) / math.log(11), 1.0) for key in normalized])
    columns["first_h1"] = _first_h1(candidates, computed["h1"])
    best = computed["title_segment_dice"]
    columns["best_title_dice"] = ((best == best.max()) & (best > 0)).astype(float)
    return columns


def candidate_features(
    candidates: Sequence[TextBlock],
    page: Page,
    rendered: RenderedPage,
    profile: SiteProfile | None = None,
    slots: Sequence[str] | None = None,
) -> np.ndarray:
    """The transferable features of one page's candidates.

    Parameters
    ----------
    candidates : sequence of TextBlock
        The page's candidates (:func:`mainentity.features.candidates.page_candidates`).
    page : Page
        The page, for its URL, its HTML (JSON-LD) and its incoming anchor texts.
    rendered : RenderedPage
        Its rendering, for its titles and its size.
    profile : SiteProfile, optional
        Site-level counts of the page's site (:func:`mainentity.features.site.site_profile`); without
        one, the site features are those of a site of one page (all 0).
    slots : sequence of str, optional
        The candidates' slots (:func:`mainentity.features.site.slot_of`), when already known.

    Returns
    -------
    features : ndarray of shape (n_candidates, len(TRANSFER_FEATURES))
        Finite values, and ``nan`` in the layout columns of candidates without a finite box; see the
        module docstring for each column.

    Examples
    --------
    >>> h1 = TextBlock("Know Your Bible", "h1", "html[0]/body[1]/h1[0]", 32, 700, True, 8, 120, 300, 37,
    ...                heading_level=1)
    >>> nav = TextBlock("Home", "a", "html[0]/body[1]/a[0]", 14, 400, False, 8, 8, 40, 17, in_link=True)
    >>> rendered = RenderedPage("Know Your Bible | Shop", (), (nav, h1))
    >>> page = Page("shop", "a.html", "http://shop.example/know-your-bible", "")
    >>> x = candidate_features([nav, h1], page, rendered)
    >>> names = ["h1", "fsize_ratio", "title_segment_exact", "url_dice", "in_link"]
    >>> x[:, [TRANSFER_FEATURES.index(name) for name in names]].tolist()
    [[0.0, 0.4375, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0, 0.0]]
    """
    n = len(candidates)
    if n == 0:
        return np.zeros((0, len(TRANSFER_FEATURES)))
    profile = profile or SiteProfile(1)
    texts = [candidate.text for candidate in candidates]
    normalized = [normalize_text(text) for text in texts]
    stats = [_text_stats(text) for text in texts]
    level = np.array([page_heading_level(candidate) for candidate in candidates], dtype=float)
    size = np.array([candidate.font_size for candidate in candidates], dtype=float)
    size = np.where(np.isfinite(size) & (size > 0), size, 0.0)
    columns = _style_columns(candidates, rendered, stats, level, size)
    columns.update(_title_columns(candidates, page, rendered, profile, normalized, stats, level, size))
    columns.update(_position_columns(candidates, normalized, columns))
    columns["whole_share"] = whole_share(candidates, normalized)
    site = profile.features(candidates, slots)
    for j, name in enumerate(SITE_FEATURES):
        columns[name] = site[:, j]
    return np.column_stack([columns[name] for name in TRANSFER_FEATURES])
