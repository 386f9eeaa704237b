"""Run build snippets (and notebooks) in subprocesses, and cache what they write.

Independent of MkDocs: `hook.py` is the only glue. A build snippet is a file under
snippets/ that accepts ``--out DIR [--quick] [--reads CACHE]`` and writes
``DIR/results.json`` (snippets/measurement.py); it may read other snippets' results.

Results are reused while their cache key holds: the snippet, every snippet it imports,
the results it reads, requirements.txt and .lock, this file, the Python/jax/jaxlib
versions, the CPU model and core count, and the mode (quick or full).

Runs see the build's environment less JAX's and XLA's settings (`JAX_*`, `XLA_*`), which
would change what is measured without changing the key: measurements run on defaults.

Each run writes into a scratch folder that replaces the cached one only once complete,
and runs in its own process group: `stop_all()` (serve's shutdown) or an interrupt of
the waiting thread kills that whole group at once, so no measurement outlives the build.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable

KEY_FILE = "key.json"
RUN_FILE = "run.json"  # how long the run took: the next run's log says it
RESULTS_FILE = "results.json"
STDOUT_FILE = "stdout.txt"
SCRATCH_PREFIX = ".tmp-"  # scratch folders: .tmp-<name>-<pid>-<random>


class SnippetRunError(Exception):
    """A build snippet failed; the message names it and says what to do."""


class RunStopped(Exception): ...  # stopped from outside (serve shutting down, input changed)


@dataclass
class SnippetRun:
    name: str  # the snippet's stem, e.g. "selu_benchmark"
    folder: Path  # the cached output folder
    results: dict
    reused: bool
    seconds: float  # measuring time (0 when reused)

    @property
    def files(self) -> list[Path]:
        """Every output file the site publishes, relative to `folder` (not key nor run)."""
        return sorted(p.relative_to(self.folder) for p in self.folder.rglob("*") if p.is_file()
                      and p.name not in (KEY_FILE, RUN_FILE))


def imported_snippets(path: Path, snippets_dir: Path) -> list[Path]:
    """`path` and the snippet files it imports, directly or through each other."""
    seen: dict[Path, None] = {}
    todo = [path]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen[current] = None
        for name in module_imports(current):
            candidate = snippets_dir / (name + ".py")
            if candidate.is_file():
                todo.append(candidate)
    return sorted(seen)


_imports: dict[Path, tuple[tuple[int, int], frozenset[str]]] = {}  # path -> ((mtime, size), names)


def module_imports(path: Path) -> frozenset[str]:
    """The top-level names of every module `path` imports, anywhere in it; parsed once per
    version of the file (a build asks for the same files many times: cache keys, downloads)."""
    stat = path.stat()
    version = (stat.st_mtime_ns, stat.st_size)
    cached = _imports.get(path)
    if cached and cached[0] == version:
        return cached[1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    names.update(reads(path))  # shared("name"): run alone, a snippet imports that one
    _imports[path] = (version, frozenset(names))
    return _imports[path][1]


def measurement():
    """snippets/measurement.py: the one home of `machine` (what every result is stamped
    with) and of the number formats (loaded from its file, since the build keeps snippets/
    off sys.path; loaded once)."""
    with _measurement_lock:  # quick mode looks up keys in several threads at once
        if "_build_measurement" not in sys.modules:
            path = Path(__file__).resolve().parent.parent / "snippets" / "measurement.py"
            spec = importlib.util.spec_from_file_location("_build_measurement", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # its dataclasses look their module up there
            spec.loader.exec_module(module)
        return sys.modules["_build_measurement"]


_measurement_lock = threading.Lock()


def machine() -> dict:
    """The CPU and its cores, as snippets/measurement.py's `machine` stamps every result."""
    return measurement().machine()


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def environment_key(requirements: Path) -> dict:
    """What outside the snippets can change a result (requirements: requirements.txt;
    requirements.lock beside it counts too, when there is one)."""
    lock = requirements.with_name("requirements.lock")
    return {
        "python": platform.python_version(),
        "jax": _version("jax"),
        "jaxlib": _version("jaxlib"),
        "requirements": digest(requirements.read_bytes()) if requirements.is_file() else None,
        "requirements_lock": digest(lock.read_bytes()) if lock.is_file() else None,
        "runner": digest(Path(__file__).read_bytes()),
        **machine(),
    }


def files_key(paths: list[Path], root: Path) -> dict:
    return {p.relative_to(root).as_posix(): digest(p.read_bytes()) for p in paths}


