"""Does the plain path of the static CSS cascade compile real style sheets as tinycss2 does, and how fast?

Reads every page of the given datasets with :func:`mainentity.render.static.read_static`, collecting the
distinct author style sheets it cuts (``static_css.sheet_parts``), then, on those sheets alone:

- cuts each into parts (the scan, :func:`static_css._parts`) and times it (process CPU);
- compiles every distinct part twice, through :func:`static_css._plain_part_items` where it reads the part
  and with tinycss2's full parse (:func:`static_css._compile_rules`), and counts the parts whose items differ
  (0 expected), the parts the plain path reads and their share of the characters;
- times compiling every part with tinycss2 alone against the plain path first (``_compiled_part``
  uncached).

    python benchmarks/static_css_plain.py   # the lone pages: readability-realworld, fundus-half, postlight-half

Exit status 1 when a part's items differ.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from render_cost import SHARED

REPO = Path(__file__).resolve().parents[1]


def author_sheets(datasets: list[Path]) -> list:
    """The distinct author style sheets (text or bytes) that reading the datasets' pages cuts, in order."""
    from mainentity.loading import load_inputs
    from mainentity.render import static_css
    from mainentity.render.static import read_static

    seen: dict = {}
    cut = static_css.sheet_parts

    def recording(source):
        seen.setdefault(source, None)
        return cut(source)

    static_css.sheet_parts = recording
    try:
        loaded = load_inputs([str(dataset) for dataset in datasets])
        for page in loaded.pages:
            try:
                read_static(page)  # as `predict --render auto` reads a lone page (render_few.py)
            except ValueError:
                pass  # a page the static reader refuses: no sheet of it counts
    finally:
        static_css.sheet_parts = cut
    return list(seen)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=["readability-realworld", "fundus-half", "postlight-half"],
                        help="dataset folders under ../shared/datasets (or paths)")
    args = parser.parse_args(argv)
    import tinycss2

    from mainentity.render import static_css

    paths = [Path(name) if Path(name).is_dir() else SHARED / name for name in args.datasets]
    sheets = author_sheets(paths)
    texts = [static_css._normalised(static_css.decode_stylesheet_bytes(sheet)[0] if isinstance(sheet, bytes) else sheet)
             for sheet in sheets]
    start = time.process_time()
    parts = [static_css._parts(text) for text in texts]
    cutting = time.process_time() - start
    distinct = list(dict.fromkeys(text for sheet_parts in parts for text, _ in sheet_parts))

    def full_parse(text: str) -> tuple:
        items: list[tuple] = []
        n_layers = [0]
        rules = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
        static_css._compile_rules(rules, items, 0, n_layers)
        return tuple(items), n_layers[0]

    n_plain = n_differ = plain_chars = 0
    for text in distinct:
        plain = static_css._plain_part_items(text)
        if plain is not None:
            n_plain += 1
            plain_chars += len(text)
            n_differ += (plain, 0) != full_parse(text)
    start = time.process_time()
    for text in distinct:
        full_parse(text)
    tinycss2_only = time.process_time() - start
    start = time.process_time()
    for text in distinct:
        static_css._compiled_part.__wrapped__(text)
    with_plain = time.process_time() - start
    total_chars = sum(map(len, distinct))
    print(f"{len(sheets)} distinct author sheets of {', '.join(args.datasets)}; {len(distinct)} distinct parts")
    print(f"plain path reads {n_plain} parts ({plain_chars / max(total_chars, 1):.0%} of their characters); "
          f"items differing from tinycss2's: {n_differ}")
    print(f"CPU s: cutting the sheets into parts {cutting:.2f}; compiling the parts with tinycss2 alone "
          f"{tinycss2_only:.2f}, with the plain path first {with_plain:.2f}")
    return 1 if n_differ else 0


if __name__ == "__main__":
    sys.exit(main())
