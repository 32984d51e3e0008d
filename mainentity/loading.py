"""Read the inputs of a run: site dumps, datasets and WARC files into pages with their incoming anchor
texts, the sources of their subresources, and the train/test splits a config asks for.

The first step of every command (``predict``, ``train``, ``evaluate``, ``benchmark``); what it returns
goes to :mod:`mainentity.pipeline`, which composes the stages.
"""

from __future__ import annotations

import logging
import math
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from mainentity.config import DataConfig
from mainentity.linkgraph import AnchorCoverage, link_graph
from mainentity.log_summary import RepeatedMessage
from mainentity.records import Page
from mainentity.sitedump import (
    MANIFEST_NAME,
    MAX_PAGE_BYTES,
    DumpFiles,
    PageFailure,
    SubresourceSources,
    decode_html,
    escaped_name,
    folder_name,
    outside_reason,
    own_url,
    page_from_html,
    page_url,
    read_dataset,
    read_page_bytes,
    site_of_url,
    sniff_html,
)
from mainentity.splits import site_folds, split_pages
from mainentity.text import counted
from mainentity.warc import is_warc_input, read_warcs

logger = logging.getLogger(__name__)

#: How many directory levels above a page file are searched for its site dump's manifest.
_MAX_DUMP_DEPTH = 4
#: The input that stands for one page read from standard input.
STDIN = "-"


@dataclass(frozen=True)
class LoadedPages:
    """Pages read from the configured datasets, with incoming anchors, and the files that failed.

    Attributes
    ----------
    pages : tuple of Page
        The readable pages, ``anchors`` filled.
    failures : tuple of PageFailure
        The files that could not be read.
    anchor_coverage : tuple of AnchorCoverage
        Per site dump: how many pages received incoming anchor texts, and how links were matched.
    subresources : SubresourceSources
        What serves the stylesheets, fonts and images of each site's pages (the files of its site dump,
        the records of its WARC input): pass it to the renderer with the pages.
    """

    pages: tuple[Page, ...]
    failures: tuple[PageFailure, ...]
    anchor_coverage: tuple[AnchorCoverage, ...] = ()
    subresources: SubresourceSources = field(default_factory=SubresourceSources)


def load_pages(
    datasets: Iterable[str],
    *,
    base_url: str | None = None,
    max_pages_per_site: int | None = None,
    anchor_url_pattern: str | None = None,
    configurable: bool = True,
) -> LoadedPages:
    """Read every site dump of the given datasets and fill each page's incoming anchor texts (ILA).

    Each page of a dataset folder is given that folder's name (``Page.dataset``).

    A dataset may also be a WARC file or a folder of them (:func:`mainentity.warc.is_warc_input`): all
    the WARC inputs are read together into one site per host (:func:`mainentity.warc.read_warcs`);
    ``base_url`` does not apply to them (their records carry their URLs).

    The link graph is computed per site dump (Carullo & Binaghi 2010, section 2: A is the set of
    anchor texts of links in the site that point to the page) by :func:`mainentity.linkgraph.link_graph`,
    which learns how the site's URLs name its pages; ``anchor_url_pattern`` overrides that. The anchor
    coverage is logged (:func:`log_anchor_coverage`; ``configurable=False`` when the pattern comes from a
    model, so a silent site's warning does not tell the user to set it) and returned.

    Raises
    ------
    ValueError
        If a dataset directory holds no site dump, or ``anchor_url_pattern`` is not a regular expression.
    ImportError
        If a WARC file is given and FastWARC is not installed.
    """
    pages: list[Page] = []
    failures: list[PageFailure] = []
    coverage: list[AnchorCoverage] = []
    datasets = list(datasets)
    crawls = [dataset for dataset in datasets if is_warc_input(dataset)]
    # each site with the name of the dataset folder it was read from ("" for a WARC crawl's): a site id two
    # datasets share (the same host) keeps each page's own dataset
    sites = [(site, Path(dataset).resolve().name) for dataset in datasets if dataset not in crawls
             for site in read_dataset(dataset, base_url=base_url, max_pages_per_site=max_pages_per_site)]
    sources = [(site.site_id, DumpFiles(site.directory.resolve())) for site, _ in sites]  # a site id per dump
    if crawls:
        warc_input = read_warcs(crawls, max_pages_per_site=max_pages_per_site)
        sites.extend((site, "") for site in warc_input.sites)
        failures.extend(warc_input.failures)
        sources.extend(warc_input.subresources.items())
    for site, dataset in sites:
        graph = link_graph(site.pages, url_pattern=anchor_url_pattern)
        pages.extend(replace(graph.with_links(page), dataset=dataset) for page in site.pages)
        failures.extend(site.failures)
        coverage.append(graph.coverage)
    log_anchor_coverage(coverage, configurable=configurable)
    return LoadedPages(tuple(pages), tuple(failures), tuple(coverage), SubresourceSources(sources))


