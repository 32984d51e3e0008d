"""The benchmark runner: every system of a benchmark config trained and scored on the same test pages.

For each dataset of a :class:`~mainentity.config.BenchmarkConfig`:

1. its labeled pages are read once (:func:`~mainentity.loading.load_labeled_pages`), optionally cut to a seeded
   sample of ``max_pages``, and split once with the config's ``seed``
   (:func:`~mainentity.loading.train_test_folds`): one train/test split, the cross-site protocol (train on
   ``datasets``, test on ``test_datasets``), or folds of whole sites (each system is then trained once per fold
   and scored on the union of the held-out folds);
2. every page is rendered once through the shared render cache (``render.cache_path()``); systems that
   read only HTML get documents without a rendering;
3. each system fits its site-level cleaners (when it has cleaning) on the dataset's documents, is
   trained on the train pages (when it learns), and predicts the test pages while its wall time and
   the peak resident memory of the process tree are measured (:class:`PeakRSS`). A system with
   ``render_policy: auto`` predicts as ``mainentity predict --render auto`` does (few pages rendered,
   :mod:`mainentity.render_few`), its static model (``static_model``) trained in each fold on the same
   training pages read from their HTML (:func:`static_config`); its main model is the one an earlier system
   of the same model and cleaning trained in that fold (the plain ``general``), else trained anew;
4. the test predictions are scored with :func:`~mainentity.evaluation.report.evaluate_predictions`.

A peer whose tool is not installed is skipped with a logged message and listed in the report's notes
with its install command. The full report (with page texts) goes to ``<runs_dir>/<name>/``; a copy
whose disagreement table withholds gold and predicted texts of third-party datasets goes to
``<results_dir>/<name>/`` (the one meant to be committed).
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import logging
import os
import platform
import threading
import time
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from sklearn.base import clone

from mainentity._files import write_text_atomic
from mainentity._version import __version__
from mainentity.comparison.comparison_report import write_benchmark_report
from mainentity.comparison.peer_answers import load_answers, save_answers
from mainentity.config import BenchmarkConfig, CleaningConfig, Config, DataConfig, ModelConfig, SystemConfig
from mainentity.evaluation.report import concat_per_page, evaluate_predictions, per_site
from mainentity.loading import labels_of, load_run_pages, page_key
from mainentity.model_store import TrainedModel
from mainentity.pipeline import (
    KnownDocuments,
    RenderedDocuments,
    StaticDocuments,
    build_recognizer,
    fit_cleaners,
    fit_model,
    predict_pages,
    render_all,
    with_score_kind,
)
from mainentity.recognizers.peers import PEER_NAMES, PeerUnavailableError, peer_versions
from mainentity.records import Document, Prediction
from mainentity.source_digest import source_digest

logger = logging.getLogger(__name__)

__all__ = ["PeakRSS", "process_tree_rss_mb", "run_benchmark", "static_config", "tool_versions"]

#: Python distributions whose versions every benchmark report lists.
_TOOLS = ("numpy", "pandas", "scikit-learn", "torch", "pot", "nltk", "rouge-score", "playwright", "lxml")


def _status_kb(path: Path, key: str) -> int | None:
    try:
        text = path.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(key):
            return int(line.split()[1])
    return None


def process_tree_rss_mb(pid: int | None = None) -> float:
    """Resident memory of a process and its live descendants, in MB (2**20 bytes).

    The process counts with its resident set size (``VmRSS`` of ``/proc/<pid>/status``); each
    descendant (found through ``/proc/<pid>/task/*/children``) with its proportional set size
    (``Pss`` of ``/proc/<pid>/smaps_rollup``: pages shared among processes split between them), so the
    many processes of Chromium that share memory are not counted several times over. Returns NaN
    where ``/proc`` is not available.

    Examples
    --------
    >>> process_tree_rss_mb() > 0 or os.name != "posix"
    True
    """
    pid = os.getpid() if pid is None else pid
    own = _status_kb(Path(f"/proc/{pid}/status"), "VmRSS:")
    if own is None:
        return float("nan")
    total_kb, stack = own, [pid]
    while stack:
        current = stack.pop()
        if current != pid:
            total_kb += _status_kb(Path(f"/proc/{current}/smaps_rollup"), "Pss:") or 0
        try:
            tasks = list(Path(f"/proc/{current}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                stack.extend(int(child) for child in (task / "children").read_text().split())
            except OSError:
                continue
    return total_kb / 1024


class PeakRSS:
    """Context manager: the peak RSS of this process and its children while the block runs, in MB.

    A daemon thread samples :func:`process_tree_rss_mb` every ``interval_s`` seconds (and once at
    entry and exit). Child processes started inside the block (Chromium, node) are included while
    they live. Short spikes between two samples can be missed.

    Parameters
    ----------
    interval_s : float
        Seconds between samples, > 0.

    Attributes
    ----------
    start_mb : float
        RSS of the tree at entry.
    peak_mb : float
        Highest sample, entry and exit included.
    seconds : float
        Wall-clock seconds the block took.

    Examples
    --------
    >>> with PeakRSS() as memory:
    ...     block = bytearray(20 * 2**20)
    >>> memory.peak_mb >= memory.start_mb and memory.seconds >= 0
    True
    """

    def __init__(self, interval_s: float = 0.005) -> None:
        if not interval_s > 0:
            raise ValueError(f"interval_s must be > 0 seconds; got {interval_s}")
        self.interval_s = interval_s
        self.start_mb = self.peak_mb = float("nan")
        self.seconds = float("nan")
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _sample(self) -> None:
        value = process_tree_rss_mb()
        if not value <= self.peak_mb:  # also replaces NaN
            self.peak_mb = value

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._sample()

    def __enter__(self) -> PeakRSS:
        self.start_mb = self.peak_mb = process_tree_rss_mb()
        self._thread = threading.Thread(target=self._run, name="mainentity-peak-rss", daemon=True)
        self._thread.start()
        self._started = time.perf_counter()
        return self

    def __exit__(self, *exc_info) -> None:
        self.seconds = time.perf_counter() - self._started
        self._stop.set()
        self._thread.join()
        self._sample()


def tool_versions(systems: Sequence[SystemConfig] = ()) -> dict[str, str]:
    """Versions for a report: mainentity, Python, the core libraries, and the peers among ``systems``.

    Examples
    --------
    >>> tool_versions()["mainentity"] == __version__
    True
    """
    versions = {"mainentity": __version__, "python": platform.python_version()}
    for name in _TOOLS:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    peers = sorted({s.model.name for s in systems if s.model.name in PEER_NAMES}, key=PEER_NAMES.index)
    if peers:
        versions.update(peer_versions(peers))
    return versions


def static_config(config: Config, static_model: ModelConfig) -> Config:
    """The training config of a system's static model: ``config`` with the static model's recogniser, its pages
    read from their HTML and stylesheets alone (``render.reader: static``, as ``configs/general-static.yaml``)
    and no cleaning (the ``auto`` render policy reads small sites' pages so, uncleaned).

    Examples
    --------
    >>> static = static_config(Config(name="cross-site-lodo-fundus"), ModelConfig("general"))
    >>> static.name, static.model.name, static.render.reader
    ('cross-site-lodo-fundus-static', 'general', 'static')
    """
    return dataclasses.replace(config, name=f"{config.name}-static", model=static_model, cleaning=CleaningConfig(),
                               render=dataclasses.replace(config.render, reader="static"))


def _check_auto_systems(config: BenchmarkConfig, systems: Sequence[SystemConfig]) -> None:
    """Before any page is read: each ``render_policy: auto`` system's model must be one the policy applies to
    (a site-level recogniser that renders: :func:`~mainentity.pipeline.renders_few`; another would render
    every page under the system's name), and its static model must be buildable (known name and params).

    Raises
    ------
    ValueError
        Naming the system's label and the key at fault.
    """
    for system in systems:
        if system.render_policy != "auto":
            continue
        base = Config(name=f"{config.name}-{system.label}", seed=config.seed, render=config.render)
        recognizer = build_recognizer(dataclasses.replace(base, model=system.model))
        if not (recognizer.site_level and recognizer.needs_render):
            raise ValueError(f"system {system.label!r}: 'render_policy: auto' applies to a site-level recogniser "
                             f"that renders (the general model); model {system.model.name!r} is not one")
        if system.static_model is not None:
            try:
                build_recognizer(static_config(base, system.static_model))
            except ValueError as error:
                raise ValueError(f"system {system.label!r}: 'static_model': {error}") from error


def _training_key(system: SystemConfig) -> str:
    """What decides a system's trained model in a fold (its model and cleaning): two systems with the same key
    can share each fold's model."""
    return repr((system.model.name, sorted(system.model.params.items()), system.cleaning))


@dataclass
class _DatasetRun:
    """Results of one dataset: stacked per-page scores, speed rows, notes, and the systems whose answers were
    kept from an earlier run."""

    per_page: list[pd.DataFrame]
    speed: list[dict]
    notes: list[str]
    reused: list[str] = field(default_factory=list)


def _select(items: Sequence, labels: Sequence[str] | None, label_of, kind: str) -> list:
    if labels is None:
        return list(items)
    known = [label_of(item) for item in items]
    unknown = [label for label in labels if label not in known]
    if unknown:
        raise ValueError(f"unknown {kind} label(s) {', '.join(unknown)}; the config has {', '.join(known)}")
    return [item for item in items if label_of(item) in labels]


def _is_third_party(data: DataConfig) -> bool:
    """True when a dataset directory lies outside the working directory (e.g. ``../shared``)."""
    here = Path.cwd().resolve()
    return any(not Path(path).resolve().is_relative_to(here) for path in data.datasets)


def _stateless_version(recognizer, system: SystemConfig, cleaning: str) -> str | None:
    """The version under which a system's answers can be kept between runs (:mod:`peer_answers`): that of a
    peer's tool, or for one of mainentity's systems that neither learns, renders nor cleans (a baseline), the
    package's version and a digest of its recognizer's code and what that imports
    (:func:`mainentity.source_digest.source_digest`), so a changed baseline answers anew; ``None`` otherwise."""
    if recognizer.needs_training or recognizer.needs_render or cleaning != "none":
        return None
    if hasattr(recognizer, "version"):
        return recognizer.version()
    return f"mainentity {__version__} {system.label} {source_digest(type(recognizer).__module__)[:16]}"


def _run_dataset(
    bench: BenchmarkConfig, label: str, data: DataConfig, systems: Sequence[SystemConfig], max_pages: int | None,
    answers_dir: Path | None = None,
) -> _DatasetRun:
    result = _DatasetRun([], [], [])
    run_pages = load_run_pages(data, random_state=bench.seed, max_pages=max_pages)
    folds = run_pages.folds
    all_pages = list({page_key(page): page for fold in folds for part in fold for page in part}.values())
    test_labels = labels_of(page for _, test in folds for page in test)
    n_test = sum(len(test) for _, test in folds)
    logger.info("%s: %d fold(s), %d pages, %d test pages", label, len(folds), len(all_pages), n_test)
    base = Config(name=f"{bench.name}-{label}", seed=bench.seed, data=data, render=bench.render)
    rendered: tuple[list[Document], list[Prediction]] | None = None
    static_read: list[Document] | None = None
    uses_left = Counter(_training_key(system) for system in systems)
    # each fold's models of a model and cleaning that a later system uses too (general, then general-auto)
    shared_models: dict[str, list[TrainedModel]] = {key: [] for key, n in uses_left.items() if n > 1}

    for system in systems:
        key = _training_key(system)
        uses_left[key] -= 1
        # the last system of a key takes its models out, so they are freed after it
        fold_models = shared_models.get(key) if uses_left[key] else shared_models.pop(key, None)
        config = dataclasses.replace(base, model=system.model, cleaning=system.cleaning)
        try:
            recognizer = build_recognizer(config)
            if hasattr(recognizer, "check_available"):
                recognizer.check_available()
        except PeerUnavailableError as error:
            logger.error("%s: skipped on %s: %s", system.label, label, error)
            result.notes.append(f"Skipped {system.label} on {label}: {error}")
            continue
        version = _stateless_version(recognizer, system, system.cleaning.method) if answers_dir else None
        test_pages_all = [page for _, test in folds for page in test]
        kept = load_answers(answers_dir, label, system.label, version, test_pages_all) if version else None
        if kept is not None:
            predictions, speed_row = kept
            logger.info("%s on %s: %d answers kept from an earlier run of %s", system.label, label,
                        len(predictions), version)
            result.per_page.append(evaluate_predictions(predictions, test_labels, system=system.label, dataset=label))
            result.speed.append({**speed_row, "system": system.label, "dataset": label})
            result.reused.append(system.label)
            continue
        if recognizer.needs_render or system.cleaning.method != "none":
            if rendered is None:
                tick = time.perf_counter()
                read = RenderedDocuments(bench.render, run_pages.subresources)
                rendered = render_all(all_pages, read, desc=f"render {label}")
                logger.info("%s: documents ready in %.1f s (%d render failures)", label,
                            time.perf_counter() - tick, len(rendered[1]))
            documents, failures = rendered
        else:
            documents, failures = [Document(page) for page in all_pages], []
        if not recognizer.needs_render:
            documents = [Document(document.page) for document in documents]
        if system.static_model is not None and static_read is None:
            train_all = list({page_key(page): page for train, _ in folds for page in train}.values())
            static_read, _ = render_all(train_all, StaticDocuments(run_pages.subresources),
                                        desc=f"read {label} statically")
        reused_models = fold_models is not None and len(fold_models) == len(folds)
        if fold_models is not None and not reused_models:
            fold_models.clear()  # an earlier system of the key failed part-way: its models are not all there
        predictions: list[Prediction] = []
        n_predicted = 0
        fit_s = predict_s = peak_mb = increase_mb = 0.0
        try:
            cleaners = fit_cleaners(documents, system.cleaning, random_state=bench.seed)
            read = KnownDocuments(documents, failures)
            for fold, (train_pages, test_pages) in enumerate(folds):
                tick = time.perf_counter()
                if reused_models:
                    model = fold_models[fold]
                else:
                    model = fit_model(config, clone(recognizer), documents, train_pages, cleaners=cleaners)
                    if fold_models is not None:
                        fold_models.append(model)
                static = None
                if system.static_model is not None:
                    trained_statically = static_config(config, system.static_model)
                    static = fit_model(trained_statically, build_recognizer(trained_statically), static_read,
                                       train_pages)
                fit_s += time.perf_counter() - tick
                n_test_documents = len(test_pages) - len({page_key(page) for page in test_pages}
                                                         & {(p.site_id, p.path) for p in failures})
                with PeakRSS() as memory:
                    predictions += [with_score_kind(prediction, model, static) for prediction in predict_pages(
                        model, test_pages, read=read, subresources=run_pages.subresources, cleaners=cleaners,
                        batch_size=max(1, n_test_documents), render_policy=system.render_policy,
                        static_model=static)]
                predict_s += memory.seconds
                n_predicted += n_test_documents
                peak_mb = max(peak_mb, memory.peak_mb)
                increase_mb = max(increase_mb, memory.peak_mb - memory.start_mb)
        except PeerUnavailableError as error:
            logger.error("%s: skipped on %s: %s", system.label, label, error)
            result.notes.append(f"Skipped {system.label} on {label}: {error}")
            continue
        except ValueError as error:
            logger.error("%s: training failed on %s, skipped: %s", system.label, label, error)
            result.notes.append(f"Skipped {system.label} on {label}: training failed: {error}")
            continue
        if reused_models:
            result.notes.append(f"{system.label} on {label}: each fold's model is the one trained for an earlier "
                                "system of the same model and cleaning (trained once; fit_s excludes it).")
        result.per_page.append(evaluate_predictions(predictions, test_labels, system=system.label, dataset=label))
        result.speed.append({
            "system": system.label,
            "dataset": label,
            "pages_per_s": n_predicted / max(predict_s, 1e-9),
            "peak_rss_mb": peak_mb,
            "rss_increase_mb": increase_mb,
            "n_test_pages": n_test,
            "n_train_pages": len(folds[0][0]) if recognizer.needs_training else 0,
            "fit_s": fit_s,
            "predict_s": predict_s,
        })
        logger.info("%s on %s: %.1f pages/s, peak RSS %.0f MB", system.label, label,
                    result.speed[-1]["pages_per_s"], peak_mb)
        if version:
            by_key = {(p.site_id, p.path): p for p in predictions}
            if all(page_key(page) in by_key for page in test_pages_all):
                save_answers(answers_dir, label, system.label, version, test_pages_all,
                             [by_key[page_key(page)] for page in test_pages_all], result.speed[-1])
    return result


def run_benchmark(
    config: BenchmarkConfig,
    *,
    systems: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
    max_pages: int | None = None,
    command: str = "",
    runs_dir: str | os.PathLike = "runs",
    redact: Collection[str] | None = None,
    reuse_answers: bool = False,
) -> Path:
    """Train and score every selected system on the same test pages of every selected dataset.

    Parameters
    ----------
    config : BenchmarkConfig
        Datasets, systems, render settings, seed, bootstrap resamples and the results directory.
    systems, datasets : sequence of str, optional
        Only these system / dataset labels (default all of the config's).
    max_pages : int, optional
        At most this many labeled pages per dataset, a sample seeded with ``config.seed`` (also capped by
        the dataset's own ``max_pages``).
    command : str
        The command line, shown in the report.
    runs_dir : path, optional
        The full report (page texts included) goes to ``<runs_dir>/<config.name>/``.
    redact : collection of str, optional
        Dataset labels whose gold and predicted texts are withheld from the committed copy in
        ``<config.results_dir>/<config.name>/``; default: every dataset read from outside the working
        directory (the third-party datasets in ``../shared``).
    reuse_answers : bool, default False
        Keep the answers of the systems that neither learn, render nor clean (the peers, ``title-tag``) in
        ``<runs_dir>/<config.name>/peer_answers/`` and reuse them when the tool's version and every test
        page's HTML are those of the run that made them (:mod:`mainentity.comparison.peer_answers`): their
        speed is then that run's, and the report says which were reused.

    Returns
    -------
    out_dir : Path
        ``<runs_dir>/<config.name>``, holding ``report.md``/``.html``, the plots, ``benchmark_summary.csv``
        (one row per system and dataset: counts, metrics with ``_low``/``_high`` 95% bootstrap bounds,
        pages/s, peak RSS), ``answered_by.csv`` (per system and dataset, the test pages answered statically, by
        slot transfer, rendered: :func:`~mainentity.comparison.comparison_report.answered_by_table`),
        ``disagreements.csv``, ``per_page.csv``, ``per_site.csv`` and ``speed.csv``.
        The committed copy has the same files except ``per_page.csv``.

    Raises
    ------
    ValueError
        If a system or dataset label is unknown, ``max_pages < 1``, a ``render_policy: auto`` system's
        model or static model does not fit that policy (:func:`_check_auto_systems`), a dataset has no
        labeled page, or no system produced a score.

    Notes
    -----
    Speed: ``pages_per_s`` is test pages over the wall seconds of the system's prediction (site-level
    cleaning of the test pages included) with every document already rendered, i.e. with a warm render
    cache. ``peak_rss_mb`` is the peak resident memory of this process plus its live children (node
    for Mozilla Readability; see :func:`process_tree_rss_mb`) sampled every 5 ms during that prediction;
    it includes the documents held in memory, so ``speed.csv`` also gives ``rss_increase_mb`` over the
    level just before prediction.
    """
    if max_pages is not None and max_pages < 1:
        raise ValueError(f"max_pages must be >= 1; got {max_pages}")
    chosen_systems = _select(config.systems, systems, lambda s: s.label, "system")
    chosen_datasets = _select(config.datasets, datasets, lambda d: d[0], "dataset")
    if not chosen_systems or not chosen_datasets:
        raise ValueError("a benchmark needs at least one system and one dataset")
    _check_auto_systems(config, chosen_systems)
    runs: list[_DatasetRun] = []
    answers_dir = Path(runs_dir) / config.name / "peer_answers" if reuse_answers else None
    for label, data in chosen_datasets:
        runs.append(_run_dataset(config, label, data, chosen_systems, max_pages, answers_dir))
    frames = [frame for run in runs for frame in run.per_page]
    if not frames:
        raise ValueError("no system produced predictions; see the log for the skipped systems")
    per_page = concat_per_page(frames)
    speed = pd.DataFrame([row for run in runs for row in run.speed])
    notes = [note for run in runs for note in run.notes]
    notes.append(
        "Speed is measured in the same run as the scores: pages/s = test pages / wall seconds of prediction "
        "(test-page cleaning included) with every page already rendered (warm render cache); peak_rss_mb = "
        "peak RSS of the process plus the proportional set size of its children (node) sampled every 5 ms "
        "during prediction, documents in "
        "memory included (speed.csv also has the increase over the level before prediction). Test pages are "
        "predicted in one batch, so a peer's one-off start-up (node and jsdom for mozilla-readability and "
        "defuddle) counts once."
    )
    if max_pages is not None:
        notes.append(f"Run on a seeded sample of at most {max_pages} labeled pages per dataset.")
    reused = sorted({system for run in runs for system in run.reused})
    if reused:
        notes.append(f"Answers (and speed) of {', '.join(reused)} reused from an earlier run of the same tool "
                     "versions on the same pages (--reuse-answers).")
    if redact is None:
        redact = [label for label, data in chosen_datasets if _is_third_party(data)]
    versions = tool_versions(chosen_systems)
    title = f"Benchmark {config.name}"
    full_dir = Path(runs_dir) / config.name
    committed_dir = Path(config.results_dir) / config.name
    for out, withheld in ((full_dir, ()), (committed_dir, tuple(redact))):
        extra = list(notes)
        if withheld:
            extra.append(f"Gold and predicted texts of {', '.join(withheld)} (third-party content) are withheld "
                         f"here; the full report is in {full_dir}.")
        write_benchmark_report(per_page, speed, out, title=title, command=command, versions=versions,
                               n_resamples=config.n_resamples, random_state=config.seed, notes=extra,
                               redact_datasets=withheld)
        write_text_atomic(out / "per_site.csv", per_site(per_page).to_csv(index=False))
        write_text_atomic(out / "speed.csv", speed.to_csv(index=False))
    write_text_atomic(full_dir / "per_page.csv", per_page.to_csv(index=False))
    logger.info("full report in %s; committed copy in %s", full_dir, committed_dir)
    return full_dir

