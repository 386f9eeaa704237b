"""What jax.jit does, captured and measured: tracing, the cache, break-even,
asynchronous dispatch and buffer donation.

    python snippets/jit_benchmark.py            # full size: the tables for your machine
    python snippets/jit_benchmark.py --quick    # small sizes, a few seconds
"""

import contextlib
import functools
import io
import math
import mmap
import time

import jax
import jax.numpy as jnp
import numpy as np

from jit import (CASES, break_even_range, copies_in, dispatch_timeline, donation_demo,
                 run_case, selu_jaxpr, set_first, three_calls, time_one_call)
from measurement import (DocumentationMismatch, Figure, Report, Timing, fmt_ratio,
                         fmt_seconds, fmt_timing, main, markdown_table, relative_paths,
                         time_calls)
from selu import (eager_call, first_call_stages, jit_call, numpy_call, random_input,
                  selu_jit)
from selu_benchmark import xla_threads


def measure(quick: bool) -> Report:
    """Capture tracing and the cache at work; measure break-even and dispatch."""
    report = Report()
    seconds = report.data["seconds"] = {}  # what each part of this measurement took
    start = time.perf_counter()
    capture_tracing(report)
    capture_cache_cases(report)
    capture_in_place(report)
    seconds["tracing_and_cache"] = time.perf_counter() - start
    # One draw of standard normal float32 values (seed 0); each size takes its first n.
    # (Drawing each size anew would compile the random generator once per shape.)
    largest = max(break_even_sizes(quick) + [DISPATCH_N])
    pool = np.asarray(random_input(largest))
    report.text["input"] = (f"the first n of {largest:,} standard normal float32 "
                            "values (seed 0)")
    for part, run in (
            ("dispatch",
             lambda: measure_dispatch(report, quick, jnp.asarray(pool[:DISPATCH_N]))),
            ("break_even", lambda: measure_break_even(report, quick, pool))):
        start = time.perf_counter()
        run()
        seconds[part] = time.perf_counter() - start
    # random_input(5)'s values, as the pool's first five: JAX's draws for one seed
    # are prefixes of each other, and taking them costs no compilation
    y, message = donation_demo(jnp.asarray(pool[:5]))
    report.text["donated_error"] = message
    same = bool((y == selu_jit(jnp.asarray(pool[:5]))).all())
    report.data["donated_equals_undonated"] = same
    return report


# ---------------------------------------------------------------- tracing

def capture_tracing(report):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        three_calls()
    output = printed.getvalue()
    report.text["three_calls"] = output.rstrip("\n")
    report.data["three_calls"] = {"tracing": output.count("tracing selu_loud"),
                                  "running": output.count("running selu_loud")}
    if report.data["three_calls"] != {"tracing": 2, "running": 3}:
        raise DocumentationMismatch(
            "snippets/jit_benchmark.py: the page says three calls trace twice and run "
            f"three times; JAX did {report.data['three_calls']}")
    jaxpr = selu_jaxpr(jax.ShapeDtypeStruct((1_000_000,), jnp.float32))
    report.text["jaxpr"] = str(jaxpr)
    report.text["jaxpr_equations"] = str(len(jaxpr.eqns))


# ---------------------------------------------------------------- the cache

def capture_cache_cases(report):
    if len(CASES) != 11:  # the page's heading and opening say "eleven cases"
        raise DocumentationMismatch(
            f"the page says eleven cases; jit.py has {len(CASES)}")
    rows, data, logs = [], {}, {}
    for slug, (title, _, _) in CASES.items():
        calls = run_case(slug)  # raises if a call differs from what the page states
        keys = ("cache_before", "cache_after", "traced", "compiled")
        data[slug] = [{k: c[k] for k in keys} for c in calls]
        rows.append([title,
                     ", ".join(f"{c['cache_before']} → {c['cache_after']}"
                               for c in calls),
                     ", ".join("yes" if c["traced"] else "no" for c in calls),
                     ", ".join(str(c["compiled"]) for c in calls)])
        # Every case's first call meets an empty cache and misses: show the rest.
        log = [relative_paths(m) for c in calls[1:] for m in c["log"]]
        logs[slug] = ("\n\n".join(log) if log
                      else "(no message: JAX logged nothing after the first call)")
    report.text["log"] = logs  # text.log.<case>: what JAX logged after the first call
    report.data["cache_cases"] = data
    report.tables["cache_cases"] = markdown_table(
        ["case", "`_cache_size()` at each call (before → after)", "traced at each call",
         "XLA compilations at each call"], rows)


def capture_in_place(report):
    """x.at[0].set inside jit: a copy of x unless x is donated (the page says so)."""
    v = jnp.ones(1000)
    kept = copies_in(jax.jit(set_first), v)
    donated = copies_in(jax.jit(set_first, donate_argnums=0), v)
    report.data["in_place_copies"] = {"kept": kept, "donated": donated}
    if (kept, donated) != (1, 0):
        raise DocumentationMismatch(
            "snippets/jit_benchmark.py: the page says x.at[0].set compiles to one copy "
            f"of a kept argument and none of a donated one; this JAX keeps {kept} and "
            f"{donated}")


