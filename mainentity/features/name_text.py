"""A candidate's text as a name: what a page shows around or inside a name that is not the name's own.

Three kinds are taken out of every candidate's text (:func:`name_text`, called by
:func:`mainentity.features.candidates.page_candidates`, so every reader's candidates get it):

- UTF-8 text decoded twice (mojibake: "CafÃ© Rouge" for "Café Rouge", "MĂ¤scot" for "Mäscot") is
  repaired by ftfy's ``fix_encoding``, and only where ftfy's badness check finds mojibake
  (:func:`repair_mojibake`). Our own decoding reads valid UTF-8 as UTF-8 whatever a page declares
  (:func:`mainentity.sitedump.decoding.decode_html`): what is left is in the page's bytes.
- Invisible format characters a person does not see inside a word: soft hyphens (U+00AD), zero-width
  spaces (U+200B), word joiners (U+2060) and zero-width no-break spaces (U+FEFF) anywhere; zero-width
  joiners and non-joiners (U+200C, U+200D) beside a space, at an end or beside an ASCII character, where
  they join nothing (between the letters of Indic or Arabic-script words and inside emoji sequences
  they are kept) (:func:`drop_format_characters`).
- Decorative marks before or after a name ("[> Jane Doe", "» Jane Doe", "• Jane Doe", "Jane Doe |",
  a trailing emoji): runs of punctuation and symbols at either end, except quotes and brackets that pair
  with one in the text, Spanish opening marks and quotation dashes, currency signs, a sentence's final
  marks, and marks written against a word that are not bullets or arrows ("#1 Hit", "C++",
  "...And Justice") (:func:`strip_decoration`).

The rules are this project's (issue 33, "text that is not the name's own").
"""

from __future__ import annotations

import re
import unicodedata

import ftfy
from ftfy.badness import is_bad

from mainentity.text import collapse_whitespace, short_text_cache

#: Format characters dropped wherever they are (soft hyphen, zero-width space, word joiner, ZWNBSP).
_ALWAYS_INVISIBLE = re.compile("[\u00ad\u200b\u2060\ufeff]")
#: Zero-width (non-)joiners that join nothing: beside white space, an end of the text or an ASCII character.
_LOOSE_JOINER = re.compile(r"(?:(?<=^)|(?<=[\s\x00-\x7f]))[\u200c\u200d]+|[\u200c\u200d]+(?=$|[\s\x00-\x7f])")
#: Bullets, arrows and separators that are decoration even when written against a name ("»Jane Doe").
DECORATION_MARKS = frozenset("»›•·‣◦▪▫■□◆◇●○★☆|>→⇒➔➜➝➞➤►▶▸▹▷❯❱")
#: A bracket or quote and what closes (or opens) it: such a mark is kept when its partner is in the text.
_PARTNERS = {
    "(": ")", ")": "(", "[": "]", "]": "[", "{": "}", "}": "{", "<": ">", ">": "<", "«": "»", "»": "«",
    "‹": "›", "›": "‹", "“": "”„", "”": "“„", "„": "“”", "‘": "’‚", "’": "‘‚", "‚": "‘’", '"': '"', "'": "'",
    "「": "」", "」": "「", "『": "』", "』": "『", "【": "】", "】": "【",
    "《": "》", "》": "《", "〈": "〉", "〉": "〈",
}
#: Marks kept at the start of a text (Spanish opening marks; a dash, which opens a quotation in Nordic
#: headlines: "- Angsten vil øke", a fundus label) and at its end (a sentence's final marks, percent and
#: degree signs written apart, as French and German set them).
_KEPT_LEADING = frozenset("¿¡-‐‑‒–—―")
_KEPT_TRAILING = frozenset(".?!…%‰°")


def repair_mojibake(text: str) -> str:
    """Text decoded twice repaired: UTF-8 bytes read as windows-1252, latin-1, windows-1250 and the like.

    Only a text that ftfy's badness check (``ftfy.badness.is_bad``) finds mojibake in is changed, and then
    only by ``ftfy.fix_encoding`` (no other normalisation: quotes, ligatures and width are kept).

    Parameters
    ----------
    text : str

    Returns
    -------
    text : str
        ``text`` itself when it shows no mojibake.

    References
    ----------
    .. [1] R. Speer (2019), ftfy, Zenodo, doi:10.5281/zenodo.2591652.

    Examples
    --------
    >>> repair_mojibake("CafÃ© Rouge"), repair_mojibake("MĂ¤scot"), repair_mojibake("Ærøskøbing “Port”")
    ('Café Rouge', 'Mäscot', 'Ærøskøbing “Port”')
    """
    return ftfy.fix_encoding(text) if not text.isascii() and is_bad(text) else text


