"""snippets/measurement.py: statistics, formatting and the --out contract."""

import functools
import json
import operator
import platform
import subprocess
import sys

import pytest

from measurement import (DocumentationMismatch, Report, Timing, fact, fmt_ratio, fmt_seconds, machine_check, main,
                         log_log_axes, markdown_table, ratio_range, relative_paths, time_call,
                         time_calls)
import measurement
from project import ROOT


def test_timing_statistics():
    t = Timing([4.0, 1.0, 3.0, 2.0, 5.0], number=1)
    assert (t.median, t.q1, t.q3, t.best) == (3.0, 2.0, 4.0, 1.0)
    assert t.spread == pytest.approx(2 / 3)


def test_time_call_warms_up_and_takes_the_samples_asked_for():
    calls = []
    t = time_call(lambda: calls.append(1), repeats=7, warmup=3, min_sample_s=0.0)
    assert len(t.samples) == 7
    assert len(calls) == 3 + t.number + 7 * t.number  # warm-up, calibration, samples


def test_time_calls_takes_the_samples_in_turns():
    order = []
    timed = time_calls({"a": lambda: order.append("a"), "b": lambda: order.append("b")},
                       repeats=4, warmup=1, min_sample_s=0.0)
    assert {key: (len(t.samples), t.number) for key, t in timed.items()} == {"a": (4, 1), "b": (4, 1)}
    # warm-up and calibration of each, then one sample of each per round
    assert order == ["a", "a", "b", "b"] + ["a", "b"] * 4


@pytest.mark.parametrize("durations, samples", [([2.0], 5), ([1.0, 3.0], 9)])
def test_time_calls_with_min_repeats_stops_once_every_spread_settles(
        monkeypatch, durations, samples):
    import measurement

    clock = [0.0]
    monkeypatch.setattr(measurement.time, "perf_counter", lambda: clock[0])
    steps = iter(durations * 100)  # a fake clock: each call takes the next duration

    def call():
        clock[0] += next(steps)
    timed = time_calls({"f": call}, repeats=9, warmup=0, min_sample_s=0.0, min_repeats=5)
    # the same duration every time settles at once; 1 s, 3 s, 1 s ... never does
    assert len(timed["f"].samples) == samples


def test_machine_check_times_three_tiny_calls():
    check = machine_check()
    assert set(check) == {"python_loop", "tiny_jit_call", "tiny_numpy_call"}
    assert all(seconds > 0 for seconds in check.values())  # timings are reported, never bounded


def test_quartiles_interpolate_between_samples_and_a_single_sample_has_no_spread():
    t = Timing([1.0, 2.0, 3.0, 4.0], number=1)
    assert (t.q1, t.median, t.q3) == (1.75, 2.5, 3.25)  # as numpy.percentile gives them
    one = Timing([0.5], number=1)
    assert (one.q1, one.median, one.q3, one.spread) == (0.5, 0.5, 0.5, 0.0)


def test_relative_paths_cut_the_snippets_folder_or_the_one_given():
    here = f"{ROOT / 'snippets'}/"
    assert relative_paths(f'File "{here}jit.py", line 12') == 'File "jit.py", line 12'
    assert relative_paths("/tmp/x1/cache-0 and /tmp/x1", "/tmp/x1", "<tmp>") == \
        "<tmp>/cache-0 and <tmp>"


def test_ratio_range_spans_both_spreads():
    slow, fast = Timing([9.0, 10.0, 11.0], 1), Timing([1.0, 2.0, 3.0], 1)
    mid, low, high = ratio_range(slow, fast)
    assert mid == 5.0 and low == pytest.approx(9.5 / 2.5) and high == pytest.approx(10.5 / 1.5)


@pytest.mark.parametrize("seconds, text", [(2.5, "2.5 s"), (0.00205, "2.05 ms"),
                                           (150e-6, "150 µs"), (3e-9, "3 ns"),
                                           (0.0009996, "1 ms"), (999.6e-6 / 1e3, "1 µs"),
                                           (1234.5, "1,230 s")])
