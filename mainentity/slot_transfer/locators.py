"""Slot locators: where a template holds its pages' main entity, found on rendered pages, read from HTML.

The general recogniser with the site vote answers a template's pages from one template slot
(:func:`mainentity.features.site.slot_of`). :func:`fit_locators` turns the answers on a template's
rendered sample into a :class:`TemplateLocator`: for each slot the sample's answers came from, a
:class:`SlotLocator` (the candidate kind, the ``dom_path`` with the sibling indices that vary over the
sample left open, and the style the answer carries as the static reading sees it: tag, heading level,
font size and weight). A template gets a locator when every sampled page has a confident answer and the
locator, applied to each sampled page's static reading, gives exactly that page's answer. A hesitant
sample (some answers unconfident, or from slots that overlap on a page: a book's title alone on most
pages, the heading with its subtitle on some) is voted on per slot shape: the shape that more than half of
the sampled answers came from gets the locator when it reproduces each of its own pages, and its
agreement (below) counts every sampled page, so its score falls with the disagreement; pages it cannot
read are rendered, instead of the whole template.

:func:`apply_locator` reads another page of the template: the candidates of its static reading (the
same kinds as :func:`mainentity.features.candidates.page_candidates`) that a slot locator selects must
hold exactly one distinct text, carrying the slot's style, and appear in the page's titles when every
sampled answer did; otherwise there is no slot answer and the page must be rendered. On a template whose
titles name their pages (most sampled answers share a word with their page's titles), a text that shares
no word with a title that names its page is refused too: a product page whose heading slot says "Sold out"
while its ``<title>`` names the product. A title names its page when it holds a word that the sampled
titles carry only as part of their answers (:attr:`TemplateLocator.title_boilerplate`: the site's name,
"Buy", a category are not such words), so a generic title ("Harbor Lane Goods") refuses nothing.

The score of a slot answer is the mean calibrated score of the template's sampled answers (each is
the probability that the rendered answer is right, and the locator reproduced all of them) times the
estimated share of the template's pages on which the locator gives the rendered answer: each sampled
page read with the locator fitted on the others, the reproduced count ``k`` of ``n`` pages taken with a
prior of :data:`PRIOR_PAGES` pages of which a share :data:`PRIOR_AGREEMENT` agreed
(:func:`posterior_agreement`, :func:`leave_one_out_agreement`). So the score is about what rendering
would score on a sample that agrees, and falls with disagreement. ``benchmarks/slot_transfer.py``
measures the actual agreement with the rendered answers (``benchmarks/results/slot_transfer.md``).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from mainentity.features.candidates import page_candidates, page_title_segments, title_segment_candidates, title_strings
from mainentity.records import Document, ElementPath, Page, Prediction, RenderedPage, TextBlock
from mainentity.text import normalize_text, term_set

#: Calibrated score under which a sampled answer is not confident enough to build a locator on.
MIN_SCORE = 0.5

_STEP = re.compile(r"([^/\[\]]+)\[(\d+)\]")


def path_steps(dom_path: str) -> tuple[tuple[str, int], ...]:
    """``dom_path`` as ``(tag, index)`` steps; ``()`` when it is not of the ``tag[i]/...`` form.

    >>> path_steps("html[0]/body[1]/h1[0]")
    (('html', 0), ('body', 1), ('h1', 0))
    """
    steps = tuple((m.group(1), int(m.group(2))) for m in _STEP.finditer(dom_path))
    return steps if "/".join(f"{tag}[{i}]" for tag, i in steps) == dom_path else ()


@dataclass(frozen=True)
class SlotLocator:
    """One slot of a template: which candidate of a page's static reading is its main entity.

    Attributes
    ----------
    kind : str
        Candidate kind (:data:`mainentity.features.candidates.CANDIDATE_KINDS`).
    path : tuple of (str, int or None)
        ``(tag, index)`` steps of the holder's ``dom_path``; ``None`` where the index varied over the sample.
    tag : str
        The candidate's tag.
    heading_level : int
        0-6, as on every sampled answer.
    font_size : float or None
        CSS px, as the static reading saw it on every sampled answer; ``None`` when that varied (not checked).
    font_weight : int or None
        Likewise (100-900).
    n_pages : int
        Sampled pages answered from this slot.
    merged : bool
        Whether the answer is a merged block (an element's whole inline content) or a single text node:
        both have the element's path.
    """

    kind: str
    path: ElementPath
    tag: str
    heading_level: int
    font_size: float | None
    font_weight: int | None
    n_pages: int
    merged: bool = False

    def selects(self, candidate: TextBlock) -> bool:
        """Whether a candidate is in this slot and carries its style.

        >>> h1 = TextBlock("Tin Cup", "h1", "html[0]/body[1]/div[2]/h1[0]", 32.0, 700, True, 0, 0, 9, 9,
        ...                heading_level=1)
        >>> slot = SlotLocator("block", (("html", 0), ("body", 1), ("div", None), ("h1", 0)), "h1", 1, 32.0, None, 3)
        >>> slot.selects(h1), slot.selects(TextBlock("Tin", "h1", "html[0]/body[1]/h1[0]", 32.0, 700, True,
        ...                                          0, 0, 9, 9, heading_level=1))
        (True, False)
        """
        if (candidate.kind != self.kind or candidate.tag != self.tag or candidate.heading_level != self.heading_level
                or candidate.merged != self.merged
                or (self.font_size is not None and not math.isclose(candidate.font_size, self.font_size,
                                                                    rel_tol=1e-3))
                or (self.font_weight is not None and candidate.font_weight != self.font_weight)):
            return False
        steps = path_steps(candidate.dom_path)
        return len(steps) == len(self.path) and all(
            tag == want_tag and (want_index is None or index == want_index)
            for (tag, index), (want_tag, want_index) in zip(steps, self.path, strict=True))


@dataclass(frozen=True)
class TemplateLocator:
    """Where one template holds its pages' main entity (see the module docstring).

    Attributes
    ----------
    template : hashable
        The template's key (:attr:`mainentity.slot_transfer.templates.Template.key`).
    slots : tuple of SlotLocator
        One per slot the sample's answers came from (most pages first).
    score : float
        Score given to a slot answer: the mean calibrated score of the sampled answers times ``agreement``.
    in_title : bool
        Every sampled answer is a title or meta-title segment (or a whole title) of its page; a slot
        answer must then be one too.
    n_pages : int
        Sampled pages the locator was fitted and checked on.
    agreement : float
        Estimated share of the template's pages on which the locator gives the rendered answer
        (:func:`leave_one_out_agreement`).
    title_boilerplate : frozenset of str or None
        The words the sampled pages' titles hold beside their answers' words (the site's name, "Buy", a
        category); a page title with any other word names its page, and a slot answer must then share a
        word with the page's titles. ``None`` when fewer than half of the sampled answers share a word
        with their page's titles (the template's titles do not name its pages: no such check).
    """

    template: Hashable
    slots: tuple[SlotLocator, ...]
    score: float
    in_title: bool
    n_pages: int
    agreement: float = 1.0
    title_boilerplate: frozenset[str] | None = None


@dataclass(frozen=True)
class SlotAnswer:
    """A page's main entity read from its HTML through its template's locator.

    Attributes
    ----------
    site_id, path, url : str
        The page's.
    main_entity : str
        The text in the slot.
    score : float
        :attr:`TemplateLocator.score`.
    template : hashable
        The template whose locator answered.
    """

    site_id: str
    path: str
    url: str
    main_entity: str
    score: float
    template: Hashable

    def to_prediction(self) -> Prediction:
        """As a :class:`~mainentity.records.Prediction` (no box: the page was not laid out)."""
        return Prediction(self.site_id, self.path, self.url, main_entity=self.main_entity, score=self.score,
                          candidates=(self.main_entity,))


def static_candidates(static: RenderedPage) -> list[TextBlock]:
    """The candidates of a static reading a locator chooses among: visible blocks and segments, then the
    title segments they hold (:func:`~mainentity.features.candidates.title_segment_candidates`).

    Unlike :func:`~mainentity.features.candidates.page_candidates`, equal texts are not merged: a static
    reading has no boxes to tell their places apart, and a locator tells them apart by their path.
    """
    pool = [block for block in (*static.blocks, *static.segments) if not block.hidden]
    return pool + title_segment_candidates(static, pool)


def _answer_candidate(rendered: RenderedPage, prediction: Prediction) -> TextBlock | None:
    """The rendered candidate a prediction answered with: its text, in its box (no box: a title not shown)."""
    for candidate in page_candidates(rendered):
        if candidate.text != prediction.main_entity:
            continue
        box = (candidate.x, candidate.y, candidate.width, candidate.height)
        if (prediction.bbox is None and candidate.width <= 0) or box == prediction.bbox:
            return candidate
    return None


def _in_titles(text: str, static: RenderedPage) -> bool:
    return normalize_text(text) in {normalize_text(segment) for segment in page_title_segments(static)}


def _title_terms(static: RenderedPage) -> frozenset[str]:
    """The words of a page's titles (``<title>`` and meta titles)."""
    return frozenset().union(*map(term_set, title_strings(static)))


