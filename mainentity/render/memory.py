"""A memory cap on Chromium's renderer processes: a watchdog thread that kills a renderer above it.

A renderer process belongs to one browser context, and :class:`mainentity.render.browser.Renderer`
opens each tab in a context of its own, so a renderer holds one page. A :class:`RendererMemoryCap`
reads, every :data:`POLL_S` seconds, the resident set size (RSS, ``/proc/<pid>/statm``) of each
renderer process (``--type=renderer``) of the Chromium it watches and kills (``SIGKILL``) any above
``max_mb``. Playwright then reports that tab crashed; the page's attempt claims the kill
(:meth:`RendererMemoryCap.claim_kill`) and the page gets an error naming the cap, while Chromium and the
pages in the other renderers go on. A renderer can overshoot the cap by what it allocates in one poll
interval: a script allocating arrays in a loop was killed at 621 MB under a 400 MB cap.

The RSS counts Chromium's shared code (about 70-120 MB of an idle renderer's RSS). ``RLIMIT_DATA`` on
each renderer was tried instead: V8 and PartitionAlloc do fail cleanly under it (the renderer crashes,
its neighbours are answered), but the limit counts writable address space, not memory in use (an idle
renderer holds 600 MB of it for a 116 MB RSS, and a page killed under a 1 500 MB limit had 1 166 MB
resident), and a renderer that dies under it cannot be told from one that crashed for another reason.

Linux only (``/proc``): elsewhere the cap is not enforced and a warning says so.
"""

from __future__ import annotations

import itertools
import logging
import os
import signal
import threading
import uuid
from collections.abc import Iterable

logger = logging.getLogger(__name__)

#: Seconds between two reads of the renderers' memory.
POLL_S = 0.05

#: Reads between two searches for the processes that start Chromium's renderers (its zygotes).
REFRESH_POLLS = 20

#: Environment variable setting the cap (MB; :func:`default_max_renderer_mb`).
MAX_RENDERER_MB_ENV = "MAINENTITY_MAX_RENDERER_MB"

#: Default cap on the memory (RSS) of one Chromium renderer process, in MB: the renderers of the 93 pages of
#: ``readability-realworld`` peak at 250 MB, a page of 99 000 elements at about 560 MB, and a 5.4 MB page of
#: one paragraph at 1 042 MB (now refused before it is rendered: over :data:`mainentity.text.MAX_TEXT_CHARS`).
MAX_RENDERER_MB = 2048

#: Command-line switches Chromium starts its renderer processes, and the zygotes that fork them, with.
RENDERER_SWITCH = b"--type=renderer"
ZYGOTE_SWITCH = b"--type=zygote"

_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def default_max_renderer_mb() -> int:
    """The renderer memory cap the user's environment sets: ``$MAINENTITY_MAX_RENDERER_MB``, else
    :data:`MAX_RENDERER_MB` (:attr:`mainentity.render.settings.RenderSettings.max_renderer_mb`).

    It protects the machine that renders, so its user sets it; no config or model can (a model from
    someone else could lift it).

    Raises
    ------
    ValueError
        If the variable is not a whole number of MB.

    >>> os.environ[MAX_RENDERER_MB_ENV] = "512"; default_max_renderer_mb()
    512
    >>> del os.environ[MAX_RENDERER_MB_ENV]; default_max_renderer_mb() == MAX_RENDERER_MB
    True
    """
    value = os.environ.get(MAX_RENDERER_MB_ENV, "").strip()
    if not value:
        return MAX_RENDERER_MB
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{MAX_RENDERER_MB_ENV} must be a whole number of MB; got {value!r}") from None


def launch_switch() -> str:
    """A Chromium switch unique to one launch (Chromium ignores it), by which :meth:`RendererMemoryCap.watch`
    finds that browser's process.

    >>> launch_switch().startswith("--mainentity-launch=") and launch_switch() != launch_switch()
    True
    """
    return f"--mainentity-launch={uuid.uuid4().hex}"


def _children(pid: int) -> list[int]:
    """The child processes of ``pid`` (of any of its threads); ``[]`` when it is gone."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    children = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as file:
                children.extend(int(child) for child in file.read().split())
        except OSError:
            continue
    return children


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` in the process tree."""
    found, stack = [], [pid]
    while stack:
        children = _children(stack.pop())
        found.extend(children)
        stack.extend(children)
    return found


