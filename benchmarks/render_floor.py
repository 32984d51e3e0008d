"""Rendering against the bare ``set_content`` floor at the same concurrency, in wall and CPU time.

The floor (``stage_speed.py``'s): Playwright ``set_content`` of each page plus one layout read, every
request aborted. The renderer: :class:`mainentity.render.Renderer` (navigation under the page's URL,
request routing, readiness polling, ``blocks.js``, JSON and record building). Both start their own
Chromium for each run and render the same pages; runs alternate (floor, renderer, floor, ...) so that
other load on a shared machine hits both alike. CPU time is this process's plus its children's
(Playwright's driver and Chromium, counted when they exit), which the machine's other load disturbs
much less than the wall time. The issue's target: the renderer within 1.3x of the floor.

Usage::

    python benchmarks/render_floor.py [-n 100] [--concurrency 4] [--repeat 3] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import time
from pathlib import Path

from stage_speed import DEFAULT_DATASET, _floor

from mainentity.loading import load_pages
from mainentity.render import Renderer, RenderSettings


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its waited-for children so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(run) -> tuple[float, float]:
    """``(wall seconds, CPU seconds)`` of ``run()``."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    run()
    return time.perf_counter() - wall, cpu_seconds() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--n-pages", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dataset", default=DEFAULT_DATASET)
    parser.add_argument("--out", help="also write the figures as Markdown to this file")
    args = parser.parse_args(argv)
    loaded = load_pages([args.dataset])
    pages = [page for page in loaded.pages if page.main_entity][: args.n_pages]
    settings = RenderSettings(concurrency=args.concurrency)
    n = len(pages)

    def render() -> None:
        with Renderer(settings) as renderer:
            failed = [outcome.error for outcome in renderer.render(pages, loaded.subresources) if outcome.error]
        if failed:
            print(f"  {len(failed)} pages failed, e.g. {failed[0]}")

    lines = [f"{n} pages of {args.dataset}; concurrency {args.concurrency}; {os.cpu_count()} CPUs; load average "
             f"{os.getloadavg()[0]:.1f} at start"]
    print(lines[0], flush=True)
    ratios_wall, ratios_cpu = [], []
    for round_ in range(args.repeat):
        floor_wall, floor_cpu = timed(lambda: asyncio.run(_floor(pages, settings)))
        render_wall, render_cpu = timed(render)
        ratios_wall.append(render_wall / floor_wall)
        ratios_cpu.append(render_cpu / floor_cpu)
        lines.append(f"round {round_ + 1}: floor {n / floor_wall:.2f} pages/s, {floor_cpu / n * 1000:.0f} CPU ms/page; "
                     f"renderer {n / render_wall:.2f} pages/s, {render_cpu / n * 1000:.0f} CPU ms/page; ratio wall "
                     f"{ratios_wall[-1]:.2f}, CPU {ratios_cpu[-1]:.2f} (load {os.getloadavg()[0]:.1f})")
        print(lines[-1], flush=True)
    lines.append(f"renderer / floor: median wall ratio {statistics.median(ratios_wall):.2f}, median CPU ratio "
                 f"{statistics.median(ratios_cpu):.2f} (target <= 1.3)")
    print(lines[-1])
    if args.out:
        command = " ".join(["python", "benchmarks/render_floor.py", *(argv if argv is not None else sys.argv[1:])])
        Path(args.out).write_text("# Renderer against the set_content floor\n\n```\n" + command + "\n"
                                  + "\n".join(lines) + "\n```\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
