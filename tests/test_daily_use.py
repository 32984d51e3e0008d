"""Daily use of the command: early errors, single pages and pipes, the model an output records, headlines."""

import dataclasses
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import REPO, SAMPLE_SHOP

from mainentity import cli, runs
from mainentity.loading import is_page_input, load_inputs
from mainentity.prediction_writer import PredictionWriter, model_identity, model_sidecar, record_model
from mainentity.records import Prediction

PAGE = SAMPLE_SHOP / "sites" / "sample-shop" / "pages"


@pytest.fixture
def no_slow_work(monkeypatch):
    """Any model load or run fails the test: the errors under test must come before them."""
    def slow(*args, **kwargs):
        pytest.fail("the model or the inputs were loaded before the arguments were checked")

    for name in ("predict", "evaluate", "train", "load_trained_model"):
        monkeypatch.setattr(runs, name, slow)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["predict", str(SAMPLE_SHOP), "-o", "x.txt"], "output x.txt must end in .jsonl or .csv"),
        (["predict", "nope.html"], "input 'nope.html' does not exist"),
        (["predict", "general", str(SAMPLE_SHOP), "nope-dump"], "input 'nope-dump' does not exist"),
        (["evaluate", "general", "nope"], "dataset 'nope' does not exist"),
        (["predict", str(SAMPLE_SHOP), "--abstain-below", "1.5"], "--abstain-below must be a probability in [0, 1]"),
        (["evaluate", str(SAMPLE_SHOP), "--abstain-below", "-0.1"], "got -0.1"),
        (["explain", "nope.html", "-o", "a.png"], "page 'nope.html' does not exist"),
        (["explain", "general", str(next(PAGE.glob("*.html"))), "-o", "a.jpg"], "the output must end in .png"),
        (["clean", "nope", "--method", "sst", "--report", "r.md"], "site dump 'nope' does not exist"),
        (["explain", *sorted(map(str, (PAGE / "p").glob("*.html")))[:2], "-o", "a.png"],
         "explain takes one PAGE (after an optional MODEL); got 2 paths"),
        (["explain", "general", *sorted(map(str, (PAGE / "p").glob("*.html")))[:2], "-o", "a.png"], "got 3 paths"),
        (["evaluate", str(SAMPLE_SHOP), str(SAMPLE_SHOP)], "evaluate takes one DATASET (after an optional MODEL)"),
        # each was taken: "not a url/a.html" as the pages' URLs, every page an error row, a bare "Invalid IPv6 URL"
        (["predict", str(SAMPLE_SHOP), "--base-url", "not a url"], "--base-url 'not a url' is not a web address"),
        (["predict", str(SAMPLE_SHOP), "--base-url", "https://x.example:99999/"], "Port out of range"),
        (["predict", str(SAMPLE_SHOP), "--base-url", "http://[::1"], "--base-url 'http://[::1' is not a web"),
    ],
)
def test_wrong_arguments_are_refused_before_the_model_loads(argv, message, no_slow_work, caplog):
    assert cli.main(argv) == 2
    assert message in caplog.text


def test_a_full_disk_is_one_error_line_not_a_traceback(monkeypatch, caplog):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device", "out.jsonl")

    monkeypatch.setattr(runs, "predict", full)
    assert cli.main(["predict", str(SAMPLE_SHOP), "-o", "out.jsonl"]) == 1
    assert "[Errno 28] No space left on device: 'out.jsonl'" in caplog.text
    assert "Traceback" not in caplog.text


def test_a_yaml_syntax_error_is_refused_before_the_datasets_load(tmp_path, no_slow_work, caplog):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\n  model: [\n")
    assert cli.main(["train", str(bad)]) == 2
    (record,) = [r for r in caplog.records if r.levelname == "ERROR"]
    # one line: where and what, not PyYAML's excerpt with its caret lines
    assert record.getMessage() == (f"{bad.resolve()}: not valid YAML: line 2, column 8: "
                                   "mapping values are not allowed here")


def test_a_config_without_datasets_is_refused_before_anything_is_written(tmp_path, no_slow_work, caplog,
                                                                        monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.yaml").write_text("")
    assert cli.main(["train", "empty.yaml"]) == 2
    assert "empty.yaml: 'data.datasets' names no dataset to train on" in caplog.text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.yaml"]  # no run directory left behind


def test_single_files_and_stdin_are_inputs(monkeypatch):
    files = sorted(PAGE.glob("*.html"))[:2]
    assert is_page_input(files[0]) and is_page_input("-") and not is_page_input(SAMPLE_SHOP)
    assert cli._model_and_inputs([str(f) for f in files]) == (None, [str(f) for f in files])
    assert cli._model_and_inputs(["general", str(files[0])]) == ("general", [str(files[0])])

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        b"<title>T</title><a href='/'>Harbor Lane Goods</a><h1>Piped Kettle</h1>")))
    loaded = load_inputs([str(files[0]), "-"], base_url="https://shop.example/p/kettle")
    first, piped = loaded.pages
    # a file inside a site dump gets the manifest's URL and the dump's incoming anchors, as over the dump
    assert (first.site_id, first.path) == ("sample-shop", f"pages/{files[0].name}")
    assert first.url.startswith("https://") and first.anchors
    assert (piped.site_id, piped.url) == ("stdin", "https://shop.example/p/kettle")
    assert "Piped Kettle" in piped.html
    # each page's links home: none on the home page itself
    assert (first.path, first.home_link_texts) == ("pages/index.html", ())
    assert piped.home_link_texts == ("Harbor Lane Goods",)
    product = sorted((PAGE / "p").glob("*.html"))[0]
    assert load_inputs([str(product)]).pages[0].home_link_texts == ("Harbor Lane Goods", "Home")
    with pytest.raises(ValueError, match="'-' .* once"):
        load_inputs(["-", "-"])


