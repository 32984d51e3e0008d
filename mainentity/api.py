"""The Python API: one call for one page, a loaded model for many.

:func:`extract` names the main entity of one page given as a string or bytes; :func:`load_model` gives
a :class:`Model` that predicts many pages at once (:meth:`Model.predict`), saves itself and shows its
fitted parameters. Both run the pipeline of ``mainentity predict`` (:mod:`mainentity.pipeline`):
the same rendering (headless Chromium, the render settings of the model's config, the render cache),
the same incoming anchor texts (from the links among the pages of a site) and the same recogniser,
with the pages of one site passed together so that site-level evidence is used. A page predicted here
and by the command gets the same answer when it is the same page (markup, URL, the site's other pages
and the files of its site dump).

A :class:`Model` keeps one Chromium for all its calls, started at the first page that is not in the
render cache: a second :func:`extract` renders in the browser the first one started. ``close()`` (or
leaving a ``with`` block) ends it; a later call starts a new one. Calls from several threads are
safe: they take turns (one batch at a time per model; within a batch, ``render.concurrency`` pages are
rendered at once). The browser runs in a thread of its own, so the calling thread does not matter.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mainentity.config import RENDER_POLICIES
from mainentity.loading import page_key, with_site_anchors
from mainentity.model_store import TrainedModel, load_static_model, load_trained_model, save_model
from mainentity.pipeline import predict_pages, render_settings, with_score_kind
from mainentity.records import Page, Prediction
from mainentity.sitedump import SiteDump, SubresourceSources, page_from_html

if TYPE_CHECKING:
    from mainentity.render.browser import Renderer

__all__ = ["Model", "extract", "load_model"]


class Model:
    """A trained model loaded for use from code: ``predict(pages)``, ``extract(html, url)``, ``save(path)``.

    Made by :func:`load_model`. The recogniser's fitted parameters (names ending in ``_``, e.g. the
    general recogniser's ``ranker_`` and ``calibrator_``) are attributes of the model too; its
    hyper-parameters are :attr:`params`.

    Parameters
    ----------
    trained : mainentity.model_store.TrainedModel
        A model directory loaded by :func:`mainentity.model_store.load_trained_model`.
    cache_dir : str or path-like, optional
        Render cache directory; default the model config's ``render.cache_dir`` (the per-user cache).
    render_policy : {"always", "auto"}, optional
        Default the model config's ``render.policy``: ``auto`` renders few pages (a sample of each
        template of a large site; small sites answered from their HTML by the shipped static model when
        its score is high enough); each prediction's ``answered_by`` says how.

    Attributes
    ----------
    directory : Path
        Where the model was loaded from.
    config : mainentity.config.Config
        The model's config (its ``render`` section is how pages are rendered).
    recognizer : mainentity.recognizers.base.Recognizer
        The fitted recogniser.
    cleaners : dict
        Per-site cleaners fitted in training (empty for the general model, which cleans nothing).

    Examples
    --------
    Not run here (it starts Chromium)::

        with mainentity.load_model() as model:
            predictions = model.predict(mainentity.read_site_dump("datasets/sample-shop/sites/sample-shop"))
    """

    def __init__(self, trained: TrainedModel, *, cache_dir: str | os.PathLike | None = None,
                 render_policy: str | None = None) -> None:
        if render_policy is not None and render_policy not in RENDER_POLICIES:
            raise ValueError(f"render_policy must be one of {', '.join(RENDER_POLICIES)}; got {render_policy!r}")
        self._trained = trained
        render = trained.config.render
        if cache_dir is not None:
            render = dataclasses.replace(render, cache_dir=os.fspath(cache_dir))
        if render_policy is not None:
            render = dataclasses.replace(render, policy=render_policy)
        self._static_model: TrainedModel | None = None
        # pages are rendered with this config; the model's own (saved by save()) is left as it was
        self._in_use = dataclasses.replace(trained, config=dataclasses.replace(trained.config, render=render))
        self._lock = threading.Lock()
        self._renderer: Renderer | None = None

    def _static(self) -> TrainedModel | None:
        """The shipped static model, loaded at the first batch that needs it."""
        if self._static_model is None:
            self._static_model = load_static_model()
        return self._static_model

    # -- what the model is -----------------------------------------------------------------------
    @property
    def directory(self) -> Path:
        return self._trained.directory

    @property
    def config(self):
        return self._trained.config

    @property
    def recognizer(self):
        return self._trained.recognizer

    @property
    def cleaners(self) -> dict:
        return self._trained.cleaners

    @property
    def params(self) -> dict[str, Any]:
        """The recogniser's hyper-parameters (``get_params()``), e.g. ``{"abstain_below": 0.0, ...}``."""
        return self.recognizer.get_params(deep=False)

    def __getattr__(self, name: str) -> Any:
        # only called for names not found otherwise: the recogniser's fitted state (trailing "_")
        trained = self.__dict__.get("_trained")
        fitted = name.endswith("_") and not name.startswith("_")
        if trained is not None and fitted and hasattr(trained.recognizer, name):
            return getattr(trained.recognizer, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        fitted = [name for name in vars(self.recognizer) if name.endswith("_") and not name.startswith("_")]
        return sorted({*super().__dir__(), *fitted})

    def __repr__(self) -> str:
        return f"Model({str(self.directory)!r}, recognizer={self.config.model.name!r})"

    # -- the browser -----------------------------------------------------------------------------
    def __enter__(self) -> Model:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        """End the model's Chromium, if it runs (idempotent); waits for a call in progress to finish.

        The model stays usable: a later call starts a new browser. A model that is never closed ends
        its browser when it is garbage-collected or when the interpreter exits.
        """
        with self._lock:
            if self._renderer is not None:
                self._renderer.close()

    @property
    def browser_running(self) -> bool:
        """Whether the model's Chromium is running (it starts at the first page not in the render cache)."""
        return self._renderer is not None and self._renderer.running

    def _renderer_for_batch(self) -> Renderer:
        if self._renderer is None:
            from mainentity.render.browser import Renderer

            self._renderer = Renderer(render_settings(self._in_use.config.render))
            weakref.finalize(self, self._renderer.close)  # nothing is left running
        return self._renderer

    # -- predictions -----------------------------------------------------------------------------
    def predict(
        self,
        pages: Iterable[Page] | SiteDump,
        *,
        top_k: int | None = None,
        link_anchors: bool = True,
        subresources: SubresourceSources | None = None,
    ) -> list[Prediction]:
        """Predict the main entity of many pages at once, as ``mainentity predict`` does for a site dump.

        The pages are rendered in one browser (the model's, kept for the next call), ``render.concurrency``
        at a time, through the render cache; the pages of one ``site_id`` are passed to the recogniser
        together, so site-level evidence (the general recogniser's template features and site vote)
        covers them. A page that cannot be rendered or predicted gets a prediction with ``error`` set,
        and the batch goes on.

        Parameters
        ----------
        pages : iterable of Page, or SiteDump
            From :func:`mainentity.page_from_html`, or a whole :class:`~mainentity.sitedump.SiteDump` from
            :func:`mainentity.read_site_dump` (its pages, their stylesheets, fonts and images served from
            the dump); ``(site_id, path)`` unique. Pass all the pages of a site in one call: site-level
            evidence and incoming anchor texts come only from the pages of the call.
        top_k : int, optional
            How many candidate texts each prediction lists in ``candidates``, best first. Default: the
            recogniser's own (the general recogniser's ``n_top``, 5; the MS-RBFN's set H). A recogniser
            with an ``n_top`` parameter lists ``top_k``; the others' lists are cut to ``top_k``.
        link_anchors : bool, default True
            Replace each page's ``anchors`` by the anchor texts of the links that point to it from the
            other pages of its site in this call, and its ``home_link_texts`` by its own links to its
            site's home page (what ``mainentity predict`` does within a site dump). ``False`` keeps the
            ``anchors`` and ``home_link_texts`` the pages carry.
        subresources : SubresourceSources, optional
            What serves each site's stylesheets, fonts and images (default: the dump's, when ``pages``
            is a SiteDump; else only a page whose URL is its file's ``file://`` URI finds the files of
            its directory).

        Returns
        -------
        predictions : list of Prediction
            One per page, in the order of ``pages``: ``main_entity`` (text), ``score`` (the general
            recogniser's calibrated probability that the answer is right, in [0, 1]), ``bbox``
            (``(x, y, width, height)`` in CSS px from the page's top left corner, ``None`` when the answer
            is not shown on the page), ``candidates``, ``error`` (empty when fine).

        Raises
        ------
        TypeError
            If an item of ``pages`` is not a :class:`~mainentity.records.Page` (the message names it), or
            ``top_k`` is not an integer (``True``, ``2.0``).
        ValueError
            If two pages share ``(site_id, path)``, or ``top_k < 0``.
        FileNotFoundError
            If a page must be rendered and Chromium is not installed.
        """
        if isinstance(pages, SiteDump):
            if subresources is None:
                subresources = SubresourceSources.of_dumps([pages])
            pages = pages.pages
        pages = list(pages)
        for index, page in enumerate(pages):
            if not isinstance(page, Page):
                raise TypeError(f"pages[{index}] is a {type(page).__name__}, not a Page: build pages from "
                                "(url, html) with mainentity.page_from_html(html, url)")
        seen: dict[tuple[str, str], int] = {}
        for index, page in enumerate(pages):
            first = seen.setdefault(page_key(page), index)
            if first != index:
                raise ValueError(f"pages[{first}] and pages[{index}] are the same page: site {page.site_id!r}, "
                                 f"path {page.path!r}")
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int)):
            raise TypeError(f"top_k must be an integer >= 0 or None; got {top_k!r}")
        if top_k is not None and top_k < 0:
            raise ValueError(f"top_k must be an integer >= 0 or None; got {top_k!r}")
        if not pages:
            return []
        model = self._in_use
        if link_anchors:
            pages = with_site_anchors(pages, anchor_url_pattern=model.config.data.anchor_url_pattern)
        with self._lock:
            renderer = self._renderer_for_batch() if model.recognizer.needs_render else None
            restore = self._set_n_top(top_k)
            try:
                static_model = self._static() if model.config.render.policy == "auto" else None
                predictions = predict_pages(model, pages, subresources=subresources, renderer=renderer,
                                            static_model=static_model)
            finally:
                restore()
        by_key = {(prediction.site_id, prediction.path): with_score_kind(prediction, model, static_model)
                  for prediction in predictions}
        ordered = [by_key[page_key(page)] for page in pages]
        if top_k is None:
            return ordered
        return [dataclasses.replace(prediction, candidates=prediction.candidates[:top_k]) for prediction in ordered]

    def _set_n_top(self, top_k: int | None):
        """Set the recogniser's ``n_top`` to ``top_k`` when it has one; return what puts it back."""
        recognizer = self.recognizer
        if top_k is None or "n_top" not in recognizer.get_params(deep=False):
            return lambda: None
        previous = recognizer.n_top
        recognizer.set_params(n_top=top_k)
        return lambda: recognizer.set_params(n_top=previous)

    def extract(self, html: str | bytes, url: str | None = None, *, top_k: int | None = None) -> Prediction:
        """Predict the main entity of one page given by its markup (see :func:`mainentity.extract`)."""
        return self.predict([page_from_html(html, url)], top_k=top_k)[0]

    def save(self, path: str | os.PathLike) -> Path:
        """Write the model to a directory that :func:`load_model` (and ``mainentity predict``) reads.

        Parameters
        ----------
        path : str or path-like
            The model directory (created if missing): ``model.skops``, ``config.yaml``, ``meta.json``.

        Returns
        -------
        directory : Path

        Raises
        ------
        mainentity.model_io.UntrustedModelError
            If the recogniser holds a type a safe model file cannot hold (nothing is written).
        """
        with self._lock:
            return save_model(self._trained, path)


