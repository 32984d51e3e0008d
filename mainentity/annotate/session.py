"""One annotation session: a site dump's pages, their renderings and screenshots, the model's answers.

The web app (:mod:`mainentity.annotate.app`) is a thin layer over :class:`AnnotationSession`, which

- reads the dump once (:func:`mainentity.sitedump.read_site_dump`: with a manifest, its pages; without,
  every page file) and answers only for those pages: a requested path is checked (no ``..``, no
  absolute path, no back slash, a page of the dump, and its file not a link out of the dump now);
- renders a page when it is first shown, through the render cache and with the renderer settings of
  training (:func:`mainentity.pipeline.render_settings` of the model's ``render`` config, or the
  defaults without a model), so the boxes drawn are the text blocks the features see, and takes a
  full-page screenshot of it the way ``mainentity explain`` does (1024 px wide viewport, one pixel
  per CSS px), kept in a temporary directory for the session; one Chromium serves the session;
- reads and writes labels through :class:`mainentity.annotate.manifest.ManifestLabels`, from disk on
  every request, so what another tab or process wrote is seen at once;
- with a model, holds its answer and score for every page (:func:`predict_answers`, run before the
  app starts, since ordering by confidence needs them all) and orders the pages by lowest score first.
"""

from __future__ import annotations

import json
import logging
import math
import re
import shutil
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mainentity.annotate.manifest import LabelState, LockFileError, ManifestLabels, clean_labels
from mainentity.config import RenderConfig
from mainentity.pipeline import render_settings
from mainentity.records import Page, RenderedPage
from mainentity.sitedump import MANIFEST_NAME, SubresourceSources, label_in_page, outside_reason, read_site_dump

logger = logging.getLogger(__name__)

__all__ = ["ORDERS", "AnnotationSession", "ModelAnswer", "PagePathError", "find_site_dump", "predict_answers"]

#: Page orders: the dump's own (manifest or file order), or the model's lowest score first.
ORDERS = ("manifest", "confidence")

_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class ModelAnswer:
    """A model's answer for one page, as ``mainentity predict`` writes it.

    Attributes
    ----------
    text : str
        The predicted main entity ("" when none).
    score : float
        Its score (for the shipped general model, the calibrated probability that it is right); NaN
        when none.
    box : tuple of float or None
        ``(x, y, width, height)`` in CSS px of the answer on the rendered page.
    error : str
        Why the page has no answer ("" when fine).
    """

    text: str
    score: float = math.nan
    box: tuple[float, float, float, float] | None = None
    error: str = ""


class PagePathError(ValueError):
    """A requested page path that is not a page of the dump; ``status`` is the HTTP status to answer."""

    def __init__(self, path: str, reason: str, status: int) -> None:
        super().__init__(f"{path!r}: {reason}")
        self.status = status