# ---------------------------------------------------------------- asynchronous dispatch

DISPATCH_N = 1_000_000


def page_faults() -> int | None:
    """Minor page faults of this process so far: first touches of memory it was given
    (None where the resource module is missing: Windows)."""
    try:
        import resource
    except ImportError:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def faults_per_call(measure, calls):
    """measure()'s result, and the page faults per call while it ran."""
    before = page_faults()
    result = measure()
    return result, None if before is None else (page_faults() - before) / calls


def measure_dispatch(report, quick, x):
    n, calls, runs = DISPATCH_N, 20, (3 if quick else 5)
    # each run's own faults: later runs reuse memory that earlier ones faulted in
    # (dispatch_timeline makes one warm-up call before its `calls`)
    timed = [faults_per_call(lambda: dispatch_timeline(selu_jit, x, calls=calls),
                             calls + 1) for _ in range(runs)]
    timed.sort(key=lambda run: run[0][1][-1])  # by total: the median run is shown
    (returned, ready), loop_faults = timed[len(timed) // 2]
    count = 5 if quick else 15
    singles, single_faults = faults_per_call(
        lambda: [time_one_call(selu_jit, x) for _ in range(count)], count)
    bare = Timing([s[0] for s in singles], 1)
    blocked = Timing([s[1] for s in singles], 1)
    report.data["dispatch"] = {
        "n": n, "calls": calls, "runs": runs, "returned": returned, "ready": ready,
        "all_runs": [{"returned": r, "ready": d, "page_faults_per_call": f}
                     for (r, d), f in timed],
        "one_call_returned": bare.as_dict(), "one_call_ready": blocked.as_dict(),
        "page_faults_per_call": {"median_run": loop_faults,
                                 "single_calls": single_faults}}
    report.tables["dispatch"] = markdown_table(
        [f"jitted SELU, n = {n:,}", "returned after", "result ready after",
         "ready / returned"],
        [[f"one call, from idle (median of {len(singles)})", fmt_timing(bare),
          fmt_timing(blocked), fmt_ratio(blocked.median / bare.median)],
         [f"a loop of {calls} calls (of {runs} loops, the one with the median total)",
          fmt_seconds(returned[-1]), fmt_seconds(ready[-1]),
          fmt_ratio(ready[-1] / returned[-1])]])
    report.text.update(
        dispatch_n=f"{n:,}", dispatch_calls=str(calls), dispatch_runs=str(runs),
        loop_returned=fmt_seconds(returned[-1]), loop_ready=fmt_seconds(ready[-1]),
        loop_per_call_returned=fmt_seconds(returned[-1] / calls),
        loop_per_call_ready=fmt_seconds(ready[-1] / calls),
        one_returned=fmt_seconds(bare.median), one_ready=fmt_seconds(blocked.median),
        under_report=fmt_ratio(blocked.median / bare.median),
        loop_vs_single=loop_vs_single(ready[-1] / calls, blocked.median, loop_faults,
                                      single_faults, x.nbytes))
    report.figures["dispatch"] = dispatch_figure(returned, ready, n)


def loop_vs_single(loop_per_call, single, loop_faults, single_faults, nbytes) -> str:
    """How a call in the loop compares with a single call from idle, and why, as
    measured: the cause is named only where the page faults show it."""
    ratio = loop_per_call / single
    if 1 / 1.5 <= ratio <= 1.5:
        return ("Per call, that is close to a single call from idle "
                f"({fmt_ratio(ratio)}).")
    said = (f"Per call, that is {fmt_ratio(ratio)} the time of a single call from "
            f"idle ({fmt_seconds(single)}, timed just after)")
    few = max(10 * (single_faults or 0), 50)
    if loop_faults is None or ratio < 1 or loop_faults < few:
        return said + "."
    return (f"{said}: the loop keeps its results alive, so calls write to fresh "
            f"memory ({loop_faults:,.0f} page faults per call, "
            f"{nbytes / mmap.PAGESIZE:,.0f} pages per result; single calls, which "
            f"reuse freed memory, {single_faults:,.0f}).")


def dispatch_figure(returned, ready, n) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    index = range(1, len(returned) + 1)
    ms = lambda seconds: [s * 1e3 for s in seconds]  # noqa: E731
    ax.hlines(index, ms(returned), ms(ready), color="0.75", linewidth=1)
    ax.plot(ms(returned), index, "o", markersize=4, label="call returned (dispatched)")
    ax.plot(ms(ready), index, "s", markersize=4, label="result ready")
    ax.set_xlabel("milliseconds since the loop started")
    ax.set_ylabel("call")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.invert_yaxis()
    ax.set_title(f"A loop of {len(returned)} jitted SELU calls, n = {n:,}")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    alt = (f"Timeline of {len(returned)} calls of jitted SELU at n = {n:,}, one row "
           f"per call. All calls returned within {fmt_seconds(returned[-1])} of the "
           "start; their results became ready one after another, the last after "
           f"{fmt_seconds(ready[-1])}.")
    return Figure(fig, alt, "When each call returned to Python (circles) and when its "
                            "result was ready (squares); the grey line is the time the "
                            "work spent queued or running.")


# ---------------------------------------------------------------- break-even

def break_even_sizes(quick):
    return [10**3, 10**5] if quick else [10**k for k in range(3, 8)]


def measure_break_even(report, quick, pool):
    first_repeats = 2 if quick else 5
    rows, data = [], []
    for n in break_even_sizes(quick):
        x_np = pool[:n]
        x = jnp.asarray(x_np)
        # Eager JAX and NumPy take 0.1 s or more per call at n = 10^7: fewer samples.
        repeats, warmup = (5, 2) if quick else (9, 2) if n <= 10**5 else (5, 1)
        timed = time_calls({"jit": functools.partial(jit_call, x),
                            "eager": functools.partial(eager_call, x),
                            "numpy": functools.partial(numpy_call, x_np)},
                           repeats=repeats, warmup=warmup,
                           min_sample_s=0.002 if quick else 0.005)
        jit, eager, numpy = timed["jit"], timed["eager"], timed["numpy"]
        threads = xla_threads(x)
        # Last, because each first call starts by clearing every cache (eager's too).
        stages = [first_call_stages(x) for _ in range(first_repeats)]
        first = Timing([sum(s.values()) for s in stages], 1)
        compiling = Timing([s["trace_and_lower"] + s["compile"] for s in stages], 1)
        vs_eager = break_even_range(first, jit, eager)
        vs_numpy = break_even_range(first, jit, numpy)
        data.append({"n": n, "repeats": repeats, "xla_threads": threads,
                     "first": first.as_dict(), "compiling": compiling.as_dict(),
                     "jit": jit.as_dict(), "eager": eager.as_dict(),
                     "numpy": numpy.as_dict(), "vs_eager": vs_eager,
                     "vs_numpy": vs_numpy})
        rows.append([f"{n:,}", fmt_timing(first), fmt_timing(jit), str(threads),
                     fmt_timing(eager), fmt_timing(numpy), fmt_calls_range(vs_eager),
                     fmt_calls_range(vs_numpy)])
    savings = [row["eager"]["median"] - row["jit"]["median"] for row in data]
    if not quick and not savings[-3] < savings[-2] < savings[-1]:
        raise DocumentationMismatch(
            "the page says the saving per call (eager minus jit) grows with n once n "
            f"is large; at the three largest n it was {savings[-3:]} s")
    report.data["break_even"] = json_safe(data)
    report.tables["break_even"] = markdown_table(
        ["n", "first jitted call", "jitted call", "its XLA threads", "eager call",
         "NumPy call (1 thread)", "calls for jit to beat eager",
         "calls for jit to beat NumPy"], rows)
    small, large = data[0], data[-1]
    report.text["be_when"] = {  # text.be_when.<size>.<other>
        size: {"eager": when(row["vs_eager"]), "numpy": when(row["vs_numpy"])}
        for size, row in (("small", small), ("large", large))}
    report.text.update(
        be_first_repeats=str(first_repeats),
        be_small_n=f"{small['n']:,}", be_large_n=f"{large['n']:,}",
        be_small_eager=fmt_calls_range(small["vs_eager"]),
        be_small_numpy=fmt_calls_range(small["vs_numpy"]),
        be_large_eager=fmt_calls_range(large["vs_eager"]),
        be_large_numpy=fmt_calls_range(large["vs_numpy"]),
        be_small_first=fmt_seconds(small["first"]["median"]),
        be_small_compiling=fmt_seconds(small["compiling"]["median"]),
        be_large_first=fmt_seconds(large["first"]["median"]),
        be_small_threads=str(small["xla_threads"]),
        be_large_threads=str(large["xla_threads"]),
        )


def when(median_low_high):
    """Prose for a break-even: 'after 12 (9 to 15) calls', 'never at the medians
    (after 9 calls at best)', or 'never'."""
    median, low, high = median_low_high
    if math.isinf(low):
        return "never"
    if math.isinf(median):
        return f"never at the medians (after {fmt_calls(low)} calls at best)"
    if low == median == high:  # no spread to state
        return f"after {fmt_calls(median)} call" + ("" if median == 1 else "s")
    return f"after {fmt_calls_range(median_low_high)} calls"


def fmt_calls(calls):
    return "never" if math.isinf(calls) else f"{calls:,}"


def fmt_calls_range(median_low_high):
    median, low, high = median_low_high
    if math.isinf(low):
        return "never"
    if math.isinf(median):
        return f"never ({fmt_calls(low)} at best)"
    return f"{fmt_calls(median)} ({fmt_calls(low)} to {fmt_calls(high)})"


def json_safe(value):
    """inf (jit never catches up) as the string "inf": JSON has no infinity."""
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


if __name__ == "__main__":
    main(measure)
