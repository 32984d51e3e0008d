"""Tests of the safe model files (mainentity.model_io): every recogniser and cleaner round-trips, and a
crafted file that would run code is refused without running it."""

from __future__ import annotations

import functools
import json
import os
import pickle
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import skops.io as sio
import yaml
from test_cleaning_dom import make_document
from test_recognizer_msrbfn import product_document
from test_sst import ARTICLES, article_page

from mainentity.cleaning import cleaner_names, make_cleaner
from mainentity.model_io import (
    FORMAT_VERSION,
    ModelFormatError,
    UntrustedModelError,
    is_trusted_type,
    load_model_file,
    read_header,
    save_model_file,
)
from mainentity.models.msrbfn_network import MSRBFN
from mainentity.models.ranker import RANKER_METHODS
from mainentity.models.titler_classifier import TitlerClassifier
from mainentity.recognizers.base import make_recognizer, recognizer_names
from mainentity.recognizers.general import GeneralRecognizer
from mainentity.recognizers.peers import PeerUnavailableError
from mainentity.records import Document, Page, RenderedPage, TextBlock

TRAIN = [product_document(i) for i in range(8)]
HELD_OUT = [product_document(i) for i in range(8, 12)]
#: Parameters for the 8 training pages above (72 candidates): the general recogniser's default leaves
#: of 40 candidates leave its trees nearly unsplit on so little data.
SMALL_DATA_PARAMS = {"general": {"min_samples_leaf": 2}}


@pytest.mark.parametrize("name", recognizer_names())
def test_every_registered_recognizer_round_trips_with_the_same_predictions(name, tmp_path):
    try:
        recognizer = make_recognizer(name)
    except PeerUnavailableError as error:
        pytest.skip(str(error))
    if "random_state" in recognizer.get_params():
        recognizer.set_params(random_state=0)
    recognizer.set_params(**SMALL_DATA_PARAMS.get(name, {}))
    if recognizer.needs_training:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the NLTK fallback warning of the Titler models
            recognizer.fit(TRAIN)
    path = save_model_file({"recognizer": recognizer}, tmp_path / "model.skops")
    loaded = load_model_file(path)["recognizer"]
    assert type(loaded) is type(recognizer) and loaded.get_params() == recognizer.get_params()
    if recognizer.needs_training:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            before, after = recognizer.predict(HELD_OUT), loaded.predict(HELD_OUT)
        assert after == before
        assert sum(p.main_entity == d.page.main_entity[0] for p, d in zip(after, HELD_OUT, strict=True)) >= 1


def _news_document(index: int, headline: str, subtitle: str) -> Document:
    """A rendered news page: navigation, a headline whose subtitle span is a style run (a segment), a
    paragraph and a footer; labeled with the headline."""
    def text_block(text, size, y, *, bold=False, in_link=False, heading=0, merged=False, kind="block"):
        return TextBlock(text, "h1" if heading else "p", f"html[0]/body[1]/div[{index}]", size, 700 if bold else 400,
                         bold, 40.0, y, 8.0 * len(text), size * 1.2, in_link, heading, False, merged, kind)

    blocks = (
        text_block("Home", 12.0, 5.0, in_link=True),
        text_block("World", 12.0, 5.0, in_link=True),
        text_block(headline, 32.0, 80.0, bold=True, heading=1),
        text_block(subtitle, 18.0, 80.0, heading=1),
        text_block(f"{headline} {subtitle}", 32.0, 80.0, bold=True, heading=1, merged=True),
        text_block(f"Story {index} opens with a long paragraph of plain body text about the day.", 14.0, 200.0),
        text_block("Copyright The Daily Example", 10.0, 900.0),
    )
    segments = (text_block(headline, 32.0, 80.0, bold=True, heading=1, kind="run"),
                text_block(subtitle, 18.0, 80.0, heading=1, kind="run"))
    rendered = RenderedPage(f"{headline} | The Daily Example", (), blocks, 1024.0, 1000.0, segments)
    page = Page("daily", f"news/{index}.html", f"https://daily.example/news/{index}.html", "<html></html>",
                main_entity=(headline,))
    return Document(page, rendered)


