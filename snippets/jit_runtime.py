"""What a jitted call costs once it is compiled: break-even, asynchronous dispatch, memory traffic.

Run it for a small demonstration:  python snippets/jit_runtime.py
"""

# --8<-- [start:imports]
import itertools
import math
import resource
import time

import jax
import numpy as np

from selu import selu, selu_jit
# --8<-- [end:imports]


# --8<-- [start:break_even]
def calls_to_break_even(first_call, jit_call, other_call):
    """How many calls before jit's total time drops below another method's.

    n calls cost `first_call + (n - 1) * jit_call` jitted and `n * other_call` the other way;
    this is the smallest n where the jitted total is lower (inf if jit never catches up).
    """
    saving = other_call - jit_call
    if saving <= 0:
        return math.inf
    return max(1, math.floor((first_call - jit_call) / saving) + 1)


def break_even_range(first_call, jit_call, other_call):
    """Break-even from three Timings: at the medians, and its extremes over their quartiles."""
    corners = [calls_to_break_even(f, j, o) for f, j, o in itertools.product(
        (first_call.q1, first_call.q3), (jit_call.q1, jit_call.q3), (other_call.q1, other_call.q3))]
    median = calls_to_break_even(first_call.median, jit_call.median, other_call.median)
    return median, min(corners), max(corners)
# --8<-- [end:break_even]


# --8<-- [start:dispatch_timeline]
def dispatch_timeline(f, x, calls=20):
    """Seconds from the start until each call returned, and until each result was ready."""
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
    returned = time.perf_counter() - start  # what a timer without block_until_ready reports
    result.block_until_ready()
    return returned, time.perf_counter() - start
# --8<-- [end:dispatch_timeline]


# --8<-- [start:donation]
selu_donating = jax.jit(selu, donate_argnums=0)  # the output may reuse x's buffer


def donation_demo(x):
    y = selu_donating(x)  # x's memory now holds y: x is deleted
    try:
        x + 1
    except RuntimeError as error:  # any use of a donated array raises
        return y, str(error)
    raise AssertionError("a donated array was still usable")
# --8<-- [end:donation]


# --8<-- [start:bandwidth_probes]
def copy_into(src, dst):
    return lambda: np.copyto(dst, src)  # NumPy: read src, write dst, allocate nothing


add_one_donating = jax.jit(lambda v: v + 1.0, donate_argnums=0)  # writes back into v's buffer


def fresh_output(f, x):
    return lambda: f(x).block_until_ready()  # every call allocates a new output array


def donated_loop(f, x):
    """Each call donates the previous result as the next input: no new allocation."""
    state = [x.copy()]  # a copy: the caller's x stays alive

    def call():
        state[0] = f(state[0])
        state[0].block_until_ready()
    return call


def bytes_moved(x):
    return 2 * x.nbytes  # each element read once and written once, the least any of them can do
# --8<-- [end:bandwidth_probes]


# --8<-- [start:page_faults]
def page_faults_per_call(fn, calls=5):
    """Minor page faults per call of fn, and the share of its CPU time spent in the kernel."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(calls):
        fn()
    after = resource.getrusage(resource.RUSAGE_SELF)
    system, user = after.ru_stime - before.ru_stime, after.ru_utime - before.ru_utime
    return (after.ru_minflt - before.ru_minflt) / calls, system / max(system + user, 1e-9)
# --8<-- [end:page_faults]


if __name__ == "__main__":
    from selu import random_input

    x = random_input(1_000_000)
    returned, ready = dispatch_timeline(selu_jit, x, calls=5)
    print("returned (ms):", [round(t * 1e3, 2) for t in returned])
    print("ready    (ms):", [round(t * 1e3, 2) for t in ready])
    y, message = donation_demo(x.copy())
    print("donated result equals the undonated one:", bool((y == selu_jit(x)).all()))
    print("using a donated array:", message)
    fresh = page_faults_per_call(fresh_output(selu_jit, x))
    donated = page_faults_per_call(donated_loop(selu_donating, x))
    print(f"page faults per call: fresh output {fresh[0]:.0f}, donated {donated[0]:.0f} "
          f"(a {x.nbytes:,}-byte array spans {x.nbytes // resource.getpagesize():,} pages)")
