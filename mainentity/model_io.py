"""Model files that cannot run code when opened: skops with an explicit list of trusted types.

A model file holds one plain ``dict`` (typically ``{"recognizer": ..., "cleaners": {...}}``) stored
with :mod:`skops.io`: arrays as ``.npy`` members read without pickle, builtins as JSON, and objects as
their class name plus their attribute dict. Loading rebuilds an object only when its type is
trusted, and the trusted types are derived, not listed by hand:

- scikit-learn-style estimators (subclasses of :class:`sklearn.base.BaseEstimator`) defined in
  ``mainentity`` or ``sklearn`` modules: every registered recogniser and cleaner, the models they
  wrap (``MSRBFN``, ``TitlerClassifier``) and the scikit-learn estimators inside them; their
  ``__init__`` only stores arguments (the scikit-learn contract), so rebuilding one runs no
  side effect;
- the helpers of scikit-learn estimators (``KDTree``, ``BallTree``, distance metrics, decision trees,
  the tree predictors of histogram gradient boosting) from :data:`SKLEARN_HELPER_MODULES`;
- what skops trusts by default (builtins, numpy arrays and scalars), and numpy dtypes
  (:data:`NUMPY_TYPES`: skops rebuilds one as the dtype of an empty array read from ``.npy`` without
  pickle; ``SimpleImputer``, in the general recogniser's ranker on pages read without layout, keeps
  the dtype it was fitted on).

Any other type (a function, ``os.system``, a class of another package, a mainentity class that is
not an estimator) makes :func:`load_model_file` raise :class:`UntrustedModelError` before anything
is built. So a recogniser whose fitted state is numpy arrays, builtins, scikit-learn estimators and
mainentity estimators saves and loads with no extra code: register it in
:mod:`mainentity.recognizers.base` and keep to that state. Other helper objects must be turned into
builtins by the estimator's ``__getstate__``/``__setstate__`` (as
:class:`~mainentity.cleaning.sst.SiteStyleTreeCleaner` does with its tree nodes).

A file written before a module of :data:`RENAMED_MODULES` was renamed names its types under the old
module; loading reads them from the new one (the classes kept their names), so models saved earlier
still load. The old names are never imported.

The file's zip comment is a JSON header ``{"format": "mainentity-model", "format_version": N, ...}``,
read before the body; a file without it (an old ``model.joblib`` pickle, another program's zip) or
with another version is refused with a message saying what to do.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import sys
import zipfile
from pathlib import Path

from mainentity._version import __version__

#: Name of a model file inside a model directory.
MODEL_FILE = "model.skops"
#: What the header's ``format`` says.
FORMAT_NAME = "mainentity-model"
#: Version of the file layout; raise it when a change makes old files unreadable.
FORMAT_VERSION = 1
#: scikit-learn modules of helper types that estimators hold (trees, distance metrics; the
#: ``TreePredictor`` of each tree of a ``HistGradientBoostingClassifier``, as in the general
#: recogniser's candidate ranker). Their objects are rebuilt from arrays and builtins, with no code run.
SKLEARN_HELPER_MODULES = (
    "sklearn.neighbors._kd_tree",
    "sklearn.neighbors._ball_tree",
    "sklearn.metrics._dist_metrics",
    "sklearn.tree._tree",
    "sklearn.ensemble._hist_gradient_boosting.predictor",
)

#: Modules renamed since model files were first written, old name -> new name (``models/msrbfn.py`` and
#: ``models/titler.py`` shared their names with the recognisers that wrap them).
RENAMED_MODULES = {
    "mainentity.models.msrbfn": "mainentity.models.msrbfn_network",
    "mainentity.models.titler": "mainentity.models.titler_classifier",
}

#: Types of numpy that skops does not trust by default and a model file may hold (see the module notes).
NUMPY_TYPES = ("numpy.dtype",)


class UntrustedModelError(ValueError):
    """A model file names a type that loading would have to trust but does not (nothing was built)."""


class ModelFormatError(ValueError):
    """A file is not a mainentity model file, or one of a format version this version cannot read."""


def save_model_file(state: dict, path: str | Path) -> Path:
    """Write ``state`` to a model file (atomically: a temporary file, then a rename).

    Parameters
    ----------
    state : dict
        str keys; values of trusted types only (see the module notes).
    path : str or Path
        The file to write (conventionally ``<model dir>/model.skops``).

    Returns
    -------
    path : Path

    Raises
    ------
    UntrustedModelError
        If ``state`` holds a type that :func:`load_model_file` would refuse; nothing is written.

    Examples
    --------
    >>> import numpy as np, tempfile
    >>> target = Path(tempfile.mkdtemp()) / "m.skops"
    >>> _ = save_model_file({"weights": np.arange(3.0)}, target)
    >>> load_model_file(target)["weights"]
    array([0., 1., 2.])
    """
    sio = _skops_io()
    path = Path(path)
    data = sio.dumps(state, compression=zipfile.ZIP_DEFLATED)
    untrusted = [name for name in sio.get_untrusted_types(data=data) if not is_trusted_type(name)]
    if untrusted:
        raise UntrustedModelError(
            f"cannot save a model holding {', '.join(untrusted)}: a model file may hold numpy arrays, builtins "
            "and scikit-learn/mainentity estimators only (see mainentity.model_io)"
        )
    header = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "mainentity_version": __version__}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    with zipfile.ZipFile(tmp, "a") as archive:
        archive.comment = json.dumps(header).encode("utf-8")
    os.replace(tmp, path)
    return path


def read_header(path: str | Path) -> dict:
    """The JSON header of a model file, without loading its body.

    Raises
    ------
    ModelFormatError
        If the file is not a zip archive with a mainentity header, or its format version is not
        :data:`FORMAT_VERSION` (the message says what to do).

    Examples
    --------
    >>> import tempfile
    >>> target = save_model_file({}, Path(tempfile.mkdtemp()) / "m.skops")
    >>> read_header(target)["format_version"] == FORMAT_VERSION
    True
    """
    path = Path(path)
    retrain = "retrain it with `mainentity train CONFIG` (a run directory's config.yaml is its config)"
    try:
        with zipfile.ZipFile(path) as archive:
            comment = archive.comment
    except zipfile.BadZipFile as error:
        raise ModelFormatError(_not_a_zip(path, retrain)) from error
    try:
        header = json.loads(comment.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise ModelFormatError(f"{path} is not a mainentity model file (no {FORMAT_NAME!r} header); {retrain}")
    version = header.get("format_version")
    if version != FORMAT_VERSION:
        if isinstance(version, int) and version > FORMAT_VERSION:
            advice = f"upgrade mainentity (it was written by mainentity {header.get('mainentity_version', '?')})"
        else:
            advice = retrain
        raise ModelFormatError(
            f"{path} has model format version {version!r}; mainentity {__version__} reads version "
            f"{FORMAT_VERSION} only: {advice}"
        )
    return header


def _not_a_zip(path: Path, retrain: str) -> str:
    """Why a file zipfile cannot open is no model file: a zip archive cut short (it starts as one), a
    pickle (an old ``model.joblib``: never loaded, it can run code), or something else."""
    with path.open("rb") as file:
        start = file.read(4)
    size = path.stat().st_size
    if start == b"PK\x03\x04":
        return (f"{path} is truncated or corrupt: a zip archive without its end ({size} bytes), as a copy or "
                f"download cut short leaves it; copy the model again, or {retrain}")
    if start[:1] == b"\x80":
        return (f"{path} is not a mainentity model file but a pickle (an old model.joblib?); it is never loaded "
                f"because a pickle can run code: {retrain}")
    return f"{path} is not a mainentity model file (not a zip archive: {size} bytes, starting {start!r}); {retrain}"


def load_model_file(path: str | Path) -> dict:
    """Load a model file written by :func:`save_model_file`, trusting only the types of the module notes.

    Parameters
    ----------
    path : str or Path
        A file written by :func:`save_model_file`.

    Returns
    -------
    state : dict

    Raises
    ------
    ModelFormatError
        If the file is not a model file, has another format version (see :func:`read_header`), or a body
        skops cannot read (a damaged or crafted schema: a missing key, no protocol); one line.
    UntrustedModelError
        If the file names a type that is not trusted; no object has been built then.
    """
    sio = _skops_io()
    read_header(path)
    renamed = _with_current_module_names(Path(path))
    try:
        untrusted = sio.get_untrusted_types(file=path) if renamed is None else sio.get_untrusted_types(data=renamed)
    except Exception as error:  # noqa: BLE001 - any schema skops cannot read is a damaged or crafted file
        untrusted = [name for name in _schema_types(renamed or path) if name.split(".")[0] not in _MODEL_PACKAGES]
        if not untrusted:  # else refused by name below: what a crafted file names says more than the damage
            raise ModelFormatError(f"{path}: {_damage(error)}; it was not loaded") from error
    refused = [name for name in untrusted if not is_trusted_type(name)]
    if refused:
        raise UntrustedModelError(
            f"{path} names types that are not trusted: {', '.join(refused)}; it was not loaded. A mainentity "
            "model holds arrays, builtins and scikit-learn/mainentity estimators only"
        )
    try:
        state = sio.load(path, trusted=untrusted) if renamed is None else sio.loads(renamed, trusted=untrusted)
    except Exception as error:  # noqa: BLE001 - only trusted types are built, so this is a malformed body
        raise ModelFormatError(f"{path}: {_damage(error)}; it was not loaded") from error
    if not isinstance(state, dict):
        raise ModelFormatError(f"{path}: the model body is a {type(state).__name__}, not a dict")
    return state


#: Top-level packages of every type a mainentity model file holds (skops's plain values and arrays, the
#: estimators): a type from any other package in a schema skops cannot read is named when it is refused.
_MODEL_PACKAGES = frozenset({"builtins", "numpy", "scipy", "sklearn", "mainentity"})


def _schema_types(model_file: str | Path | bytes) -> list[str]:
    """Every ``module.Class`` a model file's skops schema names, read without skops (which stops at the
    first key it misses in a crafted schema, before it has named an untrusted type); none when the
    schema cannot be read at all.

    >>> import json, io, zipfile
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as archive:
    ...     archive.writestr("schema.json", json.dumps({"__module__": "builtins", "__class__": "dict", "content": {
    ...         "f": {"__module__": "posix", "__class__": "system", "__loader__": "TypeNode"}}}))
    >>> _schema_types(buffer.getvalue())
    ['builtins.dict', 'posix.system']
    """
    try:
        with zipfile.ZipFile(io.BytesIO(model_file) if isinstance(model_file, bytes) else model_file) as archive:
            schema = json.loads(archive.read("schema.json"))
    except (KeyError, ValueError, RecursionError, OSError, zipfile.BadZipFile):
        return []
    names, stack = set(), [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            module, name = node.get("__module__"), node.get("__class__")
            if isinstance(module, str) and isinstance(name, str):
                names.add(f"{module}.{name}")
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return sorted(names)


def _with_current_module_names(path: Path) -> bytes | None:
    """The model file's bytes with the old module names of :data:`RENAMED_MODULES` in its skops schema
    replaced by the new ones, or ``None`` when it names none of them (or cannot be read as a zip archive
    with a JSON schema: skops then says what is wrong). Nothing is imported or built here."""
    try:
        with zipfile.ZipFile(path) as archive:
            raw = archive.read("schema.json")
            if not any(f'"{old}"'.encode() in raw for old in RENAMED_MODULES):
                return None
            schema = json.loads(raw)
            _rename_modules(schema)
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as renamed:
                for info in archive.infolist():
                    data = json.dumps(schema).encode("utf-8") if info.filename == "schema.json" else archive.read(info)
                    renamed.writestr(info, data)
    except (KeyError, ValueError, RecursionError, zipfile.BadZipFile):
        return None
    return buffer.getvalue()


def _rename_modules(node) -> None:
    """Replace, in place, each ``__module__`` of a skops schema that :data:`RENAMED_MODULES` renames."""
    if isinstance(node, dict):
        module = node.get("__module__")
        if isinstance(module, str) and module in RENAMED_MODULES:
            node["__module__"] = RENAMED_MODULES[module]
        values = node.values()
    else:
        values = node if isinstance(node, list) else ()
    for value in values:
        _rename_modules(value)


def _skops_io():
    """:mod:`skops.io`, imported without pulling in torch and dask when they are not loaded yet.

    Importing skops.io lists scikit-learn's estimators (``sklearn.utils.all_estimators``), which walks
    every sklearn package with :func:`pkgutil.walk_packages` and so imports sklearn's array-API shims
    for torch and dask: about 1.5 s of CPU, mostly torch, in every run that opens a model, although only
    the MS-RBFN needs torch (and imports it itself). ``walk_packages`` passes over a package whose import
    raises ``ImportError``, so the two shims are left out of the walk while their libraries' names are
    blocked; no estimator lives in them.
    """
    if "skops.io" in sys.modules:
        return sys.modules["skops.io"]
    # scipy and scikit-learn look torch up in sys.modules as they import: import them before it is blocked
    import sklearn.base  # noqa: F401

    blocked = [name for name in ("torch", "dask") if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # "import torch" raises ImportError while this holds
    try:
        import skops.io as sio
    finally:
        for name in blocked:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    return sio


def _damage(error: Exception) -> str:
    """One line saying why skops could not read a model file's body (a damaged or crafted schema)."""
    detail = " ".join(str(error).split())[:200]
    return f"the model body is damaged or not a mainentity model ({type(error).__name__}: {detail})"


def is_trusted_type(name: str) -> bool:
    """Whether loading may build an object of the type named ``module.Class``.

    Only ``mainentity`` and ``sklearn`` modules are imported to decide; any other name but those of
    :data:`NUMPY_TYPES` is refused without importing anything.

    Examples
    --------
    >>> is_trusted_type("mainentity.recognizers.msrbfn.MSRBFNRecognizer")
    True
    >>> is_trusted_type("sklearn.neighbors._kd_tree.KDTree")
    True
    >>> is_trusted_type("builtins.eval"), is_trusted_type("os.system")
    (False, False)
    >>> is_trusted_type("mainentity.recognizers.peer_node.shutil"), is_trusted_type("numpy.dtype")
    (False, True)
    """
    if name in NUMPY_TYPES:
        return True
    module_name, _, class_name = name.rpartition(".")
    if not module_name.startswith(("mainentity.", "sklearn.")):
        return False
    try:
        obj = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, ValueError, TypeError):  # e.g. "mainentity..x": not a module name
        return False
    if not isinstance(obj, type) or obj.__module__ != module_name:
        return False
    from sklearn.base import BaseEstimator

    return module_name in SKLEARN_HELPER_MODULES or issubclass(obj, BaseEstimator)
