"""The main job end to end: train, predict and evaluate through the CLI, on the sample and on real pages."""

import dataclasses
import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, SAMPLE_SHOP

from mainentity.cli import main
from mainentity.config import load_config
from mainentity.evaluation.metrics import rouge1
from mainentity.loading import load_pages
from mainentity.pipeline import iter_documents
from mainentity.runs import train

CONFIGS = sorted(path for path in (REPO / "configs").glob("*.yaml") if not path.name.startswith("benchmark"))


def quick_config(path, tmp_path, render_cache_dir, **data):
    """A config file's settings with a small data slice, writing into tmp_path."""
    config = load_config(path)
    datasets = tuple(str(REPO / d) if not Path(d).is_absolute() else d for d in config.data.datasets)
    return dataclasses.replace(
        config,
        data=dataclasses.replace(config.data, datasets=datasets, **data),
        render=dataclasses.replace(config.render, cache_dir=str(render_cache_dir)),
        output=dataclasses.replace(config.output, runs_dir=str(tmp_path / "runs")),
    )


def test_bad_arguments_exit_with_status_2(tmp_path, caplog):
    assert main(["train", str(tmp_path / "missing.yaml")]) == 2
    assert "cannot read config" in caplog.text
    assert main(["predict", str(tmp_path), str(SAMPLE_SHOP), "-o", str(tmp_path / "p.jsonl")]) == 2
    assert "not a model directory" in caplog.text


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"cleaning": {"method": "sst", "params": {"thresold": 0.3}}}, "section 'cleaning': unknown parameter"),
        ({"model": {"name": "msrbnf"}}, "section 'model': unknown model name 'msrbnf'"),
    ],
)
def test_a_bad_model_or_cleaning_fails_before_any_page_is_rendered(tmp_path, monkeypatch, section, message):
    monkeypatch.setenv("MAINENTITY_CHROMIUM", str(tmp_path / "no-chromium"))  # rendering would fail
    config = quick_config(REPO / "configs" / "sample-msrbfn.yaml", tmp_path, tmp_path / "cache")
    config = dataclasses.replace(
        config,
        **{key: dataclasses.replace(getattr(config, key), **value) for key, value in section.items()},
    )
    with pytest.raises(ValueError, match=message):
        train(config)


@pytest.mark.browser
@pytest.mark.parametrize("path", CONFIGS, ids=lambda path: path.stem)
def test_smoke_run_of_every_config_writes_its_run_directory(path, tmp_path, render_cache_dir):
    if "../shared" in path.read_text() and not (REPO.parent / "shared" / "datasets").is_dir():
        pytest.skip("shared datasets not found")
    config = quick_config(path, tmp_path, render_cache_dir, max_pages=6)
    run_dir = train(config)
    held_out = config.data.split != "none" or bool(config.data.test_datasets)
    written = ("model.skops", "config.yaml", "meta.json", *(("predictions.jsonl", "report.md", "summary.csv")
                                                             if held_out else ()))
    for name in written:
        assert (run_dir / name).is_file(), name
    meta = json.loads((run_dir / "meta.json").read_text())
    if not held_out:  # a model to ship: every page trains, nothing is scored
        assert meta["n_train_pages"] == 6 and meta["n_test_pages"] == 0
        assert not (run_dir / "predictions.jsonl").exists()
        return
    assert meta["n_train_pages"] + meta["n_test_pages"] == 6
    assert len((run_dir / "predictions.jsonl").read_text().splitlines()) == meta["n_test_pages"]


