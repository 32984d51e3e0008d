"""The one module that composes the stages: pages -> documents -> cleaning -> recogniser -> predictions.

There is one predict path, :func:`predict_pages`, and one training path, :func:`fit_model`; every
command (``predict``, ``evaluate``, ``train``, ``benchmark``, ``explain``), the Python API, annotate's
pre-labelling and the tasks of a cluster run go through them. Predicting is two replaceable steps:

1. *reading*: how pages become :class:`~mainentity.records.Document` records, a
   :class:`PageDocuments` (today :class:`RenderedDocuments`: the render cache, then headless Chromium
   for the misses; :class:`KnownDocuments` for documents already in memory);
2. *recognising*: the model's cleaners and recogniser over the documents as they arrive
   (:func:`predict_documents`).

Everything above this module (``runs``, ``scaleout``, the API, the CLI) calls these functions; the
stages never import it.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tqdm import tqdm

from mainentity.collector import fewer_cycle_collections
from mainentity.config import RENDER_POLICIES, CleaningConfig, Config, RenderConfig
from mainentity.loading import page_key
from mainentity.log_summary import repeated_message
from mainentity.model_store import TrainedModel
from mainentity.recognizers.base import Recognizer, make_recognizer
from mainentity.recognizers.doubt import DOUBT_SIGNALS
from mainentity.records import Document, ElementPath, Page, Prediction, RenderedPage
from mainentity.render_few import answered_with_scripts, noting_scripts
from mainentity.sitedump import SubresourceSources, page_digest

if TYPE_CHECKING:  # the renderer (and Playwright) is imported only when pages are rendered
    from mainentity.render.browser import Renderer

logger = logging.getLogger(__name__)


def error_prediction(page: Page, reason: str) -> Prediction:
    """The output row of a page that has no answer, with the reason."""
    return Prediction(page.site_id, page.path, page.url, error=reason)


def render_settings(render: RenderConfig):
    """The renderer's settings from the config's ``render`` section; Chromium is the one the user's
    environment names (:func:`mainentity.render.settings.default_chromium`), never the config's."""
    from mainentity.render.settings import RenderSettings

    return RenderSettings(
        javascript=render.javascript,
        timeout_s=render.timeout_s,
        concurrency=render.concurrency,
        retries=render.retries,
        subresources=render.subresources,
    )


def build_recognizer(config: Config) -> Recognizer:
    """The configured recogniser; the config's ``seed`` is its ``random_state`` unless set.

    Raises
    ------
    ValueError
        If ``model.name`` or a ``model.params`` key is unknown (the message names the config key).
    """
    try:
        recognizer = make_recognizer(config.model.name, **config.model.params)
    except ValueError as error:
        raise ValueError(f"config {config.name!r}, section 'model': {error}") from error
    if "random_state" in recognizer.get_params() and "random_state" not in config.model.params:
        recognizer.set_params(random_state=config.seed)
    return recognizer


def iter_documents(
    pages: Sequence[Page],
    *,
    needs_render: bool,
    render: RenderConfig,
    renderer: Renderer | None = None,
    subresources: SubresourceSources | None = None,
) -> Iterator[tuple[Page, Document | None, str]]:
    """Yield ``(page, document, error)`` for each page, as pages finish (any order).

    With ``needs_render`` the pages go through headless Chromium (cached on disk under
    ``render.cache_path()``); otherwise the document carries only the page. ``document`` is ``None`` and
    ``error`` says why when a page could not be rendered. ``renderer`` (a
    :class:`mainentity.render.Renderer` with :func:`render_settings` of ``render``) renders the
    cache misses and is left running for the caller's next batch; by default a browser is started
    for this batch only (:func:`mainentity.render.cache.render_pages`). ``subresources``: what serves
    each site's stylesheets, fonts and images (:attr:`mainentity.loading.LoadedPages.subresources`).
    """
    if not needs_render:
        for page in pages:
            yield page, Document(page), ""
        return
    from mainentity.render.cache import render_pages

    outcomes = render_pages(pages, render_settings(render), cache_dir=render.cache_path(), renderer=renderer,
                            subresources=subresources)
    for outcome in outcomes:
        if outcome.rendered is None:
            yield outcome.page, None, outcome.error
        else:
            yield outcome.page, Document(outcome.page, outcome.rendered, outcome.scripts), ""


