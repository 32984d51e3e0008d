"""The general recogniser (mainentity.recognizers.general) on small generated sites."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mainentity.models.ranker import AnswerCalibrator
from mainentity.pipeline import predict_documents
from mainentity.recognizers.base import make_recognizer
from mainentity.recognizers.doubt import DOUBT_SIGNALS
from mainentity.recognizers.general import GeneralRecognizer
from mainentity.records import Document, Page, RenderedPage, TextBlock


def text_block(text, y, size=16.0, level=0, path=None, in_link=False):
    return TextBlock(text, "h1" if level else "p", path or f"html[0]/body[1]/p[{int(y)}]", size,
                     700 if level else 400, bool(level), 50.0, y, 500.0, size * 1.2, in_link=in_link,
                     heading_level=level)


def shop_page(site, i, title_first=True):
    """A shop page: navigation, the product's name as h1 (in the <title> too), a price, a description."""
    name = f"Garden chair model {i} {site}"
    blocks = [text_block("Home", 10, 13, path="html[0]/body[1]/nav[0]/a[0]", in_link=True),
              text_block("Garden furniture", 30, 13, path="html[0]/body[1]/nav[0]/a[1]", in_link=True),
              text_block(name, 120, 30, level=1, path="html[0]/body[1]/h1[0]"),
              text_block(f"{i}.99 EUR", 170, 18, path="html[0]/body[1]/p[0]"),
              text_block("A sturdy chair for long summer evenings, made of oak. " * 3, 220,
                         path="html[0]/body[1]/p[1]")]
    title = f"{name} | {site} shop" if title_first else f"{site} shop"
    page = Page(site, f"p{i}.html", f"https://{site}.example/p{i}.html", "", main_entity=(name,))
    return Document(page, RenderedPage(title, (), tuple(blocks)))


def sites(names, n_pages):
    return [shop_page(site, i) for site in names for i in range(n_pages)]


@pytest.mark.parametrize("random_state", [0, 1])
def test_learns_on_some_sites_and_answers_on_others(random_state):
    train = sites(["oak", "pine", "birch", "elm", "ash", "yew"], 4)
    recognizer = GeneralRecognizer(max_iter=30, min_samples_leaf=2, n_folds=3, random_state=random_state)
    recognizer.fit(train)
    test = sites(["beech", "maple"], 3)
    predictions = recognizer.predict(test)
    assert [p.main_entity for p in predictions] == [d.page.main_entity[0] for d in test]
    assert all(0.0 <= p.score <= 1.0 for p in predictions)
    assert all(p.bbox is not None and p.bbox[1] == 120.0 for p in predictions)
    assert predictions[0].candidates[0] == predictions[0].main_entity and len(predictions[0].candidates) == 5


def test_abstains_below_the_threshold_but_keeps_score_and_candidates():
    train = sites(["oak", "pine", "birch", "elm", "ash", "yew"], 3)
    recognizer = GeneralRecognizer(max_iter=20, min_samples_leaf=2, n_folds=3, abstain_below=1.01, random_state=0)
    (prediction,) = recognizer.fit(train).predict(sites(["beech"], 1))
    assert prediction.main_entity == "" and prediction.candidates and 0.0 <= prediction.score <= 1.0


@pytest.mark.parametrize("random_state", [0, 1])
def test_a_page_scored_far_below_the_calibrated_range_abstains(random_state):
    recognizer = GeneralRecognizer(max_iter=20, min_samples_leaf=2, n_folds=3, abstain_below=0.3,
                                   random_state=random_state).fit(sites(["oak", "pine", "birch", "elm", "ash"], 3))
    shop = sites(["beech"], 1)
    footer_only = Document(Page("odd", "x.html", "https://odd.example/x", "", ("Nothing shown",)), RenderedPage(
        "", (), (text_block("Contact", 900, 11, path="html[0]/body[1]/footer[0]/a[0]", in_link=True),
                 text_block("Some words in a long paragraph of text. " * 10, 1500, 12))))
    best_shop, best_odd = (float(scores.max()) for _, scores in recognizer.candidate_scores([*shop, footer_only]))
    assert best_shop > best_odd + 1.0
    # held-out answers as the general model's: the lowest seen ones right half the time, all above the odd page
    lowest = best_odd + (best_shop - best_odd) / 2
    held = np.concatenate([np.full(20, lowest), np.linspace(lowest, best_shop, 20)])
    recognizer.calibrator_ = AnswerCalibrator().fit(held, np.concatenate([np.arange(20) % 2, np.ones(20)]))
    assert recognizer.calibrator_.predict_proba([held.min()])[0] >= 0.5  # clipped, every lower score read >= 0.5
    shop_prediction, odd_prediction = recognizer.predict([*shop, footer_only])
    assert shop_prediction.main_entity == shop[0].page.main_entity[0] and shop_prediction.score > 0.3
    assert odd_prediction.main_entity == "" and odd_prediction.score < 0.3 and odd_prediction.candidates


