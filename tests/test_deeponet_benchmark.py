"""snippets/deeponet_benchmark.py and deeponet_report.py: what the DeepONet page relies on.

Timings are never asserted (the build machine is shared): the report is checked on made-up
numbers, including those of machines where jit does not win, and the build's own run for
what JAX did (the facts it checked, the messages it captured).
"""

import copy

import jax
import pytest

import deeponet
import deeponet_benchmark
from deeponet_report import FIGURES, report
from project import quick_results


def t(median, spread=0.05):
    """A timing (measurement.pooled()'s keys that the report and pages read)."""
    return {"median": median, "q1": median * (1 - spread), "q3": median * (1 + spread),
            "best": median * (1 - spread), "spread": 2 * spread, "number": 1,
            "samples": [median * (1 - spread), median, median * (1 + spread)],
            "processes": [median * 0.98, median * 1.01]}


def check(moved=False, kept=True, by=1.0):
    state = {"python_loop": 1e-4, "tiny_jit_call": 4e-6, "tiny_numpy_call": 7e-7}
    end = {**state, "tiny_jit_call": state["tiny_jit_call"] * by}
    return {"start": state, "end": end, "moved": moved, "kept": kept}


def scaled(timing, factor):
    return {k: v * factor if isinstance(v, float) else
            [x * factor for x in v] if isinstance(v, list) else v for k, v in timing.items()}


def sample_data():
    """A full-size run as the chapter's machine makes it: jit faster at every batch size,
    the ratio falling, YNNPACK fusions present and gone without them."""
    sizes = [64, 250, 4000]
    jit = [t(x) for x in (1.2e-3, 2.5e-3, 30e-3)]
    eager = [t(x) for x in (0.30, 0.32, 0.48)]
    config = {"width": 48, "depth": 4, "latent": 48, "n_sensors": 32, "batch_size": 250,
              "n_functions": 500, "n_test": 100, "steps": 1000}
    return {
        "backend": "cpu", "config": config, "ics_weight": 10.0, "learning_rate": 3e-3,
        "step_operations": 2128, "compile_s_per_new_i": 0.02,
        "processes": 2, "checks": [check(by=1.46), check()],
        "scaling": {"batch": sizes, "jit": jit, "eager": eager,
                    "calls": {"jit": [20] * 3, "eager": [5] * 3}},
        "new_i": {"batch": 250, "eager": t(0.40), "calls": 5},
        "rounds": {"min": 4, "max": 5, "settled": 0.05},
        "first_call": {"trace_and_lower": 0.5, "compile": 3.0, "first_execution": 0.2,
                       "second_execution": 0.003, "ynn_fusions": 40, "count": 5,
                       "total": t(3.7), "eager_first": 9.0, "eager_first_compiles": 300,
                       "eager_first_compile_s": 8.0, "no_ynn_status": "measured",
                       "no_ynn": {"first_execution": 0.01, "second_execution": 0.003,
                                  "ynn_fusions": 0}},
        "agreement": {"max_difference": 1e-8, "max_step": 3e-3, "allclose": True,
                      "rtol": 1e-5, "atol": 1e-6},
        "forms_agree": True,
        "captured": {"no_static_error": "TypeError: ...", "donation_warning": "UserWarning: ..."},
        "donation": {"deleted": 0, "buffers": 9, "unusable": 5, "unread": 4},
        "training": {"log": [{"step": 1, "ics": 1.0, "bcs": 0.5, "res": 2.0},
                             {"step": 1000, "ics": 1e-3, "bcs": 1e-4, "res": 1e-3}],
                     "seconds": 12.0, "steps": 1000, "errors": [0.05, 0.04, 0.09]},
        "prediction": {"example": 0, "grid": [11, 64], "t": [0.0, 0.2, 0.5, 1.0],
                       "x": [0.0, 0.5], "exact": [[1.0, -1.0]] * 4, "network": [[0.9, -1.1]] * 4,
                       "exact_max": [1.0] * 4, "error_max": [0.1] * 4,
                       "relative_error": [0.1] * 4},
        "seconds": {"first_calls": 20.0, "warm_up": 30.0, "samples": 40.0, "training": 15.0,
                    "processes": 90.0, "total": 106.0},
        "workers": 2,
    }


