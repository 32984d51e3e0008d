"""Tests of mainentity.evaluation.report: per-page tables, summaries, per-site breakdown, files."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from mainentity.evaluation.metrics import SCORE_KEYS
from mainentity.evaluation.report import (
    NO_PREDICTION,
    PER_PAGE_COLUMNS,
    SUMMARY_METRICS,
    concat_per_page,
    evaluate_predictions,
    markdown_table,
    page_labels,
    per_site,
    screenshot_name,
    summarize,
    worst_pages,
    write_report,
)
from mainentity.records import Page, Prediction

LABELS = {
    ("shop.example", "pages/1.htm"): ("Holy Bible", "The Holy Bible, KJV"),
    ("shop.example", "pages/2.htm"): ("Psalms",),
    ("shop.example", "pages/3.htm"): ("Proverbs",),
    ("news.example", "a.html"): ("Storm hits coast",),
    ("news.example", "b.html"): (),  # unlabeled
}


def _predictions():
    return [
        # exact, H = {match, non-match}: P_H = 1/2, R_H = 1
        Prediction("shop.example", "pages/1.htm", "http://shop/1", "The Holy Bible, KJV",
                   candidates=("The Holy Bible, KJV", "Home")),
        # wrong top block, but H holds the label: P_H = 1/3, R_H = 1
        Prediction("shop.example", "pages/2.htm", "http://shop/2", "Psalms of David",
                   candidates=("Psalms of David", "psalms", "Cart")),
        # failed page: zeros
        Prediction("shop.example", "pages/3.htm", "http://shop/3", error="render timeout after 30 s"),
        # unlabeled page: left out
        Prediction("news.example", "b.html", "http://news/b", "Whatever"),
        # ("news.example", "a.html") has no prediction: zeros, error "no prediction"
    ]


@pytest.fixture
def per_page():
    return evaluate_predictions(_predictions(), LABELS, system="msrbfn", dataset="toy")


def test_per_page_schema_and_rows(per_page):
    assert list(per_page.columns) == PER_PAGE_COLUMNS
    assert list(zip(per_page["site_id"], per_page["path"], strict=True)) == [
        ("shop.example", "pages/1.htm"), ("shop.example", "pages/2.htm"), ("shop.example", "pages/3.htm"),
        ("news.example", "a.html"),
    ]
    assert set(per_page["system"]) == {"msrbfn"} and set(per_page["dataset"]) == {"toy"}
    first = per_page.iloc[0]
    assert first["gold"] == "The Holy Bible, KJV"  # best alternative
    assert first["exact"] == 1.0 and first["rouge1_f"] == 1.0
    assert (first["h_precision"], first["h_recall"]) == (0.5, 1.0)
    assert first["n_candidates"] == 2
    second = per_page.iloc[1]
    assert second["rouge1_p"] == pytest.approx(1 / 3) and second["rouge1_r"] == 1.0
    assert second["h_precision"] == pytest.approx(1 / 3) and second["h_recall"] == 1.0


def test_a_page_that_abstained_keeps_its_best_candidate_and_score_kind_as_a_predict_row(tmp_path):
    """As in ``predict`` rows: the text the page would have been given, and what its score is."""
    from mainentity.prediction_writer import prediction_row

    abstained = Prediction("s", "p", "u", "", 0.25, candidates=("Psalms", "Home"), score_kind="probability")
    row = evaluate_predictions([abstained], {("s", "p"): ["Psalms"]}).iloc[0]
    assert (row["prediction"], row["best_candidate"], row["score_kind"], row["exact"]) == (
        "", "Psalms", "probability", 0.0)
    assert (row["best_candidate"], row["score_kind"]) == (
        prediction_row(abstained)["best_candidate"], prediction_row(abstained)["score_kind"])
    paths = write_report(evaluate_predictions([abstained], {("s", "p"): ["Psalms"]}), tmp_path, title="t")
    written = pd.read_csv(paths["per_page"], keep_default_na=False).iloc[0]
    assert (written["best_candidate"], written["score_kind"]) == ("Psalms", "probability")


def test_pages_answered_with_nothing_are_counted_apart_from_errors():
    """An abstention is no error, but it scores 0: the summary counts it, so that a report's figures add up."""
    preds = [Prediction("s", "1", "u", "", 0.25, candidates=("Psalms",), score_kind="probability"),
             Prediction("s", "2", "u", "Psalms", 0.9, candidates=("Psalms",)),
             Prediction("s", "3", "u", "", error="render timeout after 30 s")]
    per_page = evaluate_predictions(preds, {("s", p): ["Psalms"] for p in "123"}, "m", "d")
    row = summarize(per_page).iloc[0]
    assert (row["n_pages"], row["n_errors"], row["n_abstained"], row["exact"]) == (3, 1, 1, pytest.approx(1 / 3))


