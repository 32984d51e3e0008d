"""The README's commands and results, and those of the docs pages under docs/, stay true to the repository."""

import doctest
import importlib.util
import re
import shlex

import pytest
from conftest import REPO


def load_script(name):
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_has_two_setup_commands_and_ci_runs_the_test_one():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set up and run", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", setup, flags=re.S)
    assert len(commands) == 2
    install, test = commands
    assert "apt-get install -y chromium" in install and "mainentity predict datasets/sample-shop" in install
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert test.strip() in ci


def test_readme_use_it_has_the_five_commands_and_they_parse():
    """The README's "Use it" block: one example of each main command, accepted by the command's own parser, every
    path it names there in the repository (but placeholders such as SITE_DUMP, and outputs)."""
    from mainentity import cli

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Use it\n", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```bash\n(.*?)\n```", section, flags=re.S)[0]
    examples = [shlex.split(line, comments=True) for line in block.splitlines()]
    assert [argv[:2] for argv in examples] == [["mainentity", command] for command in
                                               ("predict", "evaluate", "train", "benchmark", "annotate")]
    parser = cli.build_parser()
    for argv in examples:
        args = parser.parse_args(argv[1:])
        named = getattr(args, "paths", None) or [getattr(args, "config", None) or args.site_dump]
        for path in named:
            assert path.isupper() or (REPO / path).exists(), (argv, path)


def test_readme_results_are_generated_from_committed_results():
    assert load_script("readme_table").main(["--check"]) == 0


def test_readme_stays_short_and_links_every_docs_page():
    """The README is the front door (at most ~200 lines); the rest lives in docs/, and it links each page."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    linked = set(re.findall(r"\]\((docs/[^)#]+\.md)", readme))
    pages = {path.relative_to(REPO).as_posix() for path in (REPO / "docs").glob("*.md")} - {"docs/index.md"}
    assert pages <= linked, sorted(pages - linked)


def pycon_examples() -> dict[str, str]:
    """Every Markdown file of the README and docs/ with ``pycon`` blocks -> its examples in order."""
    found = {}
    for path in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        blocks = re.findall(r"```pycon\n(.*?)\n```", path.read_text(encoding="utf-8"), flags=re.S)
        if blocks:
            found[path.relative_to(REPO).as_posix()] = "\n".join(blocks)
    return found


def test_the_python_examples_are_where_the_doctests_look():
    examples = pycon_examples()
    assert examples["docs/python.md"].count(">>> ") >= 20
    assert examples["README.md"].count(">>> ") >= 3


@pytest.mark.browser
@pytest.mark.parametrize("name", sorted(pycon_examples()))
def test_python_examples_run_as_doctests(name, tmp_path, monkeypatch, render_cache_dir):
    """A page's ``pycon`` examples (README.md, docs/python.md: "From Python"), run in order as one doctest from
    a directory that sees the repository's datasets/ (models saved by the examples go to its runs/, not the
    repository's)."""
    import mainentity.api

    examples = pycon_examples()[name]
    (tmp_path / "datasets").symlink_to(REPO / "datasets")
    monkeypatch.chdir(tmp_path)
    # the per-user render cache of the examples is the session's render cache
    (tmp_path / "xdg" / "mainentity").mkdir(parents=True)
    render_cache_dir.mkdir(parents=True, exist_ok=True)  # run alone, the session's cache is not made yet
    (tmp_path / "xdg" / "mainentity" / "render").symlink_to(render_cache_dir)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    test = doctest.DocTestParser().get_doctest(examples, {}, name, str(REPO / name), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    try:
        runner.run(test, out=report.append)
    finally:
        if mainentity.api._default is not None:  # the browser extract() kept
            mainentity.api._default.close()
    assert runner.failures == 0, "".join(report)
    assert runner.tries == examples.count(">>> ")
    if name == "docs/python.md":
        assert (tmp_path / "runs" / "general-abstaining" / "model.skops").is_file()


@pytest.mark.browser
def test_the_first_command_prints_what_the_readme_quotes(tmp_path, monkeypatch, capsys):
    """A newcomer's first run: the `mainentity` steps of the README's setup command (predict and evaluate
    the sample shop, no network), run in a directory that sees the repository's datasets/; what they print
    is the README's quoted output line for line, figures included, and the files it names exist."""
    from mainentity import cli

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set up and run", 1)[1].split("\n## ", 1)[0]
    install = re.findall(r"```bash\n(.*?)\n```", setup, flags=re.S)[0]
    steps = [shlex.split(step) for step in install.split("&&") if step.strip().startswith("mainentity ")]
    assert [step[:2] for step in steps] == [["mainentity", "predict"], ["mainentity", "evaluate"]]
    quoted = re.findall(r"```text\n(.*?)\n```", setup, flags=re.S)[0].splitlines()
    (tmp_path / "datasets").symlink_to(REPO / "datasets")
    monkeypatch.chdir(tmp_path)
    printed = []
    for step in steps:  # with the session's per-user render cache, as the commands' default
        assert cli.main(step[1:]) == 0, step
        printed += capsys.readouterr().out.splitlines()
    assert printed == quoted
    rows = (tmp_path / "runs" / "sample-shop-predictions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(rows) == int(quoted[0].split()[0])
    report = tmp_path / "runs" / "pretrained-general" / "evaluations" / "sample-shop"
    assert {"report.md", "report.html", "summary.csv", "per_site.csv", "per_page.csv"} <= {
        path.name for path in report.iterdir()}