def one_page_per_key(pages: Iterable[Page], taken: Iterable[tuple[str, str]] = (),
                     ) -> tuple[list[Page], list[PageFailure]]:
    """The pages with one page per site id and path (:func:`page_key`), and a failure for each page left out.

    A prediction's row and a resumed output name a page by its site id and path (:func:`load_inputs`, the inputs of
    ``predict``, keeps one page per pair), so two pages with the same pair would share one row: the second would
    take the first's answer, or the first be skipped as done. Two inputs give such pages when two folders of one
    name hold a file of one name, or two datasets a site of one id with a page at one path. The first is kept; a
    later one with the same URL and HTML is the same page given twice and is dropped silently; any other is a
    failure, named by its URL (its row's ``path``, so that the kept page's row is not taken for it), whose reason
    names the page it yields to. So is a page whose key is ``taken`` already (the error row of a bad manifest
    line, ``manifest.jsonl:2``, beside a page file of that name).

    >>> first = Page("shop", "item.html", "file:///x/shop/item.html", "<h1>Oak Shelf</h1>")
    >>> other = Page("shop", "item.html", "file:///y/shop/item.html", "<h1>Pine Desk</h1>")
    >>> kept, failures = one_page_per_key([first, other, first])
    >>> [page.url for page in kept], [failure.path for failure in failures]
    (['file:///x/shop/item.html'], ['file:///y/shop/item.html'])
    >>> print(failures[0].reason.split(", read")[0])
    file:///y/shop/item.html: its site id 'shop' and path 'item.html' are those of file:///x/shop/item.html
    """
    kept: dict[tuple[str, str], Page] = {}
    failures: list[PageFailure] = []
    taken = set(taken)
    for page in pages:
        if page_key(page) in taken:
            owner = "an error row of its input"
        else:
            first = kept.setdefault(page_key(page), page)
            if first is page or (first.url == page.url and first.html == page.html):
                continue
            owner = f"{first.url}, read before it; rows name a page by both, so predict it in another run or from a " \
                    "folder of another name"
        failures.append(PageFailure(page.site_id, page.url, f"{page.url}: its site id {page.site_id!r} and path "
                                    f"{page.path!r} are those of {owner}", page.url))
    return list(kept.values()), failures


def is_page_input(path: str | Path) -> bool:
    """Whether ``path`` is one page rather than a dataset: ``-`` (standard input), or anything but a folder
    that is not WARC (a FIFO or a device too, or a symbolic link that does not lead to a folder):
    :func:`read_page_file` tells whether it may be read.

    >>> is_page_input("-"), is_page_input("datasets/sample-shop"), is_page_input("missing.html")
    (True, False, False)
    """
    path = Path(path)
    # a FIFO, device or socket named alone is a page too: read_page_file refuses it with its row
    return str(path) == STDIN or ((path.exists() or path.is_symlink()) and not path.is_dir()
                                  and not is_warc_input(path))


class PageFileError(ValueError):
    """An HTML file given as a page that cannot be read; ``failure`` is its error row, named as a run over
    its site dump names it (the dump's site id and the path in it, the manifest's URL)."""

    def __init__(self, failure: PageFailure, message: str):
        super().__init__(message)
        self.failure = failure


