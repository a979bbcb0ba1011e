"""The console routing of a run (tb/sim/run.py route_to_console / unroute): while a
simulator's output goes to its log, a routed thread's prints go to a copy of stdout's file
descriptor, every other thread's to stdout as it was. Runs in several threads overlap (a
server's live sessions, a harness calling hw.run from threads), so they may start and end in
any order: each thread's prints must still reach its own place, and stdout must be itself
again once the last run has ended.
"""
import sys
import threading

from tb.sim.run import route_to_console, unroute


class _Stream:
    """A stdout whose own writes are kept in a list and whose file descriptor is a file's:
    what a console (a copy of that descriptor) receives lands in the file instead."""

    def __init__(self, fd):
        self.lines, self._fd = [], fd

    def write(self, text):
        self.lines.append(text)
        return len(text)

    def flush(self):
        pass

    def fileno(self):
        return self._fd


def _say(text):
    """Print text from a fresh thread (neither routed one)."""
    t = threading.Thread(target=print, args=(text,))
    t.start()
    t.join()


def test_overlapping_routes_in_any_order_reach_their_places_and_restore_stdout(tmp_path, monkeypatch):
    path = tmp_path / "console.txt"
    with open(path, "w") as fd_file:
        base = _Stream(fd_file.fileno())
        monkeypatch.setattr(sys, "stdout", base)
        worker_ready, worker_go, worker_done = threading.Event(), threading.Event(), threading.Event()

        def worker():
            worker_ready.wait()
            print("worker-routed")
            sys.stdout.flush()
            worker_go.wait()
            worker_done.set()

        w = threading.Thread(target=worker)
        w.start()
        main = threading.current_thread()
        c_worker = route_to_console(w)                  # run 1 starts (in the worker)
        c_main = route_to_console(main, line_buffered=True)   # run 2 starts, run 1 still on
        assert c_worker is not None and c_main is not None
        worker_ready.set()
        print("main-routed")
        _say("bystander-1")
        worker_go.set()
        worker_done.wait()
        w.join()
        unroute(w, c_worker)                            # run 1 ends first, not last in
        print("main-still-routed")
        assert sys.stdout is not base
        unroute(main, c_main)                           # the last run ends
        assert sys.stdout is base, "stdout is not itself after the last run ended"
        print("main-plain")
        _say("bystander-2")
    console = path.read_text()
    assert "worker-routed" in console and "main-routed" in console and "main-still-routed" in console
    plain = "".join(base.lines)
    for text in ("bystander-1", "bystander-2", "main-plain"):
        assert text in plain and text not in console, text
    for text in ("worker-routed", "main-routed", "main-still-routed"):
        assert text not in plain, text


def test_a_stream_with_no_file_is_left_alone(monkeypatch):
    class NoFile:
        def write(self, text):
            return len(text)

        def flush(self):
            pass

    stream = NoFile()
    monkeypatch.setattr(sys, "stdout", stream)
    me = threading.current_thread()
    console = route_to_console(me)
    assert console is None and sys.stdout is stream
    unroute(me, console)
    assert sys.stdout is stream