def _model(tmp_path, name):
    (tmp_path / name).mkdir()
    (tmp_path / name / "model.skops").write_bytes(name.encode())
    return model_identity(name, tmp_path / name, tmp_path / name / "model.skops")


def test_an_output_records_its_model_and_refuses_another(tmp_path):
    general, other = _model(tmp_path, "general"), _model(tmp_path, "christianbook")
    out = tmp_path / "out.jsonl"
    with PredictionWriter(out, model=general) as writer:
        writer.write(Prediction("s", "a.html", "u", "A", 0.5))
    assert json.loads(model_sidecar(out).read_text())["digest"] == general["digest"] != other["digest"]
    with PredictionWriter(out, model=general) as writer:  # the same model resumes
        assert writer.done == {("s", "a.html")}
    with pytest.raises(ValueError, match="holds rows of the model 'general'.*--overwrite"):
        PredictionWriter(out, model=other)
    with PredictionWriter(out, model=other, overwrite=True) as writer:
        assert writer.done == set()
        writer.write(Prediction("s", "b.html", "u", "B", 0.5))
    assert [json.loads(line)["path"] for line in out.read_text().splitlines()] == ["b.html"]
    assert json.loads(model_sidecar(out).read_text())["model"] == "christianbook"
    empty = tmp_path / "empty.csv"  # a run that stopped before its first row: any model may take it over
    PredictionWriter(empty, model=general).close()
    with PredictionWriter(empty, model=other) as writer:
        writer.write(Prediction("s", "c.html", "u", "C", 0.5))
    assert json.loads(model_sidecar(empty).read_text())["model"] == "christianbook"
    assert empty.read_text().splitlines()[1].startswith("s,c.html,u,C,0.5")


def test_an_output_records_its_abstain_threshold_and_refuses_another(tmp_path):
    """A run with --abstain-below 1, resumed without it, wrote a file whose rows abstained by two thresholds
    (the sidecar recorded the model only)."""
    (tmp_path / "general").mkdir()
    (tmp_path / "general" / "model.skops").write_bytes(b"general")
    strict, default = (model_identity("general", tmp_path / "general", tmp_path / "general" / "model.skops", p)
                       for p in (1.0, 0.0))
    out = tmp_path / "out.jsonl"
    with PredictionWriter(out, model=strict) as writer:
        writer.write(Prediction("s", "a.html", "u", "", 0.5, candidates=("A",)))
    with pytest.raises(ValueError, match=r"abstain below 1.0; this run abstains below 0.0: give --abstain-below 1.0"):
        PredictionWriter(out, model=default)
    with PredictionWriter(out, model=strict) as writer:  # the same threshold resumes
        assert writer.done == {("s", "a.html")}
    older = {key: value for key, value in strict.items() if key != "abstain_below"}
    record_model(out, older)  # a sidecar of an older mainentity names no threshold: taken as it is
    PredictionWriter(out, model=default).close()


def test_an_output_without_its_model_record_is_refused_unless_overwritten(tmp_path):
    """Rows whose model is unknown (no sidecar: an older mainentity's output, or the record deleted) are not
    taken over by a model silently: that is refused, naming the missing record; --overwrite replaces them."""
    general = _model(tmp_path, "general")
    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps(Prediction("s", "a.html", "u", "A", 0.5).to_dict()) + "\n")
    with pytest.raises(ValueError, match=r"unknown model \(no out.jsonl.model.json beside it.*--overwrite"):
        PredictionWriter(out, model=general)
    model_sidecar(out).write_text("{not json")
    with pytest.raises(ValueError, match="unknown model .*out.jsonl.model.json is unreadable"):
        PredictionWriter(out, model=general)
    with PredictionWriter(out, model=general, overwrite=True) as writer:
        assert writer.done == set()
    assert json.loads(model_sidecar(out).read_text())["digest"] == general["digest"]


def test_dash_writes_json_lines_to_stdout(capsys):
    with PredictionWriter("-") as writer:
        writer.write(Prediction("s", "a.html", "u", "A", 0.25))
    row = json.loads(capsys.readouterr().out)
    assert (row["path"], row["main_entity"], row["score"]) == ("a.html", "A", 0.25)