def _title_boilerplate(answers: Sequence[str], statics: Sequence[RenderedPage]) -> frozenset[str] | None:
    """:attr:`TemplateLocator.title_boilerplate` of sampled answers and their pages' static readings.

    >>> pages = [RenderedPage(f"{name} | Harbor Lane Goods", (), ()) for name in ("Tin Cup", "Oak Board")]
    >>> sorted(_title_boilerplate(["Tin Cup", "Oak Board"], pages))
    ['goods', 'harbor', 'lane']
    >>> _title_boilerplate(["Tin Cup", "Oak Board"], [RenderedPage("Shop", (), ())] * 2) is None
    True
    """
    titles = [_title_terms(static) for static in statics]
    words = [term_set(answer) for answer in answers]
    if 2 * sum(not title.isdisjoint(answer) for title, answer in zip(titles, words, strict=True)) < len(answers):
        return None
    return frozenset().union(*(title - answer for title, answer in zip(titles, words, strict=True)))


def _slot_locator(answers: Sequence[TextBlock]) -> SlotLocator:
    """The locator of the static answers of one slot shape (same kind, tag and path tags)."""
    first = answers[0]
    paths = [path_steps(answer.dom_path) for answer in answers]
    path = tuple((tag, index if all(p[k][1] == index for p in paths) else None)
                 for k, (tag, index) in enumerate(paths[0]))
    sizes = {answer.font_size for answer in answers}
    weights = {answer.font_weight for answer in answers}
    return SlotLocator(first.kind, path, first.tag, first.heading_level, sizes.pop() if len(sizes) == 1 else None,
                       weights.pop() if len(weights) == 1 else None, len(answers), first.merged)