def progress(iterable: Iterable, total: int, desc: str) -> Iterable:
    """A progress bar over ``iterable`` (``total`` pages) on a terminal; the iterable as is otherwise."""
    return tqdm(iterable, total=total, desc=desc, unit="page", disable=None, leave=False)


class PageDocuments(Protocol):
    """How pages become documents: the first step of the predict path (:func:`predict_pages`).

    Called with pages and whether their documents must carry a rendering (``rendered``: the
    recogniser or the cleaning needs one), it yields ``(page, document, error)`` for each page, in any
    order: ``document`` is ``None`` and ``error`` says why when the page has none.
    """

    def __call__(self, pages: Sequence[Page], *, rendered: bool) -> Iterable[tuple[Page, Document | None, str]]:
        ...


@dataclass(frozen=True)
class RenderedDocuments:
    """Pages become documents through the render cache, and headless Chromium for the misses.

    Attributes
    ----------
    render : RenderConfig
        The renderer's settings and the cache's place.
    subresources : SubresourceSources, optional
        What serves each site's stylesheets, fonts and images (the inputs' :attr:`LoadedPages.subresources`).
    renderer : Renderer, optional
        A running browser to reuse (see :func:`iter_documents`).
    """

    render: RenderConfig
    subresources: SubresourceSources | None = None
    renderer: Renderer | None = None

    def __call__(self, pages: Sequence[Page], *, rendered: bool) -> Iterator[tuple[Page, Document | None, str]]:
        return iter_documents(pages, needs_render=rendered, render=self.render, renderer=self.renderer,
                              subresources=self.subresources)


@dataclass(frozen=True)
class StaticDocuments:
    """Pages become documents read from their HTML and stylesheets alone, no browser
    (:func:`mainentity.render.static.read_static`: the renderer's text blocks without boxes).

    Attributes
    ----------
    subresources : SubresourceSources, optional
        What serves each site's stylesheets.
    """

    subresources: SubresourceSources | None = None

    def __call__(self, pages: Sequence[Page], *, rendered: bool) -> Iterator[tuple[Page, Document | None, str]]:
        from mainentity.render.static import read_static

        sources = self.subresources if self.subresources is not None else SubresourceSources()
        for page in pages:
            if not rendered:
                yield page, Document(page), ""
                continue
            try:
                yield page, Document(page, read_static(page, sources.for_page(page))), ""
            except ValueError as error:
                yield page, None, str(error)


def page_documents(
    render: RenderConfig, subresources: SubresourceSources | None = None, renderer: Renderer | None = None
) -> PageDocuments:
    """How the config's ``render.reader`` makes documents: :class:`RenderedDocuments` (``chromium``) or
    :class:`StaticDocuments` (``static``)."""
    if render.reader == "static":
        return StaticDocuments(subresources)
    return RenderedDocuments(render, subresources, renderer)


@dataclass(frozen=True)
class KnownDocuments:
    """Documents already made (a training run's test pages, a benchmark fold's): no page is read again.

    Yields the failures among the asked pages first, then their documents in the order given here;
    without ``rendered`` a document keeps only its page.

    Attributes
    ----------
    documents : sequence of Document
    failures : sequence of Prediction
        The error rows of the pages that have no document.

    Examples
    --------
    >>> page = Page("s", "a.html", "https://s.example/a.html", "<p>A</p>")
    >>> [(p.path, d is not None, e) for p, d, e in KnownDocuments([Document(page)])([page], rendered=True)]
    [('a.html', True, '')]
    """

    documents: Sequence[Document]
    failures: Sequence[Prediction] = ()

    def __call__(self, pages: Sequence[Page], *, rendered: bool) -> Iterator[tuple[Page, Document | None, str]]:
        keys = {page_key(page) for page in pages}
        for failure in self.failures:
            if (failure.site_id, failure.path) in keys:
                yield Page(failure.site_id, failure.path, failure.url, ""), None, failure.error
        for document in self.documents:
            if page_key(document.page) in keys:
                yield document.page, document if rendered else Document(document.page), ""


