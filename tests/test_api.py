"""The Python API: mainentity.extract, load_model -> Model (predict, extract, save, close), page_from_html."""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml
from conftest import REPO, SAMPLE_SHOP

import mainentity
from mainentity import cli
from mainentity.api import Model, load_model
from mainentity.config import Config, ModelConfig
from mainentity.model_store import TrainedModel
from mainentity.prediction_writer import prediction_row
from mainentity.recognizers.base import make_recognizer
from mainentity.records import Page
from mainentity.sitedump import PageReadError, page_from_html

SHOP_SITE = SAMPLE_SHOP / "sites" / "sample-shop"


def shop_pages() -> list[tuple[str, bytes]]:
    """``(url, bytes)`` of every sample-shop page, as a crawler would hold them."""
    rows = [json.loads(line) for line in (SHOP_SITE / "manifest.jsonl").read_text(encoding="utf-8").splitlines()]
    return [(row["url"], (SHOP_SITE / row["path"]).read_bytes()) for row in rows]


def answer_fields(row: dict) -> dict:
    """What a prediction says about a page (not which page): answer, score, box, error."""
    return {key: row[key] for key in ("main_entity", "score", "x", "y", "width", "height", "error")}


# -- pages from memory ---------------------------------------------------------------------------------

def test_page_from_html_names_the_site_by_host_and_a_page_without_url_by_its_digest():
    kettle = page_from_html("<h1>Kettle</h1>", "https://Shop.Example:8080/p/kettle?x=1")
    assert (kettle.site_id, kettle.path, kettle.url) == (
        "shop.example:8080", "/p/kettle?x=1", "https://Shop.Example:8080/p/kettle?x=1")
    a, b = page_from_html("<h1>A</h1>"), page_from_html("<h1>B</h1>")
    assert a.url == b.url == "" and a.site_id != b.site_id and a.path != b.path  # one site each
    based = page_from_html('<base href="https://s.example/a.html"><h1>A</h1>')
    assert (based.site_id, based.url) == ("s.example", "https://s.example/a.html")
    assert page_from_html("<h1>A</h1>", site_id="mine").site_id == "mine"
    assert page_from_html('<meta charset="windows-1252"><h1>caf\xe9</h1>'.encode("cp1252")).html.endswith("café</h1>")


@pytest.mark.parametrize(
    ("html", "url", "error", "message"),
    [
        ("   ", "https://s.example/a", PageReadError, "https://s.example/a: empty page"),
        (b"", None, PageReadError, "<html>: empty page"),
        (b"\x00\x01\x02\x03" * 50, "https://s.example/b", PageReadError, "https://s.example/b: not text"),
        (42, "https://s.example/c", TypeError, "https://s.example/c: html must be str or bytes; got int"),
        ("<h1>A</h1>", b"https://s.example/", TypeError, "url must be a string or None"),
        ("<h1>A</h1>", "http://[::1", PageReadError, "'http://[::1' is not a valid URL: Invalid IPv6 URL"),
    ],
)
def test_page_from_html_refuses_bad_markup_naming_the_page(html, url, error, message):
    with pytest.raises(error, match=re.escape(message)):
        page_from_html(html, url)