def locate(locator: TemplateLocator, static: RenderedPage) -> str | None:
    """The one text a template locator selects in a static reading, or ``None`` (nothing, several
    distinct texts, an empty text, not in the titles when it must be, or no word of titles that name
    the page: :attr:`TemplateLocator.title_boilerplate`).

    >>> h1 = TextBlock("Tin Cup", "h1", "html[0]/body[1]/h1[0]", 32.0, 700, True, 0, 0, 9, 9, heading_level=1)
    >>> slot = SlotLocator("block", (("html", 0), ("body", 1), ("h1", 0)), "h1", 1, 32.0, 700, 3)
    >>> locator = TemplateLocator(("s", "a.html"), (slot,), 0.9, True, 3)
    >>> locate(locator, RenderedPage("Tin Cup | Shop", (), (h1,))), locate(locator, RenderedPage("Shop", (), (h1,)))
    ('Tin Cup', None)
    >>> sold_out = TextBlock("Sold out", "h1", "html[0]/body[1]/h1[0]", 32.0, 700, True, 0, 0, 9, 9, heading_level=1)
    >>> locator = TemplateLocator(("s", "a.html"), (slot,), 0.9, False, 3, title_boilerplate=frozenset({"shop"}))
    >>> [locate(locator, RenderedPage(title, (), (sold_out,))) for title in ("Tin Cup | Shop", "Shop")]
    [None, 'Sold out']
    """
    texts = {candidate.text for candidate in static_candidates(static)
             if any(slot.selects(candidate) for slot in locator.slots)}
    if len(texts) != 1:
        return None
    text = texts.pop()
    if not normalize_text(text) or (locator.in_title and not _in_titles(text, static)):
        return None
    if locator.title_boilerplate is not None:
        title = _title_terms(static)
        if title - locator.title_boilerplate and title.isdisjoint(term_set(text)):
            return None
    return text


