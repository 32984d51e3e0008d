"""The CSS cascade of a parsed page without a browser, for the static page reader (:mod:`.static`).

Collects the page's style sheets in document order (``<style>`` elements, ``<link rel=stylesheet>``
files served by a :class:`~mainentity.sitedump.SubresourceSource`, ``@import`` followed up to
:data:`MAX_IMPORT_DEPTH`), a small user-agent style sheet (:data:`UA_CSS`, the rules of Chromium's
``html.css`` and, for a document in quirks mode (:func:`is_quirks`), ``quirks.css`` that change what
the reader reports) and the presentational hints of ``<font size color>``, and gives each element its
cascaded declarations.

Parsing is tinycss2's; specificity is cssselect2's parser's; matching is lexbor's selector engine on
the same tree the reader walks (``LexborHTMLParser.css``). Only declarations of the properties in
:data:`PROPERTIES` are kept, so most rules of a site's style sheet are never matched. The cascade
orders declarations by origin and importance (user agent, presentational hints, author, inline
``style``; ``!important`` reversing the order), then cascade layer (unlayered last), specificity and
source order.

A selector list with one invalid selector drops its whole rule, as in Chromium (a stray ``&gt;``, a
``-moz-`` or ``-ms-`` pseudo-class). Left out: pseudo-elements (they style no text node), user-action
pseudo-classes (``:hover``, ``:focus``...; nothing is hovered in the renderer) and any selector
lexbor cannot parse; ``@media`` queries other than media types and width/height/orientation features
at the 1024x768 viewport (other features count as false); ``@container`` (needs layout); CSS nesting;
the order of layered ``!important`` declarations.

A large style sheet costs its tokenizing by tinycss2 (pure Python, about 1 ms per 1-2 KB of CSS) the
first time; compiled sheets are memoised by content (:func:`compile_sheet`), so a site's sheets are
read once per process. Before tokenizing, the declarations of other properties than :data:`PROPERTIES`
in style rules, the rules left with none, and a rule whose prelude is left open to the end (with the
rest of the sheet) are cut from the text by a scan that finds rule and declaration boundaries as
tinycss2 does (:func:`without_unkept_rules`), the same rules compiled (``tests/test_static_css.py``,
``benchmarks/static_identity.py``); so is the content of an ``@media`` block whose query does not apply
and of at-rules that hold no style rules (``@font-face``, ``@keyframes``...). On a page whose sheets
hold many rules naming classes or ids (:data:`NAMED_RULES_TO_FILTER`), the rules naming one that no
element of the page carries are not tokenized either (lone pages' framework sheets: most of their rules
cannot match): the scan cuts a sheet into parts, one a rule (:func:`sheet_parts`), and the parts a page
keeps are compiled one by one, each memoised by its text, the whole memoised by the names the page has: plain
rules without tinycss2 (:func:`_plain_part_items`), any other style rule parsed alone. Selectors are parsed
once per process (:func:`_selector`). Elements of one tag matched by the same rules, with the same ``style``
attribute, share their cascaded declarations (:meth:`Cascade.declarations`).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import urljoin

import tinycss2
from cssselect2.parser import SUPPORTED_PSEUDO_ELEMENTS, SelectorError
from cssselect2.parser import parse as parse_selectors
from tinycss2.bytes import decode_stylesheet_bytes

from mainentity.sitedump import SubresourceSource

logger = logging.getLogger(__name__)

#: Properties the reader reads (shorthands ``font`` and ``overflow`` are expanded into these).
PROPERTIES = frozenset(
    {
        "display", "visibility", "font-size", "font-weight", "font-family", "color", "opacity", "clip",
        "clip-path", "overflow-x", "overflow-y", "width", "height", "position", "left", "top", "text-indent", "float",
        "transform",
    }
)

#: Rules needing classes or ids (:func:`sheet_parts`) a page's style sheet must have for the page's classes and ids
#: to be read (:func:`page_names`, about 1 µs an element) and the rules naming absent ones left out (each saves
#: tokenizing some 100 characters, about 50 µs, the first time, and a selector match).
NAMED_RULES_TO_FILTER = 16

#: Deepest chain of ``@import`` followed (a sheet imported by an imported sheet is depth 2).
MAX_IMPORT_DEPTH = 4

#: The viewport the renderer lays pages out in (CSS px), for ``@media`` queries.
VIEWPORT = (1024, 768)

#: Chromium's user-agent rules that change display, fonts, colours of text (``html.css``). ``title`` is
#: not there: lexbor's selectors ignore namespaces, and an SVG ``<title>`` is displayed (the reader skips
#: HTML ones itself).
UA_CSS = """
[hidden], area, base, basefont, datalist, head, link, meta, noembed, noframes, param, rp, script, style,
template, dialog:not([open]), input[type=hidden] { display: none }
h1 { font-size: 2em; font-weight: bold }
h2 { font-size: 1.5em; font-weight: bold }
h3 { font-size: 1.17em; font-weight: bold }
h4 { font-weight: bold }
h5 { font-size: .83em; font-weight: bold }
h6 { font-size: .67em; font-weight: bold }
b, strong, optgroup { font-weight: bolder }
th { font-weight: bold }
small, sub, sup { font-size: smaller }
big { font-size: larger }
pre, code, kbd, samp, tt, xmp, plaintext, listing { font-family: monospace }
button, input, select, textarea { font-size: 13.333333px; font-weight: normal; font-family: system-ui }
a:any-link { color: #0000ee }
"""

#: Chromium's ``quirks.css`` rule that matters here: tables do not inherit fonts in quirks mode.
QUIRKS_CSS = "table { font-size: medium; font-weight: normal }"

_USER_ACTION = re.compile(r":(hover|focus|focus-within|focus-visible|active|visited|target)\b", re.I)
_MEDIA_FEATURE = re.compile(r"\(\s*([a-z-]+)\s*(?::\s*([^)]*?))?\s*\)")
_QUIRKS_PREFIXES = (
    "+//silmaril//", "-//as//", "-//advasoft ltd//", "-//ietf//dtd html", "-//metrius//", "-//microsoft//",
    "-//netscape comm. corp.//", "-//o'reilly and associates//", "-//softquad", "-//spyglass//", "-//sq//",
    "-//sun microsystems corp.//", "-//w3c//dtd html 3", "-//w3c//dtd html 4.0 frameset//",
    "-//w3c//dtd html 4.0 transitional//", "-//w3c//dtd html experimental", "-//w3c//dtd w3 html//",
    "-//w3o//dtd w3 html", "-//webtechs//",
)
_QUIRKS_WITHOUT_SYSTEM_ID = ("-//w3c//dtd html 4.01 frameset//", "-//w3c//dtd html 4.01 transitional//")
_DOCTYPE = re.compile(r"^\s*(?:<!--.*?-->\s*)*<!doctype\s+([^>]*)>", re.I | re.S)
_FOREIGN_PSEUDO = re.compile(r"::?-(moz|ms|o)-", re.I)
_TYPE_SELECTOR = re.compile(r"^[a-zA-Z][a-zA-Z0-9-]*$")
_IDENT = r"-?[A-Za-z_][A-Za-z0-9_-]*"
#: A class, id, pseudo-class or pseudo-element selector without arguments (:func:`_named_selector`).
_NAMED_SIMPLE = re.compile(rf"[.#]{_IDENT}|::?{_IDENT}")
_PSEUDO = re.compile(rf"(::?)({_IDENT})")
#: Pseudo-elements cssselect2 reads after a single colon.
_LEGACY_PSEUDO_ELEMENTS = ("before", "after", "first-line", "first-letter")
_COMBINATORS = re.compile(r"[ \t\n>+~]+")
#: A style rule's prelude that :func:`_needed_names` reads: type, class, id selectors, pseudo-classes and
#: pseudo-elements without arguments, combinators and commas (no escapes, comments, attributes or functions).
_SIMPLE_PRELUDE = re.compile(r"[A-Za-z0-9_\-.#:*,>+~ \t\n]*")
_NAMED_COMPOUND = rf"(?=[A-Za-z*.#:])(?:[A-Za-z][A-Za-z0-9-]*|\*)?(?:[.#]{_IDENT}|::?{_IDENT})*"
_NAMED_COMPLEX = re.compile(rf"{_NAMED_COMPOUND}(?:(?:[ \t\n]*[>+~][ \t\n]*|[ \t\n]+){_NAMED_COMPOUND})*")
_CLASS_OR_ID_NAME = re.compile(rf"[.#]({_IDENT})")
_NUMBER = re.compile(r"^(-?\d*\.?\d+(?:e[+-]?\d+)?)([a-z%]*)$")

# Cascade levels: origin and importance, in increasing precedence.
_UA, _HINT, _AUTHOR, _INLINE, _AUTHOR_IMPORTANT, _INLINE_IMPORTANT, _UA_IMPORTANT = range(7)
_UNLAYERED = 1 << 30

Declaration = tuple[str, str, bool]  # (property, lower-cased value, important)


@dataclass(frozen=True)
class StyleRule:
    """One selector of a style rule with its kept declarations.

    Attributes
    ----------
    selector : str
        One complex selector (no commas).
    specificity : tuple of 3 ints
        ``(ids, classes, types)`` as cssselect2 computes it.
    level : int
        Origin: 0 user agent, 2 author.
    layer : int
        Cascade layer rank; unlayered rules rank last.
    order : int
        Source order over all style sheets of the page.
    declarations : tuple of (str, str, bool)
        ``(property, value, important)``, value lower-cased and serialised.
    """

    selector: str
    specificity: tuple[int, int, int]
    level: int
    layer: int
    order: int
    declarations: tuple[Declaration, ...]


@functools.lru_cache(maxsize=4096)
def _style_attribute(text: str) -> tuple[Declaration, ...]:
    """:func:`declarations_of` a ``style`` attribute, read as a plain block's content when it is one (without
    tinycss2's tokenizer, :func:`_plain_declarations`)."""
    text = _normalised(text)
    plain = None if _NOT_PLAIN.search(text) or not _PLAIN_BLOCK_CONTENT.fullmatch(text) else _plain_declarations(text)
    return declarations_of(text) if plain is None else plain


def declarations_of(tokens) -> tuple[Declaration, ...]:
    """The kept declarations of a declaration list (a ``style`` attribute or a rule's block).

    ``font`` and ``overflow`` are expanded into their longhands; properties outside
    :data:`PROPERTIES` are dropped.

    Parameters
    ----------
    tokens : str or list of tinycss2 nodes

    Returns
    -------
    declarations : tuple of (str, str, bool)

    >>> for declaration in declarations_of("color: Red; font: bold 12px/2 Arial, serif !important; margin: 0"):
    ...     print(declaration)
    ('color', 'red', False)
    ('font-weight', 'bold', True)
    ('font-size', '12px', True)
    ('font-family', 'arial, serif', True)
    """
    result = []
    for node in tinycss2.parse_blocks_contents(tokens, skip_comments=True, skip_whitespace=True):
        if node.type != "declaration":
            continue
        name = node.lower_name
        if name == "font":
            result.extend((longhand, value, node.important) for longhand, value in _font_shorthand(node.value))
        elif name == "overflow":
            values = tinycss2.serialize(node.value).strip().lower().split()
            if values:
                result.append(("overflow-x", values[0], node.important))
                result.append(("overflow-y", values[-1], node.important))
        elif name in PROPERTIES:
            result.append((name, tinycss2.serialize(node.value).strip().lower(), node.important))
    return tuple(result)


def _font_shorthand(tokens) -> Iterator[tuple[str, str]]:
    """Longhands of a ``font`` shorthand: weight (``normal`` unless given), size and family."""
    values = [token for token in tokens if token.type not in ("whitespace", "comment")]
    text = tinycss2.serialize(tokens).strip().lower()
    if len(values) == 1 and values[0].type == "ident":  # a CSS-wide keyword or a system font
        if text in ("inherit", "initial", "unset"):
            yield from (("font-weight", text), ("font-size", text), ("font-family", text))
        return
    weight = "normal"
    for index, token in enumerate(values):
        value = tinycss2.serialize([token]).lower()
        if token.type in ("dimension", "percentage") or value in _SIZE_KEYWORDS or value in ("larger", "smaller"):
            yield "font-weight", weight
            yield "font-size", value
            rest = values[index + 1 :]
            if len(rest) >= 2 and rest[0] == "/":
                rest = rest[2:]
            yield "font-family", ", ".join(
                part.strip() for part in tinycss2.serialize(_spaced(rest)).lower().split(",")
            )
            return
        if token.type == "number" or value in ("bold", "bolder", "lighter"):
            weight = value


def _spaced(tokens) -> list:
    """Tokens with a space between family name parts again (``Times New Roman``)."""
    result = []
    for token in tokens:
        if result and token.type == "ident" and result[-1].type == "ident":
            result.append(tinycss2.ast.WhitespaceToken(0, 0, " "))
        result.append(token)
    return result


_SIZE_KEYWORDS = ("xx-small", "x-small", "small", "medium", "large", "x-large", "xx-large", "xxx-large")


def media_applies(query: str, viewport: tuple[int, int] = VIEWPORT) -> bool:
    """Whether a media query list matches a screen of ``viewport`` CSS px (empty: it does).

    >>> media_applies("screen and (max-width: 767px)"), media_applies("(min-width: 48em), print")
    (False, True)
    >>> media_applies("only screen and (max-device-width: 480px)"), media_applies("(-webkit-min-device-pixel-ratio: 2)")
    (False, False)
    """
    query = query.strip().lower()
    if not query:
        return True
    return any(_query_applies(part.strip(), viewport) for part in query.split(","))


def _query_applies(query: str, viewport: tuple[int, int]) -> bool:
    negated = query.startswith("not ")
    query = query.removeprefix("not ").removeprefix("only ").strip()
    media_type = query.split("(")[0].replace(" and", " ").strip()
    matches = media_type in ("", "all", "screen")
    if matches:
        matches = all(_feature_applies(name, value, viewport) for name, value in _MEDIA_FEATURE.findall(query))
    return matches != negated


def _feature_applies(name: str, value: str, viewport: tuple[int, int]) -> bool:
    width, height = viewport
    if name == "orientation":
        return value.strip() == ("landscape" if width >= height else "portrait")
    if name in ("prefers-color-scheme", "prefers-reduced-motion", "prefers-contrast"):
        return value.strip() in ("light", "no-preference")
    prefix, _, feature = name.partition("-") if name.startswith(("min-", "max-")) else ("", "", name)
    size = {"width": width, "height": height, "device-width": width, "device-height": height}.get(feature)
    limit = length_px(value, 16.0, 16.0) if value else None
    if size is None or limit is None:
        return False
    return {"min": size >= limit, "max": size <= limit, "": size == limit}[prefix]


def length_px(value: str, em: float, rem: float, percent_of: float | None = None) -> float | None:
    """A CSS length in px, or ``None`` when it is not one (``ex`` and ``ch`` count as half an em).

    >>> length_px("1.5em", 12, 16), length_px("12pt", 16, 16), length_px("50%", 16, 16, 20), length_px("auto", 1, 1)
    (18.0, 16.0, 10.0, None)
    """
    match = _NUMBER.match(value.strip())
    if match is None:
        return None
    number, unit = float(match.group(1)), match.group(2)
    if unit == "%":
        return None if percent_of is None else number * percent_of / 100
    factor = _UNITS.get(unit)
    if factor is not None:
        return number * factor
    relative = {"em": em, "rem": rem, "ex": em / 2, "ch": em / 2, "vw": VIEWPORT[0] / 100,
                "vh": VIEWPORT[1] / 100, "vmin": min(VIEWPORT) / 100, "vmax": max(VIEWPORT) / 100}
    return number * relative[unit] if unit in relative else (number if number == 0 and not unit else None)


_UNITS = {"px": 1.0, "pt": 4 / 3, "pc": 16.0, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4, "q": 96 / 101.6}


def page_names(tree) -> set[str]:
    """The classes and ids of a parsed page's elements (``tree``, a ``LexborHTMLParser``), lower-cased:
    the names a class or id selector can match there (:func:`compile_sheet`). Split at white space, ids
    too, which can only add names.

    >>> from selectolax.lexbor import LexborHTMLParser
    >>> sorted(page_names(LexborHTMLParser("<p class='A  b' id=Top><svg><g class=c></g></svg><i>")))
    ['a', 'b', 'c', 'top']
    """
    values = [node.attrs.get("class") or "" for node in tree.css("[class]")]
    values.extend(node.id or "" for node in tree.css("[id]"))
    return set(" ".join(values).lower().split())


class Cascade:
    """The cascaded declarations of every element of one parsed page.

    Parameters
    ----------
    tree : selectolax.lexbor.LexborHTMLParser
        The parsed page.
    base_url : str
        The document's base URL, against which ``<link href>`` is resolved.
    page_url, page_path : str
        Passed on to ``subresources.find`` (the URL the renderer loads the page under, and its path).
    subresources : SubresourceSource or None
        Where linked style sheets come from; ``None`` (or a source that holds nothing but pages): none.
    quirks : bool
        The document is in quirks mode (adds :data:`QUIRKS_CSS`).

    Examples
    --------
    >>> from selectolax.lexbor import LexborHTMLParser
    >>> tree = LexborHTMLParser("<style>#a {font-size: 30px} p {font-size: 20px}</style><p id=a style='color: red'>")
    >>> cascade = Cascade(tree, "http://s.test/", "http://s.test/", "1.htm", None, quirks=False)
    >>> p = tree.css_first("p")
    >>> cascade.declarations(p, "p", p.attributes)
    (('font-size', '20px'), ('font-size', '30px'), ('color', 'red'))
    """

    def __init__(self, tree, base_url: str, page_url: str, page_path: str,
                 subresources: SubresourceSource | None, quirks: bool) -> None:
        self._tree = tree
        self._page = (page_url, page_path)
        self._files = subresources if subresources is not None and subresources.holds_subresources else None
        self._rules: list[StyleRule] = []
        self._names: set[str] | None = None  # read when a sheet is worth filtering (_author_sheet)
        self._add_sheet(compile_sheet(UA_CSS + (QUIRKS_CSS if quirks else "")), _UA, "", 0)
        for node in tree.css("style, link"):
            attributes = node.attributes
            if not media_applies(attributes.get("media") or ""):
                continue
            if node.tag == "style":
                if (attributes.get("type") or "text/css").strip().lower() in ("text/css", ""):
                    self._add_sheet(self._author_sheet(node.text(deep=True)), _AUTHOR, base_url, 0)
            elif _is_stylesheet_link(attributes):
                self._add_linked(urljoin(base_url, (attributes.get("href") or "").strip()), 0)
        self._by_tag: dict[str, list[tuple[tuple, str, str]]] = {}
        self._group_of, self._groups = self._match()
        for entries in self._by_tag.values():
            entries.sort(key=lambda entry: entry[0])
        # elements of one tag, matched by the same rules, with the same style attribute and hints share
        # their declarations (about 1 in 14 elements of the lone pages has a combination of its own)
        self._cascaded: dict[tuple, tuple[tuple[str, str], ...]] = {}

    def declarations(self, node, tag: str, attributes: dict) -> tuple[tuple[str, str], ...]:
        """``(property, value)`` of the declarations that apply to the element ``node`` (of tag name
        ``tag`` and attributes ``attributes``, which the walk has read already), in cascade order: the last
        one of a property wins. The ``style`` attribute and presentational hints included."""
        hints = tuple(_font_hints(attributes)) if tag == "font" else ()
        key = (tag, self._group_of.get(node.mem_id, -1), attributes.get("style"), hints)
        cascaded = self._cascaded.get(key)
        if cascaded is None:
            cascaded = self._cascaded[key] = self._cascade(*key)
        return cascaded

    def _cascade(self, tag: str, group: int, style: str | None, hints: tuple[tuple[str, str], ...]
                 ) -> tuple[tuple[str, str], ...]:
        """:meth:`declarations` of an element of ``tag`` matched by the rules of ``group`` (-1: none)."""
        by_tag = self._by_tag.get(tag, ())
        matched = self._groups[group] if group >= 0 else ()
        if not (matched or style or hints):
            return tuple((name, value) for _, name, value in by_tag)
        entries = [*by_tag, *matched]
        entries.extend(((_HINT, 0, (0, 0, 0), 0), name, value) for name, value in hints)
        if style:
            for name, value, important in _style_attribute(style):
                entries.append(((_INLINE_IMPORTANT if important else _INLINE, 0, (0, 0, 0), 0), name, value))
        entries.sort(key=lambda entry: entry[0])
        return tuple((name, value) for _, name, value in entries)

    def _add_linked(self, url: str, depth: int) -> None:
        if self._files is None or depth >= MAX_IMPORT_DEPTH or not url.lower().startswith(("http:", "https:")):
            return
        found = self._files.find(url, *self._page)
        if found is not None:
            self._add_sheet(self._author_sheet(found.data), _AUTHOR, url, depth)

    def _author_sheet(self, source: str | bytes) -> tuple:
        """:func:`compile_sheet` of an author style sheet, without the rules naming classes or ids absent from
        the page once one of its sheets has :data:`NAMED_RULES_TO_FILTER` rules that need some."""
        if self._names is None and sheet_parts(source).n_named >= NAMED_RULES_TO_FILTER:
            self._names = page_names(self._tree)
        return compile_sheet(source, self._names)

    def _add_sheet(self, items: tuple, level: int, url: str, depth: int) -> None:
        layers: dict[int, int] = {}
        for kind, *item in items:
            if kind == "import":
                if level == _AUTHOR:
                    self._add_linked(urljoin(url, item[0]), depth + 1)
                continue
            selector, specificity, declarations, layer = item
            if layer:
                layer = layers.setdefault(layer, len(self._rules))
            rank = layer or _UNLAYERED
            self._rules.append(StyleRule(selector, specificity, level, rank, len(self._rules), declarations))

    def _match(self) -> tuple[dict[int, int], list[tuple[tuple[tuple, str, str], ...]]]:
        """The group of rules lexbor matches of each element (``mem_id``), and each group's declarations
        (rules in source order); those of rules with a plain type selector go to ``_by_tag`` (already in
        cascade order)."""
        rules_of: dict[int, list[int]] = {}
        found: dict[str, list[int]] = {}
        for index, rule in enumerate(self._rules):
            if _TYPE_SELECTOR.match(rule.selector):
                self._by_tag.setdefault(rule.selector.lower(), []).extend(
                    ((_level(rule.level, important), rule.layer, rule.specificity, rule.order), name, value)
                    for name, value, important in rule.declarations
                )
                continue
            ids = found.get(rule.selector)
            if ids is None:
                try:
                    ids = [node.mem_id for node in self._tree.css(rule.selector)]
                except Exception as exc:  # lexbor rejects a selector it does not know: it then matches nothing
                    logger.debug("selector %r not matched: %s", rule.selector, exc)
                    ids = []
                found[rule.selector] = ids
            for mem_id in ids:
                rules_of.setdefault(mem_id, []).append(index)
        groups: dict[tuple[int, ...], int] = {}
        group_of = {mem_id: groups.setdefault(tuple(indices), len(groups)) for mem_id, indices in rules_of.items()}
        return group_of, [tuple(self._entries(indices)) for indices in groups]

    def _entries(self, indices: Iterable[int]) -> Iterator[tuple[tuple, str, str]]:
        """``(cascade key, property, value)`` of the declarations of the rules ``indices``, in order."""
        for rule in map(self._rules.__getitem__, indices):
            for name, value, important in rule.declarations:
                yield (_level(rule.level, important), rule.layer, rule.specificity, rule.order), name, value


#: One step of the scan of a style sheet (:func:`without_unkept_rules`): a comment (to ``*/`` or the end), a
#: string (to its quote, an unescaped newline or the end), an escape, a bracket, a semicolon, ``url(`` that
#: starts a URL token (no name character, ``#``, ``@`` or backslash before it, or ``<!--`` or ``-->``), a run
#: of other characters (a ``/`` not before ``*`` and a ``u`` not before ``rl(`` among them), or one character.
#: tinycss2's tokenizer consumes the same characters into each of these.
_SCAN = re.compile(
    r"/\*(?:.*?\*/|.*\Z)|\"(?:[^\"\\\n]|\\[\s\S])*\"?|'(?:[^'\\\n]|\\[\s\S])*'?|\\[^\n]|[{}()\[\];]"
    r"|(?:(?<![A-Za-z0-9_\-\\#@\u0080-\U0010ffff])|(?<=<!--)|(?<=-->))[uU][rR][lL]\("
    r"|(?=[^/\"'\\{}()\[\];uU]|[uU](?![rR][lL]\()|/(?!\*))"
    r"[^/\"'\\{}()\[\];uU]*(?:(?:[uU](?![rR][lL]\()|/(?!\*))[^/\"'\\{}()\[\];uU]*)*|[\s\S]",
    re.S,
)
#: What the scan (:data:`_SCAN`) reads in a block without meeting a comment, an escape, a string left open, a URL
#: token that is not plain or a bracket nested deeper (:func:`_component_end`, :data:`_SIMPLE_RULE`): characters
#: that start no step of their own, a ``u`` or ``/`` that starts no URL token or comment, closed strings, plain
#: URL tokens (or ``url(`` with a string), brackets one deep, and in a block a block of these. Each piece starts
#: with characters the piece before it cannot take, so a failed match costs time linear in its length.
_CLOSING = {"{": "}", "(": ")", "[": "]"}
_RUN_CHARS = r"[^/\"'\\{}()\[\]uU]"
_SOFT = r"(?:[uU](?![rR][lL]\()|/(?!\*))"
_CLOSED_STRING = r"(?:\"[^\"\\\n]*\"|'[^'\\\n]*')"
_GROUP_CONTENT = rf"{_RUN_CHARS}*(?:(?:{_SOFT}|{_CLOSED_STRING}){_RUN_CHARS}*)*"
_GROUP = rf"(?:\({_GROUP_CONTENT}\)|\[{_GROUP_CONTENT}\])"
#: A URL token's value and its closing parenthesis, after ``url(`` and white space.
_URL_BODY = r"[^ \t\n\"'()\\\x00-\x08\x0b\x0e-\x1f\x7f]*[ \t\n]*\)"
_PLAIN_URL = (r"(?<![A-Za-z0-9_\-\\#@\u0080-\U0010ffff])[uU][rR][lL]\("
              rf"(?:[ \t\n]*{_URL_BODY}|(?=[ \t\n]*[\"']){_GROUP_CONTENT}\))")
_ATOM = rf"(?:{_SOFT}|{_CLOSED_STRING}|{_PLAIN_URL}|{_GROUP})"
_INNER_CONTENT = rf"{_RUN_CHARS}*(?:{_ATOM}{_RUN_CHARS}*)*"
_BLOCK_CONTENT = rf"{_RUN_CHARS}*(?:(?:{_ATOM}|\{{{_INNER_CONTENT}\}}){_RUN_CHARS}*)*"
#: The steps of :data:`_SCAN` inside a block that neither open nor close one, nor start a comment, string,
#: escape or URL token: what :func:`_component_end` skips in one match (semicolons among them).
_IN_BLOCK = re.compile(rf"{_RUN_CHARS}*(?:{_SOFT}{_RUN_CHARS}*)*")
#: The rest of a block after its opening bracket, to its closing one, read in one match (:func:`_component_end`).
_BLOCK_REST = {bracket: re.compile(_BLOCK_CONTENT + re.escape(closing)) for bracket, closing in _CLOSING.items()}
#: A declaration of a block's content read as :data:`_BLOCK_REST` reads it, to its semicolon or the end of the
#: content (:func:`_top_level_pieces`).
_DECLARATION_PIECE = re.compile(
    rf"[^;/\"'\\{{}}()\[\]uU]*(?:{_ATOM}[^;/\"'\\{{}}()\[\]uU]*)*(?:;|\Z)"
)
#: A rule (a style rule, or an at-rule with a block) whose prelude, without a semicolon or a block, and block
#: read as :data:`_BLOCK_REST` reads a block: the loop of :func:`_rule_extent` in one match, the prelude its group.
_SIMPLE_RULE = re.compile(
    rf"([^/\"'\\{{}}()\[\];uU]*(?:(?:{_SOFT}|{_CLOSED_STRING}|{_GROUP})[^/\"'\\{{}}()\[\];uU]*)*)\{{{_BLOCK_CONTENT}\}}"
)
#: What may follow ``url(``: a quote (a ``url()`` function holding a string) or a plain URL token.
_URL_REST = re.compile(rf"[ \t\n]*(?:([\"'])|{_URL_BODY})")
#: Between rules: white space, comments, ``<!--`` and ``-->``.
_BETWEEN_RULES = re.compile(r"(?:[ \t\n]+|/\*(?:.*?\*/|.*\Z)|<!--|-->)+", re.S)
_AT_KEYWORD = re.compile(r"@(?:-?(?:[A-Za-z_\u0080-\U0010ffff]|\\[^\n])|--)")
#: An escape in a name before ``(``: the name may be ``url`` (``u\72l(``), which the scan would not see.
_ESCAPE = r"\\(?:[0-9a-fA-F]{1,6}[ \t\n]?|[^\n])"
_ESCAPED_FUNCTION = re.compile(rf"{_ESCAPE}(?:[A-Za-z0-9_\-\u0080-\U0010ffff]|{_ESCAPE})*\(")
#: A declaration of a kept property (or of the shorthands expanded into them) at the start of a block's
#: content or after a semicolon.
_KEPT_DECLARATION = re.compile(
    r"(?:^|;)[ \t\n]*(?:" + "|".join(sorted(PROPERTIES | {"font", "overflow"}, key=len, reverse=True))
    + r")[ \t\n]*:", re.I)
#: A kept declaration at the start of one piece of a block's content.
_KEPT_START = re.compile(_KEPT_DECLARATION.pattern.replace("(?:^|;)", "", 1), re.I)
_AT_NAME = re.compile(r"@([A-Za-z0-9_\-]+)(?![\\\u0080-\U0010ffff])")


#: Parentheses without a semicolon, quote or square bracket in them, and what is left of others
#: (:func:`_kept_declarations`: a block's content whose semicolons are all at its top level).
_PAREN_GROUP = re.compile(r"\([^();\"'\[\]]*\)")
_PAREN = re.compile(r"[()]")
_SQUARE_OR_QUOTE = re.compile(r"[\[\]\"']")


class _NotFollowed(Exception):
    """The scan met a construct it does not follow; the sheet is parsed whole."""


def _component_end(css: str, pos: int) -> tuple[int, str]:
    """``(end, first)``: the end of the component value at ``pos`` (a whole block for a bracket) and its
    first scan step; ``end`` is ``-1`` for a block the sheet leaves open."""
    first = _SCAN.match(css, pos).group()
    end = pos + len(first)
    if first.lower() == "url(":
        rest = _URL_REST.match(css, end)
        if rest is None:
            raise _NotFollowed
        if rest.group(1) is None:
            return rest.end(), first
    elif first not in _CLOSING:
        return end, first
    elif plain := _BLOCK_REST[first].match(css, end):
        return plain.end(), first
    closing = [")" if first.lower() == "url(" else _CLOSING[first]]
    while closing and (end := _IN_BLOCK.match(css, end).end()) < len(css):
        step = _SCAN.match(css, end).group()
        end += len(step)
        if step == closing[-1]:
            closing.pop()
        elif step in _CLOSING:
            closing.append(_CLOSING[step])
        elif step.lower() == "url(":
            rest = _URL_REST.match(css, end)
            if rest is None:
                raise _NotFollowed
            if rest.group(1) is None:
                end = rest.end()
            else:
                closing.append(")")
    return (-1 if closing else end), first


def _kept_declarations(content: str) -> str:
    """A style rule's block content (no comment, escape or nested block in it) with only its declarations
    of kept properties: the pieces between its top-level semicolons are parsed one by one (CSS Syntax 3,
    section 5.4.5), so the others can go."""
    return "".join(piece for piece in _top_level_pieces(content) if _KEPT_START.match(piece))


def _top_level_pieces(content: str) -> list[str]:
    """A block's content (no comment, escape or nested block in it) cut after each top-level semicolon."""
    if not _SQUARE_OR_QUOTE.search(content) and not _PAREN.search(_PAREN_GROUP.sub("", content)):
        # every semicolon is at the top level: the pieces are those between semicolons
        cut = content.split(";")
        return [*(part + ";" for part in cut[:-1]), cut[-1]]
    pieces, pos = [], 0
    while pos < len(content) and (piece := _DECLARATION_PIECE.match(content, pos)):
        pieces.append(piece.group())
        pos = piece.end()
    if pos == len(content):
        return pieces
    pieces, start, pos = [], 0, 0
    while pos < len(content):
        end, first = _component_end(content, pos)
        if first == ";" or end == len(content):
            pieces.append(content[start:end])
            start = end
        pos = end
    return pieces


#: A piece of a style sheet (:func:`sheet_parts`): its text, and ``None`` when it is compiled for every page,
#: else, for a top-level style rule, the names (lower-cased classes and ids) each of its complex selectors
#: needs (:func:`_needed_names`): the rule can match an element only if the page has one of these sets.
Part = tuple[str, tuple[frozenset[str], ...] | None]


def _needed_names(prelude: str) -> tuple[frozenset[str], ...] | None:
    """The names (lower-cased classes and ids) each complex selector of a rule's prelude needs, for a
    selector list of type, universal, class, id, pseudo-class and pseudo-element selectors without
    arguments; ``None`` when one selector needs no class or id, or the prelude holds anything else
    (``(``, ``[``, ``\\``, ``|``, ``&``, comments, strings, other characters): the rule is then kept for
    every page.

    A compound selector matches only elements that all its simple selectors match, and a complex selector
    only an element whose compound chain, joined by combinators (descendant, child, sibling), is matched
    by elements of the same tree (Selectors 4, sections 3.1 and 16): a selector naming a class or id that
    no element of the page carries selects nothing there, and neither does a pseudo-element of it. Names
    are lower-cased because classes and ids match ASCII case-insensitively in quirks mode (Selectors 4,
    section 6.6; case-sensitively otherwise, for which a lower-cased set can only keep more rules).

    >>> [sorted(names) for names in _needed_names(".nav > li.Active, #top .x::before")]
    [['active', 'nav'], ['top', 'x']]
    >>> _needed_names("p, .a"), _needed_names(":is(.a) b"), _needed_names(r".a\\:b")
    (None, None, None)
    """
    if not _SIMPLE_PRELUDE.fullmatch(prelude):
        return None
    needed = []
    for selector in prelude.split(","):
        selector = selector.strip(" \t\n")
        names = frozenset(name.lower() for name in _CLASS_OR_ID_NAME.findall(selector))
        if not names or not _NAMED_COMPLEX.fullmatch(selector):
            return None
        needed.append(names)
    return tuple(needed)


def _at_rule_name(css: str, start: int, block_start: int) -> str | None:
    """The lower-cased name of the at-rule at ``start`` whose prelude ends at ``block_start``, or ``None``
    when it holds an escape or other than ASCII characters."""
    keyword = _AT_NAME.match(css, start)
    return None if keyword is None or keyword.end() > block_start else keyword.group(1).lower()


def _media_block_applies(css: str, start: int, block_start: int) -> bool:
    """Whether the query of the ``@media`` rule at ``start`` (its block at ``block_start``) applies at the
    renderer's viewport (else :func:`compile_sheet` skips its content)."""
    return _media_prelude_applies(css[start + len("@media") : block_start])


@functools.lru_cache(maxsize=1024)  # a sheet repeats a few queries (breakpoints) in many blocks
def _media_prelude_applies(prelude: str) -> bool:
    """:func:`media_applies` of an ``@media`` rule's prelude as written (comments in it)."""
    return media_applies(tinycss2.serialize(tinycss2.parse_component_value_list(prelude, skip_comments=True)))


class _Unterminated(Exception):
    """A block's content ends inside a rule: the block is not read rule by rule."""


def _parts(css: str) -> list[Part]:
    """The parts of :func:`sheet_parts`, for a sheet whose newlines are normalised."""
    if _ESCAPED_FUNCTION.search(css):
        return [(css, None)]
    try:
        pieces = _rule_list_pieces(css, 0, len(css), nested=False)
    except _NotFollowed:
        return [(css, None)]
    parts: list[Part] = []
    gap: list[str] = []  # the text since the last rule that is a part of its own
    for text, needed in pieces:
        if needed is None:
            gap.append(text)
        else:
            parts.extend((("".join(gap), None), (text, needed)))
            gap = []
    parts.append(("".join(gap), None))
    return parts


def _block_pieces(css: str, start: int, end: int) -> list[Part] | None:
    """:func:`_rule_list_pieces` of the content ``css[start:end]`` of a block read in place, or ``None`` when
    it holds ``<!--`` or ``-->`` or ends inside a rule."""
    if "<!--" in css[start:end] or "-->" in css[start:end]:
        return None
    try:
        return _rule_list_pieces(css, start, end, nested=True)
    except _Unterminated:
        return None


def _rule_list_pieces(css: str, pos: int, end: int, nested: bool) -> list[Part]:
    """``css[pos:end]``, a list of rules (the sheet, or the content of a block when ``nested``), as pieces
    that :func:`_parts` joins: rules cut or shortened as :func:`without_unkept_rules` says, the rules that
    :func:`_needed_names` reads as pieces of their own.

    The content of an ``@media`` block whose query applies, or of a ``@supports`` block (compiled whatever
    its condition), is read in place of the block: its rules compile outside it to the same items (they are
    not in a layer). A block whose content holds ``<!--`` or ``-->`` (which start no rule inside a block but
    are skipped at the top level: tinycss2's ``parse_rule_list`` and ``parse_stylesheet``) or ends inside a
    rule (raises :class:`_Unterminated` when ``nested``) stays whole, as does an ``@layer`` block (its
    rules' layer) and an at-rule whose name holds an escape. The block of any other at-rule (``@font-face``,
    ``@keyframes``, ``@page``...) is emptied: :func:`compile_sheet` compiles nothing from it.
    """
    pieces: list[Part] = []
    kept = pos
    while pos < end:
        between = _BETWEEN_RULES.match(css, pos, end)
        if between is not None:
            pos = between.end()
            continue
        start, at_rule = pos, _AT_KEYWORD.match(css, pos, end) is not None
        block_start, pos, first = _rule_extent(css, pos, end, at_rule)
        if nested and (pos < 0 or not (first == "{" or first == ";" and at_rule)):
            raise _Unterminated
        if first != "{" and not at_rule:
            # a style rule's prelude reaching the end is no rule (CSS Syntax 3, section 5.4.3): the rest
            # is cut
            pieces.append((css[kept:start], None))
            kept = end
            break
        if pos < 0:  # a rule's block or an at-rule left open to the end stays as it is
            break
        if at_rule:
            name = _at_rule_name(css, start, block_start) if first == "{" else None
            if name == "supports" or name == "media" and _media_block_applies(css, start, block_start):
                inner = _block_pieces(css, block_start + 1, pos - 1)
                if inner is not None:
                    pieces.append((css[kept:start], None))
                    pieces.extend(inner)
                    kept = pos
            elif name is not None and name != "layer":  # @media print, @font-face...: nothing compiled from it
                pieces.append((css[kept : block_start + 1] + "}", None))
                kept = pos
            continue
        rule, content = css[start:pos], css[block_start + 1 : pos - 1]
        if not ("\\" in content or "/*" in content or "{" in content):
            declarations = _kept_declarations(content) if _KEPT_DECLARATION.search(content) else ""
            if not declarations:
                pieces.append((css[kept:start] + " ", None))
                kept = pos
                continue
            if declarations != content:
                rule = css[start : block_start + 1] + declarations + "} "
        needed = _needed_names(css[start:block_start])
        if needed is not None or len(rule) != pos - start:  # a part of its own, or declarations were cut
            pieces.extend(((css[kept:start], None), (rule, needed)))
            kept = pos
    pieces.append((css[kept:end], None))
    return pieces


def _rule_extent(css: str, pos: int, end: int, at_rule: bool) -> tuple[int, int, str]:
    """``(block_start, rule_end, first)`` of the rule at ``pos`` of ``css[pos:end]``: where its last component
    value starts (its block's bracket, an at-rule's semicolon), where that ends (``-1``: a block left open holds
    the rest of the sheet) and its first scan step, neither ``{`` nor an at-rule's ``;`` when the prelude
    reaches ``end``. Raises :class:`_NotFollowed` where the scan cannot follow tinycss2."""
    if simple := _SIMPLE_RULE.match(css, pos, end):  # the loop's result, at a fraction of its cost
        return simple.end(1), simple.end(), "{"
    block_start, first = pos, ""
    while pos < end and not (first == "{" or first == ";" and at_rule):
        block_start = pos
        pos, first = _component_end(css, pos)
        if pos < 0:
            break
    return block_start, pos, first


def without_unkept_rules(css: str) -> str:
    """A style sheet without the style rules and declarations that :func:`compile_sheet` would drop
    (those of properties outside :data:`PROPERTIES`), cut before tinycss2 tokenizes them (its pure-Python
    tokenizer is most of the time of a large sheet): the text of :func:`sheet_parts`.

    A qualified rule (at the top level or in a block read in place, :func:`_rule_list_pieces`) whose block
    holds no comment, escape or nested block keeps only its declarations of kept properties (or of
    ``font``/``overflow``), and is cut (replaced by a space) when it has none; a rule whose prelude holds a
    bracket left open to the end (``<![CDATA[`` before a page's rules) is no rule, and is cut with the
    rest of the sheet; the content of a block that holds no style rule :func:`compile_sheet` compiles
    (``@media print``, ``@font-face``) is cut; other at-rules, a block left open at the end and
    everything between rules stay. Rule boundaries
    are found as tinycss2 finds them (CSS Syntax 3: comments, strings, escapes, URL tokens, brackets);
    a sheet with an escape in a function's name or a ``url(`` token that is not plain is returned whole.
    Newlines are normalised as tinycss2 does (``\\r\\n``, ``\\r``, ``\\f`` to ``\\n``, NUL to U+FFFD).

    Parameters
    ----------
    css : str
        A style sheet's text.

    Returns
    -------
    css : str
        The text :func:`compile_sheet` compiles into the same items, in the same order (the rules of a block
        read in place are unwrapped).

    Examples
    --------
    >>> without_unkept_rules("a { margin: 0 } p { color: red; margin: 0 } @media print { b { top: 0 } }")
    '  p { color: red;}  @media print {}'
    >>> without_unkept_rules("@media screen { b { top: 0 } } @font-face { font-family: x }")
    ' b { top: 0 }  @font-face {}'
    """
    return "".join(text for text, _ in _parts(_normalised(css)))


def _normalised(css: str) -> str:
    """Newlines and NUL replaced as CSS Syntax 3, section 3.3, says (so tinycss2 parses a piece the same)."""
    return css.replace("\0", "\ufffd").replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n")


class SheetParts(NamedTuple):
    """A style sheet cut into parts (:func:`sheet_parts`).

    Attributes
    ----------
    parts : tuple of (str, tuple of frozenset of str or None)
        In source order (:data:`Part`).
    names : frozenset of str
        The union of the names the parts need.
    n_named : int
        The number of parts that need names (the rules a page may leave out).
    """

    parts: tuple[Part, ...]
    names: frozenset[str]
    n_named: int


@functools.lru_cache(maxsize=64)  # keyed by whole sheets: a few MB at most for typical sites
def sheet_parts(source: str | bytes) -> SheetParts:
    """A style sheet cut into the parts :func:`compile_sheet` compiles one by one, memoised by content.

    The text of :func:`without_unkept_rules`, cut before and after each style rule whose selectors all
    need a class or id (:func:`_needed_names`), at the top level or in the ``@media`` and ``@supports``
    blocks read in place (:func:`_rule_list_pieces`); the text between two such rules (other rules and
    at-rules, ``@layer`` blocks whole) is one part. Each part starts and ends where tinycss2 starts a new
    rule of the sheet, so the parts compile, in order, into the items of the whole sheet (the numbers of
    ``@layer`` blocks counted on over the parts).

    Parameters
    ----------
    source : str or bytes
        The style sheet's text (a ``<style>`` element) or its file's bytes (decoded as CSS Syntax 3,
        section 3.2, says: BOM, ``@charset``, else UTF-8).

    Returns
    -------
    SheetParts

    >>> sheet = "p { color: red } .a, #B.c { top: 0 } .x { margin: 0 } @media screen { li .d:hover { top: 0 } }"
    >>> parts, names, n_named = sheet_parts(sheet)
    >>> for text, needed in parts:
    ...     print(repr(text), needed and [sorted(names) for names in needed])
    'p { color: red } ' None
    '.a, #B.c { top: 0 }' [['a'], ['b', 'c']]
    '    ' None
    'li .d:hover { top: 0 }' [['d']]
    ' ' None
    >>> sorted(names), n_named
    (['a', 'b', 'c', 'd'], 2)
    """
    text = decode_stylesheet_bytes(source)[0] if isinstance(source, bytes) else source
    parts = tuple(_parts(_normalised(text)))
    named = [needed for _, needed in parts if needed is not None]
    return SheetParts(parts, frozenset().union(*(names for needed in named for names in needed)), len(named))


def compile_sheet(source: str | bytes, names: AbstractSet[str] | None = None) -> tuple:
    """A style sheet's ``@import`` URLs and kept rules, in order, for a page carrying the classes and ids
    ``names``: the rules whose selectors cannot match there (:data:`Part`) are left out. Memoised by content
    and by the names the sheet needs that the page has (a site's style sheets are read again for each of
    its pages), and each part by its text.

    Parameters
    ----------
    source : str or bytes
        The style sheet's text (a ``<style>`` element) or its file's bytes (decoded as CSS Syntax 3,
        section 3.2, says: BOM, ``@charset``, else UTF-8).
    names : set of str or None
        The page's classes and ids, lower-cased (:func:`page_names`); ``None``: every rule is kept.

    Returns
    -------
    items : tuple
        ``("import", url)`` or ``("rule", selector, specificity, declarations, layer)`` in source
        order; ``layer`` is 0 for an unlayered rule, else the number of its ``@layer`` block (from 1).

    >>> for item in compile_sheet("@import 'a.css'; @media print { p { color: red } } h1, .x { font-size: 3em }"):
    ...     print(item)
    ('import', 'a.css')
    ('rule', 'h1', (0, 0, 1), (('font-size', '3em', False),), 0)
    ('rule', '.x', (0, 1, 0), (('font-size', '3em', False),), 0)
    >>> compile_sheet(".x, .y { top: 0 } #z { color: red }", {"y"})
    (('rule', '.x', (0, 1, 0), (('top', '0', False),), 0), ('rule', '.y', (0, 1, 0), (('top', '0', False),), 0))
    """
    needed = sheet_parts(source).names
    present = None if names is None or needed <= names else frozenset(needed.intersection(names))
    return _compiled_parts(source, present)


@functools.lru_cache(maxsize=64)  # keyed by whole sheets, like sheet_parts
def _compiled_parts(source: str | bytes, names: frozenset[str] | None) -> tuple:
    """:func:`compile_sheet` of the sheet's parts whose names ``names`` has (all of them for ``None``),
    with the numbers of their ``@layer`` blocks counted over the whole sheet."""
    items: list[tuple] = []
    n_layers = 0
    for text, needed in sheet_parts(source).parts:
        if needed is not None and names is not None and not any(part_names <= names for part_names in needed):
            continue
        part_items, part_layers = _compiled_part(text)
        if n_layers and part_layers:
            part_items = tuple(item[:4] + (item[4] + n_layers if item[4] else 0,) if item[0] == "rule" else item
                               for item in part_items)
        items.extend(part_items)
        n_layers += part_layers
    return tuple(items)


@functools.lru_cache(maxsize=1 << 14)  # one rule of a site's sheet recurs on its pages, or in other sites'
def _compiled_part(text: str) -> tuple[tuple, int]:
    """The items of one part (:func:`compile_sheet`'s, ``@layer`` blocks numbered from 1) and its number
    of ``@layer`` blocks."""
    plain = _plain_part_items(text)
    if plain is not None:
        return plain, 0
    rules = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
    items: list[tuple] = []
    n_layers = [0]
    _compile_rules(rules, items, 0, n_layers)
    return tuple(items), n_layers[0]


#: A comment, and white space and comments: what tinycss2 drops between rules and before a declaration.
_PLAIN_COMMENT = r"/\*[^*]*\*+(?:[^*/][^*]*\*+)*/"
_PLAIN_GAP = rf"(?:[ \t\n]|{_PLAIN_COMMENT})*"
_PLAIN_GAP_PATTERN = re.compile(_PLAIN_GAP)
#: A string without a quote of the other kind, escape, newline or character that ends a piece
#: (:func:`_plain_declarations`) or starts an at-rule.
_PLAIN_STRING_BODY = r"[^\"'\\\n;{}@<]*"
_PLAIN_STRING = rf"(?:\"{_PLAIN_STRING_BODY}\"|'{_PLAIN_STRING_BODY}')"
#: An item of a plain part (:func:`_plain_part_items`), after white space and comments: a style rule (its
#: prelude and its block's content), an at-rule's name with an empty block, or a statement at-rule's name.
#: Each piece ends where the next cannot start, so a failed match costs time linear in its length.
_PLAIN_CONTENT = rf"(?:[^{{}}@\"'\\<]|{_PLAIN_STRING})*"
_PLAIN_ITEM = re.compile(
    rf"([^{{}}@;\"'\\< \t\n][^{{}}@;\"'\\<]*)\{{({_PLAIN_CONTENT})\}}"
    rf"|@([A-Za-z-]+)(?![A-Za-z-])[^{{}};\"'\\<]*(?:\{{[ \t\n]*\}}|(?:{_PLAIN_STRING}[ \t\n]*)?;)"
)
_PLAIN_IDENT = r"(?:--|-?[A-Za-z_\u0080-\U0010ffff])[A-Za-z0-9_\-\u0080-\U0010ffff]*"
#: One component value tinycss2 serializes as written: an identifier, a number with a unit other than
#: ``e`` or ``E`` (which tinycss2 writes escaped) or a percentage, a hash, or a string (written between
#: double quotes).
_PLAIN_TOKEN = (rf"(?:{_PLAIN_IDENT}|[+-]?(?:\d*\.\d+|\d+)(?:[eE][+-]?\d+)?(?:%|(?![eE](?![A-Za-z]))[A-Za-z]+)?"
                rf"|#[A-Za-z0-9_-]+|{_PLAIN_STRING})")
#: Between two values of a value whose white space runs are single spaces: a comma or a slash with a space or
#: none around, a space, or an operator between spaces, so no two tokens touch (tinycss2 writes ``/**/``
#: between some that do).
_PLAIN_SEPARATOR = r"(?: ?[,/] ?| (?:[-+*] )?)"
_PLAIN_VALUE = rf"(?:{_PLAIN_TOKEN}|{_PLAIN_IDENT}\( ?{_PLAIN_TOKEN}(?:{_PLAIN_SEPARATOR}{_PLAIN_TOKEN})* ?\))"
#: A declaration's plain value, white space runs made single spaces.
_PLAIN_VALUES = re.compile(rf"{_PLAIN_VALUE}(?:{_PLAIN_SEPARATOR}{_PLAIN_VALUE})*")
_WHITE_SPACE_RUN = re.compile(r"[ \t\n]+")
#: A declaration's name and colon, after white space and comments.
_PLAIN_DECLARATION_NAME = re.compile(rf"{_PLAIN_GAP}({_IDENT})[ \t\n]*:")
#: What follows the ``!`` of ``!important`` (ASCII letters only: tinycss2 lowers ASCII alone).
_IMPORTANT = re.compile(r"[ \t\n]*[iI][mM][pP][oO][rR][tT][aA][nN][tT][ \t\n]*")
#: A plain block's content (:data:`_PLAIN_ITEM`), for a ``style`` attribute (:func:`_style_attribute`).
_PLAIN_BLOCK_CONTENT = re.compile(_PLAIN_CONTENT)
#: A string between single quotes, which tinycss2 writes between double quotes.
_SINGLE_QUOTED = re.compile(f"'({_PLAIN_STRING_BODY})'")
#: What tinycss2 reads otherwise than as written: ``-->``, a URL token, and ``u+`` before a hex digit or ``?``
#: (a unicode-range token).
_NOT_PLAIN = re.compile(r"-->|[uU][rR][lL]\(|[uU]\+[0-9A-Fa-f?]")


def _plain_part_items(text: str) -> tuple | None:
    """The items :func:`_compiled_part` compiles from a part made of plain rules and other style rules, the
    plain ones without tinycss2's tokenizer (most of the time of a sheet), the others parsed alone by tinycss2
    (:func:`_parsed_rule_items`), or ``None`` for any other part (tinycss2 compiles it whole).

    Plain: style rules whose selectors are type, class, id and pseudo selectors without arguments, and
    whose kept declarations' values are identifiers, numbers, hashes, strings and functions of them,
    apart (the text of each is what tinycss2 serializes, a string between double quotes), as
    :func:`declarations_of` gives them; at-rules with an empty block (emptied by :func:`sheet_parts`:
    nothing compiles from them) but ``@layer`` (which numbers layers), statement at-rules but ``@import``
    (``@charset``), and comments between rules and before declarations. A part with ``url(``, ``-->`` or
    a unicode-range token, which tinycss2 reads otherwise, is not plain, nor one with any other at-rule or
    a ``<!--`` between rules.

    >>> for item in _plain_part_items(" p, .a:hover { color: Red; margin: 0 } #b>i{ font-size: 2em !important }"):
    ...     print(item)
    ('rule', 'p', (0, 0, 1), (('color', 'red', False),), 0)
    ('rule', '#b>i', (1, 0, 1), (('font-size', '2em', True),), 0)
    >>> _plain_part_items("@charset 'x'; /* c */ b { font-family: 'Open Sans', x } @media print {}")
    (('rule', 'b', (0, 0, 1), (('font-family', '"open sans", x', False),), 0),)
    >>> _plain_part_items("a[href] { color: red } b { top: 0 }")
    (('rule', 'a[href]', (0, 1, 1), (('color', 'red', False),), 0), ('rule', 'b', (0, 0, 1), (('top', '0', False),), 0))
    >>> _plain_part_items("@layer a {}") is None, _plain_part_items("@media print { p { top: 0 } }") is None
    (True, True)
    """
    if _NOT_PLAIN.search(text):
        return None
    items: list[tuple] = []
    position = 0
    while (position := _PLAIN_GAP_PATTERN.match(text, position).end()) < len(text):
        item = _PLAIN_ITEM.match(text, position)
        if item is not None and item.group(3) is not None:
            if item.group(3).lower() in ("layer", "import"):
                return None
            position = item.end()
            continue
        rule_items = None if item is None else _plain_rule_items(item.group(1), item.group(2))
        if rule_items is None:
            end = _style_rule_end(text, position)
            if end is None:
                return None
            rule_items, item = _parsed_rule_items(text[position:end]), None
        items.extend(rule_items)
        position = item.end() if item is not None else end
    return tuple(items)


def _plain_rule_items(prelude: str, content: str) -> list[tuple] | None:
    """The items of a style rule whose prelude and block's content :data:`_PLAIN_ITEM` matched, or ``None``
    when its selectors or declarations are not plain."""
    selectors = [selector for part in prelude.split(",") if (selector := part.strip())]
    if not all(_NAMED_COMPLEX.fullmatch(selector) for selector in selectors):
        return None
    declarations = _plain_declarations(content)
    if declarations is None:
        return None
    return [("rule", *selector, declarations, 0) for selector in _valid_selectors(selectors)] if declarations else []


def _style_rule_end(text: str, position: int) -> int | None:
    """The end of the style rule at ``position`` of a part, after white space and comments (where tinycss2
    starts a rule), as the scan finds it; ``None`` for an at-rule, a ``<!--`` (skipped there), a prelude
    that reaches the end, a block left open or a construct the scan does not follow."""
    if text.startswith(("@", "<!--"), position):
        return None
    try:
        _, end, first = _rule_extent(text, position, len(text), at_rule=False)
    except _NotFollowed:
        return None
    return end if first == "{" and end > 0 else None


def _parsed_rule_items(rule: str) -> list[tuple]:
    """The items of one style rule (its text from its prelude to its block's end) as tinycss2 parses it."""
    items: list[tuple] = []
    _compile_rules(tinycss2.parse_stylesheet(rule, skip_comments=True, skip_whitespace=True), items, 0, [0])
    return items


def _plain_declarations(content: str) -> tuple[Declaration, ...] | None:
    """:func:`declarations_of` of a plain block's content, or ``None`` when a piece between semicolons
    is not a plain declaration (or white space and comments), or leaves a parenthesis open."""
    result: list[Declaration] = []
    for piece in content.split(";"):
        if piece.count("(") != piece.count(")") or "/*" in piece and "*/" not in piece:
            return None
        named = _PLAIN_DECLARATION_NAME.match(piece)
        if named is None:
            if _PLAIN_GAP_PATTERN.fullmatch(piece) is None:
                return None
            continue
        name = named.group(1).lower()
        if name in ("font", "overflow"):
            result.extend(declarations_of(piece))
        elif name in PROPERTIES:
            value, bang, after = piece[named.end():].partition("!")
            if bang and ("!" in after or _IMPORTANT.fullmatch(after) is None):
                return None
            value = value.strip(" \t\n")
            if value and _PLAIN_VALUES.fullmatch(_WHITE_SPACE_RUN.sub(" ", value)) is None:
                return None
            result.append((name, _SINGLE_QUOTED.sub(r'"\1"', value).strip().lower(), bool(bang)))
    return tuple(result)


def _compile_rules(rules: Iterable, items: list, layer: int, n_layers: list[int]) -> None:
    for rule in rules:
        if rule.type == "qualified-rule":
            declarations = declarations_of(rule.content)
            if declarations:
                items.extend(("rule", *selector, declarations, layer) for selector in _selectors(rule.prelude))
        elif rule.type != "at-rule" or rule.content is None and rule.lower_at_keyword != "import":
            continue
        elif rule.lower_at_keyword == "import":
            url = _import_url(rule.prelude)
            if url is not None:
                items.append(("import", url))
        elif rule.lower_at_keyword in ("media", "supports", "layer"):
            if rule.lower_at_keyword == "media" and not media_applies(tinycss2.serialize(rule.prelude)):
                continue
            if rule.lower_at_keyword == "layer":
                n_layers[0] += 1
            inner = tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True)
            _compile_rules(inner, items, n_layers[0] if rule.lower_at_keyword == "layer" else layer, n_layers)


