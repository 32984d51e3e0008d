"""The benchmark report: best systems, disagreements, tables, plots, self-contained HTML."""

from __future__ import annotations

import base64
import re
import sys

import pandas as pd
import pytest
from lxml import etree

from mainentity.comparison.comparison_report import (
    ANSWERED_BY_COLUMNS,
    DISAGREEMENT_COLUMNS,
    WITHHELD,
    answered_by_table,
    best_systems,
    find_disagreements,
    rank_systems,
    write_benchmark_report,
)
from mainentity.evaluation.report import concat_per_page, evaluate_predictions
from mainentity.records import Prediction

pytest.importorskip("matplotlib", reason="the report plots need matplotlib: pip install 'mainentity[report]'")

GOLD = {"p1": "Blue Widget", "p2": "Red Gadget", "p3": "Green Gizmo", "p4": "Know Your Bible"}

#: system -> dataset -> page -> prediction (None: an error prediction).
ANSWERS = {
    "msrbfn": {
        "shop": {"p1": "Blue Widget", "p2": "Red Gadget", "p3": "Green Gizmo", "p4": "Home"},
        "news": {"p1": "Blue Widget", "p2": "Red Gadget", "p3": "Green", "p4": "Know Your Bible"},
    },
    "title-tag": {
        "shop": {"p1": "Acme", "p2": "Acme", "p3": "Acme", "p4": "Acme"},
        "news": {"p1": "Acme", "p2": "Acme", "p3": "Acme", "p4": "Acme"},
    },
    "trafilatura": {
        "shop": {"p1": "Blue Widget | Acme", "p2": "Red Gadget", "p3": "Home", "p4": "Know Your Bible"},
        "news": {"p1": "Blue Widget", "p2": None, "p3": "Green Gizmo", "p4": "Know Your Bible"},
    },
    "goose3": {
        "shop": {"p1": "Home", "p2": "Home", "p3": "Home", "p4": "Home"},
        "news": {"p1": "Home", "p2": "Home", "p3": "Home", "p4": "Know Your Bible"},
    },
}


def _per_page(answers=ANSWERS) -> pd.DataFrame:
    frames = []
    for system, by_dataset in answers.items():
        for dataset, pages in by_dataset.items():
            predictions = [
                Prediction(dataset, page, f"http://{dataset}.example/{page}", text or "",
                           error="" if text is not None else "ParserError: Document is empty")
                for page, text in pages.items()
            ]
            labels = {(dataset, page): [gold] for page, gold in GOLD.items()}
            frames.append(evaluate_predictions(predictions, labels, system, dataset))
    return concat_per_page(frames)


SPEED = pd.DataFrame(
    [("msrbfn", "shop", 3.5, 900.0), ("msrbfn", "news", 2.5, 910.0), ("trafilatura", "shop", 30.0, 150.0),
     ("trafilatura", "news", 28.0, 151.0), ("goose3", "shop", 4.0, 200.0), ("goose3", "news", 4.0, 201.0)],
    columns=["system", "dataset", "pages_per_s", "peak_rss_mb"],
)

VERSIONS = {"mainentity": "0.1.0", "trafilatura": "trafilatura 2.3.1", "goose3": "goose3 3.1.22"}
COMMAND = "mainentity benchmark --config configs/benchmark.yaml --out runs/bench <&>"


def test_rank_and_best_systems():
    per_page = _per_page()
    # msrbfn: shop 3/4, news: (1 + 1 + F1("Green", "Green Gizmo") = 2/3 + 1) / 4.
    expected_msrbfn = (0.75 + (3 + 2 / 3) / 4) / 2
    # trafilatura: shop (F1("Blue Widget | Acme", "Blue Widget") = 0.8 + 1 + 0 + 1) / 4; news 3/4 (one error).
    expected_trafilatura = (2.8 / 4 + 0.75) / 2
    scores = rank_systems(per_page)
    assert list(scores.index) == ["msrbfn", "trafilatura", "goose3", "title-tag"]
    assert scores["msrbfn"] == pytest.approx(expected_msrbfn)
    assert scores["trafilatura"] == pytest.approx(expected_trafilatura)
    assert scores["goose3"] == pytest.approx(0.125)
    assert best_systems(per_page) == ("msrbfn", "trafilatura")
    assert best_systems(per_page, peers=["goose3"]) == ("msrbfn", "goose3")
    assert best_systems(per_page[per_page["system"] == "goose3"]) == (None, "goose3")


