"""The commands' runs: train, predict, evaluate and the cleaning report (what ``train.py`` and the CLI call).

Each is a short composition of :mod:`mainentity.loading` (the inputs), :mod:`mainentity.pipeline` (the
one training path and the one predict path) and :mod:`mainentity.model_store` (model directories). A
training run writes a model directory with its test split's results::

    <runs_dir>/<name>/
        model.skops, config.yaml, meta.json   the model (:mod:`mainentity.model_store`)
        predictions.jsonl  the test split's predictions
        report.md, summary.csv, per_site.csv, per_page.csv   the test split's evaluation
"""

from __future__ import annotations

import dataclasses
import gc
import json
import logging
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import yaml

from mainentity._files import write_text_atomic
from mainentity._version import __version__
from mainentity.config import CleaningConfig, Config, RenderConfig
from mainentity.loading import (
    anchor_coverage_notes,
    data_summary,
    labels_of,
    load_inputs,
    load_pages,
    load_run_pages,
    page_key,
    sample_pages,
)
from mainentity.model_io import MODEL_FILE
from mainentity.model_store import (
    TrainedModel,
    is_shipped_model,
    load_static_model,
    load_trained_model,
    model_config,
    portable_config,
    set_abstain_below,
    write_model_file,
)
from mainentity.pipeline import (
    KnownDocuments,
    RenderedDocuments,
    build_recognizer,
    fit_cleaners,
    fit_model,
    page_documents,
    predict_pages,
    render_all,
    render_settings,
    renders,
    with_score_kind,
)
from mainentity.prediction_writer import (
    Interrupted,
    PredictionWriter,
    check_same_model,
    model_identity,
    record_model,
)
from mainentity.records import Page, Prediction
from mainentity.render_few import RenderFewSettings
from mainentity.sitedump import page_digest
from mainentity.text import counted

logger = logging.getLogger(__name__)


def _check_cleaning(config: Config) -> None:
    """Fail on a misspelt cleaning parameter now, not after rendering every page."""
    if config.cleaning.method != "none":
        from mainentity.cleaning import make_cleaner

        try:
            make_cleaner(config.cleaning.method, **config.cleaning.params)
        except ValueError as error:
            raise ValueError(f"config {config.name!r}, section 'cleaning': {error}") from error


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
    _check_cleaning(config)
    run_dir = Path(config.output.runs_dir) / config.name
    run_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(run_dir / "config.yaml", yaml.safe_dump(portable_config(config), sort_keys=False))

    if config.data.split == "site-folds":
        raise ValueError(f"config {config.name!r}: 'data.split: site-folds' trains one model per fold; it is for "
                         "the benchmark (mainentity benchmark), not for training one model")
    run_pages = load_run_pages(config.data, random_state=config.seed)
    loaded, ((train_pages, test_pages),) = run_pages.loaded, run_pages.folds
    logger.info("%s, %s", counted(len(train_pages), "train page"), counted(len(test_pages), "test page"))

    timings: dict[str, float] = {}
    tick = time.perf_counter()
    read = page_documents(config.render, run_pages.subresources)
    documents, render_failures = render_all(train_pages + test_pages, read, rendered=recognizer.needs_render)
    timings["render_s"] = time.perf_counter() - tick

    tick = time.perf_counter()
    cleaners = fit_cleaners(documents, config.cleaning, random_state=config.seed)
    timings["cleaning_fit_s"] = time.perf_counter() - tick

    tick = time.perf_counter()
    model = fit_model(config, recognizer, documents, train_pages, cleaners=cleaners, directory=run_dir)
    timings["fit_s"] = time.perf_counter() - tick
    write_model_file(model, run_dir / MODEL_FILE)

    summary = {}
    if test_pages:  # split none: a model to ship, nothing held out to score it on
        summary = _score_test_split(model, test_pages, KnownDocuments(documents, render_failures), loaded, timings)
    timings["total_s"] = time.perf_counter() - started
    _write_meta(run_dir, config, loaded, train_pages, test_pages, render_failures, timings, summary)
    logger.info("run written to %s (%.1f s%s)", run_dir, timings["total_s"], "" if test_pages else "; no test pages")
    return run_dir


