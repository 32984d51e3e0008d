"""Train configs and copy their aggregate reports into ``benchmarks/results/<name>/``.

    python benchmarks/train_results.py configs/christianbook-msrbfn.yaml configs/readability-msrbfn.yaml

Only aggregate files are copied (report.md, summary.csv, per_site.csv, meta.json, config.yaml): the
per-page tables quote page text and labels of the shared datasets, which stay out of the repository
(so does report.md's worst-pages list, cut from the copy).
Prints the wall time of each run (seconds) and its test-split summary.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
import time
from pathlib import Path

from mainentity.config import load_config
from mainentity.runs import train

RESULTS = Path(__file__).resolve().parent / "results"
AGGREGATE_FILES = ("report.md", "summary.csv", "per_site.csv", "meta.json", "config.yaml")


def without_section(markdown: str, heading: str) -> str:
    r"""``markdown`` without the section that starts at the line ``heading`` (up to the next ``## `` heading).

    >>> without_section("# T\n\n## A\n\na\n\n## B\n\nb\n", "## A")
    '# T\n\n## B\n\nb\n'
    """
    before, found, after = markdown.partition(f"{heading}\n")
    if not found:
        return markdown
    rest = after.split("\n## ", 1)
    return before + ("## " + rest[1] if len(rest) == 2 else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="+", help="YAML configs to train")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where the aggregate reports go")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for config_path in args.configs:
        config = load_config(config_path)
        started = time.perf_counter()
        run_dir = train(config)
        seconds = time.perf_counter() - started
        target = args.results / config.name
        target.mkdir(parents=True, exist_ok=True)
        for name in AGGREGATE_FILES:
            if (run_dir / name).exists():
                shutil.copy2(run_dir / name, target / name)
        if (target / "report.md").exists():
            report = (target / "report.md").read_text(encoding="utf-8")
            (target / "report.md").write_text(without_section(report, "## Worst pages"), encoding="utf-8")
        meta = json.loads((run_dir / "meta.json").read_text(encoding="utf-8"))
        print(f"{config.name}: {seconds:.1f} s wall; timings {meta['timings']}")
        print(f"  test summary: {json.dumps(meta['test_summary'], default=str)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
