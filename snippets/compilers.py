"""What a compiler makes of SELU: JAX's stages, a memory-traffic model, and the ways
a compiled program is kept: in memory, on disk, ahead of time, exported.

Run it for a short tour:  python snippets/compilers.py

Run as ``python snippets/compilers.py --fresh NAME ARGS_JSON`` it is a fresh process
of the persistent-cache experiments: it calls NAME(*ARGS) and prints the result as
JSON on its last line.
"""

# --8<-- [start:imports]
import gc
import json
import logging
import re
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import pjit  # JAX internals, read here to show jit's caches
from jax._src.interpreters import pxla

from selu import selu  # the SELU chapter's code, saved as selu.py
# --8<-- [end:imports]


# --8<-- [start:stages]
def stages(x):
    """Each stage of jax.jit(selu) on arguments shaped like `x`, as JAX shows it."""
    traced = jax.jit(selu).trace(x)  # Python runs once on abstract values -> jaxpr
    lowered = traced.lower()  # jaxpr -> StableHLO, XLA's input language
    compiled = lowered.compile()  # XLA: optimisation passes, then machine code
    return {"jaxpr": traced.jaxpr,
            "stablehlo": lowered.as_text(),
            "optimized_hlo": compiled.as_text(),  # the program after XLA's passes
            "cost": compiled.cost_analysis(),  # XLA's estimate: flops, bytes, ...
            "memory": compiled.memory_analysis()}  # arguments, outputs, temporaries
# --8<-- [end:stages]


# --8<-- [start:fusions]
def fusions(hlo_text):
    """The fusion instructions of an optimized HLO module, with what each fuses."""
    computations, name = {}, None
    for line in hlo_text.splitlines():
        if line.endswith("{") and " -> " in line:  # "%name (params) -> type {"
            name = line.split()[1 if line.startswith("ENTRY") else 0].lstrip("%")
            computations[name] = []
        elif line.strip() == "}":
            name = None
        elif name is not None and " = " in line:  # "%x = f32[n]{0} exponential(..."
            op = line.split(" = ", 1)[1].split("(", 1)[0].split()[-1]
            computations[name].append((op, line.strip()))
    found = []
    for instructions in computations.values():
        for op, line in instructions:
            if op == "fusion":
                called = line.split("calls=%", 1)[1].split(",", 1)[0].split()[0]
                kind = line.split("kind=", 1)[1].split(",", 1)[0]
                found.append({"line": line, "kind": kind, "computation": called,
                              "ops": [o for o, _ in computations[called] if o not in
                                      ("parameter", "constant", "broadcast")]})
    return found


def without_metadata(line):
    """An HLO line without its metadata (source file and line) and backend_config."""
    return re.sub(r", (metadata|backend_config)=\{.*?\}(?=, \w+=|$)", "", line)


def fused_listing(hlo_text):
    """The first fusion instruction and the computation it runs, without metadata."""
    fusion = fusions(hlo_text)[0]
    lines = hlo_text.splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith(f"%{fusion['computation']} "))
    body = lines[start:lines.index("}", start) + 1]
    return "\n".join([without_metadata(fusion["line"]), ""]
                     + [without_metadata(line) for line in body])
# --8<-- [end:fusions]


# --8<-- [start:memory_model]
def array_bytes(var):
    return var.aval.size * var.aval.dtype.itemsize


def bytes_moved_eagerly(jaxpr):
    """Bytes read and written per primitive when each runs on its own.

    Eagerly, every primitive reads its inputs from memory and writes its output
    back (scalar constants left out); the next primitive reads it again.
    """
    rows = []
    for eqn in jaxpr.eqns:
        arrays_in = [v for v in eqn.invars if v.aval.shape]  # literals are scalars
        name = eqn.primitive.name
        if "name" in eqn.params:  # jnp.where is itself a small jitted function
            name = f"{name}({eqn.params['name']})"
        rows.append((name, sum(map(array_bytes, arrays_in)),
                     sum(map(array_bytes, eqn.outvars))))
    return rows