def _score_test_split(model: TrainedModel, test_pages: Sequence[Page], read: KnownDocuments, loaded,
                      timings: dict[str, float]) -> dict:
    """Predict the test pages (``predictions.jsonl``), write the evaluation report; return its summary."""
    config, run_dir = model.config, model.directory
    tick = time.perf_counter()
    predictions_path = run_dir / "predictions.jsonl"
    predictions_path.unlink(missing_ok=True)
    with PredictionWriter(predictions_path) as writer:
        predictions = predict_pages(model, test_pages, read=read, render_policy="always",
                                    on_prediction=lambda prediction: writer.write(with_score_kind(prediction, model)))
    predictions = [with_score_kind(prediction, model) for prediction in predictions]
    timings["predict_s"] = time.perf_counter() - tick
    test_keys = {page_key(page) for page in test_pages}
    n_documents = len(predictions) - sum((failure.site_id, failure.path) in test_keys for failure in read.failures)
    timings["predict_pages_per_s"] = n_documents / max(timings["predict_s"], 1e-9)
    return _evaluate(
        predictions, labels_of(test_pages), config, run_dir, title=f"{config.name}: test split",
        notes=anchor_coverage_notes(loaded.anchor_coverage),
        probability_scores=model.recognizer.scores_are_probabilities(),
    )


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


def _evaluate(predictions, labels, config: Config, out_dir: Path, *, title: str, notes=(),
              probability_scores: bool = False, screenshots=None) -> dict:
    """Score predictions against labels, write the report files into ``out_dir``; return the summary.
    ``screenshots``, when given, is called with the worst pages' table before the report is written."""
    from mainentity.evaluation.bootstrap import add_ci_columns
    from mainentity.evaluation.report import evaluate_predictions, summarize, worst_pages, write_report

    dataset = ",".join(Path(d).name for d in (config.data.test_datasets or config.data.datasets))
    per_page = evaluate_predictions(predictions, labels, system=config.name, dataset=dataset)
    if screenshots is not None:
        screenshots(worst_pages(per_page))
    summary = add_ci_columns(summarize(per_page), per_page, random_state=config.seed)
    write_report(per_page, out_dir, title=title, notes=notes, summary=summary, probability_scores=probability_scores)
    return summary.iloc[0].to_dict() if len(summary) else {}


