"""Measure one framework in a process of its own (frameworks_benchmark.py starts it).

    python frameworks_worker.py FRAMEWORK FOLDER [--quick] [--threads N]

FOLDER holds what the benchmark prepared (problem.npz, problem.json, reference.npz); the
worker writes FRAMEWORK.json (numbers and names only: timings, first calls, agreement,
versions, thread settings, TorchInductor's C++ compiler; an error verbatim) and
FRAMEWORK.npz (the parameters after a few training steps) there. It imports no other
framework, and checks nothing: the benchmark checks what the page relies on.
"""

import time

_start = time.perf_counter()
import numpy as np  # noqa: E402  (timed: NumPy's own import)

NUMPY_IMPORT_S = time.perf_counter() - _start

import argparse  # noqa: E402
import contextlib  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import frameworks as fw  # noqa: E402
from measurement import (keep_freed_memory, python_loop, stopwatch,  # noqa: E402
                         time_calls)

MODULES = {"numpy": "numpy", "numba": "numba", "torch": "torch",
           "tensorflow": "tensorflow", "jax": "jax"}
AGREEMENT_STEPS = 3  # steps from the same weights before the parameters are compared
# Quick mode runs only the physics-informed step, and only where its first call is
# cheap: the eager steps and jax.jit (the reference). The compiled steps of PyTorch and
# TensorFlow, and eager JAX's (hundreds of primitives, each compiled at its first use),
# take seconds each to start; the tables say so in their place ({"skipped": true}).
QUICK_STEPS = {("physics", "eager"), ("physics", "jax.jit")}
QUICK_TORCH_COMPILE = {"backend": "aot_eager"}  # quick mode: no C++ to generate
PHASES = {}  # phase -> [wall s, CPU s]: where the worker's time goes (the time budget)


@contextlib.contextmanager
def phase(name):
    """Add the wall and CPU seconds (all threads) of the block to PHASES[name]."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        spent = PHASES.setdefault(name, [0.0, 0.0])
        spent[0] += time.perf_counter() - wall
        spent[1] += time.process_time() - cpu


def machine_speed():
    """The machine check's pure-Python loop, timed alone (the whole check needs JAX):
    the same loop in every worker shows the machine's drift between them."""
    timed = time_calls({"loop": python_loop}, repeats=5, min_sample_s=0.005)
    return timed["loop"].median


def sizes(quick):
    """SELU's input sizes; the last is the headline size."""
    return [10**3, 10**5] if quick else [10**4, 10**5, 10**6]


def selu_input(n):
    """Standard normal float32 values (NumPy's generator, seed 0): both branches run."""
    return np.random.default_rng(0).standard_normal(n, dtype=np.float32)


def set_threads(name, threads):
    """Fix the intra-op threads where the framework has a setting; return what holds,
    as data: the counts, and `kind`, how the framework uses threads ("set": the
    settings above; "parallel_only": Numba's, for parallel=True only; "xla_default":
    no setting, XLA's CPU runtime sizes its own pool; "calling_thread": NumPy's
    ufuncs)."""
    if name == "numba":
        import numba
        numba.set_num_threads(threads)
        return {"intra_op": numba.get_num_threads(), "kind": "parallel_only"}
    if name == "torch":
        import torch
        torch.set_num_threads(threads)
        torch.set_num_interop_threads(1)
        return {"intra_op": torch.get_num_threads(),
                "inter_op": torch.get_num_interop_threads(), "kind": "set"}
    if name == "tensorflow":
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        return {"intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
                "inter_op": tf.config.threading.get_inter_op_parallelism_threads(),
                "kind": "set"}
    if name == "jax":
        return {"kind": "xla_default"}
    return {"intra_op": 1, "kind": "calling_thread"}


def libraries(name, module):
    """The versions a framework's numbers came from (Numba's: llvmlite's too), and for
    JAX where it ran and whether a persistent compilation cache was set (the benchmark
    gives it none: its first calls compile)."""
    found = {MODULES[name]: module.__version__}
    if name == "numba":
        import llvmlite
        found["llvmlite"] = llvmlite.__version__
    if name == "jax":
        import jaxlib
        found["jaxlib"] = jaxlib.__version__
    return found


def inductor_cxx():
    """The C++ compiler TorchInductor calls (torch._inductor.config.cpp.cxx: $CXX, else
    g++, or clang++ on macOS; a tuple's last element), read after the timings."""
    import torch._inductor.config as inductor
    cxx = inductor.cpp.cxx
    return cxx[-1] if isinstance(cxx, (list, tuple)) else cxx


def selu_builder(name, quick):
    if name == "torch":  # quick mode: no C++ generation, a cheaper backend
        return fw.torch_selu(QUICK_TORCH_COMPILE if quick else {})
    return fw.SELU[name]()


def measure_selu(name, folder, quick):
    with phase("selu_setup"):  # torch.compile's first use imports TorchDynamo
        convert, variants = selu_builder(name, quick)
        reference = np.load(folder / "reference.npz")
        ns = sizes(quick)
        inputs = {n: convert(selu_input(n)) for n in ns}
    result = {label: {"first": None, "max_diff": {}} for label in variants}
    for label, selu in variants.items():  # first calls, at the headline size, cold
        with phase(f"selu_first[{label}]"):
            result[label]["first"], _ = stopwatch(lambda f=selu: f(inputs[ns[-1]]))
    for label, selu in variants.items():
        with phase("selu_agreement"):
            for n in ns:
                out = np.asarray(selu(inputs[n]))
                diff = np.abs(out - reference[str(n)]).max()
                result[label]["max_diff"][str(n)] = float(diff)
    calls = {(label, n): (lambda f=selu, x=inputs[n]: f(x))
             for label, selu in variants.items() for n in ns}
    # the calls above were the warm-up; full size: 7 to 15 rounds, until spreads settle
    repeats, least, min_sample = (3, None, 0.001) if quick else (15, 7, 0.01)
    with phase("selu_repeats"):
        timed = time_calls(calls, repeats=repeats, warmup=0, min_sample_s=min_sample,
                           min_repeats=least)
    for (label, n), timing in timed.items():
        result[label].setdefault("timing", {})[str(n)] = timing.as_dict()
    return result


