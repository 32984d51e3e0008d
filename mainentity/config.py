"""YAML run configs loaded into typed, frozen dataclasses.

A config file is plain YAML with the sections ``data``, ``render``, ``cleaning``, ``model`` and
``output``. A ``defaults:`` list names config-group files (paths relative to the config file) that
are merged first, in order; the file's own keys then override them. Unknown keys are errors, so a
typo never falls back to a default silently.

Example (``configs/christianbook-msrbfn.yaml``)::

    defaults: [data/christianbook.yaml, model/msrbfn.yaml]
    name: christianbook-msrbfn

Relative dataset paths and the runs directory are relative to the working directory (run from the
repository root, where ``../shared/datasets`` is the shared data). The render cache is per user
(:func:`default_cache_dir`) unless ``render.cache_dir`` names a directory.
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
import yaml

SPLITS = ("random", "by-site", "none", "site-folds")
CLEANING_METHODS = ("none", "sst", "infodiscoverer")
#: ``render.policy``: render every page, or render few (a site's template samples and the pages whose HTML
#: does not settle them; :mod:`mainentity.render_few`).
RENDER_POLICIES = ("always", "auto")
#: ``render.reader``: how a page becomes a document: laid out in Chromium, or read from its HTML and
#: stylesheets alone (:func:`mainentity.render.static.read_static`: no layout, the boxes missing).
RENDER_READERS = ("chromium", "static")


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class DataConfig:
    """Which pages to use and how to split them.

    Attributes
    ----------
    datasets : tuple of str
        Dataset directories (``sites/<site-id>/``) or single site dumps.
    split : {"random", "by-site", "none", "site-folds"}
        ``random``: a seeded shuffle of all pages; ``by-site``: whole sites go to one side; ``none``:
        every page trains (a model to ship; with ``test_datasets``, the cross-site protocol);
        ``site-folds``: ``n_folds`` folds of whole sites, each tested by a model trained on the others
        (benchmark only).
    train_fraction : float
        Share of pages (or of sites with ``by-site``) used for training, in (0, 1); ``random`` and
        ``by-site`` only.
    test_datasets : tuple of str
        With ``split: none``: datasets whose labeled pages are the test pages (sites the model never saw).
    max_test_pages : int or None
        With ``test_datasets``: test on at most this many of their labeled pages, a seeded sample (a shop of
        2000 pages of one template says as much about it in 300, and every peer runs on the test pages).
    n_folds : int
        Folds of ``site-folds``, >= 2.
    max_pages_per_site : int or None
        Read at most this many pages of each site (in file order); ``None`` reads all.
    max_pages : int or None
        Use at most this many labeled pages in all, a seeded sample (for quick trials and smoke runs).
    base_url : str or None
        URL prefix for pages of dumps that have no manifest and no ``<base href>``.
    anchor_url_pattern : str or None
        Override: a regular expression whose first group identifies a page in URLs (christianbook:
        ``/pd/(\\d+)``); ``None`` matches links to pages by the rule learnt from each site dump
        (normalised URLs, tracking and session parameters dropped, a page-id path segment; see
        :func:`mainentity.linkgraph.link_graph`).
    """

    datasets: tuple[str, ...] = ()
    split: str = "random"
    train_fraction: float = 2 / 3
    test_datasets: tuple[str, ...] = ()
    max_test_pages: int | None = None
    n_folds: int = 5
    max_pages_per_site: int | None = None
    max_pages: int | None = None
    base_url: str | None = None
    anchor_url_pattern: str | None = None


#: The environment variable that names the render cache directory (``mainentity --cache-dir`` sets it,
#: so that the cluster workers a command starts use the same cache).
CACHE_DIR_ENV = "MAINENTITY_CACHE_DIR"


def default_cache_dir() -> str:
    """The render cache directory when a config names none: ``$MAINENTITY_CACHE_DIR`` when set, else
    ``render`` in platformdirs' per-user cache directory.

    On Linux ``$XDG_CACHE_HOME/mainentity/render`` (``~/.cache/mainentity/render`` by default), so
    the cache does not depend on where a command runs.

    >>> default_cache_dir().endswith("render") or CACHE_DIR_ENV in os.environ
    True
    """
    return os.environ.get(CACHE_DIR_ENV) or str(Path(platformdirs.user_cache_dir("mainentity")) / "render")


@dataclass(frozen=True)
class RenderConfig:
    """Renderer settings (see :class:`mainentity.render.settings.RenderSettings`) and the cache place.

    ``subresources`` (default true) serves the stylesheets, fonts and images each page requests from
    its site dump, so text blocks carry the page's own font sizes, weights and positions; ``false``
    blocks them all (and images are not requested), so pages are laid out with the browser's
    default styles plus their inline styles: pages that are styled by external stylesheets then
    lose the font sizes and weights the features rely on.

    ``cache_dir`` is ``None`` for the per-user cache (:func:`default_cache_dir`), or a directory
    (relative to the working directory) that overrides it; :meth:`cache_path` gives the one in use.
    A model directory's config may set none of it (:func:`model_config_from_dict`).

    There is no key for the Chromium executable: a config (and so a model, whose config it becomes)
    never chooses a program. The user names it (``mainentity --chromium PATH``, the environment
    variable ``MAINENTITY_CHROMIUM``, else ``chromium`` on ``PATH``;
    :func:`mainentity.render.settings.default_chromium`).

    ``policy`` (:data:`RENDER_POLICIES`): ``auto`` (the default) renders few: a sample of each template
    of a large site, and the pages whose HTML does not settle them (:mod:`mainentity.render_few`; it
    applies to the general model, every other model renders every page); ``always`` renders every
    page; ``predict --render`` overrides it. Training, ``evaluate`` (unless ``--render auto``), the
    benchmark (unless a system says ``render_policy: auto``: :class:`SystemConfig`) and ``explain`` render
    every page: they measure the model itself.

    ``javascript``: run the pages' scripts (``true``), never (``false``), or ``auto`` (the default): a
    page whose scripts-off rendering looks like an unfinished skeleton is rendered again with its
    scripts on in the same Chromium (:mod:`mainentity.render.scripts`). ``auto`` reads and fills the
    render cache entries of ``false`` (and of ``true`` for the pages it renders again), so switching
    between them renders nothing anew. A model's config keeps the value it was trained with (older
    models say ``false``, and are rendered so).

    ``reader`` (:data:`RENDER_READERS`): ``chromium`` lays every page out; ``static`` reads it from its
    HTML and stylesheets alone, without a browser (the static model ``general-static`` is trained so).
    """

    javascript: bool | str = "auto"
    timeout_s: float = 20.0
    concurrency: int = 4
    retries: int = 1
    cache_dir: str | None = None
    subresources: bool = True
    policy: str = "auto"
    reader: str = "chromium"

    def cache_path(self) -> str:
        """The render cache directory in use.

        >>> RenderConfig(cache_dir="/tmp/r").cache_path()
        '/tmp/r'
        >>> RenderConfig().cache_path() == default_cache_dir()
        True
        """
        return default_cache_dir() if self.cache_dir is None else self.cache_dir


@dataclass(frozen=True)
class CleaningConfig:
    """Site-level cleaning: ``method`` in :data:`CLEANING_METHODS` and its parameters.

    ``clean_training``: also clean the training pages before fitting the model. Off by default:
    cleaning takes away most of a site's negative examples (the template), and a model trained on
    uncleaned pages then ranks the cleaned test pages as well or better (benchmarks/results/cleaning/:
    sample shop ROUGE-1 F1 0.92 against 0.79 with SST when trained on cleaned pages).
    """

    method: str = "none"
    params: dict[str, Any] = field(default_factory=dict)
    clean_training: bool = False


@dataclass(frozen=True)
class ModelConfig:
    """The recogniser's registry name and hyper-parameters (see ``mainentity.recognizers``)."""

    name: str = "msrbfn"
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OutputConfig:
    """Where runs are written: ``<runs_dir>/<config name>/``."""

    runs_dir: str = "runs"


