"""Fewer runs of Python's cycle collector while many small, long-lived objects are built.

Reading rendered pages builds hundreds of :class:`~mainentity.records.TextBlock` objects per page, and a
prediction run keeps a batch or a whole site of them alive. With the default threshold (a first-generation
collection every 700 new objects) the collector runs after every page and walks the blocks of all the
pages read before it, again and again: a quarter of the time of a warm-cache read
(``benchmarks/results/warm_cache_speed.md``). The blocks hold no reference cycles, so those walks free
nothing.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: New objects between two first-generation collections inside :func:`fewer_cycle_collections`
#: (Python's default is 700): about ten pages of text blocks.
COLLECTION_THRESHOLD = 10_000


@contextlib.contextmanager
def fewer_cycle_collections(threshold: int = COLLECTION_THRESHOLD) -> Iterator[None]:
    """Within the block, collect cycles every ``threshold`` new objects at most; restore the thresholds after.

    Collections still happen (memory held by cyclic garbage stays bounded), only less often. The
    thresholds are the process's: a block run in one thread changes them for the others until it ends.

    Parameters
    ----------
    threshold : int, default :data:`COLLECTION_THRESHOLD`
        First-generation threshold (number of new container objects); a higher current one is kept.

    Examples
    --------
    >>> before = gc.get_threshold()
    >>> with fewer_cycle_collections(50_000):
    ...     gc.get_threshold()[0] >= 50_000
    True
    >>> gc.get_threshold() == before
    True
    """
    thresholds = gc.get_threshold()
    gc.set_threshold(max(threshold, thresholds[0]), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