NEWS = [("Harbour Bridge Reopens", "after two years"), ("Rain Returns To The Valley", "farmers relieved"),
        ("Library Opens Late", "a winter trial"), ("Ferry Fares Cut", "from Monday"), ("Old Mill Sold", "to the town")]


@pytest.mark.parametrize("method", RANKER_METHODS)
def test_the_general_recognizer_round_trips_with_the_same_scores(method, tmp_path):
    train = [_news_document(i, *NEWS[i]) for i in range(3)]
    held_out = [_news_document(i, *NEWS[i]) for i in range(3, 5)]
    recognizer = GeneralRecognizer(method=method, calibrate=False, min_samples_leaf=1, max_iter=20, random_state=0)
    recognizer.fit(train)
    state = {"recognizer": recognizer, "cleaners": {}, "training_pages": ["af90603dd63fdeb4"]}
    loaded = load_model_file(save_model_file(state, tmp_path / "model.skops"))
    assert loaded["training_pages"] == state["training_pages"] and loaded["cleaners"] == {}
    general = loaded["recognizer"]
    assert type(general) is GeneralRecognizer and general.get_params() == recognizer.get_params()
    assert general.feature_names_ == recognizer.feature_names_ and general.calibrator_ is None
    for (candidates, scores), (candidates_before, scores_before) in zip(
        general.candidate_scores(held_out), recognizer.candidate_scores(held_out), strict=True
    ):
        assert candidates == candidates_before
        np.testing.assert_array_equal(scores, scores_before)
    assert general.predict(held_out) == recognizer.predict(held_out)


@pytest.mark.parametrize("method", cleaner_names())
def test_every_cleaner_round_trips_with_the_same_output(method, tmp_path):
    site = [make_document("books", f"{i}.html", article_page(title, paragraphs), (title,))
            for i, (title, paragraphs) in enumerate(ARTICLES)]
    cleaner = make_cleaner(method, random_state=0).fit(site)
    loaded = load_model_file(save_model_file({"books": cleaner}, tmp_path / "m.skops"))["books"]
    assert loaded.transform(site) == cleaner.transform(site)
    if method != "none":
        n_blocks = sum(len(doc.rendered.blocks) for doc in site)
        assert sum(len(doc.rendered.blocks) for doc in loaded.transform(site)) < n_blocks


def test_sklearn_estimators_and_their_compiled_helpers_round_trip(tmp_path):
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X, y = rng.random((40, 3)), np.arange(40) % 2
    state = {"knn": KNeighborsClassifier(algorithm="kd_tree").fit(X, y),
             "ball": KNeighborsClassifier(algorithm="ball_tree").fit(X, y),
             "tree": DecisionTreeClassifier(random_state=0).fit(X, y),
             "plain": {"weights": np.eye(2), "names": ["a", "b"], "n": 3, "pair": (1.5, None)}}
    loaded = load_model_file(save_model_file(state, tmp_path / "m.skops"))
    for key in ("knn", "ball", "tree"):
        assert np.array_equal(loaded[key].predict_proba(X), state[key].predict_proba(X))
    assert np.array_equal(loaded["plain"]["weights"], np.eye(2))
    assert {k: v for k, v in loaded["plain"].items() if k != "weights"} == {"names": ["a", "b"], "n": 3,
                                                                           "pair": (1.5, None)}


def test_header_carries_the_format_version(tmp_path):
    path = save_model_file({"x": 1}, tmp_path / "m.skops")
    header = read_header(path)
    assert (header["format"], header["format_version"]) == ("mainentity-model", FORMAT_VERSION)
    assert not (tmp_path / "m.skops.tmp").exists()