@dataclass(frozen=True)
class Config:
    """A whole run config. ``seed`` is the one source of randomness (split, models)."""

    name: str = "run"
    seed: int = 0
    data: DataConfig = field(default_factory=DataConfig)
    render: RenderConfig = field(default_factory=RenderConfig)
    cleaning: CleaningConfig = field(default_factory=CleaningConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    output: OutputConfig = field(default_factory=OutputConfig)


def _deep_merge(base: dict, override: dict) -> dict:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and key != "params":
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


#: Largest config file read (bytes): a config is a page of YAML; a larger "config" is a mistake (a data
#: file, a device such as /dev/zero) and would only fill memory.
MAX_CONFIG_BYTES = 1_000_000


def _config_text(path: Path) -> str:
    """A config file's text; ``ConfigError`` when it is not a regular file (a FIFO or a device, whose read
    could block or never end) or is larger than :data:`MAX_CONFIG_BYTES`."""
    if path.exists() and not path.is_file():
        kind = "a directory" if path.is_dir() else "a FIFO" if stat.S_ISFIFO(path.stat().st_mode) else "a special file"
        raise ConfigError(f"cannot read config {path}: not a regular file ({kind})")
    if path.is_file() and path.stat().st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"cannot read config {path}: {path.stat().st_size} bytes, more than a config's "
                          f"{MAX_CONFIG_BYTES}")
    return path.read_text(encoding="utf-8")


