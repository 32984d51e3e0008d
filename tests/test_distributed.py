"""Prediction on a local Dask cluster: the same rows as in process, and a killed worker loses nothing."""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import time
from collections import Counter

import pytest
from conftest import REPO, use_render_cache
from test_warc import make_sample_warc

from mainentity import runs, scaleout
from mainentity.cli import main
from mainentity.distributed import DaskSites
from mainentity.loading import load_pages
from mainentity.model_store import load_trained_model
from mainentity.pipeline import predict_pages, render_settings
from mainentity.recognizers.general import GeneralRecognizer
from mainentity.records import RenderedPage
from mainentity.render import RenderCache, RenderOutcome
from mainentity.runs import predict

pytestmark = pytest.mark.browser


def general_model_copy(tmp_path):
    """A copy of the shipped general model (its render cache is the per-user one: see conftest)."""
    model_dir = tmp_path / "general"
    shutil.copytree(REPO / "mainentity" / "pretrained" / "general", model_dir)
    return model_dir


def rows_of(path):
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    keys = [(row["site_id"], row["path"]) for row in rows]
    assert len(keys) == len(set(keys)), "a row appears twice"
    return {key: row for key, row in zip(keys, rows, strict=True)}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Two inputs of three sites: the sample WARC (two hosts) and the sample shop's site dump."""
    warc = make_sample_warc.write_sample_warc(tmp_path_factory.mktemp("crawl") / "sample.warc.gz")
    return [str(warc), str(REPO / "datasets" / "sample-shop")]


def test_a_local_cluster_writes_the_rows_of_the_in_process_run(tmp_path, inputs, render_cache_dir, capsys):
    model_dir = general_model_copy(tmp_path)
    in_process, on_cluster = tmp_path / "in-process.jsonl", tmp_path / "cluster.jsonl"
    assert predict(model_dir, inputs, in_process) == 86
    with DaskSites(workers=2) as cluster:
        assert predict(model_dir, inputs, on_cluster, cluster=cluster) == 86
        assert cluster.client.dashboard_link.startswith("http")
    assert rows_of(on_cluster) == rows_of(in_process)
    # the command line, resumable the same way: nothing left to do
    assert main(["predict", str(model_dir), *inputs, "-o", str(on_cluster), "--workers", "1"]) == 0
    assert "0 rows written" in capsys.readouterr().out
    assert rows_of(on_cluster) == rows_of(in_process)


def renderers_started() -> list[bool]:
    """In a worker: whether each renderer the process holds has started its Chromium."""
    from mainentity.render import cache

    return [renderer.running for renderer in cache._HELD.values()]


def test_a_killed_worker_loses_no_site_and_writes_no_row_twice(tmp_path, inputs, monkeypatch):
    """On an existing scheduler (as --scheduler), one worker process is killed while it renders a site."""
    from distributed import LocalCluster

    use_render_cache(monkeypatch, tmp_path / "cold-cache")  # rendering makes the tasks last seconds
    model_dir = general_model_copy(tmp_path)
    out = tmp_path / "cluster.jsonl"
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as local, \
            DaskSites(scheduler=local.scheduler_address) as cluster:
        client = cluster.client
        result: dict = {}
        run = threading.Thread(target=lambda: result.update(n=predict(model_dir, inputs, out, cluster=cluster)))
        run.start()
        killed = None
        deadline = time.monotonic() + 120
        while killed is None and run.is_alive() and time.monotonic() < deadline:
            busy = [address for address, keys in client.processing().items() if keys]
            if busy:
                time.sleep(1.0)  # let it get into the site
                pids = client.run(os.getpid, workers=busy[:1])
                killed = pids[busy[0]]
                os.kill(killed, signal.SIGKILL)
            time.sleep(0.1)
        run.join(timeout=600)
        held = client.run(renderers_started)
    assert any(started == [True] for started in held.values()), held  # one Chromium per worker, kept
    assert killed is not None, "no worker was ever busy"
    assert result.get("n") == 86
    rows = rows_of(out)
    assert len(rows) == 86 and not any(row["error"] for row in rows.values())
    reference = tmp_path / "in-process.jsonl"
    # on the cache the cluster filled (its samples and small sites' rendered pages): auto reads a cached page
    # from the cache, so the session's cache, which holds every page, would answer all of them "rendered"
    predict(model_dir, inputs, reference)
    assert rows == rows_of(reference)


