"""The base of the peers (:mod:`mainentity.recognizers.peers`): a title extractor as a recogniser that
needs no training and no rendering, and the error a missing tool raises."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from mainentity.recognizers.base import Recognizer
from mainentity.records import Document, Page, Prediction
from mainentity.text import collapse_whitespace

#: One (title, error) answer per page: ``title`` is ``""`` when ``error`` is set.
_Answer = tuple[str, str]


class PeerUnavailableError(ImportError):
    """A peer's tool is not installed; the message names it and the command that installs it.

    Subclasses :class:`ImportError` so code that already skips optional imports skips it too.

    Examples
    --------
    >>> err = PeerUnavailableError("goose3 is not installed; install it with: pip install goose3")
    >>> isinstance(err, ImportError)
    True
    """


def _empty_html_answer(page: Page) -> _Answer | None:
    if page.html.strip():
        return None
    return "", f"page {page.site_id}/{page.path} has empty HTML; nothing to extract a title from"


class PeerRecognizer(Recognizer):
    """Base class of the peers: a title extractor that needs no training and no rendering.

    Subclasses set :attr:`peer_name` and implement :meth:`check_available`, :meth:`version` and
    ``_extract_titles(pages) -> list of (title, error)``.

    Peers are stateless: ``fit`` learns nothing, and ``predict`` may be called without it
    (``__sklearn_is_fitted__`` is ``True``, scikit-learn's convention for stateless estimators).
    """

    needs_render: ClassVar[bool] = False
    needs_training: ClassVar[bool] = False
    #: The registry name, also the system name in reports.
    peer_name: ClassVar[str] = ""

    def __sklearn_is_fitted__(self) -> bool:
        return True

    def check_available(self) -> None:
        """Raise :class:`PeerUnavailableError` (with the install command) when the tool is missing."""
        raise NotImplementedError

    def version(self) -> str:
        """The tool's version, e.g. ``"trafilatura 2.3.1"``, or ``"<name> not installed"``."""
        raise NotImplementedError

    def _extract_titles(self, pages: Sequence[Page]) -> list[_Answer]:
        raise NotImplementedError

    def fit(self, documents: Sequence[Document] = (), y=None) -> PeerRecognizer:
        """Check that the tool is installed; learn nothing.

        Parameters
        ----------
        documents : sequence of Document, optional
            Ignored (peers need no training).
        y : None
            Ignored; scikit-learn API convention.

        Returns
        -------
        self : PeerRecognizer

        Raises
        ------
        PeerUnavailableError
            If the tool is not installed.
        """
        self.check_available()
        return self

    def predict(self, documents: Sequence[Document]) -> list[Prediction]:
        """Extract each page's title with the tool; one prediction per document, in order.

        Parameters
        ----------
        documents : sequence of Document
            Only ``document.page.html`` and ``document.page.url`` are read.

        Returns
        -------
        predictions : list of Prediction
            ``main_entity`` is the whitespace-collapsed title (``""`` when the tool finds none);
            ``score`` is NaN and ``candidates`` is empty. A page with empty HTML, or on which the tool
            fails, gets ``error`` = the page and reason; other pages are unaffected.

        Raises
        ------
        PeerUnavailableError
            If the tool is not installed.
        """
        self.check_available()
        pages = [document.page for document in documents]
        answers = self._extract_titles(pages) if pages else []
        return [
            Prediction(site_id=page.site_id, path=page.path, url=page.url,
                       main_entity=collapse_whitespace(title), error=error)
            for page, (title, error) in zip(pages, answers, strict=True)
        ]
