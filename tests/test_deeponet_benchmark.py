"""snippets/deeponet_benchmark.py: what the build measured and captured for the DeepONet page.

Timings are never asserted (the build machine is shared); what is checked is that the page
has every number it names, and that JAX behaved as the page says.
"""

import jax

import deeponet
import deeponet_benchmark
from project import QUICK_RESULTS, ROOT, quick_results, text_used

FOLDER = QUICK_RESULTS / "deeponet_benchmark"


def results():
    return quick_results("deeponet_benchmark")


def test_results_hold_every_table_figure_and_number_the_page_uses(built_site):
    r = results()
    assert list(r["tables"]) == ["accuracy", "first_call", "loss", "prediction", "step_time"]
    assert set(r["figures"]) == {"loss_curve", "prediction", "scaling"}
    page = (ROOT / "docs" / "deeponet.md").read_text()
    for key in r["text"]:
        assert r["text"][key], key
    used = text_used(page, "deeponet_benchmark")
    assert used and all(used.values()), [path for path, v in used.items() if not v]
    for name, figure in r["figures"].items():
        svg = FOLDER / figure["file"]
        assert svg.stat().st_size < 100_000, name
        assert figure["alt"] and figure["caption"], name


def test_every_batch_size_timed_jitted_and_unjitted_with_compilations_counted(built_site):
    runs = results()["data"]["runs"]
    sizes = [m["batch_size"] for m in runs]
    quick = deeponet_benchmark.settings(quick=True)["config"]
    assert sizes == [quick.batch_size]  # quick mode: one size; the full build, a curve
    full = deeponet_benchmark.settings(quick=False)
    assert deeponet.DEFAULT.batch_size in full["sizes"] and len(full["sizes"]) >= 5
    assert full["original"] is not None  # the paper's network size, full size only
    for m in runs:
        keys = ["jit", "eager"]
        if m["batch_size"] == quick.batch_size:  # the chapter's size: also the same i
            keys.append("eager_same_i")
        for key in keys:
            assert len(m[key]["samples"]) >= 3, key
            assert m["calls"][key] >= len(m[key]["samples"]), key
    assert results()["data"]["original"] is None  # the paper's network: full size only


def test_batches_of_cuts_and_joins_draws_of_one_size():
    functions = deeponet.random_functions(jax.random.key(0), 8)
    one = deeponet_benchmark.batches_of(functions, 24, 24)
    small = deeponet_benchmark.batches_of(functions, 10, 24)
    large = deeponet_benchmark.batches_of(functions, 50, 24)  # three draws of 24
    for a, b, c in zip(*map(jax.tree.leaves, (one, small, large))):
        assert len(b) == 10 and len(c) == 50 and b.dtype == a.dtype == c.dtype
        assert (b == a[:10]).all() and (c[:24] == a).all()  # the same first draw


def test_time_steps_warms_up_everything_before_the_first_sample():
    events = []

    def call(name):
        def run():
            events.append(name)
        return run

    timings, compiles, made, also_done, seconds = deeponet_benchmark.time_steps(
        {"a": call("a"), "b": call("b")}, repeats=3, min_sample_s=0,
        also=[lambda: events.append("also") or 42])
    assert also_done == [42]  # what `also` returned, in order
    assert sorted(events[:3]) == ["a", "also", "b"]  # the warm-up: each once, first
    assert events[3:] == ["a", "b"] * 4  # then calibration and samples, in turns
    assert made == {"a": 4, "b": 4} and not compiles
    assert [len(t.samples) for t in timings.values()] == [3, 3]
    assert set(seconds) == {"warm_up", "samples"}


def test_the_snippet_says_where_its_time_went(built_site):
    seconds = results()["data"]["seconds"]
    parts = ("first_calls", "warm_up", "samples", "training")
    assert set(seconds) == {*parts, "total"}
    assert sum(seconds[k] for k in parts) <= seconds["total"]  # the rest: small steps
    assert results()["text"]["build_time"].startswith("Measuring took ")


def test_jitted_and_unjitted_steps_give_the_same_parameters(built_site):
    agreement = results()["data"]["agreement"]  # one step of each, from the same state
    assert agreement["max_step"] > 1e-4  # the step did move the parameters
    assert agreement["allclose"]  # to float32 tolerance: rtol 1e-5, atol 1e-6
    assert agreement["max_difference"] < 1e-5


def test_first_call_is_split_and_ynnpack_fusions_were_counted(built_site):
    first = results()["data"]["first_call"]
    stages = ("trace_and_lower", "compile", "first_execution")
    assert all(first[k] > 0 for k in stages)  # medians of the cold first calls
    assert first["jit_first"] == first["total"]["median"]  # each call's total, median
    assert first["ynn_fusions"] > 0
    assert first["no_ynn"] is None  # a second compilation: full size only
    assert first["eager_first_compiles"] > 10  # op by op: many primitives, each compiled


def test_both_decorator_forms_and_the_captured_messages(built_site):
    r = results()
    assert r["data"]["forms_agree"] is True
    assert r["text"]["no_static_error"].startswith("TypeError: ")
    assert "not marked as static" in r["text"]["no_static_error"]
    assert " at 0x" not in r["text"]["no_static_error"]  # no memory address on the page
    assert r["text"]["donation_warning"].startswith(
        "UserWarning: Some donated buffers were not usable")


def test_training_logged_every_term_and_errors_for_every_held_out_input(built_site):
    training = results()["data"]["training"]
    config = deeponet_benchmark.settings(quick=True)["config"]
    assert training["steps"] == config.steps
    assert training["log"][0]["step"] == 1 and training["log"][-1]["step"] == config.steps
    assert all(set(row) == {"step", "ics", "bcs", "res"} for row in training["log"])
    assert len(training["errors"]) == config.n_test
    assert all(e > 0 for e in training["errors"])


def test_the_page_shows_the_step_both_forms_and_the_captured_output(built_site):
    html = (built_site / "deeponet" / "index.html").read_text(encoding="utf-8")
    for code in ("static_argnums", "opt_update", "__wrapped__", "PIDeepONetFactoryForm",
                 "optax_step", "time_calls", "Output"):
        assert code in html, code
    assert "not marked as static" in html and "Some donated buffers" in html
    assert results()["text"]["ratio_small"] in html
    assert "quick mode" in html  # the stamp says how the numbers were made


def test_the_notebook_edition_ran(built_site):
    html = (built_site / "notebooks" / "deeponet" / "index.html").read_text(encoding="utf-8")
    assert "first call" in html and "relative L2 error" in html
