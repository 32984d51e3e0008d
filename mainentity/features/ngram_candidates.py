"""Titler: candidate titles from the page body (word n-grams) and their nine features.

Gali & Fränti (2016), "Web title extraction", Titler slides ("Web Page Body" to "Normalization"): the
text of the page's text blocks is cut into word n-grams, n = 1..6; the n-grams whose part-of-speech
pattern looks like a noun phrase are the candidates, and each gets nine features (:data:`FEATURE_NAMES`).

Candidate rule (our reading of "Extract potential phrases"): an n-gram of words inside one text block,
not crossing punctuation, whose words are nouns (NN, NNS, NNP, NNPS), adjectives (JJ*), numbers (CD)
or gerunds (VBG), with determiners, prepositions and conjunctions (DT, IN, CC) only inside; it ends in a
noun or a number and holds at least one noun or capitalised word. A capitalised word may start or end a
candidate whatever its tag (the tagger often misreads names: "Aqua" is tagged IN, "Dining" VBG), so a
title such as "The Coronet" keeps its article.

POS tags come from NLTK's averaged-perceptron tagger (``averaged_perceptron_tagger_eng``). Without its
data the module warns once (:class:`TaggerDataWarning`) and tags by capitalisation instead: capitalised
words count as proper nouns, numbers as CD, a short list of lower-case function words as IN, any other
word breaks a candidate.

Speed (design caps, documented in :func:`extract_candidates`): each text block is tagged once (tags are
cached by word sequence, so boilerplate blocks repeated across a site are tagged once per process),
only blocks of at most ``max_block_tokens`` words yield candidates, and a page keeps at most
``max_candidates`` distinct candidates (first seen first). Counting occurrences is one pass over the
page's words per distinct candidate length, so a page costs O(n_words * max_n).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mainentity.features.title_segments import HEADING_WEIGHTS, LINK_WEIGHTS, link_similarity, url_parts
from mainentity.records import RenderedPage
from mainentity.text import normalize_text

__all__ = [
    "FEATURE_NAMES",
    "CandidateSet",
    "TaggerDataWarning",
    "clear_pos_cache",
    "extract_candidates",
    "load_pos_tagger",
    "tag_words",
]

#: The nine Titler features, in column order (Gali & Fränti 2016, slide "Feature extraction").
FEATURE_NAMES = (
    "url_similarity",
    "in_title",
    "in_meta_title",
    "heading_weight",
    "popularity",
    "capitalised",
    "capitalised_frequency",
    "independent",
    "length",
)
# Columns divided by their per-page maximum (the others are 0/1 already).
_SCALED_COLUMNS = [0, 3, 4, 6, 8]

TAGGER_MISSING_MESSAGE = (
    "NLTK tagger data 'averaged_perceptron_tagger_eng' was not found, so Titler filters candidate "
    "n-grams by capitalisation instead of part-of-speech tags (lower accuracy). Install the data with "
    "`python -m nltk.downloader averaged_perceptron_tagger_eng`, or point the NLTK_DATA environment "
    "variable at a directory that holds taggers/averaged_perceptron_tagger_eng."
)

_WORD = re.compile(r"(?P<word>[^\W_]+(?:['’&./-][^\W_]+)*|&)|\S")
_NOUN = frozenset({"NN", "NNS", "NNP", "NNPS"})
_MODIFIER = _NOUN | {"JJ", "JJR", "JJS", "CD", "VBG", "VBN", "FW"}
_INSIDE = frozenset({"DT", "IN", "CC"})
_END = _NOUN | {"CD", "FW"}
#: Lower-case words the capitalisation fallback lets inside a candidate ("Bank of America").
FUNCTION_WORDS = frozenset(
    {"a", "an", "and", "at", "de", "del", "der", "des", "di", "du", "for", "in", "la", "le", "of", "on",
     "the", "to", "und", "van", "von", "&"}
)


class TaggerDataWarning(UserWarning):
    """NLTK's tagger data is missing; Titler falls back to the capitalisation filter."""


