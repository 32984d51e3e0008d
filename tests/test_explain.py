"""explain: a screenshot with the predicted main entity and the top candidates boxed and scored."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest
from conftest import SAMPLE_SHOP
from test_recognizer_msrbfn import product_document

from mainentity.cli import main
from mainentity.config import config_from_dict
from mainentity.explain import MAX_HEIGHT, Candidate, _draw, crop_rows, explain, top_candidates
from mainentity.recognizers.msrbfn import MSRBFNRecognizer
from mainentity.records import Document, TextBlock
from mainentity.runs import train

PIL = pytest.importorskip("PIL.Image", reason="explain draws with Pillow: pip install 'mainentity[report]'")


def block(text: str, y: float) -> TextBlock:
    return TextBlock(text, "p", "html/body/p", 12.0, 400, False, 10.0, y, 200.0, 18.0)


def test_top_candidates_orders_by_score_and_drops_unscored_blocks():
    blocks = (block("a", 0), block("b", 20), block("c", 40), block("d", 60))
    top = top_candidates(blocks, np.array([0.2, math.nan, 0.9, -0.5]), 2)
    assert [(c.text, c.score, c.box) for c in top] == [("c", 0.9, (10.0, 40.0, 200.0, 18.0)),
                                                       ("a", 0.2, (10.0, 0.0, 200.0, 18.0))]
    assert [c.text for c in top_candidates(blocks, np.array([0.2, math.nan, 0.9, -0.5]), 10)] == ["c", "a", "d"]
    with pytest.raises(ValueError, match="4 blocks but 3 scores"):
        top_candidates(blocks, np.zeros(3), 2)


def test_msrbfn_block_scores_agree_with_predict():
    documents = [product_document(i) for i in range(8)]
    recognizer = MSRBFNRecognizer(m1=4, m2=4, random_state=0).fit(documents[:6])
    page = documents[6]
    hidden = replace(page.rendered.blocks[0], hidden=True)
    page = replace(page, rendered=replace(page.rendered, blocks=(hidden, *page.rendered.blocks[1:])))
    scores = recognizer.block_scores(page)
    prediction = recognizer.predict([page])[0]
    assert scores.shape == (len(page.rendered.blocks),)
    assert np.isnan(scores).tolist() == [block.hidden for block in page.rendered.blocks]
    assert np.isnan(scores[0])
    assert np.nanmax(scores) == pytest.approx(prediction.score)
    best = page.rendered.blocks[int(np.nanargmax(scores))]
    assert best.text == prediction.main_entity
    assert [c.text for c in top_candidates(page.rendered.blocks, scores, len(scores)) if c.score > 0] == list(
        prediction.candidates)
    with pytest.raises(ValueError, match="not rendered"):
        recognizer.block_scores(Document(page.page))


def test_a_long_page_is_cut_around_its_boxes_and_gets_a_legend(tmp_path):
    shot = tmp_path / "long.png"
    PIL.new("RGB", (1024, 15000), (255, 255, 255)).save(shot)
    predicted = Candidate("Fogbank Paper Pendant Shade", 0.973, (100.0, 9000.0, 300.0, 30.0))
    second = Candidate("Related lamps", -0.25, (100.0, 9400.0, 200.0, 20.0))
    lines = _draw(shot, predicted, [second])
    assert lines == ["main entity  +0.973  Fogbank Paper Pendant Shade", "#2  -0.250  Related lamps"]
    assert crop_rows(15000, [predicted.box, second.box], MAX_HEIGHT) == (8800, 10800)
    with PIL.open(shot) as image:
        assert image.width == 1024 and MAX_HEIGHT < image.height <= MAX_HEIGHT + 80  # the cut page + 2 legend lines
        # the boxes moved up with the cut: the predicted one starts 200 px below the top
        assert image.getpixel((250, 198)) == (220, 20, 20)
        assert image.getpixel((200, 598)) == (20, 90, 220)
        assert image.getpixel((12, MAX_HEIGHT + 4 + 9)) == (220, 20, 20)  # the legend's first swatch


@pytest.mark.browser
def test_explain_draws_on_a_full_width_screenshot_and_predicts_as_predict_does(tmp_path, render_cache_dir):
    config = config_from_dict({
        "name": "tiny-msrbfn", "seed": 0,
        "data": {"datasets": [str(SAMPLE_SHOP)], "max_pages": 10},
        "model": {"name": "msrbfn", "params": {"m1": 5, "m2": 5}},
        "render": {"cache_dir": str(render_cache_dir)},
        "output": {"runs_dir": str(tmp_path / "runs")},
    })
    model_dir = train(config)
    page = SAMPLE_SHOP / "sites" / "sample-shop" / "pages" / "p" / "fogbank-paper-pendant-shade.html"
    predictions = tmp_path / "predictions.jsonl"
    assert main(["predict", str(model_dir), str(SAMPLE_SHOP), "-o", str(predictions)]) == 0
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    expected = next(row for row in rows if row["path"] == "pages/p/fogbank-paper-pendant-shade.html")

    shot = tmp_path / "shot.png"
    prediction = explain(model_dir, page, shot, top_k=5)
    assert prediction.main_entity == expected["main_entity"]
    assert prediction.score == pytest.approx(expected["score"])
    assert prediction.bbox == pytest.approx((expected["x"], expected["y"], expected["width"], expected["height"]))
    with PIL.open(shot) as image:
        assert image.width == 1024 and image.height >= 768
        x, y, width, height = prediction.bbox
        # The predicted box is outlined in red just outside the block's box.
        assert image.convert("RGB").getpixel((round(x + width / 2), round(y - 2))) == (220, 20, 20)


@pytest.mark.browser
def test_explain_command(tmp_path, render_cache_dir, capsys):
    config = config_from_dict({
        "name": "tiny-title-tag", "data": {"datasets": [str(SAMPLE_SHOP)], "max_pages": 4},
        "model": {"name": "title-tag"}, "render": {"cache_dir": str(render_cache_dir)},
        "output": {"runs_dir": str(tmp_path / "runs")},
    })
    model_dir = train(config)
    page = SAMPLE_SHOP / "sites" / "sample-shop" / "pages" / "p" / "fogbank-paper-pendant-shade.html"
    assert main(["explain", str(model_dir), str(page), "-o", str(tmp_path / "t.png"), "--top", "3"]) == 0
    assert "screenshot written to" in capsys.readouterr().out
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["explain", str(model_dir), str(tmp_path / "missing.html"), "-o", str(tmp_path / "x.png")]) == 2
