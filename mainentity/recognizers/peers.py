"""Peers: the title extraction of the tools people use today, wrapped as recognisers.

Each peer answers a page's main entity with the title its tool extracts from the page's HTML and URL,
through the tool's public API with its defaults, as a user would call it:

=======================  ===========================================================================
registry name            call
=======================  ===========================================================================
``trafilatura``          ``trafilatura.extract_metadata(html, default_url=url).title``
``goose3``               ``Goose({"enable_image_fetching": False}).extract(url=url, raw_html=html).title``
``newspaper4k``          ``Article(url, config).download(input_html=html).parse().title`` with
                         ``config.fetch_images = False`` and ``config.follow_meta_refresh = False``
``readability-lxml``     ``readability.Document(html, url=url).short_title()``
``mozilla-readability``  ``new Readability(new JSDOM(html, {url}).window.document).parse().title``
                         (the JavaScript original, through ``node``; see ``mozilla_readability/``)
``defuddle``             ``new Defuddle(new JSDOM(html, {url}).window.document, {url, useAsync: false})
                         .parse().title`` (through ``node`` too, the same script and npm package)
=======================  ===========================================================================

Peers learn nothing (``needs_training = False``, :meth:`PeerRecognizer.fit` only checks that the tool is
installed) and read no rendering (``needs_render = False``). The title is whitespace-collapsed and
otherwise left as the tool returned it; a tool that finds no title gives an empty ``main_entity`` with no
error. A page with empty HTML, or on which the tool raises (or, for the node peers, times out), gets a
:class:`~mainentity.records.Prediction` with ``error`` set and the batch goes on.

No peer touches the network: every one is given the HTML, so none downloads the page; goose3 and
newspaper4k are told not to fetch images (nor to follow a meta refresh), goose3 is never called with
empty HTML (it would then download ``url``), jsdom neither runs scripts nor loads sub-resources, and
Defuddle's async extractors (which fetch from third-party APIs) are off.
``tests/test_peers.py`` checks this with sockets that refuse to connect.

The tools are optional: ``pip install 'mainentity[peers]'`` installs the Python ones; the node ones need
``node`` (>= 20.19) and one ``npm`` step (:func:`mozilla_readability_install_command`). A peer whose tool
is missing raises :class:`PeerUnavailableError` from ``fit`` or ``predict`` (and
:meth:`PeerRecognizer.check_available`), with the command that installs it, so a benchmark can skip it.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable, Sequence
from typing import ClassVar

from mainentity.recognizers.peer_base import PeerRecognizer, PeerUnavailableError, _Answer, _empty_html_answer
from mainentity.recognizers.peer_node import (
    DefuddleRecognizer,
    MozillaReadabilityRecognizer,
    mozilla_readability_install_command,
    node_executable,
    node_modules_dir,
)
from mainentity.records import Page
from mainentity.text import collapse_whitespace

__all__ = [
    "PEER_NAMES",
    "DefuddleRecognizer",
    "GooseRecognizer",
    "MozillaReadabilityRecognizer",
    "Newspaper4kRecognizer",
    "PeerRecognizer",
    "PeerUnavailableError",
    "ReadabilityLxmlRecognizer",
    "TrafilaturaRecognizer",
    "mozilla_readability_install_command",
    "node_executable",
    "node_modules_dir",
    "peer_versions",
]

#: Registry names of the peers, in the order reports list them.
PEER_NAMES: tuple[str, ...] = (
    "trafilatura",
    "goose3",
    "newspaper4k",
    "readability-lxml",
    "mozilla-readability",
    "defuddle",
)

_PIP_COMMAND = "pip install 'mainentity[peers]'"


class _PythonPeer(PeerRecognizer):
    """A peer whose tool is a Python package: one in-process call per page."""

    #: Distribution name on PyPI (for the version and the install hint).
    distribution: ClassVar[str] = ""
    #: Top-level module the distribution provides.
    module: ClassVar[str] = ""

    def check_available(self) -> None:
        try:
            importlib.import_module(self.module)
        except ImportError as err:
            raise PeerUnavailableError(
                f"peer {self.peer_name!r} needs the Python package {self.distribution!r}, which is not "
                f"installed ({err}); install it with: {_PIP_COMMAND}  (or: pip install {self.distribution})"
            ) from err

    def version(self) -> str:
        try:
            return f"{self.distribution} {importlib.metadata.version(self.distribution)}"
        except importlib.metadata.PackageNotFoundError:
            return f"{self.distribution} not installed"

    def _make_extractor(self) -> Callable[[str, str], str | None]:
        """Return ``extract(html, url) -> title or None``; may hold resources until garbage collected."""
        raise NotImplementedError

    def _extract_titles(self, pages: Sequence[Page]) -> list[_Answer]:
        extract = self._make_extractor()
        answers: list[_Answer] = []
        for page in pages:
            empty = _empty_html_answer(page)
            if empty is not None:
                answers.append(empty)
                continue
            try:
                answers.append((extract(page.html, page.url) or "", ""))
            except Exception as err:  # a tool's failure on one page must not stop the batch
                answers.append(("", f"{self.peer_name} failed on page {page.site_id}/{page.path}: "
                                    f"{type(err).__name__}: {collapse_whitespace(str(err))}"))
        return answers


class TrafilaturaRecognizer(_PythonPeer):
    """trafilatura's metadata title: ``extract_metadata(html, default_url=url).title``.

    trafilatura takes the title from meta tags (og:title and the like), JSON-LD, a single ``<h1>``, title
    XPaths, then the ``<title>`` element split on separators.

    Examples
    --------
    >>> TrafilaturaRecognizer().needs_training, TrafilaturaRecognizer.peer_name
    (False, 'trafilatura')
    """

    peer_name = "trafilatura"
    distribution = "trafilatura"
    module = "trafilatura"

    def _make_extractor(self) -> Callable[[str, str], str | None]:
        from trafilatura import extract_metadata

        return lambda html, url: extract_metadata(html, default_url=url or None).title


class GooseRecognizer(_PythonPeer):
    """goose3's article title: ``Goose(config).extract(url=url, raw_html=html).title``.

    Image fetching is off (goose3's default, set explicitly); the HTML is always given (goose3 would
    download ``url`` when ``raw_html`` is empty, so empty pages never reach it).

    Examples
    --------
    >>> GooseRecognizer().needs_render
    False
    """

    peer_name = "goose3"
    distribution = "goose3"
    module = "goose3"

    def _make_extractor(self) -> Callable[[str, str], str | None]:
        from goose3 import Goose

        goose = Goose({"enable_image_fetching": False})

        def extract(html: str, url: str) -> str | None:
            return goose.extract(url=url or None, raw_html=html).title

        return extract


class Newspaper4kRecognizer(_PythonPeer):
    """newspaper4k's article title: ``Article(url, config).download(input_html=html).parse().title``.

    ``download(input_html=...)`` takes the HTML instead of fetching; ``config.fetch_images`` and
    ``config.follow_meta_refresh`` are off, so parsing fetches nothing either. The NLP step (``nlp()``,
    which may download NLTK data) is not called.

    Examples
    --------
    >>> Newspaper4kRecognizer.peer_name
    'newspaper4k'
    """

    peer_name = "newspaper4k"
    distribution = "newspaper4k"
    module = "newspaper"

    def _make_extractor(self) -> Callable[[str, str], str | None]:
        from newspaper import Article, Config

        config = Config()
        config.fetch_images = False
        config.follow_meta_refresh = False

        def extract(html: str, url: str) -> str | None:
            return Article(url, config=config).download(input_html=html).parse().title

        return extract


class ReadabilityLxmlRecognizer(_PythonPeer):
    """readability-lxml's short title: ``readability.Document(html, url=url).short_title()``.

    The ``<title>`` element with site names cut off at separators (``|``, ``-``, ``:``, ...).

    Examples
    --------
    >>> ReadabilityLxmlRecognizer.peer_name
    'readability-lxml'
    """

    peer_name = "readability-lxml"
    distribution = "readability-lxml"
    module = "readability"

    def _make_extractor(self) -> Callable[[str, str], str | None]:
        from readability import Document as ReadabilityDocument

        return lambda html, url: ReadabilityDocument(html, url=url or None).short_title()


_PEER_CLASSES: dict[str, type[PeerRecognizer]] = {
    cls.peer_name: cls
    for cls in (TrafilaturaRecognizer, GooseRecognizer, Newspaper4kRecognizer, ReadabilityLxmlRecognizer,
                MozillaReadabilityRecognizer, DefuddleRecognizer)
}


def peer_versions(names: Sequence[str] = PEER_NAMES) -> dict[str, str]:
    """The installed version of each peer's tool, for reports.

    Parameters
    ----------
    names : sequence of str, optional
        Peer registry names (default: all of :data:`PEER_NAMES`).

    Returns
    -------
    versions : dict of str to str
        Name -> e.g. ``"trafilatura 2.3.1"``, or ``"... not installed"``.

    Raises
    ------
    ValueError
        If a name is not a peer (the message lists the peers).

    Examples
    --------
    >>> list(peer_versions(["trafilatura"]))
    ['trafilatura']
    """
    unknown = [name for name in names if name not in _PEER_CLASSES]
    if unknown:
        raise ValueError(f"not a peer: {', '.join(unknown)}; peers are {', '.join(PEER_NAMES)}")
    return {name: _PEER_CLASSES[name]().version() for name in names}