def test_one_page_per_site_is_copied_with_a_generic_title():
    train = sites(["oak", "pine", "birch", "elm"], 3)
    recognizer = GeneralRecognizer(max_iter=20, min_samples_leaf=2, n_folds=3, generic_title_share=1.0,
                                   split_heading_share=0.0, random_state=0)
    documents, site_keys = recognizer._with_generic_titles(train)
    assert documents[:len(train)] == train and len(documents) == len(train) + 4
    copies = documents[len(train):]
    assert {copy.page.site_id for copy in copies} == {"oak", "pine", "birch", "elm"}
    assert all(copy.rendered.title in ("Home", "Garden furniture") for copy in copies)  # the page's own links
    assert all(copy.rendered.blocks == next(d for d in train if d.page == copy.page).rendered.blocks
               for copy in copies)
    assert len(set(site_keys[len(train):])) == 4 and not set(site_keys[len(train):]) & set(site_keys[:len(train)])
    recognizer.fit(train)
    assert recognizer.n_training_pages_ == len(train) and recognizer.n_generic_title_copies_ == 4
    alone = GeneralRecognizer(generic_title_share=0.0, split_heading_share=0.0, random_state=0)._with_generic_titles(
        train)
    assert alone == (train, [d.page.site_id for d in train])


def test_one_page_per_site_is_copied_with_its_heading_set_over_two_lines():
    train = sites(["oak", "pine", "birch", "elm"], 3)
    recognizer = GeneralRecognizer(generic_title_share=0.0, split_heading_share=1.0, random_state=0)
    documents, site_keys = recognizer._with_generic_titles(train)
    copies = documents[len(train):]
    assert documents[:len(train)] == train and len(copies) == 4
    assert len(set(site_keys[len(train):])) == 4 and not set(site_keys[len(train):]) & set(site_keys[:len(train)])
    for copy in copies:
        (whole,) = [segment for segment in copy.rendered.segments if segment.kind == "heading"]
        assert whole.text == copy.page.main_entity[0]  # labels unchanged: the whole heading is the answer
        lines = [block.text for block in copy.rendered.blocks if block.dom_path.startswith(whole.dom_path + "/")]
        assert " ".join(lines) == whole.text and len(lines) == 2
        assert whole.text not in [block.text for block in copy.rendered.blocks]


def test_site_vote_moves_an_odd_page_to_the_site_slot():
    recognizer = GeneralRecognizer(calibrate=False, vote_min_pages=3, vote_share=0.5, vote_margin=5.0)
    recognizer.ranker_ = None  # scores are set by hand below
    slots = ["banner|block|30.0|400", "h1|block|30.0|700"]
    site = [(slots, np.array([0.0, 1.0])) for _ in range(3)]
    odd = (slots, np.array([1.0, -3.0]))  # the banner wins on its own, by 4 < margin
    recognizer._vote([*site, odd])
    assert np.argmax(odd[1]) == 1
    far = (slots, np.array([1.0, -9.0]))  # by 10 > margin: left as it is
    recognizer._vote([*site, far])
    assert np.argmax(far[1]) == 0


