"""snippets/compilers_benchmark.py: its data, the verdicts report() derives from them, and
the ways other machines differ (PERTURBATIONS, rendered by tests/sitebuild/test_perturbations.py)."""

import copy

import pytest

from compilers_benchmark import (default_thresholds, fixed_costs, model_verdict, place,
                                 report)
from measurement import MOVED
from project import ROOT, quick_results


def results():
    return quick_results("compilers_benchmark")


def _t(median, spread=0.02):
    """A timing as Timing.as_dict() gives it (the fields report() reads)."""
    return {"median": median, "q1": median * (1 - spread), "q3": median * (1 + spread),
            "best": median * (1 - spread), "spread": 2 * spread, "number": 1,
            "samples": [median]}


# ---------------------------------------------------------------- other machines

def _eager_faster(data):
    """Eager SELU at half jit's lower quartile at every n: faster however wide jit's spread
    (a swap would turn only what the run measured)."""
    t = data["traffic"]
    t["eager"] = [_t(j["q1"] / 2) for j in t["jit"]]
    return data


def _scale(timings, factors):
    return [{k: (v * f if isinstance(v, float) and k != "spread" else
                 [s * f for s in v] if k == "samples" else v) for k, v in t.items()}
            for t, f in zip(timings, factors)]


def _eager_at_model(data, factor=1.0):
    """Eager SELU `factor` times the model's ratio slower than jit at every n: times jit's
    median, or, for another factor, its q3 (q1 under 1), so the ratio's range lies beyond
    the model however wide jit's spread."""
    t, m = data["traffic"], data["model"]
    model = m["eager_bytes"] / m["fused_bytes"]
    at = "median" if factor == 1 else "q3" if factor > 1 else "q1"
    t["eager"] = [_t(j[at] * model * factor) for j in t["jit"]]
    return data


def _mixed_model(data):
    above, below = (_eager_at_model(copy.deepcopy(data), f)["traffic"]["eager"] for f in (3.0, 1 / 3))
    t = data["traffic"]  # above the model at the smallest n, below it at every other
    t["eager"] = [above[0], *below[1:]]
    return data


def _scale_jit_as(factor):
    """The jitted 1.05 * x `factor` times jit's median (its q1 for a factor under 1: then
    faster however wide jit's spread)."""
    def change(data):
        t = data["traffic"]
        t["scale_jit"] = [_t(j["q1" if factor < 1 else "median"] * factor) for j in t["jit"]]
        return data
    return change


def _no_fixed_costs(data):
    """Time in proportion to n (a machine where dispatch is free)."""
    t = data["traffic"]
    for kind in ("eager", "jit", "scale_jit"):
        per_element = t[kind][-1]["median"] / t["n"][-1]
        t[kind] = [_t(per_element * n) for n in t["n"]]
    return data


def _warm_slower(data):
    """The warm process ten times the cold one's upper quartile: slower however the two
    measured (a swap would turn only what the run measured)."""
    timings = data["persistent_cache"]["timings"]
    timings["warm"] = {key: _t(10 * t["q3"]) for key, t in timings["cold"].items()}
    return data


def _default_run(written, compile_s):
    def change(data):
        pc = data["persistent_cache"]
        run = copy.deepcopy(pc["runs"]["cold"][0])
        run.update(compile_or_load_s=compile_s, first_call_s=compile_s * 1.5,
                   cache_writes=int(written))
        pc["runs"]["default"] = [run]
        pc["entries"]["default"] = [list(pc["entries"]["cold"][0]) if written else []]
        return data
    return change


def _three_pairs(data):
    pc = data["persistent_cache"]
    for state in ("cold", "warm"):
        runs = pc["runs"][state]
        pc["runs"][state] = [dict(runs[0], first_call_s=runs[0]["first_call_s"] * f)
                             for f in (1.0, 0.8, 1.3)]
        pc["entries"][state] = pc["entries"][state] * 3
    pc["pairs"] = 3
    return data


