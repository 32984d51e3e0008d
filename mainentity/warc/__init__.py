"""Read crawls in WARC files (``.warc``, ``.warc.gz``) into :class:`~mainentity.records.Page`, one site per host.

A crawl (Common Crawl, Heritrix, ``wget --warc-file``, browsertrix) mixes many hosts in one file. Each
``response`` record with HTTP status 200 whose ``Content-Type`` is HTML (``text/html``,
``application/xhtml+xml``), or that has no useful type (none, ``application/octet-stream``,
``unknown/unknown``) and sniffs as HTML (:func:`mainentity.sitedump.sniff_html`), becomes a page:

- ``site_id`` is the host of its ``WARC-Target-URI`` (lower-cased, with the port when one is given):
  the unit of the link graph and of site-level cleaning;
- ``path`` is its ``WARC-Record-ID`` (unique in a crawl, and what the output row carries to find the
  record again), ``url`` its ``WARC-Target-URI``;
- its payload is decoded as a browser receives it (:func:`decode_http_payload`: chunked transfer
  coding, ``gzip``/``deflate``/``br`` content coding), then its bytes with the HTTP header's charset
  first, as a browser does (:func:`mainentity.sitedump.decode_html` with ``http_charset``).

Of page records with the same URL in the inputs, the first is kept; a record reusing the
``WARC-Record-ID`` of a page of another URL is read as a page of its own (:func:`read_warcs`).

Status-200 responses that are stylesheets, fonts or images (:func:`subresource_type`) are not pages
but are served to the pages of the same input when the renderer requests their URL
(:class:`WarcSubresources`, one per host, in :attr:`WarcInput.subresources`: the caller passes them to
the renderer), as the files of a site dump are. Only where each
record lies is kept (file and byte offset, a few hundred bytes a record, whatever its size); a record
is read when a page requests it, into a bounded in-memory copy shared by the process. So a crawl full
of images costs no memory for them, and a task sent to a worker of a cluster carries its site's list
of records, not their bytes (the worker reads them from the same WARC path: a shared file system, as
for site dumps).

Revisit records, other responses and other statuses are skipped and counted (:class:`WarcCounts`);
``request``, ``warcinfo`` and ``metadata`` records are counted as other records. A record that cannot
be decoded (binary, empty, an unknown content coding) becomes a :class:`~mainentity.sitedump.PageFailure`
of its host, with its URL. A truncated
or corrupt file becomes a failure whose ``site_id`` is the file and whose ``path`` is
``@<byte offset>``; reading goes on at the next record start found after the damage (the next gzip
member of a ``.warc.gz``, the next ``WARC/1.`` line of a ``.warc``), then with the next file. A record
whose content cannot be taken (a malformed ``WARC-Target-URI``, say) is a failure of the same kind at
its own offset, and the next record is read as usual. A record whose ``Content-Length`` runs over
the next record's header (a wrong length: its payload holds the end of a record and a ``WARC/1.x``
header) is damaged: a page record gets a failure of its host that says so, another record a failure
at its offset that names its ``WARC-Target-URI``, and reading resumes at the next record start after
its own, so no sound record behind it is lost. A page whose payload merely holds such bytes (a page
about WARC files showing a record) is read as any page: the file shows that its record ends where its
length says and that no record that does starts inside it. A record whose ``Content-Length`` ends inside its own
block (the bytes at its declared end are not the CRLF CRLF that ends a record; even inside its HTTP
header) gets such a failure too, not an answer from its cut payload: whether it is a page is read from
its block up to the next record's header. A page payload over
:data:`mainentity.sitedump.MAX_PAGE_BYTES`, recorded or once decoded, is a failure of its host: it is
never read or decompressed past that limit (a decompression bomb costs no more memory than a large page).

Labels for evaluation come from a ``manifest.jsonl`` in the folder of the WARC files: lines with
``url`` and ``main_entity`` (the site dump format of ``datasets/README.md``, matched by URL).

Records are read with FastWARC (``pip install -e '.[crawl]'``): 5-12x faster than warcio on the same
file (``benchmarks/results/warc_readers.md``).

The modules, one job each: :mod:`~mainentity.warc.crawl` (WARC inputs to sites, with labels),
:mod:`~mainentity.warc.record_reader` (the records of one file, damage included),
:mod:`~mainentity.warc.http_payload` (HTTP payload decoding) and :mod:`~mainentity.warc.subresources`
(stylesheets, fonts and images served to the pages). Their public names are importable from here.
"""

from mainentity.warc.crawl import WARC_SUFFIXES, WarcInput, is_warc_file, is_warc_input, read_warcs, warc_files
from mainentity.warc.http_payload import decode_http_payload
from mainentity.warc.record_reader import HTML_TYPES, WarcCounts, iter_warc, site_of
from mainentity.warc.subresources import (
    FONT_APPLICATION_TYPES,
    SUBRESOURCE_SUFFIXES,
    UNKNOWN_TYPES,
    SubresourceRecord,
    WarcSubresources,
    read_subresource,
    subresource_type,
    url_key,
)

__all__ = [
    "FONT_APPLICATION_TYPES", "HTML_TYPES", "SUBRESOURCE_SUFFIXES", "UNKNOWN_TYPES", "WARC_SUFFIXES",
    "SubresourceRecord", "WarcCounts", "WarcInput", "WarcSubresources", "decode_http_payload", "is_warc_file",
    "is_warc_input", "iter_warc", "read_subresource", "read_warcs", "site_of", "subresource_type", "url_key",
    "warc_files",
]
