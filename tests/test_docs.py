"""The documentation site (mkdocs.yml, docs/) builds in strict mode: no broken link, anchor or snippet, and
every docstring of the API reference renders."""

import importlib.util
import os
import re
import subprocess
import sys

import pytest
from conftest import REPO


def load_extension():
    path = REPO / "docs" / "_griffe" / "numpydoc_markdown.py"
    spec = importlib.util.spec_from_file_location("numpydoc_markdown", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_numpydoc_docstrings_read_as_markdown():
    pytest.importorskip("griffe", reason="Griffe (mkdocstrings[python]) is not installed: pip install -e '.[docs]'")
    markdown_docstring = load_extension().markdown_docstring
    text = ("Uses :func:`~a.b.f` and :data:`LIMIT`.\n\n>>> f(1)\n2\n\n.. [1] A paper.\n\nFrom Python::\n\n"
            "    f(2)\n\nExamples\n--------\n>>> f(3)\n4")
    assert markdown_docstring(text).split("\n") == [
        'Uses <autoref optional identifier="a.b.f"><code>f</code></autoref> and '
        '<autoref optional identifier="LIMIT"><code>LIMIT</code></autoref>.',
        "", "```pycon", ">>> f(1)", "2", "```", "", "[1] A paper.", "", "From Python:", "", "    f(2)", "",
        "Examples", "--------", ">>> f(3)", "4"]  # Griffe reads an Examples section's doctests itself


def test_a_doctest_that_runs_into_the_next_section_is_closed():
    pytest.importorskip("griffe", reason="Griffe (mkdocstrings[python]) is not installed: pip install -e '.[docs]'")
    lines = load_extension().markdown_docstring("Sums.\n\n    >>> 1 + 1\n    2\nReturns\n-------\nint").split("\n")
    assert lines == ["Sums.", "", "    ```pycon", "    >>> 1 + 1", "    2", "    ```", "Returns", "-------", "int"]


def test_docs_build_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="MkDocs is not installed: pip install -e '.[docs]'")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed: pip install -e '.[docs]'")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"), "-d", str(site)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    # the README's introduction and set-up section are the home page's, included from README.md
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "Jaccard, Dice and exact-match reports" in home and "--8&lt;--" not in home
    assert "Set up and run (Debian, as root)" in home and "sample-shop-predictions.jsonl" in home
    # the generated tables moved with their sections
    assert "lodo-booksamillion" in (site / "cross-site" / "index.html").read_text(encoding="utf-8")
    # the API reference is generated from the docstrings: the public names, and the main modules
    reference = (site / "reference" / "index.html").read_text(encoding="utf-8")
    for name in ("mainentity.extract", "mainentity.load_model", "mainentity.Model.predict",
                 "mainentity.read_site_dump", "mainentity.Prediction"):
        assert f'id="{name}"' in reference, name
    pages = {path.parent.name: path.read_text(encoding="utf-8") for path in (site / "reference").glob("*/index.html")}
    assert 'id="mainentity.pipeline.predict_pages"' in pages["pipeline"]
    for name, page in pages.items():  # Sphinx roles and bare doctests rendered, not shown as raw reST
        assert not re.search(r":(func|class|meth|attr|data|mod):", page), name
        assert "<blockquote>" not in page, name
    assert 'href="../inputs/#mainentity.sitedump.SubresourceSources"' in pages["pipeline"]  # a role became a link