def _import_url(prelude) -> str | None:
    """The URL of an ``@import`` whose media apply, else ``None``."""
    values = [token for token in prelude if token.type not in ("whitespace", "comment")]
    if not values:
        return None
    first = values[0]
    if first.type == "function" and first.lower_name == "url":
        first = next((arg for arg in first.arguments if arg.type == "string"), None)
    if first is None or first.type not in ("url", "string") or not media_applies(tinycss2.serialize(values[1:])):
        return None
    return first.value.strip()


def _selectors(prelude) -> list[tuple[str, tuple[int, int, int]]]:
    """``(selector, specificity)`` of each complex selector of a rule that can match a DOM element;
    none when one selector of the list is invalid, which drops the whole rule (Selectors 4, section
    3.1), e.g. one with a ``-moz-`` or ``-ms-`` pseudo-class, which Chromium does not know."""
    return _valid_selectors(_split_selectors(prelude))


def _valid_selectors(texts: Iterable[str]) -> list[tuple[str, tuple[int, int, int]]]:
    """:func:`_selectors` of the complex selectors' texts."""
    selectors = []
    for selector in texts:
        valid, specificity = _selector(selector)
        if not valid:
            return []
        if specificity is not None:
            selectors.append((selector, specificity))
    return selectors


@functools.lru_cache(maxsize=1 << 15)  # a selector recurs in a sheet's @media blocks and in other sheets
def _selector(selector: str) -> tuple[bool, tuple[int, int, int] | None]:
    """``(valid, specificity)`` of one complex selector: not valid when cssselect2 rejects it, it is a list or
    it holds a ``-moz-``/``-ms-``/``-o-`` pseudo-class; specificity ``None`` when it selects a pseudo-element or
    needs a user action (it then styles no text node of the renderer's page)."""
    if _NAMED_COMPLEX.fullmatch(selector):  # the common case, without cssselect2's parser
        return _named_selector(selector)
    try:
        parsed = list(parse_selectors(selector))
    except SelectorError:
        return False, None
    if len(parsed) != 1 or _FOREIGN_PSEUDO.search(selector):
        return False, None
    if parsed[0].pseudo_element is None and not _USER_ACTION.search(selector):
        return True, parsed[0].specificity
    return True, None


