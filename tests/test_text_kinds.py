"""Text that is not the name's own, on made-up pages read by both readers (the static reader and, marked
``browser``, Chromium): ruby annotations, decorative marks, invisible format characters, mojibake
(issue 33). The candidates (mainentity.features.candidates.page_candidates) are what the model answers
from."""

from __future__ import annotations

import pytest

from mainentity.features.candidates import page_candidates
from mainentity.records import Page
from mainentity.render import Renderer, RenderSettings
from mainentity.render.static import read_static
from mainentity.sitedump.decoding import decode_html

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
    # the bases and the text between them are pieces of words, not texts of their own
    assert not {"子", "どもへの", "支援", "を広げる"} & set(texts)


@pytest.mark.parametrize("reader", READERS)
def test_ruby_annotations_are_not_read_into_a_headline_set_over_blocks(reader, request):
    # a kicker and a headline in blocks of one heading: its whole text is the heading segment
    headline = ('<h1><div>特集</div><div><ruby>東京<rt>とうきょう</rt></ruby>の<ruby>子<rt>こ</rt></ruby>'
                "どもたち</div></h1>")
    texts = candidate_texts(read(reader, request, story(headline)))
    assert "特集 東京の子どもたち" in texts
    assert "東京の子どもたち" in texts
    assert not any("とうきょう" in text or "子こ" in text for text in texts)


@pytest.mark.parametrize("reader", READERS)
def test_decorative_marks_in_front_of_a_name_are_not_its_text(reader, request):
    body = ('<ul class="team"><li><a href="/p/1"><span class="arrow">[&gt;</span> Jane Doe</a></li>'
            '<li><a href="/p/2">» Ann Lee</a></li><li>• Omar Haddad |</li></ul>'
            "<h2>«Harbour Days»</h2><h3>¿Qué pasa?</h3><p>#1 Hit of the summer, written in C++</p>")
    texts = candidate_texts(read(reader, request, body))
    assert {"Jane Doe", "Ann Lee", "Omar Haddad"} <= set(texts)
    assert not any(text.startswith(("[", ">", "»", "•")) or text.endswith("|") for text in texts)
    assert {"«Harbour Days»", "¿Qué pasa?", "#1 Hit of the summer, written in C++"} <= set(texts)


@pytest.mark.parametrize("reader", READERS)
def test_soft_hyphens_and_zero_width_characters_are_not_kept_in_words(reader, request):
    headline = ("<h1>Trump plant Helikopter&shy;landeplatz beim Bundes&#8203;haus</h1>"
                "<h2>Wort&#8288;spiel und Zeichen&#8203;kette</h2>")
    texts = candidate_texts(read(reader, request, story(headline)))
    assert "Trump plant Helikopterlandeplatz beim Bundeshaus" in texts
    assert "Wortspiel und Zeichenkette" in texts
    assert not any(char in text for text in texts for char in "\u00ad\u200b\u2060\ufeff")


@pytest.mark.parametrize("reader", READERS)
def test_text_decoded_twice_is_repaired(reader, request):
    # the page's own bytes hold UTF-8 text that was decoded as windows-1250 / -1252 before it was saved
    # (mojibake in the page); its <meta> declares windows-1252 while its bytes are UTF-8 (read as UTF-8)
    markup = ('<!DOCTYPE html><html><head><meta charset="windows-1252"><title>Mäscot</title></head><body>'
              "<h1>M\u0102\u00a4scot wins the regatta</h1><p>Lunch at Caf\u00c3\u00a9 Rouge, by the pier, "
              "then the prize-giving at the Rathaus of Zürich.</p></body></html>")
    html = decode_html(markup.encode("utf-8"), "p.htm")
    texts = candidate_texts(read(reader, request, "", html=html))
    assert "Mäscot wins the regatta" in texts
    assert "Lunch at Café Rouge, by the pier, then the prize-giving at the Rathaus of Zürich." in texts
    assert not any("\u0102" in text or "\u00c3" in text for text in texts)