def test_find_disagreements_orders_by_absolute_difference():
    table = find_disagreements(_per_page(), "msrbfn", "trafilatura", n_pages=4)
    assert list(table.columns) == DISAGREEMENT_COLUMNS
    assert table[["dataset", "path", "difference"]].values.tolist() == [
        ["news", "p2", 1.0],   # trafilatura errored, msrbfn right
        ["shop", "p3", 1.0],   # trafilatura said Home
        ["shop", "p4", 1.0],   # msrbfn said Home
        ["news", "p3", pytest.approx(1 / 3)],
    ]
    first = table.iloc[0]
    assert (first["gold"], first["system_prediction"], first["peer_prediction"]) == (
        "Red Gadget", "Red Gadget", "")
    assert first["peer_error"] == "ParserError: Document is empty"
    assert first["url"] == "http://news.example/p2"
    assert len(find_disagreements(_per_page(), "msrbfn", "trafilatura")) == 8  # every shared page, n <= 20
    with pytest.raises(ValueError, match="n_pages must be >= 0"):
        find_disagreements(_per_page(), "msrbfn", "trafilatura", n_pages=-1)
    with pytest.raises(ValueError, match="lacks column"):
        find_disagreements(_per_page().drop(columns=["gold"]), "msrbfn", "trafilatura")


