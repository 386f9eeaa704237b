"""Run every pitfall of sharp_bits.py, capture what the installed JAX raises, run every fix,
and measure what a Python loop unrolled while tracing costs in compile time.

    python snippets/sharp_bits_benchmark.py            # full size: the tables for your machine
    python snippets/sharp_bits_benchmark.py --quick    # small sizes, a few seconds
"""

import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import sharp_bits
from measurement import Figure, Report, fmt_ratio, fmt_seconds, fmt_timing, main, markdown_table, time_calls
from sharp_bits import CASES, error_name, run_session

LOOPS = {"Python for loop (unrolled)": sharp_bits.euler_unrolled,
         "lax.fori_loop": sharp_bits.euler_fori,
         "lax.scan": sharp_bits.euler_scan}


class DocumentationMismatch(RuntimeError):
    """The installed JAX no longer behaves as the page says: the build must stop."""


def check_error(label: str, outcome, expected: type | None) -> None:
    got = type(outcome.error) if outcome.error is not None else None
    if got is not expected:
        raise DocumentationMismatch(
            f"{label}: the page documents {getattr(expected, '__name__', 'no exception')}, "
            f"but jax {jax.__version__} gave {getattr(got, '__name__', 'no exception')}:\n"
            f"{outcome.transcript}")


def check_value(label: str, outcome, expected) -> None:
    if expected is not None and not np.allclose(np.asarray(outcome.value), expected, rtol=1e-6):
        raise DocumentationMismatch(f"{label}: expected {expected!r}, got {outcome.value!r}")


def superclasses(cls: type) -> str:
    """The classes an `except` clause could name to catch `cls`, nearest first."""
    chain = [c for c in cls.__mro__[1:] if c not in (Exception, BaseException, object)
             and not c.__name__.startswith("_")]
    return " → ".join(f"`{c.__name__}`" for c in chain)


def capture_errors(report: Report) -> None:
    """Every session of sharp_bits.CASES: transcripts into the text, classes into a table."""
    rows, data = [], {}
    for name, case in CASES.items():
        outcome = run_session(case.pitfall)
        check_error(f"{name} pitfall", outcome, case.error)
        report.text[f"{name}_pitfall"] = outcome.transcript
        entry = {"error": error_name(outcome.error) if outcome.error else None,
                 "message": outcome.error_text, "fixes": {}, "variants": {}}
        for fix_name, session in case.fixes.items():
            fixed = run_session(session)
            check_error(f"{name} fix {fix_name}", fixed, None)
            check_value(f"{name} fix {fix_name}", fixed, session.expected)
            report.text[f"{name}_fix_{fix_name}"] = fixed.transcript
            entry["fixes"][fix_name] = np.asarray(fixed.value).tolist()
        for variant_name, (session, expected) in case.variants.items():
            variant = run_session(session)
            check_error(f"{name} variant {variant_name}", variant, expected)
            report.text[f"{name}_variant_{variant_name}"] = variant.transcript
            report.text[f"{name}_variant_{variant_name}_error"] = error_name(variant.error)
            entry["variants"][variant_name] = error_name(variant.error)
        if outcome.error is not None:
            report.text[f"{name}_error"] = error_name(outcome.error)
            raised = f"`{error_name(outcome.error)}`"
            parents = superclasses(type(outcome.error))
        else:
            report.text[f"{name}_error"] = "no exception"
            raised, parents = "nothing: it goes wrong silently", ""
        data[name] = entry
        rows.append([f"[{case.title}](#{name})", raised, parents])
    report.tables["errors"] = markdown_table(
        ["pitfall", f"what jax {jax.__version__} raises", "is also a"], rows)
    report.data["errors"] = data
    check_stories(report)


def check_stories(report: Report) -> None:
    """The prose around the silent pitfalls states these facts; stop if JAX changed them."""
    outcome = run_session(CASES["trace_time"].pitfall)
    values = [None if v is None else np.asarray(v).tolist() for v in outcome.values]
    traced = [bool(p) for p in outcome.printed]
    if values != [2.0, 2.0, None, 2.0, [3.0, 3.0]] or traced != [True, False, False, False, True]:
        raise DocumentationMismatch(f"print/global pitfall behaves differently:\n{outcome.transcript}")
    report.data["trace_time"] = {"values": values, "printed_while_tracing": traced}

    loop = CASES["loop"]
    first_values = [run_session(s).values[0] for s in [loop.pitfall, *loop.fixes.values()]]
    if not np.allclose(np.asarray(first_values), first_values[0], rtol=1e-6):
        raise DocumentationMismatch(f"the loop versions disagree: {first_values}")


# --8<-- [start:loop_stages]
def first_call_stages(fn, x, n_steps):
    """Trace + lower, then compile, one loop version from nothing cached (seconds)."""
    jax.clear_caches()
    t0 = time.perf_counter()
    traced = fn.trace(x, n_steps=n_steps)  # the Python function runs here, on tracers
    lowered = traced.lower()
    t1 = time.perf_counter()
    compiled = lowered.compile()  # XLA compiles the whole program
    t2 = time.perf_counter()
    return {"trace_and_lower": t1 - t0, "compile": t2 - t1,
            "equations": len(traced.jaxpr.eqns)}, compiled
