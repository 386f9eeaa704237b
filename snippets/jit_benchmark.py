"""What jax.jit does, captured and measured: tracing, the cache, how long a program
stays cached, break-even, asynchronous dispatch and buffer donation.

    python snippets/jit_benchmark.py            # full size: the tables for your machine
    python snippets/jit_benchmark.py --quick    # small sizes, a few seconds
"""

import contextlib
import io
import math
import mmap
import statistics
import threading
import time
import types

import jax
import jax.numpy as jnp
import numpy as np

from compilation import count_compilations
from measurement import (CLOSE, Report, Table, Timing, compare, fact, main, ratio_of,
                         relative_paths, shared, timing, trend, word)
from selu import random_input, selu_jit

# jit.py is imported where it is used: its `x` opens the device at import, and run alone
# this process leaves the device to the SELU chapter's fresh processes first (shared).
FIRST = (0, 1, True, 1)  # an empty cache: one entry, one trace, one compilation
# What the page says of each cache case: for every call, (cache size before, after,
# traced, XLA compilations). Facts of the pinned JAX: a change stops the build.
STATED_CASES = {
    "new_values": [FIRST, (1, 1, False, 0)],
    "new_shape": [FIRST, (1, 2, True, 1)],
    "new_dtype": [FIRST, (1, 2, True, 1)],
    "weak_type": [FIRST, (1, 1, False, 0), (1, 2, True, 1)],
    "numpy_array": [FIRST, (1, 2, False, 0)],
    "placement": [FIRST, (1, 2, False, 1)],
    "fresh_lambda": [FIRST] * 2,
    "fresh_partial": [FIRST] * 2,
    "same_function": [FIRST, (1, 1, False, 0), (1, 1, False, 0)],
    "bound_method": [FIRST] * 2,
    "static_argument": [FIRST, (1, 2, True, 1), (2, 2, False, 0)],
}
# The bounded caches every jitted function in the process shares, in entries, as the
# page says (jax 0.12.0.1: jax/_src/pjit.py, interpreters/pxla.py, util.py).
STATED_CACHES = {"dispatch": 8192, "trace": 2048, "lower": 2048, "compile": 2048}
DISPATCH_N = 1_000_000
FAULTS_SHOWN = 50  # loop page faults per call that name the cause (and 10x singles')
SLOW_RETURN = 10  # a loop's call took this many times its loop's median call to return


def measure(quick: bool) -> dict:
    """Capture tracing and the cache at work; measure break-even and dispatch."""
    took, data = {}, {}
    # first: run alone (no --reads), the SELU chapter measures in fresh processes here
    data["break_even"] = measure_break_even(quick)
    start = time.perf_counter()
    data["three_calls"] = capture_tracing()
    data["jaxpr"] = capture_jaxpr()
    data["cache_cases"], data["log"] = capture_cache_cases()
    data["caches"] = cache_sizes()
    trace_cache_across_threads()
    data["effects"] = effects_and_the_fast_path()
    data["in_place_copies"] = capture_in_place()
    took["tracing_and_cache"] = time.perf_counter() - start
    # One draw of standard normal float32 values (seed 0), random_input(DISPATCH_N);
    # random_input(5)'s values are its first five: JAX's draws for one seed are
    # prefixes of each other, and taking them costs no compilation
    pool = np.asarray(random_input(DISPATCH_N))
    data["input"] = {"pool": DISPATCH_N, "seed": 0}
    start = time.perf_counter()
    data["dispatch"] = measure_dispatch(quick, jnp.asarray(pool))
    took["dispatch"] = time.perf_counter() - start
    data["donation"] = capture_donation(jnp.asarray(pool[:5]))
    data["seconds"] = took
    return data


# ---------------------------------------------------------------- tracing

def capture_tracing() -> dict:
    from jit import three_calls
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        three_calls()
    output = printed.getvalue()
    counts = {"tracing": output.count("tracing selu_loud"),
              "running": output.count("running selu_loud")}
    fact("jit.three_calls_trace_twice", counts == {"tracing": 2, "running": 3},
         f"three_calls() printed:\n{output}")
    return {"captured": output.rstrip("\n"), **counts}


