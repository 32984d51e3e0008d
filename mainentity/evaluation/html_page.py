"""Self-contained HTML pages of the reports: one stylesheet, tables, figures embedded as ``data:`` URIs.

The benchmark report (:mod:`mainentity.comparison.comparison_report`) builds its page from its tables
and figures with :func:`html_table`, :func:`data_uri` and :func:`html_document`; an evaluation report
(:func:`mainentity.evaluation.report.write_report`) turns its ``report.md`` into ``report.html`` with
:func:`markdown_to_html`, which reads the small Markdown the reports write (headings, pipe tables,
bullet lists, paragraphs, code blocks, images, links, ``**bold**`` and ``code``). A figure the Markdown
shows (``![...](reliability.png)``) is embedded when its file is present, so the page can be sent alone;
links to other files (a worst page's screenshot) stay relative to the report's directory.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import pandas as pd

from mainentity._files import write_text_atomic

#: The stylesheet of every report page.
CSS = """body{font-family:system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.9em}
th,td{border:1px solid #ccc;padding:0.25em 0.5em;text-align:left;vertical-align:top}
td.num{text-align:right}th{background:#f2f2f2}pre{background:#f6f6f6;padding:0.6em;overflow-x:auto}
img{max-width:100%;height:auto}"""

_FIGURE_TYPES = {".svg": "image/svg+xml", ".png": "image/png"}
_INLINE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)|\[([^\]]+)\]\(([^)\s]+)\)|\*\*(.+?)\*\*|`([^`]+)`")
_CELL_SEPARATOR = re.compile(r"(?<!\\)\|")


def data_uri(path: str | Path) -> str:
    """A figure file as a ``data:`` URI (SVG or PNG, base64), so a page embeds it.

    >>> import tempfile
    >>> figure = Path(tempfile.mkdtemp()) / "f.svg"
    >>> _ = figure.write_text("<svg/>")
    >>> data_uri(figure)
    'data:image/svg+xml;base64,PHN2Zy8+'
    """
    path = Path(path)
    kind = _FIGURE_TYPES.get(path.suffix.lower(), "application/octet-stream")
    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def html_table(df: pd.DataFrame) -> str:
    """A DataFrame as an HTML table: cells escaped, floats with 3 decimals, missing values empty."""
    return df.to_html(index=False, escape=True, na_rep="", float_format=lambda v: f"{v:.3f}", border=0)


def html_document(title: str, body: list[str]) -> str:
    """A whole HTML page of ``body``'s fragments under ``title``, with the reports' stylesheet."""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def _inline(text: str, base_dir: Path | None) -> str:
    """One line's inline Markdown as HTML: text escaped; images (embedded when their file is in
    ``base_dir``), links, bold and code spans."""
    out, position = [], 0
    for match in _INLINE.finditer(text):
        out.append(html.escape(text[position:match.start()]))
        alt, src, label, href, bold, code = match.groups()
        if src is not None:
            figure = base_dir / src if base_dir is not None else None
            if figure is not None and figure.is_file() and figure.suffix.lower() in _FIGURE_TYPES:
                src = data_uri(figure)
            out.append(f'<img alt="{html.escape(alt)}" src="{html.escape(src)}">')
        elif label is not None:
            out.append(f'<a href="{html.escape(href)}">{_inline(label, base_dir)}</a>')
        elif bold is not None:
            out.append(f"<strong>{_inline(bold, base_dir)}</strong>")
        else:
            out.append(f"<code>{html.escape(code)}</code>")
        position = match.end()
    out.append(html.escape(text[position:]))
    return "".join(out)


def _table(lines: list[str], base_dir: Path | None) -> str:
    """A pipe table (header, alignment row, rows) as HTML; ``---:`` columns right-aligned."""
    rows = [[cell.strip().replace("\\|", "|") for cell in _CELL_SEPARATOR.split(line.strip())[1:-1]]
            for line in lines]
    header, align, body = rows[0], rows[1] if len(rows) > 1 else [], rows[2:]
    numeric = [cell.endswith(":") for cell in align]
    head = "".join(f"<th>{_inline(cell, base_dir)}</th>" for cell in header)
    cells = ["".join(f'<td{" class=num" if i < len(numeric) and numeric[i] else ""}>{_inline(cell, base_dir)}</td>'
                     for i, cell in enumerate(row)) for row in body]
    return f"<table><thead><tr>{head}</tr></thead><tbody>" + "".join(f"<tr>{row}</tr>" for row in cells) + \
        "</tbody></table>"


def markdown_to_html(markdown: str, base_dir: str | Path | None = None) -> list[str]:
    """The HTML fragments of a report's Markdown (the subset the module notes list).

    Parameters
    ----------
    markdown : str
        The report's text.
    base_dir : path, optional
        Where the report's files are: an image whose file is there is embedded as a ``data:`` URI.

    Returns
    -------
    fragments : list of str
        One per block (heading, table, list, paragraph, code block), for :func:`html_document`.

    Examples
    --------
    >>> report = "# A & B\\n\\n| x | n |\\n| --- | ---: |\\n| a\\\\|b | 3 |\\n\\n- see [it](p.png)"
    >>> for fragment in markdown_to_html(report):
    ...     print(fragment)
    <h1>A &amp; B</h1>
    <table><thead><tr><th>x</th><th>n</th></tr></thead><tbody><tr><td>a|b</td><td class=num>3</td></tr></tbody></table>
    <ul><li>see <a href="p.png">it</a></li></ul>
    """
    base = Path(base_dir) if base_dir is not None else None
    fragments: list[str] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("```"):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), len(lines))
            fragments.append(f"<pre>{html.escape(chr(10).join(lines[i + 1:end]))}</pre>")
            i = end + 1
            continue
        heading = re.match(r"(#{1,6}) (.*)", line)
        if heading:
            level = len(heading.group(1))
            fragments.append(f"<h{level}>{_inline(heading.group(2), base)}</h{level}>")
            i += 1
            continue
        kind = "table" if line.lstrip().startswith("|") else "list" if line.startswith("- ") else "paragraph"
        block = [line]
        i += 1
        while i < len(lines) and lines[i].strip() and _continues(kind, lines[i]):
            block.append(lines[i])
            i += 1
        if kind == "table":
            fragments.append(_table(block, base))
        elif kind == "list":
            fragments.append("<ul>" + "".join(f"<li>{_inline(item[2:], base)}</li>" for item in block) + "</ul>")
        else:
            fragments.append(f"<p>{_inline(' '.join(block), base)}</p>")
    return fragments


def _continues(kind: str, line: str) -> bool:
    """Whether ``line`` goes on a block of ``kind`` (a table row, a list item, a paragraph's line)."""
    if kind == "table":
        return line.lstrip().startswith("|")
    if kind == "list":
        return line.startswith("- ")
    return not (line.startswith(("#", "- ", "```")) or line.lstrip().startswith("|"))


def write_html_report(report_md: str | Path) -> Path:
    """Write ``report.html`` beside a report's ``report.md``: the same sections, its figures embedded.

    Returns
    -------
    path : Path
        The HTML file (``report_md`` with the suffix ``.html``), written atomically.
    """
    report_md = Path(report_md)
    text = report_md.read_text(encoding="utf-8")
    title = text.splitlines()[0].lstrip("# ").strip() if text else report_md.stem
    path = report_md.with_suffix(".html")
    write_text_atomic(path, html_document(title, markdown_to_html(text, report_md.parent)))
    return path
