"""Run a benchmark config: every model and peer on the same test pages (same as ``mainentity benchmark``).

Usage::

    python benchmarks/run_comparison.py configs/benchmark.yaml [--systems ...] [--datasets ...] [--max-pages N]

Writes the full report to ``runs/<name>/`` and the copy meant for the repository (third-party page texts
withheld) to ``<results_dir>/<name>/``; see :func:`mainentity.comparison.compare.run_benchmark`.
"""

from __future__ import annotations

import sys

from mainentity.cli import main

if __name__ == "__main__":
    # The report records ``mainentity <argv[1:]>``; this is the same command.
    sys.argv = [sys.argv[0], "benchmark", *sys.argv[1:]]
    sys.exit(main(sys.argv[1:]))