def capture_jaxpr() -> dict:
    from jit import selu_jaxpr
    jaxpr = selu_jaxpr(jax.ShapeDtypeStruct((1_000_000,), jnp.float32))
    text = str(jaxpr)
    literals = ("1.6699999570846558:f32[]", "1.0499999523162842:f32[]")
    fact("jit.jaxpr_of_selu", "name=_where" in text and "f32[1000000]" in text
         and all(literal in text for literal in literals),
         "the page describes `where` as a nested jit (_where) and alpha and lambda_ "
         f"as float32 literals; this JAX traces selu as:\n{text}")
    return {"jaxpr": text, "equations": len(jaxpr.eqns)}


# ---------------------------------------------------------------- the cache

def capture_cache_cases() -> tuple[dict, dict]:
    """Each case's calls as (cache before, after, traced, compiled), and what JAX logged
    after each case's first call (which meets an empty cache and always misses)."""
    from jit import CASES, run_case
    keys = ("cache_before", "cache_after", "traced", "compiled")
    cases, logs = {}, {}
    for slug in CASES:
        calls = run_case(slug)
        seen = [tuple(c[k] for k in keys) for c in calls]
        fact(f"jit.cache.{slug}", seen == STATED_CASES[slug],
             f"cache case {slug!r}: the page says (cache before, after, traced, "
             f"compilations) {STATED_CASES[slug]}, but this JAX did {seen}")
        cases[slug] = [{k: c[k] for k in keys} for c in calls]
        logs[slug] = "\n\n".join(relative_paths(m) for c in calls[1:] for m in c["log"])
    return cases, logs


def cache_sizes() -> dict:
    """Entries of the shared caches, read from the installed JAX (private parts)."""
    from jax._src import pjit
    from jax._src.interpreters import pxla

    dispatch = {pjit._cpp_pjit_cache_explicit_attributes.capacity(),
                pjit._cpp_pjit_cache_fun_only.capacity()}  # two C++ caches, one size
    sizes = {"dispatch": max(dispatch),
             "trace": pjit._infer_params_cached.cache_info().maxsize,
             "lower": pjit._pjit_lower.cache_info().maxsize,
             "compile": pxla._cached_compilation.cache_info().maxsize}
    fact("jit.cache_sizes", len(dispatch) == 1 and sizes == STATED_CACHES,
         f"the page gives the shared caches' sizes as {STATED_CACHES}; this JAX has "
         f"{sizes} (C++ dispatch caches: {sorted(dispatch)})")
    return sizes


def trace_cache_across_threads() -> None:
    """jax/_src/util.py calls weakref_lru_cache "thread local"; the page says what it
    does: a trace made on one thread is found in the trace cache (_infer_params_cached)
    on another. The function has an effect (a jax.debug.callback doing nothing), so
    its dispatch entry has no fast path and every call looks in the trace cache;
    without one, the C++ dispatch cache answers the second call, the trace cache
    unread."""
    from jax._src import pjit

    traced = []

    @jax.jit
    def double(x):
        traced.append(1)
        jax.debug.callback(lambda: None)  # an effect: no fast path
        return 2 * x

    jax.block_until_ready(double(jnp.ones(3)))
    jax.effects_barrier()
    hits = pjit._infer_params_cached.cache_info().hits
    other = threading.Thread(target=lambda: jax.block_until_ready(double(jnp.ones(3))))
    other.start()
    other.join()
    jax.effects_barrier()
    found = pjit._infer_params_cached.cache_info().hits - hits
    fact("jit.trace_cache_shared_by_threads", len(traced) == 1 and found > 0,
         f"a function traced on one thread was traced {len(traced)} times in all once "
         f"another thread called it, and that call found {found} traces in the trace "
         "cache: the page says the trace cache is process-wide")


