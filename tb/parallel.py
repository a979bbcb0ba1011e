"""Where embarrassingly parallel work runs: a local process pool, or a Dask cluster.

Mutation runs and the soak are many independent jobs. executor(scheduler, jobs) gives a
concurrent.futures executor for them:

    scheduler None          a local pool of `jobs` processes (the default)
    scheduler "local:N"     an in-process Dask LocalCluster of N single-threaded workers
    scheduler ADDRESS       an existing Dask distributed scheduler (tcp://host:8786)

Dask's workers must see the repository at the same path (a shared file system), since
the jobs read and write build/ and out/ there. Results are plain values, so a run gives
the same verdicts wherever it ran (tests check local == Dask on a sample).
"""
import concurrent.futures as cf
import contextlib
import os
import socket


@contextlib.contextmanager
def executor(scheduler=None, jobs=2):
    """A concurrent.futures.Executor (see the module doc); closed on exit."""
    if scheduler:
        from distributed import Client, LocalCluster
        if scheduler.startswith("local:"):
            try:
                n = int(scheduler.split(":", 1)[1])
            except ValueError:
                raise ValueError(f"scheduler {scheduler!r}: local:N needs a number of workers") from None
            if n < 1:
                raise ValueError(f"scheduler {scheduler!r}: at least one worker")
            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster, Client(cluster) as client:
                yield client.get_executor()
        else:
            with Client(scheduler, timeout="20s") as client:
                yield client.get_executor()
    else:
        with cf.ProcessPoolExecutor(max_workers=max(1, int(jobs))) as ex:
            yield ex


def worker_slot():
    """A number that identifies this worker process (for per-worker scratch directories):
    one job at a time runs in a single-threaded worker, so its pid is free for it."""
    return (hash(socket.gethostname()) % 1000) * 10_000_000 + os.getpid()
