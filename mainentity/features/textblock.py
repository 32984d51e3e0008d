"""Textblock features f in F of Carullo & Binaghi (2010), section 3.1: f_intitle, f_fsize, f_fbold.

A textblock feature maps a text block b of a page p to a number in [0, 1]. The features of all the
blocks of a page are computed at once, as an array of shape ``(n_blocks, n_features)``: the terms of
the page are gathered once into a block x term count matrix (:func:`term_counts`) and the
features are matrix products over it, never Python loops over tokens.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from mainentity.records import TextBlock
from mainentity.text import term_set, tokenize

#: Names of the textblock features, in the column order of :func:`textblock_features`' default.
TEXTBLOCK_FEATURES = ("intitle", "fsize", "fbold")


def check_feature_names(names: Sequence[str], valid: Sequence[str], kind: str) -> tuple[str, ...]:
    """Validate a list of feature names against ``valid``; return it as a tuple.

    Parameters
    ----------
    names : sequence of str
        Feature names, each one of ``valid``; may be empty (no features of this kind).
    valid : sequence of str
        The known names (:data:`TEXTBLOCK_FEATURES`, the set F; or the anchor-text features, the set G).
    kind : str
        What the names are, for the error message ("textblock", "anchor-text").

    Returns
    -------
    names : tuple of str
        The same names, in the given order.

    Raises
    ------
    ValueError
        If a name is unknown (the message lists the valid ones) or repeated, or ``names`` is a string.

    Examples
    --------
    >>> check_feature_names(["intitle", "fbold"], TEXTBLOCK_FEATURES, "textblock")
    ('intitle', 'fbold')
    """
    if isinstance(names, str):
        raise ValueError(f"{kind} features must be a list of names, not the string {names!r}")
    names = tuple(names)
    unknown = [name for name in names if name not in valid]
    if unknown:
        raise ValueError(f"unknown {kind} feature(s) {', '.join(map(repr, unknown))}; valid: {', '.join(valid)}")
    if len(set(names)) != len(names):
        raise ValueError(f"{kind} features must not repeat; got {list(names)}")
    return names


def check_textblock_features(names: Sequence[str]) -> tuple[str, ...]:
    """Validate textblock feature names (the set F) with :func:`check_feature_names`.

    >>> check_textblock_features(["intitle", "fbold"])
    ('intitle', 'fbold')
    """
    return check_feature_names(names, TEXTBLOCK_FEATURES, "textblock")


def term_counts(
    texts: Sequence[str], vocabulary: Sequence[str] | None = None
) -> tuple[sparse.csr_matrix, np.ndarray]:
    """How often each term (letter-digit token) occurs in each text: a text x term count matrix.

    Parameters
    ----------
    texts : sequence of str
        The texts (text blocks, anchor texts, a title), tokenised with :func:`mainentity.text.tokenize`.
    vocabulary : sequence of str, optional
        The terms to count, in column order; by default every term of the texts, sorted. Counting only
        the few terms that matter (a title's) skips, by one set test, each text that holds none of them.

    Returns
    -------
    counts : scipy.sparse.csr_matrix of shape (n_texts, n_terms), float64
        ``counts[i, j]`` is the number of occurrences of term ``vocabulary[j]`` in ``texts[i]``;
        ``counts.sign()`` is the binary incidence.
    vocabulary : ndarray of str, shape (n_terms,)
        The terms counted.

    Examples
    --------
    >>> counts, vocabulary = term_counts(["the quick fox", "The fox, the dog"])
    >>> vocabulary.tolist()
    ['dog', 'fox', 'quick', 'the']
    >>> counts.toarray().tolist()
    [[0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 2.0]]
    >>> term_counts(["the quick fox", "The fox, the dog"], ["the"])[0].toarray().tolist()
    [[1.0], [2.0]]
    """
    if vocabulary is None:
        vocabulary = sorted(frozenset().union(*map(term_set, texts)))
    column = {term: j for j, term in enumerate(vocabulary)}
    wanted = frozenset(column)
    rows: list[int] = []
    columns: list[int] = []
    values: list[int] = []
    for i, text in enumerate(texts):
        shared = term_set(text) & wanted
        if shared:
            occurrences = Counter(tokenize(text))
            for term in shared:
                rows.append(i)
                columns.append(column[term])
                values.append(occurrences[term])
    counts = sparse.csr_matrix((np.array(values, dtype=float), (rows, columns)), shape=(len(texts), len(column)))
    counts.sum_duplicates()  # sorted indices
    return counts, np.array(vocabulary, dtype=str)


def intitle_feature(block_texts: Sequence[str], title: str) -> np.ndarray:
    """f_intitle: how much of the page title the terms of each text block cover.

    f_intitle(b, p) = (total length, in characters, of the terms b and the title t have in common) /
    (total length of the terms of t). Terms are counted with their multiplicity in both texts (a
    multiset intersection: a term that occurs k times in b and l times in t counts min(k, l) times),
    so the value is in [0, 1], is 1 for a block equal to the title, and repeating a title word in a
    block does not raise it past the title's own count.

    Parameters
    ----------
    block_texts : sequence of str
        Texts of the page's text blocks.
    title : str
        The page title (``<title>``).

    Returns
    -------
    f_intitle : ndarray of shape (n_blocks,)
        Values in [0, 1]; all 0 when the title has no terms.

    References
    ----------
    .. [1] Carullo & Binaghi (2010), KDIR, section 3.1: t = "The quick brown fox jumps over the lazy
       dog", b = "The quick brown fox" gives 16/35.

    Examples
    --------
    >>> intitle_feature(["The quick brown fox", "lazy cat"], "The quick brown fox jumps over the lazy dog")
    array([0.45714286, 0.11428571])
    """
    title_counts, title_terms = term_counts([title])
    title_counts = title_counts.toarray().ravel()
    term_lengths = np.char.str_len(title_terms).astype(float)
    title_length = title_counts @ term_lengths
    if title_length == 0:
        return np.zeros(len(block_texts))
    common = np.minimum(term_counts(block_texts, title_terms.tolist())[0].toarray(), title_counts)
    return common @ term_lengths / title_length


def textblock_features(
    blocks: Sequence[TextBlock],
    title: str,
    features: Sequence[str] = TEXTBLOCK_FEATURES,
    fsize_max: float = 48.0,
) -> np.ndarray:
    """The textblock feature vectors theta of all the text blocks of a page.

    - ``intitle``: see :func:`intitle_feature`.
    - ``fsize``: ``font_size / fsize_max`` clipped to [0, 1] (font size in CSS px).
    - ``fbold``: 1.0 when the block is displayed bold (``TextBlock.bold``), else 0.0.

    Parameters
    ----------
    blocks : sequence of TextBlock
        The page's text blocks (typically the visible ones).
    title : str
        The page title, for ``intitle``.
    features : sequence of str, default ("intitle", "fsize", "fbold")
        The set F, in column order; may be empty.
    fsize_max : float, default 48.0
        Font size in CSS px that maps to 1.0 (the "maximum value defined a priori").

    Returns
    -------
    theta : ndarray of shape (n_blocks, len(features))
        Feature values in [0, 1].

    Raises
    ------
    ValueError
        If a feature name is unknown or repeated, or ``fsize_max`` is not a positive number.

    References
    ----------
    .. [1] Carullo & Binaghi (2010), KDIR, section 3.1.

    Examples
    --------
    >>> from mainentity.records import TextBlock
    >>> blocks = [TextBlock("Holy Bible", "h1", "h1[0]", 36.0, 700, True, 0, 0, 300, 40),
    ...           TextBlock("Home", "a", "a[0]", 12.0, 400, False, 0, 50, 40, 14)]
    >>> textblock_features(blocks, "Holy Bible | Shop")
    array([[0.69230769, 0.75      , 1.        ],
           [0.        , 0.25      , 0.        ]])
    """
    features = check_textblock_features(features)
    if not np.isfinite(fsize_max) or fsize_max <= 0:
        raise ValueError(f"fsize_max must be a positive number of CSS px; got {fsize_max}")
    columns = []
    for name in features:
        if name == "intitle":
            columns.append(intitle_feature([block.text for block in blocks], title))
        elif name == "fsize":
            sizes = np.array([block.font_size for block in blocks], dtype=float)
            columns.append(np.clip(sizes / fsize_max, 0.0, 1.0))
        else:  # "fbold"
            columns.append(np.array([block.bold for block in blocks], dtype=float))
    return np.column_stack(columns) if columns else np.empty((len(blocks), 0))
