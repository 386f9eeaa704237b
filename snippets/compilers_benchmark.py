"""What XLA makes of SELU, what the fusion saves, and how a compiled program is kept.

    python snippets/compilers_benchmark.py            # full size: your tables
    python snippets/compilers_benchmark.py --quick    # small sizes, a few seconds

`measure` returns numbers and names only; `report` turns them into tables and verdicts
that docs/compilers.md and docs-ko/compilers.md word. Facts of the pinned JAX the
pages state are checked with `fact` (the build stops if one fails); what this machine
did (which timing is smaller, whether SELU compiles in under a second, whether a
CUDA-only export runs here) is data, never a check. Facts of XLA:CPU's compiled program
(one fusion, no temporaries, its cost analysis) are checked only where the backend is
the CPU.
"""

import statistics
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from compilers import (bytes_moved_eagerly, bytes_moved_fused, cache_entries,
                       compile_ahead_of_time, configured_late, export_selu, first_call,
                       fused_listing, fusions, in_fresh_process, jit_cache_capacities,
                       load_selu, programs_held, stages, without_metadata)
from measurement import (Report, Table, Timing, bold, compare, fact, fmt_seconds, main,
                         processes_apart, ratio_of, relative_paths, seconds, shared,
                         timing, word)
from selu import jit_call

N_LISTING = 1_000_000  # the shape the listings are compiled for (no data needed)
# What the page says of jit's in-memory caches (jax 0.12.0.1: jax/_src/pjit.py, util.py)
CAPACITIES = {"dispatch": 8192, "trace": 2048, "lower": 2048, "compile": 2048}
COST_KEYS = ("flops", "transcendentals", "bytes accessed")  # XLA's cost_analysis keys
EDGE = 1.05  # a model this close to an end of the measured range is "at its edge"
FIXED = 0.5  # fixed costs "dominate" a call when at least this share of it is fixed


def measure(quick: bool) -> dict:
    """The persistent cache's runs and the memory-traffic timings (first: both start
    fresh processes, which need the device this one has not opened yet), the listings,
    AOT and export, and jit's in-memory caches (last: it empties them)."""
    cache, traffic = persistent_cache(quick), memory_traffic(quick)
    data = {"backend": jax.default_backend()}
    data.update(listings(N_LISTING, data["backend"]))
    data.update(traffic=traffic, persistent_cache=cache)
    data.update(keep_and_reuse())
    data["in_memory"] = in_memory()
    no_build_paths(data)
    return data


def listings(n, backend):
    found = stages(jax.ShapeDtypeStruct((n,), jnp.float32))
    hlo, jaxpr = found["optimized_hlo"], found["jaxpr"].jaxpr
    fused = fusions(hlo)
    temp = found["memory"].temp_size_in_bytes
    analysed = found["cost"] or {}
    cost = {k: int(analysed[k]) for k in COST_KEYS if k in analysed}  # counts
    rows = bytes_moved_eagerly(jaxpr)
    fused_bytes = bytes_moved_fused(jaxpr)
    if backend == "cpu":  # facts of XLA:CPU in the pinned jaxlib; data elsewhere
        fact("compilers.one_fusion", len(fused) == 1,
             f"XLA:CPU made {len(fused)} fusions of SELU")
        fact("compilers.no_temporaries", temp == 0,
             f"memory_analysis counts {temp} bytes of temporary buffers")
        fact("compilers.cost_analysis", cost.get("bytes accessed") == fused_bytes
             and cost.get("transcendentals") == n,
             f"XLA:CPU's cost analysis reports {cost}; one read, one write and one exp "
             f"per element would be {fused_bytes} bytes and {n} transcendentals")
    return {
        "n_listing": n,
        "listing": {
            "jaxpr": str(found["jaxpr"]),
            "hlo": {"stablehlo": found["stablehlo"].rstrip(),
                    "fused": (fused_listing(hlo) if fused else "\n".join(
                        without_metadata(line) for line in hlo.splitlines()))},
            "stablehlo_lines": found["stablehlo"].count("\n"),
            "jaxpr_eqns": len(jaxpr.eqns),
            "fusions": [{"kind": f["kind"], "ops": f["ops"]} for f in fused],
            "temp_bytes": temp},
        "cost": cost,
        "model": {"rows": [[name, r, w] for name, r, w in rows],
                  "eager_bytes": sum(r + w for _, r, w in rows),
                  "fused_bytes": fused_bytes},
    }