# ------------------------------------------------------------------ the report


def test_one_verdict_per_batch_size_and_trends_over_sizes():
    verdicts = report(sample_data()).verdicts
    for b in (64, 250, 4000):
        v = verdicts[f"step_{b}"]
        assert v["winner"] == "jit_step" and v["expected"] is True
    assert verdicts["ratio_trend"]["kind"] == "falls"
    assert verdicts["eager_trend"]["kind"] == "rises"
    assert verdicts["step_new_i"]["winner"] == "jit_step"
    assert verdicts["new_i_cost"]["winner"] == "eager_step"  # the compile per step costs
    assert verdicts["machine_state"]["kind"] == "steady"
    assert verdicts["ynn"] == {"kind": "present", "fusions": 40, "without": 0}
    assert verdicts["no_ynn_first"]["winner"] == "no_ynn"
    assert verdicts["executions"]["winner"] == "second_execution"
    even = verdicts["break_even"]
    assert even["kind"] == "repaid" and even["repay_steps"] == 12 and even["cold_start_steps"] == 1


def test_an_unjitted_step_faster_at_the_smallest_batch_is_a_verdict_not_a_stop():
    data = swap_smallest(sample_data())
    verdicts = report(data).verdicts
    assert verdicts["step_64"]["winner"] == "eager_step" and verdicts["step_64"]["expected"] is False
    assert verdicts["ratio_trend"]["kind"] != "falls"


def test_jit_never_repaid_when_it_saves_nothing():
    data = unjitted_faster_everywhere(sample_data())
    report_ = report(data)
    assert report_.verdicts["break_even"]["kind"] == "never"
    rows = {row[0]["word"]: row[1] for row in report_.tables["first_call"].rows if "word" in row[0]}
    assert rows["repay_steps"] == {"word": "never"} and rows["cold_start_steps"] == {"word": "never"}


def test_each_pair_of_neighbouring_batch_sizes_compares_the_unjitted_medians():
    """eager_<a>_<b>: a rise past the spread, two medians inside each other's spread, or
    a fall past it; the page words the medians that did not rise, once."""
    rising = report(sample_data()).verdicts
    assert rising["eager_64_250"]["kind"] == "same"  # 300 ms and 320 ms: under 1.1x
    assert rising["eager_250_4000"]["winner"] == "smaller_batch"
    assert rising["eager_250_4000"]["reads"] == ["scaling.eager.1", "scaling.eager.2"]
    dip = report(eager_dip_inside_spread(sample_data())).verdicts
    assert dip["eager_trend"]["kind"] == "mixed" and dip["ratio_trend"]["kind"] == "falls"
    assert dip["eager_64_250"]["kind"] == "same" and dip["eager_64_250"]["low"] < 1
    fall = report(eager_falling(sample_data())).verdicts
    assert fall["eager_64_250"]["winner"] == "larger_batch"
    pages = rendered(eager_dip_inside_spread(sample_data()))
    assert ("although the un-jitted medians did not rise at every size (300 ms, 255 ms, 480 ms; "
            "300 ms and 255 ms are 1.18× apart, inside this run's spread)") in pages["docs"]
    assert "did not rise at every step of the curve" not in pages["docs"]  # said once
    assert ("크기마다 커지지는 않았다(300 ms, 255 ms, 480 ms). 300 ms와 255 ms는 1.18배 차이로, "
            "이번 실행의 흩어짐 안이다.") in pages["docs-ko"]
    assert "곡선의 모든 구간에서" not in pages["docs-ko"]
    falling = rendered(eager_falling(sample_data()))["docs"]
    assert "from 480 ms to 320 ms a fall of 1.5×, outside this run's spread" in falling
    assert "480 ms에서 320 ms로는 1.5배 줄어, 이번 실행의 흩어짐을 벗어났다." in rendered(
        eager_falling(sample_data()))["docs-ko"]
    flat = rendered(eager_flat(sample_data()))["docs"]
    assert "although the un-jitted medians stayed within 10 % from one batch size to the next" in flat