def _gpu_listing(data):
    """What another backend may compile: two fusions, temporaries, another cost count."""
    listing = data["listing"]
    listing["fusions"] = listing["fusions"] * 2
    listing["temp_bytes"] = 4_000_000
    data["cost"] = {**data["cost"], "bytes accessed": data["cost"]["bytes accessed"] * 2}
    data["backend"] = "gpu"
    return data


def _no_fusion(data):
    data["listing"]["fusions"] = []
    return data


def _cuda_export_runs(data):
    data["export"].update(platforms=["cuda"])
    data["export"]["elsewhere"].update(ran=True, error=None)
    return data


def _one_element_below_the_floor(data):
    """One-element calls 55 % of the smallest ones: below the model's floor, not mostly neither."""
    t = data["traffic"]
    t["one"] = {kind: _t(0.55 * t[kind][0]["median"]) for kind in ("eager", "jit")}
    return data


def _apart_at_largest(data):
    """jit's processes at the largest n more than MOVED apart (two states of the machine)."""
    last = data["traffic"]["jit"][-1]
    last["processes"] = [last["median"] / MOVED, last["median"] * 1.2]
    return data


def _eager_apart_at_largest(data):
    """Eager SELU's processes at the largest n more than MOVED apart; jit's agreed."""
    last = data["traffic"]["eager"][-1]
    last["processes"] = [last["median"] / MOVED, last["median"] * 1.2]
    return data


def _exp_only_where_apart(data):
    """The jitted 1.05 * x as fast as jitted SELU at every n but the largest, faster there,
    where jit's processes disagreed."""
    t = _apart_at_largest(data)["traffic"]
    t["scale_jit"] = [_t(j["median"]) for j in t["jit"][:-1]] + [_t(t["jit"][-1]["q1"] / 2)]
    return data


PERTURBATIONS = {
    "the processes disagree at the largest n, 1.05 * x faster at every n":
        lambda d: _apart_at_largest(_scale_jit_as(0.5)(d)),
    "1.05 * x faster only at the largest n, where the processes disagree": _exp_only_where_apart,
    "eager's processes disagree at the largest n": _eager_apart_at_largest,
    "the model inside the range at every n, the processes apart at the largest":
        lambda d: _apart_at_largest(_eager_at_model(d)),
    "eager faster than jit at every n": _eager_faster,
    "one-element calls below the model's floor": _one_element_below_the_floor,
    "the model inside the range at every n": _eager_at_model,
    "the model below the range at every n": lambda d: _eager_at_model(d, 3.0),
    "the model above the range at one n, below at another": _mixed_model,
    "jitted 1.05 * x never faster than jitted SELU": _scale_jit_as(1.0),
    "jitted 1.05 * x faster at every n": _scale_jit_as(0.5),
    "no fixed costs": _no_fixed_costs,
    "warm process slower than cold": _warm_slower,
    "default thresholds wrote SELU": _default_run(True, 1.4),
    "default thresholds wrote nothing": _default_run(False, 0.05),
    "three pairs": _three_pairs,
    "two fusions and temporaries (another backend)": _gpu_listing,
    "no fusion": _no_fusion,
    "a CUDA-only export runs (CUDA host)": _cuda_export_runs,
}


# ---------------------------------------------------------------- report() on made-up data

def test_the_model_against_the_range_says_when_it_sits_at_an_edge():
    jit = {"median": 1.0, "q1": 0.95, "q3": 1.05}
    assert place({"q1": 5.9, "q3": 7.5}, jit, 6.25) == "inside"
    # the range's lower end, 5.9 / 1.05 = 5.62, lies within EDGE (5 %) of the model, 5.8
    assert place({"q1": 5.9, "q3": 7.0}, jit, 5.8) == "edge"
    assert place({"q1": 7.0, "q3": 8.0}, jit, 6.25) == "below"
    assert place({"q1": 4.0, "q3": 5.0}, jit, 6.25) == "above"


