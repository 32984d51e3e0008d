"""The static reader's CSS cascade: cutting the style rules it would drop before tinycss2 tokenizes a sheet,
and leaving out the rules naming classes or ids that no element of the page carries, changes nothing it
compiles, nor any page it reads (generated sheets full of what CSS tokenizing makes tricky: strings,
comments, escapes, URL tokens, brackets left open, blocks read in place)."""

from __future__ import annotations

import random
import re

import pytest
import tinycss2
from selectolax.lexbor import LexborHTMLParser

from mainentity.records import Page
from mainentity.render import static_css
from mainentity.render.static import read_static
from mainentity.render.static_css import compile_sheet, without_unkept_rules

#: Pieces of style sheets: rules that declare kept properties or only others, and the constructs whose
#: tokenizing decides where a rule ends.
_RULES = (
    "p{color:red}", "a { margin: 0 }", ".x{padding:1px;border-top:0}", "h1{font:bold 20px serif}",
    "div { display : none }", ".y{background-color:#fff}", "#a{ line-height: 2 ; TOP: -2000px; position:absolute}",
    "b{content:'}'}", 'i{content:"{;color:red"}', ".q{margin:0;/* color: red */}", ".r{x:url(a{b}.png)}",
    ".s{x:url( 'a}' )}", ".t{background:url(data:x;y)}", "u{x:(a}; color:blue)}", ".v{\\63olor:red}",
    "s{font-size:\\31 2px}", "em{visibility:hidden}", ".w{float:left;width:1px;overflow:hidden}",
    "[data-x='}']{opacity:0}", "a:not(.b){clip:rect(0 0 0 0)}", ".z{--v:{a:b};margin:0}", "p{;;margin:0;}",
    ".k{x:1;Color:red}", ".l{ſolor:red}", "table{font-weight:bold}", ".m{text-indent:-9999px}",
    ".Q p, #A > .x{color:red}", "#a .Y{top:0}", ".w.q::before{color:red}", "li~.x:hover,b+.z{top:1px}",
    # values and declarations tinycss2 serializes otherwise than written, or drops
    "p{color:red!important}", "b{color:red ! IMPORTANT}", "i{color:red !important !important}", "a{color:red !ie}",
    "p{font-family:'Open Sans',\"x y\"}", "p{width:calc(100% - 2px)}", "p{width:calc(100%-2px)}", "p{top:1e3px}",
    "p{top:2e}", "p{top:2e-x}", "p{color:rgb(0,0,0)}", "p{color:}", "p{color: !important}", ".a{color:var(--x-y)}",
    "p{font-family:\u5fae\u8f6f\u96c5\u9ed1}", "p{color:red\u00a0}", "p{\u00a0color:red}", "p{ /* c */ color:red}",
    "p{color /* c */:red}", "p{color:red/* c */}", "p{color:1.2.3}", "p{top:1-2}", "u+a{color:red}", "p{height:.5.5em}",
    "p{color:#1e3}", "p{color:red;;top:0;}", "p{font:12px/1.5 'A B'}", "p{color:a(b(c))}", "p{top:x(1;2)}",
    "p , , b{top:0}", "a:nth-child(2n+1){top:0}", "p{color:red}garbage", "p{color:red} x:y",
)
_AROUND = (
    "", " ", "\n", "/* } */", "<!--", "-->", "@media print{p{color:red}}", "@media screen{a{margin:0}b{color:red}}",
    "@import 'a.css';", "@layer base{p{font-size:3px}}", "@layer x;", "@font-face{font-family:x;src:url(a.woff)}",
    "@page{margin:0}", "}", ")", "]", "'unclosed\n", "\"str}\"", "#url(a{b)", "@url(x{y)", "x\\ url(a{b)",
    "\\75 rl(a{b)", "url(a b{)", "\r\n", "\f", "\0", ";", "@supports (display:grid){.g{display:grid}}",
    "u\\72l(a{)", "/* unclosed comment", "@media (max-width:767px){p{color:red}}", "@media print,screen{b{color:red}}",
    "@media/**/print{p{color:red}}", "@media 'x'{p{color:red}}", "@media print{@layer y{p{color:red}}}",
    "@media(min-width:48em){a{top:0}}", "@media\\ x{p{color:red}}", "<!--url(a b{)", "x-->url(a{b)",
    "@media screen{.x{top:0}@layer{.q p{color:red}}}", "@supports (x:y){@media all{.w{top:0}b{color:red}}}",
    "@keyframes k{from{top:0}}", "@layer l{.y{top:0}}", "@media screen{.x{top:0}.z", "@media all{<!--.q{top:0}}",
    "@media screen{@import 'b.css'}", "@-moz-document url(x){.a{top:0}}",
    "@charset \"utf-8\";", "@charset 'x';", "@media print {}", "@layer x {}", "@font-face{}", "@IMPORT 'c.css';",
)
_ENDINGS = ("", "<![CDATA[", "p{color:red", "a[", "@media x{", "(", "p{x:url(", "'")


