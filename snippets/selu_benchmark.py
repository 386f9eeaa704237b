"""SELU measured three ways: eager JAX, jax.jit and NumPy.

    python snippets/selu_benchmark.py          # full size: the tables for your machine
    python snippets/selu_benchmark.py --quick  # small sizes, a few seconds
"""

import re
import time

import jax
import jax.numpy as jnp
import numpy as np

from compilation import count_compilations
from measurement import (DocumentationMismatch, Figure, Report, Timing, faster,
                         fmt_ratio, fmt_ratio_range, fmt_seconds, fmt_timing,
                         log_log_axes, main, markdown_table, time_calls)
from selu import (docs_input, eager_call, eager_first_call, first_call_stages, jit_call,
                  numpy_call, numpy_input, random_input, selu, selu_jit)

# Figures published elsewhere, quoted with their source (not measured here).
PUBLISHED = [
    ("JAX 101 “Just-in-time compilation” notebook, Colab CPU, 2022 outputs "
     "(docs/jax-101/02-jitting.ipynb)", 2.05e-3, 150e-6, "%timeit, best of 5"),
    ("Korean blog post on JAX's JIT, quoting the JAX docs", 2.5e-3, 0.15e-3, "quoted"),
]
WAYS = ("eager", "jit", "numpy")
NORMAL = "standard normal float32, seed 0"  # the input headline and scaling share


def three_ways(inputs):
    """(input key, way) -> a call of SELU on that input, for `time_calls`."""
    calls = {}
    for key, x in inputs.items():
        x_np = numpy_input(x)  # float32, like JAX's computation
        calls[key, "eager"] = lambda x=x: eager_call(x)
        calls[key, "jit"] = lambda x=x: jit_call(x)
        calls[key, "numpy"] = lambda x_np=x_np: numpy_call(x_np)
    return calls


def xla_threads(x):
    """Threads XLA splits jitted SELU's fused loop into for x, read from the optimized
    HLO (outer_dimension_partitions of the CPU backend); 1 where it does not split."""
    hlo = selu_jit.lower(x).compile().as_text()
    parts = [int(np.prod([int(p) for p in re.findall(r"\d+", found)]))
             for found in re.findall(r'"outer_dimension_partitions":\[([^\]]*)\]', hlo)]
    return max(parts, default=1)


def cores_busy(fn, seconds=0.3):
    """CPU time of this process (all its threads) over wall time, while fn runs."""
    fn()
    cpu, wall, calls = time.process_time(), time.perf_counter(), 0
    while time.perf_counter() - wall < seconds or calls < 3:
        fn()
        calls += 1
    return (time.process_time() - cpu) / (time.perf_counter() - wall)


def check_int32_conversions():
    """The page says: on int32 input `x > 0` compares int32, and only the operands of
    exp and of the select are converted to float32. Fail the build if JAX changes."""
    jaxpr = jax.make_jaxpr(selu)(jnp.arange(4))
    gt = [e for e in jaxpr.eqns if e.primitive.name == "gt"]
    text = str(jaxpr)
    if (len(gt) != 1 or gt[0].invars[0].aval.dtype != jnp.int32
            or text.count("convert_element_type") != 2):
        raise DocumentationMismatch(
            "snippets/selu_benchmark.py: the page says x > 0 compares int32 and "
            "exactly two conversions feed exp and the select; this JAX traces selu "
            f"on int32 as:\n{text}")


def faster_or_slower(ratio):
    """'3.1× faster than' or '2× slower than': prose that stays true either way."""
    return (f"{fmt_ratio(ratio)} faster than" if ratio >= 1
            else f"{fmt_ratio(1 / ratio)} slower than")


def normal_prefixes(sizes):
    """size -> random_input(size), each the first values of one draw at the largest
    size: JAX's draws for one seed are prefixes of each other, so the values are the
    same, and the random generator is compiled once, not once per size (and again
    after every jax.clear_caches() of a first call)."""
    pool = np.asarray(random_input(max(sizes)))
    return {size: jnp.asarray(pool[:size]) for size in sizes}


