"""The ``mainentity`` command: train, predict, evaluate, benchmark, explain, clean, annotate, agreement.

Every entry point is ``main(argv) -> int`` so it can be tested with a list of arguments.
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import gc
import logging
import os
import sys
from collections.abc import Sequence

from mainentity._version import __version__
from mainentity.text import counted

logger = logging.getLogger("mainentity")


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help as written (descriptions and examples keep their lines), with each option's default shown
    unless its help already says it or it has none; ``[MODEL] INPUT...`` positionals in the usage line as
    their metavar spells them (argparse would repeat the whole metavar, ``[MODEL] PAGE [[MODEL] PAGE ...]``,
    as if several pages were taken)."""

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        if action.nargs == argparse.ONE_OR_MORE and isinstance(action.metavar, str) and " " in action.metavar:
            return action.metavar
        return super()._format_args(action, default_metavar)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.default in (None, False, [], argparse.SUPPRESS):
            return text
        return f"{text} (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    """A sub-command's parser: options may come anywhere among the positional arguments, as users expect
    (``predict general --render always PAGE``); argparse alone stops a ``nargs="+"`` positional at the
    first option and refuses what follows it."""

    _intermixed = False

    def parse_known_args(self, args=None, namespace=None):
        if self._intermixed or self._subparsers is not None:
            return super().parse_known_args(args, namespace)
        self._intermixed = True  # parse_known_intermixed_args calls parse_known_args twice
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixed = False


def _common_options(suppress: bool) -> argparse.ArgumentParser:
    """``-v`` and ``-q``, accepted before and after the sub-command (after it, ``suppress`` keeps the
    sub-command's parser from resetting what was given before it)."""
    common = argparse.ArgumentParser(add_help=False)
    default = argparse.SUPPRESS if suppress else False
    common.add_argument("-v", "--verbose", action="store_true", default=default, help="log debug messages")
    common.add_argument("-q", "--quiet", action="store_true", default=default,
                        help="log warnings and errors only (no progress messages, nor where the output went)")
    return common


#: Each sub-command's one-line description and example, shown by ``mainentity COMMAND --help``.
COMMAND_HELP = {
    "train": ("Train a model from a YAML config and evaluate it on its test split; the model, its config "
              "and the report go to runs/NAME/.",
              "mainentity train configs/christianbook-msrbfn.yaml"),
    "predict": ("Predict the main entity of every page of site dumps, WARC files or HTML files, one row "
                "per page (site_id, path, url, main_entity, score, box, error, answered_by, best_candidate, "
                "score_kind). Pages render with their scripts off; one that looks like an unfinished skeleton "
                "is rendered again with them on (render.javascript: auto; answered_by says scripts).",
                "mainentity predict datasets/sample-shop -o runs/sample-shop-predictions.jsonl\n"
                "  mainentity predict page.html\n"
                "  curl -s URL | mainentity predict - --base-url URL"),
    "evaluate": ("Score a model on a labeled dataset: prints ROUGE-1 F1 and exact match with 95% intervals "
                 "and writes report.md and report.html with the worst pages.",
                 "mainentity evaluate datasets/sample-shop\n"
                 "  mainentity evaluate runs/christianbook-msrbfn ../shared/datasets/readability-realworld"),
    "benchmark": ("Train and score every model and peer of a benchmark config on the same test pages.",
                  "mainentity benchmark configs/benchmark.yaml --datasets sample --systems msrbfn title-tag "
                  "--max-pages 40"),
    "explain": ("Draw the predicted main entity and the top candidates with their scores on a screenshot "
                "of a page.",
                "mainentity explain datasets/sample-shop/sites/sample-shop/pages/p/ashgrove-enamel-kettle.html "
                "-o kettle.png"),
    "clean": ("Fit a site-level cleaner per site and report the noisy nodes it would remove, with sample "
              "text, to choose its threshold.",
              "mainentity clean datasets/sample-shop --method sst --param threshold=0.3 -o runs/clean.md"),
    "annotate": ("Label the main entity of each page of a site dump in the browser; labels are saved to "
                 "the dump's manifest.jsonl as you go.",
                 "mainentity annotate datasets/sample-shop --model"),
    "agreement": ("Compare the labels two annotators gave the same site dump: exact and ROUGE-1 agreement, "
                  "and the pages they disagree on.",
                  "mainentity agreement alice/manifest.jsonl bob/manifest.jsonl -o runs/agreement"),
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``mainentity`` command and its sub-commands."""
    parser = argparse.ArgumentParser(
        prog="mainentity", description="Recognise the main entity (title) of web pages.",
        parents=[_common_options(suppress=False)], formatter_class=_HelpFormatter,
        epilog="example:\n  mainentity predict datasets/sample-shop -o runs/sample-shop-predictions.jsonl\n\n"
               "'mainentity COMMAND --help' describes a command; -v and -q may also follow the command.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--chromium", metavar="PATH",
                        help="the Chromium executable that renders pages (default: $MAINENTITY_CHROMIUM, else "
                             "chromium on PATH, else /usr/bin/chromium); a config or a model never names it")
    commands = _Commands(parser.add_subparsers(dest="command", required=True, parser_class=_Parser))
    for add_command in (_add_train, _add_predict, _add_evaluate, _add_benchmark, _add_explain, _add_clean,
                        _add_annotate, _add_agreement):
        add_command(commands)
    return parser


class _Commands:
    """The sub-commands' parsers, each made with its description, example, ``-v/-q`` and the help format."""

    def __init__(self, subparsers):
        self._subparsers = subparsers
        self._common = _common_options(suppress=True)

    def add_parser(self, name: str, **options) -> argparse.ArgumentParser:
        description, example = COMMAND_HELP[name]
        return self._subparsers.add_parser(name, description=description, epilog=f"example:\n  {example}",
                                           formatter_class=_HelpFormatter, parents=[self._common], **options)


def _add_cache_dir(command: argparse.ArgumentParser) -> None:
    """``--cache-dir``, on every command that renders pages."""
    command.add_argument("--cache-dir", metavar="DIR",
                         help="render cache directory (default: $MAINENTITY_CACHE_DIR, else the per-user cache)")


def _add_train(commands) -> None:
    """The ``train CONFIG`` sub-command."""
    train = commands.add_parser("train", help="train a model from a YAML config and evaluate its test split")
    train.add_argument("config", help="YAML config file (see configs/)")
    train.add_argument("--ship", action="store_true",
                       help="also copy the model into the package's shipped models (mainentity/pretrained/NAME)")
    train.add_argument("--max-pages", type=int, metavar="N",
                       help="use at most N labeled pages, a seeded sample (default: the config's data.max_pages)")
    _add_cache_dir(train)


def _add_predict(commands) -> None:
    """The ``predict [MODEL] INPUT...`` sub-command."""
    predict = commands.add_parser("predict", help="predict the main entity of every page of site dumps or WARC files")
    predict.add_argument("paths", nargs="+", metavar="[MODEL] INPUT [INPUT ...]",
                         help="a model directory written by 'train' or a shipped model's name (default: the "
                              "general model), then one or more inputs: site dump directories, datasets of site "
                              "dumps, WARC files (.warc, .warc.gz) or folders of them, HTML files, or - (one "
                              "page on standard input)")
    predict.add_argument("-o", "--output", default="-",
                         help="output file, .jsonl or .csv, resumed if it exists and the same model wrote it "
                              "(default -: JSON Lines on standard output)")
    predict.add_argument("--overwrite", action="store_true", help="replace the output instead of resuming it")
    predict.add_argument("--base-url", help="URL prefix for pages without a manifest or <base href>; a folder "
                                            "without a manifest is then one site, not grouped by the pages' own "
                                            "URLs (for -: the page's URL)")
    predict.add_argument("--retry-errors", action="store_true",
                         help="predict again the pages whose rows in the output have an error")
    predict.add_argument("--abstain-below", type=float, metavar="P",
                         help="answer nothing on pages whose score (a probability) is below P, the text kept in "
                              "the row's best_candidate (default: the model's abstain_below)")
    predict.add_argument("--render", choices=("always", "auto"), dest="render_policy",
                         help="render every page (always), or render few: a sample of each template of a "
                              "large site and the pages whose HTML does not settle them (auto); default: the "
                              "model's render.policy (auto unless the model's config says always)")
    cluster = predict.add_mutually_exclusive_group()
    cluster.add_argument("--workers", type=int, metavar="N",
                         help="run on a local Dask cluster of N worker processes (one Chromium each)")
    cluster.add_argument("--scheduler", metavar="ADDRESS",
                         help="run on an existing Dask cluster, e.g. tcp://10.0.0.5:8786")
    _add_cache_dir(predict)


def _add_evaluate(commands) -> None:
    """The ``evaluate [MODEL] DATASET`` sub-command."""
    evaluate = commands.add_parser("evaluate", help="evaluate a model on a labeled dataset")
    evaluate.add_argument("paths", nargs="+", metavar="[MODEL] DATASET",
                          help="a model directory or a shipped model's name (default: the general model), then "
                               "a labeled dataset (sites/<id>/manifest.jsonl), a site dump, or a WARC file or "
                               "folder of them with a manifest.jsonl of URLs and labels beside it")
    evaluate.add_argument("-o", "--output", help="report directory (default MODEL/evaluations/<dataset>); one "
                                                 "that holds another model's report is refused")
    evaluate.add_argument("--overwrite", action="store_true",
                          help="replace the report in the -o directory even when another model wrote it")
    evaluate.add_argument("--render", choices=("always", "auto"), dest="render_policy", default="always",
                          help="measure the model with every page rendered (always, the default), or what "
                               "predict gives by default (auto: few pages rendered)")
    evaluate.add_argument("--abstain-below", type=float, metavar="P",
                          help="answer nothing on pages whose score (a probability) is below P; they count as "
                               "wrong (default: the model's abstain_below)")
    evaluate.add_argument("--max-pages", type=int, metavar="N",
                          help="score at most N labeled pages, a seeded sample (default: all)")
    evaluate.add_argument("--screenshots", action="store_true",
                          help="save a screenshot of each worst page, its predicted box outlined, for the "
                               "report to link (renders those pages again)")
    _add_cache_dir(evaluate)


def _add_benchmark(commands) -> None:
    """The ``benchmark CONFIG`` sub-command."""
    benchmark = commands.add_parser(
        "benchmark", help="score every model and peer of a benchmark config on the same test pages"
    )
    benchmark.add_argument("config", help="benchmark YAML file (see configs/benchmark.yaml)")
    benchmark.add_argument("--systems", nargs="+", help="only these system labels")
    benchmark.add_argument("--datasets", nargs="+", help="only these dataset labels")
    benchmark.add_argument("--max-pages", type=int, metavar="N", help="use at most N labeled pages per dataset")
    benchmark.add_argument("--reuse-answers", action="store_true",
                           help="reuse the peers' answers of an earlier run on the same pages and tool versions "
                                "(kept under runs/NAME/peer_answers/)")
    _add_cache_dir(benchmark)


def _add_explain(commands) -> None:
    """The ``explain [MODEL] PAGE`` sub-command."""
    explain = commands.add_parser(
        "explain", help="draw the predicted main entity and the top candidates on a screenshot of a page"
    )
    explain.add_argument("paths", nargs="+", metavar="[MODEL] PAGE",
                         help="a model directory written by 'train' or a shipped model's name (default: the "
                              "general model), then one HTML file (explain draws one page a run)")
    explain.add_argument("-o", "--output", required=True, help="PNG file to write")
    explain.add_argument("--url", help="the page's URL (default: its <base href> or file URI)")
    explain.add_argument("--top", type=int, default=5, help="how many candidate boxes to draw")
    _add_cache_dir(explain)


def _add_clean(commands) -> None:
    """The ``clean SITE_DUMP`` sub-command."""
    clean = commands.add_parser(
        "clean", help="fit a site-level cleaner per site and report the noisy nodes with sample text"
    )
    clean.add_argument("site_dump", help="site dump directory, dataset of site dumps, WARC file or folder of them")
    clean.add_argument("--method", required=True, choices=("sst", "infodiscoverer", "none"))
    clean.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                       help="cleaner parameter, value read as YAML (repeatable), e.g. threshold=0.3")
    clean.add_argument("--max-pages", type=int, metavar="N", help="read at most N pages per site")
    _add_cache_dir(clean)
    clean.add_argument("-o", "--output", "--report", required=True, help="Markdown report file to write")


def _add_annotate(commands) -> None:
    """The ``annotate [SITE_DUMP]`` sub-command."""
    annotate = commands.add_parser(
        "annotate", help="label the main entity of each page of a site dump in the browser (writes its manifest.jsonl)"
    )
    annotate.add_argument("site_dump", nargs="?", help="site dump directory (or a dataset of one site)")
    annotate.add_argument("--model", nargs="?", const="general", metavar="MODEL",
                          help="pre-select a model's answers with their scores and order the pages by lowest score "
                               "first: a model directory or a shipped model's name; --model alone: the shipped "
                               "general model")
    annotate.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0: any free one)")
    annotate.add_argument("--host", default="127.0.0.1",
                          help="address to listen on (default 127.0.0.1, this machine only); any other needs --token")
    annotate.add_argument("--token", help="secret every request must carry (>= 16 characters); printed in the URL")
    annotate.add_argument("--order", choices=("manifest", "confidence"),
                          help="order the pages start in (default: confidence with a model, else the dump's order)")
    _add_cache_dir(annotate)


