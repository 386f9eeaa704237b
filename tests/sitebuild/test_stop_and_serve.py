"""Serve at once, stop cleanly: `mkdocs build` and `mkdocs serve` on a tiny copied project.

The project's build snippets need no JAX: `fast` writes its result at once; `slow` writes
its pid and waits for a file named `go` before writing its own, so a test decides when a
measurement is "running" and when it ends. The hook and its modules are the real ones.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from project import ROOT

SNIPPET = """
import argparse, json, os, pathlib, time
parser = argparse.ArgumentParser()
parser.add_argument("--out", type=pathlib.Path)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()
project = pathlib.Path({project!r})
(project / "{name}.pid").write_text(str(os.getpid()))
while {wait} and not (project / "go").exists():
    time.sleep(0.05)
args.out.mkdir(parents=True)
data = {{"value": "{name} measured {{}}".format(len(os.listdir(project)))}}
env = {{"cpu": "a toy", "cores": 1, "backend": "cpu", "date": "2026-12-04",
        "libraries": {{"jax": "0"}}}}
(args.out / "results.json").write_text(json.dumps({{
    "environment": env, "data": data, "verdicts": {{}}, "facts": [], "figures": [],
    "tables": {{"t": {{"columns": ["a"], "rows": [[1]]}}}}}}))
"""

NOTEBOOK = """# %%
import os, pathlib, time
pathlib.Path({kernel_pid!r}).write_text(str(os.getpid()))
time.sleep(120)
"""

MKDOCS_YML = """site_name: Tiny
site_url: https://example.invalid/tiny/
theme: {name: mkdocs, highlightjs: false}
hooks: [sitebuild/hook.py]
extra: {build_snippets: [fast, slow]}
plugins: []
markdown_extensions: [pymdownx.snippets]
watch: [snippets]
"""


@pytest.fixture
def tiny(tmp_path) -> Path:
    project = tmp_path / "tiny"
    shutil.copytree(ROOT / "sitebuild", project / "sitebuild",
                    ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    (project / "mkdocs.yml").write_text(MKDOCS_YML)
    (project / "docs").mkdir()
    if (ROOT / "docs" / "words.yml").is_file():  # the edition's common words (page_templates.load_words)
        shutil.copy(ROOT / "docs" / "words.yml", project / "docs")
    (project / "docs" / "index.md").write_text(
        "---\nwords: {slow: {a: A}}\n---\n\n# Tiny\n\nFirst {{ fast.data.value }}.\n\n## Slow\n\nThen {{ slow.data.value }}.\n\n"
        '{{ table("slow", "t") }}\n')
    (project / "snippets").mkdir()
    # the build stamps its cache keys with the machine facts snippets/measurement.py reads
    shutil.copy(ROOT / "snippets" / "measurement.py", project / "snippets")
    for name, wait in (("fast", False), ("slow", True)):
        (project / "snippets" / f"{name}.py").write_text(
            SNIPPET.format(project=str(project), name=name, wait=wait))
    return project


def mkdocs(project: Path, *args: str, **popen) -> subprocess.Popen:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "JIT_DOCS_QUICK": "0", "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "mkdocs", *args], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **popen)


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def pid_of(project: Path, name: str) -> int:
    path = project / f"{name}.pid"
    return wait_for(lambda: path.is_file() and path.read_text() and int(path.read_text()), 60,
                    f"{name} to start")


def stop(proc: subprocess.Popen, signum: int) -> str:
    """Send `signum` and return the process's output once it exits. Its snippet or notebook
    cell waits 120 s (or for `go`): exiting within the 15 s allowed means it did not wait for
    them. How fast it stops is measured, not asserted: tools/measure_build.py."""
    proc.send_signal(signum)
    try:
        output, _ = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        output, _ = proc.communicate()
        raise AssertionError(f"still running 15 s after signal {signum}:\n{output}") from None
    return output


def test_an_interrupted_build_kills_its_snippet_and_the_next_reuses_only_complete_results(tiny):
    # SIGTERM here; Ctrl-C's SIGINT in the notebook and serve tests below
    cache = tiny / ".cache" / "measured" / "full"
    cache.mkdir(parents=True)
    abandoned = cache / ".tmp-slow-99999999-x"  # left by a build killed with SIGKILL
    (abandoned / "out").mkdir(parents=True)
    build = mkdocs(tiny, "build", "--strict")
    slow = pid_of(tiny, "slow")
    stop(build, signal.SIGTERM)
    # killed before the build exits; on a loaded machine its exit can take a moment to be scheduled
    wait_for(lambda: not alive(slow), 5, "the snippet's process to end after the build (it outlived it)")
    assert sorted(p.name for p in cache.iterdir()) == ["fast"], "only complete results stay"

    (tiny / "go").touch()
    again = mkdocs(tiny, "build", "--strict")
    output, _ = again.communicate(timeout=120)
    assert again.returncode == 0, output
    assert "fast: reusing results measured" in output and "slow: measuring (no cached results)" in output
    assert sorted(p.name for p in cache.iterdir()) == ["fast", "slow"]


def test_an_interrupted_notebook_kills_its_kernel(tiny):
    (tiny / "go").touch()
    (tiny / "notebooks").mkdir()
    kernel_pid = tiny / "kernel.pid"
    (tiny / "notebooks" / "wait.py").write_text(NOTEBOOK.format(kernel_pid=str(kernel_pid)))
    build = mkdocs(tiny, "build", "--strict")
    kernel = wait_for(lambda: kernel_pid.is_file() and kernel_pid.read_text() and int(kernel_pid.read_text()),
                      90, "the notebook's kernel to start")
    stop(build, signal.SIGINT)  # the kernel gets a moment to shut down cleanly (SIGTERM), then SIGKILL
    wait_for(lambda: not alive(kernel), 5, "the notebook's kernel to end after the build (it outlived it)")
    assert not list((tiny / ".cache" / "notebooks").glob(".tmp-*"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except OSError:
        return None


def content(html: str) -> str:
    """The page's main column, without what serve adds (its livereload script)."""
    main = html.split('role="main">', 1)[1].split("</div>\n        </div>", 1)[0]
    return re.sub(r"<script.*?</script>", "", main, flags=re.S).strip()