def measure(quick: bool) -> Report:
    """Time SELU eager, jitted and in NumPy; split the first jitted call into stages."""
    repeats, min_sample = (5, 0.002) if quick else (15, 0.01)
    n = 10**5 if quick else 10**6
    report = Report()
    report.data["n"] = n
    check_int32_conversions()
    normal = normal_prefixes([n, n + 1, *sizes(quick)])
    headline(report, n, repeats, min_sample, normal[n], quick)
    first_calls(report, n, quick, normal[n], normal[n + 1])
    scaling(report, quick, repeats, min_sample, normal)
    tolerance = check_same_size_agrees(report, n, quick)
    report.figures["scaling"].caption += (
        f" The table's row at n = {n:,} is a second measurement, after the one above: "
        f"the build fails if the two differ by more than {tolerance}×.")
    return report


def check_same_size_agrees(report, n, quick):
    """The headline and the scaling table time the same calls on the same input at n,
    in different rotations: their medians must agree, or a timing depends on what ran
    beside it (as it did, 2x, before measurement.keep_freed_memory). Returns the
    tolerance they were held to."""
    headline = report.data["headline"][NORMAL]
    row = report.data["scaling"]["n"].index(n)
    tolerance = 3 if quick else 1.5  # quick mode: few samples, snippets side by side
    for way in WAYS:
        a, b = headline[way]["median"], report.data["scaling"][way][row]["median"]
        if max(a, b) / min(a, b) > tolerance:
            raise DocumentationMismatch(
                f"snippets/selu_benchmark.py: {way} SELU at n = {n:,} took "
                f"{fmt_seconds(a)} in the headline and {fmt_seconds(b)} in the scaling "
                f"table, more than {tolerance}x apart: a timing depends on what shares "
                "its rotation, and the page would show two answers to one question")
    return tolerance


def headline(report, n, repeats, min_sample, normal, quick):
    """Both inputs at one size, all three ways in the same run, and their threads."""
    inputs = {"jnp.arange(n), int32 (the JAX docs' input)": docs_input(n),
              NORMAL: normal}
    calls = three_ways(inputs)
    timed = time_calls(calls, repeats=repeats, min_sample_s=min_sample)
    rows, timings = [], {}
    for label in inputs:
        t = timings[label] = {way: timed[label, way] for way in WAYS}
        rows.append([label, fmt_timing(t["eager"]), fmt_timing(t["jit"]),
                     fmt_timing(t["numpy"]), fmt_ratio_range(t["eager"], t["jit"]),
                     fmt_ratio_range(t["numpy"], t["jit"])])
    threads = xla_threads(docs_input(n))
    busy = {way: cores_busy(calls[next(iter(inputs)), way], 0.1 if quick else 0.3)
            for way in WAYS}
    if busy["numpy"] > 1.5:
        raise DocumentationMismatch(
            "snippets/selu_benchmark.py: the page says NumPy runs SELU on one "
            f"thread, but it kept {busy['numpy']:.2f} cores busy")
    report.tables["headline"] = markdown_table(
        [f"input, n = {n:,}", "eager JAX", f"jax.jit ({threads} threads)",
         "NumPy, float32 (1 thread)", "eager / jit", "NumPy / jit"], rows)
    report.tables["threads"] = markdown_table(
        ["", "eager JAX", "jax.jit", "NumPy"],
        [["threads for the elementwise loop", "XLA's, per operation",
          f"{threads} (XLA's plan in the optimized HLO)",
          "1 (NumPy's loops run on the calling thread)"],
         ["cores busy on average (CPU time ÷ wall time; below 1 while other "
          "programs share the cores)"]
         + [f"{busy[way]:.2f}" for way in WAYS]])
    report.data["headline"] = {label: {k: v.as_dict() for k, v in t.items()}
                               for label, t in timings.items()}
    report.data["threads"] = {"xla": threads, "cores_busy": busy}
    docs_t, rand_t = timings.values()
    report.text.update(
        n=f"{n:,}", n_sci=f"10^{len(str(n)) - 1}", repeats=str(repeats),
        eager=fmt_seconds(docs_t["eager"].median),
        jit=fmt_seconds(docs_t["jit"].median),
        numpy=fmt_seconds(docs_t["numpy"].median),
        jit_vs_eager=fmt_ratio(faster("jitted SELU", docs_t["eager"], docs_t["jit"])),
        jit_vs_eager_range=fmt_ratio_range(docs_t["eager"], docs_t["jit"]),
        jit_vs_numpy_f32=fmt_ratio(docs_t["numpy"].median / docs_t["jit"].median),
        jit_vs_eager_random=fmt_ratio(rand_t["eager"].median / rand_t["jit"].median),
        jit_vs_numpy_f32_random=fmt_ratio(rand_t["numpy"].median
                                          / rand_t["jit"].median),
        vs_numpy=faster_or_slower(docs_t["numpy"].median / docs_t["jit"].median),
        xla_threads=str(threads),
        threads=f"jax.jit on {threads} thread{'s' * (threads > 1)}, NumPy on 1",
        busy_jit=f"{busy['jit']:.2f}", busy_numpy=f"{busy['numpy']:.2f}")

    # The published figures beside today's, on the same input, by a similar statistic:
    # the best sample.
    rows = [[src, fmt_seconds(e), fmt_seconds(j), fmt_ratio(e / j), how]
            for src, e, j, how in PUBLISHED]
    rows.append([f"this build, n = {n:,}" + (" (quick mode: not the docs' size)"
                                              if n < 10**6 else ""),
                 fmt_seconds(docs_t["eager"].best), fmt_seconds(docs_t["jit"].best),
                 fmt_ratio(docs_t["eager"].best / docs_t["jit"].best),
                 f"best of {repeats} samples (medians above)"])
    report.tables["published"] = markdown_table(
        ["source", "eager", "jit", "eager / jit", "timing"], rows)
    report.data["steady"] = rand_t["jit"].as_dict()