def render_all(
    pages: Sequence[Page], read: PageDocuments, *, rendered: bool = True, desc: str = "render"
) -> tuple[list[Document], list[Prediction]]:
    """Documents of ``pages`` in their order, and the error rows of the pages that have none.

    Every document is kept in memory (for fitting cleaners and recognisers); the predict path streams
    instead (:func:`predict_pages`). A page that fails is logged as failing to render, or to be read
    from its HTML when ``read`` is :class:`StaticDocuments`.
    """
    documents: dict[tuple[str, str], Document] = {}
    failed: list[Prediction] = []
    static = isinstance(read, StaticDocuments)
    verb, noun = ("be read statically", "static reading") if static else ("render", "render")
    with (fewer_cycle_collections(),  # every document stays alive: see mainentity.collector
          repeated_message(logger, f"{{n}} of {{total}} pages failed to {verb}", total=len(pages)) as failures):
        for page, document, error in progress(read(pages, rendered=rendered), len(pages), desc):
            if document is None:
                failures.add(f"{page.site_id}/{page.path}", f"{noun} failed for {page.site_id}/{page.path}: {error}")
                failed.append(error_prediction(page, error))
            else:
                documents[page_key(page)] = document
    ordered = [documents[page_key(page)] for page in pages if page_key(page) in documents]
    return ordered, failed


def fit_cleaners(
    documents: Sequence[Document], cleaning: CleaningConfig, *, random_state: int = 0
) -> dict[str, object]:
    """Fit one site-level cleaner per site on that site's documents; ``{}`` when cleaning is off.

    The cleaners learn no labels (Yi et al. 2003; Lin & Ho 2002), so fitting them on every page of a
    site, test pages included, leaks nothing.
    """
    if cleaning.method == "none":
        return {}
    from mainentity.cleaning import make_cleaner

    by_site: dict[str, list[Document]] = defaultdict(list)
    for document in documents:
        by_site[document.page.site_id].append(document)
    cleaners = {}
    for site_id, site_documents in sorted(by_site.items()):
        params = dict(cleaning.params)
        params.setdefault("random_state", random_state)
        cleaners[site_id] = make_cleaner(cleaning.method, **params).fit(site_documents)
    return cleaners


def clean_documents(documents: Sequence[Document], cleaners: dict[str, object]) -> list[Document]:
    """Apply each site's fitted cleaner to that site's documents; sites without one pass unchanged."""
    if not cleaners:
        return list(documents)
    cleaned: list[Document] = []
    for document in documents:
        cleaner = cleaners.get(document.page.site_id)
        cleaned.extend(cleaner.transform([document]) if cleaner is not None else [document])
    return cleaned


def fit_recognizer(
    recognizer: Recognizer, train_documents: Sequence[Document], cleaners: dict, cleaning: CleaningConfig
) -> Recognizer:
    """Fit a recogniser on the training documents; return it.

    The documents are cleaned first only when ``cleaning.clean_training`` is set (see
    :class:`mainentity.config.CleaningConfig` for why that is off by default). Recognisers that learn
    nothing get ``fit([])``.
    """
    if not recognizer.needs_training:
        return recognizer.fit([])
    if cleaning.clean_training:
        train_documents = clean_documents(train_documents, cleaners)
    return recognizer.fit(train_documents)


