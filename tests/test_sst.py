"""Tests of the site style tree cleaner (Yi, Liu & Li, KDD 2003) and of make_cleaner."""

from __future__ import annotations

import copy
import warnings

import joblib
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from test_cleaning_dom import make_document

from mainentity.cleaning import NoCleaning, make_cleaner
from mainentity.cleaning.cleaning_report import site_cleaning_report
from mainentity.cleaning.dom import parse_dom
from mainentity.cleaning.sst import (
    SiteStyleTreeCleaner,
    composite_importance,
    content_importance,
    node_importance,
)

NAV = ('<div class="nav"><ul><li><a href="/">Home</a></li><li><a href="/books">Books</a></li>'
       '<li><a href="/cart">Add to cart</a></li></ul></div>')
FOOTER = '<div class="footer"><p>Copyright 2024 Example Books Ltd</p></div>'
ARTICLES = [
    ("Moby Dick", ["Ishmael joins the whaling ship of captain Ahab."]),
    ("Great Expectations", ["Pip, an orphan, meets a convict in the marshes.", "Miss Havisham waits."]),
    ("Ulysses", ["Leopold Bloom walks through Dublin on one June day."]),
    ("Middlemarch", ["Dorothea marries the scholar Casaubon.", "Lydgate arrives in town.", "Fred"]),
    ("Dracula", ["Jonathan Harker travels to Transylvania to meet a count."]),
]


def article_page(title: str, paragraphs: list[str]) -> str:
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    return (f"<html><head><title>{title} | Example Books</title></head><body>\n{NAV}\n"
            f'<div class="article"><h1>{title}</h1>{body}</div>\n{FOOTER}\n</body></html>')


@pytest.fixture
def site():
    return [make_document("books", f"{i}.html", article_page(title, paragraphs), (title,))
            for i, (title, paragraphs) in enumerate(ARTICLES)]


# -- formulas on hand-worked numbers ----------------------------------------------------------------

def test_node_importance_hand_worked():
    # -(3/4 ln 3/4 + 1/4 ln 1/4) / ln 4 = (0.215762 + 0.346574) / 1.386294
    assert node_importance([3, 1]) == pytest.approx(0.405639, abs=1e-6)
    assert node_importance([2, 2]) == pytest.approx(0.5)  # log_4 2: the base is m, not l
    assert node_importance([4]) == 0.0
    assert node_importance([1]) == 1.0  # m = 1
    with pytest.raises(ValueError):
        node_importance([])
    with pytest.raises(ValueError):
        node_importance([2, 0])


def test_content_importance_hand_worked():
    # m = 4 pages. "a" once on each page: H = 1. "b" twice on page 1 only: H = 0.
    # "c" once on pages 1 and 2: H = log_4 2 = 0.5. CompImp = 1 - (1 + 0 + 0.5) / 3 = 0.5.
    pages = [{"a": 1, "b": 2, "c": 1}, {"a": 1, "c": 1}, {"a": 1}, {"a": 1}]
    assert content_importance(pages) == pytest.approx(0.5)
    # "x" 3 times on page 1, once on page 2: H = node_importance([3, 1]) over m = 4.
    assert content_importance([{"x": 3}, {"x": 1}, {}, {}]) == pytest.approx(1 - 0.405639, abs=1e-6)
    assert content_importance([{"only": 1}]) == 1.0  # m = 1
    assert content_importance([{}, {}]) == 0.0  # no feature, several pages
    with pytest.raises(ValueError):
        content_importance([])


def test_composite_importance_hand_worked():
    # l = 2, g^2 = 0.81: 0.19 * 0.405639 + 0.81 * (0.75 * 0.2 + 0.25 * 0.8)
    value = composite_importance(0.405639, [0.75, 0.25], [0.2, 0.8], attenuation=0.9)
    assert value == pytest.approx(0.19 * 0.405639 + 0.81 * 0.35, abs=1e-9)
    with pytest.raises(ValueError):
        composite_importance(0.5, [1.0], [0.2, 0.3])


