"""FastWARC against warcio on the same WARC file: records/s and MB/s to find the HTML responses and read them.

Both readers do the same work per record: parse the WARC and HTTP headers of every record, keep the
``response`` records with status 200 and an HTML content type, and read their payload bytes (what
:mod:`mainentity.warc` needs before decoding). The file is the sample shop written ``--copies`` times by
``datasets/make_sample_warc.py`` (gzipped per record, and uncompressed); each reader runs ``--repeat``
times and the best run counts.

Usage::

    python benchmarks/warc_readers.py [--copies 200] [--repeat 3] [--out benchmarks/results/warc_readers.md]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def load_sample_warc_maker():
    """The module ``datasets/make_sample_warc.py`` (a script, not a package), loaded from its file."""
    spec = importlib.util.spec_from_file_location("make_sample_warc", REPO / "datasets" / "make_sample_warc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_with_warcio(path: Path) -> tuple[int, int]:
    from warcio.archiveiterator import ArchiveIterator

    n_records = n_pages = 0
    with path.open("rb") as stream:
        for record in ArchiveIterator(stream):
            n_records += 1
            if record.rec_type != "response" or record.http_headers is None:
                continue
            if record.http_headers.get_statuscode() != "200":
                continue
            if "html" not in (record.http_headers.get_header("Content-Type") or "").lower():
                continue
            record.content_stream().read()
            n_pages += 1
    return n_records, n_pages


def read_with_fastwarc(path: Path) -> tuple[int, int]:
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    n_records = n_pages = 0
    with path.open("rb") as stream:
        for record in ArchiveIterator(stream, parse_http=True):
            n_records += 1
            if record.record_type != WarcRecordType.response or record.http_headers is None:
                continue
            if record.http_headers.status_code != 200 or "html" not in (record.http_content_type or ""):
                continue
            record.reader.read()
            n_pages += 1
    return n_records, n_pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", help="also write the table as Markdown to this file")
    args = parser.parse_args(argv)
    maker = load_sample_warc_maker()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("sample.warc.gz", "sample.warc"):
            path = maker.write_sample_warc(Path(tmp) / name, copies=args.copies)
            size_mb = path.stat().st_size / 2**20
            for reader, read in (("warcio", read_with_warcio), ("fastwarc", read_with_fastwarc)):
                best = float("inf")
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    n_records, n_pages = read(path)
                    best = min(best, time.perf_counter() - started)
                rows.append((name, f"{size_mb:.1f}", reader, n_records, n_pages, f"{best:.3f}",
                             f"{n_records / best:.0f}", f"{size_mb / best:.1f}"))
                print(" | ".join(map(str, rows[-1])), flush=True)
    header = ("file", "MB", "reader", "records", "HTML pages", "best s", "records/s", "MB/s")
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    table = "\n".join(lines)
    print(table)
    if args.out:
        command = " ".join(["python", "benchmarks/warc_readers.py", *(argv if argv is not None else sys.argv[1:])])
        Path(args.out).write_text(
            f"# WARC readers\n\nCommand: `{command}` ({os.cpu_count()} CPUs, load average "
            f"{os.getloadavg()[0]:.1f} at the end)\n\n{table}\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
