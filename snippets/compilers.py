"""What a compiler makes of SELU: JAX's stages, a memory-traffic model, and ways to keep the result.

Run it for a short tour:  python snippets/compilers.py

Run as ``python snippets/compilers.py --first-call-in DIR`` it is the fresh process of the
persistent-cache experiment: one first call of the jitted SELU with a compilation cache in DIR,
reported as JSON on its last line of output.
"""

# --8<-- [start:imports]
import collections
import json
import logging
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from selu import selu
# --8<-- [end:imports]


# --8<-- [start:stages]
def stages(x):
    """Each stage of jax.jit(selu) on arguments shaped like `x`, as JAX shows it."""
    traced = jax.jit(selu).trace(x)  # Python runs once on abstract values -> jaxpr
    lowered = traced.lower()  # jaxpr -> StableHLO, XLA's input language
    compiled = lowered.compile()  # XLA: optimisation passes, then machine code
    return {"jaxpr": traced.jaxpr,
            "stablehlo": lowered.as_text(),
            "optimized_hlo": compiled.as_text(),  # what XLA made of it, after its passes
            "cost": compiled.cost_analysis(),  # XLA's own estimate: flops, bytes, ...
            "memory": compiled.memory_analysis()}  # buffers: arguments, outputs, temporaries
# --8<-- [end:stages]


# --8<-- [start:fusions]
def fusions(hlo_text):
    """The fusion instructions of an optimized HLO module, with the operations fused into each."""
    computations, name = {}, None
    for line in hlo_text.splitlines():
        if line.endswith("{") and " -> " in line:  # "%name (params) -> type {" opens a computation
            name = line.split()[1 if line.startswith("ENTRY") else 0].lstrip("%")
            computations[name] = []
        elif line.strip() == "}":
            name = None
        elif name is not None and " = " in line:
            op = line.split(" = ", 1)[1].split("(", 1)[0].split()[-1]  # "f32[n]{0} exponential"
            computations[name].append((op, line.strip()))
    found = []
    for name, instructions in computations.items():
        for op, line in instructions:
            if op == "fusion":
                called = line.split("calls=%", 1)[1].split(",", 1)[0].split()[0]
                kind = line.split("kind=", 1)[1].split(",", 1)[0]
                found.append({"line": line, "kind": kind, "computation": called,
                              "ops": [o for o, _ in computations[called]
                                      if o not in ("parameter", "constant", "broadcast")]})
    return found
# --8<-- [end:fusions]


# --8<-- [start:memory_model]
def array_bytes(var):
    return var.aval.size * var.aval.dtype.itemsize


def bytes_moved_eagerly(jaxpr):
    """Bytes read and written per primitive when each runs on its own, on whole arrays.

    Eagerly, every primitive reads its inputs from memory and writes its output
    back (scalar constants left out); the next primitive reads it again.
    """
    rows = []
    for eqn in jaxpr.eqns:
        arrays_in = [v for v in eqn.invars if v.aval.shape]  # literals are scalars
        name = eqn.primitive.name
        if "name" in eqn.params:  # jnp.where is itself a small jitted function
            name = f"{name}({eqn.params['name']})"
        rows.append((name, sum(map(array_bytes, arrays_in)), sum(map(array_bytes, eqn.outvars))))
    return rows


def bytes_moved_fused(jaxpr):
    """One fused loop reads each input once and writes each output once."""
    return sum(map(array_bytes, jaxpr.invars)) + sum(map(array_bytes, jaxpr.outvars))


# A yardstick: a compiled loop that moves the same bytes as fused SELU, without exp.
scale_jit = jax.jit(lambda x: 1.05 * x)
# --8<-- [end:memory_model]


# --8<-- [start:persistent_cache]
def use_persistent_cache(cache_dir, small_programs_too=True):
    """Keep compiled programs in `cache_dir`, across processes."""
    jax.config.update("jax_compilation_cache_dir", str(cache_dir))
    if small_programs_too:
        # By default only programs whose compilation took 1.0 s or more are written.
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        # The default, 0, lets JAX choose a minimum entry size for the file system;
        # -1 means no minimum at all.
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)


def cache_entries(cache_dir):
    """The compiled programs in a cache folder: one file per entry."""
    return sorted(p.name for p in Path(cache_dir).glob("*-cache"))


