"""Tests of the dataset scripts: datasets/make_sample_site.py (the embedded sample shop) and
datasets/import_swde.py (SWDE -> site dumps)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import lxml.html
import pytest

from mainentity.sitedump import read_dataset

DATASETS = Path(__file__).resolve().parents[1] / "datasets"
SAMPLE = DATASETS / "sample-shop"


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(f"datasets_{name}", DATASETS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


make_sample_site = load_script("make_sample_site")
import_swde = load_script("import_swde")


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --- the sample shop --------------------------------------------------------------------------------


def test_committed_sample_equals_a_fresh_generation(tmp_path):
    written = make_sample_site.write_sample_site(tmp_path / "fresh")
    fresh = tree(tmp_path / "fresh")
    assert len(written) == len(fresh) == 45
    committed = tree(SAMPLE)
    assert sorted(committed) == sorted(fresh)
    changed = [name for name in fresh if fresh[name] != committed[name]]
    assert changed == [], "regenerate with: python datasets/make_sample_site.py"


def test_sample_reads_cleanly_with_labels():
    (dump,) = read_dataset(SAMPLE)
    assert dump.site_id == "sample-shop" and dump.failures == ()
    assert len(dump.pages) == 42
    assert all(p.url.startswith("https://shop.example/") and len(p.main_entity) == 1 for p in dump.pages)
    lines = (dump.directory / "manifest.jsonl").read_text("utf-8").splitlines()
    manifest = [json.loads(line) for line in lines]
    assert all(entry["label_in_page"] for entry in manifest)
    kinds = [p.path.split("/")[1] if "/" in p.path[6:] else "home" for p in dump.pages]
    assert {kind: kinds.count(kind) for kind in set(kinds)} == {"home": 1, "c": 5, "p": 30, "journal": 6}
    (torch,) = [p for p in dump.pages if p.path == "pages/p/creme-brulee-torch.html"]
    raw = (dump.directory / torch.path).read_bytes()
    assert b'charset="windows-1252"' in raw and "Crème Brûlée Torch".encode("cp1252") in raw
    assert "<h1" in torch.html and "Crème Brûlée Torch</div>" in torch.html


def test_sample_pages_load_only_the_shop_stylesheet():
    (dump,) = read_dataset(SAMPLE)
    for page in dump.pages:
        root = lxml.html.fromstring(page.html)
        assert root.xpath("//script | //iframe | //object | //embed | //style") == []
        assert [(link.get("rel"), link.get("href")) for link in root.iter("link")] == [
            ("stylesheet", "/css/shop.css")
        ], page.path
        assert all(src.startswith("data:") for src in root.xpath("//@src")), page.path
        assert "url(" not in page.html and "@import" not in page.html
    stylesheet = (dump.directory / "pages" / "css" / "shop.css").read_text("utf-8")
    assert ".product-name{font-size:32px;font-weight:700" in stylesheet
    assert "url(" not in stylesheet and "@import" not in stylesheet


def test_sample_templates_vary():
    (dump,) = read_dataset(SAMPLE)
    products = [p for p in dump.pages if p.path.startswith("pages/p/")]
    titles = [lxml.html.fromstring(p.html).findtext(".//title") for p in products]
    names = [p.main_entity[0] for p in products]
    pairs = list(zip(titles, names, strict=True))
    formats = {
        "name | shop": sum(t == f"{n} | Harbor Lane Goods" for t, n in pairs),
        "shop - name - category": sum(t.startswith(f"Harbor Lane Goods - {n} - ") for t, n in pairs),
        "buy name online": sum(t == f"Buy {n} online" for t, n in pairs),
        "shop only": sum(t == "Harbor Lane Goods" for t in titles),
    }
    assert all(count >= 5 for count in formats.values()), formats
    assert sum(formats.values()) == len(products)
    in_h1 = sum(
        any(h.text_content() == p.main_entity[0] for h in lxml.html.fromstring(p.html).iter("h1"))
        for p in products
    )
    assert in_h1 == 10  # one template in three; the others use a styled div or span
    # distractors: every product page has the large bold logo, a promo banner and a price
    assert all(all(c in p.html for c in ('class="logo"', 'class="promo"', 'class="price"')) for p in products)


# --- the SWDE importer ------------------------------------------------------------------------------


def swde_page(url: str, title: str) -> bytes:
    return (
        f'\ufeff<base href="{url}"/>\n<!DOCTYPE html>\n'
        f"<html><head><title>{title}: An Author: 978: Shop</title>"
        f"</head><body><h1>{title}</h1><p>by An Author</p></body></html>"
    ).encode()


@pytest.fixture
def swde_root(tmp_path):
    root = tmp_path / "swde"
    pages = root / "book" / "book-shopone-4"
    pages.mkdir(parents=True)
    title = "Know Your Kettle: All 66 Parts"
    (pages / "0000.htm").write_bytes(swde_page("http://shopone.example/a/pd/1", title))
    (pages / "0001.htm").write_bytes(swde_page("http://www.shopone.example/b/pd/2", "Lydia&#39;s Charm"))
    (pages / "0002.htm").write_bytes(b"")  # unreadable: skipped
    (pages / "0003.htm").write_bytes(swde_page("http://www.shopone.example/d/pd/4", "Untitled"))
    other = root / "book" / "book-shoptwo(1)"
    other.mkdir()
    (other / "0000.htm").write_bytes(swde_page("http://shoptwo.example/x", "The Bridge"))
    (root / "book" / "book-shopthree-1").mkdir()  # no ground truth: skipped with an error
    truth = root / "groundtruth" / "book"
    truth.mkdir(parents=True)
    (truth / "book-shopone-title.txt").write_text(
        "book\tshopone\ttitle\n4\t4\t4\t3\n"
        "0000\t1\t&nbsp;Know Your Kettle:  All 66 Parts\n"
        "0001\t2\tLydia&#39;s Charm\tLydia's   Charm (Novel)\n"
        "0002\t1\tEmpty Page\n"
        "0003\t0\t<NULL>\n",
        encoding="utf-8",
    )
    (truth / "book-shoptwo-title.txt").write_text("book\tshoptwo\ttitle\n1\t1\n0000\t1\tThe Bridge\n")
    return root


def test_import_swde_one_site(swde_root, tmp_path):
    out = tmp_path / "out"
    assert import_swde.main([str(swde_root), str(out), "--site", "shopone"]) == 0
    site = out / "sites" / "shopone"
    manifest = [json.loads(line) for line in (site / "manifest.jsonl").read_text("utf-8").splitlines()]
    assert manifest == [
        {"path": "pages/0000.htm", "url": "http://shopone.example/a/pd/1",
         "main_entity": ["Know Your Kettle: All 66 Parts"], "label_in_page": True},
        {"path": "pages/0001.htm", "url": "http://www.shopone.example/b/pd/2",
         "main_entity": ["Lydia's Charm", "Lydia's Charm (Novel)"], "label_in_page": True},
        {"path": "pages/0003.htm", "url": "http://www.shopone.example/d/pd/4",
         "main_entity": [], "label_in_page": False},
    ]
    original = swde_root / "book" / "book-shopone-4" / "0000.htm"
    assert (site / "pages" / "0000.htm").read_bytes() == original.read_bytes()
    assert not (site / "pages" / "0002.htm").exists()
    assert not (out / "sites" / "shoptwo").exists()
    assert "| `shopone` | 3 | 2 | 2 |" in (out / "DATASET.md").read_text("utf-8")
    (dump,) = read_dataset(out)
    assert [p.main_entity for p in dump.pages][:2] == [("Know Your Kettle: All 66 Parts",),
                                                      ("Lydia's Charm", "Lydia's Charm (Novel)")]


def test_import_swde_all_sites_and_max_pages(swde_root, tmp_path, caplog):
    out = tmp_path / "out"
    assert import_swde.main([str(swde_root), str(out), "--max-pages", "1"]) == 0
    assert sorted(p.name for p in (out / "sites").iterdir()) == ["shopone", "shoptwo"]
    assert [d.site_id for d in read_dataset(out)] == ["shopone", "shoptwo"]
    assert [len(d.pages) for d in read_dataset(out)] == [1, 1]
    assert re.search(r"skipped site shopthree: ground-truth file .*book-shopthree-title.txt", caplog.text)


def test_import_swde_errors(swde_root, tmp_path):
    out = tmp_path / "out"
    assert import_swde.main([str(swde_root), str(out), "--site", "nosuch"]) == 2
    assert import_swde.main([str(swde_root), str(out), "--vertical", "movie"]) == 2
    with pytest.raises(SystemExit):
        import_swde.main([str(swde_root), str(out), "--vertical", "recipes"])  # no default attribute
    with pytest.raises(SystemExit):
        import_swde.main([str(swde_root), str(out), "--max-pages", "0"])
    assert import_swde.main([str(swde_root), str(out), "--site", "shopthree"]) == 1