def test_fmt_seconds(seconds, text):
    assert fmt_seconds(seconds) == text


def test_fmt_ratio_and_table():
    assert fmt_ratio(3.14159) == "3.1×" and fmt_ratio(13.7) == "14×"
    assert fmt_ratio(1.03) == "1.03×" and fmt_ratio(0.13) == "0.13×"  # never "within 1×"
    assert fmt_ratio(1.123) == "1.12×" and fmt_ratio(1.2) == "1.2×"  # past SAME, not "1.1×"
    assert fmt_ratio(1.10) == "1.1×"  # SAME itself
    # beside SAME or CLOSE (= MOVED), never printed as the threshold: "1.97×, under the 2×"
    assert [fmt_ratio(r) for r in (1.94, 1.97, 1.999, 2.0, 2.0001, 2.04, 2.06)] == [
        "1.9×", "1.97×", "1.999×", "2×", "2.0001×", "2.04×", "2.1×"]
    assert [fmt_ratio(r) for r in (1.098, 1.1002, 1.104, 1.123)] == [
        "1.098×", "1.1002×", "1.104×", "1.12×"]
    assert markdown_table(["a", "b"], [[1, 2]]) == "| a | b |\n|---|---|\n| 1 | 2 |\n"


def test_main_writes_data_tables_and_verdicts_not_words(tmp_path, capsys):
    from measurement import Table, compare, seconds

    def measure(quick):
        fact("test.always", True)
        return {"a": 2e-3, "b": 1e-3, "libraries": {"torch": "2.13.0"}}

    def report(data):
        return Report(tables={"t": Table(["what", "time"], [["a", seconds(data["a"])]])},
                      verdicts={"v": compare(data["a"], data["b"], ("a", "b"), ("a", "b"))})

    results = main(measure, report, {"f": lambda data, words: None}, ["--quick", "--out", str(tmp_path)])
    stored = json.loads((tmp_path / "results.json").read_text())
    assert stored == json.loads(json.dumps(results))
    assert stored["quick"] is True and set(stored["machine_check"]) == {"start", "end"}
    assert stored["verdicts"]["v"]["winner"] == "b" and stored["figures"] == ["f"]
    assert stored["tables"]["t"] == {"columns": ["what", "time"], "rows": [["a", {"seconds": 2e-3}]], "fields": {}}
    assert "test.always" in stored["facts"]
    assert stored["environment"]["libraries"]["torch"] == "2.13.0"  # every library named in the stamp
    assert {"jax", "jaxlib", "numpy", "backend", "device"} <= set(stored["environment"]) | set(
        stored["environment"]["libraries"])
    assert "| a | 2 ms |" in capsys.readouterr().out  # the table is printed for the reader


def test_compare_words_nothing_and_holds_its_thresholds():
    from measurement import CLOSE, SAME, compare

    t = lambda m: {"median": m, "q1": m * 0.99, "q3": m * 1.01}  # noqa: E731
    assert compare(t(3.0), t(1.0), ("x", "y"))["kind"] == "faster"
    v = compare(t(1.0), t(1.5), ("x", "y"))
    assert (v["kind"], v["winner"], v["loser"]) == ("close", "x", "y") and v["ratio"] == 1.5
    assert compare(t(1.0), t(1.05), ("x", "y"))["kind"] == "same"  # within SAME
    wide = {"median": 1.3, "q1": 0.8, "q3": 1.6}
    assert compare(wide, t(1.0))["kind"] == "same"  # the run's spreads cross parity
    assert (SAME, CLOSE) == (1.10, 2.0)