def _static_answer(document: Document, prediction: Prediction, static: RenderedPage,
                   min_score: float) -> TextBlock | None:
    """The candidate of a sampled page's static reading that is its rendered answer (same kind, path and
    text), or ``None`` when the answer is missing, not confident or not in the static reading."""
    if (prediction.error or not prediction.main_entity or not prediction.score >= min_score
            or document.rendered is None):
        return None
    answer = _answer_candidate(document.rendered, prediction)
    if answer is None or not path_steps(answer.dom_path):
        return None
    return next((c for c in static_candidates(static) if c.kind == answer.kind and c.dom_path == answer.dom_path
                 and c.text == answer.text), None)


def _slot_shape(answer: TextBlock) -> tuple:
    """What one slot locator covers: the answer's kind, tag, heading level, merged flag and path tags."""
    return (answer.kind, answer.tag, answer.heading_level, answer.merged,
            tuple(tag for tag, _ in path_steps(answer.dom_path)))


def _locator(template: Hashable, answers: Sequence[TextBlock], predictions: Sequence[Prediction],
             statics: Sequence[RenderedPage], agreement: float = 1.0) -> TemplateLocator:
    """The locator of the static answers of some sampled pages (one slot per slot shape), unchecked."""
    groups: dict[tuple, list[TextBlock]] = defaultdict(list)
    for answer in answers:
        groups[_slot_shape(answer)].append(answer)
    slots = tuple(sorted((_slot_locator(group) for group in groups.values()), key=lambda s: -s.n_pages))
    in_title = all(_in_titles(p.main_entity, static) for p, static in zip(predictions, statics, strict=True))
    score = sum(p.score for p in predictions) / len(predictions) * agreement
    return TemplateLocator(template, slots, score, in_title, len(answers), agreement,
                           _title_boilerplate([p.main_entity for p in predictions], statics))


#: Prior of the agreement estimate, as pages: the share of a template's pages on which a locator that
#: reproduced its sample gives the rendered answer, and how many pages that belief weighs. On christianbook
#: and the sample shop the slot answers equal the rendered ones on 1005 of 1006 pages
#: (``benchmarks/results/slot_transfer.md``; on the other page the slot answer is the right one): a
#: one-sided 95% lower bound (Clopper-Pearson) of 0.995, which 0.99 stays under. The earlier 0.95 made slot
#: answers look less sure than rendering: on the shop left out of training (lodo-booksamillion, every answer
#: right) ``--render auto`` scored a mean 0.928 (ECE 0.072), rendering every page 0.958 (ECE 0.042; the
#: cross-site report's ``trust.csv``). 20 pages keep a sample of 3 from moving it far and let a large
#: sample's disagreement show. Laplace's rule (a prior of 1 of 2 pages) scored 3 of 3 at 0.8: slot answers
#: that were right looked unsure.
PRIOR_AGREEMENT = 0.99
PRIOR_PAGES = 20


def posterior_agreement(n_reproduced: int, n_pages: int) -> float:
    """The estimated share of a template's pages on which its locator gives the rendered answer, from
    ``n_reproduced`` of ``n_pages`` sampled pages reproduced: the mean of a Beta prior worth
    :data:`PRIOR_PAGES` pages at :data:`PRIOR_AGREEMENT`, updated by the sample,
    ``(k + PRIOR_AGREEMENT * PRIOR_PAGES) / (n + PRIOR_PAGES)``, a share in [0, 1]. The rule is this
    project's (the papers render every page); the prior comes from ``benchmarks/results/slot_transfer.md``.

    >>> round(posterior_agreement(3, 3), 3), round(posterior_agreement(2, 3), 3), posterior_agreement(0, 0)
    (0.991, 0.948, 0.99)
    """
    return (n_reproduced + PRIOR_AGREEMENT * PRIOR_PAGES) / (n_pages + PRIOR_PAGES)


