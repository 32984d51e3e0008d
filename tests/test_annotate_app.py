"""annotate app over HTTP: path checks, conflicts, token and host checks, orders (no page is rendered)."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("starlette", reason="annotate needs the annotate extra: pip install 'mainentity[annotate]'")

from annotate_browser import running_app  # noqa: E402

from mainentity.annotate.app import is_loopback, run_annotate  # noqa: E402
from mainentity.annotate.manifest import LabelState  # noqa: E402
from mainentity.annotate.session import AnnotationSession, ModelAnswer, find_site_dump  # noqa: E402
from mainentity.cli import main  # noqa: E402

FRESH = LabelState().version


def request(url, method="GET", body=None, headers=None):
    """``(status, decoded JSON or text)`` of one HTTP request."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"content-type": "application/json", **(headers or {})} if body is not None else headers or {}
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            status, raw, kind = response.status, response.read(), response.headers.get("content-type", "")
    except urllib.error.HTTPError as error:
        status, raw, kind = error.code, error.read(), error.headers.get("content-type", "")
    return status, json.loads(raw) if "json" in kind else raw.decode("utf-8", "replace")


def label(url, path, labels, version=FRESH, skipped=False):
    return request(url + "api/labels", "POST", {"path": path, "version": version, "main_entity": labels,
                                                 "skipped": skipped})


@pytest.fixture
def dump(tmp_path):
    site = tmp_path / "site"
    (site / "p").mkdir(parents=True)
    for i in range(6):
        (site / "p" / f"{i}.html").write_text(f"<title>Item {i}</title><h1>Item {i}</h1>", encoding="utf-8")
    (site / "css").mkdir()
    (site / "css" / "site.css").write_text("h1{color:red}")
    (tmp_path / "secret.html").write_text("<h1>secret</h1>")
    os.symlink(tmp_path / "secret.html", site / "leak.html")  # listed by the dump, never read
    return site


def test_only_pages_of_the_dump_can_be_read(dump, tmp_path):
    session = AnnotationSession(dump)
    assert "leak.html" not in session.pages and [f.path for f in session.failures] == ["leak.html"]
    with running_app(session) as url:
        for path, status, reason in [
            ("../secret.html", 400, "'..'"),
            ("p/../../secret.html", 400, "'..'"),
            ("/etc/passwd", 400, "absolute"),
            (str(tmp_path / "secret.html"), 400, "absolute"),
            ("p\\0.html", 400, "back slash"),
            ("", 400, "no page path"),
            ("leak.html", 404, "not a page"),
            ("css/site.css", 404, "not a page"),
            ("p/9.html", 404, "not a page"),
        ]:
            for endpoint in ("api/page", "api/screenshot"):
                got = request(f"{url}{endpoint}?path={urllib.request.quote(path)}")
                assert got[0] == status and reason in got[1]["error"], (endpoint, path, got)
            assert label(url, path, ["x"])[0] == status
        # a page whose file became a link out of the dump after the app started is refused too
        (dump / "p" / "5.html").unlink()
        os.symlink(tmp_path / "secret.html", dump / "p" / "5.html")
        got = request(url + "api/page?path=p/5.html")
        assert got[0] == 403 and "outside the site dump" in got[1]["error"]
        assert label(url, "p/5.html", ["secret"])[0] == 403
    assert not (dump / "manifest.jsonl").exists()  # nothing was written


def test_labels_progress_conflicts_and_bad_requests(dump):
    with running_app(AnnotationSession(dump)) as url:
        status, body = request(url + "api/pages")
        assert status == 200 and [row["path"] for row in body["pages"]] == [f"p/{i}.html" for i in range(6)]
        assert body["progress"] == {"labeled": 0, "skipped": 0, "left": 6, "total": 6}
        status, saved = label(url, "p/0.html", ["Item 0", " Item\t0 ", "Zero"])
        assert status == 200 and saved["labels"] == ["Item 0", "Zero"] and saved["status"] == "labeled"
        assert saved["progress"] == {"labeled": 1, "skipped": 0, "left": 5, "total": 6}
        assert label(url, "p/1.html", [], skipped=True)[1]["progress"]["skipped"] == 1

        status, conflict = label(url, "p/0.html", ["Other"])  # made from the state before the first label
        assert status == 409 and conflict["labels"] == ["Item 0", "Zero"] and conflict["version"] == saved["version"]
        assert label(url, "p/0.html", ["Other"], version=conflict["version"])[0] == 200

        entry = json.loads((dump / "manifest.jsonl").read_text().splitlines()[1])  # leak.html is line 1
        assert entry == {"path": "p/0.html", "main_entity": ["Other"], "label_in_page": False}
        assert label(url, "p/2.html", "Item 2")[0] == 400
        assert label(url, "p/2.html", ["Item 2"], skipped="yes")[0] == 400
        assert request(url + "api/labels", "POST", None, {"content-type": "text/plain"})[0] == 415
        assert request(url + "api/pages?order=confidence")[0] == 400  # no model
        assert request(url + "api/page", "POST")[0] == 405


