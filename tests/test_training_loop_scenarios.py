"""snippets/training_loop_scenarios.py: each recompilation the chapter states, and the
stale static self, as JAX's own log counts them."""

import jax
import numpy as np
import pytest

import training_loop_pauses as tl
from project import one_step_taken
import training_loop_scenarios as sc
from deeponet import evaluate_losses

CONFIG = tl.TINY

# What docs/training-loop-pauses.md says: compilations of `step` (mistake, fix).
STATED = {
    "ragged": (1, 0),  # "the short batch compiles the step again, once"
    "numpy_int": (1, 0),  # "the same number, one compilation more"
    "new_instance": (1, 0),  # "compiles the step per run"; reusing it compiles nothing
    "x64": (1, None),  # "trace and compile again; switching back finds the 32-bit one"
    "numpy_batch": (0, None),  # "JAX logged nothing ... Yet _cache_size() grew by one"
}
# Why, in JAX's words: a phrase of each explanation the page quotes.
EXPLAINED = {
    "ragged": "different input types",
    "numpy_int": "weak_type=False} and before i32[]{weak_type=True}",
    # jax 0.12.0.1 names no static self (0.10.2: Static(val=<deeponet.PIDeepONet object ...>)):
    # it explains the closest key, here another argument's weak type
    "new_instance": "all previously seen cache keys differ",
    "x64": "jax_enable_x64 differs: now True and before False",
}


@pytest.fixture(scope="module")
def setup():
    """A tiny model whose step is compiled for one batch, as after the training loop.

    Nothing else compiled: JAX explains a cache miss against the entries it holds, so
    another test's model would change the explanations this file reads.
    """
    jax.clear_caches()
    return one_step_taken(CONFIG)


def test_each_recompilation_is_what_the_page_says(setup):
    model, functions, batches, params = setup
    x64 = jax.config.jax_enable_x64
    # stops the build (measurement.fact) on a mismatch
    scenarios = sc.run_scenarios(model, functions, batches, params, CONFIG)
    assert jax.config.jax_enable_x64 == x64
    assert sc.STATED == STATED
    for key, (mistake, fix) in STATED.items():
        runs = scenarios[key]
        assert [r["compiles"] for r in runs] == ([mistake] if fix is None else [fix, mistake]), key
        for run in runs:
            before, after = run["cache"]
            grew = 1 if key == "numpy_batch" else run["compiles"]
            assert after - before == grew, key  # one cache entry per compilation, but NumPy arguments
        if key in EXPLAINED:
            assert any(EXPLAINED[key] in m for m in runs[-1]["log"]), runs[-1]["log"]
        else:
            assert runs[-1]["log"] == []  # no trace, no compilation: nothing logged
        if key == "new_instance":  # "is not named in jax {{ env.jax }}" (a fact in the build)
            missed = [m for m in runs[-1]["log"] if "CACHE MISS" in m]
            assert missed and not any(sc.mentions(m, "self") or "static" in m.lower() for m in missed)
    assert scenarios["kept_alive"] is True  # the step's cache holds the second model


def test_a_static_self_gives_the_stale_value_and_the_argument_the_fresh_one(setup):
    model, _, batches, _ = setup
    weighted = tl.WeightedDeepONet(CONFIG)
    terms = {k: float(v) for k, v in evaluate_losses(weighted.params, *batches).items()}
    with_ten = 10.0 * terms["ics"] + terms["bcs"] + terms["res"]
    with_zero = terms["bcs"] + terms["res"]

    with tl.jax_log() as log:
        before, after = tl.stale_weight(weighted, batches)
    assert weighted.ics_weight == 0.0
    assert tl.compiled(log, "total_loss") == ["total_loss"]  # once, before the change; not after
    assert after == before == pytest.approx(with_ten, rel=1e-5)  # stale: still weight 10
    assert after != pytest.approx(with_zero, rel=1e-3)

    with tl.jax_log() as log:
        ten, zero = tl.fresh_weight(weighted.params, batches)
    assert tl.compiled(log, "weighted_loss") == ["weighted_loss"]  # one program for both weights
    assert ten == pytest.approx(with_ten, rel=1e-5) and zero == pytest.approx(with_zero, rel=1e-5)

    with tl.jax_log() as log:
        step_before, step_after = tl.stale_step(model, batches)
    assert tl.compiled(log) == []
    for a, b in zip(jax.tree.leaves(step_before), jax.tree.leaves(step_after)):
        np.testing.assert_array_equal(a, b)  # the update made with the old weight, bit for bit
    assert model.ics_weight == 10.0  # stale_step puts the weight back


def test_run_stale_records_the_numbers_the_page_words(setup):
    model, _, batches, _ = setup
    tl.weighted_loss.clear_cache()  # as in the build: compiled once, there
    stale = sc.run_stale(model, batches, CONFIG)  # stops the build unless JAX behaves so
    assert (stale["compiles_stale"], stale["compiles_fresh"], stale["compiles_step"]) == (1, 1, 0)
    assert stale["after"] == stale["before"] != stale["fresh"][1]
    assert stale["step_difference"] >= 0.0  # data: the page words 0 and otherwise