def predict(
    model_dir: str | Path | None,
    inputs: str | Path | Sequence[str | Path],
    output: str | Path,
    *,
    base_url: str | None = None,
    retry_errors: bool = False,
    cluster=None,
    render_policy: str | None = None,
    overwrite: bool = False,
    abstain_below: float | None = None,
    stdin: bytes | None = None,
) -> int:
    """Predict the main entity of every page of site dumps, datasets or WARC files into a .jsonl/.csv file.

    Rows are written as pages finish; running again with the same output skips the pages already
    there. Unreadable and unrenderable pages get a row with ``error`` set; with ``retry_errors``
    those rows are removed from the output first, so their pages are tried again.

    Parameters
    ----------
    model_dir : str, Path or None
        See :func:`mainentity.model_store.resolve_model`.
    inputs : str, Path or sequence of them
        Site dumps, datasets of site dumps, WARC files or folders of WARC files, HTML files, or ``-``
        for one page on standard input (:func:`mainentity.loading.load_inputs`).
    output : str or Path
        The ``.jsonl`` or ``.csv`` file, resumed when it exists (when the same model wrote it: see
        :class:`mainentity.prediction_writer.PredictionWriter`); ``-``: JSON Lines to standard output.
    base_url : str, optional
        URL prefix for pages of a dump without manifest or ``<base href>``.
    retry_errors : bool, default False
        Predict again the pages whose rows have an error.
    cluster : mainentity.scaleout.TaskRunner, optional
        A started cluster (:class:`mainentity.distributed.DaskSites`): each site, or shard of a large
        site, is then one task of :func:`mainentity.scaleout.predict_site` on it
        (:func:`mainentity.scaleout.predict_on_cluster`; the rows are the same; this process still writes
        them all).
    render_policy : {"always", "auto"}, optional
        Default the model config's ``render.policy``; ``always`` is refused for a model that never renders
        (:func:`mainentity.pipeline.renders`: ``general-static``); ``auto`` renders few pages
        (:func:`mainentity.pipeline.predict_pages`) with the shipped static model
        (:func:`mainentity.model_store.load_static_model`)
        for the pages of small sites, on a cluster too (one task per site:
        :func:`mainentity.scaleout.predict_on_cluster`).
    overwrite : bool, default False
        Replace an existing output instead of resuming it.
    abstain_below : float, optional
        Answer nothing on pages scored below this probability (the row keeps the text in
        ``best_candidate``); default the model's ``abstain_below`` (:func:`set_abstain_below`).
    stdin : bytes, optional
        The bytes of ``-`` when read already (:func:`mainentity.loading.read_stdin`; default: read here).

    Returns
    -------
    n_written : int
        Rows written by this call.

    Raises
    ------
    mainentity.prediction_writer.Interrupted
        A KeyboardInterrupt (Ctrl-C) saying how many rows were written before it; they are kept.
    """
    if render_policy == "always" and (config := model_config(model_dir)).render.reader == "static":
        raise _never_renders(config)  # said before the model loads (seconds)
    model = _load_model(model_dir, abstain_below)
    if render_policy == "always" and not renders(model):
        raise _never_renders(model.config)
    inputs = [inputs] if isinstance(inputs, (str, Path)) else list(inputs)
    identity = _identity(model)
    with PredictionWriter(output, retry_errors=retry_errors, model=identity, overwrite=overwrite) as writer:
        n_before = len(writer.done)
        try:
            _predict_into(writer, model, [str(path) for path in inputs], base_url=base_url, cluster=cluster,
                          render_policy=render_policy, stdin=stdin)
        except KeyboardInterrupt:  # Ctrl-C: the rows written so far are kept; say how many
            raise Interrupted(len(writer.done) - n_before, output) from None
        return len(writer.done) - n_before


def _never_renders(config: Config) -> ValueError:
    """The error of ``--render always`` asked of a model that never renders a page."""
    return ValueError(
        f"--render always: the model {config.name!r} never renders a page (it reads them from their HTML"
        f"{', render.reader: static' if config.render.reader == 'static' else ''}); leave --render out, "
        "or predict with a model that renders, e.g. the general model: mainentity predict general ... "
        "--render always")


