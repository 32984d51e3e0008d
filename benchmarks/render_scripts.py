"""How many pages ``render.javascript: auto`` renders a second time, with their scripts on.

For each corpus (the christianbook pages and the readability-realworld pages from the shared datasets beside
the repository), the pages are rendered with scripts off through the render cache (``--cache-dir``, default
the per-user one, so pages rendered before are not rendered again) and
:func:`mainentity.render.scripts.unfinished_reason` is asked of each: the pages it names are the ones
``auto`` renders again. Prints the share per corpus and the reasons. The issue's target: at most 5%.

Usage::

    python benchmarks/render_scripts.py [-n 1000] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from mainentity.config import default_cache_dir
from mainentity.render import RenderSettings, render_pages
from mainentity.render.scripts import unfinished_reason
from mainentity.sitedump import SubresourceSources, read_site_dump

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
CORPORA = {
    "christianbook": [SHARED / "swde-book-christianbook" / "sites" / "christianbook"],
    "readability": sorted((SHARED / "readability-realworld" / "sites").glob("*")),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1000, help="christianbook pages (default 1000)")
    parser.add_argument("--cache-dir", default=None, help="render cache directory (default: the per-user one)")
    args = parser.parse_args(argv)
    print(f"{'corpus':<14}{'pages':>6}{'again':>7}{'share':>8}  reasons")
    for name, site_dirs in CORPORA.items():
        dumps = [read_site_dump(d, max_pages=args.n if name == "christianbook" else None) for d in site_dirs]
        sources = SubresourceSources.of_dumps(dumps)
        pages = [page for dump in dumps for page in dump.pages]
        reasons = Counter()
        for outcome in render_pages(pages, RenderSettings(), args.cache_dir or default_cache_dir(),
                                    subresources=sources):
            reason = unfinished_reason(outcome.page, outcome.rendered) if outcome.rendered is not None else ""
            if reason:
                reasons[reason.split("; ", 1)[1]] += 1
        n_again = sum(reasons.values())
        print(f"{name:<14}{len(pages):>6}{n_again:>7}{n_again / max(len(pages), 1):>8.3f}  {dict(reasons)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
