"""SELU measured three ways: eager JAX, jax.jit and NumPy.

    python snippets/selu_benchmark.py            # full size: the tables for your machine
    python snippets/selu_benchmark.py --quick    # small sizes, a few seconds
"""

import jax
import numpy as np

from measurement import (Figure, Report, fmt_ratio, fmt_ratio_range, fmt_seconds, fmt_timing,
                         main, markdown_table, stopwatch, time_calls)
from selu import (docs_input, eager_call, first_call_stages, jit_call, numpy_call,
                  random_input)

# Figures published elsewhere, quoted with their source (not measured here).
PUBLISHED = [
    ("JAX 101 “Just-in-time compilation” notebook, Colab CPU, 2022 outputs "
     "(docs/jax-101/02-jitting.ipynb)", 2.05e-3, 150e-6, "%timeit, best of 5"),
    ("Korean blog post on JAX's JIT, quoting the JAX docs", 2.5e-3, 0.15e-3, "quoted"),
]


WAYS = ("eager", "jit", "numpy")


def three_ways(inputs):
    """(input key, way) -> a call of SELU on that input, for `time_calls` to time side by side."""
    calls = {}
    for key, x in inputs.items():
        x_np = np.asarray(x)
        calls[key, "eager"] = lambda x=x: eager_call(x)
        calls[key, "jit"] = lambda x=x: jit_call(x)
        calls[key, "numpy"] = lambda x_np=x_np: numpy_call(x_np)
    return calls


def sizes(quick):
    return [10**k for k in range(3, 6 if quick else 8)]


def measure(quick: bool) -> Report:
    """Time SELU eager, jitted and in NumPy; split the first jitted call into stages."""
    repeats, min_sample = (5, 0.002) if quick else (15, 0.01)
    n = 10**5 if quick else 10**6
    report = Report()
    report.data["n"] = n

    # -- the headline: both inputs at one size, all three in the same run
    inputs = {"jnp.arange(n), int32 (the JAX docs' input)": docs_input(n),
              "standard normal float32, seed 0": random_input(n)}
    timed = time_calls(three_ways(inputs), repeats=repeats, min_sample_s=min_sample)
    rows, timings = [], {}
    for label in inputs:
        t = timings[label] = {way: timed[label, way] for way in WAYS}
        rows.append([label, fmt_timing(t["eager"]), fmt_timing(t["jit"]), fmt_timing(t["numpy"]),
                     fmt_ratio_range(t["eager"], t["jit"]), fmt_ratio_range(t["numpy"], t["jit"])])
    report.tables["headline"] = markdown_table(
        [f"input, n = {n:,}", "eager JAX", "jax.jit", "NumPy", "eager / jit", "NumPy / jit"], rows)
    report.data["headline"] = {label: {k: v.as_dict() for k, v in t.items()}
                               for label, t in timings.items()}
    docs_t, rand_t = timings.values()
    report.text.update(
        n=f"{n:,}", n_sci=f"10^{len(str(n)) - 1}",
        eager=fmt_seconds(docs_t["eager"].median), jit=fmt_seconds(docs_t["jit"].median),
        numpy=fmt_seconds(docs_t["numpy"].median),
        jit_vs_eager=fmt_ratio(docs_t["eager"].median / docs_t["jit"].median),
        jit_vs_eager_range=fmt_ratio_range(docs_t["eager"], docs_t["jit"]),
        jit_vs_numpy=fmt_ratio(docs_t["numpy"].median / docs_t["jit"].median),
        jit_vs_eager_random=fmt_ratio(rand_t["eager"].median / rand_t["jit"].median),
        jit_vs_numpy_random=fmt_ratio(rand_t["numpy"].median / rand_t["jit"].median),
        repeats=str(repeats),
    )

    # -- the published figures beside today's, on the same input and by the same statistic
    pub_rows = [[src, fmt_seconds(e), fmt_seconds(j), fmt_ratio(e / j), how]
                for src, e, j, how in PUBLISHED]
    pub_rows.append([f"this build, n = {n:,}" + (" (quick mode: not the docs' size)" if quick else ""),
                     fmt_seconds(docs_t["eager"].best), fmt_seconds(docs_t["jit"].best),
                     fmt_ratio(docs_t["eager"].best / docs_t["jit"].best),
                     f"best of {repeats} samples (medians above)"])
    report.tables["published"] = markdown_table(
        ["source", "eager", "jit", "eager / jit", "timing"], pub_rows)

    # -- first call against steady state
    x = random_input(n)
    stages = [first_call_stages(x) for _ in range(2 if quick else 5)]
    first = {k: float(np.median([s[k] for s in stages])) for k in stages[0]}
    steady = rand_t["jit"]
    jax.clear_caches()
    eager_first, _ = stopwatch(lambda: eager_call(random_input(n + 1)))  # a shape eager has not seen
    first_total = sum(first.values())
    report.data["first_call"] = {**first, "eager_first_call": eager_first,
                                 "steady": steady.median, "repeats": len(stages)}
    report.tables["first_call"] = markdown_table(
        ["stage (normal float32 input)", "time", "in steady-state calls"],
        [["trace and lower (Python → jaxpr → StableHLO)", fmt_seconds(first["trace_and_lower"]),
          f"{first['trace_and_lower'] / steady.median:,.0f}"],
         ["XLA compile", fmt_seconds(first["compile"]), f"{first['compile'] / steady.median:,.0f}"],
         ["first execution", fmt_seconds(first["first_execution"]),
          f"{first['first_execution'] / steady.median:,.1f}"],
         ["**first jitted call, total**", f"**{fmt_seconds(first_total)}**",
          f"**{first_total / steady.median:,.0f}**"],
         ["steady-state jitted call (median)", fmt_seconds(steady.median), "1"],
         ["eager first call on a new shape", fmt_seconds(eager_first),
          f"{eager_first / steady.median:,.0f}"]])
    report.text.update(
        trace_and_lower=fmt_seconds(first["trace_and_lower"]), compile=fmt_seconds(first["compile"]),
        first_execution=fmt_seconds(first["first_execution"]),
        first_total=fmt_seconds(first_total), steady=fmt_seconds(steady.median),
        first_in_steady_calls=f"{first_total / steady.median:,.0f}",
        eager_first=fmt_seconds(eager_first), first_call_repeats=str(len(stages)),
    )
    report.figures["first_call"] = first_call_figure(first, steady.median, eager_first, n)

    # -- scaling with n
    timed = time_calls(three_ways({size: random_input(size) for size in sizes(quick)}),
                       repeats=repeats, min_sample_s=min_sample)
    scaling = {way: [timed[size, way] for size in sizes(quick)] for way in WAYS}
    report.data["scaling"] = {"n": sizes(quick),
                              **{k: [t.as_dict() for t in v] for k, v in scaling.items()}}
    report.tables["scaling"] = markdown_table(
        ["n", "eager JAX", "jax.jit", "NumPy", "eager / jit"],
        [[f"{size:,}", fmt_timing(e), fmt_timing(j), fmt_timing(p), fmt_ratio_range(e, j)]
         for size, e, j, p in zip(sizes(quick), scaling["eager"], scaling["jit"], scaling["numpy"])])
    report.figures["scaling"] = scaling_figure(sizes(quick), scaling)
    return report


