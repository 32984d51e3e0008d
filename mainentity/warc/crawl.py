"""Read WARC files (or folders of them) into one site per host, with labels and subresources."""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mainentity.records import Page
from mainentity.sitedump import (
    HTML_SUFFIXES,
    MANIFEST_NAME,
    MAX_MANIFEST_BYTES,
    PageFailure,
    PageReadError,
    SiteDump,
    manifest_labels,
    read_page_bytes,
    web_url_problem,
)
from mainentity.warc.record_reader import WarcCounts, iter_warc, site_of
from mainentity.warc.subresources import SubresourceRecord, WarcSubresources, url_key

logger = logging.getLogger(__name__)

#: File name endings (lower-cased) of WARC files.
WARC_SUFFIXES = (".warc", ".warc.gz")


@dataclass(frozen=True)
class WarcInput:
    """The pages of WARC files grouped into sites by host, and what could not be read.

    Attributes
    ----------
    sites : tuple of SiteDump
        One per host, sorted by host; ``directory`` is the first WARC file that held a page of it.
    failures : tuple of PageFailure
        Damaged places in the files (``site_id`` the file, ``path`` ``@<byte offset>``); records that
        could not be decoded are in their site's ``failures``.
    counts : WarcCounts
    subresources : mapping of str to WarcSubresources
        ``site_id -> `` what serves its pages' stylesheets, fonts and images (to pass to the renderer in
        a :class:`mainentity.sitedump.SubresourceSources`).
    """

    sites: tuple[SiteDump, ...]
    failures: tuple[PageFailure, ...]
    counts: WarcCounts = field(default_factory=WarcCounts)
    subresources: Mapping[str, WarcSubresources] = field(default_factory=dict)


def is_warc_file(path: str | Path) -> bool:
    """Whether ``path`` names a WARC file by its ending.

    >>> is_warc_file("crawl/CC-MAIN-0001.warc.gz"), is_warc_file("a.WARC"), is_warc_file("a.html")
    (True, True, False)
    """
    return str(path).lower().endswith(WARC_SUFFIXES)


def warc_files(path: str | Path) -> list[Path]:
    """The WARC files an input names: the file itself, or those in a folder (recursively, sorted).

    Hidden files and folders (name starting with ``.``) are skipped.
    """
    path = Path(path)
    if path.is_file():
        return [path] if is_warc_file(path) else []
    if not path.is_dir():
        return []
    return sorted(file for file in path.rglob("*") if is_warc_file(file.name) and file.is_file()
                  and not any(part.startswith(".") for part in file.relative_to(path).parts))


def is_warc_input(path: str | Path) -> bool:
    """Whether ``path`` is a WARC file, or a folder of WARC files rather than a site dump or dataset.

    A folder counts when it holds WARC files and neither a ``sites/`` folder nor HTML files at its top.

    >>> is_warc_input("missing.warc.gz"), is_warc_input("datasets/sample-shop")
    (True, False)
    """
    path = Path(path)
    if is_warc_file(path):
        return True
    if not path.is_dir() or (path / "sites").is_dir():
        return False
    if any(child.suffix.lower() in HTML_SUFFIXES for child in path.iterdir()):
        return False
    return bool(warc_files(path))


