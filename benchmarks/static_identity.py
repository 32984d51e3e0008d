"""Does a change leave the static reader's documents and the static model's answers as they were?

Reads every page of the shared datasets with :func:`mainentity.render.static.read_static` and writes one
JSON line per page: a SHA-256 of its reading (the ``repr`` of the whole :class:`RenderedPage`: title, meta
tags, every text block and segment with all their fields) or its error, and the shipped static model's
prediction (every field of the :class:`Prediction`), each site's readable pages predicted together. Run it
on the code before and after a change, then compare the two files::

    PYTHONPATH=OLD python benchmarks/static_identity.py --out before.jsonl
    PYTHONPATH=$PWD python benchmarks/static_identity.py --out after.jsonl
    python benchmarks/static_identity.py --compare before.jsonl after.jsonl   # exit status 1 on a difference

Pages answered by rendering do not depend on the static reader; slot transfer reads the other pages of a
site at its locators' slots only (``read_static(page, within=paths)``, whose blocks there are those of the
whole reading: ``tests/test_static_reader.py``), so equal readings and equal static answers mean equal
``--render auto`` answers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import sys
from collections import defaultdict
from pathlib import Path

from render_cost import SHARED

REPO = Path(__file__).resolve().parents[1]
DATASETS = ("readability-realworld", "fundus-half", "postlight-half", "swde-book-booksamillion",
            "swde-book-christianbook")


def page_rows(dataset: Path):
    """One dict per page of ``dataset``: its key, the digest of its static reading and its static answer."""
    from mainentity.loading import load_pages
    from mainentity.model_store import load_static_model
    from mainentity.records import Document
    from mainentity.render.static import read_static

    loaded = load_pages([str(dataset)])
    model = load_static_model()
    rows, sites = {}, defaultdict(list)
    for page in loaded.pages:
        key = (dataset.name, page.site_id, page.path)
        try:
            rendered = read_static(page, loaded.subresources.for_page(page))
        except ValueError as error:
            rows[key] = {"reading": f"error: {error}", "prediction": None}
            continue
        rows[key] = {"reading": hashlib.sha256(repr(rendered).encode("utf-8", "surrogatepass")).hexdigest()}
        sites[page.site_id].append(Document(page, rendered))
    for documents in sites.values():
        for document, prediction in zip(documents, model.recognizer.predict(documents), strict=True):
            rows[(dataset.name, document.page.site_id, document.page.path)]["prediction"] = repr(prediction)
    for key, row in rows.items():
        yield {"dataset": key[0], "site_id": key[1], "path": key[2], **row}


def compare(before: Path, after: Path) -> int:
    """Print the pages whose reading or prediction differ (or that one file lacks); the number of them."""
    def read(path: Path) -> dict:
        rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
        return {(r["dataset"], r["site_id"], r["path"]): (r["reading"], r["prediction"]) for r in rows}

    a, b = read(before), read(after)
    differences = [key for key in sorted(a.keys() | b.keys()) if a.get(key) != b.get(key)]
    for key in differences[:20]:
        print("differs:", "/".join(key), a.get(key), b.get(key))
    n_readings = sum(1 for v in a.values() if not v[0].startswith("error"))
    print(f"{len(a)} pages before, {len(b)} after ({n_readings} read, the others left to the renderer); "
          f"{len(differences)} differ in their static reading or static answer")
    return len(differences)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the pages' rows to this JSON Lines file")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        return 1 if compare(Path(args.compare[0]), Path(args.compare[1])) else 0
    if not args.out:
        parser.error("--out or --compare is needed")
    logging.disable(logging.WARNING)  # the datasets' anchor coverage warnings
    with open(args.out, "w", encoding="utf-8") as out:
        for name in args.datasets:
            for row in page_rows(SHARED / name):
                out.write(json.dumps(row) + "\n")
            print(f"{name} done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