def test_trend_reads_rises_falls_flat_or_mixed():
    from measurement import trend

    assert trend([1, 2, 4])["kind"] == "rises" and trend([4, 2, 1])["kind"] == "falls"
    assert trend([1, 1.01, 1.02])["kind"] == "flat" and trend([1, 3, 1])["kind"] == "mixed"


def test_a_fact_that_fails_stops_the_build_with_its_id():
    with pytest.raises(DocumentationMismatch, match="test.never"):
        fact("test.never", False, "detail")


def test_log_log_axes_finishes_a_curve_over_sizes():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([1, 10, 100], [1e-3, 1e-2, 1e-1], label="a curve")
    log_log_axes(ax, "n", "seconds", "a title")
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("n", "seconds", "a title")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a curve"]
    plt.close(fig)


FREED_AFTER_16_MIB = """
import ctypes, sys
import numpy as np
from measurement import keep_freed_memory

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks "
        "keepcost").split()]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "keep":
    assert keep_freed_memory() == {"glibc_mmap_threshold_mib": 64, "glibc_trim_threshold_mib": 256}
block = np.ones(16 << 20, dtype=np.uint8)  # touched: its pages are real
del block
print(libc.mallinfo2().fordblks)  # free bytes the heap holds for the next allocation
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_keep_freed_memory_keeps_a_freed_block_for_reuse():
    def free_bytes_after(mode):
        done = subprocess.run([sys.executable, "-c", FREED_AFTER_16_MIB, mode],
                              capture_output=True, text=True, check=True, cwd=ROOT / "snippets")
        return int(done.stdout)

    assert free_bytes_after("default") < 16 << 20  # glibc gave the block back
    assert free_bytes_after("keep") >= 16 << 20


def test_pooled_takes_every_process_samples_and_keeps_each_median():
    runs = [Timing([1.0, 2.0, 3.0], 4).as_dict(), Timing([5.0, 6.0, 7.0], 4).as_dict()]
    both = measurement.pooled(runs)
    assert both["median"] == 4.0 and both["samples"] == [1.0, 2.0, 3.0, 5.0, 6.0, 7.0]
    assert both["processes"] == [2.0, 6.0] and both["number"] == 4


@pytest.mark.parametrize("moved, kept", [
    ([True, False, False], [False, True, True]),  # measured again once
    ([True] * 3, [False, True, True]),  # one spare attempt only: kept, and says so
])
def test_in_processes_measures_again_when_the_machine_state_moved(monkeypatch, moved, kept):
    states = iter(moved)
    monkeypatch.setattr(measurement, "state_moved", lambda before, after: next(states))
    runs = measurement.in_processes(functools.partial(operator.add, 1), True, 2)
    assert runs["processes"] == [2, 2]  # measure_once(quick=True), in fresh processes
    assert [c["moved"] for c in runs["checks"]] == moved
    assert [c["kept"] for c in runs["checks"]] == kept
    assert set(runs["checks"][0]["start"]) == {"python_loop", "tiny_jit_call", "tiny_numpy_call"}


def test_each_process_is_checked_after_it_in_a_fresh_process(monkeypatch):
    started = []

    def new_process(function, *args):  # each check's result names the process it ran in
        started.append(function.__name__)
        check = dict.fromkeys(("python_loop", "tiny_jit_call", "tiny_numpy_call"), len(started))
        return {"start": check, "data": None} if function is measurement.checked else check

    monkeypatch.setattr(measurement, "in_a_new_process", new_process)
    monkeypatch.setattr(measurement, "state_moved", lambda before, after: False)
    runs = measurement.in_processes(functools.partial(operator.add, 1), True, 2)
    assert started == ["checked", "checked", "fresh_check"]  # never inside the one that measured
    assert [(c["start"]["tiny_jit_call"], c["end"]["tiny_jit_call"]) for c in runs["checks"]] == [(1, 2), (2, 3)]


def test_the_state_moved_when_the_tiny_jitted_call_changed_speed_by_moved():
    before, moved = {"tiny_jit_call": 4e-6}, measurement.MOVED
    assert not measurement.state_moved(before, {"tiny_jit_call": 4e-6 * moved * 0.99})
    assert measurement.state_moved(before, {"tiny_jit_call": 4e-6 * moved * 1.01})
    assert measurement.state_moved(before, {"tiny_jit_call": 4e-6 / moved / 1.01})


def test_a_runs_machine_check_change_is_its_call_that_moved_most_and_none_when_quick():
    check = {"start": {"loop": 1.0, "tiny_jit_call": 4e-6},
             "end": {"loop": 1.1, "tiny_jit_call": 2e-6}}
    assert measurement.check_change({"quick": False, "machine_check": check}) == 0.5
    assert measurement.check_change({"quick": True, "machine_check": check}) is None
    assert measurement.check_change({"quick": False}) is None


def test_the_cpu_is_named_where_the_sandbox_hides_its_model(monkeypatch):
    cpuinfo = ("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 175\n"
               "model\t\t: 1\nmodel name\t: unknown\nstepping\t: unknown\n\n"
               "processor\t: 1\nmodel name\t: other\n")
    monkeypatch.setattr(measurement.Path, "read_text", lambda self, *a, **k: cpuinfo)
    assert measurement.machine()["cpu"] == "AuthenticAMD family 175 model 1 stepping unknown"
    monkeypatch.setattr(measurement.Path, "read_text", lambda self, *a, **k: "model name\t: Intel(R) Xeon(R)\n")
    assert measurement.machine()["cpu"] == "Intel(R) Xeon(R)"
    monkeypatch.setattr(measurement.Path, "read_text", lambda self, *a, **k: "model name\t: unknown\n")
    monkeypatch.setattr(measurement.platform, "processor", lambda: "unknown")  # uname -p under gVisor
    assert measurement.machine()["cpu"] == platform.machine()


def test_each_agreement_tolerance_comes_from_the_backend_that_ran():
    assert measurement.agree_within("cpu") == {"rtol": 1e-5, "atol": 1e-6}
    assert measurement.agree_within("tpu") == measurement.agree_within("gpu") == measurement.AGREE["other"]


# A build snippet's process opens no device before it starts its fresh processes: a TPU
# admits one process at a time (measurement.in_a_new_process). Run in one new process: the
# snippets that start fresh ones (in_processes, compilers' in_fresh_process, or shared()
# run alone, which measures the SELU chapter here), each until its first.
STARTS_FIRST = r"""
import importlib, sys
import measurement
from jax._src import xla_bridge

