"""Fuzz suite: a corpus of hostile pages made here, predicted end to end in a subprocess (Chromium).

Each kind of bad input a real crawl throws at the tool (issues 11 and 22) is one generated file or
manifest line: empty, binary, truncated, UTF-16, huge, very deep and very wide pages, a page of a
million elements, script loops, meta refresh, frames, SVG-only, XHTML, ``<noscript>``-only, stray NULs,
symbolic links into and out of the dump, odd file names and one that is not UTF-8, a FIFO, a character
device, a sparse 2 GB file, and malformed, duplicate (aliased), NUL-holding, self-listing or bad-URL
manifest lines. The contract: the predict command exits 0, writes exactly one row per page (or manifest
line) with an answer or a reason, never shows the text of a file outside the dump, and stays within a
memory bound for its whole process tree. Nothing here depends on the machine's load: the render timeout
is set from the time the heaviest pages take in this test (measured first, on the same machine), and
the run's own time is only guarded against a hang. A second test kills a predict run with SIGKILL
mid-batch and checks that the rerun leaves every page exactly once.
"""

from __future__ import annotations

import json
import os
import random
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest
import yaml
from conftest import REPO
from test_recognizer_msrbfn import product_document

from mainentity.config import Config, ModelConfig, RenderConfig, config_to_dict
from mainentity.model_io import MODEL_FILE, save_model_file
from mainentity.recognizers.base import make_recognizer
from mainentity.render.browser import Renderer
from mainentity.render.settings import RenderSettings
from mainentity.sitedump import read_site_dump

pytestmark = pytest.mark.browser

#: Bound of the fuzz run's whole process tree (proportional set size summed over the predict process and
#: every Chromium process, sampled), with the headroom of the first bound (2 000 MB over 1.43-1.63 GB measured
#: with an earlier Chromium). With Chromium 156.0.8078.114 the run measured 1.77-1.96 GB (7 runs on 2 cores),
#: when the renderers of the huge and the wide page (0.5-1.0 and 0.36 GB) overlap, and the Python process holds
#: 0.38 GB (torch 0.22 GB); the code of 73a0795, which met the first bound, measured the same there, so the
#: growth is the browser's. Before its address-bar popup was turned off (``DISABLED_FEATURES``) the run took
#: 1.93-2.03 GB. Since the 5.4 MB paragraph is refused (over ``mainentity.text.MAX_TEXT_CHARS``) and a
#: 2 MB one answered instead, it measured 1.32 GB (one run, load average 12-16).
MAX_FUZZ_TREE_MB = 2400
#: Bound of the process tree of a run on the hostile files and the million-span page alone (issue 22's
#: target): measured 0.81 GB (0.69 GB with two small pages only).
MAX_HOSTILE_TREE_MB = 1500
#: Seconds after which a run counts as hung (a guard, not a speed check: the run takes well under a minute).
HANG_GUARD_S = 1800
#: The heaviest pages of the corpus (the render timeout is set from their measured time).
HEAVY_PAGES = ("deep.html", "wide.html", "huge.html")
SECRET = "Outside The Dump Secret"


def _page(body: str, title: str = "Fuzz") -> str:
    return f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{body}</body></html>"


