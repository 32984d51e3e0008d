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
evaluated once per method and ``--seeds`` value (cleaning overridden, runs written under ``--runs-dir``):
see :func:`measure_models` for the columns (ROUGE-1 F1 with cleaning in training and prediction, with
cleaning at prediction only, and end-to-end pages/s with a warm render cache). ``--out PREFIX`` writes
``PREFIX.md`` (the command on top) and ``PREFIX-cleaning.csv`` / ``PREFIX-models.csv``: aggregate numbers
only, no page text or label.

Pages are rendered through the render cache (``--cache-dir``), so only the first run starts Chromium.

Usage (from the repository root, with the package installed, ``pip install -e .``, or ``PYTHONPATH=.``);
the committed results in ``benchmarks/results/cleaning/`` came from::

    python benchmarks/cleaning.py --dataset ../shared/datasets/swde-book-christianbook \\
        --sst-threshold 0.3 --sst-threshold 0.5 --sst-threshold 0.7 --sst-threshold 0.9 \\
        --configs configs/christianbook-msrbfn.yaml --seeds 0 --runs-dir /tmp/cl-runs \\
        --out benchmarks/results/cleaning/christianbook
    python benchmarks/cleaning.py --dataset datasets/sample-shop \\
        --infodiscoverer-threshold 0.5 --infodiscoverer-threshold 0.7 --infodiscoverer-threshold 0.9 \\
        --configs configs/sample-msrbfn.yaml --seeds 0 1 2 3 4 --out benchmarks/results/cleaning/sample-shop
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

from mainentity.cleaning import cleaner_names, make_cleaner
from mainentity.config import CleaningConfig, OutputConfig, RenderConfig, load_config
from mainentity.loading import load_pages
from mainentity.pipeline import iter_documents
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


def run_test_documents(config) -> list:
    """The rendered test documents of a run, split as :func:`mainentity.runs.train` splits them."""
    import numpy as np

    from mainentity.splits import split_pages

    data = config.data
    loaded = load_pages(data.datasets, base_url=data.base_url, max_pages_per_site=data.max_pages_per_site,
                        anchor_url_pattern=data.anchor_url_pattern)
    labeled = [page for page in loaded.pages if page.main_entity]
    if data.max_pages is not None and data.max_pages < len(labeled):
        keep = np.random.default_rng(config.seed).choice(len(labeled), data.max_pages, replace=False)
        labeled = [labeled[i] for i in sorted(keep)]
    _, test_pages = split_pages(labeled, method=data.split, train_fraction=data.train_fraction,
                                random_state=config.seed)
    stream = iter_documents(test_pages, needs_render=True, render=config.render, subresources=loaded.subresources)
    return [doc for _, doc, _ in stream if doc]


def mean_rouge1(predictions, documents) -> float:
    """Mean ROUGE-1 F1 of predictions over the labeled pages of ``documents`` (as the run reports score)."""
    from mainentity.evaluation.report import evaluate_predictions

    labels = {(doc.page.site_id, doc.page.path): doc.page.main_entity for doc in documents}
    return float(evaluate_predictions(predictions, labels)["rouge1_f"].mean())


