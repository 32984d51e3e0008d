"""The web app of ``mainentity annotate``: Starlette routes over an :class:`AnnotationSession`.

The page (``static/index.html``, ``app.css``, ``app.js``) ships inside the package and loads
nothing from elsewhere. JSON API, all paths relative to the app:

- ``GET api/session``: the dump, the model, the orders available and the default one, the progress;
- ``GET api/pages?order=manifest|confidence``: the pages in that order with their status and the
  model's answer and score, and the progress (labeled / skipped / left);
- ``GET api/page?path=P``: one page's labels (with their version), visible text blocks and model answer;
- ``GET api/screenshot?path=P``: its full-page screenshot (PNG, one pixel per CSS px);
- ``POST api/labels`` with ``{"path", "version", "main_entity": [...], "skipped": bool}``: set a page's
  labels (a page with labels is never marked skipped); ``409`` with the page's current state when it
  changed since ``version`` was read.

A bad path answers 400 (malformed), 404 (not a page of the dump) or 403 (a link out of the dump). A
body over :data:`MAX_BODY_BYTES` answers 413 before it is read (by its ``Content-Length``, else as soon as
that many bytes came), a body that is not JSON (nesting too deep included) or not of the shape above 400,
a lock file that cannot be used (:class:`mainentity.annotate.manifest.LockFileError`) 500 naming it.

Protection: the Host header must name the address served (no DNS rebinding); a ``POST`` must be
``application/json`` (a cross-site form cannot send it without a CORS preflight, which is not
answered); with a ``token`` (required by the CLI for any address other than loopback), every request
must carry it as ``?token=`` (then kept in a same-site cookie), that cookie, or an
``Authorization: Bearer`` header.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import secrets
import socket
import tempfile
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mainentity.annotate.manifest import LabelConflict, LockFileError, ManifestLabels
from mainentity.annotate.session import ORDERS, AnnotationSession, PagePathError, find_site_dump, predict_answers
from mainentity.text import counted

logger = logging.getLogger(__name__)

__all__ = ["TOKEN_COOKIE", "app_url", "bind", "create_app", "is_loopback", "make_server", "run_annotate"]

STATIC_DIR = Path(__file__).resolve().parent / "static"
#: Cookie that keeps the token after the first visit with ``?token=``.
TOKEN_COOKIE = "mainentity_annotate_token"
#: Largest request body accepted, in bytes (a page's labels are far smaller).
MAX_BODY_BYTES = 64 * 1024


def is_loopback(host: str) -> bool:
    """Whether a listening address is reachable only from this machine.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class TokenMiddleware:
    """Refuse every request that does not carry the token (query, cookie or bearer header), with 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        from_query = request.query_params.get("token", "")
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        given = from_query or request.cookies.get(TOKEN_COOKIE, "") or bearer
        if not secrets.compare_digest(given.encode(), self.token.encode()):
            response = PlainTextResponse("401: open the address with the token that `mainentity annotate` printed",
                                         status_code=401)
            await response(scope, receive, send)
            return
        if not from_query:
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.append("set-cookie", f"{TOKEN_COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/")
            await send(message)

        await self.app(scope, receive, send_with_cookie)


async def _bounded_body(request: Request) -> bytes | None:
    """The request's body, or ``None`` when it is over :data:`MAX_BODY_BYTES`: refused by its
    ``Content-Length`` before anything is read, else as soon as the bytes received pass the limit."""
    try:
        declared = int(request.headers.get("content-length", "0"))
    except ValueError:
        declared = 0
    if declared > MAX_BODY_BYTES:
        return None
    chunks, n_bytes = [], 0
    async for chunk in request.stream():
        n_bytes += len(chunk)
        if n_bytes > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _error(message: str, http_status: int, **extra) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=http_status)


class _Endpoints:
    """The request handlers of one annotation session (module docstring); ``default_order`` is validated."""

    def __init__(self, session: AnnotationSession, default_order: str) -> None:
        self.session = session
        self.default_order = default_order

    def progress(self) -> dict:
        return self.session.progress(self.session.states())

    async def index(self, request: Request) -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", headers={"cache-control": "no-store"})

    def about(self, request: Request) -> JSONResponse:
        return JSONResponse({
            "site_id": self.session.site_id,
            "site_dir": str(self.session.site_dir),
            "model": self.session.model_name,
            "orders": [name for name in ORDERS if name == "manifest" or self.session.answers],
            "default_order": self.default_order,
            "n_unreadable": len(self.session.failures),
            "progress": self.progress(),
        })

    def pages(self, request: Request) -> JSONResponse:
        try:
            paths = self.session.order(request.query_params.get("order", self.default_order))
        except ValueError as error:
            return _error(str(error), 400)
        states = self.session.states()
        rows = []
        for path in paths:
            answer = self.session.answers.get(path)
            rows.append({"path": path, "status": states[path].status,
                         "score": None if answer is None or answer.score != answer.score else answer.score,
                         "answer": None if answer is None else answer.text})
        return JSONResponse({"pages": rows, "progress": self.session.progress(states)})

    def page(self, request: Request) -> JSONResponse:
        try:
            return JSONResponse(self.session.view(request.query_params.get("path")))
        except PagePathError as error:
            return _error(str(error), error.status)

    def screenshot(self, request: Request):
        try:
            return FileResponse(self.session.screenshot(request.query_params.get("path")), media_type="image/png")
        except PagePathError as error:
            return _error(str(error), error.status)
        except RuntimeError as error:
            return _error(str(error), 502)

    async def labels(self, request: Request) -> JSONResponse:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return _error("labels are sent as application/json", 415)
        body = await _bounded_body(request)
        if body is None:
            return _error(f"request body over {MAX_BODY_BYTES} bytes", 413)
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):  # RecursionError: nesting too deep for the parser
            return _error("the body is not JSON", 400)
        if not isinstance(data, dict):
            return _error("expected a JSON object {path, version, main_entity, skipped}", 400)
        try:
            state = await run_in_threadpool(self.session.write, data.get("path"), data.get("main_entity", []),
                                            data.get("skipped", False), data.get("version"))
        except PagePathError as error:
            return _error(str(error), error.status)
        except LabelConflict as conflict:
            current = conflict.current
            return _error(str(conflict), 409, labels=list(current.main_entity), skipped=current.skipped,
                          status=current.status, version=current.version, progress=self.progress())
        except ValueError as error:
            return _error(str(error), 400)
        except TimeoutError as error:
            return _error(str(error), 503)
        except LockFileError as error:
            return _error(str(error), 500)
        return JSONResponse({"labels": list(state.main_entity), "skipped": state.skipped, "status": state.status,
                             "version": state.version, "progress": self.progress()})

    def routes(self) -> list:
        """The app's routes: the page, the JSON API and the static files."""
        return [
            Route("/", self.index),
            Route("/api/session", self.about),
            Route("/api/pages", self.pages),
            Route("/api/page", self.page),
            Route("/api/screenshot", self.screenshot),
            Route("/api/labels", self.labels, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC_DIR)),
        ]


