"""The errors jax.jit raises, each with the smallest code that triggers it and its fix.

Every pitfall and every fix is a small function cut into a named section; the page
docs/sharp-bits.md shows them. CASES, at the end, lists the calls the page shows for
each, as lines of an interactive session; error_capture.run_session runs them, and
sharp_bits_benchmark.py captures what they raise and return while the site is built.

Run it to see every pitfall fail and every fix work:  python snippets/sharp_bits.py
"""

import sys

from error_capture import Case, Session, run_session

# --8<-- [start:imports]
from dataclasses import dataclass
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
# --8<-- [end:imports]


# ------------------------------------------------------------ 1. `if` on a traced value

# --8<-- [start:branch_pitfall]
@jax.jit
def leaky_relu(x):
    if x > 0:  # x is a tracer: whether it is positive is unknown while tracing
        return x
    return 0.1 * x
# --8<-- [end:branch_pitfall]


# --8<-- [start:branch_where]
@jax.jit
def leaky_relu_where(x):
    # Both sides are computed for every element; `where` picks one of them.
    return jnp.where(x > 0, x, 0.1 * x)
# --8<-- [end:branch_where]


# --8<-- [start:branch_cond]
@jax.jit
def leaky_relu_cond(x):
    # Both branches are compiled, one runs. The predicate must be a scalar.
    return lax.cond(x > 0, lambda v: v, lambda v: 0.1 * v, x)
# --8<-- [end:branch_cond]


# --8<-- [start:branch_static]
@partial(jax.jit, static_argnames="x")
def leaky_relu_static(x):
    if x > 0:  # x is a plain Python number now: the `if` runs while tracing
        return x
    return 0.1 * x
# --8<-- [end:branch_static]


# ---------------------------------------------- 2. a shape computed from a traced value

# --8<-- [start:shape_pitfall]
@jax.jit
def mean_on_grid(n):
    x = jnp.linspace(0.0, 1.0, n)  # n points: the shape of x depends on n's value
    return jnp.mean(jnp.sin(jnp.pi * x))
# --8<-- [end:shape_pitfall]


# --8<-- [start:shape_zeros]
@jax.jit
def zeros_of_length(n):
    return jnp.zeros(n)  # the same mistake, noticed by another function
# --8<-- [end:shape_zeros]


# --8<-- [start:shape_static]
@partial(jax.jit, static_argnames="n")
def mean_on_grid_static(n):
    x = jnp.linspace(0.0, 1.0, n)  # n is a Python int: one compiled program per n
    return jnp.mean(jnp.sin(jnp.pi * x))
# --8<-- [end:shape_static]


# ---------------------------------------------- 3. a tracer used as a Python integer

# --8<-- [start:index_pitfall]
WEIGHTS = (0.5, 0.3, 0.2)  # a Python tuple


@jax.jit
def weighted(x, i):
    return WEIGHTS[i] * x  # a tuple index must be a Python int: i.__index__() fails
# --8<-- [end:index_pitfall]


# --8<-- [start:index_int]
@jax.jit
def weighted_int(x, i):
    return WEIGHTS[int(i)] * x  # int() on a tracer fails the same way, by another route
# --8<-- [end:index_int]


# --8<-- [start:index_array]
@jax.jit
def weighted_array(x, i):
    return jnp.asarray(WEIGHTS)[i] * x  # a JAX array accepts a traced index
# --8<-- [end:index_array]


# --------------------------------------------------------- 4. a tracer handed to NumPy

# --8<-- [start:numpy_pitfall]
@jax.jit
def norm(x):
    return np.linalg.norm(x)  # NumPy needs the numbers, and a tracer has none
# --8<-- [end:numpy_pitfall]


# --8<-- [start:numpy_jnp]
@jax.jit
def norm_jnp(x):
    return jnp.linalg.norm(x)  # the jax.numpy twin traces like any other operation
# --8<-- [end:numpy_jnp]


# --8<-- [start:numpy_callback]
@jax.jit
def norm_callback(x):
    # When the NumPy code must stay NumPy: call it from the compiled program at run
    # time, declaring the shape and dtype of what it returns.
    result = jax.ShapeDtypeStruct((), jnp.float32)
    return jax.pure_callback(lambda v: np.linalg.norm(v).astype(np.float32), result, x)
# --8<-- [end:numpy_callback]


# ------------------------------------------------- 5. a mask with a data-dependent size

# --8<-- [start:mask_pitfall]
@jax.jit
def positive_sum(x):
    return x[x > 0].sum()  # how many elements x[x > 0] has depends on the data
# --8<-- [end:mask_pitfall]


# --8<-- [start:mask_where]
@jax.jit
def positive_sum_where(x):
    return jnp.where(x > 0, x, 0.0).sum()  # same shape as x: zeros where x <= 0
# --8<-- [end:mask_where]


# --8<-- [start:mask_size]
@jax.jit
def positives_padded(x):
    # A fixed output size (here: as long as x), padded with fill_value.
    return jnp.extract(x > 0, x, size=x.shape[0], fill_value=0.0)
