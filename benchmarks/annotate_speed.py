"""How long a person waits in `mainentity annotate`: page views, screenshots and label writes.

    python benchmarks/annotate_speed.py [--pages 10] [--manifest-lines 1000] [--out FILE.md]

On a copy of the sample shop (render cache in a fresh temporary directory, so pages are rendered
cold), through the app's HTTP API as the browser calls it: the first page view (starts Chromium and
renders the page), the next page views (render through the running Chromium), the screenshots (a
second load of the page, taken on first request), the same requests again (served from the session),
and a label write (lock, read, rewrite and rename of the manifest) on a manifest of
``--manifest-lines`` lines. Prints the figures as a Markdown table and writes them to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from annotate_browser import running_app  # noqa: E402

from mainentity._files import write_text_atomic  # noqa: E402
from mainentity.annotate.manifest import LabelState, ManifestLabels  # noqa: E402
from mainentity.annotate.session import AnnotationSession  # noqa: E402
from mainentity.config import RenderConfig  # noqa: E402

SITE = REPO / "datasets" / "sample-shop" / "sites" / "sample-shop"


def timed_get(url: str) -> float:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as response:
        response.read()
    return time.perf_counter() - started


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--manifest-lines", type=int, default=1000)
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "annotate_speed.md"))
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "shop"
        shutil.copytree(SITE, site)
        session = AnnotationSession(site, render=RenderConfig(cache_dir=str(Path(tmp) / "render-cache")))
        paths = list(session.pages)[: args.pages]
        with running_app(session) as url:
            views = [timed_get(f"{url}api/page?path={path}") for path in paths]
            shots = [timed_get(f"{url}api/screenshot?path={path}") for path in paths]
            again = [timed_get(f"{url}api/page?path={path}") + timed_get(f"{url}api/screenshot?path={path}")
                     for path in paths]
        rows += [
            ("first page view (Chromium start + render)", views[0]),
            (f"next page views, median of {len(views) - 1}", statistics.median(views[1:])),
            ("first screenshot", shots[0]),
            (f"next screenshots, median of {len(shots) - 1}", statistics.median(shots[1:])),
            (f"page view + screenshot shown again, median of {len(again)}", statistics.median(again)),
        ]

        big = Path(tmp) / "big"
        big.mkdir()
        lines = [json.dumps({"path": f"pages/{i:05d}.html", "url": f"https://s.example/{i}", "main_entity": [],
                             "label_in_page": False}) for i in range(args.manifest_lines)]
        (big / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        labels = ManifestLabels(big)
        writes = []
        for i in range(50):
            started = time.perf_counter()
            labels.write(f"pages/{i:05d}.html", [f"Item {i}"], False, LabelState().version, label_in_page=True)
            writes.append(time.perf_counter() - started)
        rows.append((f"label write, {args.manifest_lines}-line manifest, median of 50", statistics.median(writes)))

    command = "python benchmarks/annotate_speed.py " + " ".join(argv if argv is not None else sys.argv[1:])
    table = ["| step | seconds |", "| --- | ---: |", *(f"| {name} | {seconds:.3f} |" for name, seconds in rows)]
    text = (f"# annotate: waiting times\n\n`{command.strip()}` (sample shop, cold render cache, shared 2-core "
            "machine)\n\n" + "\n".join(table) + "\n")
    print(text)
    write_text_atomic(Path(args.out), text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
