import pytest

from mainentity.features.title_segments import (
    dice_bigrams,
    heading_weight,
    link_similarity,
    score_segments,
    split_keywords,
    split_title,
    url_parts,
)

CORONET_URL = "https://www.jdwetherspoon.com/pubs/all-pubs/england/london/the-coronet-holloway"
CORONET_TITLE = "The Coronet, Holloway | Our Pubs | J D Wetherspoon"
# The header tags of the slide "Popularity Among Header Tags".
CORONET_HEADINGS = [
    ("The Coronet", 1),
    ("Find a pub or hotel", 2),
    ("Our Pubs", 2),
    ("Check out your nearest pub or hotel", 2),
    ("Discover our food menu", 3),
    ("Our drinks selection", 3),
    ("Nearby J D Wetherspoons", 4),
]


@pytest.mark.parametrize(
    "title, segments",
    [
        (CORONET_TITLE, ["The Coronet", "Holloway", "Our Pubs", "J D Wetherspoon"]),
        (
            "Joensuu Keskusta | Intersport - Sport to the people",
            ["Joensuu Keskusta", "Intersport", "Sport to the people"],
        ),
        # Delimiter characters inside names and numbers do not split.
        ("AC/DC - Highway to Hell", ["AC/DC", "Highway to Hell"]),
        ("Q&A: Ask the Chef", ["Q&A", "Ask the Chef"]),
        ("Spider-Man: No Way Home (2021)", ["Spider-Man", "No Way Home (2021)"]),
        ("Opening hours 10:30-22:00 | Cafe 3.5", ["Opening hours 10:30-22:00", "Cafe 3.5"]),
        ("Concert on 12/05/2020 / Tickets", ["Concert on 12/05/2020", "Tickets"]),
        # A delimiter between two digits (dates, ranges, times) does not split either.
        ("Festival May 5, 2020 - Helsinki", ["Festival May 5, 2020", "Helsinki"]),
        ("Season 2019 - 2020 » Results", ["Season 2019 - 2020", "Results"]),
        ("Mr. Smith Goes to Washington . IMDb", ["Mr. Smith Goes to Washington", "IMDb"]),
        ("Home|About|Contact", ["Home", "About", "Contact"]),
        ("News || Sports :: Hockey > Results < Back", ["News", "Sports", "Hockey", "Results", "Back"]),
        (
            "EAT • DRINK · SHOP « Signorelli — Pyrmont – Sydney",
            ["EAT", "DRINK", "SHOP", "Signorelli", "Pyrmont", "Sydney"],
        ),
        # Korean and Chinese titles glue their section and site on: a bar (U+3163), "-" or "_" before a
        # short last run of Hangul or Han cuts; a glued hyphen before a longer text ("한-미 ...") does not.
        ("불발··· 친청계 \"왜 밀어붙이나\"-정치ㅣ한국일보", ["불발··· 친청계 \"왜 밀어붙이나\"", "정치", "한국일보"]),
        ("这个约会软件帮你找对象_智能_好奇心日报", ["这个约会软件帮你找对象", "智能", "好奇心日报"]),
        ("한-미 정상회담 열려 | 한국일보", ["한-미 정상회담 열려", "한국일보"]),
        # ... and a colon glued to them before a short last run (the site's name); not before a longer one.
        ("マインドマップ風のツリーを描画できる「Treeviz」:phpspot開発日誌",
         ["マインドマップ風のツリーを描画できる「Treeviz」", "phpspot開発日誌"]),
        ("東京女子医大元理事長を逮捕 警視庁：東京新聞デジタル",
         ["東京女子医大元理事長を逮捕 警視庁", "東京新聞デジタル"]),
        ("海外留学生看两会：出国前后关注点大不同，记者走访了三所大学",
         ["海外留学生看两会：出国前后关注点大不同，记者走访了三所大学"]),
        ("Meeting at 10:30", ["Meeting at 10:30"]),
        # Bars that stand in for "|": fullwidth, box-drawing and the Han stroke U+4E28 ...
        ("新竹尖石美樹營地賞楓｜旅遊｜痞客邦", ["新竹尖石美樹營地賞楓", "旅遊", "痞客邦"]),
        ("这个约会软件帮你找对象丨好奇心日报", ["这个约会软件帮你找对象", "好奇心日报"]),
        ("Harbour Times │ News", ["Harbour Times", "News"]),
        # ... and the other bars titles set: broken bar, heavy box-drawing, ornament, presentation form,
        # "divides", double bar.
        ("Oak Shelf ¦ Furniture ┃ Harbour Home", ["Oak Shelf", "Furniture", "Harbour Home"]),
        ("Linen Shirt ❘ Shop︱Harbour∣Home ‖ Sale", ["Linen Shirt", "Shop", "Harbour", "Home", "Sale"]),
        ("新竹尖石_美樹營地賞楓 (2) @ 史蒂文的家_藍天 :: 痞客邦",
         ["新竹尖石_美樹營地賞楓 (2)", "史蒂文的家", "藍天", "痞客邦"]),  # " @ " after a hosted blog's post title
        ("Sign up for e-mail_alerts", ["Sign up for e-mail_alerts"]),
        ("» Home |", ["Home"]),
        ("  Plain   title  ", ["Plain title"]),
        (" - | - ", []),
        ("", []),
    ],
)
def test_split_title(title, segments):
    assert split_title(title) == segments


def test_split_keywords_at_commas_without_spaces():
    assert split_keywords("restaurant,food; lunch , dinner") == ["restaurant", "food", "lunch", "dinner"]


