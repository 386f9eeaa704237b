"""snippets/training_loop_pauses_benchmark.py: what the quick build measured and logged
that docs/training-loop-pauses.md relies on, and the verdicts its report draws from the
data (no test here asserts a timing).

PERTURBATIONS: the ways another machine's data differ, for tests/sitebuild/test_perturbations.py.
"""

import copy
import re

import pytest

import training_loop_pauses_benchmark as bench
from project import quick_results
from training_loop_scenarios import STATED


def results():
    return quick_results("training_loop_pauses_benchmark")


# ---------------------------------------------------------------- other machines

def _loop(data, key):
    return data["timeline"][key]


def _swap(data, a, b):
    """Swap two timings found at dotted paths of data."""
    def parent(path):
        *head, last = path.split(".")
        node = data
        for part in head:
            node = node[part]
        return node, last
    (pa, ka), (pb, kb) = parent(a), parent(b)
    pa[ka], pb[kb] = pb[kb], pa[ka]
    return data


def _no_slower_logging(data):
    orig = _loop(data, "original")
    orig["later_logging"] = copy.deepcopy(orig["other"])
    return data


def _log_less(factor):
    def change(data):
        later = copy.deepcopy(_loop(data, "original")["later_logging"])
        for key in ("median", "q1", "q3", "best"):
            later[key] *= factor
        _loop(data, "log_less")["later_logging"] = later
        return data
    return change


def _log_less_every(every):
    """The log_less loop logging every `every` iterations (its later_logging kept)."""
    def change(data):
        _loop(data, "log_less")["log_every"] = every
        return data
    return change


def _config(**sizes):
    def change(data):
        data["config"].update(sizes)
        return data
    return change


def _in_flight(n):
    def change(data):
        data["costs"]["in_flight"] = n
        return data
    return change


def _flat_timeline(data):
    """No run-ahead: every iteration between logging iterations took a step."""
    orig, step = _loop(data, "original"), data["costs"]["step"]["median"]
    every = orig["log_every"]
    orig["seconds"] = [s if i % every == 0 else step for i, s in enumerate(orig["seconds"])]
    return data


def _slow_level(data):
    """A run ahead, then iterations of five steps each: not the chapter's two levels."""
    orig, step = _loop(data, "original"), data["costs"]["step"]["median"]
    every = orig["log_every"]
    orig["seconds"] = [s if i % every == 0 else step / 10 if i % every < every // 2 else 5 * step
                       for i, s in enumerate(orig["seconds"])]
    return data


def _level(factor):
    """A run ahead, then iterations of `factor` steps each (the chapter's two levels
    while 0.5 <= factor <= 2; the page words the level against the site's 1.1x)."""
    def change(data):
        orig, step = _loop(data, "original"), data["costs"]["step"]["median"]
        every = orig["log_every"]
        orig["seconds"] = [s if i % every == 0 else step / 10 if i % every < every // 2
                           else factor * step for i, s in enumerate(orig["seconds"])]
        return data
    return change


def _run_ahead(count):
    """After each logging iteration `count` iterations under a tenth of a step, then a
    step each: the chapter's two levels, its low one `count` iterations long."""
    def change(data):
        orig, step = _loop(data, "original"), data["costs"]["step"]["median"]
        every = orig["log_every"]
        orig["seconds"] = [s if i % every == 0 else step / 10 if i % every <= count else step
                           for i, s in enumerate(orig["seconds"])]
        return data
    return change


def _blocking_rest(factor):
    """Iterations 1 to n-1 of the blocking loop `factor` times the original's, in sum."""
    def change(data):
        blocking = data["timeline"]["blocking"] = copy.deepcopy(_loop(data, "blocking"))
        blocking["rest"] = _loop(data, "original")["rest"] * factor
        blocking["total"] = blocking["first"] + blocking["rest"]
        return data
    return change


