"""Write a small WARC file of the sample shop (``datasets/sample-shop``), for tests and examples.

The WARC mixes what a crawl holds, written with warcio's writer:

- a ``warcinfo`` record, then a ``request`` and a ``response`` record per page of the shop
  (``https://shop.example/``), in manifest order, with the page's bytes as saved and an HTTP
  ``Content-Type`` naming its charset (``windows-1252`` for the one page saved so, whose ``<meta>``
  says the same);
- the shop's stylesheet (``text/css``: not a page, but served to the shop's pages), a ``404`` answer
  and a ``revisit`` record of the home page (not pages either);
- two pages of a second host, ``notes.example``, one of them without a charset in its HTTP header and
  with ``Content-Type: application/octet-stream`` (a page only sniffing finds), so that records must be
  grouped into sites by host.

Every text of the second host is invented here. Record dates and ids are fixed, so the bytes are the
same on every run.

Usage: ``python datasets/make_sample_warc.py OUT.warc.gz [--copies N]`` (``--copies`` repeats the shop's
pages under ``/copy-<i>/`` URLs, for speed measurements on a larger file).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
SAMPLE_SITE = REPO / "datasets" / "sample-shop" / "sites" / "sample-shop"
WARC_DATE = "2026-11-30T12:00:00Z"

NOTES_PAGES = (
    ("https://notes.example/", "text/html; charset=utf-8",
     "<!doctype html><html><head><title>Field Notes</title></head><body><h1>Field Notes</h1>"
     "<p><a href=\"/tide-tables\">Reading tide tables</a></p></body></html>"),
    ("https://notes.example/tide-tables", "application/octet-stream",
     "<!DOCTYPE html><html><head><title>Reading tide tables - Field Notes</title></head><body>"
     "<p><a href=\"/\">Field Notes</a></p><h1>Reading tide tables</h1>"
     "<p>Slack water comes twice a day, a little later each day.</p></body></html>"),
)


def _record_id(n: int) -> str:
    return f"<urn:uuid:{uuid.UUID(int=n)}>"


def write_response(writer, url: str, status: str, content_type: str, body: bytes, record_number: int,
                   http_headers: tuple[tuple[str, str], ...] = ()) -> None:
    """Write a ``request`` record and the ``response`` record of ``url`` with warcio's ``writer``.

    Parameters
    ----------
    writer : warcio.warcwriter.WARCWriter
    url : str
    status : str
        HTTP status line's end, e.g. ``"200 OK"``.
    content_type : str
        The response's ``Content-Type`` header.
    body : bytes
        The HTTP payload as sent (with its transfer and content codings, if ``http_headers`` name any).
    record_number : int
        The request's record id is ``urn:uuid`` of this number, the response's of the next one.
    http_headers : tuple of (str, str)
        More HTTP response headers (``Content-Encoding``, ``Transfer-Encoding``).
    """
    from warcio.statusandheaders import StatusAndHeaders

    length = () if any(name.lower() == "transfer-encoding" for name, _ in http_headers) else (
        ("Content-Length", str(len(body))),)
    http = StatusAndHeaders(status, [("Content-Type", content_type), *length, *http_headers], protocol="HTTP/1.1")
    parts = urlsplit(url)
    request = StatusAndHeaders(f"{parts.path or '/'} HTTP/1.1", [("Host", parts.netloc)], protocol="GET",
                               is_http_request=True)
    for number, kind, payload, headers in ((record_number, "request", b"", request),
                                           (record_number + 1, "response", body, http)):
        writer.write_record(writer.create_warc_record(
            url, kind, payload=io.BytesIO(payload), http_headers=headers,
            warc_headers_dict={"WARC-Record-ID": _record_id(number), "WARC-Date": WARC_DATE}))


def write_sample_warc(out: str | Path, *, copies: int = 1, gzip: bool | None = None) -> Path:
    """Write the sample WARC to ``out`` (gzipped per record when it ends in ``.gz``, unless ``gzip`` says).

    Parameters
    ----------
    out : str or Path
        The WARC file to write (parent directories are created).
    copies : int, default 1
        How many times the shop's pages are written (copies after the first under ``/copy-<i>/``).
    gzip : bool, optional
        Compress each record; default: whether ``out`` ends in ``.gz``.

    Returns
    -------
    out : Path

    Raises
    ------
    ImportError
        If warcio is not installed (``pip install -e '.[test]'``).
    """
    from warcio.warcwriter import WARCWriter

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    manifest = [json.loads(line) for line in (SAMPLE_SITE / "manifest.jsonl").read_text("utf-8").splitlines()]
    counter = iter(range(1, 10**9))

    def headers(**extra) -> dict:
        return {"WARC-Record-ID": _record_id(next(counter)), "WARC-Date": WARC_DATE, **extra}

    with out.open("wb") as stream:
        writer = WARCWriter(stream, gzip=out.suffix == ".gz" if gzip is None else gzip)

        def response(url: str, status: str, content_type: str, body: bytes) -> None:
            number = next(counter)
            next(counter)  # the response's id
            write_response(writer, url, status, content_type, body, number)

        info = writer.create_warcinfo_record(out.name, {"software": "mainentity datasets/make_sample_warc.py"})
        info.rec_headers.replace_header("WARC-Record-ID", _record_id(0))
        info.rec_headers.replace_header("WARC-Date", WARC_DATE)
        writer.write_record(info)
        for copy in range(copies):
            for entry in manifest:
                url = entry["url"] if copy == 0 else entry["url"].replace(".example/", f".example/copy-{copy}/", 1)
                body = (SAMPLE_SITE / entry["path"]).read_bytes()
                charset = "windows-1252" if b'charset="windows-1252"' in body[:512] else "utf-8"
                response(url, "200 OK", f"text/html; charset={charset}", body)
        response("https://shop.example/css/shop.css", "200 OK", "text/css",
                 (SAMPLE_SITE / "pages" / "css" / "shop.css").read_bytes())
        response("https://shop.example/missing.html", "404 Not Found", "text/html; charset=utf-8",
                 b"<html><body><h1>Not found</h1></body></html>")
        revisit = writer.create_revisit_record(
            manifest[0]["url"], digest="sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", refers_to_uri=manifest[0]["url"],
            refers_to_date=WARC_DATE, warc_headers_dict=headers())
        writer.write_record(revisit)
        for url, content_type, html in NOTES_PAGES:
            response(url, "200 OK", content_type, html.encode("utf-8"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="WARC file to write (.warc or .warc.gz)")
    parser.add_argument("--copies", type=int, default=1, help="times the shop's pages are written")
    args = parser.parse_args(argv)
    print(f"wrote {write_sample_warc(args.out, copies=args.copies)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
