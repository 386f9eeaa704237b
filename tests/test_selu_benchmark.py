"""snippets/selu_benchmark.py: what the SELU page relies on, and its verdicts from data."""

import copy

import jax.numpy as jnp
import pytest

from measurement import MOVED, DocumentationMismatch, processes_apart
from selu_benchmark import (PUBLISHED, WAYS, check_int32_conversions, cores_busy, report,
                            xla_threads)


def _t(seconds):
    return {"median": seconds, "q1": seconds * 0.95, "q3": seconds * 1.05, "best": seconds * 0.9,
            "samples": [seconds] * 4, "number": 1, "processes": [seconds * 0.97, seconds * 1.02]}


def _check(moved=False, kept=True, by=1.0):
    state = {"python_loop": 1e-4, "tiny_jit_call": 4e-6, "tiny_numpy_call": 7e-7}
    end = {**state, "tiny_jit_call": state["tiny_jit_call"] * by}
    return {"start": state, "end": end, "moved": moved, "kept": kept}


def sample_data(jit=(10e-6, 30e-6, 150e-6), eager=(100e-6, 150e-6, 600e-6),
                numpy=(12e-6, 40e-6, 700e-6)):
    """Data as measure(quick=True) writes it, at three sizes, n = 10**5."""
    ns = [10**3, 10**4, 10**5]
    scaling = {"n": ns, "xla_threads": [1, 1, 2], "jit": [_t(s) for s in jit],
               "eager": [_t(s) for s in eager], "numpy": [_t(s) for s in numpy],
               "scale_jit": [_t(s / 2) for s in jit]}
    return {"n": 10**5, "repeats": 5, "processes": 2, "checks": [_check(by=1.46), _check()],
            "docs": {w: copy.deepcopy(scaling[w][-1]) for w in WAYS},
            "one": {"eager": _t(40e-6), "jit": _t(4e-6), "numpy": _t(5e-6)},
            "small": {"n": [1, 10, 100], "jit": [_t(4e-6), _t(4e-6), _t(4.1e-6)]},
            "scaling": scaling, "threads": {"xla": 2, "cores_busy": {"eager": 1.2, "jit": 1.9, "numpy": 1.0}},
            # the same values made positive: NumPy 4x faster without random signs, jit alike
            "positive": {"numpy": _t(numpy[-1] / 4), "jit": _t(jit[-1])},
            "first_call": {"trace_and_lower": 0.01, "compile": 0.03, "first_execution": 5e-4,
                           "total": _t(0.041), "eager_first_call": _t(0.2), "eager_compilations": 7,
                           "repeats": 2, "sizes": {"first": [_t(0.041)] * 3, "compiling": [_t(0.04)] * 3}}}


def test_threads_are_read_from_the_optimized_program():
    assert xla_threads(jnp.ones(1000)) == 1  # too small to split
    assert xla_threads(jnp.ones(1_000_000)) >= 1


def test_cores_busy_counts_one_thread_for_pure_python():
    assert 0 <= cores_busy(lambda: sum(range(1000)), seconds=0.01) <= 1.5  # one thread


def test_the_int32_conversions_the_page_describes_are_a_fact(monkeypatch):
    check_int32_conversions()  # raises if JAX traces int32 SELU otherwise
    import selu_benchmark

    monkeypatch.setattr(selu_benchmark, "selu", lambda x: x.astype(jnp.float32) > 0)
    with pytest.raises(DocumentationMismatch, match="selu.int32_conversions"):
        check_int32_conversions()


def test_verdicts_follow_the_numbers_whichever_way_they_fall():
    v = report(sample_data()).verdicts
    assert v["jit_vs_eager"]["winner"] == "jit" and v["jit_vs_eager"]["kind"] == "faster"
    assert v["numpy_vs_jit_smallest"]["kind"] == "close"  # 12 against 10 µs
    # Another CPU: a jitted call at n = 1,000 costs 50 µs, NumPy 6 µs (NOTES.md)
    v = report(sample_data(jit=(50e-6, 60e-6, 150e-6), numpy=(6e-6, 40e-6, 700e-6))).verdicts
    assert v["numpy_vs_jit_smallest"]["winner"] == "numpy" and v["numpy_vs_jit_smallest"]["ratio"] > 8
    v = report(sample_data(jit=(10e-6, 30e-6, 152e-6), eager=(100e-6, 150e-6, 150e-6))).verdicts
    assert v["eager_vs_jit_largest"]["kind"] == "same"


