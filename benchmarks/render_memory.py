"""Peak memory of the whole process tree (Python and every Chromium process) rendering one wide page.

Renders a page of ``<h1>`` plus N ``<span>w<i> </span>`` elements (each a text block) with
:class:`mainentity.render.Renderer` and samples, every 50 ms, the sum over the process and all its
children of the proportional set size (PSS: shared pages split between the processes that map them, so
Chromium's shared libraries are not counted once per process) with psutil. The figures give the
per-element cost behind :data:`mainentity.render.settings.MAX_ELEMENTS`. ``--max-elements`` sets the
renderer's limit (default: the shipped one, so a page over it shows the cost of refusing it);
``--max-renderer-mb`` the cap on each renderer's memory (:mod:`mainentity.render.memory`; default the shipped
one): with the element limit lifted, the million-span page (53 MB) shows what the cap alone bounds.

Usage::

    python benchmarks/render_memory.py 0 60000 200000 --max-elements 10000000
    python benchmarks/render_memory.py 1000000
    python benchmarks/render_memory.py 1000000 --max-elements 10000000 --max-renderer-mb 1024
"""

from __future__ import annotations

import argparse
import threading
import time

import psutil

from mainentity.records import Page
from mainentity.render.browser import Renderer
from mainentity.render.memory import default_max_renderer_mb
from mainentity.render.settings import MAX_ELEMENTS, RenderSettings


def tree_pss(process: psutil.Process) -> int:
    """Bytes of PSS of ``process`` and all its descendants (processes that vanish meanwhile are skipped)."""
    total = 0
    for member in [process, *process.children(recursive=True)]:
        try:
            total += member.memory_full_info().pss
        except psutil.Error:
            continue
    return total


def measure(n_spans: int, max_elements: int, max_renderer_mb: int) -> tuple[str, float, float]:
    """Render the page of ``n_spans`` spans; returns (error or "", peak tree PSS in MB, seconds)."""
    html = "<html><body><h1>Title Here</h1>" + "".join(f"<span>w{i} </span>" for i in range(n_spans)) + "</body></html>"
    peak, done = 0, threading.Event()
    me = psutil.Process()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_pss(me))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    started = time.perf_counter()
    try:
        with Renderer(RenderSettings(timeout_s=600, retries=0, max_elements=max_elements,
                                     max_renderer_mb=max_renderer_mb)) as renderer:
            [outcome] = list(renderer.render([Page("s", "a.html", "http://s.test/a.html", html)]))
    finally:
        done.set()
        sampler.join()
    return outcome.error, peak / 2**20, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("n_spans", type=int, nargs="+", help="spans of each page measured")
    parser.add_argument("--max-elements", type=int, default=MAX_ELEMENTS)
    parser.add_argument("--max-renderer-mb", type=int, default=default_max_renderer_mb())
    args = parser.parse_args(argv)
    print(f"max_elements {args.max_elements}, max_renderer_mb {args.max_renderer_mb}")
    print("| spans | peak PSS of the process tree (MB) | seconds | error |")
    print("|---:|---:|---:|---|")
    for n_spans in args.n_spans:
        error, peak_mb, seconds = measure(n_spans, args.max_elements, args.max_renderer_mb)
        print(f"| {n_spans} | {peak_mb:.0f} | {seconds:.1f} | {error[:160]} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