def test_the_pipeline_gives_a_site_level_recogniser_whole_sites():
    seen = []

    class Spy(GeneralRecognizer):
        def predict(self, documents):
            seen.append(sorted({d.page.site_id for d in documents}) + [len(documents)])
            return super().predict(documents)

    train = sites(["oak", "pine", "birch", "elm"], 3)
    spy = Spy(max_iter=10, min_samples_leaf=2, calibrate=False, random_state=0).fit(train)
    test = sites(["beech", "maple"], 3)
    interleaved = [test[i] for i in (0, 3, 1, 4, 2, 5)]
    stream = ((d.page, d, "") for d in interleaved)
    predictions = predict_documents(spy, stream, batch_size=2, pages_per_site={"beech": 3, "maple": 3})
    assert seen == [["beech", 3], ["maple", 3]]
    assert len(predictions) == 6


def test_registered_and_unrendered_pages_get_an_error_row():
    assert isinstance(make_recognizer("general"), GeneralRecognizer)
    recognizer = GeneralRecognizer(max_iter=10, min_samples_leaf=2, calibrate=False).fit(sites(["oak", "pine"], 3))
    (prediction,) = recognizer.predict([Document(Page("x", "a.html", "http://x/a.html", ""))])
    assert prediction.error == "not rendered"
    (empty,) = recognizer.predict([Document(Page("x", "b.html", "http://x/b.html", ""), RenderedPage("", (), ()))])
    assert empty.error == "no text blocks"


def test_fit_counts_every_skipped_document_in_one_warning():
    documents = [*sites(["oak", "pine"], 3), Document(Page("x", "a.html", "http://x/a.html", "", main_entity=("A",))),
                 Document(Page("x", "b.html", "http://x/b.html", "", main_entity=("B",)), RenderedPage("", (), ()))]
    with pytest.warns(UserWarning, match="2 of 8 training documents skipped"):
        GeneralRecognizer(max_iter=5, min_samples_leaf=2, calibrate=False).fit(documents)


def odd_page(site, i):
    """A page of ``site`` whose sale banner is set larger than its h1."""
    document = shop_page(site, i, title_first=False)
    banner = text_block("Summer sale on all garden chairs today", 60, 34, path="html[0]/body[1]/div[0]")
    rendered = document.rendered
    return Document(document.page, RenderedPage(rendered.title, (), (banner, *rendered.blocks)))


class LayoutAndSiteRanker:
    """Scores by hand: font size, and a little for a text that changes from page to page in its slot."""

    weights = {"fsize_ratio": 3.0, "slot_variety": 0.1}

    def decision_function(self, X):
        from mainentity.features.transfer import TRANSFER_FEATURES

        return sum(weight * X[:, TRANSFER_FEATURES.index(name)] for name, weight in self.weights.items())


@pytest.mark.parametrize("ranker", ["fitted", "fitted-calibrated", "by hand"])
def test_a_site_predicted_in_shards_with_its_statistics_is_predicted_as_whole(ranker):
    recognizer = GeneralRecognizer(method="both", max_iter=30, min_samples_leaf=2, n_folds=3,
                                   calibrate=ranker == "fitted-calibrated", vote_margin=1.0, n_top=3, random_state=0)
    if ranker == "by hand":
        recognizer.ranker_, recognizer.calibrator_ = LayoutAndSiteRanker(), None
    else:
        recognizer.fit(sites(["oak", "pine", "birch", "elm", "ash", "yew"], 4))
    site = [shop_page("beech", i, title_first=False) if i % 3 else odd_page("beech", i) for i in range(8)]
    site.insert(4, Document(Page("beech", "unrendered.html", "https://beech.example/u", "")))
    site.insert(6, Document(Page("beech", "empty.html", "https://beech.example/e", ""), RenderedPage("", (), ())))
    whole = recognizer.predict(site)
    assert [p.error for p in whole].count("not rendered") == 1 and [p.error for p in whole].count("no text blocks") == 1
    statistics = recognizer.site_statistics(site)
    for n_pages in (1, 3, 4, len(site)):
        scored = [page for start in range(0, len(site), n_pages)
                  for page in recognizer.score_shard(site[start:start + n_pages], statistics)]
        assert recognizer.predict_scored(scored) == whole
    if ranker == "by hand":  # the test can fail: the site's vote and statistics change the rows
        assert {p.main_entity for p in whole if not p.error} == {page.page.main_entity[0] for page in site
                                                                 if page.page.main_entity}
        alone = [p for start in range(0, len(site), 2) for p in recognizer.predict(site[start:start + 2])]
        assert sum(p.main_entity.startswith("Summer sale") for p in alone) == 3
        (first,) = recognizer.predict_scored(recognizer.score_shard(site[1:2], recognizer.site_statistics(site[1:2])))
        assert first.score != whole[1].score


