"""What jax.jit does: tracing, the jaxpr, the cache of compiled programs, and what a
compiled call costs (break-even, asynchronous dispatch, buffer donation).

Run it to see a trace-time print, a jaxpr and every cache case:  python snippets/jit.py
"""

# --8<-- [start:imports]
import contextlib
import functools
import itertools
import logging
import math
import time

import jax
import jax.numpy as jnp
import numpy as np
# --8<-- [end:imports]

# The page shows these too, in order: the SELU chapter's `selu` and compilation.py's
# counter, so that its blocks, copied in order into one file, run.
from compilation import Compilations, count_compilations
from measurement import relative_paths
from selu import selu, selu_jit


# --8<-- [start:selu_loud]
@jax.jit
def selu_loud(x):
    print("tracing selu_loud with x =", x)  # Python: runs while JAX traces
    jax.debug.print("running selu_loud with x = {}", x)  # in the program: every call
    return selu(x)
# --8<-- [end:selu_loud]


# --8<-- [start:three_calls]
def three_calls():
    for x in (jnp.array([1.0, -1.0]),
              jnp.array([2.0, -2.0]),  # same shape and dtype: reuses the program
              jnp.array([1.0, -1.0, 0.5])):  # a new shape: traced and compiled again
        selu_loud(x).block_until_ready()
        jax.effects_barrier()  # wait for the run-time print too, to keep the order
# --8<-- [end:three_calls]


# --8<-- [start:jaxpr]
def selu_jaxpr(x):
    """The jaxpr that tracing `selu` with arguments like `x` produces."""
    return jax.jit(selu).trace(x).jaxpr
# --8<-- [end:jaxpr]


# --8<-- [start:scale]
traces = 0  # how many times `scale` has been traced


def scale(x, factor):
    global traces
    traces += 1  # a Python side effect, like the print above: it counts traces
    return x * factor
# --8<-- [end:scale]


# --8<-- [start:watch]
calls = []  # one record per call made through watch()
explanations = []  # JAX's reasons for each cache miss, while watching_jax() is on
compilations = Compilations()  # XLA compilations, counted while watching_jax() is on


def watch(jitted):
    """`jitted`, recording around every call: cache size, traced, compilations."""
    def watched_call(*args, **kwargs):
        # _cache_size() is private JAX API (the underscore): fine for a look inside,
        # not for code that must survive a JAX upgrade.
        size, traced, compiled = jitted._cache_size(), traces, compilations.total()
        logged = len(explanations)
        out = jitted(*args, **kwargs)
        calls.append({"cache_before": size, "cache_after": jitted._cache_size(),
                      "traced": traces > traced,
                      "compiled": compilations.total() - compiled,
                      "log": explanations[logged:]})
        return out
    return watched_call
# --8<-- [end:watch]


# --8<-- [start:explain]
@contextlib.contextmanager
def watching_jax():
    """Collect JAX's explanation of every cache miss, and count XLA compilations."""
    global compilations

    class Collect(logging.Handler):
        def emit(self, record):
            explanations.append(record.getMessage())

    handler, logger = Collect(level=logging.WARNING), logging.getLogger("jax")
    logger.addHandler(handler)
    previous = jax.config.jax_explain_cache_misses
    jax.config.update("jax_explain_cache_misses", True)
    try:  # count_compilations: a jax.monitoring listener (compilation.py)
        with count_compilations() as compilations:
            yield
    finally:
        jax.config.update("jax_explain_cache_misses", previous)
        logger.removeHandler(handler)
# --8<-- [end:explain]


# --8<-- [start:case_new_values]
x = jnp.ones(3)  # float32[3], the first argument of every case


def case_new_values():
    f = watch(jax.jit(scale))
    f(x, 2.0)
    f(x + 1, 2.0)  # other values, same shape and dtype (2.0 is again a Python float)
# --8<-- [end:case_new_values]


# --8<-- [start:case_new_shape]
def case_new_shape():
    f = watch(jax.jit(scale))
    f(x, 2.0)
    f(jnp.ones(4), 2.0)  # float32[4] instead of float32[3]
# --8<-- [end:case_new_shape]


# --8<-- [start:case_new_dtype]
def case_new_dtype():
    f = watch(jax.jit(scale))
    f(x, 2.0)
    f(x.astype(jnp.int32), 2.0)  # int32[3] instead of float32[3]
# --8<-- [end:case_new_dtype]


# --8<-- [start:case_weak_type]
def case_weak_type():
    f = watch(jax.jit(scale))
    f(x, 2)  # a Python int: int32 with a *weak* type, which defers to the array's
    f(x, 3)  # another Python int: same key (the value is data, not part of the key)
    f(x, np.int32(2))  # the same number as a NumPy int32: a strong type, a new key
# --8<-- [end:case_weak_type]


# --8<-- [start:case_numpy_array]
def case_numpy_array():
    f = watch(jax.jit(scale))
    f(x, 2.0)
    f(np.asarray(x), 2.0)  # the same values as a NumPy array: a new cache entry
# --8<-- [end:case_numpy_array]


# --8<-- [start:case_placement]
def case_placement():
    f = watch(jax.jit(scale))
    f(x, 2.0)
    f(jax.device_put(x, jax.devices()[0]), 2.0)  # placed on a device explicitly
# --8<-- [end:case_placement]


# --8<-- [start:case_fresh_function]
def case_fresh_lambda():
    for _ in range(2):
        watch(jax.jit(lambda v: scale(v, 2.0)))(x)  # a new function object each time


