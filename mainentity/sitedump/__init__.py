"""Read site dumps (directories of HTML files from one web site) into :class:`~mainentity.records.Page`.

A *site dump* is a directory of HTML files (any nesting) from one site: files ending in ``.html``,
``.htm`` or ``.xhtml`` (any case), and files without an extension whose first bytes sniff as HTML. An
optional ``manifest.jsonl`` beside them lists the pages (one JSON object a line, format in
``datasets/README.md``): ``path`` (relative to the site directory), ``url`` and, for labeled data,
``main_entity`` (a list of acceptable labels). A *labeled dataset* is a directory ``sites/<site-id>/``
of site dumps.

The URL of a page is, in order of preference:

1. the manifest's ``url``;
2. the page's first ``<base href>`` (resolved against 3. or 4. when it is relative);
3. ``base_url`` joined with the page's relative path (``https://shop.example/`` + ``p/kettle.html``);
4. the ``file://`` URI of the file (so links between the files of the dump still resolve).

A directory without a manifest and without ``base_url`` is a *folder of pages*, not a site dump: its
pages are grouped into sites by the URL each gives for itself (:func:`own_url`: a canonical link,
``og:url``, ``<base href>`` or a saved-from comment; one site per host, :func:`sites_by_own_url`), and a
page that names no URL is a site of its own; such a page takes its own URL when it has no ``<base href>``.

Bytes are decoded as a browser would, except that valid UTF-8 wins over a declared charset (some
saved pages declare ``gb2312`` while their bytes are UTF-8): see :func:`decode_html`. A page that
cannot be read (missing, empty, binary, or a symbolic link whose target lies outside the dump, which
is never followed) becomes a :class:`PageFailure` naming its path and the reason; the rest of the
dump is read.

Subresources (stylesheets, fonts, images) that a page requests are looked up in the dump it was read
from by :class:`DumpFiles` (see :func:`subresource_candidates` for the layouts understood). Nothing is
recorded behind the caller's back: the sources of each site's subresources (:class:`DumpFiles` of a
dump, the records of a WARC input: :class:`mainentity.warc.WarcSubresources`) travel with the pages as
a :class:`SubresourceSources`, passed to the renderer.

The modules, one job each: :mod:`~mainentity.sitedump.decoding` (page bytes to text),
:mod:`~mainentity.sitedump.manifest_entries` (the manifest), :mod:`~mainentity.sitedump.own_urls` (the
URL a page gives for itself), :mod:`~mainentity.sitedump.dump` (site dumps, folders of pages and datasets
to pages) and :mod:`~mainentity.sitedump.subresources` (the files a page requests).
Their public names are importable from here.
"""

from mainentity.sitedump.decoding import (
    MAX_MANIFEST_BYTES,
    MAX_MANIFEST_LINE_BYTES,
    MAX_PAGE_BYTES,
    PageReadError,
    check_decoded,
    declared_charset,
    decode_html,
    escaped_name,
    looks_binary,
    read_page_bytes,
    sniff_html,
)
from mainentity.sitedump.dump import (
    HTML_SUFFIXES,
    SiteDump,
    find_page_files,
    folder_name,
    is_input_directory,
    label_in_page,
    outside_reason,
    page_digest,
    page_from_html,
    page_url,
    read_dataset,
    read_site_dump,
    sites_by_own_url,
)
from mainentity.sitedump.manifest_entries import (
    MANIFEST_NAME,
    PageFailure,
    manifest_entry_problem,
    manifest_labels,
    page_key,
    read_manifest,
)
from mainentity.sitedump.own_urls import URL_MARKERS, find_base_href, own_url, site_of_url, web_url_problem
from mainentity.sitedump.subresources import (
    MAX_CACHED_BYTES,
    DumpFile,
    DumpFiles,
    FileMemo,
    SubresourceSource,
    SubresourceSources,
    subresource_candidates,
)

__all__ = [
    "HTML_SUFFIXES", "MANIFEST_NAME", "MAX_CACHED_BYTES", "MAX_MANIFEST_BYTES", "MAX_MANIFEST_LINE_BYTES",
    "MAX_PAGE_BYTES", "DumpFile", "DumpFiles", "FileMemo", "PageFailure", "PageReadError", "SiteDump",
    "SubresourceSource", "SubresourceSources", "check_decoded", "declared_charset", "decode_html",
    "escaped_name", "find_base_href", "find_page_files", "folder_name", "is_input_directory", "label_in_page",
    "looks_binary", "manifest_entry_problem", "manifest_labels", "outside_reason", "own_url", "page_digest",
    "page_from_html", "page_key", "page_url", "read_dataset", "read_manifest", "read_page_bytes",
    "read_site_dump", "site_of_url", "sites_by_own_url", "sniff_html", "subresource_candidates", "URL_MARKERS",
    "web_url_problem",
]