@lru_cache(maxsize=1)
def load_pos_tagger():
    """NLTK's averaged-perceptron tagger, loaded once; ``None`` (with a warning) when its data is missing.

    Returns
    -------
    tagger : nltk.tag.PerceptronTagger or None

    Warns
    -----
    TaggerDataWarning
        Once per process when ``averaged_perceptron_tagger_eng`` is not on ``nltk.data.path``; the
        message says how to install it.
    """
    from nltk.tag.perceptron import PerceptronTagger

    try:
        return PerceptronTagger(lang="eng")
    except LookupError:
        warnings.warn(TAGGER_MISSING_MESSAGE, TaggerDataWarning, stacklevel=2)
        return None


def clear_pos_cache() -> None:
    """Forget the loaded tagger and the cached tags (after changing ``nltk.data.path``)."""
    load_pos_tagger.cache_clear()
    _nltk_tags.cache_clear()


@lru_cache(maxsize=65536)
def _nltk_tags(words: tuple[str, ...]) -> tuple[str, ...] | None:
    tagger = load_pos_tagger()
    if tagger is None:
        return None
    return tuple(tag for _, tag in tagger.tag(list(words)))


@lru_cache(maxsize=65536)
def _key(word: str) -> str:
    """The form words are matched in: NFKC, lower-cased (:func:`mainentity.text.normalize_text`)."""
    return normalize_text(word)


def _is_capitalised(word: str) -> bool:
    return word[:1].isupper()


def _capitalisation_tags(words: Sequence[str]) -> tuple[str, ...]:
    tags = []
    for word in words:
        if _is_capitalised(word):
            tags.append("NNP")
        elif word[:1].isdigit():
            tags.append("CD")
        elif word.lower() in FUNCTION_WORDS:
            tags.append("IN")
        else:
            tags.append("X")
    return tuple(tags)


def tag_words(words: Sequence[str], pos_filter: str = "nltk") -> tuple[str, ...]:
    """Part-of-speech tags of a block's tokens (Penn Treebank tags).

    Parameters
    ----------
    words : sequence of str
        The block's tokens (words and punctuation), in order.
    pos_filter : {"nltk", "capitalisation"}, default "nltk"
        ``"nltk"`` tags with NLTK's averaged perceptron (falling back, with a
        :class:`TaggerDataWarning`, when its data is missing); ``"capitalisation"`` always uses the
        fallback: NNP for capitalised words, CD for numbers, IN for :data:`FUNCTION_WORDS`, ``X`` else.

    Returns
    -------
    tags : tuple of str
        One tag per token.

    Raises
    ------
    ValueError
        If ``pos_filter`` is not one of the two names.

    Examples
    --------
    >>> tag_words(["Bank", "of", "America", "rocks", "2"], pos_filter="capitalisation")
    ('NNP', 'IN', 'NNP', 'X', 'CD')
    """
    if pos_filter not in ("nltk", "capitalisation"):
        raise ValueError(f"pos_filter must be 'nltk' or 'capitalisation'; got {pos_filter!r}")
    tags = _nltk_tags(tuple(words)) if pos_filter == "nltk" and words else None
    return tags if tags is not None else _capitalisation_tags(words)


def _can_start(word: str, tag: str) -> bool:
    return tag in _MODIFIER or _is_capitalised(word)


def _can_end(word: str, tag: str) -> bool:
    return tag in _END or (_is_capitalised(word) and tag in _MODIFIER)


def _can_continue(word: str, tag: str) -> bool:
    return tag in _MODIFIER or tag in _INSIDE or _is_capitalised(word)


def _runs(text: str) -> list[list[tuple[str, int, int]]]:
    """Maximal runs of words ``(word, start, end)`` between punctuation marks."""
    runs: list[list[tuple[str, int, int]]] = [[]]
    for match in _WORD.finditer(text):
        if match.group("word") is None:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append((match.group(), match.start(), match.end()))
    return [run for run in runs if run]


def _word_keys(text: str) -> tuple[list[str], list[str]]:
    """The words of a text (punctuation dropped) and their normalised keys."""
    words = [match.group() for match in _WORD.finditer(text) if match.group("word") is not None]
    return words, [_key(word) for word in words]


def _capitalised_phrase(words: Sequence[str]) -> bool:
    """All words start upper-case, except function words inside ("Bank of America")."""
    last = len(words) - 1
    return any(_is_capitalised(word) for word in words) and all(
        _is_capitalised(word) or word[:1].isdigit() or (0 < i < last and word.lower() in FUNCTION_WORDS)
        for i, word in enumerate(words)
    )


