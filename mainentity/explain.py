"""Explain one prediction: a screenshot of the page with the main entity and the top candidates boxed.

:func:`explain` renders a page as the model sees it (1024 px wide viewport, device scale 1, so one
screenshot pixel is one CSS px), predicts its main entity exactly as ``mainentity predict`` does, and
draws on a full-page screenshot:

- the predicted main entity's box, in red, labeled ``main entity`` with its score;
- the boxes of the other top-``k`` candidate text blocks, in blue, labeled ``#rank`` and their score;
- a legend below the page: one line per box with its score and text (also logged);

and cuts a page taller than :data:`MAX_HEIGHT` px to the region from just above its highest box down.

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

from mainentity.loading import read_page_file
from mainentity.model_store import load_trained_model
from mainentity.pipeline import (
    KnownDocuments,
    RenderedDocuments,
    clean_documents,
    cleaners_for,
    predict_pages,
    render_settings,
)
from mainentity.records import Prediction, TextBlock

logger = logging.getLogger(__name__)

__all__ = ["Candidate", "explain", "top_candidates"]

#: Outline colours (RGB): the predicted main entity, the other candidates.
PREDICTED_COLOR = (220, 20, 20)
CANDIDATE_COLOR = (20, 90, 220)
#: Label font size in px.
FONT_SIZE = 15
#: The tallest screenshot explain writes, in px (legend not counted): a long page is cut around its boxes.
MAX_HEIGHT = 2000
#: How far above the highest box a cut screenshot starts, in px.
CROP_MARGIN = 200


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


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSans-Bold.ttf", size)
    except OSError:
        return ImageFont.load_default(size=size)


def crop_rows(height: int, boxes: list[tuple[float, float, float, float]], max_height: int) -> tuple[int, int]:
    """The rows ``(top, bottom)`` of a screenshot kept so that it is at most ``max_height`` px tall: all of it
    when it fits, else the region from just above the highest box (:data:`CROP_MARGIN` px) down.

    >>> crop_rows(900, [(0, 500, 10, 20)], 2000), crop_rows(15000, [(0, 9000, 10, 20)], 2000)
    ((0, 900), (8800, 10800))
    """
    if height <= max_height:
        return 0, height
    top = max(0, int(min((y for _, y, _, _ in boxes), default=0)) - CROP_MARGIN)
    bottom = min(height, top + max_height)
    return max(0, bottom - max_height), bottom


def _legend_lines(predicted: Candidate | None, others: list[Candidate]) -> list[tuple[str, tuple]]:
    """One line per drawn box: its name, score and text (cut to 90 characters), with its colour."""
    items = ([("main entity", predicted, PREDICTED_COLOR)] if predicted is not None else [])
    items += [(f"#{rank}", candidate, CANDIDATE_COLOR) for rank, candidate in enumerate(others, start=2)]
    lines = []
    for name, candidate, color in items:
        score = "" if math.isnan(candidate.score) else f"  {candidate.score:+.3f}"
        text = candidate.text if len(candidate.text) <= 90 else candidate.text[:89] + "\u2026"
        lines.append((f"{name}{score}  {text}", color))
    return lines


def _draw(png: Path, predicted: Candidate | None, others: list[Candidate]) -> list[str]:
    """Outline the boxes on the screenshot, label each with its rank and score, add a legend below (one
    line per box with its text), and cut a long page to :data:`MAX_HEIGHT` px around the boxes; in place.
    Returns the legend's lines."""
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
    top, bottom = crop_rows(image.height, [candidate.box for _, candidate, _ in items], MAX_HEIGHT)
    lines = _legend_lines(predicted, others)
    line_h = FONT_SIZE + 8
    framed = Image.new("RGB", (image.width, bottom - top + line_h * len(lines) + 8), (255, 255, 255))
    framed.paste(image.crop((0, top, image.width, bottom)), (0, 0))
    legend = ImageDraw.Draw(framed)
    for index, (line, color) in enumerate(lines):
        y = bottom - top + 4 + index * line_h
        legend.rectangle([6, y + 3, 18, y + 15], fill=color)
        legend.text((26, y), line, font=font, fill=(0, 0, 0))
    tmp = png.with_name(f".{png.name}.tmp")
    framed.save(tmp, format="PNG")
    os.replace(tmp, png)
    return [line for line, _ in lines]


def explain(
    model_dir: str | os.PathLike | None,
    page_path: str | os.PathLike,
    output: str | os.PathLike,
    *,
    url: str | None = None,
    top_k: int = 5,
) -> Prediction:
    """Predict a page's main entity and save a screenshot with the main entity and top candidates boxed.

    Parameters
    ----------
    model_dir : path or None
        A model directory written by ``mainentity train`` or a shipped model's name; ``None``: the
        general model (:func:`mainentity.model_store.resolve_model`).
    page_path : path
        An HTML file. When it lies in a site dump (a ``manifest.jsonl`` at most four directories up),
        the page gets its manifest URL and incoming anchor texts from that dump, so the prediction is the
        one ``mainentity predict`` gives for it there.
    output : path
        The PNG to write: a full-page screenshot at a 1024 px wide viewport, device scale 1 (one pixel
        per CSS px), cut to at most :data:`MAX_HEIGHT` px around the boxes, with the legend below.
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
    page, site_pages, subresources = read_page_file(Path(page_path), url, model.config.data.anchor_url_pattern)
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
        logger.warning("%s/%s: the answer %r has no box (%s); drawing only the candidates", page.site_id, page.path,
                       prediction.main_entity, prediction.error or "it is not a text block of the page: a <title> or "
                       "meta-title segment, or a recogniser that does not locate its answer")
    others = candidates[: top_k - 1 if predicted is not None else top_k]

    out = Path(output)
    out.parent.mkdir(parents=True, exist_ok=True)
    with Renderer(render_settings(model.config.render)) as renderer:
        # shown as it was read: with its scripts on when javascript "auto" kept that rendering
        renderer.screenshot(page, out, full_page=True, subresources=subresources, scripts=bool(document.scripts))
    for line in _draw(out, predicted, others):
        logger.info("%s", line)
    return prediction