def test_the_headline_and_the_scaling_row_are_one_measurement():
    data = sample_data()
    tables = report(data).tables
    normal_row = tables["headline"].rows[1]
    assert normal_row[2] == {"timing": [150e-6, 150e-6 * 0.95, 150e-6 * 1.05]}  # the scaling table's n = 10**5
    assert tables["scaling"].rows[-1][2] == normal_row[2]


def test_published_figures_are_quoted_with_their_source():
    rows = report(sample_data()).tables["published"].rows
    assert [r[0] for r in rows] == [{"word": "jax101"}, {"word": "post"}, {"word": "this_build", "fields": {"n": 10**5}}]
    assert rows[0][1] == {"seconds": PUBLISHED["jax101"][0]} and rows[1][2] == {"seconds": 0.15e-3}
    # the best is the least of every sample the processes took together
    assert rows[2][4] == {"word": "best_of", "fields": {"samples": 4, "processes": 2}}
    assert "best of 4 samples in 2 processes" in " ".join(rendered(sample_data())["docs"].split())


def _swap(a, b):
    def change(data):
        s = data["scaling"]
        s[a], s[b] = s[b], s[a]
        data["docs"][a], data["docs"][b] = data["docs"][b], data["docs"][a]
        return data
    return change


def _threads(count):
    def change(data):
        data["threads"]["xla"] = count
        data["scaling"]["xla_threads"] = [count] * len(data["scaling"]["n"])
        return data
    return change


def _numpy_faster_everywhere(data):
    s = data["scaling"]
    s["numpy"] = [{k: v / 10 if isinstance(v, float) else v for k, v in t.items()} for t in s["jit"]]
    data["docs"]["numpy"] = copy.deepcopy(s["numpy"][-1])
    return data


def _remeasured(data):  # a process whose machine check moved, measured again
    data["checks"] = [_check(moved=True, kept=False), *data["checks"]]
    return data


def _moved(data):  # two processes moved: one measured again, out of attempts the other kept
    data["checks"] = [_check(moved=True, kept=False), _check(moved=True, kept=True, by=2.5),
                      _check()]
    return data


def _spare_moved(data):  # the process that measured again moved too: kept as measured
    data["checks"] = [_check(moved=True, kept=False), _check(), _check(moved=True, by=2.4)]
    return data


def _scaled(timing, factor):  # a timing's seconds times factor, its spread kept relative
    return {k: [x * factor for x in v] if k in ("samples", "processes") else
            v * factor if k in ("median", "q1", "q3", "best") else v for k, v in timing.items()}


def _numpy_wins_most_by_fixed_cost(data):
    """NumPy's largest win at the largest n, where a one-element jitted call is most of jit's call."""
    s, one = data["scaling"], data["one"]
    s["numpy"] = [_scaled(j, 1 / (i + 2)) for i, j in enumerate(s["jit"])]
    one["jit"] = _scaled(one["jit"], 0.6 * s["jit"][-1]["median"] / one["jit"]["median"])
    return data


def _jit_loop_no_dearer(data):
    """NumPy's largest win at the smallest n, where jit's loop cost less per element than
    NumPy's (NumPy's own call cost nearly all loop); a one-element eager call most of eager's."""
    s, one = data["scaling"], data["one"]
    s["numpy"] = [{**_scaled(j, 1 / f), "q1": j["median"] / f, "q3": j["median"] / f}
                  for j, f in zip(s["jit"], [1.6] + [1.5] * (len(s["jit"]) - 1))]
    one["jit"] = _scaled(one["jit"], 0.42 * s["jit"][0]["median"] / one["jit"]["median"])
    one["numpy"] = _scaled(one["numpy"], 0.01)
    one["eager"] = _scaled(one["eager"], 0.9 * s["eager"][0]["median"] / one["eager"]["median"])
    return data


def _processes(at, factor):
    """Each way's processes at the sizes `at` (indices) `factor` apart around its median; 1: all agree."""
    def change(data):
        s = data["scaling"]
        for way in (*WAYS, "scale_jit"):
            for i in range(len(s["n"])):
                if factor == 1 or i in at or i - len(s["n"]) in at:
                    m = s[way][i]["median"]
                    s[way][i]["processes"] = [m / factor ** 0.5, m * factor ** 0.5]
        return data
    return change


# The ways other machines differ (tests/sitebuild/test_perturbations.py re-renders every page).
PERTURBATIONS = {"the processes agree at every n": _processes((), 1),
                 "the processes disagree at the smallest and the largest n": _processes((0, -1), 1.5 * MOVED),
                 "a process measured again": _remeasured, "a kept process moved": _moved,
                 "the process that measured again moved too": _spare_moved,
                 "two processes measured again": lambda d: _remeasured(_remeasured(d)),
                 "NumPy faster than jit at every n": _numpy_faster_everywhere,
                 "NumPy wins most above the smallest n, by jit's fixed cost": _numpy_wins_most_by_fixed_cost,
                 "jit's loop no dearer per element than NumPy's where NumPy wins": _jit_loop_no_dearer,
                 "eager faster than jit": _swap("eager", "jit"),
                 "XLA threads 1": _threads(1), "XLA threads 16": _threads(16),
                 "no XLA:CPU thread plan (another backend)": _threads(None)}