def _yaml_problem(error: yaml.YAMLError) -> str:
    """One line for a YAML error: where (1-based line and column) and what, without PyYAML's excerpt
    and caret lines.

    >>> try:
    ...     yaml.safe_load("model:\\n  name: [general\\n  x: 1\\n")
    ... except yaml.YAMLError as error:
    ...     print(_yaml_problem(error))
    line 3, column 4: expected ',' or ']', but got ':'
    """
    mark, problem = getattr(error, "problem_mark", None), getattr(error, "problem", None)
    if mark is None or not problem:
        return " ".join(str(error).split())
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"


def _read_yaml(path: Path, seen: tuple[Path, ...] = ()) -> dict:
    """Read one config file with its ``defaults`` merged in."""
    path = path.resolve()
    if path in seen:
        raise ConfigError(f"{path}: 'defaults' include themselves in a loop")
    try:
        raw = yaml.safe_load(_config_text(path))
    except OSError as error:
        raise ConfigError(f"cannot read config {path}: {error.strerror}") from error
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML: {_yaml_problem(error)}") from error
    raw = {} if raw is None else raw
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: a config must be a YAML mapping; got {type(raw).__name__}")
    defaults = raw.pop("defaults", [])
    if not isinstance(defaults, list):
        raise ConfigError(f"{path}: 'defaults' must be a list of file names; got {defaults!r}")
    merged: dict = {}
    for name in defaults:
        merged = _deep_merge(merged, _read_yaml(path.parent / str(name), (*seen, path)))
    return _deep_merge(merged, raw)


