"""Read a page's text blocks from its HTML alone, without a browser: the static page reader.

:func:`read_static` builds the same :class:`~mainentity.records.RenderedPage` as the Chromium renderer
(:mod:`mainentity.render.browser`, whose in-page script is ``blocks.js``) at the cost of a parse and a
CSS cascade: the HTML is parsed by lexbor (selectolax), an HTML5 parser that builds the tree Chromium
builds with scripting off, so every ``dom_path`` is the renderer's; the walk is ``blocks.js``'s, rule
for rule (which nodes are blocks, merges of inline-only content, ``in_link``, ``heading_level`` with
ARIA headings, ``bold``, the root un-hiding, segments); fonts, colours, ``display`` and
``visibility`` come from the page's style sheets (:mod:`mainentity.render.static_css`) with the
inheritance and user-agent defaults of Chromium (16 px medium, 13 px ``monospace``, ``larger``/
``smaller`` as x1.2, ``bolder``/``lighter`` per CSS Fonts 4, section 2.2).

There is no layout, so nothing that needs one is made up: every block's ``x``, ``y``, ``width`` and
``height``, and the page's ``width`` and ``height``, are ``nan``. What the renderer decides from boxes
is approximated from styles:

- ``hidden``: computed ``visibility`` not ``visible`` (as the renderer), or a zero-size box known
  without layout (``font-size: 0``; text of zero-width characters; text in ``textarea``/``select``/
  ``option``, or SVG text outside ``<text>``, which has no box of its own; the content of a closed
  ``<details>`` does have one in Chromium), or off the page by styles alone (``position:
  absolute|fixed|relative`` with ``left``/``top`` <= -1000 px on the element or an ancestor, or
  ``text-indent`` <= -1000 px), or scaled to nothing on an axis (``transform: scale(0)``, ``scaleY(0)``, ...,
  on the element or an ancestor). Not detected: zero-size or off-page boxes that come from layout
  (e.g. ``width: 0`` with ``overflow: hidden`` on an inline-block, other transforms, negative margins,
  boxes right of or below the page).
- "visible" segments (a merged block without its visually hidden parts): ``clip: rect(0...)``,
  ``clip-path: inset(50%|100%)``, ``opacity: 0``, ``visibility``, positioned off the page as above,
  and ``overflow`` other than ``visible`` with a declared ``width`` or ``height`` of at most 1 px (the
  renderer measures the box instead).
- "heading" segments: the renderer takes the heading's ``innerText``, which needs layout; here it is
  its displayed text with a line break around each element not in the inline set (``text-transform``
  is not applied).

A page with a declarative shadow root (``<template shadowrootmode>``) that holds anything is not read
(``ValueError``: the shadow tree has its own style sheets and slots, which the renderer walks);
:mod:`mainentity.render_few` then renders it. An empty one (a saved page's browser-extension host)
shows nothing of its host's content, as in Chromium. A skeleton page that its scripts build
(:mod:`mainentity.render.scripts`) is not read either, nor a page whose shown text is mostly set in
absolutely or fixed positioned elements (:data:`MIN_POSITIONED_LINES`: a PDF or slide deck as HTML, whose
lines only their boxes join).

Pages are read as the renderer's default settings load them: scripts off (``<noscript>`` content is
walked), a 1024x768 viewport for ``@media``. Not reproduced: Chromium's parser cap on tree depth
(512; deeper elements become siblings there), ``@container`` queries, CSS nesting, ``calc()`` values
(ignored), the quirks-mode font size table (the standards one is used), MathML's script-level font
scaling (``math-depth``: sub- and superscripts are 0.71 times smaller there), text hidden by the
accumulated offsets of positioned ancestors (e.g. ``top: -505px`` on a wrapper of a fixed header) or
other layout, and the text of a zero-width character that layout gives a box.

Agreement with the renderer (:mod:`mainentity.render.static_agreement`,
``benchmarks/static_reader_agreement.py``), over the rendering's visible blocks: all are matched by
``(dom_path, text)`` on the sample shop (1653 blocks), 100 christianbook pages (56926) and the 93
readability-realworld pages (50411), with the same font size (0.998 on readability, a MathJax page),
bold and heading level; titles, meta tags and segments equal.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, replace
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser
from tinycss2.color3 import parse_color

from mainentity.records import ElementPath, Page, RenderedPage, TextBlock
from mainentity.render.blocks_payload import META_KEYS
from mainentity.render.scripts import unfinished_reason
from mainentity.render.settings import load_url, markup_problem, page_label
from mainentity.render.static_css import Cascade, is_quirks, length_px
from mainentity.sitedump import SubresourceSource
from mainentity.text import collapse_whitespace, meta_content, title_text

NAN = float("nan")

#: Elements whose content ``blocks.js`` never walks (``noscript`` is walked: scripts are off); ``rt`` and
#: ``rp`` are ruby annotations, not part of the text they annotate.
SKIP = frozenset({"head", "script", "style", "template", "iframe", "noembed", "noframes", "canvas", "video", "audio",
                  "rt", "rp"})
#: Inline formatting elements whose content merges into the parent's block (as in ``blocks.js``).
INLINE = frozenset(
    "a abbr b bdi bdo big br cite code data del dfn em font i ins kbd mark nobr q s samp small span strike "
    "strong sub sup time tt u var wbr slot ruby rb".split()
)
#: A declarative shadow root; the renderer walks it.
_SHADOW_TEMPLATE = "template[shadowrootmode]"
_EMPTY_TEMPLATE = re.compile(r"<template[^>]*>\s*</template>")
#: Elements that can host a shadow root (and custom elements, whose names hold a hyphen).
_SHADOW_HOSTS = frozenset("article aside blockquote body div footer h1 h2 h3 h4 h5 h6 header main nav p section span"
                          .split())
_TRANSPARENT = frozenset({"img"})
#: Script source the HTML parser let out as text (``SCRIPT_TEXT`` of ``blocks.js``): an escaped end tag,
#: ``//-->``, ``document.write(`` or a string concatenation; kept inside the elements that show code.
_SCRIPT_TEXT = re.compile(
    r"<\\/[A-Za-z]|//[ \t\r\n]*-->|document\.write(?:ln)?[ \t\r\n]*\(|"
    r"['\"][ \t\r\n]*\+[ \t\r\n]*[A-Za-z_$][A-Za-z0-9_$.]*[ \t\r\n]*\+[ \t\r\n]*['\"]"
)
_CODE = frozenset({"pre", "code", "samp", "kbd", "tt", "xmp", "listing", "plaintext", "textarea"})
#: Displays of an element laid out as a block of its own (``BLOCK_DISPLAY`` of ``blocks.js``).
_BLOCK_DISPLAY = frozenset({"block", "flex", "grid", "list-item", "table", "flow-root"})
_HEADING = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BOXLESS = frozenset({"textarea", "select", "option", "optgroup"})
#: Font sizes (CSS px) of the keywords xx-small ... xxx-large at a 16 px medium (Chromium's table).
KEYWORD_SIZES = {"xx-small": 9.0, "x-small": 10.0, "small": 13.0, "medium": 16.0, "large": 18.0,
                 "x-large": 24.0, "xx-large": 32.0, "xxx-large": 48.0}
#: Chromium's default fixed (``monospace``) font size over its default font size, 13 px / 16 px.
MONOSPACE_SCALE = 13 / 16
#: Shown texts in absolutely or fixed positioned elements from which, when they are at least half of a
#: page's shown texts, the page is left to the renderer: text set line by line in positioned elements (a PDF
#: or slide deck as HTML, pdf2htmlEX style) is joined into one text by the lines' boxes
#: (:func:`mainentity.features.candidates.line_candidates`), which a reading without layout lacks.
MIN_POSITIONED_LINES = 3

#: Offsets (CSS px) at or below which a positioned element or an indented text is taken as off the page.
OFF_PAGE_PX = -1000.0
# JavaScript's white space (``\s`` in blocks.js), which differs from Python's: U+FEFF is one, U+001C-U+001F
# and U+0085 are not.
_JS_SPACE_CHARS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_SPACE = re.compile(f"[{_JS_SPACE_CHARS}]+")
_NON_SPACE = re.compile(f"[^{_JS_SPACE_CHARS}]")
#: Characters drawn with no width (zero-width spaces and joiners, word joiner, object replacement).
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufffc ]+")
_INSET_HALF = re.compile(r"inset\((50|100)%")
#: A ``transform`` that scales the box to nothing on an axis: ``scale(0)``, ``scale(1, 0)``, ``scaleX(0)``, ...
_SCALED_AWAY = re.compile(r"\bscale(?:\(\s*(?:[-+\d.e]+\s*,\s*)?|[xy]\(\s*)[-+]?0*\.?0+\s*[,)]", re.I)


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: cheap keys of _compute_style's memo
class _Style:
    """Computed values the reader needs of one element (inherited ones marked)."""

    font_size: float  # inherited, CSS px
    keyword: str | None  # inherited: the font-size keyword the size comes from
    absolute: bool  # inherited: the size was given in an absolute unit (not rescaled for monospace)
    monospace: bool  # inherited: font-family is the generic monospace alone
    font_weight: int  # inherited
    visibility: str  # inherited
    color: tuple  # inherited, RGBA
    text_indent_off: bool  # inherited: text-indent <= OFF_PAGE_PX
    display: str = "inline"
    unshown: bool = False  # off the page or scaled to nothing by styles, this element or an ancestor
    visually_hidden: bool = False  # blocks.js's visuallyHidden, from styles
    own_line: bool = False  # blocks.js's ownLine: a block of its own in the flow (not floated, not positioned)
    positioned: bool = False  # this element or an ancestor is absolutely or fixed positioned: layout places it


_ROOT_PARENT = _Style(16.0, "medium", False, False, 400, "visible", (0.0, 0.0, 0.0, 1.0), False, "block")


@functools.lru_cache(maxsize=8192)
def _compute_style(declarations: tuple[tuple[str, str], ...], parent: _Style, rem: float) -> _Style:
    """Computed style of an element from its cascaded declarations (last one of a property wins).

    Parameters
    ----------
    declarations : tuple of (str, str)
        ``(property, value)`` as :meth:`mainentity.render.static_css.Cascade.declarations` gives them,
        in cascade order.
    parent : _Style
        The parent element's computed style.
    rem : float
        The root element's font size in CSS px (``rem``).

    Returns
    -------
    style : _Style
    """
    values = dict(declarations)
    family = _specified(values, "font-family")
    monospace = parent.monospace if family is None else family == "monospace"
    size, keyword, absolute = _font_size(_specified(values, "font-size"), parent, rem)
    if keyword is not None:
        size = KEYWORD_SIZES[keyword] * (MONOSPACE_SCALE if monospace else 1.0)
    elif monospace != parent.monospace and not absolute:
        size = size * MONOSPACE_SCALE if monospace else size / MONOSPACE_SCALE
    visibility = _specified(values, "visibility")
    if visibility not in ("visible", "hidden", "collapse"):
        visibility = parent.visibility
    indent = _specified(values, "text-indent")
    indent_px = length_px(indent, size, rem) if indent is not None else None
    position = values.get("position", "static")
    offsets = [length_px(values.get(side, "auto"), size, rem) for side in ("left", "top")]
    unshown = parent.unshown or (
        position in ("absolute", "fixed", "relative") and any(v is not None and v <= OFF_PAGE_PX for v in offsets)
    ) or _SCALED_AWAY.search(values.get("transform", "")) is not None  # a box of no size: nothing is shown
    display = values.get("display", "inline")
    squeezed = any(values.get(name, "visible") not in ("visible", "inherit") for name in ("overflow-x", "overflow-y"))
    squeezed = squeezed and any(
        (px := length_px(values.get(name, "auto"), size, rem)) is not None and px <= 1 for name in ("width", "height")
    )
    clipped = values.get("clip", "").startswith("rect(0") or bool(_INSET_HALF.match(values.get("clip-path", "")))
    return _Style(
        font_size=size,
        keyword=keyword,
        absolute=absolute,
        monospace=monospace,
        font_weight=_font_weight(_specified(values, "font-weight"), parent.font_weight),
        visibility=visibility,
        color=_color(_specified(values, "color"), parent.color),
        text_indent_off=(
            parent.text_indent_off if indent is None else indent_px is not None and indent_px <= OFF_PAGE_PX
        ),
        display=parent.display if display == "inherit" else display,
        unshown=unshown,
        visually_hidden=clipped or squeezed or unshown or values.get("opacity") in ("0", "0%", "0.0"),
        own_line=(display in _BLOCK_DISPLAY and values.get("float", "none") == "none"
                  and position not in ("absolute", "fixed")),
        positioned=parent.positioned or position in ("absolute", "fixed"),
    )


def _specified(values: dict, name: str) -> str | None:
    """The specified value of an inherited property; ``None`` means inherit."""
    value = values.get(name)
    return None if value in ("inherit", "unset") else value


def _font_size(value: str | None, parent: _Style, rem: float) -> tuple[float, str | None, bool]:
    """``(size in CSS px, keyword, absolute)`` of a specified font size."""
    if value is None:
        return parent.font_size, parent.keyword, parent.absolute
    if value == "initial":
        value = "medium"
    if value in KEYWORD_SIZES:
        return KEYWORD_SIZES[value], value, False
    if value in ("larger", "smaller"):
        return parent.font_size * (1.2 if value == "larger" else 1 / 1.2), None, parent.absolute
    px = length_px(value, parent.font_size, rem, parent.font_size)
    if px is None or px < 0:
        return parent.font_size, parent.keyword, parent.absolute
    relative = value.endswith(("em", "%", "ex", "ch")) and not value.endswith("rem")
    return px, None, parent.absolute if relative else True


def _font_weight(value: str | None, parent: int) -> int:
    """Computed font weight (CSS Fonts 4, section 2.2: ``bolder``/``lighter`` relative to the parent)."""
    if value is None:
        return parent
    if value in ("normal", "initial"):
        return 400
    if value == "bold":
        return 700
    if value == "bolder":
        return 400 if parent < 350 else 700 if parent < 550 else 900
    if value == "lighter":
        return 100 if parent < 550 else 400 if parent < 750 else 700
    try:
        weight = float(value)
    except ValueError:
        return parent
    return int(weight) if 1 <= weight <= 1000 else parent


@functools.lru_cache(maxsize=1024)
def _color(value: str | None, parent: tuple) -> tuple:
    if value is None or value == "currentcolor":
        return parent
    if value == "initial":
        return _ROOT_PARENT.color
    parsed = parse_color(value)
    return tuple(parsed) if parsed is not None and not isinstance(parsed, str) else parent


class _Context:
    """What a block inherits from its element and ancestors (``ctx`` in ``blocks.js``)."""

    __slots__ = ("style", "bold_tag", "in_link", "heading", "visible", "boxless", "in_svg", "in_code", "hidden")

    def __init__(self, style: _Style, bold_tag: bool, in_link: bool, heading: int, visible: bool,
                 boxless: bool, in_svg: bool = False, in_code: bool = False) -> None:
        self.style = style
        self.bold_tag = bold_tag
        self.in_link = in_link
        self.heading = heading
        self.visible = visible  # no visually hidden ancestor (for "visible" segments)
        self.boxless = boxless  # the text has no box of its own (textarea, select, SVG)
        self.in_svg = in_svg
        self.in_code = in_code  # inside an element that shows code (script-like text is kept there)
        self.hidden = (style.visibility != "visible" or boxless or style.font_size <= 0 or style.unshown
                       or style.text_indent_off)


def _context(tag: str, attributes: dict, parent: _Context, style: _Style, own_level: int) -> _Context:
    """What an element's content inherits: from its parent's context, its own style and heading level."""
    return _Context(
        style, parent.bold_tag or tag in ("b", "strong"),
        parent.in_link or (tag == "a" and "href" in attributes), own_level or parent.heading,
        parent.visible and not (style.visually_hidden or style.visibility != "visible"),
        _boxless(tag, parent), (parent.in_svg or tag == "svg") and tag != "foreignobject",
        parent.in_code or tag in _CODE,
    )


def _row(text: str, tag: str, path: str, ctx: _Context, merged: bool = False, kind: str = "block") -> TextBlock:
    style, text = ctx.style, _collapse(text)
    return TextBlock(
        text, tag, path, round(style.font_size, 4), style.font_weight,
        style.font_weight >= 600 or ctx.bold_tag, NAN, NAN, NAN, NAN, ctx.in_link, ctx.heading,
        ctx.hidden or _ZERO_WIDTH.fullmatch(text) is not None, merged, kind,
    )


def _boxless(tag: str, parent: _Context) -> bool:
    """Whether the text of an element has no box of its own: form controls' content, and SVG text
    outside ``<text>`` (``<title>``, ``<desc>``) or a ``<foreignObject>``."""
    if parent.in_svg and tag in ("text", "foreignobject"):
        return False
    return parent.boxless or tag in _BOXLESS or tag == "svg"


def _collapse(text: str) -> str:
    r"""``text.replace(/\s+/g, " ").trim()`` of blocks.js, then the renderer's :func:`collapse_whitespace`."""
    # JavaScript's \s is Python's white space (str.split) less U+001C-U+001F and U+0085, plus U+FEFF
    return collapse_whitespace(text.replace("\ufeff", " "))


