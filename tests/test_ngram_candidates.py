import nltk
import numpy as np
import pytest

from mainentity.features.ngram_candidates import (
    FEATURE_NAMES,
    TaggerDataWarning,
    clear_pos_cache,
    extract_candidates,
    load_pos_tagger,
    tag_words,
)
from mainentity.records import RenderedPage, TextBlock

AQUA_URL = "https://www.aquadining.com.au/"


def block(text, level=0, tag="p", hidden=False, y=0.0):
    return TextBlock(text, tag, f"html[0]/body[1]/{tag}[0]", 16.0, 400, False, 10.0, y, 300.0, 20.0,
                     heading_level=level, hidden=hidden)


def aqua_page():
    """The Aqua Dining page of the slides ("Appearance in Header tags" to "Independent appearance")."""
    return RenderedPage(
        "Sydney Waterfront Restaurant | Restaurant Milsons Point - Aqua Dining",
        (("og:title", "Sydney Waterfront Restaurant | Restaurant milsons point - Aqua Dining"),
         ("description", "Aqua Dining Aqua Dining")),
        (
            block("Aqua Dining Sydney Restaurant", level=1, tag="h1"),
            block("Aqua Dining", level=2, tag="h2", y=50.0),
            block("Milsons Point", tag="a", y=100.0),
            block("Enjoy harbour views from Milsons Point.", y=150.0),
            block("Secret Menu", hidden=True),
        ),
    )


def features_of(candidates):
    return {text: dict(zip(FEATURE_NAMES, row, strict=True)) for text, row in
            zip(candidates.texts, candidates.features.tolist(), strict=True)}


@pytest.fixture
def tagger():
    if load_pos_tagger() is None:
        pytest.skip("NLTK tagger data missing: set NLTK_DATA=/work/shared/nltk_data")
    return load_pos_tagger()


def test_capitalisation_candidates_of_the_aqua_page():
    found = extract_candidates(aqua_page(), AQUA_URL, pos_filter="capitalisation")
    assert found.texts == (
        "Aqua", "Aqua Dining", "Aqua Dining Sydney", "Aqua Dining Sydney Restaurant", "Dining",
        "Dining Sydney", "Dining Sydney Restaurant", "Sydney", "Sydney Restaurant", "Restaurant",
        "Milsons", "Milsons Point", "Point", "Enjoy",
    )  # "harbour views from" breaks at lower-case words; the hidden "Secret Menu" is left out
    assert found.features.shape == (14, 9)
    assert found.features.min() >= 0.0 and found.features.max() == 1.0


def test_each_feature_on_the_aqua_page():
    found = extract_candidates(aqua_page(), AQUA_URL, pos_filter="capitalisation")
    f = features_of(found)
    # 0. URL similarity: Dice with the domain "aquadining" (weight 1), divided by the page maximum (1.0).
    assert f["Aqua Dining"]["url_similarity"] == 1.0
    assert f["Aqua Dining Sydney"]["url_similarity"] == pytest.approx(18 / 24)
    assert f["Sydney"]["url_similarity"] == 0.0
    # 1-2. Appearance in the title and (case-insensitively) in the og:title; the description is no title.
    assert [f[t]["in_title"] for t in ("Aqua Dining", "Milsons Point", "Enjoy")] == [1, 1, 0]
    assert [f[t]["in_meta_title"] for t in ("Aqua Dining", "Milsons Point", "Dining Sydney")] == [1, 1, 0]
    # 3. Header weight: h1 (6) + h2 (5) = 11 is the maximum; Sydney only in the h1.
    assert f["Aqua Dining"]["heading_weight"] == 1.0
    assert f["Sydney"]["heading_weight"] == pytest.approx(6 / 11)
    assert f["Milsons Point"]["heading_weight"] == 0.0
    # 4. Popularity: title, og:title and blocks; "Restaurant" occurs 2 + 2 + 1 = 5 times (the maximum).
    assert f["Restaurant"]["popularity"] == 1.0
    assert f["Aqua Dining"]["popularity"] == pytest.approx(4 / 5)
    assert f["Sydney"]["popularity"] == pytest.approx(3 / 5)
    assert f["Milsons Point"]["popularity"] == pytest.approx(4 / 5)
    assert f["Enjoy"]["popularity"] == pytest.approx(1 / 5)
    # 5-6. Capitalised, and how often it is written capitalised ("milsons point" in the og:title is not).
    assert f["Milsons Point"]["capitalised"] == 1.0
    assert f["Aqua Dining"]["capitalised_frequency"] == pytest.approx(4 / 5)
    assert f["Milsons Point"]["capitalised_frequency"] == pytest.approx(3 / 5)
    # 7. Independent appearance: a whole text block by itself.
    assert [f[t]["independent"] for t in ("Aqua Dining", "Milsons Point", "Sydney")] == [1, 1, 0]
    # 8. Length in characters over the longest candidate (29 characters).
    assert f["Aqua Dining"]["length"] == pytest.approx(11 / 29)
    assert found.block_index[found.texts.index("Aqua Dining")] == 1
    assert found.block_index[found.texts.index("Aqua Dining Sydney Restaurant")] == 0
    assert found.block_index[found.texts.index("Sydney")] == -1