def _traffic(eager, jit, scale=None, one=None):
    n = [10**3, 10**5, 10**7][:len(eager)]
    one = one or (eager[0], jit[0])  # one-element calls: all of the smallest call, by default
    return {"n": n, "repeats": 5, "eager": [_t(e) for e in eager], "jit": [_t(j) for j in jit],
            "scale_jit": [_t(s) for s in (scale or jit)], "one": {"eager": _t(one[0]), "jit": _t(one[1])}}


@pytest.mark.parametrize("eager, kind, holds", [
    ([6.25, 6.25, 6.25], "all", 3),
    ([6.25, 3.0, 3.0], "some", 1),
    ([3.0, 3.0, 3.0], "above", 0),
    ([20.0, 20.0, 20.0], "below", 0),
    ([20.0, 3.0, 3.0], "mixed", 0),
])
def test_the_model_verdict_counts_the_sizes_that_hold_it(eager, kind, holds):
    verdict = model_verdict(_traffic(eager, [1.0] * 3), 6.25)
    assert (verdict["kind"], verdict["holds"], verdict["sizes"]) == (kind, holds, 3)


def test_fixed_costs_dominate_only_where_the_smallest_calls_cost_more_than_their_share():
    dominant = fixed_costs(_traffic([100e-6, 1e-3], [10e-6, 200e-6]))
    assert dominant["kind"] == "dominant" and dominant["jit_percent"] > 50
    linear = fixed_costs(_traffic([1e-6, 100e-6], [0.2e-6, 20e-6]))
    assert linear["kind"] == "minor" and linear["eager_percent"] == pytest.approx(0, abs=1e-9)
    assert dominant["neither"] == []  # a one-element call as long as the smallest call


def test_calls_mostly_neither_fixed_nor_proportional_are_named():
    """The fixed-plus-linear model against one-element calls: a call at the smallest n that is
    mostly neither its one-element call's time nor its share of the largest call's."""
    both = fixed_costs(_traffic([100e-6, 1e-3], [10e-6, 200e-6], one=(30e-6, 1e-6)))
    assert both["kind"] == "dominant" and both["neither"] == ["eager", "jit"]
    jit_only = fixed_costs(_traffic([100e-6, 1e-3], [10e-6, 200e-6], one=(90e-6, 1e-6)))
    assert jit_only["neither"] == ["jit"]


def test_one_element_calls_below_the_models_floor_are_named_with_their_share():
    """The model's floor on the fixed part against the fixed part measured: a one-element call
    that is a smaller share of the smallest call (and not so small that the call is mostly neither)."""
    fc = fixed_costs(_traffic([100e-6, 1e-3], [10e-6, 200e-6], one=(70e-6, 9e-6)))
    assert fc["neither"] == [] and fc["below"] == ["eager"] and fc["one_percent"]["eager"] == pytest.approx(70, abs=1)
    assert fc["eager_percent"] > 70 and fc["one_percent"]["jit"] >= fc["jit_percent"]
    assert fixed_costs(_traffic([100e-6, 1e-3], [10e-6, 200e-6]))["below"] == []
    neither = fixed_costs(_traffic([100e-6, 1e-3], [10e-6, 200e-6], one=(30e-6, 1e-6)))
    assert neither["below"] == []  # said already: most of those calls is neither


def test_default_thresholds_are_read_from_the_process_or_said_not_run():
    pc = {"defaults": {"min_compile_time_secs": 1.0}, "runs": {"default": []},
          "timings": {"cold": {"compile_or_load": {"median": 0.05}}}}
    assert default_thresholds(pc) == {"kind": "not_run", "compile_s": 0.05, "under": True,
                                      "min_compile_time_secs": 1.0}
    pc["runs"]["default"] = [{"compile_or_load_s": 1.5}]
    pc["entries"] = {"default": [["jit_selu-abc-cache"]]}
    assert default_thresholds(pc)["kind"] == "written"