def test_concurrent_tabs_on_different_pages_keep_every_label(dump):
    with running_app(AnnotationSession(dump)) as url:
        with ThreadPoolExecutor(6) as pool:
            results = list(pool.map(lambda i: label(url, f"p/{i}.html", [f"Item {i}"]), range(6)))
        assert [status for status, _ in results] == [200] * 6
        assert request(url + "api/session")[1]["progress"]["labeled"] == 6
    lines = [json.loads(line) for line in (dump / "manifest.jsonl").read_text().splitlines()]
    assert {line["path"]: line["main_entity"] for line in lines} == {
        "leak.html": [], **{f"p/{i}.html": [f"Item {i}"] for i in range(6)}}


def test_pages_ordered_by_lowest_model_score_first(dump):
    answers = {f"p/{i}.html": ModelAnswer(f"Item {i}", score, (8.0, 8.0, 100.0, 30.0))
               for i, score in enumerate([0.9, 0.2, math.nan, 0.5, 0.99, 0.1])}
    answers["p/3.html"] = ModelAnswer("", error="render failed")
    with running_app(AnnotationSession(dump, answers=answers, model_name="m")) as url:
        session = request(url + "api/session")[1]
        assert session["default_order"] == "confidence" and session["orders"] == ["manifest", "confidence"]
        rows = request(url + "api/pages")[1]["pages"]
    assert [row["path"] for row in rows] == ["p/2.html", "p/3.html", "p/5.html", "p/1.html", "p/0.html", "p/4.html"]
    assert rows[2] == {"path": "p/5.html", "status": "left", "score": 0.1, "answer": "Item 5"}


def test_host_header_and_token(dump):
    with running_app(AnnotationSession(dump)) as url:
        assert request(url + "api/session", headers={"host": "attacker.example"})[0] == 400
        assert request(url + "api/session", headers={"host": "localhost"})[0] == 200
    token = "s3cret-token-0123456789"
    with running_app(AnnotationSession(dump), token=token) as url:
        base = url.split("?")[0]
        assert request(base + "api/session")[0] == 401
        assert request(base + "api/session?token=wrong-token-0123456789")[0] == 401
        assert request(base + "api/session", headers={"authorization": f"Bearer {token}"})[0] == 200
        with urllib.request.urlopen(url, timeout=30) as response:  # the printed URL: sets the cookie
            assert response.status == 200
            cookie = response.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert request(base + "api/session", headers={"cookie": cookie.split(";")[0]})[0] == 200


def test_serving_beyond_this_machine_needs_a_token(dump, capsys):
    assert is_loopback("127.0.0.1") and not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    with pytest.raises(ValueError, match="--token"):
        run_annotate(dump, host="0.0.0.0", port=0)
    with pytest.raises(ValueError, match="at least 16 characters"):
        run_annotate(dump, host="0.0.0.0", port=0, token="short")
    assert main(["annotate", str(dump), "--host", "0.0.0.0", "--port", "0"]) == 2


def test_a_dataset_of_one_site_is_that_site(tmp_path, dump):
    assert find_site_dump(dump) == dump
    (tmp_path / "data" / "sites" / "a").mkdir(parents=True)
    assert find_site_dump(tmp_path / "data") == tmp_path / "data" / "sites" / "a"
    (tmp_path / "data" / "sites" / "b").mkdir()
    with pytest.raises(ValueError, match="2 sites .a, b.; annotate takes one site dump"):
        find_site_dump(tmp_path / "data")