def _add_candidates(
    text: str,
    runs: list[list[tuple[str, int, int]]],
    index: dict[tuple[str, ...], int],
    texts: list[str],
    whole_block: list[int],
    capitalised: list[bool],
    max_n: int,
    max_candidates: int,
    pos_filter: str,
) -> None:
    """Tag one block once and add its noun-phrase n-grams to ``index``/``texts`` (in place)."""
    matches = list(_WORD.finditer(text))
    tags = tag_words([match.group() for match in matches], pos_filter)
    tag_at = {match.start(): tag for match, tag in zip(matches, tags, strict=True) if match.group("word")}
    for run in runs:
        words = [word for word, _, _ in run]
        run_tags = [tag_at[start] for _, start, _ in run]
        keys = [_key(word) for word in words]
        for i in range(len(run)):
            if not _can_start(words[i], run_tags[i]):
                continue
            has_head = False
            for j in range(i, min(i + max_n, len(run))):
                if j > i and not _can_continue(words[j], run_tags[j]):
                    break
                has_head = has_head or run_tags[j] in _NOUN or _is_capitalised(words[j])
                if not (has_head and _can_end(words[j], run_tags[j])):
                    continue
                key = tuple(keys[i : j + 1])
                if key not in index:
                    if len(index) >= max_candidates:
                        return
                    index[key] = len(texts)
                    texts.append(text[run[i][1] : run[j][2]])
                    whole_block.append(-1)
                    capitalised.append(_capitalised_phrase(words[i : j + 1]))


@dataclass(frozen=True)
class CandidateSet:
    """The Titler candidates of one page.

    Attributes
    ----------
    texts : tuple of str
        Candidate phrases as first written in the page, in order of first appearance.
    features : ndarray of shape (n_candidates, 9)
        The features of :data:`FEATURE_NAMES`, each in [0, 1].
    block_index : ndarray of shape (n_candidates,)
        Index in ``RenderedPage.blocks`` of the first text block whose whole text is the candidate
        (independent appearance), -1 when there is none.
    """

    texts: tuple[str, ...]
    features: np.ndarray
    block_index: np.ndarray


