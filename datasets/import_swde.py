"""Convert SWDE (Hao et al., SIGIR 2011) pages and ground truth into the main-entity dataset format.

SWDE layout read::

    SWDE_ROOT/<vertical>/<vertical>-<site>-<n>/NNNN.htm       (also <vertical>-<site>(<n>), the original name)
    SWDE_ROOT/groundtruth/<vertical>/<vertical>-<site>-<attribute>.txt

A ground-truth file has two header lines (``vertical<TAB>site<TAB>attribute``, then counts), then one
line per page: ``NNNN<TAB>count<TAB>value<TAB>value...``. Output (format in ``datasets/README.md``)::

    OUT_DIR/DATASET.md
    OUT_DIR/sites/<site>/pages/NNNN.htm                      (bytes unchanged)
    OUT_DIR/sites/<site>/manifest.jsonl

- ``url``: the ``<base href>`` SWDE put on the first line of each page (after a UTF-8 BOM);
- ``main_entity``: every value of the page's ground-truth line, HTML-unescaped and whitespace-collapsed
  (which removes the leading ``&nbsp;`` some values carry); ``<NULL>``, empty values or count 0 give
  an empty list;
- ``label_in_page``: :func:`mainentity.sitedump.label_in_page`.

The main-entity attribute of each vertical is the one that names the page's object (``book: title``,
``movie: title``, ``auto: model``, ...); ``--attribute`` overrides it. A page that cannot be read is
reported and skipped; the manifest is appended to line by line, so an interrupted run keeps what it
wrote.

Usage: ``python datasets/import_swde.py SWDE_ROOT OUT_DIR [--vertical book] [--site christianbook]
[--max-pages N] [--attribute title]``.
"""

from __future__ import annotations

import argparse
import html
import json
import logging
import re
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(REPO))

from mainentity.sitedump import PageReadError, decode_html, find_base_href, label_in_page  # noqa: E402
from mainentity.text import collapse_whitespace  # noqa: E402

logger = logging.getLogger("import_swde")

#: SWDE vertical -> the attribute that names the page's main entity.
MAIN_ENTITY_ATTRIBUTE = {
    "auto": "model",
    "book": "title",
    "camera": "model",
    "job": "title",
    "movie": "title",
    "nbaplayer": "name",
    "restaurant": "name",
    "university": "name",
}
_SITE_DIR = re.compile(r"^(?P<vertical>[a-z]+)-(?P<site>.+?)(?:-(?P<n>\d+)|\((?P<n2>\d+)\))$")
_NULL = "<NULL>"


def find_site_dirs(swde_root: Path, vertical: str, site: str | None = None) -> dict[str, Path]:
    """Map site name -> page directory for one vertical (all sites, or only ``site``).

    Raises
    ------
    ValueError
        If the vertical directory is missing, or no (matching) site directory is found.
    """
    vertical_dir = swde_root / vertical
    if not vertical_dir.is_dir():
        raise ValueError(f"no vertical directory {str(vertical_dir)!r} in SWDE root {str(swde_root)!r}")
    found = {}
    for directory in sorted(p for p in vertical_dir.iterdir() if p.is_dir()):
        match = _SITE_DIR.match(directory.name)
        if match and match["vertical"] == vertical and (site is None or match["site"] == site):
            found[match["site"]] = directory
    if not found:
        wanted = f"site {site!r}" if site else "any site"
        raise ValueError(
            f"no directory for {wanted} under {str(vertical_dir)!r} (expected {vertical}-<site>-<n>)"
        )
    return found


def read_ground_truth(path: Path) -> dict[str, list[str]]:
    """Read a SWDE ground-truth file: page number (``NNNN``) -> labels, unescaped and collapsed.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     gt = Path(tmp) / "book-shop-title.txt"
    ...     _ = gt.write_text("book\\tshop\\ttitle\\n2\\t2\\n"
    ...                       "0000\\t1\\t&nbsp;Dune &amp; Sons\\n0001\\t0\\t<NULL>\\n")
    ...     read_ground_truth(gt)
    {'0000': ['Dune & Sons'], '0001': []}

    Raises
    ------
    ValueError
        If the file is missing or a line has fewer than two fields.
    """
    if not path.is_file():
        raise ValueError(f"ground-truth file {str(path)!r} not found")
    labels = {}
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    for lineno, line in enumerate(lines[2:], start=3):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 2:
            raise ValueError(f"{path}:{lineno}: expected 'NNNN<TAB>count<TAB>value...'; got {line!r}")
        values = [collapse_whitespace(html.unescape(value)) for value in fields[2:]]
        labels[fields[0].strip()] = [value for value in values if value and value != _NULL]
    return labels