def _heading_level(attributes: dict, tag: str) -> int:
    if tag in _HEADING:
        return _HEADING[tag]
    if (attributes.get("role") or "").strip().lower() != "heading":
        return 0
    match = re.match(r"^\s*[+-]?\d+", attributes.get("aria-level") or "2")
    level = int(match.group(0)) if match else -1
    return level if 1 <= level <= 6 else 2


def _is_script_source(text: str) -> bool:
    """Whether a text node is script source the HTML parser let out (:data:`_SCRIPT_TEXT`). Each of its
    alternatives holds a backslash, a ``+``, ``-->`` or ``document.write``: a text without them (most) is not
    searched, about a third of the time on the lone pages' texts."""
    return ("\\" in text or "+" in text or "-->" in text or "document.write" in text) and (
        _SCRIPT_TEXT.search(text) is not None)


class _Walk:
    """One walk of a page's tree, as ``blocks.js``'s ``visit`` (see the module docstring)."""

    def __init__(self, cascade: Cascade) -> None:
        self.cascade = cascade
        self.blocks: list[TextBlock] = []
        self.segments: list[TextBlock] = []
        self.flow: list[str] = []  # displayed text in document order, for heading segments
        self.rem = 16.0
        self.empty_shadows = False  # the page has empty declarative shadow roots: their hosts show nothing
        self.n_shown = 0  # text blocks shown
        self.n_positioned = 0  # of those, text blocks in absolutely or fixed positioned elements

    def style_of(self, node, tag: str, attributes: dict, parent: _Style) -> _Style:
        return _compute_style(self.cascade.declarations(node, tag, attributes), parent, self.rem)

    def visit(self, el, tag: str, attributes: dict, path: str, parent: _Context, style: _Style) -> list | None:
        own_level = _heading_level(attributes, tag)
        ctx = _context(tag, attributes, parent, style, own_level)
        key = (style.font_size, style.font_weight, style.color)
        pieces: list[tuple] = []  # (text, has a node, style key, visible, ctx)
        inline_only, n_parts, index = True, 0, 0
        block_level = tag not in INLINE or style.display not in ("inline", "contents")
        start = len(self.flow)
        if block_level:
            self.flow.append("\n")
        child = None if self.empty_shadows and _hosts_shadow(el, tag) else el.first_child
        while child is not None:
            if child.is_text_node:
                data = child.text_content or ""  # read once: lexbor copies the text each time
                if ctx.in_code or not _is_script_source(data):
                    blank = _NON_SPACE.search(data) is None
                    pieces.append((data, not blank, None if blank else key, ctx.visible, ctx))
                    if style.visibility == "visible":
                        self.flow.append(data)
                    if not blank:
                        n_parts += 1
                        self.blocks.append(_row(data, tag, path, ctx))
                        if not self.blocks[-1].hidden:
                            self.n_shown += 1
                            self.n_positioned += style.positioned
            elif child.is_element_node:
                child_tag = child.tag.lower()
                child_path = f"{path}/{child_tag}[{index}]"
                index += 1
                if child_tag not in SKIP and child_tag not in _TRANSPARENT and (child_tag != "title" or ctx.in_svg):
                    child_attributes = child.attributes  # read once: lexbor builds a new dict each time
                    child_style = self.style_of(child, child_tag, child_attributes, style)
                    if child_tag == "body" and "/" not in path:
                        child_style = _unhidden(child_style)
                    if child_style.display != "none":
                        child_pieces = self.visit(child, child_tag, child_attributes, child_path, ctx, child_style)
                        if child_pieces is None or child_tag not in INLINE:
                            inline_only = False
                        elif child_tag == "br":
                            pieces.append((" ", False, None, True, ctx))
                            self.flow.append("\n")
                        elif child_style.own_line:  # a line of its own: a space on each side in the merge
                            space = (" ", False, None, True, ctx)
                            pieces.extend((space, *child_pieces, space))
                            n_parts += any(piece[1] for piece in child_pieces)
                        else:
                            pieces.extend(child_pieces)
                            n_parts += any(piece[1] for piece in child_pieces)
            child = child.next
        if block_level:
            self.flow.append("\n")
        if not inline_only:
            if own_level:
                self._segment("".join(self.flow[start:]), tag, path, ctx, "heading")
            return None
        if n_parts >= 2:
            text = "".join(piece[0] for piece in pieces)
            self.blocks.append(_row(text, tag, path, ctx, merged=True))
            self._merge_segments(text, pieces, tag, path, ctx)
        return pieces

    def visit_toward(self, el, tag: str, attributes: dict, path: str, parent: _Context, style: _Style,
                     below: list[ElementPath]) -> None:
        """As :meth:`visit`, for an element on the way to others: only its children on the ``below`` paths
        (``(tag, index)`` steps under this element, ``None`` for any index) are read, and a child that ends
        one of them is visited whole; no block of its own."""
        ctx = _context(tag, attributes, parent, style, _heading_level(attributes, tag))
        index = 0
        child = None if self.empty_shadows and _hosts_shadow(el, tag) else el.first_child
        while child is not None:
            if child.is_element_node:
                child_tag = child.tag.lower()
                steps = [rest for rest in below if rest[0][0] == child_tag and rest[0][1] in (None, index)]
                if steps and child_tag not in SKIP and child_tag not in _TRANSPARENT and (
                        child_tag != "title" or ctx.in_svg):
                    child_attributes = child.attributes
                    child_style = self.style_of(child, child_tag, child_attributes, style)
                    if child_tag == "body" and "/" not in path:
                        child_style = _unhidden(child_style)
                    if child_style.display != "none":
                        child_path = f"{path}/{child_tag}[{index}]"
                        if any(len(rest) == 1 for rest in steps):
                            self.visit(child, child_tag, child_attributes, child_path, ctx, child_style)
                        else:
                            self.visit_toward(child, child_tag, child_attributes, child_path, ctx, child_style,
                                              [rest[1:] for rest in steps])
                index += 1
            child = child.next

    def _segment(self, text: str, tag: str, path: str, ctx: _Context, kind: str) -> None:
        if _NON_SPACE.search(text) is not None:
            self.segments.append(_row(text, tag, path, ctx, kind=kind))

    def _merge_segments(self, text: str, pieces: list[tuple], tag: str, path: str, ctx: _Context) -> None:
        """The "visible" and "run" segments of a merged block (``pushMergeSegments`` of ``blocks.js``)."""
        visible = [piece for piece in pieces if piece[3]]
        if len(visible) < len(pieces):  # with every piece visible, the visible text is the text
            visible_text = "".join(piece[0] for piece in visible)
            if _JS_SPACE.sub(" ", visible_text).strip(" ") != _JS_SPACE.sub(" ", text).strip(" "):
                self._segment(visible_text, tag, path, ctx, "visible")
        runs: list[list] = []  # [key, ctx, texts]
        for piece_text, _, piece_key, _, piece_ctx in visible:
            if runs and (piece_key is None or piece_key == runs[-1][0]):
                runs[-1][2].append(piece_text)
            elif piece_key is not None:
                runs.append([piece_key, piece_ctx, [piece_text]])
        if len(runs) >= 2:
            for _, run_ctx, texts in runs:
                self._segment("".join(texts), tag, path, run_ctx, "run")