def _predict_into(writer: PredictionWriter, model: TrainedModel, inputs: list[str], *, base_url: str | None,
                  cluster, render_policy: str | None, stdin: bytes | None) -> None:
    """:func:`predict`'s work once its output is open: read the inputs, write the error rows of the
    unreadable pages, then predict the pages that have no row yet into ``writer``."""
    loaded = load_inputs(inputs, base_url=base_url, anchor_url_pattern=model.config.data.anchor_url_pattern,
                         stdin=stdin)
    for failure in loaded.failures:
        if (failure.site_id, failure.path) not in writer.done:
            writer.write(Prediction(failure.site_id, failure.path, failure.url, error=failure.reason))
    todo = [page for page in loaded.pages if page_key(page) not in writer.done]
    if len(todo) < len(loaded.pages):
        n_done = len(loaded.pages) - len(todo)
        logger.info("resuming: %d of %s already in %s", n_done, counted(len(loaded.pages), "page"), writer.path)
    pages = todo
    if model.recognizer.site_level:
        # site-level evidence and the site vote see every page of a site, as in an uninterrupted run;
        # rows already written are not written again
        todo_sites = {page.site_id for page in todo}
        pages = [page for page in loaded.pages if page.site_id in todo_sites]
    done_before = set(writer.done)

    policy = model.config.render.policy if render_policy is None else render_policy
    static_model = _static_model_for(pages, policy)

    def write_new(prediction: Prediction) -> None:
        if (prediction.site_id, prediction.path) not in done_before:
            writer.write(with_score_kind(prediction, model, static_model))

    started = time.perf_counter()
    # the inputs and the models live to the end of the run: the cycle collector's full collections need not
    # walk their objects (pages, link graphs) again and again; unfrozen after, for a caller's process
    gc.freeze()
    try:
        if cluster is not None:
            from mainentity.scaleout import predict_on_cluster

            cluster.hold_renderers(render_settings(model.config.render))
            for prediction in predict_on_cluster(model, pages, cluster, loaded.subresources, render_policy=policy,
                                                 static_model=static_model):
                write_new(prediction)
        else:
            predict_pages(model, pages, subresources=loaded.subresources, on_prediction=write_new,
                          progress_desc="predict", render_policy=policy, static_model=static_model)
    finally:
        gc.unfreeze()
    seconds = time.perf_counter() - started
    logger.info("predicted %s in %.1f s (%.2f pages/s; reading the inputs and the model not counted)",
                counted(len(pages), "page"), seconds, len(pages) / max(seconds, 1e-9))


def _identity(model: TrainedModel) -> dict:
    """:func:`model_identity` of a loaded model, with the probability it abstains below (its sidecar record)."""
    return model_identity(model.config.name, model.directory, model.directory / MODEL_FILE,
                          model.recognizer.get_params().get("abstain_below"))


def _load_model(model_dir: str | Path | None, abstain_below: float | None = None) -> TrainedModel:
    """:func:`load_trained_model`, saying first what it loads (it takes seconds on a busy machine), with
    ``abstain_below`` set when given (:func:`set_abstain_below`)."""
    logger.debug("loading the model %s", model_dir or "general")
    model = load_trained_model(model_dir)
    if abstain_below is not None:
        set_abstain_below(model.recognizer, abstain_below, "--abstain-below")
    return model


def _static_model_for(pages: Sequence[Page], policy: str) -> TrainedModel | None:
    """The shipped static model when the ``auto`` policy needs it: it answers the pages of small sites
    only, so a crawl of large sites does not load it."""
    small = RenderFewSettings().min_site_pages
    has_small_site = any(n < small for n in Counter(page.site_id for page in pages).values())
    return load_static_model() if policy == "auto" and has_small_site else None


def default_report_dir(model_dir: str | Path, dataset: str | Path, *, render_policy: str = "always",
                       abstain_below: float | None = None) -> Path:
    """Where ``evaluate`` writes its report when not told: ``MODEL/evaluations/<dataset name>``; for a
    shipped model (:func:`mainentity.model_store.is_shipped_model`, also given by its path) under
    ``runs/pretrained-<name>/`` in the working directory instead, never into the package nor into the
    run directory that ``train`` writes for a config of the same name. A report under another render
    policy or abstention threshold gets a folder of its own (``shop-render-auto``, ``shop-abstain-0.5``),
    so that it does not replace the report of the model's own settings.

    >>> default_report_dir("runs/msrbfn", "data/shop").as_posix()
    'runs/msrbfn/evaluations/shop'
    >>> default_report_dir("runs/msrbfn", "data/shop", render_policy="auto", abstain_below=0.5).as_posix()
    'runs/msrbfn/evaluations/shop-render-auto-abstain-0.5'
    >>> from mainentity.model_store import PRETRAINED_DIR
    >>> default_report_dir(PRETRAINED_DIR / "general", "data/shop").as_posix()
    'runs/pretrained-general/evaluations/shop'
    """
    model_dir, name = Path(model_dir), Path(dataset).resolve().name
    if render_policy != "always":
        name += f"-render-{render_policy}"
    if abstain_below is not None:
        name += f"-abstain-{abstain_below:g}"
    if is_shipped_model(model_dir):
        logger.info("%s ships with the package: its report goes under runs/pretrained-%s/", model_dir,
                    model_dir.resolve().name)
        return Path("runs") / f"pretrained-{model_dir.resolve().name}" / "evaluations" / name
    return model_dir / "evaluations" / name


