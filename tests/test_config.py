import os
from pathlib import Path

import pytest

from mainentity.config import ConfigError, RenderConfig, config_from_dict, load_benchmark_config, load_config
from mainentity.recognizers.base import Recognizer, make_recognizer

CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"
# Run configs; benchmark*.yaml files are benchmark configs (systems x datasets).
CONFIGS = sorted(path for path in CONFIG_DIR.glob("*.yaml") if not path.name.startswith("benchmark"))
BENCHMARK_CONFIGS = sorted(CONFIG_DIR.glob("benchmark*.yaml"))


def test_there_are_configs():
    names = {path.name for path in CONFIGS}
    assert {"sample-msrbfn.yaml", "christianbook-msrbfn.yaml", "readability-msrbfn.yaml"} <= names


@pytest.mark.parametrize("path", CONFIGS, ids=lambda path: path.name)
def test_every_config_loads_and_builds_its_model(path):
    config = load_config(path)
    assert config.name == path.stem
    assert config.data.datasets
    recognizer = make_recognizer(config.model.name, **config.model.params)
    assert isinstance(recognizer, Recognizer)
    assert recognizer.get_params() == {**recognizer.get_params(), **config.model.params}


def test_defaults_are_merged_and_overridden(tmp_path):
    (tmp_path / "group.yaml").write_text("data:\n  split: by-site\n  train_fraction: 0.5\nseed: 3\n")
    (tmp_path / "run.yaml").write_text("defaults: [group.yaml]\nname: x\ndata:\n  train_fraction: 0.25\n")
    config = load_config(tmp_path / "run.yaml")
    assert (config.data.split, config.data.train_fraction, config.seed) == ("by-site", 0.25, 3)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"modle": {}}, "unknown key 'modle'"),
        ({"render": {"timeout": 3}}, "unknown key 'render.timeout'"),
        ({"render": {"javascript": "yes"}}, "'render.javascript' must be true, false or auto"),
        ({"render": {"javascript": 1}}, "'render.javascript' must be true, false or auto"),
        ({"render": {"subresources": "off"}}, "'render.subresources' must be true or false"),
        ({"data": {"split": "by-page"}}, "'data.split' must be one of random, by-site"),
        ({"data": {"train_fraction": 1.5}}, "'data.train_fraction' must be in (0, 1)"),
        ({"cleaning": {"method": "vips"}}, "'cleaning.method' must be one of none, sst, infodiscoverer"),
        ({"seed": 1.5}, "'seed' must be an integer"),
        ({"data": {"max_test_pages": 300}}, "'data.max_test_pages' must be >= 1 and needs 'data.test_datasets'"),
        ({"data": {"split": "none", "test_datasets": ["x"], "max_test_pages": 0}}, "'data.max_test_pages' must be"),
        ({"name": "../../etc/x"}, "'name' must be a plain name"),
    ],
)
def test_bad_configs_name_the_key(raw, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        config_from_dict(raw)


def test_unreadable_and_non_mapping_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "missing.yaml")
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="must be a YAML mapping"):
        load_config(tmp_path / "list.yaml")


def test_unknown_model_parameter_is_named():
    with pytest.raises(ValueError, match="unknown parameter"):
        make_recognizer("msrbfn", m3=4)
    with pytest.raises(ValueError, match="valid names"):
        make_recognizer("no-such-model")


@pytest.mark.parametrize("path", BENCHMARK_CONFIGS, ids=lambda path: path.name)
def test_every_benchmark_config_loads_and_builds_its_models(path):
    config = load_benchmark_config(path)
    assert config.datasets and config.systems
    for system in config.systems:
        for model in (system.model, system.static_model or system.model):
            assert isinstance(make_recognizer(model.name, **model.params), Recognizer)


def test_benchmark_config_errors_name_the_entry(tmp_path):
    twice = "  - {label: a, model: {name: tta}}\n"
    (tmp_path / "b.yaml").write_text("systems:\n" + twice * 2)
    with pytest.raises(ConfigError, match="system label 'a' is used twice"):
        load_benchmark_config(tmp_path / "b.yaml")
    (tmp_path / "c.yaml").write_text("systems:\n  - {label: a, model: {name: tta}, clean: {}}\n")
    with pytest.raises(ConfigError, match="unknown key 'systems\\[0\\].clean'"):
        load_benchmark_config(tmp_path / "c.yaml")