def _hosts_shadow(el, tag: str) -> bool:
    """Whether ``el`` holds a declarative shadow root that Chromium attaches."""
    if tag not in _SHADOW_HOSTS and "-" not in tag:
        return False
    return any(child.tag == "template" and "shadowrootmode" in child.attributes for child in el.iter())


def _title(tree) -> str:
    """``document.title``: the text children of the first HTML ``<title>`` (not an SVG one)."""
    for node in tree.css("title"):
        ancestor, foreign = node.parent, False
        while ancestor is not None and not foreign:
            foreign = ancestor.tag in ("svg", "math")
            ancestor = ancestor.parent
        if not foreign:
            return title_text(node.text(deep=False))
    return ""


def _meta(tree) -> tuple[tuple[str, str], ...]:
    """The kept meta tags, as ``blocks.js`` reads them (property before name)."""
    keys, meta = set(META_KEYS), []
    for node in tree.css("meta"):
        attributes = node.attributes
        prop = (attributes.get("property") or "").strip().lower()
        key = prop if prop in keys else (attributes.get("name") or "").strip().lower()
        if key in keys:
            meta.append((key, collapse_whitespace(meta_content(attributes) or "")))
    return tuple(meta)


def read_static(page: Page, subresources: SubresourceSource | None = None, *,
                within: Collection[ElementPath] | None = None) -> RenderedPage:
    """Read a page's title, meta tags, text blocks and segments from its HTML, without a browser.

    The records are those the renderer gives (see the module docstring for what is approximated);
    the boxes are not known: ``x``, ``y``, ``width``, ``height`` of every block and segment and the
    page's ``width`` and ``height`` are ``nan``.

    Parameters
    ----------
    page : Page
    subresources : SubresourceSource, optional
        Where the page's linked style sheets (and their ``@import``) are looked up, with the request
        URL, ``load_url(page)`` and ``page.path``, as the renderer does; ``None``: only the page's own
        ``<style>`` elements and ``style`` attributes apply.
    within : collection of paths, optional
        Read only the elements at these paths (:data:`~mainentity.records.ElementPath`: ``(tag, index)``
        steps from ``<html>``, ``None`` for any index), and everything inside them: the blocks and segments
        of other elements are left out, and so are the checks that need every block of the page (text set
        in positioned lines, a skeleton its scripts fill). A template's locator reads its pages so
        (:mod:`mainentity.slot_transfer`): where its slots are, at a fraction of the walk. Default: the
        whole page.

    Returns
    -------
    rendered : RenderedPage

    Raises
    ------
    ValueError
        If the page is over the renderer's element or text limit (:func:`markup_problem`: it is not
        parsed), cannot be parsed or walked, holds a declarative shadow root (the renderer walks it,
        with the shadow tree's own styles and slots), is a skeleton its scripts fill
        (:func:`mainentity.render.scripts.unfinished_reason`), or sets its text in positioned lines
        (:data:`MIN_POSITIONED_LINES`); the message names the page.

    Examples
    --------
    >>> page = Page("s", "1.htm", "http://s.test/1", "<title>T</title><h1>A <b>big</b> book</h1>")
    >>> for block in read_static(page).blocks:
    ...     print(block.text, block.font_size, block.bold, block.heading_level, block.merged)
    A 32.0 True 1 False
    big 32.0 True 1 False
    book 32.0 True 1 False
    A big book 32.0 True 1 True
    >>> import math
    >>> read_static(page).title, math.isnan(read_static(page).blocks[0].x)
    ('T', True)
    """
    if problem := markup_problem(page.html):  # the renderer's bound on memory, before the parse
        raise ValueError(f"{page_label(page)}: {problem}")
    try:
        tree = LexborHTMLParser(page.html)
        shadows = [_EMPTY_TEMPLATE.fullmatch(node.html or "") is None for node in tree.css(_SHADOW_TEMPLATE)]
        shadow = any(shadows)
        url = load_url(page)
        base = tree.css_first("base[href]")
        base_url = urljoin(url, (base.attributes.get("href") or "").strip()) if base is not None else url
        walk = _Walk(Cascade(tree, base_url, url, page.path, subresources, is_quirks(page.html)))
        walk.empty_shadows = bool(shadows)
        root = tree.root
        if root is not None and not shadow:
            _walk_root(walk, root, within)
        rendered = RenderedPage(_title(tree), _meta(tree), tuple(walk.blocks), NAN, NAN, tuple(walk.segments))
    except Exception as exc:  # one page's failure is reported with its name, never a crash of a batch
        raise ValueError(f"{page_label(page)}: static read failed: {type(exc).__name__}: {exc}") from exc
    if shadow:
        raise ValueError(f"{page_label(page)}: a declarative shadow root: its styles and slots need the renderer")
    if within is not None:
        return rendered
    if walk.n_positioned >= MIN_POSITIONED_LINES and 2 * walk.n_positioned >= walk.n_shown:
        raise ValueError(f"{page_label(page)}: text set in positioned lines ({walk.n_positioned} of "
                         f"{walk.n_shown} shown texts; a PDF or slide deck as HTML): which lines continue one "
                         "another needs the renderer")
    if reason := unfinished_reason(page, rendered):
        raise ValueError(f"{page_label(page)}: a skeleton its scripts fill ({reason}): left to the renderer")
    return rendered


