"""Signals of doubt about a page's answer, for the general recogniser's calibrator.

The ranker's best score says how much its features like the answer; on a site it never saw, it likes
wrong answers about as much as right ones. What a wrong answer on a new site shows instead: a runner-up
close behind (a small ``margin``), the page's own sources not agreeing with it (the title's segments,
the first ``<h1>``, ``og:title`` and JSON-LD names), and text the site repeats on many pages (a site
name, a category) or a slot that seldom holds the answer. :func:`doubt_signals` gathers them per page
from the candidates' transfer features (:mod:`mainentity.features.transfer`) and scores.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mainentity.features.transfer import TRANSFER_FEATURES

#: Transfer features of the answer used as signals, in order after ``score`` and ``margin``.
ANSWER_FEATURES = ("title_segment_exact", "title_dice", "first_h1", "meta_dice", "jsonld_dice", "template_share",
                   "slot_share", "has_site", "title_unsupported", "holds_site_name")

#: Names of the columns :func:`doubt_signals` returns.
DOUBT_SIGNALS = ("score", "margin", *ANSWER_FEATURES, "n_sources_agree")

#: Bound on the score and the margin (ranker log-odds): beyond it, more says nothing more.
SCORE_BOUND = 20.0

_COLUMNS = [TRANSFER_FEATURES.index(name) for name in ANSWER_FEATURES]
_SOURCES = [ANSWER_FEATURES.index(name) for name in ("title_segment_exact", "first_h1", "meta_dice", "jsonld_dice")]


def doubt_signals(features: np.ndarray, scores: np.ndarray, texts: Sequence[str]) -> np.ndarray:
    """The signals of doubt about a page's answer (its best-scoring candidate).

    Parameters
    ----------
    features : ndarray of shape (n_candidates, n_transfer_features)
        The page's candidates' transfer features (``nan``, a layout feature read without a browser, is 0).
    scores : ndarray of shape (n_candidates,)
        Their ranker scores (log-odds), after the site vote; at least one.
    texts : sequence of str
        Their texts.

    Returns
    -------
    signals : ndarray of shape (len(DOUBT_SIGNALS),)
        ``score`` the best score and ``margin`` its lead over the best candidate of another text (both
        clipped into [-20, 20]; a page without another text has the full 20), the answer's
        :data:`ANSWER_FEATURES`, and ``n_sources_agree`` how many of the title's segments, the first
        ``<h1>``, ``og:title`` and the JSON-LD name give the answer (the last two with token Dice >= 0.8).

    Raises
    ------
    ValueError
        If there is no candidate or the lengths differ.

    Examples
    --------
    >>> x = np.zeros((2, len(TRANSFER_FEATURES)))
    >>> x[0, TRANSFER_FEATURES.index("first_h1")] = 1.0
    >>> s = doubt_signals(x, np.array([3.0, 1.0]), ["Moby Dick", "Home"])
    >>> float(s[DOUBT_SIGNALS.index("margin")]), float(s[DOUBT_SIGNALS.index("n_sources_agree")])
    (2.0, 1.0)
    """
    scores = np.asarray(scores, dtype=float)
    if len(scores) == 0 or len(scores) != len(features) or len(texts) != len(scores):
        raise ValueError(f"need one feature row and text per score, and one score at least; got "
                         f"{len(features)}, {len(texts)}, {len(scores)}")
    best = int(np.argmax(scores))
    others = [score for score, text in zip(scores, texts, strict=True) if text != texts[best]]
    margin = scores[best] - max(others) if others else SCORE_BOUND
    answer = np.nan_to_num(np.asarray(features, dtype=float)[best, _COLUMNS])
    sources = answer[_SOURCES]
    agree = float(sources[0] + sources[1] + (sources[2] >= 0.8) + (sources[3] >= 0.8))
    bounded = np.clip([scores[best], margin], -SCORE_BOUND, SCORE_BOUND)
    return np.concatenate([bounded, answer, [agree]])


def counterfactual_signals(features: np.ndarray, scores: np.ndarray, texts: Sequence[str],
                           right: Sequence[bool]) -> np.ndarray | None:
    """The signals of doubt a page would show had its best wrong candidate won in the answer's place.

    The counterfactual ranking swaps the answer's text and the runner-up's: the best-scoring candidate
    whose text is wrong and not the answer's takes the answer's score, and every candidate of the
    answer's text is lowered by the same gap, so the score and the margin are those the page really has
    and only the answer's own signals (its title and heading agreement, its template share, ...) change.
    A calibrator that sees these as wrong answers learns what a wrong answer looks like from pages that
    were all answered right; a page whose runner-up is close behind is where such a swap is likely.

    Parameters
    ----------
    features, scores, texts
        As for :func:`doubt_signals`.
    right : sequence of bool
        Whether each candidate's text is a right answer.

    Returns
    -------
    signals : ndarray of shape (len(DOUBT_SIGNALS),) or None
        ``None`` when no candidate of another text is wrong.

    Raises
    ------
    ValueError
        If there is no candidate or the lengths differ.

    Examples
    --------
    >>> x = np.zeros((3, len(TRANSFER_FEATURES)))
    >>> x[0, TRANSFER_FEATURES.index("first_h1")] = 1.0
    >>> s = counterfactual_signals(x, np.array([3.0, 1.0, -2.0]), ["Moby Dick", "Home", "Cart"], [True, False, False])
    >>> float(s[0]), float(s[1]), float(s[DOUBT_SIGNALS.index("first_h1")])
    (3.0, 2.0, 0.0)
    """
    scores = np.asarray(scores, dtype=float)
    if len(scores) == 0 or len(right) != len(scores) or len(texts) != len(scores):
        raise ValueError(f"need one text and one correctness per score, and one score at least; got "
                         f"{len(texts)}, {len(right)}, {len(scores)}")
    best = int(np.argmax(scores))
    wrong = [i for i in range(len(scores)) if not right[i] and texts[i] != texts[best]]
    if not wrong:
        return None
    runner_up = max(wrong, key=lambda i: scores[i])
    gap = scores[best] - scores[runner_up]
    swapped = scores - gap * np.array([text == texts[best] for text in texts])
    swapped[runner_up] = scores[best]
    return doubt_signals(features, swapped, texts)