def load_model(model: str | os.PathLike | None = None, *, cache_dir: str | os.PathLike | None = None,
               render_policy: str | None = None) -> Model:
    """Load a model for use from code: a model directory, a shipped model's name, or the general model.

    Parameters
    ----------
    model : str or path-like, optional
        A directory written by ``mainentity train`` or :meth:`Model.save`, or the name of a model that
        ships with the package (``"general"``); default the general model.
    cache_dir : str or path-like, optional
        Render cache directory (default: the model config's, the per-user cache).
    render_policy : {"always", "auto"}, optional
        Render every page, or render few (see :class:`Model`); default the model config's ``render.policy``.

    Returns
    -------
    model : Model
        Use it as a context manager (or call ``close()``) to end its browser.

    Raises
    ------
    FileNotFoundError
        If ``model`` is neither a model directory nor a shipped model's name.
    mainentity.model_io.ModelFormatError, mainentity.model_io.UntrustedModelError
        If the model file is of another format version or names an untrusted type (nothing is built).

    Examples
    --------
    >>> model = load_model()
    >>> model.config.model.name, model.params["n_top"], type(model.ranker_).__name__
    ('general', 5, 'CandidateRanker')
    """
    return Model(load_trained_model(model), cache_dir=cache_dir, render_policy=render_policy)


