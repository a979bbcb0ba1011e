"""The mutation engine's job pool: judge(item, slot) on worker threads or Dask workers.

run_pool runs any judge (the text judge, the RTL judge) on `jobs` workers, each with a
slot number for its own scratch space, results in item order; limit_from_baseline is
the per-mutant wall-clock limit taken from the unmutated run.
"""
import os
import sys
import threading


def _in_slot(judge, item):
    """judge(item, slot) inside a Dask worker: the slot is the worker process's own number."""
    from tb import parallel
    return judge(item, parallel.worker_slot())


def run_pool(items, judge, jobs=None, on_result=None, scheduler=None, progress=False, desc="mutants"):
    """judge(item, slot) for every item on `jobs` worker threads; the results in item order.

    slot is the worker's number (0..jobs-1): a worker judges one item at a time, so a
    judge may keep per-slot scratch space. on_result(index, result, done) is called (under
    a lock) as each result arrives. An exception in a judge is raised here.
    scheduler (tb/parallel.py: "local:N" or a Dask scheduler address) runs the judges
    on Dask workers instead (the judge is pickled; the slot is the worker process's
    number). progress shows one tqdm bar on stderr.
    """
    from tqdm import tqdm
    items = list(items)
    jobs = max(1, min(int(jobs or os.cpu_count() or 1), len(items) or 1))
    results = [None] * len(items)
    bar = tqdm(total=len(items), desc=desc, unit="mutant", disable=not progress, file=sys.stderr)
    if scheduler:
        import concurrent.futures as cf

        from tb import parallel
        with bar, parallel.executor(scheduler, jobs) as ex:
            futs = {ex.submit(_in_slot, judge, item): i for i, item in enumerate(items)}
            for n, f in enumerate(cf.as_completed(futs), 1):
                i = futs[f]
                results[i] = f.result()
                bar.update(1)
                if on_result:
                    on_result(i, results[i], n)
        return results
    todo = list(enumerate(items))
    lock = threading.Lock()
    errors = []
    done = [0]

    def worker(slot):
        while not errors:
            with lock:
                if not todo:
                    return
                i, item = todo.pop(0)
            try:
                r = judge(item, slot)
            except BaseException as e:  # noqa: BLE001 -- a judge's failure, re-raised in the caller
                errors.append(e)
                return
            with lock:
                results[i] = r
                done[0] += 1
                bar.update(1)
                if on_result:
                    on_result(i, r, done[0])

    with bar:
        threads = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    if errors:
        raise errors[0]
    return results


def limit_from_baseline(seconds, factor=3, slack=10):
    """A per-mutant wall-clock limit from the unmutated run's time."""
    return factor * seconds + slack
