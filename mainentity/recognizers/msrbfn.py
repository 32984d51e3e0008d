"""The MS-RBFN main-entity recogniser (Carullo & Binaghi 2010, sections 3.1-3.3).

Each visible text block of a rendered page (every block, if none is visible) is a sample: its
textblock features theta
(:mod:`mainentity.features.textblock`), its anchor-text set gamma against the page's incoming anchor
texts (:mod:`mainentity.features.anchortext`) and, for training, its label
(:mod:`mainentity.features.labels`). The :class:`~mainentity.models.msrbfn_network.MSRBFN` scores every block
with o_1 - o_2; the page's main entity is its best-scoring block, and the blocks with o_1 > o_2 form
the set H of candidate main entities.

The paper's three feature sets (Table 2) are::

    MSRBFNRecognizer(anchortext_features=())                                  # G = {}, F = all
    MSRBFNRecognizer(textblock_features=("intitle",))                         # G = {dice}, F = {intitle}
    MSRBFNRecognizer()                                                        # G = {dice}, F = all
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence

import numpy as np
from sklearn.utils.validation import check_is_fitted

from mainentity.features.anchortext import anchortext_features, check_anchortext_features
from mainentity.features.labels import main_entity_labels
from mainentity.features.textblock import check_textblock_features, textblock_features
from mainentity.models.msrbfn_network import MSRBFN
from mainentity.recognizers.base import Recognizer
from mainentity.records import Document, Page, Prediction, RenderedPage, TextBlock

#: Documents scored per network evaluation in :meth:`MSRBFNRecognizer.predict`.
PREDICT_CHUNK_PAGES = 256


def page_features(
    page: Page,
    rendered: RenderedPage,
    textblock_names: Sequence[str],
    anchortext_names: Sequence[str],
    fsize_max: float = 48.0,
) -> tuple[list[TextBlock], np.ndarray, list[np.ndarray] | None]:
    """The visible text blocks of a page and their MS-RBFN inputs theta and gamma.

    When no block is visible, all the page's blocks are taken instead: a page the renderer saw
    wholly hidden (e.g. by CSS that only its scripts would lift) still shows a person its text, and
    its blocks' fonts and texts still tell its main entity better than no answer at all.

    Parameters
    ----------
    page : Page
        The page, for its incoming anchor texts ``anchors``.
    rendered : RenderedPage
        Its rendering, for the title and the text blocks.
    textblock_names : sequence of str
        The set F (may be empty).
    anchortext_names : sequence of str
        The set G (may be empty: then gammas is None).
    fsize_max : float, default 48.0
        Font size in CSS px that f_fsize maps to 1.

    Returns
    -------
    blocks : list of TextBlock
        The blocks that are not hidden (all blocks if every one is hidden), in document order; empty
        only when the page has no text block.
    theta : ndarray of shape (n_blocks, len(textblock_names))
    gammas : list of n_blocks ndarrays of shape (max(n_anchors, 1), len(anchortext_names)), or None

    Raises
    ------
    ValueError
        If a feature name is unknown, ``fsize_max`` is not positive, or a block's features are not
        finite (e.g. a NaN font size).
    """
    blocks = [block for block in rendered.blocks if not block.hidden] or list(rendered.blocks)
    theta = textblock_features(blocks, rendered.title, textblock_names, fsize_max)
    if not np.isfinite(theta).all():
        raise ValueError("a text block has non-finite textblock features (font size NaN or infinite?)")
    gammas = None
    if anchortext_names:
        gammas = anchortext_features([block.text for block in blocks], page.anchors, anchortext_names)
    return blocks, theta, gammas


class MSRBFNRecognizer(Recognizer):
    """Recognise a page's main entity as its best text block by the MS-RBFN score o_1 - o_2.

    Parameters
    ----------
    m1, m2, pi, class_weight, random_state
        As in :class:`~mainentity.models.msrbfn_network.MSRBFN` (M1 = M2 = 50, pi = 5 as in the paper's
        Table 2).
    textblock_features : sequence of str, default ("intitle", "fsize", "fbold")
        The set F of textblock features; may be empty.
    anchortext_features : sequence of str, default ("dice",)
        The set G of anchor-text features; may be empty (the M2 units are then off).
    fsize_max : float, default 48.0
        Font size in CSS px that f_fsize maps to 1.

    Attributes
    ----------
    model_ : MSRBFN
        The fitted network (its positive class True is the main entity).
    n_training_pages_ : int
        Pages that gave training blocks (pages whose blocks match no label count: they add negatives).
    n_training_blocks_ : int

    References
    ----------
    .. [1] Carullo & Binaghi (2010), KDIR, sections 3.1-3.3 and Table 2.
    """

    def __init__(
        self,
        m1=50,
        m2=50,
        pi=5,
        textblock_features=("intitle", "fsize", "fbold"),
        anchortext_features=("dice",),
        fsize_max=48.0,
        class_weight=None,
        random_state=None,
    ):
        self.m1 = m1
        self.m2 = m2
        self.pi = pi
        self.textblock_features = textblock_features
        self.anchortext_features = anchortext_features
        self.fsize_max = fsize_max
        self.class_weight = class_weight
        self.random_state = random_state

    def fit(self, documents: Sequence[Document]) -> MSRBFNRecognizer:
        """Train the MS-RBFN on the visible text blocks of labeled rendered documents.

        A block is labeled main entity as :func:`~mainentity.features.labels.main_entity_labels` says.
        Pages whose blocks match none of their labels still contribute their blocks as negatives (the
        page shows that those blocks are not the main entity). Documents without a rendering, without
        labels or without text blocks are skipped with one warning that counts them.

        Parameters
        ----------
        documents : sequence of Document
            Documents with ``rendered`` set and ``page.main_entity`` labels.

        Returns
        -------
        self : MSRBFNRecognizer

        Raises
        ------
        ValueError
            If a feature name is unknown (the message lists the valid ones), both feature sets are
            empty, no document gives training blocks, or no block matches any label.
        """
        textblock_names, anchortext_names = self._feature_names()
        thetas, gammas, labels = [], [], []
        skipped: Counter[str] = Counter()
        for document in documents:
            reason = _skip_reason(document)
            if reason:
                skipped[reason] += 1
                continue
            blocks, theta, page_gammas = page_features(
                document.page, document.rendered, textblock_names, anchortext_names, self.fsize_max
            )
            if not blocks:
                skipped["no text blocks"] += 1
                continue
            thetas.append(theta)
            gammas.extend(page_gammas or ())
            labels.append(main_entity_labels([block.text for block in blocks], document.page.main_entity))
        if skipped:
            counts = ", ".join(f"{count} {reason}" for reason, count in sorted(skipped.items()))
            warnings.warn(f"skipped {sum(skipped.values())} training documents: {counts}", stacklevel=2)
        if not thetas:
            raise ValueError("no training document has a rendering, a label and a text block")
        y = np.concatenate(labels)
        if not y.any():
            raise ValueError(
                f"no text block of the {len(thetas)} training pages matches its main_entity label; "
                "the main-entity class cannot be learned"
            )
        self.model_ = MSRBFN(
            m1=self.m1, m2=self.m2, pi=self.pi, class_weight=self.class_weight, random_state=self.random_state
        ).fit(np.vstack(thetas), y, gammas if anchortext_names else None)
        self.n_training_pages_ = len(thetas)
        self.n_training_blocks_ = len(y)
        return self

    def predict(self, documents: Sequence[Document]) -> list[Prediction]:
        """Score every visible block and answer each page's best block.

        Pages are scored :data:`PREDICT_CHUNK_PAGES` at a time (one network evaluation per chunk), so
        memory stays bounded however many documents are given.

        Parameters
        ----------
        documents : sequence of Document
            Documents with ``rendered`` set (labels are not used).

        Returns
        -------
        predictions : list of Prediction
            One per document, in order: ``main_entity`` the best block's text, ``score`` its
            o_1 - o_2, ``bbox`` its box, ``candidates`` the distinct texts of the blocks with
            o_1 > o_2 (the set H), best first. A page with no visible block is answered from all its
            blocks (:func:`page_features`). A document without a rendering or without any text block
            gets ``error`` set instead.
        """
        check_is_fitted(self)
        feature_names = self._feature_names()
        predictions: list[Prediction] = []
        for start in range(0, len(documents), PREDICT_CHUNK_PAGES):
            predictions.extend(
                self._predict_chunk(documents[start : start + PREDICT_CHUNK_PAGES], *feature_names)
            )
        return predictions

    def block_scores(self, document: Document) -> np.ndarray:
        """The score o_1 - o_2 of every text block of one rendered document.

        Parameters
        ----------
        document : Document
            A document with ``rendered`` set.

        Returns
        -------
        scores : ndarray of shape (n_blocks,)
            One score per block of ``document.rendered.blocks``, in order; NaN for hidden blocks,
            which the recogniser does not consider. :meth:`predict` answers the block with the
            highest score, and the blocks with a score > 0 form the candidate set H.

        Raises
        ------
        ValueError
            If the document has no rendering or its blocks have non-finite features.

        References
        ----------
        .. [1] Carullo & Binaghi (2010), KDIR, section 3.3.
        """
        check_is_fitted(self)
        if document.rendered is None:
            raise ValueError(f"page {document.page.site_id}/{document.page.path} is not rendered")
        textblock_names, anchortext_names = self._feature_names()
        blocks, theta, gammas = page_features(
            document.page, document.rendered, textblock_names, anchortext_names, self.fsize_max
        )
        scores = np.full(len(document.rendered.blocks), np.nan)
        if blocks:
            position = {id(block): i for i, block in enumerate(document.rendered.blocks)}
            visible = [position[id(block)] for block in blocks]
            scores[visible] = self.model_.decision_function(theta, gammas if anchortext_names else None)
        return scores

    def _predict_chunk(
        self,
        documents: Sequence[Document],
        textblock_names: tuple[str, ...],
        anchortext_names: tuple[str, ...],
    ) -> list[Prediction]:
        pages: list[tuple[int, list[TextBlock]]] = []
        thetas, gammas = [], []
        errors: dict[int, str] = {}
        for index, document in enumerate(documents):
            if document.rendered is None:
                errors[index] = "page not rendered"
                continue
            try:
                blocks, theta, page_gammas = page_features(
                    document.page, document.rendered, textblock_names, anchortext_names, self.fsize_max
                )
            except ValueError as error:
                errors[index] = str(error)
                continue
            if not blocks:
                errors[index] = "no text blocks"
                continue
            pages.append((index, blocks))
            thetas.append(theta)
            gammas.extend(page_gammas or ())
        answers: dict[int, Prediction] = {}
        if pages:
            scores = self.model_.decision_function(np.vstack(thetas), gammas if anchortext_names else None)
            offset = 0
            for index, blocks in pages:
                answers[index] = _prediction(
                    documents[index].page, blocks, scores[offset : offset + len(blocks)]
                )
                offset += len(blocks)
        return [
            answers.get(index)
            or Prediction(document.page.site_id, document.page.path, document.page.url, error=errors[index])
            for index, document in enumerate(documents)
        ]

    def _feature_names(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        textblock_names = check_textblock_features(self.textblock_features)
        anchortext_names = check_anchortext_features(self.anchortext_features)
        if not textblock_names and not anchortext_names:
            raise ValueError(
                "textblock_features and anchortext_features are both empty: the model has no input"
            )
        return textblock_names, anchortext_names


def _skip_reason(document: Document) -> str:
    if document.rendered is None:
        return "not rendered"
    if not document.page.main_entity:
        return "unlabeled"
    return ""


def _prediction(page: Page, blocks: list[TextBlock], scores: np.ndarray) -> Prediction:
    """The answer of one page from its blocks' scores o_1 - o_2."""
    order = np.argsort(-scores, kind="stable")
    best = blocks[order[0]]
    candidates = dict.fromkeys(blocks[i].text for i in order if scores[i] > 0)
    return Prediction(
        page.site_id,
        page.path,
        page.url,
        main_entity=best.text,
        score=float(scores[order[0]]),
        bbox=(best.x, best.y, best.width, best.height),
        candidates=tuple(candidates),
    )
