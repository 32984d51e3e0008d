"""Baseline recognisers that learn nothing: the raw ``<title>``, the og:title meta tag, the first h1.

"title-tag" is the baseline of Gali & Fränti (2016) (slides "Results": Baseline (Title Tag)).
"title-tag" and "og-title" read the page's HTML with lxml when the document has no rendering (no
browser needed); "first-h1" needs the rendered text blocks.
"""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from mainentity.recognizers.base import Recognizer, predict_each
from mainentity.records import Document, Prediction, TextBlock
from mainentity.text import collapse_whitespace, meta_content

__all__ = [
    "FirstH1Recognizer",
    "OgTitleRecognizer",
    "TitleTagRecognizer",
    "html_head",
]


def _answer(document: Document, text: str, missing: str, **fields) -> Prediction:
    page = document.page
    if not text:
        return Prediction(page.site_id, page.path, page.url, error=missing)
    return Prediction(page.site_id, page.path, page.url, main_entity=text, candidates=(text,), **fields)


def html_head(html: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The ``<title>`` text and the meta tags of an HTML page, parsed with lxml (no browser).

    Parameters
    ----------
    html : str
        The page markup.

    Returns
    -------
    title : str
        Text of the first ``<title>`` outside ``<svg>``, white space collapsed; ``""`` when there is none.
    meta : tuple of (str, str)
        ``(key, content)`` of every ``<meta>`` with a ``content`` and a ``property`` or ``name``; ``key``
        is the lower-cased ``property`` (else ``name``), as in :class:`mainentity.records.RenderedPage`.

    Examples
    --------
    >>> html_head('<title> A &amp; B </title><meta property="OG:Title" content="A">')
    ('A & B', (('og:title', 'A'),))
    """
    parser = etree.HTMLParser(encoding="utf-8")
    root = etree.fromstring(html.encode("utf-8", "surrogatepass"), parser) if html.strip() else None
    if root is None:
        return "", ()
    titles = root.xpath("//title[not(ancestor::svg)]")
    title = collapse_whitespace("".join(titles[0].itertext())) if titles else ""
    meta = []
    for element in root.iter("meta"):
        key = (element.get("property") or element.get("name") or "").strip().lower()
        if key and (content := meta_content(element)) is not None:
            meta.append((key, collapse_whitespace(content)))
    return title, tuple(meta)


class TitleTagRecognizer(Recognizer):
    """Baseline "title-tag": the raw ``<title>`` text is the main entity.

    Uses ``document.rendered.title`` when the document is rendered, else parses ``document.page.html``
    with lxml. A page without a non-empty title gets an error prediction.

    References
    ----------
    .. [1] Gali & Fränti (2016), "Web title extraction", slide "Results": Baseline (Title Tag).

    Examples
    --------
    >>> from mainentity.records import Page
    >>> page = Page("site", "a.html", "http://x/a.html", "<title>Our Pubs | J D Wetherspoon</title>")
    >>> TitleTagRecognizer().fit([]).predict([Document(page)])[0].main_entity
    'Our Pubs | J D Wetherspoon'
    """

    needs_render = False
    needs_training = False

    def fit(self, documents: Sequence[Document]) -> TitleTagRecognizer:
        """Learn nothing; return ``self``."""
        return self

    def predict(self, documents: Sequence[Document]) -> list[Prediction]:
        """The ``<title>`` text of each document (error "page has no <title> text" when empty)."""

        def answer(document: Document) -> Prediction:
            rendered = document.rendered
            title = rendered.title if rendered is not None else html_head(document.page.html)[0]
            return _answer(document, title, "page has no <title> text")

        return predict_each(documents, answer)


class OgTitleRecognizer(Recognizer):
    """Baseline "og-title": the content of ``<meta property="og:title">``.

    Uses ``document.rendered.meta`` when the document is rendered, else parses ``document.page.html``
    with lxml. The first non-empty og:title counts; a page without one gets an error prediction.

    Examples
    --------
    >>> from mainentity.records import Page
    >>> html = '<meta property="og:title" content="The Coronet"><title>Pubs</title>'
    >>> OgTitleRecognizer().predict([Document(Page("site", "a.html", "http://x/a", html))])[0].main_entity
    'The Coronet'
    """

    needs_render = False
    needs_training = False

    def fit(self, documents: Sequence[Document]) -> OgTitleRecognizer:
        """Learn nothing; return ``self``."""
        return self

    def predict(self, documents: Sequence[Document]) -> list[Prediction]:
        """The og:title content of each document (error "page has no og:title meta tag" when absent)."""

        def answer(document: Document) -> Prediction:
            rendered = document.rendered
            meta = rendered.meta if rendered is not None else html_head(document.page.html)[1]
            og_title = next((content for key, content in meta if key == "og:title" and content), "")
            return _answer(document, og_title, "page has no og:title meta tag")

        return predict_each(documents, answer)


def _h1_blocks(blocks: Sequence[TextBlock]) -> list[TextBlock]:
    """The visible blocks of the first visible h1 element, in order."""
    first = next((block for block in blocks if block.heading_level == 1 and not block.hidden), None)
    if first is None:
        return []
    steps = first.dom_path.split("/")
    h1_steps = [i for i, step in enumerate(steps) if step.startswith("h1[")]
    if not h1_steps:
        return [first]
    prefix = "/".join(steps[: h1_steps[-1] + 1])
    return [
        block
        for block in blocks
        if not block.hidden and (block.dom_path == prefix or block.dom_path.startswith(prefix + "/"))
    ]


class FirstH1Recognizer(Recognizer):
    """Baseline "first-h1": the text of the first visible ``<h1>`` of the rendered page.

    The answer joins the visible text blocks inside that h1 element (found by the h1 step of their
    ``dom_path``) and its bounding box is the union of theirs. Needs rendered documents; a page without
    a visible h1 gets an error prediction.

    Examples
    --------
    >>> from mainentity.records import Page, RenderedPage
    >>> h1 = TextBlock("The Coronet", "h1", "html[0]/body[1]/h1[0]", 32.0, 700, True, 10, 50, 300, 40,
    ...                heading_level=1)
    >>> document = Document(Page("site", "a.html", "http://x/a", ""), RenderedPage("t", (), (h1,)))
    >>> prediction = FirstH1Recognizer().predict([document])[0]
    >>> prediction.main_entity, prediction.bbox
    ('The Coronet', (10.0, 50.0, 300.0, 40.0))
    """

    needs_render = True
    needs_training = False

    def fit(self, documents: Sequence[Document]) -> FirstH1Recognizer:
        """Learn nothing; return ``self``."""
        return self

    def predict(self, documents: Sequence[Document]) -> list[Prediction]:
        """The first visible h1 of each document, with its bounding box."""

        def answer(document: Document) -> Prediction:
            if document.rendered is None:
                raise ValueError("first-h1 needs a rendered page; the document has none")
            blocks = _h1_blocks(document.rendered.blocks)
            if not blocks:
                return _answer(document, "", "page has no visible <h1>")
            x0 = float(min(block.x for block in blocks))
            y0 = float(min(block.y for block in blocks))
            x1 = float(max(block.x + block.width for block in blocks))
            y1 = float(max(block.y + block.height for block in blocks))
            text = collapse_whitespace(" ".join(block.text for block in blocks))
            return _answer(document, text, "page has an empty <h1>", bbox=(x0, y0, x1 - x0, y1 - y0))

        return predict_each(documents, answer)
