"""sitebuild/snippet_runs.py: the cache and the failures, on toy snippets (no JAX)."""

import json
import os
import sys
import textwrap
import threading

import pytest

import snippet_runs
from snippet_runs import SnippetRunError, imported_snippets, options, run_snippet

WRITER = """
import argparse, json, pathlib
parser = argparse.ArgumentParser()
parser.add_argument("--out", type=pathlib.Path)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()
args.out.mkdir(parents=True)
(args.out / "results.json").write_text(json.dumps({"stamp": "toy", "value": VALUE}))
(args.out / "plot.svg").write_text("<svg/>")
"""


@pytest.fixture
def project(tmp_path):
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    (snippets / "helper.py").write_text("VALUE = 1\n")
    (snippets / "toy.py").write_text("from helper import VALUE\n" + WRITER)
    (tmp_path / "requirements.txt").write_text("jax==0.10.2\n")
    return tmp_path


def run(project, name="toy", **kwargs):
    messages = []
    kwargs.setdefault("quick", True)
    result = run_snippet(name, snippets_dir=project / "snippets", cache_root=project / "cache",
                         requirements=project / "requirements.txt", log=messages.append, **kwargs)
    return result, messages


def test_unchanged_rebuild_reuses_results(project):
    first, _ = run(project)
    second, messages = run(project)
    assert not first.reused and second.reused
    assert second.results["value"] == 1
    assert [p.as_posix() for p in second.files] == ["plot.svg", "results.json", "stdout.txt"]
    assert "reusing" in messages[0]


@pytest.mark.parametrize("change", ["snippet", "imported snippet", "requirements", "lock", "mode"])
def test_any_input_change_invalidates(project, change):
    run(project)
    kwargs = {}
    if change == "snippet":
        (project / "snippets" / "toy.py").write_text(
            (project / "snippets" / "toy.py").read_text() + "# edited\n")
    elif change == "imported snippet":
        (project / "snippets" / "helper.py").write_text("VALUE = 2\n")
    elif change == "requirements":
        (project / "requirements.txt").write_text("jax==0.10.3\n")
    elif change == "lock":
        (project / "requirements.lock").write_text("jax==0.10.2 --hash=sha256:0\n")
    else:
        kwargs["quick"] = False
    again, messages = run(project, **kwargs)
    assert not again.reused
    assert "changed:" in messages[0]
    if change == "imported snippet":
        assert again.results["value"] == 2 and "helper.py" in messages[0]


def test_jax_and_xla_settings_of_the_shell_never_reach_a_measurement(project, monkeypatch):
    # they would change what is measured while the cache key stays the same
    (project / "snippets" / "toy.py").write_text(WRITER.replace(
        "VALUE", "{k: v for k, v in __import__('os').environ.items() if k.startswith(('JAX_', 'XLA_', 'TOY_'))}"))
    for name in ("JAX_ENABLE_X64", "XLA_FLAGS", "JAX_COMPILATION_CACHE_DIR", "TOY_SETTING"):
        monkeypatch.setenv(name, "1")
    result, messages = run(project)
    assert result.results["value"] == {"TOY_SETTING": "1"}
    assert any("not passing on JAX_COMPILATION_CACHE_DIR, JAX_ENABLE_X64, XLA_FLAGS" in m for m in messages)


def test_remeasure_forces_a_run(project):
    run(project)
    again, _ = run(project, remeasure=True)
    assert not again.reused


def test_the_log_counts_up_and_says_how_long_the_last_run_took(project):
    (project / "snippets" / "other.py").write_text(WRITER.replace("VALUE", "2"))
    paths = snippet_runs.project_paths(project, quick=True)
    messages = []
    snippet_runs.results_for(["other", "toy"], log=messages.append, **paths)
    assert messages[0] == "[1/2] other: measuring (no cached results) ..."
    assert messages[2] == "[2/2] toy: measuring (no cached results) ..."
    seconds = json.loads((paths["cache_root"] / "toy" / snippet_runs.RUN_FILE).read_text())["seconds"]
    messages.clear()
    snippet_runs.results_for(["other", "toy"], remeasure=True, log=messages.append, **paths)
    assert messages[2] == f"[2/2] toy: measuring (forced by JIT_DOCS_REMEASURE; last quick run {seconds:.0f} s) ..."


def test_imports_are_followed_recursively(project):
    snippets = project / "snippets"
    (snippets / "helper.py").write_text("import deeper\nVALUE = 1\n")
    (snippets / "deeper.py").write_text("import numpy\n")
    assert [p.name for p in imported_snippets(snippets / "toy.py", snippets)] == \
        ["deeper.py", "helper.py", "toy.py"]


def break_toy(project, body):
    (project / "snippets" / "toy.py").write_text(textwrap.dedent(body))


