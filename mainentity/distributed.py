"""Run per-site work on a Dask cluster (dask.distributed): one task per site, one Chromium per worker.

:class:`DaskSites` starts a local cluster (``workers``) or connects to a running scheduler
(``scheduler``). On every worker a plugin (:class:`BrowserPerWorker`) makes the process keep one
Chromium for its lifetime (:func:`mainentity.render.cache.hold_renderer`), so the sites a worker is
given one after another share it. :meth:`DaskSites.map_tasks` ships the shared argument (the model)
to every worker once, submits one task per site (or shard of a large site), and yields each task's
result in the client as it finishes, so one writer in the client writes every row. When a worker
dies mid-task, the scheduler gives its tasks to another worker; a task's result reaches the client
once, so nothing is lost and nothing is written twice.

Dask is an optional extra (``pip install -e '.[crawl]'``): importing this module without it raises
ImportError saying so. Only the CLI imports it, when asked for a cluster; without one everything runs
in process as before.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from tqdm import tqdm

from mainentity.render.cache import hold_renderer, release_renderers

try:
    from distributed import Client, LocalCluster, WorkerPlugin, as_completed
except ImportError as error:  # the optional extra is not installed
    raise ImportError("distributed prediction needs Dask: pip install -e '.[crawl]'") from error

logger = logging.getLogger(__name__)

MAX_RESUBMITS = 3
"""How many times a cancelled task is submitted again before the run fails."""


def _held(future) -> bool:
    """Whether a scattered object's future still holds its data on the cluster."""
    return future is not None and future.status == "finished"


class BrowserPerWorker(WorkerPlugin):
    """Dask worker plugin: the worker process keeps one renderer with ``settings`` for its lifetime.

    Chromium starts on the worker's first cache miss and closes when the worker closes.

    Parameters
    ----------
    settings : mainentity.render.RenderSettings
    """

    name = "mainentity-browser"

    def __init__(self, settings) -> None:
        self.settings = settings

    def setup(self, worker) -> None:
        hold_renderer(self.settings)

    def teardown(self, worker) -> None:
        release_renderers()


class DaskSites:
    """A Dask cluster that runs one task per site: a local one, or a running scheduler.

    A context manager: entering starts the local cluster (or connects) and logs the dashboard link;
    leaving closes what it started.

    Parameters
    ----------
    workers : int, optional
        Start a local cluster of this many worker processes (one thread each: a worker renders with
        its own Chromium, ``render.concurrency`` tabs at a time).
    scheduler : str, optional
        Address of a running scheduler (``tcp://host:8786``) to use instead.

    Raises
    ------
    ValueError
        If neither or both of ``workers`` and ``scheduler`` are given, or ``workers < 1``.
    """

    def __init__(self, *, workers: int | None = None, scheduler: str | None = None) -> None:
        if (workers is None) == (scheduler is None):
            raise ValueError("give either workers (a local cluster) or scheduler (an address), not both or none")
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be >= 1; got {workers}")
        self.workers = workers
        self.scheduler = scheduler
        self.cluster = None
        self.client = None
        self._shipped: tuple[object, object] | None = None  # (shared object, its future on the workers)

    def __enter__(self) -> DaskSites:
        if self.scheduler is None:
            self.cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                        dashboard_address=":0")
            self.client = Client(self.cluster)
        else:
            self.client = Client(self.scheduler)
        logger.info("Dask dashboard: %s (%d workers)", self.client.dashboard_link,
                    len(self.client.scheduler_info()["workers"]))
        return self

    def __exit__(self, *exc_info) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        self.client = self.cluster = self._shipped = None

    def hold_renderers(self, settings) -> None:
        """Make every worker, present and future, keep one renderer with ``settings`` (:class:`BrowserPerWorker`)."""
        self._client().register_plugin(BrowserPerWorker(settings))

    def _shared_future(self, shared):
        """The future of ``shared`` on every worker: scattered once, again for another object or once lost."""
        if self._shipped is None or self._shipped[0] is not shared or not _held(self._shipped[1]):
            [future] = self._client().scatter([shared], broadcast=True, hash=False)
            self._shipped = (shared, future)
        return self._shipped[1]

    def _client(self):
        if self.client is None:
            raise RuntimeError("DaskSites is not started; use `with DaskSites(...) as cluster:`")
        return self.client

    def map_tasks(
        self, function: Callable, shared, tasks: Sequence, *, sizes: Sequence[int], desc: str = "predict",
        site_data: Sequence | None = None,
    ) -> Iterator:
        """Run ``function(shared, task)`` for every task on the cluster; yield each result as it finishes.

        ``shared`` (the model) is sent to every worker once (again only when another object is given);
        each task (a site, or a shard of one) is one
        Dask task. A progress bar counts the pages of the finished tasks.

        Parameters
        ----------
        function : callable
            Importable on the workers (a module-level function).
        shared : object
            Picklable; broadcast to all workers.
        tasks : sequence
            Picklable task descriptions.
        sizes : sequence of int
            The pages of each task, for the progress bar.
        site_data : sequence, optional
            Per task, an object passed as ``function(shared, task, data)`` (the site statistics of a
            large site's shards). An object given to several tasks is sent to every worker once, not
            with each task (a copy on every worker: a worker's death loses none), and dropped when its
            last task is done.

        Yields
        ------
        result
            ``function(shared, task)`` (or ``function(shared, task, data)``), in order of completion.

        Raises
        ------
        RuntimeError
            If the cluster is not started (use it as a context manager), or a task was cancelled
            more than ``MAX_RESUBMITS`` times.
        Exception
            A task's own error (not retried; a task whose worker died is run again on another worker,
            and one the scheduler cancelled because its shipped input died with a worker is submitted
            again, up to ``MAX_RESUBMITS`` times).
        """
        client = self._client()
        if not tasks:
            return
        sent: dict[int, object] = {}  # id of a site_data object -> its future, while tasks need it
        waiting: Counter[int] = Counter()
        if site_data is not None:
            waiting.update(id(data) for data in site_data)
        resubmitted: Counter[int] = Counter()

        def submit(index: int):
            arguments = [self._shared_future(shared), tasks[index]]
            if site_data is not None:
                data = site_data[index]
                if data is not None and not _held(sent.get(id(data))):
                    [sent[id(data)]] = client.scatter([data], broadcast=True, hash=False)
                arguments.append(sent.get(id(data)))
            return client.submit(function, *arguments, pure=False)

        futures = {submit(index): index for index in range(len(tasks))}
        finished = as_completed(futures, with_results=True)
        with tqdm(total=sum(sizes), desc=desc, unit="page", disable=None, leave=False) as bar:
            for future, result in finished:
                index = futures.pop(future)
                if future.status == "cancelled":
                    # the scheduler cancels a task whose scattered input died with its worker
                    # (dask/distributed#3149): ship the input again and run the task once more
                    resubmitted[index] += 1
                    if resubmitted[index] > MAX_RESUBMITS:
                        raise RuntimeError(f"task {index} was cancelled {resubmitted[index]} times: {result!r}")
                    logger.warning("a task was cancelled (%r); it runs again", result)
                    retry = submit(index)
                    futures[retry] = index
                    finished.add(retry)
                    continue
                bar.update(sizes[index])
                if site_data is not None:
                    key = id(site_data[index])
                    waiting[key] -= 1
                    if not waiting[key]:
                        sent.pop(key, None)
                yield result
