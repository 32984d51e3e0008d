"""Agreement of the static page reader (:mod:`mainentity.render.static`) with the Chromium renderer.

Used by ``tests/test_static_reader.py`` and ``benchmarks/static_reader_agreement.py`` to count, over the
rendering's visible blocks, those the static reading matches by ``(dom_path, text)`` with the same font size,
bold and heading level, and the segments it matches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from mainentity.records import RenderedPage, TextBlock


@dataclass(frozen=True)
class Agreement:
    """How a static reading agrees with a rendering of the same page, on the rendering's visible blocks.

    Attributes
    ----------
    n_visible : int
        Visible (``hidden=False``) blocks of the rendering.
    n_static_visible : int
        Visible blocks of the static reading.
    n_matched : int
        Visible blocks of the rendering with a visible static block of the same ``(dom_path, text)``
        (multisets: each static block matches once).
    n_font_size, n_bold, n_heading_level : int
        Matched blocks whose font size agrees within ``size_tolerance`` CSS px, whose ``bold`` and whose
        ``heading_level`` are equal.
    n_blocks, n_blocks_matched : int
        All blocks of the rendering, and those with a static block of the same ``(dom_path, text,
        hidden)`` (the hidden flag compared).
    n_segments, n_segments_matched : int
        Segments of the rendering, and those with a static one of the same ``(kind, dom_path, text)``.
    """

    n_visible: int
    n_static_visible: int
    n_matched: int
    n_font_size: int
    n_bold: int
    n_heading_level: int
    n_blocks: int = 0
    n_blocks_matched: int = 0
    n_segments: int = 0
    n_segments_matched: int = 0


def agreement(static: RenderedPage, rendered: RenderedPage, size_tolerance: float = 0.5) -> Agreement:
    """Compare a static reading with the renderer's reading of the same page.

    Parameters
    ----------
    static, rendered : RenderedPage
        From :func:`read_static` and from the renderer.
    size_tolerance : float
        Largest font size difference, in CSS px, that counts as equal.

    Returns
    -------
    agreement : Agreement

    >>> from dataclasses import replace
    >>> block = TextBlock("A", "h1", "html[0]/body[1]/h1[0]", 32.0, 700, True, 8, 8, 50, 37, heading_level=1)
    >>> agreement(RenderedPage("", (), (replace(block, font_size=32.2),)), RenderedPage("", (), (block,)))
    Agreement(n_visible=1, n_static_visible=1, n_matched=1, n_font_size=1, n_bold=1, n_heading_level=1, \
n_blocks=1, n_blocks_matched=1, n_segments=0, n_segments_matched=0)
    """
    waiting: dict[tuple[str, str], list[TextBlock]] = {}
    static_visible = [block for block in static.blocks if not block.hidden]
    for block in static_visible:
        waiting.setdefault((block.dom_path, block.text), []).append(block)
    visible = [block for block in rendered.blocks if not block.hidden]
    n_matched = n_size = n_bold = n_level = 0
    for block in visible:
        candidates = waiting.get((block.dom_path, block.text))
        if not candidates:
            continue
        other = candidates.pop(0)
        n_matched += 1
        n_size += abs(other.font_size - block.font_size) <= size_tolerance
        n_bold += other.bold == block.bold
        n_level += other.heading_level == block.heading_level
    n_blocks_matched = _n_common(static.blocks, rendered.blocks, ("dom_path", "text", "hidden"))
    n_segments_matched = _n_common(static.segments, rendered.segments, ("kind", "dom_path", "text"))
    return Agreement(
        len(visible), len(static_visible), n_matched, n_size, n_bold, n_level, len(rendered.blocks),
        n_blocks_matched, len(rendered.segments), n_segments_matched,
    )


def _n_common(first: Iterable[TextBlock], second: Iterable[TextBlock], fields: tuple[str, ...]) -> int:
    """Size of the multiset intersection of two block lists, blocks compared on ``fields``."""
    counts = Counter(tuple(getattr(block, name) for name in fields) for block in first)
    counts &= Counter(tuple(getattr(block, name) for name in fields) for block in second)
    return sum(counts.values())