def read_page_file(
    page_path: str | Path, url: str | None = None, anchor_url_pattern: str | None = None, *,
    base_url: str | None = None,
) -> tuple[Page, list[Page], SubresourceSources]:
    """One HTML file as a page and, when it lies in a site dump with a manifest, every page of that dump,
    with what serves their subresources.

    The file is read as a folder's file is when a run goes over the folder: a symbolic link whose target
    lies outside the folder that holds it, or a link loop, is not read (:func:`mainentity.sitedump.outside_reason`).
    Inside a site dump (a ``manifest.jsonl`` at most four directories up) the page gets its site id, path,
    manifest URL and incoming anchor texts, as ``predict`` gives them over the whole dump (a file the
    manifest does not list keeps the dump's site id and its path in the dump). A lone file is read as a
    folder without a manifest reads its pages: its URL is ``url``, else its ``<base href>``, else
    ``base_url`` joined with its file name (:func:`mainentity.sitedump.page_url`), else the URL it gives
    for itself (a canonical link, ``og:url``, a saved-from comment: :func:`mainentity.sitedump.own_url`),
    whose host is then its site id, else its file URI in the site its folder names; it has no anchors
    and its own links home (:func:`mainentity.linkgraph.link_graph`; its folder serves its stylesheets
    and images).

    Raises
    ------
    FileNotFoundError
        If ``page_path`` is not a file.
    PageFileError
        A ValueError: if the file is a symbolic link out of its folder or a link loop, or not a regular
        file of at most :data:`mainentity.sitedump.MAX_PAGE_BYTES`
        (:func:`mainentity.sitedump.read_page_bytes`) or not text (:func:`mainentity.sitedump.decode_html`),
        or its site dump's manifest lists it and reading the dump failed on it. Its message starts with
        ``page_path`` as given; so does its failure's reason, but for a file of a site dump (the dump's row).
    """
    named = Path(page_path).absolute()
    if reason := outside_reason(named, named.parent.resolve(), "its folder"):
        raise _refused(page_path, named.parent.name, named.name, reason)
    file = named.resolve()
    if not file.exists() or file.is_dir():  # a FIFO or a device is refused below, with its row
        raise FileNotFoundError(f"page {str(page_path)!r} is not a file")
    # named as given: a symbolic link's own name and folder, a name that is not UTF-8 with \xNN escapes
    site_id, relative = escaped_name(folder_name(named.parent)), escaped_name(named.name)
    for dump_dir in file.parents[:_MAX_DUMP_DEPTH]:
        if (dump_dir / MANIFEST_NAME).is_file():
            loaded = load_pages([str(dump_dir)], anchor_url_pattern=anchor_url_pattern, configurable=False)
            site_pages = list(loaded.pages)
            site_id, relative = dump_dir.name, file.relative_to(dump_dir).as_posix()
            page = next((p for p in site_pages if p.path == relative), None)
            if page is not None:
                return (replace(page, url=url) if url else page), site_pages, loaded.subresources
            failure = next((f for f in loaded.failures if f.path == relative), None)
            if failure is not None:
                raise PageFileError(failure, f"{page_path}: {failure.reason}")
            break
    try:
        data = read_page_bytes(file)
    except (OSError, ValueError) as error:
        raise _refused(page_path, site_id, relative, str(error)) from error
    try:
        html = decode_html(data, str(page_path))
    except ValueError as error:  # its message starts with the path given
        raise PageFileError(PageFailure(site_id, relative, str(error)), str(error)) from error
    address = url or page_url(html, relative, file, base_url)
    if not (url or base_url) and (own := own_url(html)) is not None:  # as sites_by_own_url groups a folder
        site_id = site_of_url(own[0])
        address = address if address.startswith(("http://", "https://")) else own[0]
    page = _linked_alone(Page(site_id, relative, address, html), anchor_url_pattern)
    return page, [page], SubresourceSources()


def _refused(page_path: str | Path, site_id: str, relative: str, reason: str) -> PageFileError:
    """The error of a lone file that is not read: its row keeps the key a readable file of its folder
    gets (``site_id``, ``relative``), its reason names the file as the user gave it."""
    message = f"{page_path}: {reason}"
    return PageFileError(PageFailure(site_id, relative, message), message)


