"""XLA compilations counted while a block runs: one home for every chapter that
counts them (a first call timed stage by stage lives in selu.py, where the SELU
chapter shows it).

    python snippets/compilation.py   # counts a tiny function's compilations
"""

from __future__ import annotations

# --8<-- [start:count_compilations]
import collections
import contextlib

import jax

# One per compilation, or per program loaded from a persistent compilation cache
# instead (jax 0.12.0.1: _cached_compilation in jax/_src/interpreters/pxla.py)
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


class Compilations(collections.Counter):
    """XLA compilations by function name, e.g. {"jit(step)": 1}, and `seconds`:
    the time JAX reported tracing, lowering and compiling them."""

    seconds: float = 0.0


@contextlib.contextmanager
def count_compilations():
    """Compilations while the block runs, from a listener on JAX's monitoring events
    (jax.monitoring is public API; the event names are JAX's own)."""
    counts = Compilations()

    def listener(event, duration, fun_name="?", **kwargs):
        if event == COMPILE_EVENT:
            counts[fun_name] += 1
        if event.startswith("/jax/core/compile/"):  # tracing, lowering, compiling
            counts.seconds += duration

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield counts
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
# --8<-- [end:count_compilations]


if __name__ == "__main__":
    x = jax.numpy.linspace(-1.0, 1.0, 1000)
    with count_compilations() as compiled:
        jax.jit(jax.numpy.tanh)(x).block_until_ready()
        jax.jit(jax.numpy.tanh)(x).block_until_ready()  # the same program: cached
    print("compilations:", dict(compiled), f"({compiled.seconds:.3g} s reported)")