def _middleware(host: str, token: str | None) -> list[Middleware]:
    """The Host header check (any host when serving every interface) and, with a token, the token check."""
    if host in ("0.0.0.0", "::"):
        allowed_hosts = ["*"]
    else:
        allowed_hosts = [host, f"[{host}]"] + (["localhost", "127.0.0.1"] if is_loopback(host) else [])
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)]
    if token:
        middleware.append(Middleware(TokenMiddleware, token=token))
    return middleware


def create_app(
    session: AnnotationSession,
    *,
    host: str = "127.0.0.1",
    token: str | None = None,
    default_order: str | None = None,
) -> Starlette:
    """The ASGI app serving one annotation session (module docstring).

    Parameters
    ----------
    session : AnnotationSession
        Closed when the app shuts down.
    host : str, default "127.0.0.1"
        The address served: requests must name it (or ``localhost`` on loopback) in their Host header;
        any host name is accepted when serving every interface (``0.0.0.0``, ``::``).
    token : str, optional
        When given, every request must carry it.
    default_order : {"manifest", "confidence"}, optional
        The order the page starts in; default ``confidence`` with a model, else ``manifest``.

    Returns
    -------
    app : starlette.applications.Starlette

    Raises
    ------
    ValueError
        If ``default_order`` is unknown or ``confidence`` is asked without a model.
    """
    default_order = default_order or ("confidence" if session.answers else "manifest")
    session.order(default_order)  # validates

    @contextlib.asynccontextmanager
    async def lifespan(app):
        try:
            yield
        finally:
            session.close()

    return Starlette(routes=_Endpoints(session, default_order).routes(), middleware=_middleware(host, token),
                     lifespan=lifespan)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0: a free port, see ``getsockname()``).

    Raises
    ------
    OSError
        If the address cannot be bound (e.g. the port is taken).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {error.strerror or error}") from error
    return sock


