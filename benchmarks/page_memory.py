"""Peak memory of the whole process tree answering one big page: ``predict`` under each render policy and
``mainentity.extract``.

Each measurement runs in a fresh process with an empty render cache (``python -m mainentity predict PAGE
--render auto|always`` or a ``python -c`` calling :func:`mainentity.extract` on the page's text), and the
benchmark samples, every 50 ms,
:func:`mainentity.comparison.compare.process_tree_rss_mb` of that process: its resident set size plus the
proportional set size of each live descendant (Chromium's processes, shared pages split between them).
Short spikes between two samples can be missed. The pages are the shapes that once took gigabytes:

- ``1M spans``: ``<h1>`` and 1 000 000 ``<span>w<i> </span>`` (17 MB; over the element limit,
  :data:`mainentity.text.MAX_ELEMENTS`);
- ``50 MB word``: one 50 000 000-letter word in a ``<p>`` (over the text limit,
  :data:`mainentity.text.MAX_TEXT_CHARS`, and just under the byte limit of a page file);
- ``20 000 deep``: a heading inside 20 000 nested ``<div>``;
- ``60 000 blocks``: a heading and 60 000 paragraphs of five words;
- ``99 997 blocks``: a heading and 99 997 paragraphs of two words, at the element limit (100 000 start
  tags with ``<html>``, ``<body>`` and ``<h1>``) and under the text limit: the largest page either policy
  reads.

With ``--dump DIR`` it measures ``predict DIR`` instead (a site dump or a dataset, e.g. the 2000 pages of
booksamillion, whose peak the cost issue bounds at 1.5 GB), for ``--ways`` auto and always.

Usage::

    python benchmarks/page_memory.py                      # every shape, every way
    python benchmarks/page_memory.py --shapes "50 MB word" --ways extract
    python benchmarks/page_memory.py --dump ../shared/datasets/swde-book-booksamillion --ways auto
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from mainentity.comparison.compare import process_tree_rss_mb
from mainentity.config import CACHE_DIR_ENV

URL = "https://big.example/page"
SHAPES = {
    "1M spans": lambda: "<html><body><h1>Title Here</h1>" + "".join(f"<span>w{i} </span>" for i in range(10**6))
    + "</body></html>",
    "50 MB word": lambda: "<html><body><h1>Title Here</h1><p>" + "w" * 50_000_000 + "</p></body></html>",
    "20 000 deep": lambda: "<html><body>" + "<div>" * 20_000 + "<h1>Title Here</h1><p>Deep text.</p>"
    + "</div>" * 20_000 + "</body></html>",
    "60 000 blocks": lambda: "<html><body><h1>Title Here</h1>"
    + "".join(f"<p>Paragraph {i} of the page.</p>" for i in range(60_000)) + "</body></html>",
    "99 997 blocks": lambda: "<html><body><h1>Title Here</h1>"
    + "".join(f"<p>P{i} text.</p>" for i in range(99_997)) + "</body></html>",
}
EXTRACT = ("import sys, mainentity; html = open(sys.argv[1], encoding='utf-8').read()\n"
           "try:\n    print(mainentity.extract(html, sys.argv[2]).error or 'answered')\n"
           "except ValueError as error:\n    print(error)")
WAYS = ("auto", "always", "extract")


def command(way: str, page: Path, out: Path) -> list[str]:
    """The command that answers ``page`` (a page file, or a dump read with its own URLs) the ``way`` named."""
    if way == "extract":
        return [sys.executable, "-c", EXTRACT, str(page), URL]
    base_url = [] if page.is_dir() else ["--base-url", URL]
    return [sys.executable, "-m", "mainentity", "predict", str(page), *base_url, "--render", way,
            "-o", str(out), "--overwrite"]


def measure(argv: list[str], out: Path, cache_dir: Path) -> tuple[float, float, str]:
    """Run ``argv`` with an empty render cache in ``cache_dir``; returns (peak MB of its process tree,
    seconds, what it answered: the row's error or answer, or the last line it printed)."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, CACHE_DIR_ENV: str(cache_dir)})
    peak, done = 0.0, threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            rss = process_tree_rss_mb(process.pid)
            if rss == rss:  # NaN once the process is gone
                peak = max(peak, rss)
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    output, _ = process.communicate()
    done.set()
    sampler.join()
    seconds = time.perf_counter() - started
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").split("\n") if line] if out.exists() else []
    answer = (rows[0]["error"] or f"answered: {rows[0]['main_entity']!r}") if rows else output.strip().split("\n")[-1]
    return peak, seconds, answer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--shapes", nargs="+", choices=sorted(SHAPES), default=list(SHAPES))
    parser.add_argument("--ways", nargs="+", choices=WAYS, default=list(WAYS))
    parser.add_argument("--dump", type=Path, help="measure predict on this site dump or dataset instead")
    args = parser.parse_args(argv)
    print("| page | bytes | way | peak memory of the process tree (MB) | seconds | answer |")
    print("|---|---:|---|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        if args.dump is not None:
            n_bytes = sum(file.stat().st_size for file in args.dump.rglob("*") if file.is_file())
            for way in [way for way in args.ways if way != "extract"]:
                out = Path(tmp) / "rows.jsonl"
                peak, seconds, answer = measure(command(way, args.dump, out), out, Path(tmp) / f"cache-{way}")
                print(f"| {args.dump.name} | {n_bytes} | {way} | {peak:.0f} | {seconds:.1f} | first row "
                      f"{answer[:100]} |", flush=True)
            return 0
        for shape in args.shapes:
            page = Path(tmp) / "page.html"
            page.write_text(SHAPES[shape](), encoding="utf-8")
            for way in args.ways:
                out = Path(tmp) / "rows.jsonl"
                out.unlink(missing_ok=True)
                peak, seconds, answer = measure(command(way, page, out), out, Path(tmp) / f"cache-{shape}-{way}")
                print(f"| {shape} | {page.stat().st_size} | {way} | {peak:.0f} | {seconds:.1f} | {answer[:120]} |",
                      flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