def _add_agreement(commands) -> None:
    """The ``agreement LABELS_A LABELS_B`` sub-command."""
    agreement = commands.add_parser(
        "agreement", help="compare the labels of two annotators (two label files of one site dump): exact and ROUGE-1"
    )
    agreement.add_argument("labels_a", help="label file of annotator A (a manifest.jsonl)")
    agreement.add_argument("labels_b", help="label file of annotator B, of the same site dump")
    agreement.add_argument("-o", "--output", default="runs/agreement", help="report directory (default runs/agreement)")


def _model_and_input(paths: Sequence[str], command: str, what: str) -> tuple[str | None, str]:
    """``[MODEL] INPUT`` -> ``(model or None for the default, input)``.

    Raises ValueError when more than one input is given (three paths, or two whose first is an input
    rather than a model: :func:`_is_input`), naming the command and the paths.
    """
    if len(paths) > 2 or (len(paths) == 2 and _is_input(paths[0])):
        raise ValueError(f"{command} takes one {what} (after an optional MODEL); got {len(paths)} paths: "
                         f"{' '.join(paths)}; run it once per {what.lower()}")
    return (paths[0], paths[1]) if len(paths) == 2 else (None, paths[0])


def _is_input(path: str) -> bool:
    """Whether ``path`` is an input rather than a model: not a model directory nor a shipped model's
    name, and a WARC file, an HTML file, ``-``, or a directory that holds a dataset, a site dump or WARC
    files."""
    from mainentity.loading import is_page_input
    from mainentity.model_store import is_model_reference
    from mainentity.sitedump import is_input_directory
    from mainentity.warc import is_warc_input

    return not is_model_reference(path) and (is_page_input(path) or is_warc_input(path) or is_input_directory(path))