def step_builders(name, problem, quick):
    """(loss kind, variant) -> a function that builds the step: (run, params)."""
    torch_options = QUICK_TORCH_COMPILE if quick else {}
    per_kind = {
        "torch": lambda physics: {
            "eager": lambda: fw.torch_step(problem, physics),
            "torch.compile": lambda: fw.torch_step(problem, physics, torch_options)},
        "tensorflow": lambda physics: {
            "eager": lambda: fw.tensorflow_step(problem, physics),
            "tf.function": lambda: fw.tensorflow_step(problem, physics, {}),
            "tf.function(jit_compile=True)":
                lambda: fw.tensorflow_step(problem, physics, {"jit_compile": True})},
        "jax": lambda physics: {
            "eager": lambda: fw.jax_step(problem, physics, jit=False),
            "jax.jit": lambda: fw.jax_step(problem, physics, jit=True)},
    }
    if name not in per_kind:
        return {}
    return {(kind, label): build for kind in ("physics", "data")
            for label, build in per_kind[name](kind == "physics").items()}


def measure_steps(name, folder, quick, params_out):
    with phase("step_setup"):
        problem = dict(np.load(folder / "problem.npz"))
        problem = {**json.loads((folder / "problem.json").read_text()),
                   "params": [problem[f"p{i}"] for i in range(len(problem) - 7)],
                   "batch": [problem[f"b{i}"] for i in range(7)]}
        builders = step_builders(name, problem, quick)
    result, runs = {}, {}
    for (kind, label), build in builders.items():
        entry = result.setdefault(kind, {}).setdefault(label, {})
        if quick and ((kind, label) not in QUICK_STEPS
                      or (name, label) == ("jax", "eager")):
            entry["skipped"] = True
            continue
        try:
            with phase(f"step_first[{kind}][{label}]"):
                run, params = build()
                entry["first"], loss = stopwatch(run)  # cold: the first step compiles
        except Exception as error:  # verbatim: the benchmark checks which may fail
            entry["error"] = f"{type(error).__name__}: {error}".strip()
            continue
        with phase("step_agreement"):
            entry["losses"] = [loss] + [run() for _ in range(AGREEMENT_STEPS - 1)]
        for i, array in enumerate(params()):
            params_out[f"{kind}|{label}|{i}"] = np.array(array)  # a copy: steps go on
        runs[kind, label] = run
    # the agreement steps above were the warm-up; full size: 5 to 7 rounds
    repeats, least, min_sample = (3, None, 0.001) if quick else (7, 5, 0.01)
    with phase("step_repeats"):
        timed = time_calls(runs, repeats=repeats, warmup=0, min_sample_s=min_sample,
                           min_repeats=least)
    for (kind, label), timing in timed.items():
        result[kind][label]["timing"] = timing.as_dict()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("framework", choices=sorted(MODULES), nargs="?")
    parser.add_argument("folder", type=Path, nargs="?")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    if args.framework is None or args.folder is None:  # run alone: nothing prepared
        print("frameworks_benchmark.py runs this worker once per framework; run that.")
        return
    name = args.framework
    allocator = keep_freed_memory()  # as in measurement.main: before a framework loads
    loop_start = machine_speed()
    for other in set(MODULES.values()) - {"numpy", MODULES[name]}:
        sys.modules[other] = None  # import fails: TensorFlow's would load JAX (TFLite)
    start = time.perf_counter()
    with phase("import"):
        module = importlib.import_module(MODULES[name])
    if name == "jax":  # where it runs (the benchmark asks for the CPU), and its cache
        import jax
        where = {"backend": jax.default_backend(),
                 "compilation_cache_dir": jax.config.jax_compilation_cache_dir}
    import_s = NUMPY_IMPORT_S if name == "numpy" else time.perf_counter() - start
    with phase("threads"):
        threads = set_threads(name, args.threads)
    seconds, selu = stopwatch(lambda: measure_selu(name, args.folder, args.quick))
    params_out = {}
    seconds_steps, steps = stopwatch(
        lambda: measure_steps(name, args.folder, args.quick, params_out))
    if name == "numba":  # known only once a parallel function has run
        threads["layer"] = module.threading_layer()
    compiler = {"cxx": inductor_cxx()} if name == "torch" else {}
    result = {"version": module.__version__, "libraries": libraries(name, module),
              "import_s": import_s, "threads": threads, "allocator": allocator,
              **(where if name == "jax" else {}),
              **compiler,
              "python_loop": {"start": loop_start, "end": machine_speed()},
              "selu": selu, "steps": steps,
              "seconds": {"selu": seconds, "steps": seconds_steps},  # the time budget
              "phases": PHASES}
    PHASES["total"] = [time.perf_counter() - _start, time.process_time()]
    (args.folder / f"{name}.json").write_text(json.dumps(result))
    np.savez(args.folder / f"{name}.npz", **params_out)
    pool = sys.modules.get("torch._inductor.async_compile")
    if pool is not None:  # TorchInductor's compile workers: stopped, not orphaned
        pool.shutdown_compile_workers()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # results written: skip the framework's teardown (up to a second)


if __name__ == "__main__":
    main()