def test_dice_bigrams_reproduces_slide_values():
    assert dice_bigrams("The Coronet", "the-coronet-holloway") == pytest.approx(18 / 26)  # slide: 0.70
    assert dice_bigrams("Holloway", "the-coronet-holloway") == pytest.approx(14 / 24)  # slide: 0.58
    assert dice_bigrams("J D Wetherspoon", "jdwetherspoon") == 1.0
    assert dice_bigrams("Our Pubs", "the-coronet-holloway") == 0.0


def test_dice_bigrams_properties():
    pairs = [("Aqua Dining", "aquadining"), ("ab", "abab"), ("Sydney", "Harbour"), ("x", "x"), ("", "abc")]
    for a, b in pairs:
        assert 0.0 <= dice_bigrams(a, b) <= 1.0
        assert dice_bigrams(a, b) == dice_bigrams(b, a)
    assert dice_bigrams("Café Ümlaut", "cafe-umlaut") < 1.0  # accents are kept, not folded
    assert dice_bigrams("Café Ümlaut", "CAFÉ-ÜMLAUT") == 1.0
    assert dice_bigrams("x", "x") == 0.0  # no bigram at all


@pytest.mark.parametrize(
    "url, parts",
    [
        (CORONET_URL, ("jdwetherspoon", "pubs/all-pubs/england/london", "the-coronet-holloway")),
        ("https://www.aquadining.com.au/", ("aquadining", "", "")),
        ("http://news.bbc.co.uk/sport/football/story-123.html", ("news.bbc", "sport/football", "story-123")),
        ("https://example.org/blog/my-first-post/", ("example", "blog", "my-first-post")),
        ("http://fakehost/test/page%20one.php?q=1#top", ("fakehost", "test", "page one")),
        ("https://www2.shop.example.co.jp/item", ("shop.example", "", "item")),
    ],
)
def test_url_parts(url, parts):
    assert url_parts(url) == parts


def test_link_similarity_slide_values():
    parts = url_parts(CORONET_URL)
    assert link_similarity("The Coronet", parts) == pytest.approx(3 * 18 / 26)
    assert link_similarity("Holloway", parts) == pytest.approx(3 * 14 / 24)
    assert link_similarity("Our Pubs", parts) == 0.0
    assert link_similarity("J D Wetherspoon", parts) == pytest.approx(1.0)
    # Without the threshold, "Our Pubs" would get 1.5 times its weak bigram Dice with the path.
    assert link_similarity("Our Pubs", parts, min_dice=0.0) == pytest.approx(1.5 * 6 / 29)
    with pytest.raises(ValueError, match="one weight per URL part"):
        link_similarity("x", parts, weights=(1.0, 2.0))


def test_heading_weight_slide_values():
    headings = [(text.lower(), level) for text, level in CORONET_HEADINGS]
    assert heading_weight("the coronet", headings) == 6
    assert heading_weight("our pubs", headings) == 5
    assert heading_weight("j d wetherspoon", headings) == 3  # inside "nearby j d wetherspoons"
    assert heading_weight("holloway", headings) == 0
    assert heading_weight("", headings) == 0


def test_tta_worked_example():
    scores = score_segments(CORONET_TITLE, [], ["The Coronet"], CORONET_HEADINGS, CORONET_URL)
    assert scores.segments == ("The Coronet", "Holloway", "Our Pubs", "J D Wetherspoon")
    position, popularity, link = scores.criteria.T
    assert position.tolist() == [0.1, 0.0, 0.0, 0.1]
    assert popularity == pytest.approx([1.0, 0.0, 5 / 6, 0.5])
    assert link == pytest.approx([1.0, (14 / 24) / (18 / 26), 0.0, 1.0 / (3 * 18 / 26)])
    # Slide totals: The Coronet 2.10, J D Wetherspoon 1.08, Holloway 0.83, Our Pubs 0.83. Holloway comes
    # out 0.843 here: the slide divides the rounded 1.74 by the rounded 2.10 (its Dice 0.692 is printed
    # 0.70); with exact Dice values the ratio is 1.75 / 2.077.
    assert scores.total == pytest.approx([2.10, 0.843, 0.833, 1.081], abs=0.001)
    ranking = [scores.segments[i] for i in sorted(range(4), key=lambda i: -scores.total[i])]
    assert ranking == ["The Coronet", "J D Wetherspoon", "Holloway", "Our Pubs"]


def test_position_counts_first_and_last_of_every_source():
    scores = score_segments("A | B | C", ["D - B"], ["C, E"], [], "http://x.org/")
    assert scores.segments == ("A", "B", "C", "D", "E")
    # A, C first/last of the title; D first and B last of the meta title; C and E of the keywords.
    assert scores.criteria[:, 0].tolist() == [0.1, 0.1, 0.1, 0.1, 0.1]
    middle = score_segments("A | B | C", [], [], [], "http://x.org/")
    assert middle.criteria[:, 0].tolist() == [0.1, 0.0, 0.1]


def test_segments_dedupe_by_normalised_text_and_empty_page():
    scores = score_segments("The Coronet | Pubs", ["the  CORONET"], [], [], "http://x.org/")
    assert scores.segments == ("The Coronet", "Pubs")
    empty = score_segments("", [], [], [("Heading", 1)], "http://x.org/")
    assert empty.segments == () and empty.criteria.shape == (0, 3) and empty.total.shape == (0,)


def test_criteria_are_normalised_to_one_and_zero_stays_zero():
    scores = score_segments("Alpha | Beta", [], [], [("Beta", 3), ("Beta news", 3)], "http://unrelated.org/")
    assert scores.criteria[:, 1].tolist() == [0.0, 1.0]
    assert scores.criteria[:, 2].tolist() == [0.0, 0.0]