def measure_models(
    config_paths, methods, runs_dir: str, cache_dir: str, seeds=(0,), e2e_repeats: int = 2
) -> list[dict]:
    """Train and evaluate each config once per cleaning method and seed; ROUGE-1 F1 and pages/s.

    Per (config, seed, method) row:

    - ``rouge1_f``: the test split's mean ROUGE-1 F1 of the pipeline as it runs (:func:`mainentity.runs.train`:
      the recogniser is trained on cleaned pages and predicts cleaned pages);
    - ``rouge1_f_clean_test_only``: the same split, predicted on cleaned pages by the recogniser trained
      on uncleaned pages (the ``none`` run of the same seed), which tells the effect of cleaning the
      pages to predict from that of changing the training distribution;
    - ``predict_pages_per_s``: the run's prediction speed over its (already rendered) test pages;
    - ``end_to_end_pages_per_s``: :func:`mainentity.runs.predict` over every page of the datasets with
      a warm render cache (read pages, link graph, cache look-up, cleaning, features, model, writing),
      the median of ``e2e_repeats`` timings taken after all training with the methods interleaved;
    - ``cleaning_fit_s``: seconds to fit the per-site cleaners of the run.
    """
    from mainentity.model_store import load_trained_model
    from mainentity.pipeline import clean_documents
    from mainentity.runs import predict, train

    rows, run_dirs = [], []
    for config_path in config_paths:
        base = load_config(config_path)
        for seed in seeds:
            none_model = None
            for method in sorted(methods, key=lambda name: name != "none"):
                config = dataclasses.replace(
                    base, name=f"{base.name}-clean-{method}-seed{seed}", seed=seed,
                    cleaning=CleaningConfig(method=method),
                    output=OutputConfig(runs_dir=runs_dir),
                    render=dataclasses.replace(base.render, cache_dir=cache_dir),
                )
                run_dir = train(config)
                meta = json.loads((run_dir / "meta.json").read_text(encoding="utf-8"))
                row = {
                    "config": base.name, "seed": seed, "method": method,
                    "n_test_pages": meta["n_test_pages"],
                    "rouge1_f": meta["test_summary"].get("rouge1_f"),
                    "rouge1_f_clean_test_only": None,
                    "predict_pages_per_s": meta["timings"].get("predict_pages_per_s"),
                    "cleaning_fit_s": meta["timings"].get("cleaning_fit_s"),
                }
                if method == "none":
                    none_model = load_trained_model(run_dir)
                    row["rouge1_f_clean_test_only"] = row["rouge1_f"]
                elif none_model is not None:
                    test_documents = run_test_documents(config)
                    cleaned = clean_documents(test_documents, load_trained_model(run_dir).cleaners)
                    row["rouge1_f_clean_test_only"] = mean_rouge1(
                        none_model.recognizer.predict(cleaned), test_documents
                    )
                row["end_to_end_pages_per_s"] = None
                rows.append(row)
                run_dirs.append((row, run_dir, config.data.datasets))
                print(json.dumps(row), flush=True)
    # End-to-end speed after all training, the methods interleaved and repeated: the median of
    # e2e_repeats timings each, so a burst of load from other jobs does not land on one method only.
    speeds: dict[int, list[float]] = defaultdict(list)
    for _ in range(e2e_repeats):
        for index, (_row, run_dir, datasets) in enumerate(run_dirs):
            output = Path(runs_dir) / f"{run_dir.name}-predict.jsonl"
            output.unlink(missing_ok=True)
            tick = time.perf_counter()
            n_pages = sum(predict(run_dir, dataset, output) for dataset in datasets)
            speeds[index].append(n_pages / (time.perf_counter() - tick))
    for index, (row, _, _) in enumerate(run_dirs):
        row["end_to_end_pages_per_s"] = statistics.median(speeds[index]) if speeds[index] else None
        print(json.dumps({k: row[k] for k in ("config", "seed", "method", "end_to_end_pages_per_s")}), flush=True)
    return rows


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dataset", action="append", required=True, help="dataset or site dump (repeatable)")
    parser.add_argument("--methods", nargs="+", default=cleaner_names(), choices=cleaner_names())
    parser.add_argument("--max-pages-per-site", type=int, default=None)
    parser.add_argument("--cache-dir", help="render cache directory (default: the per-user cache)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sst-threshold", type=float, action="append", default=None,
                        help="SST thresholds to measure (repeatable; default: the cleaner's default)")
    parser.add_argument("--infodiscoverer-threshold", type=float, action="append", default=None,
                        help="fixed InfoDiscoverer entropy thresholds to measure besides the automatic one")
    parser.add_argument("--configs", nargs="*", default=(), help="run configs to train once per method")
    parser.add_argument("--runs-dir", default="runs/cleaning-benchmark")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0],
                        help="config seeds (split and model) to train each method with")
    parser.add_argument("--e2e-repeats", type=int, default=2,
                        help="end-to-end timings per run (median reported)")
    parser.add_argument("--out", help="write <out>.md and <out>-cleaning.csv / <out>-models.csv")
    return parser.parse_args(argv)


def _markdown_table(rows: list[dict]) -> list[str]:
    if not rows:
        return ["(none)"]
    columns = list(rows[0])

    def cell(value):
        return f"{value:.4g}" if isinstance(value, float) else "" if value is None else str(value)

    return ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)] + [
        "| " + " | ".join(cell(row.get(column)) for column in columns) + " |" for row in rows
    ]


def write_results(out: str, command: str, cleaning_rows: list[dict], model_rows: list[dict]) -> None:
    """Markdown (command on top) and CSV files of the aggregate numbers; no page text or label."""
    import pandas as pd

    out_path = Path(out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    flat = [{**row, "params": json.dumps(row["params"], sort_keys=True)} for row in cleaning_rows]
    pd.DataFrame(flat).to_csv(f"{out}-cleaning.csv", index=False)
    if model_rows:
        pd.DataFrame(model_rows).to_csv(f"{out}-models.csv", index=False)
    lines = [f"# Site-level cleaning benchmark: {out_path.name}", "", "Command (repository root):", "",
             "```", command, "```", "",
             "Timings are wall-clock seconds on a 2-core machine shared with other jobs: compare them within "
             "one table, not across machines.", "", "## What cleaning removes and keeps", ""]
    lines += _markdown_table(flat)
    if model_rows:
        lines += ["", "## MS-RBFN with each cleaning method (test split)", ""] + _markdown_table(model_rows)
    Path(f"{out}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    render = RenderConfig(cache_dir=args.cache_dir, concurrency=args.concurrency)
    cleaning_rows, model_rows = [], []
    for dataset in args.dataset:
        loaded = load_pages([dataset], max_pages_per_site=args.max_pages_per_site)
        pages = loaded.pages
        tick = time.perf_counter()
        stream = iter_documents(pages, needs_render=True, render=render, subresources=loaded.subresources)
        documents = [doc for _, doc, _ in stream if doc]
        documents.sort(key=lambda doc: (doc.page.site_id, doc.page.path))
        print(f"# {dataset}: {len(documents)} rendered of {len(pages)} pages "
              f"({time.perf_counter() - tick:.1f} s)", flush=True)
        for method in args.methods:
            grid = [{}]
            if method == "sst" and args.sst_threshold:
                grid = [{"threshold": t} for t in args.sst_threshold]
            elif method == "infodiscoverer" and args.infodiscoverer_threshold:
                grid += [{"threshold": t} for t in args.infodiscoverer_threshold]
            for params in grid:
                cleaning_rows.append({"dataset": Path(dataset).name,
                                      **measure_method(documents, method, params, args.seed)})
                print(json.dumps(cleaning_rows[-1]), flush=True)
    if args.configs:
        model_rows = measure_models(args.configs, args.methods, args.runs_dir, args.cache_dir, args.seeds,
                                    args.e2e_repeats)
    if args.out:
        command = " ".join(["python", "benchmarks/cleaning.py", *(sys.argv[1:] if argv is None else argv)])
        write_results(args.out, command, cleaning_rows, model_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
