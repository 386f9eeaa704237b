"""snippets/compilers.py: the stages, the memory model, and the ways to keep a compiled program."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from compilers import (bytes_moved_eagerly, bytes_moved_fused, compile_ahead_of_time, export_selu,
                       fusions, load_selu, stages)
from selu import selu_jit


@pytest.fixture(scope="module")
def selu_stages():
    return stages(jax.ShapeDtypeStruct((4096,), jnp.float32))


def test_compiled_hlo_of_selu_contains_a_fusion(selu_stages):
    hlo = selu_stages["optimized_hlo"]
    assert " fusion(" in hlo
    found = fusions(hlo)
    assert found and found[0]["kind"] == "kLoop"
    assert {"exponential", "compare", "select"} <= set(found[0]["ops"])  # the whole SELU, fused


@pytest.mark.parametrize("n", [1000, 4096])
def test_cost_analysis_reports_one_transcendental_per_element(n):
    cost = stages(jax.ShapeDtypeStruct((n,), jnp.float32))["cost"]
    assert cost["transcendentals"] == n
    assert cost["bytes accessed"] == 8 * n  # read one float32, write one


def test_memory_model_counts_whole_arrays(selu_stages):
    jaxpr = selu_stages["jaxpr"].jaxpr
    rows = bytes_moved_eagerly(jaxpr)
    assert [name for name, _, _ in rows] == ["gt", "exp", "mul", "sub", "jit(_where)", "mul"]
    assert sum(r + w for _, r, w in rows) == 50 * 4096
    assert bytes_moved_fused(jaxpr) == 8 * 4096


def test_ahead_of_time_compiled_selu_equals_jit_and_refuses_other_shapes():
    x = jnp.linspace(-3, 3, 16, dtype=jnp.float32)
    compiled = compile_ahead_of_time(16)
    np.testing.assert_array_equal(np.asarray(compiled(x)), np.asarray(selu_jit(x)))
    with pytest.raises(TypeError):
        compiled(jnp.ones(8, jnp.float32))


def test_exported_selu_round_trips_through_serialization():
    blob = export_selu()
    assert isinstance(blob, (bytes, bytearray)) and len(blob) > 0
    restored = load_selu(bytes(blob))  # as read back from a file
    for n in (1, 7, 1000):
        x = jnp.asarray(np.random.default_rng(n).standard_normal(n).astype(np.float32) * 3)
        np.testing.assert_array_equal(np.asarray(restored.call(x)), np.asarray(selu_jit(x)))
