"""A digest of the code behind a result: a module's source and that of every ``mainentity`` module it imports.

Results kept between runs (static readings in the render cache, a benchmark's answers of systems that neither
learn nor render) are keyed by the code that made them, so a change to that code makes them anew without a
version number to remember to bump.
"""

from __future__ import annotations

import ast
import hashlib
import json
import platform
from collections.abc import Iterable
from functools import cache
from importlib import metadata, util
from pathlib import Path

__all__ = ["imported_modules", "modules_of", "source_digest"]


def imported_modules(name: str, source: str, is_package: bool = False) -> list[str]:
    """The ``mainentity`` modules that module ``name``'s ``source`` may import, as dotted names: every
    ``import mainentity...``, and for ``from X import y`` (relative ``X`` resolved against the module's package)
    both ``X`` and ``X.y`` (``y`` may be a submodule or a name; :func:`modules_of` keeps the modules).

    >>> src = "from . import static_css\\nfrom ..text import tokenize\\nimport os, mainentity.records"
    >>> sorted(imported_modules("mainentity.render.static", src))
    ['mainentity.records', 'mainentity.render.static_css', 'mainentity.text', 'mainentity.text.tokenize']
    """
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = util.resolve_name("." * node.level + (node.module or ""), package) if node.level else node.module
            found += [base] * bool(node.module) + [f"{base}.{alias.name}" for alias in node.names]
    return [module for module in dict.fromkeys(found) if module == "mainentity" or module.startswith("mainentity.")]


def _module_spec(name: str):
    """The module's spec, or ``None`` when ``name`` is no module (a function or class imported by name)."""
    try:
        return util.find_spec(name)
    except ModuleNotFoundError:  # a name under a module that is no package ("mainentity.text.tokenize")
        return None


def modules_of(root: str) -> set[str]:
    """``root`` and every ``mainentity`` module it imports, directly or not (:func:`imported_modules`,
    relative imports included), as dotted names.

    Raises
    ------
    ModuleNotFoundError
        If ``root`` is no module.
    """
    if _module_spec(root) is None:
        raise ModuleNotFoundError(f"no module named {root!r}")
    seen, todo = set(), [root]
    while todo:
        name = todo.pop()
        spec = _module_spec(name) if name not in seen else None
        if spec is None or spec.origin is None:  # seen, or an imported name (``from mainentity.text import x``)
            continue
        seen.add(name)
        source = Path(spec.origin).read_text(encoding="utf-8")
        todo.extend(imported_modules(name, source, spec.submodule_search_locations is not None))
    return seen


@cache
def source_digest(root: str, packages: Iterable[str] = ()) -> str:
    """Hex SHA-256 over the source of :func:`modules_of` ``root``, the installed versions of the third-party
    ``packages`` (a tuple: the result is cached) whose output the code's results depend on, and Python's own
    version (its regular expressions and Unicode tables read the text). Computed once per process (a few ms).

    Raises
    ------
    ModuleNotFoundError
        If ``root`` is no module.
    importlib.metadata.PackageNotFoundError
        If a package is not installed.
    """
    versions = [platform.python_version(), *(metadata.version(name) for name in packages)]
    digest = hashlib.sha256(json.dumps(versions).encode())
    for name in sorted(modules_of(root)):
        digest.update(name.encode() + b"\0" + Path(util.find_spec(name).origin).read_bytes() + b"\0")
    return digest.hexdigest()
