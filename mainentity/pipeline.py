"""The one module that composes the stages: site dumps -> render -> cleaning -> recogniser.

Everything above it (``runs``, the CLI, ``train.py``) calls these functions; the stages never import
this module.
"""

from __future__ import annotations

import logging
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from mainentity.collector import fewer_cycle_collections
from mainentity.config import CleaningConfig, DataConfig, RenderConfig
from mainentity.linkgraph import AnchorCoverage, link_graph
from mainentity.recognizers.base import Recognizer
from mainentity.records import Document, Page, Prediction
from mainentity.sitedump import PageFailure, read_dataset
from mainentity.splits import site_folds, split_pages
from mainentity.warc import is_warc_input, read_warcs

if TYPE_CHECKING:  # the renderer (and Playwright) is imported only when pages are rendered
    from mainentity.render.browser import Renderer

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoadedPages:
    """Pages read from the configured datasets, with incoming anchors, and the files that failed.

    Attributes
    ----------
    pages : tuple of Page
        The readable pages, ``anchors`` filled.
    failures : tuple of PageFailure
        The files that could not be read.
    anchor_coverage : tuple of AnchorCoverage
        Per site dump: how many pages received incoming anchor texts, and how links were matched.
    """

    pages: tuple[Page, ...]
    failures: tuple[PageFailure, ...]
    anchor_coverage: tuple[AnchorCoverage, ...] = ()


def load_pages(
    datasets: Iterable[str],
    *,
    base_url: str | None = None,
    max_pages_per_site: int | None = None,
    anchor_url_pattern: str | None = None,
) -> LoadedPages:
    """Read every site dump of the given datasets and fill each page's incoming anchor texts (ILA).

    A dataset may also be a WARC file or a folder of them (:func:`mainentity.warc.is_warc_input`): all
    the WARC inputs are read together into one site per host (:func:`mainentity.warc.read_warcs`);
    ``base_url`` does not apply to them (their records carry their URLs).

    The link graph is computed per site dump (Carullo & Binaghi 2010, section 2: A is the set of
    anchor texts of links in the site that point to the page) by :func:`mainentity.linkgraph.link_graph`,
    which learns how the site's URLs name its pages; ``anchor_url_pattern`` overrides that. The anchor
    coverage is logged (:func:`log_anchor_coverage`) and returned.

    Raises
    ------
    ValueError
        If a dataset directory holds no site dump, or ``anchor_url_pattern`` is not a regular expression.
    ImportError
        If a WARC file is given and FastWARC is not installed.
    """
    pages: list[Page] = []
    failures: list[PageFailure] = []
    coverage: list[AnchorCoverage] = []
    datasets = list(datasets)
    crawls = [dataset for dataset in datasets if is_warc_input(dataset)]
    sites = [site for dataset in datasets if dataset not in crawls
             for site in read_dataset(dataset, base_url=base_url, max_pages_per_site=max_pages_per_site)]
    if crawls:
        warc_input = read_warcs(crawls, max_pages_per_site=max_pages_per_site)
        sites.extend(warc_input.sites)
        failures.extend(warc_input.failures)
    for site in sites:
        graph = link_graph(site.pages, url_pattern=anchor_url_pattern)
        pages.extend(replace(page, anchors=graph.anchors[page.path]) for page in site.pages)
        failures.extend(site.failures)
        coverage.append(graph.coverage)
    log_anchor_coverage(coverage)
    return LoadedPages(tuple(pages), tuple(failures), tuple(coverage))


def with_site_anchors(pages: Sequence[Page], *, anchor_url_pattern: str | None = None) -> list[Page]:
    """The pages with their incoming anchor texts (ILA) from the links among the given pages of each site.

    What :func:`load_pages` does per site dump, for pages that come from elsewhere (built in memory):
    the pages are grouped by ``site_id`` and each group is a site for
    :func:`mainentity.linkgraph.link_graph`; the coverage is logged (:func:`log_anchor_coverage`).

    Parameters
    ----------
    pages : sequence of Page
        ``(site_id, path)`` unique; their ``anchors`` are replaced.
    anchor_url_pattern : str, optional
        Passed to :func:`~mainentity.linkgraph.link_graph` as ``url_pattern``.

    Returns
    -------
    pages : list of Page
        New pages, in the given order.

    Raises
    ------
    ValueError
        If two pages of a site share a path, or the pattern is not a regular expression.

    Examples
    --------
    >>> a = Page("s", "a.html", "https://s.example/a.html", '<a href="b.html">Bee</a>')
    >>> b = Page("s", "b.html", "https://s.example/b.html", "<p>b</p>")
    >>> [page.anchors for page in with_site_anchors([a, b])]
    [(), ('Bee',)]
    """
    by_site: dict[str, list[Page]] = defaultdict(list)
    for page in pages:
        by_site[page.site_id].append(page)
    anchors: dict[tuple[str, str], tuple[str, ...]] = {}
    coverage = []
    for site_id, site_pages in by_site.items():
        graph = link_graph(site_pages, url_pattern=anchor_url_pattern)
        anchors.update(((site_id, path), texts) for path, texts in graph.anchors.items())
        coverage.append(graph.coverage)
    log_anchor_coverage(coverage)
    return [replace(page, anchors=anchors[page_key(page)]) for page in pages]


