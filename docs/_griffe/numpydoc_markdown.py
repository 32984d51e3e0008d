"""A Griffe extension for the docs build (mkdocs.yml loads it): the package's numpydoc docstrings, written for
Sphinx and doctest, read as Markdown by mkdocstrings.

- a bare doctest (``>>>`` lines outside an ``Examples`` section, which Griffe already reads) becomes a
  ``pycon`` code block instead of nested block quotes;
- a Sphinx role (``:func:`~mainentity.api.extract```, or a name of the docstring's own module) becomes a link
  to the object when the API reference documents it, else its name as code (an ``optional`` autoref: never a
  broken link);
- a reST literal block's ``::`` becomes ``:`` (the indented block after it is already code in Markdown);
- a numpydoc citation ``.. [1]`` becomes ``[1]``.

The docstrings in the source stay as they are: doctest runs them and Sphinx-style roles stay readable there.
"""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|data|mod|obj|exc|const):`(~?)([^`<>]+)`")
SECTION_RULE = re.compile(r"^\s*-{3,}\s*$")
CITATION = re.compile(r"^(\s*)\.\. (\[[^\]]+\])")


def _role(match: re.Match, module: griffe.Module | None = None) -> str:
    short, target = match.group(1), match.group(2).strip()
    shown = target.rsplit(".", 1)[-1] if short else target
    if module is not None and target.split(".", 1)[0] in module.members:  # a name of the docstring's own module
        target = f"{module.path}.{target}"
    return f'<autoref optional identifier="{target}"><code>{shown}</code></autoref>'


def _fence_doctests(lines: list[str]) -> list[str]:
    """``lines`` with each doctest outside an ``Examples`` section fenced as ``pycon``."""
    out: list[str] = []
    in_examples = False
    in_doctest = False
    indent = ""
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if SECTION_RULE.match(following) and line.strip():  # a numpydoc section header
            if in_doctest:
                out.append(indent + "```")
                in_doctest = False
            in_examples = line.strip() == "Examples"
        if in_doctest and not line.strip():
            out.append(indent + "```")
            in_doctest = False
        if not in_examples and not in_doctest and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            if out and out[-1].strip():
                out.append("")
            out.append(indent + "```pycon")
            in_doctest = True
        out.append(line)
    if in_doctest:
        out.append(indent + "```")
    return out


def markdown_docstring(text: str, module: griffe.Module | None = None) -> str:
    """A numpydoc docstring's text as mkdocstrings renders it well (see the module docstring; it is not a
    doctest here since its input holds one: ``tests/test_docs.py`` checks it).

    Parameters
    ----------
    text : str
        The docstring as written in the source (dedented, as Griffe holds it).
    module : griffe.Module, optional
        The module the docstring is in: a role naming one of its members (``:data:`MAX_PAGE_BYTES```) links to
        it there.

    Returns
    -------
    str
        The same docstring in Markdown with doctests fenced, Sphinx roles as optional links, no ``::``.
    """
    lines = _fence_doctests(text.split("\n"))
    lines = [CITATION.sub(r"\1\2", line) for line in lines]
    lines = [line[:-1] if line.endswith("::") and not line.lstrip().startswith(">>>") else line for line in lines]
    return ROLE.sub(lambda match: _role(match, module), "\n".join(lines))


class NumpydocMarkdown(griffe.Extension):
    """Rewrites each docstring with :func:`markdown_docstring` once it is loaded."""

    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value, obj.module)