@pytest.mark.parametrize("body, expected", [
    ("import sys\nprint('first line')\nprint('the cause, last', file=sys.stderr)\nraise SystemExit(3)\n",
     "failed with exit code 3"),
    ("import time\ntime.sleep(30)\n", "ran past its time limit of 1 s"),
    ("print('nothing written')\n", "wrote no results.json"),
])
def test_failures_name_the_snippet_and_leave_the_cache_intact(project, body, expected):
    good, _ = run(project)
    break_toy(project, body)
    with pytest.raises(SnippetRunError) as error:
        run(project, timeout=1)
    message = str(error.value)
    assert "toy.py" in message and expected in message
    if "exit code" in expected:
        assert "the cause, last" in message  # the tail of stderr is shown
    cache = project / "cache"
    assert [p.name for p in cache.iterdir()] == ["toy"]  # no half-written folder stays
    assert json.loads((cache / "toy" / "results.json").read_text())["value"] == 1


def test_a_raising_snippet_shows_its_traceback(project):
    break_toy(project, "def f():\n    raise ValueError('a clear cause')\nf()\n")
    with pytest.raises(SnippetRunError, match="ValueError: a clear cause"):
        run(project)
    assert not (project / "cache" / "toy").exists()


def test_a_missing_snippet_is_named(project):
    with pytest.raises(SnippetRunError, match="'nope' not found"):
        run(project, name="nope")


def test_scratch_of_a_dead_run_is_removed_and_a_live_ones_kept(project):
    cache = project / "cache"
    dead = cache / ".tmp-toy-99999999-abc"  # beyond any pid: its build is gone
    live = cache / f".tmp-toy-{os.getppid()}-abc"  # another build of this project, still running
    for folder in (dead, live):
        (folder / "out").mkdir(parents=True)
    run(project)
    assert not dead.exists() and live.exists()


def test_a_run_beside_never_takes_a_new_scratch_folder_for_an_abandoned_one(project, monkeypatch):
    # Quick mode runs snippets and notebooks side by side, and each clears abandoned scratch
    # first: here another run's clean-up starts just after this run's folder is made.
    made, cleaners = snippet_runs.tempfile.mkdtemp, []

    def mkdtemp_then_another_run_cleans(**kwargs):
        folder = made(**kwargs)
        cleaner = threading.Thread(target=snippet_runs.remove_abandoned_scratch, args=(project / "cache",))
        cleaner.start()
        cleaner.join(timeout=0.5)  # it waits for this run to register its folder
        cleaners.append(cleaner)
        return folder

    monkeypatch.setattr(snippet_runs.tempfile, "mkdtemp", mkdtemp_then_another_run_cleans)
    run(project)  # would fail with FileNotFoundError had the clean-up removed its folder
    assert cleaners and all(not c.join(timeout=5) and not c.is_alive() for c in cleaners)


def test_stop_all_kills_the_running_snippet_and_leaves_no_scratch(project):
    pid_file = project / "toy.pid"  # the snippet says which process it is, once running
    break_toy(project, f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
                       "time.sleep(60)\n")
    errors = []
    thread = threading.Thread(target=lambda: errors.append(pytest.raises(snippet_runs.RunStopped, run, project)))
    thread.start()
    while not (pid_file.exists() and pid_file.read_text()):
        thread.join(0.02)
    pid = int(pid_file.read_text())
    snippet_runs.stop_all()
    thread.join(10)
    assert not thread.is_alive() and errors
    with pytest.raises(ProcessLookupError):  # killed, and reaped
        os.kill(pid, 0)
    assert not list((project / "cache").iterdir())


def test_stop_all_right_after_a_process_starts_still_kills_it(tmp_path, monkeypatch):
    # stop_all() from another thread between the process's start and its registration
    # (a busy machine can pause the starting thread there) must not miss it
    real_popen = snippet_runs.subprocess.Popen

    def popen_then_stop_all(*args, **kwargs):
        proc = real_popen(*args, **kwargs)
        threading.Thread(target=snippet_runs.stop_all).start()
        threading.Event().wait(0.3)  # the starting thread, paused
        return proc

    monkeypatch.setattr(snippet_runs.subprocess, "Popen", popen_then_stop_all)
    with pytest.raises(snippet_runs.RunStopped):
        snippet_runs.run_in_group([sys.executable, "-c", "import time; time.sleep(20)"],
                                  cwd=tmp_path, stdout=None, stderr=None, timeout=30)


def test_a_stop_all_before_a_run_starts_stops_it_inside_stoppable_since(tmp_path):
    mark = snippet_runs.stops_so_far()
    snippet_runs.stop_all()  # e.g. serve's worker still waiting to start the run
    with snippet_runs.stoppable_since(mark), pytest.raises(snippet_runs.RunStopped):
        snippet_runs.run_in_group([sys.executable, "-c", "open('ran', 'w')"], cwd=tmp_path,
                                  stdout=None, stderr=None, timeout=30)
    assert not (tmp_path / "ran").exists()
    assert snippet_runs.run_in_group([sys.executable, "-c", "pass"], cwd=tmp_path,
                                     stdout=None, stderr=None, timeout=30) == 0  # outside


