"""The cycle collector's thresholds while documents are built (mainentity.collector)."""

from __future__ import annotations

import gc
import threading

from mainentity.collector import COLLECTION_THRESHOLD, fewer_cycle_collections


def test_blocks_overlapping_in_two_threads_restore_the_thresholds_when_the_last_closes():
    before = gc.get_threshold()
    first_open, second_open, first_closed = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with fewer_cycle_collections():
            first_open.set()
            second_open.wait(10)
        first_closed.set()

    def second():
        first_open.wait(10)
        with fewer_cycle_collections():
            second_open.set()
            first_closed.wait(10)
            seen["after the first closed"] = gc.get_threshold()  # the second block is still open

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert seen["after the first closed"][0] == max(COLLECTION_THRESHOLD, before[0])
    assert gc.get_threshold() == before


def test_thresholds_come_back_when_the_block_raises():
    before = gc.get_threshold()
    try:
        with fewer_cycle_collections(123_456):
            assert gc.get_threshold()[0] == 123_456
            raise RuntimeError("a page that fails")
    except RuntimeError:
        pass
    assert gc.get_threshold() == before