def predict_documents(
    recognizer: Recognizer,
    documents: Iterable[tuple[Page, Document | None, str]],
    *,
    cleaners: dict[str, object] | None = None,
    batch_size: int = 32,
    on_prediction: Callable[[Prediction], None] | None = None,
    pages_per_site: Mapping[str, int] | None = None,
) -> list[Prediction]:
    """Predict the main entity of every page as documents arrive, in batches of ``batch_size``.

    A page without a document gets an error row; a batch whose prediction raises is retried page by
    page so that one bad page costs only its own row. Every prediction is passed to ``on_prediction``
    as soon as it exists (the output writer), then returned.

    A site-level recogniser (``recognizer.site_level``) gets each site's documents in one batch: a
    site is predicted as soon as all of its ``pages_per_site[site_id]`` pages have arrived (documents
    or failures), and every site still open when the stream ends is predicted then.

    The pages without a document are logged as one warning when the stream ends (each page's line when it
    is the only one; ``-v`` lists them all: :func:`mainentity.log_summary.repeated_message`). The cycle
    collector runs less often meanwhile (:func:`mainentity.collector.fewer_cycle_collections`).
    """
    with (fewer_cycle_collections(),
          repeated_message(logger, "{n} pages have no prediction (an error row each)") as unanswered):
        predictions: list[Prediction] = []

        def failed(page: Page, error: str) -> None:
            unanswered.add(f"{page.site_id}/{page.path}", f"no prediction for {page.site_id}/{page.path}: {error}")
            emit(error_prediction(page, error))

        def emit(prediction: Prediction) -> None:
            predictions.append(prediction)
            if on_prediction is not None:
                on_prediction(prediction)

        def flush(batch: list[Document]) -> None:
            if not batch:
                return
            batch = clean_documents(batch, cleaners or {})
            try:
                answers = recognizer.predict(batch)
            except Exception as error:  # noqa: BLE001 - isolate the page that fails
                logger.warning("batch prediction failed (%s); retrying page by page", error)
                answers = []
                for document in batch:
                    try:
                        answers.extend(recognizer.predict([document]))
                    except Exception as page_error:  # noqa: BLE001
                        answers.append(error_prediction(document.page, f"prediction failed: {page_error}"))
            for answer in answers:
                emit(answer)

        if getattr(recognizer, "site_level", False):
            open_sites: dict[str, list[Document]] = defaultdict(list)
            arrived: Counter[str] = Counter()
            for page, document, error in documents:
                arrived[page.site_id] += 1
                if document is None:
                    failed(page, error)
                else:
                    open_sites[page.site_id].append(document)
                if pages_per_site is not None and arrived[page.site_id] >= pages_per_site.get(page.site_id, 0):
                    flush(open_sites.pop(page.site_id, []))
            for site_documents in open_sites.values():
                flush(site_documents)
            return predictions

        batch: list[Document] = []
        for page, document, error in documents:
            if document is None:
                failed(page, error)
                continue
            batch.append(document)
            if len(batch) >= batch_size:
                flush(batch)
                batch = []
        if batch:
            flush(batch)
        return predictions


def cleaners_for(model: TrainedModel, pages: Sequence[Page], read: PageDocuments) -> dict:
    """The model's cleaners for the sites it knows, fitted anew (on documents from ``read``) for sites it
    has not seen."""
    if model.config.cleaning.method == "none":
        return {}
    unseen = [page for page in pages if page.site_id not in model.cleaners]
    cleaners = dict(model.cleaners)
    if unseen:
        documents, _ = render_all(unseen, read, desc="render (cleaning)")
        cleaners.update(fit_cleaners(documents, model.config.cleaning, random_state=model.config.seed))
    return cleaners