def leave_one_out_agreement(template: Hashable, answers: Sequence[TextBlock], predictions: Sequence[Prediction],
                            statics: Sequence[RenderedPage]) -> float:
    """Estimated share of a template's pages on which a locator gives the rendered answer.

    Each sampled page is read with the locator fitted on the other sampled pages; with ``k`` of ``n``
    pages reproduced, the estimate is :func:`posterior_agreement` (3 of 3 gives 0.991, 2 of 3 0.948).

    >>> import dataclasses
    >>> slot = TextBlock("Tin Cup", "h1", "html[0]/body[1]/h1[0]", 32.0, 700, True, 0, 0, 9, 9, heading_level=1)
    >>> pages = [RenderedPage(f"Cup {i}", (), (dataclasses.replace(slot, text=f"Cup {i}"),)) for i in range(3)]
    >>> answers = [page.blocks[0] for page in pages]
    >>> predictions = [Prediction("s", f"{i}", "", f"Cup {i}", 0.9) for i in range(3)]
    >>> round(leave_one_out_agreement("t", answers, predictions, pages), 3)
    0.991
    """
    n_reproduced = 0
    for i, (prediction, static) in enumerate(zip(predictions, statics, strict=True)):
        others = [k for k in range(len(answers)) if k != i]
        if others:
            locator = _locator(template, [answers[k] for k in others], [predictions[k] for k in others],
                               [statics[k] for k in others])
            n_reproduced += locate(locator, static) == prediction.main_entity
    return posterior_agreement(n_reproduced, len(answers))


def fit_template_locator(template: Hashable, documents: Sequence[Document], predictions: Sequence[Prediction],
                         statics: Sequence[RenderedPage], min_score: float = MIN_SCORE) -> TemplateLocator | None:
    """The locator of one template from its rendered sample: one that reproduces every sampled answer, else
    that of the slot shape most sampled answers came from (:func:`majority_locator`), else ``None`` (see
    :func:`fit_locators`)."""
    if not documents or len(predictions) != len(documents) or len(statics) != len(documents):
        return None
    answers = [_static_answer(*page, min_score) for page in zip(documents, predictions, statics, strict=True)]
    if all(answer is not None for answer in answers):
        locator = _locator(template, answers, predictions, statics)
        if all(locate(locator, static) == p.main_entity for p, static in zip(predictions, statics, strict=True)):
            return _locator(template, answers, predictions, statics,
                            leave_one_out_agreement(template, answers, predictions, statics))
    return majority_locator(template, answers, predictions, statics)


