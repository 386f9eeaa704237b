"""Run every pitfall of sharp_bits.py, capture what the installed JAX raises, run every
fix, and measure what a Python loop unrolled while tracing costs in compile time.

    python snippets/sharp_bits_benchmark.py           # full size, for your machine
    python snippets/sharp_bits_benchmark.py --quick   # small sizes, a few seconds
"""

import statistics

import jax
import jax.numpy as jnp
import numpy as np

import sharp_bits
from error_capture import Case, Session, error_name, run_session
from measurement import (DocumentationMismatch, Figure, Report, fmt_ratio, fmt_seconds,
                         fmt_timing, log_log_axes, main, markdown_table, time_calls)
from selu import compile_stages  # the SELU chapter's stage timer

X4 = "jnp.array([-1.0, 2.0, -3.0, 4.0])"
GRID5 = float(np.mean(np.sin(np.pi * np.linspace(0, 1, 5))))
E = jax.errors
# The sessions the page shows: what each pitfall raises, what each fix returns.
CASES: dict[str, Case] = {
    "branch": Case(
        "a Python if on a traced value",
        Session(["leaky_relu(-2.0)"]), E.TracerBoolConversionError,
        fixes={
            "where": Session([f"leaky_relu_where({X4})"], [-0.1, 2.0, -0.3, 4.0]),
            "cond": Session(["leaky_relu_cond(-2.0)"], -0.2),
            "static": Session(
                ["leaky_relu_static(-2.0)", "leaky_relu_static(3.0)",
                 "leaky_relu_static._cache_size()  # programs compiled: one per value"],
                2),
        }),
    "shape": Case(
        "a shape computed from a traced value",
        Session(["mean_on_grid(5)"]), E.ConcretizationTypeError,
        fixes={"static": Session(["mean_on_grid_static(5)"], GRID5)},
        variants={"zeros": (Session(["zeros_of_length(3)"]), TypeError)}),
    "index": Case(
        "a tracer used as a Python integer",
        Session(["weighted(10.0, 1)"]), E.TracerIntegerConversionError,
        fixes={"array": Session(["weighted_array(10.0, 1)"], 3.0)},
        variants={"int": (Session(["weighted_int(10.0, 1)"]),
                          E.ConcretizationTypeError)}),
    "numpy": Case(
        "a tracer handed to NumPy",
        Session(["norm(jnp.array([3.0, 4.0]))"]), E.TracerArrayConversionError,
        fixes={"jnp": Session(["norm_jnp(jnp.array([3.0, 4.0]))"], 5.0),
               "callback": Session(["norm_callback(jnp.array([3.0, 4.0]))"], 5.0)}),
    "mask": Case(
        "a boolean mask with a data-dependent size",
        Session([f"positive_sum({X4})"]), E.NonConcreteBooleanIndexError,
        fixes={"where": Session([f"positive_sum_where({X4})"], 6.0),
               "size": Session([f"positives_padded({X4})"], [2.0, 4.0, 0.0, 0.0])}),
    "trace_time": Case(
        "print and global variables, read while tracing",
        Session(["scaled(1.0)", "scaled(1.0)", "SCALE = 3.0",
                 "scaled(1.0)  # still 2: a cached program",
                 "scaled(jnp.ones(2))  # a new shape: traced again, SCALE read again"]),
        None,
        fixes={"explicit": Session(
            ["scaled_explicit(1.0, 2.0)", "scaled_explicit(1.0, 3.0)"], 3.0)}),
    "inplace": Case(
        "in-place assignment",
        Session(["set_first(jnp.array([1.0, 2.0, 3.0]), 9.0)"]), TypeError,
        fixes={"at": Session(["set_first_at(jnp.array([1.0, 2.0, 3.0]), 9.0)"],
                             [9.0, 2.0, 3.0])},
        variants={"eager": (Session(["x = jnp.array([1.0, 2.0, 3.0])",
                                     "x[0] = 9.0  # no jit at all"]), TypeError)}),
    "unhashable": Case(
        "an unhashable static argument",
        Session(['polynomial(2.0, config={"coefficients": [1.0, 0.0, 3.0]})']),
        ValueError,
        fixes={"tuple": Session(["polynomial_tuple(2.0, coefficients=(1.0, 0.0, 3.0))"],
                                13.0),
               "dataclass": Session(
                   ["polynomial_frozen(2.0, poly=Polynomial((1.0, 0.0, 3.0)))"],
                   13.0)}),
    "leak": Case(
        "a leaked tracer",
        Session(["step_and_record(1.0)", "history[-1] + 1.0"]), E.UnexpectedTracerError,
        fixes={"return": Session(["out, y = step_returning(1.0)", "history.append(y)",
                                  "history[-1] + 1.0"], 3.0)}),
    "loop": Case(
        "a Python loop, unrolled while tracing",
        Session(["euler_unrolled(jnp.float32(0.1), 100)"], None), None,
        fixes={"fori": Session(["euler_fori(jnp.float32(0.1), 100)"]),
               "scan": Session(["euler_scan(jnp.float32(0.1), 100)"]),
               "traced_length": Session(["euler_fori_any_length(jnp.float32(0.1), 100)",
                                         "euler_fori_any_length(jnp.float32(0.1), 200)",
                                         "euler_fori_any_length._cache_size()"], 1)}),
    "donate": Case(
        "a donated array, used again",
        Session(["x = jnp.zeros(3)", "y = add_one_donated(x)",
                 "x + 1.0  # x was donated to the call"]), RuntimeError,
        fixes={"rebind": Session(["x = jnp.zeros(3)",
                                  "x = add_one_donated(x)  # keep only the result",
                                  "x + 1.0"], [2.0, 2.0, 2.0])}),
}
# When each error is raised, if not while tracing.
RAISED_WHEN = {"unhashable": "the call, hashing its static argument",
               "leak": "a later use, outside jit",
               "donate": "run time: a later use of the array"}

