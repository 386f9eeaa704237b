"""Run build-time snippets in subprocesses and cache what they write.

Independent of MkDocs: `hook.py` is the only glue. A build snippet is a file under
snippets/ that accepts ``--out DIR [--quick]`` and writes ``DIR/results.json`` plus any
tables and figures (see snippets/measurement.py).

Results are reused only while their cache key is unchanged: the snippet, every snippet
it imports (recursively), requirements.txt, this file, the Python/jax/jaxlib versions,
the CPU model and core count, and the mode (quick or full).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

KEY_FILE = "key.json"
RESULTS_FILE = "results.json"
STDOUT_FILE = "stdout.txt"


class SnippetRunError(Exception):
    """A build snippet failed; the message names it and says what to do."""


@dataclass
class SnippetRun:
    name: str  # the snippet's stem, e.g. "selu_benchmark"
    folder: Path  # the cached output folder
    results: dict
    reused: bool
    seconds: float  # measuring time (0 when reused)

    @property
    def files(self) -> list[Path]:
        """Every output file (tables, figures, results.json), relative to `folder`."""
        return sorted(p.relative_to(self.folder) for p in self.folder.rglob("*")
                      if p.is_file() and p.name != KEY_FILE)


def imported_snippets(path: Path, snippets_dir: Path) -> list[Path]:
    """`path` and the snippet files it imports, directly or through each other."""
    seen: dict[Path, None] = {}
    todo = [path]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen[current] = None
        tree = ast.parse(current.read_text(encoding="utf-8"), filename=str(current))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.module
                     else [])
            for name in names:
                candidate = snippets_dir / (name.split(".")[0] + ".py")
                if candidate.is_file():
                    todo.append(candidate)
    return sorted(seen)


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": cpu, "cores": cores}


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def environment_key(requirements: Path) -> dict:
    """What outside the snippets can change a result."""
    return {
        "python": platform.python_version(),
        "jax": _version("jax"),
        "jaxlib": _version("jaxlib"),
        "requirements": digest(requirements.read_bytes()) if requirements.is_file() else None,
        "runner": digest(Path(__file__).read_bytes()),
        **machine(),
    }


def cache_key(snippet: Path, snippets_dir: Path, requirements: Path, quick: bool) -> dict:
    files = {p.relative_to(snippets_dir).as_posix(): digest(p.read_bytes())
             for p in imported_snippets(snippet, snippets_dir)}
    return {"files": files, "quick": quick, **environment_key(requirements)}


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def files_digest(paths: list[Path]) -> str:
    """One digest of several files' names and contents."""
    return digest(b"".join(p.name.encode() + b"\0" + p.read_bytes() + b"\0" for p in paths))


def _changed(old: dict, new: dict) -> str:
    keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    if "files" in keys:
        files = sorted(f for f in set(old.get("files", {})) | set(new["files"])
                       if old.get("files", {}).get(f) != new["files"].get(f))
        keys[keys.index("files")] = "files " + ", ".join(files)
    return "; ".join(keys)


def run_snippet(name: str, *, snippets_dir: Path, cache_root: Path, requirements: Path,
                quick: bool, remeasure: bool = False, timeout: float = 600,
                log: Callable[[str], None] = print) -> SnippetRun:
    snippet = snippets_dir / f"{name}.py"
    if not snippet.is_file():
        raise SnippetRunError(f"build snippet '{name}' not found: expected {snippet}")
    key = cache_key(snippet, snippets_dir, requirements, quick)
    folder = cache_root / name
    key_path = folder / KEY_FILE
    old_key = json.loads(key_path.read_text()) if key_path.is_file() else None
    if old_key == key and not remeasure:
        results = json.loads((folder / RESULTS_FILE).read_text(encoding="utf-8"))
        log(f"{name}: reusing cached results ({results.get('stamp', '')})")
        return SnippetRun(name, folder, results, reused=True, seconds=0.0)

    why = ("forced by JIT_DOCS_REMEASURE" if remeasure else
           "no cached results" if old_key is None else f"changed: {_changed(old_key, key)}")
    log(f"{name}: measuring ({why}) ...")
    cache_root.mkdir(parents=True, exist_ok=True)
    # Measure into a scratch folder; it replaces the cached one only once complete.
    scratch = Path(tempfile.mkdtemp(prefix=f".tmp-{name}-", dir=cache_root))
    workdir = Path(tempfile.mkdtemp(prefix=f"run-{name}-"))  # an empty working folder
    try:
        out = scratch / "out"
        cmd = [sys.executable, str(snippet), "--out", str(out)] + (["--quick"] if quick else [])
        env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
        start = time.perf_counter()
        with open(scratch / "stderr.txt", "w+b") as stderr, open(scratch / "stdout.txt", "wb") as stdout:
            proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=stdout, stderr=stderr,
                                    start_new_session=True)
            try:
                code = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                code = None
            seconds = time.perf_counter() - start
            stderr.seek(0)
            tail = stderr.read().decode("utf-8", "replace").splitlines()[-20:]
        rerun = f"python {snippet.relative_to(snippets_dir.parent)} --out DIR" + (" --quick" if quick else "")
        if code is None:
            problem = f"ran past its time limit of {timeout:.0f} s"
        elif code != 0:
            problem = f"failed with exit code {code} after {seconds:.1f} s"
        elif not (out / RESULTS_FILE).is_file():
            problem = f"exited cleanly but wrote no {RESULTS_FILE}"
        else:
            problem = None
        if problem:
            shown = "\n".join("    " + line for line in tail) or "    (nothing)"
            raise SnippetRunError(
                f"build snippet {snippet} {problem}.\nLast lines of its stderr:\n{shown}\n"
                f"Run it alone to see everything: {rerun}")
        results = json.loads((out / RESULTS_FILE).read_text(encoding="utf-8"))
        (scratch / "stdout.txt").rename(out / STDOUT_FILE)  # what a reader's own run prints
        (out / KEY_FILE).write_text(json.dumps(key, indent=1, sort_keys=True))
        if folder.exists():
            shutil.rmtree(folder)
        out.rename(folder)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(workdir, ignore_errors=True)
    log(f"{name}: measured in {seconds:.1f} s")
    return SnippetRun(name, folder, results, reused=False, seconds=seconds)


def run_all(names: list[str], *, log: Callable[[str], None] = print, **kwargs) -> dict[str, SnippetRun]:
    """Run snippets one after another: in parallel they would distort each other's timings."""
    start = time.perf_counter()
    runs = {name: run_snippet(name, log=log, **kwargs) for name in names}
    measured = [r for r in runs.values() if not r.reused]
    log(f"build snippets: {len(measured)} measured, {len(runs) - len(measured)} reused, "
        f"{time.perf_counter() - start:.1f} s in all")
    return runs