def bytes_moved_fused(jaxpr):
    """One fused loop reads each input once and writes each output once."""
    return sum(map(array_bytes, jaxpr.invars)) + sum(map(array_bytes, jaxpr.outvars))


# A yardstick: a compiled loop that moves the same bytes as fused SELU, without exp.
scale_jit = jax.jit(lambda x: 1.05 * x)
# --8<-- [end:memory_model]


# --8<-- [start:in_memory]
def jit_cache_capacities():
    """How many entries jit's in-memory caches hold before evicting (LRU)."""
    # C++, per process; every jit in jax 0.12.0.1 uses this one (pjit.py has two)
    return {"dispatch": pjit._cpp_pjit_cache_explicit_attributes.capacity(),
            "trace": pjit._infer_params_cached.cache_info().maxsize,
            "lower": pjit._pjit_lower.cache_info().maxsize,
            "compile": pxla._cached_compilation.cache_info().maxsize}


def programs_held(x):
    """Compiled programs in jit's compile cache as a jitted function lives and dies."""
    def held():
        return pxla._cached_compilation.cache_info().currsize

    gc.collect()  # first let go of functions that died earlier: the counts are ours
    counts = {"before": held()}
    f = jax.jit(lambda x: selu(x) + 1.0)  # a new function: new cache entries
    f(x).block_until_ready()
    counts["after_first_call"] = held()
    del f  # the caches hold the function weakly: nothing else keeps it alive
    gc.collect()
    counts["after_function_gone"] = held()
    jax.jit(selu)(x).block_until_ready()
    jax.clear_caches()  # empties every in-memory cache of jit
    counts["after_clear_caches"] = held()
    return counts
# --8<-- [end:in_memory]


# --8<-- [start:persistent_cache]
def use_persistent_cache(cache_dir, small_programs_too=True):
    """Keep compiled programs in `cache_dir`, across processes."""
    jax.config.update("jax_compilation_cache_dir", str(cache_dir))
    if small_programs_too:
        # By default only programs whose compilation took 1.0 s or more are written.
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        # -1: no minimum entry size, whatever JAX's default (0 picks one; in
        # jax 0.12.0.1 that is no minimum either).
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)


def cache_entries(cache_dir):
    """The compiled programs in a cache folder: one file per entry."""
    return sorted(p.name for p in Path(cache_dir).glob("*-cache"))


