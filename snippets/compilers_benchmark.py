"""What XLA makes of SELU, what the fusion saves, and how a compiled program is kept.

    python snippets/compilers_benchmark.py            # full size: your tables
    python snippets/compilers_benchmark.py --quick    # small sizes, a few seconds

Every fact of JAX that docs/compilers.md states is checked here; the build stops if not.
"""

import statistics
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from compilers import (bytes_moved_eagerly, bytes_moved_fused, cache_entries,
                       compile_ahead_of_time, configured_late, export_selu, first_call,
                       fused_listing, fusions, in_fresh_process, jit_cache_capacities,
                       load_selu, programs_held, scale_jit, stages)
from measurement import (DocumentationMismatch, Figure, Report, fmt_ratio,
                         fmt_ratio_range, fmt_seconds, fmt_timing, main,
                         markdown_table, ratio_range, relative_paths, time_calls)
from selu import eager_call, jit_call, random_input

N_LISTING = 1_000_000  # the shape the listings are compiled for (no data needed)
# What the page says of jit's in-memory caches in jax 0.10.2 (jax/_src/pjit.py, util.py)
CAPACITIES = {"dispatch": 8192, "trace": 2048, "lower": 2048, "compile": 2048}


def mismatch(says, does):
    return DocumentationMismatch(f"the page says {says}, but jax {jax.__version__} "
                                 f"{does}: docs/compilers.md needs a new look")


def measure(quick: bool) -> Report:
    report = Report()
    listings(report, N_LISTING)
    memory_traffic(report, quick)
    persistent_cache(report, quick)
    keep_and_reuse(report)
    in_memory(report)  # last: it empties jit's caches
    no_build_paths(report)
    return report


def listings(report, n):
    found = stages(jax.ShapeDtypeStruct((n,), jnp.float32))
    hlo = found["optimized_hlo"]
    fused = fusions(hlo)
    if len(fused) != 1:
        raise mismatch("XLA fuses SELU into one fusion instruction",
                       f"made {len(fused)} fusions")
    if found["memory"].temp_size_in_bytes != 0:
        raise mismatch("no intermediate array is left (0 bytes of temporary buffers)",
                       f"counts {found['memory'].temp_size_in_bytes} bytes")
    cost = {k: float(found["cost"][k])
            for k in ("flops", "transcendentals", "bytes accessed")}
    rows = bytes_moved_eagerly(found["jaxpr"].jaxpr)
    eager_bytes = sum(r + w for _, r, w in rows)
    fused_bytes = bytes_moved_fused(found["jaxpr"].jaxpr)
    if cost["bytes accessed"] != fused_bytes or cost["transcendentals"] != n:
        raise mismatch("XLA's cost analysis counts one read, one write and one exp "
                       "per element", f"reports {cost}")
    report.data.update(n_listing=n, fusions=fused, cost=cost,
                       model={"eager_bytes_per_element": eager_bytes / n,
                              "fused_bytes_per_element": fused_bytes / n,
                              "ratio": eager_bytes / fused_bytes})
    report.text.update(
        n_listing=f"{n:,}", jaxpr=str(found["jaxpr"]),
        stablehlo=found["stablehlo"].rstrip(),
        stablehlo_lines=str(found["stablehlo"].count("\n")),
        fused_listing=fused_listing(hlo),
        temp_bytes=f"{found['memory'].temp_size_in_bytes:,}",
        fused_ops=", ".join(f"`{op}`" for op in fused[0]["ops"]),
        fusion_kind=fused[0]["kind"], fused_op_count=str(len(fused[0]["ops"])),
        jaxpr_eqns=str(len(found["jaxpr"].jaxpr.eqns)),
        jaxpr_primitives=", ".join(f"`{name}`" for name, _, _ in rows),
        flops_per_element=f"{cost['flops'] / n:g}",
        bytes_per_element_cost=f"{cost['bytes accessed'] / n:g}",
        eager_bytes_per_element=f"{eager_bytes / n:g}",
        fused_bytes_per_element=f"{fused_bytes / n:g}",
        model_ratio=f"{eager_bytes / fused_bytes:.3g}×",  # 6.25 (.2g: 6.2)
    )
    report.tables["cost_analysis"] = markdown_table(
        ["quantity (XLA's cost_analysis)", f"for n = {n:,}", "per element"],
        [[name, f"{value:,.0f}", f"{value / n:g}"] for name, value in cost.items()])
    table = [[f"`{name}`", f"{r / n:g}", f"{w / n:g}", f"{(r + w) / n:g}"]
             for name, r, w in rows]
    table += [["**eager, all primitives**", "", "", f"**{eager_bytes / n:g}**"],
              ["**one fused loop** (read x, write the result; XLA's cost analysis "
               "agrees)", "", "", f"**{fused_bytes / n:g}**"]]
    report.tables["memory_model"] = markdown_table(
        ["primitive (eager: one kernel each)", "bytes read per element",
         "bytes written per element", "bytes moved per element"], table)


