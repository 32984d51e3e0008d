"""Site-level evidence about candidates: template text and template slots, learned without labels.

A site is built from templates. Text that the template repeats on most pages (navigation, footers,
"Add to cart") is not a page's main entity; the template slot that holds a page's main entity holds a
different text on every page. Both are counted over the candidates of all pages of one site (the
idea of Yi, Liu & Li 2003's site style tree and Lin & Ho 2002's InfoDiscoverer, applied to
candidates instead of DOM nodes):

- the *template share* of a text: the share of the site's other pages that show the same text;
- the *slot* of a candidate: its ``dom_path``, kind, font size and weight; the *slot share* is the
  share of the site's other pages with that slot, the *slot variety* the share of those pages on which
  the slot holds a text different from every other page's;
- a *label slot*: a slot on several pages whose text takes only a handful of values, some on several
  pages ("(Paperback)", "(Hardcover)" beside a book's title), or, on a large site, whose recurring
  texts fill at least half of its pages (a shop of 2000 books with 20 bindings, some beside a unique
  subtitle): it labels the entity, it is not the entity. A merged block that holds a label slot's block
  is voted on as a slot of its own (:meth:`SiteProfile.vote_slots`), so the site vote carries a title
  without its label; and a *label text*, a text a label slot holds on :data:`LABEL_MIN_PAGES` pages or
  more, is never a page's answer where the page has another candidate (the site vote's first step in
  :class:`~mainentity.recognizers.general.GeneralRecognizer`): one text on many pages is the
  template's, the entity's name differs from page to page.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from mainentity.records import TextBlock
from mainentity.text import normalize_text

#: Names of the site-level features, the column order of :meth:`SiteProfile.features`.
SITE_FEATURES = ("has_site", "template_share", "slot_share", "slot_variety")

#: A label slot is on at least this many pages ...
LABEL_MIN_PAGES = 3
#: ... and holds at most this many distinct texts, fewer than its pages (some text repeats).
LABEL_MAX_VALUES = 8
#: Suffix of the vote slot of a merged block that holds a label slot's block.
HOLDS_LABEL = "|holds label"
#: Suffix of the vote slot of a label text (a text a label slot holds on LABEL_MIN_PAGES pages or more).
IS_LABEL = "|is label"


def slot_of(candidate: TextBlock) -> str:
    """The template slot of a candidate: DOM path, kind, font size (CSS px) and weight.

    >>> slot_of(TextBlock("A", "h1", "html[0]/body[1]/h1[0]", 32.0, 700, True, 0, 0, 10, 10))
    'html[0]/body[1]/h1[0]|block|32.0|700'
    """
    return f"{candidate.dom_path}|{candidate.kind}|{candidate.font_size}|{candidate.font_weight}"


@dataclass(frozen=True)
class SiteProfile:
    """Counts over the candidates of the pages of one site (build it with :func:`site_profile`).

    Attributes
    ----------
    n_pages : int
        Pages counted.
    text_pages : dict of str to int
        Normalised candidate text -> number of pages that show it.
    slot_pages : dict of str to int
        Slot (:func:`slot_of`) -> number of pages that have it.
    slot_unique : dict of str to int
        Slot -> number of pages on which its text appears in that slot on no other page.
    title_pages : dict of str to int
        Normalised ``<title>``/meta-title segment -> number of pages whose titles have it.
    shared_title_texts : frozenset of str
        Those on the titles of two or more pages that are not near-copies of one another
        (:data:`NEAR_COPY_OVERLAP`): a whole title that several pages share names a section or the
        site, not one page ("Journal | Harbor Lane Goods" on an article and on the journal's index).
    label_slots : frozenset of str
        Slots on at least :data:`LABEL_MIN_PAGES` pages whose texts are fewer than their pages and either
        at most :data:`LABEL_MAX_VALUES` distinct ones or, on more pages, texts that recur (on two pages or
        more) on at least half of the slot's pages (module docstring).
    label_texts : frozenset of str
        ``slot + "|" + normalised text`` of each text a label slot holds on :data:`LABEL_MIN_PAGES` pages
        or more.
    """

    n_pages: int
    text_pages: dict[str, int] = field(default_factory=dict)
    slot_pages: dict[str, int] = field(default_factory=dict)
    slot_unique: dict[str, int] = field(default_factory=dict)
    title_pages: dict[str, int] = field(default_factory=dict)
    shared_title_texts: frozenset[str] = frozenset()
    label_slots: frozenset[str] = frozenset()
    label_texts: frozenset[str] = frozenset()

    @cached_property
    def site_title_segments(self) -> tuple[str, ...]:
        """Title segments on at least half of the site's pages and on two that are not copies of one page
        (:attr:`shared_title_texts`): the site's name. Computed once per profile.

        >>> SiteProfile(4, title_pages={"harbor lane goods": 4, "copper stand": 1},
        ...             shared_title_texts=frozenset({"harbor lane goods"})).site_title_segments
        ('harbor lane goods',)
        """
        if self.n_pages < 2:
            return ()
        return tuple(segment for segment, n in self.title_pages.items()
                     if 2 * n >= self.n_pages and segment in self.shared_title_texts)

    def vote_slots(self, candidates: Sequence[TextBlock], slots: Sequence[str]) -> list[str]:
        """The slots the site vote counts for one page's candidates: ``slots``, with :data:`IS_LABEL` added to
        that of each label text and :data:`HOLDS_LABEL` to that of each merged block that holds (in its DOM
        subtree) a block of a label slot.

        A book's heading "Winter Letters (Large Print)" with its format in a span of its own is then
        not in the slot of its text alone ("Winter Letters"): on a site whose pages mostly answer with
        the title alone, the vote moves a page that answered with title and format to its title. The
        vote itself is :class:`~mainentity.recognizers.general.GeneralRecognizer`'s site-level inference
        (slots after Yi, Liu & Li 2003's site style tree: presentation shared by the site's pages).

        Parameters
        ----------
        candidates : sequence of TextBlock
            One page's candidates, ``n_candidates`` of them.
        slots : sequence of str
            Their slots (:func:`slot_of`), as many.

        Returns
        -------
        vote_slots : list of str
            One per candidate, in order.

        >>> h2 = "html[0]/body[1]/h2[0]"
        >>> title = TextBlock("Winter Letters", "h2", h2, 28.0, 700, True, 0, 0, 10, 10)
        >>> fmt = TextBlock("(Paperback)", "span", h2 + "/span[0]", 16.0, 400, False, 0, 0, 10, 10)
        >>> whole = TextBlock("Winter Letters (Paperback)", "h2", h2, 28.0, 700, True, 0, 0, 10, 10, merged=True)
        >>> page = [title, fmt, whole]
        >>> profile = SiteProfile(3, label_slots=frozenset({slot_of(fmt)}))
        >>> [slot.endswith(HOLDS_LABEL) for slot in profile.vote_slots(page, list(map(slot_of, page)))]
        [False, False, True]
        """
        if not self.label_slots:
            return list(slots)
        labels = [candidate.dom_path + "/" for candidate, slot in zip(candidates, slots, strict=True)
                  if slot in self.label_slots]
        if not labels:
            return list(slots)
        return [slot + IS_LABEL if f"{slot}|{normalize_text(candidate.text)}" in self.label_texts
                else slot + HOLDS_LABEL if candidate.merged and any(path.startswith(candidate.dom_path + "/")
                                                                   for path in labels)
                else slot
                for candidate, slot in zip(candidates, slots, strict=True)]

    def features(self, candidates: Sequence[TextBlock], slots: Sequence[str] | None = None) -> np.ndarray:
        """Site-level features of one page's candidates, columns :data:`SITE_FEATURES`.

        The page itself is one of the ``n_pages`` counted; its own occurrence is discounted, so every
        feature is 0 on a site of one page (``has_site`` = 0 says there is no evidence).

        Parameters
        ----------
        candidates : sequence of TextBlock
            One page's candidates (:func:`mainentity.features.candidates.page_candidates`).
        slots : sequence of str, optional
            Their slots (:func:`slot_of`), when already known.

        Returns
        -------
        features : ndarray of shape (n_candidates, 4)
            ``has_site`` (1 when the site has other pages), ``template_share``, ``slot_share`` and
            ``slot_variety``, each in [0, 1].

        Examples
        --------
        >>> def block(text, path):
        ...     return TextBlock(text, "h1", path, 32.0, 700, True, 0, 0, 10, 10)
        >>> pages = [[block("Home", "nav"), block(f"Book {i}", "h1")] for i in range(3)]
        >>> site_profile(pages).features(pages[0]).round(2).tolist()
        [[1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0]]
        """
        out = np.zeros((len(candidates), len(SITE_FEATURES)))
        others = self.n_pages - 1
        if others < 1:
            return out
        slots = list(map(slot_of, candidates)) if slots is None else slots
        if len(slots) != len(candidates):
            raise ValueError(f"{len(slots)} slots for {len(candidates)} candidates")
        text_pages = np.array([self.text_pages.get(normalize_text(candidate.text), 1) for candidate in candidates],
                              dtype=float)
        slot_pages = np.array([self.slot_pages.get(slot, 1) for slot in slots], dtype=float)
        slot_unique = np.array([self.slot_unique.get(slot, 0) for slot in slots], dtype=float)
        out[:, 0] = 1.0
        out[:, 1] = np.maximum(text_pages - 1.0, 0.0) / others
        out[:, 2] = (slot_pages - 1.0) / others
        out[:, 3] = np.where(slot_pages > 1.0, np.maximum(slot_unique - 1.0, 0.0) / np.maximum(slot_pages - 1.0, 1.0),
                             0.0)
        return np.clip(out, 0.0, 1.0)


def site_profile(
    pages_candidates: Sequence[Sequence[TextBlock]],
    pages_slots: Sequence[Sequence[str]] | None = None,
    pages_title_segments: Sequence[Sequence[str]] = (),
) -> SiteProfile:
    """Count template texts and slots over the candidates of every page of one site.

    Parameters
    ----------
    pages_candidates : sequence of sequences of TextBlock
        The candidates of each page of the site (one inner sequence per page).
    pages_slots : sequence of sequences of str, optional
        Their slots (:func:`slot_of`), when already known.
    pages_title_segments : sequence of sequences of str, optional
        The ``<title>``/meta-title segments of each page (a segment every page repeats names the site).

    Returns
    -------
    profile : SiteProfile
        ``SiteProfile(1)``, without counts, for a site of one page.

    References
    ----------
    .. [1] Yi, Liu & Li (2003), "Eliminating noisy information in web pages for data mining", KDD
       (site style tree: presentation shared by many pages of a site is noise).
    .. [2] Lin & Ho (2002), "Discovering informative content blocks from web documents", KDD
       (InfoDiscoverer: terms that occur on most pages of a site carry no information).
    """
    if len(pages_candidates) < 2:
        # one page has nothing to be compared with: its site features are 0 (SiteProfile.features), no slot
        # can label (LABEL_MIN_PAGES), no title is shared; counting its candidates (lone pages of a crawl, a few
        # hundred each) would change none of it
        return SiteProfile(len(pages_candidates))
    text_pages: Counter[str] = Counter()
    slot_pages: Counter[str] = Counter()
    slot_texts: dict[str, Counter[str]] = defaultdict(Counter)
    if pages_slots is None:
        pages_slots = [list(map(slot_of, candidates)) for candidates in pages_candidates]
    for candidates, page_slots in zip(pages_candidates, pages_slots, strict=True):
        texts = {normalize_text(candidate.text) for candidate in candidates}
        text_pages.update(texts)
        slots: dict[str, str] = {}
        for candidate, slot in zip(candidates, page_slots, strict=True):
            slots.setdefault(slot, normalize_text(candidate.text))
        slot_pages.update(slots.keys())
        for slot, text in slots.items():
            slot_texts[slot][text] += 1
    slot_unique = {slot: sum(1 for count in texts.values() if count == 1) for slot, texts in slot_texts.items()}
    label_slots = frozenset(slot for slot, texts in slot_texts.items() if _is_label_slot(texts, slot_pages[slot]))
    label_texts = frozenset(f"{slot}|{text}" for slot in label_slots for text, count in slot_texts[slot].items()
                            if count >= LABEL_MIN_PAGES)
    holders: dict[str, list[int]] = defaultdict(list)
    for page, segments in enumerate(pages_title_segments):
        for key in {normalize_text(segment) for segment in segments}:
            holders[key].append(page)
    title_pages = {key: len(pages) for key, pages in holders.items()}
    shared = frozenset(key for key, pages in holders.items() if len(pages) > 1
                       and _distinct_pages(pages, pages_candidates) > 1)
    return SiteProfile(len(pages_candidates), dict(text_pages), dict(slot_pages), slot_unique, title_pages, shared,
                       label_slots, label_texts)


def _is_label_slot(texts: Counter[str], n_pages: int) -> bool:
    """Whether a slot whose texts (normalised text -> pages) are on ``n_pages`` pages labels the entity: on
    :data:`LABEL_MIN_PAGES` pages or more, some text on two of them, and few distinct texts
    (:data:`LABEL_MAX_VALUES` at most) or recurring texts on at least half of the pages (a count that
    grows with the site: 20 bindings over 2000 books are a label; a book title repeated once is not).

    >>> _is_label_slot(Counter({"(paperback)": 3, "(hardcover)": 1}), 4)
    True
    >>> _is_label_slot(Counter({**{f"binding {i}": 60 for i in range(20)}, **{f"t{i}": 1 for i in range(900)}}), 2100)
    True
    >>> _is_label_slot(Counter({"same book": 2, **{f"book {i}": 1 for i in range(18)}}), 20)
    False
    """
    if n_pages < LABEL_MIN_PAGES or len(texts) >= n_pages:
        return False
    return len(texts) <= LABEL_MAX_VALUES or 2 * sum(count for count in texts.values() if count >= 2) >= n_pages


#: Overlap of two pages' candidate texts (shared texts over the smaller page's texts) from which they
#: are copies of one page (the same story saved twice, once with its comments loaded): their shared
#: title is not a section's or the site's.
NEAR_COPY_OVERLAP = 0.9


def _distinct_pages(pages: Sequence[int], pages_candidates: Sequence[Sequence[TextBlock]]) -> int:
    """How many of ``pages`` are not near-copies of one another, counting up to 2 (all the caller needs:
    a count up to n would cost n^2 comparisons on a title segment every page has)."""
    distinct: list[frozenset[str]] = []
    for page in pages:
        own = frozenset(normalize_text(candidate.text) for candidate in pages_candidates[page])
        if not any(len(own & other) >= NEAR_COPY_OVERLAP * min(len(own), len(other)) for other in distinct):
            distinct.append(own)
            if len(distinct) == 2:
                break
    return len(distinct)
