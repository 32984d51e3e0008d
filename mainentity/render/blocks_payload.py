"""The text blocks of a rendered page: the in-page extraction script ``blocks.js`` and its payload.

Text blocks follow section 3.4.2 of the paper; the in-page extraction script is ``blocks.js`` next to
this module. Its rules:

- Every text node with non-space text is a block; its tag and ``dom_path`` are its parent element's.
- Each element whose content is only text and inline formatting elements (a, abbr, b, bdi, bdo, big,
  br, cite, code, data, del, dfn, em, font, i, ins, kbd, mark, nobr, q, rb, ruby, s, samp, small, span,
  strike, strong, sub, sup, time, tt, u, var, wbr; images are ignored, br counts as a space) and that has at
  least two non-empty parts adds one merged block (``merged=True``) right after the blocks of its
  content. An element with a single part merges nothing: in the paper's example
  ``<div><b>This <em>is</em> the <span>ENTITY</span> <u>of</u> interest</b></div>`` the ``b`` adds
  "This is the ENTITY of interest" and the ``div`` adds nothing.
- Nothing inside head, script, style, template, iframe, noembed, noframes, canvas, video, audio, the
  ruby annotations rt and rp, or a ``display: none`` subtree is a block (nor part of a heading segment:
  a headline's furigana is not its text). ``<noscript>`` content is walked when the page's scripts are
  off (the default), since a browser then displays it, and skipped when they are on.
- A page is never hidden as a whole: ``display: none``, a ``visibility`` other than ``visible`` or
  ``opacity: 0`` on ``<html>`` or ``<body>`` is overridden (inline ``!important``) before extraction.
  Such root-level hiding is anti-flicker or frame-busting CSS that only the page's own scripts lift
  (e.g. ``html { display: none }`` with a script setting ``display: block`` when the page is not in a
  frame; Chartbeat's or an A/B-testing tool's ``body { visibility: hidden !important }`` removed by its
  script), and those scripts are off or blocked here, whereas a person sees the page. Hiding below
  ``<body>`` is kept as it is.
- ``hidden=True`` when the element's computed ``visibility`` is not ``visible``, the block's box
  (the bounding box of its text) has zero width or height, or the box lies entirely outside the page
  rectangle ``[0, page width] x [0, page height]`` (e.g. ``left: -9999px``). Clipping by an ancestor's
  ``overflow`` and ``opacity: 0`` are not detected.
- Font size and weight are the computed style of the block's element; ``bold`` is weight >= 600 or an
  enclosing (or own) ``<b>``/``<strong>``; ``in_link`` means an enclosing ``<a href>``;
  ``heading_level`` is that of the nearest enclosing ``<h1>``-``<h6>`` or ARIA heading
  (``role="heading"``, level ``aria-level``, default 2).
- Segments (:attr:`~mainentity.records.RenderedPage.segments`) are extra candidates for the general
  recogniser, beside the blocks: the style runs and the visible text of each merged block, and the
  visible text of each heading element whose content is not inline-only (see ``blocks.js``).
"""

from __future__ import annotations

import hashlib
from importlib import resources

from mainentity.records import META_TITLE_KEYS, RenderedPage, TextBlock
from mainentity.text import collapse_whitespace, title_text

#: Source of the in-page extraction script (Carullo & Binaghi 2010, section 3.4.2).
BLOCKS_JS = resources.files("mainentity.render").joinpath("blocks.js").read_text(encoding="utf-8")

#: Version of the extraction: a hash of ``blocks.js``, so any change to it invalidates cached renders.
BLOCKS_JS_VERSION = hashlib.sha256(BLOCKS_JS.encode("utf-8")).hexdigest()[:16]

#: Meta tags the renderer keeps (see :attr:`mainentity.records.RenderedPage.meta`).
META_KEYS = (*META_TITLE_KEYS, "og:site_name", "keywords", "description")


def _text_blocks(rows) -> tuple[TextBlock, ...]:
    """Text blocks (or segments, whose rows carry a 15th field, the kind) from ``blocks.js`` rows."""
    blocks = []
    for row in rows:
        text = collapse_whitespace(row[0])
        if not text:
            continue
        blocks.append(
            TextBlock(
                text, row[1], row[2], float(row[3]), int(row[4]), bool(row[5]), float(row[6]), float(row[7]),
                float(row[8]), float(row[9]), bool(row[10]), int(row[11]), bool(row[12]), bool(row[13]),
                str(row[14]) if len(row) > 14 else "block",
            )
        )
    return tuple(blocks)


def parse_blocks_payload(payload: dict) -> RenderedPage:
    """Turn the decoded JSON returned by ``blocks.js`` into a :class:`RenderedPage`.

    Block texts, the title and meta contents are whitespace-collapsed with
    :func:`mainentity.text.collapse_whitespace` (the title cut at any markup,
    :func:`mainentity.text.title_text`); blocks that end up empty are dropped.

    Parameters
    ----------
    payload : dict
        ``{"title", "meta", "width", "height", "blocks": [[text, tag, dom_path, font_size,
        font_weight, bold, x, y, width, height, in_link, heading_level, hidden, merged], ...],
        "segments": [[..., merged, kind], ...]}`` (``segments`` optional).

    Returns
    -------
    rendered : RenderedPage

    Raises
    ------
    ValueError
        If the payload does not have that shape.

    Examples
    --------
    >>> p = parse_blocks_payload({"title": " A  page ", "meta": [["og:title", "A"]], "width": 1024,
    ...     "height": 900, "blocks": [["Hi\\n there", "h1", "html[0]/body[1]/h1[0]", 32, 700, 1,
    ...     8, 21.5, 120, 37, 0, 1, 0, 0]]})
    >>> p.title, p.meta_titles, p.blocks[0].text, p.blocks[0].bold, p.blocks[0].heading_level
    ('A page', ('A',), 'Hi there', True, 1)
    """
    try:
        data = payload
        return RenderedPage(
            title=title_text(data["title"]),
            meta=tuple((key, collapse_whitespace(content)) for key, content in data["meta"]),
            blocks=_text_blocks(data["blocks"]),
            width=float(data["width"]),
            height=float(data["height"]),
            segments=_text_blocks(data.get("segments", ())),
        )
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(f"malformed blocks.js payload: {exc}") from exc
