"""Speed of the general recogniser: prediction with a warm render cache, and the cost of its candidates.

Prints, for the pages of a dataset (default: christianbook):

- end to end with a warm render cache: cache read + candidates + features + ranker + site vote through
  the one predict path (:func:`mainentity.pipeline.predict_pages`, every page rendered), with the shipped
  general model, in pages/s;
- rendering with a warm browser with today's ``blocks.js`` (text blocks plus segments) and with the
  extraction of text blocks only (``--baseline-js``, e.g. ``blocks.js`` of an earlier commit), in
  pages/s, and their ratio (the issue's target: candidates cost at most 10% of rendering time).

Training time of the general model on all shared data is what ``python train.py configs/general.yaml``
logs (``meta.json``'s ``timings.fit_s`` and ``total_s``).

Usage::

    python benchmarks/general_speed.py [--dataset DIR] [-n 1000] [--render-pages 100] \\
        [--baseline-js OLD_BLOCKS.js]   # e.g. git show 7001c6e:mainentity/render/blocks.js > /tmp/old.js
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from mainentity.config import RenderConfig
from mainentity.loading import load_pages
from mainentity.model_store import load_trained_model
from mainentity.pipeline import page_documents, predict_pages
from mainentity.render import Renderer, RenderSettings
from mainentity.render import browser as browser_module

DEFAULT_DATASET = "../shared/datasets/swde-book-christianbook"


def render_rate(pages, settings: RenderSettings, script: str | None) -> float:
    """Pages/s of a warm browser rendering ``pages`` with ``script`` as the extraction script."""
    original = browser_module.BLOCKS_JS
    if script is not None:
        browser_module.BLOCKS_JS = script
    try:
        with Renderer(settings) as renderer:
            list(renderer.render(pages[: 2 * settings.concurrency]))  # warm up
            start = time.perf_counter()
            outcomes = list(renderer.render(pages))
            elapsed = time.perf_counter() - start
    finally:
        browser_module.BLOCKS_JS = original
    failed = sum(1 for outcome in outcomes if outcome.error)
    if failed:
        print(f"  {failed} pages failed")
    return len(pages) / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default=DEFAULT_DATASET)
    parser.add_argument("-n", "--n-pages", type=int, default=1000)
    parser.add_argument("--render-pages", type=int, default=100)
    parser.add_argument("--baseline-js", type=Path, help="an extraction script of text blocks only")
    args = parser.parse_args(argv)

    loaded = load_pages([args.dataset])
    pages = loaded.pages[: args.n_pages]
    model = load_trained_model(None)
    read = page_documents(model.config.render, loaded.subresources)
    print(f"{len(pages)} pages of {args.dataset}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    # fill the cache (no-op when warm)
    list(read(pages, rendered=True))
    start = time.perf_counter()
    predictions = predict_pages(model, pages, read=read, render_policy="always")
    elapsed = time.perf_counter() - start
    print(f"general, end to end with a warm render cache: {len(predictions) / elapsed:.1f} pages/s "
          f"({elapsed:.1f} s for {len(predictions)} pages, {sum(1 for p in predictions if p.error)} errors)")

    if args.baseline_js is not None:
        sample = pages[: args.render_pages]
        settings = RenderSettings(concurrency=RenderConfig().concurrency)
        with_segments = render_rate(sample, settings, None)
        blocks_only = render_rate(sample, settings, args.baseline_js.read_text(encoding="utf-8"))
        print(f"render, warm browser: {with_segments:.2f} pages/s with segments, {blocks_only:.2f} pages/s with "
              f"text blocks only: time ratio {blocks_only / with_segments:.3f}")
    print(f"load average at the end {os.getloadavg()[0]:.1f} (shared machine: wall times vary)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
