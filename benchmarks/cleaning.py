"""Benchmark: what site-level cleaning (none / SST / InfoDiscoverer) removes, keeps and costs.

For each dataset and each cleaning method, one cleaner is fitted per site (as the pipeline does,
:func:`mainentity.pipeline.fit_cleaners`) and applied to every rendered page of the site. Printed
per dataset and method:

- ``blocks_removed``: share of all text blocks removed;
- ``me_kept``: share of pages whose main-entity block survived (target >= 0.99); a page's main-entity
  blocks are those whose normalised text equals one of its labels; pages with none are not counted
  (``pages_with_me_block`` says how many were);
- ``fit_s_per_100``: seconds to fit the site models per 100 sampled pages (for ``sst``: the SST build
  time per 100 pages), ``transform_ms``: milliseconds of cleaning per page;
- ``passthrough_sites``: sites with one usable page, passed through unchanged.

With ``--configs``, each run config (e.g. ``configs/christianbook-msrbfn.yaml``) is also trained and
evaluated once per method (cleaning overridden, runs written under ``--runs-dir``), adding the test
split's ROUGE-1 F1 and prediction pages/s from the run's ``meta.json``.

Pages are rendered through the render cache (``--cache-dir``), so only the first run starts Chromium.

Usage (from the repository root, with the package installed, ``pip install -e .``, or ``PYTHONPATH=.``)::

    python benchmarks/cleaning.py --dataset ../shared/datasets/swde-book-christianbook \\
        --max-pages-per-site 400
    python benchmarks/cleaning.py --dataset ../shared/datasets/readability-realworld
    python benchmarks/cleaning.py --dataset ../shared/datasets/swde-book-christianbook \\
        --configs configs/christianbook-msrbfn.yaml --runs-dir /tmp/cleaning-runs
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

from mainentity.cleaning import cleaner_names, make_cleaner
from mainentity.config import CleaningConfig, OutputConfig, RenderConfig, load_config
from mainentity.pipeline import iter_documents, load_pages
from mainentity.text import normalize_text


def main_entity_blocks(document) -> list[int]:
    """Indices of the blocks whose normalised text equals one of the page's labels."""
    labels = {normalize_text(label) for label in document.page.main_entity}
    return [i for i, block in enumerate(document.rendered.blocks) if normalize_text(block.text) in labels]


def measure_method(documents, method: str, params: dict, seed: int) -> dict:
    """Fit one cleaner per site, clean every page and measure removal, survival and time."""
    by_site = defaultdict(list)
    for document in documents:
        by_site[document.page.site_id].append(document)
    fit_s = transform_s = 0.0
    n_sampled = n_blocks = n_kept_blocks = n_me_pages = n_me_kept = n_passthrough = 0
    for site_documents in by_site.values():
        tick = time.perf_counter()
        cleaner = make_cleaner(method, random_state=seed, **params).fit(site_documents)
        fit_s += time.perf_counter() - tick
        n_sampled += len(cleaner.sample_indices_)
        n_passthrough += bool(cleaner.passthrough_)
        tick = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cleaned = cleaner.transform(site_documents)
        transform_s += time.perf_counter() - tick
        for before, after in zip(site_documents, cleaned, strict=True):
            n_blocks += len(before.rendered.blocks)
            n_kept_blocks += len(after.rendered.blocks)
            me = main_entity_blocks(before)
            if me:
                n_me_pages += 1
                kept = {normalize_text(block.text) for block in after.rendered.blocks}
                n_me_kept += any(normalize_text(before.rendered.blocks[i].text) in kept for i in me)
    return {
        "method": method,
        "params": params,
        "sites": len(by_site),
        "passthrough_sites": n_passthrough,
        "pages": len(documents),
        "blocks": n_blocks,
        "blocks_removed": round(1 - n_kept_blocks / max(n_blocks, 1), 4),
        "pages_with_me_block": n_me_pages,
        "me_kept": round(n_me_kept / max(n_me_pages, 1), 4),
        "fit_s_per_100": round(100 * fit_s / max(n_sampled, 1), 3),
        "transform_ms": round(1000 * transform_s / max(len(documents), 1), 2),
    }


def measure_models(config_paths, methods, runs_dir: str, cache_dir: str) -> list[dict]:
    """Train and evaluate each config once per cleaning method; ROUGE-1 F1 and pages/s of the test split."""
    from mainentity.runs import train

    rows = []
    for config_path in config_paths:
        base = load_config(config_path)
        for method in methods:
            config = dataclasses.replace(
                base, name=f"{base.name}-clean-{method}", cleaning=CleaningConfig(method=method),
                output=OutputConfig(runs_dir=runs_dir),
                render=dataclasses.replace(base.render, cache_dir=cache_dir),
            )
            run_dir = train(config)
            meta = json.loads((run_dir / "meta.json").read_text(encoding="utf-8"))
            rows.append({
                "config": base.name, "method": method,
                "rouge1_f": meta["test_summary"].get("rouge1_f"),
                "predict_pages_per_s": meta["timings"].get("predict_pages_per_s"),
                "cleaning_fit_s": meta["timings"].get("cleaning_fit_s"),
            })
            print(json.dumps(rows[-1]), flush=True)
    return rows


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dataset", action="append", required=True, help="dataset or site dump (repeatable)")
    parser.add_argument("--methods", nargs="+", default=cleaner_names(), choices=cleaner_names())
    parser.add_argument("--max-pages-per-site", type=int, default=None)
    parser.add_argument("--cache-dir", default=".cache/render")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sst-threshold", type=float, action="append", default=None,
                        help="SST thresholds to measure (repeatable; default: the cleaner's default)")
    parser.add_argument("--configs", nargs="*", default=(), help="run configs to train once per method")
    parser.add_argument("--runs-dir", default="runs/cleaning-benchmark")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    render = RenderConfig(cache_dir=args.cache_dir, concurrency=args.concurrency)
    for dataset in args.dataset:
        pages = load_pages([dataset], max_pages_per_site=args.max_pages_per_site).pages
        tick = time.perf_counter()
        documents = [doc for _, doc, _ in iter_documents(pages, needs_render=True, render=render) if doc]
        documents.sort(key=lambda doc: (doc.page.site_id, doc.page.path))
        print(f"# {dataset}: {len(documents)} rendered of {len(pages)} pages "
              f"({time.perf_counter() - tick:.1f} s)", flush=True)
        for method in args.methods:
            grid = [{"threshold": t} for t in args.sst_threshold] if method == "sst" and args.sst_threshold \
                else [{}]
            for params in grid:
                print(json.dumps({"dataset": Path(dataset).name,
                                  **measure_method(documents, method, params, args.seed)}), flush=True)
    if args.configs:
        measure_models(args.configs, args.methods, args.runs_dir, args.cache_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