def test_ynnpack_kinds():
    assert report(no_ynn_fusions(sample_data())).verdicts["ynn"]["kind"] == "none"
    assert report(ynn_kept(sample_data())).verdicts["ynn"]["kind"] == "kept"


def test_tables_hold_cells_not_words():
    tables = report(sample_data()).tables
    assert list(tables) == ["step_time", "first_call", "loss", "accuracy", "prediction"]
    step = tables["step_time"]
    assert [row[0] for row in step.rows] == [
        64, 250, {"word": "new_i_row", "fields": {"n": 250}}, 4000]
    assert step.rows[1][1:3] == [{"timing": [2.5e-3, 2.5e-3 * 0.95, 2.5e-3 * 1.05]},
                                 {"timing": [0.32, 0.32 * 0.95, 0.32 * 1.05]}]
    first = tables["first_call"]
    assert first.columns == ["stage_several", "time"] and first.fields == {"batch": 250, "count": 5}
    assert first.rows[2][0] == {"word": "first_execution_ynn", "fields": {"fusions": 40}}
    quick = sample_data()
    quick["first_call"].update(no_ynn=None, no_ynn_status="quick", count=1)
    first = report(quick).tables["first_call"]
    assert first.columns[0] == "stage_one"
    assert [{"word": "no_ynn"}, {"word": "no_ynn_quick"}] in first.rows
    assert tables["accuracy"].rows[0][1] == {"word": "percent_cell", "fields": {"value": 6.0}}


def test_the_reader_code_holds_no_build_guard():
    """Sections a page includes show the code of the measurement, never the build's checks."""
    import re
    from pathlib import Path

    text = Path(deeponet_benchmark.__file__).read_text()
    for name, body in re.findall(r"# --8<-- \[start:(\w+)\]\n(.*?)# --8<-- \[end:\1\]", text, re.S):
        assert "DocumentationMismatch" not in body and "fact(" not in body, name


# ------------------------------------------------------------------ the benchmark's parts


def test_batches_of_cuts_and_joins_draws_of_one_size():
    functions = deeponet.random_functions(jax.random.key(0), 8)
    one = deeponet_benchmark.batches_of(functions, 24, 24)
    small = deeponet_benchmark.batches_of(functions, 10, 24)
    large = deeponet_benchmark.batches_of(functions, 50, 24)  # three draws of 24
    for a, b, c in zip(*map(jax.tree.leaves, (one, small, large))):
        assert len(b) == 10 and len(c) == 50 and b.dtype == a.dtype == c.dtype
        assert (b == a[:10]).all() and (c[:24] == a).all()  # the same first draw


def test_the_donated_arrays_neither_listed_nor_deleted_are_those_the_step_never_reads():
    """Run as a full build runs it (the tiny model, compiled): the fact
    deeponet.unread_batches_not_donated holds, and at least one array is unread."""
    tiny = deeponet.PIDeepONet(deeponet_benchmark.TINY)
    functions = deeponet.random_functions(jax.random.key(0), 8)
    batches = deeponet_benchmark.batches_of(functions, 32, 32)
    _, deleted, buffers, unusable, unread = deeponet_benchmark.donation_warning(tiny, batches)
    assert unread >= 1 and deleted >= 1 and buffers - unusable - deleted == unread


def test_time_steps_warms_up_everything_before_the_first_sample():
    events = []

    def call(name):
        def run():
            events.append(name)
        return run

    timings, compiles, made, seconds = deeponet_benchmark.time_steps(
        {"a": call("a"), "b": call("b")}, repeats=3, min_sample_s=0)
    assert sorted(events[:2]) == ["a", "b"]  # the warm-up: each once, first
    assert events[2:] == ["a", "b"] * 4  # then calibration and samples, in turns
    assert made == {"a": 4, "b": 4} and not compiles
    assert [len(t.samples) for t in timings.values()] == [3, 3]
    assert set(seconds) == {"warm_up", "samples"}