def test_large_sites_are_sharded_after_their_cleaner_is_fitted_once(tmp_path, inputs, render_cache_dir, monkeypatch):
    """A page-by-page recogniser with site-level cleaning: shards of 10 pages give the in-process rows."""
    from test_runs import quick_config

    run_dir = runs.train(quick_config(REPO / "configs" / "sample-msrbfn-sst.yaml", tmp_path, render_cache_dir))
    model = load_trained_model(run_dir)
    assert "sample-shop" in model.cleaners and "shop.example" not in model.cleaners
    monkeypatch.setattr(scaleout, "SHARD_PAGES", 10)
    in_process, on_cluster = tmp_path / "in-process.jsonl", tmp_path / "cluster.jsonl"
    assert predict(run_dir, inputs, in_process) == 86
    with DaskSites(workers=2) as cluster:
        loaded = load_pages(inputs)
        tasks = scaleout.site_tasks(model, loaded.pages, cluster, loaded.subresources)
        assert sorted(len(task.pages) for task, _ in tasks) == [2, *[2] * 2, *[10] * 8]
        assert {task.pages[0].site_id for task, statistics in tasks if statistics and statistics.cleaners} == {
            "shop.example"}
        assert predict(run_dir, inputs, on_cluster, cluster=cluster) == 86
    assert rows_of(on_cluster) == rows_of(in_process)


def test_a_site_level_model_shards_large_sites_after_counting_their_statistics_once(
        tmp_path, inputs, render_cache_dir, monkeypatch):
    """The general model rendering every page, with shards of 3 pages: each large site's statistics once,
    then 14 shards each."""
    model_dir = general_model_copy(tmp_path)
    monkeypatch.setattr(scaleout, "SHARD_PAGES", 3)
    in_process, on_cluster = tmp_path / "in-process.jsonl", tmp_path / "cluster.jsonl"
    assert predict(model_dir, inputs, in_process, render_policy="always") == 86
    submitted: Counter = Counter()
    with DaskSites(workers=2) as cluster:
        map_tasks = cluster.map_tasks

        def counting(function, shared, tasks, **options):
            submitted.update((function.__name__, task.pages[0].site_id, len(task.pages), task.shard is not None)
                             for task in tasks)
            return map_tasks(function, shared, tasks, **options)

        monkeypatch.setattr(cluster, "map_tasks", counting)
        assert predict(model_dir, inputs, on_cluster, cluster=cluster, render_policy="always") == 86
    assert submitted == {("fit_site_statistics", "sample-shop", 42, False): 1,
                         ("fit_site_statistics", "shop.example", 42, False): 1,
                         ("predict_site", "sample-shop", 3, True): 14,
                         ("predict_site", "shop.example", 3, True): 14,
                         ("predict_site", "notes.example", 2, False): 1}
    assert rows_of(on_cluster) == rows_of(in_process)


class InProcessCluster:
    """:meth:`DaskSites.map_tasks` run in this process, task after task (what the scheduler does, without it)."""

    def map_tasks(self, function, shared, tasks, *, sizes, desc="predict", site_data=None):
        for task, data in zip(tasks, site_data or [None] * len(tasks), strict=True):
            yield function(shared, task) if site_data is None else function(shared, task, data)


def test_a_site_whose_shards_fail_is_predicted_whole_as_in_process(tmp_path, inputs, render_cache_dir, monkeypatch):
    """Rendering every page: statistics are counted once per large site; a site whose shard raises is
    predicted by one whole task."""
    model = load_trained_model(general_model_copy(tmp_path))
    loaded = load_pages(inputs)
    pages = loaded.pages
    reference = {(p.site_id, p.path): p for p in predict_pages(model, pages, subresources=loaded.subresources,
                                                               render_policy="always")}
    counted: Counter = Counter()
    site_statistics, score_shard = GeneralRecognizer.site_statistics, GeneralRecognizer.score_shard

    def counting_statistics(self, documents):
        counted[documents[0].page.site_id] += 1
        return site_statistics(self, documents)

    def failing_on_one_site(self, documents, statistics):
        if documents[0].page.site_id == "shop.example":
            raise RuntimeError("a page the recogniser cannot read")
        return score_shard(self, documents, statistics)

    monkeypatch.setattr(GeneralRecognizer, "site_statistics", counting_statistics)
    monkeypatch.setattr(GeneralRecognizer, "score_shard", failing_on_one_site)
    monkeypatch.setattr(scaleout, "SHARD_PAGES", 5)
    rows = list(scaleout.predict_on_cluster(model, pages, InProcessCluster(), loaded.subresources,
                                            render_policy="always"))
    assert counted == {"sample-shop": 1, "shop.example": 1}
    assert len(rows) == len(reference) and {(p.site_id, p.path): p for p in rows} == reference


