"""Site-level cleaning: drop the text blocks every page of a site shares before recognition.

Two cleaners learn a model of one site from a sample of its pages and then remove the noisy
(redundant) text blocks of any page of that site:

- ``"sst"``: :class:`~mainentity.cleaning.sst.SiteStyleTreeCleaner`, the site style tree of
  Yi, Liu & Li (KDD 2003);
- ``"infodiscoverer"``: :class:`~mainentity.cleaning.infodiscoverer.InfoDiscovererCleaner`, the
  entropy of content blocks of Lin & Ho (KDD 2002);
- ``"none"``: :class:`NoCleaning`, which keeps every block.

All follow scikit-learn's transformer shape: ``make_cleaner(name, **params).fit(site_documents)``
learns the site model, ``transform(documents)`` returns new :class:`~mainentity.records.Document`
records whose ``rendered.blocks`` lack the removed blocks. Fitted cleaners go into model files
(:mod:`mainentity.model_io`), so a pipeline can keep one per site dump. The submodules are imported
only when their cleaner is asked for.
"""

from __future__ import annotations

import importlib
import logging
import time
import warnings
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mainentity.records import Document

logger = logging.getLogger(__name__)

#: name -> "module:Class" of the cleaners a config's ``cleaning.method`` may name.
_REGISTRY: dict[str, str] = {
    "none": "mainentity.cleaning:NoCleaning",
    "sst": "mainentity.cleaning.sst:SiteStyleTreeCleaner",
    "infodiscoverer": "mainentity.cleaning.infodiscoverer:InfoDiscovererCleaner",
}


def cleaner_names() -> list[str]:
    """Names a config may give as ``cleaning.method``, sorted.

    >>> cleaner_names()
    ['infodiscoverer', 'none', 'sst']
    """
    return sorted(_REGISTRY)


def make_cleaner(method: str, **params) -> SiteCleaner:
    """Build an unfitted cleaner by its registry name.

    Parameters
    ----------
    method : {"none", "sst", "infodiscoverer"}
        The cleaning method.
    **params
        The cleaner's hyper-parameters (see its class).

    Returns
    -------
    cleaner : SiteCleaner

    Raises
    ------
    ValueError
        If ``method`` is unknown or a parameter is not one the cleaner takes (the message lists the
        valid names).

    Examples
    --------
    >>> make_cleaner("sst", threshold=0.2).threshold
    0.2
    >>> make_cleaner("tidy")
    Traceback (most recent call last):
    ...
    ValueError: unknown cleaning method 'tidy'; valid: infodiscoverer, none, sst
    """
    if method not in _REGISTRY:
        raise ValueError(f"unknown cleaning method {method!r}; valid: {', '.join(cleaner_names())}")
    module_name, class_name = _REGISTRY[method].split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    valid = set(cls._get_param_names())
    unknown = sorted(set(params) - valid)
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(unknown)} for cleaning method {method!r}; "
            f"valid: {', '.join(sorted(valid))}"
        )
    return cls(**params)