def _arguments(pid: int) -> list[bytes]:
    """The command-line arguments of ``pid`` (``[]`` when it is gone), split at NULs and spaces: Chromium
    rewrites its child processes' command lines as one space-separated string."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return file.read().replace(b"\0", b" ").split()
    except OSError:
        return []


def rss_mb(pid: int) -> float:
    """Resident set size of process ``pid`` in MB (2**20 bytes); 0.0 when it is gone.

    >>> rss_mb(os.getpid()) > 1
    True
    """
    try:
        with open(f"/proc/{pid}/statm", "rb") as file:
            return int(file.read().split()[1]) * _PAGE_BYTES / 2**20
    except (OSError, IndexError, ValueError):
        return 0.0


def find_process(switch: str, ancestor: int | None = None) -> int | None:
    """The process below ``ancestor`` (default: this process) whose command line holds ``switch``.

    Returns
    -------
    pid : int or None
        ``None`` when there is none (or ``/proc`` cannot be read).
    """
    wanted = switch.encode()
    below = _descendants(os.getpid() if ancestor is None else ancestor)
    return next((pid for pid in below if wanted in _arguments(pid)), None)


class RendererMemoryCap:
    """A watchdog thread that kills the renderer processes of one Chromium whose RSS goes above a cap.

    Parameters
    ----------
    max_mb : int
        The cap on each renderer's resident set size, in MB (2**20 bytes).
    poll_s : float, default :data:`POLL_S`
        Seconds between two reads.

    Attributes
    ----------
    n_kills : int
        Renderers killed since the cap was made.
    peak_mb : float
        The largest RSS a renderer was seen with, in MB (what was read; a killed renderer's last read).

    Raises
    ------
    ValueError
        If ``max_mb`` or ``poll_s`` is not positive.

    Examples
    --------
    >>> cap = RendererMemoryCap(2048)
    >>> cap.claim_kill(since=0)  # nothing killed
    ''
    >>> cap.close()
    """

    def __init__(self, max_mb: int, poll_s: float = POLL_S) -> None:
        if max_mb < 1 or not poll_s > 0:
            raise ValueError(f"max_mb and poll_s must be positive; got {max_mb} MB and {poll_s} s")
        self.max_mb = max_mb
        self.poll_s = poll_s
        self.n_kills = 0
        self.peak_mb = 0.0
        self._kills: list[tuple[int, str]] = []  # (kill number, reason) not claimed yet
        self._browser_pid: int | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def watch(self, switch: str) -> None:
        """Watch the renderers of the Chromium started with ``switch`` (:func:`launch_switch`), instead of
        any watched before; starts the thread on first use. Logs a warning when that browser is not
        found (the cap is then not enforced)."""
        pid = find_process(switch)
        if pid is None:
            logger.warning("Chromium's process was not found (%s): renderers run without the memory cap of %d MB",
                           "no /proc" if not os.path.isdir("/proc") else "not below this process", self.max_mb)
        with self._lock:
            self._browser_pid = pid
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="mainentity-memory-cap", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the thread (idempotent)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def claim_kill(self, since: int) -> str:
        """Why a renderer was killed: the oldest unclaimed kill after the first ``since`` (a value of
        :attr:`n_kills` read before the page's attempt began), now claimed; ``""`` when there is none.

        A tab whose renderer crashed calls this: since each renderer holds one page, a kill made during
        its attempt is its own (two renderers lost at the same instant, one killed and one crashed for
        another reason, may swap reasons)."""
        with self._lock:
            for i, (number, reason) in enumerate(self._kills):
                if number > since:
                    del self._kills[i]
                    return reason
        return ""

    def _run(self) -> None:
        """Poll; the processes that start renderers (Chromium's zygotes, else the browser itself) are
        looked up every :data:`REFRESH_POLLS` polls, and a renderer is known as one once seen (a process the
        zygote just forked still has the zygote's command line), so that a poll reads little more than
        the renderers' ``statm``."""
        watched, parents, renderers = None, [], set()
        for n_polls in itertools.count():
            if self._stop.wait(self.poll_s):
                return
            with self._lock:
                browser = self._browser_pid
            if browser is None:
                continue
            if n_polls % REFRESH_POLLS == 0 or browser != watched:
                watched = browser
                parents = [pid for pid in _children(browser) if ZYGOTE_SWITCH in _arguments(pid)] or [browser]
            children = [pid for parent in parents for pid in _children(parent)]
            renderers = {pid for pid in children if pid in renderers or RENDERER_SWITCH in _arguments(pid)}
            self._check(renderers)

    def _check(self, renderers: Iterable[int]) -> None:
        """Kill each of ``renderers`` above the cap, recording the kill first (so the crash the tab then
        reports always finds it)."""
        for pid in renderers:
            resident = rss_mb(pid)
            self.peak_mb = max(self.peak_mb, resident)
            if resident <= self.max_mb:
                continue
            reason = f"the renderer went past the memory cap of {self.max_mb} MB ({resident:.0f} MB resident)"
            with self._lock:
                self.n_kills += 1
                kill = (self.n_kills, reason)
                self._kills.append(kill)
            logger.warning("killing renderer process %d: %s", pid, reason)
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # gone meanwhile: its end is not the cap's doing
                with self._lock:
                    if kill in self._kills:
                        self._kills.remove(kill)
