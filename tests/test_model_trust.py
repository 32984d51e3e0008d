"""A model directory is data: it never chooses a program or a path, and a crafted one is refused in one
line (exit 2) with nothing run. Each case plants a script that would write a marker file if it ran."""

from __future__ import annotations

import json
import logging
import shutil
import stat
import zipfile
from pathlib import Path

import pytest
import skops.io as sio
import yaml

from mainentity import cli
from mainentity.config import ConfigError, config_from_dict
from mainentity.model_io import FORMAT_VERSION, ModelFormatError, UntrustedModelError, load_model_file
from mainentity.model_store import PRETRAINED_DIR, load_trained_model
from mainentity.pipeline import render_settings
from mainentity.recognizers import peer_node
from mainentity.recognizers.peers import MozillaReadabilityRecognizer
from mainentity.records import Document, Page

SAMPLE_SITE = str(Path(__file__).resolve().parents[1] / "datasets/sample-shop/sites/sample-shop")


def _script(path, marker) -> str:
    """An executable shell script at ``path`` that creates ``marker`` when it runs; returns its path."""
    path.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _model_dir(tmp_path, edit_render: dict | None = None, config_text: str | None = None):
    """A copy of the shipped general model whose config.yaml has ``edit_render`` merged into ``render``."""
    directory = tmp_path / "model"
    shutil.copytree(PRETRAINED_DIR / "general", directory)
    if config_text is not None:
        (directory / "config.yaml").write_text(config_text)
    elif edit_render:
        config = yaml.safe_load((directory / "config.yaml").read_text())
        config["render"].update(edit_render)
        (directory / "config.yaml").write_text(yaml.safe_dump(config))
    return directory


def _predict_exit(directory, tmp_path, caplog) -> tuple[int, list[str]]:
    """``mainentity predict MODEL SAMPLE -o out.jsonl``: exit status and the error lines it logged."""
    with caplog.at_level(logging.ERROR, logger="mainentity"):
        status = cli.main(["predict", str(directory), SAMPLE_SITE, "-o", str(tmp_path / "out.jsonl")])
    return status, [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]


@pytest.mark.parametrize("relative", [False, True], ids=["absolute", "relative"])
def test_a_model_config_naming_a_chromium_program_is_refused_and_runs_nothing(tmp_path, caplog, monkeypatch,
                                                                              relative):
    marker = tmp_path / "pwned"
    script = _script(tmp_path / "chromium.sh", marker)
    directory = _model_dir(tmp_path, {"executable_path": "./chromium.sh" if relative else script})
    monkeypatch.chdir(tmp_path)  # where a relative program would be found
    status, errors = _predict_exit(directory, tmp_path, caplog)
    assert status == 2
    assert len(errors) == 1 and "render.executable_path" in errors[0] and "\n" not in errors[0]
    assert not marker.exists()
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("key", ["cache_dir", "no_such_key"])
def test_a_model_may_set_no_path_and_no_unknown_render_key(tmp_path, key):
    directory = _model_dir(tmp_path, {key: str(tmp_path / "elsewhere")})
    with pytest.raises(ConfigError, match=f"a model may not set 'render.{key}'"):
        load_trained_model(directory)
    assert not (tmp_path / "elsewhere").exists()


def test_a_model_may_set_its_layout_settings_and_old_defaults_read_as_absent(tmp_path):
    directory = _model_dir(tmp_path, {"timeout_s": 7, "subresources": False, "javascript": False,
                                      "executable_path": "/usr/bin/chromium", "cache_dir": None})
    render = load_trained_model(directory).config.render
    assert (render.timeout_s, render.subresources, render.cache_dir) == (7.0, False, None)
    # an older model that says javascript: false is rendered so, though auto is the default now
    assert render.javascript is False and render_settings(render).javascript is False
    assert load_trained_model(PRETRAINED_DIR / "general").config.render.javascript == "auto"


def test_a_python_tag_in_a_model_config_is_one_line_and_builds_nothing(tmp_path, caplog):
    marker = tmp_path / "pwned"
    text = f"!!python/object/apply:os.system ['touch {marker}']\n"
    status, errors = _predict_exit(_model_dir(tmp_path, config_text=text), tmp_path, caplog)
    assert status == 2 and len(errors) == 1
    assert "not a model config" in errors[0] and "python/object" in errors[0] and "\n" not in errors[0]
    assert not marker.exists()


def test_a_training_config_cannot_name_a_program_either():
    with pytest.raises(ConfigError, match="train.yaml: 'render.executable_path' is not a config key"):
        config_from_dict({"render": {"executable_path": "/opt/evil"}}, "train.yaml")
    assert config_from_dict({"render": {"executable_path": "/usr/bin/chromium"}}).render.timeout_s == 20.0