def test_settings_measure_a_curve_at_full_size():
    quick = deeponet_benchmark.settings(quick=True)
    full = deeponet_benchmark.settings(quick=False)
    assert quick["sizes"] == ()
    assert deeponet.DEFAULT.batch_size in full["sizes"] and len(full["sizes"]) >= 3
    assert min(full["sizes"]) < deeponet.DEFAULT.batch_size < max(full["sizes"])
    assert quick["processes"] >= 2 and full["processes"] >= 2  # headlines: several processes


# ------------------------------------------------------------------ the build's run


def results():
    return quick_results("deeponet_benchmark")


def test_the_build_checked_what_jax_does_and_captured_it(built_site):
    r = results()
    assert set(r["facts"]) >= {"deeponet.one_step_serves_every_i",
                               "deeponet.eager_compiles_power_per_new_i",
                               "deeponet.decorator_forms_lower_alike",
                               "deeponet.no_static_raises_type_error",
                               "deeponet.unusable_donation_warns",
                               "deeponet.unusable_donation_kept"}
    captured = r["data"]["captured"]
    assert captured["no_static_error"].startswith("TypeError: ")
    assert "not marked as static" in captured["no_static_error"]
    assert " at 0x" not in captured["no_static_error"]  # no memory address on the page
    assert captured["donation_warning"].startswith("UserWarning: Some donated buffers were not usable")
    assert r["data"]["donation"]["deleted"] is None  # quick mode lowers only
    listed = captured["donation_warning"].split(":", 2)[2].splitlines()[0].split(", ")
    assert r["data"]["donation"]["unusable"] == len(listed) >= 1


def test_the_build_timed_every_batch_size_and_split_the_first_call(built_site):
    data = results()["data"]
    config = deeponet_benchmark.settings(quick=True)["config"]
    s = data["scaling"]
    assert s["batch"] == [config.batch_size] and data["processes"] >= 2
    for key in ("jit", "eager"):
        assert len(s[key][0]["samples"]) >= 6 and s["calls"][key][0] >= len(s[key][0]["samples"])
        assert len(s[key][0]["processes"]) == data["processes"]  # pooled, each one's median
    assert data["new_i"]["calls"] >= len(data["new_i"]["eager"]["samples"])
    first = data["first_call"]
    assert all(first[k] > 0 for k in ("trace_and_lower", "compile", "first_execution"))
    assert first["no_ynn"] is None and first["no_ynn_status"] == "quick"
    assert first["eager_first_compiles"] > 10  # op by op: many primitives, each compiled
    assert data["step_operations"] > 100
    assert set(results()["figures"]) == {"loss_curve", "prediction", "scaling"}


def test_jitted_and_unjitted_steps_give_the_same_parameters(built_site):
    agreement = results()["data"]["agreement"]  # one step of each, from the same state
    assert agreement["max_step"] > 1e-4  # the step did move the parameters
    assert agreement["allclose"]  # to float32 tolerance: rtol 1e-5, atol 1e-6


def test_training_logged_every_term_and_errors_for_every_held_out_input(built_site):
    data = results()["data"]
    config = deeponet_benchmark.settings(quick=True)["config"]
    training = data["training"]
    assert training["log"][0]["step"] == 1 and training["log"][-1]["step"] == config.steps
    assert len(training["errors"]) == config.n_test
    p = data["prediction"]
    assert len(p["t"]) == len(p["exact"]) == len(p["network"]) == 4
    assert len(p["x"]) == p["grid"][1]


def test_the_page_shows_the_step_both_forms_and_the_captured_output(built_site):
    html = (built_site / "deeponet" / "index.html").read_text(encoding="utf-8")
    for code in ("static_argnums", "opt_update", "__wrapped__", "PIDeepONetFactoryForm",
                 "optax_step", "time_calls", "Output"):
        assert code in html, code
    assert "not marked as static" in html and "Some donated buffers" in html
    assert "DocumentationMismatch" not in html
    assert "quick mode" in html  # the stamp says how the numbers were made