def _site_coverage_note(site: AnchorCoverage) -> str:
    """The site's coverage line; for a silent site (several pages, no anchor text) with what to check."""
    if site.silent:
        return f"{site.summary()}: check that its pages link to each other, or set data.anchor_url_pattern"
    return site.summary()


def anchor_coverage_notes(coverage: Sequence[AnchorCoverage]) -> list[str]:
    """Report lines on the incoming-anchor coverage: one overall, one per site of several pages.

    A site of several pages where no page received an anchor text gets a warning: its anchor-text
    features are empty, so models that use them see less than they were designed for.

    Examples
    --------
    >>> for line in anchor_coverage_notes([AnchorCoverage("a", 3, 0), AnchorCoverage("b", 1, 0)]):
    ...     print(line[:50])
    Incoming anchor texts (ILA): 0 of 4 pages (0.0%) i
    Warning: site a: 0 of 3 pages (0.0%) have incoming
    """
    n_pages = sum(site.n_pages for site in coverage)
    n_with = sum(site.n_pages_with_anchors for site in coverage)
    share = n_with / n_pages if n_pages else 0.0
    lines = [f"Incoming anchor texts (ILA): {n_with} of {n_pages} pages ({share:.1%}) in {len(coverage)} "
             f"site{'s' if len(coverage) != 1 else ''} have at least one."]
    for site in coverage:
        if site.n_pages >= 2:
            lines.append(("Warning: " if site.silent else "") + _site_coverage_note(site))
    return lines


def log_anchor_coverage(coverage: Sequence[AnchorCoverage]) -> None:
    """Log the overall coverage and each site of several pages (info), a silent site as a warning."""
    logger.info("%s", anchor_coverage_notes(coverage)[0])
    for site in coverage:
        if site.n_pages >= 2:
            (logger.warning if site.silent else logger.info)("%s", _site_coverage_note(site))


def load_labeled_pages(
    data: DataConfig, *, random_state: int = 0, max_pages: int | None = None
) -> tuple[LoadedPages, list[Page]]:
    """Load a config's datasets and keep their labeled pages, at most ``max_pages`` of them.

    The limit is the smaller of ``max_pages`` and ``data.max_pages``; above it a seeded sample (in
    dataset order) is kept.

    Returns
    -------
    loaded : LoadedPages
        Every page read (labeled or not) and the files that failed.
    labeled : list of Page
        The labeled pages used for training and testing.

    Raises
    ------
    ValueError
        If the datasets hold no labeled page.
    """
    loaded = load_pages(
        data.datasets,
        base_url=data.base_url,
        max_pages_per_site=data.max_pages_per_site,
        anchor_url_pattern=data.anchor_url_pattern,
    )
    labeled = [page for page in loaded.pages if page.main_entity]
    if not labeled:
        raise ValueError(f"no labeled pages in {', '.join(data.datasets) or 'data.datasets (empty)'}")
    limit = min(n for n in (max_pages, data.max_pages, len(labeled)) if n is not None)
    if limit < len(labeled):
        keep = np.random.default_rng(random_state).choice(len(labeled), limit, replace=False)
        labeled = [labeled[i] for i in sorted(keep)]
    return loaded, labeled


