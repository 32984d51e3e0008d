"""Answer a site's pages rendering few of them: sample each template, fit slot locators, read the rest.

1. cluster the site's pages by template (:func:`~mainentity.slot_transfer.templates.cluster_templates`);
2. render a sample of each template (:func:`~mainentity.slot_transfer.templates.choose_sample`) and
   predict it with the site-level recogniser in one call (the site vote runs over the site's sample);
3. fit a locator per template (:func:`~mainentity.slot_transfer.locators.fit_locators`) on the sample's
   static readings;
4. read every other page statically and apply its template's locator; a page whose template has no
   locator, or where the locator gives no answer, is rendered, and the rendered pages (sample and
   fallbacks) are predicted together.

The stages arrive as arguments (``render``, ``predict``, ``read_static``), so the one predict path can
pass its own renderer, recogniser and static reader.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mainentity.records import Document, Page, Prediction, RenderedPage
from mainentity.slot_transfer.locators import TemplateLocator, apply_locator, fit_locators
from mainentity.slot_transfer.templates import Template, choose_sample, cluster_templates

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SiteTransfer:
    """What :func:`transfer_site` did on one site.

    Attributes
    ----------
    predictions : tuple of Prediction
        One per page, in input order; those read through a locator have no box.
    rendered : frozenset of (str, str)
        ``(site_id, path)`` of the pages rendered (sample and fallbacks).
    sampled : frozenset of (str, str)
        Those of the sample.
    templates : tuple of Template
    locators : dict of template key to TemplateLocator
    static_seconds : float
        Time spent on clustering, static reading and locators (not rendering nor predicting), in seconds.
    """

    predictions: tuple[Prediction, ...]
    rendered: frozenset[tuple[str, str]]
    sampled: frozenset[tuple[str, str]]
    templates: tuple[Template, ...]
    locators: dict = field(default_factory=dict)
    static_seconds: float = 0.0


def _key(page: Page) -> tuple[str, str]:
    return page.site_id, page.path


def _read(read_static: Callable[[Page], RenderedPage], page: Page) -> RenderedPage | None:
    """The page's static reading, or ``None`` when the reader fails on it (the page is then rendered)."""
    try:
        return read_static(page)
    except ValueError as error:
        logger.warning("%s/%s is rendered: %s", page.site_id, page.path, error)
        return None


def transfer_site(
    pages: Sequence[Page],
    render: Callable[[Sequence[Page]], Sequence[Document]],
    predict: Callable[[Sequence[Document]], Sequence[Prediction]],
    read_static: Callable[[Page], RenderedPage],
    *,
    fraction: float = 0.02,
    min_pages: int = 3,
    max_pages: int = 20,
) -> SiteTransfer:
    """Predict every page of one site, rendering only a sample of each template and the fallbacks.

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
        it has the page rendered.
    fraction, min_pages, max_pages
        Sample size per template (:func:`~mainentity.slot_transfer.templates.sample_size`).

    Returns
    -------
    transfer : SiteTransfer

    Raises
    ------
    ValueError
        If the pages are of more than one site.
    """
    if len({page.site_id for page in pages}) > 1:
        raise ValueError(f"transfer_site takes one site's pages; got sites {sorted({p.site_id for p in pages})}")
    started = time.perf_counter()
    templates = cluster_templates(pages)
    sample = choose_sample(templates, fraction, min_pages, max_pages)
    static_seconds = time.perf_counter() - started
    sampled_pages = [page for key in sorted(sample) for page in sample[key]]
    documents = {_key(d.page): d for d in render(sampled_pages)}
    sample_predictions = {_key(p): p for p in predict([documents[_key(page)] for page in sampled_pages])}
    started = time.perf_counter()
    statics = {_key(page): static for page in sampled_pages if (static := _read(read_static, page)) is not None}
    locators: dict[object, TemplateLocator] = fit_locators(
        {key: [documents[_key(page)] for page in sample[key]] for key in sample}, sample_predictions, statics)
    answers: dict[tuple[str, str], Prediction] = {}
    fallbacks: list[Page] = []
    sampled = {_key(page) for page in sampled_pages}
    for template in templates:
        for page in template.pages:
            if _key(page) in sampled:
                continue
            locator = locators.get(template.key)
            static = _read(read_static, page) if locator is not None else None
            answer = apply_locator(locator, page, static) if static is not None else None
            if answer is None:
                fallbacks.append(page)
            else:
                answers[_key(page)] = answer.to_prediction()
    static_seconds += time.perf_counter() - started
    if fallbacks:
        documents.update({_key(d.page): d for d in render(fallbacks)})
        rendered_pages = sampled_pages + fallbacks
        answers.update({_key(p): p for p in predict([documents[_key(page)] for page in rendered_pages])})
    else:
        answers.update(sample_predictions)
    return SiteTransfer(tuple(answers[_key(page)] for page in pages), frozenset(sampled | set(map(_key, fallbacks))),
                        frozenset(sampled), tuple(templates), locators, static_seconds)