def test_every_page_shows_one_measurement_of_the_jitted_step(built_site):
    """The jitted step at the chapter's batch size is measured once per build: the home page
    and the DeepONet chapter show deeponet_benchmark's number, and the chapters that time
    it again in their own company (frameworks, designing for jit: the same size in quick
    mode too) show that number beside their own, in both editions; the home page shows no
    other measurement of the step."""
    from measurement import fmt_seconds

    data = results()["data"]
    s = data["scaling"]
    home = fmt_seconds(s["jit"][s["batch"].index(data["config"]["batch_size"])]["median"])
    for page in ("", "deeponet/", "frameworks/", "designing-for-jit/"):
        for site in (built_site, built_site / "ko"):
            html = (site / page / "index.html").read_text(encoding="utf-8")
            assert home in html, (site, page)
    physics = quick_results("frameworks_benchmark")["data"]["steps"]["physics"]["jit"]
    designs = quick_results("designing_for_jit_benchmark")["data"]["designs"].values()
    others = {fmt_seconds(t["median"]) for t in (physics["timing"], *(d["steady"] for d in designs))}
    for site in (built_site, built_site / "ko"):
        index = (site / "index.html").read_text(encoding="utf-8")
        assert not [o for o in others - {home} if o in index]


def test_the_notebook_edition_ran(built_site):
    html = (built_site / "notebooks" / "deeponet" / "index.html").read_text(encoding="utf-8")
    assert "first call" in html and "relative L2 error" in html


# ------------------------------------------------------------------ other machines
# tests/sitebuild/test_perturbations.py re-reports the build's data changed these ways and
# renders every page of both editions from it.


def swap_smallest(data):
    """The un-jitted step faster at the smallest batch size."""
    s = data["scaling"]
    s["jit"][0], s["eager"][0] = s["eager"][0], s["jit"][0]
    return data


def unjitted_faster_everywhere(data):
    s = data["scaling"]
    s["jit"], s["eager"] = s["eager"], s["jit"]
    i = s["batch"].index(data["config"]["batch_size"])
    data["new_i"]["eager"] = scaled(s["eager"][i], 0.5)
    return data


def ratio_rising(data):
    """The ratio rising with the batch (and the un-jitted medians falling)."""
    s = data["scaling"]
    s["jit"], s["eager"] = s["jit"][::-1], s["eager"][::-1]
    return full_size(data) if len(s["batch"]) == 1 else data


def eager_falling(data):
    data = full_size(data) if len(data["scaling"]["batch"]) == 1 else data
    data["scaling"]["eager"] = data["scaling"]["eager"][::-1]
    return data


def eager_dip_inside_spread(data):
    """The un-jitted median falling from the smallest batch size to the next, the two
    inside each other's spread, then rising (the chapter's machine, one build)."""
    data = full_size(data) if len(data["scaling"]["batch"]) == 1 else data
    eager = data["scaling"]["eager"]
    eager[1] = {**scaled(eager[0], 0.85), "q3": eager[0]["median"]}
    return data


def eager_flat(data):
    """The un-jitted medians within 10 % from one batch size to the next."""
    data = full_size(data) if len(data["scaling"]["batch"]) == 1 else data
    eager = data["scaling"]["eager"]
    data["scaling"]["eager"] = [scaled(eager[0], f) for f in (1.0, 1.05, 1.1)]
    return data


def new_i_faster(data):
    """The un-jitted step with a new i faster than with the same i (it also compiles)."""
    i = data["scaling"]["batch"].index(data["config"]["batch_size"])
    data["new_i"]["eager"] = scaled(data["scaling"]["eager"][i], 0.7)
    return data


def new_i_same(data):
    i = data["scaling"]["batch"].index(data["config"]["batch_size"])
    data["new_i"]["eager"] = copy.deepcopy(data["scaling"]["eager"][i])
    return data


def remeasured(data):
    """A process whose machine check moved, measured again in a new one."""
    data["checks"] = [check(moved=True, kept=False), *data["checks"]]
    return data


def moved(data):
    """... and moved again: out of attempts, kept as measured."""
    data["checks"] = [check(moved=True, kept=False), check(moved=True, kept=True), check()]
    return data


def no_ynn_fusions(data):
    f = data["first_call"]
    f["ynn_fusions"] = 0
    if f["no_ynn"]:
        f["no_ynn"]["ynn_fusions"] = 0
    return data