def test_the_headline_reads_the_summary(tmp_path):
    summary = tmp_path / "summary.csv"
    summary.write_text("n_pages,n_errors,rouge1_f,exact,rouge1_f_low,rouge1_f_high\n333,0,0.9451,0.9429,0.92,0.97\n")
    assert cli._headline(summary) == "ROUGE-1 F1 0.945 [0.920, 0.970], exact 0.943 on 333 pages (0 errors)"


def test_a_warning_is_one_line_without_its_source():
    line = cli._warning_line(UserWarning("3 of the 42 pages were training pages"), UserWarning, "cli.py", 162)
    assert line.endswith("WARNING mainentity: 3 of the 42 pages were training pages\n")
    assert "cli.py" not in line and line.count("\n") == 1
    assert warnings.formatwarning is not cli._warning_line  # main() puts the default back


def test_python_dash_m_runs_the_command():
    done = subprocess.run([sys.executable, "-m", "mainentity", "--version"], capture_output=True, text=True,
                          cwd=REPO, check=True)
    assert done.stdout.startswith("mainentity ")


def test_annotate_model_then_dump_means_the_general_model():
    """`annotate --model DUMP`: --model takes the dump as its value; the dump is meant, with the general model."""
    args = cli.build_parser().parse_args(["annotate", "--model", str(SAMPLE_SHOP)])
    assert cli._check_arguments(args) is None
    assert (args.site_dump, args.model) == (str(SAMPLE_SHOP), "general")
    args = cli.build_parser().parse_args(["annotate", "--model", "general", str(SAMPLE_SHOP)])
    cli._check_arguments(args)
    assert (args.site_dump, args.model) == (str(SAMPLE_SHOP), "general")
    with pytest.raises(ValueError, match="annotate needs a site dump"):
        cli._check_arguments(cli.build_parser().parse_args(["annotate"]))


@pytest.mark.parametrize("cluster_flag", [[], ["--workers", "2"]])
def test_predict_passes_the_render_policy_in_process_and_on_a_cluster(monkeypatch, tmp_path, cluster_flag):
    """``--render always`` reaches the run on a cluster too (it once went only to the in-process run)."""
    import mainentity.distributed

    calls = []

    class NoCluster:
        def __init__(self, **options):
            calls.append(("cluster", options))

        def __enter__(self):
            return self

        def __exit__(self, *exc_info):
            return None

    monkeypatch.setattr(mainentity.distributed, "DaskSites", NoCluster)
    monkeypatch.setattr(runs, "predict", lambda *args, **options: calls.append(("predict", options)) or 0)
    out = tmp_path / "rows.jsonl"
    assert cli.main(["predict", str(SAMPLE_SHOP), "-o", str(out), "--render", "always", *cluster_flag]) == 0
    [options] = [options for what, options in calls if what == "predict"]
    assert options["render_policy"] == "always"
    assert (options["cluster"] is not None) == bool(cluster_flag)


def test_a_malformed_base_href_does_not_stop_a_dump(tmp_path):
    """``<base href="http://[::1">`` is no URL: the page keeps the URL it would have without it."""
    site = tmp_path / "mix"
    site.mkdir()
    (site / "bad.html").write_text('<base href="http://[::1"><title>T</title><h1>Bad base</h1>', encoding="utf-8")
    (site / "good.html").write_text("<title>G</title><h1>Good</h1>", encoding="utf-8")
    loaded = load_inputs([str(site)])
    assert sorted(page.url.rsplit("/", 1)[-1] for page in loaded.pages) == ["bad.html", "good.html"]


def test_an_unreadable_html_file_among_single_pages_is_one_error_row(tmp_path):
    """An empty and a binary file beside a good page: one error row each, naming the reason; the good page
    still loads."""
    (tmp_path / "empty.html").write_bytes(b"")
    (tmp_path / "binary.html").write_bytes(bytes(range(256)) * 8)
    good = SAMPLE_SHOP / "sites" / "sample-shop" / "pages" / "p" / "ashgrove-enamel-kettle.html"
    loaded = load_inputs([str(good), str(tmp_path / "empty.html"), str(tmp_path / "binary.html")])
    assert [page.path for page in loaded.pages] == ["pages/p/ashgrove-enamel-kettle.html"]
    reasons = {failure.path: failure.reason for failure in loaded.failures}
    assert set(reasons) == {"empty.html", "binary.html"}
    assert "empty" in reasons["empty.html"] and "binary.html" in reasons["binary.html"]