def first_calls(report, n, quick, x, x_new):
    """A fresh function's first jitted call, stage by stage, and eager's first call."""
    count = 2 if quick else 5  # each clears every cache and compiles anew
    stages = [first_call_stages(x) for _ in range(count)]
    first = {k: float(np.median([s[k] for s in stages])) for k in stages[0]}
    totals = Timing([sum(s.values()) for s in stages], 1)  # each first call's sum
    # A new shape for eager (n + 1), made before the clock starts (eager_first_call).
    eager = Timing([eager_first_call(x_new) for _ in range(1 if quick else count)], 1)
    with count_compilations() as compiled:
        eager_first_call(x_new)
    eager_compiles = compiled.total()
    steady = report.data["steady"]["median"]
    total = totals.median
    report.data["first_call"] = {**first, "total": totals.as_dict(),
                                 "eager_first_call": eager.as_dict(),
                                 "eager_compilations": eager_compiles,
                                 "steady": steady, "repeats": count}
    in_calls = lambda seconds, digits=0: f"{seconds / steady:,.{digits}f}"  # noqa: E731
    report.tables["first_call"] = markdown_table(
        ["stage (normal float32 input)", "time", "in steady-state jitted calls"],
        [["trace and lower (Python → jaxpr → StableHLO)",
          fmt_seconds(first["trace_and_lower"]), in_calls(first["trace_and_lower"])],
         ["XLA compile", fmt_seconds(first["compile"]), in_calls(first["compile"])],
         ["first execution", fmt_seconds(first["first_execution"]),
          in_calls(first["first_execution"], 1)],
         ["**first jitted call, total**", f"**{fmt_timing(totals)}**",
          f"**{in_calls(total)}**"],
         ["steady-state jitted call (median)", fmt_seconds(steady), "1"],
         [f"eager first call on a new shape ({eager_compiles} XLA compilations)",
          fmt_timing(eager), in_calls(eager.median)]])
    report.text.update(
        trace_and_lower=fmt_seconds(first["trace_and_lower"]),
        compile=fmt_seconds(first["compile"]),
        first_execution=fmt_seconds(first["first_execution"]),
        first_total=fmt_seconds(total), steady=fmt_seconds(steady),
        first_in_steady_calls=in_calls(total),
        eager_first=fmt_seconds(eager.median), eager_compilations=str(eager_compiles),
        first_call_repeats=str(count))
    report.figures["first_call"] = first_call_figure(first, total, steady, eager.median,
                                                     eager_compiles, n, count)


def sizes(quick):
    return [10**k for k in range(3, 6 if quick else 8)]