def test_without_a_thread_plan_no_table_shows_xla_threads():
    """A GPU writes no XLA:CPU plan (xla_threads gives None): the tables leave the threads out."""
    tables = report(_threads(None)(sample_data())).tables
    assert tables["headline"].columns[2] == "jit_on_device"
    assert [row[0] for row in tables["threads"].rows] == [{"word": "cores_busy"}]
    assert "xla_threads" not in tables["scaling"].columns
    assert all(len(row) == len(tables["scaling"].columns) for row in tables["scaling"].rows)
    planned = report(sample_data()).tables
    assert planned["headline"].columns[2] == "jit" and "xla_threads" in planned["scaling"].columns


def rendered(data, fusions=1):
    """Both editions of the SELU page from `data` (and the compilers chapter's listing with
    that many fusions), on one line each."""
    import selu_benchmark as sb
    from measurement import results_of
    from project import rendered_page

    env = {"cpu": "CPU", "cores": 2, "python": "3.13.0", "backend": "cpu", "device": "cpu",
           "date": "2026-12-05", "libraries": {"jax": "0.12.0.1"}}
    results = {"selu_benchmark": {"environment": env, "quick": True,
                                  **results_of(data, sb.report(data), sb.FIGURES)},
               "compilers_benchmark": {"environment": env, "quick": True,
                                       "data": {"listing": {"fusions": [{"kind": "kLoop"}] * fusions}}}}
    return rendered_page("selu.md", results)


def test_one_fused_loop_is_said_only_where_xla_made_one_fusion():
    one, none = rendered(sample_data()), rendered(sample_data(), fusions=0)
    assert "runs the one fused loop it produces" in one["docs"] and "루프 하나를 실행한다" in one["docs-ko"]
    assert "runs the program it produces" in none["docs"] and "루프 하나" not in none["docs-ko"]


def test_where_numpy_wins_the_page_says_whether_jits_fixed_cost_explains_it():
    """Fixed cost explains NumPy's win only where a one-element jitted call is half of the
    jitted call or more at the size NumPy won most."""
    data = sample_data(jit=(30e-6, 80e-6, 150e-6), numpy=(10e-6, 20e-6, 700e-6))  # 3x, then 4x
    pages = rendered(data)
    assert "NumPy won most at n = 10,000 (20 µs against 80 µs). A one-element jitted call took 4 µs" in pages["docs"]
    assert "there was not fixed cost: jit's loop cost more per element than NumPy's" in pages["docs"]
    assert "NumPy가 가장 크게 이긴 곳은 n = 10,000이다" in pages["docs-ko"] and "NumPy보다 길었다" in pages["docs-ko"]
    fixed = rendered(_numpy_wins_most_by_fixed_cost(sample_data()))
    assert "There the jitted call's fixed cost" in fixed["docs"] and "고정 비용(작업을" in fixed["docs-ko"]
    cheap = rendered(_jit_loop_no_dearer(sample_data()))
    assert "NumPy won most" not in cheap["docs"] and "was not fixed cost (" in cheap["docs"]
    assert "NumPy보다 길었다" not in cheap["docs-ko"]
    even = rendered(sample_data(numpy=(30e-6, 80e-6, 150e-6)))  # NumPy never won
    assert not any(w in even["docs"] for w in ("NumPy won most", "one-element jitted", "There the jitted"))


def test_what_numpys_time_is_made_of_follows_the_signs_measurement():
    """The page explains jit against NumPy by what the positive input measured: branching
    when the signs cost NumPy, memory passes when they did not."""
    data = sample_data()
    assert report(data).verdicts["numpy_signs"]["winner"] == "positive"
    assert report(data).verdicts["jit_signs"]["kind"] == "same"
    branching = rendered(data)
    data["positive"]["numpy"] = copy.deepcopy(data["scaling"]["numpy"][-1])
    passes = rendered(data)
    assert "branch prediction" in branching["docs"] and "branch prediction" not in passes["docs"]
    assert "분기 예측" in branching["docs-ko"] and "분기 예측" not in passes["docs-ko"]
    assert "its passes over memory" in passes["docs"]


