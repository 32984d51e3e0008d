"""Records that pass between the stages of the data flow.

site dump -> :class:`Page` -> render -> :class:`RenderedPage` (text blocks) -> :class:`Document`
-> cleaning -> features -> model -> :class:`Prediction` -> report.

Every record is a small frozen dataclass; a stage takes records and returns new ones (use
:func:`dataclasses.replace`), it never mutates its input. This module imports nothing else from the
package, so every stage can import it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


#: How a page can be answered (:attr:`Prediction.answered_by`): read statically and answered by the static model,
#: read through its template's slot locator, rendered in Chromium, rendered again with its scripts on, or its
#: markup read by a recogniser that needs no rendering.
ANSWERED_BY = ("static", "slot", "rendered", "scripts", "html")

#: The meta tags whose ``content`` is a title of the page (Gali & Fränti 2016, TTA sources).
META_TITLE_KEYS = ("og:title", "title", "twitter:title")


@dataclass(frozen=True)
class Page:
    """One HTML page of a site dump, decoded to text.

    Attributes
    ----------
    site_id : str
        Short name of the site dump the page belongs to (its directory name).
    path : str
        Path of the page file relative to the site dump directory, with ``/`` separators.
    url : str
        The page's URL (from the manifest, a ``<base href>``, or ``--base-url`` plus ``path``).
    html : str
        The page's markup, decoded as a browser would (BOM, declared charset, sniffing).
    main_entity : tuple of str
        Acceptable labels of the page's main entity (any one counts as correct); empty when unlabeled.
    anchors : tuple of str
        Incoming link anchor texts (ILA, the set A of Carullo & Binaghi 2010, section 2): texts (or image
        ``alt``) of links in other pages of the same dump that point to this page.
    home_link_texts : tuple of str
        Texts (or image ``alt``) of this page's own visible links to its site's home page (the root of
        its URL's host), as :func:`mainentity.linkgraph.link_graph` reads them: where a site shows its
        own name ("Longform Quarterly" in the header). Empty on the home page itself.
    dataset : str
        Name of the dataset folder the page was read from (:func:`mainentity.loading.load_pages`; empty for
        a lone page, standard input or a WARC): the general recogniser holds out whole datasets to
        calibrate its scores when it learns from several.
    """

    site_id: str
    path: str
    url: str
    html: str
    main_entity: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()
    home_link_texts: tuple[str, ...] = ()
    dataset: str = ""


#: Where elements are in a page: the ``(tag, index)`` steps of a :attr:`TextBlock.dom_path` from ``<html>``,
#: ``None`` where any index will do (the elements at one place of each page of a template).
ElementPath = tuple[tuple[str, int | None], ...]


@dataclass(frozen=True)
class TextBlock:
    """One text block of a rendered page (Carullo & Binaghi 2010, section 3.4.2).

    Either a non-empty visible-or-hidden text node, or the merge of an element whose content is only
    text and inline formatting elements (b, i, u, span, em, strong, ...).

    Attributes
    ----------
    text : str
        The block's text, whitespace collapsed to single spaces and stripped.
    tag : str
        Lower-case tag name of the element that holds the text (the parent element for a text node).
    dom_path : str
        Path of that element from the document root, one step per element as ``tag[i]`` with ``i`` the
        0-based index among the parent's element children, e.g. ``"html[0]/body[1]/div[3]/h1[0]"``.
    font_size : float
        Computed font size in CSS px.
    font_weight : int
        Computed font weight (100-900).
    bold : bool
        ``font_weight >= 600`` or inside ``<b>``/``<strong>``.
    x, y, width, height : float
        Bounding box in CSS px of the 1024 px wide layout; ``y`` counts from the page top, not the
        viewport.
    in_link : bool
        The block is inside an ``<a href>``.
    heading_level : int
        1-6 when the block is inside an ``<h1>``-``<h6>``, else 0.
    hidden : bool
        Not displayed (``display: none``, ``visibility: hidden``, zero size) or entirely off the page.
    merged : bool
        The block is a merge of inline sub-nodes rather than a single text node.
    kind : str
        ``"block"`` for a text block of the paper; for a segment of :attr:`RenderedPage.segments`,
        ``"run"`` (a run of one computed style inside a merged block), ``"visible"`` (a merged block's
        text without its visually hidden parts) or ``"heading"`` (the visible text of a whole heading
        element whose content is not inline-only).
    """

    text: str
    tag: str
    dom_path: str
    font_size: float
    font_weight: int
    bold: bool
    x: float
    y: float
    width: float
    height: float
    in_link: bool = False
    heading_level: int = 0
    hidden: bool = False
    merged: bool = False
    kind: str = "block"


@dataclass(frozen=True)
class RenderedPage:
    """What the renderer saw of one page: its title tags and its text blocks.

    Attributes
    ----------
    title : str
        Text of the ``<title>`` element, whitespace collapsed.
    meta : tuple of (str, str)
        ``(key, content)`` of the page's meta tags named in :data:`META_TITLE_KEYS` and of
        ``og:site_name``/``keywords``/``description``, in document order; ``key`` is the lower-cased ``property`` or
        ``name``.
    blocks : tuple of TextBlock
        The text blocks in document order.
    width, height : float
        Size of the laid-out document in CSS px.
    segments : tuple of TextBlock
        Candidates finer or coarser than a text block (style runs, visible texts of merged blocks,
        whole headings; see :attr:`TextBlock.kind`), in document order. They are not text blocks of
        the paper: the MS-RBFN and the cleaners never read them.
    """

    title: str
    meta: tuple[tuple[str, str], ...]
    blocks: tuple[TextBlock, ...]
    width: float = 1024.0
    height: float = 768.0
    segments: tuple[TextBlock, ...] = ()

    @property
    def meta_titles(self) -> tuple[str, ...]:
        """Non-empty contents of the meta title tags (og:title, title, twitter:title), in order.

        Of several tags of one key, only the one that agrees best with the page is kept: the largest share
        of its words in the ``<title>`` and the visible blocks, then the last one. A stale tag left by a
        theme's or plugin's defaults comes first in the ``<head>`` and the page's own template writes its
        tag after it (a reader that takes the first takes the stale one); a last tag that the page does
        not bear out loses to one it does. A ``title`` tag that repeats the ``<title>`` word for word is left
        out: it is the ``<title>``'s copy for search engines, no second statement of it (Kommersant sets its
        ``<title>`` and this tag to a summary the page does not show, its og:title to its shown headline).

        >>> RenderedPage("Tide tables | Port", (("og:title", "Port"), ("og:title", "Tide tables")), ()).meta_titles
        ('Tide tables',)
        >>> RenderedPage("Our critic on a storm", (("title", "Our critic on a storm"), ("og:title", "Rough Waters")),
        ...              ()).meta_titles
        ('Rough Waters',)
        """
        own = self.title.split()
        tags = [(key, content) for key, content in self.meta if key in META_TITLE_KEYS and content
                and not (key == "title" and content.split() == own)]
        keys = [key for key, _ in tags]
        if len(set(keys)) < len(keys):
            tags = [tag for tag in tags if keys.count(tag[0]) == 1 or tag == self._agreeing_tag(tag[0], tags)]
        return tuple(content for _, content in tags)

    def _agreeing_tag(self, key: str, tags: list[tuple[str, str]]) -> tuple[str, str]:
        """Of the tags of ``key``, the one with the largest share of its words in the title and the visible
        blocks; the last of equals."""
        shown = _words(self.title).union(*(_words(block.text) for block in self.blocks if not block.hidden))
        options = [tag for tag in tags if tag[0] == key]

        def agreement(index: int) -> tuple[float, int]:
            words = _words(options[index][1]) or {""}
            return len(words & shown) / len(words), index

        return options[max(range(len(options)), key=agreement)]


@dataclass(frozen=True)
class Document:
    """A page together with its rendering, as recognisers see it.

    ``rendered`` is ``None`` for recognisers that read only the HTML (peers, raw ``<title>``).
    ``scripts`` says why the page was rendered a second time with its scripts on, when that rendering is
    ``rendered`` (``render.javascript: auto``: its first rendering looked unfinished,
    :func:`mainentity.render.scripts.unfinished_reason`); empty otherwise.
    """

    page: Page
    rendered: RenderedPage | None = None
    scripts: str = ""


@dataclass(frozen=True)
class Prediction:
    """A recogniser's answer for one page (or the reason it has none).

    Attributes
    ----------
    site_id, path, url : str
        Identify the page (as in :class:`Page`).
    main_entity : str
        The predicted main entity; empty when there is none or the page failed.
    score : float
        The recogniser's score of that answer (MS-RBFN: ``o_1 - o_2``); ``nan`` when not defined.
    bbox : tuple of 4 floats or None
        ``(x, y, width, height)`` in CSS px of the predicted text block, when the answer is a block.
    candidates : tuple of str
        The set H of blocks (texts) the model classified as main entity, best first.
    error : str
        Empty when fine, else why the page has no prediction.
    answered_by : str
        How the page was answered by the predict path's render policy: ``"rendered"`` (rendered in
        Chromium and predicted), ``"scripts"`` (rendered a second time with its scripts on, because its
        first rendering looked unfinished, and predicted from that one: ``render.javascript: auto``),
        ``"slot"`` (read from its HTML through its template's slot locator) or ``"static"`` (read from its
        HTML, answered by the static model), ``"html"`` (its markup read by a recogniser that needs no
        rendering: a peer such as trafilatura or Readability, a baseline); empty when not recorded (a
        recogniser's own output, an error row).
    score_kind : str
        What :attr:`score` is: ``"probability"`` (the calibrated probability that the answer is right:
        the general recogniser) or ``"raw"`` (a score on the recogniser's own scale, e.g. the MS-RBFN's
        ``o_1 - o_2``, which may exceed 1); empty when there is no score or it was not recorded.
    """

    site_id: str
    path: str
    url: str
    main_entity: str = ""
    score: float = float("nan")
    bbox: tuple[float, float, float, float] | None = None
    candidates: tuple[str, ...] = ()
    error: str = ""
    answered_by: str = ""
    score_kind: str = ""

    def answered(self, how: str) -> Prediction:
        """This prediction saying how its page was answered (:attr:`answered_by`); an error row, or an
        empty ``how``, says nothing.

        >>> Prediction("s", "a.html", "u", "A").answered("slot").answered_by
        'slot'
        >>> Prediction("s", "a.html", "u", error="timed out").answered("rendered").answered_by
        ''
        >>> Prediction("s", "a.html", "u", "A").answered("guessed")
        Traceback (most recent call last):
        ...
        ValueError: answered_by must be one of static, slot, rendered, scripts, html; got 'guessed'

        Raises
        ------
        ValueError
            If ``how`` is neither empty nor one of :data:`ANSWERED_BY`.
        """
        if how and how not in ANSWERED_BY:
            raise ValueError(f"answered_by must be one of {', '.join(ANSWERED_BY)}; got {how!r}")
        return self if self.error or not how else replace(self, answered_by=how)

    def scored_as(self, probability: bool) -> Prediction:
        """This prediction saying what its score is (:attr:`score_kind`); one without a score (an error
        row, a ``nan`` score) says nothing.

        >>> Prediction("s", "a.html", "u", "A", 1.874).scored_as(False).score_kind
        'raw'
        >>> Prediction("s", "a.html", "u", error="timed out").scored_as(True).score_kind
        ''
        """
        if self.error or self.score != self.score:  # nan is the one value unequal to itself
            return self
        return replace(self, score_kind="probability" if probability else "raw")

    @property
    def best_candidate(self) -> str:
        """The best candidate's text: the answer, or on a prediction that abstained (``main_entity`` empty,
        the score below the model's ``abstain_below``) the text it would have given.

        >>> Prediction("s", "a.html", "u", "", 0.2, candidates=("Name", "Home")).best_candidate
        'Name'
        """
        return self.candidates[0] if self.candidates else self.main_entity

    def to_dict(self) -> dict:
        """The prediction as plain JSON-ready values: a ``nan`` score is ``None``, ``bbox`` and
        ``candidates`` are lists.

        >>> import json
        >>> json.dumps(Prediction("s", "a.html", "https://s.example/a", "A", 0.5, (1.0, 2.0, 3.0, 4.0)).to_dict())[:60]
        '{"site_id": "s", "path": "a.html", "url": "https://s.example'
        >>> Prediction("s", "a.html", "u", error="timed out").to_dict()["score"] is None
        True
        """
        return {
            "site_id": self.site_id, "path": self.path, "url": self.url, "main_entity": self.main_entity,
            "score": None if self.score != self.score else self.score,  # nan is the one value unequal to itself
            "bbox": None if self.bbox is None else list(self.bbox), "candidates": list(self.candidates),
            "error": self.error, "answered_by": self.answered_by, "score_kind": self.score_kind,
        }