LOOPS = {"Python for loop (unrolled)": sharp_bits.euler_unrolled,
         "lax.fori_loop": sharp_bits.euler_fori,
         "lax.scan": sharp_bits.euler_scan}


def run(session: Session):  # every session runs in sharp_bits.py's namespace
    return run_session(session, sharp_bits)


def check_error(label: str, outcome, expected: type | None) -> None:
    got = type(outcome.error) if outcome.error is not None else None
    if got is not expected:
        raise DocumentationMismatch(
            f"{label}: the page says {getattr(expected, '__name__', 'no exception')}, "
            f"but jax {jax.__version__} gave "
            f"{getattr(got, '__name__', 'no exception')}:"
            f"\n{outcome.transcript}")


def check_value(label: str, outcome, expected) -> None:
    if expected is not None and not np.allclose(np.asarray(outcome.value), expected,
                                                rtol=1e-6):
        raise DocumentationMismatch(f"{label}: the page says {expected!r}, "
                                    f"this JAX returned {outcome.value!r}")


def superclasses(cls: type) -> str:
    """The classes an `except` clause could name to catch `cls`, nearest first."""
    chain = [c for c in cls.__mro__[1:] if c not in (Exception, BaseException, object)
             and not c.__name__.startswith("_")]
    return " → ".join(f"`{c.__name__}`" for c in chain)


def capture_errors(report: Report) -> None:
    """Every session of CASES: transcripts into the text, classes into a table."""
    rows, data = [], {}
    sessions = report.text["sessions"] = {}  # sessions.<case>.fixes.<fix>, ...
    for name, case in CASES.items():
        outcome = run(case.pitfall)
        check_error(f"{name} pitfall", outcome, case.error)
        shown = sessions[name] = {"pitfall": outcome.transcript, "fixes": {},
                                  "variants": {}}
        entry = {"error": error_name(outcome.error) if outcome.error else None,
                 "message": outcome.error_text, "fixes": {}, "variants": {}}
        for fix_name, session in case.fixes.items():
            fixed = run(session)
            check_error(f"{name} fix {fix_name}", fixed, None)
            check_value(f"{name} fix {fix_name}", fixed, session.expected)
            shown["fixes"][fix_name] = fixed.transcript
            entry["fixes"][fix_name] = np.asarray(fixed.value).tolist()
        for variant_name, (session, expected) in case.variants.items():
            variant = run(session)
            check_error(f"{name} variant {variant_name}", variant, expected)
            shown["variants"][variant_name] = {
                "transcript": variant.transcript, "error": error_name(variant.error)}
            entry["variants"][variant_name] = error_name(variant.error)
        when = RAISED_WHEN.get(name, "tracing")
        if outcome.error is not None:
            shown["error"] = error_name(outcome.error)
            raised = f"`{error_name(outcome.error)}`"
            parents = superclasses(type(outcome.error))
        else:
            shown["error"] = "no exception"
            raised, parents, when = "nothing: it goes wrong silently", "", "–"
        data[name] = entry
        rows.append([f"[{case.title}](#{name})", when, raised, parents])
    report.tables["errors"] = markdown_table(
        ["pitfall", "raised at", f"what jax {jax.__version__} raises", "is also a"],
        rows)
    report.data["errors"] = data
    check_classes(report)
    check_stories(report)


STEADY_GAP = 1.1  # interquartile ranges this far apart, at least, tell two loops apart