def predict_pages(
    model: TrainedModel,
    pages: Sequence[Page],
    *,
    read: PageDocuments | None = None,
    subresources: SubresourceSources | None = None,
    renderer: Renderer | None = None,
    cleaners: dict | None = None,
    on_prediction: Callable[[Prediction], None] | None = None,
    progress_desc: str = "",
    batch_size: int = 32,
    render_policy: str | None = None,
    static_model: TrainedModel | None = None,
) -> list[Prediction]:
    """The one predict path: a loaded model's answer for every page of whole sites.

    Two steps, each replaceable: ``read`` makes the pages' documents (default
    :class:`RenderedDocuments`: the render cache, Chromium for the misses), then the model's cleaners
    and recogniser answer as documents arrive (:func:`predict_documents`; a site-level recogniser gets
    each site whole). Each site's cleaner is fitted on its pages when the model has none for it
    (:func:`cleaners_for`).

    Parameters
    ----------
    model : TrainedModel
    pages : sequence of Page
        All the pages of one or more sites, anchors filled.
    read : PageDocuments, optional
        How pages become documents; default :func:`page_documents` of the model's ``render`` section
        (with ``subresources`` and ``renderer``).
    subresources : SubresourceSources, optional
        What serves each site's stylesheets, fonts and images (for the default ``read``).
    renderer : Renderer, optional
        A running browser to reuse (for the default ``read``).
    cleaners : dict, optional
        ``site_id -> cleaner`` to use instead of :func:`cleaners_for` of ``pages``.
    on_prediction : callable, optional
        Called with each prediction as soon as it exists (the output writer).
    progress_desc : str, default ""
        Show a progress bar with this label (none when empty).
    batch_size : int, default 32
        Documents per call of a page-by-page recogniser.
    render_policy : {"always", "auto"}, optional
        Default the model config's ``render.policy``. ``auto`` renders few pages
        (:mod:`mainentity.render_few`) when the model allows it (:func:`renders_few`); each prediction's
        ``answered_by`` says how its page was answered.
    static_model : TrainedModel, optional
        With ``auto``: the model that answers the pages of small sites from their HTML (the shipped
        ``general-static``); without it those pages are rendered.

    Returns
    -------
    predictions : list of Prediction
        One per page (an error row for a page that failed), in order of completion.
    """
    policy = model.config.render.policy if render_policy is None else render_policy
    if policy not in RENDER_POLICIES:
        raise ValueError(f"render policy must be one of {', '.join(RENDER_POLICIES)}; got {policy!r}")
    if policy == "auto" and renders(model) and not renders_few(model):
        logger.info("render policy auto needs a site-level recogniser without cleaning; every page is rendered")
    if policy == "auto" and renders_few(model):
        return _predict_rendering_few(model, pages, read, subresources, renderer, static_model, on_prediction)
    read = read if read is not None else page_documents(model.config.render, subresources, renderer)
    if cleaners is None:
        cleaners = cleaners_for(model, pages, read)
    scripted: set = set()
    stream = noting_scripts(read(pages, rendered=model.recognizer.needs_render), scripted)
    how = answered_by(model)

    def emit(prediction: Prediction) -> None:
        if on_prediction is not None:
            on_prediction(answered_with_scripts(prediction, how, scripted))

    predictions = predict_documents(
        model.recognizer, progress(stream, len(pages), progress_desc) if progress_desc else stream,
        cleaners=cleaners, batch_size=batch_size, on_prediction=emit,
        pages_per_site=Counter(page.site_id for page in pages),
    )
    return [answered_with_scripts(prediction, how, scripted) for prediction in predictions]


def with_score_kind(prediction: Prediction, model: TrainedModel,
                    static_model: TrainedModel | None = None) -> Prediction:
    """The prediction saying what its score is (:attr:`~mainentity.records.Prediction.score_kind`), from
    the model that answered it: ``static_model`` for a page answered ``static`` under the ``auto`` render
    policy, else ``model``."""
    answering = static_model if prediction.answered_by == "static" and static_model is not None else model
    return prediction.scored_as(answering.recognizer.scores_are_probabilities())