class Started(Exception):
    pass

def guard(function, *args):
    if xla_bridge.backends_are_initialized():
        sys.exit(f"{name} opened a device before it ran {function.__name__} in a new process")
    if function is measurement.fresh_check:  # main's first check: a stand-in
        return dict.fromkeys(("python_loop", "tiny_jit_call", "tiny_numpy_call"), 1e-6)
    raise Started

measurement.in_a_new_process = guard
for name in sys.argv[1:]:
    snippet = importlib.import_module(name)
    if hasattr(snippet, "in_fresh_process"):
        snippet.in_fresh_process = guard
    try:
        measurement.main(snippet.measure, snippet.report, snippet.FIGURES, ["--quick"])
    except Started:
        print(name, "started a new process first")
"""


def test_no_build_snippet_holds_a_device_while_its_fresh_processes_need_it():
    import re

    from project import build_snippets

    starts = [name for name in build_snippets() if re.search(
        r"\b(in_processes|in_fresh_process|shared)\(", (ROOT / "snippets" / f"{name}.py").read_text())]
    assert {"selu_benchmark", "compilers_benchmark", "deeponet_benchmark"} <= set(starts)
    run = subprocess.run([sys.executable, "-c", STARTS_FIRST, *starts], cwd=ROOT / "snippets",
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines() == [f"{name} started a new process first" for name in starts]
