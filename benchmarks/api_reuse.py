"""Latency of ``mainentity.extract``: the first call, the second (the browser reused), and a browser per call.

Prints, for the pages of the sample shop given as ``(url, bytes)`` (a crawler's view), rendered with an
empty render cache (a fresh ``XDG_CACHE_HOME``, so every call renders its page):

- the first ``mainentity.extract`` of the process: loading the general model, starting Chromium,
  rendering and predicting the page;
- the second call, on another page: rendering and predicting in the browser the first call started;
- the median and 90th percentile of the next ``n`` calls (browser reused);
- the median of ``n`` calls with the model already loaded but its browser closed after every call
  (``Model.close()``), i.e. what each call would cost without reuse;
- the median of ``n`` calls on pages already in the render cache (no browser work at all).

Seconds of wall time on a shared machine: the load average is printed before and after.

Usage::

    python benchmarks/api_reuse.py [-n 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

SHOP_SITE = Path(__file__).resolve().parents[1] / "datasets" / "sample-shop" / "sites" / "sample-shop"


def shop_pages() -> list[tuple[str, bytes]]:
    rows = [json.loads(line) for line in (SHOP_SITE / "manifest.jsonl").read_text(encoding="utf-8").splitlines()]
    return [(row["url"], (SHOP_SITE / row["path"]).read_bytes()) for row in rows]


def timed(call) -> tuple[float, object]:
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def summary(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):.3f} s, p90 {p90:.3f} s over {len(ordered)} calls"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--n-calls", type=int, default=15, help="calls per measured series")
    args = parser.parse_args(argv)
    pages = shop_pages()
    if 2 + 2 * args.n_calls > len(pages):
        parser.error(f"-n at most {(len(pages) - 2) // 2}: the sample shop has {len(pages)} pages")

    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="api-reuse-")  # the per-user render cache, empty
    print(f"{len(pages)} sample-shop pages; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    start = time.perf_counter()
    import mainentity

    print(f"import mainentity: {time.perf_counter() - start:.3f} s")
    (url, html), (second_url, second_html), *rest = pages
    first_s, first = timed(lambda: mainentity.extract(html, url))
    second_s, second = timed(lambda: mainentity.extract(second_html, second_url))
    print(f"extract, first call (loads the general model, starts Chromium, renders): {first_s:.3f} s "
          f"-> {first.main_entity!r}")
    print(f"extract, second call (same browser, another page): {second_s:.3f} s -> {second.main_entity!r}")

    reused = [timed(lambda u=u, h=h: mainentity.extract(h, u))[0] for u, h in rest[: args.n_calls]]
    print(f"extract, browser reused: {summary(reused)}")
    cached = [timed(lambda u=u, h=h: mainentity.extract(h, u))[0] for u, h in rest[: args.n_calls]]
    print(f"extract, page in the render cache (no browser work): {summary(cached)}")

    with mainentity.load_model() as model:
        fresh = []
        for u, h in rest[args.n_calls : 2 * args.n_calls]:
            fresh.append(timed(lambda u=u, h=h: model.extract(h, u))[0])
            model.close()
    print(f"extract, a new browser for every call (model loaded, browser closed after each): {summary(fresh)}")
    ratio = statistics.median(fresh) / statistics.median(reused)
    print(f"reusing the browser: {ratio:.1f}x faster per page than a browser per call")
    print(f"load average at the end {os.getloadavg()[0]:.1f} (shared machine: wall times vary)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
