"""``mainentity predict`` writes the same rows, byte for byte, as before the pipeline was reshaped.

The reference rows were written by ``mainentity predict`` with the shipped general model and a cold
render cache: the sample shop's 42 rows are in ``tests/golden/predict-sample-shop.jsonl``; the first
100 pages of the christianbook dataset (rows not committed: the pages are research-use data) are
checked by the SHA-256 of their sorted rows. Rows come in order of completion, so both sides are
sorted before they are compared. Rows have since gained three last columns, ``answered_by`` (render few):
it must say ``rendered`` on every row (the default policy renders every page), ``best_candidate``: it
must be the answer (the model never abstains), and ``score_kind`` (``probability`` for the general
model's scores); the rest of each row, serialised as the writer serialises it, must be the reference's
bytes.
"""

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO, SAMPLE_SHOP

from mainentity.cli import main

GOLDEN = REPO / "tests" / "golden"

#: SHA-256 of the sorted rows (newline after each) of the first 100 christianbook pages.
CHRISTIANBOOK_100_SHA256 = "9f62f86c1066dd024db01b7ef07cd930baf343cdc43363d7e93df90a31a5d05f"


def predicted_rows(inputs: Path, tmp_path: Path, monkeypatch) -> list[bytes]:
    """The sorted rows of ``mainentity predict inputs --render always`` (every page rendered, as before
    render few) with a cold render cache of its own, each without its ``answered_by``, ``best_candidate``
    and ``score_kind`` columns (checked to say ``rendered``, to be the answer and to say ``probability``)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the default render cache lives there
    out = tmp_path / "rows.jsonl"
    assert main(["predict", str(inputs), "-o", str(out), "--render", "always"]) == 0
    rows = []
    for line in out.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        assert row.pop("answered_by") == "rendered", row
        assert row.pop("best_candidate") == row["main_entity"], row
        assert row.pop("score_kind") == ("probability" if row["score"] is not None else ""), row
        rows.append(json.dumps(row, ensure_ascii=False).encode("utf-8"))
    return sorted(rows)


@pytest.mark.browser
def test_sample_shop_rows_are_unchanged(tmp_path, monkeypatch):
    rows = predicted_rows(SAMPLE_SHOP, tmp_path, monkeypatch)
    expected = (GOLDEN / "predict-sample-shop.jsonl").read_bytes().splitlines()
    assert len(rows) == 42
    assert rows == expected


@pytest.mark.browser
@pytest.mark.shared_data
def test_christianbook_rows_are_unchanged(shared_datasets, tmp_path, monkeypatch):
    source = shared_datasets / "swde-book-christianbook" / "sites" / "christianbook"
    site = tmp_path / "christianbook-100" / "sites" / "christianbook"
    (site / "pages").mkdir(parents=True)
    lines = (source / "manifest.jsonl").read_text(encoding="utf-8").splitlines()[:100]
    for line in lines:
        shutil.copyfile(source / json.loads(line)["path"], site / json.loads(line)["path"])
    (site / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = predicted_rows(site.parents[1], tmp_path, monkeypatch)
    assert len(rows) == 100
    assert all(json.loads(row)["error"] == "" for row in rows)
    assert hashlib.sha256(b"\n".join(rows) + b"\n").hexdigest() == CHRISTIANBOOK_100_SHA256
