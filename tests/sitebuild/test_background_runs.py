"""sitebuild/background_runs.py: serve's queue runs one job at a time, in order, and stops."""

import os
import sys
import threading
import time

import pytest

import snippet_runs
from background_runs import BackgroundRuns, OwnCode


@pytest.fixture
def queue(tmp_path):
    # no MkDocs here: no rebuild to wait for between jobs
    runs = BackgroundRuns(tmp_path / "serving", log=lambda message: None, rebuild_wait_s=0)
    yield runs
    runs.stop()


def wait_until(condition, timeout=10):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_jobs_run_one_at_a_time_in_the_order_asked_and_rebuild_the_site(queue):
    order, running, gate = [], [], threading.Event()

    def job(name):
        def run():
            running.append(name)
            assert len(running) == 1, "two jobs at once"
            gate.wait(5)
            order.append(name)
            running.remove(name)
        return run

    for name in ("a", "b", "c"):
        queue.want(name, {"k": 1}, job(name))
    queue.want("a", {"k": 1}, job("a"))  # asked again with the same key: nothing new
    wait_until(lambda: running == ["a"])
    assert "running now (3 still to come" in queue.status("a")
    assert queue.status("c") == "is waiting its turn (3rd in line)" and queue.busy("c")
    gate.set()
    wait_until(lambda: len(order) == 3)
    assert order == ["a", "b", "c"] and queue.status("a") is None
    changes = queue.progress_dir / "changes"  # what serve watches: 3 starts, then the end
    wait_until(lambda: changes.read_text().strip() == "4")


def test_a_failure_waits_for_a_new_key(queue):
    calls = []

    def failing():
        calls.append(1)
        raise snippet_runs.SnippetRunError("build snippet x.py failed with exit code 1.\nstderr ...")

    queue.want("x", {"k": 1}, failing)
    wait_until(lambda: queue.status("x") and queue.status("x").startswith("failed"))
    assert "exit code 1." in queue.status("x") and "stderr" not in queue.status("x")
    queue.want("x", {"k": 1}, failing)
    time.sleep(0.2)
    assert len(calls) == 1
    queue.want("x", {"k": 2}, failing)
    wait_until(lambda: len(calls) == 2)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:  # killed and reaped
        return False
    return True


def test_a_new_key_stops_the_running_job_and_stop_kills_its_process(queue, tmp_path):
    def sleeper(pid_file):  # a process that says which it is, then sleeps
        def job():
            with open(tmp_path / "out", "wb") as out:
                code = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"
                snippet_runs.run_in_group([sys.executable, "-c", code, str(pid_file)], cwd=tmp_path,
                                          stdout=out, stderr=out, timeout=60)
        return job

    def started(pid_file):
        wait_until(lambda: pid_file.exists() and pid_file.read_text())
        return int(pid_file.read_text())

    queue.want("s", {"k": 1}, sleeper(tmp_path / "first.pid"))
    first = started(tmp_path / "first.pid")
    queue.want("s", {"k": 2}, sleeper(tmp_path / "second.pid"))  # its input changed: the old run is killed, the new one queued
    wait_until(lambda: not alive(first))
    second = started(tmp_path / "second.pid")
    queue.stop()
    assert not alive(second)


def test_a_new_key_before_the_old_run_started_its_process_stops_it_too(tmp_path):
    # the worker waits for a page rebuild before a job's process starts: a newer key
    # arriving then must not let the old job start its process afterwards
    runs = BackgroundRuns(tmp_path / "serving", log=lambda message: None, rebuild_wait_s=1)
    try:
        def writer(pid_file):
            def job():
                code = "import os, sys; open(sys.argv[1], 'w').write(str(os.getpid()))"
                snippet_runs.run_in_group([sys.executable, "-c", code, str(pid_file)],
                                          cwd=tmp_path, stdout=None, stderr=None, timeout=30)
            return job

        runs.want("s", {"k": 1}, writer(tmp_path / "first.pid"))
        wait_until(lambda: (runs.status("s") or "").startswith("is running now"))
        runs.want("s", {"k": 2}, writer(tmp_path / "second.pid"))
        wait_until(lambda: (tmp_path / "second.pid").exists())
        assert not (tmp_path / "first.pid").exists(), "the stale job started its process"
    finally:
        runs.stop()


def test_own_code_names_what_changed_and_restarts_only_code_that_compiles(tmp_path):
    """serve's restart after an edit of the build's code (tests/sitebuild/test_stop_and_serve.py
    restarts a real one); a half-written file leaves serve as it is, saying what to fix."""
    (tmp_path / "sitebuild").mkdir()
    (tmp_path / "snippets").mkdir()
    module = tmp_path / "sitebuild" / "a.py"
    module.write_text("x = 1\n")
    code = OwnCode(tmp_path)
    assert code.changed() == []
    module.write_text("x = (\n")
    (tmp_path / "snippets" / "measurement.py").write_text("y = 2\n")
    assert code.changed() == ["sitebuild/a.py", "snippets/measurement.py"]
    messages = []
    problem = code.restart(code.changed(), tmp_path / "site", messages.append)
    assert problem.startswith("sitebuild/a.py does not compile") and not messages
