"""How many pages ``render.javascript: auto`` renders a second time, with their scripts on, and what it costs.

For each corpus (the christianbook pages and the readability-realworld pages from the shared datasets beside
the repository), the pages are rendered with scripts off through the render cache (``--cache-dir``, default
the per-user one, so pages rendered before are not rendered again) and
:func:`mainentity.render.scripts.unfinished_reason` is asked of each: the pages it names are the ones
``auto`` renders again. Prints the share per corpus, the reasons, and the CPU milliseconds per page of
that check (all the work ``auto`` adds to a page it does not render again). The issue's target: at most
5% of the pages.

With ``--cost``, each corpus is also rendered twice from a cold render cache (a temporary one each time),
once with ``javascript: false`` and once with ``auto``, each in a process of its own: the CPU seconds of
the process tree (Chromium included) and the wall seconds of each, and their ratio (target: auto at most
5% more). Then pages whose scripts never finish (a ``while (true)`` loop, a ``requestAnimationFrame`` loop
that keeps a loading placeholder) are rendered with ``auto``: the extra wall time over ``false`` must stay
within the render timeout, and the first rendering must be kept. Both are figures, not tests: the
machine's load moves them.

Usage::

    python benchmarks/render_scripts.py [-n 1000] [--cache-dir DIR] [--cost] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from render_cost import SHARED

from mainentity.config import default_cache_dir
from mainentity.records import Page
from mainentity.render import RenderSettings, render_pages
from mainentity.render.scripts import unfinished_reason
from mainentity.sitedump import SubresourceSources, read_site_dump

CORPORA = {
    "christianbook": [SHARED / "swde-book-christianbook" / "sites" / "christianbook"],
    "readability": sorted((SHARED / "readability-realworld" / "sites").glob("*")),
}

#: Render timeout of the never-finishing pages, in seconds.
LOOP_TIMEOUT_S = 10.0

_SKELETON = ("<!DOCTYPE html><html><head><title>Careers</title></head><body><header>Northport</header>"
             "<div id='app'><div class='skeleton-line'>Loading...</div></div>"
             "<noscript>You need to enable JavaScript to run this app.</noscript>"
             "<script id='__NEXT_DATA__' type='application/json'>{\"job\": {\"title\": \"Crane operator\"}}</script>"
             "{script}</body></html>")
NEVER_FINISHING = {
    "loops.htm": "<script>while (true) {}</script>",
    "frames.htm": "<script>(function spin() { document.title = 'Loading ' + performance.now();"
                  " requestAnimationFrame(spin); })();</script>",
}


def corpus_pages(name: str, n: int) -> tuple[list[Page], SubresourceSources]:
    """The pages of one corpus (at most ``n`` christianbook pages) and what serves their subresources."""
    dumps = [read_site_dump(d, max_pages=n if name == "christianbook" else None) for d in CORPORA[name]]
    return [page for dump in dumps for page in dump.pages], SubresourceSources.of_dumps(dumps)


def count_again(n: int, cache_dir: str) -> None:
    """Print, per corpus, how many pages ``auto`` renders again and why, and the check's CPU ms per page."""
    print(f"{'corpus':<14}{'pages':>6}{'again':>7}{'share':>8}{'check ms':>10}  reasons")
    for name in CORPORA:
        pages, sources = corpus_pages(name, n)
        reasons, check_s = Counter(), 0.0
        for outcome in render_pages(pages, RenderSettings(), cache_dir, subresources=sources):
            started = time.process_time()
            reason = unfinished_reason(outcome.page, outcome.rendered) if outcome.rendered is not None else ""
            check_s += time.process_time() - started
            if reason:
                reasons[reason.split("; ", 1)[1]] += 1
        n_again = sum(reasons.values())
        print(f"{name:<14}{len(pages):>6}{n_again:>7}{n_again / max(len(pages), 1):>8.3f}"
              f"{1000 * check_s / max(len(pages), 1):>10.3f}  {dict(reasons)}")


