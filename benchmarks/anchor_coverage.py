"""Incoming anchor texts per dataset: pages with anchors, pages whose label is among them, time.

Target (issue 13): on christianbook, without ``data.anchor_url_pattern``, as many pages with incoming
anchor texts as with ``/pd/(\\d+)``. Results: ``benchmarks/results/anchors.md``.

Usage::

    python benchmarks/anchor_coverage.py DATASET [DATASET ...] [--pattern REGEX]

Prints one line per dataset: pages with at least one anchor text, pages whose label is among them,
mean anchors per page, links kept and left out (hidden, generic), the learnt URL rule of the largest
site, and the link graph's wall time in seconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from mainentity.linkgraph import link_graph
from mainentity.sitedump import read_dataset


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("datasets", nargs="+", help="dataset or site dump directories")
    parser.add_argument("--pattern", default=None, help="data.anchor_url_pattern (default: the learnt rule)")
    args = parser.parse_args(argv)
    for dataset in args.datasets:
        sizes, n_label, n_links, n_hidden, n_generic, seconds, rules = [], 0, 0, 0, 0, 0.0, []
        for site in read_dataset(dataset):
            tick = time.perf_counter()
            graph = link_graph(site.pages, url_pattern=args.pattern)
            seconds += time.perf_counter() - tick
            sizes += [len(texts) for texts in graph.anchors.values()]
            n_label += sum(1 for page in site.pages if set(page.main_entity) & set(graph.anchors[page.path]))
            n_links += graph.coverage.n_links
            n_hidden += graph.coverage.n_hidden_links
            n_generic += graph.coverage.n_generic_links
            rules.append((len(site.pages), graph.coverage.url_key))
        print(
            f"{dataset}: {sum(1 for n in sizes if n)} of {len(sizes)} pages with anchors, label among them on "
            f"{n_label}, mean |A| {statistics.mean(sizes):.3f}; {n_links} links kept, {n_hidden} hidden and "
            f"{n_generic} generic left out; rule of the largest site: {max(rules)[1]}; {seconds:.2f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