def test_comp_imp_of_a_tiny_site_hand_worked():
    # Three pages share the style (div.nav, h1) under body; one adds a <p>: NodeImp(body) = 0.405639.
    # Style A: div.nav (same words on 3 pages, CompImp 0), h1 (distinct titles, CompImp 1): mean 0.5.
    # Style B: used by 1 page, so its nodes have m = 1 and CompImp 1: mean 1.
    # CompImp(body) = 0.19 * 0.405639 + 0.81 * (0.75 * 0.5 + 0.25 * 1) = 0.583321.
    titles = ("Alpha", "Beta", "Gamma")
    htmls = [f'<body><div class="nav">Home Books</div><h1>{t}</h1></body>' for t in titles]
    htmls.append('<body><div class="nav">Home Books</div><h1>Delta</h1><p>Extra</p></body>')
    docs = [make_document("tiny", f"{i}.html", html) for i, html in enumerate(htmls)]
    sst = SiteStyleTreeCleaner(threshold=0.5).fit(docs)
    rows = {(r["node"], r["pages"]): r for r in sst.node_rows(("noisy", "meaningful", "mixed"))}
    body = rows[("html > body", 4)]
    assert body["status"] == "mixed"
    assert body["comp_imp"] == pytest.approx(0.19 * 0.405639 + 0.81 * 0.625, abs=1e-6)
    assert rows[("html", 4)]["comp_imp"] == pytest.approx(0.9 * body["comp_imp"], abs=1e-9)
    nav = rows[("html > body > div.nav", 3)]
    assert (nav["status"], nav["comp_imp"]) == ("noisy", 0.0)
    assert rows[("html > body > h1", 3)]["status"] == "meaningful"
    # The page with the rare style maps to nodes used by one page only: nothing of it is noisy.
    assert sst.noisy_paths(parse_dom(htmls[3])) == set()
    assert sst.noisy_paths(parse_dom(htmls[0])) == {"html[0]/body[1]/div[0]"}


# -- the cleaner on a hand-built site ---------------------------------------------------------------

def test_navbar_and_footer_are_noisy_and_the_article_meaningful(site):
    sst = SiteStyleTreeCleaner(random_state=0).fit(site)
    cleaned = sst.transform(site)
    for before, after, (title, paragraphs) in zip(site, cleaned, ARTICLES, strict=True):
        texts = [block.text for block in after.rendered.blocks]
        assert texts == [title, *paragraphs]
        assert len(before.rendered.blocks) == len(texts) + 4  # 3 nav links + copyright
    noisy = {row["node"] for row in sst.node_rows(("noisy",))}
    assert noisy == {"html > body > div.nav", "html > body > div.footer"}
    meaningful = {row["node"] for row in sst.node_rows(("meaningful",))}
    assert meaningful == {"html > body > div.article"}  # maximal: h1 and p lie below it


def test_transform_does_not_mutate_and_keeps_order(site):
    snapshot = copy.deepcopy(site)
    cleaned = SiteStyleTreeCleaner().fit(site).transform(site)
    assert site == snapshot
    assert [d.page for d in cleaned] == [d.page for d in site]


def test_a_page_that_matches_nothing_in_the_sst_is_kept_whole(site):
    sst = SiteStyleTreeCleaner().fit(site)
    other = make_document("books", "odd.html", "<table><tr><td>Home</td><td>Books</td></tr></table>"
                          "<h2>Clearance sale</h2>")
    assert sst.noisy_paths(parse_dom(other.page.html)) == set()
    assert sst.transform([other]) == [other]
    # Same navbar, but the body's style (an extra aside) is new: nothing matches below body.
    aside = make_document("books", "aside.html", article_page("Emma", ["Emma meddles."]).replace(
        "</body>", "<aside>Ads</aside></body>"))
    assert sst.transform([aside]) == [aside]