def test_two_files_of_one_name_in_folders_of_one_name_are_two_rows_not_one(tmp_path):
    """Rows name a page by site id (the folder's name) and path (the file's): x/shop/item.html and
    y/shop/item.html would share one row, the second taking the first's answer (the bug: both rows
    answered "Pine Desk"). The first is predicted, the second is an error row naming both; the same file
    given twice is one page; a resumed run writes nothing again."""
    from mainentity.cli import main

    files = []
    for folder, name in (("x", "Oak Shelf"), ("y", "Pine Desk")):
        (tmp_path / folder / "shop").mkdir(parents=True)
        files.append(tmp_path / folder / "shop" / "item.html")
        files[-1].write_text(f"<html><head><title>{name}</title></head><body><h1>{name}</h1>"
                             "<p>Solid wood, oiled by hand.</p></body></html>", encoding="utf-8")
    loaded = load_inputs([str(files[0]), str(files[1]), str(files[0])])
    assert [page.url for page in loaded.pages] == [files[0].as_uri()]
    (failure,) = loaded.failures
    assert failure.path == files[1].as_uri() and files[0].as_uri() in failure.reason
    out = tmp_path / "rows.jsonl"
    assert main(["predict", str(files[0]), str(files[1]), "-o", str(out)]) == 0
    rows = {row["url"]: row for row in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert rows[files[0].as_uri()]["main_entity"] == "Oak Shelf"
    assert rows[files[1].as_uri()]["main_entity"] == "" and "site id 'shop'" in rows[files[1].as_uri()]["error"]
    first = out.read_text(encoding="utf-8")
    assert main(["predict", str(files[0]), str(files[1]), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == first


def test_a_page_named_as_a_bad_manifest_line_is_not_skipped_as_that_lines_row(tmp_path):
    """A page file named ``manifest.jsonl:2`` and a bad line 2 of the manifest had one key: the line's error
    row was written first, and the page skipped as done. The page gets an error row of its own, keyed by URL."""
    from mainentity.cli import main

    site = tmp_path / "shop"
    site.mkdir()
    for name in ("a.html", "manifest.jsonl:2"):
        (site / name).write_text(f"<title>{name}</title><h1>Oak Shelf</h1>", encoding="utf-8")
    (site / "manifest.jsonl").write_text(
        json.dumps({"path": "a.html", "url": "https://shop.example/a"}) + "\n{not json\n"
        + json.dumps({"path": "manifest.jsonl:2", "url": "https://shop.example/m"}) + "\n", encoding="utf-8")
    out = tmp_path / "rows.jsonl"
    assert main(["predict", str(site), "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted((row["path"], bool(row["error"])) for row in rows) == [
        ("a.html", False), ("https://shop.example/m", True), ("manifest.jsonl:2", True)]


def test_a_folder_and_a_file_in_it_give_the_file_once(tmp_path):
    """``predict t1 t1/a.html`` (no manifest) gave a.html two rows: site ``html-<digest>`` from the folder
    and site ``t1`` as a single file. It is one page: the folder's reading is kept."""
    folder = tmp_path / "t1"
    folder.mkdir()
    (folder / "a.html").write_text("<title>Oak Shelf</title><h1>Oak Shelf</h1>", encoding="utf-8")
    (folder / "b.html").write_text("<title>Pine Desk</title><h1>Pine Desk</h1>", encoding="utf-8")
    alone = load_inputs([str(folder)])
    loaded = load_inputs([str(folder), str(folder / "a.html")])
    assert sorted((page.site_id, page.path) for page in loaded.pages) == sorted(
        (page.site_id, page.path) for page in alone.pages)
    assert not loaded.failures


def test_a_shipped_model_given_by_path_reports_outside_the_package(tmp_path, monkeypatch):
    """``evaluate mainentity/pretrained/general DATASET`` (a path, not the name) and the shipped models of
    another checkout report under runs/pretrained-<name>/ of the working directory, never into the package."""
    from mainentity.model_store import PRETRAINED_DIR

    monkeypatch.chdir(tmp_path)
    by_path = os.path.relpath(PRETRAINED_DIR / "general")
    assert runs.default_report_dir(by_path, SAMPLE_SHOP) == Path("runs/pretrained-general/evaluations/sample-shop")
    other_checkout = tmp_path / "clone" / "mainentity"
    (other_checkout / "pretrained" / "general").mkdir(parents=True)
    (other_checkout / "__init__.py").write_text("")
    assert runs.default_report_dir(other_checkout / "pretrained" / "general", "data/shop") == Path(
        "runs/pretrained-general/evaluations/shop")
    (tmp_path / "runs" / "mine").mkdir(parents=True)
    assert runs.default_report_dir("runs/mine", "data/shop") == Path("runs/mine/evaluations/shop")


def test_a_report_under_other_settings_keeps_the_default_report():
    """``evaluate --render auto`` or ``--abstain-below P`` writes beside the default report, not over it."""
    folders = {runs.default_report_dir("runs/mine", "data/shop", render_policy=policy, abstain_below=abstain)
               for policy in ("always", "auto") for abstain in (None, 0.5, 0.25)}
    assert len(folders) == 6
    assert runs.default_report_dir("runs/mine", "data/shop", abstain_below=0.5) == Path(
        "runs/mine/evaluations/shop-abstain-0.5")


@pytest.mark.parametrize(("data", "reason"), [(b"", r"\(0 bytes\)"), (b"  \n\t", r"\(4 bytes, white space only\)")])
def test_empty_stdin_is_named_standard_input(monkeypatch, data, reason):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    with pytest.raises(ValueError, match=rf"standard input \(-\) was empty {reason}"):
        load_inputs(["-"])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bytes(range(256)) * 4)))
    with pytest.raises(ValueError, match=r"standard input \(-\) is not an HTML page: .*not text"):
        load_inputs(["-"])
    for text in (b"id,name\n1,Walnut Board\n", b'{"name": "Walnut Board"}', b"Walnut Board, oiled by hand"):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))  # was answered, score 0.99
        with pytest.raises(ValueError, match=r"standard input \(-\) is not an HTML page: it holds no HTML tag"):
            load_inputs(["-"])
    for fragment in (b"<article><h1>Walnut Board</h1></article>", b"<h1>Walnut Board</h1>"):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(fragment)))
        assert load_inputs(["-"]).pages[0].html.startswith("<")