def memory_traffic(quick):
    """Eager SELU, jitted SELU and a jitted `1.05 * x` over n: the SELU chapter's
    measurement (timed in turns there, on random_input(n)'s values), read, not
    measured again."""
    sel = shared("selu_benchmark", quick)
    scaling = sel["scaling"]
    return {"n": scaling["n"], "repeats": sel["repeats"], "processes": sel["processes"],
            **{kind: scaling[kind] for kind in ("eager", "jit", "scale_jit")},
            "one": {kind: sel["one"][kind] for kind in ("eager", "jit")}}  # n = 1


def in_memory():
    capacities = jit_cache_capacities()
    fact("compilers.jit_cache_capacities", capacities == CAPACITIES,
         f"jit's in-memory caches hold {capacities} entries; the pages say "
         f"{CAPACITIES}")
    held = programs_held(jax.device_put(np.ones(1000, np.float32)))
    before = held["before"]
    fact("compilers.programs_held",
         list(held.values()) == [before, before + 1, before, 0],
         f"a compiled program should stay while its function lives and go with it and "
         f"with jax.clear_caches(); the compile cache held {held}")
    return {"capacities": capacities, "held": held}


def persistent_cache(quick):
    pairs, n = (1 if quick else 3), 1000
    runs = {"default": [], "cold": [], "warm": [], "moved": []}
    entries = {state: [] for state in runs}
    with tempfile.TemporaryDirectory(prefix="jit-cache-") as root:
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
        # one process at a time: a TPU admits one (and the timed runs run alone)
        late = in_fresh_process(configured_late, f"{root}/late", f"{root}/second")
        for done in (r for state_runs in runs.values() for r in state_runs):
            done["log"] = [relative_paths(line, root, "<tmp>") for line in done["log"]]
    check_persistent_cache(runs, entries, late)
    key, = entries["cold"][0]
    return {
        "n": n, "pairs": pairs, "runs": runs, "entries": entries,
        "timings": {state: {key: Timing([r[f"{key}_s"] for r in done], 1).as_dict()
                            for key in ("first_call", "compile_or_load")}
                    for state, done in runs.items() if done},
        "defaults": runs["cold"][0]["defaults"],
        "cache_key": key,  # the same in every folder, moved or not
        "late": {**late,
                 "programs": sorted({name.split("-")[0] for name in late["first"]})},
    }


def check_persistent_cache(runs, entries, late):
    """What the pages say JAX does with its persistent cache, on JAX's events and the
    folders (facts of the pinned JAX: nothing here depends on a timing)."""
    for cold, warm, cold_entries, warm_entries in zip(
            runs["cold"], runs["warm"], entries["cold"], entries["warm"]):
        fact("compilers.cache_round_trip",
             (cold["cache_writes"], cold["cache_hits"], len(cold_entries)) == (1, 0, 1)
             and (warm["cache_hits"], warm["cache_writes"]) == (1, 0)
             and warm_entries == cold_entries,
             f"a second process should load what the first wrote: {cold_entries} "
             f"{warm_entries} {cold} {warm}")
    fact("compilers.autotune_folder_in_options",
         all(any("xla_gpu_per_fusion_autotune_cache_dir" in line for line in r["log"])
             for r in runs["cold"]),
         f"JAX should set XLA's autotune cache folder inside the cache folder; it "
         f"logged {runs['cold'][0]['log']}")
    # jax 0.12 clears the autotune folder before hashing the compile options
    # (_hash_serialized_compile_options in jax/_src/cache_key.py); 0.10.2 did not
    moved = runs["moved"][0]
    fact("compilers.moved_folder_hits",
         (moved["cache_hits"], moved["cache_writes"]) == (1, 0)
         and entries["moved"][0] == entries["cold"][0],
         f"a moved cache folder should hit: {moved} with entries "
         f"{entries['moved'][0]}")
    fact("compilers.folder_not_in_key",
         len({key for keys in entries["cold"] for key in keys}) == 1,
         f"every cache folder should give SELU the same key: {entries['cold']}")
    names = {name.split("-")[0] for name in late["first"]}
    fact("compilers.cache_configured_late",
         {"jit_selu", "jit__lambda"} <= names and not late["second"],
         f"a cache set after a first computation should be used, and a second folder "
         f"set later in the process not: {late}")
    fact("compilers.default_min_compile_time",
         runs["cold"][0]["defaults"]["min_compile_time_secs"] == 1.0,
         f"JAX's default jax_persistent_cache_min_compile_time_secs: "
         f"{runs['cold'][0]['defaults']}")