def test_threshold_zero_removes_nothing_and_one_removes_more(site):
    assert SiteStyleTreeCleaner(threshold=0.0).fit(site).transform(site) == site
    n_default = sum(len(d.rendered.blocks) for d in SiteStyleTreeCleaner().fit_transform(site))
    n_high = sum(len(d.rendered.blocks) for d in SiteStyleTreeCleaner(threshold=0.99).fit_transform(site))
    assert n_high <= n_default


def test_single_page_site_passes_through(site):
    sst = SiteStyleTreeCleaner().fit(site[:1])
    assert sst.passthrough_ is True
    assert sst.transform(site) == site
    assert "pass through unchanged" in site_cleaning_report(sst)


def test_page_that_would_lose_every_block_is_kept_with_a_warning():
    docs = [make_document("same", f"{i}.html", NAV) for i in range(3)]
    sst = SiteStyleTreeCleaner().fit(docs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert sst.transform(docs) == docs
    assert len(caught) == 3 and "would remove all" in str(caught[0].message)


def test_sampling_is_seeded_and_bounded(site):
    a = SiteStyleTreeCleaner(max_pages=3, random_state=7).fit(site)
    b = SiteStyleTreeCleaner(max_pages=3, random_state=7).fit(site)
    assert len(a.sample_indices_) == 3
    assert list(a.sample_indices_) == list(b.sample_indices_) == sorted(a.sample_indices_)


def test_errors(site):
    with pytest.raises(NotFittedError):
        SiteStyleTreeCleaner().transform(site)
    with pytest.raises(ValueError, match="threshold"):
        SiteStyleTreeCleaner(threshold=1.5).fit(site)
    with pytest.raises(ValueError, match="attenuation"):
        SiteStyleTreeCleaner(attenuation=1.0).fit(site)
    with pytest.raises(ValueError, match="max_pages"):
        SiteStyleTreeCleaner(max_pages=1).fit(site)
    with pytest.raises(ValueError, match="none"):
        SiteStyleTreeCleaner().fit([])
    with pytest.raises(ValueError, match="node status"):
        SiteStyleTreeCleaner().fit(site).node_rows(("boring",))


def test_joblib_round_trip(site, tmp_path):
    sst = SiteStyleTreeCleaner(random_state=0).fit(site)
    joblib.dump(sst, tmp_path / "sst.joblib")
    loaded = joblib.load(tmp_path / "sst.joblib")
    assert loaded.transform(site) == sst.transform(site)
    assert loaded.node_rows() == sst.node_rows()


def test_report_lists_noisy_nodes_with_sample_text(site):
    report = site_cleaning_report(SiteStyleTreeCleaner().fit(site), max_nodes=5)
    assert report.startswith("## Site `books`: SiteStyleTreeCleaner")
    assert "`html > body > div.nav`" in report and "Home Books Add to cart" in report
    assert "Copyright 2024 Example Books Ltd" in report
    assert "at threshold t = 0.5." in report
    with pytest.raises(ValueError):
        site_cleaning_report(SiteStyleTreeCleaner().fit(site), max_nodes=0)


def test_make_cleaner_registry_and_sklearn_contract(site):
    assert isinstance(make_cleaner("sst", threshold=0.2), SiteStyleTreeCleaner)
    with pytest.raises(ValueError, match="valid: infodiscoverer, none, sst"):
        make_cleaner("boilerpipe")
    with pytest.raises(ValueError, match="unknown parameter.*thresold.*valid: .*threshold"):
        make_cleaner("sst", thresold=0.2)
    none = make_cleaner("none", random_state=0)
    assert isinstance(none, NoCleaning) and none.fit(site).transform(site) == site
    sst = SiteStyleTreeCleaner(threshold=0.4, random_state=3)
    assert clone(sst).get_params() == sst.get_params()
