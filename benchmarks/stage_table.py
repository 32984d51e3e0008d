"""Where the time of ``mainentity predict`` goes, stage by stage, beside trafilatura on the same pages.

One command, one run: for each page set, ``mainentity predict`` (the CLI's ``main``, default model,
``--render auto``, a cold render cache of its own) runs in a fresh process whose time is split into
stages; then trafilatura 2.3's ``extract_metadata`` runs on the same pages' bytes in a fresh process too
(``render_cost.run_peer``). Page sets:

- ``lone``: the pages of readability-realworld, fundus-half and postlight-half (one to five pages a site),
  given to one ``predict`` together;
- ``dump``: the 2000 pages of swde-book-booksamillion, one site (slot transfer);
- ``one``: the first lone page alone: the start-up of ``predict`` on one page.

Stages are measured inside the ``predict`` process by wrapping the functions that do each stage's work
(the process's own code is not changed); each moment of wall time and of the process's CPU time
(``time.process_time``: every thread, the render thread included) is charged to the innermost stage
running, so the stages add up to the whole. ``imports`` is every first import of a module, wherever it
happens (also inside model loading); ``process start`` is from the parent's ``Popen`` to the child's
first statement (its CPU is what the interpreter used before that statement). ``Chromium (child
processes)`` is the CPU of Playwright's driver and Chromium (``RUSAGE_CHILDREN`` of the ``predict``
process once they ended). ``other`` is everything no stage claims (argument parsing, logging, the
render-few bookkeeping, the site vote's grouping, ...). Each wrapped call costs about a microsecond
of overhead, charged to the stage around it; the per-element style calls (``CSS cascade``) are the only
ones made thousands of times a page (their number is printed).

Usage (repository root, ``../shared`` beside it, or its ``datasets`` folder in ``MAINENTITY_DATASETS``)::

    python benchmarks/stage_table.py [--max-pages N] [--sets lone dump one] [--out benchmarks/results/stage_table.md]
"""

from __future__ import annotations

import time

T_START, CPU_START = time.time(), time.process_time()  # first statement: the child's process start ends here

import argparse  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from collections import Counter, defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_cost import LONE, SHARED, children_cpu, labeled_pages, run_peer  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SETS = {"lone": LONE, "dump": ("swde-book-booksamillion",), "one": LONE}
#: Stages in the order a page passes through them.
STAGES = ("process start", "imports", "model load", "reading and decoding", "static parse", "CSS cascade",
          "static walk", "candidates and features", "ranker and calibrator", "slot transfer", "rendering",
          "writing", "other")
#: ``(module, attribute, stage)``: the functions whose time is charged to a stage ("Class.method" for a
#: method); wrapped when their module is first imported.
WRAPS = (
    ("mainentity.runs", "_load_model", "model load"),
    ("mainentity.runs", "_static_model_for", "model load"),
    ("mainentity.runs", "load_inputs", "reading and decoding"),
    ("mainentity.render.static", "LexborHTMLParser", "static parse"),
    ("mainentity.render.static", "Cascade", "CSS cascade"),
    ("mainentity.render.static", "_Walk.style_of", "CSS cascade"),
    ("mainentity.render.static", "read_static", "static walk"),
    ("mainentity.slot_transfer.templates", "LexborHTMLParser", "static parse"),
    ("mainentity.recognizers.general", "GeneralRecognizer._page_candidates", "candidates and features"),
    ("mainentity.recognizers.general", "GeneralRecognizer._scores", "ranker and calibrator"),
    ("mainentity.recognizers.general", "GeneralRecognizer._prediction", "ranker and calibrator"),
    ("mainentity.render_few", "transfer_site", "slot transfer"),
    ("mainentity.pipeline", "RenderedDocuments.__call__", "rendering"),
    ("mainentity.render.browser", "Renderer.close", "rendering"),
    ("mainentity.prediction_writer", "PredictionWriter.write", "writing"),
    ("mainentity.prediction_writer", "PredictionWriter.close", "writing"),
)


class StageClock:
    """Wall and CPU seconds charged to the innermost running stage (a stack of stages)."""

    def __init__(self, first: str) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: Counter = Counter()
        self.stack = [first]
        self.mark = (time.perf_counter(), time.process_time())

    def _charge(self) -> None:
        now = (time.perf_counter(), time.process_time())
        top = self.stack[-1]
        self.wall[top] += now[0] - self.mark[0]
        self.cpu[top] += now[1] - self.mark[1]
        self.mark = now

    def enter(self, stage: str) -> None:
        self._charge()
        self.stack.append(stage)
        self.calls[stage] += 1

    def leave(self) -> None:
        self._charge()
        self.stack.pop()

    def timed(self, function, stage: str):
        """``function`` charging its calls (and the items of a generator it returns) to ``stage``."""

        def wrapper(*args, **kwargs):
            self.enter(stage)
            try:
                result = function(*args, **kwargs)
            finally:
                self.leave()
            return self._timed_items(result, stage) if inspect.isgenerator(result) else result

        wrapper.__wrapped__ = function
        return wrapper

    def _timed_items(self, generator, stage: str):
        while True:
            self.enter(stage)
            try:
                item = next(generator)
            except StopIteration:
                return
            finally:
                self.leave()
            yield item