# --8<-- [end:loop_stages]


def measure_loops(report: Report, quick: bool) -> None:
    lengths = [10, 30, 100] if quick else [10, 30, 100, 300, 1000]
    repeats = 1 if quick else 2
    x = jnp.float32(0.1)
    results = {label: [] for label in LOOPS}
    for n in lengths:
        runs = {label: [first_call_stages(fn, x, n) for _ in range(repeats)] for label, fn in LOOPS.items()}
        compiled = {label: label_runs[-1][1] for label, label_runs in runs.items()}
        steady_times = time_calls({label: lambda c=c: c(x).block_until_ready() for label, c in compiled.items()},
                                  repeats=5 if quick else 7, min_sample_s=0.001 if quick else 0.003)
        values = [float(c(x)) for c in compiled.values()]
        for label in LOOPS:
            steady = steady_times[label]
            stages = [r[0] for r in runs[label]]
            results[label].append({
                "n": n,
                "trace_and_lower": statistics.median(s["trace_and_lower"] for s in stages),
                "compile": statistics.median(s["compile"] for s in stages),
                "trace_and_lower_samples": [s["trace_and_lower"] for s in stages],
                "compile_samples": [s["compile"] for s in stages],
                "equations": stages[0]["equations"],
                "steady": steady.as_dict(), "steady_text": fmt_timing(steady)})
        if not np.allclose(values, values[0], rtol=1e-6):
            raise DocumentationMismatch(f"the three loops disagree at n = {n}: {values}")
    report.data["loops"] = {"lengths": lengths, "repeats": repeats, "results": results}

    rows = []
    for i, n in enumerate(lengths):
        for label in LOOPS:
            r = results[label][i]
            rows.append([f"{n:,}", label, f"{r['equations']:,}", fmt_seconds(r["trace_and_lower"]),
                         fmt_seconds(r["compile"]), r["steady_text"]])
    report.tables["loops"] = markdown_table(
        ["steps", "loop", "jaxpr equations", "trace + lower", "XLA compile", "steady-state call"], rows)

    unrolled, fori, scan = (results[label][-1] for label in LOOPS)
    first = lambda r: r["trace_and_lower"] + r["compile"]  # noqa: E731
    report.text.update(
        loop_n_max=f"{lengths[-1]:,}", loop_n_min=f"{lengths[0]:,}", loop_repeats=str(repeats),
        loop_sampling=(f"the median of {repeats} fresh compilations" if repeats > 1
                       else "a single fresh compilation (quick mode)"),
        loop_unrolled_first=fmt_seconds(first(unrolled)), loop_fori_first=fmt_seconds(first(fori)),
        loop_scan_first=fmt_seconds(first(scan)),
        loop_unrolled_vs_fori=fmt_ratio(first(unrolled) / first(fori)),
        loop_unrolled_equations=f"{unrolled['equations']:,}",
        loop_equations_per_step=f"{unrolled['equations'] // lengths[-1]}",
        loop_fori_equations=f"{fori['equations']:,}",
        loop_unrolled_steady=fmt_seconds(unrolled["steady"]["median"]),
        loop_fori_steady=fmt_seconds(fori["steady"]["median"]),
        loop_scan_steady=fmt_seconds(scan["steady"]["median"]))
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

    fig, ax = plt.subplots()
    for (label, rows), marker in zip(results.items(), ("o", "s", "^")):
        line, = ax.plot(lengths, [r["trace_and_lower"] + r["compile"] for r in rows],
                        marker=marker, label=f"{label}: trace + lower + compile")
        ax.plot(lengths, [r["trace_and_lower"] for r in rows], marker=marker, linestyle=":",
                color=line.get_color(), alpha=0.7, label=f"{label}: trace + lower only")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("loop length (Euler steps)")
    ax.set_ylabel("seconds before the first result")
    ax.set_title("Compile cost of a loop: unrolled by Python, or a loop primitive")
    ax.legend(fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    span = {label: [r["trace_and_lower"] + r["compile"] for r in rows] for label, rows in results.items()}
    alt = (f"Log-log plot of the time to trace, lower and compile a loop of {lengths[0]:,} to "
           f"{lengths[-1]:,} Euler steps. The unrolled Python loop takes "
           f"{fmt_seconds(span['Python for loop (unrolled)'][0])} at {lengths[0]:,} steps and "
           f"{fmt_seconds(span['Python for loop (unrolled)'][-1])} at {lengths[-1]:,}; across the same "
           f"lengths lax.fori_loop takes {fmt_seconds(min(span['lax.fori_loop']))} to "
           f"{fmt_seconds(max(span['lax.fori_loop']))} and lax.scan {fmt_seconds(min(span['lax.scan']))} "
           f"to {fmt_seconds(max(span['lax.scan']))}.")
    caption = (f"Median of {repeats} fresh compilations per point"
               if repeats > 1 else "One fresh compilation per point (quick mode)")
    return Figure(fig, alt, caption + "; dotted lines: the trace and lower stage alone.")


def measure(quick: bool) -> Report:
    """Capture each pitfall's error and each fix's value; time loop compilation."""
    report = Report()
    report.text["jax_version"] = jax.__version__
    capture_errors(report)
    measure_loops(report, quick)
    return report


if __name__ == "__main__":
    main(measure)