def _model_and_inputs(paths: Sequence[str]) -> tuple[str | None, list[str]]:
    """``[MODEL] INPUT...`` -> ``(model or None for the default, inputs)``.

    With several paths the first is the model unless it is itself an input (:func:`_is_input`); so
    ``predict MODEL DUMP``, ``predict DUMP_A DUMP_B`` and ``predict a.html b.html`` all mean what they say.
    """
    if len(paths) == 1 or _is_input(paths[0]):
        return None, list(paths)
    return paths[0], list(paths[1:])


def _must_exist(path: str, what: str) -> None:
    if not os.path.exists(path):
        raise FileNotFoundError(f"{what} {path!r} does not exist")


def _check_paths(paths: Sequence[str], what: str) -> None:
    """Each of ``[MODEL] INPUT...`` exists (the first may name a shipped model; ``-`` is standard input)."""
    from mainentity.model_store import pretrained_names

    for index, path in enumerate(paths):
        if os.path.islink(path):  # a link loop, or to a file out of its folder: its row says why it is not read
            continue
        if path != "-" and not (index == 0 and len(paths) > 1 and path in pretrained_names()):
            _must_exist(path, what)


#: What ``-o`` names, for the commands whose output is not rows (``predict``'s is checked by its writer).
OUTPUT_KINDS = {"evaluate": "directory", "agreement": "directory", "explain": "file", "clean": "file"}