def effects_and_the_fast_path() -> dict:
    """A function with effects (selu_loud's jax.debug.print) has a dispatch entry
    without a fast path (jax/_src/pjit.py, _get_fastpath_data): each call goes through
    the trace cache, and its program is compiled again once it leaves the lower and
    compile caches, though its dispatch entry stays. A function without effects
    (selu_jit) runs from the dispatch cache alone. Both shown with private parts of
    JAX, cleared by hand as least-recently-used eviction by newer programs would empty
    them."""
    from jit import selu_loud
    from jax._src import pjit
    from jax._src.interpreters import pxla

    x, calls, found = jnp.ones(3), 3, {}
    with contextlib.redirect_stdout(io.StringIO()):  # selu_loud's prints
        for name, f in (("selu_jit", selu_jit), ("selu_loud", selu_loud)):
            jax.clear_caches()
            jax.block_until_ready(f(x))
            jax.effects_barrier()
            hits = pjit._infer_params_cached.cache_info().hits
            for _ in range(calls):
                jax.block_until_ready(f(x))
            jax.effects_barrier()
            lookups = pjit._infer_params_cached.cache_info().hits - hits
            pjit._pjit_lower.cache_clear()
            pxla._cached_compilation.cache_clear()
            with count_compilations() as compiled:
                jax.block_until_ready(f(x))
                jax.effects_barrier()
            found[name] = {"calls": calls, "trace_cache_lookups": lookups,
                           "compilations_after_eviction": compiled.total(),
                           "dispatch_entries": f._cache_size()}
    fact("jit.effects_skip_the_fast_path",
         [(found[n]["trace_cache_lookups"], found[n]["compilations_after_eviction"])
          for n in ("selu_jit", "selu_loud")] == [(0, 0), (calls, 1)],
         "the page says a jitted function without effects runs from the dispatch "
         "cache alone, while one with jax.debug.print goes through the trace cache on "
         "every call and compiles again once it leaves the lower and compile caches; "
         f"this JAX did {found}")
    return found


def capture_in_place() -> dict:
    """x.at[0].set inside jit: copies of x in the optimized program (kept, donated)."""
    from jit import copies_in, set_first
    v = jnp.ones(1000)
    copies = {"kept": copies_in(jax.jit(set_first), v),
              "donated": copies_in(jax.jit(set_first, donate_argnums=0), v)}
    if jax.default_backend() == "cpu":  # XLA:CPU's program; others' may differ
        fact("jit.in_place_copies_cpu", copies == {"kept": 1, "donated": 0},
             f"the page says XLA:CPU copies a kept argument of x.at[0].set once and a "
             f"donated one never; this JAX: {copies}")
    return copies


def capture_donation(x) -> dict:
    from jit import donation_demo
    expected = selu_jit(x)
    y, error = donation_demo(x)
    equal = bool((y == expected).all())
    fact("jit.donated_array_deleted",
         error is not None and "deleted" in error and equal,
         "the page says a donated array is deleted (using it raises) and the result "
         f"is unchanged; this JAX: error {error!r}, result equal: {equal}")
    return {"error": error, "equals_undonated": equal}


# ---------------------------------------------------------------- asynchronous dispatch

def page_faults() -> int | None:
    """Minor page faults of this process so far: first touches of memory it was given
    (None where the resource module is missing: Windows)."""
    try:
        import resource
    except ImportError:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def faults_per_call(run, calls):
    """run()'s result, and the page faults per call while it ran."""
    before = page_faults()
    result = run()
    return result, None if before is None else (page_faults() - before) / calls