def render_once(name: str, javascript: str, n: int, cache_dir: str) -> None:
    """Render one corpus into ``cache_dir`` (run in a process of its own); print the pages kept with
    scripts on and the failures as JSON."""
    pages, sources = corpus_pages(name, n)
    settings = RenderSettings(javascript="auto" if javascript == "auto" else False)
    outcomes = list(render_pages(pages, settings, cache_dir, subresources=sources))
    print(json.dumps({"scripts": sum(1 for o in outcomes if o.scripts), "failed": sum(1 for o in outcomes if o.error)}))


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(name: str, javascript: str, n: int) -> dict:
    """CPU seconds (process tree) and wall seconds of rendering one corpus from a cold cache."""
    with tempfile.TemporaryDirectory() as cache:
        before, started = children_cpu(), time.perf_counter()
        done = subprocess.run([sys.executable, __file__, "--render-once", name, javascript, "-n", str(n),
                               "--cache-dir", cache], check=True, capture_output=True, text=True)
        cpu, wall = children_cpu() - before, time.perf_counter() - started
    return {"cpu_s": cpu, "wall_s": wall, **json.loads(done.stdout.strip().splitlines()[-1])}


def loop_costs() -> list[str]:
    """Rows of the never-finishing pages: wall seconds with scripts off and with ``auto``, and whether
    the first rendering was kept."""
    rows = []
    for path, script in NEVER_FINISHING.items():
        page = Page("loops", path, f"https://jobs.example/{path}", _SKELETON.replace("{script}", script))
        walls, kept = {}, False
        for javascript in (False, "auto"):
            with tempfile.TemporaryDirectory() as cache:
                started = time.perf_counter()
                settings = RenderSettings(javascript=javascript, timeout_s=LOOP_TIMEOUT_S)
                (outcome,) = render_pages([page], settings, cache)
                walls[javascript] = time.perf_counter() - started
                kept = outcome.error == "" and outcome.scripts == "" and "Loading..." in [
                    b.text for b in outcome.rendered.blocks]
        extra = walls["auto"] - walls[False]
        rows.append(f"| {path} | {walls[False]:.1f} | {walls['auto']:.1f} | {extra:.1f} | {LOOP_TIMEOUT_S:g} | "
                    f"{'yes' if kept else 'no'} |")
    return rows


def cost_table(n: int) -> list[str]:
    """The markdown tables of ``--cost``."""
    lines = ["| corpus | pages | javascript | CPU s | wall s | kept with scripts on | failed |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: |"]
    ratios = []
    for name in CORPORA:
        n_pages = len(corpus_pages(name, n)[0])
        results = {javascript: measure(name, javascript, n) for javascript in ("false", "auto")}
        for javascript, r in results.items():
            lines.append(f"| {name} | {n_pages} | {javascript} | {r['cpu_s']:.1f} | {r['wall_s']:.1f} | "
                         f"{r['scripts']} | {r['failed']} |")
        ratios.append(f"| {name} | {results['auto']['cpu_s'] / results['false']['cpu_s']:.3f} | "
                      f"{results['auto']['wall_s'] / results['false']['wall_s']:.3f} |")
    lines += ["", "| corpus | auto / false, CPU | auto / false, wall |", "| --- | ---: | ---: |", *ratios]
    lines += ["", "| never-finishing page | wall s, false | wall s, auto | extra s | timeout s | "
              "first rendering kept |"]
    lines += ["| --- | ---: | ---: | ---: | ---: | --- |", *loop_costs()]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1000, help="christianbook pages (default 1000)")
    parser.add_argument("--cache-dir", default=None, help="render cache directory (default: the per-user one)")
    parser.add_argument("--cost", action="store_true", help="also time false against auto from cold caches")
    parser.add_argument("--markdown", default=None, help="write the --cost tables to this file")
    parser.add_argument("--render-once", nargs=2, metavar=("CORPUS", "JAVASCRIPT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.render_once:
        render_once(*args.render_once, args.n, args.cache_dir)
        return 0
    count_again(args.n, args.cache_dir or default_cache_dir())
    if args.cost:
        load = os.getloadavg()[0]
        lines = cost_table(args.n)
        command = "python benchmarks/render_scripts.py --cost" + (f" -n {args.n}" if args.n != 1000 else "")
        header = ["# Scripts on demand: what `render.javascript: auto` costs over `false`", "",
                  f"`{command}` (load average at the end {os.getloadavg()[0]:.1f}, at the start {load:.1f}, on "
                  f"{os.cpu_count()} cores; a cold render cache per run; CPU of the whole process tree).", ""]
        text = "\n".join(header + lines) + "\n"
        print(text)
        if args.markdown:
            Path(args.markdown).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
