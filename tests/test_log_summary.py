"""A message that would repeat per site or per page is logged once with a count and a few examples, and -v
(DEBUG) lists them all (mainentity.log_summary, and the loaders, the renderer and the predict path using it)."""

from __future__ import annotations

import json
import logging

import pytest

from mainentity.loading import load_pages
from mainentity.log_summary import RepeatedMessage, repeated_message
from mainentity.pipeline import predict_documents
from mainentity.recognizers.baselines import TitleTagRecognizer
from mainentity.records import Document, Page, RenderedPage

LOGGER = logging.getLogger("mainentity.test_log_summary")


def messages(caplog, level):
    return [record.getMessage() for record in caplog.records if record.levelno == level]


def test_one_line_for_many_the_message_itself_for_one_and_nothing_for_none(caplog):
    tally = RepeatedMessage(LOGGER, "{n} of {total} sites are quiet")
    for site in "abcde":
        tally.add(f"{site}.example", f"site {site}.example is quiet: 0 links")
    with caplog.at_level(logging.INFO):
        tally.log(total=7)
        tally.log(total=7)  # logging forgets what was said
    assert messages(caplog, logging.WARNING) == [
        "5 of 7 sites are quiet (e.g. a.example, b.example, c.example; -v lists all 5)"]
    assert messages(caplog, logging.DEBUG) == []
    caplog.clear()
    with caplog.at_level(logging.DEBUG), repeated_message(LOGGER, "{n} pages failed", level=logging.INFO) as failed:
        failed.add("s/a.html", "s/a.html: timed out")
        assert len(failed) == 1
    assert [(record.levelno, record.getMessage()) for record in caplog.records] == [
        (logging.INFO, "s/a.html: timed out")]
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        with repeated_message(LOGGER, "{n} of {total} sites are quiet", total=3) as quiet:
            quiet.add("a.example", "site a.example is quiet: 0 links")
        always = RepeatedMessage(LOGGER, "{n} of {total} sites are quiet", summary_for_one=True)
        always.add("a.example", "site a.example is quiet: 0 links")
        always.log(total=3)
    assert [(record.levelno, record.getMessage()) for record in caplog.records] == [
        (logging.WARNING, "site a.example is quiet: 0 links"),
        (logging.WARNING, "1 of 3 sites are quiet (a.example)"), (logging.DEBUG, "site a.example is quiet: 0 links")]
    with pytest.raises(ValueError, match="n_examples must be >= 1; got 0"):
        RepeatedMessage(LOGGER, "{n}", n_examples=0)


@pytest.mark.parametrize(("names", "examples"), [
    (["s/a.html", "s/a.html"], "(s/a.html)"),  # one page tried twice: it is all there is
    (["s/a.html", "s/b.html", "s/c.html"], "(s/a.html, s/b.html, s/c.html)"),  # as many as a summary names
    (["s/a.html", "s/b.html", "s/c.html", "s/d.html"], "(e.g. s/a.html, s/b.html, s/c.html; -v lists all 4)"),
])
def test_e_g_is_written_only_when_some_names_are_left_out(caplog, names, examples):
    tally = RepeatedMessage(LOGGER, "{n} rendering attempts failed")
    for name in names:
        tally.add(name, f"{name}: timed out")
    with caplog.at_level(logging.WARNING):
        tally.log()
    assert messages(caplog, logging.WARNING) == [f"{len(names)} rendering attempts failed {examples}"]


def test_the_block_is_summed_up_when_it_raises(caplog):
    with caplog.at_level(logging.DEBUG), pytest.raises(KeyboardInterrupt):
        with repeated_message(LOGGER, "{n} pages failed") as failed:
            failed.add("s/a.html", "s/a.html: timed out")
            failed.add("s/b.html", "s/b.html: crashed")
            raise KeyboardInterrupt
    assert messages(caplog, logging.WARNING) == ["2 pages failed (s/a.html, s/b.html)"]
    assert messages(caplog, logging.DEBUG) == ["s/a.html: timed out", "s/b.html: crashed"]