def test_the_command_serves_until_ctrl_c_and_keeps_every_label(dump):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # a run in the background (nohup, some CI shells) ignores Ctrl-C, and children inherit that: restore it
    server = subprocess.Popen([sys.executable, "-m", "mainentity.cli", "annotate", str(dump), "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = server.stdout.readline()
        assert "annotating 6 pages" in line and str(dump / "manifest.jsonl") in line, line
        url = line.split("open ")[1].split()[0]
        assert url.startswith("http://127.0.0.1:")
        assert label(url, "p/3.html", ["Item 3"])[0] == 200
        server.send_signal(signal.SIGINT)
        assert server.wait(60) == 130  # Ctrl-C
    finally:
        server.kill()
        server.wait()
    assert json.loads((dump / "manifest.jsonl").read_text().splitlines()[4])["main_entity"] == ["Item 3"]


def _raw_post(url, head_lines, chunks=()):
    """Status of a POST to ``api/labels`` with the given header lines and body chunks, read within 30 s
    (a hang guard: a server that waited for a body never sent would time out, not pass)."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.putrequest("POST", "/api/labels", skip_accept_encoding=True)
        for name, value in head_lines:
            connection.putheader(name, value)
        connection.endheaders()
        for chunk in chunks:
            connection.send(chunk)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_a_huge_body_is_refused_before_it_is_read(dump):
    with running_app(AnnotationSession(dump)) as url:
        # 1.5 GB announced, 1 KB sent: the answer comes from the Content-Length alone
        status, body = _raw_post(url, [("Content-Type", "application/json"), ("Content-Length", str(3 * 2**29))],
                                 [b"[" * 1024])
        assert status == 413 and "over 65536 bytes" in body["error"]
        # chunked, no length: refused once the bytes received pass the limit
        chunk = b"[" * 50_000
        framed = b"%x\r\n%s\r\n" % (len(chunk), chunk)
        status, body = _raw_post(url, [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")],
                                 [framed, framed, b"0\r\n\r\n"])
        assert status == 413
        assert label(url, "p/0.html", ["Item 0"])[0] == 200  # the app still answers


def test_malformed_json_of_any_shape_is_a_400(dump):
    with running_app(AnnotationSession(dump)) as url:
        deep = b"[" * 30_000 + b"]" * 30_000  # deeper than the JSON parser's recursion limit
        status, body = _raw_post(url, [("Content-Type", "application/json"), ("Content-Length", str(len(deep)))],
                                 [deep])
        assert (status, body["error"]) == (400, "the body is not JSON")
        status, body = _raw_post(url, [("Content-Type", "application/json"), ("Content-Length", "4")], [b"null"])
        assert status == 400
        for bad in ([1, 2], "p/0.html", {"path": "p/0.html", "version": FRESH, "main_entity": 5},
                    {"path": "p/0.html", "version": FRESH, "main_entity": {"a": "b"}},
                    {"path": "p/0.html", "version": 3, "main_entity": []},
                    {"path": ["p/0.html"], "version": FRESH, "main_entity": []},
                    {"path": "p/0.html", "version": FRESH, "main_entity": [["nested"]]}):
            status, body = request(url + "api/labels", "POST", bad)
            assert status == 400 and body["error"], bad
        assert not (dump / "manifest.jsonl").exists()


def test_a_broken_lock_file_is_a_clear_error_and_leftovers_go_at_the_next_start(dump):
    lock = dump / ".manifest.jsonl.lock"
    lock.symlink_to(".manifest.jsonl.lock")  # a symbolic link loop
    with pytest.raises(ValueError, match="the lock file is a symbolic link; remove it .*: annotate cannot save labels"):
        AnnotationSession(dump)  # a session that could save nothing does not start
    lock.unlink()
    with running_app(AnnotationSession(dump)) as url:
        lock.unlink(missing_ok=True)
        lock.symlink_to(".manifest.jsonl.lock")  # made a link while the app runs
        status, body = label(url, "p/0.html", ["Item 0"])
        assert status == 500 and "the lock file is a symbolic link; remove it" in body["error"]
        assert ".manifest.jsonl.lock" in body["error"]
    lock.unlink()
    (dump / ".manifest.jsonl.kill3d.tmp").write_text("half a manifest")  # what a SIGKILL mid-write leaves
    with running_app(AnnotationSession(dump)) as url:
        assert not (dump / ".manifest.jsonl.kill3d.tmp").exists()
        assert label(url, "p/0.html", ["Item 0"])[0] == 200


def test_annotate_refuses_to_start_on_a_symbolic_link_as_its_lock_file(dump, tmp_path):
    (tmp_path / "elsewhere").write_text("")
    (dump / ".manifest.jsonl.lock").symlink_to(tmp_path / "elsewhere")
    try:  # in a process of its own: an annotate that starts serves until it is stopped
        done = subprocess.run([sys.executable, "-m", "mainentity", "annotate", str(dump), "--port", "0"],
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"annotate started and served: {expired.stdout}")
    assert done.returncode == 2 and "annotating" not in done.stdout
    [line] = done.stderr.strip().split("\n")
    assert "the lock file is a symbolic link; remove it" in line and "annotate cannot save labels" in line
