"""Text normalisation and the letter-digit tokenizer shared by features, models and evaluation; the wording
of counts in messages."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

# Han, Hiragana/Katakana, Hangul syllables, CJK punctuation-free ideograph blocks.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
# a letter run excludes the CJK characters in its class, not by a lookahead before each letter (twice as fast)
_TOKEN = re.compile(rf"[{_CJK}]|[^\W\d_{_CJK}]+|\d+")
_CJK_CHAR = re.compile(rf"[{_CJK}]")
#: :data:`_TOKEN` on lower-cased ASCII text, which NFKC leaves as it is: a simpler class is a faster search.
_ASCII_TOKEN = re.compile(r"[a-z]+|[0-9]+")
#: U+00AD: where a word may break across lines; shown as a hyphen only there, so not part of the word.
SOFT_HYPHEN = "\u00ad"

#: Elements (start tags) a page may have for a stage to build its DOM: Chromium's rendering
#: (:func:`mainentity.render.settings.markup_problem`) and lxml's parse for links
#: (:mod:`mainentity.linkgraph`). The largest page of the bundled datasets has about 10 000. Each element
#: with text costs the browser's process tree about 5.4 KB (proportional set size: 0.35 GB with an empty
#: page, 0.67 GB with 60 000 spans, 1.42 GB with 200 000; ``benchmarks/render_memory.py``) and lxml about
#: 0.3 KB that the process keeps after the tree is freed, so a page at the limit stays well under 1 GB
#: while a page of a million spans, which took 12 GB, is refused before it is parsed.
MAX_ELEMENTS = 100_000
_START_TAG = re.compile(r"<[A-Za-z]")

#: Characters of text (outside tags, comments, ``<script>`` and ``<style>``) a page may have for a stage
#: to lay it out or read it: Chromium's rendering and the static reader
#: (:func:`mainentity.render.settings.markup_problem`). The page of the bundled datasets with the most has
#: about 495 000 (a Wikipedia article), the longest run between two tags 29 000. A renderer laid out a
#: 5.4 MB paragraph in 1 042 MB (:data:`mainentity.render.memory.MAX_RENDERER_MB`) and the static reader
#: with the features took 3.9 GB for a 50 MB word (``benchmarks/page_memory.py``): at this limit either
#: stays well under 1 GB, and a larger page is refused before it is parsed.
MAX_TEXT_CHARS = 2_000_000
_RAW_TEXT_END = {"script": re.compile(r"</script", re.I), "style": re.compile(r"</style", re.I)}

#: Longest text, in characters, that :func:`short_text_cache` keeps among its many short texts.
CACHED_TEXT_CHARS = 512
#: Longest text, in characters, that :func:`short_text_cache` keeps among its few long ones.
CACHED_LONG_TEXT_CHARS = 8192

_Result = TypeVar("_Result")


def short_text_cache(function: Callable[..., _Result]) -> Callable[..., _Result]:
    """Cache ``function(text, *args)``: least recently used, 65 536 entries for texts of at most
    :data:`CACHED_TEXT_CHARS` characters and 256 for texts of at most :data:`CACHED_LONG_TEXT_CHARS`; call it
    uncached for longer ones.

    A site's template texts (navigation, footers, labels) repeat on every page and are short, so their
    tokens and statistics are computed once per site. A long paragraph rarely repeats across pages, and its
    tokens take about ten bytes per character: a crawl's long texts would make a cache of 65 536 entries
    hold gigabytes. Its own page asks for it several times, though (candidates, their statistics, each
    Dice), so the last few long texts are kept too: at most 256 x 8192 x 10 bytes (21 MB) per cached
    function, far less on real pages. On the lone pages of the shared datasets this takes the static
    model's CPU from 33 to 29 ms per page (``python benchmarks/static_path_speed.py``). The wrapper has
    the short texts' cache's ``cache_info``, and a ``cache_clear`` that clears both.

    >>> @short_text_cache
    ... def n_words(text):
    ...     return len(text.split())
    >>> n_words("a b"), n_words("a b"), n_words("x " * 400), n_words("x " * 5000), n_words.cache_info().currsize
    (2, 2, 400, 5000, 1)
    """
    cached = lru_cache(maxsize=1 << 16)(function)
    cached_long = lru_cache(maxsize=256)(function)

    @functools.wraps(function)
    def short_or_uncached(text: str, *args):
        size = len(text)
        if size <= CACHED_TEXT_CHARS:
            return cached(text, *args)
        return cached_long(text, *args) if size <= CACHED_LONG_TEXT_CHARS else function(text, *args)

    def cache_clear() -> None:
        cached.cache_clear()
        cached_long.cache_clear()

    short_or_uncached.cache_clear = cache_clear
    short_or_uncached.cache_info = cached.cache_info
    return short_or_uncached


def has_more_elements(html: str, max_elements: int = MAX_ELEMENTS) -> bool:
    """Whether markup has more than ``max_elements`` start tags (``<`` then a letter): a cheap bound on
    the elements of its DOM. A count of ``<`` alone comes first; counting tags stops past the limit.

    >>> has_more_elements("<p>a</p><p>b</p>", 2), has_more_elements("<p>a</p>" * 3, 2)
    (False, True)
    """
    if html.count("<") <= max_elements:
        return False
    return any(n_tags > max_elements for n_tags, _ in enumerate(_START_TAG.finditer(html), start=1))


def has_more_text(html: str, max_chars: int = MAX_TEXT_CHARS) -> bool:
    """Whether markup has more than ``max_chars`` characters of text: those outside tags, comments and
    the content of ``<script>`` and ``<style>`` (which nothing lays out). Linear in the markup's length;
    markup no longer than ``max_chars`` is not scanned.

    >>> has_more_text("<p>abc</p><script>var x = 1;</script>", 3), has_more_text("<p>abcd</p>", 3)
    (False, True)
    """
    if len(html) <= max_chars:
        return False
    n_text, position, end = 0, 0, len(html)
    while position < end and n_text <= max_chars:
        tag = html.find("<", position)
        if tag < 0:
            return n_text + end - position > max_chars
        n_text += tag - position
        if html.startswith("<!--", tag):
            close = html.find("-->", tag + 4)
            position = close + 3 if close >= 0 else end
            continue
        close = html.find(">", tag + 1)
        if close < 0:
            break
        name = html[tag + 1:tag + 7].lower()
        raw_end = next((pattern for key, pattern in _RAW_TEXT_END.items() if name.startswith(key)), None)
        position = close + 1
        if raw_end is not None:
            found = raw_end.search(html, position)
            position = found.start() if found else end  # its end tag is read as a tag next
    return n_text > max_chars


def counted(n: int, noun: str, plural: str = "") -> str:
    """``n`` with ``noun`` in its number, for messages (``plural`` when adding "s" is wrong).

    >>> counted(1, "row"), counted(0, "row"), counted(42, "page"), counted(2, "match", "matches")
    ('1 row', '0 rows', '42 pages', '2 matches')
    """
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def collapse_whitespace(text: str) -> str:
    """Collapse runs of white space (including no-break spaces) to one space and strip.

    >>> collapse_whitespace("  Lydia's\\u00a0 Charm\\n")
    "Lydia's Charm"
    """
    return " ".join(text.split())  # str.split's white space is the regular expression's \s, five times faster


def title_text(text: str) -> str:
    """A ``<title>``'s text without markup: cut at the first ``</``, whitespace collapsed.

    A title whose end tag is mangled (``</titlexyz``) is no end tag for the HTML parser, which reads the
    title's raw text on to the next ``</title>`` (or the end of the file), markup and all; no title
    holds an end tag of its own.

    >>> title_text("Harbour Days  - Bay News</titlexyz <meta name=x>")
    'Harbour Days - Bay News'
    """
    return collapse_whitespace(text.split("</", 1)[0])


def meta_content(attributes) -> str | None:
    """What a ``<meta>`` tag says: its ``content``, or its ``value`` where it has no ``content``; ``None`` when it
    has neither.

    The Postlight (Mercury) parser moves every meta tag's ``content`` into ``value`` before it extracts, and
    pages saved after it keep that (its test fixtures, 69 of postlight-half's 83 pages): their ``og:title``
    and ``twitter:title`` would otherwise say nothing. ``attributes`` is anything with a dict's ``get`` (a dict
    of attribute values, an lxml element); ``blocks.js`` reads the same in the browser.

    >>> meta_content({"name": "og:title", "value": "Storm Hits Coast"}), meta_content({"content": "A", "value": "B"})
    ('Storm Hits Coast', 'A')
    >>> meta_content({"name": "robots"}) is None
    True
    """
    content = attributes.get("content")
    return attributes.get("value") if content is None else content


@short_text_cache
def normalize_text(text: str) -> str:
    """NFKC-normalise, drop soft hyphens (U+00AD, invisible unless a line breaks there), lower-case and
    collapse white space: the form labels are compared in.

    >>> normalize_text("  Know Your BIBLE:\\tAll 66 Books "), normalize_text("Helikopter\\u00adlandeplatz")
    ('know your bible: all 66 books', 'helikopterlandeplatz')
    """
    return collapse_whitespace(unicodedata.normalize("NFKC", text.replace(SOFT_HYPHEN, ""))).lower()


def is_word_char(char: str) -> bool:
    """Whether a character belongs to a space-separated word: a letter or digit outside the CJK scripts
    (there every character is a word of its own, as :func:`tokenize` has it).

    >>> is_word_char("e"), is_word_char("7"), is_word_char("東"), is_word_char("-")
    (True, True, False, False)
    """
    return char.isalnum() and not _CJK_CHAR.match(char)


@short_text_cache  # a site's template texts (navigation, footers) repeat on every page
def tokenize(text: str) -> tuple[str, ...]:
    """Split text into lower-cased letter runs and digit runs (the letter-digit tokenizer).

    Every CJK character is a token of its own, since those scripts do not separate words by spaces; a
    soft hyphen (U+00AD) splits no word.
    Cached per short text (:func:`short_text_cache`), hence a tuple.

    Parameters
    ----------
    text : str
        Any text.

    Returns
    -------
    tokens : tuple of str
        Tokens in order of appearance, lower-cased; punctuation and white space are dropped.

    References
    ----------
    .. [1] Carullo & Binaghi (2010), KDIR, section 4: "this is the 1st" -> this, is, the, 1, st.

    Examples
    --------
    >>> tokenize("this is the 1st")
    ('this', 'is', 'the', '1', 'st')
    >>> tokenize("Café 東京タワー, R2-D2")
    ('café', '東', '京', 'タ', 'ワ', 'ー', 'r', '2', 'd', '2')
    >>> tokenize("Helikopter\\u00adlandeplatz")
    ('helikopterlandeplatz',)
    """
    if text.isascii():  # most texts
        return tuple(_ASCII_TOKEN.findall(text.lower()))
    return tuple(_TOKEN.findall(unicodedata.normalize("NFKC", text.replace(SOFT_HYPHEN, "")).lower()))


@short_text_cache
def term_set(text: str) -> frozenset[str]:
    """The distinct terms of a text: the set of its :func:`tokenize` tokens (cached per short text).

    >>> sorted(term_set("The fox, the dog"))
    ['dog', 'fox', 'the']
    """
    return frozenset(tokenize(text))