def _linked_alone(page: Page, anchor_url_pattern: str | None) -> Page:
    """A page that comes alone (a lone file, standard input) with its links home; no page links to it."""
    return link_graph([page], url_pattern=anchor_url_pattern).with_links(page)


def load_inputs(
    inputs: Sequence[str],
    *,
    base_url: str | None = None,
    anchor_url_pattern: str | None = None,
    stdin: bytes | None = None,
) -> LoadedPages:
    """:func:`load_pages` over the datasets among ``inputs`` (the anchor pattern is a model's), plus single
    pages: HTML files (:func:`read_page_file`) and ``-``, one page read from standard input (its URL
    ``base_url`` or its ``<base href>``: :func:`mainentity.sitedump.page_from_html`), or given as
    ``stdin``, its bytes already read (:func:`read_stdin`). An HTML file that
    cannot be read (empty, binary, too large) is one failure, named as :func:`read_page_file` names the
    page (by its site dump, else by its folder and file name, its reason starting with the path given); the
    other inputs still load. A file that is also a page of another input (the same URL and HTML: a folder
    and a file in it) is read once, as that input's page; pages that share a site id and path are one page
    and error rows (:func:`one_page_per_key`).

    Raises
    ------
    ValueError
        As :func:`load_pages`; or if ``-`` is given twice, or standard input is empty, white space only or
        not HTML (naming ``-``).
    """
    singles = [path for path in inputs if is_page_input(path)]
    if singles.count(STDIN) > 1:
        raise ValueError("'-' (standard input) can be given once")
    datasets = [path for path in inputs if path not in singles]
    loaded = (load_pages(datasets, base_url=base_url, anchor_url_pattern=anchor_url_pattern, configurable=False)
              if datasets else LoadedPages((), ()))
    pages, sources, failures = list(loaded.pages), loaded.subresources.items(), list(loaded.failures)
    # a file of a folder given too is that folder's page (hashing every page's HTML is for single pages only)
    read = {(page.url, page.html) for page in pages} if singles else set()
    for path in singles:
        if path == STDIN:
            pages.append(_linked_alone(_stdin_page(base_url, read_stdin() if stdin is None else stdin),
                                       anchor_url_pattern))
            continue
        try:
            page, _, subresources = read_page_file(path, anchor_url_pattern=anchor_url_pattern, base_url=base_url)
        except PageFileError as error:  # one bad file is one error row; the batch goes on
            failures.append(error.failure)
            continue
        if (page.url, page.html) in read:  # given twice: as its folder's page (a site of its own) and alone
            continue
        read.add((page.url, page.html))
        pages.append(page)
        sources.extend(subresources.items())
    pages, repeated = one_page_per_key(pages, taken=[(failure.site_id, failure.path) for failure in failures])
    return LoadedPages(tuple(pages), tuple(failures + repeated), loaded.anchor_coverage, SubresourceSources(sources))


def read_stdin(max_bytes: int = MAX_PAGE_BYTES) -> bytes:
    """The bytes on standard input (``-``), read whole in pieces of 1 MB, and no further than the limit of
    a page file, checked to be an HTML page. The command line reads them before the model loads, so that an
    empty pipe, or a CSV or JSON piped in by mistake, is told at once.

    Parameters
    ----------
    max_bytes : int, default :data:`mainentity.sitedump.MAX_PAGE_BYTES`

    Raises
    ------
    ValueError
        Naming ``-``, if there are none or only white space, more than ``max_bytes`` (reading stops
        one byte past the limit: an endless pipe, ``/dev/zero``, costs no more), or they are no HTML page
        (not text, or text without any start tag in its first 64 KiB).
    """
    pieces, n_read = [], 0
    while n_read <= max_bytes and (piece := sys.stdin.buffer.read(min(1 << 20, max_bytes + 1 - n_read))):
        pieces.append(piece)
        n_read += len(piece)
    if n_read > max_bytes:
        raise ValueError(f"standard input (-) is over the limit of {max_bytes} bytes (the limit of a page file): "
                         "not read")
    data = b"".join(pieces)
    if not data.strip():
        raise ValueError(f"standard input (-) was empty ({len(data)} bytes{', white space only' if data else ''}): "
                         "pipe one HTML page into it, e.g. curl -s URL | mainentity predict - --base-url URL")
    _stdin_page(None, data)
    return data