@pytest.mark.browser
def test_train_predict_evaluate_on_the_sample_shop(tmp_path, render_cache_dir, caplog):
    caplog.set_level(logging.INFO, logger="mainentity")
    config_path = tmp_path / "sample.yaml"
    config_path.write_text(
        f"defaults: [{REPO / 'configs' / 'sample-msrbfn.yaml'}]\n"
        f"data: {{datasets: ['{SAMPLE_SHOP}']}}\n"
        f"render: {{cache_dir: '{render_cache_dir}'}}\n"
        f"output: {{runs_dir: '{tmp_path / 'runs'}'}}\n"
    )
    assert main(["train", str(config_path)]) == 0
    model_dir = tmp_path / "runs" / "sample-msrbfn"
    coverage = "Incoming anchor texts (ILA): 42 of 42 pages (100.0%) in 1 site have at least one."
    assert coverage in (model_dir / "report.md").read_text() and coverage in caplog.text
    caplog.clear()

    # A copy of the site with two bad pages: the batch goes on and reports them.
    site = tmp_path / "site"
    shutil.copytree(SAMPLE_SHOP / "sites" / "sample-shop", site)
    (site / "manifest.jsonl").unlink()
    (site / "pages" / "empty.html").write_bytes(b"")
    (site / "pages" / "binary.html").write_bytes(bytes(range(256)) * 20)
    out = tmp_path / "predictions.csv"
    assert main(["predict", str(model_dir), str(site), "-o", str(out), "--base-url", "https://shop.example/"]) == 0
    rows = pd.read_csv(out, keep_default_na=False)
    assert len(rows) == 44 and rows["path"].is_unique
    errors = rows.set_index("path")["error"]
    assert "empty" in errors["pages/empty.html"] and errors["pages/binary.html"]
    good = rows[rows["error"] == ""]
    assert len(good) == 42 and (good["main_entity"] != "").all()
    assert coverage in caplog.text  # the two unreadable pages are not pages of the site
    assert (good["width"].astype(float) > 0).all()

    # Running again resumes: nothing new to write; --retry-errors tries the two bad pages again.
    assert main(["predict", str(model_dir), str(site), "-o", str(out), "--base-url", "https://shop.example/"]) == 0
    assert len(pd.read_csv(out)) == 44
    (site / "pages" / "empty.html").write_text("<h1>Now Filled</h1>")
    command = ["predict", str(model_dir), str(site), "-o", str(out), "--base-url", "https://shop.example/"]
    assert main([*command, "--retry-errors"]) == 0
    rows = pd.read_csv(out, keep_default_na=False).set_index("path")
    assert len(rows) == 44 and rows.index.is_unique
    assert (rows.loc["pages/empty.html", "main_entity"], rows.loc["pages/empty.html", "error"]) == ("Now Filled", "")
    assert rows.loc["pages/binary.html", "error"].startswith("not text")

    # The model knows its 28 training pages: evaluating on them warns and says so in the report.
    with pytest.warns(UserWarning, match="28 of the 42 pages were training pages"):
        assert main(["evaluate", str(model_dir), str(SAMPLE_SHOP), "-o", str(tmp_path / "eval")]) == 0
    summary = pd.read_csv(tmp_path / "eval" / "summary.csv")
    assert summary.loc[0, "n_pages"] == 42
    assert coverage in (tmp_path / "eval" / "report.md").read_text()
    assert "28 of the 42 pages were training pages" in (tmp_path / "eval" / "report.md").read_text()


@pytest.mark.browser
@pytest.mark.shared_data
def test_msrbfn_on_real_pages_beats_trivial_baselines(tmp_path, render_cache_dir, shared_datasets):
    """Train on 60 christianbook pages, test on 30; compare with answers that need no learning."""
    config = quick_config(
        REPO / "configs" / "christianbook-msrbfn.yaml", tmp_path, render_cache_dir, max_pages=90
    )
    run_dir = train(config)
    summary = pd.read_csv(run_dir / "summary.csv").iloc[0]

    test_paths = {json.loads(line)["path"] for line in (run_dir / "predictions.jsonl").read_text().splitlines()}
    pages = [p for p in load_pages(config.data.datasets).pages if p.path in test_paths]
    first_block, random_block = [], []
    rng = np.random.default_rng(0)
    for page, document, _ in iter_documents(pages, needs_render=True, render=config.render):
        visible = [block.text for block in document.rendered.blocks if not block.hidden]
        label = page.main_entity[0]
        first_block.append(rouge1(visible[0], label)[2])
        random_block.append(rouge1(visible[rng.integers(len(visible))], label)[2])
    assert len(first_block) == 30
    baseline = max(np.mean(first_block), np.mean(random_block))
    assert summary["rouge1_f"] > baseline + 0.4, (summary["rouge1_f"], baseline)
    assert summary["h_f1"] > 0.5


@pytest.mark.browser
def test_resuming_a_site_level_model_gives_the_rows_of_an_uninterrupted_run(tmp_path, render_cache_dir):
    """The general model profiles every page of a site, also when only some of its rows are missing."""
    from mainentity.model_store import load_trained_model
    from mainentity.runs import predict

    model = load_trained_model(None)
    model_dir = tmp_path / "general"
    shutil.copytree(model.directory, model_dir)
    out = tmp_path / "rows.jsonl"
    assert predict(model_dir, SAMPLE_SHOP, out) == 42
    rows = out.read_text(encoding="utf-8").splitlines()
    kept = [row for i, row in enumerate(rows) if i % 7]  # lose every 7th row, as an interrupted run would
    out.write_text("\n".join(kept) + "\n", encoding="utf-8")
    assert predict(model_dir, SAMPLE_SHOP, out) == 42 - len(kept)
    by_path = lambda lines: {json.loads(line)["path"]: json.loads(line) for line in lines}  # noqa: E731
    assert by_path(out.read_text(encoding="utf-8").splitlines()) == by_path(rows)