def test_serve_answers_at_once_fills_in_and_stops_cleanly(tiny, tmp_path):
    port = free_port()
    serve = mkdocs(tiny, "serve", "--livereload", "--dev-addr", f"127.0.0.1:{port}", start_new_session=True)
    url = f"http://127.0.0.1:{port}/tiny/"
    try:
        # slow waits for `go`: any answer now is one that did not wait for every measurement
        wait_for(lambda: get(url), 60, "serve's first answer")
        page = wait_for(lambda: (p := get(url)) and "fast measured" in p and "slow.py</code> is running now" in p
                        and p, 30, "the page to show fast's number and say that slow is running")
        assert "⏳ being measured" in page and "slow measured" not in page

        (tiny / "go").touch()  # slow finishes: its page is rebuilt with its number
        served = wait_for(lambda: (p := get(url)) and "slow measured" in p and p, 30, "slow's number")
        assert "⏳" not in served
        build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--site-dir", str(tmp_path / "site")],
                               cwd=tiny, capture_output=True, text=True, timeout=120,
                               env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
        assert build.returncode == 0, build.stderr
        assert "slow measured" in content(served)
        assert content(served) == content((tmp_path / "site" / "index.html").read_text())

        (tiny / "go").unlink()  # an edit of slow re-queues slow alone
        (tiny / "slow.pid").unlink()
        snippet = tiny / "snippets" / "slow.py"
        snippet.write_text(snippet.read_text() + "# edited\n")
        slow = pid_of(tiny, "slow")
        output = stop(serve, signal.SIGINT)
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
    wait_for(lambda: not alive(slow), 5, "the snippet's process to end after serve (it outlived it)")
    assert output.count("fast: measuring") == 1 and output.count("slow: measuring") == 2, output
    assert "Reloading browsers" in output
    assert not list((tiny / ".cache" / "measured" / "full").glob(".tmp-*"))


RENDER_EDIT = '''
_render_before_the_edit = render


def render(markdown_text, **kwargs):
    return _render_before_the_edit(markdown_text, **kwargs) + "\\n\\nRendered by the edited code.\\n"
'''


def measured(page: str | None) -> tuple[int, int] | None:
    """The two toy numbers a page shows (each snippet counts the files in the project)."""
    found = [re.search(rf"{name} measured (\d+)", page or "") for name in ("fast", "slow")]
    return tuple(int(m[1]) for m in found) if all(found) else None


def test_serve_runs_its_own_code_as_edited_and_never_measures_with_the_old(tiny):
    """MkDocs loads a hook's modules once per process: serve starts itself over instead."""
    (tiny / "go").touch()  # slow measures at once
    config = tiny / "mkdocs.yml"
    config.write_text(config.read_text().replace("watch: [snippets]", "watch: [snippets, sitebuild]"))
    port = free_port()
    serve = mkdocs(tiny, "serve", "--livereload", "--dev-addr", f"127.0.0.1:{port}", start_new_session=True)
    url = f"http://127.0.0.1:{port}/tiny/"
    try:
        numbers = wait_for(lambda: measured(get(url)), 60, "both measurements")
        templates = tiny / "sitebuild" / "page_templates.py"  # renders pages, keys no measurement
        templates.write_text(templates.read_text() + RENDER_EDIT)
        page = wait_for(lambda: (p := get(url)) and "Rendered by the edited code" in p and p, 60,
                        "the page rendered by the edited page_templates.py")
        assert measured(page) == numbers, "nothing measured again"

        # snippet_runs.py is in every cache key: both are measured again, by the edited code
        (tiny / "snippet_runs-edited").touch()  # one more file for each to count
        runner = tiny / "sitebuild" / "snippet_runs.py"
        runner.write_text(runner.read_text() + '\nprint("snippet_runs.py as edited", flush=True)\n')
        wait_for(lambda: (again := measured(get(url))) and again[0] > numbers[0] and again[1] > numbers[1],
                 60, "both measured again")
        output = stop(serve, signal.SIGINT)
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
    first, second = "sitebuild/page_templates.py changed: restarting", "sitebuild/snippet_runs.py changed: restarting"
    assert output.count(first) == 1 and output.count(second) == 1, output
    before, after = output.split(second)
    between = before.split(first)[1]
    assert "Serving on" in between and ": measuring" not in between, between
    assert after.index("snippet_runs.py as edited") < after.index("fast: measuring"), after
    assert output.count("fast: measuring") == 2 and output.count("slow: measuring") == 2, output
