"""Accuracy gate: the general recogniser on sites it never saw, with pinned floors.

A fast slice of the five-dataset protocol of ``configs/benchmark-cross-site.yaml``: the labeled pages of the
five shared datasets together (the two one-site shops cut to a seeded sample of :data:`SHOP_PAGES` pages each
to keep CI short), dealt into 5 folds of whole sites, each fold tested by a model trained on the other four
(so each shop is tested by a model that saw the other shop but not it, as in the leave-one-dataset-out
protocol). Figures are per dataset, over its pages in the folds that tested them. A change that loses accuracy
fails here. Floors sit under the values measured when they were pinned (in the comments); raise a floor
explicitly when the model gets better, and give a reason to lower one.

The documents come through the path ``train`` takes (:func:`~mainentity.pipeline.render_all`: in the pages'
order, whatever order rendering finishes in) and the recogniser is seeded, so a run's figures do not
depend on the machine's load or a cold render cache.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import REPO

from mainentity.config import DataConfig, RenderConfig, load_config
from mainentity.evaluation.metrics import score_page
from mainentity.loading import load_labeled_pages
from mainentity.pipeline import RenderedDocuments, render_all
from mainentity.recognizers.base import make_recognizer
from mainentity.records import Document
from mainentity.splits import site_folds

pytestmark = [pytest.mark.browser, pytest.mark.shared_data]

#: Pages of each one-site shop in the slice (a seeded sample).
SHOP_PAGES = 150
DATASETS = {"christianbook": "swde-book-christianbook", "booksamillion": "swde-book-booksamillion",
            "readability": "readability-realworld", "fundus": "fundus-half", "postlight": "postlight-half"}

# (ROUGE-1 F1, exact) floors per dataset: the values this test measures (seed 0 for the deal of sites into folds and
# for the recogniser) less the noise measured over five deals (`python benchmarks/gate_noise.py`, seeds 0-4, on the
# code of 2026-12-06 where a heading in a <nav> is no page heading), rounded down. In the comments: seed 0's
# values, then the range over the five seeds.
# christianbook answers every page right under every deal; its floor allows one page of 150.
# booksamillion's fold is all or nothing: the site vote moves every page to the slot most pages answer. When
# the Dice fallback labeled training <title>s with their site suffix as headlines, its pages' whole <title>
# ("Wolf Tales X by Kate Douglas (Paperback): booksamillion.com") won most pages, and the vote gave exact 0.20;
# labeled only when exact, the heading wins. The floor is there to catch that flip.
FLOORS = {
    "christianbook": (0.99, 0.99),  # 1.000, 1.000; range 0.000, 0.000
    "booksamillion": (0.89, 0.87),  # 0.948, 0.940; range 0.052 (0.948-1.000), 0.060 (0.940-1.000)
    "readability": (0.93, 0.90),  # 0.958, 0.935; range 0.021 (0.942-0.963), 0.032 (0.914-0.946)
    "fundus": (0.94, 0.79),  # 0.947, 0.825; range 0.007 (0.945-0.952), 0.033 (0.817-0.850)
    "postlight": (0.92, 0.89),  # 0.947, 0.916; range 0.026 (0.926-0.952), 0.024 (0.904-0.928)
}


def gate_documents(shared_datasets: Path, render_cache_dir: Path) -> list[tuple[str, Document]]:
    """The slice's documents as ``(dataset short name, document)``, rendered (render cache in ``render_cache_dir``)."""
    render = RenderConfig(cache_dir=str(render_cache_dir), concurrency=4)
    out = []
    for short, name in DATASETS.items():
        limit = SHOP_PAGES if name.startswith("swde") else None
        loaded, labeled = load_labeled_pages(DataConfig(datasets=(str(shared_datasets / name),)), max_pages=limit)
        rendered, _ = render_all(labeled, RenderedDocuments(render, loaded.subresources), desc=short)
        out += [(short, document) for document in rendered]
    return out


@pytest.fixture(scope="module")
def documents(shared_datasets, render_cache_dir):
    return gate_documents(shared_datasets, render_cache_dir)


def general_recognizer(seed: int = 0):
    model = load_config(REPO / "configs" / "general.yaml").model
    return make_recognizer(model.name, **{**model.params, "random_state": seed})


def fold_scores(documents, seed: int = 0) -> dict[str, tuple[float, float]]:
    """ROUGE-1 F1 and exact per dataset over 5 folds of whole sites of all the documents (``seed``: the deal of the
    sites into folds and the recogniser's random state)."""
    dataset_of = {(d.page.site_id, d.page.path): short for short, d in documents}
    by_key = {(d.page.site_id, d.page.path): d for _, d in documents}
    rows: dict[str, list[tuple[float, float]]] = {short: [] for short in DATASETS}
    for train, test in site_folds([d.page for _, d in documents], 5, random_state=seed):
        recognizer = general_recognizer(seed).fit([by_key[(p.site_id, p.path)] for p in train])
        test_documents = [by_key[(p.site_id, p.path)] for p in test]
        for prediction, document in zip(recognizer.predict(test_documents), test_documents, strict=True):
            score = score_page(prediction.main_entity, document.page.main_entity)
            rows[dataset_of[(prediction.site_id, prediction.path)]].append((score["rouge1_f"], score["exact"]))
    return {short: tuple(np.mean(values, axis=0)) for short, values in rows.items()}


def test_site_folds_across_the_five_datasets(documents):
    scores = fold_scores(documents)
    failed = []
    for short, (f1, exact) in scores.items():
        floor_f1, floor_exact = FLOORS[short]
        print(f"{short}: ROUGE-1 F1 {f1:.3f} (floor {floor_f1}), exact {exact:.3f} (floor {floor_exact})")
        if f1 < floor_f1 or exact < floor_exact:
            failed.append((short, round(f1, 3), round(exact, 3)))
    assert not failed, failed