def _named_selector(selector: str) -> tuple[bool, tuple[int, int, int] | None]:
    """:func:`_selector` of a selector of type, universal, class, id, pseudo-class and pseudo-element selectors
    without arguments and combinators (:data:`_NAMED_COMPLEX`), as cssselect2's parser reads it: a
    pseudo-element ends the selector (anything after it is invalid), after ``::`` it is one of
    ``SUPPORTED_PSEUDO_ELEMENTS`` (else invalid), and the specificity counts ids, classes and pseudo-classes,
    and type names (the same as cssselect2's on all 29514 selectors of the lone pages' sheets, 26355 of them of
    this form).

    >>> _named_selector("#a li.b:first-child > *"), _named_selector("a:hover"), _named_selector("p:after")
    ((True, (1, 2, 1)), (True, None), (True, None))
    >>> _named_selector("p::before:hover"), _named_selector("::-webkit-scrollbar"), _named_selector(":-ms-input")
    ((False, None), (False, None), (False, None))
    """
    if _FOREIGN_PSEUDO.search(selector):
        return False, None
    n_pseudo_classes = 0
    for pseudo in _PSEUDO.finditer(selector):
        colons, name = pseudo.group(1), pseudo.group(2).lower()
        if colons == "::" or name in _LEGACY_PSEUDO_ELEMENTS:
            valid = pseudo.end() == len(selector) and (colons == ":" or name in SUPPORTED_PSEUDO_ELEMENTS)
            return valid, None
        n_pseudo_classes += 1
    if _USER_ACTION.search(selector):
        return True, None
    types = _COMBINATORS.split(_NAMED_SIMPLE.sub("", selector))
    return True, (selector.count("#"), selector.count(".") + n_pseudo_classes,
                  sum(part not in ("", "*") for part in types))