def test_the_signs_sentence_credits_jit_only_where_jit_beat_numpy():
    data = sample_data(numpy=(12e-6, 40e-6, 100e-6))  # NumPy faster than jit at n
    assert report(data).verdicts["numpy_vs_jit_normal"]["winner"] == "numpy"
    pages = rendered(data)
    assert "branch prediction" in pages["docs"] and "what jit saves" not in pages["docs"]
    assert "분기 예측" in pages["docs-ko"] and "아끼는 것" not in pages["docs-ko"]


def test_the_kept_process_that_moved_most_is_named_with_the_call_that_moved():
    """kept_moved: the spare (measured again, appended last) alone, or another process;
    the call of its check that moved most, either way, and by how much."""
    assert report(sample_data()).verdicts["kept_moved"] == {"kind": "none"}
    spare = report(_spare_moved(sample_data())).verdicts["kept_moved"]
    assert spare == {"kind": "spare", "call": "tiny_jit_call", "start": 4e-6,
                     "end": pytest.approx(4e-6 * 2.4), "factor": pytest.approx(2.4)}
    other = report(_moved(sample_data())).verdicts["kept_moved"]
    assert other["kind"] == "other" and other["factor"] == pytest.approx(2.5)
    data = _spare_moved(sample_data())
    data["checks"][-1]["end"]["python_loop"] = data["checks"][-1]["start"]["python_loop"] / 3
    faster = report(data).verdicts["kept_moved"]  # 3x faster beats 2.4x slower
    assert (faster["call"], faster["factor"]) == ("python_loop", pytest.approx(3))
    data["checks"][1].update(moved=True)  # an original process kept moved too
    assert report(data).verdicts["kept_moved"]["kind"] == "other"


def test_the_page_says_how_the_machine_state_held_and_how_far_processes_differed():
    steady, again, moved = (rendered(f(sample_data())) for f in (lambda d: d, _remeasured, _moved))
    assert "moved by up to 1.5× within a process, under the 2× that counts as a move" in steady["docs"]
    assert "한 프로세스 안에서 최대 1.5배 움직였다" in steady["docs-ko"]
    assert "moved by more than 2× in one process: it was measured" in again["docs"]
    assert ("moved by more than 2× in 2 processes; one was measured again, and another moved by 2.5× "
            "(a near-empty jitted call went from 4 µs to 10 µs); with no spare run left, its numbers") in moved["docs"]
    spare = rendered(_spare_moved(sample_data()))
    assert ("moved by more than 2× in one process, which was measured again; the new process moved too, "
            "by 2.4× (a near-empty jitted call went from 4 µs to 9.6 µs)") in spare["docs"]
    assert "그 새 프로세스에서도 2.4배 달라졌고(거의 아무 일도 하지 않는 jit한 호출이 4 µs에서 9.6 µs로)" in spare["docs-ko"]
    assert "프로세스 2개에서 2배보다 크게 달라졌다. 그중 하나는 다시 쟀고, 다른 하나는 2.5배" in moved["docs-ko"]
    assert "프로세스 1개에서 2배보다 크게 달라져" in again["docs-ko"]
    twice = rendered(_remeasured(_remeasured(sample_data())))
    assert "moved by more than 2× in 2 processes: they were measured" in twice["docs"]
    assert "Each process's own median for `jax.jit` at this size lay between 145 µs and 153 µs" in steady["docs"]


def test_every_chapter_shows_the_one_selu_measurement(built_site):
    """Issue 44: the SELU timings of the interpreters, compilers and jit chapters are the
    SELU chapter's, read from its results, not measured again in other company."""
    from project import quick_results

    sel = quick_results("selu_benchmark")["data"]
    s, at = sel["scaling"], sel["scaling"]["n"].index(sel["n"])
    assert sel["processes"] >= 2 and all(len(t["processes"]) == sel["processes"] for t in s["jit"])
    ladder = quick_results("interpreters_benchmark")["data"]
    assert ladder["n"] == sel["n"]
    assert {k: ladder["ladder"][k] for k in ("numpy", "eager", "jit")} == {
        k: s[k][at] for k in ("numpy", "eager", "jit")}
    assert {k: ladder["one"][k] for k in ("numpy", "eager", "jit")} == sel["one"]
    assert ladder["small"]["jit"] == [*sel["small"]["jit"][1:], s["jit"][0]]
    traffic = quick_results("compilers_benchmark")["data"]["traffic"]
    assert traffic["n"] == s["n"] and all(traffic[k] == s[k] for k in ("eager", "jit", "scale_jit"))
    be = quick_results("jit_benchmark")["data"]["break_even"]
    assert be["n"] == s["n"] and all(be[k] == s[k] for k in ("eager", "jit", "numpy"))
    assert be["first"] == sel["first_call"]["sizes"]["first"]
    # ... and the pages print them: the jitted call at the headline's size, on every page
    from measurement import fmt_seconds

    shown = fmt_seconds(s["jit"][at]["median"])
    for page in ("selu", "interpreters", "compilers", "jit"):
        for site in (built_site, built_site / "ko"):
            assert shown in (site / page / "index.html").read_text(encoding="utf-8"), (site, page)


