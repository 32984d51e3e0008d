"""Text that is not the name's own, on made-up pages read by both readers (the static reader and, marked
``browser``, Chromium): ruby annotations (issue 33). The candidates
(mainentity.features.candidates.page_candidates) are what the model answers from."""

from __future__ import annotations

import pytest

from mainentity.features.candidates import page_candidates
from mainentity.records import Page
from mainentity.render import Renderer, RenderSettings
from mainentity.render.static import read_static

READERS = ["static", pytest.param("rendered", marks=pytest.mark.browser)]


@pytest.fixture(scope="module")
def renderer():
    with Renderer(RenderSettings(concurrency=1, timeout_s=15)) as r:
        yield r


def read(reader: str, request, body: str, head: str = "", *, html: str | None = None):
    html = html or f'<!DOCTYPE html><html><head><meta charset="utf-8">{head}</head><body>{body}</body></html>'
    page = Page("s", "p.htm", "http://s.test/p.htm", html)
    if reader == "static":
        return read_static(page)
    (outcome,) = list(request.getfixturevalue("renderer").render([page]))
    assert outcome.error == ""
    return outcome.rendered


def candidate_texts(rendered) -> list[str]:
    return [candidate.text for candidate in page_candidates(rendered)]


def story(headline: str) -> str:
    return (f'<nav><a href="/">Home</a> <a href="/news">News</a></nav><article>{headline}'
            "<p>The council met on Tuesday to decide on the plan, which has been discussed for two years.</p>"
            "</article>")


@pytest.mark.parametrize("reader", READERS)
def test_ruby_annotations_are_not_read_into_a_headline(reader, request):
    # furigana over two words of a Japanese headline, one with the <rp> fallback parentheses
    headline = ("<h1><ruby>子<rt>こ</rt></ruby>どもへの<ruby>支援<rp>(</rp><rt>しえん</rt><rp>)</rp></ruby>"
                "を広げる</h1>")
    texts = candidate_texts(read(reader, request, story(headline)))
    assert "子どもへの支援を広げる" in texts
    assert not any(annotation in text for text in texts for annotation in ("こど", "しえん", "(", "子こ"))


@pytest.mark.parametrize("reader", READERS)
def test_ruby_annotations_are_not_read_into_a_headline_set_over_blocks(reader, request):
    # a kicker and a headline in blocks of one heading: its whole text is the heading segment
    headline = ('<h1><div>特集</div><div><ruby>東京<rt>とうきょう</rt></ruby>の<ruby>子<rt>こ</rt></ruby>'
                "どもたち</div></h1>")
    texts = candidate_texts(read(reader, request, story(headline)))
    assert "特集 東京の子どもたち" in texts
    assert "東京の子どもたち" in texts
    assert not any("とうきょう" in text or "子こ" in text for text in texts)