@pytest.mark.parametrize("kind", ["bytes", "ascii str", "str over the limit in UTF-8 only"])
def test_page_from_html_refuses_markup_over_the_limit_of_a_page_file(kind):  # what extract and stdin read through
    from mainentity.sitedump import MAX_PAGE_BYTES

    html = {"bytes": lambda: b"<p>" + b"w" * MAX_PAGE_BYTES,
            "ascii str": lambda: "<p>" + "w" * MAX_PAGE_BYTES,
            "str over the limit in UTF-8 only": lambda: "<p>" + "\u00e9" * (MAX_PAGE_BYTES // 2)}[kind]()
    with pytest.raises(PageReadError, match=f"https://s.example/a: over the limit of {MAX_PAGE_BYTES} bytes"):
        page_from_html(html, "https://s.example/a")
    assert page_from_html(html[:MAX_PAGE_BYTES // 2], "https://s.example/a").url == "https://s.example/a"


def test_public_names_are_listed_importable_and_typed():
    for name in mainentity.__all__:
        assert getattr(mainentity, name) is not None, name
    assert {"extract", "load_model", "read_site_dump", "page_from_html", "Model"} <= set(mainentity.__all__)
    assert (REPO / "mainentity" / "py.typed").is_file()
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        mainentity.nothing  # noqa: B018


# -- the model object, without a browser ---------------------------------------------------------------

@pytest.fixture(scope="module")
def general() -> Model:
    return load_model()


def test_fitted_parameters_are_attributes_of_the_model(general):
    assert general.ranker_ is general.recognizer.ranker_
    assert general.n_training_pages_ == general.recognizer.n_training_pages_ > 0
    assert {"ranker_", "calibrator_", "feature_names_"} <= set(dir(general))
    assert general.params["n_top"] == 5 and general.config.model.name == "general"
    with pytest.raises(AttributeError, match="no attribute 'weights_'"):
        general.weights_  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'n_top'"):
        general.n_top  # noqa: B018 - hyper-parameters are in .params, not attributes


def test_predict_refuses_what_is_not_a_batch_of_distinct_pages(general):
    page = Page("s", "a.html", "https://s.example/a.html", "<h1>A</h1>")
    with pytest.raises(TypeError, match=r"pages\[1\] is a tuple, not a Page: .*page_from_html"):
        general.predict([page, ("https://s.example/b.html", "<h1>B</h1>")])
    with pytest.raises(ValueError, match=r"pages\[0\] and pages\[2\] are the same page: site 's', path 'a.html'"):
        general.predict([page, page_from_html("<h1>B</h1>"), page])
    with pytest.raises(ValueError, match="top_k must be an integer >= 0"):
        general.predict([page], top_k=-1)
    for not_an_integer in (True, 2.0):
        with pytest.raises(TypeError, match="top_k must be an integer >= 0"):
            general.predict([page], top_k=not_an_integer)
    with pytest.raises(TypeError, match="model must be a Model"):
        mainentity.extract("<h1>A</h1>", model="general")
    assert general.predict([]) == []
    assert not general.browser_running


def title_tag_model(tmp_path) -> Model:
    """A model whose recogniser reads the HTML only (no browser), saved nowhere."""
    recognizer = make_recognizer("title-tag").fit([])
    return Model(TrainedModel(tmp_path, Config(model=ModelConfig("title-tag")), recognizer, {}))


def test_predict_answers_in_input_order_across_sites_and_cuts_candidates(tmp_path):
    model = title_tag_model(tmp_path)
    pages = [page_from_html(f"<title>Title {i}</title>", f"https://site{i % 2}.example/{i}") for i in range(6)]
    predictions = model.predict(pages, top_k=0)
    assert [p.main_entity for p in predictions] == [f"Title {i}" for i in range(6)]
    assert [p.url for p in predictions] == [page.url for page in pages]
    assert all(p.candidates == () for p in predictions)
    assert {p.answered_by for p in predictions} == {"html"}  # read from its markup by the recogniser itself
    assert not model.browser_running and model._renderer is None  # no page needed rendering


def test_save_writes_a_model_directory_that_loads_with_the_changed_parameters(tmp_path):
    model = load_model()
    model.recognizer.set_params(abstain_below=0.4)
    directory = model.save(tmp_path / "my-general")
    assert sorted(path.name for path in directory.iterdir()) == ["config.yaml", "meta.json", "model.skops"]
    config = yaml.safe_load((directory / "config.yaml").read_text(encoding="utf-8"))
    assert config["model"]["params"]["abstain_below"] == 0.4
    loaded = load_model(directory)
    assert loaded.params == model.params and loaded.params["abstain_below"] == 0.4
    assert loaded.feature_names_ == model.feature_names_
    assert loaded.n_training_candidates_ == model.n_training_candidates_
    assert (directory / "meta.json").read_text(encoding="utf-8") == (
        model.directory / "meta.json").read_text(encoding="utf-8")


def test_abstain_below_edited_in_a_model_directorys_config_is_the_one_the_model_uses(tmp_path):
    directory = tmp_path / "general"
    shutil.copytree(load_model().directory, directory)
    config_path = directory / "config.yaml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    config["model"]["params"]["abstain_below"] = 0.7
    config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
    assert load_model(directory).params["abstain_below"] == 0.7
    config["model"]["params"]["abstain_below"] = 1.5
    config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
    with pytest.raises(ValueError, match=r"config.yaml: model.params.abstain_below must be a probability in "
                                         r"\[0, 1\]; got 1.5"):
        load_model(directory)


def test_abstain_below_on_the_command_line_is_refused_for_a_model_whose_scores_are_not_probabilities(
        tmp_path, caplog):
    directory = title_tag_model(tmp_path).save(tmp_path / "title-tag")
    argv = ["evaluate", str(directory), str(SAMPLE_SHOP), "-o", str(tmp_path / "report"), "--abstain-below", "0.5"]
    assert cli.main(argv) == 2
    assert "--abstain-below: the TitleTagRecognizer model has no abstain_below" in caplog.text
    assert not (tmp_path / "report").exists()


# -- with Chromium -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def general_dir(tmp_path_factory, render_cache_dir) -> Path:
    """A copy of the general model (it renders into the session's per-user render cache, as the CLI does)."""
    directory = tmp_path_factory.mktemp("model") / "general"
    shutil.copytree(load_model().directory, directory)
    return directory


def cli_rows(model_dir: Path, dump: Path, out: Path) -> dict[str, dict]:
    """``mainentity predict MODEL DUMP -o OUT``'s rows by URL."""
    assert cli.main(["predict", str(model_dir), str(dump), "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {row["url"]: row for row in rows}


@pytest.mark.browser
def test_predict_abstains_below_the_command_lines_threshold_and_keeps_the_best_candidate(tmp_path, general_dir):
    page = SAMPLE_SHOP / "sites" / "sample-shop" / "pages" / "index.html"  # the home page: a doubtful answer
    out = tmp_path / "rows.jsonl"

    def row(*options: str) -> dict:
        argv = ["predict", str(general_dir), str(page), "-o", str(out), "--render", "always", "--overwrite"]
        assert cli.main([*argv, *options]) == 0
        [written] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        return written

    answered = row()
    assert answered["main_entity"] == answered["best_candidate"] == "Harbor Lane Goods" and answered["score"] < 1.0
    assert row("--abstain-below", str(answered["score"])) == answered  # abstains below, not at, the threshold
    abstained = row("--abstain-below", str(answered["score"] + 1e-6))
    assert abstained == {**answered, "main_entity": ""}  # the text kept in best_candidate


@pytest.mark.browser
def test_evaluate_abstaining_writes_best_candidate_and_score_kind_and_records_its_model(tmp_path, general_dir):
    """``evaluate --abstain-below``: per_page.csv has the columns of a predict row that say what an abstaining
    page would have been given and what its score is; the report records the model that wrote it."""
    import pandas as pd

    from mainentity.prediction_writer import model_sidecar

    out = tmp_path / "report"
    argv = ["evaluate", str(general_dir), str(SAMPLE_SHOP), "-o", str(out), "--max-pages", "4", "--abstain-below", "1"]
    assert cli.main(argv) == 0
    per_page = pd.read_csv(out / "per_page.csv", keep_default_na=False)
    assert len(per_page) == 4 and set(per_page["score_kind"]) == {"probability"}
    abstained = per_page[per_page["score"] < 1]
    assert len(abstained) and set(abstained["prediction"]) == {""} and all(abstained["best_candidate"])
    assert json.loads(model_sidecar(out / "per_page.csv").read_text())["directory"] == str(general_dir)
    assert cli.main(argv) == 0  # the same model replaces its own report


@pytest.mark.browser
def test_extract_answers_as_the_cli_on_a_dump_of_that_page_alone(tmp_path, general_dir):
    """Every sample-shop page, one extract call each, against `mainentity predict` on a dataset whose
    sites hold one of those pages each (its HTML only, as extract is given)."""
    fetched = shop_pages()
    for i, (url, html) in enumerate(fetched):
        site = tmp_path / "dataset" / "sites" / f"page-{i:02d}"
        site.mkdir(parents=True)
        (site / "page.html").write_bytes(html)
        (site / "manifest.jsonl").write_text(json.dumps({"path": "page.html", "url": url}) + "\n", encoding="utf-8")
    expected = cli_rows(general_dir, tmp_path / "dataset", tmp_path / "cli.jsonl")
    with load_model(general_dir) as model:
        extracted = {url: mainentity.extract(html, url, model=model) for url, html in fetched}
    assert len(extracted) == len(expected) == 42
    assert sum(bool(p.main_entity) for p in extracted.values()) == 42
    for url, prediction in extracted.items():
        assert answer_fields(prediction_row(prediction)) == answer_fields(expected[url]), url


@pytest.mark.browser
@pytest.mark.shared_data
def test_predict_on_100_pages_answers_as_the_cli(tmp_path, general_dir, shared_datasets):
    """100 christianbook pages (the sample shop has 42) as one site dump: `Model.predict` on the dump's
    pages gives the CLI's rows, and on the same pages built in memory from (url, html) the same answers.
    Pages from memory are other pages to the sampler (named by their URLs, not their dump paths), so
    another sample is rendered: a page both runs rendered has the same row; any other the same answer."""
    source = shared_datasets / "swde-book-christianbook" / "sites" / "christianbook"
    lines = (source / "manifest.jsonl").read_text(encoding="utf-8").splitlines()[:100]
    dump = tmp_path / "christianbook-100"
    for line in lines:
        path = json.loads(line)["path"]
        (dump / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / path, dump / path)
    (dump / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = cli_rows(general_dir, dump, tmp_path / "cli.jsonl")

    site = mainentity.read_site_dump(dump)
    fetched = [(page.url, (dump / page.path).read_bytes()) for page in site.pages]
    with load_model(general_dir) as model:
        from_dump = model.predict(site)
        from_memory = model.predict([page_from_html(html, url) for url, html in fetched])
    assert len(from_dump) == len(from_memory) == len(expected) == 100
    assert [p.path for p in from_dump] == [page.path for page in site.pages]  # input order
    assert sum(bool(p.main_entity) for p in from_dump) >= 95
    for dump_prediction, memory_prediction in zip(from_dump, from_memory, strict=True):
        row = expected[dump_prediction.url]
        assert prediction_row(dump_prediction) == row
        from_memory_row = prediction_row(memory_prediction)
        fields = (answer_fields if from_memory_row["answered_by"] == row["answered_by"] == "rendered"
                  else lambda row: (row["main_entity"], row["error"]))
        assert fields(from_memory_row) == fields(row), dump_prediction.url


def descendants() -> set[int]:
    """PIDs of this process's live descendants (Linux /proc)."""
    found, stack = set(), [os.getpid()]
    while stack:
        for task in Path(f"/proc/{stack.pop()}/task").glob("*"):
            try:
                children = [int(pid) for pid in (task / "children").read_text().split()]
            except OSError:
                continue
            stack.extend(children)
            found.update(children)
    return found


@pytest.mark.browser
def test_a_second_extract_reuses_the_browser_and_close_ends_it(tmp_path, monkeypatch):
    from mainentity.render.browser import Renderer

    if not Path("/proc/self/task").is_dir():
        pytest.skip("needs /proc")
    launches = []
    launch = Renderer._launch

    async def counting_launch(self):
        launches.append(self.settings.executable_path)
        await launch(self)

    monkeypatch.setattr(Renderer, "_launch", counting_launch)
    (url_a, html_a), (url_b, html_b) = shop_pages()[3:5]
    before = descendants()
    # every page is a cache miss, and rendered (auto would answer these pages from their HTML)
    model = load_model(cache_dir=tmp_path / "cold-cache", render_policy="always")
    with model:
        first = model.extract(html_a, url_a)
        assert model.browser_running and len(descendants() - before) >= 2  # Playwright's driver and Chromium
        second = model.extract(html_b, url_b)
        assert len(launches) == 1, "the second page was rendered in the browser the first one started"
    assert not model.browser_running
    assert descendants() - before == set(), "close() left processes running"
    assert (first.main_entity, second.main_entity) == ("Lighting", "Textiles")
    assert model.extract(html_a, url_a).main_entity == first.main_entity  # the cache: no browser needed
    assert len(launches) == 1 and not model.browser_running
    url_c, html_c = shop_pages()[5]
    with model:  # a closed model starts a new browser when a page needs one
        assert model.extract(html_c, url_c).main_entity and model.browser_running
    assert len(launches) == 2 and not model.browser_running


@pytest.mark.browser
def test_calls_from_several_threads_take_turns_and_answer_as_one_thread(general_dir):
    fetched = shop_pages()[:8]
    with load_model(general_dir) as model:
        alone = [model.extract(html, url) for url, html in fetched]
        threads_seen = set()

        def extract(item):
            threads_seen.add(threading.get_ident())
            return model.extract(item[1], item[0])

        with ThreadPoolExecutor(max_workers=4) as pool:
            together = list(pool.map(extract, fetched))
        batch = model.predict([page_from_html(html, url) for url, html in fetched])
    assert len(threads_seen) > 1
    assert [prediction_row(p) for p in together] == [prediction_row(p) for p in alone]
    assert all(p.main_entity for p in batch)  # the same pages as one site: site evidence, same model, no error
