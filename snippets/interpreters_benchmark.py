"""The interpreter ladder: SELU as a pure-Python loop, in NumPy, eager JAX and jax.jit.

    python snippets/interpreters_benchmark.py          # full size: your tables
    python snippets/interpreters_benchmark.py --quick  # small sizes, a few seconds

Also shows what CPython runs for the pure-Python loop: its bytecode, for this Python.
"""

import platform

import jax
import jax.numpy as jnp
import numpy as np

from interpreters import (RUNGS, instructions_executed, instructions_per_element,
                          ladder_inputs, loop_body_bytecode, never_run_copy, quickened,
                          selu_python)
from measurement import (DocumentationMismatch, Figure, Report, faster, fmt_ratio,
                         fmt_ratio_range, fmt_seconds, fmt_timing, main,
                         markdown_table, time_calls)
from selu import random_input, selu
from selu_benchmark import cores_busy, xla_threads

# What each rung translates, and when (the table adds how often it dispatches).
TRANSLATED = {
    "pure Python": "source → bytecode once; each instruction dispatched as it runs",
    "NumPy": "nothing at run time: C loops compiled when NumPy was built",
    "eager JAX": "each primitive compiled by XLA on its first call for a shape",
    "jax.jit": "the whole function traced and compiled by XLA on the first call",
}
DISPATCH_UNIT = {"pure Python": "bytecode instructions", "NumPy": "NumPy calls",
                 "eager JAX": "XLA kernel launches", "jax.jit": "XLA program launch"}
COLORS = {"pure Python": "C3", "NumPy": "C2", "eager JAX": "C0", "jax.jit": "C1"}
KEYS = {"python": "pure Python", "numpy": "NumPy", "eager": "eager JAX",
        "jit": "jax.jit"}


def threads_note(threads, eager_cores):
    """The rungs' threads: XLA may split the jitted loop, and each of eager JAX's
    operations (`eager_cores`: cores busy while it ran); Python and NumPy run on one."""
    eager = (f"eager JAX kept {eager_cores:.1f} cores busy" if eager_cores >= 1.2
             else None)
    if threads > 1:
        return (f"XLA split the jitted loop over {threads} threads"
                + (f" and {eager}; Python and NumPy" if eager else "; the others")
                + " ran on one")
    return (f"{eager}; the other rungs ran on one thread" if eager
            else "every rung ran on one thread")


def measure(quick: bool) -> Report:
    """Time the four rungs on the same data; show the bytecode and count it."""
    n = 10**4 if quick else 10**6
    repeats, min_sample = (5, 0.002) if quick else (11, 0.01)
    report = Report()

    # -- one run, one n, one input for every rung
    x = random_input(n)
    inputs = ladder_inputs(x)
    results = {name: np.asarray(rung(inputs[name]), dtype=np.float32)
               for name, rung in RUNGS.items()}
    for name, values in results.items():  # the build fails if a rung differs
        np.testing.assert_allclose(values, results["jax.jit"], rtol=1e-5, atol=1e-6,
                                   err_msg=name)
    timings = time_calls({name: lambda rung=rung, arg=inputs[name]: rung(arg)
                          for name, rung in RUNGS.items()},
                         repeats=repeats, min_sample_s=min_sample)
    adaptive = loop_body_bytecode(adaptive=True)  # after many runs: quickened
    swapped = quickened()

    # -- the fixed cost of one call: the same rungs on x's first element (the value
    # random_input(1) draws), through NumPy: no JAX program compiled to draw or slice
    one = ladder_inputs(jnp.asarray(np.asarray(x)[:1]))
    fixed = time_calls({name: lambda rung=rung, arg=one[name]: rung(arg)
                        for name, rung in RUNGS.items()},
                       repeats=repeats, min_sample_s=min_sample)

    # -- how many dispatches each rung makes per call
    counts = instructions_per_element()
    check_counts_ignore_quickening(counts, swapped)
    positive = int(np.count_nonzero(inputs["NumPy"] > 0))
    python_instructions = (counts["fixed"] + counts["positive"] * positive
                           + counts["negative"] * (n - positive))
    sample = inputs["pure Python"][:200]  # the per-branch counts predict a real run
    sample_positive = sum(v > 0 for v in sample)
    predicted = (counts["fixed"] + counts["positive"] * sample_positive
                 + counts["negative"] * (len(sample) - sample_positive))
    if instructions_executed(selu_python, sample) != predicted:
        raise DocumentationMismatch(
            "snippets/interpreters_benchmark.py: the page counts instructions per "
            f"branch, but a run of {len(sample)} elements did not add up to them")
    operations = len(jax.make_jaxpr(selu)(x).jaxpr.eqns)  # the formula's operations
    dispatches = {"pure Python": python_instructions, "NumPy": operations,
                  "eager JAX": operations, "jax.jit": 1}
    one_dispatches = {**dispatches, "pure Python": instructions_executed(
        selu_python, one["pure Python"])}

    jit = timings["jax.jit"]
    rows = [[name, TRANSLATED[name], f"{dispatches[name]:,} {DISPATCH_UNIT[name]}",
             fmt_timing(t), fmt_seconds(t.median / n),
             "1" if name == "jax.jit" else fmt_ratio_range(t, jit)]
            for name, t in timings.items()]
    report.tables["ladder"] = markdown_table(
        ["rung", "what is translated, and when", f"dispatches per call (n = {n:,})",
         "time per call", "per element", "time / jax.jit"], rows)
    report.tables["one_element"] = markdown_table(
        ["rung", "time per call, n = 1", "dispatches per call", "time / pure Python"],
        [[name, fmt_timing(t), f"{one_dispatches[name]:,} {DISPATCH_UNIT[name]}",
          fmt_ratio(t.median / fixed["pure Python"].median)]
         for name, t in fixed.items()])
    report.figures["ladder"] = ladder_figure(timings, n)

    mean_instructions = python_instructions / n
    report.data.update(
        n=n, positive=positive, instructions=counts,
        python_instructions=python_instructions, operations=operations,
        python_version=platform.python_version(),
        ladder={name: t.as_dict() for name, t in timings.items()},
        one_element={name: t.as_dict() for name, t in fixed.items()},
        specialized=swapped["specialized"], fused=swapped["fused"],
    )
    per = {name: t.median / n for name, t in timings.items()}
    report.text.update(
        n=f"{n:,}", python_version=platform.python_version(), repeats=str(repeats),
        bytecode=loop_body_bytecode(), bytecode_adaptive=adaptive,
        specialized_examples=_names(swapped["specialized"]),
        fused_examples=_names(swapped["fused"]),
        instructions_fixed=str(counts["fixed"]),
        instructions_positive=str(counts["positive"]),
        instructions_negative=str(counts["negative"]),
        instructions_mean=f"{mean_instructions:.1f}",
        python_instructions=f"{python_instructions:,}",
        positive_share=f"{positive / n:.0%}", operations=str(operations),
        ns_per_instruction=fmt_seconds(per["pure Python"] / mean_instructions),
        per_element={key: fmt_seconds(per[name]) for key, name in KEYS.items()},
        per_call={key: fmt_seconds(timings[name].median) for key, name in KEYS.items()},
        one={key: fmt_seconds(fixed[name].median) for key, name in KEYS.items()},
        threads_note=threads_note(xla_threads(inputs["jax.jit"]), cores_busy(
            lambda: RUNGS["eager JAX"](inputs["eager JAX"]))),  # it blocks itself
        python_vs_jit=fmt_ratio(faster("jax.jit", per["pure Python"], per["jax.jit"])),
        python_vs_numpy=fmt_ratio(faster("NumPy", per["pure Python"], per["NumPy"])),
        numpy_vs_jit=fmt_ratio(per["NumPy"] / per["jax.jit"]),
        eager_vs_jit=fmt_ratio(per["eager JAX"] / per["jax.jit"]),
        one_eager_vs_python=fmt_ratio(fixed["eager JAX"].median
                                      / fixed["pure Python"].median),
        one_jit_vs_python=fmt_ratio(fixed["jax.jit"].median
                                    / fixed["pure Python"].median),
        one_eager_per_dispatch=fmt_seconds(fixed["eager JAX"].median / operations),
    )
    return report


