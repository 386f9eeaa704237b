"""snippets/jit_tracing.py: trace-time side effects, the jaxpr, and every cache case the chapter states."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jit_tracing
from jit_tracing import CASES, explain_cache_misses, run_case, selu_jaxpr, selu_loud, three_calls

# What docs/jit.md states for each case: per call, (cache size before, after, traced).
STATED = {
    "new_values": [(0, 1, True), (1, 1, False)],
    "new_shape": [(0, 1, True), (1, 2, True)],
    "new_dtype": [(0, 1, True), (1, 2, True)],
    "weak_type": [(0, 1, True), (1, 1, False), (1, 2, True)],
    "fresh_lambda": [(0, 1, True), (0, 1, True)],
    "fresh_partial": [(0, 1, True), (0, 1, True)],
    "same_function": [(0, 1, True), (1, 1, False), (1, 1, False)],
    "static_argument": [(0, 1, True), (1, 2, True), (2, 2, False)],
}


def lines(capsys, start):
    return [line for line in capsys.readouterr().out.splitlines() if line.startswith(start)]


def test_trace_time_print_happens_once_per_compilation(capsys):
    jax.clear_caches()
    inputs = [jnp.ones(2), jnp.zeros(2), jnp.ones(3), jnp.ones(2) * 5, jnp.ones(3, jnp.int32),
              jnp.ones(3), jnp.ones((2, 2))]
    for x in inputs:
        selu_loud(x).block_until_ready()
    jax.effects_barrier()
    out = capsys.readouterr().out.splitlines()
    compilations = selu_loud._cache_size()
    distinct = len({(x.shape, x.dtype) for x in inputs})
    assert compilations == distinct == 4
    assert sum(line.startswith("tracing selu_loud") for line in out) == compilations
    assert sum(line.startswith("running selu_loud") for line in out) == len(inputs)  # every call


def test_three_calls_trace_twice_and_run_three_times(capsys):
    jax.clear_caches()
    three_calls()
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" with")[0] for line in out] == [
        "tracing selu_loud", "running selu_loud", "running selu_loud",
        "tracing selu_loud", "running selu_loud"]
    assert "JitTracer(float32[2])" in out[0] and "JitTracer(float32[3])" in out[3]  # no data while tracing


def test_jaxpr_holds_shapes_and_dtypes_not_data():
    abstract = selu_jaxpr(jax.ShapeDtypeStruct((1000,), jnp.float32))
    assert str(abstract) == str(selu_jaxpr(jnp.arange(1000.0))) == str(selu_jaxpr(-jnp.ones(1000)))
    text = str(abstract)
    assert "f32[1000]" in text and "exp" in text and "select_n" in text


@pytest.mark.parametrize("case", list(STATED))
def test_each_cache_case_changes_the_cache_exactly_as_the_chapter_states(case):
    calls = run_case(case)
    assert [(c["cache_before"], c["cache_after"], c["traced"]) for c in calls] == STATED[case]
    assert CASES[case][2] == STATED[case]  # the build checks the same statement


def test_the_explanations_name_what_changed():
    with explain_cache_misses():
        new_shape = run_case("new_shape")
        weak = run_case("weak_type")
        static = run_case("static_argument")
        fresh = run_case("fresh_lambda")
        same = run_case("same_function")
    assert "now f32[4] and before f32[3]" in "".join(new_shape[1]["log"])
    assert "weak_type=False" in "".join(weak[2]["log"]) and weak[1]["log"] == []
    assert "Static(val=3.0)" in "".join(static[1]["log"]) and static[2]["log"] == []
    assert "being re-defined repeatedly" in "".join(fresh[1]["log"])
    assert same[1]["log"] == same[2]["log"] == []


def test_explaining_is_switched_off_again():
    before = jax.config.jax_explain_cache_misses
    with explain_cache_misses():
        assert jax.config.jax_explain_cache_misses
    assert jax.config.jax_explain_cache_misses == before


def test_a_case_that_disagrees_with_the_page_fails_loudly(monkeypatch):
    title, case, _ = CASES["new_shape"]
    monkeypatch.setitem(CASES, "new_shape", (title, case, [(0, 1, True), (1, 1, False)]))
    with pytest.raises(AssertionError, match="new_shape"):
        run_case("new_shape")


def test_log_paths_are_shortened_to_the_snippet_name():
    folder = str(jit_tracing.Path(jit_tracing.__file__).resolve().parent)
    assert jit_tracing.relative_paths(f"at {folder}/jit_tracing.py:12") == "at jit_tracing.py:12"


def test_scale_scales():
    np.testing.assert_array_equal(jit_tracing.scale(jnp.arange(3.0), 2.0), [0.0, 2.0, 4.0])
