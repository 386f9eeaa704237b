"""snippets/training_loop_pauses.py: the loop, JAX's log, the recompilations the chapter states, the stale self.

Compilations are counted in JAX's own log (jax_log_compiles), never from a time.
"""

import io
import logging
import os
import subprocess
import sys

import jax
import numpy as np
import pytest

import training_loop_pauses as tl
import training_loop_pauses_benchmark as bench
from deeponet import PIDeepONet, evaluate_losses, random_functions

CONFIG = tl.TINY

# What docs/training-loop-pauses.md says: compilations of `step` (with the mistake, with the fix).
STATED = {
    "ragged": (1, 0),  # "the short batch compiles the step again, once"
    "numpy_int": (1, 0),  # "the same number, one compilation more"
    "new_instance": (1, 0),  # "compiles the step per run"; reusing the object compiles nothing
    "x64": (1, None),  # "trace and compile again; switching it back finds the 32-bit program"
    "numpy_batch": (0, None),  # "JAX logged nothing ... Yet _cache_size() grew by one"
}
# Why, in JAX's words: a phrase of each explanation the page quotes.
EXPLAINED = {
    "ragged": "different input types",
    "numpy_int": "weak_type=False} and before i32[]{weak_type=True}",
    "new_instance": "Static(val=<deeponet.PIDeepONet object",
    "x64": "jax_enable_x64 differs: now True and before False",
}


@pytest.fixture(scope="module")
def setup():
    """A tiny model whose step is compiled for one batch, as after the training loop."""
    functions = random_functions(jax.random.key(0), CONFIG.n_functions, CONFIG.n_sensors)
    model = PIDeepONet(CONFIG)
    params = model.params
    _, batches = tl.next_batches(jax.random.key(1), functions, CONFIG.batch_size)
    model.opt_state = model.step(next(model.itercount), model.opt_state, *batches)
    return model, functions, batches, params


def test_jax_log_collects_compilations_and_restores_the_flags():
    before = (jax.config.jax_log_compiles, jax.config.jax_explain_cache_misses)
    handlers = list(logging.getLogger("jax").handlers)

    @jax.jit
    def twice(x):
        return 2 * x

    with tl.jax_log() as messages:
        assert jax.config.jax_log_compiles and jax.config.jax_explain_cache_misses
        twice(np.ones(3, np.float32))
        twice(np.ones(3, np.float32) + 1)  # new values: no compilation
        twice(np.ones(4, np.float32))  # a new shape: compiled again
    assert (jax.config.jax_log_compiles, jax.config.jax_explain_cache_misses) == before
    assert logging.getLogger("jax").handlers == handlers
    assert tl.compiled(messages, "twice") == ["twice", "twice"]
    assert any(m.startswith("TRACING CACHE MISS") and "f32[4]" in m for m in messages)
    assert len(tl.compile_seconds(messages)) == len(tl.compiled(messages))


def test_the_one_line_diagnostic_prints_the_messages_jax_log_collects(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import jax\n\n@jax.jit\ndef f(x):\n    return 2 * x\n\n"
                      "f(1.0)\nf(3.0)\nf(jax.numpy.ones(2))\n")
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, env={**os.environ, "JAX_LOG_COMPILES": "1",
                                                         "JAX_EXPLAIN_CACHE_MISSES": "1"})
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()  # the plain messages, one record after another
    assert tl.compiled(lines, "f") == ["f", "f"]  # a Python float, then float32[2]
    assert "TRACING CACHE MISS" in result.stderr and "never seen function" in result.stderr


def test_compiled_reads_the_function_names_of_the_log():
    messages = ["Finished tracing step for jit in 0.1 sec",
                "Finished XLA compilation of jit(step) in 1.2 sec",
                "Finished XLA compilation of jit(tanh) in 0.01 sec"]
    assert tl.compiled(messages) == ["step", "tanh"]
    assert tl.compiled(messages, "step") == ["step"]
    assert tl.compile_seconds(messages) == [1.2, 0.01]


def test_the_loop_times_every_iteration_and_logs_on_schedule(setup):
    model, functions, _, params = setup
    tl.reset(model, params)
    bar = io.StringIO()
    with tl.jax_log() as messages:
        seconds, log = tl.train(model, jax.random.key(3), functions, 7, log_every=3,
                                evaluate=evaluate_losses, bar_file=bar)
    assert len(seconds) == 7 and all(s > 0 for s in seconds)
    assert [row["it"] for row in log] == [0, 3, 6]
    assert all(set(row) == {"it", "ics", "bcs", "res"} for row in log)
    assert "7/7 [" in bar.getvalue() and "it/s]" in bar.getvalue()
    assert tl.compiled(messages, "step") == []  # the same object, compiled before: never again


def test_in_flight_never_exceeds_the_cpu_clients_limit(setup):
    model, _, batches, _ = setup
    counts = tl.in_flight(model, batches, n=40)
    assert len(counts) == 40 and 0 <= min(counts) and max(counts) <= 32


def test_each_recompilation_is_what_the_page_says(setup):
    model, functions, batches, params = setup
    x64 = jax.config.jax_enable_x64
    scenarios = bench.run_scenarios(model, functions, batches, params, CONFIG)  # raises on a mismatch
    assert jax.config.jax_enable_x64 == x64
    assert bench.STATED == STATED
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
    assert scenarios["kept_alive"]  # the step's cache holds the second model
    table = bench.scenario_table(scenarios, CONFIG.batch_size)
    assert table.count("\n") == 2 + len(STATED)


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