# --8<-- [end:mask_size]


# ------------------------------------ 6. print and global variables: read while tracing

# --8<-- [start:trace_time_pitfall]
SCALE = 2.0  # a global, read while tracing


@jax.jit
def scaled(x):
    print("scaled: x is", x)  # Python's print runs while tracing, and only then
    return SCALE * x  # SCALE's value at trace time is baked into the program
# --8<-- [end:trace_time_pitfall]


# --8<-- [start:trace_time_fix]
@jax.jit
def scaled_explicit(x, scale):
    jax.debug.print("scaled_explicit: x = {x}, scale = {s}", x=x, s=scale)  # every call
    return scale * x  # scale is an argument: a new value is a new input, not stale
# --8<-- [end:trace_time_fix]


# -------------------------------------------------------------- 7. in-place assignment

# --8<-- [start:inplace_pitfall]
@jax.jit
def set_first(x, value):
    x[0] = value  # JAX arrays are immutable, inside jit and out
    return x
# --8<-- [end:inplace_pitfall]


# --8<-- [start:inplace_at]
@jax.jit
def set_first_at(x, value):
    return x.at[0].set(value)  # a new array with one element replaced
# --8<-- [end:inplace_at]


# ----------------------------------------------------- 8. an unhashable static argument

# --8<-- [start:unhashable_pitfall]
@partial(jax.jit, static_argnames="config")
def polynomial(x, config):
    # config is static: it is part of the cache key, so it must be hashable
    return sum(c * x**k for k, c in enumerate(config["coefficients"]))
# --8<-- [end:unhashable_pitfall]


# --8<-- [start:unhashable_tuple]
@partial(jax.jit, static_argnames="coefficients")
def polynomial_tuple(x, coefficients):
    return sum(c * x**k for k, c in enumerate(coefficients))  # pass a tuple, not a list
# --8<-- [end:unhashable_tuple]


# --8<-- [start:unhashable_dataclass]
@dataclass(frozen=True)  # frozen: hashable, compared by value
class Polynomial:
    coefficients: tuple[float, ...]


@partial(jax.jit, static_argnames="poly")
def polynomial_frozen(x, poly):
    return sum(c * x**k for k, c in enumerate(poly.coefficients))
# --8<-- [end:unhashable_dataclass]


# ------------------------------------------------------------------ 9. a leaked tracer

# --8<-- [start:leak_pitfall]
history = []


@jax.jit
def step_and_record(x):
    y = 2.0 * x
    history.append(y)  # keeps a tracer, which outlives the trace it belongs to
    return y + 1.0
# --8<-- [end:leak_pitfall]


# --8<-- [start:leak_return]
@jax.jit
def step_returning(x):
    y = 2.0 * x
    return y + 1.0, y  # what the caller needs comes back as an output
# --8<-- [end:leak_return]


# ------------------------------------------ 10. a Python loop is unrolled while tracing

# --8<-- [start:loop_python]
DT = 0.01  # time step: forward Euler on the logistic equation x' = x (1 - x)


def logistic_rhs(x):
    return x * (1.0 - x)


@partial(jax.jit, static_argnames="n_steps")
def euler_unrolled(x, n_steps):
    for _ in range(n_steps):  # runs while tracing: n_steps copies of the body
        x = x + DT * logistic_rhs(x)
    return x
# --8<-- [end:loop_python]


# --8<-- [start:loop_fori]
@partial(jax.jit, static_argnames="n_steps")
def euler_fori(x, n_steps):
    def body(i, x):  # traced once, run n_steps times
        return x + DT * logistic_rhs(x)
    return lax.fori_loop(0, n_steps, body, x)
# --8<-- [end:loop_fori]


# --8<-- [start:loop_scan]
@partial(jax.jit, static_argnames="n_steps")
def euler_scan(x, n_steps):
    def step(x, _):
        return x + DT * logistic_rhs(x), None  # (carry, per-step output)
    x, _ = lax.scan(step, x, length=n_steps)
    return x
# --8<-- [end:loop_scan]


# --8<-- [start:loop_traced_length]
@jax.jit
def euler_fori_any_length(x, n_steps):
    # fori_loop also accepts a traced trip count (it becomes a while loop):
    # one compiled program for every n_steps.
    return lax.fori_loop(0, n_steps, lambda i, x: x + DT * logistic_rhs(x), x)
# --8<-- [end:loop_traced_length]


# ------------------------------------------ 11. a donated array, used again at run time

# --8<-- [start:donate_pitfall]
@partial(jax.jit, donate_argnums=0)
def add_one_donated(x):
    # x is donated: XLA may write the result into x's buffer, so x is given up
    return x + 1.0
# --8<-- [end:donate_pitfall]


# ------------------------------------------------------ the sessions the page shows

