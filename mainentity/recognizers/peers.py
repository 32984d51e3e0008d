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
=======================  ===========================================================================

Peers learn nothing (``needs_training = False``, :meth:`PeerRecognizer.fit` only checks that the tool is
installed) and read no rendering (``needs_render = False``). The title is whitespace-collapsed and
otherwise left as the tool returned it; a tool that finds no title gives an empty ``main_entity`` with no
error. A page with empty HTML, or on which the tool raises (or, for the node peer, times out), gets a
:class:`~mainentity.records.Prediction` with ``error`` set and the batch goes on.

No peer touches the network: every one is given the HTML, so none downloads the page; goose3 and
newspaper4k are told not to fetch images (nor to follow a meta refresh), goose3 is never called with
empty HTML (it would then download ``url``), and jsdom neither runs scripts nor loads sub-resources.
``tests/test_peers.py`` checks this with sockets that refuse to connect.

The tools are optional: ``pip install 'mainentity[peers]'`` installs the Python ones; the node one needs
``node`` (>= 20.19) and an ``npm`` step (:func:`mozilla_readability_install_command`). A peer whose tool
is missing raises :class:`PeerUnavailableError` from ``fit`` or ``predict`` (and
:meth:`PeerRecognizer.check_available`), with the command that installs it, so a benchmark can skip it.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import queue
import shlex
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

from mainentity.recognizers.base import Recognizer
from mainentity.records import Document, Page, Prediction
from mainentity.text import collapse_whitespace

__all__ = [
    "PEER_NAMES",
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
)

_PIP_COMMAND = "pip install 'mainentity[peers]'"

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


# --- Mozilla Readability through node ---------------------------------------------------------------

_NODE_PACKAGE_DIR = Path(__file__).resolve().parent / "mozilla_readability"
_NODE_SCRIPT = _NODE_PACKAGE_DIR / "extract_titles.js"
#: The line the script writes once jsdom and Readability are loaded.
_READY_LINE = '{"ready":true}\n'


def _user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mainentity" / "mozilla_readability"


#: Environment variable naming the node executable for the Mozilla Readability peer.
NODE_ENV = "MAINENTITY_NODE"


def node_executable() -> str:
    """The node program the user's environment names: ``$MAINENTITY_NODE``, else ``node`` (on ``PATH``).

    >>> os.environ.pop(NODE_ENV, None) and None; node_executable()
    'node'
    """
    return os.environ.get(NODE_ENV) or "node"


def node_modules_dir() -> Path | None:
    """Where the npm packages of the node peer are installed, or ``None`` when nowhere.

    Searched in order: ``node_modules`` beside the script (``mainentity/recognizers/mozilla_readability/``,
    the place for a source checkout), then the user cache directory
    (``$XDG_CACHE_HOME/mainentity/mozilla_readability/node_modules``, default ``~/.cache/...``, the place
    when the package directory is not writable). A directory counts when it holds both
    ``@mozilla/readability`` and ``jsdom``.

    Returns
    -------
    path : Path or None
    """
    for base in (_NODE_PACKAGE_DIR, _user_cache_dir()):
        modules = base / "node_modules"
        if (modules / "@mozilla" / "readability").is_dir() and (modules / "jsdom").is_dir():
            return modules
    return None


def _pinned_npm_packages() -> list[str]:
    manifest = json.loads((_NODE_PACKAGE_DIR / "package.json").read_text(encoding="utf-8"))
    return [f"{name}@{version}" for name, version in manifest["dependencies"].items()]


def mozilla_readability_install_command() -> str:
    """The shell commands that install the node peer's npm packages (versions pinned in package.json).

    Examples
    --------
    >>> "@mozilla/readability@" in mozilla_readability_install_command()
    True
    """
    cache = _user_cache_dir()
    return (
        f"npm ci --prefix {shlex.quote(str(_NODE_PACKAGE_DIR))}  "
        f"(or, when that directory is not writable: npm install --prefix {shlex.quote(str(cache))} "
        f"{' '.join(_pinned_npm_packages())})"
    )


def _npm_package_version(modules: Path, name: str) -> str:
    manifest = json.loads((modules / name / "package.json").read_text(encoding="utf-8"))
    return f"{name} {manifest['version']}"