def first_call(n):
    """The first call of a jitted SELU in this process; what JAX reported doing."""
    events = collections.Counter()  # JAX's monitoring events: cache hits, misses, ...
    seconds = collections.Counter()  # and their durations: tracing, compiling, ...
    jax.monitoring.register_event_listener(lambda event, **_: events.update([event]))
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **_: seconds.update({event: duration}))
    log = _capture_log("jax._src.compiler", "jax._src.compilation_cache")
    x = jax.device_put(np.random.default_rng(0).standard_normal(n, dtype=np.float32))
    start = time.perf_counter()
    jax.jit(selu)(x).block_until_ready()
    return {"first_call_s": time.perf_counter() - start,
            "compile_or_load_s": seconds["/jax/core/compile/backend_compile_duration"],
            "cache_hits": events["/jax/compilation_cache/cache_hits"],
            "cache_writes": events["/jax/compilation_cache/cache_misses"],  # counted on write
            "log": log}


def first_call_in_fresh_process(cache_dir, n, small_programs_too=True):
    """Run `first_call` in a new Python process: nothing compiled in memory yet."""
    command = [sys.executable, __file__, "--first-call-in", str(cache_dir), "--n", str(n)]
    if not small_programs_too:
        command.append("--default-thresholds")
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{run.stderr[-2000:]}")
    return json.loads(run.stdout.splitlines()[-1])
# --8<-- [end:persistent_cache]


def _capture_log(*names):
    """Collect what these loggers say about the cache, at every level, into a list."""
    lines = []

    class Collect(logging.Handler):
        def emit(self, record):
            message = record.getMessage()
            if ("cache" in message.lower() or "to compile" in message) and "autotuning" not in message:
                lines.append(message)

    for name in names:
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(Collect())
    return lines


# --8<-- [start:ahead_of_time]
def compile_ahead_of_time(n):
    """Compile SELU for float32[n] before any data exists."""
    spec = jax.ShapeDtypeStruct((n,), jnp.float32)  # a shape and a dtype, no values
    return jax.jit(selu).lower(spec).compile()  # call it like the function: compiled(x)
# --8<-- [end:ahead_of_time]


# --8<-- [start:export]
def export_selu():
    """SELU as bytes: StableHLO plus its calling convention, for any length n."""
    length = jax.export.symbolic_shape("n")  # one artefact serves every length
    exported = jax.export.export(jax.jit(selu))(jax.ShapeDtypeStruct(length, jnp.float32))
    return exported.serialize()  # write these bytes to a file, ship them, keep them


def load_selu(serialized):
    """Bytes back to a callable: `load_selu(blob).call(x)` compiles it on first use."""
    return jax.export.deserialize(serialized)
# --8<-- [end:export]


def _first_call_main(argv):
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--first-call-in", type=Path, required=True, metavar="DIR")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--default-thresholds", action="store_true")
    args = parser.parse_args(argv)
    defaults = _thresholds()  # JAX's defaults, before this process changes them
    use_persistent_cache(args.first_call_in, small_programs_too=not args.default_thresholds)
    report = first_call(args.n)
    report.update(defaults=defaults, in_effect=_thresholds())
    print(json.dumps(report))


def _thresholds():
    return {"min_compile_time_secs": jax.config.jax_persistent_cache_min_compile_time_secs,
            "min_entry_size_bytes": jax.config.jax_persistent_cache_min_entry_size_bytes}


def _tour():
    import tempfile

    x = jax.device_put(np.linspace(-3, 3, 8, dtype=np.float32))
    found = stages(x)
    print(found["jaxpr"], "\n")
    for fusion in fusions(found["optimized_hlo"]):
        print(f"one {fusion['kind']} fusion of:", ", ".join(fusion["ops"]))
    print("cost analysis:", {k: found["cost"][k] for k in ("flops", "transcendentals", "bytes accessed")})
    eager = sum(r + w for _, r, w in bytes_moved_eagerly(found["jaxpr"]))
    print(f"bytes moved eagerly {eager}, fused {bytes_moved_fused(found['jaxpr'])}\n")

    with tempfile.TemporaryDirectory() as cache_dir:
        for label in ("cold cache", "warm cache"):
            run = first_call_in_fresh_process(cache_dir, 1000)
            print(f"{label}: first call {run['first_call_s'] * 1e3:.1f} ms, "
                  f"cache hits {run['cache_hits']}, entries {len(cache_entries(cache_dir))}")

    compiled = compile_ahead_of_time(8)
    print("\nahead of time:", np.asarray(compiled(x)).round(3))
    restored = load_selu(export_selu())
    print("exported and back:", np.asarray(restored.call(x)).round(3))


if __name__ == "__main__":
    if "--first-call-in" in sys.argv:
        _first_call_main(sys.argv[1:])
    else:
        _tour()