def measure_dispatch(quick, x) -> dict:
    from jit import dispatch_timeline, time_one_call
    n, calls, runs = DISPATCH_N, 20, (3 if quick else 5)
    # each run's own faults: later runs reuse memory that earlier ones faulted in
    # (dispatch_timeline makes one warm-up call before its `calls`)
    timed = [faults_per_call(lambda: dispatch_timeline(selu_jit, x, calls=calls),
                             calls + 1) for _ in range(runs)]
    by_total = sorted(timed, key=lambda run: run[0][1][-1])
    shown = by_total[len(timed) // 2]  # the run with the median total
    (returned, ready), loop_faults = shown
    count = 5 if quick else 15
    singles, single_faults = faults_per_call(
        lambda: [time_one_call(selu_jit, x) for _ in range(count)], count)
    over_runs = lambda pick: Timing([pick(r, d) for (r, d), _ in timed], 1).as_dict()  # noqa: E731
    return {
        "n": n, "calls": calls, "runs": runs, "singles": count,
        "returned": returned, "ready": ready,  # the run with the median total
        "all_runs": [{"returned": r, "ready": d, "page_faults_per_call": f}
                     for (r, d), f in timed],
        "loop_returned": over_runs(lambda r, d: r[-1]),
        "loop_ready": over_runs(lambda r, d: d[-1]),
        "loop_per_call": over_runs(lambda r, d: d[-1] / calls),
        "one_call_returned": Timing([s[0] for s in singles], 1).as_dict(),
        "one_call_ready": Timing([s[1] for s in singles], 1).as_dict(),
        "page_faults_per_call": {"loop": loop_faults, "single_calls": single_faults},
        "result_bytes": x.nbytes, "page_bytes": mmap.PAGESIZE}


# ---------------------------------------------------------------- break-even

def measure_break_even(quick) -> dict:
    """Per size: the first jitted call (from empty caches; its trace and compile), and
    steady calls of jit, eager JAX and NumPy: the SELU chapter's measurement, read."""
    sel = shared("selu_benchmark", quick)
    s, first = sel["scaling"], sel["first_call"]
    return {"n": s["n"], "first_repeats": first["repeats"],
            "processes": sel["processes"], "repeats": [sel["repeats"]] * len(s["n"]),
            "xla_threads": s["xla_threads"],
            "first": first["sizes"]["first"], "compiling": first["sizes"]["compiling"],
            **{way: s[way] for way in ("jit", "eager", "numpy")}}


# ---------------------------------------------------------------- the report

def quartiles(t):
    """A Timing's as_dict() as break_even_range reads it (median, q1, q3)."""
    return types.SimpleNamespace(median=t["median"], q1=t["q1"], q3=t["q3"])


def break_even(data, other, i) -> dict:
    """Calls for jit to beat `other` at size i, as data a page words: kind "after"
    (calls, low, high over the quartiles; high None: the worst corner never breaks
    even), "never_at_medians" (low: the best corner), or "never"."""
    from jit import break_even_range
    be = data["break_even"]
    median, low, high = break_even_range(
        quartiles(be["first"][i]), quartiles(be["jit"][i]), quartiles(be[other][i]))
    kind = ("never" if math.isinf(low) else
            "never_at_medians" if math.isinf(median) else "after")
    finite = lambda c: None if math.isinf(c) else int(c)  # noqa: E731  (JSON has no inf)
    return {"kind": kind, "n": be["n"][i], "other": other, "calls": finite(median),
            "low": finite(low), "high": finite(high)}


def calls_cell(v) -> dict:
    if v["kind"] == "never":
        return word("never")
    if v["kind"] == "never_at_medians":
        return word("never_at_medians", best=v["low"])
    if v["high"] is None:  # the least favourable corner never breaks even
        return word("calls_from", calls=v["calls"], low=v["low"])
    if v["low"] == v["high"]:
        return word("calls_exact", calls=v["calls"])
    return word("calls_range", calls=v["calls"], low=v["low"], high=v["high"])


def saving_trend(data) -> dict:
    """How the saving per call (eager minus jit, medians) moves over the largest three
    sizes: trend()'s kinds, or "none" where jit saved nothing at one of them."""
    be = data["break_even"]
    sizes = be["n"][-3:]
    savings = [be["eager"][i]["median"] - be["jit"][i]["median"]
               for i in range(len(be["n"]))][-3:]
    found = (trend(savings) if min(savings) > 0 else
             {"kind": "none", "factor": None, "first": savings[0], "last": savings[-1]})
    return {**found, "n": sizes, "savings": savings}


def page_faults_verdict(data) -> dict:
    """Whether the page faults name the cause of a loop call's extra time: "shown" (the
    loop faulted at least FAULTS_SHOWN pages per call and 10x the single calls), "few",
    or "not_counted" (no resource module)."""
    d = data["dispatch"]
    faults = d["page_faults_per_call"]
    loop, single = faults["loop"], faults["single_calls"]
    kind = ("not_counted" if loop is None else
            "shown" if loop >= max(10 * (single or 0), FAULTS_SHOWN) else "few")
    return {"kind": kind, "loop": loop, "single": single,
            "pages_per_result": d["result_bytes"] / d["page_bytes"]}


def slow_returns(d) -> dict:
    """The loops in which a call took over SLOW_RETURN times the loop's median call to
    return (from the return before it, or the loop's start: what widens the returned
    column's range):
    how many loops, whether one had several, and the shortest and longest such call."""
    slow, several = [], False
    for run in d["all_runs"]:
        returned = run["returned"]
        took = [b - a for a, b in zip([0.0] + returned, returned)]
        typical = statistics.median(took)
        found = [t for t in took if t > SLOW_RETURN * typical]
        several = several or len(found) > 1
        slow.extend([found] if found else [])
    every = [t for found in slow for t in found]
    return {"kind": "some" if slow else "none", "loops": len(slow), "runs": d["runs"],
            "several": several, "low": min(every, default=None),
            "high": max(every, default=None), "factor": SLOW_RETURN}


def late_single_returns(d) -> dict:
    """The single calls from idle that returned close to when their result was ready
    (within CLOSE of it: after half their ready time), each call's own pair of
    samples: kind "none", "some" or "all"; how many, the latest return of the others
    (early_high), and the range of the late ones' returns."""
    d = {k: d[k]["samples"] for k in ("one_call_returned", "one_call_ready")}
    pairs = list(zip(d["one_call_returned"], d["one_call_ready"]))
    late = [r for r, ready in pairs if ready < CLOSE * r]
    early = [r for r, ready in pairs if ready >= CLOSE * r]
    return {"kind": "none" if not late else "all" if not early else "some",
            "late": len(late), "calls": len(pairs),
            "early_high": max(early, default=None), "low": min(late, default=None),
            "high": max(late, default=None), "factor": CLOSE}


def slowest_loop(d) -> dict:
    """The slowest loop's last ready time against the figure's loop (the median one):
    compare()'s verdict, read from the loops' last ready times (dispatch.loop_ready)."""
    samples = d["loop_ready"]["samples"]  # one per loop, in the order of all_runs
    k = max(range(len(samples)), key=samples.__getitem__)
    final = len(d["ready"]) - 1
    return compare(d["ready"][final], samples[k], ("shown", "slowest"),
                   (f"dispatch.ready.{final}", f"dispatch.loop_ready.samples.{k}"))


def shown_loop_row(d) -> list:
    """The table's loop row: the loop the figure draws (the median by its last ready
    time), its own last return, last ready time and their ratio; in brackets, the
    fastest to the slowest of all the loops (each loop's own ratio, for the ratio),
    which holds the figure's loop as an interquartile range need not."""
    returned, ready = d["returned"][-1], d["ready"][-1]
    ratios = [r["ready"][-1] / r["returned"][-1] for r in d["all_runs"]]

    def span(t):
        return [min(t["samples"]), max(t["samples"])]
    return [word("loop", calls=d["calls"], runs=d["runs"]),
            {"timing": [returned, *span(d["loop_returned"])]},
            {"timing": [ready, *span(d["loop_ready"])]},
            {"ratio": ready / returned, "range": [min(ratios), max(ratios)]}]


def report(data: dict) -> Report:
    """Tables and verdicts of the jit page, from its data alone."""
    be, d = data["break_even"], data["dispatch"]
    last = len(be["n"]) - 1
    sizes = (("smallest", 0), ("largest", last))

    def compared(a, b, names):  # two timings of data["dispatch"], read from there
        return compare(d[a], d[b], names, (f"dispatch.{a}", f"dispatch.{b}"))

    final = len(d["returned"]) - 1  # the figure's loop: its last return and ready time

    verdicts = {
        **{f"beats_{other}_{where}": break_even(data, other, i)
           for other in ("eager", "numpy") for where, i in sizes},
        "saving": saving_trend(data),
        "single_returns_early": compared("one_call_returned", "one_call_ready",
                                         ("returned", "ready")),
        "loop_returns_early": compare(
            d["returned"][final], d["ready"][final], ("returned", "ready"),
            (f"dispatch.returned.{final}", f"dispatch.ready.{final}")),
        "loop_vs_single": compared("loop_per_call", "one_call_ready",
                                   ("loop", "single")),
        "page_faults": page_faults_verdict(data),
        "slow_returns": slow_returns(d),
        "late_single_returns": late_single_returns(d),
        "slowest_loop": slowest_loop(d),
    }
    threads = None not in be["xla_threads"]  # XLA:CPU writes its plan; others do not
    tables = {
        "cache_cases": Table(
            ["case", "cache_size", "traced", "compilations"],
            [[word(slug),
              ", ".join(f"{c['cache_before']} → {c['cache_after']}" for c in calls),
              word("traced_" + "".join("y" if c["traced"] else "n" for c in calls)),
              ", ".join(str(c["compiled"]) for c in calls)]
             for slug, calls in data["cache_cases"].items()]),
        "effects": Table(
            ["function", "trace_cache_lookups", "compilations_after_eviction"],
            [[name, f["trace_cache_lookups"], f["compilations_after_eviction"]]
             for name, f in data["effects"].items()],
            {"calls": data["effects"]["selu_jit"]["calls"]}),
        "break_even": Table(
            ["n", "first", "jit"] + (["xla_threads"] if threads else [])
            + ["eager", "numpy", "beats_eager", "beats_numpy"],
            [[n, timing(be["first"][i]), timing(be["jit"][i])]
             + ([be["xla_threads"][i]] if threads else [])
             + [timing(be["eager"][i]), timing(be["numpy"][i]),
                calls_cell(break_even(data, "eager", i)),
                calls_cell(break_even(data, "numpy", i))]
             for i, n in enumerate(be["n"])]),
        "dispatch": Table(
            ["what", "returned", "ready", "ready_vs_returned"],
            [[word("one_call", singles=d["singles"]), timing(d["one_call_returned"]),
              timing(d["one_call_ready"]),
              ratio_of(d["one_call_ready"], d["one_call_returned"])],
             shown_loop_row(d)],
            {"n": d["n"]}),
    }
    return Report(tables=tables, verdicts=verdicts)


def dispatch_figure(data, words):
    """A row per call of the loop with the median ready time: when it returned, and when
    block_until_ready returned for it (called in order after the loop: for calls done
    before the loop ended, a bound, not the time they were ready)."""
    import matplotlib.pyplot as plt

    d = data["dispatch"]
    returned, ready = d["returned"], d["ready"]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    index = range(1, len(returned) + 1)
    ms = lambda values: [s * 1e3 for s in values]  # noqa: E731
    ax.hlines(index, ms(returned), ms(ready), color="0.75", linewidth=1)
    ax.plot(ms(returned), index, "o", markersize=4, label=words["returned_marker"])
    ax.plot(ms(ready), index, "s", markersize=4, label=words["ready_marker"])
    ax.set_xlabel(words["xlabel"])
    ax.set_ylabel(words["ylabel"])
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.invert_yaxis()
    ax.set_title(words["title"].format(calls=len(returned), n=f"{d['n']:,}"))
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


FIGURES = {"dispatch": dispatch_figure}

if __name__ == "__main__":
    main(measure, report, FIGURES)
