import csv
import json

import pytest

from mainentity.prediction_writer import COLUMNS, PredictionWriter
from mainentity.records import Prediction


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_rows_survive_an_interruption_and_resume(tmp_path, suffix):
    path = tmp_path / f"out{suffix}"
    with PredictionWriter(path) as writer:
        writer.write(Prediction("s", "a.html", "http://x/a", "Alpha", 1.5, (0.0, 10.0, 200.0, 30.0)))
        writer.write(Prediction("s", "b.html", "http://x/b", error="render timed out after 20 s"))
    # a killed run leaves half a line behind
    with path.open("a", encoding="utf-8") as file:
        file.write('{"site_id": "s", "pa' if suffix == ".jsonl" else "s,c.ht")
    with PredictionWriter(path) as writer:
        assert writer.done == {("s", "a.html"), ("s", "b.html")}
        writer.write(Prediction("s", "c.html", "http://x/c", "Gamma", 0.2))
    if suffix == ".jsonl":
        rows = [json.loads(line) for line in path.read_text().splitlines()]
    else:
        rows = list(csv.DictReader(path.read_text().splitlines()))
        assert list(rows[0]) == list(COLUMNS)
    assert [row["path"] for row in rows] == ["a.html", "b.html", "c.html"]
    assert rows[1]["error"] == "render timed out after 20 s"
    assert float(rows[0]["y"]) == 10.0


def _read(path):
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines()]
    return list(csv.DictReader(path.read_text().splitlines()))


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_retry_errors_drops_the_error_rows_so_their_pages_are_predicted_again(tmp_path, suffix):
    path = tmp_path / f"out{suffix}"
    with PredictionWriter(path) as writer:
        writer.write(Prediction("s", "a.html", "http://x/a", "Alpha", 1.5, (0.0, 10.0, 200.0, 30.0)))
        writer.write(Prediction("s", "b.html", "http://x/b", error="render timed out after 20 s"))
        writer.write(Prediction("s", "c.html", "http://x/c", "Gamma", 0.2))
    with PredictionWriter(path) as writer:  # without the option the error row stays done
        assert writer.done == {("s", "a.html"), ("s", "b.html"), ("s", "c.html")}
    with PredictionWriter(path, retry_errors=True) as writer:
        assert writer.done == {("s", "a.html"), ("s", "c.html")}
        assert [row["path"] for row in _read(path)] == ["a.html", "c.html"]
        writer.write(Prediction("s", "b.html", "http://x/b", "Beta", 0.7))
    rows = _read(path)
    assert [(row["path"], row["main_entity"], row["error"]) for row in rows] == [
        ("a.html", "Alpha", ""), ("c.html", "Gamma", ""), ("b.html", "Beta", "")]
    assert float(rows[0]["y"]) == 10.0 and not (tmp_path / f"out{suffix}.tmp").exists()
    with PredictionWriter(path, retry_errors=True) as writer:  # nothing to retry: the file is untouched
        assert len(writer.done) == 3


def test_unknown_suffix_is_refused(tmp_path):
    with pytest.raises(ValueError, match="must end in .jsonl or .csv"):
        PredictionWriter(tmp_path / "out.txt")


@pytest.mark.parametrize(("name", "content"), [("other.csv", "a,b\n1,2\n"), ("other.jsonl", '{"garbage": 1}\n')])
def test_an_existing_file_that_is_not_a_predictions_file_is_refused_untouched(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ValueError, match="exists and is not a predictions file"):
        PredictionWriter(path)
    assert path.read_text() == content


def test_a_directory_is_refused(tmp_path):
    (tmp_path / "out.jsonl").mkdir()
    with pytest.raises(ValueError, match="is not a file"):
        PredictionWriter(tmp_path / "out.jsonl")


def test_a_broken_line_inside_a_jsonl_output_is_named_by_its_line(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text('{"site_id": "s", "path": "a"}\n{"site_id": "s", broken\n{"site_id": "s", "path": "c"}\n')
    with pytest.raises(ValueError, match="line 2: "):
        PredictionWriter(out)


#: Characters that str.splitlines (and old JavaScript JSON readers) take for line breaks, though JSON does not.
LINE_BREAKS_BUT_NOT_JSON = ("\u2028", "\u2029", "\x85")


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_rows_whose_names_and_urls_hold_unicode_line_breaks_are_one_line_each_and_resume(tmp_path, suffix):
    path = tmp_path / f"out{suffix}"
    predictions = [Prediction("s" + char, f"a{char}b.html", f"https://x.example/{char}", f"Name{char}Two", 0.5)
                   for char in LINE_BREAKS_BUT_NOT_JSON]
    with PredictionWriter(path) as writer:
        for prediction in predictions:
            writer.write(prediction)
    text = path.read_text(encoding="utf-8")
    if suffix == ".jsonl":
        assert not any(char in text for char in LINE_BREAKS_BUT_NOT_JSON)  # escaped: any JSON reader sees 3 lines
        rows = [json.loads(line) for line in text.splitlines()]
    else:
        with path.open(encoding="utf-8", newline="") as file:
            rows = list(csv.DictReader(file))
    assert [(row["site_id"], row["path"], row["url"], row["main_entity"]) for row in rows] == [
        (p.site_id, p.path, p.url, p.main_entity) for p in predictions]
    with PredictionWriter(path) as writer:  # the resume reads them back, one row each
        assert writer.done == {(p.site_id, p.path) for p in predictions}


def test_a_predict_run_over_pages_named_with_unicode_line_breaks_resumes(tmp_path, capsys):
    from mainentity.cli import main

    site = tmp_path / "site"
    site.mkdir()
    for number, char in enumerate(LINE_BREAKS_BUT_NOT_JSON):
        (site / f"page{char}{number}.html").write_text(
            f"<html><head><title>Kettle {number}</title></head><body><h1>Kettle {number}</h1>"
            "<p>Boils water fast.</p></body></html>", encoding="utf-8")
    out = tmp_path / "rows.jsonl"
    assert main(["predict", str(site), "-o", str(out), "--base-url", "https://x.example/"]) == 0
    first = out.read_text(encoding="utf-8")
    assert len(first.splitlines()) == 3
    assert main(["predict", str(site), "-o", str(out), "--base-url", "https://x.example/"]) == 0
    assert out.read_text(encoding="utf-8") == first  # resumed: nothing refused, nothing written twice
    assert sorted(json.loads(line)["path"] for line in first.splitlines()) == sorted(
        f"page{char}{number}.html" for number, char in enumerate(LINE_BREAKS_BUT_NOT_JSON))


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_carriage_return_in_a_name_survives_a_cut_resume_unchanged(tmp_path, suffix):
    """A page named "car\\rret.html": the resume read the file with universal newlines, so the CSV field
    came back as "car\\nret.html" (the page written again) and the cut of a half line wrote that back."""
    path = tmp_path / f"out{suffix}"
    with PredictionWriter(path) as writer:
        writer.write(Prediction("s", "car\rret.html", "https://x.example/car%0Dret", "Oak Shelf", 0.9))
    with path.open("a", encoding="utf-8", newline="") as file:
        file.write('{"site_id": "s", "pa' if suffix == ".jsonl" else "s,half")
    with PredictionWriter(path) as writer:
        assert writer.done == {("s", "car\rret.html")}
    with path.open(encoding="utf-8", newline="") as file:
        rows = [json.loads(line) for line in file] if suffix == ".jsonl" else list(csv.DictReader(file))
    assert [row["path"] for row in rows] == ["car\rret.html"]