def find_site_dump(directory: str | Path) -> Path:
    """The site dump to annotate: ``directory`` itself, or the only site of a dataset (``sites/<id>/``).

    Raises
    ------
    ValueError
        If ``directory`` is not a directory, or is a dataset of several sites (the message lists them).

    Examples
    --------
    >>> find_site_dump("datasets/sample-shop").as_posix()
    'datasets/sample-shop/sites/sample-shop'
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"site dump {str(directory)!r} is not a directory")
    sites = directory / "sites"
    if (directory / MANIFEST_NAME).is_file() or not sites.is_dir():
        return directory
    site_dirs = sorted(p for p in sites.iterdir() if p.is_dir() and not p.name.startswith("."))
    if len(site_dirs) != 1:
        names = ", ".join(p.name for p in site_dirs) or "none"
        raise ValueError(f"{directory} is a dataset of {len(site_dirs)} sites ({names}); annotate takes one site "
                         f"dump: pass {sites}/<site-id>")
    return site_dirs[0]


def predict_answers(model: str | Path | None, site_dir: str | Path, work_dir: str | Path) -> dict[str, ModelAnswer]:
    """The model's answer for every page of a site dump, keyed by page path.

    Runs :func:`mainentity.runs.predict` (render cache, anchors, cleaning, site vote: exactly the
    answers ``mainentity predict --render always`` gives) into ``work_dir/predictions.jsonl`` and reads
    it back. Every page is rendered: the annotator is shown each page's screenshot with the answer's box,
    which a page answered from its HTML would not have.

    Parameters
    ----------
    model : str, Path or None
        A model directory or a shipped model's name; ``None`` for the shipped general model.
    site_dir : str or Path
        The site dump.
    work_dir : str or Path
        An existing directory for the predictions file.

    Returns
    -------
    answers : dict of str to ModelAnswer

    Raises
    ------
    FileNotFoundError
        If the model does not exist.
    """
    from mainentity.runs import predict

    output = Path(work_dir) / "predictions.jsonl"
    predict(model, site_dir, output, render_policy="always")
    answers = {}
    for line in output.read_text(encoding="utf-8").split("\n")[:-1]:  # JSON Lines: "\n" ends a row
        row = json.loads(line)
        box = None if row["x"] is None else (row["x"], row["y"], row["width"], row["height"])
        score = math.nan if row["score"] is None else float(row["score"])
        answers[row["path"]] = ModelAnswer(row["main_entity"], score, box, row["error"])
    return answers


def page_path_problem(path: object) -> str:
    """Why a requested path can never name a page of a dump, or "" when it may.

    >>> [page_path_problem(p) for p in ("p/a.html", "../a.html", "/etc/passwd", "p\\\\a.html", "")]
    ['', "'..', '.' and empty segments are not allowed", 'absolute paths are not allowed', \
'back slashes are not allowed', 'no page path given']
    """
    if not isinstance(path, str) or not path:
        return "no page path given"
    if path.startswith("/") or _DRIVE.match(path):
        return "absolute paths are not allowed"
    if "\\" in path or "\x00" in path:
        return "back slashes are not allowed" if "\\" in path else "NUL characters are not allowed"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return "'..', '.' and empty segments are not allowed"
    return ""


class AnnotationSession:
    """The state of ``mainentity annotate`` on one site dump (module docstring).

    Parameters
    ----------
    site_dir : str or Path
        The site dump directory (see :func:`find_site_dump`).
    render : RenderConfig, optional
        Renderer settings and render cache (default :class:`~mainentity.config.RenderConfig`, the
        settings of the shipped model); pass the model's ``config.render``.
    answers : mapping of str to ModelAnswer, optional
        The model's answers by page path (:func:`predict_answers`); none without a model.
    model_name : str, optional
        Shown in the app.

    Raises
    ------
    ValueError
        If the dump cannot be read or has no readable page, or its lock file cannot be used (a symbolic
        link, not a regular file: :meth:`ManifestLabels.check_lock_file`), so no label could be saved.
    """

    def __init__(
        self,
        site_dir: str | Path,
        *,
        render: RenderConfig | None = None,
        answers: Mapping[str, ModelAnswer] | None = None,
        model_name: str = "",
    ) -> None:
        self.site_dir = Path(site_dir)
        self.root = self.site_dir.resolve()
        dump = read_site_dump(self.site_dir)
        if not dump.pages:
            raise ValueError(f"site dump {str(self.site_dir)!r} has no readable page ({len(dump.failures)} failed)")
        self.site_id = dump.site_id
        self.subresources = SubresourceSources.of_dumps([dump])
        self.pages: dict[str, Page] = {page.path: page for page in dump.pages}
        self.failures = dump.failures
        self.answers = dict(answers or {})
        self.model_name = model_name
        self.labels = ManifestLabels(self.site_dir)
        try:
            self.labels.remove_temporary_files()
        except LockFileError as error:  # no label could be saved: a session that cannot save does not start
            raise ValueError(f"{error}: annotate cannot save labels") from error
        self.render = render or RenderConfig()
        self.settings = render_settings(self.render)
        self._renderer = None
        self._rendered: dict[str, RenderedPage] = {}
        self._scripted: set[str] = set()  # pages whose kept rendering ran their scripts (javascript "auto")
        self._screenshots_dir = Path(tempfile.mkdtemp(prefix="mainentity-annotate-"))
        self._screenshots: dict[str, Path] = {}
        self._lock = threading.Lock()
        self._page_locks: dict[str, threading.Lock] = {}

    # -- pages -------------------------------------------------------------------------------------
    def page(self, path: object) -> Page:
        """The page at ``path``, after the checks of the module docstring.

        Raises
        ------
        PagePathError
            Status 400 for a malformed path (``..``, absolute, back slash), 404 for a path that is not
            a page of the dump, 403 when the page's file is now a link out of the dump.
        """
        problem = page_path_problem(path)
        if problem:
            raise PagePathError(str(path), problem, 400)
        page = self.pages.get(path)
        if page is None:
            raise PagePathError(path, "not a page of this site dump", 404)
        reason = outside_reason(self.site_dir / path, self.root)
        if reason:
            raise PagePathError(path, reason, 403)
        return page

    def states(self) -> dict[str, LabelState]:
        """Every page's labels as the manifest on disk says now, in the dump's page order."""
        on_disk = self.labels.read()
        return {path: on_disk.get(path, LabelState()) for path in self.pages}

    @staticmethod
    def progress(states: Mapping[str, LabelState]) -> dict[str, int]:
        """Counts of ``labeled``, ``skipped`` and ``left`` pages, and their ``total``.

        >>> AnnotationSession.progress({"a": LabelState(("A",)), "b": LabelState(skipped=True), "c": LabelState()})
        {'labeled': 1, 'skipped': 1, 'left': 1, 'total': 3}
        """
        counts = dict.fromkeys(("labeled", "skipped", "left"), 0)
        for state in states.values():
            counts[state.status] += 1
        return {**counts, "total": len(states)}

    def order(self, name: str) -> list[str]:
        """Page paths in the dump's order (``"manifest"``), or by the model's score, lowest first
        (``"confidence"``; pages without an answer come first, ties keep the dump's order).

        Raises
        ------
        ValueError
            If the order is unknown, or ``"confidence"`` is asked without a model.
        """
        if name not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}; got {name!r}")
        paths = list(self.pages)
        if name == "manifest":
            return paths
        if not self.answers:
            raise ValueError("ordering by confidence needs a model: start with --model")

        def score(path: str) -> float:
            answer = self.answers.get(path)
            if answer is None or answer.error or math.isnan(answer.score):
                return -math.inf
            return answer.score

        return sorted(paths, key=score)

    # -- rendering ---------------------------------------------------------------------------------
    def _page_lock(self, path: str) -> threading.Lock:
        with self._lock:
            return self._page_locks.setdefault(path, threading.Lock())

    def _session_renderer(self):
        """The session's renderer, made on first use; :func:`~mainentity.render.cache.render_pages` starts
        it on its first cache miss (:meth:`~mainentity.render.browser.Renderer.start` is thread-safe)."""
        from mainentity.render import Renderer

        with self._lock:
            if self._renderer is None:
                self._renderer = Renderer(self.settings)
            return self._renderer

    def rendered(self, path: str) -> RenderedPage:
        """The page's rendering (text blocks with boxes in CSS px), from the render cache or Chromium.

        Raises
        ------
        PagePathError
            See :meth:`page`.
        RuntimeError
            If the page cannot be rendered (the message names it and says why).
        """
        from mainentity.render import render_pages

        page = self.page(path)
        with self._page_lock(path):
            if path not in self._rendered:
                # the cache first (with javascript auto, its first and second renderings), Chromium on a miss
                outcome = next(render_pages([page], self.settings, self.render.cache_path(),
                                            renderer=self._session_renderer(), subresources=self.subresources))
                if outcome.rendered is None:
                    raise RuntimeError(outcome.error)
                if outcome.scripts:
                    self._scripted.add(path)
                self._rendered[path] = outcome.rendered
            return self._rendered[path]

    def screenshot(self, path: str) -> Path:
        """A full-page PNG screenshot of the page (one pixel per CSS px), taken on first request; with the
        page's scripts on when its rendering (:meth:`rendered`, whose boxes the app draws) ran them.

        Raises
        ------
        PagePathError
            See :meth:`page`.
        RuntimeError
            If the page cannot be rendered.
        """
        page = self.page(path)
        if self.settings.javascript == "auto":
            self.rendered(path)  # which rendering auto keeps (known already when the app showed the page)
        with self._page_lock(path):
            if path not in self._screenshots:
                file = self._screenshots_dir / f"{len(self._screenshots):06d}.png"
                renderer = self._session_renderer()
                renderer.start()
                renderer.screenshot(page, file, full_page=True, subresources=self.subresources,
                                    scripts=path in self._scripted)
                self._screenshots[path] = file
            return self._screenshots[path]

    def view(self, path: str) -> dict:
        """What the app shows of one page: its labels and their version, its visible text blocks and
        the model's answer. A page that cannot be rendered has no blocks and ``render_error`` says why.

        Raises
        ------
        PagePathError
            See :meth:`page`.
        """
        page = self.page(path)
        state = self.labels.read().get(path, LabelState())
        try:
            rendered, render_error = self.rendered(path), ""
        except RuntimeError as error:
            rendered, render_error = None, str(error)
        blocks = [] if rendered is None else [
            {"text": block.text, "x": block.x, "y": block.y, "width": block.width, "height": block.height,
             "tag": block.tag, "merged": block.merged}
            for block in rendered.blocks
            if not block.hidden and block.width >= 1 and block.height >= 1
        ]
        answer = self.answers.get(path)
        return {
            "path": path,
            "url": page.url,
            "labels": list(state.main_entity),
            "skipped": state.skipped,
            "status": state.status,
            "version": state.version,
            "width": rendered.width if rendered else None,
            "height": rendered.height if rendered else None,
            "blocks": blocks,
            "render_error": render_error,
            "model": None if answer is None else {
                "text": answer.text, "score": None if math.isnan(answer.score) else answer.score,
                "box": answer.box, "error": answer.error},
        }

    # -- labels ------------------------------------------------------------------------------------
    def write(self, path: str, main_entity, skipped: bool, version: str) -> LabelState:
        """Store a page's labels and skipped mark if it is still at ``version`` (see
        :meth:`mainentity.annotate.manifest.ManifestLabels.write`, which raises ``LabelConflict``
        otherwise); ``label_in_page`` is recomputed from the page's HTML.

        Raises
        ------
        PagePathError
            See :meth:`page`.
        ValueError
            If ``skipped`` is not a boolean, ``version`` not a string or the labels are not valid.
        """
        page = self.page(path)
        if not isinstance(skipped, bool) or not isinstance(version, str):
            raise ValueError("'skipped' must be true or false and 'version' a string")
        if not isinstance(main_entity, list):
            raise ValueError(f"'main_entity' must be a list of strings; got {type(main_entity).__name__}")
        labels = clean_labels(main_entity)
        return self.labels.write(path, labels, skipped, version, label_in_page=label_in_page(page.html, labels))

    def close(self) -> None:
        """Close Chromium and delete the session's screenshots."""
        with self._lock:
            renderer, self._renderer = self._renderer, None
        if renderer is not None:
            renderer.close()
        shutil.rmtree(self._screenshots_dir, ignore_errors=True)
