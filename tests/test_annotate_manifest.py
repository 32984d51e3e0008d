"""annotate.manifest: one page's labels written atomically under a lock, every other line kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("filelock", reason="annotate needs the annotate extra: pip install 'mainentity[annotate]'")

from filelock import FileLock  # noqa: E402

from mainentity.annotate.manifest import (  # noqa: E402
    LOCK_NAME,
    LabelConflict,
    LabelState,
    ManifestLabels,
    clean_labels,
)
from mainentity.sitedump import PageReadError, read_site_dump  # noqa: E402

FRESH = LabelState().version


def make_dump(root, n_pages=3):
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n_pages):
        (root / f"p{i}.html").write_text(f"<title>Page {i}</title><h1>Item {i}</h1>", encoding="utf-8")
    return root


def test_a_dump_without_manifest_gets_one_listing_every_page_file(tmp_path):
    dump = make_dump(tmp_path / "dump")
    (dump / "empty.html").write_bytes(b"")  # unreadable: predict gives it an error row, so it stays listed
    before = read_site_dump(dump)
    state = ManifestLabels(dump).write("p1.html", ["  Item\n1 "], False, FRESH, label_in_page=True)
    assert state == LabelState(("Item 1",)) and state.status == "labeled"
    lines = [json.loads(line) for line in (dump / "manifest.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [line["path"] for line in lines] == ["empty.html", "p0.html", "p1.html", "p2.html"]
    assert lines[2] == {"path": "p1.html", "main_entity": ["Item 1"], "label_in_page": True}
    assert all("url" not in line for line in lines)
    after = read_site_dump(dump)
    assert [(p.path, p.url) for p in after.pages] == [(p.path, p.url) for p in before.pages]
    assert [f.path for f in after.failures] == [f.path for f in before.failures] == ["empty.html"]
    assert ManifestLabels(dump).read()["p1.html"].main_entity == ("Item 1",)


def test_every_other_line_and_field_is_kept_byte_for_byte(tmp_path):
    dump = make_dump(tmp_path / "dump")
    original = (
        '{"path": "p0.html", "url": "https://s.example/0", "main_entity": ["Old"], "x": {"y": [1, 2]}}\r\n'
        "{broken\n"
        '{"path":"p1.html","main_entity":[],"label_in_page":false,"note":"ünïcode"}\n'
        "\n"
        '{"path": "p0.html", "main_entity": ["duplicate line"]}\n'
        '{"path": "p2.html", "main_entity": ["Item 2"]}'  # no final newline
    )
    (dump / "manifest.jsonl").write_bytes(original.encode("utf-8"))
    labels = ManifestLabels(dump)
    assert labels.read()["p0.html"] == LabelState(("Old",))  # the first valid line of a path wins
    labels.write("p1.html", ["Item 1", "Item one"], False, FRESH, label_in_page=True)
    labels.write("p0.html", [], True, LabelState(("Old",)).version, label_in_page=False)
    lines = (dump / "manifest.jsonl").read_bytes().decode("utf-8").split("\n")
    old_lines = original.split("\n")
    assert lines[0] == ('{"path": "p0.html", "url": "https://s.example/0", "main_entity": [], "x": {"y": [1, 2]}, '
                        '"label_in_page": false, "skipped": true}\r')
    assert lines[1] == old_lines[1] and lines[3:] == old_lines[3:]
    assert json.loads(lines[2]) == {"path": "p1.html", "main_entity": ["Item 1", "Item one"], "label_in_page": True,
                                    "note": "ünïcode"}
    assert list(json.loads(lines[2])) == ["path", "main_entity", "label_in_page", "note"]  # field order kept


def test_a_stale_version_is_a_conflict_and_writes_nothing(tmp_path):
    dump = make_dump(tmp_path / "dump")
    labels = ManifestLabels(dump)
    labels.write("p0.html", ["Item 0"], False, FRESH)
    before = (dump / "manifest.jsonl").read_bytes()
    with pytest.raises(LabelConflict) as conflict:
        labels.write("p0.html", ["Something else"], False, FRESH)  # made from the state before the first write
    assert conflict.value.current == LabelState(("Item 0",))
    assert (dump / "manifest.jsonl").read_bytes() == before


def test_skipping_and_unskipping(tmp_path):
    dump = make_dump(tmp_path / "dump")
    labels = ManifestLabels(dump)
    skipped = labels.write("p0.html", [], True, FRESH)
    first_line = json.loads((dump / "manifest.jsonl").read_text().splitlines()[0])
    assert skipped.status == "skipped" and first_line == {"path": "p0.html", "main_entity": [], "skipped": True}
    labels.write("p0.html", ["Item 0"], False, skipped.version)
    assert "skipped" not in (dump / "manifest.jsonl").read_text().splitlines()[0]


def test_a_failed_write_leaves_the_manifest_as_it_was_and_no_temporary_file(tmp_path, monkeypatch):
    dump = make_dump(tmp_path / "dump")
    labels = ManifestLabels(dump)
    labels.write("p0.html", ["Item 0"], False, FRESH)
    before = sorted(os.listdir(dump)), (dump / "manifest.jsonl").read_bytes()

    def crash(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        labels.write("p1.html", ["Item 1"], False, FRESH)
    assert (sorted(os.listdir(dump)), (dump / "manifest.jsonl").read_bytes()) == before


def test_bad_labels_are_refused():
    assert clean_labels(["a", " a ", "", "b"]) == ("a", "b")
    with pytest.raises(ValueError, match="must be a string"):
        clean_labels(["a", 3])
    with pytest.raises(ValueError, match="at most 20 labels"):
        clean_labels([str(i) for i in range(21)])
    with pytest.raises(ValueError, match="at most 2000 characters"):
        clean_labels(["x" * 2001])
    for control in ("\x00", "\x07", "\x1b", "\x9f"):  # no page text holds one (a NUL is dropped from pages)
        with pytest.raises(ValueError, match=rf"control character \(U\+{ord(control):04X}\)"):
            clean_labels([f"Ash{control}grove"])
    assert clean_labels(["Ash\tgrove\x85Kettle"]) == ("Ash grove Kettle",)  # white space is collapsed


def test_a_held_lock_times_out_with_a_clear_error(tmp_path):
    dump = make_dump(tmp_path / "dump")
    with FileLock(dump / LOCK_NAME):
        held = threading.Event()
        errors = []

        def write():
            held.set()
            try:
                ManifestLabels(dump, lock_timeout_s=0.2).write("p0.html", ["Item 0"], False, FRESH)
            except TimeoutError as error:
                errors.append(str(error))

        thread = threading.Thread(target=write)
        thread.start()
        thread.join(10)
    assert held.is_set() and len(errors) == 1 and "locked by another process" in errors[0]
    assert not (dump / "manifest.jsonl").exists()


WRITER = """
import sys
from mainentity.annotate.manifest import LabelState, ManifestLabels
dump, prefix, n_pages = sys.argv[1], sys.argv[2], int(sys.argv[3])
labels = ManifestLabels(dump, lock_timeout_s=60)
print("ready", flush=True)
for round_ in range(int(sys.argv[4])):
    for i in range(n_pages):
        path = f"p{i}.html"
        if round_ == 0 and i % 2 != int(prefix == "b"):
            continue  # first round: each writer labels its own half of the pages
        while True:
            current = labels.read().get(path, LabelState())
            try:
                new = [f"{prefix}{round_}"] if round_ == 0 else [*current.main_entity[:1], f"{prefix}{round_}"]
                labels.write(path, new, False, current.version)
                break
            except Exception as error:  # a conflict with the other writer: read again
                if type(error).__name__ != "LabelConflict":
                    raise
