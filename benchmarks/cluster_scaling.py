"""Scaling of `mainentity predict` over Dask workers on this machine, and a projection to more machines.

Predicts the pages of a dataset of many small sites (default: Readability's 93 real-world pages of
78 sites, one task per site) with the shipped general model, three ways: in process (no Dask), on a
local cluster of 1 worker and of 2 workers. Each way runs twice against a render cache of its own:
cold (every page rendered in Chromium: the cost that dominates a crawl) and warm (cache reads,
features and model only). Per-worker memory is the peak resident set of a worker process plus its
Chromium (all its descendant processes), sampled every 0.2 s.

The projection to 10 and 100 machines multiplies the measured 2-worker rate of one 2-core machine and
states its assumptions; it is not a measurement.

Usage::

    python benchmarks/cluster_scaling.py [--dataset ../shared/datasets/readability-realworld] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import yaml

from mainentity.config import config_to_dict, load_config
from mainentity.distributed import DaskSites
from mainentity.runs import PRETRAINED_DIR, predict

DEFAULT_DATASET = "../shared/datasets/readability-realworld"


def model_with_cache(directory: Path, cache_dir: Path) -> Path:
    """A copy of the shipped general model whose render cache is ``cache_dir``."""
    model_dir = directory / "general"
    shutil.copytree(PRETRAINED_DIR / "general", model_dir)
    config = load_config(model_dir / "config.yaml")
    config = dataclasses.replace(config, render=dataclasses.replace(config.render, cache_dir=str(cache_dir)))
    (model_dir / "config.yaml").write_text(yaml.safe_dump(config_to_dict(config)), encoding="utf-8")
    return model_dir


class TreePeakRSS:
    """Peak resident set (MB) of each of some processes plus its descendants, sampled in a thread."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.peak_mb = dict.fromkeys(pids, 0.0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            for pid in self.pids:
                try:
                    root = psutil.Process(pid)
                    tree = [root, *root.children(recursive=True)]
                    rss = sum(p.memory_info().rss for p in tree if p.is_running())
                except psutil.Error:
                    continue
                self.peak_mb[pid] = max(self.peak_mb[pid], rss / 2**20)
            self._stop.wait(0.2)

    def __enter__(self) -> TreePeakRSS:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join()


def run(dataset: str, workers: int | None, tmp: Path) -> dict:
    """Cold and warm pages/s (and per-worker peak memory) of one way of running."""
    label = "in process" if workers is None else f"{workers} worker{'s' if workers > 1 else ''}"
    model_dir = model_with_cache(tmp / label.replace(" ", "-"), tmp / label.replace(" ", "-") / "cache")
    row = {"run": label}
    for temperature in ("cold", "warm"):
        out = tmp / f"{label}-{temperature}.jsonl".replace(" ", "-")
        if workers is None:
            with TreePeakRSS([os.getpid()]) as memory:
                started = time.perf_counter()
                n_rows = predict(model_dir, [dataset], out)
                seconds = time.perf_counter() - started
            peak = max(memory.peak_mb.values())
        else:
            with DaskSites(workers=workers) as cluster:
                pids = list(cluster.client.run(os.getpid).values())
                with TreePeakRSS(pids) as memory:
                    started = time.perf_counter()
                    n_rows = predict(model_dir, [dataset], out, cluster=cluster)
                    seconds = time.perf_counter() - started
            peak = max(memory.peak_mb.values())
        row[f"{temperature} pages/s"] = f"{n_rows / seconds:.2f}"
        row[f"{temperature} peak MB per worker"] = f"{peak:.0f}"
        print(f"{label}, {temperature} cache: {n_rows} rows in {seconds:.1f} s = {n_rows / seconds:.2f} pages/s; "
              f"peak {peak:.0f} MB per worker (load {os.getloadavg()[0]:.1f})", flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default=DEFAULT_DATASET)
    parser.add_argument("--out", help="also write the table as Markdown to this file")
    args = parser.parse_args(argv)
    header = (f"{args.dataset}; {os.cpu_count()} CPUs, {psutil.virtual_memory().total / 2**30:.1f} GB; load average "
              f"{os.getloadavg()[0]:.1f} at start")
    print(header, flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        rows = [run(args.dataset, workers, Path(tmp)) for workers in (None, 1, 2)]
    columns = list(rows[0])
    table = "\n".join(["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns),
                       *("| " + " | ".join(row[c] for c in columns) + " |" for row in rows)])
    print(table)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if args.out:
        command = " ".join(["python", "benchmarks/cluster_scaling.py", *(argv if argv is not None else sys.argv[1:])])
        Path(args.out).write_text(f"# Scaling over Dask workers\n\nCommand: `{command}`\n\n{header}; load average "
                                  f"{os.getloadavg()[0]:.1f} at the end\n\n{table}\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
