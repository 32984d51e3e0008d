"""Answer a site's pages rendering few of them: sample each template, fit slot locators, read the rest.

1. cluster the site's pages by template (:func:`~mainentity.slot_transfer.templates.cluster_templates`);
2. render a sample of each template (:func:`~mainentity.slot_transfer.templates.choose_sample`) and
   predict the rendered pages with the site-level recogniser in one call (the site vote runs over them);
3. fit a locator per template (:func:`~mainentity.slot_transfer.locators.fit_locators`) on its rendered
   pages' static readings;
4. read every other page statically and apply its template's locator. A page whose template has no
   locator, or where the locator gives no answer, falls back to rendering. When a template has more
   than ``min_pages`` fallbacks (a variant of the template the sample missed), ``min_pages`` of them,
   spread over the template, are rendered first and steps 2-4 run again (at most ``max_rounds``
   rounds): they would be rendered anyway, and the locators refitted with them may read the rest;
5. the remaining fallbacks are rendered, and all rendered pages are predicted together.

The stages arrive as arguments (``render``, ``predict``, ``read_static``), so the one predict path can
pass its own renderer, recogniser and static reader.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

from mainentity.log_summary import RepeatedMessage
from mainentity.records import Document, ElementPath, Page, Prediction, RenderedPage
from mainentity.slot_transfer.locators import TemplateLocator, apply_locator, fit_locators
from mainentity.slot_transfer.templates import Template, choose_sample, cluster_templates

logger = logging.getLogger(__name__)

PageKey = tuple[str, str]


@dataclass(frozen=True)
class SiteTransfer:
    """What :func:`transfer_site` did on one site.

    Attributes
    ----------
    predictions : tuple of Prediction
        One per page, in input order; those read through a locator have no box.
    rendered : frozenset of (str, str)
        ``(site_id, path)`` of the pages rendered (sample, later rounds and fallbacks).
    sampled : frozenset of (str, str)
        Those of the first sample.
    templates : tuple of Template
    locators : dict of template key to TemplateLocator
        The last round's, for the templates with pages left to read that got one.
    n_rounds : int
        Rounds of fitting run (1 when the first sample sufficed).
    cluster_seconds : float
        Time spent clustering the pages and choosing the sample, in seconds.
    static_seconds : float
        Time spent reading pages statically, fitting and applying the locators, in seconds.
    """

    predictions: tuple[Prediction, ...]
    rendered: frozenset[PageKey]
    sampled: frozenset[PageKey]
    templates: tuple[Template, ...]
    locators: dict = field(default_factory=dict)
    n_rounds: int = 1
    cluster_seconds: float = 0.0
    static_seconds: float = 0.0


def _key(page: Page) -> PageKey:
    return page.site_id, page.path


class _Reader:
    """Static readings, each page read once; ``None`` for a page the reader fails on (it is rendered)."""

    def __init__(self, read_static: Callable[[Page], RenderedPage], unread: RepeatedMessage,
                 read_within: Callable[[Page, list[ElementPath]], RenderedPage] | None = None):
        self.read_static = read_static
        self.read_within = read_within
        self.readings: dict[PageKey, RenderedPage | None] = {}
        self.unread = unread  # the pages it fails on, logged once per site

    def __call__(self, page: Page) -> RenderedPage | None:
        if _key(page) not in self.readings:
            self.readings[_key(page)] = self._read(page, self.read_static)
        return self.readings[_key(page)]

    def through(self, page: Page, locator: TemplateLocator) -> RenderedPage | None:
        """The reading a locator needs of a page: only where its slots are (``read_within``), unless the page
        was read whole already or a slot is a title segment (found by comparing the title with every block)."""
        if (self.read_within is None or _key(page) in self.readings
                or any(slot.kind == "title" for slot in locator.slots)):
            return self(page)
        return self._read(page, lambda p: self.read_within(p, [slot.path for slot in locator.slots]))

    def _read(self, page: Page, read: Callable[[Page], RenderedPage]) -> RenderedPage | None:
        try:
            return read(page)
        except ValueError as error:
            self.unread.add(f"{page.site_id}/{page.path}", f"{page.site_id}/{page.path} is rendered: {error}")
            return None


def _read_round(templates: Sequence[Template], documents: dict[PageKey, Document],
                predictions: dict[PageKey, Prediction], reader: _Reader,
                ) -> tuple[dict, dict[PageKey, Prediction], dict[Hashable, list[Page]]]:
    """Fit the locators on the rendered pages and read the others: (locators, answers, fallbacks by template)."""
    fitted = {}
    for template in templates:
        chosen = [documents[_key(p)] for p in template.pages if _key(p) in documents]
        if len(chosen) < len(template.pages):  # pages left to read; a failed rendering has nothing to reproduce
            fitted[template.key] = [document for document in chosen if document.rendered is not None]
    statics = {_key(d.page): static for chosen in fitted.values() for d in chosen if (static := reader(d.page))}
    locators = fit_locators({key: chosen for key, chosen in fitted.items() if chosen}, predictions, statics)
    answers: dict[PageKey, Prediction] = {}
    fallbacks: dict[Hashable, list[Page]] = {}
    for template in templates:
        locator = locators.get(template.key)
        for page in template.pages:
            if _key(page) in documents:
                continue
            static = reader.through(page, locator) if locator is not None else None
            answer = apply_locator(locator, page, static) if static is not None else None
            if answer is None:
                fallbacks.setdefault(template.key, []).append(page)
            else:
                answers[_key(page)] = answer.to_prediction()
    return locators, answers, fallbacks


def transfer_site(
    pages: Sequence[Page],
    render: Callable[[Sequence[Page]], Sequence[Document]],
    predict: Callable[[Sequence[Document]], Sequence[Prediction]],
    read_static: Callable[[Page], RenderedPage],
    *,
    read_within: Callable[[Page, list[ElementPath]], RenderedPage] | None = None,
    fraction: float = 0.02,
    min_pages: int = 3,
    max_pages: int = 20,
    max_rounds: int = 3,
) -> SiteTransfer:
    """Predict every page of one site, rendering only samples of its templates and the fallbacks.

    Parameters
    ----------
    pages : sequence of Page
        The pages of one site.
    render : callable
        Pages -> their documents, in order (a failed page's document has ``rendered=None``).
    predict : callable
        Documents of one site -> their predictions, in order (the general recogniser's ``predict``).
    read_static : callable
        Page -> its static reading (:func:`mainentity.render.static.read_static`); a ``ValueError`` from
        it has the page rendered (those pages are logged as one warning for the site:
        :class:`mainentity.log_summary.RepeatedMessage`).
    read_within : callable, optional
        ``(page, paths) ->`` the page's static reading at those slot paths only (``read_static(page,
        within=paths)`` of :mod:`mainentity.render.static`), for the pages read through a locator: a locator
        looks at its slots only, and the walk of the rest of the page was most of a slot answer's cost.
        Default: ``read_static``.
    fraction, min_pages, max_pages
        Sample size per template (:func:`~mainentity.slot_transfer.templates.sample_size`); ``min_pages``
        is also the number of a template's fallbacks rendered in each further round.
    max_rounds : int, default 3
        Rounds of fitting at most (1: no further round).

    Returns
    -------
    transfer : SiteTransfer

    Raises
    ------
    ValueError
        If the pages are of more than one site, or ``max_rounds < 1``.
    """
    if len({page.site_id for page in pages}) > 1:
        raise ValueError(f"transfer_site takes one site's pages; got sites {sorted({p.site_id for p in pages})}")
    if max_rounds < 1:
        raise ValueError(f"max_rounds must be >= 1; got {max_rounds}")
    started = time.perf_counter()
    templates = cluster_templates(pages)
    sample = choose_sample(templates, fraction, min_pages, max_pages)
    cluster_seconds = time.perf_counter() - started
    documents: dict[PageKey, Document] = {}
    to_render = [page for key in sorted(sample) for page in sample[key]]
    unread = RepeatedMessage(logger, f"site {pages[0].site_id}: {{n}} of {{total}} pages are rendered: the static "
                             "reader leaves them to the renderer")
    reader, static_seconds, n_rounds, final = _Reader(read_static, unread, read_within), 0.0, 0, False
    locators: dict[Hashable, TemplateLocator] = {}
    answers: dict[PageKey, Prediction] = {}
    while True:
        documents.update({_key(d.page): d for d in render(to_render)})
        rendered_keys = sorted(documents)
        predictions = dict(zip(rendered_keys, predict([documents[k] for k in rendered_keys]), strict=True))
        if final or len(documents) == len(pages):
            break
        n_rounds += 1
        started = time.perf_counter()
        locators, answers, fallbacks = _read_round(templates, documents, predictions, reader)
        static_seconds += time.perf_counter() - started
        more = {key: choose_sample([Template(key, tuple(waiting))], 1.0, min_pages, min_pages)[key]
                for key, waiting in fallbacks.items() if len(waiting) > min_pages} if n_rounds < max_rounds else {}
        final = not more  # else another round: render a few fallbacks of each such template, refit, read
        to_render = ([page for waiting in fallbacks.values() for page in waiting] if final
                     else [page for key in sorted(more) for page in more[key]])
        if not to_render:
            break
    answers.update(predictions)
    unread.log(total=len(pages))
    return SiteTransfer(tuple(answers[_key(page)] for page in pages), frozenset(documents),
                        frozenset(_key(page) for chosen in sample.values() for page in chosen), tuple(templates),
                        locators, n_rounds, cluster_seconds, static_seconds)