#: An HTML start tag: what a page holds and CSV, JSON or plain text do not.
_START_TAG = re.compile(r"<[A-Za-z][A-Za-z0-9-]*[\s/>]")


def _stdin_page(base_url: str | None, data: bytes) -> Page:
    """The page whose bytes were read from standard input (``-``); ValueError naming ``-`` when it is not HTML:
    not text, or text without any start tag in its first 64 KiB (a CSV or JSON piped in by mistake, which
    would otherwise be answered as a page of one paragraph)."""
    try:
        page = page_from_html(data, base_url or None, site_id="stdin")
    except ValueError as error:
        raise ValueError(f"standard input (-) is not an HTML page: {error}") from error
    if not sniff_html(data) and not _START_TAG.search(page.html, 0, 1 << 16):
        raise ValueError(f"standard input (-) is not an HTML page: it holds no HTML tag (it starts "
                         f"{page.html.lstrip()[:40]!r}); pipe one HTML page into it")
    return page


def with_site_anchors(pages: Sequence[Page], *, anchor_url_pattern: str | None = None) -> list[Page]:
    """The pages with their incoming anchor texts (ILA) from the links among the given pages of each site.

    What :func:`load_pages` does per site dump, for pages that come from elsewhere (built in memory):
    the pages are grouped by ``site_id`` and each group is a site for
    :func:`mainentity.linkgraph.link_graph`; the coverage is logged (:func:`log_anchor_coverage`).

    Parameters
    ----------
    pages : sequence of Page
        ``(site_id, path)`` unique; their ``anchors`` and ``home_link_texts`` are replaced.
    anchor_url_pattern : str, optional
        Passed to :func:`~mainentity.linkgraph.link_graph` as ``url_pattern``.

    Returns
    -------
    pages : list of Page
        New pages, in the given order.

    Raises
    ------
    ValueError
        If two pages of a site share a path, or the pattern is not a regular expression.

    Examples
    --------
    >>> a = Page("s", "a.html", "https://s.example/a.html", '<a href="b.html">Bee</a>')
    >>> b = Page("s", "b.html", "https://s.example/b.html", "<p>b</p>")
    >>> [page.anchors for page in with_site_anchors([a, b])]
    [(), ('Bee',)]
    """
    by_site: dict[str, list[Page]] = defaultdict(list)
    for page in pages:
        by_site[page.site_id].append(page)
    linked: dict[tuple[str, str], Page] = {}
    coverage = []
    for site_pages in by_site.values():
        graph = link_graph(site_pages, url_pattern=anchor_url_pattern)
        linked.update((page_key(page), graph.with_links(page)) for page in site_pages)
        coverage.append(graph.coverage)
    log_anchor_coverage(coverage)
    return [linked[page_key(page)] for page in pages]


def _site_coverage_note(site: AnchorCoverage, configurable: bool = True) -> str:
    """The site's coverage line; for a silent site (several pages, no anchor text) with what to check
    (setting ``data.anchor_url_pattern`` only where a config is being written: ``configurable``)."""
    if site.silent:
        advice = ", or set data.anchor_url_pattern in the config" if configurable else ""
        return f"{site.summary()}: check that its pages link to each other{advice}"
    return site.summary()


def anchor_coverage_notes(coverage: Sequence[AnchorCoverage], *, configurable: bool = True) -> list[str]:
    """Report lines on the incoming-anchor coverage: one overall, one per site of several pages.

    A site of several pages where no page received an anchor text gets a warning: its anchor-text
    features are empty, so models that use them see less than they were designed for.

    Examples
    --------
    >>> for line in anchor_coverage_notes([AnchorCoverage("a", 3, 0), AnchorCoverage("b", 1, 0)]):
    ...     print(line[:50])
    Incoming anchor texts (ILA): 0 of 4 pages (0.0%) i
    Warning: site a: 0 of 3 pages (0.0%) have incoming
    """
    n_pages = sum(site.n_pages for site in coverage)
    n_with = sum(site.n_pages_with_anchors for site in coverage)
    share = n_with / n_pages if n_pages else 0.0
    lines = [f"Incoming anchor texts (ILA): {n_with} of {counted(n_pages, 'page')} ({share:.1%}) in "
             f"{counted(len(coverage), 'site')} have at least one."]
    for site in coverage:
        if site.n_pages >= 2:
            lines.append(("Warning: " if site.silent else "") + _site_coverage_note(site, configurable))
    return lines


