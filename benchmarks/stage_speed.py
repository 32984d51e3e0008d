"""Speed of each stage on pages of a shared dataset: pages/s and peak RSS (this process and its children).

Stages, each timed on the same ``-n`` pages of one site:

=========================  =============================================================================
floor (set_content)        Playwright ``set_content`` + one layout read per page, no block extraction,
                           same Chromium switches, one context per tab, same concurrency, warm browser
render (warm browser)      our :class:`~mainentity.render.Renderer`: load + ``blocks.js`` text blocks
block extraction           derived: pages / (render seconds - floor seconds)
render (cold cache)        :func:`~mainentity.render.cache.render_pages` into an empty cache (browser
                           start and cache writes included)
render (warm cache)        the same call again: cache reads only
cleaning (SST)             fit a site style tree on the pages and clean them (Yi et al. 2003)
features                   textblock and anchor-text features of every visible block
model prediction           MS-RBFN o_1 - o_2 of every block, features given
end to end (warm cache)    cache read + features + prediction through ``pipeline.predict_pages``
<peer>                     each installed peer's ``predict`` on the pages' HTML
=========================  =============================================================================

MS-RBFN training (2/3 of the pages, warm cache) is reported in seconds. Targets (issue 5, 2-core
machine): render >= 5 pages/s with a warm browser and within 1.3x of the floor's time; end to end with a
warm cache >= 200 pages/s for the MS-RBFN; MS-RBFN training on the 2/3 christianbook split (~670 pages,
``-n 1000``) under 60 s.

Peak RSS is sampled every 5 ms (:class:`mainentity.comparison.compare.PeakRSS`) over this process and its
live children (Playwright's driver, Chromium, node) and includes what earlier stages left in memory.

Usage::

    python benchmarks/stage_speed.py [-n 100] [--concurrency 4] \\
        [--dataset ../shared/datasets/swde-book-christianbook] [--anchor-url-pattern '/pd/(\\d+)'] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from mainentity._files import write_text_atomic
from mainentity.cleaning import make_cleaner
from mainentity.comparison.compare import PeakRSS, tool_versions
from mainentity.config import Config, RenderConfig
from mainentity.evaluation.report import markdown_table
from mainentity.loading import load_pages
from mainentity.model_store import TrainedModel
from mainentity.pipeline import RenderedDocuments, predict_pages
from mainentity.recognizers.base import make_recognizer
from mainentity.recognizers.msrbfn import MSRBFNRecognizer, page_features
from mainentity.recognizers.peers import PEER_NAMES, PeerUnavailableError
from mainentity.records import Document, Page
from mainentity.render import Renderer, RenderSettings
from mainentity.render.cache import render_pages
from mainentity.render.settings import check_executable, chromium_args

DEFAULT_DATASET = "../shared/datasets/swde-book-christianbook"
_LAYOUT_READ = "document.documentElement.getBoundingClientRect().height + document.body.scrollHeight"


async def _floor(pages: list[Page], settings: RenderSettings) -> float:
    """Seconds of Playwright set_content + one layout read per page over ``settings.concurrency`` tabs."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=check_executable(settings.executable_path), headless=True, args=chromium_args(settings))
        tabs = []
        for _ in range(settings.concurrency):
            context = await browser.new_context(
                viewport={"width": settings.viewport_width, "height": settings.viewport_height},
                java_script_enabled=settings.javascript is True)
            await context.route("**/*", lambda route: route.abort())
            tabs.append(await context.new_page())
        queue: asyncio.Queue = asyncio.Queue()
        for page in pages:
            queue.put_nowait(page)

        async def work(tab) -> None:
            while not queue.empty():
                page = queue.get_nowait()
                await tab.set_content(page.html, wait_until="load")
                await tab.evaluate(_LAYOUT_READ)

        started = time.perf_counter()
        await asyncio.gather(*(work(tab) for tab in tabs))
        seconds = time.perf_counter() - started
        await browser.close()
        return seconds


def _measure(rows: list[dict], stage: str, n_pages: int, run) -> object:
    with PeakRSS() as memory:
        result = run()
    seconds = result.seconds if isinstance(result, _Timed) else memory.seconds
    rows.append({"stage": stage, "n_pages": n_pages, "seconds": seconds, "pages_per_s": n_pages / seconds,
                 "peak_rss_mb": memory.peak_mb})
    print(f"{stage:28s} {n_pages / seconds:9.1f} pages/s  {seconds:8.2f} s  peak RSS {memory.peak_mb:7.0f} MB",
          flush=True)
    return result.value if isinstance(result, _Timed) else result