def _check_arguments(args: argparse.Namespace):
    """Refuse missing files, wrong output names and bad configs before any model or input loads.

    Returns the loaded config for ``train`` (None otherwise). Raises FileNotFoundError or ValueError.
    """
    if getattr(args, "max_pages", None) is not None and args.max_pages < 1:
        raise ValueError(f"--max-pages must be >= 1; got {args.max_pages}")
    # the commands that render; train's and benchmark's configs may name their own cache
    if hasattr(args, "cache_dir") and (args.cache_dir is not None or args.command not in ("train", "benchmark")):
        from mainentity._files import file_in_the_way
        from mainentity.config import CACHE_DIR_ENV, default_cache_dir

        cache_dir = args.cache_dir if args.cache_dir is not None else default_cache_dir()
        if (blocker := file_in_the_way(cache_dir)) is not None:
            given = ("--cache-dir" if args.cache_dir is not None
                     else f"the render cache ({CACHE_DIR_ENV} or the default)")
            raise ValueError(f"{given} {cache_dir} cannot be a directory: {blocker} is a file")
    if args.command in OUTPUT_KINDS and args.output is not None:
        from mainentity._files import check_writable

        check_writable(args.output, directory=OUTPUT_KINDS[args.command] == "directory")
    if args.command == "train":
        from mainentity.config import load_config

        config = _with_overrides(load_config(args.config), args)
        if not config.data.datasets:
            raise ValueError(f"{args.config}: 'data.datasets' names no dataset to train on (an empty config?); "
                             "see configs/christianbook-msrbfn.yaml")
        logger.info("train %s: reading the datasets ...", config.name)
        return config
    if args.command == "predict":
        from mainentity.loading import STDIN, read_stdin
        from mainentity.prediction_writer import check_output_path

        check_output_path(args.output)
        _check_paths(args.paths, "input")
        if args.base_url is not None:
            from mainentity.sitedump import web_url_problem

            if problem := web_url_problem(args.base_url):  # every page's URL would be one a browser refuses
                raise ValueError(f"--base-url {args.base_url!r} is not a web address a browser can open: {problem}")
        args.stdin = read_stdin() if STDIN in args.paths else None  # an empty pipe is told before the model loads
    elif args.command == "evaluate":
        _check_paths(args.paths, "dataset")
        _model_and_input(args.paths, "evaluate", "DATASET")
    elif args.command == "explain":
        if not args.output.lower().endswith(".png"):
            raise ValueError(f"explain writes a PNG screenshot: the output must end in .png; got {args.output}")
        _check_paths(args.paths, "page")
        _model_and_input(args.paths, "explain", "PAGE")
    elif args.command == "annotate":
        if args.site_dump is None and args.model not in (None, "general") and os.path.isdir(args.model):
            # `annotate --model DUMP`: --model alone (the general model), then the site dump
            args.site_dump, args.model = args.model, "general"
        if args.site_dump is None:
            raise ValueError("annotate needs a site dump: mainentity annotate SITE_DUMP [--model [MODEL]]")
        _must_exist(args.site_dump, "site dump")
    elif args.command == "clean":
        _must_exist(args.site_dump, "site dump")
    elif args.command == "benchmark":
        _must_exist(args.config, "benchmark config")
    elif args.command == "agreement":
        _must_exist(args.labels_a, "label file")
        _must_exist(args.labels_b, "label file")
    if args.command in ("predict", "evaluate") and args.abstain_below is not None \
            and not 0.0 <= args.abstain_below <= 1.0:
        raise ValueError(f"--abstain-below must be a probability in [0, 1]; got {args.abstain_below}")
    if args.command in ("predict", "evaluate", "explain"):
        logger.info("%s: loading the model and the inputs ...", args.command)
    return None