def test_stdin_that_is_no_page_is_refused_before_the_model_loads(monkeypatch, caplog):
    """``printf 'id,name' | mainentity predict -``: told at once, naming ``-``, with no model loaded."""
    def no_model(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(runs, "load_trained_model", no_model)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"id,name\n1,Walnut Board\n")))
    assert cli.main(["predict", "-", "-q"]) != 0
    assert "standard input (-) is not an HTML page: it holds no HTML tag" in caplog.text


def test_options_go_anywhere_among_the_arguments():
    parse = cli.build_parser().parse_args
    args = parse(["predict", "general", "--render", "always", "a.html", "-o", "x.jsonl", "b.html"])
    assert (args.paths, args.render_policy, args.output) == (["general", "a.html", "b.html"], "always", "x.jsonl")
    args = parse(["evaluate", "general", "--max-pages", "5", "data", "-q"])
    assert (args.paths, args.max_pages, args.quiet, args.verbose) == (["general", "data"], 5, True, False)
    assert parse(["-v", "explain", "p.html", "-o", "p.png"]).verbose
    assert parse(["explain", "p.html", "-v", "-o", "p.png"]).verbose
    args = parse(["clean", "dump", "-o", "r.md", "--method", "sst", "--cache-dir", "c"])
    assert (args.output, args.cache_dir) == ("r.md", "c")
    assert parse(["clean", "dump", "--report", "r.md", "--method", "sst"]).output == "r.md"
    args = parse(["annotate", "--model", "dump"])
    assert (args.site_dump, args.model) == (None, "dump")  # _check_arguments reads it as the dump
    assert parse(["annotate", "dump", "--model"]).model == "general"


@pytest.mark.parametrize("command", sorted(cli.COMMAND_HELP))
def test_every_command_has_a_description_an_example_and_its_defaults_in_help(command, capsys):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    text = capsys.readouterr().out
    description, example = cli.COMMAND_HELP[command]
    assert " ".join(description.split()[:6]) in " ".join(text.split())
    assert f"example:\n  mainentity {command} " in text and example.split("\n")[0] in text
    assert "-q, --quiet" in text and "-v, --verbose" in text
    if command == "explain":
        assert "(default: 5)" in text  # --top
    if command in ("train", "predict", "evaluate", "benchmark", "explain", "clean", "annotate"):
        assert "--cache-dir" in text


def test_verbose_and_quiet_together_are_refused_and_the_cache_dir_holds_for_the_command(tmp_path, monkeypatch):
    from mainentity.config import CACHE_DIR_ENV, default_cache_dir

    monkeypatch.delenv(CACHE_DIR_ENV, raising=False)
    monkeypatch.setattr(runs, "evaluate", lambda *args, **options: pytest.fail("nothing runs: -v with -q"))
    with pytest.raises(SystemExit):
        cli.main(["-v", "evaluate", str(SAMPLE_SHOP), "-q"])
    seen = []
    monkeypatch.setattr(runs, "clean_report", lambda *args: seen.append(default_cache_dir()) or "# report\n")
    cache = tmp_path / "cache"
    assert cli.main(["clean", str(SAMPLE_SHOP), "--method", "sst", "-o", str(tmp_path / "r.md"),
                     "--cache-dir", str(cache)]) == 0
    assert seen == [str(cache)]  # during the command, for it and the workers it starts
    assert CACHE_DIR_ENV not in os.environ  # and no longer after it


def test_quiet_keeps_the_errors_and_drops_the_progress_lines(tmp_path):
    """``-q`` after the sub-command: the error line stays, the "loading" line before it goes."""
    (tmp_path / "empty-model").mkdir()
    page = str(next(PAGE.glob("*.html")))
    command = [sys.executable, "-m", "mainentity", "predict", str(tmp_path / "empty-model"), page, "-o",
               str(tmp_path / "out.jsonl")]
    loud, quiet = (subprocess.run(command + flags, capture_output=True, text=True, cwd=REPO) for flags in ([], ["-q"]))
    assert loud.returncode == quiet.returncode == 2
    assert "INFO mainentity: predict: loading the model" in loud.stderr
    assert "INFO" not in quiet.stderr and "ERROR mainentity: " in quiet.stderr
    assert "config.yaml is missing" in quiet.stderr