def steady_reading(unrolled, fori):
    """The unrolled against fori_loop's steady call, in words the timings bear out: a
    call of some 20 µs moves more than a hair's gap between two ranges between runs."""
    ratio = unrolled["median"] / fori["median"]
    if unrolled["q1"] > STEADY_GAP * fori["q3"]:
        return (f"the unrolled loop took {fmt_ratio(ratio)} as long as `fori_loop`, "
                "beyond both interquartile ranges")
    if fori["q1"] > STEADY_GAP * unrolled["q3"]:
        return (f"`fori_loop` took {fmt_ratio(1 / ratio)} as long as the unrolled "
                "loop, beyond both interquartile ranges")
    return (f"close, their interquartile ranges within {STEADY_GAP - 1:.0%} of each "
            "other: a call on one scalar is mostly dispatch overhead")


def check_classes(report: Report) -> None:
    """The page says which built-in class each error is underneath; stop if not."""
    raised = [CASES[n].error for n in CASES if CASES[n].error is not None]
    raised += [e for n in CASES for _, e in CASES[n].variants.values()]
    jax_errors = {c for c in raised if c.__module__.startswith("jax")}
    outside = [c.__name__ for c in jax_errors
               if not issubclass(c, (TypeError, IndexError))]
    if outside:
        raise DocumentationMismatch(
            f"the page says every jax.errors class it shows is a TypeError or an "
            f"IndexError; these are not: {outside}")
    silent = sum(CASES[n].error is None for n in CASES)  # pitfalls that raise nothing
    if silent != 2:
        raise DocumentationMismatch("the page names two pitfalls that raise nothing "
                                    f"(a global read, a Python loop); {silent} do")
    report.text.update(n_pitfalls=str(len(CASES)), n_silent=str(silent),
                       n_jax_errors=str(len(jax_errors)),
                       n_index_errors=str(sum(issubclass(c, IndexError)
                                              for c in jax_errors)))


def check_stories(report: Report) -> None:
    """The prose around the silent pitfalls states these facts; stop if they changed."""
    outcome = run(CASES["trace_time"].pitfall)
    values = [None if v is None else np.asarray(v).tolist() for v in outcome.values]
    traced = [bool(p) for p in outcome.printed]
    if (values != [2.0, 2.0, None, 2.0, [3.0, 3.0]]
            or traced != [True, False, False, False, True]):
        raise DocumentationMismatch(
            f"the page's print/global story no longer holds:\n{outcome.transcript}")
    report.data["trace_time"] = {"values": values, "printed_while_tracing": traced}

    loop = CASES["loop"]
    first_values = [run(s).values[0] for s in [loop.pitfall, *loop.fixes.values()]]
    if not np.allclose(np.asarray(first_values), first_values[0], rtol=1e-6):
        raise DocumentationMismatch(f"the loop versions disagree: {first_values}")


# --8<-- [start:loop_stages]
def first_call_stages(fn, x, n_steps):
    """Trace + lower, then compile, one loop version from nothing cached (seconds)."""
    jax.clear_caches()
    # Tracing runs the Python function on tracers; XLA compiles the whole program.
    seconds, traced, compiled = compile_stages(fn, x, n_steps=n_steps)
    return {**seconds, "equations": len(traced.jaxpr.eqns)}, compiled
# --8<-- [end:loop_stages]


