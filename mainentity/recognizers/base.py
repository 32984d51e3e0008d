"""The recogniser contract and the registry of recognisers by name.

The registry maps a name (what a YAML config's ``model.name`` says) to the module and class that
implement it; modules are imported only when their recogniser is asked for, so choosing ``tta`` never
imports torch.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import ClassVar

from sklearn.base import BaseEstimator

from mainentity.records import Document, Prediction

#: name -> "module:Class". Add a recogniser by adding its line here.
_REGISTRY: dict[str, str] = {
    "msrbfn": "mainentity.recognizers.msrbfn:MSRBFNRecognizer",
    "general": "mainentity.recognizers.general:GeneralRecognizer",
    "tta": "mainentity.recognizers.titler:TTARecognizer",
    "titler-svm": "mainentity.recognizers.titler:TitlerSVMRecognizer",
    "titler-knn": "mainentity.recognizers.titler:TitlerKNNRecognizer",
    "titler-nb": "mainentity.recognizers.titler:TitlerNBRecognizer",
    "titler-clus": "mainentity.recognizers.titler:TitlerClusRecognizer",
    "title-tag": "mainentity.recognizers.baselines:TitleTagRecognizer",
    "og-title": "mainentity.recognizers.baselines:OgTitleRecognizer",
    "first-h1": "mainentity.recognizers.baselines:FirstH1Recognizer",
    "trafilatura": "mainentity.recognizers.peers:TrafilaturaRecognizer",
    "goose3": "mainentity.recognizers.peers:GooseRecognizer",
    "newspaper4k": "mainentity.recognizers.peers:Newspaper4kRecognizer",
    "readability-lxml": "mainentity.recognizers.peers:ReadabilityLxmlRecognizer",
    "mozilla-readability": "mainentity.recognizers.peer_node:MozillaReadabilityRecognizer",
    "defuddle": "mainentity.recognizers.peer_node:DefuddleRecognizer",
}


class Recognizer(BaseEstimator):
    """Base class of recognisers: ``fit(documents)`` then ``predict(documents)``.

    Subclasses store their hyper-parameters in ``__init__`` (scikit-learn convention, so
    ``get_params``/``clone`` work), learn in :meth:`fit` (state with a trailing underscore) and answer
    one :class:`~mainentity.records.Prediction` per document in :meth:`predict`, in input order.

    Fitted state must be numpy arrays, builtins, scikit-learn estimators or the package's own
    estimators, so that a model file can hold it with no extra code (:mod:`mainentity.model_io`).

    ``needs_render`` tells the pipeline whether documents must carry a
    :class:`~mainentity.records.RenderedPage`; recognisers that read only HTML set it to ``False``.
    ``needs_training`` is ``False`` for recognisers whose ``fit`` learns nothing. ``site_level`` is
    ``True`` for recognisers that use the other pages of a page's site: the pipeline then passes all
    the documents of one site to one :meth:`predict` call.

    A site-level recogniser may also answer a site in shards, so that a very large site can be spread
    over many processes (:func:`mainentity.scaleout.site_tasks`): :meth:`site_statistics` once over all the
    site's documents, :meth:`score_shard` on each shard of its documents with those statistics, and
    :meth:`predict_scored` on the scored pages of every shard, in site order. The three must give the
    predictions of one :meth:`predict` call on the whole site. Without them (they raise
    NotImplementedError here) a cluster run predicts its sites whole.
    """

    needs_render: ClassVar[bool] = True
    needs_training: ClassVar[bool] = True
    site_level: ClassVar[bool] = False

    def fit(self, documents: Sequence[Document]) -> Recognizer:
        """Learn from labeled documents (labels in ``document.page.main_entity``); return ``self``."""
        raise NotImplementedError

    def predict(self, documents: Sequence[Document]) -> list[Prediction]:
        """Return one prediction per document, in order.

        A document the recogniser cannot answer gets a prediction with ``error`` set; it never raises
        for one bad page.
        """
        raise NotImplementedError

    def scores_are_probabilities(self) -> bool:
        """Whether the predictions' ``score`` is the probability that the answer is right (a calibrated
        score), so that a report may set it against how often answers were right. ``False`` here."""
        return False

    def site_statistics(self, documents: Sequence[Document]) -> object:
        """What a site-level recogniser counts over all the documents of one site, learned without labels.

        Parameters
        ----------
        documents : sequence of Document
            Every document of one site that :meth:`predict` would get, in site order.

        Returns
        -------
        statistics : object
            Picklable (it is sent to the processes that score the site's shards).

        Raises
        ------
        NotImplementedError
            If the recogniser does not answer a site in shards.
        """
        raise NotImplementedError(f"{type(self).__name__} does not answer a site in shards")

    def score_shard(self, documents: Sequence[Document], statistics: object) -> list:
        """Score a shard of one site's documents with the site's :meth:`site_statistics`.

        Parameters
        ----------
        documents : sequence of Document
            Some of the documents of the site the statistics were counted on, in site order.
        statistics : object
            :meth:`site_statistics` of all the site's documents.

        Returns
        -------
        scored : list
            One picklable scored page per document, in order: what :meth:`predict_scored` needs.

        Raises
        ------
        NotImplementedError
            If the recogniser does not answer a site in shards.
        """
        raise NotImplementedError(f"{type(self).__name__} does not answer a site in shards")

    def predict_scored(self, scored: Sequence) -> list[Prediction]:
        """Finish a site from the scored pages of all its shards: site-level inference, then predictions.

        Parameters
        ----------
        scored : sequence
            The :meth:`score_shard` results of every shard of one site, concatenated in site order.

        Returns
        -------
        predictions : list of Prediction
            One per scored page, in order; the same as :meth:`predict` on the site's documents.

        Raises
        ------
        NotImplementedError
            If the recogniser does not answer a site in shards.
        """
        raise NotImplementedError(f"{type(self).__name__} does not answer a site in shards")


def predict_each(documents: Sequence[Document], answer: Callable[[Document], Prediction]) -> list[Prediction]:
    """Apply ``answer`` to each document; a document whose answer raises gets an error prediction.

    Parameters
    ----------
    documents : sequence of Document
    answer : callable
        ``answer(document) -> Prediction``.

    Returns
    -------
    predictions : list of Prediction
        One per document, in order; ``error`` is ``"<ExceptionType>: <message>"`` for a failed page.

    Examples
    --------
    >>> from mainentity.records import Page
    >>> page = Page("site", "a.html", "http://x/a.html", "")
    >>> predict_each([Document(page)], lambda document: 1 / 0)[0].error
    'ZeroDivisionError: division by zero'
    """
    predictions = []
    for document in documents:
        try:
            predictions.append(answer(document))
        except Exception as error:  # noqa: BLE001 - one bad page must not stop the batch
            page = document.page
            predictions.append(
                Prediction(page.site_id, page.path, page.url, error=f"{type(error).__name__}: {error}")
            )
    return predictions


def recognizer_names() -> list[str]:
    """Names a config may give as ``model.name``, sorted.

    >>> "msrbfn" in recognizer_names()
    True
    """
    return sorted(_REGISTRY)


def make_recognizer(name: str, **params) -> Recognizer:
    """Build the recogniser registered as ``name`` with hyper-parameters ``params``.

    Raises
    ------
    ValueError
        If ``name`` is not registered (the message lists the valid names) or a parameter is unknown.
    """
    if name not in _REGISTRY:
        raise ValueError(f"unknown model name {name!r}; valid names: {', '.join(recognizer_names())}")
    module_name, class_name = _REGISTRY[name].split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    valid = set(cls._get_param_names())
    unknown = sorted(set(params) - valid)
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(unknown)} for model {name!r}; valid: {', '.join(sorted(valid))}"
        )
    return cls(**params)
