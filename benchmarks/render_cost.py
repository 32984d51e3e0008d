"""CPU per page and accuracy of ``mainentity predict --render always`` and ``--render auto``, beside
trafilatura's and readability-lxml's titles, on the same pages in the same run.

Each system runs as its own process (``mainentity predict`` from a cold render cache: a per-user cache
folder of its own, so Chromium's start and every render it needs are counted); its CPU time is the
user + system time of the process and all its waited-for children (Playwright's driver and
Chromium), read from ``getrusage(RUSAGE_CHILDREN)`` before and after; its peak memory is that of the whole
process tree (the process's RSS, each descendant's PSS: ``mainentity.comparison.compare.PeakRSS``, sampled
every 0.1 s, less this script's own). The peers run in a process that
reads each page's bytes and calls the library (trafilatura's ``extract_metadata(...).title``,
readability-lxml's ``Document(...).short_title()``), and nothing else. Accuracy is ROUGE-1 F1 and exact
match against the labels (``mainentity.evaluation.metrics.score_page``); for ``auto`` also the share of
pages rendered and the agreement with ``always``. With ``--warm``, ``always`` and ``auto`` each run a second
time on their own render cache, now filled by their first run (a site predicted again, a crawl re-read after
a model update), and ``auto`` once more on the cache ``always`` filled (every page's rendering there, as
after an evaluation): what the cache saves, against the same peers' run.

``lone`` is the three multi-site datasets together (readability-realworld, fundus-half, postlight-half: 296
pages, most sites one page), given to one ``predict`` as a crawl of lone pages would be; its accuracy is also
given per dataset (``auto`` against ``always`` on each). One ``predict`` reads a site id as one site: the nine
hosts that readability-realworld and postlight-half share (arstechnica.com, medium.com, ...) are read as one
site each, 236 site ids for the datasets' 245 sites.

Usage (from the repository root, ../shared beside it, or its ``datasets`` folder in ``MAINENTITY_DATASETS``)::

    python benchmarks/render_cost.py [--datasets booksamillion christianbook readability lone sample] [--warm]
                                     [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The shared labeled datasets: ``../shared/datasets`` beside the repository unless ``MAINENTITY_DATASETS`` names
#: another folder (the other benchmarks of the shared datasets take it from here).
SHARED = Path(os.environ.get("MAINENTITY_DATASETS", REPO.parent / "shared" / "datasets"))
#: The multi-site datasets: the lone pages of a crawl, one or a few per site.
LONE = ("readability-realworld", "fundus-half", "postlight-half")
#: The datasets of each name, given to one ``predict`` together.
DATASETS = {
    "christianbook": (SHARED / "swde-book-christianbook",),
    "booksamillion": (SHARED / "swde-book-booksamillion",),
    "readability": (SHARED / "readability-realworld",),
    "lone": tuple(SHARED / name for name in LONE),
    "sample": (REPO / "datasets" / "sample-shop",),
}
SYSTEMS = ("always", "auto", "trafilatura", "readability-lxml")
#: What a warm render cache changes: the systems that render.
RENDERING = ("always", "auto")


def labeled_pages(datasets: tuple[Path, ...]) -> list[tuple[str, str, Path, str, list[str]]]:
    """``(site_id, path, file, url, labels)`` of every page listed in the datasets' manifests."""
    pages = []
    for manifest in sorted(manifest for dataset in datasets for manifest in dataset.glob("sites/*/manifest.jsonl")):
        for line in manifest.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            pages.append((manifest.parent.name, row["path"], manifest.parent / row["path"], row["url"],
                          row["main_entity"]))
    return pages


def peer_title(name: str):
    """``title(html_bytes, url) -> str``: the peer's title of one page, as the peer is called here."""
    if name == "trafilatura":
        from trafilatura import extract_metadata

        def title(html: bytes, url: str) -> str:
            metadata = extract_metadata(html, default_url=url)
            return (metadata.title if metadata is not None else "") or ""
    else:
        from readability import Document

        def title(html: bytes, url: str) -> str:
            return Document(html, url=url).short_title() or ""
    return title


def run_peer(name: str, pages, out: Path) -> None:
    """The peer's title of every page (``(site_id, path, file, url, ...)`` as :func:`labeled_pages` gives
    them), as JSON lines ``{"site_id", "path", "main_entity"}``."""
    title = peer_title(name)
    with out.open("w", encoding="utf-8") as file:
        for site_id, path, page_file, url, *_ in pages:
            try:
                answer = title(page_file.read_bytes(), url)
            except Exception:  # noqa: BLE001 - a peer that fails on a page answers nothing there
                answer = ""
            file.write(json.dumps({"site_id": site_id, "path": path, "main_entity": answer}) + "\n")