def _level(level: int, important: bool) -> int:
    if not important:
        return level
    return _UA_IMPORTANT if level == _UA else _AUTHOR_IMPORTANT


def _split_selectors(prelude) -> Iterator[str]:
    """The complex selectors of a selector list, split at top-level commas."""
    part: list = []
    for token in [*prelude, None]:
        if token is None or (token.type == "literal" and token.value == ","):
            text = tinycss2.serialize(part).strip()
            if text:
                yield text
            part = []
        else:
            part.append(token)


def _is_stylesheet_link(attributes: dict) -> bool:
    rel = (attributes.get("rel") or "").lower().split()
    return "stylesheet" in rel and "alternate" not in rel and bool((attributes.get("href") or "").strip())


_FONT_SIZE_ATTRIBUTE = ("x-small", "small", "medium", "large", "x-large", "xx-large", "xxx-large")


def _font_hints(attributes: dict) -> Iterator[tuple[str, str]]:
    """Presentational hints of ``<font size color>`` (HTML standard, section 15.3.4)."""
    size = (attributes.get("size") or "").strip()
    match = re.match(r"^([+-]?)(\d+)", size)
    if match:
        number = int(match.group(2))
        number = 3 + number if match.group(1) == "+" else 3 - number if match.group(1) == "-" else number
        yield "font-size", _FONT_SIZE_ATTRIBUTE[min(max(number, 1), 7) - 1]
    color = (attributes.get("color") or "").strip().lower()
    if color:
        yield "color", color


def is_quirks(html: str) -> bool:
    """Whether a document parses in quirks mode (HTML standard, section 13.2.6.4.1, the common cases).

    >>> is_quirks("<!DOCTYPE html><p>"), is_quirks("<p>")
    (False, True)
    >>> is_quirks('<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">')
    True
    """
    match = _DOCTYPE.match(html.lstrip("\ufeff"))
    if match is None:
        return True
    doctype = match.group(1).strip().lower()
    if not doctype.startswith("html") or doctype[4:5] not in ("", " ", "\t", "\n", "\r"):
        return True
    ids = re.findall(r"\"([^\"]*)\"|'([^']*)'", doctype)
    public = (ids[0][0] or ids[0][1]) if ids and "public" in doctype else ""
    has_system = len(ids) >= 2 or (bool(ids) and "system" in doctype)
    if public.startswith(_QUIRKS_PREFIXES) or public in ("html", "-/w3c/dtd html 4.0 transitional/en"):
        return True
    return not has_system and public.startswith(_QUIRKS_WITHOUT_SYSTEM_ID)