class _NodeWorker:
    """One ``node extract_titles.js`` process, asked one page at a time over JSON lines."""

    def __init__(self, node: str, env: dict[str, str], startup_timeout: float):
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self._process = subprocess.Popen(
            [node, str(_NODE_SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            text=True, encoding="utf-8", env=env,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read_lines, daemon=True).start()
        try:
            ready = self._next_line(startup_timeout)
        except TimeoutError:
            ready = f"no ready line within {startup_timeout:g} s"
        if ready != _READY_LINE:
            reason = self.stderr_tail() or repr(ready)
            self.kill()
            raise RuntimeError(f"node could not start {_NODE_SCRIPT.name}: {reason}")

    def _read_lines(self) -> None:
        for line in self._process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _next_line(self, timeout: float) -> str | None:
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty as err:
            raise TimeoutError from err

    def stderr_tail(self, n_chars: int = 500) -> str:
        self._stderr.seek(0)
        return collapse_whitespace(self._stderr.read()[-n_chars:])

    def ask(self, html: str, url: str, timeout: float) -> dict:
        """Send one page; return the answer object. Raises TimeoutError, or OSError when node died."""
        self._process.stdin.write(json.dumps({"html": html, "url": url}) + "\n")
        self._process.stdin.flush()
        line = self._next_line(timeout)
        if line is None:
            raise OSError(f"node exited with code {self._process.wait()}: {self.stderr_tail()}")
        try:
            return json.loads(line)
        except ValueError as err:
            raise OSError(f"node answered a line that is not JSON: {line[:200]!r}") from err

    def close(self) -> None:
        if self._process.poll() is None:
            try:
                self._process.stdin.close()
                self._process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self._process.kill()
                self._process.wait()
        self._stderr.close()

    def kill(self) -> None:
        self._process.kill()
        self._process.wait()
        try:
            self._process.stdin.close()
        except OSError:  # the pipe is broken when node died with unread input
            pass
        self._stderr.close()


class MozillaReadabilityRecognizer(PeerRecognizer):
    """Mozilla Readability's title (the JavaScript original), through one node process per batch.

    ``predict`` starts ``node extract_titles.js`` once and feeds it the pages as JSON lines on stdin
    (``{"html", "url"}``); it answers one JSON line per page (``{"title"}`` or ``{"error"}``). The title
    is Readability's ``parse().title``: JSON-LD, then og/twitter/Dublin Core meta titles, then
    ``<title>`` with site names cut at separators; when Readability finds no article content it still
    computes that title, and we answer it.

    Parameters
    ----------
    timeout : float, default=60.0
        Seconds one page may take. A page that takes longer gets an error prediction; the process is
        killed and a new one started for the remaining pages.
    startup_timeout : float, default=60.0
        Seconds node may take to load jsdom and Readability before the first page.

    Raises
    ------
    RuntimeError
        From ``predict`` when node cannot start the script at all (e.g. a node older than jsdom needs);
        the message quotes node's error output.

    Notes
    -----
    node (>= 20.19 for jsdom 29) is the one the user's environment names (:func:`node_executable`): no
    parameter, config or model file chooses the program. The npm packages are found by
    :func:`node_modules_dir` and passed to node with ``NODE_PATH``;
    :func:`mozilla_readability_install_command` says how to install them.

    Examples
    --------
    >>> MozillaReadabilityRecognizer(timeout=10.0).get_params()["timeout"]
    10.0
    """

    peer_name = "mozilla-readability"

    def __init__(self, timeout: float = 60.0, startup_timeout: float = 60.0):
        self.timeout = timeout
        self.startup_timeout = startup_timeout

    @staticmethod
    def _node_path() -> str | None:
        return shutil.which(node_executable())

    def check_available(self) -> None:
        if self._node_path() is None:
            raise PeerUnavailableError(
                f"peer {self.peer_name!r} needs node (>= 20.19), but {node_executable()!r} is not found; install "
                f"Node.js (e.g. apt-get install nodejs npm), then: {mozilla_readability_install_command()}"
            )
        if node_modules_dir() is None:
            raise PeerUnavailableError(
                f"peer {self.peer_name!r} needs the npm packages @mozilla/readability and jsdom, which are "
                f"not installed; install them with: {mozilla_readability_install_command()}"
            )

    def version(self) -> str:
        modules = node_modules_dir()
        node = self._node_path()
        if modules is None or node is None:
            return "@mozilla/readability not installed"
        node_version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
        return ", ".join([_npm_package_version(modules, "@mozilla/readability"),
                          _npm_package_version(modules, "jsdom"), f"node {node_version}"])

    def _start_worker(self) -> _NodeWorker:
        modules = node_modules_dir()
        env = {**os.environ, "NODE_PATH": os.pathsep.join(
            p for p in (str(modules), os.environ.get("NODE_PATH", "")) if p)}
        return _NodeWorker(self._node_path(), env, self.startup_timeout)

    def _extract_titles(self, pages: Sequence[Page]) -> list[_Answer]:
        if self.timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds; got {self.timeout}")
        answers: list[_Answer] = []
        worker: _NodeWorker | None = None
        try:
            for page in pages:
                empty = _empty_html_answer(page)
                if empty is not None:
                    answers.append(empty)
                    continue
                worker = worker or self._start_worker()
                where = f"{self.peer_name} failed on page {page.site_id}/{page.path}"
                try:
                    reply = worker.ask(page.html, page.url, self.timeout)
                except TimeoutError:
                    worker.kill()
                    worker = None
                    answers.append(("", f"{where}: no answer within {self.timeout:g} s"))
                    continue
                except OSError as err:  # node died (or its pipe broke) on this page
                    worker.kill()
                    worker = None
                    answers.append(("", f"{where}: {err}"))
                    continue
                if "error" in reply:
                    answers.append(("", f"{where}: {collapse_whitespace(reply['error'])}"))
                else:
                    answers.append((reply.get("title") or "", ""))
        finally:
            if worker is not None:
                worker.close()
        return answers


_PEER_CLASSES: dict[str, type[PeerRecognizer]] = {
    cls.peer_name: cls
    for cls in (TrafilaturaRecognizer, GooseRecognizer, Newspaper4kRecognizer, ReadabilityLxmlRecognizer,
                MozillaReadabilityRecognizer)
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
