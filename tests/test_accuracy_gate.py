"""Accuracy gate: the general recogniser on sites it never saw, with pinned floors.

The cross-site protocol of ``configs/benchmark-cross-site.yaml`` on the shared datasets (christianbook cut
to a seeded sample of 300 pages to keep CI short): train on christianbook and test on Readability's
real-world pages, the other way round, and 5 folds of whole Readability sites. A change that loses
accuracy fails here. Floors sit a little under the values measured when they were pinned (in the
comments); raise a floor explicitly when the model gets better, and give a reason to lower one.

The documents come through the path ``train`` takes (:func:`~mainentity.pipeline.render_all`: in the pages'
order, whatever order rendering finishes in) and the recogniser is seeded, so a run's figures do not
depend on the machine's load or a cold render cache.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO

from mainentity.config import DataConfig, RenderConfig, load_config
from mainentity.evaluation.metrics import score_page
from mainentity.loading import load_labeled_pages
from mainentity.pipeline import RenderedDocuments, render_all
from mainentity.recognizers.base import make_recognizer
from mainentity.splits import site_folds

pytestmark = [pytest.mark.browser, pytest.mark.shared_data]

# (ROUGE-1 F1, exact) floors; measured values when pinned in the comments.
FLOORS = {
    "christianbook->readability": (0.92, 0.87),  # 0.947, 0.903 on 2026-12-01 (generic-title copies)
    "readability->christianbook": (0.98, 0.98),  # 1.000, 1.000
    "readability-site-folds": (0.96, 0.93),  # 0.987, 0.957 when pinned; 0.981, 0.946 on 2026-12-03
}


@pytest.fixture(scope="module")
def documents(shared_datasets, render_cache_dir):
    render = RenderConfig(cache_dir=str(render_cache_dir), concurrency=4)
    out = {}
    for name, limit in (("swde-book-christianbook", 300), ("readability-realworld", None)):
        loaded, labeled = load_labeled_pages(DataConfig(datasets=(str(shared_datasets / name),)), max_pages=limit)
        out[name], _ = render_all(labeled, RenderedDocuments(render, loaded.subresources), desc=name)
    return out


def general_recognizer():
    model = load_config(REPO / "configs" / "general.yaml").model
    return make_recognizer(model.name, **{**model.params, "random_state": 0})


def scores(recognizer, test):
    labels = {(d.page.site_id, d.page.path): d.page.main_entity for d in test}
    rows = [score_page(p.main_entity, labels[(p.site_id, p.path)]) for p in recognizer.predict(test)]
    return np.mean([r["rouge1_f"] for r in rows]), np.mean([r["exact"] for r in rows])


def check(name, f1, exact):
    floor_f1, floor_exact = FLOORS[name]
    print(f"{name}: ROUGE-1 F1 {f1:.3f} (floor {floor_f1}), exact {exact:.3f} (floor {floor_exact})")
    assert f1 >= floor_f1 and exact >= floor_exact, (name, f1, exact)


def test_christianbook_to_readability(documents):
    recognizer = general_recognizer().fit(documents["swde-book-christianbook"])
    check("christianbook->readability", *scores(recognizer, documents["readability-realworld"]))


def test_readability_to_christianbook(documents):
    recognizer = general_recognizer().fit(documents["readability-realworld"])
    check("readability->christianbook", *scores(recognizer, documents["swde-book-christianbook"]))


def test_readability_site_folds(documents):
    pages = documents["readability-realworld"]
    by_key = {(d.page.site_id, d.page.path): d for d in pages}
    f1s, exacts = [], []
    for train, test in site_folds([d.page for d in pages], 5, random_state=0):
        recognizer = general_recognizer()
        recognizer.fit([by_key[(p.site_id, p.path)] for p in train])
        f1, exact = scores(recognizer, [by_key[(p.site_id, p.path)] for p in test])
        f1s.append(f1 * len(test))
        exacts.append(exact * len(test))
    check("readability-site-folds", sum(f1s) / len(pages), sum(exacts) / len(pages))