class CacheLog(logging.Handler):
    """What JAX logs about compiling and its caches, as a list of lines."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []
        for name in ("jax._src.compiler", "jax._src.compilation_cache"):
            logging.getLogger(name).setLevel(logging.DEBUG)
            logging.getLogger(name).addHandler(self)

    def emit(self, record):
        message = record.getMessage()
        if "cache" in message.lower() or "to compile" in message:
            self.lines.append(message)


def first_call(cache_dir, n, small_programs_too=True):
    """The first call of a jitted SELU with a cache in `cache_dir`: what JAX did."""
    defaults = {"min_compile_time_secs":
                jax.config.jax_persistent_cache_min_compile_time_secs,
                "min_entry_size_bytes":
                jax.config.jax_persistent_cache_min_entry_size_bytes}
    use_persistent_cache(cache_dir, small_programs_too)
    events, seconds = [], {}  # JAX's monitoring events: cache hits, compile time
    jax.monitoring.register_event_listener(lambda event, **_: events.append(event))
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **_: seconds.update({event: duration}))
    log = CacheLog()
    x = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
    start = time.perf_counter()
    jax.jit(selu)(x).block_until_ready()
    return {"first_call_s": time.perf_counter() - start,
            "compile_or_load_s": seconds["/jax/core/compile/backend_compile_duration"],
            "cache_hits": events.count("/jax/compilation_cache/cache_hits"),
            # JAX counts a miss when it writes the entry
            "cache_writes": events.count("/jax/compilation_cache/cache_misses"),
            "defaults": defaults, "log": log.lines}


def in_fresh_process(function, *args):
    """function(*args) in a new Python process: nothing compiled in memory yet."""
    command = [sys.executable, __file__, "--fresh", function.__name__,
               json.dumps(args)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{run.stderr[-2000:]}")
    return json.loads(run.stdout.splitlines()[-1])

# --8<-- [end:persistent_cache]


# --8<-- [start:configured_late]
def configured_late(first_dir, second_dir):
    """A cache set after a first computation, then a second folder: used or not?"""
    jnp.zeros(4).block_until_ready()  # a first computation, before any cache
    use_persistent_cache(first_dir)
    jax.jit(selu)(jnp.ones(1000)).block_until_ready()
    use_persistent_cache(second_dir)  # another folder, later in the same process
    jax.jit(lambda x: 2 * x)(jnp.ones(1000)).block_until_ready()
    return {"first": cache_entries(first_dir), "second": cache_entries(second_dir)}
# --8<-- [end:configured_late]


# --8<-- [start:fresh_process]
if __name__ == "__main__" and sys.argv[1:2] == ["--fresh"]:  # run by in_fresh_process
    print(json.dumps(globals()[sys.argv[2]](*json.loads(sys.argv[3]))))
# --8<-- [end:fresh_process]


# --8<-- [start:ahead_of_time]
def compile_ahead_of_time(n):
    """Compile SELU for float32[n] before any data exists."""
    spec = jax.ShapeDtypeStruct((n,), jnp.float32)  # a shape and a dtype, no values
    return jax.jit(selu).lower(spec).compile()  # call it like the function
# --8<-- [end:ahead_of_time]


# --8<-- [start:export]
def export_selu(platforms=None):
    """SELU as bytes: StableHLO plus its calling convention, for any length n.

    platforms=None exports for this machine's platform only; name more, e.g.
    ("cpu", "cuda"), for an artefact that runs on each of them.
    """
    length = jax.export.symbolic_shape("n")  # one artefact serves every length
    spec = jax.ShapeDtypeStruct(length, jnp.float32)
    exported = jax.export.export(jax.jit(selu), platforms=platforms)(spec)
    return exported.serialize()  # write these bytes to a file, ship them, keep them


def load_selu(serialized):
    """Bytes back to a callable: `load_selu(blob).call(x)` compiles on first use."""
    return jax.export.deserialize(serialized)
# --8<-- [end:export]


def _tour(quick=False):
    import tempfile

    x = jax.device_put(np.linspace(-3, 3, 8, dtype=np.float32))
    found = stages(x)
    print(found["jaxpr"], "\n")
    print(fused_listing(found["optimized_hlo"]), "\n")
    print("cost analysis:", {k: found["cost"][k]
                             for k in ("flops", "transcendentals", "bytes accessed")})
    eager = sum(r + w for _, r, w in bytes_moved_eagerly(found["jaxpr"]))
    print(f"bytes moved eagerly {eager}, fused {bytes_moved_fused(found['jaxpr'])}")
    print("jit's in-memory caches:", jit_cache_capacities(), programs_held(x), "\n")

    with tempfile.TemporaryDirectory() as cache_dir:  # --quick: no fresh processes
        for label in () if quick else ("cold cache", "warm cache"):
            run = in_fresh_process(first_call, cache_dir, 1000)
            print(f"{label}: first call {run['first_call_s'] * 1e3:.1f} ms, "
                  f"cache hits {run['cache_hits']}, "
                  f"entries {len(cache_entries(cache_dir))}")

    compiled = compile_ahead_of_time(8)
    print("\nahead of time:", np.asarray(compiled(x)).round(3))
    restored = load_selu(export_selu())
    print("exported and back:", np.asarray(restored.call(x)).round(3))


if __name__ == "__main__" and sys.argv[1:2] != ["--fresh"]:
    _tour(quick="--quick" in sys.argv)
