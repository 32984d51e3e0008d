"""Text normalisation and the letter-digit tokenizer shared by features, models and evaluation."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Han, Hiragana/Katakana, Hangul syllables, CJK punctuation-free ideograph blocks.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])[^\W\d_])+|\d+")
_SPACE = re.compile(r"\s+")
_CJK_CHAR = re.compile(rf"[{_CJK}]")


def collapse_whitespace(text: str) -> str:
    """Collapse runs of white space (including no-break spaces) to one space and strip.

    >>> collapse_whitespace("  Lydia's\\u00a0 Charm\\n")
    "Lydia's Charm"
    """
    return _SPACE.sub(" ", text).strip()


@lru_cache(maxsize=1 << 16)
def normalize_text(text: str) -> str:
    """NFKC-normalise, lower-case and collapse white space: the form labels are compared in.

    >>> normalize_text("  Know Your BIBLE:\\tAll 66 Books ")
    'know your bible: all 66 books'
    """
    return collapse_whitespace(unicodedata.normalize("NFKC", text)).lower()


def is_word_char(char: str) -> bool:
    """Whether a character belongs to a space-separated word: a letter or digit outside the CJK scripts
    (there every character is a word of its own, as :func:`tokenize` has it).

    >>> is_word_char("e"), is_word_char("7"), is_word_char("東"), is_word_char("-")
    (True, True, False, False)
    """
    return char.isalnum() and not _CJK_CHAR.match(char)


@lru_cache(maxsize=1 << 16)  # a site's template texts (navigation, footers) repeat on every page
def tokenize(text: str) -> tuple[str, ...]:
    """Split text into lower-cased letter runs and digit runs (the letter-digit tokenizer).

    Every CJK character is a token of its own, since those scripts do not separate words by spaces.
    Cached per text, hence a tuple.

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
    """
    return tuple(_TOKEN.findall(unicodedata.normalize("NFKC", text).lower()))


@lru_cache(maxsize=1 << 16)
def term_set(text: str) -> frozenset[str]:
    """The distinct terms of a text: the set of its :func:`tokenize` tokens (cached per text).

    >>> sorted(term_set("The fox, the dog"))
    ['dog', 'fox', 'the']
    """
    return frozenset(tokenize(text))
