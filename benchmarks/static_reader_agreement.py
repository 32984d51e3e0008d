"""Agreement of the static page reader with the Chromium renderer, and its time per page.

For each corpus (the embedded sample shop; the first ``-n`` christianbook pages and the
readability-realworld pages from the shared datasets beside the repository), the pages are rendered
through the render cache (``--cache-dir``; Chromium starts only for pages not in it) and read
statically (:func:`mainentity.render.static.read_static`, linked style sheets from the page's dump).
Prints, over the rendering's visible blocks: the share matched by a visible static block of the same
``(dom_path, text)``; among the matched, the shares with equal font size (within 0.5 CSS px), equal
``bold`` and equal ``heading_level``; the share of static visible blocks that match (precision); over
all blocks, the share matched with the same ``hidden`` flag; the share of segments matched by kind,
``dom_path`` and text; and the static read time in CPU ms per page (median and mean, one pass after a
warm-up pass, so a site's style sheets are already compiled).

Usage::

    python benchmarks/static_reader_agreement.py [-n 100] [--cache-dir DIR] [--corpus sample-shop ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import astuple, fields
from pathlib import Path

from render_cost import SHARED

from mainentity.render import RenderSettings, render_pages
from mainentity.render.static import read_static
from mainentity.render.static_agreement import Agreement, agreement
from mainentity.sitedump import SubresourceSources, read_site_dump

REPO = Path(__file__).resolve().parents[1]
CORPORA = {
    "sample-shop": [REPO / "datasets" / "sample-shop" / "sites" / "sample-shop"],
    "christianbook": [SHARED / "swde-book-christianbook" / "sites" / "christianbook"],
    "readability": sorted((SHARED / "readability-realworld" / "sites").glob("*")),
}


def read_corpus(name: str, n_pages: int) -> list:
    """The corpus's site dumps (the first ``n_pages`` pages of christianbook)."""
    return [read_site_dump(site_dir, max_pages=n_pages if name == "christianbook" else None)
            for site_dir in CORPORA[name]]


def measure(dumps: list, cache_dir: str) -> tuple[Agreement, list[float], int]:
    """Summed agreement over the dumps' pages, static read times (ms) and the number of pages left out: failed
    to render, or left to the renderer by the static reader (text set in positioned lines)."""
    sources = SubresourceSources.of_dumps(dumps)
    pages = [page for dump in dumps for page in dump.pages]
    rendered = {o.page.path + o.page.site_id: o.rendered
                for o in render_pages(pages, RenderSettings(), cache_dir, subresources=sources)}
    files = [sources.for_page(page) for page in pages]
    for page, source in zip(pages, files, strict=True):  # warm-up pass: imports, caches
        try:
            read_static(page, source)
        except ValueError:
            pass
    totals, times, n_failed = [0] * len(fields(Agreement)), [], 0
    for page, source in zip(pages, files, strict=True):
        start = time.process_time()
        try:
            static = read_static(page, source)
        except ValueError:  # left to the renderer
            static = None
        times.append((time.process_time() - start) * 1000)
        reference = rendered[page.path + page.site_id]
        if reference is None or static is None:
            n_failed += 1
            continue
        totals = [a + b for a, b in zip(totals, astuple(agreement(static, reference)), strict=True)]
    return Agreement(*totals), times, n_failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100, help="christianbook pages (default 100)")
    parser.add_argument("--cache-dir", help="render cache directory (default: a temporary one)")
    parser.add_argument("--corpus", nargs="+", choices=sorted(CORPORA), default=list(CORPORA))
    args = parser.parse_args(argv)
    cache_dir = args.cache_dir or tempfile.mkdtemp(prefix="render-cache-")
    print(f"{'corpus':<14}{'pages':>6}{'visible':>9}{'matched':>9}{'size':>8}{'bold':>8}{'level':>8}"
          f"{'precision':>10}{'hidden':>8}{'segments':>9}{'ms median':>10}{'ms mean':>9}")
    for name in args.corpus:
        dumps = read_corpus(name, args.n)
        pages = [page for dump in dumps for page in dump.pages]
        result, times, n_failed = measure(dumps, cache_dir)
        matched = max(result.n_matched, 1)
        print(
            f"{name:<14}{len(pages):>6}{result.n_visible:>9}{result.n_matched / max(result.n_visible, 1):>9.4f}"
            f"{result.n_font_size / matched:>8.4f}{result.n_bold / matched:>8.4f}"
            f"{result.n_heading_level / matched:>8.4f}{result.n_matched / max(result.n_static_visible, 1):>10.4f}"
            f"{result.n_blocks_matched / max(result.n_blocks, 1):>8.4f}"
            f"{result.n_segments_matched / max(result.n_segments, 1):>9.4f}"
            f"{statistics.median(times):>10.2f}{statistics.mean(times):>9.2f}"
            + (f"  ({n_failed} pages failed to render or left to the renderer)" if n_failed else "")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