def test_the_perturbations_change_what_they_say(built_site):
    base = results()["data"]
    verdicts = {label: report(change(copy.deepcopy(base))).verdicts
                for label, change in PERTURBATIONS.items()}
    assert verdicts["eager faster than jit at every n"]["most_saving"]["winner"] == "eager"
    assert verdicts["the model inside the range at every n"]["model"]["kind"] == "all"
    assert verdicts["the model below the range at every n"]["model"]["kind"] == "below"
    assert verdicts["the model above the range at one n, below at another"]["model"]["kind"] == "mixed"
    assert verdicts["jitted 1.05 * x never faster than jitted SELU"]["exp_cost"]["winner"] is None
    assert verdicts["jitted 1.05 * x faster at every n"]["exp_cost"]["winner"] == "scale_jit"
    assert verdicts["no fixed costs"]["fixed_costs"]["kind"] == "minor"
    assert verdicts["warm process slower than cold"]["warm_load"]["winner"] == "cold"
    assert verdicts["default thresholds wrote SELU"]["default_thresholds"]["kind"] == "written"
    assert verdicts["default thresholds wrote nothing"]["default_thresholds"]["kind"] == "not_written"
    assert verdicts["two fusions and temporaries (another backend)"]["cost"]["kind"] == "differs"


# ---------------------------------------------------------------- the quick build's results

def test_persistent_cache_runs_behaved_as_the_page_says(built_site):
    cache = results()["data"]["persistent_cache"]
    cold, warm = cache["runs"]["cold"][0], cache["runs"]["warm"][0]
    moved = cache["runs"]["moved"][0]
    assert cache["entries"]["cold"][0][0].startswith("jit_selu-")
    assert cache["entries"]["warm"][0] == cache["entries"]["cold"][0]  # nothing new
    assert (cold["cache_hits"], cold["cache_writes"]) == (0, 1)  # JAX's events
    assert (warm["cache_hits"], warm["cache_writes"]) == (1, 0)
    assert (moved["cache_hits"], moved["cache_writes"]) == (1, 0)  # the move hit
    assert cache["entries"]["moved"][0] == cache["entries"]["cold"][0]
    assert cache["cache_key"] == cache["entries"]["cold"][0][0]
    assert any(line.startswith("Persistent compilation cache hit for 'jit_selu'")
               for line in warm["log"])
    assert cache["defaults"]["min_compile_time_secs"] == 1.0  # what the page explains
    assert cache["late"]["second"] == [] and "jit_selu" in cache["late"]["programs"]


def test_results_name_their_facts_and_hold_no_words(built_site):
    res = results()
    assert {"compilers.cache_round_trip", "compilers.jit_cache_capacities",
            "compilers.aot_refuses_other_shapes"} <= set(res["facts"])
    assert "text" not in res and "stamp" not in res
    assert res["figures"] == ["model_vs_measured"]


def test_page_shows_the_fusion_without_build_paths(built_site):
    data = results()["data"]
    html = (built_site / "compilers" / "index.html").read_text()
    assert "kind=kLoop" in html and "exponential" in html
    assert "metadata=" not in html and str(ROOT) not in html
    assert "<tmp>/moved" in html or "&lt;tmp&gt;/moved" in html
    assert data["in_memory"]["capacities"]["dispatch"] == 8192 and "8,192" in html
    if data["export"]["elsewhere"]["error"]:
        assert "exported for platforms" in html


def _apart(traffic, i, factor=MOVED * 1.5):
    jit = traffic["jit"][i]
    jit["processes"] = [jit["median"] / factor, jit["median"]]
    return traffic


def test_a_size_whose_processes_disagreed_is_evidence_neither_way():
    """The model verdict counts only sizes whose processes agreed; the one apart is placed
    "apart" (its ratio pools two states of the machine)."""
    verdict = model_verdict(_traffic([6.25, 3.0, 3.0], [1.0] * 3), 6.25, apart=[0])
    assert (verdict["kind"], verdict["holds"], verdict["sizes"]) == ("above", 0, 2)
    assert verdict["places"] == ["apart", "above", "above"] and verdict["apart"] == [10**3]
    assert model_verdict(_traffic([6.25] * 3, [1.0] * 3), 6.25, apart=[2])["kind"] == "all"