def test_evaluate_passes_max_pages_and_refuses_zero(monkeypatch, tmp_path, caplog):
    calls = []

    def evaluate(model, dataset, out, **options):
        calls.append(options)
        (tmp_path / "summary.csv").write_text("n_pages,n_errors,rouge1_f,exact\n5,0,0.9,0.8\n")
        return tmp_path

    monkeypatch.setattr(runs, "evaluate", evaluate)
    assert cli.main(["evaluate", str(SAMPLE_SHOP), "--max-pages", "5"]) == 0
    assert calls == [{"render_policy": "always", "abstain_below": None, "max_pages": 5, "screenshots": False,
                      "overwrite": False}]
    assert cli.main(["evaluate", str(SAMPLE_SHOP), "--max-pages", "0"]) == 2
    assert "--max-pages must be >= 1; got 0" in caplog.text and len(calls) == 1


def test_quiet_drops_where_the_output_went_and_keeps_the_result(monkeypatch, tmp_path, capsys):
    def evaluate(model, dataset, out, **options):
        (tmp_path / "summary.csv").write_text("n_pages,n_errors,rouge1_f,exact\n5,0,0.9,0.8\n")
        return tmp_path

    monkeypatch.setattr(runs, "evaluate", evaluate)
    monkeypatch.setattr(runs, "predict", lambda *args, **options: 3)
    assert cli.main(["evaluate", str(SAMPLE_SHOP)]) == 0
    assert "report written to" in capsys.readouterr().out
    assert cli.main(["evaluate", str(SAMPLE_SHOP), "-q"]) == 0
    assert capsys.readouterr().out.splitlines() == ["ROUGE-1 F1 0.900, exact 0.800 on 5 pages (0 errors)"]
    out = tmp_path / "rows.jsonl"
    assert cli.main(["predict", str(SAMPLE_SHOP), "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"3 rows written to {out}\n"
    assert cli.main(["predict", str(SAMPLE_SHOP), "-o", str(out), "-q"]) == 0
    assert capsys.readouterr() == ("", "")


@pytest.mark.browser
def test_the_worst_pages_get_screenshots_the_report_links(tmp_path):
    import pandas as pd

    from mainentity.config import RenderConfig
    from mainentity.evaluation.report import screenshot_name

    loaded = load_inputs([str(SAMPLE_SHOP)])
    pages = loaded.pages[:2]
    predictions = [Prediction(page.site_id, page.path, page.url, "Wrong", 0.1, (8.0, 8.0, 300.0, 40.0))
                   for page in pages]
    worst = pd.DataFrame({"site_id": [p.site_id for p in pages] + ["gone"], "path": [p.path for p in pages] + ["x"]})
    assert runs.screenshot_worst_pages(worst, pages, predictions, tmp_path, RenderConfig(), loaded.subresources) == 2
    shot = tmp_path / screenshot_name(pages[0].site_id, pages[0].path)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(shot.read_bytes()[16:20], "big") == 1024  # the viewport's width, CSS px


def test_a_prediction_says_what_its_score_is_and_dumps_as_json():
    from types import SimpleNamespace

    from mainentity.pipeline import with_score_kind
    from mainentity.prediction_writer import prediction_row

    def model(probability):
        return SimpleNamespace(recognizer=SimpleNamespace(scores_are_probabilities=lambda: probability))

    general, msrbfn = model(True), model(False)
    rendered = Prediction("s", "/p/kettle", "https://s.example/p/kettle", "Kettle", 1.874, answered_by="rendered")
    static = dataclasses.replace(rendered, score=0.9, answered_by="static")
    assert with_score_kind(rendered, msrbfn).score_kind == "raw"
    assert with_score_kind(rendered, general).score_kind == "probability"
    assert with_score_kind(static, msrbfn, static_model=general).score_kind == "probability"
    assert with_score_kind(Prediction("s", "a", "u", error="timed out"), general).score_kind == ""
    row = json.loads(json.dumps(with_score_kind(rendered, msrbfn).to_dict()))
    assert (row["path"], row["url"], row["score"], row["score_kind"]) == (
        "/p/kettle", "https://s.example/p/kettle", 1.874, "raw")
    assert prediction_row(with_score_kind(rendered, msrbfn))["score_kind"] == "raw"


def test_a_page_from_memory_has_its_url_in_url_and_its_path_in_path():
    from mainentity import page_from_html

    page = page_from_html("<h1>Kettle</h1>", "https://shop.example/p/kettle?colour=red#reviews")
    assert (page.site_id, page.path, page.url) == (
        "shop.example", "/p/kettle?colour=red", "https://shop.example/p/kettle?colour=red#reviews")
    assert page_from_html("<h1>Kettle</h1>").path.endswith(".html")


def test_a_csv_output_of_an_older_mainentity_names_the_missing_columns(tmp_path):
    from mainentity.prediction_writer import COLUMNS

    out = tmp_path / "old.csv"
    out.write_text(",".join(COLUMNS[:-1]) + "\ns,a.html,u,A,0.5,,,,,,rendered\n")
    with pytest.raises(ValueError, match="older mainentity, without the score_kind column"):
        PredictionWriter(out)


@pytest.mark.parametrize("data", [b"", b" \n\t "])
def test_empty_stdin_is_refused_before_the_model_loads(monkeypatch, no_slow_work, caplog, data):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert cli.main(["predict", "-"]) == 2
    assert "standard input (-) was empty" in caplog.text
    assert "loading the model" not in caplog.text


def test_explain_and_evaluate_usage_name_one_page_and_one_dataset(capsys):
    for command, one in (("explain", "[MODEL] PAGE\n"), ("evaluate", "[MODEL] DATASET\n"),
                         ("predict", "[MODEL] INPUT [INPUT ...]\n")):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        usage = capsys.readouterr().out.split("\n\n")[0] + "\n"
        assert usage.endswith(one) and "[[MODEL]" not in usage, usage


def test_counts_are_singular_or_plural(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(runs, "predict", lambda *args, **options: 1)
    assert cli.main(["predict", str(next(PAGE.glob("*.html"))), "-o", str(tmp_path / "rows.jsonl")]) == 0
    assert capsys.readouterr().out == f"1 row written to {tmp_path / 'rows.jsonl'}\n"
    summary = tmp_path / "summary.csv"
    summary.write_text("n_pages,n_errors,rouge1_f,exact\n1,1,0.0,0.0\n")
    assert cli._headline(summary) == "ROUGE-1 F1 0.000, exact 0.000 on 1 page (1 error)"


def test_evaluate_into_another_models_report_is_refused_unless_overwritten(monkeypatch, tmp_path, caplog):
    """``evaluate -o DIR`` over a report that another model wrote (its per_page.csv.model.json names another
    digest), or whose model is unknown, is refused before any page is read; ``--overwrite`` goes on."""
    out = tmp_path / "report"
    out.mkdir()
    (out / "per_page.csv").write_text("system,dataset,site_id,path\nother,shop,s,a.html\n")
    model_sidecar(out / "per_page.csv").write_text(json.dumps(_model(tmp_path, "christianbook")))

    def no_pages(*args, **kwargs):
        raise ValueError("the pages were read")

    monkeypatch.setattr(runs, "load_pages", no_pages)
    assert cli.main(["evaluate", str(SAMPLE_SHOP), "-o", str(out)]) == 2
    assert "per_page.csv holds rows of the model 'christianbook'" in caplog.text and "--overwrite" in caplog.text
    model_sidecar(out / "per_page.csv").unlink()
    assert cli.main(["evaluate", str(SAMPLE_SHOP), "-o", str(out)]) == 2
    assert "holds rows of an unknown model" in caplog.text and "the pages were read" not in caplog.text
    assert cli.main(["evaluate", str(SAMPLE_SHOP), "-o", str(out), "--overwrite"]) == 2
    assert "the pages were read" in caplog.text
    assert (out / "per_page.csv").read_text().endswith("other,shop,s,a.html\n")  # untouched


def test_a_file_where_a_directory_must_be_is_refused_before_the_model_loads(tmp_path, monkeypatch, caplog):
    def no_loading(*args):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(runs, "load_trained_model", no_loading)
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert cli.main(["predict", str(SAMPLE_SHOP), "-o", str(afile / "out.jsonl")]) == 2
    assert f"output {afile / 'out.jsonl'} cannot be written: {afile} is a file, not a directory" in caplog.text
    assert cli.main(["predict", str(SAMPLE_SHOP), "-o", str(tmp_path / "o.jsonl"), "--cache-dir", str(afile)]) == 2
    assert f"--cache-dir {afile} cannot be a directory: {afile} is a file" in caplog.text
    monkeypatch.setenv("MAINENTITY_CACHE_DIR", str(afile / "render"))
    assert cli.main(["evaluate", str(SAMPLE_SHOP)]) == 2
    assert f"(MAINENTITY_CACHE_DIR or the default) {afile / 'render'} cannot be a directory" in caplog.text
    # the commands whose -o is a report directory or a file, found by the fresh-clone review (tracebacks)
    manifest = str(SAMPLE_SHOP / "sites" / "sample-shop" / "manifest.jsonl")
    page = str(next((SAMPLE_SHOP / "sites" / "sample-shop" / "pages" / "p").glob("*.html")))
    monkeypatch.delenv("MAINENTITY_CACHE_DIR")
    for command, output in ((["evaluate", str(SAMPLE_SHOP)], afile), (["evaluate", str(SAMPLE_SHOP)], afile / "x"),
                            (["agreement", manifest, manifest], afile), (["explain", page], afile / "x.png"),
                            (["clean", str(SAMPLE_SHOP), "--method", "sst"], afile / "x.md")):
        caplog.clear()
        assert cli.main([*command, "-o", str(output)]) == 2, command
        assert f"output {output} cannot be written: {afile} is a file, not a directory" in caplog.text, command
    caplog.clear()
    assert cli.main(["explain", page, "-o", str(tmp_path)]) == 2
    assert f"output {tmp_path} exists and is not a file (a directory); give a file name" in caplog.text


def test_render_always_is_refused_for_the_static_model(tmp_path, caplog, monkeypatch):
    def no_loading(*args):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(runs, "load_trained_model", no_loading)  # refused before the seconds it takes
    out = tmp_path / "rows.jsonl"
    argv = ["predict", "general-static", str(next(PAGE.glob("*.html"))), "-o", str(out), "--render", "always"]
    assert cli.main(argv) == 2
    assert "--render always: the model 'general-static' never renders a page" in caplog.text
    assert "mainentity predict general" in caplog.text and not out.exists()


def test_a_page_file_of_a_site_dump_is_named_by_the_dump_even_when_unreadable(tmp_path):
    """A garbage file that a site dump's manifest lists, given alone, is the dump's error row (its site id,
    path and URL), as over the whole dump; a file the manifest does not list is still of the dump's site."""
    dump = tmp_path / "shop"
    (dump / "pages" / "p").mkdir(parents=True)
    (dump / "pages" / "p" / "garbage.html").write_bytes(bytes(range(256)) * 8)
    (dump / "pages" / "unlisted.html").write_text("<title>Unlisted</title><h1>Unlisted page</h1>")
    (dump / "manifest.jsonl").write_text(
        '{"path": "pages/p/garbage.html", "url": "https://shop.example/p/garbage"}\nnot json\n')
    alone = load_inputs([str(dump / "pages" / "p" / "garbage.html"), str(dump / "pages" / "unlisted.html")])
    whole = load_inputs([str(dump)])
    [failure] = alone.failures
    assert failure in whole.failures
    assert (failure.site_id, failure.path, failure.url) == ("shop", "pages/p/garbage.html",
                                                           "https://shop.example/p/garbage")
    assert "not text" in failure.reason
    [page] = alone.pages
    assert (page.site_id, page.path) == ("shop", "pages/unlisted.html")


@pytest.mark.browser
def test_ctrl_c_while_rendering_stops_at_once_in_one_line_and_keeps_the_rows(tmp_path):
    """SIGINT to the command's process group (what Ctrl-C sends) while a site renders, on a cold render
    cache: status 130, one line saying how many rows were written, no asyncio or traceback noise, the
    rows of the site finished before it kept whole."""
    import shutil
    import signal
    import time

    sites = tmp_path / "dataset" / "sites"
    (sites / "a-two-pages").mkdir(parents=True)  # answered first: its rows are written before the signal
    for page in sorted((PAGE / "p").glob("*.html"))[:2]:
        shutil.copy(page, sites / "a-two-pages" / page.name)
    shutil.copytree(SAMPLE_SHOP / "sites" / "sample-shop", sites / "sample-shop")
    out = tmp_path / "rows.jsonl"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "mainentity", "predict", str(tmp_path / "dataset"), "-o", str(out),
               "--render", "always"]
    # its own process group, as a shell gives a command, with Ctrl-C's default action even when this suite
    # runs in a background job (whose children inherit SIGINT ignored, and Python then never raises it)
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 300
        while process.poll() is None and time.monotonic() < deadline and (
                not out.exists() or len(out.read_text().splitlines()) < 2):
            time.sleep(0.1)
        assert process.poll() is None, "the run ended before it could be interrupted"
        signalled = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert time.monotonic() - signalled < 30  # a generous guard: about 1 s on a busy machine
    assert process.returncode == 130, stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert 2 <= len(rows) < 44 and {row["site_id"] for row in rows[:2]} == {"a-two-pages"}
    assert f"ERROR mainentity: interrupted: {len(rows)} rows written to {out}; rerun the same command to resume" \
        in stderr
    assert "Future exception" not in stderr and "Traceback" not in stderr and "Task was destroyed" not in stderr, stderr


class _EndlessZeros(io.RawIOBase):
    """A pipe that never ends (``/dev/zero``): counts what it served, and fails a reader that asks for all of it."""

    def __init__(self):
        self.n_served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        buffer[:] = bytes(len(buffer))
        self.n_served += len(buffer)
        return len(buffer)

    def readall(self) -> bytes:
        raise AssertionError("read an endless standard input whole")


def test_standard_input_is_read_in_pieces_and_refused_past_the_limit_of_a_page_file(monkeypatch, no_slow_work,
                                                                                   caplog):
    from mainentity.sitedump import MAX_PAGE_BYTES

    zeros = _EndlessZeros()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(zeros)))
    assert cli.main(["predict", "-", "--base-url", "https://z.example/"]) == 2
    assert f"standard input (-) is over the limit of {MAX_PAGE_BYTES} bytes" in caplog.text
    assert zeros.n_served <= MAX_PAGE_BYTES + 2 * 2**20  # one piece past the limit at most, never the rest
    assert "loading the model" not in caplog.text
    page = b"<h1>Kettle</h1>" + b" " * MAX_PAGE_BYTES  # a finite page just over the limit, as a file would be
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(page)))
    with pytest.raises(ValueError, match=f"over the limit of {MAX_PAGE_BYTES} bytes"):
        load_inputs(["-"])