def memory_traffic(report, quick):
    sizes = [10**3, 10**5] if quick else [10**3, 10**4, 10**5, 10**6, 10**7]
    repeats, min_sample = (5, 0.001) if quick else (7, 0.01)
    model = report.data["model"]["ratio"]
    pool = np.asarray(random_input(sizes[-1]))  # one draw, no compilation per size:
    inputs = {n: jnp.asarray(pool[:n]) for n in sizes}  # random_input(n)'s values
    kinds = {"eager": eager_call, "jit": jit_call,
             "scale_jit": lambda x: scale_jit(x).block_until_ready()}
    calls = {(n, kind): lambda fn=fn, x=x: fn(x)
             for n, x in inputs.items() for kind, fn in kinds.items()}
    timed = time_calls(calls, repeats=repeats, min_sample_s=min_sample)
    rows, measured, places = [], [], []
    for n in sizes:
        eager, jit, scale = timed[n, "eager"], timed[n, "jit"], timed[n, "scale_jit"]
        measured.append({"n": n, "eager": eager.as_dict(), "jit": jit.as_dict(),
                         "scale_jit": scale.as_dict()})
        places.append(against_model(eager, jit, model))
        rows.append([f"{n:,}", fmt_timing(eager), fmt_timing(jit),
                     fmt_ratio_range(eager, jit), places[-1], fmt_timing(scale),
                     fmt_ratio_range(jit, scale)])
    report.data["measured"] = measured
    report.tables["model_vs_measured"] = markdown_table(
        ["n (standard normal float32)", "eager JAX", "jax.jit",
         f"eager / jit (model: {report.text['model_ratio']})", "the model",
         "jitted `1.05 * x` (same bytes, no exp)", "jit SELU / `1.05 * x`"], rows)
    ratios = [m["eager"]["median"] / m["jit"]["median"] for m in measured]
    small = measured[0]
    mid = exp_costs(measured, quick)
    report.text.update(
        traffic_sizes=f"{sizes[0]:,} to {sizes[-1]:,}", traffic_repeats=str(repeats),
        n_smallest=f"{small['n']:,}",
        ratio_min=fmt_ratio(min(ratios)), ratio_max=fmt_ratio(max(ratios)),
        model_within=str(sum(p in ("within the range", "at the edge of the range")
                             for p in places)), model_sizes=str(len(sizes)),
        small_eager=fmt_seconds(small["eager"]["median"]),
        small_jit=fmt_seconds(small["jit"]["median"]),
        mid_n=f"{mid['n']:,}", mid_jit=fmt_seconds(mid["jit"]["median"]),
        mid_scale=fmt_seconds(mid["scale_jit"]["median"]))
    report.figures["model_vs_measured"] = traffic_figure(sizes, ratios, measured, model)


def _and(sizes):
    names = [f"{n:,}" for n in sizes]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


EDGE = 1.05  # a model this close to an end of the range is "at its edge": fragile