def data_files(snippet: Path, root: Path) -> list[Path]:
    """Files outside snippets/ that a build snippet reads, named by its module-level
    `DATA` (a path relative to the repository, or a tuple of them): a committed dataset
    (snippets/jax_history.py reads history/releases.csv). A missing one keys as absent."""
    for node in ast.parse(snippet.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DATA" for t in node.targets):
            value = ast.literal_eval(node.value)
            return [root / p for p in ((value,) if isinstance(value, str) else value)]
    return []


def reads(snippet: Path) -> list[str]:
    """The build snippets whose results `snippet` reads: each `shared("name", ...)` in it
    (snippets/measurement.py). The build runs them first and keys it on their results."""
    return sorted({node.args[0].value for node in ast.walk(ast.parse(snippet.read_text(encoding="utf-8")))
                   if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "shared"
                   and node.args and isinstance(node.args[0], ast.Constant)})


def cache_key(snippet: Path, snippets_dir: Path, requirements: Path, quick: bool, cache_root: Path) -> dict:
    files = files_key(imported_snippets(snippet, snippets_dir), snippets_dir)
    root = snippets_dir.parent
    files.update({p.relative_to(root).as_posix(): digest(p.read_bytes()) if p.is_file() else None
                  for p in data_files(snippet, root)})
    read = {name: digest(f.read_bytes()) if (f := cache_root / name / RESULTS_FILE).is_file() else None
            for name in reads(snippet)}
    return {"files": files, "reads": read, "quick": quick, **environment_key(requirements)}


def digest(data: bytes, length: int = 16) -> str:
    """The build's one digest: the first `length` hex digits of sha256 (cache keys, file names)."""
    return hashlib.sha256(data).hexdigest()[:length]


def changed(old: dict | None, new: dict) -> str:
    """Why a cached result is not reused, in words."""
    if old is None:
        return "no cached results"
    keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    if "files" in keys:
        files = sorted(f for f in set(old.get("files", {})) | set(new["files"])
                       if old.get("files", {}).get(f) != new["files"].get(f))
        keys[keys.index("files")] = "files " + ", ".join(files)
    return "changed: " + "; ".join(keys)


def last_run(folder: Path, quick: bool) -> str:
    """"; last full run 47 s" from the cached run in `folder`, or "" when it has none."""
    try:
        seconds = json.loads((folder / RUN_FILE).read_text())["seconds"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    return f"; last {'quick' if quick else 'full'} run {seconds:.0f} s"


def cached_key(folder: Path) -> dict | None:
    try:
        return json.loads((folder / KEY_FILE).read_text())
    except (OSError, ValueError):
        return None


def options(environ: dict) -> dict:
    """The build's options from environment variables (see hook.py), or a clear error."""
    found = {}
    for name, key in (("JIT_DOCS_QUICK", "quick"), ("JIT_DOCS_REMEASURE", "remeasure")):
        value = environ.get(name, "0").strip()
        if value not in ("", "0", "1"):
            raise SnippetRunError(f"{name} must be 0 or 1, not {value!r}.")
        found[key] = value == "1"
    value = environ.get("JIT_DOCS_TIMEOUT", "600")
    try:
        found["timeout"] = float(value)
    except ValueError:
        found["timeout"] = -1.0
    if not found["timeout"] > 0:
        raise SnippetRunError(f"JIT_DOCS_TIMEOUT must be a positive number of seconds, not {value!r}.")
    return found


# ---------------------------------------------------------------- process groups

_live: dict[int, tuple[subprocess.Popen, float]] = {}  # pid -> (process, grace seconds)
_scratch_in_use: set[Path] = set()  # this process's runs (serve measures in a thread)
# A scratch folder is registered in the same step that makes it: runs side by side (quick
# mode) each clear abandoned scratch first, and must never take another's new folder for one.
_scratch_lock = threading.Lock()
_lock = threading.Lock()
_stops = 0  # how many stop_all() calls so far: a run that saw it change was stopped
_since = threading.local()  # .stops: the mark a thread's stoppable_since() holds


def kill_group(proc: subprocess.Popen, grace: float = 0.0) -> None:
    """SIGTERM first when the process cleans up after itself (a notebook's kernel), then
    SIGKILL to its whole group; a build snippet gets SIGKILL at once (grace 0)."""
    try:
        if grace > 0:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group has gone already
    proc.wait()


def stop_on_sigterm() -> None:
    """SIGTERM (and a SIGINT that a shell ignored) interrupts the main thread as Ctrl-C does,
    so that a build or serve told to stop kills its runs on its way out."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) in (signal.SIG_DFL, signal.SIG_IGN):
            signal.signal(signum, signal.default_int_handler)


def stop_all() -> None:
    """Kill every running build snippet or notebook, each with its whole process group,
    and any that a thread inside stoppable_since() was about to start."""
    global _stops
    with _lock:
        _stops += 1
        running = list(_live.items())
    for _, (proc, grace) in running:
        kill_group(proc, grace)


def stops_so_far() -> int:
    """How many times stop_all() was called: a mark for stoppable_since."""
    with _lock:
        return _stops


@contextlib.contextmanager
def stoppable_since(mark: int):
    """Runs this thread starts inside the block raise RunStopped if stop_all() was
    called after `mark` (stops_so_far()), even before they started (serve's worker: a
    job waits for a page rebuild before its process starts)."""
    _since.stops = mark
    try:
        yield
    finally:
        _since.stops = None


def ignored_settings(environ) -> list[str]:
    """The variables a run does not inherit: JAX and XLA read their configuration from
    them (JAX_ENABLE_X64, XLA_FLAGS, JAX_COMPILATION_CACHE_DIR ...)."""
    return sorted(name for name in environ if name.startswith(("JAX_", "XLA_")))


def start_in_group(cmd: list[str], *, cwd: Path, stdout, stderr, env: dict | None = None) -> subprocess.Popen:
    """`cmd` started in a process group of its own (kill_group ends it with everything it
    started), with the build's environment less JAX's and XLA's settings, plus `env`."""
    ignored = ignored_settings(os.environ)
    return subprocess.Popen(cmd, cwd=cwd, stdout=stdout, stderr=stderr, start_new_session=True,
                            env={**{k: v for k, v in os.environ.items() if k not in ignored},
                                 "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1", **(env or {})})


def run_in_group(cmd: list[str], *, cwd: Path, stdout, stderr, timeout: float,
                 grace: float = 0.0, env: dict | None = None) -> int | None:
    """Exit code of `cmd`, run in a new process group; None when it ran past `timeout`.
    Raises RunStopped when stop_all() killed it; on any exception in the waiting thread
    (KeyboardInterrupt from Ctrl-C or SIGTERM) the group is killed before it propagates."""
    with _lock:  # started and registered at once: a stop_all() in between would miss it
        if getattr(_since, "stops", None) not in (None, _stops):
            raise RunStopped(" ".join(cmd))  # stopped before it could start
        proc = start_in_group(cmd, cwd=cwd, stdout=stdout, stderr=stderr, env=env)
        _live[proc.pid] = (proc, grace)
        started_at = _stops
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc, grace)
        return None
    except BaseException:
        kill_group(proc, grace)
        raise
    finally:
        with _lock:
            _live.pop(proc.pid, None)
            if _stops != started_at:  # stop_all() ran while it was registered: it killed it
                raise RunStopped(" ".join(cmd))


def runs_at_once(quick: bool) -> int:
    """How many snippet or notebook runs share the cores: one per core in quick mode, whose
    numbers are never published; one at a time at full size, so that no measurement
    competes with another for the cores."""
    return (os.cpu_count() or 1) if quick else 1


def side_by_side(jobs: dict[str, Callable[[], object]], workers: int = 1) -> dict[str, object]:
    """Each job's result, by name; `workers` jobs at a time (1: in order, in this thread;
    how many: runs_at_once). The first failure stops the others (their process groups are
    killed) and is raised; so is an interrupt of the waiting thread."""
    if workers <= 1 or len(jobs) <= 1:
        return {name: job() for name, job in jobs.items()}
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="snippet-run")
    mark = stops_so_far()  # a job that starts after the stop_all() below is stopped too

    def stoppable(job):
        with stoppable_since(mark):
            return job()
    futures = {name: pool.submit(stoppable, job) for name, job in jobs.items()}
    try:
        done, pending = wait(futures.values(), return_when=FIRST_EXCEPTION)
        failed = [f for f in futures.values() if f in done and f.exception()]
        if failed:
            raise failed[0].exception()
        return {name: future.result() for name, future in futures.items()}
    except BaseException:
        for future in futures.values():
            future.cancel()
        stop_all()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def remove_abandoned_scratch(cache_root: Path) -> None:
    """Scratch folders of runs that were killed with their build (their process is gone)."""
    with _scratch_lock:
        for scratch in cache_root.glob(SCRATCH_PREFIX + "*"):
            try:
                pid = int(scratch.name.rsplit("-", 2)[-2])
                os.kill(pid, 0)
                if pid != os.getpid() or scratch in _scratch_in_use:
                    continue  # a build or serve of this project is still running it
            except (ValueError, IndexError, ProcessLookupError):
                pass
            except PermissionError:
                continue
            shutil.rmtree(scratch, ignore_errors=True)