def _install(clock: StageClock) -> None:
    """Charge first imports to ``imports`` and wrap :data:`WRAPS` as their modules are imported."""
    import importlib._bootstrap as bootstrap

    pending = defaultdict(list)
    for module, attribute, stage in WRAPS:
        pending[module].append((attribute, stage))
    find_and_load = bootstrap._find_and_load

    def timed_find_and_load(name, import_):
        clock.enter("imports")
        try:
            module = find_and_load(name, import_)
        finally:
            clock.leave()
        for attribute, stage in pending.pop(name, ()):
            owner_name, _, method = attribute.rpartition(".")
            owner = getattr(module, owner_name) if owner_name else module
            setattr(owner, method or attribute, clock.timed(getattr(owner, method or attribute), stage))
        return module

    bootstrap._find_and_load = timed_find_and_load
    for name in list(pending):  # already imported (none should be)
        if name in sys.modules:
            raise RuntimeError(f"{name} was imported before the stage clock")


def selected_pages(page_set: str, max_pages: int | None) -> list[tuple]:
    """``(site_id, path, file, url, labels)`` of the set's pages, at most ``max_pages`` (``one``: 1)."""
    pages = [page for name in SETS[page_set] for page in labeled_pages((SHARED / name,))]
    limit = 1 if page_set == "one" else max_pages
    return pages[:limit] if limit else pages


def child(inputs: list[str], out: Path) -> None:
    """Run ``mainentity predict`` on ``inputs`` with the stage clock; write the stages as JSON to ``out``."""
    clock = StageClock("other")
    _install(clock)
    import mainentity.cli

    with tempfile.TemporaryDirectory() as tmp:
        status = mainentity.cli.main(["predict", *inputs, "-o", str(Path(tmp) / "p.jsonl"), "-q", "--render", "auto"])
        rows = [json.loads(line) for line in (Path(tmp) / "p.jsonl").read_text(encoding="utf-8").splitlines()]
    clock._charge()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    out.write_text(json.dumps({
        "status": status, "t_start": T_START, "cpu_start": CPU_START, "wall": clock.wall, "cpu": clock.cpu,
        "calls": clock.calls, "chromium_cpu": usage.ru_utime + usage.ru_stime, "n_pages": len(rows),
        "answered_by": Counter(row.get("answered_by") or "error" for row in rows),
    }), encoding="utf-8")


def set_inputs(page_set: str, max_pages: int | None, work: Path) -> list[str]:
    """The datasets of the set, or, for fewer pages, copies in ``work`` of the sites of the selected pages
    holding those pages, the sites' other files (style sheets) and a manifest of those pages only."""
    selected = selected_pages(page_set, max_pages)
    if len(selected) == sum(len(labeled_pages((SHARED / name,))) for name in SETS[page_set]):
        return [str(SHARED / name) for name in SETS[page_set]]
    keep = {page_file for _, _, page_file, *_ in selected}
    inputs = []
    for name in SETS[page_set]:
        copy = work / f"{page_set}-{name}"
        for manifest in sorted((SHARED / name).glob("sites/*/manifest.jsonl")):
            site, rows = manifest.parent, manifest.read_text(encoding="utf-8").splitlines()
            listed = {json.loads(row)["path"] for row in rows}
            if not any(site / path in keep for path in listed):
                continue
            for file in site.rglob("*"):
                relative = file.relative_to(site).as_posix()
                if file.is_file() and relative != "manifest.jsonl" and (
                        relative not in listed or file in keep):
                    (copy / "sites" / site.name / relative).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(file, copy / "sites" / site.name / relative)
            (copy / "sites" / site.name / "manifest.jsonl").write_text("".join(
                row + "\n" for row in rows if site / json.loads(row)["path"] in keep), encoding="utf-8")
        if copy.exists():
            inputs.append(str(copy))
    return inputs


def measure_set(page_set: str, max_pages: int | None, work: Path) -> dict:
    """Stages of ``predict`` and trafilatura's CPU on one set, each in a fresh process."""
    out = work / f"{page_set}.json"
    env = {**os.environ, "XDG_CACHE_HOME": str(work / f"cache-{page_set}"), "PYTHONPATH": str(REPO)}
    argv = [sys.executable, __file__, "--child", str(out), *set_inputs(page_set, max_pages, work)]
    before, started = children_cpu(), time.time()
    subprocess.run(argv, env=env, check=True, cwd=REPO)
    tree_cpu, tree_wall = children_cpu() - before, time.time() - started
    stages = json.loads(out.read_text(encoding="utf-8"))
    stages.update(page_set=page_set, tree_cpu=tree_cpu, tree_wall=tree_wall, start_wall=stages["t_start"] - started)
    before, started = children_cpu(), time.time()
    subprocess.run([sys.executable, __file__, "--peer", page_set, str(work / "peer.jsonl")]
                   + (["--max-pages", str(max_pages)] if max_pages else []), env=env, check=True, cwd=REPO)
    stages.update(trafilatura_cpu=children_cpu() - before, trafilatura_wall=time.time() - started)
    return stages


