"""Per-page metrics of a predicted main entity against its labels.

Two families of metrics, all in [0, 1]:

- **Text overlap of the top block** with the label: ROUGE-1 precision / recall / F1 (computed by the
  ``rouge-score`` package with our letter-digit tokenizer :func:`mainentity.text.tokenize`), Jaccard and
  Dice of token *sets*, and exact match of :func:`mainentity.text.normalize_text` forms.
- **The candidate set H** of Carullo & Binaghi (2010), section 2 (the blocks the model classified as
  "main entity"), scored as in their section 4.1: per page precision ``P_H`` and recall ``R_H``, to be
  macro-averaged over pages by :mod:`mainentity.evaluation.report`.

Conventions (documented once here, tested in ``tests/test_metrics.py``):

- Texts are compared through their tokens, so case, punctuation and white space never matter; CJK
  characters are one token each; a soft hyphen (U+00AD, shown only where a line breaks) splits no word.
- Two texts with no tokens at all (both empty or punctuation only) are identical: ROUGE-1, Jaccard and
  Dice are 1.0. One empty side against a non-empty one scores 0.0. (The ``rouge-score`` package itself
  returns 0 for two empty texts; we override that so every metric is 1 on identical texts.)
- A label with several alternatives is scored against its *best* alternative: the one with the highest
  ROUGE-1 F1 against the prediction, ties broken by exact match, then by label order. That one
  alternative is used for every text metric of the page (:func:`score_page`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from rouge_score import rouge_scorer

from mainentity.text import normalize_text, tokenize

__all__ = [
    "METRICS",
    "SCORE_KEYS",
    "dice",
    "exact_match",
    "f1_from",
    "h_scores",
    "jaccard",
    "rouge1",
    "score_page",
]


class _LetterDigitTokenizer:
    """Adapter giving ``rouge-score`` our tokenizer (it calls ``tokenize(text)``)."""

    @staticmethod
    def tokenize(text: str) -> list[str]:
        return list(tokenize(text))


_ROUGE = rouge_scorer.RougeScorer(["rouge1"], tokenizer=_LetterDigitTokenizer())


def rouge1(prediction: str, reference: str) -> tuple[float, float, float]:
    """ROUGE-1 precision, recall and F1 of a prediction against one reference text.

    Unigram overlap with multiplicity (Lin 2004): with ``c`` the clipped count of shared tokens,
    ``P = c / |prediction tokens|``, ``R = c / |reference tokens|``, ``F1 = 2PR / (P + R)``.
    Computed by ``rouge_score.rouge_scorer.RougeScorer(["rouge1"])`` with
    :func:`mainentity.text.tokenize` as its tokenizer.

    Parameters
    ----------
    prediction : str
        The predicted main entity.
    reference : str
        One label.

    Returns
    -------
    precision, recall, f1 : float
        Each in [0, 1]; ``(1.0, 1.0, 1.0)`` when neither text has a token (see module notes).

    Examples
    --------
    >>> rouge1("the quick brown fox", "the quick fox jumps")
    (0.75, 0.75, 0.75)
    >>> rouge1("Lydia's Charm!", "lydia s charm")
    (1.0, 1.0, 1.0)
    """
    if not tokenize(prediction) and not tokenize(reference):
        return 1.0, 1.0, 1.0
    score = _ROUGE.score(reference, prediction)["rouge1"]
    return float(score.precision), float(score.recall), float(score.fmeasure)


def _token_sets(a: str, b: str) -> tuple[set[str], set[str]]:
    return set(tokenize(a)), set(tokenize(b))


def jaccard(a: str, b: str) -> float:
    """Jaccard index ``|A ∩ B| / |A ∪ B|`` of the token sets of two texts.

    Parameters
    ----------
    a, b : str
        Texts, tokenized by :func:`mainentity.text.tokenize` (duplicates count once).

    Returns
    -------
    float
        In [0, 1]; 1.0 when both token sets are empty, 0.0 when exactly one is.

    Examples
    --------
    >>> jaccard("the quick brown fox", "the quick fox jumps")
    0.6
    """
    set_a, set_b = _token_sets(a, b)
    union = set_a | set_b
    if not union:
        return 1.0
    return len(set_a & set_b) / len(union)


def dice(a: str, b: str) -> float:
    """Dice coefficient ``2 |A ∩ B| / (|A| + |B|)`` of the token sets of two texts.

    Equals ``2J / (1 + J)`` with ``J`` the :func:`jaccard` index of the same texts. Carullo & Binaghi
    (2010), section 3.1, use the same coefficient as an anchor-text feature.

    Parameters
    ----------
    a, b : str
        Texts, tokenized by :func:`mainentity.text.tokenize` (duplicates count once).

    Returns
    -------
    float
        In [0, 1]; 1.0 when both token sets are empty, 0.0 when exactly one is.

    Examples
    --------
    >>> dice("the quick brown fox", "the quick fox jumps")
    0.75
    """
    set_a, set_b = _token_sets(a, b)
    size = len(set_a) + len(set_b)
    if size == 0:
        return 1.0
    return 2 * len(set_a & set_b) / size


def exact_match(a: str, b: str) -> float:
    """1.0 when the two texts are equal after :func:`mainentity.text.normalize_text`, else 0.0.

    Normalisation is NFKC, soft hyphens (U+00AD) dropped, lower case and collapsed white space;
    punctuation still counts.

    Examples
    --------
    >>> exact_match("  Know Your BIBLE ", "know your bible")
    1.0
    >>> exact_match("Know Your Bible!", "know your bible")
    0.0
    """
    return float(normalize_text(a) == normalize_text(b))


#: The text metrics by column name: each maps two texts to a number in [0, 1].
METRICS: dict[str, Callable[[str, str], float]] = {
    "rouge1_p": lambda prediction, reference: rouge1(prediction, reference)[0],
    "rouge1_r": lambda prediction, reference: rouge1(prediction, reference)[1],
    "rouge1_f": lambda prediction, reference: rouge1(prediction, reference)[2],
    "jaccard": jaccard,
    "dice": dice,
    "exact": exact_match,
}

#: The numeric keys :func:`score_page` returns, in column order (it also returns ``best_label``).
SCORE_KEYS: tuple[str, ...] = (*METRICS, "h_precision", "h_recall", "h_f1")


def f1_from(precision, recall):
    """F-measure with beta = 1, ``2 P R / (P + R)``, and 0 where ``P + R == 0``.

    Carullo & Binaghi (2010), section 4.1 (F_beta with equal weight on P and R).

    Parameters
    ----------
    precision, recall : float or array_like of the same shape
        Values in [0, 1]; NaN propagates.

    Returns
    -------
    f1 : float or ndarray
        A float for scalar inputs, else an array of the broadcast shape.

    Examples
    --------
    >>> round(f1_from(0.78, 0.66), 2)  # Carullo & Binaghi (2010), Table 2, first row: F1 = 0.72
    0.72
    >>> f1_from(np.array([0.0, 1.0]), np.array([0.0, 0.5]))
    array([0.        , 0.66666667])
    """
    p = np.asarray(precision, dtype=float)
    r = np.asarray(recall, dtype=float)
    total = p + r
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(total == 0, 0.0, 2 * p * r / total)
    return float(f1) if f1.ndim == 0 else f1


def h_scores(candidates: Sequence[str], labels: Sequence[str]) -> tuple[float, float, float]:
    """Per-page precision, recall and F1 of the candidate set H (Carullo & Binaghi 2010, section 4.1).

    A candidate *matches* when its :func:`mainentity.text.normalize_text` form equals that of some
    label alternative. Each page has one main entity (the paper's ``e``, section 2), so

    - ``P_H = |{h in H : h matches}| / |H|`` (0.0 when H is empty);
    - ``R_H = 1.0`` if some ``h`` in H matches, else 0.0;
    - ``F1_H = 2 P_H R_H / (P_H + R_H)`` (0.0 when both are 0).

    H is taken as given, one entry per classified text block, so two blocks with the same text count
    twice. The paper's macro average is the mean of ``P_H`` and ``R_H`` over pages.

    Parameters
    ----------
    candidates : sequence of str
        H: texts of the blocks classified as main entity.
    labels : sequence of str
        The page's acceptable labels (any one counts).

    Returns
    -------
    precision, recall, f1 : float
        Each in [0, 1].

    Examples
    --------
    >>> h_scores(["Bible", "Home", "bible "], ["bible", "The Bible"])
    (0.6666666666666666, 1.0, 0.8)
    >>> h_scores([], ["bible"])
    (0.0, 0.0, 0.0)
    """
    if not candidates:
        return 0.0, 0.0, 0.0
    gold = {normalize_text(label) for label in labels}
    n_match = sum(normalize_text(h) in gold for h in candidates)
    precision = n_match / len(candidates)
    recall = float(n_match > 0)
    return precision, recall, f1_from(precision, recall)


def score_page(prediction: str, labels: Sequence[str], candidates: Sequence[str] = ()) -> dict:
    """Every per-page metric of one predicted main entity against the page's labels.

    The text metrics use the best label alternative (highest ROUGE-1 F1, then exact match, then label
    order); the H metrics (:func:`h_scores`) accept a match with any alternative.

    Parameters
    ----------
    prediction : str
        The predicted main entity (the top block); may be empty.
    labels : sequence of str
        Acceptable labels of the page, at least one.
    candidates : sequence of str, optional
        The candidate set H (texts of the blocks classified as main entity).

    Returns
    -------
    scores : dict
        ``rouge1_p, rouge1_r, rouge1_f, jaccard, dice, exact, h_precision, h_recall, h_f1`` (floats in
        [0, 1], keys :data:`SCORE_KEYS`) and ``best_label`` (str), the alternative the text metrics used.

    Raises
    ------
    ValueError
        If ``labels`` is empty (unlabeled pages are not scored).

    Examples
    --------
    >>> s = score_page("The Holy Bible", ["Holy Bible - Christianbook.com", "The Holy Bible"])
    >>> s["best_label"], s["exact"], s["h_recall"]
    ('The Holy Bible', 1.0, 0.0)
    """
    if isinstance(labels, str):
        raise ValueError(f"labels must be a sequence of label strings, not one string; got {labels!r}")
    if len(labels) == 0:
        raise ValueError("labels must hold at least one label; unlabeled pages are not scored")
    best_key, best_label, best_rouge = None, "", (0.0, 0.0, 0.0)
    for label in labels:
        rouge = rouge1(prediction, label)
        key = (rouge[2], exact_match(prediction, label))
        if best_key is None or key > best_key:
            best_key, best_label, best_rouge = key, label, rouge
    h_precision, h_recall, h_f1 = h_scores(candidates, labels)
    return {
        "rouge1_p": best_rouge[0],
        "rouge1_r": best_rouge[1],
        "rouge1_f": best_rouge[2],
        "jaccard": jaccard(prediction, best_label),
        "dice": dice(prediction, best_label),
        "exact": best_key[1],
        "h_precision": h_precision,
        "h_recall": h_recall,
        "h_f1": h_f1,
        "best_label": best_label,
    }


def expected_calibration_error(scores, correct, n_bins: int = 10) -> float:
    """Expected calibration error: the page-weighted mean gap between score and accuracy over score bins.

    ``ECE = sum_b (n_b / n) |acc_b - conf_b|`` over ``n_bins`` equal-width bins of [0, 1] (a score of 1
    falls in the last bin), where ``conf_b`` is the mean score and ``acc_b`` the share of right answers of
    the ``n_b`` pages in bin ``b`` (Naeini, Cooper & Hauskrecht 2015, AAAI, section 3; Guo et al. 2017,
    ICML, section 2).

    Parameters
    ----------
    scores : array-like of shape (n_pages,)
        Probabilities in [0, 1] that each answer is right.
    correct : array-like of shape (n_pages,)
        1 when that answer was right (exact match), else 0.
    n_bins : int, default 10

    Returns
    -------
    ece : float
        In [0, 1]; ``nan`` for no page.

    Raises
    ------
    ValueError
        If the lengths differ, a score lies outside [0, 1], or ``n_bins`` < 1.

    Examples
    --------
    >>> expected_calibration_error([0.95, 0.95, 0.15, 0.15], [1, 0, 0, 0])  # bins 0.9-1.0 and 0.1-0.2
    0.3
    """
    scores, correct = np.asarray(scores, dtype=float), np.asarray(correct, dtype=float)
    if len(scores) != len(correct) or n_bins < 1:
        raise ValueError(f"need one correctness per score and n_bins >= 1; got {len(scores)}, {len(correct)}, "
                         f"{n_bins}")
    if len(scores) == 0:
        return float("nan")
    if not np.all((scores >= 0.0) & (scores <= 1.0)):
        raise ValueError("scores must be probabilities in [0, 1]")
    bins = np.minimum((scores * n_bins).astype(int), n_bins - 1)
    gaps = [abs(correct[bins == b].mean() - scores[bins == b].mean()) * np.sum(bins == b)
            for b in np.unique(bins)]
    return round(float(np.sum(gaps) / len(scores)), 12)
