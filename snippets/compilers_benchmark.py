"""What XLA makes of SELU, what the fusion saves, and how long a compiled program can be kept.

    python snippets/compilers_benchmark.py            # full size: the tables for your machine
    python snippets/compilers_benchmark.py --quick    # small sizes, a few seconds

Generates JAX's stages of the SELU snippet (jaxpr, StableHLO, optimized HLO, cost analysis),
sets a memory-traffic model beside the measured eager/jit ratio, and measures the persistent
compilation cache in fresh processes (cold and warm), ahead-of-time compilation and jax.export.
"""

import resource
import statistics
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

from compilers import (bytes_moved_eagerly, bytes_moved_fused, cache_entries, compile_ahead_of_time,
                       export_selu, first_call_in_fresh_process, fusions, load_selu, scale_jit, stages)
from measurement import (Figure, Report, fmt_ratio, fmt_ratio_range, fmt_seconds, fmt_timing, main,
                         markdown_table, time_calls)
from selu import eager_call, jit_call, random_input

N_LISTING = 1_000_000  # the shape the listings are compiled for (compiling needs no data)


def measure(quick: bool) -> Report:
    """Show JAX's stages of SELU; model and measure memory traffic; measure the persistent cache."""
    report = Report()
    listings(report, N_LISTING)
    memory_traffic(report, quick)
    persistent_cache(report, quick)
    keep_and_reuse(report)
    return report


def listings(report, n):
    spec = jax.ShapeDtypeStruct((n,), jnp.float32)
    found = stages(spec)
    hlo = found["optimized_hlo"]
    fused = fusions(hlo)
    if not fused:
        raise AssertionError("XLA fused nothing: the chapter's account no longer holds")
    entry = hlo[hlo.index("\nENTRY") + 1:]
    entry = entry[:entry.index("\n}") + 2]
    cost = {k: float(found["cost"][k]) for k in ("flops", "transcendentals", "bytes accessed")}
    report.data.update(n_listing=n, fusions=fused, cost=cost,
                       stablehlo_lines=found["stablehlo"].count("\n"), hlo_lines=hlo.count("\n"))
    report.text.update(
        n_listing=f"{n:,}", jaxpr=str(found["jaxpr"]),
        stablehlo_lines=str(found["stablehlo"].count("\n")), hlo_lines=str(hlo.count("\n")),
        temp_bytes=f"{found['memory'].temp_size_in_bytes:,}", stablehlo=found["stablehlo"].rstrip(),
        optimized_hlo=hlo.rstrip(), hlo_entry=entry.rstrip(),
        fusion_count=str(len(fused)), fusion_kind=fused[0]["kind"],
        fused_ops=", ".join(f"`{op}`" for op in fused[0]["ops"]),
        fused_op_count=str(len(fused[0]["ops"])),
        jaxpr_eqns=str(len(found["jaxpr"].jaxpr.eqns)),
        jaxpr_primitives=", ".join(f"`{name}`" for name, _, _ in bytes_moved_eagerly(found["jaxpr"].jaxpr)),
        flops=f"{cost['flops']:,.0f}", transcendentals=f"{cost['transcendentals']:,.0f}",
        bytes_accessed=f"{cost['bytes accessed']:,.0f}",
        flops_per_element=f"{cost['flops'] / n:g}",
        transcendentals_per_element=f"{cost['transcendentals'] / n:g}",
        bytes_per_element_cost=f"{cost['bytes accessed'] / n:g}",
    )
    report.tables["cost_analysis"] = markdown_table(
        ["quantity (XLA's cost_analysis)", f"for n = {n:,}", "per element"],
        [[name, f"{value:,.0f}", f"{value / n:g}"] for name, value in cost.items()])

    # The model, from the jaxpr: per primitive, the whole arrays it reads and writes.
    rows = bytes_moved_eagerly(found["jaxpr"].jaxpr)
    eager_bytes = sum(r + w for _, r, w in rows)
    fused_bytes = bytes_moved_fused(found["jaxpr"].jaxpr)
    table = [[f"`{name}`", f"{r / n:g}", f"{w / n:g}", f"{(r + w) / n:g}"] for name, r, w in rows]
    table.append(["**eager, all primitives**", "", "", f"**{eager_bytes / n:g}**"])
    table.append(["**one fused loop** (read x, write the result)", "", "", f"**{fused_bytes / n:g}**"])
    table.append(["XLA's cost analysis of the compiled program", "", "",
                  f"{cost['bytes accessed'] / n:g}"])
    report.tables["memory_model"] = markdown_table(
        ["primitive (eager: one kernel each)", "bytes read per element", "bytes written per element",
         "bytes moved per element"], table)
    # The chapter reads these off the listings; if a new JAX changes them, fail the build loudly.
    if cost["bytes accessed"] != fused_bytes or cost["transcendentals"] != n:
        raise AssertionError(f"XLA's cost analysis changed: {cost}; the chapter needs a new look")
    report.data["model"] = {"eager_bytes_per_element": eager_bytes / n,
                            "fused_bytes_per_element": fused_bytes / n,
                            "ratio": eager_bytes / fused_bytes}
    report.text.update(eager_bytes_per_element=f"{eager_bytes / n:g}",
                       fused_bytes_per_element=f"{fused_bytes / n:g}",
                       model_ratio=fmt_ratio(eager_bytes / fused_bytes))


