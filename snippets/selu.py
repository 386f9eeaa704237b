"""SELU, the example of JAX's "Just-in-time compilation" documentation, three ways.

Run it to see the three agree:  python snippets/selu.py
"""

# --8<-- [start:imports]
import time

import jax
import jax.numpy as jnp
import numpy as np
# --8<-- [end:imports]


# --8<-- [start:selu]
def selu(x, alpha=1.67, lambda_=1.05):
    """Scaled exponential linear unit, with the constants JAX's docs use."""
    return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


selu_jit = jax.jit(selu)  # the same Python function, compiled as one XLA program
# --8<-- [end:selu]


# --8<-- [start:selu_numpy]
def selu_numpy(x, alpha=1.67, lambda_=1.05):
    """The same formula in NumPy: every operation is a precompiled C loop."""
    with np.errstate(over="ignore"):  # exp(large x) is inf; where() drops it
        return lambda_ * np.where(x > 0, x, alpha * np.exp(x) - alpha)
# --8<-- [end:selu_numpy]


# --8<-- [start:inputs]
def docs_input(n):
    """The JAX docs' input: the integers 0 .. n-1 (int32 in, float32 out)."""
    return jnp.arange(n)


def random_input(n, seed=0):
    """Standard normal float32 values: half negative, so both branches are taken."""
    return jax.random.normal(jax.random.key(seed), (n,), dtype=jnp.float32)


def numpy_input(x):
    """The same values for NumPy, as float32 like JAX's result (NumPy's exp would
    turn int32 into float64, twice the bytes and a different computation)."""
    return np.asarray(x, dtype=np.float32)
# --8<-- [end:inputs]


# --8<-- [start:timed_calls]
def eager_call(x):
    # Without block_until_ready we would time how fast JAX *queues* the work:
    # JAX dispatches asynchronously and returns before the result exists.
    return selu(x).block_until_ready()


def jit_call(x):
    return selu_jit(x).block_until_ready()


def numpy_call(x_np):
    return selu_numpy(x_np)  # NumPy is synchronous: the result is ready on return
# --8<-- [end:timed_calls]


# --8<-- [start:first_call]
def compile_stages(jitted, *args, compiler_options=None, **kwargs):
    """`jitted`'s first call up to running: seconds to trace and lower, and to
    compile; and the compiled program (it takes the arguments not marked static)."""
    t0 = time.perf_counter()
    traced = jitted.trace(*args, **kwargs)  # run on abstract values: shapes, dtypes
    lowered = traced.lower()  # jaxpr -> StableHLO, the compiler's input
    t1 = time.perf_counter()
    compiled = lowered.compile(compiler_options)  # XLA optimises, emits machine code
    t2 = time.perf_counter()
    return {"trace_and_lower": t1 - t0, "compile": t2 - t1}, traced, compiled


def first_call_stages(x):
    """Split a fresh function's first jitted call into its stages (seconds each)."""
    jax.clear_caches()  # forget every compiled program, so this really is a first call
    seconds, _, compiled = compile_stages(jax.jit(selu), x)  # a fresh function
    t0 = time.perf_counter()
    compiled(x).block_until_ready()  # first execution of that code
    seconds["first_execution"] = time.perf_counter() - t0
    return seconds


def eager_first_call(x):
    """Seconds for eager SELU's first call on x's shape: the call alone."""
    x.block_until_ready()  # the input exists before the clock starts
    jax.clear_caches()  # eager JAX compiles each operation per shape, and caches it
    t0 = time.perf_counter()
    eager_call(x)
    return time.perf_counter() - t0
# --8<-- [end:first_call]


if __name__ == "__main__":
    x = random_input(1000)  # one draw (each new shape would compile the generator)
    print("input      ", np.asarray(x)[:8].round(3))
    print("eager JAX  ", np.asarray(selu(x))[:8].round(3))
    print("jax.jit    ", np.asarray(selu_jit(x))[:8].round(3))
    print("NumPy      ", selu_numpy(numpy_input(x))[:8].round(3))
    print("first call stages (s):", first_call_stages(x))
    print("eager first call (s):", eager_first_call(x))