def _sheets(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    sheets = []
    for _ in range(n):
        parts = [rng.choice(_RULES if rng.random() < 0.6 else _AROUND) for _ in range(rng.randint(1, 12))]
        sheets.append("".join(parts) + (rng.choice(_ENDINGS) if rng.random() < 0.3 else ""))
    return sheets


def _full_parse(source: str | bytes) -> tuple:
    """What :func:`compile_sheet` gives with no rule cut: the whole sheet tokenized by tinycss2."""
    if isinstance(source, bytes):
        rules, _ = tinycss2.parse_stylesheet_bytes(source, skip_comments=True, skip_whitespace=True)
    else:
        rules = tinycss2.parse_stylesheet(source, skip_comments=True, skip_whitespace=True)
    items: list[tuple] = []
    static_css._compile_rules(rules, items, 0, [0])
    return tuple(items)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cutting_unkept_rules_compiles_every_generated_sheet_as_a_full_parse(seed):
    sheets = _sheets(400, seed)
    n_cut = 0
    for sheet in sheets:
        assert compile_sheet(sheet) == _full_parse(sheet), sheet
        assert compile_sheet(sheet.encode("utf-8")) == _full_parse(sheet.encode("utf-8")), sheet
        n_cut += len(without_unkept_rules(sheet)) < len(sheet.replace("\r\n", "\n"))
    assert n_cut >= len(sheets) // 3  # the cut does happen on these sheets


@pytest.mark.parametrize("seed", [5, 6])
def test_only_rules_naming_classes_or_ids_absent_from_the_page_are_left_out(seed):
    rng = random.Random(seed)
    n_left_out = 0
    for sheet in _sheets(400, seed):
        names = {name for name in ("x", "y", "z", "q", "w", "a", "p") if rng.random() < 0.5}
        full, compiled = _full_parse(sheet), compile_sheet(sheet, names)
        assert compiled == compile_sheet(sheet.encode("utf-8"), names), sheet
        kept = iter(compiled)
        item = next(kept, None)
        for full_item in full:  # compiled is full without some rules that name an absent class or id
            if full_item == item:
                item = next(kept, None)
                continue
            absent = {name.lower() for name in re.findall(r"[.#]([A-Za-z_][\w-]*)", full_item[1])} - names
            assert full_item[0] == "rule" and absent, (sheet, names, full_item)
            n_left_out += 1
        assert item is None, (sheet, names)
    assert n_left_out >= 100


def test_only_rules_without_kept_declarations_are_cut():
    sheet = "a { margin: 0 } p { color: red } .x{background-color:#fff} @page{margin:0} b{Top:0}"
    assert without_unkept_rules(sheet) == "  p { color: red }   @page{} b{Top:0}"
    assert compile_sheet(sheet) == _full_parse(sheet)
    assert [item[1] for item in compile_sheet(sheet)] == ["p", "b"]


def test_kept_rules_keep_only_their_kept_declarations():
    sheet = "a{margin:0;COLOR : red ;x:url(a;b);top:1px!important} b{*color:red;font:menu}"
    assert without_unkept_rules(sheet) == "a{COLOR : red ;top:1px!important}  b{font:menu} "
    assert compile_sheet(sheet) == _full_parse(sheet) == (
        ("rule", "a", (0, 0, 1), (("color", "red", False), ("top", "1px", True)), 0),)


def test_a_media_block_whose_query_does_not_apply_is_emptied_and_one_that_applies_is_read_in_place():
    sheet = "@media print{p{color:red}} @media (max-width:767px){@layer x{a{color:red}}} @media screen{b{top:0}}"
    assert without_unkept_rules(sheet) == "@media print{} @media (max-width:767px){} b{top:0}"
    assert compile_sheet(sheet) == _full_parse(sheet) == (("rule", "b", (0, 0, 1), (("top", "0", False),), 0),)


def test_blocks_read_in_place_or_kept_whole():
    sheet = ("@supports (display:grid){@media screen{.g{display:grid}} i{top:0}} @font-face{font-family:x;color:red}"
             " @layer l{.x{top:0}} @media screen{<!-- p{color:red}} @media screen{.y{top:0} .z}")
    assert without_unkept_rules(sheet) == (
        ".g{display:grid} i{top:0} @font-face{} @layer l{.x{top:0}} @media screen{<!-- p{color:red}}"
        " @media screen{.y{top:0} .z}")
    assert compile_sheet(sheet) == _full_parse(sheet)
    assert [item[1] for item in compile_sheet(sheet, set())] == ["i", ".x", ".y"]


def test_a_prelude_left_open_is_no_rule_and_cuts_the_rest():
    sheet = "p { color: red }\n<![CDATA[\nh1 { font-size: 3em } b { color: blue }\n]]>"
    assert without_unkept_rules(sheet) == "p { color: red }\n"
    assert compile_sheet(sheet) == _full_parse(sheet) == (("rule", "p", (0, 0, 1), (("color", "red", False),), 0),)


def test_a_plain_url_token_holding_a_brace_ends_where_tinycss2_ends_it():
    sheet = "p{background:url(a{b}.png);color:red} .s{margin:0} b{top:0}"
    assert without_unkept_rules(sheet) == "p{background:url(a{b}.png);color:red}   b{top:0}"
    assert compile_sheet(sheet) == _full_parse(sheet)
    sheet = "#url(a{b) .s{margin:0} p{color:red}"  # a hash, then a parenthesis block: no URL token
    assert compile_sheet(sheet) == _full_parse(sheet)


@pytest.mark.parametrize("seed", [3, 4])
def test_pages_read_the_same_as_with_whole_sheets(seed, monkeypatch):
    monkeypatch.setattr(static_css, "NAMED_RULES_TO_FILTER", 1)  # every generated sheet is filtered
    rng = random.Random(seed)
    body = ("<h1 class=x>Tin <b>lamp</b></h1><p id=a class='w q'>Price <span>12</span></p><table><tr><td>"
            "Cell</td></tr></table><div hidden>no</div><em>Shown <u>or not</u></em><a href=/b>Link</a>")
    pages = [Page("s", f"{i}.html", f"http://s.test/{i}", f"<html><head><style>{sheet}</style>"
                  f"<style>{rng.choice(_sheets(5, seed + i))}</style></head><body>{body}</body></html>")
             for i, sheet in enumerate(_sheets(60, seed))]
    readings = [read_static(page) for page in pages]
    _clear_sheet_caches()
    monkeypatch.setattr(static_css, "_parts", lambda css: [(css, None)])  # the whole sheet, for every page
    assert [read_static(page) for page in pages] == readings
    _clear_sheet_caches()


def _clear_sheet_caches() -> None:
    static_css.sheet_parts.cache_clear()
    static_css._compiled_parts.cache_clear()


def test_a_rule_naming_a_class_or_id_absent_from_the_page_is_not_compiled():
    sheet = ".absent p, #gone { color: red } p { top: 0 } .Present { font-size: 3px } :is(.a, .b) { top: 1px }"
    compiled = compile_sheet(sheet, {"present"})
    assert [item[1] for item in compiled] == ["p", ".Present", ":is(.a, .b)"]
    assert [item[1] for item in compile_sheet(sheet, {"gone"})] == [".absent p", "#gone", "p", ":is(.a, .b)"]
    assert compile_sheet(sheet, {"absent", "gone", "present"}) == compile_sheet(sheet) == _full_parse(sheet)


def test_a_rule_is_kept_when_one_selector_may_match_or_its_prelude_is_not_read():
    sheet = (".x, b { top: 0 } .y[title] { top: 1px } .z\\:w { top: 2px } .v/**/ { top: 3px } "
             ".u:not(.t) { top: 4px } .s .r::before { top: 5px } .q.p { top: 6px } @media screen { .o { top: 7px } }")
    assert [item[1] for item in compile_sheet(sheet, {"q"})] == [".x", "b", ".y[title]", ".z\\:w", ".v", ".u:not(.t)"]
    assert [item[1] for item in compile_sheet(sheet, {"q", "p", "o"})][-2:] == [".q.p", ".o"]


def test_layers_after_a_cut_rule_keep_their_numbers():
    sheet = "@layer a { p { top: 0 } } .gone { top: 1px } @layer b { b { top: 2px } } .kept { top: 3px }"
    assert compile_sheet(sheet, {"kept"}) == (
        ("rule", "p", (0, 0, 1), (("top", "0", False),), 1), ("rule", "b", (0, 0, 1), (("top", "2px", False),), 2),
        ("rule", ".kept", (0, 1, 0), (("top", "3px", False),), 0))


def test_quirks_pages_keep_rules_of_classes_in_another_case(monkeypatch):
    monkeypatch.setattr(static_css, "NAMED_RULES_TO_FILTER", 1)
    html = "<html><head><style>.Title { display: none } #Price { display: none } .note { display: none }" \
           "</style></head><body><h1 class=title>Lamp</h1><p id=price>12</p><p class=NOTE>Note</p><p>Shown</p>" \
           "</body></html>"
    page = Page("s", "q.html", "http://s.test/q", html)
    assert [block.text for block in read_static(page).blocks] == ["Shown"]


@pytest.mark.parametrize(("n_rules", "n_compiled"), [(14, 15), (15, 1)])
def test_a_page_leaves_out_rules_once_a_sheet_has_enough_that_need_names(n_rules, n_compiled):
    sheet = " ".join(f".c{i} {{ top: {i}px }}" for i in range(n_rules)) + " .kept { top: 0 }"
    tree = LexborHTMLParser(f"<!DOCTYPE html><style>{sheet}</style><p class=kept>")
    cascade = static_css.Cascade(tree, "http://s.test/", "http://s.test/", "1.htm", None, quirks=False)
    author_rules = [rule.selector for rule in cascade._rules if rule.level == static_css._AUTHOR]
    assert len(author_rules) == n_compiled and author_rules[-1] == ".kept"


def test_plain_parts_compile_without_tinycss2_as_tinycss2_compiles_them():
    """Plain parts (most of a real sheet) skip tinycss2's tokenizer; each rule of the pieces above, and
    every generated sheet, that the plain path reads must compile to the items of a full parse."""
    n_plain = 0
    for text in [*_RULES, *_AROUND, *_sheets(400, 7)]:
        text = static_css._normalised(text)
        plain = static_css._plain_part_items(text)
        if plain is not None:
            n_plain += 1
            assert plain == _full_parse(text), text
    assert n_plain >= 40  # the plain path is taken (the generated sheets are mostly tricky)
    # a rule the plain path does not read is parsed alone by tinycss2, which writes "2n/**/+1"
    assert static_css._plain_part_items("a:nth-child(2n+1){top:0}") == _full_parse("a:nth-child(2n+1){top:0}")


def test_plain_style_attributes_read_as_tinycss2_reads_them():
    """A ``style`` attribute that is a plain block's content skips tinycss2's tokenizer: the blocks of the
    rules above and attributes with what tinycss2 reads otherwise give the declarations tinycss2 gives."""
    texts = [rule[rule.index("{") + 1 : rule.rindex("}")] for rule in _RULES if "{" in rule and "}" in rule]
    texts += ["color: red\r\n; top: 0\f", "font: 12px 'A B'\0", "color: red; <!-- top: 0", "x: url(a); color: red",
              "color: red; --> top: 0", "font-family: u+a1", "color: red; } top: 0", "@x; color: red", "color: 'a\\'"]
    n_plain = 0
    for text in texts:
        assert static_css._style_attribute.__wrapped__(text) == static_css.declarations_of(text), text
        normalised = static_css._normalised(text)
        n_plain += (static_css._PLAIN_BLOCK_CONTENT.fullmatch(normalised) is not None
                    and static_css._NOT_PLAIN.search(normalised) is None
                    and static_css._plain_declarations(normalised) is not None)
    assert n_plain >= 30


@pytest.mark.parametrize("make", [lambda n: " " * n + "@x", lambda n: "a{color:" + " " * n + "red !x}",
                                  lambda n: "a{top:" + "1" * (n // 5) + "x-}", lambda n: ("a " * n) + "({color:red}",
                                  lambda n: "a{font-family:" + "x, " * n + "!}", lambda n: "/* */ " * n + "@"])
def test_the_plain_path_gives_up_on_a_hostile_part_without_backtracking(make):
    """Long runs of white space, digits or separators before what ends a plain reading: a reading that
    backtracked over them (as a first version did, about 100 s for 4000 spaces) would hang on such a sheet;
    this one gives up in time linear in the part's length and leaves it to tinycss2."""
    text = make(20_000)
    plain = static_css._plain_part_items(text)
    if text.startswith("/*"):  # 20 000 comments in a row: tinycss2's own parse is not the reference there
        assert plain is None
    else:  # a rule the plain path does not read is parsed alone by tinycss2
        assert plain in (None, _full_parse(text)) and compile_sheet(text) == _full_parse(text)


@pytest.mark.parametrize("make", [lambda n: "a{" + "b:c(d) " * n, lambda n: "a{" + "'s' " * n + "\\}",
                                  lambda n: "@media screen{" + "a{b:c}" * n, lambda n: "a{b:" + "u" * n + "rl(x y)}",
                                  lambda n: "a{" + "[x] " * n + "/* */}", lambda n: "a{" + "color:red;" * n + "x:(;}",
                                  lambda n: "a" + " b(c)" * n + ";{top:0}", lambda n: "a{x:" + "url(y) " * n + "url(}"])
def test_the_scan_reads_a_hostile_sheet_in_linear_time(make):
    """Long runs of what one match of the scan reads (a simple rule, the rest of a block, a declaration)
    before what it does not: a match that backtracked over them would hang; these cut the same rules."""
    text = make(20_000)
    assert compile_sheet(text) == _full_parse(text)
