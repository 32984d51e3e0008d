"""The README's commands and results stay true to the repository."""

import importlib.util
import re

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


def test_readme_results_are_generated_from_committed_results():
    assert load_script("readme_table").main(["--check"]) == 0