def scaling(report, quick, repeats, min_sample, normal):
    ns = sizes(quick)
    inputs = {size: normal[size] for size in ns}
    timed = time_calls(three_ways(inputs), repeats=repeats, min_sample_s=min_sample)
    data = {way: [timed[size, way] for size in ns] for way in WAYS}
    threads = [xla_threads(inputs[size]) for size in ns]
    check_smallest_n(threads, data["numpy"][0], data["jit"][0], quick)
    report.data["scaling"] = {"n": ns, "xla_threads": threads,
                              **{k: [t.as_dict() for t in v] for k, v in data.items()}}
    report.tables["scaling"] = markdown_table(
        ["n", "eager JAX", "jax.jit", "jit's XLA threads", "NumPy (1 thread)",
         "eager / jit", "NumPy / jit"],
        [[f"{size:,}", fmt_timing(e), fmt_timing(j), str(t), fmt_timing(p),
          fmt_ratio_range(e, j), fmt_ratio_range(p, j)]
         for size, e, j, t, p in zip(ns, data["eager"], data["jit"], threads,
                                     data["numpy"])])
    report.figures["scaling"] = scaling_figure(ns, data)


def check_smallest_n(threads, numpy, jit, quick):
    """What the page says of the smallest n: XLA keeps it on one thread, and NumPy
    and jit are close (within 2×; full size only, quick mode's samples are few)."""
    if threads[0] != 1:
        raise DocumentationMismatch("the page says XLA keeps small arrays on one "
                                    f"thread; at the smallest n it used {threads[0]}")
    if not quick and not 0.5 <= numpy.median / jit.median <= 2:
        raise DocumentationMismatch(
            "the page says NumPy and jit are close at the smallest n; NumPy / jit was "
            f"{fmt_ratio(numpy.median / jit.median)}")


def scaling_figure(ns, scaling) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    for key, label, marker in (("eager", "eager JAX", "o"), ("jit", "jax.jit", "s"),
                               ("numpy", "NumPy, float32", "^")):
        ax.plot(ns, [t.median for t in scaling[key]], marker=marker, label=label)
        ax.fill_between(ns, [t.q1 for t in scaling[key]], [t.q3 for t in scaling[key]],
                        alpha=0.25)
    log_log_axes(ax, "n (elements, standard normal float32)",
                 "seconds per call (median, band = IQR)",
                 "SELU: time per call against input size", legend_fontsize=None)
    e, j, p = (scaling[k][-1].median for k in WAYS)
    alt = (f"Log-log plot of SELU time per call against n from {ns[0]:,} to {ns[-1]:,} "
           f"for eager JAX, jax.jit and NumPy. At n = {ns[-1]:,} eager JAX takes "
           f"{fmt_seconds(e)}, jax.jit {fmt_seconds(j)} and NumPy {fmt_seconds(p)} per "
           "call.")
    return Figure(fig, alt, "Median time per call on standard normal float32 values "
                            "(seed 0); the shaded band is the interquartile range.")


def first_call_figure(first, total, steady, eager_first, eager_compiles, n,
                      count) -> Figure:
    """Bars: each stage's median; labels and alt text: the median first call (`total`),
    as in the table (the medians of the stages need not add up to it)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 2.6))
    left = 0.0
    for key, label in (("trace_and_lower", "trace + lower"), ("compile", "XLA compile"),
                       ("first_execution", "first execution")):
        ax.barh("first jitted call", first[key] * 1e3, left=left, label=label)
        left += first[key] * 1e3
    ax.barh(f"eager first call\n({eager_compiles} compilations)", eager_first * 1e3,
            color="0.6")
    for y, ms, seconds in ((0, left, total), (1, eager_first * 1e3, eager_first)):
        ax.text(ms, y, f" = {seconds / steady:,.0f} steady calls", va="center",
                fontsize=8)
    ax.set_xlim(0, max(left, eager_first * 1e3) * 1.45)
    ax.set_xlabel("milliseconds")
    ax.set_title(f"SELU at n = {n:,}: one first call costs many steady calls")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    alt = (f"Horizontal bars at n = {n:,}: the first jitted call takes "
           f"{fmt_seconds(total)}, median of {count} (stage medians: trace and lower "
           f"{fmt_seconds(first['trace_and_lower'])}, compile "
           f"{fmt_seconds(first['compile'])}, first execution "
           f"{fmt_seconds(first['first_execution'])}), as long as "
           f"{total / steady:,.0f} steady-state jitted calls of "
           f"{fmt_seconds(steady)}; eager JAX's first call on a new shape takes "
           f"{fmt_seconds(eager_first)}, {eager_compiles} compilations.")
    return Figure(fig, alt, "A first call, stage by stage (each stage's median), "
                            "counted in steady-state jitted calls, which are too short "
                            "to draw at this scale.")


if __name__ == "__main__":
    main(measure)
