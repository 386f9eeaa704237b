"""snippets/interpreters.py: the rungs agree, and the bytecode tools tell the truth."""

import dis
import sys

import jax.numpy as jnp
import numpy as np
import pytest

from interpreters import (RUNGS, instructions_executed, instructions_per_element,
                          ladder_inputs, loop_body_bytecode, never_run_copy, quickened,
                          selu_python)

CASES = {
    "random": np.random.default_rng(0).standard_normal(300).astype(np.float32) * 3,
    "zeros and signed zeros": np.array([0.0, -0.0, 0.0], np.float32),
    "negative": -np.arange(1, 200, dtype=np.float32) / 7,
    "large magnitude": np.array([-1e4, -300, -80, 80, 300, 1e4], np.float32),
    "one element": np.array([-0.5], np.float32),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_every_rung_computes_the_same_values(case):
    inputs = ladder_inputs(jnp.asarray(CASES[case]))
    results = {name: np.asarray(rung(inputs[name]), dtype=np.float32)
               for name, rung in RUNGS.items()}
    assert list(results) == ["pure Python", "NumPy", "eager JAX", "jax.jit"]
    for name, values in results.items():
        assert values.shape == CASES[case].shape, name
        np.testing.assert_allclose(values, results["jax.jit"], rtol=1e-6, atol=1e-6,
                                   err_msg=name)


def test_ladder_inputs_hold_the_same_data_for_every_rung():
    inputs = ladder_inputs(jnp.asarray(CASES["random"]))
    assert isinstance(inputs["pure Python"], list)
    assert isinstance(inputs["pure Python"][0], float)
    for value in inputs.values():
        np.testing.assert_array_equal(np.asarray(value, dtype=np.float32),
                                      CASES["random"])


def test_loop_body_bytecode_is_this_pythons_loop():
    listing = loop_body_bytecode()
    opnames = {i.opname for i in dis.get_instructions(selu_python)}
    lines = listing.splitlines()
    assert "FOR_ITER" in listing.split("\n\n")[0]  # the loop's first source line
    assert "JUMP_BACKWARD" in lines[-1]  # ... to the jump back to it
    shown = {word for line in lines for word in line.split() if word in dis.opmap}
    assert shown and shown <= opnames
    assert {"COMPARE_OP", "BINARY_OP", "CALL"} <= shown  # what the chapter names


def test_instruction_counts_predict_a_traced_run_exactly():
    counts = instructions_per_element()
    assert counts["negative"] > counts["positive"] > 0 and counts["fixed"] > 0
    xs = [1.5, -2.0, 0.0, 3.0, -0.1]  # 0.0 takes the else branch
    positive = sum(x > 0 for x in xs)
    expected = (counts["fixed"] + counts["positive"] * positive
                + counts["negative"] * (len(xs) - positive))
    assert instructions_executed(selu_python, xs) == expected


def test_counting_instructions_leaves_no_monitoring_tool_behind():
    tool = sys.monitoring.PROFILER_ID
    instructions_executed(selu_python, [1.0])
    assert sys.monitoring.get_tool(tool) is None
    assert sys.monitoring.get_local_events(tool, selu_python.__code__) == 0
    instructions_executed(selu_python, [1.0])  # the tool id is free again


def test_a_never_run_copy_is_plain_and_computes_the_same():
    copy = never_run_copy(selu_python)
    assert copy.__code__ is not selu_python.__code__
    assert quickened(copy) == {"specialized": [], "fused": []}
    assert copy([1.0, -1.0]) == selu_python([1.0, -1.0])


@pytest.mark.skipif(sys.version_info[:2] != (3, 13), reason="names of CPython 3.13")
def test_quickening_specializes_without_fusing_or_changing_the_count():
    function = never_run_copy(selu_python)
    before = instructions_per_element(function)
    for _ in range(50):  # enough runs for CPython to quicken the loop
        function([0.5, -0.5] * 20)
    found = quickened(function)
    assert "BINARY_OP_MULTIPLY_FLOAT" in found["specialized"]
    assert found["fused"] == []  # 3.13 fuses nothing while running
    assert instructions_per_element(function) == before  # the count sees plain code
