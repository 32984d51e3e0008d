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
from mainentity.text import normalize_text


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