def _coerce(value: Any, annotation: Any, key: str, source: str) -> Any:
    """Check ``value`` against a field annotation (str, int, float, bool, optional, tuple, dict)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(annotation)
        if value is None and type(None) in options:
            return None
        inners = [option for option in options if option is not type(None)]
        for inner in inners[:-1]:  # the first option the value fits (bool | str: true, false or a word)
            try:
                return _coerce(value, inner, key, source)
            except ConfigError:
                continue
        return _coerce(value, inners[-1], key, source)
    if origin is tuple:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list):
            raise ConfigError(f"{source}: '{key}' must be a list; got {value!r}")
        return tuple(_coerce(item, typing.get_args(annotation)[0], key, source) for item in items)
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{source}: '{key}' must be a mapping; got {value!r}")
        return dict(value)
    if annotation is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{source}: '{key}' must be true or false; got {value!r}")
        return value
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{source}: '{key}' must be an integer; got {value!r}")
        return value
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{source}: '{key}' must be a number; got {value!r}")
        return float(value)
    if annotation is str:
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise ConfigError(f"{source}: '{key}' must be a string; got {value!r}")
        return str(value)
    raise TypeError(f"unsupported config annotation {annotation!r}")


def _build(cls: type, raw: dict, prefix: str, source: str):
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - fields)
    if unknown:
        raise ConfigError(
            f"{source}: unknown key '{prefix}{unknown[0]}'; valid keys here: {', '.join(sorted(fields))}"
        )
    values = {}
    for name, value in raw.items():
        annotation = hints[name]
        if dataclasses.is_dataclass(annotation):
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: '{prefix}{name}' must be a mapping; got {value!r}")
            values[name] = _build(annotation, value, f"{prefix}{name}.", source)
        else:
            values[name] = _coerce(value, annotation, f"{prefix}{name}", source)
    return cls(**values)


def _validate_data(data: DataConfig, prefix: str, source: str) -> None:
    if data.split not in SPLITS:
        raise ConfigError(f"{source}: '{prefix}split' must be one of {', '.join(SPLITS)}; got {data.split!r}")
    if not 0.0 < data.train_fraction < 1.0:
        raise ConfigError(f"{source}: '{prefix}train_fraction' must be in (0, 1); got {data.train_fraction}")
    if data.test_datasets and data.split != "none":
        raise ConfigError(f"{source}: '{prefix}test_datasets' needs '{prefix}split: none' (train on every page of "
                          f"'datasets'); got split {data.split!r}")
    if data.n_folds < 2:
        raise ConfigError(f"{source}: '{prefix}n_folds' must be >= 2; got {data.n_folds}")
    if data.max_test_pages is not None and (not data.test_datasets or data.max_test_pages < 1):
        raise ConfigError(f"{source}: '{prefix}max_test_pages' must be >= 1 and needs '{prefix}test_datasets'; "
                          f"got {data.max_test_pages}")


def _validate(config: Config, source: str) -> None:
    if not config.name or "/" in config.name or "\\" in config.name or config.name in (".", ".."):
        raise ConfigError(f"{source}: 'name' must be a plain name (it names the run directory); got {config.name!r}")
    _validate_data(config.data, "data.", source)
    if config.cleaning.method not in CLEANING_METHODS:
        raise ConfigError(
            f"{source}: 'cleaning.method' must be one of {', '.join(CLEANING_METHODS)}; "
            f"got {config.cleaning.method!r}"
        )
    if config.data.anchor_url_pattern is not None:
        try:
            re.compile(config.data.anchor_url_pattern)
        except re.error as error:
            raise ConfigError(f"{source}: 'data.anchor_url_pattern' is not a regular expression: {error}") from error
    for key in ("max_pages_per_site", "max_pages"):
        value = getattr(config.data, key)
        if value is not None and value < 1:
            raise ConfigError(f"{source}: 'data.{key}' must be >= 1; got {value}")
    if config.render.policy not in RENDER_POLICIES:
        raise ConfigError(f"{source}: 'render.policy' must be one of {', '.join(RENDER_POLICIES)}; "
                          f"got {config.render.policy!r}")
    if not isinstance(config.render.javascript, bool) and config.render.javascript != "auto":
        raise ConfigError(f"{source}: 'render.javascript' must be true, false or auto; "
                          f"got {config.render.javascript!r}")
    if config.render.reader not in RENDER_READERS:
        raise ConfigError(f"{source}: 'render.reader' must be one of {', '.join(RENDER_READERS)}; "
                          f"got {config.render.reader!r}")
    if config.render.concurrency < 1:
        raise ConfigError(f"{source}: 'render.concurrency' must be >= 1; got {config.render.concurrency}")
    if config.render.timeout_s <= 0:
        raise ConfigError(f"{source}: 'render.timeout_s' must be > 0; got {config.render.timeout_s}")


#: ``render`` keys a model directory's config may set: how pages are laid out and waited for, never a
#: program or a path (a model is data).
MODEL_RENDER_KEYS = ("javascript", "timeout_s", "concurrency", "retries", "subresources", "policy", "reader")

#: Keys that older mainentity versions wrote into every config with these values; read as absent.
_LEGACY_RENDER_VALUES = {"executable_path": "/usr/bin/chromium", "cache_dir": None}


def _without_legacy_render_keys(raw: dict, keys: tuple[str, ...]) -> dict:
    """``raw`` with those of ``keys`` dropped from its ``render`` section that hold their legacy value."""
    render = raw.get("render")
    if not isinstance(render, dict):
        return raw
    kept = {key: value for key, value in render.items()
            if not (key in keys and value == _LEGACY_RENDER_VALUES[key])}
    return {**raw, "render": kept}


def config_from_dict(raw: dict, source: str = "<dict>") -> Config:
    """Build a :class:`Config` from a mapping (as read from YAML, ``defaults`` already merged).

    Raises
    ------
    ConfigError
        On an unknown key, a value of the wrong type or an out-of-range value; the message names the
        source and the dotted key.

    Examples
    --------
    >>> config_from_dict({"name": "x", "data": {"split": "by-site"}}).data.split
    'by-site'
    >>> config_from_dict({"data": {"splitt": "random"}})
    Traceback (most recent call last):
    ...
    mainentity.config.ConfigError: <dict>: unknown key 'data.splitt'; valid keys here: anchor_url_pattern, \