def _same(exported, x):
    return bool(np.array_equal(np.asarray(exported.call(x)), np.asarray(jit_call(x))))


def normal(n, seed):  # standard normal float32 from NumPy: no JAX program compiled
    return jax.device_put(np.random.default_rng(seed).standard_normal(n, np.float32))


def keep_and_reuse():
    aot_n, wrong_n, lengths = 1000, 10, [10, 1000]
    x = normal(aot_n, seed=0)
    compiled = compile_ahead_of_time(aot_n)
    fact("compilers.aot_equals_jit",
         bool(np.array_equal(np.asarray(compiled(x)), np.asarray(jit_call(x)))),
         "SELU compiled ahead of time should equal jax.jit(selu)")
    try:
        compiled(normal(wrong_n, seed=0))
        wrong_shape = None
    except TypeError as error:
        wrong_shape = f"{type(error).__name__}: {error}"
    fact("compilers.aot_refuses_other_shapes", wrong_shape is not None,
         f"a program compiled ahead of time for {aot_n} elements ran on {wrong_n}")

    blob = export_selu()
    restored = load_selu(blob)
    checks = [_same(restored, normal(n, seed=1)) for n in lengths]
    fact("compilers.export_round_trip", all(checks),
         f"the exported SELU should equal jax.jit(selu) bit for bit: {checks}")
    # Exported for GPUs only: it refuses on a machine without one, runs on a CUDA host.
    try:
        ran = _same(load_selu(export_selu(platforms=("cuda",))), x)
        elsewhere = {"platforms": ["cuda"], "ran": ran, "error": None}
    except ValueError as error:
        elsewhere = {"platforms": ["cuda"], "ran": False,
                     "error": f"{type(error).__name__}: {error}"}
    both = load_selu(export_selu(platforms=("cpu", "cuda")))
    here = restored.platforms[0]
    both_ran = _same(both, x) if here in ("cpu", "cuda") else None
    if both_ran is not None:
        fact("compilers.export_both_platforms", both_ran,
             f"an export for cpu and cuda should run on {here}")
    return {"aot": {"n": aot_n, "wrong_n": wrong_n, "error": wrong_shape},
            "export": {"bytes": len(blob), "lengths": lengths,
                       "round_trip_equal": checks,
                       "platforms": list(restored.platforms),
                       "in_avals": [str(a) for a in restored.in_avals],
                       "both_platforms": list(both.platforms), "both_ran": both_ran,
                       "elsewhere": elsewhere}}


def no_build_paths(data):
    """No page may show where this build ran: fail on an absolute local path or HLO
    metadata in any string of the data (a check of this snippet's own output)."""
    here = str(Path(__file__).resolve().parent.parent)

    def walk(value, where):
        if isinstance(value, dict):
            for key, v in value.items():
                walk(v, f"{where}.{key}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{where}.{i}")
        elif isinstance(value, str) and (here in value or "metadata=" in value):
            raise AssertionError(f"compilers_benchmark: {where} shows a local path or "
                                 f"HLO metadata: {value[:200]}")
    walk(data, "data")


