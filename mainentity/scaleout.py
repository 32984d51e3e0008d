"""Scale-out: predict whole sites as tasks on a cluster, a large site in shards.

The cluster itself is behind a small typed interface, :class:`TaskRunner` (what
:class:`mainentity.distributed.DaskSites` provides: the Dask glue lives there). A task is a
:class:`SiteTask`: the pages of one site (or a shard of a large site) and where their subresources
are read from; each task runs the one predict path (:func:`mainentity.pipeline.predict_pages`) in a
worker, so the rows are those of a run in one process.

With the ``auto`` render policy (:func:`mainentity.pipeline.renders_few`), every site is one task, however
large: slot transfer samples and renders each template of the site once, in that task, and reads the
rest of the site's pages from their HTML there (about 30 ms of CPU a page, so a large site is no longer
worth splitting).
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from mainentity.config import RenderConfig
from mainentity.model_store import TrainedModel
from mainentity.pipeline import (
    PageDocuments,
    answered_by,
    clean_documents,
    cleaners_for,
    page_documents,
    predict_pages,
    render_all,
    render_settings,
    renders_few,
)
from mainentity.recognizers.base import Recognizer
from mainentity.records import Page, Prediction
from mainentity.render.cache import RenderCache
from mainentity.sitedump import DumpFiles, SubresourceSources
from mainentity.warc import WarcSubresources

logger = logging.getLogger(__name__)


class TaskRunner(Protocol):
    """What runs the tasks of a cluster run (:class:`mainentity.distributed.DaskSites`)."""

    def map_tasks(
        self, function: Callable, shared, tasks: Sequence, *, sizes: Sequence[int], desc: str = "predict",
        site_data: Sequence | None = None,
    ) -> Iterator:
        """Run ``function(shared, task[, site_data])`` for every task; yield each result as it finishes."""


#: Pages per task of a cluster run: a larger site is split into shards of at most this many pages, after
#: its site-level statistics (its cleaner, and a site-level recogniser's site statistics) are computed once.
SHARD_PAGES = 250


@dataclass(frozen=True)
class SiteTask:
    """The work of one task of a cluster run: the pages of one site, or a shard of them.

    Attributes
    ----------
    sources : tuple of (Path or WarcSubresources)
        Where the stylesheets, fonts and images served to the pages lie, one per input the site's pages
        were read from (usually one; a site id two inputs share has two): a site dump's directory, or a
        WARC input's records (not their bytes: the worker reads them from the same WARC path). Empty when
        nothing serves them.
    pages : tuple of Page
        Pages of one site, in the order they were read.
    shard : tuple of (int, int) or None
        ``(index, n_shards)`` for a shard of a site-level recogniser's site: its pages are scored in
        the task (:class:`ScoredShard`) and predicted in the client once every shard of the site is in
        (:func:`predict_scored_shards`). ``None`` for a task whose pages are predicted in the task.
    """

    sources: tuple[Path | WarcSubresources, ...]
    pages: tuple[Page, ...]
    shard: tuple[int, int] | None = None

    def subresources(self) -> SubresourceSources:
        """What serves the task's pages' stylesheets, fonts and images, in the worker."""
        site_id = self.pages[0].site_id if self.pages else ""
        return SubresourceSources((site_id, DumpFiles(source) if isinstance(source, Path) else source)
                                  for source in self.sources)

    def read(self, model: TrainedModel) -> PageDocuments:
        """How the task's pages become documents (the model's reader: the render cache and Chromium for
        the misses, or the static reader)."""
        return page_documents(model.config.render, self.subresources())


@dataclass(frozen=True)
class SiteStatistics:
    """What a cluster run computes once over a large site before splitting it: :func:`fit_site_statistics`.

    Attributes
    ----------
    site_id : str
    cleaners : dict
        ``{site_id: cleaner}`` fitted on the site when the model has no cleaner for it, else empty.
    recognizer_statistics : object
        The site-level recogniser's ``site_statistics`` of the site's documents (``None`` for a
        recogniser that answers page by page).
    error : str
        Why they could not be computed (the site is then predicted whole); empty otherwise.
    """

    site_id: str
    cleaners: dict = dataclasses.field(default_factory=dict)
    recognizer_statistics: object = None
    error: str = ""


@dataclass(frozen=True)
class RenderFewModels:
    """What every task of an ``auto`` cluster run shares (:func:`predict_site_rendering_few`).

    Attributes
    ----------
    model : TrainedModel
        The site-level model that answers rendered pages and finds the template slots.
    static_model : TrainedModel or None
        The model that answers the pages of small sites from their HTML (the shipped ``general-static``);
        without it those pages are rendered.
    """

    model: TrainedModel
    static_model: TrainedModel | None = None


@dataclass(frozen=True)
class ScoredShard:
    """A shard of a site-level recogniser's site, scored in a task of a cluster run (:func:`predict_site`).

    Attributes
    ----------
    site_id : str
    shard : tuple of (int, int)
        ``(index, n_shards)``, from its :class:`SiteTask`.
    failures : tuple of Prediction
        The error rows of its pages that could not be rendered.
    scored : list
        The recogniser's ``score_shard`` of its other pages, in site order.
    error : str
        Why the shard could not be scored (the site is then predicted whole); empty otherwise.
    """

    site_id: str
    shard: tuple[int, int]
    failures: tuple[Prediction, ...] = ()
    scored: list = dataclasses.field(default_factory=list)
    error: str = ""


def _site_task(site: list[Page], subresources: SubresourceSources) -> SiteTask:
    """The task of a whole site, carrying where its pages' subresources lie (not what serves them: a
    :class:`~mainentity.sitedump.DumpFiles` holds a lock and an in-memory copy)."""
    found: list[Path | WarcSubresources] = []
    for page in site:  # a site id that two inputs share: each page's own input
        source = subresources.for_page(page)
        where = source.directory if isinstance(source, DumpFiles) else source
        if isinstance(where, (Path, WarcSubresources)) and where not in found:
            found.append(where)
    return SiteTask(tuple(found), tuple(site))


def site_tasks(
    model: TrainedModel, pages: Sequence[Page], cluster: TaskRunner, subresources: SubresourceSources | None = None
) -> list[tuple[SiteTask, SiteStatistics | None]]:
    """The tasks of a cluster run: one per site, or shards of :data:`SHARD_PAGES` pages of a large site.

    A site of more than :data:`SHARD_PAGES` pages is split after its site-level statistics are computed
    once on the whole site by a task of ``cluster`` (:func:`fit_site_statistics`): its cleaner when the
    model has none for it, and a site-level recogniser's site statistics. That task reads every page of
    the site, so when the render cache (as this process sees it) lacks some, the site's shards are first
    rendered by parallel tasks (:func:`render_shard`). A site whose statistics fail is one task,
    predicted whole as in process.

    ``subresources``: what serves each site's stylesheets, fonts and images (the inputs'
    :attr:`~mainentity.loading.LoadedPages.subresources`); each task carries where they lie.

    Returns
    -------
    tasks : list of (SiteTask, SiteStatistics or None)
        Each task with the statistics of its site when it is a shard (the same object for all the
        shards of a site: ``cluster.map_tasks(..., site_data=...)`` sends it to the workers once).
    """
    sites: dict[str, list[Page]] = {}
    for page in pages:
        sites.setdefault(page.site_id, []).append(page)
    subresources = subresources if subresources is not None else SubresourceSources()
    whole = [_site_task(site, subresources) for site in sites.values()]
    large = [task for task in whole if len(task.pages) > SHARD_PAGES]
    site_level = model.recognizer.site_level
    needs_cleaner = model.config.cleaning.method != "none"
    unprepared = [task for task in large
                  if site_level or (needs_cleaner and task.pages[0].site_id not in model.cleaners)]
    # the statistics task reads its whole site: render what the cache lacks first, shard by shard in parallel
    uncached = [SiteTask(task.sources, task.pages[start:start + SHARD_PAGES])
                for task in unprepared
                if model.recognizer.needs_render and not _all_cached(task, model.config.render)
                for start in range(0, len(task.pages), SHARD_PAGES)]
    if uncached:
        for _ in cluster.map_tasks(render_shard, model, uncached, sizes=[len(t.pages) for t in uncached],
                                   desc="render"):
            pass
    prepared = {statistics.site_id: statistics for statistics in cluster.map_tasks(
        fit_site_statistics, model, unprepared, sizes=[len(t.pages) for t in unprepared], desc="site statistics")
        } if unprepared else {}
    tasks: list[tuple[SiteTask, SiteStatistics | None]] = [(task, None) for task in whole
                                                            if len(task.pages) <= SHARD_PAGES]
    for task in large:
        site_id = task.pages[0].site_id
        statistics = prepared.get(site_id)  # None: nothing to compute (the model has the site's cleaner)
        if statistics is not None and statistics.error:
            tasks.append((task, None))
            continue
        starts = range(0, len(task.pages), SHARD_PAGES)
        tasks.extend((SiteTask(task.sources, task.pages[start:start + SHARD_PAGES],
                               (index, len(starts)) if site_level else None), statistics)
                     for index, start in enumerate(starts))
    return tasks


def _all_cached(task: SiteTask, render: RenderConfig) -> bool:
    """Whether the render cache (as this process sees it) holds the rendering of every page of the task."""
    cache, settings, subresources = RenderCache(render.cache_path()), render_settings(render), task.subresources()
    return all((path := cache.path(page, settings, subresources.for_page(page))) is not None and path.exists()
               for page in task.pages)


def render_shard(model: TrainedModel, task: SiteTask) -> int:
    """Render the task's pages into the render cache (those it lacks): a task of a cluster run, so that a
    large site's statistics task reads its pages instead of rendering the whole site alone.

    Returns
    -------
    n_failed : int
        Pages that could not be rendered (their error rows come with the site's predictions).
    """
    return len(render_all(task.pages, task.read(model), desc="render")[1])


def fit_site_statistics(model: TrainedModel, task: SiteTask) -> SiteStatistics:
    """The site-level statistics of the task's pages (one whole site): a task of a cluster run.

    The site's cleaner is fitted when the model has none for it (:func:`cleaners_for`); a site-level
    recogniser's ``site_statistics`` are counted on the site's rendered and cleaned documents, in the
    order the pages were read, as :func:`predict_pages` gives them (pages come from the render cache
    when it holds them). An error is returned in the result (the site is then predicted whole), not
    raised.
    """
    site_id, read = task.pages[0].site_id, task.read(model)
    try:
        cleaners = cleaners_for(model, task.pages, read)
        recognizer_statistics = None
        if model.recognizer.site_level:
            documents, _ = render_all(task.pages, read, rendered=model.recognizer.needs_render,
                                      desc="site statistics")
            recognizer_statistics = model.recognizer.site_statistics(clean_documents(documents, cleaners))
    except Exception as error:  # noqa: BLE001 - one site's failure must not stop the run
        logger.warning("site %s: site statistics failed (%s); it is predicted whole", site_id, error)
        return SiteStatistics(site_id, error=f"{type(error).__name__}: {error}")
    own = {site_id: cleaners[site_id]} if site_id in cleaners and site_id not in model.cleaners else {}
    return SiteStatistics(site_id, own, recognizer_statistics)


def predict_site(
    model: TrainedModel, task: SiteTask, statistics: SiteStatistics | None = None
) -> list[Prediction] | ScoredShard:
    """Predict the pages of a task (:class:`SiteTask`) in a worker process.

    :func:`~mainentity.pipeline.predict_pages` with the task's subresources and the site's cleaner from
    ``statistics`` (a shard's, fitted once on its whole site) added to the model's; a shard of a
    site-level recogniser's site is scored with the site statistics instead.

    Returns
    -------
    predictions : list of Prediction or ScoredShard
        One prediction per page of the task; for a shard of a site-level recogniser's site
        (``task.shard`` set), its :class:`ScoredShard`, predicted by :func:`predict_scored_shards`.
    """
    if statistics is not None and statistics.cleaners:
        model = dataclasses.replace(model, cleaners={**model.cleaners, **statistics.cleaners})
    read = task.read(model)
    if task.shard is None:
        return predict_pages(model, task.pages, read=read, render_policy="always")
    site_id = task.pages[0].site_id
    documents, failures = render_all(task.pages, read, rendered=model.recognizer.needs_render, desc="score shard")
    try:
        scored = model.recognizer.score_shard(clean_documents(documents, model.cleaners),
                                              statistics.recognizer_statistics)
    except Exception as error:  # noqa: BLE001 - one site's failure must not stop the run
        logger.warning("site %s: shard %d failed (%s); the site is predicted whole", site_id, task.shard[0], error)
        return ScoredShard(site_id, task.shard, error=f"{type(error).__name__}: {error}")
    return ScoredShard(site_id, task.shard, tuple(failures), scored)


def predict_site_rendering_few(models: RenderFewModels, task: SiteTask) -> list[Prediction]:
    """Predict a whole site with the ``auto`` render policy in a worker process: the task of an ``auto``
    cluster run (:func:`mainentity.pipeline.predict_pages` with ``render_policy="auto"``, so the rows
    are those of a run in one process).

    Returns
    -------
    predictions : list of Prediction
        One per page of the task, ``answered_by`` set.
    """
    return predict_pages(models.model, task.pages, read=task.read(models.model), subresources=task.subresources(),
                         render_policy="auto", static_model=models.static_model)


def predict_scored_shards(recognizer: Recognizer, shards: Sequence[ScoredShard]) -> list[Prediction]:
    """The rows of a site-level recogniser's site from all its scored shards, in shard order.

    The site-level inference runs over all the site's scored pages
    (:meth:`~mainentity.recognizers.base.Recognizer.predict_scored`), so the rows are those of
    :func:`predict_pages` on the whole site.

    Returns
    -------
    predictions : list of Prediction
        The error rows of the pages that could not be rendered, then one per other page.

    Raises
    ------
    ValueError
        If a shard could not be scored (its reason is given).
    """
    for shard in shards:
        if shard.error:
            raise ValueError(f"site {shard.site_id}, shard {shard.shard[0]}: {shard.error}")
    failures = [failure for shard in shards for failure in shard.failures]
    return failures + recognizer.predict_scored([page for shard in shards for page in shard.scored])


def predict_on_cluster(
    model: TrainedModel,
    pages: Sequence[Page],
    cluster: TaskRunner,
    subresources: SubresourceSources | None = None,
    *,
    render_policy: str | None = None,
    static_model: TrainedModel | None = None,
) -> Iterator[Prediction]:
    """Predict every page of whole sites on a cluster; yield the rows as sites and tasks finish.

    The tasks are :func:`site_tasks`; a site-level recogniser's large site is predicted in this
    process (:func:`predict_scored_shards`) once all its shards are in. A site whose shards fail is
    then predicted whole by one more task, as in process. With the ``auto`` render policy (for a model
    it applies to: :func:`mainentity.pipeline.renders_few`) each site is one task instead
    (:func:`predict_site_rendering_few`), which renders the site's sample once.

    Parameters
    ----------
    model : TrainedModel
    pages : sequence of Page
        All the pages of one or more sites, anchors filled.
    cluster : TaskRunner
        A started cluster (:class:`mainentity.distributed.DaskSites`).
    subresources : SubresourceSources, optional
        What serves each site's stylesheets, fonts and images.
    render_policy : {"always", "auto"}, optional
        Default the model config's ``render.policy``.
    static_model : TrainedModel, optional
        With ``auto``: the model that answers the pages of small sites from their HTML.

    Yields
    ------
    prediction : Prediction
        One per page.
    """
    subresources = subresources if subresources is not None else SubresourceSources()
    if (model.config.render.policy if render_policy is None else render_policy) == "auto" and renders_few(model):
        sites: dict[str, list[Page]] = defaultdict(list)
        for page in pages:
            sites[page.site_id].append(page)
        whole = [_site_task(site, subresources) for site in sites.values()]
        answered: Counter = Counter()
        for predictions in cluster.map_tasks(predict_site_rendering_few, RenderFewModels(model, static_model), whole,
                                             sizes=[len(task.pages) for task in whole]):
            answered.update(prediction.answered_by for prediction in predictions)
            yield from predictions
        logger.info("render policy auto: %d of %d pages rendered (%d by slot, %d static)", answered["rendered"],
                    answered.total(), answered["slot"], answered["static"])
        return
    planned = site_tasks(model, pages, cluster, subresources)
    tasks = [task for task, _ in planned]
    shards: dict[str, dict[int, ScoredShard]] = defaultdict(dict)
    failed_sites: list[str] = []
    for result in cluster.map_tasks(predict_site, model, tasks, sizes=[len(task.pages) for task in tasks],
                                    site_data=[statistics for _, statistics in planned]):
        if not isinstance(result, ScoredShard):
            yield from result
            continue
        site = shards[result.site_id]
        site[result.shard[0]] = result
        if len(site) < result.shard[1]:
            continue
        del shards[result.site_id]
        try:
            predictions = [prediction.answered(answered_by(model)) for prediction in
                           predict_scored_shards(model.recognizer, [site[index] for index in range(len(site))])]
        except Exception as error:  # noqa: BLE001 - one site's failure must not stop the run
            logger.warning("%s; the site is predicted whole", error)
            failed_sites.append(result.site_id)
            continue
        yield from predictions
    retries = [_site_task([page for page in pages if page.site_id == site_id], subresources)
               for site_id in failed_sites]
    for predictions in cluster.map_tasks(predict_site, model, retries, sizes=[len(task.pages) for task in retries],
                                         desc="predict whole"):
        yield from predictions
