"""WARC input: records become pages grouped by host, skipped records are counted, damage is reported with
the file and offset and the rest is still read; predict, evaluate and clean take WARC files."""

from __future__ import annotations

import importlib.util
import itertools
import json
import shutil
import sys

import pytest
from conftest import REPO

from mainentity.cli import _model_and_inputs, main
from mainentity.loading import load_pages
from mainentity.sitedump import decode_html
from mainentity.warc import SubresourceRecord, WarcCounts, is_warc_input, iter_warc, read_warcs


def _load_maker():
    spec = importlib.util.spec_from_file_location("datasets_make_sample_warc",
                                                  REPO / "datasets" / "make_sample_warc.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


make_sample_warc = _load_maker()
SHOP_MANIFEST = REPO / "datasets" / "sample-shop" / "sites" / "sample-shop" / "manifest.jsonl"


@pytest.fixture
def sample_warc(tmp_path):
    """The sample shop (and a second host) as a WARC file, with the shop's labels beside it."""
    folder = tmp_path / "crawl"
    path = make_sample_warc.write_sample_warc(folder / "sample.warc.gz")
    shutil.copyfile(SHOP_MANIFEST, folder / "manifest.jsonl")
    return path


def test_html_responses_become_pages_grouped_by_host(sample_warc):
    warc_input = read_warcs([sample_warc])
    by_host = {site.site_id: site for site in warc_input.sites}
    assert sorted(by_host) == ["notes.example", "shop.example"]
    shop = by_host["shop.example"]
    manifest = [json.loads(line) for line in SHOP_MANIFEST.read_text(encoding="utf-8").splitlines()]
    assert [page.url for page in shop.pages] == [entry["url"] for entry in manifest]
    assert all(page.path.startswith("<urn:uuid:") for page in shop.pages)
    assert len({page.path for page in shop.pages}) == 42
    labels = {entry["url"]: tuple(entry["main_entity"]) for entry in manifest}
    assert all(page.main_entity == labels[page.url] for page in shop.pages)  # from manifest.jsonl beside it
    # the page saved in windows-1252 is decoded with the charset of its HTTP header
    torch = next(page for page in shop.pages if "creme-brulee" in page.url)
    assert "Crème" in torch.html and "\ufffd" not in torch.html
    # the octet-stream page of the second host is found by sniffing
    assert [page.url for page in by_host["notes.example"].pages] == [
        "https://notes.example/", "https://notes.example/tide-tables"]
    counts = warc_input.counts
    assert (counts.n_pages, counts.n_subresources, counts.n_revisits, counts.n_not_html, counts.n_other_status,
            counts.n_damaged) == (44, 1, 1, 0, 1, 0)  # the subresource: the shop's stylesheet
    assert warc_input.failures == ()


def test_the_http_charset_wins_over_the_meta_charset_as_in_a_browser():
    data = '<meta charset="utf-8"><h1>Café</h1>'.encode("cp1252")
    assert "Café" in decode_html(data, http_charset="iso-8859-1")
    assert "Café" in decode_html(data)  # no header: not valid UTF-8, sniffed
    assert decode_html("<p>日本</p>".encode(), http_charset="no-such-charset") == "<p>日本</p>"


@pytest.mark.parametrize("name", ["sample.warc.gz", "sample.warc"])
def test_a_corrupt_record_is_reported_with_file_and_offset_and_the_rest_is_read(tmp_path, name):
    path = make_sample_warc.write_sample_warc(tmp_path / name)
    whole = [item.url for item in iter_warc(path) if not isinstance(item, SubresourceRecord)]
    data = path.read_bytes()
    middle = len(data) // 2
    path.write_bytes(data[:middle] + b"\x00 not a WARC record \x00" * 20 + data[middle + 400:])
    items = [item for item in iter_warc(path) if not isinstance(item, SubresourceRecord)]
    failures = [item for item in items if not hasattr(item, "html")]
    assert len(failures) == 1
    assert failures[0].site_id == str(path) and failures[0].path.startswith("@")
    offset = int(failures[0].path[1:])
    assert 0 < offset <= middle and "resumed at byte" in failures[0].reason
    pages = [item.url for item in items if hasattr(item, "html")]
    assert len(whole) - 3 <= len(pages) < len(whole)  # one or two records lost, those after the damage read
    assert pages[-1] == whole[-1]


@pytest.mark.parametrize("name", ["sample.warc.gz", "sample.warc"])
def test_a_truncated_warc_keeps_the_pages_before_the_cut_and_names_the_offset(tmp_path, name):
    data = make_sample_warc.write_sample_warc(tmp_path / name).read_bytes()
    cut = tmp_path / f"cut-{name}"
    cut.write_bytes(data[: len(data) // 2])  # the plain WARC is cut inside a response's HTTP headers
    loaded = load_pages([str(cut)])
    assert 15 <= len(loaded.pages) < 44
    [failure] = loaded.failures
    assert failure.site_id == str(cut) and int(failure.path[1:]) < len(data) // 2
    assert "truncated" in failure.reason and failure.url == ""
    counts = WarcCounts()
    list(iter_warc(cut, counts))
    assert (counts.n_damaged, counts.n_other_status) == (1, 0)  # the half record is damage, not a response


def test_a_page_record_cut_in_its_payload_gets_a_failure_row_with_its_url(tmp_path):
    data = make_sample_warc.write_sample_warc(tmp_path / "sample.warc").read_bytes()
    cut = tmp_path / "cut.warc"
    cut.write_bytes(data[: data.index(b"<title>", len(data) // 2)])
    warc_input = read_warcs([cut])
    [failure] = [failure for site in warc_input.sites for failure in site.failures]
    assert failure.site_id == "shop.example" and failure.path.startswith("<urn:uuid:")
    assert failure.url.startswith("https://shop.example/") and f"{cut}@" in failure.reason
    assert "record truncated" in failure.reason and warc_input.failures == ()
    assert warc_input.counts.n_damaged == 1


def test_warc_inputs_are_told_apart_from_site_dumps_and_models(tmp_path, sample_warc):
    folder = sample_warc.parent
    assert is_warc_input(sample_warc) and is_warc_input(folder)
    assert not is_warc_input(REPO / "datasets" / "sample-shop")
    dump = str(REPO / "datasets" / "sample-shop")
    assert _model_and_inputs([str(sample_warc)]) == (None, [str(sample_warc)])
    assert _model_and_inputs([dump, str(folder)]) == (None, [dump, str(folder)])
    assert _model_and_inputs(["general", dump, str(sample_warc)]) == ("general", [dump, str(sample_warc)])
    assert _model_and_inputs([str(tmp_path / "no-model"), dump]) == (str(tmp_path / "no-model"), [dump])
    (tmp_path / "empty-folder").mkdir()
    with pytest.raises(ValueError, match="neither a WARC file"):
        read_warcs([tmp_path / "empty-folder"])
    with pytest.raises(FileNotFoundError, match="'.*missing.warc.gz' does not exist"):
        read_warcs([tmp_path / "missing.warc.gz"])
    assert main(["predict", str(tmp_path / "missing.warc.gz"), "-o", str(tmp_path / "rows.jsonl")]) == 2


@pytest.mark.browser
def test_predict_evaluate_and_clean_take_a_warc(tmp_path, sample_warc, render_cache_dir):
    model_dir = tmp_path / "general"
    shutil.copytree(REPO / "mainentity" / "pretrained" / "general", model_dir)

    out = tmp_path / "rows.jsonl"
    assert main(["predict", str(model_dir), str(sample_warc), "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 44 and not any(row["error"] for row in rows)
    assert {row["site_id"] for row in rows} == {"shop.example", "notes.example"}
    tide = next(row for row in rows if row["url"] == "https://notes.example/tide-tables")
    assert tide["path"].startswith("<urn:uuid:") and tide["main_entity"] == "Reading tide tables"

    assert main(["evaluate", str(model_dir), str(sample_warc.parent), "-o", str(tmp_path / "eval")]) == 0
    per_page = (tmp_path / "eval" / "per_page.csv").read_text(encoding="utf-8").splitlines()
    assert len(per_page) == 1 + 42  # the shop's labeled pages
    report = tmp_path / "clean.md"
    assert main(["clean", str(sample_warc), "--method", "sst", "--cache-dir", str(render_cache_dir),
                 "--report", str(report)]) == 0
    assert "shop.example" in report.read_text(encoding="utf-8")


def _chunked(body: bytes, size: int = 100) -> bytes:
    """``body`` in the chunked transfer coding, in chunks of ``size`` bytes."""
    chunks = [body[start:start + size] for start in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks) + b"0\r\n\r\n"


@pytest.mark.parametrize("name", ["coded.warc.gz", "coded.warc"])
def test_html_responses_in_content_and_transfer_codings_are_read_as_sent_to_a_browser(tmp_path, name):
    import gzip
    import zlib

    import brotli
    from warcio.warcwriter import WARCWriter

    html = ("<!doctype html><html><head><title>Café kettle</title></head><body><h1>Café kettle</h1>"
            + "<p>Boils water fast.</p>" * 40 + "</body></html>")
    body = html.encode("utf-8")
    deflated = zlib.compressobj(wbits=zlib.MAX_WBITS)
    codings = {  # path -> (payload as sent, extra HTTP headers)
        "gzip": (gzip.compress(body), (("Content-Encoding", "gzip"),)),
        "chunked": (_chunked(body), (("Transfer-Encoding", "chunked"),)),
        "chunked-gzip": (_chunked(gzip.compress(body)), (("Content-Encoding", "gzip"),
                                                         ("Transfer-Encoding", "chunked"))),
        "deflate": (deflated.compress(body) + deflated.flush(), (("Content-Encoding", "deflate"),)),
        "br": (brotli.compress(body), (("Content-Encoding", "br"),)),
        "zstd": (b"\x28\xb5\x2f\xfd not decodable here", (("Content-Encoding", "zstd"),)),
    }
    path = tmp_path / name
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=name.endswith(".gz"))
        for number, (coding, (payload, headers)) in enumerate(codings.items()):
            make_sample_warc.write_response(writer, f"https://shop.example/{coding}", "200 OK",
                                            "text/html; charset=utf-8", payload, 2 * number + 1, headers)
    items = {item.url: item for item in iter_warc(path)}
    for coding in ("gzip", "chunked", "chunked-gzip", "deflate", "br"):
        assert items[f"https://shop.example/{coding}"].html == html, coding
    failure = items["https://shop.example/zstd"]
    assert not hasattr(failure, "html") and "content coding 'zstd' cannot be decoded" in failure.reason


def test_the_same_records_in_two_inputs_are_read_once_and_counted_as_duplicates(tmp_path, sample_warc, caplog):
    plain = make_sample_warc.write_sample_warc(tmp_path / "again" / "sample.warc")  # the same records
    recrawl = tmp_path / "recrawl.warc.gz"  # the same URLs in new records
    from warcio.warcwriter import WARCWriter

    with recrawl.open("wb") as stream:
        make_sample_warc.write_response(WARCWriter(stream, gzip=True), "https://notes.example/", "200 OK",
                                        "text/html", b"<html><h1>Field Notes, again</h1></html>", 10**6)
        make_sample_warc.write_response(WARCWriter(stream, gzip=True), "https://notes.example/new", "200 OK",
                                        "text/html", b"<html><h1>A new note</h1></html>", 10**6 + 2)
    with caplog.at_level("INFO", logger="mainentity.warc"):
        warc_input = read_warcs([sample_warc, plain, recrawl])
    pages = [page for site in warc_input.sites for page in site.pages]
    assert len(pages) == 45 and len({page.path for page in pages}) == 45
    home = next(page for page in pages if page.url == "https://notes.example/")
    assert "again" not in home.html  # the first record of a URL is kept
    assert (warc_input.counts.n_pages, warc_input.counts.n_duplicates) == (45, 44 + 1)
    assert "45 duplicate pages" in caplog.text and "skipped 45 duplicate page records" in caplog.text

    loaded = load_pages([str(sample_warc), str(plain)])  # before, the link graph refused repeated page paths
    assert len(loaded.pages) == 44 and not loaded.failures


def test_the_failure_row_of_a_warc_record_carries_its_url(tmp_path):
    from warcio.warcwriter import WARCWriter

    path = tmp_path / "coded.warc.gz"
    with path.open("wb") as stream:
        make_sample_warc.write_response(WARCWriter(stream, gzip=True), "https://shop.example/zstd", "200 OK",
                                        "text/html", b"\x28\xb5\x2f\xfd...", 1, (("Content-Encoding", "zstd"),))
    out = tmp_path / "rows.jsonl"
    assert main(["predict", str(path), "-o", str(out)]) == 0
    [row] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert (row["site_id"], row["url"]) == ("shop.example", "https://shop.example/zstd")
    assert "content coding 'zstd' cannot be decoded" in row["error"]


def test_a_warc_record_whose_target_is_no_web_address_is_a_failure_row(tmp_path):
    """Records at ``urn:isbn:1`` or ``http:///x`` were all site "" (no host), predicted as one site."""
    from warcio.warcwriter import WARCWriter

    path = tmp_path / "odd.warc.gz"
    page = b"<html><head><title>Oak Shelf</title></head><body><h1>Oak Shelf</h1></body></html>"
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        for url in ("urn:isbn:1", "http:///x", "https://shop.example/oak"):
            make_sample_warc.write_response(writer, url, "200 OK", "text/html", page, 1)
    loaded = load_pages([str(path)])
    assert [page.url for page in loaded.pages] == ["https://shop.example/oak"]
    assert sorted(failure.url for failure in loaded.failures) == ["http:///x", "urn:isbn:1"]
    assert all("is no web address" in failure.reason for failure in loaded.failures)


def _damaged_warc(path, damage: str):
    """Five pages of one host (a request and a response record each) in ``path``, damaged as ``damage``
    says; returns the page URLs in file order."""
    import gzip
    import re
    import zlib

    from warcio.warcwriter import WARCWriter

    urls = [f"https://shop.example/p{number}" for number in range(5)]
    raw = path.with_suffix(".plain")
    with raw.open("wb") as stream:
        writer = WARCWriter(stream, gzip=False)
        for number, url in enumerate(urls):
            body = f"<html><head><title>Kettle {number}</title></head><body><h1>Kettle {number}</h1></body></html>"
            make_sample_warc.write_response(writer, url, "200 OK", "text/html; charset=utf-8", body.encode(),
                                            1 + 2 * (number if damage != "same id, another url" else min(number, 2)))
    data = raw.read_bytes()
    starts = [found.start() for found in re.finditer(rb"WARC/1\.[01]\r\n", data)] + [len(data)]
    records = [data[start:end] for start, end in itertools.pairwise(starts)]  # request, response, request, ...

    def lengthen(record: bytes, by: int) -> bytes:
        length = re.search(rb"Content-Length: (\d+)\r\n", record)
        return record[:length.start(1)] + str(int(length.group(1)) + by).encode() + record[length.end(1):]

    whole_page = len(records[4]) + len(records[5])  # the next page's request and response
    by = {"too long by 5": 5, "too long by 8": 8, "too long by 50": 50, "too long by a whole page": whole_page,
          "too long by two pages and some": 2000, "past the end of the file": 10**6, "too short by 30": -30}.get(damage)
    if by is not None:
        records[3] = lengthen(records[3], by)  # the second page's response
    elif damage == "last page too short by 30":
        records[-1] = lengthen(records[-1], -30)
    elif damage == "too short, cut in its HTTP header":
        records[3] = lengthen(records[3], 10 - int(re.search(rb"Content-Length: (\d+)", records[3]).group(1)))
    elif damage == "request too long":
        records[2] = lengthen(records[2], 200)  # the second page's request swallows its response's start
    elif damage == "request short by 30":
        records[2] = lengthen(records[2], -30)
    if path.name.endswith(".gz"):
        path.write_bytes(b"".join(gzip.compress(record) for record in records))
        assert all(zlib.decompressobj(wbits=31).decompress(gzip.compress(r)) == r for r in records)
    else:
        path.write_bytes(b"".join(records))
    return urls


WARC_DAMAGE = ("too long by 5", "too long by 8", "too long by 50", "too long by a whole page",
               "too long by two pages and some", "past the end of the file", "too short by 30",
               "last page too short by 30", "too short, cut in its HTTP header", "request too long",
               "request short by 30", "same id, another url")


@pytest.mark.parametrize("name", ["damaged.warc.gz", "damaged.warc"])
@pytest.mark.parametrize("damage", WARC_DAMAGE)
def test_every_page_record_of_a_damaged_warc_gets_exactly_one_row(tmp_path, name, damage):
    urls = _damaged_warc(tmp_path / name, damage)
    loaded = load_pages([str(tmp_path / name)])
    rows = [page.url for page in loaded.pages] + [failure.url for failure in loaded.failures if failure.url]
    assert sorted(rows) == urls  # every page record: one row, none lost, none twice
    assert len({(page.site_id, page.path) for page in loaded.pages}) == len(loaded.pages)
    answered = {page.url: page for page in loaded.pages}
    failed = {failure.url: failure for failure in loaded.failures if failure.url}
    if damage.startswith(("too long", "past the end")):
        assert sorted(failed) == [urls[1]]  # the damaged record's row says why
        assert "Content-Length" in failed[urls[1]].reason and "runs over the next record" in failed[urls[1]].reason
        assert "reading resumed at byte" in failed[urls[1]].reason
        assert all(f"Kettle {number}" in answered[urls[number]].html and "WARC" not in answered[urls[number]].html
                   for number in (0, 2, 3, 4))
    if "too short" in damage:
        damaged = urls[-1] if damage.startswith("last") else urls[1]
        assert sorted(failed) == [damaged]  # one row, the page's: not an answer from its cut payload
        assert "Content-Length" in failed[damaged].reason and "ends before the record does" in failed[damaged].reason
    if damage == "same id, another url":
        assert answered[urls[3]].path == answered[urls[2]].path + "#2"
        assert answered[urls[4]].path == answered[urls[2]].path + "#3"
    unread = [failure for failure in loaded.failures if not failure.url]  # damage outside page records
    assert len(unread) == damage.startswith("request")  # its request's damage, the page itself answered
    assert all(f"WARC record of {urls[1]} damaged" in failure.reason for failure in unread)  # which record


@pytest.mark.parametrize("name", ["about.warc.gz", "about.warc"])
@pytest.mark.parametrize("shown", [
    b"<pre>\r\n\r\nWARC/1.0\r\nWARC-Type: response\r\nContent-Length: 1234\r\n\r\nHTTP/1.1 200 OK\r\n</pre>",
    b"<script>var head = '\r\n\r\nWARC/1.0",  # the payload's very end
    b"<pre>\r\n\r\nWAR",  # as a payload cut short by a length 7 bytes too long ends
])
def test_a_page_that_shows_a_warc_header_is_answered_like_any_page(tmp_path, name, shown):
    from warcio.warcwriter import WARCWriter

    path = tmp_path / name
    urls = [f"https://docs.example/warc-{number}" for number in range(3)]
    bodies = [f"<html><head><title>Reading WARC files {number}</title></head><body><h1>Part {number}</h1>".encode()
              + shown * (number == 1) for number in range(3)]
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=name.endswith(".gz"))
        for number, (url, body) in enumerate(zip(urls, bodies, strict=True)):
            make_sample_warc.write_response(writer, url, "200 OK", "text/html; charset=utf-8", body, 1 + 2 * number)
    counts = WarcCounts()
    items = list(iter_warc(path, counts))
    assert [item.url for item in items] == urls and all(hasattr(item, "html") for item in items)  # no failure row
    assert [item.html for item in items] == [body.decode() for body in bodies]
    assert counts.n_damaged == 0 and counts.n_pages == 3


def test_a_predict_run_over_a_warc_whose_record_runs_over_the_next_writes_a_row_per_page(tmp_path):
    urls = _damaged_warc(tmp_path / "damaged.warc.gz", "too long by two pages and some")
    out = tmp_path / "rows.jsonl"
    assert main(["predict", str(tmp_path / "damaged.warc.gz"), "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(row["url"] for row in rows) == urls
    [failed] = [row for row in rows if row.get("error")]
    assert failed["url"] == urls[1] and "runs over the next record" in failed["error"]


def test_labels_beside_a_warc_may_hold_unicode_line_breaks(tmp_path):
    urls = _damaged_warc(tmp_path / "crawl.warc", "none")
    label = "Kettle\u2028one\x85two\u2029"  # raw in the file: JSON allows them, str.splitlines breaks there
    (tmp_path / "manifest.jsonl").write_text(
        json.dumps({"url": urls[0], "main_entity": [label]}, ensure_ascii=False) + "\n", encoding="utf-8")
    [site] = read_warcs([tmp_path / "crawl.warc"]).sites
    assert site.pages[0].main_entity == (label,)
