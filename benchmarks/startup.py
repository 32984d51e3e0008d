"""Benchmark: how long each command is silent before its first line, and how long a wrong argument takes.

    python benchmarks/startup.py             # from the repository root; prints seconds per command

Each command runs as ``python -m mainentity ...`` in a fresh process; the time is from its start to its
first line on standard error (a log line or the error), in seconds of wall time. The commands that
must fail (a wrong output name, a missing page, a YAML syntax error) are stopped by the argument
checks before the model or any input is read; the others are stopped after their first line.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "datasets" / "sample-shop"


def first_line_seconds(argv: list[str]) -> tuple[float, str]:
    """Seconds from starting ``python -m mainentity *argv`` to its first line on stderr, and that line."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "mainentity", *argv], cwd=ROOT, text=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    line = process.stderr.readline()
    seconds = time.perf_counter() - started
    process.kill()
    process.wait()
    return seconds, line.strip()


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        bad_yaml = Path(tmp) / "bad.yaml"
        bad_yaml.write_text("name: x\n  model: [\n", encoding="utf-8")
        commands = {
            "predict (first line)": ["predict", str(SAMPLE), "-o", str(Path(tmp) / "p.jsonl")],
            "evaluate (first line)": ["evaluate", str(SAMPLE), "-o", str(Path(tmp) / "eval")],
            "predict -o x.txt (error)": ["predict", str(SAMPLE), "-o", "x.txt"],
            "explain missing page (error)": ["explain", "general", "nope.html", "-o", "a.png"],
            "train YAML syntax error (error)": ["train", str(bad_yaml)],
        }
        print("| command | s to first line | first line |\n| --- | ---: | --- |")
        for name, argv in commands.items():
            seconds, line = first_line_seconds(argv)
            print(f"| {name} | {seconds:.2f} | {line.split(': ', 1)[-1][:80]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