def test_write_benchmark_report_files_and_tables(tmp_path):
    paths = write_benchmark_report(_per_page(), SPEED, tmp_path / "bench", title="Peers benchmark",
                                   command=COMMAND, versions=VERSIONS, n_resamples=200)
    assert set(paths) == {"report", "html", "f1_bars_svg", "f1_bars_png", "speed_accuracy_svg",
                          "speed_accuracy_png", "disagreements", "summary", "trust", "coverage", "answered_by"}
    assert all(path.is_file() and path.parent == tmp_path / "bench" for path in paths.values())
    for key in ("f1_bars_png", "speed_accuracy_png"):
        assert paths[key].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    markdown = paths["report"].read_text(encoding="utf-8")
    assert markdown.startswith("# Peers benchmark\n")
    assert COMMAND in markdown
    assert "| trafilatura | trafilatura 2.3.1 |" in markdown
    shop = markdown[markdown.index("### shop"):markdown.index("## ROUGE-1 F1 per system")]
    rows = [line for line in shop.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [row.split(" | ")[0][2:] for row in rows] == ["msrbfn", "trafilatura", "goose3", "title-tag"]
    msrbfn = rows[0].split(" | ")
    assert msrbfn[1:4] == ["ours", "4", "0"]
    assert re.fullmatch(r"0\.750 \[0\.\d{3}, 1\.000\]", msrbfn[6])
    assert msrbfn[-2:] == ["3.5", "900.0 |"]
    assert rows[-1].endswith("|  |  |")  # title-tag was not timed
    assert "No speed measurement (left out of the speed plot): title-tag." in markdown
    assert "![Speed vs accuracy](speed_accuracy.png)" in markdown
    assert "msrbfn (our best system) and trafilatura (the best peer)" in markdown

    summary = pd.read_csv(paths["summary"])
    row = summary[(summary["system"] == "trafilatura") & (summary["dataset"] == "news")].iloc[0]
    assert (row["kind"], row["n_errors"], row["rouge1_f"], row["pages_per_s"]) == ("peer", 1, 0.75, 28.0)
    assert row["rouge1_f_low"] <= row["rouge1_f"] <= row["rouge1_f_high"]

    disagreements = pd.read_csv(paths["disagreements"], keep_default_na=False)
    assert list(disagreements.columns) == DISAGREEMENT_COLUMNS and len(disagreements) == 8
    assert disagreements.loc[0, ["dataset", "path", "peer_error"]].tolist() == [
        "news", "p2", "ParserError: Document is empty"]


def test_redacted_datasets_keep_scores_but_no_texts(tmp_path):
    paths = write_benchmark_report(_per_page(), SPEED, tmp_path, title="t", command="c", versions=VERSIONS,
                                   n_resamples=50, redact_datasets=["news"], notes=["Skipped goose3: gone"])
    disagreements = pd.read_csv(paths["disagreements"], keep_default_na=False)
    news = disagreements[disagreements["dataset"] == "news"]
    shop = disagreements[disagreements["dataset"] == "shop"]
    assert len(news) > 0 and len(shop) > 0
    assert (news[["url", "gold", "system_prediction", "peer_prediction"]] == WITHHELD).all().all()
    assert news["path"].tolist() and news["system_rouge1_f"].notna().all()
    assert "Blue Widget" in shop["gold"].tolist() or "Red Gadget" in shop["gold"].tolist()
    markdown = paths["report"].read_text(encoding="utf-8")
    news_rows = [line for line in markdown.splitlines() if line.startswith("| news | news/")]
    assert len(news_rows) == len(news)
    assert all(line.count(WITHHELD) >= 2 and not any(g in line for g in GOLD.values()) for line in news_rows)
    assert "- Skipped goose3: gone" in markdown


def test_report_html_is_self_contained(tmp_path):
    paths = write_benchmark_report(_per_page(), SPEED, tmp_path, title="A <b>bold</b> title",
                                   command=COMMAND, versions=VERSIONS, n_resamples=100)
    page = paths["html"].read_text(encoding="utf-8")
    assert "<title>A &lt;b&gt;bold&lt;/b&gt; title</title>" in page
    assert "--out runs/bench &lt;&amp;&gt;" in page
    sources = re.findall(r'src="([^"]*)"', page)
    assert len(sources) == 2 and all(s.startswith("data:image/svg+xml;base64,") for s in sources)
    assert not re.search(r'(href|src)="(?!data:)', page)  # nothing to fetch, no file next to it needed
    svgs = [base64.b64decode(s.split(",", 1)[1]) for s in sources]
    assert svgs[0] == paths["f1_bars_svg"].read_bytes()
    bars = etree.fromstring(svgs[0])
    assert bars.tag == "{http://www.w3.org/2000/svg}svg"
    texts = " ".join(t.strip() for t in bars.itertext())
    assert "trafilatura (peer)" in texts and "goose3 (peer)" in texts and "msrbfn" in texts
    assert "msrbfn (peer)" not in texts


def test_report_figures_are_reproducible(tmp_path):
    first = write_benchmark_report(_per_page(), SPEED, tmp_path / "a", title="t", command="c",
                                   versions={}, n_resamples=50)
    second = write_benchmark_report(_per_page(), SPEED, tmp_path / "b", title="t", command="c",
                                    versions={}, n_resamples=50)
    for key in ("f1_bars_svg", "speed_accuracy_svg", "summary", "report"):
        assert first[key].read_bytes() == second[key].read_bytes(), key


def test_report_without_peers_has_no_disagreements(tmp_path):
    ours_only = {name: ANSWERS[name] for name in ("msrbfn", "title-tag")}
    paths = write_benchmark_report(_per_page(ours_only), SPEED, tmp_path, title="t", command="c",
                                   versions={}, n_resamples=50)
    assert "No comparison: the results have no peer." in paths["report"].read_text(encoding="utf-8")
    disagreements = pd.read_csv(paths["disagreements"])
    assert list(disagreements.columns) == DISAGREEMENT_COLUMNS and disagreements.empty


def test_report_rejects_bad_inputs(tmp_path):
    with pytest.raises(ValueError, match="speed table lacks column"):
        write_benchmark_report(_per_page(), SPEED.drop(columns=["peak_rss_mb"]), tmp_path, title="t",
                               command="c", versions={})
    with pytest.raises(ValueError, match="more than one row for system/dataset msrbfn/shop"):
        write_benchmark_report(_per_page(), pd.concat([SPEED, SPEED.head(1)]), tmp_path, title="t",
                               command="c", versions={})
    with pytest.raises(ValueError, match="per-page table is empty"):
        write_benchmark_report(_per_page().head(0), SPEED, tmp_path, title="t", command="c", versions={})
    assert not any(tmp_path.iterdir())


def test_missing_matplotlib_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'mainentity\[report\]'"):
        write_benchmark_report(_per_page(), SPEED, tmp_path, title="t", command="c", versions={})


def test_a_system_with_probabilities_gets_coverage_curves_per_dataset(tmp_path):
    per_page = _per_page()
    ours = per_page["system"].eq("msrbfn")
    # msrbfn's scores are probabilities: its wrong shop page (p4) scored 0.3, the rest 0.95
    per_page.loc[ours, "score_kind"] = "probability"
    per_page.loc[ours, "score"] = [0.3 if exact < 1.0 and dataset == "shop" else 0.95
                                   for exact, dataset in zip(per_page.loc[ours, "exact"], per_page.loc[ours, "dataset"],
                                                             strict=True)]
    paths = write_benchmark_report(per_page, SPEED, tmp_path / "bench", title="Peers benchmark",
                                   command=COMMAND, versions=VERSIONS, n_resamples=200)
    assert paths["scores_msrbfn"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    coverage = pd.read_csv(paths["coverage"])
    at_half = coverage[coverage["abstain_below"] == 0.5].set_index("dataset")
    assert set(coverage["system"]) == {"msrbfn"}
    assert at_half.loc["shop", "coverage"] == 0.75 and at_half.loc["shop", "accuracy"] == 1.0  # p4 abstains
    markdown = paths["report"].read_text(encoding="utf-8")
    assert "| msrbfn | shop | 0.75 / 1.000 |" in markdown
    assert "![msrbfn: scores on each dataset](scores-msrbfn.png)" in markdown


def test_answered_by_counts_each_systems_pages_per_path(tmp_path):
    per_page = _per_page()
    per_page["answered_by"] = "html"
    auto = per_page["system"].eq("msrbfn") & per_page["dataset"].eq("shop")
    per_page.loc[auto, "answered_by"] = ["static", "static", "slot", "scripts"]
    per_page.loc[per_page["system"].eq("msrbfn") & per_page["dataset"].eq("news"), "answered_by"] = "rendered"
    per_page.loc[per_page["error"].ne(""), "answered_by"] = ""  # trafilatura's error row on news

    table = answered_by_table(per_page)
    assert list(table.columns) == ANSWERED_BY_COLUMNS
    rows = table.set_index(["dataset", "system"])
    assert rows.loc[("shop", "msrbfn"), ["n_pages", "static", "slot", "rendered", "scripts", "html", "none"]
                    ].tolist() == [4, 2, 1, 0, 1, 0, 0]
    assert rows.loc[("shop", "msrbfn"), "rendered_share"] == 0.25
    assert rows.loc[("news", "msrbfn"), ["rendered", "rendered_share"]].tolist() == [4, 1.0]
    assert rows.loc[("news", "trafilatura"), ["html", "none"]].tolist() == [3, 1]

    paths = write_benchmark_report(per_page, SPEED, tmp_path / "bench", title="t", command="c", versions={},
                                   n_resamples=50)
    written = pd.read_csv(paths["answered_by"])
    assert len(written) == 8 and written["n_pages"].eq(4).all()  # every system on both datasets
    markdown = paths["report"].read_text(encoding="utf-8")
    section = markdown[markdown.index("## Answered by"):markdown.index("## ROUGE-1 F1 per system")]
    # only msrbfn read pages itself; the peers and title-tag (html on every page) are in the CSV only
    assert "| news | msrbfn | 4 | 0 | 0 | 4 | 0 | 0 | 0 | 1.000 |" in section
    assert "| shop | msrbfn | 4 | 2 | 1 | 0 | 1 | 0 | 0 | 0.250 |" in section
    assert "trafilatura" not in section
    assert "<h2>Answered by</h2>" in paths["html"].read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="unknown answered_by value.*teleport"):
        answered_by_table(per_page.assign(answered_by="teleport"))