def _with_overrides(config, args: argparse.Namespace):
    """A training config with the command line's ``--cache-dir`` and ``--max-pages``, which override it."""
    if args.cache_dir is not None:
        config = dataclasses.replace(config, render=dataclasses.replace(config.render, cache_dir=args.cache_dir))
    if args.max_pages is not None:
        config = dataclasses.replace(config, data=dataclasses.replace(config.data, max_pages=args.max_pages))
    return config


def _headline(summary_csv) -> str:
    """The headline figures of a report's ``summary.csv``: ROUGE-1 F1 with its 95% interval, exact, pages."""
    import csv

    with open(summary_csv, encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    if not rows:
        return "no page was scored"
    row = rows[0]
    interval = (f" [{float(row['rouge1_f_low']):.3f}, {float(row['rouge1_f_high']):.3f}]"
                if row.get("rouge1_f_low") else "")
    return (f"ROUGE-1 F1 {float(row['rouge1_f']):.3f}{interval}, exact {float(row['exact']):.3f} "
            f"on {counted(int(row['n_pages']), 'page')} ({counted(int(row['n_errors']), 'error')}"
            + (f", {int(row['n_abstained'])} abstained" if int(row.get("n_abstained") or 0) else "") + ")")


def run_command(args: argparse.Namespace) -> int:
    """Carry out a parsed command; returns the exit status."""
    config = _check_arguments(args)  # before anything slow: a wrong path or flag is told at once
    from mainentity import runs

    if args.command == "train":
        from mainentity.model_store import ship_model

        run_dir = runs.train(config)
        reported = (run_dir / "report.md").is_file()
        _tell(args, f"model{' and report' if reported else ''} written to {run_dir}")
        if reported:
            print(_headline(run_dir / "summary.csv"))
        if args.ship:
            _tell(args, f"model shipped to {ship_model(run_dir)}")
    elif args.command == "predict":
        _run_predict(args)
    elif args.command == "evaluate":
        model, dataset = _model_and_input(args.paths, "evaluate", "DATASET")
        out_dir = runs.evaluate(model, dataset, args.output, render_policy=args.render_policy,
                                abstain_below=args.abstain_below, max_pages=args.max_pages,
                                screenshots=args.screenshots, overwrite=args.overwrite)
        _tell(args, f"report written to {out_dir / 'report.md'} and {out_dir / 'report.html'}")
        print(_headline(out_dir / "summary.csv"))
    elif args.command == "benchmark":
        from mainentity.comparison.compare import run_benchmark
        from mainentity.config import load_benchmark_config

        config = load_benchmark_config(args.config)
        if args.cache_dir is not None:  # the command line overrides the config's render.cache_dir
            config = dataclasses.replace(config, render=dataclasses.replace(config.render, cache_dir=args.cache_dir))
        out_dir = run_benchmark(
            config,
            systems=args.systems,
            datasets=args.datasets,
            max_pages=args.max_pages,
            command=" ".join(["mainentity", *sys.argv[1:]]),
            reuse_answers=args.reuse_answers,
        )
        _tell(args, f"benchmark report written to {out_dir}")
    elif args.command == "explain":
        from mainentity.explain import explain

        model, page = _model_and_input(args.paths, "explain", "PAGE")
        prediction = explain(model, page, args.output, url=args.url, top_k=args.top)
        print(f"{prediction.main_entity!r} (score {prediction.score:.3f}); screenshot written to {args.output}")
    elif args.command == "clean":
        from pathlib import Path

        import yaml

        from mainentity._files import write_text_atomic
        from mainentity.config import RenderConfig

        params = {}
        for pair in args.param:
            key, sep, value = pair.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"--param {pair!r}: expected KEY=VALUE")
            params[key.strip()] = yaml.safe_load(value)
        report = runs.clean_report(
            args.site_dump, args.method, params, RenderConfig(), args.max_pages
        )
        write_text_atomic(Path(args.output), report)
        _tell(args, f"cleaning report written to {args.output}")
    elif args.command == "annotate":
        try:
            from mainentity.annotate.app import run_annotate
        except ImportError as error:
            raise ImportError(f"annotate needs Starlette and uvicorn: pip install 'mainentity[annotate]' "
                              f"({error})") from error
        run_annotate(args.site_dump, model=args.model, host=args.host, port=args.port, token=args.token,
                     order=args.order)
    elif args.command == "agreement":
        from mainentity.evaluation.agreement import write_agreement_report

        summary = write_agreement_report(args.labels_a, args.labels_b, args.output)
        print(f"{counted(summary['n_compared'], 'page')} labeled in both: exact {summary['exact']:.3f}, ROUGE-1 F1 "
              f"{summary['rouge1_f']:.3f}; report written to {args.output}/report.md")
    return 0


