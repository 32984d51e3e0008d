"""Imports flow one way along the data flow; no stage reaches back; the package imports no heavy library."""

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mainentity"

# Rank of each module or subpackage along the data flow: a module may import only from lower ranks or
# from its own subpackage. Models take plain arrays, so they import nothing of the package.
RANKS = {
    "_version": 0,  # the package's version
    "_files": 0,  # atomic file writes
    "source_digest": 0,  # a digest of a module's code and what it imports: keys of results kept between runs
    "records": 0,
    "text": 0,
    "collector": 0,  # cycle-collector thresholds while documents are built (pipeline, runs)
    "log_summary": 0,  # messages that would repeat per site or page, logged once with a count
    "sitedump": 1,  # site dumps: decoding, manifest, pages, subresources
    "linkgraph": 1,  # incoming anchor texts: urls, url_keys, anchors
    "warc": 1.5,  # crawls into the records of site dumps: crawl, record_reader, http_payload, subresources
    "render": 2,
    "cleaning": 3,
    "features": 4,
    "models": 4,
    "recognizers": 5,
    "evaluation": 5,
    "splits": 5,
    "prediction_writer": 5,
    "model_io": 5,
    "slot_transfer": 5.5,  # renders few pages of a site and reads the rest (features, render)
    "render_few": 5.75,  # the auto render policy over slot transfer and the static reader, stages passed in
    "config": 5,
    "loading": 5.5,  # reads the inputs: site dumps, WARC files, splits (sitedump, warc, linkgraph, splits)
    "model_store": 5.5,  # model directories: write and load (model_io, config)
    "pipeline": 6,
    "scaleout": 6.5,  # cluster tasks over the one predict path
    "runs": 7,
    "comparison": 8,
    "explain": 8,
    "distributed": 8,
    "api": 8,
    "annotate": 8,
    "cli": 9,
    "__init__": 10,  # the package re-exports the public names: nothing imports it
}


def stage_of(module: str) -> str:
    return module.split(".")[1] if module.count(".") else "__init__"


def imported_modules(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "mainentity":  # from mainentity import runs
            yield from (f"mainentity.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mainentity"):
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.startswith("mainentity"))


def test_imports_flow_one_way():
    violations = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        stage = relative.parts[1] if len(relative.parts) > 1 else None
        if stage in (None, "__init__", "__main__"):
            continue
        assert stage in RANKS, f"{relative}: stage {stage!r} has no rank in the import-graph test"
        for module in imported_modules(path):
            target = stage_of(module)
            if target == stage:
                continue
            if stage == "models" or RANKS[target] >= RANKS[stage]:
                violations.append(f"{'/'.join(relative.parts)} imports {module}")
    assert not violations, "imports against the data flow:\n" + "\n".join(sorted(violations))


def test_manifest_import_does_not_load_the_evaluation_stack():
    code = ("import sys, mainentity.annotate.manifest; "
            "print(sorted(m for m in ('pandas', 'sklearn', 'torch', 'playwright') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_package_import_does_not_load_heavy_libraries():
    code = "import sys, mainentity; print(sorted(m for m in ('torch', 'playwright', 'ot') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