def test_a_benchmark_system_may_render_few_with_a_static_model():
    config = load_benchmark_config(CONFIG_DIR / "benchmark-cross-site.yaml")
    systems = {system.label: system for system in config.systems}
    auto = systems["general-auto"]
    assert (auto.model, auto.render_policy) == (systems["general"].model, "auto")
    assert auto.static_model == load_config(CONFIG_DIR / "general-static.yaml").model
    assert (systems["general"].render_policy, systems["general"].static_model) == ("always", None)


@pytest.mark.parametrize(("system", "message"), [
    ("{label: a, model: {name: general}, render_policy: sometimes}",
     r"b.yaml: 'systems\[0\].render_policy' must be one of always, auto; got 'sometimes'"),
    ("{label: a, model: {name: general}, static_model: {name: general}}",
     r"b.yaml: 'systems\[0\].static_model' needs 'systems\[0\].render_policy: auto'"),
    ("{label: a, model: {name: general}, render_policy: always, static_model: {name: general}}",
     r"'systems\[0\].static_model' needs .*got render_policy 'always'"),
    ("{label: a, model: {name: general}, render_policy: auto, static_model: model/missing.yaml}",
     r"b.yaml: 'systems\[0\].static_model' names model/missing.yaml: cannot read config .*missing.yaml"),
    ("{label: a, model: {name: general}, render_policy: auto, static_model: 3}",
     r"b.yaml: 'systems\[0\].static_model' must be a file name or a mapping; got 3"),
    ("{label: a, model: {name: general}, render_policy: auto, static_model: {name: general, parms: {}}}",
     r"b.yaml: unknown key 'systems\[0\].static_model.parms'"),
    ("{label: a, model: {name: general}, render_policy: auto, static_model: {}}",
     r"b.yaml: 'systems\[0\].static_model' must name its model \('name: general'\); got \{\}"),
    ("{label: a, model: {name: general}, render_policy: auto, static_model: ''}",
     r"b.yaml: 'systems\[0\].static_model' must be a file name or a mapping; got ''"),
    ("{label: a, model: {name: general}, render_policy: auto, static_model: data.yaml}",
     r"b.yaml: 'systems\[0\].static_model' names data.yaml, which has no 'model' mapping"),
    ("{label: a, model: model/missing.yaml}",
     r"b.yaml: 'systems\[0\].model' names model/missing.yaml: cannot read config"),
    ("{label: a, model: {name: general}, render_policy: auto, cleaning: {method: sst}}",
     r"'systems\[0\].render_policy: auto' needs no cleaning"),
])
def test_benchmark_render_policy_errors_name_the_file_and_key(tmp_path, system, message):
    (tmp_path / "data.yaml").write_text("data: {split: random}\n")
    (tmp_path / "b.yaml").write_text(f"systems:\n  - {system}\n")
    with pytest.raises(ConfigError, match=message):
        load_benchmark_config(tmp_path / "b.yaml")


def test_render_subresources_switch_reaches_the_renderer():
    from mainentity.pipeline import render_settings

    assert render_settings(config_from_dict({}).render).subresources is True
    assert (RenderConfig().javascript, render_settings(RenderConfig()).javascript) == ("auto", "auto")
    assert render_settings(config_from_dict({"render": {"javascript": False}}).render).javascript is False
    off = config_from_dict({"render": {"subresources": False}})
    assert (off.render.subresources, render_settings(off.render).subresources) == (False, False)


def test_render_cache_is_per_user_unless_the_config_names_one(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert RenderConfig().cache_path() == str(tmp_path / "xdg" / "mainentity" / "render")
    assert config_from_dict({}).render.cache_path() == str(tmp_path / "xdg" / "mainentity" / "render")
    assert config_from_dict({"render": {"cache_dir": "/data/render"}}).render.cache_path() == "/data/render"


def test_a_config_that_is_a_fifo_or_a_device_is_refused_without_reading_it(tmp_path):
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)  # reading it would block for ever
    with pytest.raises(ConfigError, match=r"c\.yaml: not a regular file \(a FIFO\)"):
        load_config(fifo)
    (tmp_path / "z.yaml").symlink_to("/dev/zero")  # reading it would never end
    with pytest.raises(ConfigError, match=r"not a regular file \(a special file\)"):
        load_config(tmp_path / "z.yaml")
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * 1_000_000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="more than a config's 1000000"):
        load_config(big)
