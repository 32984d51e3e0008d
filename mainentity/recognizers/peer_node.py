"""The node peers, Mozilla Readability (the JavaScript original) and Defuddle: one ``node`` process per batch.

Both run through the one script ``mozilla_readability/extract_titles.js`` (the tool named on its command
line) over one worker (:class:`_NodeWorker`). The npm packages they need are found by
:func:`node_modules_dir` and installed with the command of :func:`mozilla_readability_install_command`
(versions pinned in ``mozilla_readability/package.json``, one package for both peers).
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from mainentity.recognizers.peer_base import PeerRecognizer, PeerUnavailableError, _Answer, _empty_html_answer
from mainentity.records import Page
from mainentity.text import collapse_whitespace

_NODE_PACKAGE_DIR = Path(__file__).resolve().parent / "mozilla_readability"
_NODE_SCRIPT = _NODE_PACKAGE_DIR / "extract_titles.js"
#: The line the script writes once jsdom and Readability are loaded.
_READY_LINE = '{"ready":true}\n'


def _user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mainentity" / "mozilla_readability"


#: Environment variable naming the node executable for the node peers.
NODE_ENV = "MAINENTITY_NODE"


def node_executable() -> str:
    """The node program the user's environment names: ``$MAINENTITY_NODE``, else ``node`` (on ``PATH``).

    >>> os.environ.pop(NODE_ENV, None) and None; node_executable()
    'node'
    """
    return os.environ.get(NODE_ENV) or "node"


def _pinned_npm_versions() -> dict[str, str]:
    manifest = json.loads((_NODE_PACKAGE_DIR / "package.json").read_text(encoding="utf-8"))
    return manifest["dependencies"]


def node_modules_dir(packages: Sequence[str] | None = None) -> Path | None:
    """Where the npm packages of the node peers are installed, or ``None`` when nowhere.

    Searched in order: ``node_modules`` beside the script (``mainentity/recognizers/mozilla_readability/``,
    the place for a source checkout), then the user cache directory
    (``$XDG_CACHE_HOME/mainentity/mozilla_readability/node_modules``, default ``~/.cache/...``, the place
    when the package directory is not writable). A directory counts when it holds every package asked for.

    Parameters
    ----------
    packages : sequence of str, optional
        npm package names, e.g. ``("defuddle", "jsdom")`` (one peer's). Default: every package pinned in
        ``package.json`` (both peers').

    Returns
    -------
    path : Path or None
    """
    wanted = list(_pinned_npm_versions()) if packages is None else packages
    for base in (_NODE_PACKAGE_DIR, _user_cache_dir()):
        modules = base / "node_modules"
        if all((modules / name).is_dir() for name in wanted):
            return modules
    return None


def mozilla_readability_install_command() -> str:
    """The shell commands that install the node peers' npm packages (versions pinned in package.json).

    One command for both node peers (Mozilla Readability and Defuddle): they share one npm package.

    Examples
    --------
    >>> "@mozilla/readability@" in mozilla_readability_install_command()
    True
    >>> "defuddle@" in mozilla_readability_install_command()
    True
    """
    cache = _user_cache_dir()
    pinned = " ".join(f"{name}@{version}" for name, version in _pinned_npm_versions().items())
    return (
        f"npm ci --prefix {shlex.quote(str(_NODE_PACKAGE_DIR))}  "
        f"(or, when that directory is not writable: npm install --prefix {shlex.quote(str(cache))} {pinned})"
    )


def _npm_package_version(modules: Path, name: str) -> str:
    manifest = json.loads((modules / name / "package.json").read_text(encoding="utf-8"))
    return f"{name} {manifest['version']}"


class _NodeWorker:
    """One ``node extract_titles.js TOOL`` process, asked one page at a time over JSON lines."""

    def __init__(self, node: str, tool: str, env: dict[str, str], startup_timeout: float):
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self._process = subprocess.Popen(
            [node, str(_NODE_SCRIPT), tool], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
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


class _NodePeer(PeerRecognizer):
    """A peer whose tool is an npm package: one ``node extract_titles.js TOOL`` process per batch.

    ``predict`` starts the script once and feeds it the pages as JSON lines on stdin (``{"html", "url"}``);
    it answers one JSON line per page (``{"title"}`` or ``{"error"}``). Subclasses set :attr:`peer_name`
    (also the tool's name on the script's command line) and :attr:`npm_packages`.

    Parameters
    ----------
    timeout : float, default=60.0
        Seconds one page may take. A page that takes longer gets an error prediction; the process is
        killed and a new one started for the remaining pages.
    startup_timeout : float, default=60.0
        Seconds node may take to load jsdom and the tool before the first page.

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
    """

    #: The npm packages the tool needs, its own first (jsdom gives it the DOM).
    npm_packages: ClassVar[tuple[str, ...]] = ()

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
        if node_modules_dir(self.npm_packages) is None:
            raise PeerUnavailableError(
                f"peer {self.peer_name!r} needs the npm packages {' and '.join(self.npm_packages)}, which are "
                f"not installed; install them with: {mozilla_readability_install_command()}"
            )

    def version(self) -> str:
        modules = node_modules_dir(self.npm_packages)
        node = self._node_path()
        if modules is None or node is None:
            return f"{self.npm_packages[0]} not installed"
        node_version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
        return ", ".join([*(_npm_package_version(modules, name) for name in self.npm_packages),
                          f"node {node_version}"])

    def _start_worker(self) -> _NodeWorker:
        modules = node_modules_dir(self.npm_packages)
        env = {**os.environ, "NODE_PATH": os.pathsep.join(
            p for p in (str(modules), os.environ.get("NODE_PATH", "")) if p)}
        return _NodeWorker(self._node_path(), self.peer_name, env, self.startup_timeout)

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


class MozillaReadabilityRecognizer(_NodePeer):
    """Mozilla Readability's title (the JavaScript original), through one node process per batch.

    The title is Readability's ``parse().title`` on ``new JSDOM(html, {url}).window.document``: JSON-LD,
    then og/twitter/Dublin Core meta titles, then ``<title>`` with site names cut at separators; when
    Readability finds no article content it still computes that title, and we answer it. Errors and
    the node it runs: see :class:`_NodePeer`.

    Parameters
    ----------
    timeout : float, default=60.0
        Seconds one page may take; a slower page gets an error prediction and node is restarted.
    startup_timeout : float, default=60.0
        Seconds node may take to load jsdom and the tool before the first page.

    Examples
    --------
    >>> MozillaReadabilityRecognizer(timeout=10.0).get_params()["timeout"]
    10.0
    """

    peer_name = "mozilla-readability"
    npm_packages = ("@mozilla/readability", "jsdom")


class DefuddleRecognizer(_NodePeer):
    """Defuddle's title (the 2025 Readability successor), through one node process per batch.

    The title is ``new Defuddle(document, {url, useAsync: false}).parse().title`` on
    ``new JSDOM(html, {url}).window.document`` (Defuddle's core bundle; its ``defuddle/node`` entry point
    calls the same ``parse`` when async extractors are off): the first of og:title, twitter:title,
    schema.org ``headline``, meta title, ``<title>`` and the first ``<h1>`` that is not the site's name,
    with the site name cut off at a separator, unless one of its built-in site extractors (GitHub,
    Wikipedia, Reddit, YouTube, ...) knows the page and names it. ``useAsync: false`` and the synchronous
    ``parse`` keep off the site extractors that fetch from third-party APIs. Errors and the node it runs:
    see :class:`_NodePeer`.

    Parameters
    ----------
    timeout : float, default=60.0
        Seconds one page may take; a slower page gets an error prediction and node is restarted.
    startup_timeout : float, default=60.0
        Seconds node may take to load jsdom and the tool before the first page.

    Examples
    --------
    >>> DefuddleRecognizer().needs_render, DefuddleRecognizer.npm_packages
    (False, ('defuddle', 'jsdom'))
    """

    peer_name = "defuddle"
    npm_packages = ("defuddle", "jsdom")