def _run_predict(args: argparse.Namespace) -> None:
    """The ``predict`` command: in this process, or on a Dask cluster (``--workers``, ``--scheduler``)."""
    from contextlib import ExitStack

    from mainentity import runs

    model, inputs = _model_and_inputs(args.paths)
    with ExitStack() as stack:
        cluster = None
        if args.workers is not None or args.scheduler is not None:
            from mainentity.distributed import DaskSites

            try:
                cluster = stack.enter_context(DaskSites(workers=args.workers, scheduler=args.scheduler))
            except OSError as error:  # no scheduler there (Dask gives up after its connect timeout, 30 s)
                where = (f"the Dask scheduler at {args.scheduler}" if args.scheduler
                         else f"a local Dask cluster of {args.workers} workers")
                raise ValueError(f"cannot reach {where}: {error}") from error
        n_rows = runs.predict(model, inputs, args.output, base_url=args.base_url, retry_errors=args.retry_errors,
                              cluster=cluster, render_policy=args.render_policy, overwrite=args.overwrite,
                              abstain_below=args.abstain_below, stdin=args.stdin)
    where = "standard output" if args.output == "-" else args.output
    _tell(args, f"{counted(n_rows, 'row')} written to {where}", file=sys.stderr if args.output == "-" else sys.stdout)