def write_site(root, site_id: str, n_pages: int, empty: int = 0) -> None:
    """A site dump of ``n_pages`` pages that do not link to each other, and ``empty`` empty page files."""
    site = root / "sites" / site_id
    site.mkdir(parents=True)
    entries = []
    for i in range(n_pages + empty):
        (site / f"{i}.html").write_text("" if i >= n_pages else f"<title>Story {i}</title><h1>Story {i}</h1>")
        entries.append({"path": f"{i}.html", "url": f"https://{site_id}/{i}.html", "main_entity": [f"Story {i}"]})
    (site / "manifest.jsonl").write_text("\n".join(json.dumps(entry) for entry in entries))


def test_sites_without_links_between_their_pages_are_one_warning_and_v_lists_them(tmp_path, caplog):
    for site_id in ("a.example", "b.example", "c.example", "d.example", "e.example"):
        write_site(tmp_path, site_id, 2)
    write_site(tmp_path, "lone.example", 1)
    with caplog.at_level(logging.DEBUG, logger="mainentity"):
        load_pages([str(tmp_path)])
    assert messages(caplog, logging.WARNING) == [
        "5 of 5 sites of several pages have no links between their pages: anchor texts are missing there "
        "(e.g. a.example, b.example, c.example; -v lists all 5). If they do link, set data.anchor_url_pattern in "
        "the config"]
    listed = [message for message in messages(caplog, logging.DEBUG) if "check that its pages link" in message]
    assert [message.split(":")[0] for message in listed] == [
        "site a.example", "site b.example", "site c.example", "site d.example", "site e.example"]


def test_one_site_without_links_between_its_pages_is_said_in_the_words_of_many(tmp_path, caplog):
    write_site(tmp_path / "one", "a.example", 2)
    write_site(tmp_path / "one", "b.example", 1)  # a lone page: no links expected
    write_site(tmp_path / "many", "a.example", 2)
    write_site(tmp_path / "many", "c.example", 2)
    with caplog.at_level(logging.DEBUG, logger="mainentity"):
        load_pages([str(tmp_path / "one")])
        load_pages([str(tmp_path / "many")])
    one, many = messages(caplog, logging.WARNING)
    assert one == ("1 of 1 sites of several pages have no links between their pages: anchor texts are missing "
                   "there (a.example). If they do link, set data.anchor_url_pattern in the config")
    assert many == one.replace("1 of 1", "2 of 2").replace("(a.example)", "(a.example, c.example)")
    listed = [message for message in messages(caplog, logging.DEBUG) if "check that its pages link" in message]
    assert [message.split(":")[0] for message in listed] == ["site a.example", "site a.example", "site c.example"]


def test_pages_that_cannot_be_read_are_one_warning(tmp_path, caplog):
    write_site(tmp_path, "a.example", 2, empty=3)
    write_site(tmp_path, "b.example", 2, empty=1)
    with caplog.at_level(logging.INFO, logger="mainentity"):
        loaded = load_pages([str(tmp_path)])
    assert len(loaded.failures) == 4
    assert [message for message in messages(caplog, logging.WARNING) if "could not be read" in message] == [
        "4 of 8 pages could not be read and were skipped (e.g. a.example/2.html, a.example/3.html, "
        "a.example/4.html; -v lists all 4)"]


def test_pages_without_a_prediction_are_one_warning(caplog):
    pages = [Page("s.example", f"{i}.html", f"https://s.example/{i}.html", "<title>T</title>") for i in range(4)]
    documents = [(page, None, f"render failed after 2 attempt(s): timed out ({page.path})") for page in pages[:3]]
    documents.append((pages[3], Document(pages[3], RenderedPage("Harbour news", (), ())), ""))
    with caplog.at_level(logging.INFO, logger="mainentity"):
        predictions = predict_documents(TitleTagRecognizer().fit([]), documents)
    assert [prediction.error != "" for prediction in predictions] == [True, True, True, False]
    assert messages(caplog, logging.WARNING) == [
        "3 pages have no prediction (an error row each) (s.example/0.html, s.example/1.html, s.example/2.html)"]
