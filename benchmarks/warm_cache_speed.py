"""Prediction with a warm render cache: pages/s end to end, and the share of cache reads, features and model.

For the pages of a dataset (default: 200 labeled christianbook pages, as ``stage_speed.py``), with the
render cache of the default settings filled first (rendering only what is missing):

- cache read alone: :func:`mainentity.render.cache.render_pages` over the warm cache, with the cycle
  collector set as prediction sets it (:func:`mainentity.collector.fewer_cycle_collections`);
- end to end: cache read + features + model through the one predict path
  (:func:`mainentity.pipeline.predict_pages`, every page rendered), for the MS-RBFN (trained on the first
  2/3 of the pages through :func:`mainentity.pipeline.fit_model`, as ``stage_speed.py``; batches of 256)
  and for the shipped general model (each site whole);
- where the time goes, from a cProfile run of each end-to-end pass: the cache read
  (``RenderCache.get``), the model (the estimator's ``decision_function``) and the rest of the
  recogniser's ``predict`` (candidates and features), as shares of the pass.

Each figure is the best of ``--repeat`` runs, in pages per second of wall time and of CPU time (the
machine is shared: the load average is printed, and the CPU time is less disturbed by the load). Every
run starts with the package's per-text caches (``functools.lru_cache``) emptied, so a run does not reuse
what the run before it computed for the same pages: each run costs what a first pass over the site does.

Usage::

    python benchmarks/warm_cache_speed.py [-n 200] [--repeat 5] [--dataset DIR] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

from mainentity.collector import fewer_cycle_collections
from mainentity.config import Config, RenderConfig
from mainentity.loading import load_pages
from mainentity.model_store import load_trained_model
from mainentity.pipeline import fit_model, page_documents, predict_pages
from mainentity.recognizers.msrbfn import MSRBFNRecognizer

DEFAULT_DATASET = "../shared/datasets/swde-book-christianbook"

#: ``(file name ending, function name)`` of the profiled parts.
CACHE_READ = ("render/cache.py", "get")
MODELS = {"msrbfn": ("models/msrbfn_network.py", "decision_function"),
          "general": ("models/ranker.py", "decision_function")}
PREDICT = {"msrbfn": ("recognizers/msrbfn.py", "predict"), "general": ("recognizers/general.py", "predict")}


def cumulative_seconds(stats: pstats.Stats, where: tuple[str, str]) -> float:
    """Cumulative seconds of the profiled function ``where`` (outermost calls only)."""
    ending, name = where
    return sum(row[3] for (file, _, function), row in stats.stats.items()
               if file.replace(os.sep, "/").endswith(ending) and function == name)


def clear_text_caches() -> None:
    """Empty the per-text caches (``functools.lru_cache``) of the text and feature modules: tokens,
    normalised texts, site names (not, say, the browser's version, which a run looks up once)."""
    for name, module in list(sys.modules.items()):
        if name == "mainentity.text" or name.startswith("mainentity.features."):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def best_rate(n_pages: int, run, repeat: int) -> str:
    """Pages per second of wall time and per second of this process's CPU time, best of ``repeat`` runs.

    On a machine shared with other jobs the wall time depends on their load; the CPU time much less.
    """
    wall = cpu = float("inf")
    for _ in range(repeat):
        clear_text_caches()
        started, started_cpu = time.perf_counter(), time.process_time()
        run()
        wall = min(wall, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - started_cpu)
    return f"{n_pages / wall:.0f} pages/s ({n_pages / cpu:.0f} pages per CPU second)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--n-pages", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dataset", default=DEFAULT_DATASET)
    parser.add_argument("--anchor-url-pattern", default=r"/pd/(\d+)")
    parser.add_argument("--out", help="also write the figures as Markdown to this file")
    args = parser.parse_args(argv)

    loaded = load_pages([args.dataset], anchor_url_pattern=args.anchor_url_pattern or None)
    pages = [page for page in loaded.pages if page.main_entity][: args.n_pages]
    read = page_documents(RenderConfig(), loaded.subresources)
    documents = [doc for _, doc, _ in read(pages, rendered=True) if doc is not None]
    n = len(pages)
    lines = [f"{n} pages of {args.dataset}; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at start"]
    print(lines[0], flush=True)

    def read_all():
        with fewer_cycle_collections():
            return list(read(pages, rendered=True))

    rate = best_rate(n, read_all, args.repeat)
    lines.append(f"cache read alone: {rate}")
    print(lines[-1], flush=True)
    train_pages = [document.page for document in documents[: round(2 / 3 * len(documents))]]
    msrbfn = fit_model(Config(), MSRBFNRecognizer(random_state=0), documents, train_pages)
    models = {"msrbfn": (msrbfn, {"batch_size": 256}), "general": (load_trained_model(None), {})}
    for name, (model, options) in models.items():
        def predict(model=model, options=options):
            return predict_pages(model, pages, read=read, render_policy="always", **options)

        rate = best_rate(n, predict, args.repeat)
        clear_text_caches()
        profile = cProfile.Profile()
        profile.enable()
        started = time.perf_counter()
        predict()
        profiled = time.perf_counter() - started
        profile.disable()
        stats = pstats.Stats(profile)
        cache = cumulative_seconds(stats, CACHE_READ)
        model = cumulative_seconds(stats, MODELS[name])
        features = cumulative_seconds(stats, PREDICT[name]) - model
        lines.append(f"{name}, end to end: {rate}; profiled pass {profiled:.2f} s: cache read "
                     f"{cache / profiled:.0%}, candidates and features {features / profiled:.0%}, model "
                     f"{model / profiled:.0%}, rest {(profiled - cache - features - model) / profiled:.0%}")
        print(lines[-1], flush=True)
    lines.append(f"load average at the end {os.getloadavg()[0]:.1f}")
    print(lines[-1])
    if args.out:
        command = " ".join(["python", "benchmarks/warm_cache_speed.py", *(argv if argv is not None else sys.argv[1:])])
        Path(args.out).write_text("# Prediction with a warm render cache\n\n```\n" + command + "\n" + "\n".join(lines)
                                  + "\n```\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
