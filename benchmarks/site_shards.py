"""Cost of predicting a large site in shards with a site-level recogniser, against predicting it whole.

A cluster run splits a site of more than :data:`mainentity.scaleout.SHARD_PAGES` pages: one task counts the
site statistics on the whole site, each shard's task scores its pages with them, and the client takes
the site vote (:mod:`mainentity.recognizers.base`). This measures, in one process and from a warm
render cache (the documents are read first and not timed), the seconds of each step for the shipped
general model, and checks that the sharded predictions equal the whole-site ones:

- ``predict`` on the whole site (what one task did before sharding);
- ``site_statistics`` on the whole site (the part no shard can share: it bounds the speed-up);
- ``score_shard`` on each shard and ``predict_scored`` on all scored pages;
- the pickled sizes of what travels: the statistics (to each worker once) and the scored pages (back
  to the client), beside the pages themselves.

Run it with ``OMP_NUM_THREADS=1`` (a Dask worker's numerical libraries use one thread).

Usage::

    OMP_NUM_THREADS=1 python benchmarks/site_shards.py [--dataset DIR] [--shard-pages 250] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from pathlib import Path

from mainentity.loading import load_pages
from mainentity.model_store import load_trained_model
from mainentity.pipeline import RenderedDocuments, render_all
from mainentity.scaleout import SHARD_PAGES

DEFAULT_DATASET = "../shared/datasets/swde-book-christianbook"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default=DEFAULT_DATASET, help="a dataset whose first site is measured")
    parser.add_argument("--shard-pages", type=int, default=SHARD_PAGES)
    parser.add_argument("--out", help="also append the figures as Markdown to this file")
    args = parser.parse_args(argv)
    model = load_trained_model(None)
    recognizer = model.recognizer
    loaded = load_pages([args.dataset])
    pages = loaded.pages
    site = [page for page in pages if page.site_id == pages[0].site_id]
    documents, failed = render_all(site, RenderedDocuments(model.config.render, loaded.subresources), desc="read")

    started = time.perf_counter()
    whole = recognizer.predict(documents)
    whole_s = time.perf_counter() - started
    started = time.perf_counter()
    statistics = recognizer.site_statistics(documents)
    statistics_s = time.perf_counter() - started
    shard_s, scored = [], []
    for start in range(0, len(documents), args.shard_pages):
        started = time.perf_counter()
        scored += recognizer.score_shard(documents[start:start + args.shard_pages], statistics)
        shard_s.append(time.perf_counter() - started)
    started = time.perf_counter()
    sharded = recognizer.predict_scored(scored)
    finish_s = time.perf_counter() - started

    n_kept = sum(len(page.candidates) for page in scored) / max(len(scored), 1)
    lines = [
        f"{args.dataset}, site {site[0].site_id}: {len(documents)} pages ({len(failed)} not in the render cache "
        f"or failed), shards of {args.shard_pages}; load average {os.getloadavg()[0]:.1f}",
        "",
        f"- sharded predictions equal the whole-site ones: {sharded == whole}",
        f"- predict on the whole site: {whole_s:.1f} s",
        f"- site_statistics on the whole site: {statistics_s:.1f} s ({statistics_s / whole_s:.0%} of it)",
        f"- score_shard, {len(shard_s)} shards: {sum(shard_s):.1f} s in all, longest {max(shard_s):.1f} s",
        f"- predict_scored (the site vote, in the client): {finish_s:.2f} s",
        f"- pickled: statistics {len(pickle.dumps(statistics)) / 1e6:.1f} MB, scored pages "
        f"{len(pickle.dumps(scored)) / 1e6:.1f} MB ({n_kept:.1f} candidates kept per page), pages "
        f"{len(pickle.dumps(site)) / 1e6:.1f} MB",
        f"- ideal time with one worker per shard: statistics + longest shard = {statistics_s + max(shard_s):.1f} s "
        f"against {whole_s:.1f} s whole",
    ]
    print("\n".join(lines))
    if args.out:
        command = " ".join(["python", "benchmarks/site_shards.py", *(argv if argv is not None else sys.argv[1:])])
        with Path(args.out).open("a", encoding="utf-8") as file:
            file.write(f"\n## `OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '')} {command}`\n\n"
                       + "\n".join(lines) + "\n")
    return 0 if sharded == whole else 1


if __name__ == "__main__":
    sys.exit(main())