def test_error_and_missing_prediction_rows_are_zero(per_page):
    failed = per_page[per_page["path"] == "pages/3.htm"].iloc[0]
    missing = per_page[per_page["path"] == "a.html"].iloc[0]
    assert failed["error"] == "render timeout after 30 s"
    assert missing["error"] == NO_PREDICTION
    assert missing["gold"] == "Storm hits coast"
    for row in (failed, missing):
        assert [row[k] for k in SCORE_KEYS] == [0.0] * len(SCORE_KEYS)


def test_error_prediction_scores_zero_even_with_a_correct_text():
    preds = [Prediction("s", "p", "u", "Psalms", candidates=("Psalms",), error="late failure")]
    row = evaluate_predictions(preds, {("s", "p"): ["Psalms"]}).iloc[0]
    assert [row[k] for k in SCORE_KEYS] == [0.0] * len(SCORE_KEYS)


def test_unlabeled_pages_are_excluded_and_listed(per_page):
    assert "b.html" not in set(per_page["path"])
    assert per_page.attrs["unlabeled"] == [("msrbfn", "toy", "news.example", "b.html")]
    # a prediction for a page the labels do not know is unlabeled too
    df = evaluate_predictions([Prediction("x", "y", "u", "T")], {}, "s", "d")
    assert len(df) == 0 and list(df.columns) == PER_PAGE_COLUMNS
    assert df.attrs["unlabeled"] == [("s", "d", "x", "y")]


def test_duplicate_predictions_are_rejected():
    preds = [Prediction("s", "p", "u", "A"), Prediction("s", "p", "u", "B")]
    with pytest.raises(ValueError, match="two predictions for page s/p"):
        evaluate_predictions(preds, {("s", "p"): ["A"]})


def test_page_labels():
    pages = [Page("s", "1.htm", "u", "<p/>", ("A", "a")), Page("s", "2.htm", "u", "<p/>")]
    assert page_labels(pages) == {("s", "1.htm"): ("A", "a"), ("s", "2.htm"): ()}


def test_summarize_values(per_page):
    summary = summarize(per_page)
    assert list(summary.columns) == ["system", "dataset", "n_pages", "n_errors", "n_abstained", "n_unlabeled",
                                     *SUMMARY_METRICS]
    row = summary.iloc[0]
    assert (row["n_pages"], row["n_errors"], row["n_unlabeled"]) == (4, 2, 1)
    assert row["exact"] == pytest.approx(1 / 4)
    assert row["rouge1_p"] == pytest.approx((1 + 1 / 3) / 4)
    # macro P_H = (1/2 + 1/3) / 4, macro R_H = 2/4; F1 of the averages vs mean of per-page F1s
    p, r = (1 / 2 + 1 / 3) / 4, 2 / 4
    assert row["h_precision"] == pytest.approx(p)
    assert row["h_recall"] == pytest.approx(r)
    assert row["h_f1"] == pytest.approx(2 * p * r / (p + r))
    assert row["h_f1_mean"] == pytest.approx((2 / 3 + 0.5) / 4)
    assert row["h_f1"] != pytest.approx(row["h_f1_mean"])


def test_per_site_breakdown(per_page):
    sites = per_site(per_page)
    assert list(sites["site_id"]) == ["news.example", "shop.example"]
    news, shop = sites.iloc[0], sites.iloc[1]
    assert (news["n_pages"], news["n_errors"], news["n_unlabeled"]) == (1, 1, 1)
    assert news["rouge1_f"] == 0.0
    assert (shop["n_pages"], shop["n_errors"], shop["n_unlabeled"]) == (3, 1, 0)
    assert shop["exact"] == pytest.approx(1 / 3)


def test_site_with_only_unlabeled_pages_gets_empty_row():
    df = evaluate_predictions([Prediction("a", "1", "u", "X"), Prediction("b", "1", "u", "Y")],
                              {("a", "1"): ["x"]})
    sites = per_site(df)
    only_unlabeled = sites[sites["site_id"] == "b"].iloc[0]
    assert (only_unlabeled["n_pages"], only_unlabeled["n_unlabeled"]) == (0, 1)
    assert math.isnan(only_unlabeled["rouge1_f"]) and math.isnan(only_unlabeled["h_f1"])


def test_concat_keeps_unlabeled_and_summarize_by_system(per_page):
    other = evaluate_predictions([Prediction("shop.example", "pages/2.htm", "u", "Psalms")], LABELS,
                                 system="title", dataset="toy")
    combined = concat_per_page([per_page, other])
    summary = summarize(combined)
    assert list(summary["system"]) == ["msrbfn", "title"]
    title = summary[summary["system"] == "title"].iloc[0]
    # title answered one of four labeled pages exactly; the other three are "no prediction"
    assert (title["n_pages"], title["n_errors"], title["n_unlabeled"]) == (4, 3, 0)
    assert title["exact"] == pytest.approx(0.25)
    assert summary[summary["system"] == "msrbfn"].iloc[0]["n_unlabeled"] == 1
    with pytest.raises(ValueError, match="at least one"):
        concat_per_page([])