def _data(traffic):
    """report()'s input around `traffic` (the rest from no build: made up, as report reads it)."""
    timing = _t(0.05)
    return {"traffic": traffic, "n_listing": 1000, "cost": {},
            "model": {"eager_bytes": 50_000, "fused_bytes": 8000, "rows": []},
            "persistent_cache": {"pairs": 1, "n": 1000, "defaults": {"min_compile_time_secs": 1.0},
                                 "runs": {"default": [], "cold": [{"first_call_s": 0.1, "compile_or_load_s": 0.05,
                                                                   "cache_hits": 0}],
                                          "warm": [{"first_call_s": 0.05, "compile_or_load_s": 0.005,
                                                    "cache_hits": 1}], "moved": []},
                                 "entries": {"default": [], "cold": [["k"]], "warm": [["k"]], "moved": []},
                                 "timings": {"cold": {"first_call": timing, "compile_or_load": timing},
                                             "warm": {"first_call": timing, "compile_or_load": timing}}},
            "in_memory": {"held": {}}}


def test_no_verdict_reads_a_size_whose_processes_disagreed():
    """The largest saving, exp's cost and the fixed costs' reference are chosen among the
    sizes whose processes agreed; exp's sentence names a size apart that differed too."""
    traffic = _traffic([100e-6, 1e-3, 900e-3], [10e-6, 200e-6, 30e-3], scale=[5e-6, 100e-6, 10e-3])
    together = report(_data(copy.deepcopy(traffic))).verdicts
    assert together["sizes_chosen"]["most_saving"] == 10**7 and together["sizes_chosen"]["exp_cost"] == 10**7
    v = report(_data(_apart(traffic, 2))).verdicts
    assert v["model"]["apart"] == [10**7] and v["model"]["sizes"] == 2
    assert v["sizes_chosen"]["most_saving"] == 10**3 and v["sizes_chosen"]["exp_cost"] == 10**5
    assert v["sizes_chosen"]["exp_apart"] == [10**7]
    assert v["fixed_costs"]["n_large"] == 10**5 and together["fixed_costs"]["n_large"] == 10**7
    # all but one size apart: too few to choose from, every size is read as measured
    few = report(_data(_apart(_apart(copy.deepcopy(traffic), 0), 1))).verdicts
    assert few["model"]["apart"] == [] and few["sizes_chosen"]["exp_apart"] == []


def test_each_verdict_skips_only_sizes_apart_in_the_timings_it_reads():
    """1.05 * x's processes apart at the largest n: the model and the savings read that
    size (eager and jit agreed there), exp's cost does not; the table names the timing."""
    traffic = _traffic([100e-6, 1e-3, 900e-3], [10e-6, 200e-6, 30e-3], scale=[5e-6, 100e-6, 10e-3])
    scale = traffic["scale_jit"][2]
    scale["processes"] = [scale["median"], scale["median"] * MOVED * 1.5]
    r = report(_data(traffic))
    v = r.verdicts
    assert v["model"]["apart"] == [] and v["model"]["sizes"] == 3
    assert v["fixed_costs"]["n_large"] == 10**7 and v["sizes_chosen"]["exp_cost"] == 10**5
    row = r.tables["model_vs_measured"].rows[2]
    assert row[4]["word"].startswith("place_") and row[6]["word"] == "apart_scale_jit"
    assert row[6]["fields"] == {"low": "10 ms", "high": "30 ms"}
    jit_apart = report(_data(_apart(copy.deepcopy(traffic), 2))).tables["model_vs_measured"].rows[2]
    assert jit_apart[4]["word"] == "apart_jit" and jit_apart[6]["word"] == "apart_jit"


def test_fixed_cost_shares_are_rounded_not_floored():
    """A one-element call 90.8 % of the smallest call reads 91 %, not 90 %."""
    fc = fixed_costs(_traffic([100e-6, 1e-3], [10e-6, 200e-6], one=(90.8e-6, 8.77e-6)))
    assert fc["one_percent"] == {"eager": 91, "jit": 88}