def stage_rows(result: dict) -> list[tuple[str, float, float]]:
    """``(stage, wall s, CPU s)`` in :data:`STAGES` order, process start and Chromium included."""
    rows = [("process start", result["start_wall"], result["cpu_start"])]
    rows += [(stage, result["wall"].get(stage, 0.0), result["cpu"].get(stage, 0.0)) for stage in STAGES[1:]]
    rows.append(("Chromium (child processes)", float("nan"), result["chromium_cpu"]))
    return rows


def table(results: list[dict]) -> str:
    """One Markdown table: a column pair (total, per page) per set."""
    header = "| stage |" + "".join(
        f" {r['page_set']}: CPU s | ms/page | share |" for r in results)
    lines = [header, "|---|" + "---:|---:|---:|" * len(results)]
    per_set = [stage_rows(r) for r in results]
    totals = [sum(cpu for _, _, cpu in rows) for rows in per_set]
    for i, (stage, *_) in enumerate(per_set[0]):
        cells = "".join(f" {rows[i][2]:.2f} | {1000 * rows[i][2] / r['n_pages']:.1f} | {rows[i][2] / total:.0%} |"
                        for rows, r, total in zip(per_set, results, totals, strict=True))
        lines.append(f"| {stage} |{cells}")
    lines.append("| **total (stages)** |" + "".join(f" **{total:.2f}** | **{1000 * total / r['n_pages']:.1f}** | |"
                                                  for r, total in zip(results, totals, strict=True)))
    lines.append("| exit and unclaimed (tree - stages) |" + "".join(
        f" {r['tree_cpu'] - total:.2f} | {1000 * (r['tree_cpu'] - total) / r['n_pages']:.1f} | |"
        for r, total in zip(results, totals, strict=True)))
    lines.append("| process tree (getrusage) |" + "".join(
        f" {r['tree_cpu']:.2f} | {1000 * r['tree_cpu'] / r['n_pages']:.1f} | |" for r in results))
    lines.append("| trafilatura extract_metadata (own process) |" + "".join(
        f" {r['trafilatura_cpu']:.2f} | {1000 * r['trafilatura_cpu'] / r['n_pages']:.1f} | |" for r in results))
    lines.append("| **x trafilatura (process trees)** |" + "".join(
        f" **{r['tree_cpu'] / r['trafilatura_cpu']:.2f}** | | |" for r in results))
    return "\n".join(lines)


def notes(results: list[dict]) -> str:
    lines = []
    for r in results:
        answered = ", ".join(f"{k} {v}" for k, v in sorted(r["answered_by"].items()))
        wall = sum(r["wall"].values()) + r["start_wall"]
        lines.append(f"- {r['page_set']}: {r['n_pages']} pages ({answered}); wall {wall:.1f} s in stages, "
                     f"{r['tree_wall']:.1f} s for the process; per-element style calls "
                     f"{r['calls'].get('CSS cascade', 0)}; trafilatura wall {r['trafilatura_wall']:.1f} s.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", choices=sorted(SETS), default=["lone", "dump", "one"])
    parser.add_argument("--max-pages", type=int, help="at most this many pages of each set (a quick run)")
    parser.add_argument("--out", help="also write the table to this Markdown file")
    parser.add_argument("--child", nargs="+", metavar=("OUT", "INPUT"), help=argparse.SUPPRESS)
    parser.add_argument("--peer", nargs=2, metavar=("SET", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[1:], Path(args.child[0]))
        return 0
    if args.peer:
        run_peer("trafilatura", selected_pages(args.peer[0], args.max_pages), Path(args.peer[1]))
        return 0
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for page_set in args.sets:
            results.append(measure_set(page_set, args.max_pages, Path(tmp)))
            print(table(results[-1:]), flush=True)
    text = table(results) + "\n\n" + notes(results)
    print(text)
    if args.out:
        command = " ".join(["python", "benchmarks/stage_table.py", *(argv if argv is not None else sys.argv[1:])])
        load = os.getloadavg()[0]
        Path(args.out).write_text(
            f"# Stage table: where the CPU of `mainentity predict --render auto` goes\n\n`{command}` (load average "
            f"at the end {load:.1f} on {os.cpu_count()} cores; cold render cache; CPU seconds of the predict "
            f"process by stage, see the script's docstring).\n\n{text}\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