def _tell(args: argparse.Namespace, line: str, file=None) -> None:
    """Print where a command wrote its output, unless ``-q``: results (a score, an answer) are printed
    whatever the flags, so a quiet run still says what it found."""
    if not args.quiet:
        print(line, file=file)


def _interrupted_line(command: str, interrupt: KeyboardInterrupt) -> str:
    """The one line that Ctrl-C ends a command with: for ``predict``, the rows written before it, where
    (:class:`mainentity.prediction_writer.Interrupted`) and how to go on."""
    from mainentity.prediction_writer import STDOUT, Interrupted

    if command == "annotate":
        return "stopped; every saved label is in the manifest"
    if not isinstance(interrupt, Interrupted):
        return "interrupted; rows and files already written are kept: run the same command again to resume"
    rows = counted(interrupt.n_written, "row")
    if interrupt.output == STDOUT:
        return f"interrupted: {rows} written to standard output"
    return f"interrupted: {rows} written to {interrupt.output}; rerun the same command to resume"


def _warning_line(message, category, filename, lineno, line=None) -> str:
    """A warning as one log line of its message, without the source line that raised it."""
    return logging.Formatter("%(asctime)s WARNING mainentity: %(message)s").format(
        logging.makeLogRecord({"msg": str(message)})) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, set up logging, run the command. Errors in the input exit with status 2; Ctrl-C
    with status 130, in one line (:func:`_interrupted_line`)."""
    if argv is None:  # the program itself, about to exit once the command ends
        # Python's last act is a walk of every object for reference cycles: 1 to 4 s on a busy machine
        # after a model and a site's pages were loaded. Nothing is left to free at exit, so it is skipped.
        atexit.register(gc.freeze)
    args = build_parser().parse_args(argv)
    if args.verbose and args.quiet:
        build_parser().error("-v/--verbose and -q/--quiet cannot go together")
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # Dask logs every worker's start and stop at INFO: only its warnings, unless asked for debug messages.
    # Through its config in the environment: Dask sets its loggers' levels from it when imported, in this
    # process and in the worker processes a local cluster starts.
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "debug" if args.verbose else "warning")
    logging.getLogger("distributed").setLevel(logging.DEBUG if args.verbose else logging.WARNING)
    if args.chromium:
        # through the environment, so that the browsers of cluster workers this command starts use it too
        os.environ["MAINENTITY_CHROMIUM"] = args.chromium
    import warnings

    from mainentity.config import CACHE_DIR_ENV

    cache_dir = os.environ.get(CACHE_DIR_ENV)
    if getattr(args, "cache_dir", None):  # for this command, through the environment: cluster workers see it
        os.environ[CACHE_DIR_ENV] = args.cache_dir
    formatwarning, warnings.formatwarning = warnings.formatwarning, _warning_line
    try:
        return run_command(args)
    except (ValueError, FileNotFoundError, ImportError) as error:
        logger.error("%s", error)
        return 2
    except RuntimeError as error:  # a program of the environment that cannot start (Chromium, node)
        logger.error("%s", " ".join(str(error).split())[:500])
        return 2
    except OSError as error:  # the disk full, a folder made read-only during the run: rows written so far are kept
        logger.error("%s", error)
        logger.debug("where it was raised", exc_info=True)
        return 1
    except KeyboardInterrupt as interrupt:
        (logger.info if args.command == "annotate" else logger.error)("%s", _interrupted_line(args.command, interrupt))
        return 130
    finally:
        warnings.formatwarning = formatwarning
        if cache_dir is None:
            os.environ.pop(CACHE_DIR_ENV, None)
        else:
            os.environ[CACHE_DIR_ENV] = cache_dir


if __name__ == "__main__":
    sys.exit(main())