def answered_by(model: TrainedModel) -> str:
    """How a model answers the pages it reads itself: ``"rendered"`` (Chromium), ``"static"`` (its
    ``render.reader`` is ``static``) or ``"html"`` (its recogniser reads the markup itself: a peer or a
    baseline); see :attr:`mainentity.records.Prediction.answered_by`."""
    if not model.recognizer.needs_render:
        return "html"
    return "static" if model.config.render.reader == "static" else "rendered"


def renders(model: TrainedModel) -> bool:
    """Whether ``model`` reads pages rendered in Chromium (``general-static`` reads them from their HTML)."""
    return model.recognizer.needs_render and model.config.render.reader == "chromium"


def renders_few(model: TrainedModel) -> bool:
    """Whether the ``auto`` render policy applies to ``model``: a site-level recogniser that renders in Chromium
    (the general recogniser, whose site vote finds the template slots), no cleaning (it needs every page)."""
    return model.recognizer.site_level and renders(model) and model.config.cleaning.method == "none"


def _predict_rendering_few(
    model: TrainedModel,
    pages: Sequence[Page],
    read: PageDocuments | None,
    subresources: SubresourceSources | None,
    renderer: Renderer | None,
    static_model: TrainedModel | None,
    on_prediction: Callable[[Prediction], None] | None,
) -> list[Prediction]:
    """The ``auto`` policy: :func:`mainentity.render_few.answer_pages` with this path's stages."""
    from mainentity.render.static import read_static
    from mainentity.render_few import answer_pages

    sources = subresources if subresources is not None else SubresourceSources()
    held = None
    if read is None:
        from mainentity.render.browser import Renderer

        # one browser for every render call of the batch, started only when a page must be rendered
        held = renderer if renderer is not None else Renderer(render_settings(model.config.render))
        read = RenderedDocuments(model.config.render, sources, held)
    errors: dict[tuple[str, str], str] = {}
    scripted: set = set()

    def render(batch: Sequence[Page]) -> list[Document]:
        documents = {}
        for page, document, error in noting_scripts(read(batch, rendered=True), scripted):
            documents[page_key(page)] = document if document is not None else Document(page)
            if document is None:
                errors[page_key(page)] = error
        return [documents[page_key(page)] for page in batch]

    def predict(documents: Sequence[Document]) -> list[Prediction]:
        stream = [(d.page, d if d.rendered is not None else None, errors.get(page_key(d.page), ""))
                  for d in documents]
        answers = predict_documents(model.recognizer, stream,
                                    pages_per_site=Counter(d.page.site_id for d in documents))
        by_key = {(answer.site_id, answer.path): answer for answer in answers}
        return [by_key[page_key(d.page)] for d in documents]

    recognizer = model.recognizer
    profiles_beside = all(hasattr(recognizer, name) for name in ("site_statistics", "score_shard", "predict_scored"))

    def predict_beside(documents: Sequence[Document], beside: Sequence[Document]) -> list[Prediction]:
        """The rendered ``documents`` of one site predicted with a site profile counted over them and the
        static readings ``beside`` (the site's statically answered pages): the shard path of a large site
        (:meth:`~mainentity.recognizers.general.GeneralRecognizer.score_shard`)."""
        try:
            scored = recognizer.score_shard(documents, recognizer.site_statistics([*documents, *beside]))
            answers = recognizer.predict_scored(scored)
        except Exception as error:  # noqa: BLE001 - predicted as before, from the rendered pages alone
            logger.warning("%s: the site profile over its static readings failed (%s); its rendered pages are "
                           "profiled alone", documents[0].page.site_id, error)
            return predict(documents)
        return [error_prediction(d.page, errors.get(page_key(d.page), answer.error)) if d.rendered is None
                else answer for d, answer in zip(documents, answers, strict=True)]

    cached, static_cache = None, None
    if isinstance(read, RenderedDocuments):  # the pages its cache holds are not read statically
        from mainentity.render.cache import cached_pages
        from mainentity.render.static_cache import StaticReadingCache

        def cached(batch: Sequence[Page]) -> set[tuple[str, str]]:
            return cached_pages(batch, render_settings(read.render), read.render.cache_path(), read.subresources)

        static_cache = StaticReadingCache(read.render.cache_path())  # a warm run reads no page twice

    def static_reading(page: Page) -> RenderedPage:
        files = sources.for_page(page)
        return static_cache.read(page, files) if static_cache is not None else read_static(page, files)

    def slot_reading(page: Page, paths: Sequence[ElementPath]) -> RenderedPage:  # a part: not for the static cache
        return read_static(page, sources.for_page(page), within=paths)

    def predict_static(documents: Sequence[Document]) -> list[tuple[Prediction, float]]:
        try:
            answers, signals = static_model.recognizer.predict_with_signals(documents)
            return list(zip(answers, signals[:, DOUBT_SIGNALS.index("margin")].tolist(), strict=True))
        except Exception as error:  # noqa: BLE001 - the pages are rendered instead
            logger.warning("static model failed on %s (%s); its pages are rendered", documents[0].page.site_id, error)
            return []

    abstain_below = model.recognizer.get_params().get("abstain_below", 0.0) or 0.0
    predictions = []
    try:
        for prediction in answer_pages(
            pages, render=render, predict=predict,
            read_static=static_reading, read_within=slot_reading,
            predict_static=predict_static if static_model is not None else None, cached=cached,
            predict_beside=predict_beside if profiles_beside else None,
        ):
            if prediction.answered_by != "rendered" and prediction.score < abstain_below:
                # the model's own threshold holds for answers read without it: no answer, the text kept
                prediction = replace(prediction, main_entity="")
            prediction = answered_with_scripts(prediction, prediction.answered_by, scripted)
            predictions.append(prediction)
            if on_prediction is not None:
                on_prediction(prediction)
    finally:
        if held is not None and held is not renderer:
            held.close()
    counts = Counter(prediction.answered_by for prediction in predictions)
    logger.info("render policy auto: %d of %d pages rendered (%d with scripts on; %d by slot, %d static)",
                counts["rendered"] + counts["scripts"], len(predictions), counts["scripts"], counts["slot"],
                counts["static"])
    return predictions


