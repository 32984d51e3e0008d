"""The ceiling of the general recogniser's candidate set: the best candidate's ROUGE-1 F1 per page.

No recogniser that picks one of a page's candidates can score above it. Printed per dataset, beside
the ceiling of the MS-RBFN's candidates (the visible text blocks alone), as mean ROUGE-1 F1 and share of
pages where some candidate is an exact match.

Usage::

    python benchmarks/candidate_ceiling.py [DATASET ...]   # default: both shared datasets and the sample shop
"""

from __future__ import annotations

import argparse

import numpy as np

from mainentity.config import RenderConfig
from mainentity.evaluation.metrics import score_page
from mainentity.features.candidates import page_candidates
from mainentity.loading import load_pages
from mainentity.pipeline import iter_documents

DEFAULT_DATASETS = ("../shared/datasets/swde-book-christianbook", "../shared/datasets/readability-realworld",
                    "datasets/sample-shop")


def best_scores(texts, labels) -> tuple[float, float]:
    """Best ROUGE-1 F1 and best exact match of any of ``texts`` against ``labels``; 0 when no text."""
    scores = [score_page(text, labels) for text in texts]
    return max((s["rouge1_f"] for s in scores), default=0.0), max((s["exact"] for s in scores), default=0.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="*", default=DEFAULT_DATASETS)
    args = parser.parse_args(argv)
    print("| dataset | pages | candidates/page | ceiling ROUGE-1 F1 | ceiling exact | blocks only: F1 | exact |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for dataset in args.datasets:
        loaded = load_pages([dataset])
        pages = [page for page in loaded.pages if page.main_entity]
        rows = []
        for page, document, _ in iter_documents(pages, needs_render=True, render=RenderConfig(),
                                                subresources=loaded.subresources):
            if document is None:
                rows.append((0, 0.0, 0.0, 0.0, 0.0))
                continue
            candidates = page_candidates(document.rendered)
            blocks = [block.text for block in document.rendered.blocks if not block.hidden]
            rows.append((len(candidates), *best_scores([c.text for c in candidates], page.main_entity),
                         *best_scores(blocks, page.main_entity)))
        table = np.array(rows)
        means = " | ".join(f"{value:.3f}" for value in table[:, 1:].mean(axis=0))
        print(f"| {dataset.rstrip('/').split('/')[-1]} | {len(rows)} | {table[:, 0].mean():.0f} | {means} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
