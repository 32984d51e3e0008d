import math

import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from mainentity.features.labels import main_entity_labels
from mainentity.features.ngram_candidates import load_pos_tagger
from mainentity.recognizers.base import make_recognizer
from mainentity.recognizers.titler import (
    TitlerClusRecognizer,
    TitlerKNNRecognizer,
    TitlerNBRecognizer,
    TitlerSVMRecognizer,
    TTARecognizer,
)
from mainentity.records import Document, Page, RenderedPage, TextBlock

TITLER_NAMES = ["titler-svm", "titler-knn", "titler-nb", "titler-clus"]

PUBS = [
    ("The Coronet", "Holloway"), ("The Moon Under Water", "Watford"), ("The Crown and Anchor", "Bristol"),
    ("The Sir John Oldcastle", "Farringdon"), ("The Kings Ferry", "Gravesend"),
    ("The Lord Moon of the Mall", "Westminster"), ("The Greyhound", "Cardiff"),
    ("The Picture House", "Stafford"), ("The Standing Order", "Edinburgh"),
    ("The Velvet Coaster", "Blackpool"),
    ("The Glass House", "Leeds"), ("The Bank of England", "Oxford"), ("The Red Lion", "Norwich"),
    ("The Golden Acorn", "Glasgow"), ("The Hope and Anchor", "Hull"), ("The Silver Cross", "York"),
]


def slug(text):
    return text.lower().replace(" ", "-")


def pub_document(i, hide_h1=False):
    """A hand-made pub page of one site template: nav links, h1 name, headings, body, nearby pubs."""
    name, town = PUBS[i]
    blocks = []

    def add(text, tag="p", level=0, link=False, hidden=False):
        y = 30.0 * len(blocks)
        blocks.append(TextBlock(text, tag, f"html[0]/body[1]/div[{len(blocks)}]/{tag}[0]", 16.0, 400, False,
                                10.0, y, 600.0, 24.0, in_link=link, heading_level=level, hidden=hidden))

    for nav in ("Home", "Our Pubs", "Food", "Drinks", "Hotels"):
        add(nav, "a", link=True)
    add(name, "h1", 1, hidden=hide_h1)
    add("Find a pub or hotel", "h2", 2)
    add("Our Pubs", "h2", 2)
    add(f"{name} is a pub in {town} serving food and Real Ale every day of the week.")
    add("Opening Hours", "h3", 3)
    add("Monday to Sunday from 8am until midnight")
    add("Nearby J D Wetherspoons", "h4", 4)
    for k in (1, 2):
        add(PUBS[(i + k) % len(PUBS)][0], "a", link=True)
    add("Copyright J D Wetherspoon plc")
    title = f"{name}, {town} | Our Pubs | J D Wetherspoon"
    rendered = RenderedPage(title, (("og:title", title), ("keywords", f"{name}, {town}, pub")), tuple(blocks))
    url = f"https://www.jdwetherspoon.com/pubs/all-pubs/england/{slug(town)}/{slug(name)}-{slug(town)}"
    page = Page("jdwetherspoon", f"pubs/{i}.html", url, "", main_entity=(name,))
    return Document(page, rendered)


def coronet_document(hidden_h1=False):
    """The TTA worked example of Gali & Fränti (2016) as a rendered page."""
    headings = [("The Coronet", 1), ("Find a pub or hotel", 2), ("Our Pubs", 2),
                ("Check out your nearest pub or hotel", 2), ("Discover our food menu", 3),
                ("Our drinks selection", 3), ("Nearby J D Wetherspoons", 4)]
    blocks = tuple(
        TextBlock(text, f"h{level}", f"html[0]/body[1]/h{level}[{i}]", 20.0, 700, True, 0, 40.0 * i, 500, 30,
                  heading_level=level, hidden=hidden_h1 and level == 1)
        for i, (text, level) in enumerate(headings)
    )
    rendered = RenderedPage(
        "The Coronet, Holloway | Our Pubs | J D Wetherspoon", (("keywords", "The Coronet"),), blocks
    )
    url = "https://www.jdwetherspoon.com/pubs/all-pubs/england/london/the-coronet-holloway"
    return Document(Page("jdwetherspoon", "coronet.html", url, "", ("The Coronet",)), rendered)


@pytest.mark.parametrize(
    "name, cls, trains",
    [("tta", TTARecognizer, False), ("titler-svm", TitlerSVMRecognizer, True),
     ("titler-knn", TitlerKNNRecognizer, True), ("titler-nb", TitlerNBRecognizer, True),
     ("titler-clus", TitlerClusRecognizer, True)],
)
def test_registry(name, cls, trains):
    recognizer = make_recognizer(name)
    assert type(recognizer) is cls
    assert recognizer.needs_render and recognizer.needs_training is trains
    assert clone(recognizer).get_params() == recognizer.get_params()
    with pytest.raises(ValueError, match="unknown parameter"):
        make_recognizer(name, not_a_param=1)


def test_tta_worked_example():
    prediction = TTARecognizer().fit([]).predict([coronet_document()])[0]
    assert prediction.main_entity == "The Coronet"
    assert prediction.score == pytest.approx(2.10)
    assert prediction.candidates == ("The Coronet", "J D Wetherspoon", "Holloway", "Our Pubs")
    assert prediction.bbox is None and prediction.error == ""