class _Timed:
    """A stage's result with the seconds of its timed part (when set-up must not count)."""

    def __init__(self, value, seconds: float) -> None:
        self.value, self.seconds = value, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--n-pages", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--dataset", default=DEFAULT_DATASET)
    parser.add_argument("--anchor-url-pattern", default=r"/pd/(\d+)")
    parser.add_argument("--out", help="also write the table as Markdown to this file")
    args = parser.parse_args(argv)

    loaded = load_pages([args.dataset], anchor_url_pattern=args.anchor_url_pattern or None)
    pages = [page for page in loaded.pages if page.main_entity][: args.n_pages]
    n = len(pages)
    settings = RenderSettings(concurrency=args.concurrency)
    header = (f"{n} pages of {args.dataset}; concurrency {settings.concurrency}; {os.cpu_count()} CPUs; "
              f"load average {os.getloadavg()[0]:.1f} at start")
    print(header)
    rows: list[dict] = []

    def floor():
        return _Timed(None, asyncio.run(_floor(pages, settings)))

    def render_warm_browser():
        with Renderer(settings) as renderer:
            started = time.perf_counter()
            outcomes = list(renderer.render(pages, loaded.subresources))
            return _Timed(outcomes, time.perf_counter() - started)

    _measure(rows, "floor (set_content)", n, floor)
    outcomes = _measure(rows, "render (warm browser)", n, render_warm_browser)
    failed = [o.error for o in outcomes if o.rendered is None]
    if failed:
        print(f"{len(failed)} render failures, e.g. {failed[0]}")
    render_s, floor_s = rows[1]["seconds"], rows[0]["seconds"]
    rows.append({"stage": "block extraction (derived)", "n_pages": n, "seconds": render_s - floor_s,
                 "pages_per_s": n / max(render_s - floor_s, 1e-9), "peak_rss_mb": float("nan")})
    print(f"render / floor time ratio: {render_s / floor_s:.2f} (target <= 1.3)")

    with tempfile.TemporaryDirectory() as cache_dir:
        def render_cached() -> list:
            return list(render_pages(pages, settings, cache_dir, subresources=loaded.subresources))

        _measure(rows, "render (cold cache)", n, render_cached)
        cached = _measure(rows, "render (warm cache)", n, render_cached)
        documents = [Document(o.page, o.rendered) for o in cached if o.rendered is not None]
        _measure(rows, "cleaning (SST fit+clean)", len(documents),
                 lambda: make_cleaner("sst").fit(documents).transform(documents))
        recognizer = MSRBFNRecognizer(random_state=0)
        names = recognizer._feature_names()
        features = _measure(rows, "features", len(documents), lambda: [
            page_features(d.page, d.rendered, *names, recognizer.fsize_max) for d in documents])
        n_train = round(2 / 3 * len(documents))
        started = time.perf_counter()
        recognizer.fit(documents[:n_train])
        train_s = time.perf_counter() - started
        print(f"MS-RBFN training on {n_train} pages: {train_s:.1f} s (target < 60 s for ~670 pages)")
        theta = np.vstack([f[1] for f in features])
        gammas = [g for f in features for g in (f[2] or ())]
        _measure(rows, "model prediction", len(documents),
                 lambda: recognizer.model_.decision_function(theta, gammas))

        # the render settings of the stages above (render_settings of this config equals ``settings``)
        render = RenderConfig(concurrency=args.concurrency, cache_dir=cache_dir)
        model = TrainedModel(None, Config(render=render), recognizer, {})
        read = RenderedDocuments(render, loaded.subresources)

        def end_to_end():
            return predict_pages(model, pages, read=read, batch_size=256, render_policy="always")

        _measure(rows, "end to end (warm cache)", n, end_to_end)

    html_documents = [Document(page) for page in pages]
    for name in PEER_NAMES:
        peer = make_recognizer(name)
        try:
            peer.check_available()
        except PeerUnavailableError as error:
            print(f"{name}: skipped: {error}")
            continue
        _measure(rows, name, n, lambda peer=peer: peer.predict(html_documents))

    table = markdown_table(pd.DataFrame(rows), floatfmt=".2f")
    print(table)
    if args.out:
        versions = tool_versions()
        lines = [f"# Stage speed: {args.dataset}", "", "Command:", "", "```",
                 " ".join(["python", "benchmarks/stage_speed.py", *(argv if argv is not None else sys.argv[1:])]),
                 "```", "", header, "", table, "",
                 f"MS-RBFN training on {n_train} pages (warm cache): {train_s:.1f} s.",
                 f"Render / floor time ratio: {render_s / floor_s:.2f} (target <= 1.3).", "",
                 "Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()), ""]
        write_text_atomic(Path(args.out), "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