def majority_locator(template: Hashable, answers: Sequence[TextBlock | None], predictions: Sequence[Prediction],
                     statics: Sequence[RenderedPage]) -> TemplateLocator | None:
    """The locator of a hesitant sample: fitted on the sampled answers of the slot shape most of them came
    from, when those are more than half of the sample and it reproduces each of them.

    Its agreement counts every sampled page: each is read with the locator fitted on the majority's other
    pages, and ``k`` of the ``n`` sampled pages reproduced give :func:`posterior_agreement` (as
    :func:`leave_one_out_agreement`), so a sample that disagrees lowers the slot answers' score.

    Parameters
    ----------
    template : hashable
        The template's key.
    answers : sequence of TextBlock or None
        Each sampled page's answer in its static reading (``None``: no confident answer there).
    predictions, statics : sequence
        Each sampled page's rendered prediction and static reading, as many.

    Returns
    -------
    locator : TemplateLocator or None
        ``None`` without a majority shape, or when its locator misses one of its own pages.

    >>> import dataclasses
    >>> h1 = TextBlock("Cup 0", "h1", "html[0]/body[1]/h1[0]", 32.0, 700, True, 0, 0, 9, 9, heading_level=1)
    >>> pages = [RenderedPage(f"Cup {i}", (), (dataclasses.replace(h1, text=f"Cup {i}"),)) for i in range(4)]
    >>> predictions = [Prediction("s", f"{i}", "", f"Cup {i}", 0.9) for i in range(3)]
    >>> predictions.append(Prediction("s", "3", "", "Cups on sale", 0.9))  # the fourth page answered elsewhere
    >>> answers = [*(page.blocks[0] for page in pages[:3]), None]
    >>> locator = majority_locator("t", answers, predictions, pages)
    >>> locator.n_pages, round(locator.agreement, 3)  # 3 of the 4 sampled pages: (3 + 19.8) / (4 + 20)
    (3, 0.95)
    >>> majority_locator("t", [answers[0], None, None, None], predictions, pages) is None
    True
    """
    shapes: dict[tuple, list[int]] = defaultdict(list)
    for i, answer in enumerate(answers):
        if answer is not None:
            shapes[_slot_shape(answer)].append(i)
    if not shapes:
        return None
    chosen = max(shapes.values(), key=lambda pages: (len(pages), -pages[0]))
    if 2 * len(chosen) <= len(answers):
        return None

    def fitted(pages: Sequence[int], agreement: float = 1.0) -> TemplateLocator:
        return _locator(template, [answers[i] for i in pages], [predictions[i] for i in pages],
                        [statics[i] for i in pages], agreement)

    locator = fitted(chosen)
    if any(locate(locator, statics[i]) != predictions[i].main_entity for i in chosen):
        return None
    n_reproduced = 0
    for i in range(len(answers)):
        others = [k for k in chosen if k != i]
        if others:
            n_reproduced += locate(fitted(others), statics[i]) == predictions[i].main_entity
    return fitted(chosen, posterior_agreement(n_reproduced, len(answers)))


def fit_locators(
    templates: Mapping[Hashable, Sequence[Document]],
    predictions: Mapping[tuple[str, str], Prediction],
    statics: Mapping[tuple[str, str], RenderedPage] | None = None,
    *,
    min_score: float = MIN_SCORE,
) -> dict[Hashable, TemplateLocator]:
    """Fit a locator for each template from its rendered sample and the general recogniser's answers.

    Parameters
    ----------
    templates : mapping of template key to sequence of Document
        Each template's rendered sampled documents.
    predictions : mapping of (site_id, path) to Prediction
        The general recogniser's predictions on the sample (with the site vote, over the site's sample).
    statics : mapping of (site_id, path) to RenderedPage, optional
        The static readings of the sampled pages (:func:`mainentity.render.static.read_static`); the
        locator's style is taken from them and it must reproduce every answer on them; a template with a
        sampled page missing here gets no locator. Default: the documents' renderings (the renderer's
        reading stands for the static one).
    min_score : float, default :data:`MIN_SCORE`
        A template with a sampled answer scored below this (or with no answer) gets no locator.

    Returns
    -------
    locators : dict of template key to TemplateLocator
        Only the templates that got one.

    Raises
    ------
    KeyError
        If a sampled page has no prediction.
    """
    locators = {}
    for key, documents in templates.items():
        keys = [(document.page.site_id, document.page.path) for document in documents]
        page_statics = [statics.get(k) if statics is not None else document.rendered
                        for k, document in zip(keys, documents, strict=True)]
        if any(static is None for static in page_statics):
            continue
        locator = fit_template_locator(key, documents, [predictions[k] for k in keys], page_statics, min_score)
        if locator is not None:
            locators[key] = locator
    return locators


def apply_locator(locator: TemplateLocator, page: Page, static: RenderedPage) -> SlotAnswer | None:
    """A page's main entity from its static reading through its template's locator (:func:`locate`).

    Parameters
    ----------
    locator : TemplateLocator
        The locator of the page's template.
    page : Page
    static : RenderedPage
        The page's static reading.

    Returns
    -------
    answer : SlotAnswer or None
        ``None`` when the locator finds nothing, several texts, an empty text, a text without the
        slot's style, when every sampled answer was in its page's titles one that is not, or one that
        shares no word with titles that name the page (:attr:`TemplateLocator.title_boilerplate`): the
        page must be rendered.
    """
    text = locate(locator, static)
    if text is None:
        return None
    return SlotAnswer(page.site_id, page.path, page.url, text, locator.score, locator.template)
