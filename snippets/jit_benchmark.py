"""What jax.jit does at run time, captured and measured: tracing, the cache, break-even,
asynchronous dispatch and the memory limit.

    python snippets/jit_benchmark.py            # full size: the tables for your machine
    python snippets/jit_benchmark.py --quick    # small sizes, a few seconds
"""

import contextlib
import io
import math
import resource
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jit_runtime import (add_one_donating, break_even_range, bytes_moved, copy_into,
                         dispatch_timeline, donated_loop, donation_demo, fresh_output,
                         page_faults_per_call, selu_donating, time_one_call)
from jit_tracing import CASES, explain_cache_misses, relative_paths, run_case, selu_jaxpr, three_calls
from measurement import (Figure, Report, Timing, fmt_ratio, fmt_seconds, fmt_timing, main,
                         markdown_table, time_calls)
from selu import eager_call, first_call_stages, jit_call, numpy_call, random_input, selu_jit


def measure(quick: bool) -> Report:
    """Capture tracing and the cache at work; measure break-even, dispatch and memory bandwidth."""
    report = Report()
    seconds = report.data["seconds"] = {}  # what each part of this measurement took
    start = time.perf_counter()
    capture_tracing(report)
    capture_cache_cases(report)
    seconds["tracing_and_cache"] = time.perf_counter() - start
    # One draw of standard normal float32 values (seed 0); each size takes its first n.
    # (Drawing each size anew would compile the random generator once per shape.)
    largest = max(break_even_sizes(quick) + bandwidth_sizes(quick) + [DISPATCH_N])
    pool = np.asarray(random_input(largest))
    report.text["input"] = f"the first n of {largest:,} standard normal float32 values (seed 0)"
    for part, run in (("dispatch", lambda: measure_dispatch(report, quick, jnp.asarray(pool[:DISPATCH_N]))),
                      ("break_even", lambda: measure_break_even(report, quick, pool)),
                      ("bandwidth", lambda: measure_bandwidth(report, quick, pool))):
        start = time.perf_counter()
        run()
        seconds[part] = time.perf_counter() - start
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
    jaxpr = selu_jaxpr(jax.ShapeDtypeStruct((1_000_000,), jnp.float32))
    report.text["jaxpr"] = str(jaxpr)
    report.text["jaxpr_equations"] = str(len(jaxpr.eqns))


# ---------------------------------------------------------------- the cache

def capture_cache_cases(report):
    rows, data = [], {}
    with explain_cache_misses():
        for slug, (title, _, _) in CASES.items():
            calls = run_case(slug)  # raises if a cache size differs from what the page states
            data[slug] = [{k: c[k] for k in ("cache_before", "cache_after", "traced")} for c in calls]
            rows.append([title,
                         ", ".join(f"{c['cache_before']} → {c['cache_after']}" for c in calls),
                         ", ".join("yes" if c["traced"] else "no" for c in calls),
                         str(sum(c["traced"] for c in calls))])
            # Every case's first call meets an empty cache and misses: the log shows the rest.
            log = [relative_paths(m) for c in calls[1:] for m in c["log"]]
            report.text[f"log_{slug}"] = ("\n\n".join(log) if log else
                                          "(no message: the calls after the first hit the cache)")
    report.data["cache_cases"] = data
    report.tables["cache_cases"] = markdown_table(
        ["case", "cache size at each call (before → after)", "traced at each call",
         "compilations"], rows)


# ---------------------------------------------------------------- asynchronous dispatch

DISPATCH_N = 1_000_000