def faults_per_call(fn, calls):
    """Page faults per call of `fn` the process takes (getrusage), over `calls` untimed calls."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


def memory_traffic(report, quick):
    sizes = [10**3, 10**5] if quick else [10**3, 10**4, 10**5, 10**6, 10**7]
    repeats, min_sample = (5, 0.001) if quick else (7, 0.01)
    model = report.data["model"]
    inputs = {n: random_input(n) for n in sizes}
    calls = {}
    for n, x in inputs.items():
        calls[n, "eager"] = lambda x=x: eager_call(x)
        calls[n, "jit"] = lambda x=x: jit_call(x)
        calls[n, "scale_jit"] = lambda x=x: scale_jit(x).block_until_ready()
    timed = time_calls(calls, repeats=repeats, min_sample_s=min_sample)
    rows, measured = [], []
    for n in sizes:
        eager, jit, scale = timed[n, "eager"], timed[n, "jit"], timed[n, "scale_jit"]
        eager_faults = faults_per_call(calls[n, "eager"], eager.number)
        jit_faults = faults_per_call(calls[n, "jit"], jit.number)
        measured.append({"n": n, "eager": eager.as_dict(), "jit": jit.as_dict(),
                         "scale_jit": scale.as_dict(),
                         "eager_faults_per_call": eager_faults, "jit_faults_per_call": jit_faults})
        rows.append([f"{n:,}", fmt_timing(eager), fmt_timing(jit), fmt_ratio_range(eager, jit),
                     fmt_timing(scale), fmt_ratio(jit.median / scale.median),
                     f"{eager_faults:,.0f} / {jit_faults:,.0f}"])
    report.data["measured"] = measured
    report.tables["model_vs_measured"] = markdown_table(
        ["n (standard normal float32)", "eager JAX", "jax.jit",
         f"eager / jit (model: {report.text['model_ratio']})",
         "jitted `1.05 * x` (same bytes, no exp)", "jit SELU / `1.05 * x`",
         "page faults per call, eager / jit"], rows)
    ratios = [m["eager"]["median"] / m["jit"]["median"] for m in measured]
    report.data["measured_ratios"] = ratios
    above = [m["n"] for m, r in zip(measured, ratios) if r > model["ratio"]]
    below = [m["n"] for m, r in zip(measured, ratios) if r <= model["ratio"]]
    big, small = measured[-1], measured[0]
    mid = next(m for m in measured if m["n"] == 10**5)
    report.text.update(
        traffic_sizes=f"{sizes[0]:,} to {sizes[-1]:,}", traffic_repeats=str(repeats),
        n_largest=f"{big['n']:,}", ratio_largest=fmt_ratio(ratios[-1]),
        n_smallest=f"{small['n']:,}", ratio_smallest=fmt_ratio(ratios[0]),
        ratio_min=fmt_ratio(min(ratios)), ratio_max=fmt_ratio(max(ratios)),
        model_comparison=_comparison(above, below),
        mb_largest=f"{big['n'] * 4 / 1e6:g} MB",
        eager_faults_largest=f"{big['eager_faults_per_call']:,.0f}",
        jit_faults_largest=f"{big['jit_faults_per_call']:,.0f}",
        pages_per_array_largest=f"{big['n'] * 4 / resource.getpagesize():,.0f}",
        page_size=f"{resource.getpagesize():,}",
        small_eager=fmt_seconds(small["eager"]["median"]), small_jit=fmt_seconds(small["jit"]["median"]),
        mid_n=f"{mid['n']:,}", mid_jit=fmt_seconds(mid["jit"]["median"]), mid_scale=fmt_seconds(mid["scale_jit"]["median"]),
        mid_jit_vs_scale=fmt_ratio(mid["jit"]["median"] / mid["scale_jit"]["median"]),
    )
    report.figures["model_vs_measured"] = traffic_figure(sizes, ratios, measured, model["ratio"])


def _and(sizes):
    names = [f"{n:,}" for n in sizes]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _comparison(above, below):
    """Where the measured ratio lies against the model, in words."""
    if not above:
        return "below the model at every n measured"
    if not below:
        return "above the model at every n measured"
    return f"above the model at n = {_and(above)} and below it at n = {_and(below)}"


def traffic_figure(sizes, ratios, measured, model_ratio) -> Figure:
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    low = [m["eager"]["q1"] / m["jit"]["q3"] for m in measured]
    high = [m["eager"]["q3"] / m["jit"]["q1"] for m in measured]
    ax.plot(sizes, ratios, marker="o", label="measured eager / jit (median)")
    ax.fill_between(sizes, low, high, alpha=0.25, label="range over the interquartile ranges")
    ax.axhline(model_ratio, color="C3", linestyle="--",
               label=f"memory-traffic model: {fmt_ratio(model_ratio)}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(min(1.0, min(low) / 1.2), max(model_ratio, max(high)) * 1.6)
    ticks = [t for t in (0.5, 1, 2, 3, 5, 10, 20, 50, 100) if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    ax.set_yticks(ticks, [f"{t:g}×" for t in ticks])
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.axhline(1, color="0.5", linewidth=0.8)
    ax.set_xlabel("n (elements, standard normal float32)")
    ax.set_ylabel("eager time / jit time")
    ax.set_title("SELU: how much the fused program saves, against the model")
    ax.legend(fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    alt = (f"Log-log plot of the measured eager/jit time ratio of SELU against n from {sizes[0]:,} to "
           f"{sizes[-1]:,}, with the memory-traffic model's constant {fmt_ratio(model_ratio)} as a dashed line. "
           "Measured ratios: " + ", ".join(f"{fmt_ratio(r)} at {n:,}" for n, r in zip(sizes, ratios)) + ".")
    return Figure(fig, alt, "The measured ratio (median; band spans both interquartile ranges) "
                            "beside the ratio of bytes moved predicted by the model.")


def persistent_cache(report, quick):
    pairs = 1 if quick else 3
    n = 1000
    states = ["cold", "warm"] if quick else ["default", "cold", "warm"]  # quick: two processes only
    runs = {state: [] for state in states}
    entries = {state: [] for state in states}
    with tempfile.TemporaryDirectory(prefix="jit-cache-") as root:
        if not quick:  # JAX's default thresholds: is a small program written at all?
            runs["default"].append(first_call_in_fresh_process(f"{root}/defaults", n,
                                                               small_programs_too=False))
            entries["default"].append(cache_entries(f"{root}/defaults"))
        for i in range(pairs):  # each pair: a new empty cache, then the same cache again
            cache_dir = f"{root}/cache-{i}"
            for state in ("cold", "warm"):
                runs[state].append(first_call_in_fresh_process(cache_dir, n))
                entries[state].append(cache_entries(cache_dir))
        for run in (run for state_runs in runs.values() for run in state_runs):
            run["log"] = [line.replace(root, "<tmp>") for line in run["log"]]  # no random names
        logs = {state: "\n".join(runs[state][0]["log"]) for state in runs}

    # What the chapter says happened, checked on JAX's events and the folder, never on timing.
    for cold, warm, cold_entries, warm_entries in zip(runs["cold"], runs["warm"], entries["cold"],
                                                      entries["warm"]):
        if not (cold["cache_writes"] == 1 and len(cold_entries) == 1 and cold["cache_hits"] == 0
                and warm["cache_hits"] == 1 and warm["cache_writes"] == 0
                and warm_entries == cold_entries):
            raise AssertionError(f"the persistent cache did not behave as the chapter says: "
                                 f"{cold_entries} {warm_entries} {cold} {warm}")
    if not quick and entries["default"][0]:
        raise AssertionError(f"default thresholds wrote {entries['default'][0]}")

    def median(state, key):
        return statistics.median(r[key] for r in runs[state])

    def span(state, key):
        values = [r[key] for r in runs[state]]
        if len(values) == 1:
            return fmt_seconds(values[0])
        return (f"{fmt_seconds(statistics.median(values))} "
                f"({fmt_seconds(min(values))} to {fmt_seconds(max(values))})")

    labels = {"default": "fresh process, empty cache, default thresholds",
              "cold": "fresh process, empty cache, thresholds 0",
              "warm": "fresh process, the cache the cold run wrote"}
    rows = [[labels[s], f"{len(entries[s][0])}", str(runs[s][0]["cache_hits"]),
             span(s, "first_call_s"), span(s, "compile_or_load_s")] for s in runs]
    if quick:
        rows.insert(0, [labels["default"], "not run in quick mode", "", "", ""])
    report.tables["persistent_cache"] = markdown_table(
        [f"process (SELU on float32[{n:,}])", "cache entries afterwards", "cache hits (JAX's events)",
         "first call" + ("" if pairs == 1 else f" (median of {pairs}, range)"),
         "of which compile or load (JAX's timer)"], rows)
    report.data["persistent_cache"] = {"runs": runs, "entries": entries, "pairs": pairs, "n": n}
    thresholds = runs["cold"][0]["defaults"]
    report.text.update(
        cache_pairs=str(pairs), cache_n=f"{n:,}",
        cache_pairs_text=("one pair" if pairs == 1 else
                          f"{pairs} pairs, whose medians and ranges the table shows"),
        cold_first_call=fmt_seconds(median("cold", "first_call_s")),
        warm_first_call=fmt_seconds(median("warm", "first_call_s")),
        cold_compile=fmt_seconds(median("cold", "compile_or_load_s")),
        warm_load=fmt_seconds(median("warm", "compile_or_load_s")),
        cold_vs_warm=fmt_ratio(median("cold", "first_call_s") / median("warm", "first_call_s")),
        entries_written=str(len(entries["cold"][0])),
        entry_names=", ".join(f"`{name.split('-')[0]}`" for name in entries["cold"][0]),
        default_min_compile_time=f"{thresholds['min_compile_time_secs']:g} s",
        default_min_entry_size=f"{thresholds['min_entry_size_bytes']:,}",
        log_default=logs.get("default", "(not run in quick mode)"),
        log_cold=logs["cold"], log_warm=logs["warm"],
    )


def normal(n, seed):
    """Standard normal float32 data made by NumPy: no JAX program compiled to make it."""
    return jax.device_put(np.random.default_rng(seed).standard_normal(n, dtype=np.float32))


def keep_and_reuse(report):
    aot_n, wrong_n, lengths = 1000, 10, (10, 1000)
    x = normal(aot_n, seed=0)
    compiled = compile_ahead_of_time(aot_n)
    np.testing.assert_array_equal(np.asarray(compiled(x)), np.asarray(jit_call(x)))
    try:
        compiled(normal(wrong_n, seed=0))
        wrong_shape = "(no error: the chapter's account no longer holds)"
    except TypeError as error:
        wrong_shape = f"{type(error).__name__}: {error}"

    blob = export_selu()
    restored = load_selu(blob)
    checks = []
    for n in lengths:
        y = normal(n, seed=1)
        checks.append(bool(np.array_equal(np.asarray(restored.call(y)), np.asarray(jit_call(y)))))
    if not all(checks):
        raise AssertionError("the exported SELU gives other values than jax.jit(selu)")
    report.data["export"] = {"bytes": len(blob), "round_trip_equal": checks,
                             "in_avals": str(restored.in_avals), "platforms": list(restored.platforms)}
    report.text.update(
        aot_n=f"{aot_n:,}", aot_wrong_n=f"{wrong_n:,}",
        export_lengths=_and(lengths),
        aot_wrong_shape=wrong_shape, export_bytes=f"{len(blob):,}",
        export_in_avals=", ".join(str(a) for a in restored.in_avals),
        export_platforms=", ".join(restored.platforms),
    )


if __name__ == "__main__":
    main(measure)