def ynn_kept(data):
    f = data["first_call"]
    f["no_ynn"] = {"first_execution": f["first_execution"] * 1.2,
                   "second_execution": f["second_execution"], "ynn_fusions": f["ynn_fusions"]}
    f["no_ynn_status"] = "measured"
    return data


def ynn_refused(data):
    data["first_call"].update(no_ynn=None, no_ynn_status="refused", no_ynn_error="XlaRuntimeError")
    return data


def executions_swapped(data):
    f = data["first_call"]
    f["first_execution"], f["second_execution"] = f["second_execution"], f["first_execution"]
    return data


def disagreeing(data):
    data["agreement"].update(allclose=False, max_difference=1e-3)
    return data


def donated(data, deleted, unusable=None):
    """The batches' fate as a full build measures it: the arrays neither listed nor
    deleted are those the step never reads (the fact deeponet.unread_batches_not_donated)."""
    dn = data["donation"]
    dn.update(deleted=deleted, unusable=dn["unusable"] if unusable is None else unusable)
    dn["unread"] = dn["buffers"] - dn["unusable"] - deleted
    return data


def batches_deleted(data):
    return donated(data, deleted=3)


def batches_intact(data):
    return donated(data, deleted=0)


def every_batch_array_unusable(data):
    return donated(data, deleted=0, unusable=data["donation"]["buffers"])


def few_batch_arrays_unusable(data):
    return donated(data, deleted=3, unusable=2)


def batches_all_accounted_for(data):
    return donated(data, deleted=4, unusable=5)  # none left that the step never reads


def rounds_at_the_cap(data):
    """Every process sampled the most rounds allowed: no timing settled sooner."""
    r, n = data["rounds"], data["processes"]
    for timing in [*data["scaling"]["jit"], *data["scaling"]["eager"], data["new_i"]["eager"]]:
        timing["samples"] = (timing["samples"] * r["max"] * n)[:r["max"] * n]
    return data


def rounds_settled(data):
    """Some process stopped before the most rounds allowed (the full build ran them all)."""
    data["rounds"]["max"] += 1
    return data


def batches_fate_unmeasured(data):
    data["donation"]["deleted"] = None  # quick mode lowers only
    return data