def drop_format_characters(text: str) -> str:
    """Text without the invisible format characters that are not part of its words.

    Soft hyphens, zero-width spaces, word joiners and zero-width no-break spaces go wherever they are;
    zero-width joiners and non-joiners go where they join nothing (beside white space, an end or an ASCII
    character) and stay between the letters of scripts that shape by them and inside emoji sequences.

    Parameters
    ----------
    text : str

    Returns
    -------
    text : str

    Examples
    --------
    >>> drop_format_characters("Helikopter\\u00adlandeplatz \\u200bfor\\u2060 you\\u200d")
    'Helikopterlandeplatz for you'
    >>> drop_format_characters("می\\u200cخواهم 👩\\u200d🚀") == "می\\u200cخواهم 👩\\u200d🚀"
    True
    """
    if text.isascii():
        return text
    text = _ALWAYS_INVISIBLE.sub("", text)
    return _LOOSE_JOINER.sub("", text) if "\u200c" in text or "\u200d" in text else text


def _is_mark(char: str) -> bool:
    """Punctuation or a symbol (Unicode categories P* and S*), a combining mark or a joiner among them."""
    return unicodedata.category(char)[0] in "PSM" or char in "\u200c\u200d"


def _paired(char: str, elsewhere: str) -> bool:
    """Whether a bracket or quote has its partner in the rest of the text."""
    return any(partner in elsewhere for partner in _PARTNERS.get(char, ""))


def _decorative(char: str, elsewhere: str, kept: frozenset) -> bool:
    """Whether a mark at an end of a text is decoration: not kept at that end, not a currency sign, not
    paired."""
    return char not in kept and unicodedata.category(char) != "Sc" and not _paired(char, elsewhere)


def _decoration_length(text: str, kept: frozenset) -> int:
    """How many characters of decoration (and the space after them) start ``text``, ``kept`` the marks that
    stay at that end (the trailing end is read as the reversed text)."""
    if not text or text[0].isalnum():  # most texts: a letter or digit is no mark (Unicode L*, N*)
        return 0
    start = 0
    while start < len(text):
        end = start
        while end < len(text) and _is_mark(text[end]):
            end += 1
        if end == start:
            break
        if end == len(text) or text[end].isspace():  # a run of marks on its own: all decoration, or kept
            if not all(_decorative(char, text[:i] + text[i + 1:], kept)
                       for i, char in enumerate(text[start:end], start)):
                break
        else:  # written against the name: only bullets and arrows in front of it go
            while start < end and text[start] in DECORATION_MARKS and _decorative(
                    text[start], text[start + 1:], kept):
                start += 1
            break
        start = end
        while start < len(text) and text[start].isspace():
            start += 1
    return start


def strip_decoration(text: str) -> str:
    """Text without the decorative marks before and after it.

    At each end, a run of punctuation and symbols (Unicode P* and S*) that stands apart (white space
    between it and the text) goes when every mark in it is decoration; a run written against the text
    loses only its bullets and arrows (:data:`DECORATION_MARKS`) at the outside. A mark is not decoration
    when it is a bracket or quote whose partner is in the text (« », ( ), “ ”), a Spanish opening mark
    (¿ ¡) or a dash (a quotation in Nordic headlines) at the start, a sentence's final mark or a percent
    or degree sign at the end (French sets "Vraiment ?" apart), or a currency sign. A text that is all
    marks is returned as it is.

    Parameters
    ----------
    text : str
        White space collapsed.

    Returns
    -------
    text : str

    Examples
    --------
    >>> [strip_decoration(t) for t in ("[> Jane Doe", "» Jane Doe", "›Jane Doe", "• Jane Doe", "Jane Doe |",
    ...                                "Lemon Tart 🍋")]
    ['Jane Doe', 'Jane Doe', 'Jane Doe', 'Jane Doe', 'Jane Doe', 'Lemon Tart']
    >>> [strip_decoration(t) for t in ("¿Qué?", "«Quote»", "» Titel «", "#1 Hit", "C++", "(Paperback)",
    ...                                "Vraiment ?", "...And Justice", "$ 5", "***")]
    ['¿Qué?', '«Quote»', '» Titel «', '#1 Hit', 'C++', '(Paperback)', 'Vraiment ?', '...And Justice', '$ 5', '***']
    """
    start = _decoration_length(text, _KEPT_LEADING)
    end = len(text) - _decoration_length(text[start:][::-1], _KEPT_TRAILING)
    return text if start >= end else text[start:end]


@short_text_cache
def name_text(text: str) -> str:
    """A candidate's text as a name: :func:`repair_mojibake`, :func:`drop_format_characters`, then
    :func:`strip_decoration`, white space collapsed.

    Parameters
    ----------
    text : str

    Returns
    -------
    text : str

    Examples
    --------
    >>> name_text("» CafÃ© Rou\\u00adge")
    'Café Rouge'
    """
    return strip_decoration(collapse_whitespace(drop_format_characters(repair_mojibake(text))))