def _with_header(path, header: dict) -> None:
    with zipfile.ZipFile(path, "a") as archive:
        archive.comment = json.dumps(header).encode()


@pytest.mark.parametrize(
    ("version", "advice"), [(0, "retrain it with `mainentity train CONFIG`"), (FORMAT_VERSION + 1, "upgrade")]
)
def test_other_format_versions_are_refused_with_what_to_do(tmp_path, version, advice):
    path = save_model_file({"x": 1}, tmp_path / "m.skops")
    _with_header(path, {"format": "mainentity-model", "format_version": version, "mainentity_version": "9.9"})
    with pytest.raises(ModelFormatError, match=f"format version {version}.*{advice}"):
        load_model_file(path)


def test_a_plain_skops_file_without_our_header_is_refused(tmp_path):
    path = tmp_path / "m.skops"
    sio.dump({"x": 1}, path)
    with pytest.raises(ModelFormatError, match="no 'mainentity-model' header"):
        load_model_file(path)


class _Payload:
    """Unpickling this runs a shell command that creates a marker file."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_pickle_is_never_unpickled(tmp_path):
    marker = tmp_path / "pwned"
    (tmp_path / "m.skops").write_bytes(pickle.dumps(_Payload(marker)))
    with pytest.raises(ModelFormatError, match="not a mainentity model file.*pickle can run code"):
        load_model_file(tmp_path / "m.skops")
    assert not marker.exists()


@pytest.mark.parametrize(
    "payload",
    [os.system, functools.partial(subprocess.run, ["touch", "MARKER"]), sys.modules["builtins"].eval],
    ids=["os.system", "partial(subprocess.run)", "eval"],
)
def test_a_crafted_model_naming_code_is_refused_without_running_it(tmp_path, monkeypatch, payload):
    path = tmp_path / "m.skops"
    sio.dump({"recognizer": payload, "cleaners": {}}, path)
    _with_header(path, {"format": "mainentity-model", "format_version": FORMAT_VERSION})
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UntrustedModelError, match="not trusted"):
        load_model_file(path)
    assert not (tmp_path / "MARKER").exists()


def test_saving_an_untrusted_type_fails_and_writes_nothing(tmp_path):
    with pytest.raises(UntrustedModelError, match="cannot save"):
        save_model_file({"f": os.getcwd}, tmp_path / "m.skops")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "trusted"),
    [
        ("mainentity.recognizers.msrbfn.MSRBFNRecognizer", True),
        ("mainentity.models.msrbfn_network.MSRBFN", True),
        ("mainentity.models.msrbfn.MSRBFN", False),  # the module's old name: read as the new one, never imported
        ("mainentity.cleaning.sst.SiteStyleTreeCleaner", True),
        ("sklearn.svm._classes.SVC", True),
        ("sklearn.neighbors._kd_tree.KDTree", True),
        ("sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor", True),
        ("sklearn.neighbors._kd_tree.newObj", False),  # a function of a helper module
        ("mainentity.recognizers.peer_node._NodeWorker", False),  # starts a process: not an estimator
        ("mainentity.recognizers.peer_node.subprocess", False),  # a module
        ("sklearn.utils.Bunch", False),
        ("os.system", False),
        ("numpy.load", False),
        ("no_such_module.Thing", False),
        ("mainentity..x", False),
        ("mainentity.", False),
    ],
)
def test_trusted_types(name, trusted):
    assert is_trusted_type(name) is trusted


#: Written by mainentity 0.1.0 when ``MSRBFN`` lived in ``mainentity.models.msrbfn`` and ``TitlerClassifier`` in
#: ``mainentity.models.titler``: ``{"msrbfn": MSRBFN(m1=2, m2=2, pi=1, random_state=0).fit(X, y, gammas),
#: "titler": TitlerClassifier(method="svm", random_state=0).fit(X, y)}`` on the arrays below.
BEFORE_RENAME = Path(__file__).parent / "golden" / "models-before-rename.skops"
RENAME_X = np.array([[0.0, 0.0], [0.1, 0.0], [1.0, 1.0], [0.9, 1.0]])
RENAME_GAMMAS = [np.zeros((1, 1)), np.zeros((2, 1)), np.ones((1, 1)), np.array([[1.0], [0.8]])]


def test_a_model_file_saved_before_the_model_modules_were_renamed_loads_and_predicts_as_before():
    with zipfile.ZipFile(BEFORE_RENAME) as archive:
        schema = archive.read("schema.json").decode("utf-8")
    assert '"mainentity.models.msrbfn"' in schema and '"mainentity.models.titler"' in schema
    state = load_model_file(BEFORE_RENAME)
    assert type(state["msrbfn"]) is MSRBFN and type(state["titler"]) is TitlerClassifier
    assert state["msrbfn"].predict(RENAME_X, RENAME_GAMMAS).tolist() == [False, False, True, True]
    # the decision values the file's model gave when it was written
    np.testing.assert_allclose(state["titler"].decision_function(RENAME_X),
                               [-0.9998310010550256, -0.9998309916117455, 0.9998343553326615, 0.9998276373341334],
                               rtol=1e-9)
    fresh = MSRBFN(m1=2, m2=2, pi=1, random_state=0).fit(RENAME_X, [False, False, True, True], RENAME_GAMMAS)
    # pinv's output: weights of order 1 agree to 1e-12; those that are 0 in exact arithmetic come out as float
    # noise of order 1e-13 times the largest weight, whose sign and size depend on the BLAS and the CPU
    np.testing.assert_allclose(state["msrbfn"].weights_, fresh.weights_,
                               atol=1e-9 * np.abs(fresh.weights_).max())


def test_a_renamed_module_lends_no_trust_to_what_it_imports(tmp_path):
    """An old module name is read as the new module: a class that module merely imports stays untrusted."""
    path = tmp_path / "m.skops"
    with zipfile.ZipFile(BEFORE_RENAME) as source, zipfile.ZipFile(path, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "schema.json":
                data = data.replace(b'"__class__": "MSRBFN"', b'"__class__": "KMeans"')
            target.writestr(info, data)
        target.comment = source.comment
    with pytest.raises(UntrustedModelError, match="mainentity.models.msrbfn_network.KMeans"):
        load_model_file(path)


def test_a_run_directory_with_an_old_pickle_model_says_to_retrain_and_runs_nothing(tmp_path):
    from mainentity.config import Config, config_to_dict
    from mainentity.model_store import load_trained_model

    marker = tmp_path / "pwned"
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config_to_dict(Config(name="old"))))
    (tmp_path / "model.joblib").write_bytes(pickle.dumps(_Payload(marker)))
    with pytest.raises(ModelFormatError, match=r"model.joblib pickle .* retrain with `mainentity train .*config.yaml`"):
        load_trained_model(tmp_path)
    assert not marker.exists()


def test_opening_the_general_model_does_not_import_torch_and_torch_still_imports_after():
    """skops's import walks every scikit-learn package, torch's array-API shim included; a model that does
    not need torch (the general model) is opened without it, from a process that has not imported
    scikit-learn yet, and torch and the shim import afterwards."""
    code = (
        "import sys\n"
        "from mainentity.model_io import load_model_file\n"
        "from mainentity.model_io import __file__ as model_io_file\n"
        "from pathlib import Path\n"
        "assert 'sklearn' not in sys.modules\n"
        "load_model_file(Path(model_io_file).parent / 'pretrained' / 'general' / 'model.skops')\n"
        "print('torch' in sys.modules, 'dask' in sys.modules)\n"
        "import torch\n"
        "from sklearn.externals.array_api_compat import torch as shim\n"
        "print(shim.__name__, torch.zeros(2).sum().item())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:2] == ["False False", "sklearn.externals.array_api_compat.torch 0.0"]