def log_anchor_coverage(coverage: Sequence[AnchorCoverage], *, configurable: bool = True) -> None:
    """Log the overall coverage (info), then the sites of several pages: the silent ones as one warning
    in one wording whether one site or many is silent, the others as one info line (a site's own line when
    it is the only one); ``-v`` lists each site's line (:class:`mainentity.log_summary.RepeatedMessage`).
    """
    logger.info("%s", anchor_coverage_notes(coverage)[0])
    several = [site for site in coverage if site.n_pages >= 2]
    advice = ". If they do link, set data.anchor_url_pattern in the config" if configurable else ""
    silent = RepeatedMessage(logger, "{n} of {total} sites of several pages have no links between their pages: "
                             "anchor texts are missing there {examples}" + advice, summary_for_one=True)
    linked = RepeatedMessage(logger, "{n} of {total} sites of several pages have incoming anchor texts",
                             level=logging.INFO)
    for site in several:
        (silent if site.silent else linked).add(site.site_id, _site_coverage_note(site, configurable))
    silent.log(total=len(several))
    linked.log(total=len(several))


def load_labeled_pages(
    data: DataConfig, *, random_state: int = 0, max_pages: int | None = None
) -> tuple[LoadedPages, list[Page]]:
    """Load a config's datasets and keep their labeled pages, at most ``max_pages`` of them.

    The limit is the smaller of ``max_pages`` and ``data.max_pages``; above it a seeded sample (in
    dataset order) is kept.

    Returns
    -------
    loaded : LoadedPages
        Every page read (labeled or not) and the files that failed.
    labeled : list of Page
        The labeled pages used for training and testing.

    Raises
    ------
    ValueError
        If the datasets hold no labeled page.
    """
    loaded = load_pages(
        data.datasets,
        base_url=data.base_url,
        max_pages_per_site=data.max_pages_per_site,
        anchor_url_pattern=data.anchor_url_pattern,
    )
    labeled = [page for page in loaded.pages if page.main_entity]
    if not labeled:
        raise ValueError(f"no labeled pages in {', '.join(data.datasets) or 'data.datasets (empty)'}")
    limits = [n for n in (max_pages, data.max_pages) if n is not None]
    return loaded, sample_pages(labeled, min(limits) if limits else None, random_state=random_state)


def sample_pages(pages: Sequence[Page], max_pages: int | None, *, random_state: int = 0) -> list[Page]:
    """At most ``max_pages`` of ``pages``: a seeded sample kept in their order (all of them for ``None``).

    >>> pages = [Page("s", f"{i}.html", "", "") for i in range(10)]
    >>> [page.path for page in sample_pages(pages, 3)] == [page.path for page in sample_pages(pages, 3)]
    True
    >>> len(sample_pages(pages, 3)), len(sample_pages(pages, None)), len(sample_pages(pages, 20))
    (3, 10, 10)
    """
    if max_pages is None or max_pages >= len(pages):
        return list(pages)
    keep = np.random.default_rng(random_state).choice(len(pages), max_pages, replace=False)
    return [pages[i] for i in sorted(keep)]


def train_test_folds(
    data: DataConfig, labeled: Sequence[Page], *, random_state: int = 0, max_pages: int | None = None
) -> list[tuple[list[Page], list[Page]]]:
    """The ``(train, test)`` page lists a config's data section asks for.

    ``random`` and ``by-site`` give one split of ``labeled`` (:func:`mainentity.splits.split_pages`);
    ``none`` trains on every labeled page and tests on the labeled pages of ``data.test_datasets``
    (none when it is empty); ``site-folds`` gives ``data.n_folds`` folds of whole sites
    (:func:`mainentity.splits.site_folds`).

    Parameters
    ----------
    data : DataConfig
    labeled : sequence of Page
        The labeled pages of ``data.datasets`` (:func:`load_labeled_pages`).
    random_state : int
        Seed of the split and of the test pages' sample.
    max_pages : int, optional
        At most this many test pages from ``test_datasets`` (also capped by ``data.max_pages``).

    Returns
    -------
    folds : list of (train, test)

    Raises
    ------
    ValueError
        On a split that cannot be made (see :mod:`mainentity.splits`), or ``test_datasets`` without
        labeled pages.
    """
    return _folds_and_test_input(data, labeled, random_state=random_state, max_pages=max_pages)[0]