def test_lower_case_words_are_not_capitalised():
    page = RenderedPage("", (), (block("Bank of America"), block("Visit bank of america today")))
    f = features_of(extract_candidates(page, "http://x.org/", pos_filter="capitalisation"))
    assert f["Bank of America"]["capitalised"] == 1.0  # a function word inside is allowed
    assert f["Bank of America"]["capitalised_frequency"] == 1.0  # 1 of the 2 occurrences, the maximum
    assert f["Bank of America"]["popularity"] == 1.0


def test_long_blocks_count_for_popularity_but_yield_no_candidates():
    long_text = "Aqua Dining is great and Aqua Dining is near and Aqua Dining opens every day for everyone"
    page = RenderedPage("", (), (block("Aqua Dining", 2, "h2"), block("Milsons Point"), block(long_text)))
    found = extract_candidates(page, AQUA_URL, pos_filter="capitalisation", max_block_tokens=10)
    assert found.texts == ("Aqua", "Aqua Dining", "Dining", "Milsons", "Milsons Point", "Point")
    f = features_of(found)
    assert f["Aqua Dining"]["popularity"] == 1.0 and f["Milsons Point"]["popularity"] == pytest.approx(1 / 4)


def test_caps_on_n_and_on_candidates():
    page = aqua_page()
    short = extract_candidates(page, AQUA_URL, pos_filter="capitalisation", max_n=2)
    assert max(len(text.split()) for text in short.texts) == 2
    assert extract_candidates(page, AQUA_URL, pos_filter="capitalisation", max_candidates=2).texts == (
        "Aqua", "Aqua Dining")
    hidden = extract_candidates(page, AQUA_URL, pos_filter="capitalisation", include_hidden=True)
    assert "Secret Menu" in hidden.texts


def test_empty_page_and_bad_arguments():
    found = extract_candidates(RenderedPage("Title", (), (block("... !!"),)), "http://x.org/")
    assert found.texts == () and found.features.shape == (0, 9) and found.block_index.shape == (0,)
    with pytest.raises(ValueError, match="max_n must be >= 1; got 0"):
        extract_candidates(aqua_page(), AQUA_URL, max_n=0)
    with pytest.raises(ValueError, match="pos_filter must be"):
        extract_candidates(aqua_page(), AQUA_URL, pos_filter="spacy")


def test_nltk_candidates_follow_noun_phrase_patterns(tagger):
    paragraph = (
        "Aqua Dining offers a quintessential Sydney dining experience with unrivalled harbour views that "
        "sweep from Luna Park to the world famous Sydney Harbour Bridge and the Sydney Opera House."
    )
    page = RenderedPage("", (), (block("Feeling Social? Find us on"), block("Facebook"), block(paragraph)))
    texts = extract_candidates(page, AQUA_URL).texts
    for expected in ("Luna Park", "Sydney Harbour Bridge", "Sydney Opera House", "harbour views", "Facebook"):
        assert expected in texts
    assert not any(text.split()[-1] in {"a", "the", "with", "from", "and", "to", "that"} for text in texts)
    assert not any(word in text.split() for text in texts for word in ("sweep", "that", "us"))
    assert "quintessential Sydney dining experience" in texts  # JJ NN VBG NN
    assert not any("?" in text or "." in text for text in texts)  # never across punctuation


def test_tag_words_uses_nltk_tags(tagger):
    words = ["Luna", "Park", "is", "open"]
    assert tag_words(words) == tuple(tag for _, tag in tagger.tag(words))
    with pytest.raises(ValueError, match="pos_filter"):
        tag_words(["a"], pos_filter="other")


@pytest.fixture
def no_tagger_data(monkeypatch, tmp_path):
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    clear_pos_cache()
    yield
    clear_pos_cache()


def test_missing_tagger_data_warns_and_falls_back(no_tagger_data):
    with pytest.warns(TaggerDataWarning, match="python -m nltk.downloader averaged_perceptron_tagger_eng"):
        found = extract_candidates(aqua_page(), AQUA_URL, pos_filter="nltk")
    fallback = extract_candidates(aqua_page(), AQUA_URL, pos_filter="capitalisation")
    assert found.texts == fallback.texts
    np.testing.assert_array_equal(found.features, fallback.features)
