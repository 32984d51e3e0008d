"""File writes that never leave half a file, and JSON Lines that every reader splits alike: the base
layer every stage may use.

Imports nothing from the package (and no heavy library), so a module that writes a file does not load
the evaluation stack (pandas, scikit-learn) to do it.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace``: readers never see half a file.

    The temporary file is flushed to disk (``fsync``) before the rename, so after a crash ``path`` holds
    the old text or the new one, never an empty file. A file that is replaced keeps its permission
    bits; a new one gets the usual permissions (0666 less the umask), not ``tempfile``'s 0600.

    Parameters
    ----------
    path : Path
        The file to write; its directory must exist.
    text : str
        Written as UTF-8, line endings unchanged.

    Raises
    ------
    OSError
        If the directory is missing or not writable (no temporary file is left behind).

    Examples
    --------
    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "notes.md"
    >>> write_text_atomic(target, "# Notes\\n")
    >>> target.read_text(encoding="utf-8")
    '# Notes\\n'
    """
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = 0o666 & ~_UMASK
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.",
                                     suffix=".tmp", delete=False, newline="") as handle:
        tmp = Path(handle.name)
        try:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        except BaseException:
            handle.close()
            tmp.unlink(missing_ok=True)
            raise
    try:
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def file_in_the_way(directory: str | os.PathLike) -> Path | None:
    """The existing file (not a directory) that keeps ``directory`` from being created or used: the
    path itself or its nearest existing ancestor; ``None`` when there is none (the directory exists,
    or can be made under an existing directory).

    >>> import tempfile
    >>> base = Path(tempfile.mkdtemp())
    >>> (base / "afile").write_text("x")
    1
    >>> file_in_the_way(base / "afile" / "out") == base / "afile", file_in_the_way(base / "new" / "out")
    (True, None)
    """
    path = Path(directory).absolute()
    for place in (path, *path.parents):
        if place.exists():
            return None if place.is_dir() else place
    return None


def check_writable(output: str | os.PathLike, *, directory: bool = False, wanted: str = "a file name") -> None:
    """Refuse an output path that cannot be written before any slow work: a file (``directory=False``)
    where a directory stands, or a path under an existing file (:func:`file_in_the_way`).

    Parameters
    ----------
    output : str or path-like
        A file to write, or a directory to write into (``directory=True``).
    wanted : str
        What to give instead of a directory, for the message (e.g. "a .jsonl or .csv file").

    Raises
    ------
    ValueError
        Naming the output and what is in the way.

    >>> check_writable(__file__, directory=True)
    Traceback (most recent call last):
    ...
    ValueError: output ... cannot be written: ... is a file, not a directory
    """
    output = Path(output)
    if not directory and output.is_dir():
        raise ValueError(f"output {output} exists and is not a file (a directory); give {wanted}")
    if (blocker := file_in_the_way(output if directory else output.parent)) is not None:
        raise ValueError(f"output {output} cannot be written: {blocker} is a file, not a directory")


def json_line(value: object) -> str:
    """One JSON Lines line (without its ``\\n``): UTF-8 JSON with the characters that other line splitters
    take for line breaks (U+0085, U+2028, U+2029: ``str.splitlines``, JavaScript's JSON readers of old)
    escaped, so that every reader sees one row per line. Read JSON Lines back with ``split("\\n")``.

    Parameters
    ----------
    value : object
        Anything :func:`json.dumps` takes.

    Returns
    -------
    line : str

    >>> json_line({"path": "a.html", "main_entity": ["Café\u2028Menu\x85"]})
    '{"path": "a.html", "main_entity": ["Café\\\\u2028Menu\\\\u0085"]}'
    >>> len(json_line({"url": "https://a.example/\u2029"}).splitlines())
    1
    """
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("\x85", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
