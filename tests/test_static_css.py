"""The static reader's CSS cascade: cutting the style rules it would drop before tinycss2 tokenizes a sheet
changes nothing it compiles, nor any page it reads (generated sheets full of what CSS tokenizing makes
tricky: strings, comments, escapes, URL tokens, brackets left open)."""

from __future__ import annotations

import random

import pytest
import tinycss2

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
)
_AROUND = (
    "", " ", "\n", "/* } */", "<!--", "-->", "@media print{p{color:red}}", "@media screen{a{margin:0}b{color:red}}",
    "@import 'a.css';", "@layer base{p{font-size:3px}}", "@layer x;", "@font-face{font-family:x;src:url(a.woff)}",
    "@page{margin:0}", "}", ")", "]", "'unclosed\n", "\"str}\"", "#url(a{b)", "@url(x{y)", "x\\ url(a{b)",
    "\\75 rl(a{b)", "url(a b{)", "\r\n", "\f", "\0", ";", "@supports (display:grid){.g{display:grid}}",
    "u\\72l(a{)", "/* unclosed comment", "@media (max-width:767px){p{color:red}}", "@media print,screen{b{color:red}}",
    "@media/**/print{p{color:red}}", "@media 'x'{p{color:red}}", "@media print{@layer y{p{color:red}}}",
    "@media(min-width:48em){a{top:0}}", "@media\\ x{p{color:red}}", "<!--url(a b{)", "x-->url(a{b)",
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


def test_only_rules_without_kept_declarations_are_cut():
    sheet = "a { margin: 0 } p { color: red } .x{background-color:#fff} @page{margin:0} b{Top:0}"
    assert without_unkept_rules(sheet) == "  p { color: red }   @page{margin:0} b{Top:0}"
    assert compile_sheet(sheet) == _full_parse(sheet)
    assert [item[1] for item in compile_sheet(sheet)] == ["p", "b"]


def test_kept_rules_keep_only_their_kept_declarations():
    sheet = "a{margin:0;COLOR : red ;x:url(a;b);top:1px!important} b{*color:red;font:menu}"
    assert without_unkept_rules(sheet) == "a{COLOR : red ;top:1px!important}  b{font:menu} "
    assert compile_sheet(sheet) == _full_parse(sheet) == (
        ("rule", "a", (0, 0, 1), (("color", "red", False), ("top", "1px", True)), 0),)


def test_a_media_block_whose_query_does_not_apply_is_emptied():
    sheet = "@media print{p{color:red}} @media (max-width:767px){@layer x{a{color:red}}} @media screen{b{top:0}}"
    assert without_unkept_rules(sheet) == "@media print{} @media (max-width:767px){} @media screen{b{top:0}}"
    assert compile_sheet(sheet) == _full_parse(sheet) == (("rule", "b", (0, 0, 1), (("top", "0", False),), 0),)


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
    rng = random.Random(seed)
    body = ("<h1 class=x>Tin <b>lamp</b></h1><p id=a class='w q'>Price <span>12</span></p><table><tr><td>"
            "Cell</td></tr></table><div hidden>no</div><em>Shown <u>or not</u></em><a href=/b>Link</a>")
    pages = [Page("s", f"{i}.html", f"http://s.test/{i}", f"<html><head><style>{sheet}</style>"
                  f"<style>{rng.choice(_sheets(5, seed + i))}</style></head><body>{body}</body></html>")
             for i, sheet in enumerate(_sheets(60, seed))]
    readings = [read_static(page) for page in pages]
    compile_sheet.cache_clear()
    monkeypatch.setattr(static_css, "without_unkept_rules", lambda css: css)
    assert [read_static(page) for page in pages] == readings
    compile_sheet.cache_clear()