def check_counts_ignore_quickening(counts, swapped):
    """The page says: CPython fused and specialized the loop, yet sys.settrace
    counts the same instructions as for a copy that never ran (tracing runs the
    plain instructions), so the count is an upper bound on dispatches."""
    python = platform.python_version()
    if not swapped["fused"] or not swapped["specialized"]:
        raise DocumentationMismatch(
            f"the page says CPython specializes the loop and fuses instruction pairs "
            f"(superinstructions), but Python {python} swapped in {swapped}")
    fresh = instructions_per_element(never_run_copy(selu_python))
    if fresh != counts:
        raise DocumentationMismatch(
            f"the page says sys.settrace counts the plain instructions, whatever "
            f"CPython quickened; Python {python} counted {counts} after quickening "
            f"and {fresh} on a copy that never ran")


def _names(opnames):
    return ", ".join(f"`{name}`" for name in opnames) or "none"


def ladder_figure(timings, n) -> Figure:
    import matplotlib.pyplot as plt

    names = list(timings)[::-1]  # barh draws upwards: pure Python ends up on top
    per = [timings[k].median / n * 1e9 for k in names]
    low = [(timings[k].median - timings[k].q1) / n * 1e9 for k in names]
    high = [(timings[k].q3 - timings[k].median) / n * 1e9 for k in names]
    fig, ax = plt.subplots(figsize=(6.4, 2.9))
    ax.barh(names, per, xerr=[low, high], color=[COLORS[k] for k in names], capsize=3)
    for y, (value, above) in enumerate(zip(per, high)):  # label past the whisker
        ax.text((value + above) * 1.2, y, fmt_seconds(value * 1e-9), va="center",
                fontsize=8)
    ax.set_xscale("log")
    ax.set_xlim(min(per) / 3, max(p + h for p, h in zip(per, high)) * 10)
    ax.set_xlabel("nanoseconds per element (log scale; whiskers = interquartile range)")
    ax.set_title(f"SELU on the same {n:,} standard normal float32 values")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    alt = (f"Horizontal bars on a log scale: time per element of SELU at n = {n:,}. "
           + ", ".join(f"{k} {fmt_seconds(timings[k].median / n)}" for k in timings)
           + ".")
    return Figure(fig, alt, "Median time per element of each rung, measured in one run "
                            "on the same data; whiskers span the interquartile range.")


if __name__ == "__main__":
    main(measure)
