"""Rendering speed with a page's subresources served from its site dump, against all blocked.

Target (issue 14): rendering with ``render.subresources: true`` (stylesheets, fonts and images served
from the dump; images requested and decoded unless the dump holds pages only) takes at most 1.2x the
time of rendering the same pages with ``subresources: false`` (everything blocked, images not
requested).

Usage::

    python benchmarks/subresource_speed.py [DATASET ...] [-n 40] [--concurrency 2] [--rounds 3]

Each dataset (default: the sample shop, whose pages link one stylesheet) is read with
:func:`mainentity.sitedump.read_dataset`; its first ``n`` pages are rendered with a warm browser and
no cache, ``rounds`` times per setting, the two settings alternating so that load from other users of
a shared machine falls on both. Prints, per dataset and setting, the median pages/s, CPU ms per page
(this process and its children: Playwright's driver and Chromium) and the subresources served and
blocked per page, then the time ratio (subresources on / off) of the medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from render_speed import cpu_seconds

from mainentity.render import Renderer, RenderSettings
from mainentity.sitedump import SubresourceSources, read_dataset

DEFAULT_DATASETS = [str(Path(__file__).resolve().parents[1] / "datasets" / "sample-shop")]


def time_render(pages, settings: RenderSettings, subresources=None) -> tuple[float, float, float, float]:
    """Render ``pages`` in a warm browser; return (seconds, CPU seconds, served/page, blocked/page)."""
    with Renderer(settings) as renderer:
        list(renderer.render(pages[: 2 * settings.concurrency], subresources))  # warm up: tabs open, files read
        cpu0, start = cpu_seconds(), time.perf_counter()
        outcomes = list(renderer.render(pages, subresources))
        elapsed, cpu = time.perf_counter() - start, cpu_seconds() - cpu0
    failed = [o.error for o in outcomes if o.error]
    if failed:
        raise RuntimeError(f"{len(failed)} pages failed, e.g. {failed[0]}")
    n = len(outcomes)
    served = sum(o.n_subresources_served for o in outcomes) / n
    blocked = sum(o.n_subresources_blocked for o in outcomes) / n
    return elapsed, cpu, served, blocked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="*", default=DEFAULT_DATASETS, help="datasets or site dumps")
    parser.add_argument("-n", "--n-pages", type=int, default=40, help="pages per dataset")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"concurrency {args.concurrency}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    for dataset in args.datasets:
        dumps = read_dataset(dataset)
        pages = [page for dump in dumps for page in dump.pages][: args.n_pages]
        sources = SubresourceSources.of_dumps(dumps)
        runs: dict[bool, list[tuple[float, float, float, float]]] = {True: [], False: []}
        for round_ in range(args.rounds):
            for subresources in (False, True) if round_ % 2 == 0 else (True, False):
                settings = RenderSettings(concurrency=args.concurrency, subresources=subresources)
                runs[subresources].append(time_render(pages, settings, sources))
        print(f"\n{len(pages)} pages of {dataset}, {args.rounds} rounds")
        medians = {}
        for subresources, results in runs.items():
            seconds = statistics.median(r[0] for r in results)
            cpu = statistics.median(r[1] for r in results)
            medians[subresources] = seconds
            print(
                f"  subresources {'on ' if subresources else 'off'}: {len(pages) / seconds:.2f} pages/s "
                f"(rounds: {', '.join(f'{len(pages) / r[0]:.2f}' for r in results)}), "
                f"{cpu / len(pages) * 1000:.0f} ms CPU/page, "
                f"{results[0][2]:.1f} served and {results[0][3]:.1f} blocked per page"
            )
        print(f"  time ratio on/off: {medians[True] / medians[False]:.2f} (target <= 1.2)")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f} (shared machine: wall times vary)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