"""


def run_writers(dump, n_pages, n_rounds, n_writers=2):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return [subprocess.Popen([sys.executable, "-c", WRITER, str(dump), prefix, str(n_pages), str(n_rounds)],
                             stdout=subprocess.PIPE, text=True, env=env) for prefix in "ab"[:n_writers]]


def test_two_processes_and_many_threads_never_lose_each_others_labels(tmp_path):
    dump = make_dump(tmp_path / "dump", n_pages=12)
    writers = run_writers(dump, 12, 1)
    for writer in writers:
        assert writer.wait(120) == 0
    states = ManifestLabels(dump).read()
    assert {path: state.main_entity for path, state in states.items()} == {
        f"p{i}.html": ("a0",) if i % 2 == 0 else ("b0",) for i in range(12)}

    def label(i):  # every thread its own ManifestLabels, as two browser tabs' requests have
        labels = ManifestLabels(dump)
        path = f"p{i}.html"
        labels.write(path, [f"t{i}"], False, labels.read()[path].version)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(label, range(12)))
    assert {path: state.main_entity for path, state in ManifestLabels(dump).read().items()} == {
        f"p{i}.html": (f"t{i}",) for i in range(12)}


def test_sigkill_mid_write_leaves_a_whole_manifest(tmp_path):
    dump = make_dump(tmp_path / "dump", n_pages=30)
    extra = {"path": "p0.html", "main_entity": [], "keep": "me"}
    lines = [json.dumps(extra)] + [json.dumps({"path": f"p{i}.html", "main_entity": []}) for i in range(1, 30)]
    (dump / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for delay in (0.05, 0.1, 0.15, 0.2, 0.3, 0.4):
        (writer,) = run_writers(dump, 30, 1000, n_writers=1)
        assert writer.stdout.readline().strip() == "ready"
        time.sleep(delay)
        writer.send_signal(signal.SIGKILL)
        writer.wait(30)
        entries = [json.loads(line) for line in (dump / "manifest.jsonl").read_text(encoding="utf-8").splitlines()]
        assert [entry["path"] for entry in entries] == [f"p{i}.html" for i in range(30)]
        assert entries[0]["keep"] == "me"
    # a kill between writing the temporary file and renaming it may leave that hidden file behind, never more
    leftovers = [name for name in os.listdir(dump) if name.endswith(".tmp")]
    assert len(leftovers) <= 6 and all(name.startswith(".manifest.jsonl.") for name in leftovers)
    assert [page.path for page in read_site_dump(dump).pages] == [f"p{i}.html" for i in range(30)]


def test_versions_name_states():
    assert LabelState(("A", "B")).version != LabelState(("B", "A")).version
    assert LabelState().version == FRESH and len(FRESH) == 16


def test_a_lock_file_that_is_a_link_is_refused_and_never_followed(tmp_path):
    from mainentity.annotate.manifest import LockFileError

    dump = make_dump(tmp_path / "dump")
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    (dump / LOCK_NAME).symlink_to(precious)
    with pytest.raises(LockFileError, match="the lock file is a symbolic link"):
        ManifestLabels(dump).write("p0.html", ["Item 0"], False, FRESH)
    assert precious.read_text() == "keep me" and not (dump / "manifest.jsonl").exists()
    (dump / LOCK_NAME).unlink()
    (dump / LOCK_NAME).symlink_to(LOCK_NAME)  # a loop
    with pytest.raises(LockFileError, match="symbolic link"):
        ManifestLabels(dump).remove_temporary_files()


def test_the_manifest_keeps_its_mode(tmp_path):
    dump = make_dump(tmp_path / "dump")
    labels = ManifestLabels(dump)
    labels.write("p0.html", ["Item 0"], False, FRESH)
    os.chmod(dump / "manifest.jsonl", 0o640)
    labels.write("p1.html", ["Item 1"], False, FRESH)
    assert oct(os.stat(dump / "manifest.jsonl").st_mode & 0o777) == oct(0o640)


def test_temporary_files_of_a_killed_writer_are_removed_and_only_they(tmp_path):
    dump = make_dump(tmp_path / "dump")
    for name in (".manifest.jsonl.a1b2.tmp", ".manifest.jsonl.zz.tmp"):
        (dump / name).write_text("{")
    (dump / "notes.tmp").write_text("mine")
    assert ManifestLabels(dump).remove_temporary_files() == [".manifest.jsonl.a1b2.tmp", ".manifest.jsonl.zz.tmp"]
    assert sorted(os.listdir(dump)) == [LOCK_NAME, "notes.tmp", "p0.html", "p1.html", "p2.html"]


def test_every_spelling_of_a_path_is_one_page(tmp_path):
    dump = make_dump(tmp_path / "dump")
    lines = [{"path": "./p0.html", "main_entity": ["Item 0"]}, {"path": "p0.html/", "main_entity": ["Other"]},
             {"path": "p0.html", "main_entity": ["Third"]}, {"path": "manifest.jsonl"}]
    (dump / "manifest.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    labels = ManifestLabels(dump)
    assert labels.read() == {"p0.html": LabelState(("Item 0",))}
    labels.write("p0.html", ["Item Zero"], False, LabelState(("Item 0",)).version)
    first = json.loads((dump / "manifest.jsonl").read_text().splitlines()[0])
    assert first == {"path": "./p0.html", "main_entity": ["Item Zero"]}  # the line changed, its spelling kept
    assert [page.path for page in read_site_dump(dump).pages] == ["p0.html"]


def test_a_manifest_that_is_a_fifo_is_refused_not_waited_on(tmp_path):
    dump = make_dump(tmp_path / "dump")
    os.mkfifo(dump / "manifest.jsonl")
    errors = []

    def write():
        try:
            ManifestLabels(dump).write("p0.html", ["Item 0"], False, FRESH)
        except PageReadError as error:
            errors.append(str(error))

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    thread.join(120)  # a hang guard: the write returns at once
    if thread.is_alive():
        os.close(os.open(dump / "manifest.jsonl", os.O_WRONLY | os.O_NONBLOCK))  # unblock the reader
    assert errors == ["a FIFO (named pipe), not a regular file: not read"]


def test_a_labeled_page_is_never_marked_skipped(tmp_path):
    """Skipping a labeled page keeps its labels: no ``"skipped": true`` beside them, and it counts as labeled."""
    dump = make_dump(tmp_path / "dump")
    labels = ManifestLabels(dump)
    state = labels.write("p0.html", ["Item 0"], True, FRESH)
    assert state == LabelState(("Item 0",)) and state.status == "labeled"
    assert json.loads((dump / "manifest.jsonl").read_text().splitlines()[0]) == {"path": "p0.html",
                                                                                 "main_entity": ["Item 0"]}
    assert labels.read()["p0.html"] == state