def test_tta_ignores_hidden_headings_unless_asked():
    hidden = coronet_document(hidden_h1=True)
    # Without the h1, "Our Pubs" (h2, 5) leads criterion 2 and J D Wetherspoon (h4, 3) gets 3/5.
    prediction = TTARecognizer().predict([hidden])[0]
    assert prediction.main_entity == "J D Wetherspoon"
    assert prediction.score == pytest.approx(0.1 + 3 / 5 + 1 / (3 * 18 / 26))
    prediction = TTARecognizer(include_hidden=True).predict([hidden])[0]
    assert (prediction.main_entity, prediction.score) == ("The Coronet", pytest.approx(2.10))


def test_tta_error_rows():
    page = Page("site", "a.html", "http://x.org/a.html", "")
    no_title = Document(page, RenderedPage("", (), ()))
    predictions = TTARecognizer().predict([Document(page), no_title, coronet_document()])
    assert "needs a rendered page" in predictions[0].error and predictions[0].main_entity == ""
    assert predictions[1].error == "page has no title, meta title or keywords text"
    assert predictions[2].main_entity == "The Coronet"


@pytest.mark.parametrize(
    "texts, labels, expected",
    [
        (["Coronet", "Holloway", "the  CORONET"], ["The Coronet"], [False, False, True]),  # exact
        (["Coronet", "Holloway"], ["The Coronet"], [True, False]),  # best token Dice 0.67 >= 0.5
        (["Coronet", "Holloway"], ["The Coronet Holloway"], [True, True]),  # ties: both 0.5 ...
        (["Coronet"], ["The Coronet Pub of Holloway"], [False]),  # ... but 2/6 < 0.5: the page is unused
    ],
)
def test_training_label_rule(texts, labels, expected):
    assert main_entity_labels(texts, labels, min_dice=0.5).tolist() == expected


@pytest.mark.parametrize("name", TITLER_NAMES)
def test_each_titler_classifier_names_held_out_pubs(name):
    documents = [pub_document(i) for i in range(len(PUBS))]
    recognizer = make_recognizer(name, pos_filter="capitalisation", random_state=0).fit(documents[:12])
    assert recognizer.n_training_pages_ == 12 and recognizer.n_skipped_pages_ == 0
    predictions = recognizer.predict(documents[12:])
    assert [p.main_entity for p in predictions] == [name for name, _ in PUBS[12:]]
    for prediction, document in zip(predictions, documents[12:], strict=True):
        h1 = document.rendered.blocks[5]
        assert prediction.bbox == (h1.x, h1.y, h1.width, h1.height)  # the answer is the whole h1 block
        assert prediction.candidates[0] == prediction.main_entity and math.isfinite(prediction.score)
        assert (prediction.site_id, prediction.path, prediction.url) == (
            document.page.site_id, document.page.path, document.page.url)


def test_titler_with_nltk_tags():
    if load_pos_tagger() is None:
        pytest.skip("NLTK tagger data missing: set NLTK_DATA=/work/shared/nltk_data")
    documents = [pub_document(i) for i in range(len(PUBS))]
    recognizer = TitlerSVMRecognizer(random_state=0).fit(documents[:12])
    assert [p.main_entity for p in recognizer.predict(documents[12:])] == [name for name, _ in PUBS[12:]]


def test_titler_fit_is_seeded():
    documents = [pub_document(i) for i in range(len(PUBS))]
    params = dict(pos_filter="capitalisation", max_negatives_per_page=5, random_state=7)
    first = TitlerKNNRecognizer(**params).fit(documents[:12]).predict(documents[12:])
    second = TitlerKNNRecognizer(**params).fit(documents[:12]).predict(documents[12:])
    assert [p.score for p in first] == [p.score for p in second]


def test_titler_skips_unusable_training_pages_and_fails_without_any():
    documents = [pub_document(i) for i in range(4)]
    unlabeled = Document(Page("s", "u.html", "http://x.org/u", ""), documents[0].rendered)
    wrong_label = Page("s", "w.html", "http://x.org/w", "", ("Completely Different",))
    wrong = Document(wrong_label, documents[1].rendered)
    recognizer = TitlerNBRecognizer(pos_filter="capitalisation").fit([*documents, unlabeled, wrong])
    assert recognizer.n_training_pages_ == 4 and recognizer.n_skipped_pages_ == 2
    with pytest.raises(ValueError, match="no training page has a candidate matching its main entity"):
        TitlerNBRecognizer(pos_filter="capitalisation").fit([unlabeled, wrong])


def test_titler_predict_errors():
    with pytest.raises(NotFittedError):
        TitlerSVMRecognizer().predict([pub_document(0)])
    recognizer = TitlerSVMRecognizer(pos_filter="capitalisation", random_state=0)
    recognizer.fit([pub_document(i) for i in range(6)])
    page = Page("s", "x.html", "http://x.org/x", "")
    dots = TextBlock("...", "p", "p[0]", 16, 400, False, 0, 0, 9, 9)
    empty = Document(page, RenderedPage("Title", (), (dots,)))
    predictions = recognizer.predict([Document(page), empty, pub_document(7)])
    assert "needs a rendered page" in predictions[0].error
    assert predictions[1].error.startswith("no Titler candidates")
    assert predictions[2].main_entity == PUBS[7][0] and predictions[2].error == ""
