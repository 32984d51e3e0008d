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
import threading
from collections.abc import Iterator

#: New objects between two first-generation collections inside :func:`fewer_cycle_collections`
#: (Python's default is 700): about ten pages of text blocks.
COLLECTION_THRESHOLD = 10_000


_lock = threading.Lock()
_depth = 0  # blocks open, in any thread
_saved: tuple[int, ...] = ()  # the thresholds before the first of them


@contextlib.contextmanager
def fewer_cycle_collections(threshold: int = COLLECTION_THRESHOLD) -> Iterator[None]:
    """Within the block, collect cycles every ``threshold`` new objects at most; restore the thresholds after.

    Collections still happen (memory held by cyclic garbage stays bounded), only less often. The
    thresholds are the process's: blocks may nest and run in several threads at once (two models used
    from two threads); the first to open raises the threshold and the last to close restores it.

    Parameters
    ----------
    threshold : int, default :data:`COLLECTION_THRESHOLD`
        First-generation threshold (number of new container objects); a higher current one is kept.

    Examples
    --------
    >>> before = gc.get_threshold()
    >>> with fewer_cycle_collections(50_000):
    ...     with fewer_cycle_collections():
    ...         pass
    ...     gc.get_threshold()[0] >= 50_000
    True
    >>> gc.get_threshold() == before
    True
    """
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = gc.get_threshold()
        _depth += 1
        current = gc.get_threshold()
        gc.set_threshold(max(threshold, current[0]), *current[1:])
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.set_threshold(*_saved)