def make_server(app: Starlette):
    """A uvicorn server for the app (warnings only, no access log); ``server.run(sockets=[sock])`` serves
    until Ctrl-C, ``server.should_exit = True`` stops it from another thread."""
    import uvicorn

    return uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))


def app_url(sock: socket.socket, token: str | None = None) -> str:
    """The address to open in a browser, with the token when there is one (the machine's name when the
    socket listens on every interface).

    >>> sock = bind("127.0.0.1", 0); url = app_url(sock, "t" * 16); sock.close()
    >>> url.startswith("http://127.0.0.1:") and url.endswith("/?token=tttttttttttttttt")
    True
    """
    host, port = sock.getsockname()[:2]
    if host in ("0.0.0.0", "::"):  # every interface: other machines reach it by this machine's name
        host = socket.gethostname()
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{port}/" + (f"?token={token}" if token else "")


def run_annotate(
    site_dump: str | Path,
    *,
    model: str | Path | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    order: str | None = None,
) -> None:
    """``mainentity annotate``: serve the labelling app for a site dump until Ctrl-C.

    The address is bound first (a taken port fails at once), then the model, when given, answers
    every page (:func:`mainentity.annotate.session.predict_answers`), then the app is served.

    Parameters
    ----------
    site_dump : path
        A site dump, or a dataset of one site (:func:`mainentity.annotate.session.find_site_dump`).
    model : str or Path, optional
        A model directory or a shipped model's name (``"general"``, what ``--model`` alone means):
        its answers are pre-selected and its render settings used. Without one, the default render
        settings (those of the shipped model) are used and nothing is pre-selected.
    host : str, default "127.0.0.1"
        Listening address; one that is not loopback needs ``token``.
    port : int, default 8000
        Listening port; 0 for any free one.
    token : str, optional
        Secret of at least 16 characters that every request must carry.
    order : {"manifest", "confidence"}, optional
        The order the page starts in (default: ``confidence`` with a model).

    Raises
    ------
    ValueError
        If the host is not loopback and there is no token, the token is short, the dump cannot be read,
        its lock file cannot be used (a symbolic link, not a regular file) or ``order`` is not possible.
    OSError
        If the address cannot be bound.
    FileNotFoundError
        If the model does not exist.
    """
    if token is not None and len(token) < 16:
        raise ValueError("--token must be at least 16 characters, e.g. "
                         "python -c 'import secrets; print(secrets.token_urlsafe())'")
    if not is_loopback(host) and not token:
        raise ValueError(f"serving on {host} lets other machines reach the app and change the labels: give "
                         "--token with a secret of at least 16 characters")
    site_dir = find_site_dump(site_dump)
    try:  # before the model runs over the dump: a session that cannot save labels does not start
        ManifestLabels(site_dir).check_lock_file()
    except LockFileError as error:
        raise ValueError(f"{error}: annotate cannot save labels") from error
    sock = bind(host, port)
    with sock, tempfile.TemporaryDirectory(prefix="mainentity-annotate-") as work_dir:
        render, answers, model_name = None, None, ""
        if model is not None:
            from mainentity.model_store import load_trained_model

            loaded = load_trained_model(model)
            render, model_name = loaded.config.render, str(loaded.directory)
            answers = predict_answers(model, site_dir, work_dir)
        session = AnnotationSession(site_dir, render=render, answers=answers, model_name=model_name)
        app = create_app(session, host=host, token=token, default_order=order)
        print(f"annotating {counted(len(session.pages), 'page')} of {site_dir} (labels are saved to "
              f"{session.labels.manifest} as they are made): open {app_url(sock, token)}  (Ctrl-C stops)",
              flush=True)
        make_server(app).run(sockets=[sock])