def _rewrite_schema(path, edit) -> None:
    """Rewrite the skops schema of the model file at ``path`` with ``edit(schema)``, keeping our header."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
        comment = archive.comment
    schema = json.loads(members["schema.json"])
    edit(schema)
    members["schema.json"] = json.dumps(schema).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        archive.comment = comment


def _drop_key_types(schema: dict) -> None:
    schema.pop("key_types", None)
    schema["content"].pop("key_types", None)


def _no_protocol(schema: dict) -> None:
    schema["protocol"] = None


@pytest.mark.parametrize("edit", [_drop_key_types, _no_protocol], ids=["no key_types", "protocol None"])
def test_a_crafted_model_schema_is_one_line_and_exit_2(tmp_path, caplog, edit):
    directory = _model_dir(tmp_path)
    _rewrite_schema(directory / "model.skops", edit)
    with pytest.raises(ModelFormatError, match="damaged or not a mainentity model"):
        load_model_file(directory / "model.skops")
    status, errors = _predict_exit(directory, tmp_path, caplog)
    assert status == 2 and len(errors) == 1 and "\n" not in errors[0]
    assert "model.skops" in errors[0] and "it was not loaded" in errors[0]


@pytest.mark.parametrize("edit", [_drop_key_types, _no_protocol], ids=["no key_types", "protocol None"])
def test_a_crafted_schema_naming_an_untrusted_type_is_refused_by_naming_it(tmp_path, edit):
    directory = _model_dir(tmp_path)

    def craft(schema: dict) -> None:
        schema["content"]["evil"] = {"__class__": "system", "__module__": "posix", "__loader__": "TypeNode",
                                     "__id__": 1}
        edit(schema)

    _rewrite_schema(directory / "model.skops", craft)
    with pytest.raises(UntrustedModelError, match=r"not trusted: posix\.system; it was not loaded"):
        load_model_file(directory / "model.skops")


def test_a_node_program_inside_a_model_file_is_never_run(tmp_path, monkeypatch):
    """A trusted peer in model.skops carrying a ``node`` path: the user's node runs, never the file's."""
    crafted, users = tmp_path / "pwned", tmp_path / "users-node-ran"
    recognizer = MozillaReadabilityRecognizer()
    recognizer.node = _script(tmp_path / "evil-node", crafted)  # what an old or crafted file may carry
    path = tmp_path / "model.skops"
    sio.dump({"recognizer": recognizer, "cleaners": {}}, path)
    with zipfile.ZipFile(path, "a") as archive:
        archive.comment = json.dumps({"format": "mainentity-model", "format_version": FORMAT_VERSION}).encode()
    loaded = load_model_file(path)["recognizer"]
    monkeypatch.setenv("MAINENTITY_NODE", _script(tmp_path / "users-node", users))
    monkeypatch.setattr(peer_node, "node_modules_dir", lambda packages=None: tmp_path)  # as if npm ci had run
    page = Page("s", "a.html", "https://s.example/a.html", "<title>A</title><h1>A</h1>")
    with pytest.raises(RuntimeError, match="could not start"):
        loaded.predict([Document(page)])
    assert users.exists() and not crafted.exists()
    assert "node" not in MozillaReadabilityRecognizer().get_params()


def test_a_chromium_that_cannot_start_is_one_line_and_exit_2(tmp_path, caplog, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # nothing rendered yet
    # --chromium sets MAINENTITY_CHROMIUM for the process: recorded here so that it is undone after the test
    monkeypatch.setenv("MAINENTITY_CHROMIUM", "/bin/false")
    site = tmp_path / "site"
    site.mkdir()
    (site / "a.html").write_text("<title>A</title><h1>Alpha</h1>")
    with caplog.at_level(logging.ERROR, logger="mainentity"):
        status = cli.main(["--chromium", "/bin/false", "predict", str(site), "-o", str(tmp_path / "o.jsonl"),
                           "--render", "always"])
    errors = [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]
    assert status == 2 and len(errors) == 1 and "\n" not in errors[0] and "/bin/false" in errors[0]


def test_a_truncated_model_file_is_called_truncated_and_a_pickle_a_pickle(tmp_path):
    """A model.skops cut short (a copy or download that stopped) is named truncated, with its size; the
    pickle advice is kept for pickles."""
    directory = _model_dir(tmp_path)
    model_file = directory / "model.skops"
    model_file.write_bytes(model_file.read_bytes()[:5000])
    with pytest.raises(ModelFormatError, match=r"model.skops is truncated or corrupt: .*\(5000 bytes\)") as error:
        load_trained_model(directory)
    assert "pickle" not in str(error.value)
    model_file.write_bytes(b"\x80\x04\x95" + b"\x00" * 40)
    with pytest.raises(ModelFormatError, match="model.skops is not a mainentity model file but a pickle"):
        load_trained_model(directory)


def test_a_fifo_config_is_not_a_regular_file_rather_than_missing(tmp_path, caplog):
    import os

    directory = _model_dir(tmp_path)
    (directory / "config.yaml").unlink()
    os.mkfifo(directory / "config.yaml")
    with pytest.raises(ValueError, match=r"config.yaml is not a regular file \(a FIFO\)"):
        load_trained_model(directory)
    (directory / "config.yaml").unlink()
    with pytest.raises(FileNotFoundError, match="config.yaml is missing"):
        load_trained_model(directory)