class PlanningCluster:
    """Records the tasks :func:`scaleout.site_tasks` submits, answering them without running them."""

    def __init__(self):
        self.submitted = []

    def map_tasks(self, function, shared, tasks, *, sizes, desc="predict", site_data=None):
        self.submitted.extend((function.__name__, task.pages[0].site_id, len(task.pages)) for task in tasks)
        for task in tasks:
            yield 0 if function is scaleout.render_shard else scaleout.SiteStatistics(task.pages[0].site_id)


def test_a_large_site_missing_from_the_render_cache_is_rendered_in_shards_before_its_statistics(
        tmp_path, inputs, monkeypatch):
    """Cold cache: the shards of each large site render in parallel tasks first, so the statistics task,
    which reads the whole site, does not render it alone; warm cache: no render task."""
    use_render_cache(monkeypatch, tmp_path / "empty-cache")
    model = load_trained_model(None)
    loaded = load_pages(inputs)
    pages = loaded.pages
    monkeypatch.setattr(scaleout, "SHARD_PAGES", 20)
    cold = PlanningCluster()
    scaleout.site_tasks(model, pages, cold, loaded.subresources)
    assert cold.submitted == [("render_shard", "sample-shop", 20), ("render_shard", "sample-shop", 20),
                              ("render_shard", "sample-shop", 2), ("render_shard", "shop.example", 20),
                              ("render_shard", "shop.example", 20), ("render_shard", "shop.example", 2),
                              ("fit_site_statistics", "sample-shop", 42), ("fit_site_statistics", "shop.example", 42)]
    settings, cache = render_settings(model.config.render), RenderCache(model.config.render.cache_path())
    for page in pages:
        cache.put(RenderOutcome(page, RenderedPage("T", (), ())), settings, loaded.subresources.for_page(page))
    warm = PlanningCluster()
    scaleout.site_tasks(model, pages, warm, loaded.subresources)
    assert [name for name, _, _ in warm.submitted] == ["fit_site_statistics", "fit_site_statistics"]


def test_an_unreachable_scheduler_is_one_error_line_naming_its_address(tmp_path, caplog):
    import dask

    out = tmp_path / "rows.jsonl"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):  # Dask's default: 30 s
        status = main(["predict", str(REPO / "datasets" / "sample-shop"), "-o", str(out),
                       "--scheduler", "tcp://127.0.0.1:1"])
    assert status == 2 and not out.exists()
    [error] = [record for record in caplog.records if record.levelname == "ERROR"]
    assert error.getMessage().startswith("cannot reach the Dask scheduler at tcp://127.0.0.1:1: ")
    assert "\n" not in error.getMessage()


def test_auto_on_a_local_cluster_writes_the_rows_of_the_in_process_run(tmp_path, inputs, monkeypatch, caplog):
    """``--render auto`` with workers: one task per site, the same rows (``answered_by`` included) as in
    process, and the count of rendered pages in the log. A cold cache: on the session's, which other tests
    filled with every page's rendering, auto reads every page from it."""
    use_render_cache(monkeypatch, tmp_path / "cold-cache")
    model_dir = general_model_copy(tmp_path)
    in_process, on_cluster = tmp_path / "in-process.jsonl", tmp_path / "cluster.jsonl"
    assert predict(model_dir, inputs, in_process, render_policy="auto") == 86
    with DaskSites(workers=2) as cluster, caplog.at_level("INFO", logger="mainentity.scaleout"):
        assert predict(model_dir, inputs, on_cluster, cluster=cluster, render_policy="auto") == 86
    rows = rows_of(in_process)
    assert rows_of(on_cluster) == rows
    answered = Counter(row["answered_by"] for row in rows.values())
    assert answered["slot"] >= 20 and answered["rendered"] < 40
    assert f"render policy auto: {answered['rendered']} of 86 pages rendered" in caplog.text


def test_a_task_cancelled_because_its_shipped_input_was_lost_runs_again(caplog):
    """The scheduler cancels the tasks whose scattered input died with a worker (dask/distributed#3149)."""
    def add_slowly(shared, task):  # defined here: pickled by value, so the workers need not import the tests
        time.sleep(0.3)
        return shared + task

    with DaskSites(workers=1) as cluster:
        results = []
        for result in cluster.map_tasks(add_slowly, 100, list(range(6)), sizes=[1] * 6):
            if not results:
                cluster.client.cancel(cluster._shipped[1])  # the shipped model lost, as when its last holder dies
            results.append(result)
    assert sorted(results) == [100, 101, 102, 103, 104, 105]
    assert "a task was cancelled" in caplog.text