def test_summarize_after_csv_round_trip(per_page, tmp_path):
    per_page.to_csv(tmp_path / "p.csv", index=False)
    back = pd.read_csv(tmp_path / "p.csv")
    summary = summarize(back)
    assert "n_unlabeled" not in summary.columns  # unknown once the attrs are gone
    assert summary.iloc[0]["n_errors"] == 2
    assert summary.iloc[0]["exact"] == pytest.approx(0.25)


def test_summarize_rejects_missing_columns(per_page):
    with pytest.raises(ValueError, match="lacks column"):
        summarize(per_page.drop(columns=["jaccard"]))
    with pytest.raises(ValueError, match="no_such"):
        summarize(per_page, by=["no_such"])


def test_markdown_table():
    df = pd.DataFrame({"site": ["a|b", "c\nd"], "n": [3, 4], "f1": [0.12345, float("nan")]})
    assert markdown_table(df).splitlines() == [
        "| site | n | f1 |",
        "| --- | ---: | ---: |",
        "| a\\|b | 3 | 0.123 |",
        "| c d | 4 |  |",
    ]
    assert "0.12" in markdown_table(df, floatfmt=".2f")


def test_write_report_files(per_page, tmp_path):
    out = tmp_path / "run" / "eval"
    paths = write_report(per_page, out, title="MS-RBFN on toy", notes=["trained on 3 pages"])
    assert set(paths) == {"report", "html", "per_page", "summary", "per_site"}
    assert sorted(p.name for p in out.iterdir()) == ["per_page.csv", "per_site.csv", "report.html", "report.md",
                                                     "summary.csv"]  # no temporary files left
    assert list(pd.read_csv(paths["per_page"]).columns) == PER_PAGE_COLUMNS
    summary = pd.read_csv(paths["summary"])
    assert list(summary.columns) == ["system", "dataset", "n_pages", "n_errors", "n_abstained", "n_unlabeled",
                                     *SUMMARY_METRICS]
    sites = pd.read_csv(paths["per_site"])
    assert list(sites["site_id"]) == ["news.example", "shop.example"]
    report = paths["report"].read_text(encoding="utf-8")
    assert report.startswith("# MS-RBFN on toy\n")
    overall, per_site_part = report.split("## Per site")
    assert "| msrbfn | toy | 4 | 2 | 0 | 1 |" in overall
    site_lines = [line for line in per_site_part.splitlines() if line.startswith("| msrbfn")]
    assert [line.split(" | ")[2] for line in site_lines] == ["news.example", "shop.example"]
    assert "- trained on 3 pages" in report
    assert "h_f1 = 2PR/(P+R)" in report
    # rewriting replaces the files
    write_report(per_page.iloc[:1], out, title="again")
    assert paths["report"].read_text(encoding="utf-8").startswith("# again\n")
    assert len(pd.read_csv(paths["per_page"])) == 1


def test_a_report_with_one_wrong_page_says_so_in_the_singular(tmp_path):
    preds = [Prediction("s", "1", "u", "Psalms"), Prediction("s", "2", "u", "Home")]
    per_page = evaluate_predictions(preds, {("s", "1"): ["Psalms"], ("s", "2"): ["Proverbs"]}, "m", "d")
    report = write_report(per_page, tmp_path, title="one")["report"].read_text(encoding="utf-8")
    assert "The one labeled page with a ROUGE-1 F1 under 1 or an error:" in report
    assert "The 1 labeled pages" not in report


def test_the_report_leads_with_the_worst_pages_and_sites(per_page, tmp_path):
    worst = worst_pages(per_page)
    assert list(zip(worst["path"], worst["rouge1_f"], strict=True)) == [
        ("a.html", 0.0), ("pages/3.htm", 0.0), ("pages/2.htm", pytest.approx(0.5))]  # errors first
    scored = per_page.assign(score=[0.9, 0.2, float("nan"), 1.874],  # a raw score and an error: left out
                             site_id=per_page["site_id"].replace("news.example", "zeta.example"))
    report = write_report(scored, tmp_path, title="t", probability_scores=True)["report"].read_text(encoding="utf-8")
    assert "## Per site, worst first" in report and "## Worst pages" in report  # sites by F1: 0, 0.5, unlabeled
    site_lines = [line for line in report.split("## Per site")[1].splitlines() if line.startswith("| msrbfn")]
    assert [line.split(" | ")[2] for line in site_lines] == ["zeta.example", "shop.example", "news.example"]
    assert "- 2 of the 4 pages are left out of the reliability table" in report
    assert "n_errors: those with a prediction error" in report