def _folds_and_test_input(
    data: DataConfig, labeled: Sequence[Page], *, random_state: int, max_pages: int | None
) -> tuple[list[tuple[list[Page], list[Page]]], LoadedPages | None]:
    """:func:`train_test_folds`, and what was read of ``data.test_datasets`` (``None`` when nothing)."""
    if data.split == "site-folds":
        return site_folds(labeled, data.n_folds, random_state=random_state), None
    train, test = split_pages(labeled, method=data.split, train_fraction=data.train_fraction,
                              random_state=random_state)
    if not data.test_datasets:
        return [(train, test)], None
    test_data = replace(data, datasets=data.test_datasets, test_datasets=(), max_test_pages=None)
    limits = [n for n in (max_pages, data.max_test_pages) if n is not None]
    loaded_test, test = load_labeled_pages(test_data, random_state=random_state,
                                           max_pages=min(limits) if limits else None)
    return [(train, test)], loaded_test


@dataclass(frozen=True)
class RunPages:
    """The pages of a training or benchmark run: what was read, the labeled pages and their folds.

    Attributes
    ----------
    loaded : LoadedPages
        Every page of ``data.datasets`` read (labeled or not) and the files that failed.
    labeled : list of Page
        Its labeled pages (:func:`load_labeled_pages`).
    folds : list of (train, test)
        :func:`train_test_folds` of them.
    subresources : SubresourceSources
        What serves the subresources of every page of the folds, the test datasets' included.
    """

    loaded: LoadedPages
    labeled: list[Page]
    folds: list[tuple[list[Page], list[Page]]]
    subresources: SubresourceSources


def load_run_pages(data: DataConfig, *, random_state: int = 0, max_pages: int | None = None) -> RunPages:
    """:func:`load_labeled_pages` and :func:`train_test_folds` in one step, with the subresources of every
    page read (those of ``data.test_datasets`` too).

    Raises
    ------
    ValueError
        As :func:`load_labeled_pages` and :func:`train_test_folds`.
    """
    loaded, labeled = load_labeled_pages(data, random_state=random_state, max_pages=max_pages)
    folds, loaded_test = _folds_and_test_input(data, labeled, random_state=random_state, max_pages=max_pages)
    sources = loaded.subresources.items()
    if loaded_test is not None:
        sources.extend(loaded_test.subresources.items())
    return RunPages(loaded, labeled, folds, SubresourceSources(sources))




def page_key(page: Page) -> tuple[str, str]:
    """``(site_id, path)``: how a page is identified across records and output rows."""
    return page.site_id, page.path


def labels_of(pages: Iterable[Page]) -> dict[tuple[str, str], tuple[str, ...]]:
    """``(site_id, path) -> labels`` of the labeled pages (the evaluation's gold standard)."""
    return {page_key(page): page.main_entity for page in pages if page.main_entity}


def data_summary(data: DataConfig, loaded: LoadedPages) -> dict:
    """Counts that a run records about its data."""
    n_sites = len({page.site_id for page in loaded.pages})
    labeled = sum(1 for page in loaded.pages if page.main_entity)
    with_anchors = sum(1 for page in loaded.pages if page.anchors)
    return {
        "datasets": list(data.datasets),
        "n_sites": n_sites,
        "n_pages": len(loaded.pages),
        "n_labeled_pages": labeled,
        "n_unreadable_pages": len(loaded.failures),
        "share_pages_with_anchors": round(with_anchors / len(loaded.pages), 4) if loaded.pages else math.nan,
        "anchor_coverage": [asdict(site) for site in loaded.anchor_coverage],
    }
