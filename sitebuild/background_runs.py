"""Serve's measurements: one worker thread runs them one at a time, in the order asked.

Independent of MkDocs (hook.py is the glue). `mkdocs serve` answers at once with the
results it has; each missing one is asked for here. After each run the worker writes
a file into `progress_dir`, which serve watches, so the pages are rebuilt and browsers
reload; it starts the next run only once that rebuild is done (`site_built`), so a
measurement never competes with a rebuild that it caused.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path
from collections.abc import Callable

import korean_edition
import snippet_runs

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
REBUILD_WAIT_S = 120  # the longest a run waits for the rebuild it asked for
ASK_AGAIN_S = 2  # a request no build has answered yet is written again (serve may not have been watching)


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
        self._started = threading.Event()  # a (re)build began since the last request
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

    def failure(self, label: str) -> str | None:
        """The first line of the error `label` last failed with, until its key changes."""
        with self._cond:
            return self._failed[label][1] if label in self._failed else None

    def busy(self, label: str) -> bool:
        with self._cond:
            return label in self._queue or bool(self._running and self._running[0] == label)

    def idle(self, but: str | None = None) -> bool:
        """Nothing running and nothing waiting (but the job `but`, if named)."""
        with self._cond:
            return set(self._queue) <= {but} and (self._running is None or self._running[0] == but)

    def drop(self, label: str) -> None:
        """No run for `label` any more: taken out of the queue, or stopped when running."""
        with self._cond:
            self._queue.pop(label, None)
            if self._running and self._running[0] == label:
                snippet_runs.stop_all()

    def _remaining(self) -> int:
        return len(self._queue) + (self._running is not None)

    def build_started(self) -> None:
        self._started.set()

    def site_built(self) -> None:
        self._built.set()

    def _wait_for_rebuild(self) -> None:
        """Ask for a rebuild and wait for it; ask again while none has started (a request
        written before serve began watching is never seen)."""
        self._rebuild()
        deadline = time.monotonic() + self.rebuild_wait_s
        while (left := deadline - time.monotonic()) > 0:
            if self._built.wait(timeout=min(left, ASK_AGAIN_S)) or self._stopping:
                return
            if not self._started.is_set():
                self._rebuild()

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
        self._started.clear()
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
                    self._wait_for_rebuild()  # the pages now say what is being measured
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


class Serving:
    """What `mkdocs serve` runs beside its pages: the measurements (`queue`) and, for a site
    with a Korean edition (`ko_config`), that edition at /ko/, built on the same queue once
    every English result is measured (korean_edition.ServedEdition)."""

    def __init__(self, root: Path, ko_config: Path | None, log: Callable[[str], None], timeout: float = 600):
        self.queue = BackgroundRuns(root / ".cache" / "serving", log)
        self.korean = ko_config and korean_edition.ServedEdition(  # its folder is not watched
            root, ko_config, self.queue, root / ".cache" / "serving-korean", timeout)

    def site_built(self, site_dir: Path, results: dict, folders: dict) -> None:
        """After each (re)build: the Korean site back in place, and the next measurement may start."""
        if self.korean:
            ready = None not in results.values() and self.queue.idle(but=self.korean.LABEL)
            self.korean.refresh(site_dir, folders if ready else None)
        self.queue.site_built()

    def stop(self) -> None:
        self.queue.stop()


class OwnCode:
    """The build's own code as this process loaded it: sitebuild/*.py, and
    snippets/measurement.py, which the build loads too (snippet_runs.measurement).

    MkDocs loads a hook module once per process (`Hooks._load_hook` is cached), so under
    `mkdocs serve` an edit of that code would rebuild with the old code, and even measure
    everything again with it (the cache key covers snippet_runs.py). `changed()` names what
    changed since serve started; `restart()` starts serve over, in this process, as the same
    command, once the background runs are stopped."""

    def __init__(self, root: Path):
        self.root = root
        self.loaded = self._digests()

    def _digests(self) -> dict[str, str]:
        paths = [*sorted((self.root / "sitebuild").glob("*.py")), self.root / "snippets" / "measurement.py"]
        return {p.relative_to(self.root).as_posix(): snippet_runs.digest(p.read_bytes())
                for p in paths if p.is_file()}

    def changed(self) -> list[str]:
        now = self._digests()
        return sorted(name for name in now.keys() | self.loaded.keys() if now.get(name) != self.loaded.get(name))

    def restart(self, changed: list[str], site_dir: Path, log: Callable[[str], None]) -> str:
        """Replace this process with a new `mkdocs serve` (os.execv: same command, same
        address), which loads the code as it is now. Returns only when a changed file does
        not compile, with what to fix: serve goes on with the pages it has, measuring nothing,
        until the next save."""
        for name in changed:
            try:
                compile((self.root / name).read_bytes(), name, "exec")
            except (SyntaxError, ValueError) as error:
                return f"{name} does not compile ({error}); serve restarts once it does"
            except FileNotFoundError:
                pass  # a module removed: its importers say so when serve starts again
        log(f"{', '.join(changed)} changed: restarting mkdocs serve to run the new code")
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        shutil.rmtree(site_dir, ignore_errors=True)  # serve's temporary site; the new serve makes its own
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
        return ""  # not reached
