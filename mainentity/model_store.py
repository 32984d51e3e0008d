"""The model-directory store: write a trained model to a directory and load it back.

A model directory::

    <name>/
        model.skops        the fitted recogniser, the per-site cleaners and the digests of the
                           training pages (a safe model file: :mod:`mainentity.model_io`)
        config.yaml        the resolved config
        meta.json          package version, counts and timings (seconds)

Models that ship with the package live in :data:`PRETRAINED_DIR` and are named by their directory
name (:func:`resolve_model`).

``config.yaml`` records how the model was trained: editing its hyper-parameters changes nothing, except
``model.params.abstain_below``, which acts at prediction time only (:func:`set_abstain_below`): the value
in ``config.yaml`` is the one the loaded model uses.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from mainentity._files import write_text_atomic
from mainentity.config import Config, ConfigError, config_to_dict, model_config_from_dict
from mainentity.model_io import MODEL_FILE, ModelFormatError, load_model_file, save_model_file

if TYPE_CHECKING:  # only a type here: importing the recognisers (scikit-learn, scipy) takes seconds
    from mainentity.recognizers.base import Recognizer


@dataclass(frozen=True)
class TrainedModel:
    """A model directory loaded back: its config, recogniser, per-site cleaners and training pages.

    ``training_pages`` holds :func:`mainentity.sitedump.page_digest` of each page the recogniser was
    fitted on. ``directory`` is ``None`` for a model fitted in memory and not saved (a benchmark fold's).
    """

    directory: Path | None
    config: Config
    recognizer: Recognizer
    cleaners: dict
    training_pages: frozenset[str] = frozenset()


#: Where the models that ship with the package live: ``pretrained/<name>/`` beside this module.
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"

#: The model used when a command names none: the general recogniser trained on all shared labeled data.
DEFAULT_MODEL = "general"


def pretrained_names() -> list[str]:
    """Names of the models that ship with the package (directories under :data:`PRETRAINED_DIR`).

    >>> "general" in pretrained_names()
    True
    """
    if not PRETRAINED_DIR.is_dir():
        return []
    return sorted(path.name for path in PRETRAINED_DIR.iterdir() if (path / MODEL_FILE).is_file())


def is_model_reference(model: str | Path) -> bool:
    """Whether ``model`` names a model: a directory with ``config.yaml``, or a shipped model's name.

    >>> is_model_reference("general"), is_model_reference("datasets/sample-shop")
    (True, False)
    """
    path = Path(model)
    return (path / "config.yaml").is_file() or (not path.exists() and str(model) in pretrained_names())


def resolve_model(model: str | Path | None) -> Path:
    """The model directory a command means: a directory, the name of a shipped model, or the default.

    Parameters
    ----------
    model : str, Path or None
        A model directory written by :func:`train`; else the name of a model that ships with the package
        (:func:`pretrained_names`); ``None`` for :data:`DEFAULT_MODEL`.

    Returns
    -------
    directory : Path

    Raises
    ------
    FileNotFoundError
        If ``model`` is neither a directory nor a shipped model's name (the message lists those).

    Examples
    --------
    >>> resolve_model(None).name
    'general'
    """
    if model is None:
        model = DEFAULT_MODEL
    if Path(model).is_dir():
        return Path(model)
    if str(model) in pretrained_names():
        return PRETRAINED_DIR / str(model)
    raise FileNotFoundError(
        f"{model} is neither a model directory nor a model that ships with mainentity "
        f"({', '.join(pretrained_names()) or 'none installed'})"
    )


def is_shipped_model(directory: str | Path) -> bool:
    """Whether a model directory is one of the models shipped in a mainentity package: under
    :data:`PRETRAINED_DIR`, however the path is spelt (``mainentity/pretrained/general``, a symlink), or
    under the ``pretrained`` folder of another copy of the package (a second checkout). Nothing may be
    written there: a command's outputs go elsewhere.

    >>> is_shipped_model(PRETRAINED_DIR / "general"), is_shipped_model("runs/general")
    (True, False)
    """
    parent = Path(directory).resolve().parent
    return parent == PRETRAINED_DIR or (
        parent.name == PRETRAINED_DIR.name and parent.parent.name == PRETRAINED_DIR.parent.name
        and (parent.parent / "__init__.py").is_file()
    )


def ship_model(run_dir: str | Path, name: str | None = None) -> Path:
    """Copy a trained model (model file, ``config.yaml``, ``meta.json``) into the package's shipped models.

    Files are replaced atomically, one by one; other files of the shipped model's directory (its notes
    on data sources) are kept.

    Returns
    -------
    directory : Path
        ``PRETRAINED_DIR / name`` (``name`` defaults to the run directory's name).

    Raises
    ------
    FileNotFoundError
        If the run directory lacks the model file, ``config.yaml`` or ``meta.json``.
    """
    run_dir = Path(run_dir)
    target = PRETRAINED_DIR / (name or run_dir.name)
    target.mkdir(parents=True, exist_ok=True)
    for file_name in (MODEL_FILE, "config.yaml", "meta.json"):
        temporary = target / (file_name + ".tmp")
        shutil.copyfile(run_dir / file_name, temporary)
        os.replace(temporary, target / file_name)
    return target


def write_model_file(model: TrainedModel, path: Path) -> Path:
    """Write the model file of a model directory: the recogniser, the cleaners and the training pages'
    digests (sorted), through :func:`mainentity.model_io.save_model_file`.

    Raises
    ------
    mainentity.model_io.UntrustedModelError
        If the recogniser holds a type a model file cannot hold (nothing is written then).
    """
    state = {"recognizer": model.recognizer, "cleaners": model.cleaners, "training_pages": sorted(model.training_pages)}
    return save_model_file(state, path)


def save_model(model: TrainedModel, directory: str | Path) -> Path:
    """Write a model directory that :func:`load_trained_model` reads: the model file, ``config.yaml``, ``meta.json``.

    The model file holds the recogniser as it is now (parameters changed with ``set_params``
    included), the cleaners and the training pages' digests; ``config.yaml`` is the model's config with
    ``model.params`` set to the recogniser's current parameters; ``meta.json`` is copied from the
    model's own directory when it has one. Each file is written atomically.

    Parameters
    ----------
    model : TrainedModel
    directory : str or Path
        Created if missing; the files named above are replaced.

    Returns
    -------
    directory : Path

    Raises
    ------
    mainentity.model_io.UntrustedModelError
        If the recogniser holds a type a model file cannot hold (nothing is written then).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    params = model.recognizer.get_params(deep=False)
    config = dataclasses.replace(model.config, model=dataclasses.replace(model.config.model, params=params))
    write_model_file(model, directory / MODEL_FILE)
    write_text_atomic(directory / "config.yaml", yaml.safe_dump(portable_config(config), sort_keys=False))
    meta = model.directory / "meta.json" if model.directory is not None else None
    if meta is not None and meta.is_file() and meta.resolve() != (directory / "meta.json").resolve():
        write_text_atomic(directory / "meta.json", meta.read_text(encoding="utf-8"))
    return directory


def _require_regular_file(directory: Path, name: str) -> None:
    """Refuse a model directory whose ``name`` is missing, or is not a regular file (a FIFO, a directory,
    a device: reading one could block or mislead), naming the file and what it is."""
    path = directory / name
    if not path.exists():
        raise FileNotFoundError(f"{directory} is not a model directory: {name} is missing")
    if not path.is_file():
        kind = "a directory" if path.is_dir() else "a FIFO" if stat.S_ISFIFO(path.stat().st_mode) else "a special file"
        raise ValueError(f"{path} is not a regular file ({kind}); a model directory's {name} must be one")


def _read_model_config(path: Path) -> Config:
    """A model directory's ``config.yaml``, read as data (:func:`mainentity.config.model_config_from_dict`).

    Raises
    ------
    ConfigError
        If it is not YAML (a tag such as ``!!python/object`` included: safe YAML builds no object), or
        sets a key a model may not set.
    """
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        reason = " ".join(str(error).split())
        raise ConfigError(f"{path}: not a model config (refused, nothing was run): {reason}") from error
    return model_config_from_dict(raw, str(path))


def model_config(model_dir: str | Path | None = None) -> Config:
    """The config of a model directory (or of a shipped model, by name: :func:`resolve_model`), read
    without loading the model: to check what a command asks of the model before the seconds it takes.

    Raises
    ------
    FileNotFoundError
        If the model is not found, or its directory has no ``config.yaml``.
    ValueError
        If ``config.yaml`` is not a regular file.
    mainentity.config.ConfigError
        As :func:`load_trained_model`.

    >>> model_config("general-static").render.reader
    'static'
    """
    directory = resolve_model(model_dir)
    _require_regular_file(directory, "config.yaml")
    return _read_model_config(directory / "config.yaml")


def portable_config(config: Config) -> dict:
    """The config as a model directory keeps it: without the user's render cache directory (a model
    names no path; :func:`mainentity.config.model_config_from_dict` would refuse it).

    >>> from mainentity.config import RenderConfig
    >>> portable_config(Config(render=RenderConfig(cache_dir="/tmp/r")))["render"]["cache_dir"] is None
    True
    """
    return config_to_dict(dataclasses.replace(config, render=dataclasses.replace(config.render, cache_dir=None)))


def load_trained_model(model_dir: str | Path | None = None) -> TrainedModel:
    """Load a model directory written by :func:`train`, or a shipped model by name (see :func:`resolve_model`).

    The model file is read with :func:`mainentity.model_io.load_model_file`, which builds no object
    of an untrusted type, so a model directory from someone else can be opened safely.

    Raises
    ------
    FileNotFoundError
        If the directory has no ``config.yaml`` or no model file.
    ValueError
        If either is not a regular file (a FIFO, a directory).
    mainentity.model_io.ModelFormatError
        If the model file is an old ``model.joblib`` pickle (never loaded) or has another format
        version; the message says what to do.
    mainentity.model_io.UntrustedModelError
        If the model file names a type that is not trusted.
    mainentity.config.ConfigError
        If ``config.yaml`` is not YAML or sets what a model may not set (a program or a path).
    """
    directory = resolve_model(model_dir)
    _require_regular_file(directory, "config.yaml")
    if not (directory / MODEL_FILE).exists():
        if (directory / "model.joblib").is_file():
            raise ModelFormatError(
                f"{directory} holds a model.joblib pickle from an older mainentity; pickles can run code when "
                f"loaded, so it is not opened: retrain with `mainentity train {directory / 'config.yaml'}` "
                f"(writes {MODEL_FILE})"
            )
    _require_regular_file(directory, MODEL_FILE)
    config = _read_model_config(directory / "config.yaml")
    saved = load_model_file(directory / MODEL_FILE)
    if config.model.params.get("abstain_below", 0.0) != saved["recognizer"].get_params().get("abstain_below", 0.0):
        set_abstain_below(saved["recognizer"], config.model.params["abstain_below"],
                          f"{directory / 'config.yaml'}: model.params.abstain_below")
    return TrainedModel(
        directory, config, saved["recognizer"], saved["cleaners"], frozenset(saved.get("training_pages", ()))
    )


def set_abstain_below(recognizer: Recognizer, value, where: str = "abstain_below") -> None:
    """Make ``recognizer`` answer nothing on pages scored below ``value`` (its ``abstain_below``).

    Parameters
    ----------
    recognizer : Recognizer
        A fitted recogniser whose scores are probabilities and that has an ``abstain_below`` parameter
        (the general recogniser).
    value : float
        In [0, 1]; 0 never abstains.
    where : str
        Where the value comes from, for the error message.

    Raises
    ------
    ValueError
        If ``value`` is not a number in [0, 1], or the recogniser has no ``abstain_below`` or its scores
        are not probabilities.

    Examples
    --------
    >>> from mainentity.recognizers.baselines import FirstH1Recognizer
    >>> set_abstain_below(FirstH1Recognizer(), 0.5, "--abstain-below")
    Traceback (most recent call last):
    ...
    ValueError: --abstain-below: the FirstH1Recognizer model has no abstain_below (its scores are not probabilities)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{where} must be a probability in [0, 1]; got {value!r}")
    if "abstain_below" not in recognizer.get_params() or not recognizer.scores_are_probabilities():
        raise ValueError(f"{where}: the {type(recognizer).__name__} model has no abstain_below (its scores are "
                         "not probabilities)")
    recognizer.set_params(abstain_below=float(value))


#: The shipped model that answers the pages of small sites from their HTML under ``render.policy: auto``
#: (:mod:`mainentity.render_few`): the general recogniser trained on static readings.
STATIC_MODEL = "general-static"


def load_static_model() -> TrainedModel | None:
    """The shipped static model (:data:`STATIC_MODEL`), or ``None`` when it is not installed.

    >>> load_static_model() is None or load_static_model().config.model.name == "general"
    True
    """
    return load_trained_model(STATIC_MODEL) if STATIC_MODEL in pretrained_names() else None
