"""snippets/selu.py: the three SELUs agree, whatever the input."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from selu import (compile_stages, eager_first_call, first_call_stages, numpy_input, selu,
                  selu_jit, selu_numpy)

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 1e-30, -1e-30, 80.0, -80.0, 1e30, -1e30,
                    np.inf, -np.inf, np.nan])


def inputs(dtype):
    rng = np.random.default_rng(0)
    floating = np.issubdtype(dtype, np.floating)
    yield "random", (rng.standard_normal((4, 257)) * 3).astype(dtype) if floating \
        else rng.integers(-50, 50, (4, 257)).astype(dtype)
    yield "zeros", np.zeros((3, 5), dtype)
    yield "negative", -np.arange(1, 1001, dtype=dtype)
    yield "large magnitude", (np.array([-1e4, -300, 300, 1e4]) if floating
                              else np.array([-2**20, -300, 300, 2**20])).astype(dtype)
    if floating:
        with np.errstate(over="ignore"):  # 1e30 does not fit in float16: inf, as intended
            yield "inf, nan and other edges", SPECIAL.astype(dtype)
    yield "scalar", np.asarray(dtype(-0.5) if floating else dtype(-2))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_jit_equals_eager_equals_numpy(dtype):
    for label, x in inputs(dtype):
        eager = np.asarray(selu(jnp.asarray(x)))
        jitted = np.asarray(selu_jit(jnp.asarray(x)))
        reference = selu_numpy(x.astype(np.float32) if dtype == np.int32 else x)
        assert eager.shape == jitted.shape == reference.shape, label
        tol = {"rtol": 1e-6, "atol": 1e-6} if dtype != np.float16 else {"rtol": 2e-3, "atol": 2e-3}
        np.testing.assert_allclose(jitted, eager, equal_nan=True, err_msg=label, **tol)
        np.testing.assert_allclose(jitted.astype(np.float32), reference.astype(np.float32),
                                   equal_nan=True, err_msg=label, **tol)


def test_known_values():
    x = jnp.array([-np.inf, -1.0, 0.0, 2.0, np.inf, np.nan], dtype=jnp.float32)
    expected = 1.05 * np.array([-1.67, 1.67 * np.expm1(-1.0), 0.0, 2.0, np.inf, np.nan])
    np.testing.assert_allclose(np.asarray(selu_jit(x)), expected, rtol=1e-6, equal_nan=True)


def test_int_input_gives_float32_like_the_docs():
    assert selu_jit(jnp.arange(10)).dtype == jnp.float32


def test_first_call_stages_reports_each_stage():
    stages = first_call_stages(jnp.ones(100))
    assert set(stages) == {"trace_and_lower", "compile", "first_execution"}
    assert all(seconds > 0 for seconds in stages.values())


def test_eager_first_call_times_a_call_on_an_existing_input():
    x = jnp.ones(123)
    assert eager_first_call(x) > 0
    assert not x.is_deleted()


def test_numpy_gets_float32_and_computes_in_float32():
    x_np = numpy_input(jnp.arange(5))
    assert x_np.dtype == np.float32 and selu_numpy(x_np).dtype == np.float32


def test_compile_stages_returns_both_stages_and_a_program_without_static_args():
    def power(x, n):
        return x ** n

    jitted = jax.jit(power, static_argnames="n")
    seconds, traced, compiled = compile_stages(jitted, jnp.arange(3.0), n=2)
    assert set(seconds) == {"trace_and_lower", "compile"}
    assert all(s >= 0 for s in seconds.values())
    assert [e.primitive.name for e in traced.jaxpr.eqns] == ["integer_pow"]
    assert compiled(jnp.arange(3.0)).tolist() == [0.0, 1.0, 4.0]  # n is baked in
    with pytest.raises(TypeError):
        compiled(jnp.arange(3.0), n=3)  # a static argument is not passed again