# ---------------------------------------------------------------- report: data -> words

def place(eager, jit, model):
    """Where the model's ratio lies against the measured eager/jit ratio's range (both
    interquartile ranges): "inside", "edge" (within EDGE of an end), "below" or
    "above"."""
    low, high = eager["q1"] / jit["q3"], eager["q3"] / jit["q1"]
    if not low <= model <= high:
        return "below" if model < low else "above"
    return "edge" if min(model / low, high / model) < EDGE else "inside"


def model_verdict(traffic, model, apart=()):
    """Where the model sits against the measured ranges, over every size but those
    whose processes disagreed (`apart`, indices: place "apart", evidence neither way):
    kind "all" (inside or at the edge at every n counted), "some", or, at none, "above"
    (every measured ratio smaller than the model), "below" (every one larger) or
    "mixed"."""
    places = ["apart" if i in apart else place(e, j, model)
              for i, (e, j) in enumerate(zip(traffic["eager"], traffic["jit"]))]
    at = {p: [n for n, q in zip(traffic["n"], places) if q == p]
          for p in ("inside", "edge", "above", "below", "apart")}
    counted = len(places) - len(at["apart"])
    holds = len(at["inside"]) + len(at["edge"])
    kind = ("all" if holds == counted else "some" if holds else
            "above" if not at["below"] else "below" if not at["above"] else "mixed")
    return {"kind": kind, "model": model, "sizes": counted, "holds": holds,
            "places": places, **at}


def fixed_costs(traffic, steady=None):
    """How much of a call at the smallest n is fixed cost, in percent (rounded): if time
    grew only linearly beyond a fixed part, a call on n_small elements would cost
    n_small / n_large of the call at n_large besides it. `steady`: the sizes (indices)
    to read, those whose eager and jit processes agreed (all by default)."""
    first, last = (steady[0], steady[-1]) if steady else (0, -1)
    n_small, n_large = traffic["n"][first], traffic["n"][last]
    kinds = ("eager", "jit")
    small, large = ({k: traffic[k][i]["median"] for k in kinds} for i in (first, last))
    share = {k: max(0.0, 1 - large[k] * n_small / n_large / small[k]) for k in kinds}
    kind = "dominant" if min(share.values()) >= FIXED else "minor"
    # The model against a one-element call: the calls whose time at n_small is mostly
    # neither that call's nor the part proportional to n.
    neither = [k for k in kinds if small[k] - traffic["one"][k]["median"]
               - large[k] * n_small / n_large > small[k] / 2]
    percent = {k: round(100 * share[k]) for k in kinds}
    # ... and the calls whose one-element call (the fixed part, measured) is below it
    one = {k: round(100 * traffic["one"][k]["median"] / small[k]) for k in kinds}
    below = [k for k in kinds if k not in neither and one[k] < percent[k]]
    return {"kind": kind, "n_small": n_small, "n_large": n_large,
            "eager_percent": percent["eager"], "jit_percent": percent["jit"],
            "neither": neither, "below": below, "one_percent": one}


def default_thresholds(pc):
    """Whether JAX's default thresholds wrote SELU (kind "written" or "not_written"),
    with SELU's compile time in that process; quick mode runs no such process (kind
    "not_run"): then the cold process's compile time, and whether it is under the
    threshold."""
    minimum = pc["defaults"]["min_compile_time_secs"]
    if not pc["runs"]["default"]:
        compile_s = pc["timings"]["cold"]["compile_or_load"]["median"]
        return {"kind": "not_run", "compile_s": compile_s, "under": compile_s < minimum,
                "min_compile_time_secs": minimum}
    compile_s = pc["runs"]["default"][0]["compile_or_load_s"]
    return {"kind": "written" if pc["entries"]["default"][0] else "not_written",
            "compile_s": compile_s, "under": compile_s < minimum,
            "min_compile_time_secs": minimum}