def test_a_scored_page_keeps_only_the_candidates_the_vote_and_the_listing_can_use():
    recognizer = GeneralRecognizer(max_iter=30, min_samples_leaf=2, calibrate=False, n_top=2, vote_margin=0.0,
                                   random_state=0).fit(sites(["oak", "pine", "birch", "elm"], 3))
    site = sites(["beech"], 3)
    (scored, *_) = recognizer.score_shard(site, recognizer.site_statistics(site))
    assert len(scored.candidates) == len(scored.slots) == len(scored.scores) == 2 < len(site[0].rendered.blocks)
    with pytest.raises(ValueError, match="one site"):
        recognizer.site_statistics(sites(["beech", "maple"], 1))
    with pytest.raises(TypeError, match="SiteProfile"):
        recognizer.score_shard(site, {})



def varied_page(site, i):
    """A shop page with a few related links whose number and font sizes vary by site and page."""
    document = shop_page(site, i, title_first=i % 2 == 0)
    extra = tuple(text_block(f"Related item {k} of {site}", 300 + 40 * k, 12 + (i * 3 + k * 5 + len(site)) % 9,
                             path=f"html[0]/body[1]/aside[0]/p[{k}]", in_link=k % 2 == 0) for k in range(3 + i % 4))
    return Document(document.page, replace(document.rendered, blocks=document.rendered.blocks + extra))


def test_fitting_on_the_same_pages_in_another_order_gives_the_same_model():
    """Negatives sampled, site dropout and calibration folds do not depend on the order documents arrive in."""
    train = [varied_page(site, i) for site in ("oak", "pine", "birch", "elm", "ash", "yew") for i in range(4)]
    shuffled = [train[i] for i in np.random.default_rng(7).permutation(len(train))]
    test = [varied_page(site, i) for site in ("beech", "maple") for i in range(3)]
    fitted = [GeneralRecognizer(method="both", max_iter=20, min_samples_leaf=2, max_negatives=2, n_folds=3,
                                random_state=0).fit(documents) for documents in (train, shuffled)]
    first, second = (recognizer.candidate_scores(test) for recognizer in fitted)
    for (candidates_a, scores_a), (candidates_b, scores_b) in zip(first, second, strict=True):
        assert candidates_a == candidates_b and len(scores_a) > 2
        np.testing.assert_array_equal(scores_a, scores_b)
    assert fitted[0].predict(test) == fitted[1].predict(test)


def test_a_model_saved_before_the_calibration_option_reads_as_isotonic_and_answers_as_before():
    recognizer = GeneralRecognizer(max_iter=20, min_samples_leaf=2, n_folds=3, calibration="isotonic",
                                   random_state=0).fit(sites(["oak", "pine", "birch", "elm", "ash", "yew"], 3))
    state = recognizer.__getstate__()
    del state["calibration"], state["calibration_signals_"], state["calibration_correct_"]
    old = GeneralRecognizer.__new__(GeneralRecognizer)
    old.__setstate__(state)
    test = sites(["beech", "maple"], 2)
    assert old.get_params()["calibration"] == "isotonic" and old.predict(test) == recognizer.predict(test)


def test_an_unknown_calibration_is_refused_before_fitting():
    with pytest.raises(ValueError, match="unknown calibration 'beta'; valid: counterfactual, signals, platt, isotonic"):
        GeneralRecognizer(calibration="beta").fit(sites(["oak"], 2))


