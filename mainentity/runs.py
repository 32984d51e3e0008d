"""Train, evaluate and predict runs: what ``train.py`` and the CLI call.

A trained model is a directory::

    <runs_dir>/<name>/
        model.skops        the fitted recogniser, the per-site cleaners and the digests of the
                           training pages (a safe model file: :mod:`mainentity.model_io`)
        config.yaml        the resolved config
        meta.json          package version, counts and timings (seconds)
        predictions.jsonl  the test split's predictions
        report.md, summary.csv, per_site.csv, per_page.csv   the test split's evaluation
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import time
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from tqdm import tqdm

from mainentity import __version__
from mainentity.collector import fewer_cycle_collections
from mainentity.config import (
    CleaningConfig,
    Config,
    ConfigError,
    RenderConfig,
    config_to_dict,
    model_config_from_dict,
)
from mainentity.evaluation.report import write_text_atomic
from mainentity.model_io import MODEL_FILE, ModelFormatError, load_model_file, save_model_file
from mainentity.pipeline import (
    anchor_coverage_notes,
    clean_documents,
    data_summary,
    error_prediction,
    fit_cleaners,
    fit_recognizer,
    iter_documents,
    labels_of,
    load_labeled_pages,
    load_pages,
    page_key,
    predict_documents,
    render_settings,
    train_test_folds,
)
from mainentity.prediction_writer import PredictionWriter
from mainentity.recognizers.base import Recognizer, make_recognizer
from mainentity.records import Document, Page, Prediction
from mainentity.render.cache import RenderCache
from mainentity.sitedump import page_digest, register_dump, register_subresources, registered_dump
from mainentity.warc import WarcSubresources, registered_warc_subresources

if TYPE_CHECKING:
    from mainentity.render.browser import Renderer

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainedModel:
    """A model directory loaded back: its config, recogniser, per-site cleaners and training pages.

    ``training_pages`` holds :func:`page_digest` of each page the recogniser was fitted on.
    """

    directory: Path
    config: Config
    recognizer: Recognizer
    cleaners: dict
    training_pages: frozenset[str] = frozenset()


def _progress(iterable, total: int, desc: str):
    return tqdm(iterable, total=total, desc=desc, unit="page", disable=None, leave=False)


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


def render_all(
    pages: Sequence[Page], config: Config, needs_render: bool, desc: str, renderer: Renderer | None = None
):
    """Documents of ``pages`` (rendered when needed), and error predictions of the pages that failed.

    ``renderer``: a running browser to reuse (see :func:`mainentity.pipeline.iter_documents`).
    """
    documents: dict[tuple[str, str], Document] = {}
    failed: list[Prediction] = []
    stream = iter_documents(pages, needs_render=needs_render, render=config.render, renderer=renderer)
    with fewer_cycle_collections():  # every document stays alive: see mainentity.collector
        for page, document, error in _progress(stream, len(pages), desc):
            if document is None:
                logger.warning("render failed for %s/%s: %s", page.site_id, page.path, error)
                failed.append(error_prediction(page, error))
            else:
                documents[page_key(page)] = document
    ordered = [documents[page_key(page)] for page in pages if page_key(page) in documents]
    return ordered, failed


def train(config: Config) -> Path:
    """Train the configured recogniser, save the model directory and evaluate the test split.

    Returns
    -------
    run_dir : Path
        ``<output.runs_dir>/<name>``, holding the model, the resolved config, the test predictions and
        the evaluation report.

    Raises
    ------
    ValueError
        If the datasets hold no labeled page, or the model name or a parameter is unknown.
    """
    started = time.perf_counter()
    recognizer = build_recognizer(config)
    if config.cleaning.method != "none":
        from mainentity.cleaning import make_cleaner

        try:  # fail on a misspelt cleaning parameter now, not after rendering every page
            make_cleaner(config.cleaning.method, **config.cleaning.params)
        except ValueError as error:
            raise ValueError(f"config {config.name!r}, section 'cleaning': {error}") from error
    run_dir = Path(config.output.runs_dir) / config.name
    run_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(run_dir / "config.yaml", yaml.safe_dump(_portable_config(config), sort_keys=False))

    if config.data.split == "site-folds":
        raise ValueError(f"config {config.name!r}: 'data.split: site-folds' trains one model per fold; it is for "
                         "the benchmark (mainentity benchmark), not for training one model")
    loaded, labeled = load_labeled_pages(config.data, random_state=config.seed)
    ((train_pages, test_pages),) = train_test_folds(config.data, labeled, random_state=config.seed)
    logger.info("%d train pages, %d test pages", len(train_pages), len(test_pages))

    timings: dict[str, float] = {}
    tick = time.perf_counter()
    documents, render_failures = render_all(
        train_pages + test_pages, config, recognizer.needs_render, desc="render"
    )
    timings["render_s"] = time.perf_counter() - tick

    tick = time.perf_counter()
    cleaners = fit_cleaners(documents, config.cleaning, random_state=config.seed)
    timings["cleaning_fit_s"] = time.perf_counter() - tick

    train_keys = {page_key(page) for page in train_pages}
    train_documents = [doc for doc in documents if page_key(doc.page) in train_keys]
    test_documents = [doc for doc in documents if page_key(doc.page) not in train_keys]
    tick = time.perf_counter()
    fit_recognizer(recognizer, train_documents, cleaners, config.cleaning)
    timings["fit_s"] = time.perf_counter() - tick
    training_pages = sorted({page_digest(doc.page) for doc in train_documents})
    save_model_file(
        {"recognizer": recognizer, "cleaners": cleaners, "training_pages": training_pages}, run_dir / MODEL_FILE
    )

    if not test_pages:  # split none: a model to ship, nothing held out to score it on
        timings["total_s"] = time.perf_counter() - started
        _write_meta(run_dir, config, loaded, train_pages, test_pages, render_failures, timings, {})
        logger.info("run written to %s (%.1f s; no test pages)", run_dir, timings["total_s"])
        return run_dir

    tick = time.perf_counter()
    predictions_path = run_dir / "predictions.jsonl"
    predictions_path.unlink(missing_ok=True)
    with PredictionWriter(predictions_path) as writer:
        test_failures = [p for p in render_failures if (p.site_id, p.path) not in train_keys]
        for failure in test_failures:
            writer.write(failure)
        predictions = test_failures + predict_documents(
            recognizer,
            ((doc.page, doc, "") for doc in test_documents),
            cleaners=cleaners,
            on_prediction=writer.write,
            pages_per_site=Counter(doc.page.site_id for doc in test_documents),
        )
    timings["predict_s"] = time.perf_counter() - tick
    timings["predict_pages_per_s"] = len(test_documents) / max(timings["predict_s"], 1e-9)

    summary = _evaluate(
        predictions, labels_of(test_pages), config, run_dir, title=f"{config.name}: test split",
        notes=anchor_coverage_notes(loaded.anchor_coverage),
    )
    timings["total_s"] = time.perf_counter() - started
    _write_meta(run_dir, config, loaded, train_pages, test_pages, render_failures, timings, summary)
    logger.info("run written to %s (%.1f s)", run_dir, timings["total_s"])
    return run_dir


def _write_meta(run_dir, config, loaded, train_pages, test_pages, render_failures, timings, summary) -> None:
    meta = {
        "mainentity_version": __version__,
        "model": config.model.name,
        "data": data_summary(config.data, loaded),
        "n_train_pages": len(train_pages),
        "n_test_pages": len(test_pages),
        "n_render_failures": len(render_failures),
        "timings": {key: round(value, 3) for key, value in timings.items()},
        "test_summary": summary,
    }
    write_text_atomic(run_dir / "meta.json", json.dumps(meta, indent=2, default=str))


def _evaluate(predictions, labels, config: Config, out_dir: Path, *, title: str, notes=()) -> dict:
    """Score predictions against labels, write the report files into ``out_dir``; return the summary."""
    from mainentity.evaluation.bootstrap import add_ci_columns
    from mainentity.evaluation.report import evaluate_predictions, summarize, write_report

    dataset = ",".join(Path(d).name for d in (config.data.test_datasets or config.data.datasets))
    per_page = evaluate_predictions(predictions, labels, system=config.name, dataset=dataset)
    summary = add_ci_columns(summarize(per_page), per_page, random_state=config.seed)
    write_report(per_page, out_dir, title=title, notes=notes, summary=summary)
    return summary.iloc[0].to_dict() if len(summary) else {}


#: Where the models that ship with the package live: ``pretrained/<name>/`` beside this module.
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"

#: The model used when a command names none: the general recogniser trained on all shared labeled data.
DEFAULT_MODEL = "general"


def pretrained_names() -> list[str]:
    """Names of the models that ship with the package (directories under :data:`PRETRAINED_DIR`).

    >>> "general" in pretrained_names()
    True
    """
    if not PRETRAINED_DIR.is_dir():
        return []
    return sorted(path.name for path in PRETRAINED_DIR.iterdir() if (path / MODEL_FILE).is_file())


def is_model_reference(model: str | Path) -> bool:
    """Whether ``model`` names a model: a directory with ``config.yaml``, or a shipped model's name.

    >>> is_model_reference("general"), is_model_reference("datasets/sample-shop")
    (True, False)
    """
    path = Path(model)
    return (path / "config.yaml").is_file() or (not path.exists() and str(model) in pretrained_names())


def resolve_model(model: str | Path | None) -> Path:
    """The model directory a command means: a directory, the name of a shipped model, or the default.

    Parameters
    ----------
    model : str, Path or None
        A model directory written by :func:`train`; else the name of a model that ships with the package
        (:func:`pretrained_names`); ``None`` for :data:`DEFAULT_MODEL`.

    Returns
    -------
    directory : Path

    Raises
    ------
    FileNotFoundError
        If ``model`` is neither a directory nor a shipped model's name (the message lists those).

    Examples
    --------
    >>> resolve_model(None).name
    'general'
    """
    if model is None:
        model = DEFAULT_MODEL
    if Path(model).is_dir():
        return Path(model)
    if str(model) in pretrained_names():
        return PRETRAINED_DIR / str(model)
    raise FileNotFoundError(
        f"{model} is neither a model directory nor a model that ships with mainentity "
        f"({', '.join(pretrained_names()) or 'none installed'})"
    )


def ship_model(run_dir: str | Path, name: str | None = None) -> Path:
    """Copy a trained model (model file, ``config.yaml``, ``meta.json``) into the package's shipped models.

    Files are replaced atomically, one by one; other files of the shipped model's directory (its notes
    on data sources) are kept.

    Returns
    -------
    directory : Path
        ``PRETRAINED_DIR / name`` (``name`` defaults to the run directory's name).

    Raises
    ------
    FileNotFoundError
        If the run directory lacks the model file, ``config.yaml`` or ``meta.json``.
    """
    run_dir = Path(run_dir)
    target = PRETRAINED_DIR / (name or run_dir.name)
    target.mkdir(parents=True, exist_ok=True)
    for file_name in (MODEL_FILE, "config.yaml", "meta.json"):
        temporary = target / (file_name + ".tmp")
        shutil.copyfile(run_dir / file_name, temporary)
        os.replace(temporary, target / file_name)
    return target


def save_model(model: TrainedModel, directory: str | Path) -> Path:
    """Write a model directory that :func:`load_model` reads: the model file, ``config.yaml``, ``meta.json``.

    The model file holds the recogniser as it is now (parameters changed with ``set_params``
    included), the cleaners and the training pages' digests; ``config.yaml`` is the model's config with
    ``model.params`` set to the recogniser's current parameters; ``meta.json`` is copied from the
    model's own directory when it has one. Each file is written atomically.

    Parameters
    ----------
    model : TrainedModel
    directory : str or Path
        Created if missing; the files named above are replaced.

    Returns
    -------
    directory : Path

    Raises
    ------
    mainentity.model_io.UntrustedModelError
        If the recogniser holds a type a model file cannot hold (nothing is written then).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    params = model.recognizer.get_params(deep=False)
    config = dataclasses.replace(model.config, model=dataclasses.replace(model.config.model, params=params))
    save_model_file(
        {"recognizer": model.recognizer, "cleaners": model.cleaners, "training_pages": sorted(model.training_pages)},
        directory / MODEL_FILE,
    )
    write_text_atomic(directory / "config.yaml", yaml.safe_dump(_portable_config(config), sort_keys=False))
    meta = model.directory / "meta.json"
    if meta.is_file() and meta.resolve() != (directory / "meta.json").resolve():
        write_text_atomic(directory / "meta.json", meta.read_text(encoding="utf-8"))
    return directory


def _read_model_config(path: Path) -> Config:
    """A model directory's ``config.yaml``, read as data (:func:`mainentity.config.model_config_from_dict`).

    Raises
    ------
    ConfigError
        If it is not YAML (a tag such as ``!!python/object`` included: safe YAML builds no object), or
        sets a key a model may not set.
    """
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        reason = " ".join(str(error).split())
        raise ConfigError(f"{path}: not a model config (refused, nothing was run): {reason}") from error
    return model_config_from_dict(raw, str(path))


def _portable_config(config: Config) -> dict:
    """The config as a model directory keeps it: without the user's render cache directory (a model
    names no path; :func:`mainentity.config.model_config_from_dict` would refuse it)."""
    return config_to_dict(dataclasses.replace(config, render=dataclasses.replace(config.render, cache_dir=None)))


def load_model(model_dir: str | Path | None = None) -> TrainedModel:
    """Load a model directory written by :func:`train`, or a shipped model by name (see :func:`resolve_model`).

    The model file is read with :func:`mainentity.model_io.load_model_file`, which builds no object
    of an untrusted type, so a model directory from someone else can be opened safely.

    Raises
    ------
    FileNotFoundError
        If the directory has no ``config.yaml`` or no model file.
    mainentity.model_io.ModelFormatError
        If the model file is an old ``model.joblib`` pickle (never loaded) or has another format
        version; the message says what to do.
    mainentity.model_io.UntrustedModelError
        If the model file names a type that is not trusted.
    mainentity.config.ConfigError
        If ``config.yaml`` is not YAML or sets what a model may not set (a program or a path).
    """
    directory = resolve_model(model_dir)
    if not (directory / "config.yaml").is_file():
        raise FileNotFoundError(f"{directory} is not a model directory: config.yaml is missing")
    if not (directory / MODEL_FILE).is_file():
        if (directory / "model.joblib").is_file():
            raise ModelFormatError(
                f"{directory} holds a model.joblib pickle from an older mainentity; pickles can run code when "
                f"loaded, so it is not opened: retrain with `mainentity train {directory / 'config.yaml'}` "
                f"(writes {MODEL_FILE})"
            )
        raise FileNotFoundError(f"{directory} is not a model directory: {MODEL_FILE} is missing")
    config = _read_model_config(directory / "config.yaml")
    saved = load_model_file(directory / MODEL_FILE)
    return TrainedModel(
        directory, config, saved["recognizer"], saved["cleaners"], frozenset(saved.get("training_pages", ()))
    )


def predict(
    model_dir: str | Path | None,
    inputs: str | Path | Sequence[str | Path],
    output: str | Path,
    *,
    base_url: str | None = None,
    retry_errors: bool = False,
    cluster=None,
) -> int:
    """Predict the main entity of every page of site dumps, datasets or WARC files into a .jsonl/.csv file.

    Rows are written as pages finish; running again with the same output skips the pages already
    there. Unreadable and unrenderable pages get a row with ``error`` set; with ``retry_errors``
    those rows are removed from the output first, so their pages are tried again.

    Parameters
    ----------
    model_dir : str, Path or None
        See :func:`resolve_model`.
    inputs : str, Path or sequence of them
        Site dumps, datasets of site dumps, WARC files or folders of WARC files
        (:func:`mainentity.pipeline.load_pages`).
    output : str or Path
        The ``.jsonl`` or ``.csv`` file, resumed when it exists.
    base_url : str, optional
        URL prefix for pages of a dump without manifest or ``<base href>``.
    retry_errors : bool, default False
        Predict again the pages whose rows have an error.
    cluster : mainentity.distributed.DaskSites, optional
        A started cluster: each site, or shard of a large site, is then one task of :func:`predict_site`
        on it (:func:`predict_on_cluster`; the rows are the same; this process still writes them all).

    Returns
    -------
    n_written : int
        Rows written by this call.
    """
    model = load_model(model_dir)
    inputs = [inputs] if isinstance(inputs, (str, Path)) else list(inputs)
    loaded = load_pages(
        [str(path) for path in inputs], base_url=base_url, anchor_url_pattern=model.config.data.anchor_url_pattern
    )
    with PredictionWriter(output, retry_errors=retry_errors) as writer:
        n_before = len(writer.done)
        for failure in loaded.failures:
            if (failure.site_id, failure.path) not in writer.done:
                writer.write(Prediction(failure.site_id, failure.path, failure.url, error=failure.reason))
        todo = [page for page in loaded.pages if page_key(page) not in writer.done]
        if len(todo) < len(loaded.pages):
            n_done = len(loaded.pages) - len(todo)
            logger.info("resuming: %d of %d pages already in %s", n_done, len(loaded.pages), output)
        inputs = todo
        if model.recognizer.site_level:
            # site-level evidence and the site vote see every page of a site, as in an uninterrupted run;
            # rows already written are not written again
            todo_sites = {page.site_id for page in todo}
            inputs = [page for page in loaded.pages if page.site_id in todo_sites]
        done_before = set(writer.done)

        def write_new(prediction: Prediction) -> None:
            if (prediction.site_id, prediction.path) not in done_before:
                writer.write(prediction)

        started = time.perf_counter()
        if cluster is not None:
            cluster.hold_renderers(render_settings(model.config.render))
            for prediction in predict_on_cluster(model, inputs, cluster):
                write_new(prediction)
        else:
            predict_pages(model, inputs, on_prediction=write_new, progress=True)
        seconds = time.perf_counter() - started
        logger.info("predicted %d pages in %.1f s (%.2f pages/s; reading the inputs and the model not counted)",
                    len(inputs), seconds, len(inputs) / max(seconds, 1e-9))
        return len(writer.done) - n_before


#: Pages per task of a cluster run: a larger site is split into shards of at most this many pages, after
#: its site-level statistics (its cleaner, and a site-level recogniser's site statistics) are computed once.
SHARD_PAGES = 250


@dataclass(frozen=True)
class SiteTask:
    """The work of one task of a cluster run: the pages of one site, or a shard of them.

    Attributes
    ----------
    directory : Path or None
        The site dump the pages were read from (``None`` for pages of WARC files).
    pages : tuple of Page
        Pages of one site, in the order they were read.
    shard : tuple of (int, int) or None
        ``(index, n_shards)`` for a shard of a site-level recogniser's site: its pages are scored in
        the task (:class:`ScoredShard`) and predicted in the client once every shard of the site is in
        (:func:`predict_scored_shards`). ``None`` for a task whose pages are predicted in the task.
    warc_subresources : WarcSubresources or None
        For pages of WARC files, where the stylesheet, font and image records served to them lie (not
        their bytes: the worker reads them from the same WARC path).
    """

    directory: Path | None
    pages: tuple[Page, ...]
    shard: tuple[int, int] | None = None
    warc_subresources: WarcSubresources | None = None


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


def site_tasks(model: TrainedModel, pages: Sequence[Page], cluster) -> list[tuple[SiteTask, SiteStatistics | None]]:
    """The tasks of a cluster run: one per site, or shards of :data:`SHARD_PAGES` pages of a large site.

    A site of more than :data:`SHARD_PAGES` pages is split after its site-level statistics are computed
    once on the whole site by a task of ``cluster`` (:func:`fit_site_statistics`): its cleaner when the
    model has none for it, and a site-level recogniser's site statistics. That task reads every page of
    the site, so when the render cache (as this process sees it) lacks some, the site's shards are first
    rendered by parallel tasks (:func:`render_shard`). A site whose statistics fail is one task,
    predicted whole as in process.

    Returns
    -------
    tasks : list of (SiteTask, SiteStatistics or None)
        Each task with the statistics of its site when it is a shard (the same object for all the
        shards of a site: ``cluster.map_tasks(..., site_data=...)`` sends it to the workers once).
    """
    sites: dict[str, list[Page]] = {}
    for page in pages:
        sites.setdefault(page.site_id, []).append(page)
    whole = [SiteTask(registered_dump(site_id), tuple(site), warc_subresources=registered_warc_subresources(site_id))
             for site_id, site in sites.items()]
    large = [task for task in whole if len(task.pages) > SHARD_PAGES]
    site_level = model.recognizer.site_level
    needs_cleaner = model.config.cleaning.method != "none"
    unprepared = [task for task in large
                  if site_level or (needs_cleaner and task.pages[0].site_id not in model.cleaners)]
    # the statistics task reads its whole site: render what the cache lacks first, shard by shard in parallel
    uncached = [SiteTask(task.directory, task.pages[start:start + SHARD_PAGES],
                         warc_subresources=task.warc_subresources)
                for task in unprepared
                if model.recognizer.needs_render and not _all_cached(task.pages, model.config.render)
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
        tasks.extend((SiteTask(task.directory, task.pages[start:start + SHARD_PAGES],
                               (index, len(starts)) if site_level else None, task.warc_subresources), statistics)
                     for index, start in enumerate(starts))
    return tasks


def _with_task_dump(task: SiteTask) -> None:
    """Record the task's site dump (or WARC records) in this process, so its stylesheets and fonts are
    served as in process."""
    if task.directory is not None and task.pages:
        register_dump(task.pages[0].site_id, task.directory)
    if task.warc_subresources is not None and task.pages:
        register_subresources(task.pages[0].site_id, task.warc_subresources)


def _all_cached(pages: Sequence[Page], render: RenderConfig) -> bool:
    """Whether the render cache (as this process sees it) holds every page's rendering."""
    cache, settings = RenderCache(render.cache_path()), render_settings(render)
    return all((path := cache.path(page, settings)) is not None and path.exists() for page in pages)


def render_shard(model: TrainedModel, task: SiteTask) -> int:
    """Render the task's pages into the render cache (those it lacks): a task of a cluster run, so that a
    large site's statistics task reads its pages instead of rendering the whole site alone.

    Returns
    -------
    n_failed : int
        Pages that could not be rendered (their error rows come with the site's predictions).
    """
    _with_task_dump(task)
    return len(render_all(task.pages, model.config, True, desc="render")[1])


def fit_site_statistics(model: TrainedModel, task: SiteTask) -> SiteStatistics:
    """The site-level statistics of the task's pages (one whole site): a task of a cluster run.

    The site's cleaner is fitted when the model has none for it (:func:`cleaners_for`); a site-level
    recogniser's ``site_statistics`` are counted on the site's rendered and cleaned documents, in the
    order the pages were read, as :func:`predict_pages` gives them (pages come from the render cache
    when it holds them). An error is returned in the result (the site is then predicted whole), not
    raised.
    """
    _with_task_dump(task)
    site_id = task.pages[0].site_id
    try:
        cleaners = cleaners_for(model, task.pages)
        recognizer_statistics = None
        if model.recognizer.site_level:
            documents, _ = render_all(task.pages, model.config, model.recognizer.needs_render, desc="site statistics")
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

    :func:`predict_pages` with the task's site dump recorded and the site's cleaner from
    ``statistics`` (a shard's, fitted once on its whole site) added to the model's; a shard of a
    site-level recogniser's site is scored with the site statistics instead.

    Returns
    -------
    predictions : list of Prediction or ScoredShard
        One prediction per page of the task; for a shard of a site-level recogniser's site
        (``task.shard`` set), its :class:`ScoredShard`, predicted by :func:`predict_scored_shards`.
    """
    _with_task_dump(task)
    if statistics is not None and statistics.cleaners:
        model = dataclasses.replace(model, cleaners={**model.cleaners, **statistics.cleaners})
    if task.shard is None:
        return predict_pages(model, task.pages)
    site_id = task.pages[0].site_id
    documents, failures = render_all(task.pages, model.config, model.recognizer.needs_render, desc="score shard")
    try:
        scored = model.recognizer.score_shard(clean_documents(documents, model.cleaners),
                                              statistics.recognizer_statistics)
    except Exception as error:  # noqa: BLE001 - one site's failure must not stop the run
        logger.warning("site %s: shard %d failed (%s); the site is predicted whole", site_id, task.shard[0], error)
        return ScoredShard(site_id, task.shard, error=f"{type(error).__name__}: {error}")
    return ScoredShard(site_id, task.shard, tuple(failures), scored)


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


def predict_on_cluster(model: TrainedModel, pages: Sequence[Page], cluster) -> Iterator[Prediction]:
    """Predict every page of whole sites on a cluster; yield the rows as sites and tasks finish.

    The tasks are :func:`site_tasks`; a site-level recogniser's large site is predicted in this
    process (:func:`predict_scored_shards`) once all its shards are in. A site whose shards fail is
    then predicted whole by one more task, as in process.

    Parameters
    ----------
    model : TrainedModel
    pages : sequence of Page
        All the pages of one or more sites, anchors filled.
    cluster : mainentity.distributed.DaskSites
        A started cluster.

    Yields
    ------
    prediction : Prediction
        One per page.
    """
    planned = site_tasks(model, pages, cluster)
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
            predictions = predict_scored_shards(model.recognizer, [site[index] for index in range(len(site))])
        except Exception as error:  # noqa: BLE001 - one site's failure must not stop the run
            logger.warning("%s; the site is predicted whole", error)
            failed_sites.append(result.site_id)
            continue
        yield from predictions
    retries = [SiteTask(registered_dump(site_id), tuple(page for page in pages if page.site_id == site_id))
               for site_id in failed_sites]
    for predictions in cluster.map_tasks(predict_site, model, retries, sizes=[len(task.pages) for task in retries],
                                         desc="predict whole"):
        yield from predictions


def predict_pages(
    model: TrainedModel, pages: Sequence[Page], *, on_prediction=None, progress: bool = False
) -> list[Prediction]:
    """Predict every page of whole sites: what :func:`predict` runs in process, and a cluster per site.

    Each site's cleaner is fitted on its pages when the model has none for it; pages are rendered
    through the render cache; a site-level recogniser gets each site whole.

    Parameters
    ----------
    model : TrainedModel
    pages : sequence of Page
        All the pages of one or more sites, anchors filled.
    on_prediction : callable, optional
        Called with each prediction as soon as it exists (the output writer).
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    predictions : list of Prediction
        One per page (an error row for a page that failed), in order of completion.
    """
    cleaners = cleaners_for(model, pages)
    stream = iter_documents(pages, needs_render=model.recognizer.needs_render, render=model.config.render)
    return predict_documents(
        model.recognizer, _progress(stream, len(pages), "predict") if progress else stream, cleaners=cleaners,
        on_prediction=on_prediction, pages_per_site=Counter(page.site_id for page in pages),
    )


def cleaners_for(model: TrainedModel, pages: Sequence[Page], renderer: Renderer | None = None) -> dict:
    """The model's cleaners for the sites it knows, fitted anew for sites it has not seen.

    ``renderer``: a running browser to reuse for the pages of those sites (else one is started).
    """
    if model.config.cleaning.method == "none":
        return {}
    unseen = [page for page in pages if page.site_id not in model.cleaners]
    cleaners = dict(model.cleaners)
    if unseen:
        documents, _ = render_all(unseen, model.config, True, desc="render (cleaning)", renderer=renderer)
        cleaners.update(fit_cleaners(documents, model.config.cleaning, random_state=model.config.seed))
    return cleaners


def evaluate(model_dir: str | Path | None, dataset: str | Path, out_dir: str | Path | None = None) -> Path:
    """Predict every labeled page of a dataset with a trained model and write the evaluation report.

    Returns
    -------
    out_dir : Path
        Where report.md and the CSV tables were written (default ``<model_dir>/evaluations/<name>``).

    Warns
    -----
    UserWarning
        When some of the pages were training pages of the model (same HTML); ``report.md`` says so too.
    """
    model = load_model(model_dir)
    loaded = load_pages([str(dataset)], anchor_url_pattern=model.config.data.anchor_url_pattern)
    labeled = [page for page in loaded.pages if page.main_entity]
    if not labeled:
        raise ValueError(f"no labeled pages in {dataset}")
    notes = []
    n_seen = sum(page_digest(page) in model.training_pages for page in labeled)
    if n_seen:
        notes.append(
            f"{n_seen} of the {len(labeled)} pages were training pages of this model: their scores overstate "
            "how it does on new pages."
        )
        warnings.warn(f"evaluate {dataset}: {notes[0]}", UserWarning, stacklevel=2)
    # a shipped model's reports go under runs/pretrained-<name>/, never into the installed package nor into
    # the run directory that `train` writes for a config of the same name
    home = (Path("runs") / f"pretrained-{model.directory.name}" if model.directory.parent == PRETRAINED_DIR
            else model.directory)
    out = Path(out_dir) if out_dir else home / "evaluations" / Path(dataset).name
    out.mkdir(parents=True, exist_ok=True)
    cleaners = cleaners_for(model, labeled)
    stream = iter_documents(labeled, needs_render=model.recognizer.needs_render, render=model.config.render)
    predictions = predict_documents(model.recognizer, _progress(stream, len(labeled), "evaluate"), cleaners=cleaners,
                                    pages_per_site=Counter(page.site_id for page in labeled))
    config = dataclasses.replace(model.config, data=dataclasses.replace(model.config.data, datasets=(str(dataset),)))
    _evaluate(
        predictions, labels_of(labeled), config, out, title=f"{model.config.name} on {Path(dataset).name}",
        notes=[*notes, *anchor_coverage_notes(loaded.anchor_coverage)],
    )
    return out


def clean_report(
    site_dump: str | Path,
    method: str,
    params: dict | None = None,
    render: RenderConfig | None = None,
    max_pages: int | None = None,
    *,
    random_state: int = 0,
) -> str:
    """Fit a site-level cleaner on each site of a site dump and report what it marks noisy, per site.

    Pages are rendered through the render cache (``render.cache_path()``), one cleaner is fitted per site
    (:func:`mainentity.pipeline.fit_cleaners`) and applied to the site's pages; the report gives, per
    site, the share of text blocks removed and :func:`mainentity.cleaning.report.site_cleaning_report`
    (noisy nodes or redundant content blocks with sample text), so a user can set the threshold.

    Parameters
    ----------
    site_dump : str or Path
        A site dump directory or a dataset of site dumps.
    method : {"sst", "infodiscoverer", "none"}
        The cleaning method.
    params : dict, optional
        The cleaner's parameters (e.g. ``{"threshold": 0.3}``).
    render : RenderConfig, optional
        Renderer settings and cache place (default :class:`~mainentity.config.RenderConfig`).
    max_pages : int, optional
        Read at most this many pages per site.
    random_state : int, default 0
        Seed of each cleaner's page sample (unless ``params`` sets it).

    Returns
    -------
    report : str
        Markdown: a header, then one section per site.

    Raises
    ------
    ValueError
        If the method or a parameter is unknown or out of range, or no page could be rendered.
    """
    from mainentity.cleaning.report import site_cleaning_report

    render = render or RenderConfig()
    loaded = load_pages([str(site_dump)], max_pages_per_site=max_pages)
    documents, failed = render_all(loaded.pages, Config(render=render), True, desc="render")
    if not documents:
        raise ValueError(f"{site_dump}: no page could be rendered ({len(failed)} failed)")
    cleaners = fit_cleaners(documents, CleaningConfig(method, dict(params or {})), random_state=random_state)
    lines = [f"# Site-level cleaning report: {method} on {site_dump}", "",
             f"{len(documents)} pages rendered, {len(failed) + len(loaded.failures)} unreadable or unrenderable; "
             f"parameters {json.dumps(params or {}, sort_keys=True)}.", ""]
    if not cleaners:
        return "\n".join([*lines, "Method 'none' removes nothing."]) + "\n"
    for site_id, cleaner in cleaners.items():
        site_documents = [doc for doc in documents if doc.page.site_id == site_id]
        n_blocks = sum(len(doc.rendered.blocks) for doc in site_documents)
        n_kept = sum(len(doc.rendered.blocks) for doc in clean_documents(site_documents, {site_id: cleaner}))
        section = site_cleaning_report(cleaner).split("\n", 1)
        share = (n_blocks - n_kept) / max(n_blocks, 1)
        lines += [section[0], "",
                  f"Removes {n_blocks - n_kept} of {n_blocks} text blocks ({share:.1%}) "
                  f"over the site's {len(site_documents)} rendered pages.",
                  *section[1:], ""]
    return "\n".join(lines)
