"""CPU of the static path's three parts on lone pages: loading, the static reader, the static model.

What ``--render auto`` does before it renders anything (:mod:`mainentity.render_few`), each part timed on its
own in one process (process CPU, ``time.process_time``):

- ``load_inputs``: reading the dumps, decoding, and each dump's link graph (anchor texts, links home);
- ``read_static`` of every page (the static reader: parse, CSS cascade, walk; a page it refuses counts);
- the shipped static model's ``predict`` on all the readings in one call, as ``render_few`` makes it
  (candidates, features, ranker, calibrator), with the text caches cleared first
  (``warm_cache_speed.clear_text_caches``), as a crawl's pages meet them; the least of ``--repeat`` runs.

``benchmarks/stage_table.py`` splits a whole ``predict`` process into stages against trafilatura; this is the
quicker before/after check of a change to one of these parts (run it on both commits, e.g. one in a git
worktree).

Usage (from the repository root, ../shared beside it)::

    python benchmarks/static_path_speed.py [DATASET ...] [--repeat 3]

DATASET: folders under ../shared/datasets (default: the lone pages' readability-realworld, fundus-half,
postlight-half).
"""

from __future__ import annotations

import argparse
import sys
import time

from render_cost import LONE, SHARED
from warm_cache_speed import clear_text_caches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=list(LONE), help="dataset folders under ../shared/datasets")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the static model's predict (least taken)")
    args = parser.parse_args(argv)

    from mainentity.loading import load_inputs
    from mainentity.model_store import load_static_model
    from mainentity.records import Document
    from mainentity.render.static import read_static

    model = load_static_model()  # imports and model load first: not counted
    start = time.process_time()
    loaded = load_inputs([str(SHARED / name) for name in args.datasets])
    load_s = time.process_time() - start
    n_pages = len(loaded.pages)

    documents, n_refused = [], 0
    start = time.process_time()
    for page in loaded.pages:
        try:
            documents.append(Document(page, read_static(page, loaded.subresources.for_page(page))))
        except ValueError:
            n_refused += 1
    read_s = time.process_time() - start

    predict_s = []
    model.recognizer.predict(documents)  # the first call imports what predicting needs
    for _ in range(args.repeat):
        clear_text_caches()
        start = time.process_time()
        model.recognizer.predict(documents)
        predict_s.append(time.process_time() - start)

    print(f"{n_pages} pages of {', '.join(args.datasets)} ({n_refused} refused by the static reader)")
    print(f"load_inputs          {load_s / n_pages * 1000:6.1f} ms/page")
    print(f"read_static          {read_s / n_pages * 1000:6.1f} ms/page")
    print(f"static model predict {min(predict_s) / len(documents) * 1000:6.1f} ms/page (least of "
          f"{', '.join(f'{s / len(documents) * 1000:.1f}' for s in predict_s)}; text caches cleared before each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