def _walk_root(walk: _Walk, root, within: Collection[ElementPath] | None = None) -> None:
    """Walk from ``<html>``, un-hidden as ``blocks.js`` does (``<body>`` is un-hidden in the walk); with
    ``within``, toward those paths only (:func:`read_static`)."""
    tag, attributes = root.tag.lower(), root.attributes
    root_style = _unhidden(walk.style_of(root, tag, attributes, _ROOT_PARENT))
    walk.rem = root_style.font_size
    top = _Context(root_style, False, False, 0, True, False)
    below = None if within is None else [
        path[1:] for path in within if path and path[0][0] == tag and path[0][1] in (None, 0)]
    if below is None or any(not rest for rest in below):
        walk.visit(root, tag, attributes, f"{tag}[0]", top, root_style)
    elif below:
        walk.visit_toward(root, tag, attributes, f"{tag}[0]", top, root_style, below)


def _unhidden(style: _Style) -> _Style:
    """A root element's style with ``display: none`` and hiding ``visibility`` overridden."""
    if style.display != "none" and style.visibility == "visible" and not style.visually_hidden:
        return style
    display = "block" if style.display == "none" else style.display
    return replace(style, display=display, visibility="visible", visually_hidden=style.unshown)


def read_static_pages(
    pages: Iterable[Page], subresources_of=None
) -> Iterator[tuple[Page, RenderedPage | None, str]]:
    """Read many pages statically; a page that fails gets an error instead of stopping the batch.

    Parameters
    ----------
    pages : iterable of Page
    subresources_of : callable, optional
        ``subresources_of(page) -> SubresourceSource | None`` for each page (e.g.
        :meth:`mainentity.sitedump.SubresourceSources.for_page`); default: no linked style sheets.

    Yields
    ------
    page, rendered, error : Page, RenderedPage or None, str
        ``rendered`` is ``None`` and ``error`` says why when the page could not be read.

    >>> pages = [Page("s", "1.htm", "http://s.test/1", "<title>A</title>")]
    >>> [(page.path, rendered.title, error) for page, rendered, error in read_static_pages(pages)]
    [('1.htm', 'A', '')]
    """
    for page in pages:
        try:
            yield page, read_static(page, subresources_of(page) if subresources_of is not None else None), ""
        except ValueError as exc:
            yield page, None, str(exc)