def measure_loops(report: Report, quick: bool) -> None:
    lengths = [10, 30] if quick else [10, 30, 100, 300]
    repeats = 2 if quick else 5
    x = jnp.float32(0.1)
    results = {label: [] for label in LOOPS}
    for n in lengths:
        runs = {label: [] for label in LOOPS}
        for _ in range(repeats):  # in turns, so a slow spell touches every loop version
            for label, fn in LOOPS.items():
                runs[label].append(first_call_stages(fn, x, n))
        compiled = {label: label_runs[-1][1] for label, label_runs in runs.items()}
        steady_times = time_calls(
            {label: lambda c=c: c(x).block_until_ready()
             for label, c in compiled.items()},
            repeats=5 if quick else 7, min_sample_s=0.001 if quick else 0.003)
        values = [float(c(x)) for c in compiled.values()]
        for label in LOOPS:
            stages = [r[0] for r in runs[label]]
            firsts = [s["trace_and_lower"] + s["compile"] for s in stages]
            results[label].append({
                "n": n,
                "trace_and_lower": statistics.median(
                    s["trace_and_lower"] for s in stages),
                "compile": statistics.median(s["compile"] for s in stages),
                "first": statistics.median(firsts), "first_samples": firsts,
                "trace_and_lower_samples": [s["trace_and_lower"] for s in stages],
                "compile_samples": [s["compile"] for s in stages],
                "equations": stages[0]["equations"],
                "steady": steady_times[label].as_dict(),
                "steady_text": fmt_timing(steady_times[label])})
        if not np.allclose(values, values[0], rtol=1e-6):
            raise DocumentationMismatch(
                f"the three loops disagree at n = {n}: {values}")
    report.data["loops"] = {"lengths": lengths, "repeats": repeats, "results": results}

    rows = []
    for i, n in enumerate(lengths):
        for label in LOOPS:
            r = results[label][i]
            spread = f"{fmt_seconds(min(r['first_samples']))} to " \
                     f"{fmt_seconds(max(r['first_samples']))}"
            rows.append([f"{n:,}", label, f"{r['equations']:,}",
                         fmt_seconds(r["trace_and_lower"]), fmt_seconds(r["compile"]),
                         f"{fmt_seconds(r['first'])} ({spread})", r["steady_text"]])
    report.tables["loops"] = markdown_table(
        ["steps", "loop", "jaxpr equations", "trace + lower", "XLA compile",
         f"trace + lower + compile (median; fastest to slowest of {repeats})",
         "steady-state call"],
        rows)

    unrolled, fori, scan = (results[label][-1] for label in LOOPS)
    report.text.update(
        loop_n_max=f"{lengths[-1]:,}", loop_n_min=f"{lengths[0]:,}",
        loop_repeats=str(repeats),
        loop_sampling=(f"the median of {repeats} fresh compilations, taken in turns"
                       + (" (quick mode)" if quick else "")),
        loop_unrolled_first=fmt_seconds(unrolled["first"]),
        loop_fori_first=fmt_seconds(fori["first"]),
        loop_scan_first=fmt_seconds(scan["first"]),
        loop_unrolled_vs_fori=fmt_ratio(unrolled["first"] / fori["first"]),
        loop_unrolled_equations=f"{unrolled['equations']:,}",
        loop_equations_per_step=f"{unrolled['equations'] // lengths[-1]}",
        loop_fori_equations=f"{fori['equations']:,}",
        loop_unrolled_steady=fmt_seconds(unrolled["steady"]["median"]),
        loop_fori_steady=fmt_seconds(fori["steady"]["median"]),
        loop_scan_steady=fmt_seconds(scan["steady"]["median"]),
        loop_steady_reading=steady_reading(unrolled["steady"], fori["steady"]))
    report.figures["loops"] = loops_figure(lengths, results, repeats)
    x, n = jnp.float32(0.1), lengths[0]
    report.text.update(  # what each loop becomes in the jaxpr
        loop_fori_primitive=primitives(sharp_bits.euler_fori.trace(x, n_steps=n)),
        loop_scan_primitive=primitives(sharp_bits.euler_scan.trace(x, n_steps=n)),
        loop_traced_primitive=primitives(sharp_bits.euler_fori_any_length.trace(x, n)))


def primitives(traced) -> str:
    return ", ".join(sorted({eqn.primitive.name for eqn in traced.jaxpr.eqns}))

def loops_figure(lengths, results, repeats) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for (label, rows), marker in zip(results.items(), ("o", "s", "^")):
        line, = ax.plot(lengths, [r["first"] for r in rows], marker=marker, label=label)
        for r in rows:  # every compilation, not only the median: they are noisy
            ax.plot([r["n"]] * len(r["first_samples"]), r["first_samples"], marker,
                    color=line.get_color(), alpha=0.3, ms=3)
    log_log_axes(ax, "loop length (Euler steps)", "seconds: trace + lower + compile",
                 "First call of a loop: unrolled by Python, or a loop primitive")
    span = {label: [r["first"] for r in rows] for label, rows in results.items()}
    unrolled = span["Python for loop (unrolled)"]
    alt = (f"Log-log plot of the time to trace, lower and compile a loop of "
           f"{lengths[0]:,} to {lengths[-1]:,} Euler steps, median of {repeats} "
           f"compilations with each one shown faintly. The unrolled Python loop takes "
           f"{fmt_seconds(unrolled[0])} at {lengths[0]:,} steps and "
           f"{fmt_seconds(unrolled[-1])} at {lengths[-1]:,}; across the same lengths "
           f"lax.fori_loop takes {fmt_seconds(min(span['lax.fori_loop']))} to "
           f"{fmt_seconds(max(span['lax.fori_loop']))} and lax.scan "
           f"{fmt_seconds(min(span['lax.scan']))} to "
           f"{fmt_seconds(max(span['lax.scan']))}.")
    caption = (f"Lines: median of {repeats} fresh compilations per point; "
               "faint markers: each compilation.")
    return Figure(fig, alt, caption)


def measure(quick: bool) -> Report:
    """Capture each pitfall's error and each fix's value; time loop compilation."""
    report = Report()
    report.text["jax_version"] = jax.__version__
    capture_errors(report)
    measure_loops(report, quick)
    return report


if __name__ == "__main__":
    main(measure)