def cold_vs_warm(timings, key):
    """The warm process against the cold one, on first call or compile-or-load time."""
    return compare(timings["cold"][key], timings["warm"][key], ("cold", "warm"),
                   (f"persistent_cache.timings.cold.{key}",
                    f"persistent_cache.timings.warm.{key}"), expect="warm")


def report(data: dict) -> Report:
    """Tables and verdicts of the compilers page, from its data alone."""
    t, n = data["traffic"], data["n_listing"]
    m = data["model"]
    model = m["eager_bytes"] / m["fused_bytes"]
    # A size whose processes disagreed in a timing pools two states of the machine: no
    # verdict reads it in that timing, unless fewer than two sizes agreed in it. Each
    # verdict checks the timings it compares: eager and jit (the model, the savings, the
    # fixed costs), jit and the jitted 1.05 * x (exp's cost).
    def agreed(ways):
        apart = processes_apart({k: t[k] for k in ways}, t["n"])
        steady = [i for i in range(len(t["n"])) if i not in apart["indices"]]
        if len(steady) < 2:
            return list(range(len(t["n"]))), {**apart, "apart": [], "indices": []}
        return steady, apart

    steady, apart = agreed(("eager", "jit"))
    exp_steady, exp_apart = agreed(("jit", "scale_jit"))
    ratios = {i: t["eager"][i]["median"] / t["jit"][i]["median"] for i in steady}
    least = min(steady, key=lambda i: (ratios[i], i))  # the first smallest,
    most = max(steady, key=lambda i: (ratios[i], i))  # the last largest

    def eager_vs_jit(i):
        return compare(t["eager"][i], t["jit"][i], ("eager", "jit"),
                       (f"traffic.eager.{i}", f"traffic.jit.{i}"), expect="jit")

    def exp_at(i):
        return compare(t["jit"][i], t["scale_jit"][i], ("jit", "scale_jit"),
                       (f"traffic.jit.{i}", f"traffic.scale_jit.{i}"),
                       expect="scale_jit")

    # exp's cost: the largest n (whose processes agreed) where the jitted 1.05 * x was
    # faster beyond the run's spread; where it never was, the largest n (the page says
    # so)
    beyond = [i for i in exp_steady if exp_at(i)["winner"] == "scale_jit"]
    exp_i = beyond[-1] if beyond else exp_steady[-1]
    # sizes whose processes disagreed where the two differed too, past that one
    differed_apart = [t["n"][i] for i in exp_apart["indices"]
                      if (i > exp_i or not beyond)
                      and exp_at(i)["winner"] == "scale_jit"]
    pc = data["persistent_cache"]
    tim = pc["timings"]
    cost = data["cost"]
    agrees = (cost.get("bytes accessed") == m["fused_bytes"]
              and cost.get("transcendentals") == n)
    verdicts = {
        "least_saving": eager_vs_jit(least),
        "most_saving": eager_vs_jit(most),
        "exp_cost": exp_at(exp_i),
        "sizes_chosen": {"kind": "sizes", "least_saving": t["n"][least],
                         "most_saving": t["n"][most], "exp_cost": t["n"][exp_i],
                         "exp_apart": differed_apart},
        "model": model_verdict(t, model, apart["indices"]),
        "fixed_costs": fixed_costs(t, steady),
        "warm_first_call": cold_vs_warm(tim, "first_call"),
        "warm_load": cold_vs_warm(tim, "compile_or_load"),
        "cost": {"kind": "agrees" if agrees else "differs",
                 **{k.replace(" ", "_"): v / n for k, v in cost.items()}},
        "default_thresholds": default_thresholds(pc),
    }
    places = verdicts["model"]["places"]

    def not_judged(found, i):  # a size apart in what a verdict reads: which, how far
        a = {a["index"]: a for a in found["apart"]}[i]
        return word(f"apart_{a['way']}", low=fmt_seconds(a["low"]),
                    high=fmt_seconds(a["high"]))

    timed_cols = ["first_call" if pc["pairs"] == 1 else "first_call_median",
                  "compile_or_load" if pc["pairs"] == 1 else "compile_or_load_median"]

    def spread_cell(state, key):
        values = [r[f"{key}_s"] for r in pc["runs"][state]]
        if len(values) == 1:
            return seconds(values[0])
        return {"timing": [statistics.median(values), min(values), max(values)]}

    states = [s for s in ("default", "cold", "warm", "moved") if pc["runs"][s]]
    cache_rows = [[word(f"process_{s}"), len(pc["entries"][s][0]),
                   pc["runs"][s][0]["cache_hits"], spread_cell(s, "first_call"),
                   spread_cell(s, "compile_or_load")] for s in states]
    if not pc["runs"]["default"]:
        cache_rows.insert(0, [word("process_default"), word("not_run_quick"),
                              "", "", ""])
    tables = {
        "cost_analysis": Table(
            ["quantity", "for_n", "per_element"],
            [[word(f"cost_{k.replace(' ', '_')}"), v, v / n] for k, v in cost.items()],
            {"n": n}),
        "memory_model": Table(
            ["primitive", "read", "written", "moved"],
            [[f"`{name}`", r / n, w / n, (r + w) / n] for name, r, w in m["rows"]]
            + [[bold(word("eager_all")), "", "", bold(m["eager_bytes"] / n)],
               [bold(word("fused_loop")), "", "", bold(m["fused_bytes"] / n)]]),
        "model_vs_measured": Table(
            ["n", "eager", "jit", "eager_vs_jit", "place", "scale_jit", "jit_vs_scale"],
            [[size, timing(e), timing(j), ratio_of(e, j),
              not_judged(apart, i) if p == "apart" else word(f"place_{p}"), timing(s),
              not_judged(exp_apart, i) if i in exp_apart["indices"] else ratio_of(j, s)]
             for i, (size, e, j, s, p)
             in enumerate(zip(t["n"], t["eager"], t["jit"], t["scale_jit"], places))],
            {"model": model}),
        "in_memory": Table(
            ["moment", "programs"],
            [[word(moment), count]
             for moment, count in data["in_memory"]["held"].items()]),
        "persistent_cache": Table(
            ["process", "entries", "hits", *timed_cols], cache_rows,
            {"n": pc["n"], "pairs": pc["pairs"]}),
    }
    return Report(tables=tables, verdicts=verdicts)