def test_write_report_shows_confidence_intervals(per_page, tmp_path):
    summary = summarize(per_page)
    for metric in SUMMARY_METRICS:
        summary[f"{metric}_low"] = summary[metric] - 0.1
        summary[f"{metric}_high"] = summary[metric] + 0.1
    summary.attrs["confidence"] = 0.9
    paths = write_report(per_page, tmp_path, title="t", summary=summary)
    report = paths["report"].read_text(encoding="utf-8")
    assert "| 0.250 [0.150, 0.350] |" in report  # exact match with its interval
    assert "90% bootstrap" in report
    assert "exact_low" in pd.read_csv(paths["summary"]).columns


def test_a_report_of_probabilities_gives_ece_the_reliability_table_and_diagram(tmp_path):
    predictions = [Prediction("s.example", f"{i}.html", f"http://s/{i}", "Right" if i < 3 else "Wrong", score=score)
                   for i, score in enumerate([0.95, 0.95, 0.15, 0.15])]
    labels = {("s.example", f"{i}.html"): ("Right",) for i in range(4)}
    per_page = evaluate_predictions(predictions, labels, system="general", dataset="toy")
    paths = write_report(per_page, tmp_path, title="t", probability_scores=True)
    report = paths["report"].read_text(encoding="utf-8")
    # bins 0.9-1.0 (2 right, mean 0.95) and 0.1-0.2 (1 right of 2, mean 0.15): ECE (0.05 * 2 + 0.35 * 2) / 4
    assert "**0.200**" in report
    assert "| 0.9-1.0 | 2 | 0.950 | 1.000 |" in report and "| 0.1-0.2 | 2 | 0.150 | 0.500 |" in report
    # abstaining below 0.5 answers the two pages scored 0.95, both right; below 0, all four, 3 of them right
    assert "| 0.000 | 4 | 1.000 | 0.750 |" in report and "| 0.500 | 2 | 0.500 | 1.000 |" in report
    pytest.importorskip("matplotlib")
    assert paths["reliability"] == tmp_path / "reliability.png"
    assert paths["reliability"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "](reliability.png)" in report
    assert paths["coverage"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "](coverage.png)" in report


def test_a_report_of_scores_that_are_not_probabilities_has_no_reliability_table(per_page, tmp_path):
    paths = write_report(per_page, tmp_path, title="t")
    report = paths["report"].read_text(encoding="utf-8")
    assert "scores are not probabilities" in report and "| bin |" not in report and "abstain_below" not in report
    assert not (tmp_path / "reliability.png").exists() and not (tmp_path / "coverage.png").exists()


def test_the_html_report_has_the_sections_embeds_the_figures_and_links_the_screenshots(tmp_path):
    """report.html beside report.md: the same headings and tables, reliability.png embedded (no file
    needed beside the page), a worst page's screenshot linked when it is in the report's directory."""
    predictions = [Prediction("s.example", f"{i}.html", f"http://s/{i}", "Right" if i < 3 else "Wrong <b>", score=s)
                   for i, s in enumerate([0.95, 0.95, 0.15, 0.15])]
    labels = {("s.example", f"{i}.html"): ("Right",) for i in range(4)}
    per_page = evaluate_predictions(predictions, labels, system="general", dataset="toy")
    shot = tmp_path / screenshot_name("s.example", "3.html")
    shot.parent.mkdir()
    shot.write_bytes(b"\x89PNG\r\n\x1a\n")
    paths = write_report(per_page, tmp_path, title="general on toy", probability_scores=True)
    report, page = paths["report"].read_text(encoding="utf-8"), paths["html"].read_text(encoding="utf-8")
    assert "[png](screenshots/s.example_3.html.png)" in report
    assert '<a href="screenshots/s.example_3.html.png">png</a>' in page
    assert page.startswith("<!DOCTYPE html>") and "<title>general on toy</title>" in page
    for heading in ("Overall", "Per site, worst first", "Worst pages", "Reliability of the scores", "Notes"):
        assert f"\n## {heading}\n" in report and f"<h2>{heading}</h2>" in page
    assert "<td>Wrong &lt;b&gt;</td>" in page and "<b>" not in page  # cells escaped
    assert "<strong>0.200</strong>" in page  # the ECE, bold in report.md
    if "reliability" in paths:  # drawn when matplotlib is installed: embedded, not linked
        assert 'alt="reliability diagram" src="data:image/png;base64,iVBOR' in page
    if "coverage" in paths:
        assert page.count('src="data:image/png;base64,iVBOR') == 2
    # overall, per site, worst pages, reliability bins, coverage when abstaining
    assert page.count("<table>") == sum(line.startswith("| ---") for line in report.splitlines()) == 5