def extract_candidates(
    rendered: RenderedPage,
    url: str,
    *,
    max_n: int = 6,
    max_block_tokens: int = 64,
    max_candidates: int = 5000,
    pos_filter: str = "nltk",
    include_hidden: bool = False,
    link_weights: Sequence[float] = LINK_WEIGHTS,
    min_link_dice: float = 0.5,
) -> CandidateSet:
    """Generate a page's Titler candidates and compute their nine features.

    Features (Gali & Fränti 2016, slides "Feature extraction" to "Normalization"), per candidate ``c``:

    0. ``url_similarity``: :func:`~mainentity.features.title_segments.link_similarity` of ``c`` with the
       URL's domain, path and file name (as in TTA);
    1. ``in_title``: 1 when ``c``'s words occur in the ``<title>`` as a word sequence;
    2. ``in_meta_title``: 1 when they occur in a meta title (og:title, title, twitter:title);
    3. ``heading_weight``: sum over occurrences in heading blocks of h1 = 6, ..., h6 = 1;
    4. ``popularity``: occurrences in the title, the meta titles and the text blocks;
    5. ``capitalised``: 1 when every word of ``c`` (as first written) starts upper-case (function words
       inside excepted);
    6. ``capitalised_frequency``: occurrences written capitalised;
    7. ``independent``: 1 when some text block is exactly ``c``;
    8. ``length``: characters of ``c``.

    Occurrences are matched on word sequences, case-insensitively. Features 0, 3, 4, 6 and 8 are divided
    by their maximum over the page's candidates (0 stays 0).

    Parameters
    ----------
    rendered : RenderedPage
        The page's title, meta tags and text blocks.
    url : str
        The page URL.
    max_n : int, default 6
        Longest candidate, in words.
    max_block_tokens : int, default 64
        Blocks with more words yield no candidates (they still count for popularity): a cap that keeps
        tagging cost bounded on text-heavy pages, since titles are short blocks.
    max_candidates : int, default 5000
        At most this many distinct candidates per page, the first seen in document order.
    pos_filter : {"nltk", "capitalisation"}, default "nltk"
        See :func:`tag_words`.
    include_hidden : bool, default False
        Also use hidden text blocks.
    link_weights : sequence of 3 float, default (1, 1.5, 3)
        Weights of domain, path and file name in ``url_similarity``.
    min_link_dice : float, default 0.5
        Dice values below it count as 0 in ``url_similarity``.

    Returns
    -------
    candidates : CandidateSet
        ``n_candidates`` may be 0 (no block yields a noun-phrase n-gram).

    Raises
    ------
    ValueError
        If ``max_n``, ``max_block_tokens`` or ``max_candidates`` is below 1, or ``pos_filter`` is unknown.

    Examples
    --------
    >>> from mainentity.records import RenderedPage, TextBlock
    >>> block = TextBlock("Aqua Dining", "h2", "html[0]/body[1]/h2[0]", 24.0, 700, True, 0, 0, 200, 30,
    ...                   heading_level=2)
    >>> page = RenderedPage("Aqua Dining - Sydney", (), (block,))
    >>> found = extract_candidates(page, "https://www.aquadining.com.au/", pos_filter="capitalisation")
    >>> found.texts
    ('Aqua', 'Aqua Dining', 'Dining')
    >>> found.features[1].tolist()
    [1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    """
    for name, value in (("max_n", max_n), ("max_block_tokens", max_block_tokens),
                        ("max_candidates", max_candidates)):
        if value < 1:
            raise ValueError(f"{name} must be >= 1; got {value}")
    used = [(i, block) for i, block in enumerate(rendered.blocks) if include_hidden or not block.hidden]

    index: dict[tuple[str, ...], int] = {}
    texts: list[str] = []
    whole_block: list[int] = []
    capitalised: list[bool] = []
    for block_id, block in used:
        runs = _runs(block.text)
        if sum(len(run) for run in runs) <= max_block_tokens and len(index) < max_candidates:
            _add_candidates(
                block.text, runs, index, texts, whole_block, capitalised, max_n, max_candidates, pos_filter
            )
        whole_key = tuple(_key(word) for run in runs for word, _, _ in run)
        if whole_key in index and whole_block[index[whole_key]] < 0:
            whole_block[index[whole_key]] = block_id

    n = len(texts)
    features = np.zeros((n, len(FEATURE_NAMES)))
    if n == 0:
        return CandidateSet((), features, np.zeros(0, dtype=int))
    lengths = sorted({len(key) for key in index})

    def occurrences(text: str):
        """Yield (candidate index, words as written) of every candidate occurrence in a text."""
        words, keys = _word_keys(text)
        for length in lengths:
            for i in range(len(keys) - length + 1):
                found = index.get(tuple(keys[i : i + length]))
                if found is not None:
                    yield found, words[i : i + length]

    def contained(text: str) -> np.ndarray:
        hits = np.zeros(n, dtype=bool)
        hits[[found for found, _ in occurrences(text)]] = True
        return hits

    parts = url_parts(url)
    features[:, 0] = [link_similarity(text, parts, link_weights, min_link_dice) for text in texts]
    features[:, 1] = contained(rendered.title)
    for meta_title in rendered.meta_titles:
        features[:, 2] = np.maximum(features[:, 2], contained(meta_title))
    heading, popularity, capitalised_count = [0.0] * n, [0] * n, [0] * n
    for text, level in [(rendered.title, 0), *((m, 0) for m in rendered.meta_titles),
                        *((block.text, block.heading_level) for _, block in used)]:
        weight = HEADING_WEIGHTS.get(level, 0.0)
        for found, words in occurrences(text):
            heading[found] += weight
            popularity[found] += 1
            capitalised_count[found] += _capitalised_phrase(words)
    features[:, 3] = heading
    features[:, 4] = popularity
    features[:, 5] = capitalised
    features[:, 6] = capitalised_count
    features[:, 7] = np.asarray(whole_block) >= 0
    features[:, 8] = [len(text) for text in texts]
    maxima = features[:, _SCALED_COLUMNS].max(axis=0)
    features[:, _SCALED_COLUMNS] /= np.where(maxima > 0, maxima, 1.0)
    return CandidateSet(tuple(texts), features, np.asarray(whole_block, dtype=int))
