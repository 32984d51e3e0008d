"""Main-entity candidates finer and coarser than a text block, each with its box.

The paper's text blocks (Carullo & Binaghi 2010, section 3.4.2) are whole text nodes or whole inline
merges, so a label that no block holds whole cannot be answered: a title whose heading also holds a
smaller format note (``<h2>Title<span class="sub"> (Paperback)</span></h2>``), a headline whose
first letter is a drop cap, a headline split over block elements, or a ``<title>`` segment. The
candidates of a page are:

- ``block``: its visible text blocks (merged blocks included), as the MS-RBFN sees them;
- ``run``, ``visible``, ``heading``: the renderer's segments (:attr:`RenderedPage.segments`: style
  runs inside a merged block, a merged block's visible text, a whole heading element);
- ``lines``: text set as separate lines that continue one another (a PDF or slide deck shown as HTML,
  pdf2htmlEX style, every line an absolutely positioned element), joined with a space
  (:func:`line_candidates`);
- ``title``: the segments of the ``<title>`` and meta titles (Gali & Fränti 2016, TTA segmentation)
  that appear in the page's visible text, with the box of the smallest visible block that holds them,
  and each whole title the page does not show, with an empty box.

Script source shown as text (a ``document.write`` fragment, an inline event handler: :func:`is_script_text`)
is never a candidate, in either reader. Duplicates (same normalised text at the same place) are kept
once, the first in that order. The place is the box's top-left corner; on a page read without layout
(boxes ``nan``, :func:`mainentity.render.static.read_static`) it is the element's ``dom_path`` instead,
so texts at different places are never merged for want of a box.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence

from mainentity.features.anchortext import dice_matrix
from mainentity.features.name_text import name_text
from mainentity.features.title_segments import split_title
from mainentity.records import RenderedPage, TextBlock
from mainentity.text import is_word_char, normalize_text, tokenize

#: Candidate kinds, in the order candidates are listed (``block`` includes merged blocks).
CANDIDATE_KINDS = ("block", "lines", "run", "visible", "heading", "title")

#: Positioned lines: at most this many lines make one text (a title set over lines, not a paragraph).
MAX_JOINED_LINES = 4

#: At most this many parts of a ``<title>`` the page does not show are offered (the five shared datasets'
#: titles have at most 6); each is compared with every block, so a title of a thousand parts would cost
#: seconds.
MAX_UNSHOWN_PARTS = 8

_HAS_WORD = re.compile(r"\w")
#: Marks of script source: a ``script`` tag (``<\/SCRIPT>`` as written inside a script), a comment that hides
#: a script from old browsers (``<!--``, ``//-->``), a string concatenated with a variable
#: (``'?' + OAS_query + '"``), a call that writes or navigates, an inline event handler or ``javascript:`` URL
#: calling a function, and a string argument closing a statement (``');``).
_SCRIPT_MARKS = tuple(re.compile(mark, re.IGNORECASE) for mark in (
    r"<\\?/?\s*script\b",
    r"<!--|//\s*-->",
    r"['\"]\s*\+\s*[a-z_$][\w$.\[\]]*\s*\+\s*['\"]",
    r"\b(?:document\.write(?:ln)?|window\.open)\s*\(|\b(?:window|document)\.location(?:\.href)?\s*=",
    r"\bon[a-z]{4,}\s*=\s*['\"]?\s*[\w$.]+\s*\(|\bjavascript:\s*[\w$.]+\s*\(",
    r"['\"]\s*\)\s*;",
))
#: Characters one of which each of :data:`_SCRIPT_MARKS` holds.
_SCRIPT_CHARACTERS = re.compile(r"[<>'\"(=]")
#: The heading elements' tags.
HEADING_TAGS = frozenset(f"h{level}" for level in range(1, 7))


def _place(candidate: TextBlock) -> tuple[int, int] | str:
    """Where a candidate is, for duplicate detection: its box's top-left corner rounded to the CSS px, or
    its ``dom_path`` when the box is not finite (a page read without layout).

    >>> _place(TextBlock("A", "h1", "html[0]/body[1]/h1[0]", 32, 700, True, 8.4, 20.6, 10, 10))
    (8, 21)
    >>> _place(TextBlock("A", "h1", "html[0]/body[1]/h1[0]", 32, 700, True, *[float("nan")] * 4))
    'html[0]/body[1]/h1[0]'
    """
    if math.isfinite(candidate.x) and math.isfinite(candidate.y):
        return round(candidate.x), round(candidate.y)
    return candidate.dom_path


def is_script_text(text: str) -> bool:
    """Whether a text is script source shown as text (two or more of the marks of script source).

    Old pages write their ads with ``document.write`` inside comments that hide the script from old
    browsers; a page whose markup breaks the ``<script>`` element shows that source as text, often in a
    large bold block beside the headline. One mark alone (a headline about ``<script>`` tags, a
    ``javascript:`` link) is not enough: the marks are a ``script`` tag (``<\\/SCRIPT>``), a hiding comment
    (``<!--``, ``//-->``), a string concatenated with a variable, a call that writes or navigates
    (``document.write(``, ``window.open``), an inline event handler or ``javascript:`` URL calling a
    function, and a string argument that closes a statement (``');``). The rule is this project's (the
    2008 news page of issue 37), not the papers'.

    Parameters
    ----------
    text : str
        A candidate's text.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_script_text("Storm closes bridge'?' + OAS_query + '\\"><\\\\/SCRIPT>'); //-->")
    True
    >>> is_script_text("onclick=\\"window.open('/poll.html', 'poll'); return false;\\"")
    True
    >>> is_script_text("Why document.write is slow"), is_script_text("Storm closes bridge")
    (False, False)
    """
    if not _SCRIPT_CHARACTERS.search(text):  # every mark holds one of them: most texts end here
        return False
    return sum(1 for mark in _SCRIPT_MARKS if mark.search(text)) >= 2


def title_strings(rendered: RenderedPage) -> list[str]:
    """The page's titles: ``<title>`` then the meta titles (og:title, title, twitter:title), non-empty.

    >>> title_strings(RenderedPage("A | Shop", (("og:title", "A"),), ()))
    ['A | Shop', 'A']
    """
    return [title for title in (rendered.title, *rendered.meta_titles) if title]


def page_title_segments(rendered: RenderedPage) -> list[str]:
    """Each title (:func:`title_strings`) followed by its segments (:func:`split_title`), each text once.

    >>> page_title_segments(RenderedPage("Tin | Harbor Lane", (("og:title", "Tin"),), ()))
    ['Tin | Harbor Lane', 'Tin', 'Harbor Lane']
    """
    return list(dict.fromkeys(piece for title in title_strings(rendered) for piece in _with_segments(title)))


def _with_segments(title: str, inner: bool = True) -> list[str]:
    """A title followed by its segments (:func:`split_title`), each once."""
    return list(dict.fromkeys([title, *split_title(title, inner=inner)]))


def title_segment_candidates(rendered: RenderedPage, blocks: list[TextBlock],
                             names: Sequence[str] = ()) -> list[TextBlock]:
    """Title and meta-title segments, and the names of the page's structured data, as candidates of kind
    ``title``.

    Each whole title and each of its segments (:func:`split_title`) is looked up in the normalised
    texts of ``blocks``; when one holds it, the candidate takes the style and box of the shortest such
    block (the tightest place a person sees it). A whole title that no block holds is a candidate too,
    with an empty box and font size 0 (pages whose only statement of their topic is the title tag), and
    so are its parts (``split_title(title, inner=False)``, the first :data:`MAX_UNSHOWN_PARTS`) up to the
    first one the page shows, in these or other words (:func:`_shown_in_other_words`): the headline part
    of "Headline - News - City, ST" where the page shows the headline nowhere, but not the title's SEO
    wording of a visible heading, nor the tagline after a home page's shown name ("Harbor Lane Goods -
    Homewares, garden and stationery"). Each of ``names`` is a candidate only where a block holds it (a
    recipe's ``Recipe.name`` "Lemon Tart" inside its heading "Lemon Tart (Easy 5-Ingredient Recipe)"):
    structured data that the page does not show is no answer.

    Parameters
    ----------
    rendered : RenderedPage
        The page, for its titles.
    blocks : list of TextBlock
        The blocks to look in (the page's visible blocks and segments).
    names : sequence of str, optional
        The page's structured-data names (:func:`mainentity.features.jsonld.jsonld_titles`).

    Returns
    -------
    candidates : list of TextBlock
        One per distinct segment found, ``kind="title"``, in title order.

    Examples
    --------
    >>> h1 = TextBlock("Know Your Bible (Paperback)", "h1", "html[0]/body[1]/h1[0]", 32, 700, True, 8, 8, 400, 37)
    >>> [(c.text, c.width) for c in title_segment_candidates(RenderedPage("Know Your Bible - Shop", (), ()), [h1])]
    [('Know Your Bible - Shop', 0.0), ('Know Your Bible', 400)]
    >>> [c.text for c in title_segment_candidates(RenderedPage("Tin Roof Reopens - News - Salem, OR", (), ()), [h1])]
    ['Tin Roof Reopens - News - Salem, OR', 'Tin Roof Reopens', 'News', 'Salem, OR']
    >>> seo = RenderedPage("Know Your Bible by Ann Lee (Paperback) - Shop", (), ())
    >>> [c.text for c in title_segment_candidates(seo, [h1])]
    ['Know Your Bible by Ann Lee (Paperback) - Shop']
    """
    normalized = [normalize_text(block.text) for block in blocks]
    all_texts = "\n".join(normalized)  # normalised texts hold no newline: one test rules out most segments
    found: list[TextBlock] = []
    seen: set[str] = set()
    lookups = [(title, segment) for title in title_strings(rendered) for segment in _with_segments(title)]
    for title, segment in [*lookups, *((None, name) for name in names)]:
        key = normalize_text(segment)
        if not key or key in seen or not _HAS_WORD.search(key):
            continue
        seen.add(key)
        holders = [i for i, text in enumerate(normalized) if key in text] if key in all_texts else []
        if holders:
            block = blocks[min(holders, key=lambda i: len(normalized[i]))]
            found.append(dataclasses.replace(block, text=segment, hidden=False, merged=False, kind="title"))
        elif segment == title:  # a whole title the page does not show: no box, and its parts neither
            found.append(_unshown(title))
            parts = _with_segments(title, inner=False)[1 : 1 + MAX_UNSHOWN_PARTS]
            for part, reworded in zip(parts, _shown_in_other_words(parts, blocks), strict=True):
                part_key = normalize_text(part)
                if part_key in all_texts or reworded:
                    break  # what follows a part the page shows is its description or suffix
                if part_key not in seen and _balanced(part):
                    seen.add(part_key)
                    found.append(_unshown(part))
    return found


#: Where a candidate of a title's text that the page does not show points (the ``<title>`` element).
UNSHOWN_PATH = "html[0]/head[0]/title[0]"


def _unshown(text: str) -> TextBlock:
    """A candidate of a title's text that the page does not show: no box, font size 0."""
    return TextBlock(text, "title", UNSHOWN_PATH, 0.0, 400, False, 0.0, 0.0, 0.0, 0.0, kind="title")


def is_unshown_title(candidate: TextBlock) -> bool:
    """Whether a candidate is a title's (or meta title's) text that the page shows nowhere.

    >>> is_unshown_title(_unshown("Storm closes the bridge - Daily"))
    True
    >>> h1 = TextBlock("Storm closes the bridge", "h1", "html[0]/body[1]/h1[0]", 32, 700, True, 8, 8, 400, 37)
    >>> is_unshown_title(h1)
    False
    """
    return candidate.kind == "title" and candidate.dom_path == UNSHOWN_PATH


def _balanced(text: str) -> bool:
    """Whether every bracket the text opens it closes: a title cut inside brackets ("... (Paperback - Revised
    Ed.)") gives no part of its own."""
    return all(text.count(opening) == text.count(closing) for opening, closing in ("()", "[]", "{}"))


def _shown_in_other_words(parts: list[str], blocks: list[TextBlock]) -> list[bool]:
    """Whether the page shows the name each of a title's ``parts`` states in other words: a block that shares
    most of its words (token Dice >= 0.6: a reworded headline, "Deadly Desire (Mass Market Paperback)" for
    "Deadly Desire by Keri Arthur (Mass Market Paperback)"), or a heading whose words the part starts with
    ("Stuff" for "Stuff by Randy O. Frost; Gail Steketee (Hardcover)"; not "Ban" for "Bank robbery ...").
    The blocks' words are read once for all parts."""
    if not parts or not blocks:
        return [False] * len(parts)
    headings = [words for block in blocks if block.heading_level and (words := tokenize(block.text))]
    best_dice = dice_matrix(parts, list(dict.fromkeys(block.text for block in blocks))).max(axis=1)  # each text once
    return [bool(dice >= 0.6) or any(tokenize(part)[:len(words)] == words for words in headings)
            for part, dice in zip(parts, best_dice, strict=True)]


def _line_units(blocks: list[TextBlock]) -> list[TextBlock]:
    """The blocks a person reads as lines: each merged block in place of the blocks it merges."""
    units: list[TextBlock] = []
    for block in blocks:
        if block.merged:
            prefix = block.dom_path + "/"
            while units and (units[-1].dom_path == block.dom_path or units[-1].dom_path.startswith(prefix)):
                units.pop()
        units.append(block)
    return units


def _continues(line: TextBlock, after: TextBlock) -> bool:
    """Whether ``after`` is the next line of the text ``line`` ends: same font size and weight, not a
    link, the same left edge (within 2 CSS px), a box of about the same height (within 25%) starting one
    line lower (0.8 to 1.6 of the line's height below its top)."""
    if (after.font_size, after.font_weight, after.in_link, after.heading_level) != (
            line.font_size, line.font_weight, line.in_link, line.heading_level) or line.in_link:
        return False
    if not (abs(after.x - line.x) <= 2.0 and line.height > 0 and abs(after.height - line.height) <= 0.25 * line.height):
        return False
    return 0.8 * line.height <= after.y - line.y <= 1.6 * line.height


def _line_runs(blocks: list[TextBlock]) -> list[list[TextBlock]]:
    """The runs of two to :data:`MAX_JOINED_LINES` lines of one text (see :func:`line_candidates`)."""
    units = [unit for unit in _line_units(blocks) if math.isfinite(unit.y)]
    if not units:
        return []
    chars: dict[float, int] = {}
    for unit in units:
        chars[unit.font_size] = chars.get(unit.font_size, 0) + len(unit.text)
    body_size = max(chars, key=chars.__getitem__)
    runs, start = [], 0
    while start < len(units):
        end = start + 1
        while end < len(units) and _continues(units[end - 1], units[end]):
            end += 1
        if 2 <= end - start <= MAX_JOINED_LINES and units[start].font_size > body_size:
            runs.append(units[start:end])
        start = end
    return runs


def _joined(lines: list[TextBlock]) -> TextBlock:
    """One candidate of the lines: the first line's style, the union of their boxes, the deepest element
    that holds them all as its ``dom_path``, merged (the lines are its parts)."""
    paths = [line.dom_path.split("/") for line in lines]
    common = 0
    while all(len(path) > common and path[common] == paths[0][common] for path in paths):
        common += 1
    right = max(line.x + line.width for line in lines)
    bottom = lines[-1].y + lines[-1].height
    return dataclasses.replace(lines[0], text=" ".join(line.text for line in lines),
                               dom_path="/".join(paths[0][:common]), width=right - lines[0].x,
                               height=bottom - lines[0].y, merged=True, kind="lines")


def line_candidates(blocks: list[TextBlock]) -> list[TextBlock]:
    """Lines of one text joined: a title set over positioned lines (pdf2htmlEX style).

    Consecutive visible blocks (a merged block standing for its parts) that continue one another (same
    font size and weight, same left edge, about the same height, one line-height apart) and are larger
    than the page's body text (the font size that holds the most characters) are joined with a space,
    two to :data:`MAX_JOINED_LINES` lines; longer runs are paragraphs. Pages without boxes (read
    statically) have none.

    Parameters
    ----------
    blocks : list of TextBlock
        The page's visible blocks in document order (boxes in CSS px).

    Returns
    -------
    candidates : list of TextBlock
        ``kind="lines"``, ``merged``, the style of the first line, the union of the lines' boxes and the
        ``dom_path`` of the deepest element that holds them all.

    Examples
    --------
    >>> rows = [("Quarterly Review", 40, 100), ("of the Northern Fleet", 40, 148), ("The fleet grew. " * 9, 16, 300)]
    >>> blocks = [TextBlock(t, "div", f"html[0]/body[1]/div[{i}]", size, 400, False, 50, y, 300, size * 1.2)
    ...           for i, (t, size, y) in enumerate(rows)]
    >>> [(c.text, c.dom_path, c.height) for c in line_candidates(blocks)]
    [('Quarterly Review of the Northern Fleet', 'html[0]/body[1]', 96.0)]
    """
    return [_joined(lines) for lines in _line_runs(blocks)]


def _with_lines(blocks: list[TextBlock]) -> list[TextBlock]:
    """The blocks with each :func:`line_candidates` candidate right after its last line (as a merged
    block comes right after its parts)."""
    after = {id(lines[-1]): _joined(lines) for lines in _line_runs(blocks)}
    if not after:
        return blocks
    out = []
    for block in blocks:
        out.append(block)
        if id(block) in after:
            out.append(after[id(block)])
    return out


#: Elements that hold a ruby base: the text a ruby annotation is set over (HTML, "The ruby element").
_RUBY_BASES = frozenset({"ruby", "rb"})


def _without_ruby_fragments(blocks: Sequence[TextBlock]) -> list[TextBlock]:
    """The blocks without the text nodes that a ruby base splits out of one merged text.

    In ``<h1><ruby>子<rt>こ</rt></ruby>どもへの支援</h1>`` the base 子 and the text node どもへの支援 are
    each a text block (Carullo & Binaghi 2010, section 3.4.2: a text node is a block), but neither is a word
    of its own: 子ども is one word, set with furigana over its kanji. Where the element holding a ruby base
    is merged (its whole text 子どもへの支援 is a block), its own text nodes and its ruby bases are left out;
    a ruby alone in its element stays a block. The rule is this project's (issue 33's ruby kind).

    >>> base = TextBlock("子", "ruby", "h1[0]/ruby[0]", 30, 700, True, 8, 8, 30, 36)
    >>> rest = TextBlock("どもへの支援", "h1", "h1[0]", 30, 700, True, 38, 8, 180, 36)
    >>> whole = TextBlock("子どもへの支援", "h1", "h1[0]", 30, 700, True, 8, 8, 210, 36, merged=True)
    >>> [block.text for block in _without_ruby_fragments([base, rest, whole])]
    ['子どもへの支援']
    >>> [block.text for block in _without_ruby_fragments([base])]
    ['子']
    """
    merged = {block.dom_path for block in blocks if block.merged}
    holders = {holder for block in blocks if block.tag in _RUBY_BASES and not block.merged
               for holder in [_ruby_holder(block.dom_path)] if holder in merged}
    return [block for block in blocks if block.merged or not (
        (block.tag in _RUBY_BASES and _ruby_holder(block.dom_path) in holders) or block.dom_path in holders)]


def _ruby_holder(dom_path: str) -> str:
    """The ``dom_path`` of the element a ruby base's block sits in: its path before the first ruby step."""
    return re.split(r"/(?:ruby|rb)\[", dom_path, maxsplit=1)[0]


def _without_initial_letters(blocks: Sequence[TextBlock]) -> list[TextBlock]:
    """The blocks and segments without the drop caps: a one-letter text whose element, or an element
    holding it, has a merged text (its whole text, the letter's included) that starts with that letter
    and goes on with the same word.

    A headline set with a large floated first letter (``<h2><span class="cap">A</span>n old ferry
    ...</h2>``) splits into the letter, in the largest font of the page, and the rest of the word: the
    letter alone is no name. A one-letter word ("A new route") is followed by a space and stays, and so
    does a one-letter name beside an element's own text that starts with its letter (``<div><h1>Q</h1>
    Quebec, 2011 ...</div>``: that text node is not the element's whole text). The
    rule is this project's (issue 33: a heading split into spans).

    >>> cap = TextBlock("A", "span", "h2[0]/span[0]", 84, 700, True, 8, 8, 50, 84)
    >>> rest = TextBlock("n old ferry", "h2", "h2[0]", 36, 700, True, 60, 8, 300, 44)
    >>> whole = TextBlock("An old ferry", "h2", "h2[0]", 36, 700, True, 8, 8, 352, 84, merged=True)
    >>> [block.text for block in _without_initial_letters([cap, rest, whole])]
    ['n old ferry', 'An old ferry']
    >>> word = dataclasses.replace(whole, text="A new route")
    >>> [block.text for block in _without_initial_letters([cap, word])]
    ['A', 'A new route']
    >>> [block.text for block in _without_initial_letters([cap, dataclasses.replace(rest, text="An old")])]
    ['A', 'An old']
    """
    texts_at: dict[str, list[str]] = {}
    for block in blocks:
        if block.merged:
            texts_at.setdefault(block.dom_path, []).append(block.text.strip())

    def is_drop_cap(block: TextBlock) -> bool:
        letter = block.text.strip()
        if len(letter) != 1 or not is_word_char(letter):
            return False
        path = block.dom_path
        while path:
            if any(len(text) > 1 and text[0] == letter and is_word_char(text[1]) for text in texts_at.get(path, ())):
                return True
            path = path.rpartition("/")[0]
        return False

    return [block for block in blocks if not is_drop_cap(block)]


def page_candidates(rendered: RenderedPage, names: Sequence[str] = ()) -> list[TextBlock]:
    """All main-entity candidates of a rendered page, in :data:`CANDIDATE_KINDS` order (joined lines right
    after their last line, among the blocks).

    Hidden blocks and segments are left out unless nothing on the page is visible (then all blocks are
    taken, as :func:`mainentity.recognizers.msrbfn.page_features` does); texts without a letter or
    digit, script source shown as text (:func:`is_script_text`) and drop caps
    (:func:`_without_initial_letters`) are left out. Each text is read as a
    name (:func:`mainentity.features.name_text.name_text`: mojibake repaired, invisible format characters
    and decorative marks at its ends taken out).

    Parameters
    ----------
    rendered : RenderedPage
    names : sequence of str, optional
        The page's structured-data names (:func:`mainentity.features.jsonld.jsonld_titles`), candidates
        where the page shows them (:func:`title_segment_candidates`).

    Returns
    -------
    candidates : list of TextBlock
        Their ``kind`` says where each comes from; empty only when the page has no text.

    Examples
    --------
    >>> h2 = TextBlock("Title", "h2", "p", 24, 700, True, 8, 8, 60, 28)
    >>> sub = TextBlock("(Paperback)", "span", "p/span[0]", 14, 400, False, 70, 14, 80, 16)
    >>> both = TextBlock("Title (Paperback)", "h2", "p", 24, 700, True, 8, 8, 142, 28, merged=True)
    >>> [(c.kind, c.text) for c in page_candidates(RenderedPage("Title | Shop", (), (h2, sub, both)))]
    [('block', 'Title'), ('block', '(Paperback)'), ('block', 'Title (Paperback)'), ('title', 'Title | Shop')]
    """
    visible = [block for block in rendered.blocks if not block.hidden]
    blocks = _without_ruby_fragments(_with_lines(visible) if visible else list(rendered.blocks))
    segments = [segment for segment in rendered.segments if not segment.hidden]
    pool = _without_initial_letters(blocks + segments)
    candidates: list[TextBlock] = []
    seen: set[tuple[str, tuple[int, int] | str]] = set()
    for candidate in pool + title_segment_candidates(rendered, pool, names):
        text = name_text(candidate.text)
        key = (normalize_text(text), _place(candidate))
        if key in seen or not _HAS_WORD.search(key[0]) or is_script_text(candidate.text):
            continue
        seen.add(key)
        candidates.append(candidate if text == candidate.text else dataclasses.replace(candidate, text=text))
    return candidates


def is_heading_part(rendered: RenderedPage, text: str) -> bool:
    """Whether ``text`` is shown as a strict part of a heading element's text (an ``h1``-``h6`` block or
    segment whose ``dom_path`` is the holder's or an ancestor's, and whose normalised text is longer), and
    is no heading's whole text anywhere on the page.

    Whether such a part is a line of a heading set over several lines (a display headline's first line:
    not the title) or a piece beside the rest on one line (a title beside a format note) is layout: a
    page read without it (:func:`mainentity.render.static.read_static`) cannot tell, so an answer that
    is such a part must be rendered (:mod:`mainentity.render_few`). A text that is also a whole heading
    elsewhere (a headline in its ``h1``, repeated in a smaller heading after a section's name or before
    "Back to video") is stated whole, not a line of one. The rule is this project's, not the papers' (the
    made-up essay pages of ``tests/test_cases.py``).

    Parameters
    ----------
    rendered : RenderedPage
        The page's reading: its blocks and segments (boxes are not used).
    text : str
        A candidate text, compared normalised (:func:`mainentity.text.normalize_text`).

    Returns
    -------
    bool

    Examples
    --------
    >>> first = TextBlock("Winter Orchards", "span", "html[0]/body[1]/h1[0]/span[0]", 44, 400, False,
    ...                   *[float("nan")] * 4, heading_level=1)
    >>> both = TextBlock("Winter Orchards and the Growers", "h1", "html[0]/body[1]/h1[0]", 44, 400, False,
    ...                  *[float("nan")] * 4, heading_level=1)
    >>> page = RenderedPage("Winter Orchards | Longform Quarterly", (), (first, both))
    >>> is_heading_part(page, "Winter Orchards"), is_heading_part(page, "Winter Orchards and the Growers")
    (True, False)
    >>> whole = TextBlock("Winter Orchards", "h2", "html[0]/body[1]/h2[0]", 24, 700, True, *[float("nan")] * 4,
    ...                   heading_level=2)
    >>> is_heading_part(RenderedPage(page.title, (), (first, both, whole)), "Winter Orchards")
    False
    """
    key = normalize_text(text)
    shown = [(block, normalize_text(block.text)) for block in (*rendered.blocks, *rendered.segments)
             if not block.hidden]
    headings: dict[str, str] = {}  # a heading's path -> its whole text (a style run in it has the same path)
    for block, normalized in shown:
        if block.tag in HEADING_TAGS and len(normalized) > len(headings.get(block.dom_path, "")):
            headings[block.dom_path] = normalized
    if key in headings.values():
        return False
    for holder, normalized in shown:
        if normalized != key:
            continue
        path = holder.dom_path
        while path:
            whole = headings.get(path, "")
            if key in whole and len(whole) > len(key):
                return True
            path = path.rpartition("/")[0]
    return False