def evaluate(model_dir: str | Path | None, dataset: str | Path, out_dir: str | Path | None = None, *,
             render_policy: str = "always", abstain_below: float | None = None, max_pages: int | None = None,
             screenshots: bool = False, overwrite: bool = False) -> Path:
    """Predict every labeled page of a dataset with a trained model and write the evaluation report.

    Parameters
    ----------
    model_dir : str, Path or None
        See :func:`mainentity.model_store.resolve_model`.
    dataset : str or Path
        A labeled dataset (or site dump).
    out_dir : str or Path, optional
        Where the report goes (default :func:`default_report_dir`, the model's own); one that holds another
        model's report, or one of an unknown model, is refused unless ``overwrite``.
    render_policy : {"always", "auto"}, default "always"
        ``always`` measures the model on every page rendered; ``auto`` measures what ``predict`` gives
        by default (:func:`mainentity.pipeline.predict_pages`), with the shipped static model for the
        pages of small sites (the report then notes the pages the static model was trained on).
    abstain_below : float, optional
        Answer nothing on pages scored below this probability (they count as wrong); default the
        model's ``abstain_below`` (:func:`set_abstain_below`).
    max_pages : int, optional
        Score at most this many labeled pages, a seeded sample (:func:`mainentity.loading.sample_pages`).
    screenshots : bool, default False
        Also save a screenshot of each of the report's worst pages, their predicted box outlined
        (:func:`screenshot_worst_pages`); the report links them.
    overwrite : bool, default False
        Replace another model's report in ``out_dir`` (:func:`~mainentity.prediction_writer.check_same_model`).

    Returns
    -------
    out_dir : Path
        Where report.md and the CSV tables were written, with ``per_page.csv.model.json`` naming the model.

    Raises
    ------
    ValueError
        If ``out_dir`` holds another model's report (and not ``overwrite``), or the dataset no labeled page.

    Warns
    -----
    UserWarning
        When some of the pages were training pages of the model (same HTML); ``report.md`` says so too.
    """
    model = _load_model(model_dir, abstain_below)
    identity = _identity(model)
    if out_dir is not None and not overwrite:  # before any page is read: another model's report is kept
        check_same_model(Path(out_dir) / "per_page.csv", identity)
    loaded = load_pages([str(dataset)], anchor_url_pattern=model.config.data.anchor_url_pattern, configurable=False)
    labeled = sample_pages([page for page in loaded.pages if page.main_entity], max_pages)
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
    static_model = _static_model_for(labeled, render_policy)
    n_static_seen = sum(page_digest(page) in static_model.training_pages for page in labeled) if static_model else 0
    if n_static_seen:
        note = (f"{n_static_seen} of the {len(labeled)} pages were training pages of the static model that "
                "answers small sites under --render auto: its answers there overstate how it does on new pages.")
        notes.append(note)
        warnings.warn(f"evaluate {dataset}: {note}", UserWarning, stacklevel=2)
    out = Path(out_dir) if out_dir else default_report_dir(model.directory, dataset, render_policy=render_policy,
                                                           abstain_below=abstain_below)
    out.mkdir(parents=True, exist_ok=True)
    predictions = [with_score_kind(prediction, model, static_model) for prediction in predict_pages(
        model, labeled, subresources=loaded.subresources, progress_desc="evaluate", render_policy=render_policy,
        static_model=static_model)]
    config = dataclasses.replace(model.config, data=dataclasses.replace(model.config.data, datasets=(str(dataset),)))
    _evaluate(
        predictions, labels_of(labeled), config, out, title=f"{model.config.name} on {Path(dataset).name}",
        notes=[*notes, *anchor_coverage_notes(loaded.anchor_coverage, configurable=False)],
        probability_scores=model.recognizer.scores_are_probabilities(),
        screenshots=(lambda worst: screenshot_worst_pages(worst, labeled, predictions, out, model.config.render,
                                                          loaded.subresources)) if screenshots else None,
    )
    record_model(out / "per_page.csv", identity)
    return out