base_url, datasets, max_pages, max_pages_per_site, max_test_pages, n_folds, split, test_datasets, \
train_fraction
    """
    raw = _without_legacy_render_keys(raw, ("executable_path",))
    render = raw.get("render")
    if isinstance(render, dict) and "executable_path" in render:
        raise ConfigError(
            f"{source}: 'render.executable_path' is not a config key: a config (and a model) never chooses a "
            "program; name Chromium with `mainentity --chromium PATH` or the environment variable "
            "MAINENTITY_CHROMIUM"
        )
    config = _build(Config, raw, "", source)
    _validate(config, source)
    return config


def model_config_from_dict(raw: object, source: str = "<dict>") -> Config:
    """Build the :class:`Config` of a model directory (its ``config.yaml``), which is data from anyone.

    As :func:`config_from_dict`, and a model's ``render`` section may set only
    :data:`MODEL_RENDER_KEYS`: a key that names a program or a path (the Chromium executable, the render
    cache directory) is refused, whatever its value, except the values older versions wrote into every
    model (``executable_path: /usr/bin/chromium``, ``cache_dir: null``), which are read as absent.

    Raises
    ------
    ConfigError
        If ``raw`` is not a mapping, or on a refused, unknown or invalid key (the message names it).

    Examples
    --------
    >>> model_config_from_dict({"render": {"timeout_s": 5, "executable_path": "/usr/bin/chromium"}}).render.timeout_s
    5.0
    >>> model_config_from_dict({"render": {"executable_path": "./run-me.sh"}}, "m/config.yaml")
    Traceback (most recent call last):
    ...
    mainentity.config.ConfigError: m/config.yaml: a model may not set 'render.executable_path' (a model is \
data: the programs and paths a run uses are the user's); remove the key
    """
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: a config must be a YAML mapping; got {type(raw).__name__}")
    raw = _without_legacy_render_keys(raw, tuple(_LEGACY_RENDER_VALUES))
    render = raw.get("render")
    refused = sorted(set(render) - set(MODEL_RENDER_KEYS)) if isinstance(render, dict) else []
    if refused:
        raise ConfigError(
            f"{source}: a model may not set 'render.{refused[0]}' (a model is data: the programs and paths "
            "a run uses are the user's); remove the key"
        )
    return config_from_dict(raw, source)


def load_config(path: str | Path) -> Config:
    """Read a YAML config file (with its ``defaults``) into a :class:`Config`.

    Raises
    ------
    ConfigError
        If the file cannot be read, is not YAML, or has an unknown or invalid key.
    """
    return config_from_dict(_read_yaml(Path(path)), source=str(path))


@dataclass(frozen=True)
class SystemConfig:
    """One system of a benchmark: a label for the report, its model, its cleaning and its render policy.

    Attributes
    ----------
    render_policy : {"always", "auto"}
        How the system's test pages are read (:data:`RENDER_POLICIES`): ``always`` renders every page; ``auto``
        renders few (:mod:`mainentity.render_few`: a general model without cleaning), as ``mainentity predict
        --render auto`` does.
    static_model : ModelConfig or None
        With ``auto``: the recogniser that answers the pages of small sites from their HTML, trained in each
        fold on the same training pages read statically (``render.reader: static``, as ``general-static``);
        ``None``: those pages are rendered.
    """

    label: str
    model: ModelConfig
    cleaning: CleaningConfig = field(default_factory=CleaningConfig)
    render_policy: str = "always"
    static_model: ModelConfig | None = None


@dataclass(frozen=True)
class BenchmarkConfig:
    """A benchmark: every system trained and scored on the same split of every dataset.

    Attributes
    ----------
    datasets : tuple of (str, DataConfig)
        ``(label, data section)`` per dataset; each is split on its own with ``seed``.
    systems : tuple of SystemConfig
        Our models (trained on each dataset's train split) and the peers (no training).
    render : RenderConfig
        Shared by all systems, so pages are rendered (and cached) once.
    n_resamples : int
        Bootstrap resamples for the 95% confidence intervals.
    results_dir : str
        The report goes to ``<results_dir>/<name>/``.
    """

    name: str = "benchmark"
    seed: int = 0
    datasets: tuple[tuple[str, DataConfig], ...] = ()
    systems: tuple[SystemConfig, ...] = ()
    render: RenderConfig = field(default_factory=RenderConfig)
    n_resamples: int = 1000
    results_dir: str = "benchmarks/results"


def _section(entry, section: str, base: Path, source: str, key: str = "") -> tuple[str, dict]:
    """A benchmark entry: a group file name (its ``section`` is used) or an inline mapping; ``key`` (the
    entry's dotted key, e.g. ``systems[2].static_model``) is named in the errors."""
    where = f"'{key}'" if key else f"a '{section}' entry"
    if isinstance(entry, str) and entry.strip():
        try:
            raw = _read_yaml(base / entry)
        except ConfigError as error:
            raise ConfigError(f"{source}: {where} names {entry}: {error}") from error
        if not isinstance(raw.get(section), dict):
            raise ConfigError(f"{source}: {where} names {entry}, which has no '{section}' mapping")
        return Path(entry).stem, raw[section]
    if not isinstance(entry, dict):
        raise ConfigError(f"{source}: {where} must be a file name or a mapping; got {entry!r}")
    return "", entry


def _validate_system(system: SystemConfig, prefix: str, source: str) -> None:
    """A benchmark system's cleaning method and render policy, and a static model only with ``auto``."""
    if system.cleaning.method not in CLEANING_METHODS:
        raise ConfigError(f"{source}: '{prefix}cleaning.method' must be one of {', '.join(CLEANING_METHODS)}")
    if system.render_policy not in RENDER_POLICIES:
        raise ConfigError(f"{source}: '{prefix}render_policy' must be one of {', '.join(RENDER_POLICIES)}; "
                          f"got {system.render_policy!r}")
    if system.static_model is not None and system.render_policy != "auto":
        raise ConfigError(f"{source}: '{prefix}static_model' needs '{prefix}render_policy: auto' (only the auto "
                          f"render policy reads pages statically); got render_policy {system.render_policy!r}")
    if system.render_policy == "auto" and system.cleaning.method != "none":
        raise ConfigError(f"{source}: '{prefix}render_policy: auto' needs no cleaning (site-level cleaning needs "
                          f"every page rendered); got cleaning.method {system.cleaning.method!r}")


def load_benchmark_config(path: str | Path) -> BenchmarkConfig:
    """Read a benchmark YAML file into a :class:`BenchmarkConfig`.

    ``datasets`` lists data group files (``data/christianbook.yaml``) or inline ``data`` mappings with
    a ``label``; ``systems`` lists ``{label, model, cleaning, render_policy, static_model}`` where ``model``
    and ``static_model`` are model group files or inline ``{name, params}`` mappings (see
    :class:`SystemConfig`). Paths are relative to the benchmark file.

    Raises
    ------
    ConfigError
        On an unknown key, an unreadable group file, a value of the wrong type, an unknown render policy, a
        ``static_model`` without ``render_policy: auto`` or a duplicate label; the message names the file and
        the key.
    """
    source = str(path)
    base = Path(path).parent
    raw = _read_yaml(Path(path))
    unknown = sorted(set(raw) - {f.name for f in dataclasses.fields(BenchmarkConfig)})
    if unknown:
        raise ConfigError(f"{source}: unknown key '{unknown[0]}'")
    datasets = []
    for i, entry in enumerate(raw.pop("datasets", []) or []):
        label, data = _section(entry, "data", base, source)
        data = dict(data)
        label = str(data.pop("label", label or f"dataset{i}"))
        datasets.append((label, _build(DataConfig, data, f"datasets[{i}].", source)))
        _validate_data(datasets[-1][1], f"datasets[{i}].", source)
    systems = []
    for i, entry in enumerate(raw.pop("systems", []) or []):
        if not isinstance(entry, dict) or "model" not in entry:
            raise ConfigError(f"{source}: 'systems[{i}]' must be a mapping with a 'model'; got {entry!r}")
        entry = dict(entry)
        model_label, model = _section(entry.pop("model"), "model", base, source, f"systems[{i}].model")
        entry["model"] = model
        static = entry.pop("static_model", None)
        if static is not None:
            key = f"systems[{i}].static_model"
            mapping = _section(static, "model", base, source, key)[1]
            if not mapping.get("name"):  # else ModelConfig's default recogniser, not the one meant
                raise ConfigError(f"{source}: '{key}' must name its model ('name: general'); got {static!r}")
            static = _build(ModelConfig, mapping, f"{key}.", source)
        entry.setdefault("label", model_label or model.get("name", f"system{i}"))
        systems.append(dataclasses.replace(_build(SystemConfig, entry, f"systems[{i}].", source),
                                           static_model=static))
        _validate_system(systems[-1], f"systems[{i}].", source)
    for kind, labels in (("dataset", [d[0] for d in datasets]), ("system", [s.label for s in systems])):
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        if duplicates:
            raise ConfigError(f"{source}: {kind} label {duplicates[0]!r} is used twice")
    rest = _build(BenchmarkConfig, raw, "", source)
    return dataclasses.replace(rest, datasets=tuple(datasets), systems=tuple(systems))


def config_to_dict(config: Config) -> dict:
    """The resolved config as plain data, ready for ``yaml.safe_dump`` (tuples become lists)."""

    def plain(value):
        if isinstance(value, (tuple, list)):
            return [plain(item) for item in value]
        if isinstance(value, dict):
            return {key: plain(item) for key, item in value.items()}
        return value

    return plain(dataclasses.asdict(config))
