"""Run many `python -m MODULE ARGS...` command lines fast: import once, fork per line.

    python tests/flow/forkrun.py < jobs.json > results.json

jobs.json: {"preload": [modules], "jobs": [{"module", "argv", "cwd", "timeout", "real"}]}.
This process imports the preload modules (what the commands import: numpy, the model,
argparse...) and compiles each command's module once, then runs each job in a forked
child that executes the module as __main__ as `python -m` does (a fresh __main__ module
with the module's spec, sys.argv[0] its file, SystemExit's code the exit status, an
uncaught exception a traceback on stderr and exit 1), with stdout
and stderr in files of its own and its own process group, killed whole after `timeout`
seconds; up to "parallel" (default 3) children at once. A job with "real": true execs
instead the genuine `sys.executable -m MODULE ARGS` (or, with "exe", that program), to
check the entry point itself.
Results: [{"rc", "signal", "timed_out", "stdout", "stderr", "seconds"}] in job order.

Used by tests/flow/test_bad_input.py: a table of bad inputs costs a fork each (a few
milliseconds) instead of a Python start-up and its imports (a fifth of a second).
"""
import builtins
import importlib
import json
import os
import runpy
import signal
import sys
import tempfile
import threading
import time
import traceback
import types
import warnings

_CODE = {}


def module_code(name):
    """(spec, code object) of `python -m name`'s __main__ (a package's __main__ submodule),
    compiled once here in the parent so that no child compiles it again."""
    if name not in _CODE:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)        # it is imported already
            _, spec, code = runpy._get_module_details(name)
        _CODE[name] = spec, code
    return _CODE[name]


def _run_as_main(name):
    """What `python -m name` does after start-up (runpy._run_module_as_main): the module's
    code run in a fresh __main__ module, sys.argv[0] its file."""
    spec, code = module_code(name)
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=spec.origin, __loader__=spec.loader, __package__=spec.parent,
                         __spec__=spec, __cached__=spec.cached, __builtins__=builtins)
    sys.modules["__main__"] = main
    sys.argv[0] = spec.origin
    exec(code, main.__dict__)


def _child(job, out_path, err_path):
    """In the forked child: run the module as __main__ and exit with its status."""
    code = 1
    try:
        os.setpgid(0, 0)
        fo = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        fe = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fo, 1)
        os.dup2(fe, 2)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.chdir(job.get("cwd") or os.getcwd())
        sys.argv = [job["module"]] + list(job["argv"])
        try:
            _run_as_main(job["module"])
            code = 0
        except SystemExit as e:
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except BaseException:  # noqa: BLE001 -- printed as the interpreter would print it
            traceback.print_exc()
            code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code & 0xFF if isinstance(code, int) else 1)


def _exec(job, out_path, err_path):
    """In the forked child: exec the genuine command line (python -m MODULE, or job["exe"])."""
    try:
        os.setpgid(0, 0)
        for fd, path, flags in ((1, out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                (2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                (0, os.devnull, os.O_RDONLY)):
            os.dup2(os.open(path, flags, 0o644), fd)
        if job.get("cwd"):
            os.chdir(job["cwd"])
        argv = ([job["exe"]] if job.get("exe") else [sys.executable, "-m", job["module"]]) + list(job["argv"])
        os.execv(argv[0], argv)
    finally:
        os._exit(127)


def run_jobs(jobs, tmp, parallel=3):
    """Every job in a child of its own (at most `parallel` at once); the results in order."""
    results = [None] * len(jobs)
    running = {}                        # pid -> (index, start, timer, fired)
    todo = list(enumerate(jobs))

    def start(i, job):
        if not job.get("real"):
            module_code(job["module"])
        out_path, err_path = os.path.join(tmp, f"{i}.out"), os.path.join(tmp, f"{i}.err")
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            (_exec if job.get("real") else _child)(job, out_path, err_path)
        fired = []

        def kill():
            fired.append(1)
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        timer = threading.Timer(float(job.get("timeout", 20)), kill)
        timer.start()
        running[pid] = (i, time.monotonic(), timer, fired)

    def reap():
        pid, status = os.waitpid(-1, 0)
        if pid not in running:
            return
        i, t0, timer, fired = running.pop(pid)
        timer.cancel()
        rc = os.waitstatus_to_exitcode(status)
        out = {}
        for key in ("out", "err"):
            with open(os.path.join(tmp, f"{i}.{key}"), "rb") as f:
                out[key] = f.read().decode("utf-8", "replace")
        results[i] = {"rc": None if rc < 0 else rc, "signal": -rc if rc < 0 else None,
                      "timed_out": bool(fired), "stdout": out["out"], "stderr": out["err"],
                      "seconds": round(time.monotonic() - t0, 3)}

    while todo or running:
        while todo and len(running) < parallel:
            start(*todo.pop(0))
        reap()
    return results


def main():
    spec = json.load(sys.stdin)
    for mod in spec.get("preload", ()):
        importlib.import_module(mod)
    with tempfile.TemporaryDirectory(prefix="ga2-forkrun-") as tmp:
        results = run_jobs(spec["jobs"], tmp, int(spec.get("parallel", 3)))
    json.dump(results, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
