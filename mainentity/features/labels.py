"""Training labels: which text blocks of a page are its main entity (omega_1).

Carullo & Binaghi (2010), section 3.3, step 3(b)iii, label a block omega_1 when b = e. Here b = e means
the block's normalised text (:func:`mainentity.text.normalize_text`) equals the normalised text of one
of the page's labels (``Page.main_entity`` lists the acceptable alternatives).

Real labels sometimes differ slightly from every block (a site suffix in the label, punctuation,
a block that adds a format or an edition). When no block matches exactly, the fallback labels
omega_1 the blocks whose token Dice coefficient with a label (:func:`dice_matrix`) is the page's
maximum, provided that maximum is at least ``min_dice`` (0.8 by default: e.g. a 4-term label against
a block that adds one term, or drops one of 5). Otherwise the page has no main-entity block and
contributes only omega_2 examples. A text the caller marks ``exact_only`` takes no part in the fallback:
a ``<title>`` that adds the site's name and section to a long headline ("Headline - Politics | Daily") is
within Dice 0.8 of it, yet is the headline's wrapper, not the headline.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mainentity.features.anchortext import dice_matrix
from mainentity.features.candidates import is_unshown_title
from mainentity.records import TextBlock
from mainentity.text import normalize_text

#: Least token Dice between a label and a visible ``<h1>`` for the heading to state the same story
#: (:func:`shown_main_entity_labels`).
MIN_HEADLINE_DICE = 0.5


def main_entity_labels(
    block_texts: Sequence[str], labels: Sequence[str], min_dice: float = 0.8,
    exact_only: Sequence[bool] | np.ndarray | None = None,
) -> np.ndarray:
    """Mark the text blocks that are the page's main entity.

    Parameters
    ----------
    block_texts : sequence of str
        Texts of the page's text blocks.
    labels : sequence of str
        The acceptable labels of the page's main entity; may be empty (then no block is marked).
    min_dice : float, default 0.8
        Least token Dice coefficient for the fallback match, in (0, 1].
    exact_only : sequence of bool of shape (n_blocks,), optional
        Blocks that are the main entity only by an exact match, never by the fallback (a text that holds
        the site's name beside the label).

    Returns
    -------
    is_main_entity : ndarray of bool, shape (n_blocks,)
        True for the blocks that equal a label after normalisation; when there is none, True for the
        blocks with the page's highest Dice coefficient to a label if it is >= ``min_dice``.

    Raises
    ------
    ValueError
        If ``min_dice`` is not in (0, 1], or ``exact_only`` has not one entry per block.

    References
    ----------
    .. [1] Carullo & Binaghi (2010), KDIR, section 3.3 (y = omega_1 when b = e).

    Examples
    --------
    >>> blocks = ["Home", "Know Your Bible", "Know your Bible (paperback)", "Price"]
    >>> main_entity_labels(blocks, ["KNOW YOUR BIBLE"]).tolist()
    [False, True, False, False]
    >>> main_entity_labels(blocks, ["Know Your Bible."]).tolist()  # fallback: Dice 1.0
    [False, True, False, False]
    >>> main_entity_labels(blocks, ["Bible"]).tolist()  # best Dice 0.5 < 0.8: no main entity
    [False, False, False, False]
    >>> titles = ["Storm closes the old harbour bridge again - Daily", "Storm closes"]
    >>> main_entity_labels(titles, ["Storm closes the old harbour bridge again"]).tolist()  # Dice 0.93
    [True, False]
    >>> main_entity_labels(titles, ["Storm closes the old harbour bridge again"], exact_only=[True, False]).tolist()
    [False, False]
    """
    if not 0.0 < min_dice <= 1.0:
        raise ValueError(f"min_dice must be in (0, 1]; got {min_dice}")
    if exact_only is not None and len(exact_only) != len(block_texts):
        raise ValueError(f"exact_only has {len(exact_only)} entries for {len(block_texts)} blocks")
    if len(block_texts) == 0 or len(labels) == 0:
        return np.zeros(len(block_texts), dtype=bool)
    wanted = {normalize_text(label) for label in labels}
    exact = np.array([normalize_text(text) in wanted for text in block_texts], dtype=bool)
    if exact.any():
        return exact
    dice = dice_matrix(block_texts, labels).max(axis=1)
    if exact_only is not None:
        dice[np.asarray(exact_only, dtype=bool)] = 0.0
    best = dice.max()
    if best < min_dice:
        return np.zeros(len(block_texts), dtype=bool)
    return dice == best


def shown_main_entity_labels(candidates: Sequence[TextBlock], is_main_entity: np.ndarray, labels: Sequence[str],
                             min_dice: float = MIN_HEADLINE_DICE) -> np.ndarray:
    """Training labels that follow the datasets' majority convention: the main entity is a text the page shows.

    Some labels are a title the page does not show: Readability's labels are its own title output (a
    ``<title>`` without the site's name), some fundus parsers read ``og:title`` or join a kicker shown apart
    to the headline. Taken as they are, a title the page does not show
    (:func:`~mainentity.features.candidates.is_unshown_title`) is often the answer where it is a whole
    title segment, and the ranker learns to prefer it to a visible headline that words the
    story apart ("... For Secretary Of State" over the ``<h1>`` "... To Become Donald Trump's Secretary Of
    State"). Where a page's first visible ``<h1>`` and one of its titles word the same story apart, the
    labels of four of the five shared datasets follow the heading (the fifth has no such page): on 26 pages
    the heading alone, on 5 (fundus) the title's wording alone (``python benchmarks/label_conventions.py``).
    So where a page's main-entity candidates include titles it does not show:

    - if it shows a main-entity candidate too, only the shown ones stay main entity;
    - else the visible level-1 heading candidates (``heading_level`` 1: an ``<h1>``, an ARIA level-1 heading or
      a part of one; not in a link) whose token Dice with a label is the highest, and at least ``min_dice``,
      are the main entity instead (every one of them when several tie);
    - else (the page shows no heading that states it) the labels stay as they are.

    Parameters
    ----------
    candidates : sequence of TextBlock
        The page's candidates.
    is_main_entity : ndarray of bool, shape (n_candidates,)
        Their labels (:func:`main_entity_labels`).
    labels : sequence of str
        The page's main-entity labels.
    min_dice : float, default :data:`MIN_HEADLINE_DICE`
        Least token Dice of the heading with a label.

    Returns
    -------
    is_main_entity : ndarray of bool, shape (n_candidates,)
        The labels after the convention (a new array when they change).

    Examples
    --------
    >>> from mainentity.features.candidates import _unshown
    >>> h1 = TextBlock("Giuliani Is No Longer In The Running To Become Trump's Secretary Of State", "h1",
    ...                "html[0]/body[1]/h1[0]", 32, 700, True, 8, 900, 600, 37, heading_level=1)
    >>> title = _unshown("Giuliani Is No Longer In The Running For Secretary Of State")
    >>> shown_main_entity_labels([title, h1], np.array([True, False]), [title.text]).tolist()  # Dice 0.80
    [False, True]
    >>> shown_main_entity_labels([title, h1], np.array([True, True]), [title.text, h1.text]).tolist()
    [False, True]
    >>> shown_main_entity_labels([title, h1], np.array([True, False]), [title.text], min_dice=0.9).tolist()
    [True, False]
    """
    unshown = np.array([is_unshown_title(candidate) for candidate in candidates], dtype=bool)
    if not (is_main_entity & unshown).any():
        return is_main_entity
    if (is_main_entity & ~unshown).any():
        return is_main_entity & ~unshown
    headings = [i for i, c in enumerate(candidates)
                if c.heading_level == 1 and not c.hidden and not c.in_link and not unshown[i]]
    if not headings:
        return is_main_entity
    dice = dice_matrix([candidates[i].text for i in headings], labels).max(axis=1)
    if dice.max() < min_dice:
        return is_main_entity
    marked = np.zeros_like(is_main_entity)
    marked[[i for i, d in zip(headings, dice, strict=True) if d == dice.max()]] = True
    return marked