def test_the_versions_reason_says_whether_dispatch_or_work_sets_the_eager_jit_ratio():
    """A one-element eager call under 1 / CLOSE of the eager call at n: the work sets the
    ratio (history's steady calls); at or above it, dispatch (history's dispatch)."""
    data = sample_data()  # one-element eager call 40 µs, eager at n 600 µs
    assert report(data).verdicts["eager_dispatch"] == {"kind": "work", "share": 40e-6 / 600e-6}
    work = rendered(data)
    assert "A one-element eager call took 6.7 % of the eager call's time on `jnp.arange(100000)`" in work["docs"]
    assert "`jnp.arange(100000)`에 대한 즉시 실행 호출 시간의 6.7%가" in work["docs-ko"]  # the verdict's input
    assert "eager JAX's work, not dispatch" in work["docs"] and "history.md#steady-calls" in work["docs"]
    assert "작업에 좌우된다" in work["docs-ko"] and "history.md#steady-calls" in work["docs-ko"]
    data["one"]["eager"] = _t(400e-6)
    assert report(data).verdicts["eager_dispatch"]["kind"] == "dispatch"
    dispatch = rendered(data)
    assert "67 % of the eager call's time on `jnp.arange(100000)`, so the eager/jit ratio rests on eager dispatch" in dispatch["docs"]
    assert "history.md#dispatch" in dispatch["docs"] and "디스패치 비용에 좌우된다" in dispatch["docs-ko"]


def test_processes_apart_by_more_than_moved_are_flagged_with_their_medians():
    """A row whose processes' own medians lie more than MOVED apart pools two states of the
    machine: the verdict names its size, the way apart most, its medians and the factor."""
    data = sample_data()
    assert report(data).verdicts["processes_apart"]["kind"] == "together"
    s = data["scaling"]
    s["jit"][-1]["processes"] = [100e-6, 100e-6 * MOVED * 1.01]  # just over MOVED
    s["eager"][-1]["processes"] = [500e-6, 500e-6 * MOVED * 0.99]  # just under it
    s["numpy"][0]["processes"] = [10e-6, 10e-6 * MOVED]  # MOVED itself: not over
    v = report(data).verdicts["processes_apart"]
    assert v["kind"] == "apart" and v["by"] == MOVED and v["sizes"] == [10**5] and v["indices"] == [2]
    assert v["apart"] == [{"n": 10**5, "index": 2, "way": "jit", "low": 100e-6,
                           "high": 100e-6 * MOVED * 1.01, "factor": pytest.approx(MOVED * 1.01)}]
    assert v["factors"]["eager"][-1] == pytest.approx(MOVED * 0.99)
    # a timing from one process (or none listed) is its own median: nothing apart
    assert processes_apart({"jit": [{"median": 1.0}, {"median": 2.0, "processes": [2.0]}]},
                           [1, 2])["kind"] == "together"


def test_the_page_says_where_the_processes_disagreed_and_nothing_where_they_agreed():
    agree = rendered(_processes((), 1)(sample_data()))
    assert "disagreed" not in agree["docs"] and "어긋났다" not in agree["docs-ko"]
    apart = rendered(_processes((0, -1), 3.0)(sample_data()))
    assert "There the processes disagreed (eager JAX's medians:" in apart["docs"]
    assert "At n = 1,000 the processes disagreed" in apart["docs"]
    assert "3× apart), so that row pools two machine states, ratios included." in apart["docs"]
    assert "이 크기에서는 프로세스끼리 어긋났다" in apart["docs-ko"] and "n = 1,000에서는 프로세스끼리 어긋났다" in apart["docs-ko"]


def test_xla_counts_selus_flops_and_the_machine_checks_call_is_handed_off():
    """The flop counts the pages set against XLA:CPU's inline threshold: SELU's grow with
    n, one program per size; the machine check's call is not under the threshold."""
    import selu_benchmark as bench
    from selu import selu_jit

    counts = [bench.xla_flops(selu_jit, jnp.ones(n, jnp.float32)) for n in (10, 1000)]
    assert counts[1] == 100 * counts[0] > 0
    bench.check_machine_check_handed_off()  # a fact: raises where it no longer holds