def train_test_folds(
    data: DataConfig, labeled: Sequence[Page], *, random_state: int = 0, max_pages: int | None = None
) -> list[tuple[list[Page], list[Page]]]:
    """The ``(train, test)`` page lists a config's data section asks for.

    ``random`` and ``by-site`` give one split of ``labeled`` (:func:`mainentity.splits.split_pages`);
    ``none`` trains on every labeled page and tests on the labeled pages of ``data.test_datasets``
    (none when it is empty); ``site-folds`` gives ``data.n_folds`` folds of whole sites
    (:func:`mainentity.splits.site_folds`).

    Parameters
    ----------
    data : DataConfig
    labeled : sequence of Page
        The labeled pages of ``data.datasets`` (:func:`load_labeled_pages`).
    random_state : int
        Seed of the split and of the test pages' sample.
    max_pages : int, optional
        At most this many test pages from ``test_datasets`` (also capped by ``data.max_pages``).

    Returns
    -------
    folds : list of (train, test)

    Raises
    ------
    ValueError
        On a split that cannot be made (see :mod:`mainentity.splits`), or ``test_datasets`` without
        labeled pages.
    """
    if data.split == "site-folds":
        return site_folds(labeled, data.n_folds, random_state=random_state)
    train, test = split_pages(labeled, method=data.split, train_fraction=data.train_fraction,
                              random_state=random_state)
    if data.test_datasets:
        test_data = replace(data, datasets=data.test_datasets, test_datasets=())
        test = load_labeled_pages(test_data, random_state=random_state, max_pages=max_pages)[1]
    return [(train, test)]


def page_key(page: Page) -> tuple[str, str]:
    """``(site_id, path)``: how a page is identified across records and output rows."""
    return page.site_id, page.path


def error_prediction(page: Page, reason: str) -> Prediction:
    """The output row of a page that has no answer, with the reason."""
    return Prediction(page.site_id, page.path, page.url, error=reason)


def render_settings(render: RenderConfig):
    """The renderer's settings from the config's ``render`` section; Chromium is the one the user's
    environment names (:func:`mainentity.render.browser.default_chromium`), never the config's."""
    from mainentity.render.browser import RenderSettings

    return RenderSettings(
        javascript=render.javascript,
        timeout_s=render.timeout_s,
        concurrency=render.concurrency,
        retries=render.retries,
        subresources=render.subresources,
    )


def iter_documents(
    pages: Sequence[Page], *, needs_render: bool, render: RenderConfig, renderer: Renderer | None = None
) -> Iterator[tuple[Page, Document | None, str]]:
    """Yield ``(page, document, error)`` for each page, as pages finish (any order).

    With ``needs_render`` the pages go through headless Chromium (cached on disk under
    ``render.cache_path()``); otherwise the document carries only the page. ``document`` is ``None`` and
    ``error`` says why when a page could not be rendered. ``renderer`` (a
    :class:`mainentity.render.Renderer` with :func:`render_settings` of ``render``) renders the
    cache misses and is left running for the caller's next batch; by default a browser is started
    for this batch only (:func:`mainentity.render.cache.render_pages`).
    """
    if not needs_render:
        for page in pages:
            yield page, Document(page), ""
        return
    from mainentity.render.cache import render_pages

    outcomes = render_pages(pages, render_settings(render), cache_dir=render.cache_path(), renderer=renderer)
    for outcome in outcomes:
        if outcome.rendered is None:
            yield outcome.page, None, outcome.error
        else:
            yield outcome.page, Document(outcome.page, outcome.rendered), ""


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

    The cycle collector runs less often meanwhile (:func:`mainentity.collector.fewer_cycle_collections`).
    """
    with fewer_cycle_collections():
        predictions: list[Prediction] = []

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
                    logger.warning("no prediction for %s/%s: %s", page.site_id, page.path, error)
                    emit(error_prediction(page, error))
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
                logger.warning("no prediction for %s/%s: %s", page.site_id, page.path, error)
                emit(error_prediction(page, error))
                continue
            batch.append(document)
            if len(batch) >= batch_size:
                flush(batch)
                batch = []
        if batch:
            flush(batch)
        return predictions


def labels_of(pages: Iterable[Page]) -> dict[tuple[str, str], tuple[str, ...]]:
    """``(site_id, path) -> labels`` of the labeled pages (the evaluation's gold standard)."""
    return {page_key(page): page.main_entity for page in pages if page.main_entity}


def data_summary(data: DataConfig, loaded: LoadedPages) -> dict:
    """Counts that a run records about its data."""
    n_sites = len({page.site_id for page in loaded.pages})
    labeled = sum(1 for page in loaded.pages if page.main_entity)
    with_anchors = sum(1 for page in loaded.pages if page.anchors)
    return {
        "datasets": list(data.datasets),
        "n_sites": n_sites,
        "n_pages": len(loaded.pages),
        "n_labeled_pages": labeled,
        "n_unreadable_pages": len(loaded.failures),
        "share_pages_with_anchors": round(with_anchors / len(loaded.pages), 4) if loaded.pages else math.nan,
        "anchor_coverage": [asdict(site) for site in loaded.anchor_coverage],
    }
