"""Serve's measurements: one worker thread runs them one at a time, in the order asked.

Independent of MkDocs (hook.py is the glue). `mkdocs serve` answers at once with the
results it has; each missing one is asked for here. After each run the worker writes
a file into `progress_dir`, which serve watches, so the pages are rebuilt and browsers
reload; it starts the next run only once that rebuild is done (`site_built`), so a
measurement never competes with a rebuild that it caused.
"""

from __future__ import annotations

import threading
from pathlib import Path
from collections.abc import Callable

import snippet_runs

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
REBUILD_WAIT_S = 120  # the longest a run waits for the rebuild it asked for


class BackgroundRuns:
    def __init__(self, progress_dir: Path, log: Callable[[str], None],
                 rebuild_wait_s: float = REBUILD_WAIT_S):
        self.progress_dir = progress_dir
        self.rebuild_wait_s = rebuild_wait_s
        self.log = log
        self._queue: dict[str, tuple[dict, Callable[[], object]]] = {}  # label -> (key, job)
        self._running: tuple[str, dict] | None = None
        self._failed: dict[str, tuple[dict, str]] = {}  # label -> (key, first line of the error)
        self._cond = threading.Condition()
        self._built = threading.Event()
        self._stopping = False
        self._thread = threading.Thread(target=self._work, name="measuring", daemon=True)
        self._changes = 0
        progress_dir.mkdir(parents=True, exist_ok=True)

    def want(self, label: str, key: dict, job: Callable[[], object]) -> None:
        """Make sure `job` runs for `label` under `key`: queued once; a run of an older
        key is stopped and this one queued in its place; a key that failed waits for a change."""
        with self._cond:
            if self._stopping or self._failed.get(label, (None,))[0] == key:
                return
            self._failed.pop(label, None)
            if self._running and self._running[0] == label:
                if self._running[1] == key:
                    return
                self.log(f"{label}: its input changed while it ran; stopping it to run again")
                snippet_runs.stop_all()
            self._queue[label] = (key, job)
            if not self._thread.is_alive():
                self._thread.start()
            self._cond.notify_all()

    def status(self, label: str) -> str | None:
        """Where `label` stands, in words (None when nothing is asked for it)."""
        with self._cond:
            if self._running and self._running[0] == label:
                return f"is running now ({self._remaining()} still to come, this one included)"
            if label in self._queue:
                place = list(self._queue).index(label) + 1 + (self._running is not None)
                return f"is waiting its turn ({ORDINALS.get(place, f'{place}th')} in line)"
            if label in self._failed:
                return (f"failed: {self._failed[label][1]} The terminal running mkdocs serve "
                        "shows why; save a fix and it runs again")
            return None

    def busy(self, label: str) -> bool:
        with self._cond:
            return label in self._queue or bool(self._running and self._running[0] == label)

    def idle(self) -> bool:
        """Nothing running and nothing waiting."""
        with self._cond:
            return not self._queue and self._running is None

    def _remaining(self) -> int:
        return len(self._queue) + (self._running is not None)

    def site_built(self) -> None:
        self._built.set()

    def stop(self) -> None:
        """Stop the worker and kill the run in progress with its whole process group."""
        with self._cond:
            self._stopping = True
            self._queue.clear()
            self._cond.notify_all()
        self._built.set()
        snippet_runs.stop_all()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _rebuild(self) -> None:
        self._changes += 1
        (self.progress_dir / "changes").write_text(f"{self._changes}\n")

    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue or self._stopping)
                if self._stopping:
                    return
                label, (key, job) = next(iter(self._queue.items()))
                del self._queue[label]
                self._running = (label, key)
                self._built.clear()
                # a stop_all() from here on (want() with a newer key, or stop(): both
                # under this lock) stops this job's run, even before its process starts
                mark = snippet_runs.stops_so_far()
            try:
                with snippet_runs.stoppable_since(mark):
                    self._rebuild()  # the pages now say what is being measured
                    self._built.wait(timeout=self.rebuild_wait_s)
                    if not self._stopping:
                        job()
            except snippet_runs.RunStopped:
                pass  # stopped on purpose; a newer key, if any, is queued already
            except Exception as error:  # shown on its pages; the details go to the terminal
                self.log(f"{label}: {error}")
                with self._cond:
                    self._failed[label] = (key, str(error).splitlines()[0])
            with self._cond:
                self._running = None
                if self._stopping:
                    return
                last = not self._queue
            if last:
                self._rebuild()  # with a next run, its start rebuilds the pages