def _full_build(step_difference, kept_alive):
    """The cases a full build runs (quick mode runs one), with these outcomes."""
    def change(data):
        sc = data["scenarios"]
        sc["kept_alive"] = kept_alive
        sc["runs"] = {key: [{"compiles": c, "cache": [1, 1 + c]} for c in
                            ([mistake] if fix is None else [fix, mistake])]
                      for key, (mistake, fix) in STATED.items()}
        sc["runs"]["numpy_batch"] = [{"compiles": 0, "cache": [1, 2]}]
        data["log"]["scenarios"] = {key: "Finished XLA compilation of jit(step) in 0.5 sec"
                                    for key in STATED}
        data["stale"] = {"before": 12.5, "after": 12.5, "fresh": [12.5, 3.25],
                         "compiles_stale": 1, "compiles_fresh": 1, "compiles_step": 0,
                         "step_difference": step_difference}
        return data
    return change


PERTURBATIONS = {
    "logging iterations no slower than the others": _no_slower_logging,
    "un-jitted evaluation faster than the jitted one":
        lambda d: _swap(d, "costs.eager_eval", "costs.jitted_eval"),
    "jitted evaluation's logging iterations slower":
        lambda d: _swap(d, "timeline.original.later_logging", "timeline.jitted_eval.later_logging"),
    "logging less often: pauses as long": _log_less(1.0),
    "logging less often: pauses 3x longer": _log_less(3.0),
    "logging less often: several later pauses": _log_less_every(50),
    "logging less often: several later pauses as long":
        lambda d: _log_less_every(50)(_log_less(1.0)(d)),
    "a DeepONet larger than the DeepONet chapter's": _config(width=4096, depth=64),
    "in flight at the CPU client's limit": _in_flight(bench.CPU_IN_FLIGHT),
    "in flight: 4": _in_flight(4),
    "in flight: over the CPU client's limit": _in_flight(64),
    "no run-ahead": _flat_timeline,
    "at the CPU client's limit, a run-ahead of 4 iterations":
        lambda d: _run_ahead(4)(_in_flight(bench.CPU_IN_FLIGHT)(d)),
    "a run-ahead, then slow iterations": _slow_level,
    "a run-ahead, then 1.5 steps each": _level(1.5),
    "a run-ahead, then 0.7 steps each": _level(0.7),
    "blocking on every step: 1.5x slower in all": _blocking_rest(1.5),
    "blocking on every step: 1.5x faster in all": _blocking_rest(1 / 1.5),
    "full build: bit-identical steps, old model kept": _full_build(0.0, True),
    "full build: steps differing in the last bits, old model freed": _full_build(1e-7, False),
}


# ---------------------------------------------------------------- the report from data

def _data():
    """Data as a quick build writes it, with round numbers."""
    def t(median):
        return {"median": median, "q1": median * 0.9, "q3": median * 1.1, "best": median * 0.8,
                "spread": 0.2, "number": 1}
    step, every, n = 1e-3, 10, 30
    seconds = [2.0] + [(step / 10 if i % every < 6 else step) if i % every else 50e-3
                       for i in range(1, n)]
    loop = bench.summary(seconds, [1e-3] * 3, every)
    return {"n_iter": n, "log_every": every, "config": {"width": 8, "depth": 1, "batch_size": 64},
            "compiled": {"by_iteration": {"0": ["step", "tanh"]}, "step_seconds": 1.0, "eager": 1,
                         "eager_primitives": 1, "eager_seconds": 0.1, "step_cache": 1},
            "log": {"step_first": "", "eager_first": "", "eager_messages": 12, "eager_shown": 10,
                    "scenarios": {"numpy_batch": ""}},
            "cache_sizes": dict(bench.STATED_CACHES),
            "timeline": {"original": loop, "jitted_eval": bench.summary(
                             [0.5] + [step] * (n - 1), [1e-3] * 3, every),
                         "blocking": loop, "log_less": bench.summary(seconds, [1e-3], 3 * every + 1)},
            "costs": {"step": t(step), "eager_eval": t(50e-3), "jitted_eval": t(0.1e-3),
                      "in_flight": 20, "in_flight_counts": [20]},
            "scenarios": {"n_points": 160, "batch_size": 64, "kept_alive": None,
                          "runs": {"numpy_batch": [{"compiles": 0, "cache": [1, 2]}]}},
            "stale": None}


