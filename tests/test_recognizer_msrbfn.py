"""The MS-RBFN recogniser on hand-built rendered pages."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from mainentity.recognizers.base import make_recognizer
from mainentity.recognizers.msrbfn import MSRBFNRecognizer, page_features
from mainentity.records import Document, Page, RenderedPage, TextBlock

PRODUCTS = [
    "Know Your Bible",
    "The Purpose Driven Life",
    "Mere Christianity",
    "Jesus Calling",
    "The Screwtape Letters",
    "Crazy Love",
    "Radical Faith",
    "Streams in the Desert",
    "My Utmost for His Highest",
    "The Pilgrim's Progress",
    "Boundaries",
    "Love Does",
]


def block(text, font_size=13.0, bold=False, y=0.0, hidden=False, in_link=False):
    weight = 700 if bold else 400
    path = "html[0]/body[1]/div[0]"
    return TextBlock(
        text, "div", path, font_size, weight, bold, 10.0, y, 300.0, 20.0, in_link=in_link, hidden=hidden
    )


def product_document(index: int, with_anchors: bool = True, label: str | None = None) -> Document:
    """A shop page: navigation, the product name as a big bold heading, a related product, a footer."""
    name = PRODUCTS[index % len(PRODUCTS)]
    related = PRODUCTS[(index + 1) % len(PRODUCTS)]
    blocks = (
        block("Home", 12.0, y=5.0, in_link=True),
        block("Books", 12.0, y=5.0, in_link=True),
        block("Christian Books Store", 18.0, bold=True, y=30.0),
        block(name, 30.0, bold=True, y=100.0),
        block(f"Price: ${10 + index}.99", 14.0, bold=True, y=150.0),
        block("Add to cart", 14.0, y=180.0, in_link=True),
        block(f"Customers also bought {related}", 12.0, y=400.0, in_link=True),
        block("Hidden promo", 40.0, bold=True, y=0.0, hidden=True),
        block("Copyright Christian Books Store", 10.0, y=900.0),
    )
    rendered = RenderedPage(title=f"{name} - Christian Books Store", meta=(), blocks=blocks)
    anchors = (name, "More details") if with_anchors else ()
    url = f"http://shop.example/{index}"
    page = Page(
        "shop", f"pages/{index:04d}.htm", url, "<html></html>", main_entity=(label or name,), anchors=anchors
    )
    return Document(page, rendered)


# The tiny training set has few distinct gamma sets: fewer M2 units than asked is expected here.
pytestmark = pytest.mark.filterwarnings("ignore:only .* distinct anchor-text set distributions")

TRAIN = [product_document(i, with_anchors=i % 3 != 0) for i in range(9)]
TEST = [product_document(i) for i in range(9, 12)]

TABLE_2 = [
    {"anchortext_features": ()},  # G = {}, F = {intitle, fsize, fbold}
    {"textblock_features": ("intitle",)},  # G = {dice}, F = {intitle}
    {},  # G = {dice}, F = all
]


@pytest.mark.parametrize("params", TABLE_2)
@pytest.mark.parametrize("seed", [0, 1])
def test_recognises_the_product_name_with_each_feature_set_of_table_2(params, seed):
    recognizer = MSRBFNRecognizer(m1=10, m2=5, pi=3, random_state=seed, **params).fit(TRAIN)
    predictions = recognizer.predict(TEST)
    assert [prediction.main_entity for prediction in predictions] == PRODUCTS[9:12]
    for prediction, document in zip(predictions, TEST, strict=True):
        assert prediction.error == "" and prediction.score > 0
        assert prediction.candidates[0] == prediction.main_entity
        assert (prediction.site_id, prediction.path, prediction.url) == (
            document.page.site_id,
            document.page.path,
            document.page.url,
        )
        assert prediction.bbox == (10.0, 100.0, 300.0, 20.0)


def test_candidates_are_the_blocks_scored_positive_best_first_and_distinct():
    recognizer = MSRBFNRecognizer(m1=10, m2=5, pi=3, random_state=0).fit(TRAIN)
    document = TEST[0]
    blocks, theta, gammas = page_features(
        document.page, document.rendered, ("intitle", "fsize", "fbold"), ("dice",)
    )
    scores = recognizer.model_.decision_function(theta, gammas)
    prediction = recognizer.predict([document])[0]
    assert prediction.score == pytest.approx(scores.max())
    positive = sorted((-score, i) for i, score in enumerate(scores) if score > 0)
    assert prediction.candidates == tuple(dict.fromkeys(blocks[i].text for _, i in positive))


def test_hidden_blocks_are_neither_features_nor_answers():
    document = TEST[0]
    blocks, theta, gammas = page_features(
        document.page, document.rendered, ("intitle", "fsize", "fbold"), ("dice",)
    )
    assert "Hidden promo" not in [block.text for block in blocks]
    assert theta.shape == (8, 3) and len(gammas) == 8 and gammas[0].shape == (2, 1)
    # "The Pilgrim's Progress" has 19 of the 38 letters of the title's terms; 30 px of 48; bold.
    np.testing.assert_allclose(theta[3], [19 / 38, 30 / 48, 1.0])
    np.testing.assert_allclose(gammas[3][:, 0], [1.0, 0.0], atol=1e-12)


def test_pages_that_cannot_be_answered_get_errors_and_the_batch_goes_on():
    recognizer = MSRBFNRecognizer(m1=10, m2=5, pi=3, random_state=0).fit(TRAIN)
    no_blocks = RenderedPage("t", (), ())
    bad_font = RenderedPage("t", (), (block("x", font_size=math.nan),))
    documents = [
        Document(TEST[0].page),
        Document(TEST[1].page, no_blocks),
        TEST[1],
        Document(TEST[2].page, bad_font),
    ]
    predictions = recognizer.predict(documents)
    assert [prediction.error for prediction in predictions][:3] == [
        "page not rendered",
        "no text blocks",
        "",
    ]
    assert "non-finite" in predictions[3].error
    assert predictions[2].main_entity == PRODUCTS[10]
    assert (
        predictions[0].main_entity == "" and math.isnan(predictions[0].score) and predictions[0].bbox is None
    )
    assert recognizer.predict([]) == []


def test_page_without_visible_blocks_is_answered_from_all_its_blocks():
    recognizer = MSRBFNRecognizer(m1=10, m2=5, pi=3, random_state=0).fit(TRAIN)
    document = TEST[1]
    shown = recognizer.predict([document])[0]
    # The same page seen wholly hidden (e.g. anti-flicker CSS the renderer could not lift).
    hidden_blocks = tuple(replace(b, hidden=True) for b in document.rendered.blocks)
    all_hidden = replace(document.rendered, blocks=hidden_blocks)
    blocks, theta, gammas = page_features(document.page, all_hidden, ("intitle", "fsize", "fbold"), ("dice",))
    assert blocks == list(all_hidden.blocks) and theta.shape == (9, 3) and len(gammas) == 9
    (prediction,) = recognizer.predict([Document(document.page, all_hidden)])
    assert prediction.error == "" and prediction.main_entity == PRODUCTS[10] == shown.main_entity
    assert prediction.bbox == shown.bbox == (10.0, 100.0, 300.0, 20.0)
    scores = recognizer.model_.decision_function(theta, gammas)
    assert prediction.score == pytest.approx(scores.max())
    # One visible block is enough to leave the hidden ones out, however well they would score.
    one_shown = replace(all_hidden, blocks=(*hidden_blocks[:-1], replace(hidden_blocks[-1], hidden=False)))
    (prediction,) = recognizer.predict([Document(document.page, one_shown)])
    assert prediction.main_entity == "Copyright Christian Books Store"


def test_predict_in_chunks_gives_the_same_answers(monkeypatch):
    recognizer = MSRBFNRecognizer(m1=10, m2=5, pi=3, random_state=0).fit(TRAIN)
    documents = [*TEST, Document(TEST[0].page), *TRAIN]
    whole = recognizer.predict(documents)
    monkeypatch.setattr("mainentity.recognizers.msrbfn.PREDICT_CHUNK_PAGES", 2)
    assert recognizer.predict(documents) == whole
    assert [prediction.error for prediction in whole].count("page not rendered") == 1


def test_fit_skips_unusable_documents_with_a_warning_and_keeps_unmatched_pages_as_negatives():
    unmatched = product_document(3, label="A Title Found Nowhere On The Page")
    documents = [*TRAIN, Document(TRAIN[0].page), unmatched]
    with pytest.warns(UserWarning, match="skipped 1 training documents: 1 not rendered"):
        recognizer = MSRBFNRecognizer(m1=10, m2=5, pi=3, random_state=0).fit(documents)
    assert recognizer.n_training_pages_ == 10
    assert recognizer.n_training_blocks_ == 80


def test_fit_needs_a_matching_block():
    documents = [product_document(i, label="Nothing like it") for i in range(3)]
    with pytest.raises(ValueError, match="no text block of the 3 training pages matches"):
        MSRBFNRecognizer(m1=5, m2=5).fit(documents)
    with (
        pytest.raises(ValueError, match="no training document"),
        pytest.warns(UserWarning, match="not rendered"),
    ):
        MSRBFNRecognizer().fit([Document(TRAIN[0].page)])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"textblock_features": ("intitle", "color")},
            "unknown textblock feature.*valid: intitle, fsize, fbold",
        ),
        ({"anchortext_features": ("cosine",)}, "unknown anchor-text feature.*valid: dice"),
        ({"textblock_features": (), "anchortext_features": ()}, "both empty"),
        ({"fsize_max": 0.0}, "fsize_max"),
        ({"m1": 0}, "m1 must be"),
    ],
)
def test_fit_validates_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        MSRBFNRecognizer(**params).fit(TRAIN)


def test_registered_as_msrbfn_and_reproducible():
    first = make_recognizer("msrbfn", m1=10, m2=5, pi=3, random_state=4).fit(TRAIN)
    second = make_recognizer("msrbfn", m1=10, m2=5, pi=3, random_state=4).fit(TRAIN)
    assert isinstance(first, MSRBFNRecognizer)
    assert first.predict(TEST) == second.predict(TEST)