def scaling_figure(ns, scaling) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    for key, label, marker in (("eager", "eager JAX", "o"), ("jit", "jax.jit", "s"),
                               ("numpy", "NumPy", "^")):
        med = [t.median for t in scaling[key]]
        ax.plot(ns, med, marker=marker, label=label)
        ax.fill_between(ns, [t.q1 for t in scaling[key]], [t.q3 for t in scaling[key]], alpha=0.25)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (elements, standard normal float32)")
    ax.set_ylabel("seconds per call (median, band = IQR)")
    ax.set_title("SELU: time per call against input size")
    ax.legend()
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    e, j, p = (scaling[k][-1].median for k in ("eager", "jit", "numpy"))
    alt = (f"Log-log plot of SELU time per call against n from {ns[0]:,} to {ns[-1]:,} for eager JAX, "
           f"jax.jit and NumPy. At n = {ns[-1]:,} eager JAX takes {fmt_seconds(e)}, jax.jit "
           f"{fmt_seconds(j)} and NumPy {fmt_seconds(p)} per call.")
    return Figure(fig, alt, "Median time per call; the shaded band is the interquartile range.")


def first_call_figure(first, steady, eager_first, n) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 2.8))
    left = 0.0
    for key, label in (("trace_and_lower", "trace + lower"), ("compile", "XLA compile"),
                       ("first_execution", "first execution")):
        ax.barh("first jitted call", first[key] * 1e3, left=left, label=label)
        left += first[key] * 1e3
    ax.barh("eager first call", eager_first * 1e3, color="0.6")
    ax.barh("steady jitted call", steady * 1e3, color="0.3")
    ax.set_xlabel("milliseconds")
    ax.set_title(f"SELU at n = {n:,}: the first call against the steady state")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    alt = (f"Horizontal bars at n = {n:,}: the first jitted call takes {fmt_seconds(left / 1e3)} "
           f"(trace and lower {fmt_seconds(first['trace_and_lower'])}, compile "
           f"{fmt_seconds(first['compile'])}, first execution {fmt_seconds(first['first_execution'])}); "
           f"an eager first call on a new shape takes {fmt_seconds(eager_first)}; a steady-state "
           f"jitted call takes {fmt_seconds(steady)}, too short to see.")
    return Figure(fig, alt, "Each stage of the first call, next to a call once everything is compiled.")


if __name__ == "__main__":
    main(measure)
