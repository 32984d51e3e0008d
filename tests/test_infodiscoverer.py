"""Tests of the InfoDiscoverer cleaner (Lin & Ho, KDD 2002)."""

from __future__ import annotations

import copy
from collections import Counter

import joblib
import nltk
import pytest
from sklearn.exceptions import NotFittedError
from test_cleaning_dom import make_document

from mainentity.cleaning import make_cleaner
from mainentity.cleaning.cleaning_report import site_cleaning_report
from mainentity.cleaning.infodiscoverer import (
    STOP_WORDS,
    InfoDiscovererCleaner,
    block_terms,
    choose_threshold,
    content_block_key,
    term_entropies,
)
from mainentity.records import Document

TITLES = ["Moby Dick", "Great Expectations", "Ulysses", "Dracula Returns"]


def page_html(i: int, title: str) -> str:
    footer = '<div class="footer">Contact us</div>' if i < 2 else ""
    return (f'<div class="nav"><a href="/">Home</a> <a href="/b">Books</a> <a href="/c">Cart</a></div>'
            f'<div class="content"><h1>{title}</h1></div>{footer}')


@pytest.fixture
def site():
    return [make_document("shop", f"{i}.html", page_html(i, t), (t,)) for i, t in enumerate(TITLES)]


def test_block_terms_tokenise_drop_stop_words_and_stem():
    assert block_terms("The Running of the Bulls: 2 photos!") == ["run", "bull", "2", "photo"]
    assert block_terms("It is what it is.") == []
    assert len(STOP_WORDS) == 179 and {"the", "wouldn't", "ourselves"} <= STOP_WORDS


def test_term_entropies_hand_worked():
    pages = [Counter(home=1, gatsby=2, bible=1, x=3), Counter(home=1, bible=1, x=1),
             Counter(home=1), Counter(home=1)]
    h = term_entropies(pages)
    assert h["home"] == pytest.approx(1.0)  # evenly over all 4 pages
    assert h["gatsby"] == 0.0  # one page only
    assert h["bible"] == pytest.approx(0.5)  # log_4 2
    # -(3/4 log_4 3/4 + 1/4 log_4 1/4)
    assert h["x"] == pytest.approx(0.405639, abs=1e-6)
    with pytest.raises(ValueError, match="at least 2 pages"):
        term_entropies([Counter(a=1)])


def test_content_block_key_generalises_tables_to_block_containers():
    assert content_block_key("html[0]/body[1]/table[2]/tbody[0]/tr[0]/td[1]/table[0]/tbody[0]/tr[0]/td[0]") \
        == "html[0]/body[1]/table[2]/tbody[0]/tr[0]/td[1]/table[0]"
    assert content_block_key("html[0]/body[1]/div[0]/ul[0]/li[3]/a[0]") == "html[0]/body[1]/div[0]"
    assert content_block_key("html[0]/body[1]/div[0]/ul[0]", partition_tags=("table",)) == ""
    with pytest.raises(ValueError):
        content_block_key("html[0]/body")


def test_choose_threshold_ends_at_the_flattest_step():
    entropies = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    sizes = [10, 10, 10, 3, 10, 10, 10, 10, 10, 10, 100]
    threshold, curve = choose_threshold(entropies, sizes)
    # F: 10 20 30 33 43 ... 93 193; relative growth is smallest (0.1) from 0.2 to 0.3.
    assert [f for _, f in curve] == [10, 20, 30, 33, 43, 53, 63, 73, 83, 93, 193]
    assert threshold == 0.3
    # A flat step: F stops growing from 0.1 on, so the threshold is the end of the first flat step.
    assert choose_threshold([0.0, 0.05, 0.95], [2, 2, 9])[0] == 0.2
    # F(0) = 0 steps do not count; no feature at all keeps everything.
    assert choose_threshold([0.35, 0.95], [5, 9])[0] == 0.5
    assert choose_threshold([], [])[0] == 1.0
    with pytest.raises(ValueError):
        choose_threshold([0.1], [1, 2])
    with pytest.raises(ValueError):
        choose_threshold([0.1], [1], step=0.0)


def test_tiny_site_entropies_threshold_and_cleaning(site):
    cleaner = InfoDiscovererCleaner(random_state=0).fit(site)
    h = cleaner.term_entropy_
    assert (h["home"], h["book"], h["cart"]) == (pytest.approx(1.0),) * 3
    assert h["mobi"] == 0.0 and h["contact"] == pytest.approx(0.5)
    # Blocks: nav (3 terms, entropy 1) x 4, titles (2+2+1+2 terms, entropy 0), footer x 2 (2 terms,
    # entropy 0.5: "us" is not in NLTK's list).
    assert h["us"] == pytest.approx(0.5)
    assert cleaner.curve_ == [(0.0, 7), (0.1, 7), (0.2, 7), (0.3, 7), (0.4, 7), (0.5, 11), (0.6, 11),
                              (0.7, 11), (0.8, 11), (0.9, 11), (1.0, 23)]
    assert cleaner.threshold_ == 0.1
    cleaned = cleaner.transform(site)
    assert [[b.text for b in d.rendered.blocks] for d in cleaned] == [[t] for t in TITLES]


def test_given_threshold_overrides_the_search(site):
    cleaner = InfoDiscovererCleaner(threshold=0.5).fit(site)
    assert cleaner.threshold_ == 0.5
    assert [b.text for b in cleaner.transform(site)[0].rendered.blocks] == ["Moby Dick", "Contact us"]


def test_new_terms_are_informative_and_stop_word_blocks_kept(site):
    cleaner = InfoDiscovererCleaner().fit(site)
    new = make_document("shop", "new.html", page_html(9, "Emma") + '<div class="x">Home</div>'
                        '<div class="y">It is</div>')
    assert [b.text for b in cleaner.transform([new])[0].rendered.blocks] == ["Emma", "It is"]


def test_transform_does_not_mutate_and_passes_unrendered(site):
    snapshot = copy.deepcopy(site)
    bare = Document(site[0].page)
    out = InfoDiscovererCleaner().fit(site + [bare]).transform(site + [bare])
    assert site == snapshot and out[-1] is bare
    assert len(out[0].rendered.blocks) < len(site[0].rendered.blocks)


def test_single_usable_page_passes_through(site):
    cleaner = InfoDiscovererCleaner().fit([site[0], Document(site[1].page)])
    assert cleaner.passthrough_ and cleaner.transform(site) == site
    assert "pass through unchanged" in site_cleaning_report(cleaner)


def test_needs_no_nltk_data(site, tmp_path, monkeypatch):
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    assert block_terms("Running shoes") == ["run", "shoe"]
    assert InfoDiscovererCleaner().fit(site).threshold_ == 0.1


def test_errors_pickling_and_report(site, tmp_path):
    with pytest.raises(NotFittedError):
        InfoDiscovererCleaner().transform(site)
    with pytest.raises(ValueError, match="threshold"):
        make_cleaner("infodiscoverer", threshold=2.0).fit(site)
    with pytest.raises(ValueError, match="step"):
        InfoDiscovererCleaner(step=0).fit(site)
    cleaner = InfoDiscovererCleaner(random_state=0).fit(site)
    joblib.dump(cleaner, tmp_path / "id.joblib")
    assert joblib.load(tmp_path / "id.joblib").transform(site) == cleaner.transform(site)
    report = site_cleaning_report(cleaner)
    assert "Entropy threshold 0.1 (chosen automatically)" in report
    assert "| `html[0]/body[1]/div[0]` | 4 | 1.000 | 1.00 | Home Books Cart |" in report
