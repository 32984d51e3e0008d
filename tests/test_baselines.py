import pytest

from mainentity.recognizers.base import make_recognizer
from mainentity.recognizers.baselines import (
    FirstH1Recognizer,
    OgTitleRecognizer,
    TitleTagRecognizer,
    html_head,
    predict_each,
)
from mainentity.records import Document, Page, RenderedPage, TextBlock

HTML = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html>
<html><head>
  <meta charset="utf-8">
  <title>
    The Coronet,&nbsp;Holloway |
    Our Pubs &amp; Hotels
  </title>
  <meta property="og:title" content="">
  <meta property="og:title" content=" The   Coronet ">
  <meta name="twitter:title" content="Coronet (Twitter)">
  <meta name="keywords" content="pub, Holloway">
</head><body>
  <svg><title>An icon</title></svg>
  <h1>The Coronet</h1>
</body></html>"""


def document(html="", rendered=None, path="a.html"):
    return Document(Page("site", path, f"http://example.org/{path}", html, ("The Coronet",)), rendered)


def block(text, dom_path, level=0, hidden=False, x=0.0, y=0.0, width=100.0, height=20.0):
    tag = dom_path.rsplit("/", 1)[-1].split("[")[0]
    return TextBlock(text, tag, dom_path, 16.0, 400, False, x, y, width, height, heading_level=level,
                     hidden=hidden)


@pytest.mark.parametrize(
    "name, cls, needs_render",
    [("title-tag", TitleTagRecognizer, False), ("og-title", OgTitleRecognizer, False),
     ("first-h1", FirstH1Recognizer, True)],
)
def test_registry_and_flags(name, cls, needs_render):
    recognizer = make_recognizer(name)
    assert type(recognizer) is cls
    assert recognizer.needs_render is needs_render and recognizer.needs_training is False
    assert recognizer.fit([document()]) is recognizer


def test_html_head_parses_title_and_meta_without_a_browser():
    title, meta = html_head(HTML)
    assert title == "The Coronet, Holloway | Our Pubs & Hotels"  # entities decoded, white space collapsed
    assert meta == (("og:title", ""), ("og:title", "The Coronet"), ("twitter:title", "Coronet (Twitter)"),
                    ("keywords", "pub, Holloway"))
    assert html_head("") == ("", ())
    assert html_head("<p>no head</p>") == ("", ())
    assert html_head("<svg><title>icon</title></svg><title>Real</title>")[0] == "Real"
    # a page saved by the Postlight parser keeps each meta tag's content in "value"
    assert html_head('<meta value="The Coronet" name="og:title">')[1] == (("og:title", "The Coronet"),)


def test_title_tag_from_html_and_from_rendering():
    recognizer = TitleTagRecognizer()
    rendered = RenderedPage("Rendered Title", (), ())
    predictions = recognizer.predict([document(HTML), document(HTML, rendered), document("<p>x</p>")])
    assert predictions[0].main_entity == "The Coronet, Holloway | Our Pubs & Hotels"
    assert predictions[0].candidates == (predictions[0].main_entity,) and predictions[0].bbox is None
    assert predictions[1].main_entity == "Rendered Title"
    assert (predictions[2].main_entity, predictions[2].error) == ("", "page has no <title> text")


def test_og_title_from_html_and_from_rendering():
    recognizer = OgTitleRecognizer()
    rendered = RenderedPage("T", (("og:title", "From Render"),), ())
    predictions = recognizer.predict([document(HTML), document(HTML, rendered), document("<title>T</title>")])
    assert predictions[0].main_entity == "The Coronet"  # the first non-empty og:title
    assert predictions[1].main_entity == "From Render"
    assert predictions[2].error == "page has no og:title meta tag"


def test_first_h1_joins_the_blocks_of_the_first_visible_h1():
    blocks = (
        block("Menu", "html[0]/body[1]/nav[0]/a[0]"),
        block("Old Name", "html[0]/body[1]/h1[1]", level=1, hidden=True),
        block("The", "html[0]/body[1]/div[2]/h1[0]/a[0]", level=1, x=10, y=100, width=40, height=30),
        block("Coronet", "html[0]/body[1]/div[2]/h1[0]", level=1, x=55, y=100, width=90, height=32),
        block("hidden part", "html[0]/body[1]/div[2]/h1[0]/span[1]", level=1, hidden=True),
        block("Second heading", "html[0]/body[1]/div[2]/h1[1]", level=1, y=200),
        block("Intro", "html[0]/body[1]/div[2]/p[2]"),
    )
    prediction = FirstH1Recognizer().predict([document(rendered=RenderedPage("t", (), blocks))])[0]
    assert prediction.main_entity == "The Coronet"
    assert prediction.bbox == (10.0, 100.0, 135.0, 32.0)
    assert prediction.error == ""


def test_first_h1_error_rows():
    no_h1 = RenderedPage("t", (), (block("Intro", "html[0]/body[1]/p[0]"),))
    predictions = FirstH1Recognizer().predict([document(HTML), document(rendered=no_h1)])
    assert "needs a rendered page" in predictions[0].error
    assert predictions[1].error == "page has no visible <h1>"


def test_predict_each_isolates_a_failing_page():
    def answer(doc):
        if doc.page.path == "bad.html":
            raise RuntimeError("broken markup")
        return TitleTagRecognizer().predict([doc])[0]

    predictions = predict_each([document(HTML), document(path="bad.html"), document(HTML)], answer)
    assert [p.error for p in predictions] == ["", "RuntimeError: broken markup", ""]
    assert predictions[1].path == "bad.html" and predictions[1].main_entity == ""
