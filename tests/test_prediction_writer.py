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
