"""SELU four ways, from an interpreted Python loop to one compiled program.

The rungs of the ladder, each computing the same SELU as snippets/selu.py:

1. pure Python: CPython's evaluation loop runs the loop's bytecode once per element;
2. NumPy: one call per operation, each a precompiled C loop over the whole array;
3. eager JAX: one dispatch per operation, each a small compiled XLA program;
4. jax.jit: the whole function compiled by XLA into one fused program.

Run it to see the bytecode and the four results agree:  python snippets/interpreters.py
"""

# --8<-- [start:imports]
import dis
import io
import math
import sys
import types

import numpy as np

from selu import selu, selu_jit, selu_numpy  # the SELU chapter's code, as selu.py
# --8<-- [end:imports]


# --8<-- [start:selu_python]
def selu_python(xs, alpha=1.67, lambda_=1.05):
    """SELU on a list of Python floats, one element at a time."""
    out = []
    for x in xs:
        if x > 0:
            y = x
        else:
            y = alpha * math.exp(x) - alpha
        out.append(lambda_ * y)
    return out
# --8<-- [end:selu_python]


# --8<-- [start:bytecode]
def loop_body_bytecode(fn=selu_python, adaptive=False):
    """`dis` listing of `fn`'s loop, from FOR_ITER to the jump back to it.

    With adaptive=True, CPython 3.11+ shows the instructions it has swapped in
    while the function ran (call it a few times first).
    """
    listing = io.StringIO()
    dis.dis(fn, file=listing, adaptive=adaptive)
    lines = listing.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if "FOR_ITER" in line)
    end = next(i for i, line in enumerate(lines) if "JUMP_BACKWARD" in line)
    while start > 0 and lines[start - 1].strip():  # keep the loop's source line
        start -= 1
    return "\n".join(lines[start:end + 1])
# --8<-- [end:bytecode]


# --8<-- [start:count_instructions]
def instructions_executed(fn, xs):
    """How many bytecode instructions `fn(xs)` executes in its own frame.

    sys.monitoring (Python 3.12+) reports every instruction of the code objects
    it is told to watch, here fn's alone; the calls it makes (math.exp,
    list.append) run in C and count as the one CALL that invoked them.
    """
    monitoring = sys.monitoring
    tool = monitoring.PROFILER_ID
    count = 0

    def on_instruction(code, offset):
        nonlocal count
        count += 1

    monitoring.use_tool_id(tool, "count instructions")
    monitoring.register_callback(tool, monitoring.events.INSTRUCTION, on_instruction)
    monitoring.set_local_events(tool, fn.__code__, monitoring.events.INSTRUCTION)
    try:
        fn(xs)
    finally:
        monitoring.set_local_events(tool, fn.__code__, 0)
        monitoring.register_callback(tool, monitoring.events.INSTRUCTION, None)
        monitoring.free_tool_id(tool)
    return count


def instructions_per_element(fn=selu_python):
    """Instructions per element for each branch, and the fixed cost per call."""
    fixed = instructions_executed(fn, [])
    return {"fixed": fixed,
            "positive": instructions_executed(fn, [1.0]) - fixed,
            "negative": instructions_executed(fn, [-1.0]) - fixed}
# --8<-- [end:count_instructions]


# --8<-- [start:quickened]
def quickened(fn=selu_python):
    """What CPython swapped into `fn`'s bytecode while it ran (Python 3.11+).

    specialized: an instruction for the types it has met (BINARY_OP_MULTIPLY_FLOAT);
    fused: a superinstruction made while running, two instructions run by one
    dispatch (3.11's LOAD_FAST__LOAD_FAST: a double underscore joins the two;
    3.13's compiler writes LOAD_FAST_LOAD_FAST into the plain bytecode instead).
    """
    plain = [i.opname for i in dis.get_instructions(fn)]
    quick = [i.opname for i in dis.get_instructions(fn, adaptive=True)]
    swapped = {q for p, q in zip(plain, quick) if q != p}
    counters = ("_ADAPTIVE", "_QUICK")  # bookkeeping, not a specialization
    return {"specialized": sorted(q for q in swapped if "__" not in q
                                  and not q.endswith(counters)),
            "fused": sorted(q for q in swapped if "__" in q)}


def never_run_copy(fn):
    """`fn` with a fresh code object: plain bytecode, nothing specialized yet."""
    return types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__,
                              fn.__defaults__, fn.__closure__)
# --8<-- [end:quickened]


# --8<-- [start:ladder]
def ladder_inputs(x):
    """The same data for every rung: a JAX array, its NumPy copy, a list of floats."""
    x_np = np.asarray(x)
    return {"pure Python": x_np.tolist(), "NumPy": x_np, "eager JAX": x, "jax.jit": x}


RUNGS = {
    # each call returns only once its result exists (block_until_ready for JAX)
    "pure Python": selu_python,  # the interpreter, element by element
    "NumPy": selu_numpy,  # one precompiled C loop per operation
    "eager JAX": lambda x: selu(x).block_until_ready(),  # one program per operation
    "jax.jit": lambda x: selu_jit(x).block_until_ready(),  # one fused XLA program
}
# --8<-- [end:ladder]


if __name__ == "__main__":
    print(f"Python {sys.version.split()[0]}: the loop body of selu_python\n")
    print(loop_body_bytecode())
    print("\ninstructions executed per element:", instructions_per_element())
    from selu import random_input

    inputs = ladder_inputs(random_input(6))
    for name, rung in RUNGS.items():
        values = np.asarray(rung(inputs[name]), dtype=np.float32)
        print(f"{name:12s}", np.round(values, 4))
    print("\nafter those runs, CPython quickened:", quickened())
