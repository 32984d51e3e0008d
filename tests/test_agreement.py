"""evaluation.agreement: exact and ROUGE-1 agreement between two label files of one site dump."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from mainentity.cli import main
from mainentity.evaluation.agreement import agreement_per_page, read_label_file, write_agreement_report


def write_labels(path, entries, extra_lines=()):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(entry) for entry in entries] + list(extra_lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_identical_labels_agree_fully_and_metrics_are_symmetric_where_they_should_be():
    a = {"p1": ["Ashgrove Enamel Kettle"], "p2": ["Garden"], "p3": ["Lantern"]}
    b = {"p1": ["Ashgrove Enamel Kettle – Harbor Lane"], "p2": ["garden"], "p3": ["Brass Lantern, small"]}
    same = agreement_per_page(a, a)
    assert same[["exact", "rouge1_p", "rouge1_r", "rouge1_f"]].to_numpy().min() == 1.0
    ab, ba = agreement_per_page(a, b), agreement_per_page(b, a)
    assert ab["exact"].tolist() == ba["exact"].tolist() == [0.0, 1.0, 0.0]
    assert ab["rouge1_f"].tolist() == pytest.approx(ba["rouge1_f"].tolist())
    assert ab["rouge1_p"].tolist() == pytest.approx(ba["rouge1_r"].tolist())
    assert ab.loc[0, "rouge1_p"] == 1.0 and ab.loc[0, "rouge1_r"] == pytest.approx(3 / 5)


def test_the_best_pair_of_alternatives_counts():
    per_page = agreement_per_page({"p": ["The Kettle", "Ashgrove Kettle"]}, {"p": ["Kettle", "ashgrove  kettle"]})
    assert per_page.to_dict("records") == [{"path": "p", "label_a": "Ashgrove Kettle", "label_b": "ashgrove  kettle",
                                            "exact": 1.0, "rouge1_p": 1.0, "rouge1_r": 1.0, "rouge1_f": 1.0}]


def test_report_counts_pages_and_lists_disagreements(tmp_path):
    a = write_labels(tmp_path / "a" / "manifest.jsonl", [
        {"path": "p1.html", "main_entity": ["Kettle"]},
        {"path": "p2.html", "main_entity": ["Garden"]},
        {"path": "p3.html", "main_entity": ["Only A"]},
        {"path": "p4.html", "main_entity": [], "skipped": True},
        {"path": "p5.html", "main_entity": []},
    ], extra_lines=["{broken"])
    b = write_labels(tmp_path / "b" / "manifest.jsonl", [
        {"path": "p1.html", "main_entity": ["Kettle"], "note": 1},
        {"path": "p2.html", "main_entity": ["Garden Tools"]},
        {"path": "p3.html", "main_entity": []},
        {"path": "p4.html", "main_entity": ["Only B"]},
        {"path": "p5.html", "main_entity": []},
    ])
    assert read_label_file(a).skipped == frozenset({"p4.html"}) and read_label_file(a).n_bad_lines == 1
    summary = write_agreement_report(a, b, tmp_path / "out")
    assert {key: summary[key] for key in ("n_pages", "n_compared", "n_only_a", "n_only_b", "n_neither",
                                          "n_skipped_a", "n_skipped_b")} == {
        "n_pages": 5, "n_compared": 2, "n_only_a": 1, "n_only_b": 1, "n_neither": 1, "n_skipped_a": 1,
        "n_skipped_b": 0}
    assert summary["exact"] == 0.5 and summary["rouge1_f"] == pytest.approx((1 + 2 / 3) / 2)
    assert summary["exact_low"] <= summary["exact"] <= summary["exact_high"]
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "## Pages where the labels differ (1)" in report and "Garden Tools" in report
    assert "bad lines left out: 1 in A, 0 in B" in report
    per_page = pd.read_csv(tmp_path / "out" / "per_page.csv")
    assert per_page["path"].tolist() == ["p1.html", "p2.html"]


def test_files_of_different_dumps_are_refused(tmp_path):
    a = write_labels(tmp_path / "a.jsonl", [{"path": "x.html", "main_entity": ["X"]}])
    b = write_labels(tmp_path / "b.jsonl", [{"path": "y.html", "main_entity": ["Y"]}])
    with pytest.raises(ValueError, match="share no page path"):
        write_agreement_report(a, b, tmp_path / "out")
    with pytest.raises(FileNotFoundError):
        write_agreement_report(a, tmp_path / "missing.jsonl", tmp_path / "out")


def test_agreement_command(tmp_path, capsys):
    a = write_labels(tmp_path / "a.jsonl", [{"path": "x.html", "main_entity": ["Brass Lamp"]}])
    b = write_labels(tmp_path / "b.jsonl", [{"path": "x.html", "main_entity": ["Brass Desk Lamp"]}])
    assert main(["agreement", str(a), str(b), "-o", str(tmp_path / "out")]) == 0
    assert "1 page labeled in both: exact 0.000, ROUGE-1 F1 0.800" in capsys.readouterr().out
    assert (tmp_path / "out" / "report.md").is_file()
    assert main(["agreement", str(a), str(tmp_path / "none.jsonl")]) == 2
