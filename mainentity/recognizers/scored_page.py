"""A page of a large site scored in a shard: what the site vote and the page's prediction need of it.

:meth:`~mainentity.recognizers.general.GeneralRecognizer.score_shard` makes them,
:meth:`~mainentity.recognizers.general.GeneralRecognizer.predict_scored` votes over a site's and answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mainentity.features.transfer import TRANSFER_FEATURES
from mainentity.records import TextBlock


@dataclass(frozen=True)
class ScoredPage:
    """A page scored in a shard: what the site vote and the page's prediction need of it.

    Attributes
    ----------
    site_id, path, url : str
        The page's.
    candidates : tuple of TextBlock
        The candidates that can still be the answer (the best, and those within ``vote_margin`` of it
        that the vote may choose) or be listed (up to ``n_top`` distinct texts by score), in page order.
        Empty for a page without candidates.
    slots : tuple of str
        Their slots (:func:`~mainentity.features.site.slot_of`).
    scores : ndarray of shape (n_candidates,)
        Their ranker scores (log-odds), before the vote.
    features : ndarray of shape (n_candidates, n_features)
        Their transfer features (what the calibrator's signals of doubt are read from).
    error : str
        Why the page has no scores ("not rendered"); empty otherwise.
    """

    site_id: str
    path: str
    url: str
    candidates: tuple[TextBlock, ...] = ()
    slots: tuple[str, ...] = ()
    scores: np.ndarray = field(default_factory=lambda: np.zeros(0))
    features: np.ndarray = field(default_factory=lambda: np.zeros((0, len(TRANSFER_FEATURES))))
    error: str = ""
