"""snippets/training_loop_pauses.py: the loop, JAX's log, the in-flight count, the
shared caches. Compilations are counted in JAX's own log (jax_log_compiles), never from
a time; no test asserts a timing.
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
from project import one_step_taken
import training_loop_pauses_benchmark as bench
from deeponet import evaluate_losses

CONFIG = tl.TINY


@pytest.fixture(scope="module")
def setup():
    """A tiny model whose step is compiled for one batch, as after the training loop."""
    return one_step_taken(CONFIG)


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
        seconds, log, waits = tl.train(model, jax.random.key(3), functions, 7,
                                       log_every=3, evaluate=evaluate_losses, bar_file=bar)
    assert len(seconds) == 7 and len(waits) == 3  # one wait per logging iteration
    assert [row["it"] for row in log] == [0, 3, 6]
    assert all(set(row) == {"it", "ics", "bcs", "res"} for row in log)
    assert "7/7 [" in bar.getvalue() and "it/s]" in bar.getvalue()
    assert tl.compiled(messages, "step") == []  # the same object, compiled before: never again


def test_in_flight_never_exceeds_the_cpu_clients_limit(setup):
    model, _, batches, _ = setup
    counts = tl.in_flight(model, batches, n=40)
    assert len(counts) == 40 and 0 <= min(counts) and max(counts) <= 32


def test_the_shared_caches_are_the_sizes_the_page_states():
    sizes = tl.jit_cache_sizes()
    assert sizes == bench.STATED_CACHES
    assert all(isinstance(v, int) and v > 0 for v in sizes.values())


def test_every_jitted_call_fills_the_dispatch_cache_the_page_names():
    assert bench.dispatch_caches_filled() == {"jax.jit": ["_cpp_pjit_cache_explicit_attributes"],
                                              "eager": ["_cpp_pjit_cache_explicit_attributes"]}
