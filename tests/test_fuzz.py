"""Fuzz suite: a corpus of hostile pages made here, predicted end to end in a subprocess (Chromium).

Each kind of bad input a real crawl throws at the tool (issue 11) is one generated file or manifest
line: empty, binary, truncated, UTF-16, huge, very deep and very wide pages, script loops, meta
refresh, frames, SVG-only, XHTML, ``<noscript>``-only, stray NULs, symbolic links into and out of the
dump, odd file names, and malformed or duplicate manifest lines. The contract: the predict command
exits 0, writes exactly one row per page (or manifest line) with an answer or a reason, never shows
the text of a file outside the dump, and stays within a time and memory bound. A second test kills a
predict run with SIGKILL mid-batch and checks that the rerun leaves every page exactly once.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO
from test_recognizer_msrbfn import product_document

from mainentity.config import Config, ModelConfig, RenderConfig, config_to_dict
from mainentity.model_io import MODEL_FILE, save_model_file
from mainentity.recognizers.base import make_recognizer

pytestmark = pytest.mark.browser

#: Bounds of the fuzz run: measured 15-35 s and a largest process of 0.63 GB on 2 shared cores.
MAX_FUZZ_SECONDS = 240
MAX_FUZZ_RSS_MB = 1500
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
    put("huge.html", _page("<h1>Huge Page Title</h1>" + "<p>" + "lorem ipsum dolor " * 300_000 + "</p>"),
        "answer:Huge Page Title")
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
    ]
    (listed / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    expected["listed", "good.html"] = "answer:Listed Good"
    for lineno, expect in [(2, "listed twice"), (3, "invalid JSON"), (4, "expected a JSON object"),
                           (5, "leaves the site directory"), (6, "leaves the site directory"),
                           (9, "'url' is not a string"), (10, "missing 'path'"),
                           (12, "invalid JSON")]:
        expected["listed", f"manifest.jsonl:{lineno}"] = f"error:{expect}"
    expected["listed", "missing.html"] = "error:cannot read"
    expected["listed", "out.html"] = "error:outside the site dump"
    return expected


def make_model_dir(directory: Path) -> Path:
    """A model directory with an MS-RBFN fitted on synthetic shop pages (no rendering needed)."""
    directory.mkdir(parents=True)
    recognizer = make_recognizer("msrbfn", m1=10, m2=2, random_state=0).fit([product_document(i) for i in range(12)])
    save_model_file({"recognizer": recognizer, "cleaners": {}, "training_pages": []}, directory / MODEL_FILE)
    config = Config(name="fuzz", model=ModelConfig("msrbfn"),
                    render=RenderConfig(timeout_s=15.0, concurrency=2))
    (directory / "config.yaml").write_text(yaml.safe_dump(config_to_dict(config), sort_keys=False))
    return directory


def predict_command(model: Path, data: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "mainentity.cli", "predict", str(model), str(data), "-o", str(out)]


def _env(cache_home: Path) -> dict:
    """The environment of a predict run whose per-user cache (so its render cache) is under ``cache_home``."""
    return {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(cache_home)}


def test_fuzz_corpus_gives_one_row_per_page_within_bounds(tmp_path):
    expected = make_fuzz_corpus(tmp_path / "fuzz")
    model = make_model_dir(tmp_path / "model")
    out = tmp_path / "rows.jsonl"
    # A wrapper process whose only children are the predict run: its RUSAGE_CHILDREN peak is the run's.
    wrapper = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(code)")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", wrapper, *predict_command(model, tmp_path / "fuzz", out)],
                          capture_output=True, text=True, env=_env(tmp_path / "cache"),
                          timeout=MAX_FUZZ_SECONDS + 60, check=False)
    seconds = time.perf_counter() - started
    assert done.returncode == 0, done.stderr[-3000:]
    peak_mb = int(done.stdout.split()[-1]) / 1024
    print(f"fuzz: {len(expected)} rows in {seconds:.1f} s, largest process peak RSS {peak_mb:.0f} MB")
    assert seconds < MAX_FUZZ_SECONDS and peak_mb < MAX_FUZZ_RSS_MB

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
    subprocess.run(command, env=_env(tmp_path / "cache"), check=True, capture_output=True, timeout=300)
    rows = pd.read_csv(out, keep_default_na=False)
    assert sorted(rows["path"]) == sorted([f"p{i:02d}.html" for i in range(40)] + ["bad.html"])
    assert rows["path"].is_unique
    good = rows[rows["path"] != "bad.html"].set_index("path")
    assert (good["error"] == "").all()
    assert all(good.loc[f"p{i:02d}.html", "main_entity"] == f"Product Number {i}" for i in range(40))
