"""The benchmark runner on the embedded sample shop: same test pages for all, speed, skipped peers."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import SAMPLE_SHOP

from mainentity.cli import main
from mainentity.comparison import compare
from mainentity.comparison.compare import PeakRSS, process_tree_rss_mb, run_benchmark, static_config
from mainentity.config import CleaningConfig, Config, ModelConfig, RenderConfig, load_benchmark_config
from mainentity.pipeline import fit_model
from mainentity.recognizers.peers import PeerUnavailableError, TrafilaturaRecognizer
from mainentity.records import Page, Prediction

pytest.importorskip("matplotlib", reason="the report plots need matplotlib: pip install 'mainentity[report]'")

SYSTEMS = ["msrbfn", "tta", "title-tag", "trafilatura"]


def write_config(tmp_path, render_cache_dir):
    path = tmp_path / "bench.yaml"
    path.write_text(
        "name: tiny\nseed: 3\nn_resamples: 50\n"
        f"results_dir: '{tmp_path / 'results'}'\n"
        f"render: {{cache_dir: '{render_cache_dir}', concurrency: 2}}\n"
        f"datasets: [{{label: sample, datasets: ['{SAMPLE_SHOP}'], split: random, train_fraction: 0.5}}]\n"
        "systems:\n"
        "  - {label: msrbfn, model: {name: msrbfn, params: {m1: 5, m2: 5}}}\n"
        "  - {label: tta, model: {name: tta}}\n"
        "  - {label: title-tag, model: {name: title-tag}}\n"
        "  - {label: trafilatura, model: {name: trafilatura}}\n",
        encoding="utf-8",
    )
    return path


def test_peak_rss_sees_an_allocation():
    with PeakRSS(interval_s=0.001) as memory:
        block = bytearray(64 * 2**20)
        block[:: 4096] = b"x" * len(block[:: 4096])  # touch every page so it is resident
    del block
    assert memory.seconds > 0
    assert memory.peak_mb - memory.start_mb >= 50
    assert process_tree_rss_mb() > 0
    with pytest.raises(ValueError, match="interval_s"):
        PeakRSS(interval_s=0)


def test_unknown_labels_are_errors(tmp_path, render_cache_dir):
    config = load_benchmark_config(write_config(tmp_path, render_cache_dir))
    with pytest.raises(ValueError, match="unknown system label.*msrbfn, tta"):
        run_benchmark(config, systems=["nope"], runs_dir=tmp_path / "runs")
    with pytest.raises(ValueError, match="max_pages must be >= 1"):
        run_benchmark(config, max_pages=0, runs_dir=tmp_path / "runs")


@pytest.mark.parametrize(("system", "message"), [
    ("{label: auto-msrbfn, model: {name: msrbfn}, render_policy: auto}",
     "system 'auto-msrbfn': 'render_policy: auto' applies to a site-level recogniser that renders"),
    ("{label: auto-peer, model: {name: trafilatura}, render_policy: auto}",
     "system 'auto-peer': 'render_policy: auto' applies to a site-level recogniser"),
    ("{label: auto-bad, model: {name: general}, render_policy: auto, static_model: {name: nonsense}}",
     "system 'auto-bad': 'static_model': .*nonsense"),
])
def test_an_auto_system_that_cannot_render_few_stops_the_run_before_any_page(tmp_path, system, message):
    path = tmp_path / "bench.yaml"
    path.write_text(f"datasets: [{{label: sample, datasets: ['{SAMPLE_SHOP}']}}]\nsystems:\n  - {system}\n")
    with pytest.raises(ValueError, match=message):
        run_benchmark(load_benchmark_config(path), runs_dir=tmp_path / "runs")
    assert not (tmp_path / "runs").exists()


@pytest.mark.browser
def test_every_system_is_scored_on_the_same_test_pages(tmp_path, render_cache_dir, monkeypatch):
    def unavailable(self):
        raise PeerUnavailableError("trafilatura is not installed; install it with: pip install trafilatura")

    monkeypatch.setattr(TrafilaturaRecognizer, "check_available", unavailable)
    config = load_benchmark_config(write_config(tmp_path, render_cache_dir))
    out = run_benchmark(config, max_pages=12, command="mainentity benchmark bench.yaml", runs_dir=tmp_path / "runs")

    assert out == tmp_path / "runs" / "tiny"
    committed = tmp_path / "results" / "tiny"
    for directory in (out, committed):
        for name in ("report.md", "report.html", "f1_bars.png", "speed_accuracy.svg", "benchmark_summary.csv",
                     "disagreements.csv", "per_site.csv", "speed.csv"):
            assert (directory / name).is_file(), f"{directory / name} missing"
    assert (out / "per_page.csv").is_file() and not (committed / "per_page.csv").exists()

    per_page = pd.read_csv(out / "per_page.csv", keep_default_na=False)
    pages = {system: set(rows["path"]) for system, rows in per_page.groupby("system")}
    assert set(pages) == {"msrbfn", "tta", "title-tag"}
    assert len(pages["msrbfn"]) == 6  # 12 pages, half of them test pages
    assert pages["msrbfn"] == pages["tta"] == pages["title-tag"]
    assert (per_page["error"] == "").all()

    summary = pd.read_csv(committed / "benchmark_summary.csv")
    assert set(summary["system"]) == {"msrbfn", "tta", "title-tag"}
    assert (summary["n_pages"] == 6).all()
    assert (summary["rouge1_f_low"] <= summary["rouge1_f"]).all()
    assert (summary["rouge1_f"] <= summary["rouge1_f_high"]).all()
    assert (summary["pages_per_s"] > 0).all() and (summary["peak_rss_mb"] > 0).all()
    speed = pd.read_csv(out / "speed.csv")
    assert speed.set_index("system").loc["msrbfn", "n_train_pages"] == 6
    assert speed.set_index("system").loc["tta", "n_train_pages"] == 0

    report = (committed / "report.md").read_text(encoding="utf-8")
    assert "Skipped trafilatura on sample: trafilatura is not installed; install it with: pip install" in report
    assert "mainentity benchmark bench.yaml" in report
    assert "withheld" not in report  # the sample shop is ours: its texts may be committed


@pytest.mark.browser
def test_cli_benchmark_with_a_label_filter(tmp_path, render_cache_dir, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = write_config(tmp_path, render_cache_dir)
    assert main(["benchmark", str(path), "--systems", "title-tag", "tta", "--max-pages", "8"]) == 0
    assert "benchmark report written to runs/tiny" in capsys.readouterr().out
    summary = pd.read_csv(tmp_path / "results" / "tiny" / "benchmark_summary.csv")
    assert sorted(summary["system"]) == ["title-tag", "tta"]
    assert (summary["n_pages"] == 4).all()
    # Run from tmp_path, the sample shop lies outside the working directory: its texts are withheld.
    assert "Gold and predicted texts of sample (third-party content) are withheld" in (
        tmp_path / "results" / "tiny" / "report.md").read_text(encoding="utf-8")
    assert "withheld" not in (tmp_path / "runs" / "tiny" / "report.md").read_text(encoding="utf-8")


#: A general recogniser small enough for a dozen training pages.
TINY_GENERAL = "{name: general, params: {max_iter: 20, min_samples_leaf: 2, n_folds: 2}}"


@pytest.mark.browser
def test_a_system_under_the_auto_render_policy_says_which_path_answered_each_page(tmp_path, render_cache_dir,
                                                                                  monkeypatch):
    path = tmp_path / "bench.yaml"
    path.write_text(
        "name: tiny-auto\nseed: 3\nn_resamples: 50\n"
        f"results_dir: '{tmp_path / 'results'}'\n"
        f"render: {{cache_dir: '{render_cache_dir}', concurrency: 2}}\n"
        "datasets:\n"
        # 6 test pages of one site: a small site (< 10 pages), read statically; 20: a large one, slot transfer
        f"  - {{label: small, datasets: ['{SAMPLE_SHOP}'], split: random, train_fraction: 0.5, max_pages: 12}}\n"
        f"  - {{label: large, datasets: ['{SAMPLE_SHOP}'], split: random, train_fraction: 0.5, max_pages: 40}}\n"
        "systems:\n"
        f"  - {{label: general, model: {TINY_GENERAL}}}\n"
        f"  - {{label: general-auto, model: {TINY_GENERAL}, render_policy: auto, static_model: {TINY_GENERAL}}}\n"
        "  - {label: title-tag, model: {name: title-tag}}\n",
        encoding="utf-8",
    )
    trained = []

    def counting_fit_model(config, *args, **kwargs):
        if config.model.name == "general":  # title-tag is "fitted" too, on no page
            trained.append((config.name, config.render.reader))
        return fit_model(config, *args, **kwargs)

    monkeypatch.setattr(compare, "fit_model", counting_fit_model)
    out = run_benchmark(load_benchmark_config(path), runs_dir=tmp_path / "runs")

    # general's model is trained once per dataset and fold; general-auto trains only its static model
    assert sorted(trained) == [("tiny-auto-large", "chromium"), ("tiny-auto-large-static", "static"),
                               ("tiny-auto-small", "chromium"), ("tiny-auto-small-static", "static")]
    answered = pd.read_csv(tmp_path / "results" / "tiny-auto" / "answered_by.csv").set_index(["dataset", "system"])
    assert answered["n_pages"].to_dict() == {(dataset, system): n for dataset, n in (("large", 20), ("small", 6))
                                             for system in ("general", "general-auto", "title-tag")}
    assert (answered.loc[[("small", "general"), ("large", "general")], "rendered_share"] == 1.0).all()
    assert answered.loc[("small", "general-auto"), ["static", "slot", "rendered"]].tolist() == [6, 0, 0]
    large = answered.loc[("large", "general-auto")]
    assert large["static"] == 0 and large["slot"] == 10 and large["rendered"] + large["scripts"] == 10
    assert answered.loc[("small", "title-tag"), "html"] == 6

    per_page = pd.read_csv(out / "per_page.csv", keep_default_na=False)
    static = per_page[per_page["answered_by"] == "static"]
    assert set(static["system"]) == {"general-auto"} and set(static["score_kind"]) == {"probability"}
    summary = pd.read_csv(out / "benchmark_summary.csv").set_index(["dataset", "system"])
    assert summary.loc[("large", "general-auto"), "n_errors"] == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| small | general-auto | 6 | 6 | 0 | 0 | 0 | 0 | 0 | 0.000 |" in report
    assert "general-auto on small: each fold's model is the one trained for an earlier system" in report


def test_a_static_model_is_trained_on_pages_read_statically():
    config = Config(name="bench-lodo", render=RenderConfig(reader="chromium", timeout_s=7.0),
                    cleaning=CleaningConfig(method="sst"), model=ModelConfig("msrbfn"))
    static = static_config(config, ModelConfig("general", {"max_iter": 20}))
    assert static.name == "bench-lodo-static"
    assert static.model == ModelConfig("general", {"max_iter": 20})
    assert (static.render.reader, static.render.timeout_s, static.cleaning.method) == ("static", 7.0, "none")
    assert static.data == config.data and static.seed == config.seed


def test_kept_peer_answers_are_reused_only_for_the_same_pages_and_version(tmp_path):
    from mainentity.comparison.peer_answers import load_answers, save_answers

    pages = [Page("s", f"{i}.html", f"https://s.example/{i}", f"<title>Tin {i}</title>") for i in range(3)]
    predictions = [Prediction("s", p.path, p.url, f"Tin {i}", error="" if i else "boom", answered_by="html")
                   for i, p in enumerate(pages)]
    save_answers(tmp_path, "lodo-x", "peer", "peer 2.3", pages, predictions, {"pages_per_s": 12.5, "fit_s": 0.0})
    kept, speed = load_answers(tmp_path, "lodo-x", "peer", "peer 2.3", pages)
    assert [(p.main_entity, p.error, p.answered_by) for p in kept] == [("Tin 0", "boom", "html"), ("Tin 1", "", "html"),
                                                                       ("Tin 2", "", "html")]
    assert speed == {"pages_per_s": 12.5, "fit_s": 0.0}
    changed = [pages[0], pages[1], Page("s", "2.html", pages[2].url, "<title>Tin two</title>")]
    assert load_answers(tmp_path, "lodo-x", "peer", "peer 2.3", changed) is None  # a page's HTML changed
    assert load_answers(tmp_path, "lodo-x", "peer", "peer 2.4", pages) is None  # another version of the tool
    assert load_answers(tmp_path, "other", "peer", "peer 2.3", pages) is None  # another dataset label
    kept_file = next(tmp_path.rglob("*.jsonl"))
    rows = [json.loads(line) for line in kept_file.read_text().splitlines()]
    kept_file.write_text("\n".join(json.dumps({k: v for k, v in row.items() if k != "answered_by"}) for row in rows))
    assert load_answers(tmp_path, "lodo-x", "peer", "peer 2.3", pages) is None  # kept before answered_by was


def test_a_baselines_kept_answers_are_keyed_by_its_code(monkeypatch):
    """A baseline of ours has no tool version of its own: its answers are kept under the package's version and a
    digest of its module's code and what that imports, so a baseline changed within one version answers anew
    (the og-title baseline once kept answers from before it read the meta tags' ``value``)."""
    from mainentity import source_digest as digests
    from mainentity.config import SystemConfig
    from mainentity.recognizers.base import make_recognizer

    system = SystemConfig("title-tag", ModelConfig("title-tag"))
    recognizer = make_recognizer("title-tag")
    version = compare._stateless_version(recognizer, system, "none")
    assert version.startswith("mainentity ") and " title-tag " in version
    assert {"mainentity.recognizers.baselines", "mainentity.text"} <= digests.modules_of(type(recognizer).__module__)
    digests.source_digest.cache_clear()
    real_read = digests.Path.read_bytes
    monkeypatch.setattr(digests.Path, "read_bytes", lambda path: real_read(path) + (
        b"# edited" if path.name == "text.py" else b""))
    try:
        assert compare._stateless_version(recognizer, system, "none") != version
    finally:
        digests.source_digest.cache_clear()
    assert compare._stateless_version(recognizer, system, "sst") is None  # a cleaned system is run again
