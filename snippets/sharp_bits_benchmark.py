"""Run every pitfall of sharp_bits.py, capture what the installed JAX raises, run every
fix, and measure what a Python loop unrolled while tracing costs in compile time.

    python snippets/sharp_bits_benchmark.py           # full size, for your machine
    python snippets/sharp_bits_benchmark.py --quick   # small sizes, a few seconds

What JAX raises and returns is a fact of the pinned JAX (`fact` stops the build where
it changed; the messages are captured verbatim); the loops' timings are this machine's,
and the page words what they show.
"""

import jax
import jax.numpy as jnp
import numpy as np

import sharp_bits
from error_capture import error_name, run_session
from measurement import (Report, Table, Timing, compare, fact, log_log_axes, main,
                         seconds, time_calls, timing, word)
from selu import compile_stages  # the SELU chapter's stage timer
from sharp_bits import CASES  # the sessions the page shows

# When each error is raised, if not while tracing (a word key of the page's table).
RAISED_WHEN = {"unhashable": "hashing", "leak": "later_use", "donate": "run_time"}
LOOPS = {"unrolled": sharp_bits.euler_unrolled, "fori": sharp_bits.euler_fori,
         "scan": sharp_bits.euler_scan}


def run(session):  # every session runs in sharp_bits.py's namespace
    return run_session(session, sharp_bits)


def raised(outcome) -> str | None:
    return error_name(outcome.error) if outcome.error is not None else None


def returns(outcome, expected) -> bool:
    return outcome.error is None and (expected is None or bool(
        np.allclose(np.asarray(outcome.value), expected, rtol=1e-6)))


def bases(cls: type) -> list[str]:
    """The classes an `except` clause could name to catch `cls`, nearest first."""
    return [c.__name__ for c in cls.__mro__[1:]
            if c not in (Exception, BaseException, object)
            and not c.__name__.startswith("_")]


def capture_errors() -> dict:
    """Every session of CASES, run: what each pitfall raised (its class a fact, its
    message verbatim), what each fix returned, and the transcripts the page shows
    (lines; where a long message was cut, the count left out: error_capture.Line)."""
    errors, captured, wrong = {}, {}, []
    for name, case in CASES.items():
        outcome = run(case.pitfall)
        if type(outcome.error) is not (case.error or type(None)):
            said = getattr(case.error, "__name__", None)
            wrong.append(f"{name}: the page says {said}, jax {jax.__version__} gave "
                         f"{raised(outcome)}:\n"
                         + outcome.transcript)
        shown = captured[name] = {"pitfall": outcome.lines, "fixes": {},
                                  "variants": {}}
        entry = errors[name] = {
            "error": raised(outcome), "message": outcome.error_lines,
            "raised_at": RAISED_WHEN.get(name, "tracing") if outcome.error else None,
            "bases": bases(type(outcome.error)) if outcome.error else [],
            "fixes": {}, "variants": {}}
        for fix_name, session in case.fixes.items():
            fixed = run(session)
            if not returns(fixed, session.expected):
                wrong.append(f"{name} fix {fix_name}: the page shows "
                             f"{session.expected!r}; this JAX gave:\n"
                             + fixed.transcript)
            shown["fixes"][fix_name] = fixed.lines
            entry["fixes"][fix_name] = np.asarray(fixed.value).tolist()
        for variant_name, (session, expected) in case.variants.items():
            variant = run(session)
            if type(variant.error) is not expected:
                wrong.append(f"{name} variant {variant_name}: the page says "
                             f"{expected.__name__}:\n{variant.transcript}")
            shown["variants"][variant_name] = variant.lines
            entry["variants"][variant_name] = raised(variant)
    fact("sharp_bits.raised_and_returned", not wrong,
         "Each pitfall raises exactly the class the page names and each fix returns "
         "the value it shows:\n" + "\n".join(wrong))
    return {"errors": errors, "captured": captured}


def check_classes() -> dict:
    """The page says which built-in class each jax.errors class is underneath."""
    classes = [c.error for c in CASES.values() if c.error is not None]
    classes += [e for c in CASES.values() for _, e in c.variants.values()]
    jax_errors = {c for c in classes if c.__module__.startswith("jax")}
    outside = sorted(c.__name__ for c in jax_errors
                     if not issubclass(c, (TypeError, IndexError)))
    fact("sharp_bits.jax_errors_are_type_or_index_errors", not outside,
         "The page says every jax.errors class it shows is a TypeError or an "
         f"IndexError; these are not: {outside}")
    return {"pitfalls": len(CASES),
            "silent": sum(c.error is None for c in CASES.values()),
            "jax_errors": len(jax_errors),
            "index_errors": sum(issubclass(c, IndexError) for c in jax_errors)}


def check_stories() -> dict:
    """The prose around the silent pitfalls states these facts."""
    outcome = run(CASES["trace_time"].pitfall)
    values = [None if v is None else np.asarray(v).tolist() for v in outcome.values]
    traced = [bool(p) for p in outcome.printed]
    fact("sharp_bits.trace_time_story",
         values == [2.0, 2.0, None, 2.0, [3.0, 3.0]]
         and traced == [True, False, False, False, True],
         "The page's print/global story (printed only while tracing, a stale 2, then "
         f"3 on a new shape):\n{outcome.transcript}")
    loop = CASES["loop"]
    first_values = [run(s).values[0] for s in [loop.pitfall, *loop.fixes.values()]]
    agree = np.allclose(np.asarray(first_values), first_values[0], rtol=1e-6)
    fact("sharp_bits.loops_agree", bool(agree),
         f"The loop versions give {first_values}")
    return {"values": values, "printed_while_tracing": traced}


