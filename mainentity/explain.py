"""Explain one prediction: a screenshot of the page with the main entity and the top candidates boxed.

:func:`explain` renders a page as the model sees it (1024 px wide viewport, device scale 1, so one
screenshot pixel is one CSS px), predicts its main entity exactly as ``mainentity predict`` does, and
draws on a full-page screenshot:

- the predicted main entity's box, in red, labeled ``main entity`` with its score;
- the boxes of the other top-``k`` candidate text blocks, in blue, labeled ``#rank`` and their score.

Scores are o_1 - o_2 of the MS-RBFN (Carullo & Binaghi 2010, section 3.3) for recognisers that have
``block_scores``; for the others only the predicted box and the candidates whose text matches a
visible text block are drawn, without scores. Drawing needs Pillow (installed with matplotlib,
``pip install 'mainentity[report]'``).
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mainentity.model_store import load_trained_model
from mainentity.pipeline import (
    KnownDocuments,
    RenderedDocuments,
    clean_documents,
    cleaners_for,
    predict_pages,
    render_settings,
)
from mainentity.records import Page, Prediction, TextBlock
from mainentity.sitedump import MANIFEST_NAME, SubresourceSources, decode_html, page_url

logger = logging.getLogger(__name__)

__all__ = ["Candidate", "explain", "top_candidates"]

#: Outline colours (RGB): the predicted main entity, the other candidates.
PREDICTED_COLOR = (220, 20, 20)
CANDIDATE_COLOR = (20, 90, 220)
#: Label font size in px.
FONT_SIZE = 15
#: How many directory levels above a page file are searched for its site dump's manifest.
_MAX_DUMP_DEPTH = 4


@dataclass(frozen=True)
class Candidate:
    """A box to draw: a text block's text, its score (NaN when unknown) and its box.

    Attributes
    ----------
    text : str
    score : float
        o_1 - o_2 for the MS-RBFN; NaN for recognisers without block scores.
    box : tuple of float
        ``(x, y, width, height)`` in CSS px from the page's top left corner.
    """

    text: str
    score: float
    box: tuple[float, float, float, float]


def top_candidates(blocks: tuple[TextBlock, ...], scores: np.ndarray, top_k: int) -> list[Candidate]:
    """The ``top_k`` blocks by score, best first; NaN scores (blocks not considered) are left out.

    Parameters
    ----------
    blocks : tuple of TextBlock
        A page's text blocks.
    scores : ndarray of shape (n_blocks,)
        Their scores (e.g. o_1 - o_2).
    top_k : int
        >= 0.

    Returns
    -------
    candidates : list of Candidate
        At most ``top_k``; ties keep document order.

    Raises
    ------
    ValueError
        If the lengths differ or ``top_k < 0``.

    Examples
    --------
    >>> block = lambda text, y: TextBlock(text, "p", "html/body/p", 12, 400, False, 0, y, 100, 20)
    >>> blocks = (block("a", 0), block("b", 30), block("c", 60))
    >>> [(c.text, c.score) for c in top_candidates(blocks, np.array([0.1, np.nan, 0.7]), 5)]
    [('c', 0.7), ('a', 0.1)]
    """
    if top_k < 0:
        raise ValueError(f"top_k must be >= 0; got {top_k}")
    if len(blocks) != len(scores):
        raise ValueError(f"{len(blocks)} blocks but {len(scores)} scores")
    considered = [i for i in np.argsort(-np.nan_to_num(scores, nan=-np.inf), kind="stable") if not np.isnan(scores[i])]
    return [
        Candidate(blocks[i].text, float(scores[i]), (blocks[i].x, blocks[i].y, blocks[i].width, blocks[i].height))
        for i in considered[:top_k]
    ]


def _located_candidates(prediction: Prediction, blocks: tuple[TextBlock, ...], top_k: int) -> list[Candidate]:
    """Candidates of a recogniser without block scores: its candidate texts found among visible blocks."""
    visible = {}
    for block in blocks:
        if not block.hidden:
            visible.setdefault(block.text, block)
    found = []
    for text in prediction.candidates:
        block = visible.get(text)
        if block is not None:
            found.append(Candidate(text, math.nan, (block.x, block.y, block.width, block.height)))
    return found[:top_k]


def _read_page(
    page_path: Path, url: str | None, anchor_url_pattern: str | None
) -> tuple[Page, list[Page], SubresourceSources]:
    """The page and, when the file lies in a site dump with a manifest, every page of that dump, with
    what serves their subresources.

    Inside a site dump the page gets its manifest URL and its incoming anchor texts, as ``predict``
    gives them; a lone file gets its ``<base href>`` or file URI and no anchors.
    """
    from mainentity.loading import load_pages

    file = page_path.resolve()
    if not file.is_file():
        raise FileNotFoundError(f"page {str(page_path)!r} is not a file")
    for dump_dir in file.parents[:_MAX_DUMP_DEPTH]:
        if (dump_dir / MANIFEST_NAME).is_file():
            loaded = load_pages([str(dump_dir)], anchor_url_pattern=anchor_url_pattern)
            site_pages = list(loaded.pages)
            relative = file.relative_to(dump_dir).as_posix()
            page = next((p for p in site_pages if p.path == relative), None)
            if page is not None:
                return (Page(page.site_id, page.path, url, page.html, page.main_entity, page.anchors)
                        if url else page), site_pages, loaded.subresources
    html = decode_html(file.read_bytes(), file.name)
    page = Page(file.parent.name, file.name, url or page_url(html, file.name, file), html)
    return page, [page], SubresourceSources()


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSans-Bold.ttf", size)
    except OSError:
        return ImageFont.load_default(size=size)


def _draw(png: Path, predicted: Candidate | None, others: list[Candidate]) -> None:
    """Outline the boxes on the screenshot and label each with its rank and score, in place."""
    from PIL import Image, ImageDraw

    image = Image.open(png).convert("RGB")
    draw = ImageDraw.Draw(image)
    font = _font(FONT_SIZE)
    items = [(f"#{rank}", candidate, CANDIDATE_COLOR) for rank, candidate in enumerate(others, start=2)]
    if predicted is not None:
        items.append(("main entity", predicted, PREDICTED_COLOR))  # last, so it is drawn on top
    for name, candidate, color in items:
        x, y, width, height = candidate.box
        draw.rectangle([x - 2, y - 2, x + width + 2, y + height + 2], outline=color, width=3)
        label = name if math.isnan(candidate.score) else f"{name}  {candidate.score:+.3f}"
        left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
        label_w, label_h = right - left + 8, bottom - top + 6
        label_x = min(max(0.0, x - 2), max(0.0, image.width - label_w))
        label_y = y - 2 - label_h if y - 2 - label_h >= 0 else y + height + 2
        draw.rectangle([label_x, label_y, label_x + label_w, label_y + label_h], fill=color)
        draw.text((label_x + 4 - left, label_y + 3 - top), label, font=font, fill=(255, 255, 255))
    tmp = png.with_name(f".{png.name}.tmp")
    image.save(tmp, format="PNG")
    os.replace(tmp, png)


def explain(
    model_dir: str | os.PathLike,
    page_path: str | os.PathLike,
    output: str | os.PathLike,
    *,
    url: str | None = None,
    top_k: int = 5,
) -> Prediction:
    """Predict a page's main entity and save a screenshot with the main entity and top candidates boxed.

    Parameters
    ----------
    model_dir : path
        A model directory written by ``mainentity train``.
    page_path : path
        An HTML file. When it lies in a site dump (a ``manifest.jsonl`` at most four directories up),
        the page gets its manifest URL and incoming anchor texts from that dump, so the prediction is the
        one ``mainentity predict`` gives for it there.
    output : path
        The PNG to write: a full-page screenshot at a 1024 px wide viewport, device scale 1 (one pixel
        per CSS px).
    url : str, optional
        The page's URL (default: from the dump's manifest, its ``<base href>`` or its file URI).
    top_k : int, default 5
        How many candidate text blocks to draw (the predicted one counts), >= 1.

    Returns
    -------
    prediction : Prediction
        The page's prediction, as :func:`mainentity.runs.predict` writes it.

    Raises
    ------
    FileNotFoundError
        If the model directory or the page file does not exist.
    ValueError
        If ``top_k < 1``, ``output`` does not end in ``.png``, or the page's HTML cannot be read.
    ImportError
        If Pillow is missing (``pip install 'mainentity[report]'``).
    RuntimeError
        If the page cannot be rendered.
    """
    from mainentity.render import Renderer

    if top_k < 1:
        raise ValueError(f"top_k must be >= 1; got {top_k}")
    if Path(output).suffix.lower() != ".png":
        raise ValueError(f"explain writes a PNG screenshot: the output must end in .png; got {output}")
    try:
        import PIL  # noqa: F401 - checked before the slow part
    except ImportError as error:
        raise ImportError(f"explain draws with Pillow, which is not installed: pip install 'mainentity[report]' "
                          f"({error})") from error
    model = load_trained_model(model_dir)
    page, site_pages, subresources = _read_page(Path(page_path), url, model.config.data.anchor_url_pattern)
    read = RenderedDocuments(model.config.render, subresources)
    ((_, document, error),) = read([page], rendered=True)
    if document is None:
        raise RuntimeError(error)
    cleaners = cleaners_for(model, site_pages, read)
    cleaned = clean_documents([document], cleaners)[0]
    prediction = predict_pages(model, [page], read=KnownDocuments([document]), cleaners=cleaners,
                               render_policy="always")[0]

    if hasattr(model.recognizer, "block_scores") and not prediction.error:
        candidates = top_candidates(cleaned.rendered.blocks, model.recognizer.block_scores(cleaned), top_k)
    else:
        candidates = _located_candidates(prediction, cleaned.rendered.blocks, top_k)
    predicted = None
    if prediction.bbox is not None:
        predicted = Candidate(prediction.main_entity, prediction.score, prediction.bbox)
        candidates = [c for c in candidates if c.box != tuple(prediction.bbox)]
    else:
        logger.warning("%s/%s: the prediction has no box (%s); drawing only the candidates", page.site_id,
                       page.path, prediction.error or "the recogniser does not locate its answer")
    others = candidates[: top_k - 1 if predicted is not None else top_k]

    out = Path(output)
    out.parent.mkdir(parents=True, exist_ok=True)
    with Renderer(render_settings(model.config.render)) as renderer:
        renderer.screenshot(page, out, full_page=True, subresources=subresources)
    _draw(out, predicted, others)
    return prediction