def full_size(data):
    """The quick run's numbers spread over three batch sizes, with the step compiled
    without YNNPACK fusions: the full-size page's sentences."""
    s, b = data["scaling"], data["config"]["batch_size"]
    jit, eager = s["jit"][s["batch"].index(b)], s["eager"][s["batch"].index(b)]
    s["batch"] = [b // 2, b, b * 16]
    s["jit"] = [scaled(jit, f) for f in (0.8, 1.0, 12.0)]
    s["eager"] = [scaled(eager, f) for f in (0.95, 1.0, 1.8)]
    s["calls"] = {k: [v[0]] * 3 for k, v in s["calls"].items()}
    f = data["first_call"]
    f.update(count=5, no_ynn_status="measured",
             no_ynn={"first_execution": f["second_execution"] * 2, "second_execution": f["second_execution"],
                     "ynn_fusions": 0})
    dn = data["donation"]  # what a full build finds: the rest of the batches deleted
    dn["deleted"] = dn["buffers"] - dn["unusable"] - dn["unread"]
    return data


PERTURBATIONS = {
    "un-jitted step faster at the smallest batch": swap_smallest,
    "un-jitted step faster everywhere": unjitted_faster_everywhere,
    "full size": full_size,
    "full size, un-jitted faster at the smallest batch": lambda d: swap_smallest(full_size(d)),
    "full size, un-jitted faster everywhere": lambda d: unjitted_faster_everywhere(full_size(d)),
    "ratio rising with the batch": ratio_rising,
    "un-jitted medians falling": eager_falling,
    "un-jitted medians dipping inside their spread": eager_dip_inside_spread,
    "un-jitted medians flat": eager_flat,
    "new i faster than the same i": new_i_faster,
    "new i about the same as the same i": new_i_same,
    "a process measured again": remeasured,
    "a kept process moved": moved,
    "no YNNPACK fusions": no_ynn_fusions,
    "full size, no YNNPACK fusions": lambda d: no_ynn_fusions(full_size(d)),
    "YNNPACK fusions kept without them": ynn_kept,
    "no-YNNPACK option refused": ynn_refused,
    "second execution slower": executions_swapped,
    "jitted and un-jitted disagree": disagreeing,
    "donated batches deleted": batches_deleted,
    "donated batches intact": batches_intact,
    "every batch array unusable": every_batch_array_unusable,
    "few batch arrays unusable, some deleted": few_batch_arrays_unusable,
    "batches' fate not measured": batches_fate_unmeasured,
    "donated batches all listed or deleted": batches_all_accounted_for,
    "every process sampled the most rounds": rounds_at_the_cap,
    "a process settled before the most rounds": rounds_settled,
}


@pytest.mark.parametrize("label", list(PERTURBATIONS))
def test_each_perturbation_reports(label):
    report(PERTURBATIONS[label](copy.deepcopy(sample_data())))


def rendered(data, others=None):
    """Both editions of the DeepONet page from `data`, on one line each; `others`: other
    snippets' data the page reads (unmeasured unless given)."""
    from measurement import results_of
    from project import rendered_page

    env = {"cpu": "CPU", "cores": 2, "python": "3.13.0", "backend": "cpu", "device": "cpu",
           "date": "2026-12-05", "libraries": {"jax": "0.12.0.1"}}
    results = {"deeponet_benchmark": {"environment": env, "quick": False,
                                      **results_of(data, report(data), FIGURES)},
               "frameworks_benchmark": None, "designing_for_jit_benchmark": None}
    for name, other in (others or {}).items():
        results[name] = {"environment": env, "quick": False, "data": other}
    return rendered_page("deeponet.md", results)


def test_the_page_gives_the_other_chapters_medians_of_the_step_at_its_size():
    size = {"width": 48, "depth": 4}
    others = {"frameworks_benchmark": {"config": {"batch": 250, **size},
                                       "steps": {"physics": {"jit": {"timing": t(5.1e-3)}}}},
              "designing_for_jit_benchmark": {"config": {"batch_size": 250, **size},
                                              "designs": {"static_self": {"steady": t(3e-3)}}}}
    pages = rendered(sample_data(), others)
    assert ("The [frameworks](frameworks.md#one-training-step) (median 5.1 ms) and "
            "[design](designing-for-jit.md#measured) (median 3 ms) chapters time it") in pages["docs"]
    assert "5.1 ms" in pages["docs-ko"] and "3 ms" in pages["docs-ko"]
    others["designing_for_jit_benchmark"]["config"]["batch_size"] = 32  # another size: left out
    pages = rendered(sample_data(), others)
    assert "(median 5.1 ms) and [design](designing-for-jit.md#measured) chapters" in pages["docs"]
    unmeasured = rendered(sample_data())["docs"]
    assert "[frameworks](frameworks.md#one-training-step) and [design]" in unmeasured


@pytest.mark.parametrize("second, en, ko", [
    (0.006, "and its second 6 ms, 2× slower", "두 번째 실행은 6 ms 걸려 퓨전이 있을 때보다 2배 느렸다."),
    (0.0015, "and its second 1.5 ms, 2× faster", "두 번째 실행은 1.5 ms 걸려 퓨전이 있을 때보다 2배 빨랐다."),
    (0.003, "and its second 3 ms, about the same", "두 번째 실행은 3 ms 걸려 퓨전이 있을 때와 거의 같았다.")])
def test_the_step_without_ynnpack_fusions_words_its_second_execution_too(second, en, ko):
    """Its second execution against the step's own second (3 ms), either way."""
    data = sample_data()
    data["first_call"]["no_ynn"]["second_execution"] = second
    pages = rendered(data)
    assert en in pages["docs"] and ko in pages["docs-ko"]


def test_the_headline_holds_i_fixed_and_says_what_a_new_i_costs():
    pages = rendered(sample_data())
    assert "with nothing compiled during a step" in pages["docs"]
    assert "스텝 도중에는 아무것도 컴파일되지 않았다" in pages["docs-ko"]
    assert "each un-jitted step took 80 ms more (medians)" in pages["docs"]
    assert "스텝마다 80 ms 더 걸렸다" in pages["docs-ko"]
    faster = rendered(new_i_faster(sample_data()))
    assert "which a compilation per step cannot explain" in faster["docs"]
    assert "컴파일로는 설명되지 않는 차이다" in faster["docs-ko"]
    same = rendered(new_i_same(sample_data()))
    assert "the two un-jitted medians, 320 ms and 320 ms, were 1.00× apart" in same["docs"]
    assert "jit하지 않은 두 스텝의 중앙값은 320 ms와 320 ms로 1.00배 차이가 났다" in same["docs-ko"]


def test_the_page_says_how_many_processes_and_how_the_machine_state_held():
    steady, again, kept = (rendered(f(sample_data())) for f in (lambda d: d, remeasured, moved))
    assert "on the home page come from 2 fresh processes" in steady["docs"]
    assert "between 2.45 ms and 2.52 ms" in steady["docs"]  # each process's median
    assert "moved by up to 1.5× within a process, under the 2× that counts as a move" in steady["docs"]
    assert "한 프로세스 안에서 최대 1.5배 움직였다" in steady["docs-ko"]
    assert "moved by more than 2× in 1: it was measured" in again["docs"]
    assert "moved by more than 2× in 1 of the processes kept" in kept["docs"]
    assert "프로세스 1개에서 2배보다 크게 달라져" in again["docs-ko"]
    assert "새 프로세스 2개를 차례로" in steady["docs-ko"]


def test_the_page_says_which_donated_batch_arrays_were_kept_and_which_deleted():
    deleted = rendered(batches_deleted(sample_data()))
    assert ("Most of the batches' arrays have none: JAX warns about 5 (on a tiny model) and leaves "
            "them intact; 3 of the 9 had one and were deleted, and the other 1, which the step never "
            "reads, was neither:") in deleted["docs"]
    assert "배열 9개 가운데 그런 출력이 있던 3개는 삭제되었다" in deleted["docs-ko"]
    assert "스텝이 읽지 않는 나머지 1개는 경고에도 나오지 않았고" in deleted["docs-ko"]
    listed = rendered(batches_all_accounted_for(sample_data()))
    assert "4 of the 9 had one and were deleted:" in listed["docs"]
    assert "스텝이 읽지 않는 나머지" not in listed["docs-ko"]
    intact = rendered(every_batch_array_unusable(sample_data()))
    assert "The batches' arrays have none: JAX warns about 9 (on a tiny model) and leaves all 9" in intact["docs"]
    few = rendered(few_batch_arrays_unusable(sample_data()))
    assert "Some of the batches' arrays have none: JAX warns about 2" in few["docs"]
    assert "배치의 배열 일부는 그런 출력이 없다" in few["docs-ko"]
    quick = rendered(batches_fate_unmeasured(sample_data()))
    assert "quick mode only lowers the step, so the batches' fate is not measured" in quick["docs"]


def test_the_page_says_whether_the_rounds_stopped_at_the_cap():
    settled = rendered(sample_data())
    assert "4 to 5 rounds, until one moved no quartile by over 5 %" in settled["docs"]
    cap = rendered(rounds_at_the_cap(sample_data()))
    assert "in turns for 5 rounds, the cap: not every spread had settled sooner" in cap["docs"]
    assert "상한인 5라운드(round)까지 쟀다. 모든 시간의 흩어짐이 그 전에 안정되지는 않았다" in cap["docs-ko"]
    assert report(rounds_settled(rounds_at_the_cap(sample_data()))).verdicts["rounds"] == {
        "kind": "settled"}


def test_the_page_names_what_the_measuring_time_went_to():
    pages = rendered(sample_data())
    assert ("Measuring took 106 s: the processes 90 s (first calls 20 s; warm-up, 2 at a time, 30 s; "
            "samples 40 s; the rest start-up and machine checks), then checks 1 s and training 15 s.") in pages["docs"]
    again = rendered(remeasured(sample_data()))
    assert "the rest start-up, machine checks and a replaced process)" in again["docs"]
    assert "그리고 교체된 프로세스 하나에 들었다" in again["docs-ko"]
