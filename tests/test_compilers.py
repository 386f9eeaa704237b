"""snippets/compilers.py: the stages, the memory model, the ways to keep a program."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from compilers import (bytes_moved_eagerly, bytes_moved_fused, cache_entries,
                       compile_ahead_of_time, configured_late, export_selu, first_call,
                       fused_listing, fusions, in_fresh_process, jit_cache_capacities,
                       load_selu, programs_held, stages, without_metadata)
from selu import selu_jit


@pytest.fixture(scope="module")
def selu_stages():
    return stages(jax.ShapeDtypeStruct((4096,), jnp.float32))


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="XLA:CPU's fusion")
def test_compiled_hlo_of_selu_contains_a_fusion(selu_stages):
    hlo = selu_stages["optimized_hlo"]
    assert " fusion(" in hlo
    found = fusions(hlo)
    assert found and found[0]["kind"] == "kLoop"
    assert {"exponential", "compare", "select"} <= set(found[0]["ops"])  # all of SELU


def test_fused_listing_has_the_computation_and_no_metadata(selu_stages):
    listing = fused_listing(selu_stages["optimized_hlo"])
    assert listing.startswith("ROOT ") and " fusion(" in listing.splitlines()[0]
    assert "exponential(" in listing and listing.rstrip().endswith("}")
    assert "metadata=" not in listing and "backend_config" not in listing
    assert "selu.py" not in listing and "/" not in listing.replace("/jit", "")


def test_without_metadata_keeps_everything_else():
    line = ('%gt.0 = pred[8]{0} compare(%p, %b), direction=GT, '
            'metadata={op_name="jit(selu)/gt" stack_frame_id=4}')
    assert without_metadata(line) == "%gt.0 = pred[8]{0} compare(%p, %b), direction=GT"
    fusion = ('%f = f32[8]{0} fusion(%x), kind=kLoop, calls=%c, '
              'metadata={op_name="m"}, '
              'backend_config={"outer_dimension_partitions":["2"]}')
    assert without_metadata(fusion) == "%f = f32[8]{0} fusion(%x), kind=kLoop, calls=%c"


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="XLA:CPU's cost analysis")
@pytest.mark.parametrize("n", [1000, 4096])
def test_cost_analysis_reports_one_transcendental_per_element(n):
    cost = stages(jax.ShapeDtypeStruct((n,), jnp.float32))["cost"]
    assert cost["transcendentals"] == n
    assert cost["bytes accessed"] == 8 * n  # read one float32, write one


def test_memory_model_counts_whole_arrays(selu_stages):
    jaxpr = selu_stages["jaxpr"].jaxpr
    rows = bytes_moved_eagerly(jaxpr)
    assert [name for name, _, _ in rows] == ["gt", "exp", "mul", "sub", "jit(_where)",
                                             "mul"]
    assert sum(r + w for _, r, w in rows) == 50 * 4096
    assert bytes_moved_fused(jaxpr) == 8 * 4096


def test_jit_caches_are_bounded_and_let_go_of_dead_functions():
    assert jit_cache_capacities() == {"dispatch": 8192, "trace": 2048, "lower": 2048,
                                      "compile": 2048}
    held = programs_held(jnp.ones(16))
    before = held["before"]
    assert list(held.values()) == [before, before + 1, before, 0]


def test_ahead_of_time_compiled_selu_equals_jit_and_refuses_other_shapes():
    x = jnp.linspace(-3, 3, 16, dtype=jnp.float32)
    compiled = compile_ahead_of_time(16)
    np.testing.assert_array_equal(np.asarray(compiled(x)), np.asarray(selu_jit(x)))
    with pytest.raises(TypeError):
        compiled(jnp.ones(8, jnp.float32))


def test_exported_selu_round_trips():
    restored = load_selu(bytes(export_selu()))  # as read back from a file
    assert len(restored.platforms) == 1  # this machine's platform
    for n in (1, 7, 1000):
        x = jnp.asarray(np.random.default_rng(n).standard_normal(n).astype(np.float32))
        np.testing.assert_array_equal(np.asarray(restored.call(x)),
                                      np.asarray(selu_jit(x)))


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="the CUDA-only export runs there")
def test_exported_selu_runs_only_where_exported():
    with pytest.raises(ValueError, match="exported for platforms"):
        load_selu(export_selu(platforms=("cuda",))).call(jnp.ones(3))
    both = load_selu(export_selu(platforms=("cpu", "cuda")))
    np.testing.assert_array_equal(np.asarray(both.call(jnp.ones(3))),
                                  np.asarray(selu_jit(jnp.ones(3))))


def test_fresh_processes_write_then_load_the_persistent_cache(tmp_path):
    cold = in_fresh_process(first_call, str(tmp_path / "cache"), 100)
    warm = in_fresh_process(first_call, str(tmp_path / "cache"), 100)
    assert (cold["cache_hits"], cold["cache_writes"]) == (0, 1)
    assert (warm["cache_hits"], warm["cache_writes"]) == (1, 0)
    assert len(cache_entries(tmp_path / "cache")) == 1


def test_a_late_cache_is_used_but_a_second_folder_is_not(tmp_path):
    late = in_fresh_process(configured_late, str(tmp_path / "a"), str(tmp_path / "b"))
    assert any(name.startswith("jit_selu-") for name in late["first"])
    assert late["second"] == []
