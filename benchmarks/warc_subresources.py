"""What serving a WARC input's stylesheets, fonts and images costs: reading time, client memory, task size.

A WARC file of one host is written with warcio (``datasets/make_sample_warc.py``'s ``write_response``):
``--pages`` small HTML pages, one stylesheet and ``--images`` incompressible images of ``--image-kb`` KB
each. :func:`mainentity.warc.read_warcs` keeps only where each image lies, so the client's memory must
not grow with the images' bytes, and a cluster task carries the site's record list, not the bytes.
Printed: the file size, the reading time (best of ``--repeat``), the peak Python memory while reading
(tracemalloc), the pickled size of the site's :class:`~mainentity.warc.WarcSubresources`, and the time
to serve the stylesheet (first read from the file, then from the in-memory copy) and every image once.

Usage::

    python benchmarks/warc_subresources.py [--pages 200] [--images 2000] [--image-kb 30] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import os
import pickle
import platform
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from warc_readers import load_sample_warc_maker  # this script's folder is first on the path

REPO = Path(__file__).resolve().parents[1]


def write_crawl(path: Path, n_pages: int, n_images: int, image_kb: int) -> None:
    from warcio.warcwriter import WARCWriter

    maker = load_sample_warc_maker()
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        number = 1
        for i in range(n_pages):
            body = (f'<!doctype html><link rel="stylesheet" href="/site.css"><h1>Page {i}</h1>'
                    f'<img src="/img/{i % max(n_images, 1)}.jpg"><p>Text of page {i}.</p>').encode()
            maker.write_response(writer, f"https://big.example/p/{i}.html", "200 OK", "text/html", body, number)
            number += 2
        maker.write_response(writer, "https://big.example/site.css", "200 OK", "text/css",
                             b"h1 { font-size: 40px }", number)
        number += 2
        for i in range(n_images):
            maker.write_response(writer, f"https://big.example/img/{i}.jpg", "200 OK", "image/jpeg",
                                 os.urandom(image_kb * 1024), number)
            number += 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--image-kb", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, help="also write the figures to this Markdown file")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from mainentity.sitedump import SubresourceSources
    from mainentity.warc import read_warcs

    with tempfile.TemporaryDirectory() as tmp:
        warc = Path(tmp) / "big.warc.gz"
        write_crawl(warc, args.pages, args.images, args.image_kb)
        seconds = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            warc_input = read_warcs([warc])
            seconds.append(time.perf_counter() - started)
        tracemalloc.start()
        warc_input = read_warcs([warc])
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        [site] = warc_input.sites
        page = site.pages[0]
        files = SubresourceSources(warc_input.subresources).for_page(page)
        task_bytes = len(pickle.dumps(warc_input.subresources[site.site_id]))
        started = time.perf_counter()
        files.find("https://big.example/site.css")
        first_read = time.perf_counter() - started
        started = time.perf_counter()
        files.find("https://big.example/site.css")
        memo_read = time.perf_counter() - started
        started = time.perf_counter()
        n_served = sum(files.find(f"https://big.example/img/{i}.jpg") is not None for i in range(args.images))
        all_images = time.perf_counter() - started
        size_mb = warc.stat().st_size / 2**20

    counts = warc_input.counts
    lines = [
        "# Serving a WARC input's stylesheets, fonts and images: cost",
        "",
        f"`python benchmarks/warc_subresources.py --pages {args.pages} --images {args.images} "
        f"--image-kb {args.image_kb}`; {platform.processor() or platform.machine()}, load average "
        f"{os.getloadavg()[0]:.1f}.",
        "",
        "| figure | value |",
        "| --- | --- |",
        f"| WARC file (gzipped records) | {size_mb:.1f} MB: {counts.n_pages} pages, {counts.n_subresources} "
        f"stylesheet and images ({args.images * args.image_kb / 1024:.1f} MB of images) |",
        f"| read_warcs, best of {args.repeat} | {min(seconds):.2f} s |",
        f"| peak Python memory while reading (tracemalloc) | {peak / 2**20:.1f} MB |",
        f"| pickled WarcSubresources of the site (what a task carries) | {task_bytes / 1024:.0f} KB "
        f"({task_bytes / max(counts.n_subresources, 1):.0f} bytes a record) |",
        f"| stylesheet served: first read / from memory | {first_read * 1000:.2f} ms / {memo_read * 1000:.3f} ms |",
        f"| every image served once ({n_served}) | {all_images:.2f} s ({all_images / max(n_served, 1) * 1000:.2f} "
        "ms each) |",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