_default: Model | None = None
_default_lock = threading.Lock()


def _default_model() -> Model:
    """The general model that :func:`extract` uses when given none, loaded once per process."""
    global _default
    with _default_lock:
        if _default is None:
            _default = load_model()
        return _default


def extract(html: str | bytes, url: str | None = None, *, model: Model | None = None,
            top_k: int | None = None) -> Prediction:
    """Name the main entity of one page given by its markup.

    The page is answered as ``mainentity predict`` answers a site dump that holds this page alone
    (:meth:`Model.predict`): under the default ``auto`` render policy from its HTML when the static
    model is sure of it (no box then), else rendered. Without ``model``, the general model is loaded at the first
    call and kept, with its browser, for the next calls of the process (its Chromium ends when the
    process exits); pass a :class:`Model` from :func:`load_model` to choose the model or to end the
    browser sooner (``with``/``close()``).

    Parameters
    ----------
    html : str or bytes
        The page's markup; bytes are decoded as a browser would (BOM, charset, sniffing). Nothing else
        is read: no stylesheet, font or image is served to the page.
    url : str, optional
        The page's absolute URL: it names the page's site and feeds the URL features. Without it the
        page's absolute ``<base href>`` is used, else the URL is unknown (``""``; see
        :func:`mainentity.page_from_html`).
    model : Model, optional
        Default: the general model.
    top_k : int, optional
        How many candidate texts ``candidates`` lists (see :meth:`Model.predict`).

    Returns
    -------
    prediction : Prediction
        ``main_entity`` (text; empty when there is none), ``score`` (calibrated probability in [0, 1]
        for the general model), ``bbox`` (``(x, y, width, height)`` in CSS px from the page's top left
        corner of the 1024 px wide layout, or ``None``), ``candidates`` (texts, best first) and
        ``error`` (why there is no answer, e.g. the page could not be rendered; empty when fine).

    Raises
    ------
    ValueError
        If the markup is empty or binary (the message names the page).
    TypeError
        If ``html`` is not ``str``/``bytes`` or ``model`` is not a :class:`Model`.
    FileNotFoundError
        If Chromium is not installed.

    Examples
    --------
    Not run here (it starts Chromium; the examples of README.md and docs/python.md run in ``tests/test_readme.py``)::

        prediction = extract("<title>Enamel Kettle | Harbor Lane</title><h1>Enamel Kettle</h1>",
                             "https://shop.example/p/enamel-kettle")
        prediction.main_entity, prediction.score, prediction.bbox
    """
    if model is not None and not isinstance(model, Model):
        raise TypeError(f"model must be a Model from mainentity.load_model(...); got {type(model).__name__}")
    return (model or _default_model()).extract(html, url, top_k=top_k)
