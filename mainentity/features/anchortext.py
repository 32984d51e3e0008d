"""Anchor-text features g in G of Carullo & Binaghi (2010), section 3.1: g_dice, and the gamma sets.

For a text block b and the set A of the page's incoming link anchor texts (ILA), the anchor-text
representation is the set gamma = {(g(a, b) for g in G) : a in A}, of variable size |A|. All the gamma
sets of a page come from one anchor x block matrix per feature.

A page with no incoming anchors has gamma = {0} (one all-zero vector) for every block: "no anchor
agrees with the block". The EMD between sets is undefined for an empty set (it carries no mass to
move), and {0} is exactly what a page whose anchors share no term with the block gives, so pages
without anchors sit with the blocks that no anchor names, instead of needing a separate code path.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

from mainentity.features.textblock import check_feature_names
from mainentity.text import term_set

#: Names of the anchor-text features, in the column order of :func:`anchortext_features`' default.
ANCHORTEXT_FEATURES = ("dice",)


def check_anchortext_features(names: Sequence[str]) -> tuple[str, ...]:
    """Validate anchor-text feature names (the set G) with :func:`check_feature_names`.

    >>> check_anchortext_features(["dice"])
    ('dice',)
    """
    return check_feature_names(names, ANCHORTEXT_FEATURES, "anchor-text")


def dice_matrix(texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
    """Token Dice coefficient g_dice(a, b) = 2C / (|a| + |b|) of every pair of texts.

    Terms are the distinct letter-digit tokens (:func:`mainentity.text.tokenize`) of a text, so C is the
    number of terms a and b share and |a|, |b| are their numbers of distinct terms. Two texts with no
    terms at all get 0.

    Parameters
    ----------
    texts_a : sequence of str
        E.g. the anchor texts A.
    texts_b : sequence of str
        E.g. the text blocks B.

    Returns
    -------
    dice : ndarray of shape (len(texts_a), len(texts_b))
        Values in [0, 1]; 1 when both texts have the same set of terms.

    References
    ----------
    .. [1] Carullo & Binaghi (2010), KDIR, section 3.1 (g_dice); Frakes & Baeza-Yates (1992).

    Examples
    --------
    >>> dice_matrix(["IKEA STOCKHOLM rahi"], ["IKEA STOCKHOLM", "Put in your basket", ""])
    array([[0.8, 0. , 0. ]])
    """
    terms_a, terms_b = [term_set(text) for text in texts_a], [term_set(text) for text in texts_b]
    # only the terms of the side with fewer texts (a few anchor texts or labels) can be shared
    vocabulary = frozenset().union(*(terms_a if len(terms_a) <= len(terms_b) else terms_b))
    column = {term: j for j, term in enumerate(vocabulary)}
    common = (_incidence(terms_a, vocabulary, column) @ _incidence(terms_b, vocabulary, column).T).toarray()
    sizes = np.add.outer([float(len(terms)) for terms in terms_a], [float(len(terms)) for terms in terms_b])
    return np.divide(2.0 * common, sizes, out=np.zeros_like(common), where=sizes > 0)


def _incidence(
    term_sets: Sequence[frozenset[str]], vocabulary: frozenset[str], column: dict[str, int]
) -> sparse.csr_matrix:
    """Binary text x term matrix of shape (len(term_sets), len(vocabulary)): which terms of the vocabulary
    each text holds (term ``t`` in column ``column[t]``)."""
    rows: list[int] = []
    columns: list[int] = []
    for i, terms in enumerate(term_sets):
        if vocabulary.isdisjoint(terms):  # most texts: no new set built
            continue
        shared = terms & vocabulary  # walks the smaller of the two sets
        rows.extend([i] * len(shared))
        columns.extend([column[term] for term in shared])
    return sparse.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(len(term_sets), len(column)))


def anchortext_features(
    block_texts: Sequence[str], anchors: Sequence[str], features: Sequence[str] = ANCHORTEXT_FEATURES
) -> list[np.ndarray]:
    """The gamma set of every text block of a page: one feature vector per incoming anchor text.

    Parameters
    ----------
    block_texts : sequence of str
        Texts of the page's text blocks.
    anchors : sequence of str
        The page's incoming link anchor texts A (``Page.anchors``); may be empty.
    features : sequence of str, default ("dice",)
        The set G, in column order; must not be empty (with G = {} there is no anchor space).

    Returns
    -------
    gammas : list of n_blocks ndarrays of shape (max(len(anchors), 1), len(features))
        ``gammas[i][k, j]`` is feature ``features[j]`` of (anchors[k], block_texts[i]). With no
        anchors each gamma is ``[[0, ..., 0]]``, the set {0} (see the module docstring).

    Raises
    ------
    ValueError
        If ``features`` is empty, or a name is unknown or repeated.

    References
    ----------
    .. [1] Carullo & Binaghi (2010), KDIR, section 3.1 (the Gamma space).

    Examples
    --------
    >>> gammas = anchortext_features(["Sweet Time", "Put in your basket"], ["Sweet Time", "Basket"])
    >>> [gamma.ravel().tolist() for gamma in gammas]
    [[1.0, 0.0], [0.0, 0.4]]
    >>> anchortext_features(["Sweet Time"], [])[0]
    array([[0.]])
    """
    features = check_anchortext_features(features)
    if not features:
        raise ValueError("anchortext_features needs at least one feature (G must not be empty)")
    if len(anchors) == 0:
        return list(np.zeros((len(block_texts), 1, len(features))))
    return list(np.stack([_FEATURE_FUNCTIONS[name](block_texts, anchors) for name in features], axis=-1))


#: name -> function(block_texts, anchors) -> ndarray of shape (n_blocks, n_anchors).
_FEATURE_FUNCTIONS = {"dice": dice_matrix}