def command(system: str, datasets: tuple[Path, ...], out: Path) -> list[str]:
    if system in ("always", "auto"):
        return [sys.executable, "-m", "mainentity.cli", "predict", *map(str, datasets), "-o", str(out),
                "--render", system]
    return [sys.executable, __file__, "--peer", system, str(out), *map(str, datasets)]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(system: str, datasets: tuple[Path, ...], work: Path, cache: str = ""
            ) -> tuple[float, float, float, dict]:
    """CPU seconds, wall seconds and peak memory (MB, the process tree) of one system on the datasets, and its
    rows by ``(site_id, path)``.

    Each system has a render cache of its own under ``work``, cold at its first run; ``cache`` names the
    system whose cache a later run uses (filled by that system's first run)."""
    from mainentity.comparison.compare import PeakRSS

    out = work / f"{system}{f'-on-{cache}' if cache else ''}.jsonl"
    env = {**os.environ, "XDG_CACHE_HOME": str(work / f"cache-{cache or system}")}
    before, started = children_cpu(), time.perf_counter()
    with PeakRSS(interval_s=0.1) as memory:
        subprocess.run(command(system, datasets, out), env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    cpu, wall = children_cpu() - before, time.perf_counter() - started
    rows = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        rows[row["site_id"], row["path"]] = row
    return cpu, wall, memory.peak_mb - memory.start_mb, rows


def accuracy(rows: dict, pages) -> tuple[float, float]:
    """Mean ROUGE-1 F1 and exact match of the rows against the labels (a missing row scores 0)."""
    from mainentity.evaluation.metrics import score_page

    f1, exact = [], []
    for site_id, path, _, _, labels in pages:
        row = rows.get((site_id, path))
        scores = score_page(row["main_entity"] if row else "", labels)
        f1.append(scores["rouge1_f"])
        exact.append(scores["exact"])
    return statistics.fmean(f1), statistics.fmean(exact)


def benchmark(name: str, datasets: tuple[Path, ...], warm: bool = False) -> list[dict]:
    """One row per system, and with ``warm`` one per second run (``always, warm cache`` and ``auto, warm
    cache`` on their own filled caches, ``auto, cache of always`` on always's): pages, CPU ms per page, wall s,
    ROUGE-1 F1, exact, pages rendered (read from the cache, when warm); for several datasets,
    ``per_dataset``: ROUGE-1 F1 of each dataset's pages."""
    pages = labeled_pages(datasets)
    results, answers = [], {}
    runs = [(system, "") for system in SYSTEMS]
    if warm:
        runs += [(system, system) for system in RENDERING] + [("auto", "always")]
    with tempfile.TemporaryDirectory() as tmp:
        for system, cache in runs:
            label = f"{system}, {'warm cache' if cache == system else f'cache of {cache}'}" if cache else system
            cpu, wall, peak_mb, rows = measure(system, datasets, Path(tmp), cache)
            answers[label] = rows
            f1, exact = accuracy(rows, pages)
            rendered = Counter(row.get("answered_by", "") for row in rows.values())
            results.append({"dataset": name, "system": label, "n_pages": len(pages),
                            "cpu_ms_per_page": 1000 * cpu / len(pages), "wall_s": wall, "peak_mb": peak_mb,
                            "rouge1_f": f1, "exact": exact,
                            "rendered": rendered["rendered"] if system in RENDERING else 0,
                            "per_dataset": {dataset.name: accuracy(rows, labeled_pages((dataset,)))[0]
                                            for dataset in datasets} if len(datasets) > 1 else {}})
    trafilatura = results[SYSTEMS.index("trafilatura")]["cpu_ms_per_page"]
    for row in results:
        row["x_trafilatura"] = row["cpu_ms_per_page"] / trafilatura
        row["same_as_always"] = (sum(answers[row["system"]][key]["main_entity"] == always["main_entity"]
                                     for key, always in answers["always"].items()) / len(answers["always"])
                                 if row["system"].startswith("auto") else float("nan"))
    return results


def table(results: list[dict]) -> str:
    lines = ["| dataset | system | pages | CPU ms/page | x trafilatura | wall s | peak MB | rendered | ROUGE-1 F1 |"
             " exact | same as always |", "| --- | --- |" + " ---: |" * 9]
    for r in results:
        same = "" if r["same_as_always"] != r["same_as_always"] else f"{r['same_as_always']:.3f}"
        rendered = (f"{r['rendered']} ({r['rendered'] / r['n_pages']:.1%})"
                    if r["system"].split(",")[0] in RENDERING else "")
        lines.append(f"| {r['dataset']} | {r['system']} | {r['n_pages']} | {r['cpu_ms_per_page']:.1f} | "
                     f"{r['x_trafilatura']:.2f} | {r['wall_s']:.1f} | {r['peak_mb']:.0f} | {rendered} | "
                     f"{r['rouge1_f']:.3f} | {r['exact']:.3f} | {same} |")
    for r in results:
        if r["per_dataset"] and r["system"] in RENDERING:
            lines.append(f"\n{r['dataset']}, {r['system']}, ROUGE-1 F1 per dataset: "
                         + ", ".join(f"{name} {f1:.3f}" for name, f1 in r["per_dataset"].items()))
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", choices=sorted(DATASETS), default=list(DATASETS))
    parser.add_argument("--peer", nargs="+", metavar="NAME OUT DATASET", help=argparse.SUPPRESS)
    parser.add_argument("--warm", action="store_true", help="also run always and auto again on their filled caches")
    parser.add_argument("--out", help="also write the table to this Markdown file")
    args = parser.parse_args(argv)
    if args.peer:
        run_peer(args.peer[0], labeled_pages(tuple(map(Path, args.peer[2:]))), Path(args.peer[1]))
        return 0
    results = []
    for name in args.datasets:
        results.extend(benchmark(name, DATASETS[name], warm=args.warm))
        print(table([r for r in results if r["dataset"] == name]), flush=True)
    text = table(results)
    if args.out:
        load = os.getloadavg()[0]
        Path(args.out).write_text(
            f"# Cost per page: render always against auto, and two static extractors\n\n"
            f"`python benchmarks/render_cost.py --datasets {' '.join(args.datasets)}{' --warm' if args.warm else ''}` "
            f"(load average at the end {load:.1f} on {os.cpu_count()} cores; a render cache per system, cold at its "
            f"first run; CPU of the whole process tree)."
            f"\n\n{text}\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