class SiteCleaner(BaseEstimator):
    """Base of the site-level cleaners: sampling, the single-page pass-through and block removal.

    Subclasses store their hyper-parameters in ``__init__`` (they must include ``max_pages`` and
    ``random_state``), learn the site model in ``_fit_site`` and say which blocks of a page to keep in
    ``_keep_mask``.

    Attributes
    ----------
    site_id_ : str
        ``site_id`` of the first fitted document.
    n_documents_ : int
        Documents given to :meth:`fit`.
    sample_indices_ : ndarray of shape (n_sampled,)
        Indices (into the fitted documents, sorted) of the pages the model was learned from.
    passthrough_ : bool
        ``True`` when the site has fewer than two usable pages: nothing can be learned across pages,
        so :meth:`transform` returns documents unchanged.
    fit_time_s_ : float
        Wall-clock seconds :meth:`fit` took.
    """

    #: Does the cleaner read ``rendered.blocks`` when fitting (else only ``page.html``)?
    _fit_needs_blocks = False

    def fit(self, documents: Sequence[Document], y=None) -> SiteCleaner:
        """Learn the site model from up to ``max_pages`` pages of ONE site.

        Parameters
        ----------
        documents : sequence of Document
            The pages of one site (with ``rendered`` when the cleaner needs text blocks).
        y : None
            Ignored (scikit-learn convention).

        Returns
        -------
        self : SiteCleaner

        Raises
        ------
        ValueError
            If ``documents`` is empty or a parameter is out of range.
        """
        started = time.perf_counter()
        self._check_params()
        documents = list(documents)
        if not documents:
            raise ValueError("fit needs the documents of one site; got none")
        usable = [
            i for i, document in enumerate(documents)
            if not self._fit_needs_blocks or document.rendered is not None
        ]
        rng = check_random_state(self.random_state)
        if len(usable) > self.max_pages:
            chosen = rng.choice(len(usable), size=self.max_pages, replace=False)
            usable = [usable[i] for i in sorted(chosen)]
        self.site_id_ = documents[0].page.site_id
        self.n_documents_ = len(documents)
        self.sample_indices_ = np.asarray(usable, dtype=int)
        self.passthrough_ = len(usable) < 2
        if self.passthrough_:
            logger.info(
                "site %s: %d usable page(s); a site model needs >= 2, so its pages pass unchanged",
                self.site_id_, len(usable),
            )
        else:
            self._fit_site([documents[i] for i in usable])
        self.fit_time_s_ = time.perf_counter() - started
        return self

    def transform(self, documents: Sequence[Document]) -> list[Document]:
        """Return the documents with their noisy text blocks removed.

        A document without ``rendered`` and, when the site passes through, every document comes back
        unchanged. A page that would lose every block also comes back unchanged (with a warning): the
        main entity is somewhere on the page, so cleaning must leave something.

        Parameters
        ----------
        documents : sequence of Document
            Pages of the site the cleaner was fitted on.

        Returns
        -------
        documents : list of Document
            New records (``dataclasses.replace``), in input order; the inputs are not modified.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the cleaner has not been fitted.
        """
        check_is_fitted(self)
        if self.passthrough_:
            return list(documents)
        cleaned = []
        for document in documents:
            rendered = document.rendered
            if rendered is None or not rendered.blocks:
                cleaned.append(document)
                continue
            keep = self._keep_mask(document)
            if all(keep):
                cleaned.append(document)
                continue
            if not any(keep):
                warnings.warn(
                    f"{document.page.site_id}/{document.page.path}: cleaning would remove all "
                    f"{len(keep)} text blocks; the page is kept whole",
                    stacklevel=2,
                )
                cleaned.append(document)
                continue
            blocks = tuple(block for block, kept in zip(rendered.blocks, keep, strict=True) if kept)
            cleaned.append(replace(document, rendered=replace(rendered, blocks=blocks)))
        return cleaned

    def fit_transform(self, documents: Sequence[Document], y=None) -> list[Document]:
        """``fit(documents).transform(documents)``."""
        return self.fit(documents).transform(documents)

    def _check_params(self) -> None:
        if not isinstance(self.max_pages, (int, np.integer)) or self.max_pages < 2:
            raise ValueError(f"max_pages must be an integer >= 2; got {self.max_pages!r}")

    def _fit_site(self, documents: list[Document]) -> None:
        raise NotImplementedError

    def _keep_mask(self, document: Document) -> list[bool]:
        raise NotImplementedError


class NoCleaning(SiteCleaner):
    """The ``"none"`` method: keep every text block (fit learns nothing).

    Parameters
    ----------
    max_pages : int, default=2
        Accepted for a uniform interface; unused.
    random_state : int, RandomState or None, default=None
        Accepted for a uniform interface; unused.

    Examples
    --------
    >>> from mainentity.records import Page
    >>> docs = [Document(Page("s", "a.html", "http://s/a", "<p>a</p>"))]
    >>> NoCleaning().fit(docs).transform(docs) == docs
    True
    """

    def __init__(self, max_pages: int = 2, random_state=None):
        self.max_pages = max_pages
        self.random_state = random_state

    def _fit_site(self, documents: list[Document]) -> None:
        pass

    def _keep_mask(self, document: Document) -> list[bool]:
        return [True] * len(document.rendered.blocks)


__all__ = ["NoCleaning", "SiteCleaner", "cleaner_names", "make_cleaner"]
