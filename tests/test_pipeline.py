"""Tests of mainentity.pipeline: loading site dumps with their incoming anchor texts and coverage."""

import logging
import shutil

from conftest import SAMPLE_SHOP

from mainentity.config import DataConfig
from mainentity.linkgraph import AnchorCoverage
from mainentity.loading import anchor_coverage_notes, data_summary, load_pages
from mainentity.pipeline import StaticDocuments, render_all
from mainentity.records import Page


def test_load_pages_reports_the_anchor_coverage(caplog):
    with caplog.at_level(logging.INFO, logger="mainentity.loading"):
        loaded = load_pages([str(SAMPLE_SHOP)])
    (coverage,) = loaded.anchor_coverage
    assert (coverage.site_id, coverage.n_pages, coverage.n_pages_with_anchors) == ("sample-shop", 42, 42)
    assert sum(1 for page in loaded.pages if page.anchors) == 42
    assert "Incoming anchor texts (ILA): 42 of 42 pages (100.0%) in 1 site have at least one." in caplog.text
    assert "site sample-shop: 42 of 42 pages (100.0%) have incoming anchor texts from 592 links" in caplog.text
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]
    summary = data_summary(DataConfig(datasets=(str(SAMPLE_SHOP),)), loaded)
    assert summary["share_pages_with_anchors"] == 1.0
    assert summary["anchor_coverage"] == [{
        "site_id": "sample-shop", "n_pages": 42, "n_pages_with_anchors": 42, "n_links": 592,
        "n_hidden_links": 0, "n_generic_links": 15, "url_key": "normalised URL, query parameters kept: none",
    }]


def test_a_site_whose_pages_do_not_link_to_each_other_is_a_warning(tmp_path, caplog):
    site = tmp_path / "blog"
    site.mkdir()
    (site / "a.html").write_text('<a href="https://elsewhere.example/">Out</a><h1>A</h1>')
    (site / "b.html").write_text("<h1>B</h1>")
    with caplog.at_level(logging.DEBUG, logger="mainentity.loading"):
        loaded = load_pages([str(site)], base_url="https://blog.example/")
    assert loaded.anchor_coverage[0].silent
    (warning,) = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert warning.getMessage() == ("1 of 1 sites of several pages have no links between their pages: anchor texts "
                                    "are missing there (blog). If they do link, set data.anchor_url_pattern in the "
                                    "config")  # the words of many sites' warning
    (detail,) = [record.getMessage() for record in caplog.records if record.levelno == logging.DEBUG]
    assert detail.startswith("site blog: 0 of 2 pages (0.0%) have incoming anchor texts")  # -v


def test_anchor_coverage_notes():
    notes = anchor_coverage_notes([
        AnchorCoverage("shop", 4, 3, n_links=5, url_key="normalised URL"),
        AnchorCoverage("blog", 2, 0, url_key="normalised URL"),
        AnchorCoverage("lone", 1, 0),
    ])
    assert notes == [
        "Incoming anchor texts (ILA): 3 of 7 pages (42.9%) in 3 sites have at least one.",
        "site shop: 3 of 4 pages (75.0%) have incoming anchor texts from 5 links "
        "(0 hidden and 0 generic links left out; normalised URL)",
        "Warning: site blog: 0 of 2 pages (0.0%) have incoming anchor texts from 0 links "
        "(0 hidden and 0 generic links left out; normalised URL): check that its pages link to each other, "
        "or set data.anchor_url_pattern in the config",
    ]
    # under a model (predict, evaluate) its pattern is not the user's to set: no advice to set it
    assert anchor_coverage_notes([AnchorCoverage("blog", 2, 0)], configurable=False)[1].endswith(
        ": check that its pages link to each other")
    assert anchor_coverage_notes([]) == [
        "Incoming anchor texts (ILA): 0 of 0 pages (0.0%) in 0 sites have at least one."
    ]


def test_a_page_that_cannot_be_read_statically_is_logged_as_such(caplog):
    """A page with a declarative shadow root is refused by the static reader; the log says it failed to be
    read statically ("static reading failed"), not that it failed to render: no browser ran."""
    shadow = Page("s", "shadow.html", "https://s.example/shadow",
                  "<title>T</title><div><template shadowrootmode='open'><h1>Inside</h1></template></div>")
    plain = Page("s", "plain.html", "https://s.example/plain", "<title>T</title><h1>Plain</h1>")
    with caplog.at_level(logging.WARNING, logger="mainentity.pipeline"):
        documents, failed = render_all([shadow, plain], StaticDocuments())
    assert [document.page.path for document in documents] == ["plain.html"]
    assert [row.path for row in failed] == ["shadow.html"]
    assert "static reading failed for s/shadow.html: s/shadow.html: a declarative shadow root" in caplog.text
    assert "render failed" not in caplog.text


def test_a_site_id_two_datasets_share_keeps_each_pages_dataset(tmp_path):
    # the same host in two datasets (readability-realworld and postlight-half share nine): each page keeps the
    # name of the folder it was read from, as leave-one-dataset-out calibration folds need
    for name in ("first", "second"):
        shutil.copytree(SAMPLE_SHOP, tmp_path / name)
    loaded = load_pages([str(tmp_path / "first"), str(tmp_path / "second")])
    n_pages = len(loaded.pages) // 2
    assert [page.dataset for page in loaded.pages] == ["first"] * n_pages + ["second"] * n_pages
