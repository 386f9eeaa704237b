"""What jax.jit does before it runs anything: tracing, the jaxpr, and the cache of compiled programs.

Run it to see a trace-time print, a jaxpr and every cache case:  python snippets/jit_tracing.py
"""

# --8<-- [start:imports]
import contextlib
import functools
import logging
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from selu import selu
# --8<-- [end:imports]


# --8<-- [start:selu_loud]
@jax.jit
def selu_loud(x):
    print("tracing selu_loud with x =", x)  # Python: runs while JAX traces the function
    jax.debug.print("running selu_loud with x = {}", x)  # part of the program: runs every call
    return selu(x)
# --8<-- [end:selu_loud]


# --8<-- [start:three_calls]
def three_calls():
    for x in (jnp.array([1.0, -1.0]),
              jnp.array([2.0, -2.0]),  # same shape and dtype: the compiled program is reused
              jnp.array([1.0, -1.0, 0.5])):  # a new shape: traced and compiled again
        selu_loud(x).block_until_ready()
        jax.effects_barrier()  # wait for the run-time print too, so the output keeps its order
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


# Every call made through `watch` is recorded here by the case functions below.
calls: list[dict] = []
_explanations: list[str] = []  # messages from jax_explain_cache_misses, while explain_cache_misses() is on


# --8<-- [start:watch]
def watch(jitted):
    """`jitted`, recording around every call its cache size and whether it traced."""
    def watched_call(*args, **kwargs):
        size, traced, logged = jitted._cache_size(), traces, len(_explanations)
        out = jitted(*args, **kwargs)
        calls.append({"cache_before": size, "cache_after": jitted._cache_size(),
                      "traced": traces > traced, "log": _explanations[logged:]})
        return out
    return watched_call
# --8<-- [end:watch]


# --8<-- [start:explain]
@contextlib.contextmanager
def explain_cache_misses():
    """Collect JAX's explanation of every cache miss (the jax_explain_cache_misses flag)."""
    class Collect(logging.Handler):
        def emit(self, record):
            _explanations.append(record.getMessage())

    handler, logger = Collect(level=logging.WARNING), logging.getLogger("jax")
    logger.addHandler(handler)
    previous = jax.config.jax_explain_cache_misses
    jax.config.update("jax_explain_cache_misses", True)
    try:
        yield
    finally:
        jax.config.update("jax_explain_cache_misses", previous)
        logger.removeHandler(handler)
# --8<-- [end:explain]


x = jnp.ones(3)  # float32[3], the first argument of every case

# --8<-- [start:case_new_values]
def case_new_values():
    f = watch(jax.jit(scale))
    f(x, 2.0)
    f(x + 1, 2.0)  # other values, same shape and dtype (and 2.0 is again a Python float)
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
    f(x, 2)  # a Python int: int32 with a *weak* type, which defers to the array's dtype
    f(x, 3)  # another Python int: same key (the value is data, not part of the key)
    f(x, np.int32(2))  # the same number as a NumPy int32: a strong type, a new key
# --8<-- [end:case_weak_type]


# --8<-- [start:case_fresh_function]
def case_fresh_lambda():
    for _ in range(2):
        watch(jax.jit(lambda v: scale(v, 2.0)))(x)  # a new function object each time


def case_fresh_partial():
    for _ in range(2):
        watch(jax.jit(functools.partial(scale, factor=2.0)))(x)  # a new partial object each time


def case_same_function():
    for _ in range(3):
        watch(jax.jit(scale))(x, 2.0)  # a new jit wrapper, but the same function `scale`
# --8<-- [end:case_fresh_function]


# --8<-- [start:case_static]
def case_static_argument():
    f = watch(jax.jit(scale, static_argnames="factor"))
    f(x, factor=2.0)
    f(x, factor=3.0)  # a static argument's value is part of the key: a new program
    f(x, factor=2.0)  # back to 2.0: that program is still in the cache
# --8<-- [end:case_static]


# Each case: its title, its function, and what it must do: for every call, the cache size
# before and after it and whether it traced. The chapter states exactly this; run_case checks it,
# so the build fails if JAX ever disagrees.
CASES = {
    "new_values": ("new values", case_new_values, [(0, 1, True), (1, 1, False)]),
    "new_shape": ("a new shape", case_new_shape, [(0, 1, True), (1, 2, True)]),
    "new_dtype": ("a new dtype", case_new_dtype, [(0, 1, True), (1, 2, True)]),
    "weak_type": ("a Python int, then np.int32", case_weak_type,
                  [(0, 1, True), (1, 1, False), (1, 2, True)]),
    "fresh_lambda": ("a fresh lambda each call", case_fresh_lambda, [(0, 1, True)] * 2),
    "fresh_partial": ("a fresh partial each call", case_fresh_partial, [(0, 1, True)] * 2),
    "same_function": ("the same function, a fresh jax.jit each call", case_same_function,
                      [(0, 1, True), (1, 1, False), (1, 1, False)]),
    "static_argument": ("a changed static argument", case_static_argument,
                        [(0, 1, True), (1, 2, True), (2, 2, False)]),
}


def run_case(name):
    """Run one case on empty caches; return its calls, checked against CASES."""
    _, case, expected = CASES[name]
    jax.clear_caches()  # every case starts from nothing compiled
    calls.clear()
    case()
    seen = [(c["cache_before"], c["cache_after"], c["traced"]) for c in calls]
    if seen != expected:
        raise AssertionError(f"cache case {name!r}: expected (before, after, traced) {expected}, "
                             f"JAX did {seen}")
    return list(calls)


def relative_paths(message):
    """A log message with this folder's path cut off, so it names files as snippets/ does."""
    return message.replace(str(Path(__file__).resolve().parent) + "/", "")


if __name__ == "__main__":
    three_calls()
    print(selu_jaxpr(jnp.ones(3)))
    with explain_cache_misses():
        for name, (title, _, _) in CASES.items():
            print(f"\n{title}:")
            for call in run_case(name):
                print(f"  cache size {call['cache_before']} -> {call['cache_after']}, "
                      f"traced: {call['traced']}")
                for message in call["log"]:
                    print("   ", relative_paths(message).replace("\n", "\n    "))
