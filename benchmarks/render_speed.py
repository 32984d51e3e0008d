"""Render speed on SWDE pages: warm browser (no cache), then cache writes and reads.

Target (issue 5): at least 5 pages/s rendered with a warm browser on a 2-core machine; cache reads
well under 5 ms per page.

Usage::

    python benchmarks/render_speed.py [-n 200] [--concurrency 4] [--pages-dir DIR]

Reads the pages from the shared dataset at run time (nothing is copied). Prints pages/s, mean text
blocks per page and CPU seconds per page (this process plus its children: Playwright's driver and
Chromium), which is less sensitive than wall time to other load on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from mainentity.records import Page
from mainentity.render import RenderCache, Renderer, RenderSettings

DEFAULT_SITE = Path("/work/shared/datasets/swde-book-christianbook/sites/christianbook")


def load_pages(site_dir: Path, n_pages: int) -> list[Page]:
    """The first ``n_pages`` pages of a dataset site (manifest order), decoded as UTF-8."""
    pages = []
    with open(site_dir / "manifest.jsonl", encoding="utf-8") as manifest:
        for line in manifest:
            entry = json.loads(line)
            html = (site_dir / entry["path"]).read_bytes().decode("utf-8-sig", errors="replace")
            pages.append(Page(site_dir.name, entry["path"], entry["url"], html, tuple(entry["main_entity"])))
            if len(pages) == n_pages:
                break
    return pages


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its live descendants (from /proc)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    total = own.ru_utime + own.ru_stime
    children: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        ticks[int(entry)] = int(fields[11]) + int(fields[12])
    stack = [os.getpid()]
    while stack:
        for child in children.get(stack.pop(), []):
            total += ticks[child] / os.sysconf("SC_CLK_TCK")
            stack.append(child)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--n-pages", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--site-dir", type=Path, default=DEFAULT_SITE)
    args = parser.parse_args(argv)

    pages = load_pages(args.site_dir, args.n_pages)
    settings = RenderSettings(concurrency=args.concurrency)
    print(f"{len(pages)} pages from {args.site_dir}")
    print(f"concurrency {settings.concurrency}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    with Renderer(settings) as renderer:
        list(renderer.render(pages[: 2 * settings.concurrency]))  # warm up: tabs open, caches filled
        cpu0, start = cpu_seconds(), time.perf_counter()
        outcomes = list(renderer.render(pages))
        elapsed, cpu = time.perf_counter() - start, cpu_seconds() - cpu0
    failed = [o.error for o in outcomes if o.error]
    n_blocks = [len(o.rendered.blocks) for o in outcomes if o.rendered is not None]
    print(
        f"render (warm browser, no cache): {len(pages) / elapsed:.2f} pages/s, "
        f"{sum(n_blocks) / max(len(n_blocks), 1):.0f} blocks/page, "
        f"{cpu / len(pages) * 1000:.0f} ms CPU/page, "
        f"{len(failed)} failed"
    )
    for error in failed[:5]:
        print("  ", error)

    with tempfile.TemporaryDirectory() as cache_dir:
        cache = RenderCache(cache_dir)
        done = [o for o in outcomes if o.rendered is not None]
        start = time.perf_counter()
        for o in done:
            cache.put(o, settings)
        write_s = time.perf_counter() - start
        start = time.perf_counter()
        hits = [cache.get(o.page, settings) for o in done]
        read_s = time.perf_counter() - start
        if any(hit != o for hit, o in zip(hits, done, strict=True)):
            raise RuntimeError("a cache read differs from what was written")
        size = sum(f.stat().st_size for f in Path(cache_dir).rglob("*.json.gz"))
    n = max(len(done), 1)
    print(
        f"cache: write {write_s / n * 1000:.2f} ms/page, read {read_s / n * 1000:.2f} ms/page "
        f"({n / read_s:.0f} pages/s, {sum(len(h.rendered.blocks) for h in hits) / n:.0f} blocks/page), "
        f"{size / n / 1024:.1f} KiB/page"
    )
    print(f"load average at the end {os.getloadavg()[0]:.1f} (shared machine: wall times vary)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
