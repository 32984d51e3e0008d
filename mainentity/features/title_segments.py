"""Title-tag analysis (TTA): segments of the title and meta tags, and their three criteria.

Gali & Fränti (2016), "Web title extraction", TTA slides ("Segmentation by delimiters" to
"Normalizing"): the ``<title>``, the meta titles (og:title, title, twitter:title) and the meta keywords
are cut at delimiter patterns; every segment is a candidate title, scored by

1. *position in title and meta tags*: ``position_score`` (0.1) when the segment is the first or the last
   segment of one of those sources, else 0;
2. *popularity among header tags*: the sum over the h1..h6 text blocks that contain the segment of the
   weights h1 = 6, h2 = 5, ..., h6 = 1 (:data:`HEADING_WEIGHTS`);
3. *position in the web link*: the best weighted Dice similarity of the segment with the URL's domain
   (weight 1), path (1.5) and file name (3) (:func:`link_similarity`).

Criteria 2 and 3 are divided by their maximum over the page's segments and the three are summed; the
position score is kept as it is (0.1), since the slide's "Normalizing" table keeps it at 0.1 and its
totals (2.10, 1.08, 0.83, 0.83) add it unscaled. The helpers for criteria 2 and 3 are shared with the
Titler features (:mod:`mainentity.features.ngram_candidates`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote, urlsplit

import numpy as np

from mainentity.text import collapse_whitespace, normalize_text

__all__ = [
    "HANGUL_BAR",
    "HEADING_WEIGHTS",
    "LINK_WEIGHTS",
    "SegmentScores",
    "dice_bigrams",
    "heading_weight",
    "link_similarity",
    "score_segments",
    "split_keywords",
    "split_title",
    "url_parts",
]

#: Weight of an occurrence in a heading of level 1..6 (Gali & Fränti 2016, "Popularity among header tags").
HEADING_WEIGHTS = {1: 6.0, 2: 5.0, 3: 4.0, 4: 3.0, 5: 2.0, 6: 1.0}

#: Weights of the URL's (domain, path, file name) in the link similarity (Gali & Fränti 2016,
#: "Scoring-Position in Web Link").
LINK_WEIGHTS = (1.0, 1.5, 3.0)

# Delimiters between title segments: the slides' list ("Pre-defined delimiter patterns") plus the
# issue's, and " @ ", which hosted blogs set between a post's title and the blog's ("Post @ Blog :: Host ::").
# All but "|" and ": " need white space on both sides, so "AC/DC", "Q&A", "e-mail", "3.5" and "10:30" stay
# whole; "|" splits anywhere (it never occurs inside a name). A delimiter between two digits does not split
# ("May 5, 2020", "1990 - 2000", "10 : 30").
_SPACED = r"\|\||::|[-–—:></«»·•.|?@]"
# Titles in scripts written with few spaces glue their suffix on: "…커졌다-정치ㅣ한국일보",
# "…找对象_智能_好奇心日报". A standalone Hangul letter I (U+3163) serves as a bar there, and a "-" or "_"
# glued to a last run of at most 8 Han, kana or Hangul characters (a section or the site's name, ahead of
# another delimiter or the end) cuts; "e-mail", "COVID-19" and "한-미 정상회담" stay whole.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_JAMO = "\u3131-\u318e"
#: The Hangul letter I (U+3163) that Korean titles set as a bar.
HANGUL_BAR = "\u3163"
_BAR = rf"\s*(?<![{_JAMO}]){HANGUL_BAR}(?![{_JAMO}])\s*"
# "|" and the bars that stand in for it: fullwidth (U+FF5C, "标题｜网站"), box-drawing (U+2502, U+2503), the
# broken bar (U+00A6), the light bar ornament (U+2758), the presentation form of a vertical line (U+FE31),
# "divides" (U+2223), the double bar (U+2016) and the Han stroke U+4E28 that Chinese titles set as a bar
# ("标题丨网站"); none of them occurs inside a name.
_PIPE = r"\s*[|\uff5c\u2502\u2503\u00a6\u2758\ufe31\u2223\u2016\u4e28]\s*"
_GLUED = rf"(?<=\S)[-_](?=[{_CJK}]{{1,8}}(?:[-_]|{_BAR}|{_PIPE}|\s+(?:{_SPACED})\s+|\s*\Z))"
# A colon (ASCII or fullwidth) glued to a Han, kana or Hangul character or a CJK bracket before a last run of at
# most 16 characters without a space: the site's name ("…描画できる「Treeviz」:phpspot開発日誌"); a colon
# inside a headline ("…比較してみた：さらば平成、…") has a longer text after it.
_GLUED_COLON = rf"(?<=[{_CJK}\u3001-\u303f\uff01-\uff60])[:\uff1a](?=[^\s:\uff1a]{{1,16}}\s*\Z)"
_DELIMITER = re.compile(rf"\s+(?:{_SPACED})\s+|:\s+|,\s+|{_PIPE}|{_BAR}|{_GLUED}|{_GLUED_COLON}")
# The delimiters a title joins its site and section on: those above but colons and commas, which also occur
# inside a headline or a name ("Kenia: Nairobi von unten", "Act Like a Lady, Think Like a Man").
_OUTER_DELIMITER = re.compile(rf"\s+(?:\|\||[-–—></«»·•.|?@])\s+|{_PIPE}|{_BAR}|{_GLUED}")
# A title's last part set in square or CJK brackets after a space names its site or kind, not the page: "… |
# My Hero Academia [Archive of Our Own]", "… 2015 [LWN.net]", "欲張りなイヌ ＜福娘童話集 きょうのイソップ童話＞".
# It is cut as a segment of its own (read as " | " before it). Parentheses are left alone: a headline ends in
# them as often ("… (3-3)", "… (Unsupported & undocumented, WIP)").
_OPENERS, _CLOSERS = r"\[\uff3b\u3010\uff1c", r"\]\uff3d\u3011\uff1e"  # [ ［ 【 ＜ and their closers
_BRACKETED_SUFFIX = re.compile(rf"\s[{_OPENERS}]([^{_OPENERS}{_CLOSERS}]+)[{_CLOSERS}]\s*\Z")
_KEYWORD_SEPARATOR = re.compile(r"[,;]")
_HOST_PREFIX = re.compile(r"^www\d*\.")
_FILE_EXTENSION = re.compile(r"\.(?:s?html?|php\d?|aspx?|jsp|cgi|cfm|xml)$")
# Second-level labels that belong to the public suffix in a two-letter country domain (".co.uk").
_SECOND_LEVEL = frozenset({"ac", "co", "com", "edu", "gov", "ltd", "ne", "net", "or", "org", "plc"})
_NON_ALNUM = re.compile(r"[\W_]+")


def split_title(title: str, *, inner: bool = True) -> list[str]:
    """Cut a title at the delimiter patterns of TTA; each non-empty piece is a segment.

    Delimiters: `` - ``, `` – ``, `` — ``, `` | `` (or ``|`` without spaces), `` || ``, `` : ``,
    ``: ``, `` :: ``, `` > ``, `` < ``, `` / ``, ``, ``, `` « ``, `` » ``, `` · ``, `` • ``, `` . ``,
    `` ? ``, `` @ ``; in Korean, Chinese and Japanese titles also ``ㅣ`` (U+3163 as a bar) and a ``-`` or ``_`` glued to
    a short last run of those scripts (``…커졌다-정치ㅣ한국일보``). A delimiter with a digit on both sides does
    not split (dates, ranges, times). Pieces with no letter or digit are dropped.

    Parameters
    ----------
    title : str
        A title (``<title>`` text or a meta title's content).
    inner : bool, default True
        Cut at colons and commas too, as TTA does. False keeps them: they also occur inside a headline
        or a name, so only the delimiters that join a title's site and section to it cut.

    Returns
    -------
    segments : list of str
        The segments in order, white space collapsed; ``[title]`` when it has no delimiter, ``[]`` when
        it has no letter or digit.

    References
    ----------
    .. [1] Gali & Fränti (2016), "Web title extraction", slide "Segmentation by delimiters".

    Examples
    --------
    >>> split_title("The Coronet, Holloway | Our Pubs | J D Wetherspoon")
    ['The Coronet', 'Holloway', 'Our Pubs', 'J D Wetherspoon']
    >>> split_title("Autumn maples (2) @ Maple Hiker :: Quillhost Blogs ::")
    ['Autumn maples (2)', 'Maple Hiker', 'Quillhost Blogs']
    >>> split_title("AC/DC Q&A - Live, May 5, 2020")
    ['AC/DC Q&A', 'Live', 'May 5, 2020']
    >>> split_title("Kenia: Nairobi von unten, ein Besuch | Tageszeitung junge Welt", inner=False)
    ['Kenia: Nairobi von unten, ein Besuch', 'Tageszeitung junge Welt']

    A last part in square or CJK brackets is a segment; parentheses are not cut:

    >>> split_title("Which varnish outdoors? - Finishes [Harbor Forum]", inner=False)
    ['Which varnish outdoors?', 'Finishes', 'Harbor Forum']
    >>> split_title("欲張りなイヌ ＜福娘童話集 きょうのイソップ童話＞"), split_title("Ein Punkt (3-3)")
    (['欲張りなイヌ', '福娘童話集 きょうのイソップ童話'], ['Ein Punkt (3-3)'])
    """
    title = _BRACKETED_SUFFIX.sub(r" | \1", collapse_whitespace(title))
    title = f" {title} "  # so that a leading or trailing delimiter matches
    pieces, start = [], 0
    for match in (_DELIMITER if inner else _OUTER_DELIMITER).finditer(title):
        before, after = title[match.start() - 1 : match.start()], title[match.end() : match.end() + 1]
        if not (before.isdigit() and after.isdigit()):
            pieces.append(title[start : match.start()])
            start = match.end()
    pieces.append(title[start:])
    return [piece.strip() for piece in pieces if _NON_ALNUM.sub("", piece)]


def split_keywords(keywords: str) -> list[str]:
    """Split a meta keywords content at commas and semicolons.

    >>> split_keywords("The Coronet; pubs,  food ,")
    ['The Coronet', 'pubs', 'food']
    """
    pieces = (collapse_whitespace(piece) for piece in _KEYWORD_SEPARATOR.split(keywords))
    return [piece for piece in pieces if _NON_ALNUM.sub("", piece)]


def url_parts(url: str) -> tuple[str, str, str]:
    """The domain, path and file name of a URL, the three parts of TTA's criterion 3.

    The domain is the host without a leading ``www.``, without its top-level domain and, for two-letter
    country domains, without a public second level such as ``co``/``com``/``org`` (``www.bbc.co.uk`` ->
    ``bbc``). The file name is the last path segment without a web file extension (``.html``, ``.php``,
    ...); when the path ends with ``/`` its last directory is the file name (a slug URL). The path is
    what precedes the file name. Percent-escapes are decoded.

    Parameters
    ----------
    url : str
        An absolute URL.

    Returns
    -------
    domain, path, file_name : str
        Lower-cased; empty strings for missing parts.

    Examples
    --------
    >>> url_parts("https://www.jdwetherspoon.com/pubs/all-pubs/england/london/the-coronet-holloway")
    ('jdwetherspoon', 'pubs/all-pubs/england/london', 'the-coronet-holloway')
    >>> url_parts("http://news.bbc.co.uk/sport/story.html?x=1")
    ('news.bbc', 'sport', 'story')
    """
    split = urlsplit(url.strip())
    labels = _HOST_PREFIX.sub("", (split.hostname or "").lower()).split(".")
    if len(labels) > 1:
        labels = labels[:-1]
        if len(labels) > 1 and len(split.hostname.rsplit(".", 1)[-1]) == 2 and labels[-1] in _SECOND_LEVEL:
            labels = labels[:-1]
    segments = [segment for segment in unquote(split.path).lower().split("/") if segment]
    file_name = _FILE_EXTENSION.sub("", segments[-1]) if segments else ""
    return ".".join(label for label in labels if label), "/".join(segments[:-1]), file_name


@lru_cache(maxsize=65536)
def _bigrams(text: str) -> Counter:
    letters = _NON_ALNUM.sub("", text.lower())
    return Counter(letters[i : i + 2] for i in range(len(letters) - 1))


def _dice(bigrams_a: Counter, bigrams_b: Counter) -> float:
    if not (bigrams_a and bigrams_b):
        return 0.0
    return 2.0 * (bigrams_a & bigrams_b).total() / (bigrams_a.total() + bigrams_b.total())


def dice_bigrams(a: str, b: str) -> float:
    """Dice similarity of the character-bigram multisets of two strings.

    Both strings are lower-cased and stripped of everything but letters and digits; with ``A`` and
    ``B`` their bigram multisets, ``Dice = 2 |A ∩ B| / (|A| + |B|)`` (intersection with multiplicity).
    This reproduces the slide's values: "The Coronet" vs "the-coronet-holloway" 0.69 (printed 0.70),
    "Holloway" 0.58, "J D Wetherspoon" vs "jdwetherspoon" 1.00.

    Parameters
    ----------
    a, b : str
        Any texts.

    Returns
    -------
    dice : float
        In [0, 1]; 0 when either string has fewer than two letters or digits.

    References
    ----------
    .. [1] Gali & Fränti (2016), "Web title extraction", slide "Scoring-Position in Web Link".

    Examples
    --------
    >>> round(dice_bigrams("Holloway", "the-coronet-holloway"), 3)
    0.583
    """
    return _dice(_bigrams(a), _bigrams(b))


def link_similarity(
    text: str,
    parts: Sequence[str],
    weights: Sequence[float] = LINK_WEIGHTS,
    min_dice: float = 0.5,
) -> float:
    """TTA criterion 3: the best weighted Dice similarity of a text with the URL's parts.

    ``max_k w_k * D(text, part_k)`` over domain, path and file name, where a Dice similarity below
    ``min_dice`` counts as 0. The slide scores each candidate by one part only and gives "Our Pubs"
    0.00 for the path, whose bigram Dice with it is 0.21: a part only counts when it is a real match.

    Parameters
    ----------
    text : str
        A candidate title.
    parts : sequence of 3 str
        ``(domain, path, file_name)`` from :func:`url_parts`.
    weights : sequence of 3 float, default (1, 1.5, 3)
        Weight of each part.
    min_dice : float, default 0.5
        Dice values below it count as 0.

    Returns
    -------
    similarity : float
        In ``[0, max(weights)]``.

    Raises
    ------
    ValueError
        If ``parts`` and ``weights`` differ in length.

    References
    ----------
    .. [1] Gali & Fränti (2016), "Web title extraction", slide "Scoring-Position in Web Link".

    Examples
    --------
    >>> parts = ("jdwetherspoon", "pubs/all-pubs/england/london", "the-coronet-holloway")
    >>> round(link_similarity("The Coronet", parts), 3), link_similarity("Our Pubs", parts)
    (2.077, 0.0)
    """
    if len(parts) != len(weights):
        raise ValueError(f"need one weight per URL part; got {len(weights)} weights for {len(parts)} parts")
    best = 0.0
    bigrams = _bigrams(text)
    n_bigrams = bigrams.total()
    for part, weight in zip(parts, weights, strict=True):
        part_bigrams = _bigrams(part)
        n_part = part_bigrams.total()
        if 2 * min(n_bigrams, n_part) < min_dice * (n_bigrams + n_part):
            continue  # Dice <= 2 min(|A|, |B|) / (|A| + |B|) is below min_dice: skip the intersection
        dice = _dice(bigrams, part_bigrams)
        if dice >= min_dice:
            best = max(best, weight * dice)
    return best


def heading_weight(needle: str, headings: Iterable[tuple[str, int]]) -> float:
    """TTA criterion 2: the weighted count of a text's occurrences in the headings.

    ``sum_h HEADING_WEIGHTS[level_h] * count(needle in text_h)``. Occurrences are plain substrings, so
    compare texts in one form (e.g. :func:`mainentity.text.normalize_text`); the slide counts
    "J D Wetherspoon" in the h4 "Nearby J D Wetherspoons".

    Parameters
    ----------
    needle : str
        The text searched for; an empty needle scores 0.
    headings : iterable of (str, int)
        ``(text, level)`` of heading text blocks, level 1..6.

    Returns
    -------
    weight : float
        Non-negative.

    References
    ----------
    .. [1] Gali & Fränti (2016), "Web title extraction", slide "Popularity Among Header Tags".

    Examples
    --------
    >>> heading_weight("our pubs", [("the coronet", 1), ("our pubs", 2), ("find our pubs", 4)])
    8.0
    """
    if not needle:
        return 0.0
    return sum(HEADING_WEIGHTS.get(level, 0.0) * text.count(needle) for text, level in headings)


@dataclass(frozen=True)
class SegmentScores:
    """The TTA candidates of one page and their criteria.

    Attributes
    ----------
    segments : tuple of str
        Candidate segments, deduplicated by normalised text, in source order (title, meta titles,
        keywords).
    criteria : ndarray of shape (n_segments, 3)
        Position (0 or ``position_score``), heading popularity and link similarity, the last two divided
        by their maximum over the page (0 when that maximum is 0).
    total : ndarray of shape (n_segments,)
        Row sums of ``criteria``: the TTA score.
    """

    segments: tuple[str, ...]
    criteria: np.ndarray
    total: np.ndarray


def score_segments(
    title: str,
    meta_titles: Sequence[str],
    keywords: Sequence[str],
    headings: Sequence[tuple[str, int]],
    url: str,
    *,
    position_score: float = 0.1,
    link_weights: Sequence[float] = LINK_WEIGHTS,
    min_link_dice: float = 0.5,
) -> SegmentScores:
    """Segment a page's title tags and score every segment by the three TTA criteria.

    Parameters
    ----------
    title : str
        The ``<title>`` text.
    meta_titles : sequence of str
        Meta title contents (og:title, title, twitter:title).
    keywords : sequence of str
        Meta keywords contents; each is split by :func:`split_keywords`.
    headings : sequence of (str, int)
        ``(text, level)`` of the page's heading text blocks.
    url : str
        The page URL.
    position_score : float, default 0.1
        Criterion 1 for a segment that is first or last in a source.
    link_weights : sequence of 3 float, default (1, 1.5, 3)
        Weights of domain, path and file name in criterion 3.
    min_link_dice : float, default 0.5
        Dice values below it count as 0 in criterion 3.

    Returns
    -------
    scores : SegmentScores
        With ``n_segments = 0`` when no source has a segment.

    References
    ----------
    .. [1] Gali & Fränti (2016), "Web title extraction", slides "Candidate Segments" to "Normalizing".

    Examples
    --------
    >>> scores = score_segments("Home | Acme Tools", [], [], [("Acme Tools", 1)], "https://acme.com/")
    >>> scores.segments, scores.total.round(2).tolist()
    (('Home', 'Acme Tools'), [0.1, 2.1])
    """
    sources = [split_title(title), *(split_title(text) for text in meta_titles)]
    sources += [split_keywords(text) for text in keywords]
    index: dict[str, int] = {}
    segments: list[str] = []
    position: list[float] = []
    for source in sources:
        for i, segment in enumerate(source):
            key = normalize_text(segment)
            if key not in index:
                index[key] = len(segments)
                segments.append(segment)
                position.append(0.0)
            if i == 0 or i == len(source) - 1:
                position[index[key]] = position_score
    normalized_headings = [(normalize_text(text), level) for text, level in headings]
    parts = url_parts(url)
    criteria = np.zeros((len(segments), 3))
    criteria[:, 0] = position
    criteria[:, 1] = [heading_weight(key, normalized_headings) for key in index]
    criteria[:, 2] = [link_similarity(segment, parts, link_weights, min_link_dice) for segment in segments]
    maxima = criteria[:, 1:].max(axis=0, initial=0.0)
    criteria[:, 1:] /= np.where(maxima > 0, maxima, 1.0)
    return SegmentScores(tuple(segments), criteria, criteria.sum(axis=1))