def make_fuzz_corpus(root: Path, random_state: int = 0) -> dict[tuple[str, str], str]:
    """Write the fuzz dataset under ``root`` (``sites/plain`` without manifest, ``sites/listed`` with one).

    Returns
    -------
    expected : dict
        ``(site_id, path) -> what the row must show``: ``"answer:<text>"`` (the main entity contains
        it) or ``"error:<text>"`` (the error contains it).
    """
    rng = random.Random(random_state)
    outside = root / "outside"
    outside.mkdir(parents=True)
    (outside / "secret.html").write_text(_page(f"<h1>{SECRET}</h1>"))
    plain = root / "sites" / "plain"
    plain.mkdir(parents=True)
    expected: dict[tuple[str, str], str] = {}

    def put(name: str, data: bytes | str, expect: str) -> None:
        path = plain / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        expected["plain", name] = expect

    put("empty.html", b"", "error:empty page")
    put("blank.html", b" \n\t\r\n ", "error:empty page")
    put("random-bytes.html", bytes(rng.getrandbits(8) for _ in range(4096)), "error:not text")
    put("png.html", bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256)) * 8, "error:not text")
    put("nul-heading.html", b"<html><h1>Great \x00\x00Expectations</h1></html>", "answer:Expectations")
    put("utf16-bom.html", "\ufeff" .encode("utf-16-le") + _page("<h1>Wide Title</h1>").encode("utf-16-le"),
        "answer:Wide Title")
    put("utf16-no-bom.html", _page("<h1>No Mark</h1>").encode("utf-16-le"), "error:not text")
    put("truncated.html", "<!DOCTYPE html><html><head><title>T</title></head><body><h1>Cut Short Heading</h1>"
                          "<p>Some text that go<div cla", "answer:Cut Short Heading")
    put("only-comment.html", "<!-- nothing to see -->", "error:no text blocks")
    put("noscript-only.html", _page('<noscript><h1 style="font-size:40px">Hidden Unless Scripts Off</h1>'
                                    "</noscript><script>document.write('x')</script>"),
        "answer:Hidden Unless Scripts Off")
    put("deep.html", _page("<div>" * 20_000 + "Deep Text" + "</div>" * 20_000, "Deep"), "answer:Deep Text")
    put("wide.html", _page("".join(f"<span>w{i} </span>" for i in range(60_000)) + "<h1>Wide Heading</h1>"),
        "answer:Wide Heading")
    put("huge.html", _page("<h1>Huge Page Title</h1>" + "<p>" + "lorem ipsum dolor " * 110_000 + "</p>"),
        "answer:Huge Page Title")  # 1.98 M characters of text: just under the limit
    put("too-much-text.html", _page("<h1>Too Much</h1>" + "<p>" + "lorem ipsum dolor " * 300_000 + "</p>"),
        "error:over 2000000 characters of text")
    put("million-spans.html", _page("<h1>Million</h1>" + "<span>x</span>" * 1_000_000), "error:over 100000 elements")
    os.mkfifo(plain / "fifo.html")
    expected["plain", "fifo.html"] = "error:a FIFO (named pipe), not a regular file"
    with open(plain / "sparse.html", "wb") as handle:
        handle.truncate(2 * 2**30)  # 2 GB of NULs that take no disk space
    expected["plain", "sparse.html"] = "error:over the limit of"
    if os.geteuid() == 0:
        os.mknod(plain / "zero.html", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero
        expected["plain", "zero.html"] = "error:a character device"
    (plain / os.fsdecode(b"latin-caf\xe9.html")).write_bytes(_page("<h1>Latin Name</h1>").encode())
    expected["plain", "latin-caf\\xe9.html"] = "error:file name is not UTF-8"
    put("script-loop.html", _page("<h1>Looping Script</h1><script>for(;;){}</script>"), "answer:Looping Script")
    put("meta-refresh.html", '<meta http-equiv="refresh" content="0; url=http://elsewhere.test/"><h1>Stay Put</h1>',
        "answer:Stay Put")
    put("frameset.html", '<html><frameset cols="50%,50%"><frame src="a.html"><frame src="b.html"></frameset></html>',
        "error:no text blocks")
    put("svg-only.html", '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100">'
                         '<text x="10" y="50" font-size="40">Vector Title</text></svg>', "answer:Vector Title")
    put("page.xhtml", '<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
                      "<head><title>X</title></head><body><h1>Strict Markup</h1></body></html>",
        "answer:Strict Markup")
    put("odd name with spaces #1 ?.html", _page("<h1>Spaced Name</h1>"), "answer:Spaced Name")
    put("ünïcödé-名前.html", _page("<h1>Unicode Name</h1>"), "answer:Unicode Name")
    put("per%20cent.html", _page("<h1>Percent Name</h1>"), "answer:Percent Name")
    put("x" * 200 + ".html", _page("<h1>Long Name</h1>"), "answer:Long Name")
    put("deep/er/nested/page.htm", _page("<h1>Nested Page</h1>"), "answer:Nested Page")
    put("noext", _page("<h1>Sniffed Page</h1>"), "answer:Sniffed Page")
    (plain / "inside-link.html").symlink_to("nested-target.html")
    put("nested-target.html", _page("<h1>Link Target</h1>"), "answer:Link Target")
    expected["plain", "inside-link.html"] = "answer:Link Target"
    (plain / "leak.html").symlink_to(outside / "secret.html")
    expected["plain", "leak.html"] = "error:outside the site dump"
    (plain / "leak-relative.htm").symlink_to(Path("..", "..", "..", "outside", "secret.html"))
    expected["plain", "leak-relative.htm"] = "error:outside the site dump"
    (plain / "loop.html").symlink_to("loop.html")
    expected["plain", "loop.html"] = "error:symbolic link loop"
    (plain / "linked-dir").symlink_to(outside, target_is_directory=True)  # not walked, no row

    listed = root / "sites" / "listed"
    listed.mkdir(parents=True)
    (listed / "good.html").write_text(_page("<h1>Listed Good</h1>"))
    (listed / "out.html").symlink_to(outside / "secret.html")
    lines = [
        json.dumps({"path": "good.html", "url": "http://listed.test/good.html", "main_entity": ["Listed Good"]}),
        json.dumps({"path": "good.html"}),  # duplicate
        '{"path": "broken.html", ',  # malformed JSON
        "[1, 2, 3]",
        json.dumps({"path": "../outside/secret.html"}),
        json.dumps({"path": "/etc/passwd"}),
        json.dumps({"path": "missing.html"}),
        json.dumps({"path": "out.html"}),
        json.dumps({"path": "other.html", "url": 7}),
        json.dumps({"url": "http://listed.test/no-path"}),
        "",
        "\x00\x00",
        json.dumps({"path": "./good.html"}),
        json.dumps({"path": "good.html/"}),
        json.dumps({"path": "manifest.jsonl"}),
        json.dumps({"path": "nul\x00.html"}),
        json.dumps({"path": "v6.html", "url": "http://[::1"}),
    ]
    (listed / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    expected["listed", "good.html"] = "answer:Listed Good"
    for lineno, expect in [(2, "listed twice"), (3, "invalid JSON"), (4, "expected a JSON object"),
                           (5, "leaves the site directory"), (6, "leaves the site directory"),
                           (9, "'url' is not a string"), (10, "missing 'path'"),
                           (12, "invalid JSON"), (13, "listed twice"), (14, "listed twice"),
                           (15, "the manifest itself"), (16, "NUL character"), (17, "Invalid IPv6 URL")]:
        expected["listed", f"manifest.jsonl:{lineno}"] = f"error:{expect}"
    expected["listed", "missing.html"] = "error:cannot read"
    expected["listed", "out.html"] = "error:outside the site dump"
    return expected


def make_model_dir(directory: Path, timeout_s: float = 15.0) -> Path:
    """A model directory with an MS-RBFN fitted on synthetic shop pages (no rendering needed)."""
    directory.mkdir(parents=True)
    recognizer = make_recognizer("msrbfn", m1=10, m2=2, random_state=0).fit([product_document(i) for i in range(12)])
    save_model_file({"recognizer": recognizer, "cleaners": {}, "training_pages": []}, directory / MODEL_FILE)
    config = Config(name="fuzz", model=ModelConfig("msrbfn"),
                    render=RenderConfig(timeout_s=timeout_s, concurrency=2))
    (directory / "config.yaml").write_text(yaml.safe_dump(config_to_dict(config), sort_keys=False))
    return directory


def predict_command(model: Path, data: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "mainentity.cli", "predict", str(model), str(data), "-o", str(out)]


def _env(cache_home: Path) -> dict:
    """The environment of a predict run whose per-user cache (so its render cache) is under ``cache_home``."""
    return {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(cache_home)}


def heavy_pages_seconds(plain: Path) -> float:
    """Seconds the heaviest pages of the corpus take to render here, now, two at a time as predict does."""
    pages = [page for page in read_site_dump(plain).pages if page.path in HEAVY_PAGES]
    started = time.perf_counter()
    with Renderer(RenderSettings(timeout_s=HANG_GUARD_S, concurrency=2)) as renderer:
        outcomes = list(renderer.render(pages))
    assert len(outcomes) == len(HEAVY_PAGES) and not any(outcome.error for outcome in outcomes)
    return time.perf_counter() - started


def tree_pss_mb(process: psutil.Process) -> float:
    """MB of PSS of ``process`` and its descendants (processes that end meanwhile are skipped)."""
    total = 0
    try:
        members = [process, *process.children(recursive=True)]
    except psutil.Error:  # the run has ended
        return 0.0
    for member in members:
        try:
            total += member.memory_full_info().pss
        except psutil.Error:
            continue
    return total / 2**20


def run_sampling_memory(command: list[str], env: dict) -> tuple[subprocess.CompletedProcess, float]:
    """Run ``command``; returns its result and the peak PSS of its process tree, sampled every 0.1 s."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               start_new_session=True)
    peak, watched = 0.0, psutil.Process(process.pid)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_pss_mb(watched))
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        stdout, stderr = process.communicate(timeout=HANG_GUARD_S)
    finally:
        done.set()
        sampler.join()
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr), peak


def test_fuzz_corpus_gives_one_row_per_page_within_bounds(tmp_path):
    expected = make_fuzz_corpus(tmp_path / "fuzz")
    # Every page is to be answered in time: the timeout is 20 times what the heaviest pages take here now
    # (at least the 15 s of the shipped configs), so the machine's load cannot turn an answer into a timeout.
    timeout_s = max(15.0, 20 * heavy_pages_seconds(tmp_path / "fuzz" / "sites" / "plain"))
    model = make_model_dir(tmp_path / "model", timeout_s)
    out = tmp_path / "rows.jsonl"
    started = time.perf_counter()
    done, peak_mb = run_sampling_memory(predict_command(model, tmp_path / "fuzz", out), _env(tmp_path / "cache"))
    assert done.returncode == 0, done.stderr[-3000:]
    print(f"fuzz: {len(expected)} rows in {time.perf_counter() - started:.1f} s (render timeout {timeout_s:.0f} s), "
          f"process tree peak PSS {peak_mb:.0f} MB")
    assert peak_mb < MAX_FUZZ_TREE_MB

    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    keys = [(row["site_id"], row["path"]) for row in rows]
    assert len(keys) == len(set(keys)), "a page has two rows"
    assert set(keys) == set(expected)
    assert SECRET not in out.read_text(encoding="utf-8")
    for row in rows:
        key, answer, error = (row["site_id"], row["path"]), row["main_entity"], row["error"]
        assert bool(answer) != bool(error), row
        kind, _, text = expected[key].partition(":")
        assert text in (answer if kind == "answer" else error), row


def test_hostile_files_and_a_million_spans_stay_under_the_memory_target(tmp_path):
    """A FIFO, a character device (as root), a sparse 2 GB file and a page of a million spans beside a
    small page: one row each, the small page answered, the whole process tree under 1.5 GB."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "million-spans.html").write_text(_page("<h1>Million</h1>" + "<span>x</span>" * 1_000_000))
    (site / "small.html").write_text(_page("<h1>Small Neighbour</h1>"))
    os.mkfifo(site / "fifo.html")
    with open(site / "sparse.html", "wb") as handle:
        handle.truncate(2 * 2**30)
    expected = {"million-spans.html": "over 100000 elements", "fifo.html": "FIFO", "sparse.html": "over the limit"}
    if os.geteuid() == 0:
        os.mknod(site / "zero.html", stat.S_IFCHR | 0o600, os.makedev(1, 5))
        expected["zero.html"] = "character device"
    model = make_model_dir(tmp_path / "model", timeout_s=HANG_GUARD_S)  # nothing may time out
    out = tmp_path / "rows.jsonl"
    done, peak_mb = run_sampling_memory(predict_command(model, site, out), _env(tmp_path / "cache"))
    assert done.returncode == 0, done.stderr[-3000:]
    print(f"hostile files: process tree peak PSS {peak_mb:.0f} MB")
    assert peak_mb < MAX_HOSTILE_TREE_MB
    rows = {row["path"]: row for row in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert rows.pop("small.html")["main_entity"] == "Small Neighbour"
    assert set(rows) == set(expected)
    assert all(expected[path] in row["error"] for path, row in rows.items()), rows


def test_a_killed_predict_run_resumes_with_every_page_once(tmp_path):
    site = tmp_path / "site"
    for i in range(40):
        (site / f"p{i:02d}.html").parent.mkdir(parents=True, exist_ok=True)
        (site / f"p{i:02d}.html").write_text(_page(f"<h1>Product Number {i}</h1><p>{'text ' * 50}</p>"))
    (site / "bad.html").write_bytes(b"")
    model = make_model_dir(tmp_path / "model")
    out = tmp_path / "rows.csv"
    command = predict_command(model, site, out)
    # its own process group: Chromium dies with it
    process = subprocess.Popen(command, env=_env(tmp_path / "cache"), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if out.is_file() and len(out.read_bytes().splitlines()) >= 6:  # header, error row, >= 4 pages
                break
            time.sleep(0.05)
        assert process.poll() is None, "predict finished before it could be killed"
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    n_before = len(pd.read_csv(out, keep_default_na=False))
    assert 5 <= n_before < 41
    subprocess.run(command, env=_env(tmp_path / "cache"), check=True, capture_output=True, timeout=HANG_GUARD_S)
    rows = pd.read_csv(out, keep_default_na=False)
    assert sorted(rows["path"]) == sorted([f"p{i:02d}.html" for i in range(40)] + ["bad.html"])
    assert rows["path"].is_unique
    good = rows[rows["path"] != "bad.html"].set_index("path")
    assert (good["error"] == "").all()
    assert all(good.loc[f"p{i:02d}.html", "main_entity"] == f"Product Number {i}" for i in range(40))