def against_model(eager, jit, model):
    """Where the model's ratio lies against the measured one's range (both IQRs)."""
    _, low, high = ratio_range(eager, jit)
    if not low <= model <= high:
        return "below the range" if model < low else "above the range"
    return "at the edge of the range" if min(model / low, high / model) < EDGE else \
        "within the range"


def exp_costs(measured, quick):
    """The size at which the page shows exp's cost: the largest n where jitted SELU is
    slower than a jitted `1.05 * x` beyond both interquartile ranges."""
    apart = [m for m in measured if m["jit"]["q1"] > m["scale_jit"]["q3"]]
    if apart:
        return apart[-1]
    if quick:  # few samples: the page says quick mode
        return measured[-1]
    raise mismatch("at some n jitted SELU is slower than a jitted 1.05 * x beyond "
                   "their interquartile ranges (exp costs time)", "at no n measured")


def traffic_figure(sizes, ratios, measured, model_ratio) -> Figure:
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    low = [m["eager"]["q1"] / m["jit"]["q3"] for m in measured]
    high = [m["eager"]["q3"] / m["jit"]["q1"] for m in measured]
    ax.plot(sizes, ratios, marker="o", label="measured eager / jit (median)")
    ax.fill_between(sizes, low, high, alpha=0.25,
                    label="range over the interquartile ranges")
    ax.axhline(model_ratio, color="C3", linestyle="--",
               label=f"memory-traffic model: {model_ratio:.3g}×")
    ax.set(xscale="log", yscale="log", xlabel="n (elements, standard normal float32)",
           ylabel="eager time / jit time",
           title="SELU: how much the fused program saves, against the model",
           ylim=(min(1.0, min(low) / 1.2), max(model_ratio, max(high)) * 1.6))
    bottom, top = ax.get_ylim()
    ticks = [t for t in (0.5, 1, 2, 3, 5, 10, 20, 50, 100) if bottom <= t <= top]
    ax.set_yticks(ticks, [f"{t:g}×" for t in ticks])
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.axhline(1, color="0.5", linewidth=0.8)
    ax.legend(fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    alt = (f"Log-log plot of the measured eager/jit time ratio of SELU against n from "
           f"{sizes[0]:,} to {sizes[-1]:,}, with the memory-traffic model's constant "
           f"{model_ratio:.3g}× as a dashed line. Measured ratios: "
           + ", ".join(f"{fmt_ratio(r)} at {n:,}" for n, r in zip(sizes, ratios)) + ".")
    return Figure(fig, alt, "The measured ratio (median; band: both interquartile "
                            "ranges) beside the ratio of bytes the model predicts.")


def in_memory(report):
    capacities = jit_cache_capacities()
    if capacities != CAPACITIES:
        raise mismatch(f"jit's in-memory caches hold {CAPACITIES} entries",
                       f"has {capacities}")
    held = programs_held(jax.device_put(np.ones(1000, np.float32)))
    if list(held.values()) != [held["before"], held["before"] + 1, held["before"], 0]:
        raise mismatch("a compiled program stays in memory while its function lives, "
                       "and jax.clear_caches() empties the cache", f"gave {held}")
    report.data["in_memory"] = dict(capacities=capacities, held=held)
    report.text["capacity"] = {cache: f"{v:,}" for cache, v in capacities.items()}
    report.tables["in_memory"] = markdown_table(
        ["moment", "programs in jit's compile cache"],
        [[moment, str(count)] for moment, count in held.items()])


def persistent_cache(report, quick):
    pairs, n = (1 if quick else 3), 1000
    runs = {"default": [], "cold": [], "warm": [], "moved": []}
    entries = {state: [] for state in runs}
    with (tempfile.TemporaryDirectory(prefix="jit-cache-") as root,
          ThreadPoolExecutor(1) as beside):
        late = (configured_late, f"{root}/late", f"{root}/second")
        # quick mode runs this check beside the timed runs; full size, alone after them
        late_run = beside.submit(in_fresh_process, *late) if quick else None
        def run(state, folder, *thresholds):
            runs[state].append(in_fresh_process(first_call, folder, n, *thresholds))
            entries[state].append(cache_entries(folder))

        if not quick:  # JAX's default thresholds: is a small program written at all?
            run("default", f"{root}/defaults", False)
        for i in range(pairs):  # each pair: a new empty cache, then the same again
            run("cold", f"{root}/cache-{i}")
            run("warm", f"{root}/cache-{i}")
        Path(f"{root}/cache-0").rename(f"{root}/moved")  # the same entries, elsewhere
        run("moved", f"{root}/moved")
        late = late_run.result() if quick else in_fresh_process(*late)
        for run in (run for state_runs in runs.values() for run in state_runs):
            run["log"] = [relative_paths(line, root, "<tmp>") for line in run["log"]]
        logs = {state: "\n".join(r[0]["log"]) for state, r in runs.items() if r}
    check_persistent_cache(runs, entries, late, quick)

    def median(state, key):
        return statistics.median(r[key] for r in runs[state])
    def span(state, key):
        values = [r[key] for r in runs[state]]
        return fmt_seconds(median(state, key)) + ("" if len(values) == 1 else
            f" ({fmt_seconds(min(values))} to {fmt_seconds(max(values))})")

    labels = {"default": "fresh process, empty cache, default thresholds",
              "cold": "fresh process, empty cache, thresholds 0",
              "warm": "fresh process, the cache the cold run wrote",
              "moved": "fresh process, that cache moved to another folder"}
    rows = [[labels[s], str(len(entries[s][0])), str(runs[s][0]["cache_hits"]),
             span(s, "first_call_s"), span(s, "compile_or_load_s")]
            for s in runs if runs[s]]
    if quick:
        rows.insert(0, [labels["default"], "not run in quick mode", "", "", ""])
    report.tables["persistent_cache"] = markdown_table(
        [f"process (SELU on float32[{n:,}])", "cache entries afterwards",
         "cache hits (JAX's events)",
         "first call" + ("" if pairs == 1 else f" (median of {pairs}, range)"),
         "of which compile or load (JAX's timer)"], rows)
    report.data["persistent_cache"] = dict(runs=runs, entries=entries, pairs=pairs, n=n,
                                           configured_late=late)
    thresholds = runs["cold"][0]["defaults"]
    old_key, = entries["cold"][0]
    new_key, = set(entries["moved"][0]) - {old_key}
    report.text.update(
        cache_n=f"{n:,}",
        cache_pairs_text=("one pair" if pairs == 1 else
                          f"{pairs} pairs, whose medians and ranges the table shows"),
        cold_first_call=fmt_seconds(median("cold", "first_call_s")),
        warm_first_call=fmt_seconds(median("warm", "first_call_s")),
        cold_compile=fmt_seconds(median("cold", "compile_or_load_s")),
        warm_load=fmt_seconds(median("warm", "compile_or_load_s")),
        cold_vs_warm=fmt_ratio(median("cold", "first_call_s")
                               / median("warm", "first_call_s")),
        key_before_move=f"`{old_key[:24]}…`", key_after_move=f"`{new_key[:24]}…`",
        late_first=", ".join(f"`{name.split('-')[0]}`" for name in late["first"]),
        default_min_compile_time=f"{thresholds['min_compile_time_secs']:g} s",
        log_default=logs.get("default", "(not run in quick mode)"),
        log_cold=logs["cold"], log_warm=logs["warm"], log_moved=logs["moved"])


def check_persistent_cache(runs, entries, late, quick):
    """What the page says happened, checked on JAX's events and the folders."""
    for cold, warm, cold_entries, warm_entries in zip(
            runs["cold"], runs["warm"], entries["cold"], entries["warm"]):
        if not ((cold["cache_writes"], cold["cache_hits"], len(cold_entries))
                == (1, 0, 1) and (warm["cache_hits"], warm["cache_writes"]) == (1, 0)
                and warm_entries == cold_entries):
            raise mismatch("a second process loads what the first wrote",
                           f"gave {cold_entries} {warm_entries} {cold} {warm}")
    if "xla_gpu_per_fusion_autotune_cache_dir" not in runs["cold"][0]["log"][0]:
        raise mismatch("JAX puts a folder inside the cache folder into XLA's debug "
                       "options", f"logged {runs['cold'][0]['log']}")
    moved = runs["moved"][0]
    if not ((moved["cache_hits"], moved["cache_writes"]) == (0, 1)
            and len(entries["moved"][0]) == 2):
        raise mismatch("a moved cache folder misses: the folder's path is in the key",
                       f"gave {moved} with entries {entries['moved'][0]}")
    if len({key for keys in entries["cold"] for key in keys}) != len(entries["cold"]):
        raise mismatch("each cache folder gives SELU another key",
                       f"wrote {entries['cold']}")
    names = {name.split("-")[0] for name in late["first"]}
    if not {"jit_selu", "jit__lambda"} <= names or late["second"]:
        raise mismatch("a cache set after a first computation is used, and a second "
                       "folder set later in the process is not", f"wrote {late}")
    if not quick and entries["default"][0]:
        raise mismatch("the default thresholds write no entry for SELU",
                       f"wrote {entries['default'][0]}")


def _same(exported, x):
    return bool(np.array_equal(np.asarray(exported.call(x)), np.asarray(jit_call(x))))


def normal(n, seed):  # standard normal float32 from NumPy: no JAX program compiled
    return jax.device_put(np.random.default_rng(seed).standard_normal(n, np.float32))


def keep_and_reuse(report):
    aot_n, wrong_n, lengths = 1000, 10, (10, 1000)
    x = normal(aot_n, seed=0)
    compiled = compile_ahead_of_time(aot_n)
    np.testing.assert_array_equal(np.asarray(compiled(x)), np.asarray(jit_call(x)))
    try:
        compiled(normal(wrong_n, seed=0))
        raise mismatch("a program compiled ahead of time refuses other shapes",
                       "ran it")
    except TypeError as error:
        wrong_shape = f"{type(error).__name__}: {error}"

    blob = export_selu()
    restored = load_selu(blob)
    checks = [_same(restored, normal(n, seed=1)) for n in lengths]
    if not all(checks):
        raise mismatch("the exported SELU equals jax.jit(selu)", "differs")
    elsewhere = load_selu(export_selu(platforms=("cuda",)))  # exported for GPUs only
    try:
        elsewhere.call(x)
        raise mismatch("an export runs only on the platforms it names", "ran it")
    except ValueError as error:
        wrong_platform = f"{type(error).__name__}: {error}"
    both = load_selu(export_selu(platforms=("cpu", "cuda")))
    if not _same(both, x):
        raise mismatch("an export for cpu and cuda runs on cpu", "differs")
    report.data["export"] = dict(bytes=len(blob), round_trip_equal=checks,
                                 platforms=list(restored.platforms),
                                 both_platforms=list(both.platforms))
    report.text.update(
        aot_n=f"{aot_n:,}", aot_wrong_n=f"{wrong_n:,}", aot_wrong_shape=wrong_shape,
        export_lengths=_and(lengths), export_bytes=f"{len(blob):,}",
        export_in_avals=", ".join(str(a) for a in restored.in_avals),
        export_platforms=", ".join(restored.platforms),
        export_wrong_platform=wrong_platform)


def no_build_paths(report):
    """No page may show where this build ran: fail on an absolute local path."""
    here = str(Path(__file__).resolve().parent.parent)
    texts = list(report.text.items())
    for key, value in texts:  # nested texts (text.capacity.dispatch) are walked too
        if isinstance(value, dict):
            texts += [(f"{key}.{k}", v) for k, v in value.items()]
        elif here in value or "metadata=" in value:
            raise AssertionError(f"compilers_benchmark: text {key!r} shows a local "
                                 f"path or HLO metadata: {value[:200]}")


if __name__ == "__main__":
    main(measure)