@pytest.mark.parametrize("environ, message", [
    ({"JIT_DOCS_REMEASURE": "true"}, "JIT_DOCS_REMEASURE must be 0 or 1, not 'true'"),
    ({"JIT_DOCS_QUICK": "yes"}, "JIT_DOCS_QUICK must be 0 or 1"),
    ({"JIT_DOCS_TIMEOUT": "-3"}, "JIT_DOCS_TIMEOUT must be a positive number"),
    ({"JIT_DOCS_TIMEOUT": "soon"}, "JIT_DOCS_TIMEOUT must be a positive number"),
])
def test_bad_option_values_are_explained(environ, message):
    with pytest.raises(SnippetRunError, match=message):
        options(environ)
    assert options({"JIT_DOCS_QUICK": "1"}) == {"quick": True, "remeasure": False, "timeout": 600.0}


def test_only_quick_mode_shares_the_cores():
    assert snippet_runs.runs_at_once(quick=False) == 1  # full size: measurements never compete
    assert snippet_runs.runs_at_once(quick=True) == (os.cpu_count() or 1)


def test_quick_mode_runs_snippets_side_by_side_and_keeps_their_order(project):
    """Two toy snippets that each wait until both are running: only side by side do they
    finish (within the timeout); results come back in the order asked."""
    started = project / "started"
    started.mkdir()
    waits = ("import pathlib, time\nmine = pathlib.Path({started!r}) / NAME\nmine.touch()\n"
             "while len(list(mine.parent.iterdir())) < 2:\n    time.sleep(0.01)\n")
    for name in ("first", "second"):
        (project / "snippets" / f"{name}.py").write_text(
            f"NAME = {name!r}\nVALUE = {name!r}\n" + waits.format(started=str(started)) + WRITER)
    paths = snippet_runs.project_paths(project, quick=True)
    paths["cache_root"] = project / "cache"
    results, _, _ = snippet_runs.results_for(["second", "first"], workers=2, timeout=30,
                                             log=lambda _: None, **paths)
    assert [r["value"] for r in results.values()] == ["second", "first"]


def test_side_by_side_raises_the_first_failure_and_stops_the_others(project):
    pid_file = project / "slow.pid"
    (project / "snippets" / "slow.py").write_text(
        f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n")
    (project / "snippets" / "broken.py").write_text(
        f"import os, time\nwhile not os.path.exists({str(pid_file)!r}):\n    time.sleep(0.01)\n"
        "raise SystemExit(3)\n")
    paths = snippet_runs.project_paths(project, quick=True)
    paths["cache_root"] = project / "cache"
    with pytest.raises(SnippetRunError, match="broken.py failed with exit code 3"):
        snippet_runs.results_for(["slow", "broken"], workers=2, timeout=30, log=lambda _: None, **paths)
    with pytest.raises(ProcessLookupError):  # the slow one was killed, not left running
        os.kill(int(pid_file.read_text()), 0)


READER = """
import argparse, json, pathlib
def shared(name, quick):  # as snippets/measurement.py's: the build hands over its folder
    return json.loads((args.reads / name / "results.json").read_text())["value"]
parser = argparse.ArgumentParser()
parser.add_argument("--out", type=pathlib.Path)
parser.add_argument("--reads", type=pathlib.Path)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()
args.out.mkdir(parents=True)
(args.out / "results.json").write_text(json.dumps({"value": shared("toy", True) + 1}))
"""


def test_a_snippet_reads_another_ones_results_and_is_measured_again_when_they_change(project):
    (project / "snippets" / "reader.py").write_text(READER)
    assert snippet_runs.reads(project / "snippets" / "reader.py") == ["toy"]
    paths = snippet_runs.project_paths(project, quick=True)
    paths["cache_root"] = project / "cache"
    for workers in (1, 2):  # in the order listed, or in waves side by side
        results, _, _ = snippet_runs.results_for(["toy", "reader"], workers=workers, timeout=30,
                                                 log=lambda _: None, **paths)
        assert results["reader"]["value"] == results["toy"]["value"] + 1 == 2
    (project / "snippets" / "helper.py").write_text("VALUE = 5\n")  # toy measures anew:
    log = []
    results, _, _ = snippet_runs.results_for(["toy", "reader"], timeout=30, log=log.append, **paths)
    assert results["reader"]["value"] == 6  # ... and so does the snippet reading it
    assert any("reader: measuring (changed: " in line and "; reads;" in line for line in log), log


def test_a_snippet_listed_before_the_one_it_reads_is_explained(project):
    (project / "snippets" / "reader.py").write_text(READER)
    assert snippet_runs.in_waves(["toy", "reader", "helper"], project / "snippets") == [
        ["toy", "helper"], ["reader"]]
    with pytest.raises(SnippetRunError, match="reads the results of toy: list each before it"):
        snippet_runs.in_waves(["reader", "toy"], project / "snippets")
