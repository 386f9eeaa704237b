"""snippets/deeponet_benchmark.py: what the build measured, and what a reader's run prints."""


import deeponet
from project import QUICK_RESULTS, ROOT, quick_results

FOLDER = QUICK_RESULTS / "deeponet_benchmark"


def results():
    return quick_results("deeponet_benchmark")


def test_results_hold_every_table_figure_and_number_the_page_uses(built_site):
    r = results()
    assert r["tables"] == ["accuracy", "first_call", "loss", "prediction", "step_time"]
    assert set(r["figures"]) == {"loss_curve", "prediction"}
    page = (ROOT / "docs" / "deeponet.md").read_text()
    for key in r["text"]:
        assert r["text"][key], key
    used = {part.split()[0] for part in page.split("deeponet_benchmark.text.")[1:]}
    assert used <= set(r["text"]), used - set(r["text"])
    for name, figure in r["figures"].items():
        svg = FOLDER / figure["file"]
        assert svg.stat().st_size < 100_000, name
        assert figure["alt"] and figure["caption"], name


def test_two_batch_sizes_each_timed_jitted_and_not(built_site):
    runs = results()["data"]["runs"]
    config = deeponet.SMALL  # quick mode
    assert [m["batch_size"] for m in runs] == [config.batch_size, 10 * config.batch_size]
    for m in runs:
        for key in ("jit", "eager"):
            assert m[key]["median"] > 0 and len(m[key]["samples"]) >= 3
        # a new Python int i every call: no recompilation of the jitted step ...
        assert m["jit_steady_compiles"] == 0 and m["jit_steady_calls"] > 0
        # ... while the op-by-op step compiles the `b1 ** (i + 1)` of every new i
        assert m["eager_compiles_per_call"] > 0


def test_jitted_and_unjitted_steps_give_the_same_parameters(built_site):
    agreement = results()["data"]["agreement"]  # one step of each, from the same state
    assert agreement["max_step"] > 1e-4  # the step did move the parameters
    assert agreement["allclose"]  # to float32 tolerance: rtol 1e-5, atol 1e-6
    assert agreement["max_difference"] < 1e-5


def test_first_call_is_split_and_break_even_is_consistent(built_site):
    first = results()["data"]["first_call"]
    assert first["trace_and_lower"] > 0 and first["compile"] > 0 and first["first_execution"] > 0
    assert first["eager_first_compiles"] > 10  # op by op: many primitives, each compiled
    assert first["jit_first"] == first["trace_and_lower"] + first["compile"] + first["first_execution"]
    assert first["repay_compile_steps"] >= 1 and first["cold_start_steps"] >= 1  # jit was faster


def test_training_logged_every_term_and_errors_for_every_held_out_input(built_site):
    training = results()["data"]["training"]
    config = deeponet.SMALL
    assert training["steps"] == config.steps
    assert training["log"][0]["step"] == 1 and training["log"][-1]["step"] == config.steps
    assert all(set(row) == {"step", "ics", "bcs", "res"} for row in training["log"])
    assert len(training["errors"]) == config.n_test
    assert all(e > 0 for e in training["errors"])


def test_the_page_shows_the_original_step_and_its_numbers(built_site):
    html = (built_site / "deeponet" / "index.html").read_text()
    assert "static_argnums" in html and "opt_update" in html and "__wrapped__" in html
    assert results()["text"]["ratio_small"] in html
    assert "quick mode" in html  # the stamp says how the numbers were made
