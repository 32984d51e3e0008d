"""The general recogniser's design choices on the cross-site protocol: ranker learners and the site vote.

For each variant (the parameters of ``configs/model/general.yaml`` with some overridden), trains and scores
on the cross-site datasets of ``configs/benchmark-cross-site.yaml`` (all but the in-site split) and prints
ROUGE-1 F1 / exact match, plus how many test pages answer from the slot that wins the site vote. The
scores do not depend on calibration, so it is off here to save time.

Usage::

    python benchmarks/general_variants.py [--variant NAME ...] [--out benchmarks/results/general_variants.md]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from mainentity._files import write_text_atomic
from mainentity.config import load_benchmark_config, load_config
from mainentity.evaluation.metrics import score_page
from mainentity.loading import load_run_pages, page_key
from mainentity.pipeline import iter_documents
from mainentity.recognizers.base import make_recognizer

REPO = Path(__file__).resolve().parents[1]
VARIANTS = {
    "both (shipped)": {},
    "gbm only": {"method": "gbm"},
    "linear only": {"method": "linear"},
    "both, no site vote": {"site_vote": False},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="also write the table to this Markdown file")
    parser.add_argument("--variant", action="append", choices=list(VARIANTS),
                        help="score only this variant (repeatable); all by default")
    args = parser.parse_args(argv)
    variants = {name: VARIANTS[name] for name in args.variant} if args.variant else VARIANTS
    bench = load_benchmark_config(REPO / "configs" / "benchmark-cross-site.yaml")
    params = load_config(REPO / "configs" / "general.yaml").model.params
    protocols = [(label, data) for label, data in bench.datasets if data.split in ("none", "site-folds")]
    folds = {}
    documents = {}
    for label, data in protocols:
        run_pages = load_run_pages(data, random_state=bench.seed)
        folds[label] = run_pages.folds
        pages = {page_key(p): p for fold in folds[label] for part in fold for p in part}
        for page, document, _ in iter_documents(list(pages.values()), needs_render=True, render=bench.render,
                                                subresources=run_pages.subresources):
            if document is not None:
                documents[page_key(page)] = document
    lines = ["| variant | " + " | ".join(label for label, _ in protocols) + " |",
             "| --- |" + " --- |" * len(protocols)]
    for name, override in variants.items():
        cells = []
        for label, _ in protocols:
            f1s, exacts = [], []
            for train, test in folds[label]:
                recognizer = make_recognizer("general", **{**params, "calibrate": False, "random_state": bench.seed,
                                                           **override})
                recognizer.fit([documents[page_key(p)] for p in train if page_key(p) in documents])
                test_documents = [documents[page_key(p)] for p in test if page_key(p) in documents]
                for document, prediction in zip(test_documents, recognizer.predict(test_documents), strict=True):
                    scores = score_page(prediction.main_entity, document.page.main_entity)
                    f1s.append(scores["rouge1_f"])
                    exacts.append(scores["exact"])
            cells.append(f"{np.mean(f1s):.3f} / {np.mean(exacts):.3f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    table = "\n".join(lines)
    print(table)
    if args.out:
        header = ("# The general recogniser's variants on the cross-site protocol\n\nROUGE-1 F1 / exact match; "
                  f"`python benchmarks/general_variants.py --out {args.out}`.\n\n")
        write_text_atomic(args.out, header + table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
