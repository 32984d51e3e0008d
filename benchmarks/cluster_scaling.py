"""Scaling of `mainentity predict` over Dask workers on this machine, and a projection to more machines.

Predicts the pages of a dataset of many small sites (default: Readability's 93 real-world pages of
78 sites, one task per site) with the shipped general model, three ways: in process (no Dask), on a
local cluster of 1 worker and of 2 workers. Each way first predicts the sample shop (untimed: imports, model
load, Chromium start), then runs twice against a render cache of its own:
cold (every page rendered in Chromium: the cost that dominates a crawl) and warm (cache reads,
features and model only). Two rates: of the whole command (reading the inputs and the model
included, which the command's own process does alone) and of its prediction phase (what the workers
do; logged by :func:`mainentity.runs.predict`). Per-worker memory is the peak resident set of a worker
process plus its Chromium (all its descendant processes, each counted whole: shared pages are counted
once per process, so it overstates), sampled every 0.2 s.

With ``--model DIR --warm-only`` it measures another model, or a dataset of large sites (christianbook's
one site of 1000 pages is split into shards of 250 pages), against the model's own, already filled,
render cache only.

Run it with ``OMP_NUM_THREADS=1``: Dask's workers run their numerical libraries on one thread each, and
the process run must be given the same.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/cluster_scaling.py [--dataset DIR] [--model DIR --warm-only] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from mainentity.distributed import DaskSites
from mainentity.model_store import PRETRAINED_DIR
from mainentity.runs import predict

DEFAULT_DATASET = "../shared/datasets/readability-realworld"
#: Predicted first in each way of running, untimed: the imports, the model's first load and Chromium's
#: start in every process are then done, as they are once for a long run.
WARM_UP = str(Path(__file__).resolve().parents[1] / "datasets" / "sample-shop")


def general_model_copy(directory: Path) -> Path:
    """A copy of the shipped general model, rendering into a cold cache of its own: the per-user cache
    (``$XDG_CACHE_HOME``, inherited by the Dask workers) is moved under ``directory`` (a model names no
    cache directory)."""
    model_dir = directory / "general"
    shutil.copytree(PRETRAINED_DIR / "general", model_dir)
    os.environ["XDG_CACHE_HOME"] = str(directory / "cache")
    return model_dir


class PredictPhase(logging.Handler):
    """Keeps the pages/s of the last prediction phase that :func:`mainentity.runs.predict` logged."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.pages_per_s = float("nan")

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("predicted "):
            _, seconds, rate = record.args
            self.pages_per_s = rate


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


def run(dataset: str, workers: int | None, tmp: Path, model: str | None) -> dict:
    """Cold and warm pages/s (and per-worker peak memory) of one way of running; warm only with ``model``."""
    label = "in process" if workers is None else f"{workers} worker{'s' if workers > 1 else ''}"
    if model is None:
        model_dir = general_model_copy(tmp / label.replace(" ", "-"))
    else:
        model_dir = Path(model)
    row = {"run": label}
    for temperature in ("cold", "warm") if model is None else ("warm",):
        out = tmp / f"{label}-{temperature}.jsonl".replace(" ", "-")
        warm_up = tmp / f"{label}-{temperature}-warm-up.jsonl".replace(" ", "-")
        if workers is None:
            predict(model_dir, [WARM_UP], warm_up)
            with TreePeakRSS([os.getpid()]) as memory:
                started = time.perf_counter()
                n_rows = predict(model_dir, [dataset], out)
                seconds = time.perf_counter() - started
            peak = max(memory.peak_mb.values())
        else:
            with DaskSites(workers=workers) as cluster:
                predict(model_dir, [WARM_UP], warm_up, cluster=cluster)
                pids = list(cluster.client.run(os.getpid).values())
                with TreePeakRSS(pids) as memory:
                    started = time.perf_counter()
                    n_rows = predict(model_dir, [dataset], out, cluster=cluster)
                    seconds = time.perf_counter() - started
            peak = max(memory.peak_mb.values())
        row[f"{temperature} pages/s (command)"] = f"{n_rows / seconds:.2f}"
        row[f"{temperature} pages/s (prediction)"] = f"{PHASE.pages_per_s:.2f}"
        row[f"{temperature} peak MB per worker"] = f"{peak:.0f}"
        print(f"{label}, {temperature} cache: {n_rows} rows in {seconds:.1f} s = {n_rows / seconds:.2f} pages/s; "
              f"prediction phase {PHASE.pages_per_s:.2f} pages/s; peak {peak:.0f} MB per worker "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)
    return row


PHASE = PredictPhase()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default=DEFAULT_DATASET)
    parser.add_argument("--model", help="a model directory whose render cache already holds the dataset's pages")
    parser.add_argument("--warm-only", action="store_true", help="with --model: measure the warm cache only")
    parser.add_argument("--out", help="also write the table as Markdown to this file")
    args = parser.parse_args(argv)
    logging.getLogger("mainentity.runs").setLevel(logging.INFO)
    logging.getLogger("mainentity.runs").addHandler(PHASE)
    if bool(args.model) != args.warm_only:
        parser.error("--model and --warm-only go together")
    header = (f"{args.dataset}, model {args.model or 'general (shipped)'}; {os.cpu_count()} CPUs, "
              f"{psutil.virtual_memory().total / 2**30:.1f} GB; load average "
              f"{os.getloadavg()[0]:.1f} at start")
    print(header, flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        rows = [run(args.dataset, workers, Path(tmp), args.model) for workers in (None, 1, 2)]
    columns = list(rows[0])
    table = "\n".join(["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns),
                       *("| " + " | ".join(row[c] for c in columns) + " |" for row in rows)])
    print(table)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if args.out:
        command = " ".join(["python", "benchmarks/cluster_scaling.py", *(argv if argv is not None else sys.argv[1:])])
        with Path(args.out).open("a", encoding="utf-8") as file:  # one file, a section per run
            file.write(f"\n## `OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '')} {command}`\n\n{header}; "
                       f"load average {os.getloadavg()[0]:.1f} at the end\n\n{table}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