def test_counterfactual_wrong_answers_are_learned_from_whole_held_out_sites_only():
    many_sites = GeneralRecognizer(max_iter=20, min_samples_leaf=2, n_folds=3, calibration="counterfactual",
                                   random_state=0).fit(sites(["oak", "pine", "birch", "elm", "ash", "yew"], 3))
    n_held_out = len(many_sites.calibration_correct_)
    assert n_held_out >= 18 and len(many_sites.calibration_counterfactual_) == n_held_out  # a runner-up each
    assert many_sites.calibrator_.model_ is not None  # right and (counterfactual) wrong answers
    # the right answer's own sources (title segment, first h1) agree with it; the counterfactual runner-up's
    # mostly do not (a generic-title copy's title segment is the runner-up's)
    agree = DOUBT_SIGNALS.index("n_sources_agree")
    assert np.mean(many_sites.calibration_counterfactual_[:, agree]) < 0.5
    assert np.mean(many_sites.calibration_signals_[:, agree]) > 1.5
    one_site = GeneralRecognizer(max_iter=20, min_samples_leaf=2, n_folds=3, calibration="counterfactual",
                                 random_state=0).fit(sites(["oak"], 9))
    # the 9 pages and the site's one split-heading training copy each held out once; no counterfactual
    # from page folds
    assert len(one_site.calibration_counterfactual_) == 0 and len(one_site.calibration_correct_) == 10
    signals = GeneralRecognizer(max_iter=20, min_samples_leaf=2, n_folds=3, random_state=0).fit(sites(["oak"], 9))
    test = sites(["beech"], 2)
    assert one_site.predict(test) == signals.predict(test)  # page folds: the signals calibrator


@pytest.mark.parametrize(("calibration_folds", "pages_seen"), [("datasets", [18, 9, 9]), ("sites", [18, 12, 12, 12])])
def test_the_calibrator_holds_out_whole_datasets_when_the_pages_come_from_several(monkeypatch, calibration_folds,
                                                                                   pages_seen):
    """Trained on two datasets of three sites each, the held-out answers come from a model that never saw the
    dataset (two inner fits of the other dataset's 9 pages), or with ``sites`` from 3 folds of 2 sites."""
    from mainentity.models.ranker import CandidateRanker

    first = ("oak", "pine", "birch")
    train = [replace(document, page=replace(document.page, dataset="a" if document.page.site_id in first else "b"))
             for document in sites([*first, "elm", "ash", "yew"], 3)]
    seen: list[int] = []
    fit = CandidateRanker.fit
    monkeypatch.setattr(CandidateRanker, "fit", lambda self, X, y, groups: (seen.append(len(np.unique(groups))),
                                                                            fit(self, X, y, groups))[1])
    recognizer = GeneralRecognizer(max_iter=20, min_samples_leaf=2, n_folds=3, generic_title_share=0.0,
                                   split_heading_share=0.0, calibration_folds=calibration_folds, random_state=0)
    recognizer.fit(train)
    assert seen == pages_seen and len(recognizer.calibration_correct_) == 18


def test_an_unknown_calibration_fold_kind_is_refused_before_fitting():
    with pytest.raises(ValueError, match="unknown calibration_folds 'pages'; valid: sites, datasets"):
        GeneralRecognizer(calibration_folds="pages").fit(sites(["oak"], 2))


def test_predictions_come_with_their_margin_over_the_runner_up_of_another_text():
    """The render-few gate reads each static answer's margin (mainentity.render_few.RenderFewSettings.static_margin):
    the best candidate's score minus the best score of a candidate of another text; nan for a page not read."""
    recognizer = GeneralRecognizer(max_iter=20, min_samples_leaf=2, n_folds=3, random_state=0)
    recognizer.fit(sites(["oak", "pine", "birch", "elm", "ash"], 3))
    test = [*sites(["beech", "maple"], 2), replace(shop_page("fir", 0), rendered=None)]
    predictions, signals = recognizer.predict_with_signals(test)
    assert [p.main_entity for p in predictions] == [p.main_entity for p in recognizer.predict(test)]
    assert signals.shape == (5, len(DOUBT_SIGNALS))
    for (candidates, scores), margin in zip(recognizer.candidate_scores(test[:4]),
                                            signals[:4, DOUBT_SIGNALS.index("margin")], strict=True):
        best = int(np.argmax(scores))
        runner_up = max(s for s, c in zip(scores, candidates, strict=True) if c.text != candidates[best].text)
        assert margin == pytest.approx(min(scores[best] - runner_up, 20.0)) and margin > 0
    assert predictions[4].error == "not rendered" and np.isnan(signals[4]).all()
