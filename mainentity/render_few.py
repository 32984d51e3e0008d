"""Render few, read many: answer a batch of pages rendering only those whose HTML does not settle them.

The ``auto`` render policy of the one predict path (:func:`mainentity.pipeline.predict_pages`). Each
site of the batch is answered in one of two ways, and every prediction says which
(:attr:`mainentity.records.Prediction.answered_by`):

- a site of at least ``min_site_pages`` pages goes through slot transfer
  (:func:`mainentity.slot_transfer.transfer_site`): a sample of each of its templates is rendered and
  predicted with the site vote, each template's winning slot becomes a static locator, and the other
  pages are read from their HTML (``"slot"``); a page the locator cannot read is rendered
  (``"rendered"``);
- the pages of a smaller site are read statically (:func:`mainentity.render.static.read_static`) and
  answered by the static model when one is given; an answer whose calibrated score reaches
  ``static_threshold``, or whose lead over the runner-up reaches ``static_margin``, stands (``"static"``),
  unless it is a strict part of a heading's text, which only layout tells a line of a headline set over
  two lines from a title beside a note
  (:func:`~mainentity.features.candidates.is_heading_part`); the others are rendered and predicted
  together with the site's other rendered pages (``"rendered"``), the site's profile counted over the
  static readings of its statically answered pages too when the predict path can (``predict_beside``).

A page of a small site whose rendering the render cache holds already (a crawl re-read after a model
update, pages that ``evaluate`` or ``--render always`` rendered) is not read statically: its rendering costs
a file read, less than the static reading, and gives the answer of ``--render always``. A larger site goes
through slot transfer however much of it is cached (its cached samples cost no Chromium): reading its pages
through the locator costs less than reading their cached renderings, and its answers are as good
(``benchmarks/results/render_cost.md``).

The stages arrive as arguments (how pages are rendered into documents, how documents are predicted,
how a page is read statically, how static documents are predicted, which pages the render cache holds), so
this module knows neither the browser nor the models. Chromium starts only when a page must be rendered.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from mainentity.features.candidates import is_heading_part
from mainentity.log_summary import repeated_message
from mainentity.records import Document, ElementPath, Page, Prediction, RenderedPage
from mainentity.slot_transfer import transfer_site
from mainentity.text import counted

logger = logging.getLogger(__name__)


def noting_scripts(
    stream: Iterable[tuple[Page, Document | None, str]], scripted: set[tuple[str, str]]
) -> Iterator[tuple[Page, Document | None, str]]:
    """``stream`` as it is; the ``(site_id, path)`` of each page whose document was rendered again with
    its scripts on (:attr:`mainentity.records.Document.scripts`) goes into ``scripted`` as it passes.

    >>> scripted = set()
    >>> page = Page("jobs", "a.html", "https://jobs.example/a", "")
    >>> [e for _, _, e in noting_scripts([(page, Document(page, None, "1 words; inline state"), "")], scripted)]
    ['']
    >>> scripted
    {('jobs', 'a.html')}
    """
    for page, document, error in stream:
        if document is not None and document.scripts:
            scripted.add((page.site_id, page.path))
        yield page, document, error


def answered_with_scripts(prediction: Prediction, how: str, scripted: set[tuple[str, str]]) -> Prediction:
    """``prediction`` answered ``how`` (:meth:`Prediction.answered`), but ``"scripts"`` instead of
    ``"rendered"`` for a page in ``scripted`` (:func:`noting_scripts`).

    >>> answered_with_scripts(Prediction("jobs", "a.html", "u", "A"), "rendered", {("jobs", "a.html")}).answered_by
    'scripts'
    """
    scripts = how == "rendered" and (prediction.site_id, prediction.path) in scripted
    return prediction.answered("scripts" if scripts else how)


@dataclass(frozen=True)
class RenderFewSettings:
    """When ``auto`` renders a page.

    Attributes
    ----------
    min_site_pages : int
        Sites with at least this many pages go through slot transfer; smaller ones page by page.
    static_threshold : float
        A static answer stands when its calibrated score is at least this (a probability in [0, 1]).
        0.85, chosen on the static model's scores on the leave-one-dataset-out protocol
        (``benchmarks/results/static_model.md``): the lowest threshold (in steps of 0.05) at which the mixed
        answers stay within 0.005 ROUGE-1 F1 of rendering every page on each dataset left out. On the three
        news and blog sets left out (296 lone pages of ~245 sites) the static model's score is at least 0.85 on
        81.8% of the pages; 0.8 loses 0.012 F1 on Postlight's (one page of its 83: a diary whose largest heading
        is the diary's name, which only the rendered model tells from the entry's). Retrains have moved the
        rule's pick between 0.8 and 0.85 (a near tie of one page);
        ``auto`` answers fewer of them statically, since a page whose answer is a heading's part, or
        that the static reader cannot read, is rendered whatever its score. The cost on real pages is in
        ``benchmarks/results/render_cost.md``.
    static_margin : float
        A static answer also stands, whatever its calibrated score, when the static ranker puts it at least
        this far ahead of the runner-up of another text (``margin``, in log-odds:
        :func:`~mainentity.recognizers.doubt.doubt_signals`). The calibrated score is the chance that the
        answer is right; whether rendering is worth its cost depends on whether it would change the answer,
        and a dataset's label convention can mark the static and the rendered answer wrong alike. 8, chosen
        as ``static_threshold`` is, on the same scores (``benchmarks/results/static_model.md``): the lowest
        margin (of 2, 3, 4, 5, 6, 8, 10) at which, with the threshold at 0.85, the mixed answers stay within
        0.005 ROUGE-1 F1 of rendering every page on each dataset left out and their scores' ECE stays at
        most 0.05, or no higher than the threshold alone gives (a row answered by its margin still carries
        the static model's calibrated score, which is what ECE measures). On those datasets every page
        answered statically at 8 got the rendered model's answer, and the three news and blog sets left out
        render 14.5% of their pages instead of 18.2% (5 would render 11.1%, with ECE 0.053 and 0.054 on
        Postlight's and Readability's). That is an observation, not a guarantee: what the static reader
        cannot see decides against it (a huge site name hidden by layout alone, which the static reader
        reads as shown, stands on its margin where the rendered page answers the headline; one scaled to
        nothing by ``transform`` is read as hidden). ``static_model.py`` prints the pick after each
        retrain; ``inf`` turns it off.
    sample_fraction, min_sample_pages, max_sample_pages : float, int, int
        The sample of each template (:func:`mainentity.slot_transfer.templates.sample_size`).

    Raises
    ------
    ValueError
        If ``min_site_pages < 2``, ``static_threshold`` is outside [0, 1] or ``static_margin`` is negative.

    Examples
    --------
    >>> RenderFewSettings().min_site_pages
    10
    """

    min_site_pages: int = 10
    static_threshold: float = 0.85
    static_margin: float = 8.0
    sample_fraction: float = 0.02
    min_sample_pages: int = 3
    max_sample_pages: int = 20

    def __post_init__(self) -> None:
        if self.min_site_pages < 2:
            raise ValueError(f"min_site_pages must be >= 2; got {self.min_site_pages}")
        if not 0.0 <= self.static_threshold <= 1.0:
            raise ValueError(f"static_threshold must be in [0, 1]; got {self.static_threshold}")
        if not self.static_margin >= 0.0:
            raise ValueError(f"static_margin must be >= 0; got {self.static_margin}")


def _by_site(pages: Sequence[Page]) -> dict[str, list[Page]]:
    sites: dict[str, list[Page]] = defaultdict(list)
    for page in pages:
        sites[page.site_id].append(page)
    return sites


def _static_answers(
    pages: Sequence[Page],
    read_static: Callable[[Page], RenderedPage],
    predict_static: Callable[[Sequence[Document]], Sequence[tuple[Prediction, float]]],
    settings: RenderFewSettings,
) -> tuple[dict[tuple[str, str], Prediction], dict[tuple[str, str], Document]]:
    """The static model's answers whose score reaches ``settings.static_threshold`` or whose margin reaches
    ``settings.static_margin``, and that are no strict part of a heading's text
    (:func:`~mainentity.features.candidates.is_heading_part`), by page key (a page it fails on is absent);
    and the static reading of each page answered, by the same key."""
    documents = []
    with repeated_message(logger, "{n} of {total} pages of small sites are rendered: the static reader leaves "
                          "them to the renderer", level=logging.INFO, total=len(pages)) as left:
        for page in pages:
            try:
                documents.append(Document(page, read_static(page)))
            except ValueError as error:
                label = f"{page.site_id}/{page.path}"
                left.add(label, f"{label} is rendered: {str(error).removeprefix(f'{label}: ')}")  # named once
    if not documents:
        return {}, {}
    by_key = {(d.page.site_id, d.page.path): d for d in documents}
    answers = {(p.site_id, p.path): p.answered("static") for p, margin in predict_static(documents)
               if not p.error and p.main_entity
               and (p.score >= settings.static_threshold or margin >= settings.static_margin)
               and not is_heading_part(by_key[(p.site_id, p.path)].rendered, p.main_entity)}
    return answers, {key: by_key[key] for key in answers}


def answer_pages(
    pages: Sequence[Page],
    *,
    render: Callable[[Sequence[Page]], Sequence[Document]],
    predict: Callable[[Sequence[Document]], Sequence[Prediction]],
    read_static: Callable[[Page], RenderedPage],
    predict_static: Callable[[Sequence[Document]], Sequence[tuple[Prediction, float]]] | None = None,
    settings: RenderFewSettings = RenderFewSettings(),  # noqa: B008 (frozen dataclass)
    cached: Callable[[Sequence[Page]], set[tuple[str, str]]] | None = None,
    read_within: Callable[[Page, list[ElementPath]], RenderedPage] | None = None,
    predict_beside: Callable[[Sequence[Document], Sequence[Document]], Sequence[Prediction]] | None = None,
) -> Iterator[Prediction]:
    """Answer every page of whole sites, rendering few; yield each site's predictions when it is done.

    Parameters
    ----------
    pages : sequence of Page
        All the pages of one or more sites.
    render : callable
        Pages -> their documents, in order; a page that failed has ``rendered=None``.
    predict : callable
        Rendered documents of one site (failures included) -> their predictions, in order.
    read_static : callable
        Page -> its static reading; ``ValueError`` when it cannot be read (the page is then rendered).
    predict_static : callable, optional
        Static documents of one site -> the static model's predictions (any order), each with its
        answer's margin over the runner-up (``nan`` when it has none); without it, the pages of small
        sites are rendered.
    settings : RenderFewSettings
    cached : callable, optional
        Pages -> the ``(site_id, path)`` of those whose rendering the render cache holds: those of small sites
        are answered from it (``"rendered"``), never read statically; without it, every page is taken as uncached.
    read_within : callable, optional
        ``(page, slot paths) ->`` the page's static reading at those paths only, for the pages a large site's
        locators read (:func:`~mainentity.slot_transfer.transfer_site`); default: ``read_static``.
    predict_beside : callable, optional
        ``(rendered documents of one small site, the static readings of its statically answered pages) ->``
        the rendered documents' predictions, in order, with the site's profile (template text, slots)
        counted over both: answering a page statically then does not take it out of its siblings' site
        evidence. Default: ``predict`` of the rendered documents alone.

    Yields
    ------
    prediction : Prediction
        One per page, ``answered_by`` set.
    """
    sites = _by_site(pages)
    small = [page for site_pages in sites.values() if len(site_pages) < settings.min_site_pages
             for page in site_pages]
    if small:  # every small site's static answers first, then one render call for all the rest
        in_cache = cached(small) if cached is not None else set()
        unread = [page for page in small if (page.site_id, page.path) not in in_cache]
        static, static_documents = (_static_answers(unread, read_static, predict_static, settings)
                                    if predict_static is not None and unread else ({}, {}))
        to_render = [page for page in small if (page.site_id, page.path) not in static]
        rendering_sites = {page.site_id for page in to_render}  # only their static readings are kept
        static_documents = {key: d for key, d in static_documents.items() if key[0] in rendering_sites}
        documents = {(d.page.site_id, d.page.path): d for d in render(to_render)} if to_render else {}
        for site_pages in _by_site(small).values():
            waiting = [documents[(p.site_id, p.path)] for p in site_pages if (p.site_id, p.path) in documents]
            beside = [static_documents[(p.site_id, p.path)] for p in site_pages
                      if (p.site_id, p.path) in static_documents]
            answers = ((predict_beside(waiting, beside) if predict_beside is not None and beside
                        else predict(waiting)) if waiting else ())
            rendered = {(p.site_id, p.path): p for p in answers}
            for page in site_pages:
                key = (page.site_id, page.path)
                yield static[key] if key in static else rendered[key].answered("rendered")
        logger.info("%s of small sites: %d answered statically, %d rendered (%d of them read from the render "
                    "cache)", counted(len(small), "page"), len(static), len(to_render), len(small) - len(unread))
    for site_pages in sites.values():
        if len(site_pages) < settings.min_site_pages:
            continue
        transfer = transfer_site(site_pages, render, predict, read_static, read_within=read_within,
                                 fraction=settings.sample_fraction, min_pages=settings.min_sample_pages,
                                 max_pages=settings.max_sample_pages)
        for prediction in transfer.predictions:
            rendered = (prediction.site_id, prediction.path) in transfer.rendered
            yield prediction.answered("rendered" if rendered else "slot")
        logger.info("site %s: %d of %d pages rendered (%d templates)", site_pages[0].site_id,
                    len(transfer.rendered), len(site_pages), len(transfer.templates))
