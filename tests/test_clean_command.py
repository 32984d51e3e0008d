"""``mainentity clean --report``: per-site noisy nodes with sample text, on the embedded sample shop."""

import re

import pytest
from conftest import SAMPLE_SHOP

from mainentity import cli
from mainentity.runs import clean_report


def _noisy_rows(report: str) -> list[str]:
    """The table rows of the noisy-node section (up to the next heading)."""
    section = report.split("### Noisy nodes", 1)[1].split("\n### ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| `")]


@pytest.mark.browser
def test_clean_sst_report_names_noisy_nodes_with_sample_text(tmp_path, render_cache_dir):
    report_path = tmp_path / "sst.md"
    status = cli.main([
        "clean", str(SAMPLE_SHOP), "--method", "sst", "--param", "threshold=0.3",
        "--cache-dir", str(render_cache_dir), "--report", str(report_path),
    ])
    assert status == 0
    report = report_path.read_text(encoding="utf-8")
    assert "## Site `sample-shop`: SiteStyleTreeCleaner" in report
    assert "at threshold t = 0.3." in report
    removed, total = map(int, re.search(r"Removes (\d+) of (\d+) text blocks", report).groups())
    assert 0 < removed < total
    rows = _noisy_rows(report)
    # The footer is the same on every page: CompImp 0, removed, shown with its text.
    footer = [row for row in rows if row.startswith("| `html > body > div.foot`")]
    assert footer and "Shipping Returns About us" in footer[0]
    # Every noisy row is below t and carries sample text.
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert float(cells[3]) < 0.3 and cells[5]
    # The promo banner (max_imp between 0.3 and 0.5 on this site) is not noisy at t = 0.3 ...
    assert not any("div.promo" in row for row in rows)
    # ... but listed among the kept nodes a higher t would remove next.
    assert "div.promo" in report.split("### Kept nodes", 1)[1]


@pytest.mark.browser
def test_clean_infodiscoverer_report_lists_redundant_blocks(render_cache_dir):
    from mainentity.config import RenderConfig

    report = clean_report(SAMPLE_SHOP, "infodiscoverer", {}, RenderConfig(cache_dir=str(render_cache_dir)))
    assert "InfoDiscovererCleaner" in report and "(chosen automatically)" in report
    section = report.split("### Content blocks most often redundant", 1)[1]
    # The site navigation is on every page: redundant everywhere, with its words as sample text.
    nav = [line for line in section.splitlines() if "Home Kitchen Garden" in line]
    assert nav and nav[0].split("|")[4].strip() == "1.00"


def test_clean_rejects_a_malformed_param(tmp_path, render_cache_dir):
    status = cli.main([
        "clean", str(SAMPLE_SHOP), "--method", "sst", "--param", "threshold",
        "--cache-dir", str(render_cache_dir), "--report", str(tmp_path / "r.md"),
    ])
    assert status == 2 and not (tmp_path / "r.md").exists()