def import_site(
    page_dir: Path, ground_truth: dict[str, list[str]], out_site: Path, max_pages: int | None = None
) -> tuple[int, int, int]:
    """Copy one site's pages and write its manifest; return ``(n_pages, n_labeled, n_label_in_page)``.

    Pages are taken in file-name order; a page that cannot be decoded or has no ``<base href>`` is
    logged and skipped. The manifest is written line by line (flushed), so an interrupted run keeps
    the pages it finished.
    """
    (out_site / "pages").mkdir(parents=True, exist_ok=True)
    files = sorted(p for p in page_dir.iterdir() if p.suffix.lower() in (".htm", ".html"))[:max_pages]
    n_pages = n_labeled = n_in_page = 0
    with open(out_site / "manifest.jsonl", "w", encoding="utf-8", newline="\n") as manifest:
        for file in files:
            try:
                page = decode_html(file.read_bytes(), str(file))
            except (OSError, PageReadError) as error:
                logger.warning("skipped %s: %s", file, error)
                continue
            url = find_base_href(page)
            if url is None:
                logger.warning("skipped %s: no <base href> on its first line", file)
                continue
            labels = ground_truth.get(file.stem, [])
            if file.stem not in ground_truth:
                logger.warning("%s has no ground-truth line; written without a label", file)
            in_page = label_in_page(page, labels)
            shutil.copyfile(file, out_site / "pages" / file.name)
            entry = {"path": f"pages/{file.name}", "url": url, "main_entity": labels}
            entry["label_in_page"] = in_page
            manifest.write(json.dumps(entry, ensure_ascii=False) + "\n")
            manifest.flush()
            n_pages += 1
            n_labeled += bool(labels)
            n_in_page += in_page
    return n_pages, n_labeled, n_in_page


def dataset_md(vertical: str, attribute: str, counts: dict[str, tuple[int, int, int]]) -> str:
    rows = "\n".join(
        f"| `{site}` | {n} | {labeled} | {in_page} |"
        for site, (n, labeled, in_page) in sorted(counts.items())
    )
    return f"""# swde-{vertical}

Pages of the SWDE dataset (Hao, Cai, Pang, Zhang: "From One Tree to a Forest: a Unified Solution for
Structured Web Data Extraction", SIGIR 2011), vertical `{vertical}`, with the ground-truth
`{attribute}` as the main entity. Converted by `datasets/import_swde.py`. Research use only; the
pages are third-party web content: do not redistribute.

| site | pages | pages with label | label_in_page |
| --- | ---: | ---: | ---: |
{rows}
"""


def main(argv: list[str] | None = None) -> int:
    """Run the importer; return the exit status (0 when at least one page was written)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("swde_root", type=Path, help="SWDE root (holds <vertical>/ and groundtruth/)")
    parser.add_argument("out_dir", type=Path, help="output dataset directory")
    parser.add_argument("--vertical", default="book", help="SWDE vertical (default: book)")
    parser.add_argument("--site", help="only this site (e.g. christianbook); default: every site")
    parser.add_argument("--max-pages", type=int, help="at most N pages per site (file-name order)")
    parser.add_argument("--attribute", help="ground-truth attribute (default: the vertical's name attribute)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    if args.max_pages is not None and args.max_pages < 1:
        parser.error(f"--max-pages must be >= 1; got {args.max_pages}")
    attribute = args.attribute or MAIN_ENTITY_ATTRIBUTE.get(args.vertical)
    if attribute is None:
        parser.error(
            f"no default attribute for vertical {args.vertical!r} "
            f"(known: {', '.join(sorted(MAIN_ENTITY_ATTRIBUTE))}); pass --attribute"
        )
    try:
        site_dirs = find_site_dirs(args.swde_root, args.vertical, args.site)
    except ValueError as error:
        logger.error("%s", error)
        return 2
    counts = {}
    for site, page_dir in site_dirs.items():
        truth_dir = args.swde_root / "groundtruth" / args.vertical
        truth_file = truth_dir / f"{args.vertical}-{site}-{attribute}.txt"
        try:
            ground_truth = read_ground_truth(truth_file)
        except ValueError as error:
            logger.error("skipped site %s: %s", site, error)
            continue
        counts[site] = import_site(page_dir, ground_truth, args.out_dir / "sites" / site, args.max_pages)
        logger.info("%s: %d pages (%d labeled, %d label in page)", site, *counts[site])
    if not counts or not any(n for n, _, _ in counts.values()):
        logger.error("no page written to %s", args.out_dir)
        return 1
    (args.out_dir / "DATASET.md").write_text(dataset_md(args.vertical, attribute, counts), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