X4 = "jnp.array([-1.0, 2.0, -3.0, 4.0])"
GRID5 = float(np.mean(np.sin(np.pi * np.linspace(0, 1, 5))))
E = jax.errors
# The sessions the page shows: what each pitfall raises, what each fix returns.
CASES: dict[str, Case] = {
    "branch": Case(
        "a Python if on a traced value",
        Session(["leaky_relu(-2.0)"]), E.TracerBoolConversionError,
        fixes={
            "where": Session([f"leaky_relu_where({X4})"], [-0.1, 2.0, -0.3, 4.0]),
            "cond": Session(["leaky_relu_cond(-2.0)"], -0.2),
            "static": Session(
                ["leaky_relu_static(-2.0)", "leaky_relu_static(3.0)",
                 "leaky_relu_static._cache_size()  # programs compiled: one per value"],
                2),
        }),
    "shape": Case(
        "a shape computed from a traced value",
        Session(["mean_on_grid(5)"]), E.ConcretizationTypeError,
        fixes={"static": Session(["mean_on_grid_static(5)"], GRID5)},
        variants={"zeros": (Session(["zeros_of_length(3)"]), TypeError)}),
    "index": Case(
        "a tracer used as a Python integer",
        Session(["weighted(10.0, 1)"]), E.TracerIntegerConversionError,
        fixes={"array": Session(["weighted_array(10.0, 1)"], 3.0)},
        variants={"int": (Session(["weighted_int(10.0, 1)"]),
                          E.ConcretizationTypeError)}),
    "numpy": Case(
        "a tracer handed to NumPy",
        Session(["norm(jnp.array([3.0, 4.0]))"]), E.TracerArrayConversionError,
        fixes={"jnp": Session(["norm_jnp(jnp.array([3.0, 4.0]))"], 5.0),
               "callback": Session(["norm_callback(jnp.array([3.0, 4.0]))"], 5.0)}),
    "mask": Case(
        "a boolean mask with a data-dependent size",
        Session([f"positive_sum({X4})"]), E.NonConcreteBooleanIndexError,
        fixes={"where": Session([f"positive_sum_where({X4})"], 6.0),
               "size": Session([f"positives_padded({X4})"], [2.0, 4.0, 0.0, 0.0])}),
    "trace_time": Case(
        "print and global variables, read while tracing",
        Session(["scaled(1.0)", "scaled(1.0)", "SCALE = 3.0",
                 "scaled(1.0)  # still 2: a cached program",
                 "scaled(jnp.ones(2))  # a new shape: traced again, SCALE read again"]),
        None,
        fixes={"explicit": Session(
            ["scaled_explicit(1.0, 2.0)", "scaled_explicit(1.0, 3.0)"], 3.0)}),
    "inplace": Case(
        "in-place assignment",
        Session(["set_first(jnp.array([1.0, 2.0, 3.0]), 9.0)"]), TypeError,
        fixes={"at": Session(["set_first_at(jnp.array([1.0, 2.0, 3.0]), 9.0)"],
                             [9.0, 2.0, 3.0])},
        variants={"eager": (Session(["x = jnp.array([1.0, 2.0, 3.0])",
                                     "x[0] = 9.0  # no jit at all"]), TypeError)}),
    "unhashable": Case(
        "an unhashable static argument",
        Session(['polynomial(2.0, config={"coefficients": [1.0, 0.0, 3.0]})']),
        ValueError,
        fixes={"tuple": Session(["polynomial_tuple(2.0, coefficients=(1.0, 0.0, 3.0))"],
                                13.0),
               "dataclass": Session(
                   ["polynomial_frozen(2.0, poly=Polynomial((1.0, 0.0, 3.0)))"],
                   13.0)}),
    "leak": Case(
        "a leaked tracer",
        Session(["step_and_record(1.0)", "history[-1] + 1.0"]), E.UnexpectedTracerError,
        fixes={"return": Session(["out, y = step_returning(1.0)", "history.append(y)",
                                  "history[-1] + 1.0"], 3.0)}),
    "loop": Case(
        "a Python loop, unrolled while tracing",
        Session(["euler_unrolled(jnp.float32(0.1), 100)"], None), None,
        fixes={"fori": Session(["euler_fori(jnp.float32(0.1), 100)"]),
               "scan": Session(["euler_scan(jnp.float32(0.1), 100)"]),
               "traced_length": Session(["euler_fori_any_length(jnp.float32(0.1), 100)",
                                         "euler_fori_any_length(jnp.float32(0.1), 200)",
                                         "euler_fori_any_length._cache_size()"], 1)}),
    "donate": Case(
        "a donated array, used again",
        Session(["x = jnp.zeros(3)", "y = add_one_donated(x)",
                 "x + 1.0  # x was donated to the call"]), RuntimeError,
        fixes={"rebind": Session(["x = jnp.zeros(3)",
                                  "x = add_one_donated(x)  # keep only the result",
                                  "x + 1.0"], [2.0, 2.0, 2.0])}),
}

if __name__ == "__main__":
    module = sys.modules[__name__]
    for case in CASES.values():
        print(f"== {case.title}")
        variants = (s for s, _ in case.variants.values())
        for session in [case.pitfall, *case.fixes.values(), *variants]:
            print(run_session(session, module).transcript)
        print()