def run_into_cache(cmd: Callable[[Path], list[str]], *, folder: Path, key: dict, expected: str,
                   rerun: str, what: str, timeout: float, grace: float = 0.0,
                   cwd: Path | None = None, env: dict | None = None) -> float:
    """Run cmd(out) in `cwd` (default: an empty working folder); once it exits cleanly having
    written out/`expected`, out (plus stdout.txt and key.json) replaces `folder`. Returns seconds."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _scratch_lock:
        scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{folder.name}-{os.getpid()}-",
                                        dir=folder.parent))
        _scratch_in_use.add(scratch)
    try:
        out, work = scratch / "out", scratch / "work"
        work.mkdir()
        start = time.perf_counter()
        with open(scratch / "stderr.txt", "w+b") as stderr, \
                open(scratch / STDOUT_FILE, "wb") as stdout:
            code = run_in_group(cmd(out), cwd=cwd or work, stdout=stdout, stderr=stderr,
                                timeout=timeout, grace=grace, env=env)
            seconds = time.perf_counter() - start
            stderr.seek(0)
            tail = stderr.read().decode("utf-8", "replace").splitlines()[-20:]
        if code is None:
            problem = f"ran past its time limit of {timeout:.0f} s (JIT_DOCS_TIMEOUT)"
        elif code != 0:
            problem = f"failed with exit code {code} after {seconds:.1f} s"
        elif not (out / expected).is_file():
            problem = f"exited cleanly but wrote no {expected}"
        else:
            problem = None
        if problem:
            shown = "\n".join("    " + line for line in tail) or "    (nothing)"
            raise SnippetRunError(f"{what} {problem}.\nLast lines of its stderr:\n{shown}\n"
                                  f"Run it alone to see everything: {rerun}")
        (scratch / STDOUT_FILE).rename(out / STDOUT_FILE)  # what a reader's own run prints
        (out / KEY_FILE).write_text(json.dumps(key, indent=1, sort_keys=True))
        (out / RUN_FILE).write_text(json.dumps({"seconds": round(seconds, 1)}) + "\n")
        if folder.exists():
            shutil.rmtree(folder)
        out.rename(folder)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        _scratch_in_use.discard(scratch)
    return seconds


# ---------------------------------------------------------------- build snippets

def build_snippets(extra: dict) -> list[str]:
    """The build snippets a site lists (mkdocs.yml's extra.build_snippets), in order."""
    names = extra.get("build_snippets", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise SnippetRunError("extra.build_snippets in mkdocs.yml must be a list of snippet names.")
    return names


def project_paths(root: Path, quick: bool) -> dict:
    """Where a project's build snippets, requirements and cached results are: the keyword
    arguments of `lookup`, `run_snippet` and `results_for`."""
    return dict(snippets_dir=root / "snippets", requirements=root / "requirements.txt", quick=quick,
                cache_root=root / ".cache" / "measured" / ("quick" if quick else "full"))


def lookup(name: str, *, snippets_dir: Path, cache_root: Path, requirements: Path,
           quick: bool) -> tuple[dict, SnippetRun | None]:
    """The snippet's cache key, and its cached run if that key matches (else None)."""
    snippet = snippets_dir / f"{name}.py"
    if not snippet.is_file():
        raise SnippetRunError(f"build snippet '{name}' not found: expected {snippet}; "
                              "fix its name in extra.build_snippets of mkdocs.yml")
    remove_abandoned_scratch(cache_root)
    key = cache_key(snippet, snippets_dir, requirements, quick, cache_root)
    folder = cache_root / name
    if cached_key(folder) != key:
        return key, None
    try:
        results = json.loads((folder / RESULTS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return key, None
    return key, SnippetRun(name, folder, results, reused=True, seconds=0.0)


def run_snippet(name: str, *, snippets_dir: Path, cache_root: Path, requirements: Path,
                quick: bool, remeasure: bool = False, timeout: float = 600,
                log: Callable[[str], None] = print, place: str = "") -> SnippetRun:
    """The snippet's run, cached or measured now (`place`: "[3/9] ", its place in the build's list)."""
    paths = dict(snippets_dir=snippets_dir, cache_root=cache_root, requirements=requirements)
    key, run = lookup(name, quick=quick, **paths)
    if run is not None and not remeasure:
        env = run.results.get("environment", {})
        log(f"{place}{name}: reusing results measured {env.get('date', '?')} on {env.get('cpu', '?')}")
        return run
    folder = cache_root / name
    why = "forced by JIT_DOCS_REMEASURE" if remeasure else changed(cached_key(folder), key)
    log(f"{place}{name}: measuring ({why}{last_run(folder, quick)}) ...")
    if ignored := ignored_settings(os.environ):
        log(f"{name}: not passing on {', '.join(ignored)} "
            "(measurements run on JAX's default settings)")
    snippet = snippets_dir / f"{name}.py"
    flags = (["--quick"] if quick else []) + (["--reads", str(cache_root)] if reads(snippet) else [])
    seconds = run_into_cache(
        lambda out: [sys.executable, str(snippet), "--out", str(out), *flags],
        folder=folder, key=key, expected=RESULTS_FILE, timeout=timeout,
        what=f"build snippet {snippet}",
        rerun=f"python {snippet.relative_to(snippets_dir.parent)} --out DIR {' '.join(flags)}")
    log(f"{place}{name}: measured in {seconds:.1f} s")
    results = json.loads((folder / RESULTS_FILE).read_text(encoding="utf-8"))
    return SnippetRun(name, folder, results, reused=False, seconds=seconds)


def results_for(names: list[str], *, serving=None, remeasure: bool = False, timeout: float = 600,
                log: Callable[[str], None] = print, workers: int = 1, **paths) -> tuple[dict, dict, dict]:
    """Each build snippet's results and folder, and serve's status line for it.

    `mkdocs build` (no `serving` queue) runs every stale snippet now, `workers` at a time
    (runs_at_once). `mkdocs serve` queues each stale one (background_runs.py) and gives None
    for it until it is measured: never an old number in its place."""
    results, folders, status = {}, {}, {}
    places = {name: f"[{i}/{len(names)}] " for i, name in enumerate(names, 1)}
    waves, runs = in_waves(names, paths["snippets_dir"]), {}  # in_waves checks their order
    for wave in (waves if workers > 1 else [names]) if serving is None else []:
        runs.update(side_by_side({name: lambda name=name: run_snippet(
            name, remeasure=remeasure, timeout=timeout, log=log, place=places[name], **paths)
            for name in wave}, workers))
    for name in names:
        if serving is None:
            run = runs[name]
        else:
            key, run = lookup(name, **paths)
            if run is None or remeasure:
                serving.want(name, key, lambda name=name: run_snippet(
                    name, remeasure=remeasure, timeout=timeout, log=log, place=places[name], **paths))
            run = None if serving.busy(name) else run
            status[name] = serving.status(name)
        results[name], folders[name] = (run.results, run.folder) if run else (None, None)
    return results, folders, status


def in_waves(names: list[str], snippets_dir: Path) -> list[list[str]]:
    """`names` in two groups, each may run side by side: snippets that read no results,
    then those that do (extra.build_snippets lists them after what they read)."""
    needs = {name: reads(snippets_dir / f"{name}.py") for name in names}
    for i, name in enumerate(names):
        if bad := [n for n in needs[name] if n not in names[:i] or needs[n]]:
            raise SnippetRunError(f"build snippet '{name}' reads the results of {', '.join(bad)}: list "
                                  "each before it in extra.build_snippets of mkdocs.yml (reading none)")
    return [[n for n in names if not needs[n]], [n for n in names if needs[n]]]


def site_files(folders: dict[str, Path | None], results: dict[str, dict | None]) -> list[tuple[str, dict]]:
    """(path under measured/, File.generated's source) for each snippet's published outputs;
    a snippet still being measured by serve gets a placeholder results.json for links."""
    found = []
    for name, folder in folders.items():
        if results[name] is None:
            found.append((f"{name}/{RESULTS_FILE}", {"content": '{"pending": "being measured by mkdocs serve"}\n'}))
            continue
        found += [(f"{name}/{rel.as_posix()}", {"abs_src_path": str(folder / rel)})
                  for rel in SnippetRun(name, folder, {}, True, 0).files]
    return found