def screenshot_worst_pages(worst, pages: Sequence[Page], predictions: Sequence[Prediction], out_dir: Path,
                           render: RenderConfig, subresources) -> int:
    """Save a screenshot of each of the worst pages into a report's directory, for the report to link.

    Each is the 1024x768 CSS px viewport of the page as the model saw it (with its scripts on when it was
    answered from its scripts-on rendering: ``answered_by == "scripts"``), the predicted main entity's box
    outlined in red, at :func:`mainentity.evaluation.report.screenshot_name` under ``out_dir``. A page that
    cannot be rendered is logged and goes without one.

    Parameters
    ----------
    worst : DataFrame
        :func:`mainentity.evaluation.report.worst_pages`: ``site_id`` and ``path`` columns.
    pages, predictions : sequence
        The evaluated pages and their predictions (for the page itself and its box).
    out_dir : Path
        The report's directory.
    render : RenderConfig
        The model's renderer settings.
    subresources : SubresourceSources
        What serves the pages' stylesheets, fonts and images.

    Returns
    -------
    n_saved : int
    """
    from mainentity.evaluation.report import screenshot_name
    from mainentity.render import Renderer

    by_key = {page_key(page): page for page in pages}
    boxes = {(p.site_id, p.path): p.bbox for p in predictions if p.bbox is not None}
    # shown as read: with scripts on when javascript "auto" answered the page from that rendering
    scripted = {(p.site_id, p.path) for p in predictions if p.answered_by == "scripts"}
    keys = [key for key in zip(worst["site_id"], worst["path"], strict=True) if key in by_key]
    n_saved = 0
    with Renderer(render_settings(render)) as renderer:
        for key in keys:
            target = out_dir / screenshot_name(*key)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                renderer.screenshot(by_key[key], target, full_page=False, boxes=[boxes[key]] if key in boxes else [],
                                    subresources=subresources, scripts=key in scripted)
                n_saved += 1
            except RuntimeError as error:
                logger.warning("%s/%s: no screenshot: %s", *key, " ".join(str(error).split())[:200])
    logger.info("%s of the worst pages in %s", counted(n_saved, "screenshot"), out_dir / "screenshots")
    return n_saved


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
    site, the share of text blocks removed and :func:`mainentity.cleaning.cleaning_report.site_cleaning_report`
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
    from mainentity.cleaning.cleaning_report import sites_cleaning_report

    render = render or RenderConfig()
    loaded = load_pages([str(site_dump)], max_pages_per_site=max_pages)
    documents, failed = render_all(loaded.pages, RenderedDocuments(render, loaded.subresources))
    if not documents:
        raise ValueError(f"{site_dump}: no page could be rendered ({len(failed)} failed)")
    cleaners = fit_cleaners(documents, CleaningConfig(method, dict(params or {})), random_state=random_state)
    header = [f"# Site-level cleaning report: {method} on {site_dump}", "",
              f"{len(documents)} pages rendered, {len(failed) + len(loaded.failures)} unreadable or unrenderable; "
              f"parameters {json.dumps(params or {}, sort_keys=True)}.", ""]
    return sites_cleaning_report(documents, cleaners, header)
