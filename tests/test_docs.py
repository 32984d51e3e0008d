"""The documentation site (mkdocs.yml, docs/) builds in strict mode: no broken link, anchor or snippet, and
every docstring of the API reference renders."""

import os
import subprocess
import sys

import pytest
from conftest import REPO


def test_docs_build_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="MkDocs is not installed: pip install -e '.[docs]'")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed: pip install -e '.[docs]'")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"), "-d", str(site)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    # the README's set-up section is the home page's, included from README.md
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "Set up and run (Debian, as root)" in home and "sample-shop-predictions.jsonl" in home
    # the generated tables moved with their sections
    assert "<!-- end results table -->" not in home
    assert "christianbook-&gt;readability" in (site / "cross-site" / "index.html").read_text(encoding="utf-8")
    # the API reference is generated from the docstrings of the public names
    reference = (site / "reference" / "index.html").read_text(encoding="utf-8")
    for name in ("mainentity.extract", "mainentity.load_model", "mainentity.read_site_dump"):
        assert f'id="{name}"' in reference, name