# --8<-- [start:loop_stages]
def first_call_stages(fn, x, n_steps):
    """Trace + lower, then compile, one loop version from nothing cached (seconds)."""
    jax.clear_caches()
    # Tracing runs the Python function on tracers; XLA compiles the whole program.
    seconds, traced, compiled = compile_stages(fn, x, n_steps=n_steps)
    return {**seconds, "equations": len(traced.jaxpr.eqns)}, compiled
# --8<-- [end:loop_stages]


def primitives(traced) -> str:
    return ", ".join(sorted({eqn.primitive.name for eqn in traced.jaxpr.eqns}))


def measure_loops(quick: bool) -> dict:
    lengths = [10, 30] if quick else [10, 30, 100, 300]
    repeats = 2 if quick else 5
    x = jnp.float32(0.1)
    results = {label: [] for label in LOOPS}
    disagree = []
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
        if not np.allclose(values, values[0], rtol=1e-6):
            disagree.append((n, values))
        for label in LOOPS:
            stages = [r[0] for r in runs[label]]

            def sampled(*keys, stages=stages):  # compilations: one call a sample
                return Timing([sum(s[k] for k in keys) for s in stages], 1).as_dict()
            results[label].append({
                "n": n, "equations": stages[0]["equations"],
                "trace_and_lower": sampled("trace_and_lower"),
                "compile": sampled("compile"),
                "first": sampled("trace_and_lower", "compile"),
                "steady": steady_times[label].as_dict()})
    fact("sharp_bits.loops_agree_at_every_length", not disagree,
         f"The three loops disagree (n, values): {disagree}")
    n = lengths[0]
    return {"lengths": lengths, "repeats": repeats, "results": results,
            "primitives": {  # what each loop becomes in the jaxpr
                "fori": primitives(sharp_bits.euler_fori.trace(x, n_steps=n)),
                "scan": primitives(sharp_bits.euler_scan.trace(x, n_steps=n)),
                "traced": primitives(sharp_bits.euler_fori_any_length.trace(x, n))}}


def measure(quick: bool) -> dict:
    """Capture each pitfall's error and each fix's value; time loop compilation."""
    return {"jax": jax.__version__, **capture_errors(), "counts": check_classes(),
            "trace_time": check_stories(), "loops": measure_loops(quick)}


def raises_nothing(name: str, verdicts: dict) -> dict:
    """The errors table's cell for a pitfall that raises nothing: a global read while
    tracing goes wrong silently; an unrolled loop gives the same results (the build
    checks them), so the cell says what the loops' verdicts found it costs instead."""
    if name != "loop":
        return word("silent")
    if verdicts["first"]["winner"] != "fori":
        return word("silent_longer")  # no slower to compile here: only the program grew
    return word("silent_slower" if verdicts["steady"]["winner"] == "fori"
                else "silent_compiles_slower")


def report(data: dict) -> Report:
    """The errors table, the loops table and the loops' verdicts, from data alone."""
    loops = data["loops"]
    loop_rows = []
    for i, n in enumerate(loops["lengths"]):
        for label in LOOPS:
            r = loops["results"][label][i]
            first = r["first"]  # median, and fastest to slowest: a timing cell
            fastest_to_slowest = {"timing": [first["median"], min(first["samples"]),
                                             max(first["samples"])]}
            loop_rows.append([n, word(label), r["equations"],
                              seconds(r["trace_and_lower"]["median"]),
                              seconds(r["compile"]["median"]), fastest_to_slowest,
                              timing(r["steady"])])
    last = {label: f"loops.results.{label}.-1" for label in LOOPS}
    res = {label: loops["results"][label][-1] for label in LOOPS}
    verdicts = {key: compare(res["fori"][key], res["unrolled"][key],
                             ("fori", "unrolled"),
                             (f"{last['fori']}.{key}", f"{last['unrolled']}.{key}"),
                             expect)
                # at the largest length; the chapter expects fori_loop to compile sooner
                for key, expect in (("first", "fori"), ("steady", None))}
    # scan against fori_loop once compiled (both one scan in the jaxpr), same length
    verdicts["steady_scan"] = compare(
        res["scan"]["steady"], res["fori"]["steady"], ("scan", "fori"),
        (f"{last['scan']}.steady", f"{last['fori']}.steady"))
    rows = []
    for name, e in data["errors"].items():
        rows.append([word(f"case_{name}"), word(f"at_{e['raised_at'] or 'none'}"),
                     f"`{e['error']}`" if e["error"]
                     else raises_nothing(name, verdicts),
                     " → ".join(f"`{b}`" for b in e["bases"])])
    tables = {
        "errors": Table(["pitfall", "raised_at", "raises", "also"], rows,
                        {"jax": data["jax"]}),
        "loops": Table(["steps", "loop", "equations", "trace_lower", "compile", "first",
                        "steady"], loop_rows, {"repeats": loops["repeats"]}),
    }
    return Report(tables=tables, verdicts=verdicts)


def loops_figure(data, words):
    """Each loop version's first call against its length: medians, and every sample."""
    import matplotlib.pyplot as plt

    loops = data["loops"]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for (label, rows), marker in zip(loops["results"].items(), ("o", "s", "^")):
        medians = [r["first"]["median"] for r in rows]
        line, = ax.plot(loops["lengths"], medians, marker=marker, label=words[label])
        for r in rows:  # every compilation, not only the median: they are noisy
            samples = r["first"]["samples"]
            ax.plot([r["n"]] * len(samples), samples, marker, color=line.get_color(),
                    alpha=0.3, ms=3)
    log_log_axes(ax, words["xlabel"], words["ylabel"], words["title"])
    return fig


FIGURES = {"loops": loops_figure}

if __name__ == "__main__":
    main(measure, report, FIGURES)
