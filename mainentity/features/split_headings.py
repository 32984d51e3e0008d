"""Training pages whose main-entity heading is set over two lines: split headings drawn from the data itself.

Display headlines are often set as block-level lines of one heading element (``<h1><span
class=l1>Winter Orchards</span><span class=l2>and the Growers Who Save Them</span></h1>``, each span
``display: block``), and slides shown as HTML set a title over positioned lines. The whole is the
title; each line is a part (:func:`mainentity.features.transfer.whole_share`). The shared training data
states nearly every title on one line, so a ranker fitted on it never sees a line of a taller heading
as the answer's rival and cannot learn that the whole wins. A share of the training pages is therefore
given again with its main-entity heading set over two lines, as the renderer reports such a heading
(two blocks, one under the other, and the ``heading`` segment of their whole), labels unchanged: the
whole heading is the answer, its lines are not. Nothing else of the page changes (its ``<title>`` still
states the whole title).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from mainentity.features.labels import main_entity_labels
from mainentity.records import Document, RenderedPage, TextBlock
from mainentity.text import tokenize

#: Fewest words of a heading set over two lines (a shorter one would leave a line of one word).
MIN_SPLIT_WORDS = 4


def _main_heading(rendered: RenderedPage, labels: Sequence[str]) -> TextBlock | None:
    """The first visible heading block (h1 or h2) of at least :data:`MIN_SPLIT_WORDS` words that is the
    page's main entity, with a finite box, if any."""
    blocks = [block for block in rendered.blocks if not block.hidden and block.heading_level in (1, 2)
              and block.tag in ("h1", "h2") and block.height > 0 and len(tokenize(block.text)) >= MIN_SPLIT_WORDS]
    found = main_entity_labels([block.text for block in blocks], labels) if blocks else []
    return next((block for block, is_label in zip(blocks, found, strict=True) if is_label), None)


def with_split_heading(rendered: RenderedPage, labels: Sequence[str]) -> RenderedPage | None:
    """The rendering with its main-entity heading set over two block-level lines, or ``None``.

    The heading block (the first visible ``h1``/``h2`` block of at least :data:`MIN_SPLIT_WORDS` words
    whose text is a label) and the blocks inside it give way to two ``span`` blocks inside the heading
    element, the first half of its words above the rest, each as tall as the heading was (CSS px); the
    segments inside the heading give way to a ``heading`` segment of the whole text, twice as tall.

    Parameters
    ----------
    rendered : RenderedPage
    labels : sequence of str
        The page's main-entity labels.

    Returns
    -------
    rendered : RenderedPage or None
        ``None`` when the page shows no such heading.

    Examples
    --------
    >>> h1 = TextBlock("Winter Orchards and the Growers", "h1", "html[0]/body[1]/h1[0]", 40, 700, True, 8, 90,
    ...                600, 48, heading_level=1)
    >>> split = with_split_heading(RenderedPage("Orchards", (), (h1,)), ["Winter Orchards and the Growers"])
    >>> [(b.text, b.dom_path[-13:], b.y) for b in split.blocks]
    [('Winter Orchards and', 'h1[0]/span[0]', 90), ('the Growers', 'h1[0]/span[1]', 138)]
    >>> [(s.kind, s.text, s.height) for s in split.segments]
    [('heading', 'Winter Orchards and the Growers', 96)]
    """
    heading = _main_heading(rendered, labels)
    if heading is None:
        return None
    words = heading.text.split()
    cut = (len(words) + 1) // 2
    inside = heading.dom_path + "/"
    lines = [dataclasses.replace(heading, text=" ".join(part), tag="span", dom_path=f"{inside}span[{k}]",
                                 y=heading.y + k * heading.height, merged=False)
             for k, part in enumerate((words[:cut], words[cut:]))]
    def outside(block: TextBlock) -> bool:
        return block.dom_path != heading.dom_path and not block.dom_path.startswith(inside)

    blocks = [line for block in rendered.blocks for line in (lines if block is heading else [block] * outside(block))]
    whole = dataclasses.replace(heading, kind="heading", height=2 * heading.height, merged=False)
    segments = (*(segment for segment in rendered.segments if outside(segment)), whole)
    return dataclasses.replace(rendered, blocks=tuple(blocks), segments=segments)


def split_heading_copies(sites: Sequence[Sequence[Document]], share: float, random_state: int | None) -> list[Document]:
    """Training documents again with their main-entity heading set over two lines (:func:`with_split_heading`).

    One page of a ``share`` of the sites, drawn from a random stream of its own (``random_state``, 2):
    the first page by path whose main entity is such a heading. Each copy keeps its page and labels; the
    caller profiles it as a site of one page (as a lone page's heading must be told without site evidence).

    Parameters
    ----------
    sites : sequence of sequence of Document
        The training documents (rendered, labeled), site by site, sites in a fixed order.
    share : float
        Share of the sites given a copy, in [0, 1]; 0 gives none.
    random_state : int or None

    Returns
    -------
    copies : list of Document
        In site order.

    Examples
    --------
    >>> from mainentity.records import Page
    >>> h1 = TextBlock("Winter Orchards and the Growers", "h1", "html[0]/body[1]/h1[0]", 40, 700, True, 8, 90,
    ...                600, 48, heading_level=1)
    >>> page = Page("s", "a.html", "https://s.example/a", "", ("Winter Orchards and the Growers",))
    >>> [len(d.rendered.blocks) for d in split_heading_copies([[Document(page, RenderedPage("", (), (h1,)))]], 1.0, 0)]
    [2]
    """
    rng = np.random.default_rng(None if random_state is None else [random_state, 2])
    copies = []
    for documents in sites:
        if share <= 0 or rng.random() >= share:
            continue
        for document in sorted(documents, key=lambda d: d.page.path):
            split = with_split_heading(document.rendered, document.page.main_entity)
            if split is not None:
                copies.append(Document(document.page, split))
                break
    return copies