def case_fresh_partial():
    for _ in range(2):
        watch(jax.jit(functools.partial(scale, factor=2.0)))(x)  # a new partial too


def case_same_function():
    for _ in range(3):
        watch(jax.jit(scale))(x, 2.0)  # a new jit wrapper, but the same function
# --8<-- [end:case_fresh_function]


# --8<-- [start:case_method]
class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def apply(self, v):
        return scale(v, self.factor)


scaler = Scaler(2.0)


def case_bound_method():
    for _ in range(2):
        watch(jax.jit(scaler.apply))(x)  # `scaler.apply` is a new object each time
# --8<-- [end:case_method]


# --8<-- [start:case_static]
def case_static_argument():
    f = watch(jax.jit(scale, static_argnames="factor"))
    f(x, factor=2.0)
    f(x, factor=3.0)  # a static argument's value is part of the key: a new program
    f(x, factor=2.0)  # back to 2.0: that program is still in the cache
# --8<-- [end:case_static]


# The cases in the page's order (jit_benchmark.py holds what the page says of each).
CASES = {"new_values": case_new_values, "new_shape": case_new_shape,
         "new_dtype": case_new_dtype, "weak_type": case_weak_type,
         "numpy_array": case_numpy_array, "placement": case_placement,
         "fresh_lambda": case_fresh_lambda, "fresh_partial": case_fresh_partial,
         "same_function": case_same_function, "bound_method": case_bound_method,
         "static_argument": case_static_argument}


def run_case(name):
    """Run one case on empty caches; return what watch() recorded of its calls."""
    jax.clear_caches()  # every case starts from nothing compiled
    calls.clear()
    with watching_jax():
        CASES[name]()
    return list(calls)


# --8<-- [start:break_even]
def calls_to_break_even(first_call, jit_call, other_call):
    """How many calls before jit's total time drops below another method's.

    n calls cost `first_call + (n - 1) * jit_call` jitted and `n * other_call` the
    other way; this is the smallest n where the jitted total is lower (inf: never).
    """
    saving = other_call - jit_call
    if saving <= 0:
        return math.inf
    return max(1, math.floor((first_call - jit_call) / saving) + 1)


def break_even_range(first_call, jit_call, other_call):
    """Break-even from three Timings: at the medians, and extremes over quartiles."""
    corners = [calls_to_break_even(f, j, o) for f, j, o in itertools.product(
        (first_call.q1, first_call.q3), (jit_call.q1, jit_call.q3),
        (other_call.q1, other_call.q3))]
    median = calls_to_break_even(first_call.median, jit_call.median, other_call.median)
    return median, min(corners), max(corners)
# --8<-- [end:break_even]


# --8<-- [start:dispatch_timeline]
def dispatch_timeline(f, x, calls=20):
    """Seconds from the start until each call returned, and until each was ready."""
    f(x).block_until_ready()  # compiled and warm
    start = time.perf_counter()
    results, returned = [], []
    for _ in range(calls):
        results.append(f(x))  # returns as soon as the work is queued
        returned.append(time.perf_counter() - start)
    ready = []
    for result in results:  # they finish in order, so waiting in order loses nothing
        result.block_until_ready()
        ready.append(time.perf_counter() - start)
    return returned, ready


def time_one_call(f, x):
    """One call from idle: seconds until it returned, and until its result was ready."""
    start = time.perf_counter()
    result = f(x)
    returned = time.perf_counter() - start  # what a timer without blocking reports
    result.block_until_ready()
    return returned, time.perf_counter() - start
# --8<-- [end:dispatch_timeline]


# --8<-- [start:donation]
selu_donating = jax.jit(selu, donate_argnums=0)  # the output may reuse x's buffer


def donation_demo(x):
    """selu(x) with x donated, and the error that using x then raised (or None)."""
    y = selu_donating(x)  # x's memory now holds y: x is deleted
    try:
        x + 1
    except RuntimeError as error:  # any use of a donated array raises
        return y, str(error)
    return y, None  # x was still usable
# --8<-- [end:donation]


# --8<-- [start:in_place]
def set_first(v):
    return v.at[0].set(0.0)  # a new array, as far as the Python code can tell


def copies_in(jitted, v):
    """How many whole-array copies XLA kept in the optimized program for `v`."""
    hlo = jitted.lower(v).compile().as_text()
    return sum(" copy(" in line for line in hlo.splitlines())
# --8<-- [end:in_place]


if __name__ == "__main__":
    three_calls()
    print(selu_jaxpr(jnp.ones(3)))
    for name in CASES:
        print(f"\n{name}:")
        for call in run_case(name):
            print(f"  cache size {call['cache_before']} -> {call['cache_after']}, "
                  f"traced: {call['traced']}, compilations: {call['compiled']}")
            for message in call["log"]:
                print("   ", relative_paths(message).replace("\n", "\n    "))
    v = jnp.ones(1000)
    donating = jax.jit(set_first, donate_argnums=0)
    print("\ncopies in x.at[0].set:", copies_in(jax.jit(set_first), v),
          "without donation,", copies_in(donating, v), "with")
    returned, ready = dispatch_timeline(selu_jit, jnp.ones(1_000_000), calls=5)
    print("returned (ms):", [round(t * 1e3, 2) for t in returned])
    print("ready    (ms):", [round(t * 1e3, 2) for t in ready])