def traffic_figure(data, words):
    """The measured eager/jit ratio against n (median; band: both interquartile
    ranges), beside the ratio of bytes the model predicts."""
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    t, m = data["traffic"], data["model"]
    sizes, model = t["n"], m["eager_bytes"] / m["fused_bytes"]
    ratios = [e["median"] / j["median"] for e, j in zip(t["eager"], t["jit"])]
    low = [e["q1"] / j["q3"] for e, j in zip(t["eager"], t["jit"])]
    high = [e["q3"] / j["q1"] for e, j in zip(t["eager"], t["jit"])]
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    ax.plot(sizes, ratios, marker="o", label=words["measured"])
    ax.fill_between(sizes, low, high, alpha=0.25, label=words["band"])
    ax.axhline(model, color="C3", linestyle="--",
               label=words["model"].format(model=f"{model:.3g}"))
    ax.set(xscale="log", yscale="log", xlabel=words["xlabel"], ylabel=words["ylabel"],
           title=words["title"],
           ylim=(min(1.0, min(low) / 1.2), max(model, max(high)) * 1.6))
    bottom, top = ax.get_ylim()
    ticks = [v for v in (0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 20, 50, 100)
             if bottom <= v <= top]
    ax.set_yticks(ticks, [f"{v:g}×" for v in ticks])
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.axhline(1, color="0.5", linewidth=0.8)
    ax.legend(fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


FIGURES = {"model_vs_measured": traffic_figure}

if __name__ == "__main__":
    main(measure, report, FIGURES)