def fit_model(
    config: Config,
    recognizer: Recognizer,
    documents: Sequence[Document],
    train_pages: Sequence[Page],
    *,
    cleaners: dict | None = None,
    directory: Path | None = None,
) -> TrainedModel:
    """The one training path: fit the recogniser (and the site cleaners) on the training documents.

    Parameters
    ----------
    config : Config
        Its ``cleaning`` section and ``seed`` are used.
    recognizer : Recognizer
        Fitted in place (:func:`fit_recognizer`) and returned in the model.
    documents : sequence of Document
        Every document of the run (training and test pages): the cleaners learn no labels, so they
        are fitted on all of them (:func:`fit_cleaners`).
    train_pages : sequence of Page
        The pages whose documents the recogniser is fitted on.
    cleaners : dict, optional
        Cleaners already fitted on ``documents`` (a benchmark fits them once for all its folds).
    directory : Path, optional
        Where the model will be saved (kept in the returned model).

    Returns
    -------
    model : TrainedModel
        ``training_pages`` the digests of the training documents' pages.
    """
    if cleaners is None:
        cleaners = fit_cleaners(documents, config.cleaning, random_state=config.seed)
    train_keys = {page_key(page) for page in train_pages}
    train_documents = [document for document in documents if page_key(document.page) in train_keys]
    fit_recognizer(recognizer, train_documents, cleaners, config.cleaning)
    training_pages = frozenset(page_digest(document.page) for document in train_documents)
    return TrainedModel(directory, config, recognizer, cleaners, training_pages)
