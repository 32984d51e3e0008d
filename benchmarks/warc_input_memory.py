"""Memory the command's process holds for the pages of a WARC input, per page.

``predict`` reads every page's HTML (:func:`mainentity.warc.read_warcs`) before its first task, in its
own process, also on a cluster. This writes the pages of a site dump (default: christianbook's 1000
pages) into a WARC file with warcio's writer (``datasets/make_sample_warc.py``), reads it with
:func:`mainentity.loading.load_pages` (the WARC read and the link graph, as ``predict`` does) and
reports what Python allocated and still holds afterwards, per page (``tracemalloc``), and at the peak.

Usage::

    python benchmarks/warc_input_memory.py [--dataset DIR] [--out benchmarks/results/warc_input_memory.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import tracemalloc
from pathlib import Path

from warc_readers import load_sample_warc_maker

DEFAULT_DATASET = "../shared/datasets/swde-book-christianbook"


def write_site_as_warc(site_dir: Path, out: Path) -> int:
    """Write the pages of ``site_dir``'s manifest as ``text/html`` responses; returns their total bytes."""
    from warcio.warcwriter import WARCWriter

    maker = load_sample_warc_maker()
    n_bytes = 0
    with out.open("wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        lines = (site_dir / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
        for number, entry in enumerate(json.loads(line) for line in lines if line.strip()):
            body = (site_dir / entry["path"]).read_bytes()
            n_bytes += len(body)
            maker.write_response(writer, entry["url"], "200 OK", "text/html", body, 2 * number + 1)
    return n_bytes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default=DEFAULT_DATASET, help="a dataset whose first site is written")
    parser.add_argument("--out", help="also write the figures as Markdown to this file")
    args = parser.parse_args(argv)
    from mainentity.loading import load_pages

    site_dir = sorted((Path(args.dataset) / "sites").iterdir())[0]
    with tempfile.TemporaryDirectory() as folder:
        warc = Path(folder) / "site.warc.gz"
        n_bytes = write_site_as_warc(site_dir, warc)
        tracemalloc.start()
        loaded = load_pages([str(warc)])
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    n_pages = len(loaded.pages)
    lines = [
        f"{site_dir} as one WARC file: {n_pages} pages, {n_bytes / n_pages / 1e3:.1f} KB of HTML each "
        f"on disk (before gzip)",
        "",
        f"- held by the pages after `load_pages` (WARC read and link graph): {held / n_pages / 1e3:.1f} KB per page",
        f"- peak while reading: {peak / n_pages / 1e3:.1f} KB per page",
        f"- so a million such pages: about {held / n_pages / 1e3:.0f} GB held in the command's process",
    ]
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text(
            "# Memory of a WARC input in the command's process\n\n"
            f"`python benchmarks/warc_input_memory.py --out {args.out}`\n\n" + "\n".join(lines) + "\n",
            encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