def test_the_report_reads_the_chapters_shapes_from_the_data():
    verdicts = bench.report(_data()).verdicts
    assert verdicts["logging_vs_other"]["winner"] == "other"
    assert verdicts["evaluation"]["winner"] == "jitted_eval"
    assert verdicts["log_less"]["kind"] == "not_measured"  # no second logging iteration
    assert verdicts["log_less_count"] == {"kind": "none", "count": 0}
    assert verdicts["in_flight"] == {"kind": "below_limit", "found": 20, "limit": 32}
    assert verdicts["levels"]["kind"] == "two_levels" and verdicts["levels"]["run_ahead"] == 5


@pytest.mark.parametrize("every, kind, count", [(31, "none", 0), (20, "one", 1), (10, "several", 2)])
def test_the_later_logging_iterations_of_logging_less_often_are_counted(every, kind, count):
    """The page says "its one later pause" only where the loop logged once after iteration 0."""
    data = _data()  # 30 iterations
    data["timeline"]["log_less"] = bench.summary(data["timeline"]["original"]["seconds"], [1e-3], every)
    assert bench.report(data).verdicts["log_less_count"] == {"kind": kind, "count": count}


@pytest.mark.parametrize("label, kind", [
    ("no run-ahead", "no_run_ahead"), ("a run-ahead, then slow iterations", "unexpected")])
def test_other_timelines_get_other_verdicts_and_never_stop_the_build(label, kind):
    levels = bench.report(PERTURBATIONS[label](_data())).verdicts["levels"]
    assert levels["kind"] == kind and levels["expected"] is False


def rendered(data):
    """Both editions of the page from `data`, on one line each."""
    from measurement import results_of
    from project import rendered_page

    env = {"cpu": "CPU", "cores": 2, "python": "3.13.0", "backend": "cpu", "device": "cpu",
           "date": "2026-12-05", "jax": "0.12.0.1", "libraries": {"jax": "0.12.0.1"}}
    results = {"training_loop_pauses_benchmark": {
        "environment": env, "quick": True, **results_of(data, bench.report(data), bench.FIGURES)}}
    return rendered_page("training-loop-pauses.md", results)


@pytest.mark.parametrize("change, en, ko", [
    (lambda d: d, "then about a step each (1 step, median)", "그다음 반복들은 하나하나 대략 스텝 하나만큼 걸린다"),
    (_level(1.5), "then more than a step each (1.5 steps, median)", "그다음 반복들은 하나하나 스텝 하나보다 오래 걸린다"),
    (_level(0.7), "then under a step each (0.7 steps, median)", "그다음 반복들은 하나하나 스텝 하나보다 짧게 걸린다")])
def test_the_upper_level_is_worded_against_the_sites_threshold(change, en, ko):
    pages = rendered(change(_data()))
    assert en in pages["docs"] and ko in pages["docs-ko"]


@pytest.mark.parametrize("found, ahead, kind", [
    (32, 16, "half_queue"), (32, 15, "half_queue"), (32, 4, "not_shown"), (20, 16, "not_shown"),
    (64, 16, "not_shown")])
def test_the_queue_explains_the_low_level_only_when_filled_and_half_as_long(found, ahead, kind):
    """"Hence the timeline's low level" only where this run filled the CPU client's queue
    and about half as many iterations as it holds ran ahead."""
    data = _in_flight(found)(_data())  # its step: 1 ms; 40 iterations between logging ones
    data["timeline"]["original"] = bench.summary(
        [50e-3 if i % 40 == 0 else 1e-4 if i % 40 <= ahead else 1e-3 for i in range(81)], [1e-3] * 3, 40)
    verdict = bench.report(data).verdicts["queue_bound"]
    assert verdict["kind"] == kind and verdict["run_ahead"] == ahead
    pages = rendered(data)
    assert ("Hence the timeline's low level" in pages["docs"]) == (kind == "half_queue")
    assert ("타임라인의 낮은 층이 이것이다" in pages["docs-ko"]) == (kind == "half_queue")


def test_in_flight_counts_are_data():
    for n, kind in ((32, "at_limit"), (4, "below_limit"), (64, "above_limit")):
        assert bench.report(_in_flight(n)(_data())).verdicts["in_flight"]["kind"] == kind


def test_swapped_timings_swap_the_winner():
    data = PERTURBATIONS["un-jitted evaluation faster than the jitted one"](_data())
    assert bench.report(data).verdicts["evaluation"]["winner"] == "eager_eval"
    assert bench.report(_no_slower_logging(_data())).verdicts["logging_vs_other"]["kind"] == "same"