def measure_dispatch(report, quick, x):
    n, calls, runs = DISPATCH_N, 20, (3 if quick else 5)
    timelines = [dispatch_timeline(selu_jit, x, calls=calls) for _ in range(runs)]
    timelines.sort(key=lambda t: t[1][-1])
    returned, ready = timelines[len(timelines) // 2]  # the run with the median total
    singles = [time_one_call(selu_jit, x) for _ in range(5 if quick else 15)]
    # Page faults per call: in a loop (every result alive at once) and one call at a time.
    loop_faults = page_faults_per_call(lambda: dispatch_timeline(selu_jit, x, calls=calls), calls=1)[0] / calls
    alone_faults = page_faults_per_call(lambda: selu_jit(x).block_until_ready(), calls=calls)[0]
    bare = Timing([s[0] for s in singles], 1)
    blocked = Timing([s[1] for s in singles], 1)
    report.data["dispatch"] = {"n": n, "calls": calls, "runs": runs,
                               "returned": returned, "ready": ready,
                               "all_runs": [{"returned": r, "ready": d} for r, d in timelines],
                               "one_call_returned": bare.as_dict(), "one_call_ready": blocked.as_dict(),
                               "page_faults_per_call": {"loop": loop_faults, "alone": alone_faults}}
    report.tables["dispatch"] = markdown_table(
        [f"jitted SELU, n = {n:,}", "returned after", "result ready after", "ready / returned"],
        [[f"one call, from idle (median of {len(singles)})", fmt_timing(bare), fmt_timing(blocked),
          fmt_ratio(blocked.median / bare.median)],
         [f"a loop of {calls} calls (median of {runs} loops)", fmt_seconds(returned[-1]),
          fmt_seconds(ready[-1]), fmt_ratio(ready[-1] / returned[-1])]])
    report.text.update(
        dispatch_n=f"{n:,}", dispatch_calls=str(calls), dispatch_runs=str(runs),
        loop_returned=fmt_seconds(returned[-1]), loop_ready=fmt_seconds(ready[-1]),
        loop_per_call_returned=fmt_seconds(returned[-1] / calls),
        loop_per_call_ready=fmt_seconds(ready[-1] / calls),
        one_returned=fmt_seconds(bare.median), one_ready=fmt_seconds(blocked.median),
        under_report=fmt_ratio(blocked.median / bare.median),
        loop_faults=f"{loop_faults:,.0f}", alone_faults=f"{alone_faults:,.0f}",
        dispatch_pages=f"{x.nbytes // resource.getpagesize():,}")
    report.figures["dispatch"] = dispatch_figure(returned, ready, n)


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
    alt = (f"Timeline of {len(returned)} calls of jitted SELU at n = {n:,}, one row per call. "
           f"All calls returned within {fmt_seconds(returned[-1])} of the start; their results "
           f"became ready one after another, the last after {fmt_seconds(ready[-1])}.")
    return Figure(fig, alt, "When each call returned to Python (circles) and when its result was "
                            "ready (squares); the grey line is the time the work spent queued or running.")


# ---------------------------------------------------------------- break-even

def break_even_sizes(quick):
    return [10**3, 10**5] if quick else [10**k for k in range(3, 8)]


def measure_break_even(report, quick, pool):
    first_repeats = 2 if quick else 5
    rows, data = [], []
    for n in break_even_sizes(quick):
        x_np = pool[:n]
        x = jnp.asarray(x_np)
        # Eager JAX and NumPy take 0.1 s or more per call at n = 10^7: fewer samples there.
        repeats, warmup = (5, 2) if quick else (9, 2) if n <= 10**5 else (5, 1)
        timed = time_calls({"jit": lambda: jit_call(x), "eager": lambda: eager_call(x),
                            "numpy": lambda: numpy_call(x_np)},
                           repeats=repeats, warmup=warmup, min_sample_s=0.002 if quick else 0.005)
        jit, eager, numpy = timed["jit"], timed["eager"], timed["numpy"]
        # Last, because each first call starts by clearing every cache (eager's too).
        stages = [first_call_stages(x) for _ in range(first_repeats)]
        first = Timing([sum(s.values()) for s in stages], 1)
        compiling = Timing([s["trace_and_lower"] + s["compile"] for s in stages], 1)
        vs_eager, vs_numpy = break_even_range(first, jit, eager), break_even_range(first, jit, numpy)
        data.append({"n": n, "repeats": repeats, "first": first.as_dict(), "compiling": compiling.as_dict(), "jit": jit.as_dict(), "eager": eager.as_dict(),
                     "numpy": numpy.as_dict(), "vs_eager": vs_eager, "vs_numpy": vs_numpy})
        rows.append([f"{n:,}", fmt_timing(first), fmt_timing(compiling), fmt_timing(jit), fmt_timing(eager), fmt_timing(numpy),
                     fmt_calls_range(vs_eager), fmt_calls_range(vs_numpy)])
    report.data["break_even"] = json_safe(data)
    report.tables["break_even"] = markdown_table(
        ["n", "first jitted call", "of which trace, lower, compile", "jitted call", "eager call", "NumPy call",
         "calls for jit to beat eager", "calls for jit to beat NumPy"], rows)
    small, large = data[0], data[-1]
    report.text.update(
        be_first_repeats=str(first_repeats),
        be_small_n=f"{small['n']:,}", be_large_n=f"{large['n']:,}",
        be_small_eager=fmt_calls_range(small["vs_eager"]), be_small_numpy=fmt_calls_range(small["vs_numpy"]),
        be_large_eager=fmt_calls_range(large["vs_eager"]), be_large_numpy=fmt_calls_range(large["vs_numpy"]),
        be_small_first=fmt_seconds(small["first"]["median"]),
        be_small_saving_eager=fmt_seconds(small["eager"]["median"] - small["jit"]["median"]))
    report.figures["break_even"] = break_even_figure(data)


def fmt_calls(calls):
    return "never" if math.isinf(calls) else f"{calls:,}"


def fmt_calls_range(median_low_high):
    median, low, high = median_low_high
    if math.isinf(low):
        return "never"
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


def break_even_figure(data) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ns = [d["n"] for d in data]
    finite = [c for d in data for key in ("vs_eager", "vs_numpy") for c in d[key] if not math.isinf(c)]
    top = 10 ** math.ceil(math.log10(max(finite + [10]) * 3))  # the "never" line, above every number
    ax.axhline(top, color="0.5", linewidth=0.8, linestyle=":")
    ax.text(ns[0], top * 1.15, "never (no saving)", fontsize=8, color="0.35")
    for key, label, marker in (("vs_eager", "against eager JAX", "o"), ("vs_numpy", "against NumPy", "^")):
        median, low, high = ([min(d[key][i], top) for d in data] for i in range(3))
        line, = ax.plot(ns, median, marker=marker, label=label)
        ax.fill_between(ns, low, high, alpha=0.2, color=line.get_color())
    ax.axhline(1, color="0.5", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(0.7, top * 2)
    ax.set_xlabel("n (elements, standard normal float32)")
    ax.set_ylabel("calls before jit's total time is lower")
    ax.set_title("SELU: how many calls pay for compiling")
    ax.legend()
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    first, last = data[0], data[-1]
    alt = (f"Log-log plot of the number of calls after which jitted SELU's total time, first call "
           f"included, is lower than eager JAX's and NumPy's, for n from {ns[0]:,} to {ns[-1]:,}. "
           f"At n = {ns[0]:,}: {fmt_calls_range(first['vs_eager'])} calls against eager, "
           f"{fmt_calls_range(first['vs_numpy'])} against NumPy; at n = {ns[-1]:,}: "
           f"{fmt_calls_range(last['vs_eager'])} against eager, "
           f"{fmt_calls_range(last['vs_numpy'])} against NumPy. Shaded bands span the interquartile "
           f"ranges' extremes.")
    return Figure(fig, alt, "Calls to break even at the medians; the band is the range the timings' "
                            "interquartile ranges allow. Points and bands on the dotted line mean "
                            "“never”: no saving per call, so no number of calls pays.")


# ---------------------------------------------------------------- the memory limit

def bandwidth_sizes(quick):
    # Quick mode keeps only the size where memory, not cache, sets the pace.
    return [10**7] if quick else [10**5, 10**6, 10**7]


PROBES = (("copy", "NumPy copy into a preallocated array"),
          ("add", "jitted x + 1, input donated"),
          ("selu_donated", "jitted SELU, input donated"),
          ("selu_fresh", "jitted SELU, fresh output"))


def measure_bandwidth(report, quick, pool):
    repeats, min_sample = (5, 0.002) if quick else (7, 0.005)
    results = {key: [] for key, _ in PROBES}
    for n in bandwidth_sizes(quick):
        x_np = pool[:n]
        x = jnp.asarray(x_np)
        probes = {"copy": copy_into(x_np, np.empty_like(x_np)),
                  "add": donated_loop(add_one_donating, x),
                  "selu_donated": donated_loop(selu_donating, x),
                  "selu_fresh": fresh_output(selu_jit, x)}
        for key, t in time_calls(probes, repeats=repeats, min_sample_s=min_sample).items():
            results[key].append({"n": n, "bytes": bytes_moved(x_np), **t.as_dict()})
        if n == bandwidth_sizes(quick)[-1]:
            faults = {key: page_faults_per_call(fn, calls=3 if quick else 5) for key, fn in probes.items()}
        del probes
    n, nbytes = results["copy"][-1]["n"], results["copy"][-1]["bytes"] // 2
    gbs = {key: [gb_per_s(r) for r in rs] for key, rs in results.items()}  # (median, low, high)
    limit_key = max(("copy", "add"), key=lambda k: gbs[k][-1][0])
    limit = gbs[limit_key][-1][0]
    page = resource.getpagesize()
    report.data["bandwidth"] = {"results": results, "faults": faults, "page_size": page,
                                "limit_probe": limit_key, "limit_gbs": limit}

    report.tables["bandwidth"] = markdown_table(
        ["n"] + [label for _, label in PROBES],
        [[f"{r['n']:,} ({fmt_bytes(r['bytes'] // 2)} each way)"]
         + [fmt_gbs(gbs[key][i]) for key, _ in PROBES]
         for i, r in enumerate(results["copy"])])
    report.tables["page_faults"] = markdown_table(
        [f"n = {n:,} ({fmt_bytes(nbytes)}, {nbytes // page:,} pages of {page:,} bytes)",
         "minor page faults per call", "share of CPU time in the kernel", "effective GB/s"],
        [[label, f"{faults[key][0]:,.0f}", f"{faults[key][1]:.0%}", fmt_gbs(gbs[key][-1])]
         for key, label in PROBES])
    fresh, donated = gbs["selu_fresh"][-1][0], gbs["selu_donated"][-1][0]
    report.text.update(
        bw_n=f"{n:,}", bw_bytes=fmt_bytes(nbytes), bw_pages=f"{nbytes // page:,}",
        page_size=f"{page:,}", l3=l3_cache_size(),
        limit=f"{limit:.3g} GB/s", limit_probe=dict(PROBES)[limit_key],
        copy_gbs=f"{gbs['copy'][-1][0]:.3g} GB/s", add_gbs=f"{gbs['add'][-1][0]:.3g} GB/s",
        fresh_gbs=f"{fresh:.3g} GB/s", donated_gbs=f"{donated:.3g} GB/s",
        fresh_share=f"{fresh / limit:.0%}", donated_share=f"{donated / limit:.0%}",
        donated_vs_fresh=fmt_ratio(donated / fresh),
        fresh_faults=f"{faults['selu_fresh'][0]:,.0f}", donated_faults=f"{faults['selu_donated'][0]:,.0f}",
        fresh_kernel=f"{faults['selu_fresh'][1]:.0%}", donated_kernel=f"{faults['selu_donated'][1]:.0%}",
        fresh_time=fmt_seconds(results["selu_fresh"][-1]["median"]),
        donated_time=fmt_seconds(results["selu_donated"][-1]["median"]))
    report.figures["bandwidth"] = bandwidth_figure(gbs, limit, dict(PROBES)[limit_key], n)

    y, message = donation_demo(random_input(5))
    report.text["donated_error"] = message
    report.data["donated_equals_undonated"] = bool((y == selu_jit(random_input(5))).all())


def gb_per_s(result):
    """(median, low, high) GB/s from a timing: a shorter time is a higher bandwidth."""
    return tuple(result["bytes"] / result[q] / 1e9 for q in ("median", "q3", "q1"))


def fmt_gbs(median_low_high):
    median, low, high = median_low_high
    return f"{median:.3g} ({low:.3g} to {high:.3g})"


def fmt_bytes(nbytes):
    return f"{nbytes / 1e6:.3g} MB"


def l3_cache_size():
    """The last-level cache's size as Linux reports it, for context ("not known" elsewhere)."""
    sizes = []
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        with contextlib.suppress(OSError):
            if (index / "level").read_text().strip() == "3":
                sizes.append((index / "size").read_text().strip())
    if not sizes:
        return "not known"
    kib = int(sizes[0].rstrip("K"))  # sysfs writes e.g. "32768K"
    return f"{kib // 1024} MiB" if kib % 1024 == 0 else f"{kib} KiB"


def bandwidth_figure(gbs, limit, limit_label, n) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    labels = [label for _, label in PROBES][::-1]
    values = [gbs[key][-1] for key, _ in PROBES][::-1]
    medians = [v[0] for v in values]
    ax.barh(labels, medians, xerr=[[v[0] - v[1] for v in values], [v[2] - v[0] for v in values]],
            color=["0.45" if "SELU" in label else "0.7" for label in labels], capsize=3)
    ax.axvline(limit, color="C3", linestyle="--", label=f"this machine's measured limit, {limit:.3g} GB/s")
    ax.set_xlabel("GB/s (bytes read + bytes written, per second)")
    ax.set_title(f"Bandwidth achieved at n = {n:,}, float32")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    parts = ", ".join(f"{label} {v[0]:.3g} GB/s" for label, v in zip(labels[::-1], values[::-1]))
    alt = (f"Horizontal bars of the bandwidth achieved at n = {n:,} on the machine that built this page: "
           f"{parts}. A dashed line marks the limit measured by the faster probe, {limit_label}, "
           f"at {limit:.3g} GB/s.")
    return Figure(fig, alt, "Effective bandwidth: the bytes each operation must read and write, divided "
                            "by its median time; error bars span the interquartile range.")


if __name__ == "__main__":
    main(measure)