def read_warcs(
    paths: Iterable[str | Path], *, max_pages_per_site: int | None = None
) -> WarcInput:
    """Read the HTML pages of WARC files (or folders of them) into one site per host.

    Parameters
    ----------
    paths : iterable of str or Path
        WARC files (``.warc``, ``.warc.gz``) and folders of them; a host spread over several files is
        one site.
    max_pages_per_site : int, optional
        Keep at most this many pages per host (in file order).

    Notes
    -----
    Of page records with the same URL (:func:`url_key`: the same file given twice, a ``.warc`` beside
    its ``.warc.gz``, an overlapping re-crawl), the first in the order of ``paths`` is kept; the others
    are counted (``WarcCounts.n_duplicates``) and logged. A record whose ``WARC-Record-ID`` an earlier
    page record of another URL holds is read as a page of its own, with ``path`` ``<record id>#2``
    (``#3``, ...), and logged (WARNING): every page record gets one row.

    Returns
    -------
    warc_input : WarcInput
        Each site's :class:`WarcSubresources` is in ``warc_input.subresources``: the renderer serves them
        to its pages when given them.

    Raises
    ------
    FileNotFoundError
        If a path does not exist.
    ValueError
        If a path is neither a WARC file nor a folder holding one.
    ImportError
        If FastWARC is not installed.
    """
    files: list[Path] = []
    for path in paths:
        if not Path(path).exists():
            raise FileNotFoundError(f"{str(path)!r} does not exist")
        found = warc_files(path)
        if not found:
            raise ValueError(f"{str(path)!r} is neither a WARC file (.warc, .warc.gz) nor a folder of them")
        files.extend(found)
    labels = _labels_beside(files)
    counts = WarcCounts()
    pages: dict[str, list[Page]] = {}
    site_failures: dict[str, list[PageFailure]] = {}
    where: dict[str, Path] = {}
    damaged: list[PageFailure] = []
    records: dict[str, dict[str, SubresourceRecord]] = {}  # host -> url_key -> first record
    kept: dict[tuple[str, str], str] = {}  # ("", url_key), or (record id, "") without a URL -> what and where
    paths: set[str] = set()  # the pages' paths (record ids)
    duplicates: list[str] = []
    for file in files:
        for item in iter_warc(file, counts):
            if isinstance(item, SubresourceRecord):
                records.setdefault(site_of(item.url), {}).setdefault(url_key(item.url), item)
                continue
            if isinstance(item, PageFailure) and item.path.startswith("@"):
                damaged.append(item)
                continue
            key = url_key(item.url) if item.url else ""
            earlier = kept.get(("", key)) if key else kept.get((item.path, ""))
            if earlier is not None:
                counts.n_pages -= 1  # iter_warc counted it as a page
                counts.n_duplicates += 1
                duplicates.append(f"{item.url} ({item.path} in {file}) duplicates {earlier}")
                continue
            if item.path in paths:  # a record id reused under another URL: answered under a path of its own
                path = next(f"{item.path}#{n}" for n in itertools.count(2) if f"{item.path}#{n}" not in paths)
                logger.warning("%s in %s: its WARC-Record-ID %s names an earlier page too; read as %s",
                               item.url, file, item.path, path)
                item = dataclasses.replace(item, path=path)
            paths.add(item.path)
            kept[("", key) if key else (item.path, "")] = f"{item.url} ({item.path} in {file})"
            site_id = item.site_id
            where.setdefault(site_id, file)
            if not isinstance(item, PageFailure) and item.url and (problem := web_url_problem(item.url)):
                # urn:isbn:1, http:///x: no host to be a site, no address to render at
                item = PageFailure(site_id, item.path, f"WARC-Target-URI {item.url!r} is no web address ({problem}): "
                                   "not read", item.url)
            if isinstance(item, PageFailure):
                site_failures.setdefault(site_id, []).append(item)
                continue
            site_pages = pages.setdefault(site_id, [])
            if max_pages_per_site is None or len(site_pages) < max_pages_per_site:
                site_pages.append(Page(item.site_id, item.path, item.url, item.html,
                                       main_entity=labels.get(item.url, ())))
    logger.info("%s (%d files)", counts.summary(), len(files))
    if duplicates:
        logger.info("skipped %d duplicate page records (first kept), e.g. %s", len(duplicates), duplicates[0])
        for duplicate in duplicates:
            logger.debug("duplicate skipped: %s", duplicate)
    for failure in damaged:
        logger.warning("%s: %s", failure.site_id, failure.reason)
    sites = tuple(
        SiteDump(site_id, where[site_id], tuple(pages.get(site_id, ())), tuple(site_failures.get(site_id, ())))
        for site_id in sorted(where)
    )
    shared = {key: record for host, by_url in records.items() if host not in where for key, record in by_url.items()}
    subresources = {}
    for site in sites:
        subresources[site.site_id] = WarcSubresources(
            frozenset(page.path for page in site.pages), records.get(site.site_id, {}), shared)
    return WarcInput(sites, tuple(damaged), counts, subresources)


def _labels_beside(files: Iterable[Path]) -> dict[str, tuple[str, ...]]:
    """``url -> main_entity`` from the ``manifest.jsonl`` files in the folders of the WARC files. Labels
    are optional (``predict`` needs none): a manifest that cannot be read (not a regular file, over
    :data:`mainentity.sitedump.MAX_MANIFEST_BYTES`), and each line that is not an object with a string
    ``url`` and a list of string labels (bytes that are not UTF-8 included), is logged (WARNING) and skipped."""
    labels: dict[str, tuple[str, ...]] = {}
    for folder in dict.fromkeys(file.parent for file in files):
        manifest = folder / MANIFEST_NAME
        try:
            text = read_page_bytes(manifest, MAX_MANIFEST_BYTES).decode("utf-8-sig", errors="replace")  # a BOM: no line
        except FileNotFoundError:
            continue
        except (OSError, PageReadError) as error:
            logger.warning("%s: labels not read: %s", manifest, error)
            continue
        for number, line in enumerate(text.split("\n"), 1):  # JSON Lines: "\n" ends a line
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError) as error:
                entry = error
            found = entry.get("main_entity", []) if isinstance(entry, dict) else None
            if not (isinstance(found, list) and all(isinstance(label, str) for label in found)
                    and isinstance(entry.get("url"), str)):
                logger.warning("%s line %d skipped: not an object with a 'url' string and 'main_entity' strings"
                               "%s", manifest, number, f" ({entry})" if isinstance(entry, Exception) else "")
                continue
            labels[entry["url"]] = manifest_labels(entry)
    return labels