@pytest.mark.parametrize("factor, winner, en", [
    (1.0, None, ", yet here the 29 later iterations took"),
    (1.05, None, ", yet here the 29 later iterations took"),
    (1 / 1.5, "blocking", ", yet here the 29 later iterations took"),
    (1.5, "original", "meanwhile: here the 29 later iterations took")])
def test_what_blocking_cost_is_read_from_the_sums_of_the_later_iterations(factor, winner, en):
    """The page says blocking kept Python from running ahead at a cost only where the
    blocking loop's iterations 1 to n-1 took measurably longer, in sum, than the original's."""
    data = _blocking_rest(factor)(_data())
    verdict = bench.report(data).verdicts["blocking"]
    assert verdict["winner"] == winner
    assert verdict["reads"] == ["timeline.original.rest", "timeline.blocking.rest"]
    pages = rendered(data)
    assert en in pages["docs"] and "이후 29번의 반복이" in pages["docs-ko"]
    assert ("the step, not Python, set the pace" in pages["docs"]) == (winner is None)
    assert ("속도를 정한 것은 Python이 아니라 스텝이었다" in pages["docs-ko"]) == (winner is None)
    # blocking faster: said, not explained (each of the verdict's three outcomes its own words)
    assert ("faster than the" in pages["docs"]) == (winner == "blocking")
    assert ("설명하지 못하는 결과다" in pages["docs-ko"]) == (winner == "blocking")


def test_tables_hold_word_keys_and_numbers():
    tables = bench.report(_full_build(0.0, True)(_data())).tables
    assert tables["timeline"].rows[3][3] == {"word": "none"}  # log_less: no later logging iteration
    assert [row[1] for row in tables["scenarios"].rows] == [1, 1, 1, 1, 0]
    assert tables["stale"].rows[1][2] == {"bold": 12.5}


# ---------------------------------------------------------------- the quick build

def test_the_step_compiled_once_in_iteration_0_and_never_again(built_site):
    compiled = results()["data"]["compiled"]
    assert list(compiled["by_iteration"]) == ["0"]  # compilations JAX logged
    names = compiled["by_iteration"]["0"]
    assert names.count("step") == 1
    eager = [name for name in names if name != "step"]  # un-jitted evaluation, op by op
    assert len(eager) > 10 and {"tanh", "multiply"} <= set(eager)
    assert compiled["step_cache"] == 1
    assert "training_loop.compiles_only_in_iteration_0" in results()["facts"]


def test_every_loop_was_timed_at_every_iteration_and_each_wait_measured(built_site):
    data = results()["data"]
    assert list(data["timeline"]) == list(bench.LOOPS)
    for key, loop in data["timeline"].items():
        assert len(loop["seconds"]) == data["n_iter"]
        every = loop["log_every"]
        assert every == (3 if key == "log_less" else 1) * data["log_every"]
        assert len(loop["waits"]) == len(range(0, data["n_iter"], every)), key
    assert 0 <= data["costs"]["in_flight"] == max(data["costs"]["in_flight_counts"])


def test_numpy_batches_take_a_cache_entry_and_compile_nothing_even_in_quick_mode(built_site):
    r = results()
    numpy_batch = r["data"]["scenarios"]["runs"]["numpy_batch"]
    assert [run["compiles"] for run in numpy_batch] == [0]
    before, after = numpy_batch[0]["cache"]
    assert after == before + 1
    rows = {row[0]["word"]: row for row in r["tables"]["scenarios"]["rows"]}
    assert rows["ragged"][1] == {"word": "skipped"} and rows["numpy_batch"][2] == "1 → 2"


def test_the_shared_cache_sizes_were_read_from_jax(built_site):
    assert results()["data"]["cache_sizes"] == bench.STATED_CACHES


def test_the_page_is_built_with_its_figure_and_answer_first(built_site):
    html = (built_site / "training-loop-pauses" / "index.html").read_text()
    assert html.count("measured/training_loop_pauses_benchmark/timeline_") == 1
    text = re.sub(r"<[^>]+>", "", html)
    assert "JAX_LOG_COMPILES=1 JAX_EXPLAIN_CACHE_MISSES=1 python train.py" in text
    assert "8,192 newer call signatures" in text and "2,048 newer programs" in text
