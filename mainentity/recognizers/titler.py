"""Recognisers of Gali & Fränti (2016): TTA (title-tag analysis) and Titler with four classifiers.

- "tta": segments of the title tags scored by position, heading popularity and URL similarity
  (:func:`mainentity.features.title_segments.score_segments`); learns nothing.
- "titler-svm", "titler-knn", "titler-nb", "titler-clus": body n-gram candidates with nine features
  (:func:`mainentity.features.ngram_candidates.extract_candidates`) scored by a
  :class:`mainentity.models.titler_classifier.TitlerClassifier`; the page's answer is the best-scored candidate.

Training labels of Titler (:func:`mainentity.features.labels.main_entity_labels`, shared with the
MS-RBFN): a candidate is a title when its normalised text (:func:`mainentity.text.normalize_text`)
equals a label's; when no candidate does, the candidates with the page's best token Dice coefficient
with a label are, provided it is at least ``min_label_dice`` (0.5 by default: "Coronet" for the label
"The Coronet" scores 0.67). Token Dice on distinct letter-digit tokens is ROUGE-1 F1 for texts without
repeated tokens. Pages with no such candidate are left out of training.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mainentity.features.labels import main_entity_labels
from mainentity.features.ngram_candidates import extract_candidates
from mainentity.features.title_segments import LINK_WEIGHTS, score_segments
from mainentity.models.titler_classifier import TitlerClassifier
from mainentity.recognizers.base import Recognizer, predict_each
from mainentity.records import Document, Prediction

__all__ = [
    "TTARecognizer",
    "TitlerClusRecognizer",
    "TitlerKNNRecognizer",
    "TitlerNBRecognizer",
    "TitlerSVMRecognizer",
]

logger = logging.getLogger(__name__)


def _rendered(document: Document, name: str):
    if document.rendered is None:
        raise ValueError(f"{name} needs a rendered page; the document has none")
    return document.rendered


class TTARecognizer(Recognizer):
    """Title-tag analysis: the best-scored segment of the title, meta titles and meta keywords.

    Parameters
    ----------
    position_score : float, default 0.1
        Criterion 1 for a segment first or last in its title tag.
    link_weights : sequence of 3 float, default (1, 1.5, 3)
        Weights of the URL's domain, path and file name in criterion 3.
    min_link_dice : float, default 0.5
        Dice similarities with a URL part below it count as 0.
    include_hidden : bool, default False
        Count hidden heading blocks in criterion 2.

    Notes
    -----
    The prediction's ``score`` is the TTA total (criterion sums, at most ``2 + position_score``) and
    ``candidates`` are all segments, best first (ties keep source order). ``bbox`` is ``None``: the
    answer is a piece of a title tag, not a text block.

    References
    ----------
    .. [1] Gali & Fränti (2016), "Web title extraction", TTA slides.

    Examples
    --------
    >>> from mainentity.records import Page, RenderedPage, TextBlock
    >>> h1 = TextBlock("Acme Tools", "h1", "html[0]/body[1]/h1[0]", 32.0, 700, True, 0, 0, 300, 40,
    ...                heading_level=1)
    >>> page = Page("acme", "index.html", "https://acme.com/", "")
    >>> document = Document(page, RenderedPage("Home | Acme Tools", (), (h1,)))
    >>> prediction = TTARecognizer().predict([document])[0]
    >>> prediction.main_entity, round(prediction.score, 2), prediction.candidates
    ('Acme Tools', 2.1, ('Acme Tools', 'Home'))
    """

    needs_render = True
    needs_training = False

    def __init__(
        self, position_score=0.1, link_weights=LINK_WEIGHTS, min_link_dice=0.5, include_hidden=False
    ):
        self.position_score = position_score
        self.link_weights = link_weights
        self.min_link_dice = min_link_dice
        self.include_hidden = include_hidden

    def fit(self, documents: Sequence[Document]) -> TTARecognizer:
        """Learn nothing; return ``self``."""
        return self

    def predict(self, documents: Sequence[Document]) -> list[Prediction]:
        """The best TTA segment of each rendered document.

        A document without a rendering, or whose title tags hold no segment, gets an error prediction.
        """
        return predict_each(documents, self._answer)

    def _answer(self, document: Document) -> Prediction:
        rendered = _rendered(document, "tta")
        page = document.page
        headings = [
            (block.text, block.heading_level)
            for block in rendered.blocks
            if block.heading_level and (self.include_hidden or not block.hidden)
        ]
        scores = score_segments(
            rendered.title,
            rendered.meta_titles,
            [content for key, content in rendered.meta if key == "keywords"],
            headings,
            page.url,
            position_score=self.position_score,
            link_weights=tuple(self.link_weights),
            min_link_dice=self.min_link_dice,
        )
        if not scores.segments:
            return Prediction(
                page.site_id, page.path, page.url, error="page has no title, meta title or keywords text"
            )
        order = np.argsort(-scores.total, kind="stable")
        return Prediction(
            page.site_id,
            page.path,
            page.url,
            main_entity=scores.segments[order[0]],
            score=float(scores.total[order[0]]),
            candidates=tuple(scores.segments[i] for i in order),
        )


class _TitlerRecognizer(Recognizer):
    """Shared fit/predict of the Titler recognisers; subclasses choose the classifier."""

    needs_render = True
    needs_training = True
    _name = "titler"

    def _classifier(self) -> TitlerClassifier:
        raise NotImplementedError

    def _candidates(self, document: Document):
        return extract_candidates(
            _rendered(document, self._name),
            document.page.url,
            max_n=self.max_n,
            max_block_tokens=self.max_block_tokens,
            max_candidates=self.max_candidates,
            pos_filter=self.pos_filter,
            include_hidden=self.include_hidden,
            min_link_dice=self.min_link_dice,
        )

    def fit(self, documents: Sequence[Document]) -> _TitlerRecognizer:
        """Train the classifier on the candidates of the labeled, rendered documents.

        Each page contributes its positive candidates (see the module notes) and at most
        ``max_negatives_per_page`` negative ones, drawn at random with ``random_state``. Pages without
        a label, without a rendering or without a matching candidate are skipped (and counted).

        Parameters
        ----------
        documents : sequence of Document
            Labels in ``document.page.main_entity``.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If no document has a candidate that matches its label, or the chosen pages yield no
            negative candidate.
        """
        rng = check_random_state(self.random_state)
        features, labels = [], []
        n_unlabeled = n_unmatched = 0
        for document in documents:
            if not document.page.main_entity or document.rendered is None:
                n_unlabeled += 1
                continue
            candidates = self._candidates(document)
            positive = main_entity_labels(candidates.texts, document.page.main_entity, self.min_label_dice)
            if not positive.any():
                n_unmatched += 1
                continue
            negatives = np.flatnonzero(~positive)
            if self.max_negatives_per_page is not None and len(negatives) > self.max_negatives_per_page:
                negatives = np.sort(rng.choice(negatives, self.max_negatives_per_page, replace=False))
            keep = np.concatenate([np.flatnonzero(positive), negatives])
            features.append(candidates.features[keep])
            labels.append(positive[keep])
        self.n_training_pages_ = len(features)
        self.n_skipped_pages_ = n_unlabeled + n_unmatched
        if not features:
            raise ValueError(
                f"{self._name}: no training page has a candidate matching its main entity "
                f"({len(documents)} documents: {n_unlabeled} unlabeled or not rendered, {n_unmatched} "
                f"without a match at min_label_dice={self.min_label_dice}, max_n={self.max_n})"
            )
        if n_unmatched:
            logger.info("%s: %d of %d labeled pages have no matching candidate and are not used for training",
                        self._name, n_unmatched, len(documents) - n_unlabeled)
        self.classifier_ = self._classifier().fit(np.vstack(features), np.concatenate(labels))
        return self

    def predict(self, documents: Sequence[Document]) -> list[Prediction]:
        """The best-scored candidate of each rendered document.

        ``score`` is the classifier's decision value of the answer; ``candidates`` are the candidates
        classified as titles (decision value > 0), best first, always starting with the answer;
        ``bbox`` is set when the answer is a whole text block. A document without a rendering or
        without candidates gets an error prediction.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If called before :meth:`fit`.
        """
        check_is_fitted(self, "classifier_")
        return predict_each(documents, self._answer)

    def _answer(self, document: Document) -> Prediction:
        page = document.page
        candidates = self._candidates(document)
        if not candidates.texts:
            return Prediction(
                page.site_id, page.path, page.url,
                error="no Titler candidates (no noun-phrase n-gram in the page's short visible text blocks)",
            )
        scores = self.classifier_.decision_function(candidates.features)
        order = np.argsort(-scores, kind="stable")
        best = int(order[0])
        bbox = None
        if candidates.block_index[best] >= 0:
            block = document.rendered.blocks[candidates.block_index[best]]
            bbox = (float(block.x), float(block.y), float(block.width), float(block.height))
        return Prediction(
            page.site_id,
            page.path,
            page.url,
            main_entity=candidates.texts[best],
            score=float(scores[best]),
            bbox=bbox,
            candidates=tuple(candidates.texts[i] for i in order if i == best or scores[i] > 0),
        )


_SHARED_PARAMS_DOC = """
    max_n : int, default 6
        Longest candidate n-gram, in words.
    max_block_tokens : int, default 64
        Only text blocks of at most this many words yield candidates.
    max_candidates : int, default 5000
        Cap on distinct candidates per page (first seen first).
    pos_filter : {"nltk", "capitalisation"}, default "nltk"
        Candidate filter: NLTK POS tags (with a warned fallback) or capitalisation only.
    include_hidden : bool, default False
        Also use hidden text blocks.
    min_link_dice : float, default 0.5
        Dice similarities with a URL part below it count as 0 in the URL feature.
    min_label_dice : float, default 0.5
        Training: lowest token Dice with a label for a partial match to make a candidate positive.
    max_negatives_per_page : int or None, default 100
        Training: at most this many negative candidates per page (random); None keeps all.
    random_state : int or None, default None
        Seed of the negative sampling and of the classifier."""


class TitlerSVMRecognizer(_TitlerRecognizer):
    __doc__ = f"""Titler with an SVM ("titler-svm", Gali & Fränti 2016, slide "Classifiers").

    Parameters
    ----------
    C, kernel, gamma, class_weight
        Of :class:`mainentity.models.titler_classifier.TitlerClassifier` (``method="svm"``).{_SHARED_PARAMS_DOC}
    """

    _name = "titler-svm"

    def __init__(self, C=1.0, kernel="rbf", gamma="scale", class_weight="balanced", max_n=6,
                 max_block_tokens=64, max_candidates=5000, pos_filter="nltk", include_hidden=False,
                 min_link_dice=0.5, min_label_dice=0.5, max_negatives_per_page=100, random_state=None):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.class_weight = class_weight
        self.max_n = max_n
        self.max_block_tokens = max_block_tokens
        self.max_candidates = max_candidates
        self.pos_filter = pos_filter
        self.include_hidden = include_hidden
        self.min_link_dice = min_link_dice
        self.min_label_dice = min_label_dice
        self.max_negatives_per_page = max_negatives_per_page
        self.random_state = random_state

    def _classifier(self) -> TitlerClassifier:
        return TitlerClassifier("svm", C=self.C, kernel=self.kernel, gamma=self.gamma,
                                class_weight=self.class_weight, random_state=self.random_state)


class TitlerKNNRecognizer(_TitlerRecognizer):
    __doc__ = f"""Titler with k nearest neighbours ("titler-knn", Gali & Fränti 2016, slide "Classifiers").

    Parameters
    ----------
    n_neighbors, weights
        Of :class:`mainentity.models.titler_classifier.TitlerClassifier` (``method="knn"``).{_SHARED_PARAMS_DOC}
    """

    _name = "titler-knn"

    def __init__(self, n_neighbors=5, weights="distance", max_n=6, max_block_tokens=64, max_candidates=5000,
                 pos_filter="nltk", include_hidden=False, min_link_dice=0.5, min_label_dice=0.5,
                 max_negatives_per_page=100, random_state=None):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.max_n = max_n
        self.max_block_tokens = max_block_tokens
        self.max_candidates = max_candidates
        self.pos_filter = pos_filter
        self.include_hidden = include_hidden
        self.min_link_dice = min_link_dice
        self.min_label_dice = min_label_dice
        self.max_negatives_per_page = max_negatives_per_page
        self.random_state = random_state

    def _classifier(self) -> TitlerClassifier:
        return TitlerClassifier("knn", n_neighbors=self.n_neighbors, weights=self.weights,
                                random_state=self.random_state)


class TitlerNBRecognizer(_TitlerRecognizer):
    __doc__ = f"""Titler with Gaussian naive Bayes ("titler-nb", Gali & Fränti 2016, slide "Classifiers").

    Parameters
    ----------
    var_smoothing
        Of :class:`mainentity.models.titler_classifier.TitlerClassifier` (``method="nb"``).{_SHARED_PARAMS_DOC}
    """

    _name = "titler-nb"

    def __init__(self, var_smoothing=1e-9, max_n=6, max_block_tokens=64, max_candidates=5000,
                 pos_filter="nltk", include_hidden=False, min_link_dice=0.5, min_label_dice=0.5,
                 max_negatives_per_page=100, random_state=None):
        self.var_smoothing = var_smoothing
        self.max_n = max_n
        self.max_block_tokens = max_block_tokens
        self.max_candidates = max_candidates
        self.pos_filter = pos_filter
        self.include_hidden = include_hidden
        self.min_link_dice = min_link_dice
        self.min_label_dice = min_label_dice
        self.max_negatives_per_page = max_negatives_per_page
        self.random_state = random_state

    def _classifier(self) -> TitlerClassifier:
        return TitlerClassifier("nb", var_smoothing=self.var_smoothing, random_state=self.random_state)


class TitlerClusRecognizer(_TitlerRecognizer):
    __doc__ = f"""Titler with k-means clustering ("titler-clus", Gali & Fränti 2016, slide "Classifiers").

    The cluster holding the most training titles is the title cluster; candidates are scored by how
    much nearer they are to its centroid than to any other.

    Parameters
    ----------
    n_clusters
        Of :class:`mainentity.models.titler_classifier.TitlerClassifier` (``method="clus"``), >= 2.{_SHARED_PARAMS_DOC}
    """

    _name = "titler-clus"

    def __init__(self, n_clusters=8, max_n=6, max_block_tokens=64, max_candidates=5000, pos_filter="nltk",
                 include_hidden=False, min_link_dice=0.5, min_label_dice=0.5, max_negatives_per_page=100,
                 random_state=None):
        self.n_clusters = n_clusters
        self.max_n = max_n
        self.max_block_tokens = max_block_tokens
        self.max_candidates = max_candidates
        self.pos_filter = pos_filter
        self.include_hidden = include_hidden
        self.min_link_dice = min_link_dice
        self.min_label_dice = min_label_dice
        self.max_negatives_per_page = max_negatives_per_page
        self.random_state = random_state

    def _classifier(self) -> TitlerClassifier:
        return TitlerClassifier("clus", n_clusters=self.n_clusters, random_state=self.random_state)
