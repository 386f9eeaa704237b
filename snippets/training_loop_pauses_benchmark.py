"""The DeepONet training loop's pauses, measured: per-iteration times, JAX's log,
recompilations and the caches behind them.

    python snippets/training_loop_pauses_benchmark.py          # a small DeepONet
    python snippets/training_loop_pauses_benchmark.py --quick  # tiny, fewer scenarios

Every compilation this file reports is counted in JAX's own log (jax_log_compiles),
never guessed from a time. What JAX compiles, and its caches, are facts of the pinned
JAX (`fact` stops the build where they changed); timings, the steps in flight and the
shape of the timeline are this machine's, and the page words what they show.
"""

import bisect
import contextlib
import io
import logging
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import training_loop_pauses as tl
from compilation import count_compilations
from deeponet import PIDeepONet, evaluate_losses, loss_terms, random_functions
from measurement import (SAME, Report, Table, Timing, bold, compare, fact, main, pair,
                         relative_paths, seconds, time_call, time_calls, timing, word)
from training_loop_scenarios import STATED, mentions, run_scenarios, run_stale

QUICK_SCENARIOS = ("numpy_batch",)  # compiles nothing: cheap enough for quick mode
# What the page says of JAX's shared caches (tl.jit_cache_sizes), in entries.
STATED_CACHES = {"dispatch": 8192, "traced": 2048, "lowered": 2048, "compiled": 2048}
# XLA's CPU client's default limit of computations in flight per device, as the page
# says (CpuClientOptions::max_inflight_computations_per_device); other clients differ.
CPU_IN_FLIGHT = 32
LONG, CUT = 500, 150  # log lines longer than LONG (the step's argument types) are cut
EAGER_LOG_SHOWN = 10  # messages of the un-jitted evaluation's compilations on the page
# The page's loops (tl.VARIANTS) under the keys the page words them by.
LOOPS = {"original": "original", "jitted_eval": "jitted evaluation",
         "blocking": "blocking every step", "log_less": "logging 3x less often"}
COSTS = ("step", "eager_eval", "jitted_eval")  # what a logging iteration is made of
# Effects (jax.debug.print, callbacks): a jitted function with one has no C++ fast path.
EFFECTS = "effects: "


@contextlib.contextmanager
def stamped():
    """perf_counter() of each record the 'jax' logger handles, beside jax_log's list."""
    stamps = []

    class Stamp(logging.Handler):
        def emit(self, record):
            stamps.append(time.perf_counter())

    handler = Stamp()
    logging.getLogger("jax").addHandler(handler)
    try:
        yield stamps
    finally:
        logging.getLogger("jax").removeHandler(handler)


def verbatim(messages):
    """Log messages as the page shows them: this folder's path and long lines cut."""
    lines = relative_paths("\n".join(messages)).splitlines()
    return "\n".join(line if len(line) <= LONG else line[:CUT] + " …" for line in lines)


# ---------------------------------------------------------------- JAX's shared caches

def dispatch_caches_filled() -> dict[str, list[str]]:
    """Which of pjit.py's two C++ dispatch caches a new program fills, for a plain
    jax.jit and for an eager operation (caches cleared first, so that both are new)."""
    from jax._src import pjit

    caches = {name: getattr(pjit, name) for name in
              ("_cpp_pjit_cache_fun_only", "_cpp_pjit_cache_explicit_attributes")}
    x, add_one = jnp.arange(7.0), jax.jit(lambda v: v + 1.0)  # alive while counted:
    jax.clear_caches()  # an entry goes with its function
    filled = {}
    for kind, call in (("jax.jit", add_one), ("eager", jnp.cos)):
        before = {name: cache.size() for name, cache in caches.items()}
        jax.block_until_ready(call(x))
        filled[kind] = [name for name, cache in caches.items()
                        if cache.size() > before[name]]
    return filled


# Which caches a kept-alive jitted function must leave before its next call compiles
# again, as the page says: without effects, the dispatch cache and the lower and compile
# caches; with an effect (no C++ fast-path entry), the lower and compile caches alone.
STATED_RECOMPILES = {"dispatch": 0, "lowered and compiled": 0,
                     "dispatch and compiled": 0, "dispatch, traced and lowered": 0,
                     "dispatch, lowered and compiled": 1,
                     EFFECTS + "dispatch": 0, EFFECTS + "lowered and compiled": 1}


def recompiles_after_leaving() -> dict[str, int]:
    """Compilations of a jitted function's next call once its entries are gone from
    some of the shared caches: private parts of JAX (pjit.py, pxla.py), cleared here
    by hand as least-recently-used eviction would empty them."""
    from jax._src import pjit
    from jax._src.interpreters import pxla

    clear = {"dispatch": pjit._cpp_pjit_cache_explicit_attributes.clear,
             "traced": pjit._infer_params_cached.cache_clear,
             "lowered": pjit._pjit_lower.cache_clear,
             "compiled": pxla._cached_compilation.cache_clear}
    x, found = jnp.arange(7.0), {}
    for case in STATED_RECOMPILES:
        effects = case.startswith(EFFECTS)

        def double(v, effects=effects):  # new: in every cache once called
            if effects:
                jax.debug.callback(lambda *_: None, v)
            return v * 2.0

        double = jax.jit(double)
        jax.block_until_ready(double(x))
        for name in case.removeprefix(EFFECTS).replace(" and ", ", ").split(", "):
            clear[name]()
        with count_compilations() as compiles:
            jax.block_until_ready(double(x))
        found[case] = compiles.total()
    return found


def check_caches() -> dict[str, int]:
    sizes = tl.jit_cache_sizes()
    fact("training_loop.cache_sizes", sizes == STATED_CACHES,
         f"The page says JAX's shared caches hold {STATED_CACHES}; this JAX has "
         f"{sizes}.")
    filled = dispatch_caches_filled()
    expected = ["_cpp_pjit_cache_explicit_attributes"]
    fact("training_loop.one_dispatch_cache",
         filled == {"jax.jit": expected, "eager": expected},
         "The page says every jitted call, a plain jax.jit(f) and eager operations "
         "included, goes through pjit.py's _cpp_pjit_cache_explicit_attributes; this "
         f"JAX filled {filled}.")
    recompiles = recompiles_after_leaving()
    fact("training_loop.recompiles_after_leaving", recompiles == STATED_RECOMPILES,
         "The page says a jitted function compiles again only once it has left the "
         "dispatch, lower and compile caches (with an effect, the lower and compile "
         f"caches); compilations after leaving each set: {recompiles}.")
    return sizes


# ---------------------------------------------------------------- measuring

def spread(values) -> dict | None:
    """Median and quartiles of some iterations' seconds (None: no such iteration)."""
    if not len(values):
        return None
    found = Timing([float(v) for v in values], 1).as_dict()
    del found["samples"]  # the iterations' own times are in "seconds"
    return found


def summary(seconds, waits, every):
    """One loop's iterations: all their times, and iteration 0, the later logging
    iterations and their wait for the queue, the other iterations, sums."""
    s = [float(v) for v in seconds]
    others = [v for i, v in enumerate(s) if i and i % every]
    return {"log_every": every, "seconds": s, "waits": [float(w) for w in waits],
            "first": s[0], "later_logging": spread(s[every::every]),
            "wait": spread(waits[1:]), "other": spread(others),
            "rest": sum(s[1:]), "total": sum(s)}


def measure(quick: bool) -> dict:
    """Time each iteration of the loop and of each fix; count compilations (the log)."""
    config = tl.TINY if quick else tl.LOOP
    n_iter, log_every = (60 if quick else 200), tl.LOG_EVERY
    cache_sizes = check_caches()
    functions = random_functions(jax.random.key(0), config.n_functions,
                                 config.n_sensors)
    model = PIDeepONet(config)
    params = model.params
    jax.block_until_ready(
        tl.next_batches(jax.random.key(1), functions, config.batch_size))

    # -- the original loop from a cold start (only the data generator compiled)
    with tl.jax_log() as messages, stamped() as stamps:
        start = time.perf_counter()
        times, _, waits = tl.train(model, jax.random.key(1), functions, n_iter,
                                   bar_file=io.StringIO(), **tl.VARIANTS["original"])
    ends = start + np.cumsum(times)
    by_iteration = {}
    for stamp, message in zip(stamps, messages):
        i = min(bisect.bisect_left(ends, stamp), n_iter - 1)
        by_iteration.setdefault(i, []).append(message)
    fact("training_loop.compiles_only_in_iteration_0", set(by_iteration) == {0},
         f"The page says that only iteration 0 compiles; JAX logged in iterations "
         f"{sorted(by_iteration)}.")
    first = by_iteration[0]
    names, compile_s = tl.compiled(first), tl.compile_seconds(first)
    fact("training_loop.step_compiles_once", names.count("step") == 1,
         f"The page says the step compiles once in iteration 0; JAX logged "
         f"{names.count('step')}.")
    eager = [(n, s) for n, s in zip(names, compile_s) if n != "step"]
    eager_log = [m for m in first if not mentions(m, "step")]
    data = {
        "n_iter": n_iter, "log_every": log_every,
        "config": {"width": config.width, "depth": config.depth,
                   "batch_size": config.batch_size},
        "compiled": {"by_iteration": {str(i): tl.compiled(m)
                                      for i, m in by_iteration.items()},
                     "step_seconds": compile_s[names.index("step")],
                     "eager": len(eager),
                     "eager_primitives": len({n for n, _ in eager}),
                     "eager_seconds": sum(s for _, s in eager),
                     "step_cache": PIDeepONet.step._cache_size()},
        "log": {"step_first": verbatim([m for m in first if mentions(m, "step")]),
                "eager_first": verbatim(eager_log[:EAGER_LOG_SHOWN]),
                "eager_messages": len(eager_log), "eager_shown": EAGER_LOG_SHOWN},
        "cache_sizes": cache_sizes,
    }

    # -- each fix on its own, on the same model instance: its compiled step is reused
    runs = {"original": summary(times, waits, log_every)}
    for key, name in LOOPS.items():
        if key != "original":
            tl.reset(model, params)
            kwargs = tl.VARIANTS[name]
            loop_times, _, loop_waits = tl.train(
                model, jax.random.key(1), functions, n_iter, bar_file=io.StringIO(),
                **kwargs)
            every = kwargs.get("log_every", log_every)
            runs[key] = summary(loop_times, loop_waits, every)
    data["timeline"] = runs

    # -- what a logging iteration is made of, and how far the loop runs ahead
    _, batches = tl.next_batches(jax.random.key(2), functions, config.batch_size)
    state, repeats = model.opt_state, (3 if quick else 7)
    p = model.params
    timed = time_calls(
        {"step": lambda: jax.block_until_ready(model.step(0, state, *batches)),
         "jitted": lambda: jax.block_until_ready(evaluate_losses(p, *batches))},
        repeats=repeats)
    eager_t = time_call(lambda: jax.block_until_ready(loss_terms(p, *batches)),
                        repeats=repeats, warmup=1, min_sample_s=0.0)  # 1 call a sample
    counts = tl.in_flight(model, batches)
    data["costs"] = {"step": timed["step"].as_dict(), "eager_eval": eager_t.as_dict(),
                     "jitted_eval": timed["jitted"].as_dict(),
                     "in_flight": max(counts), "in_flight_counts": counts}

    # -- recompilations a loop can really cause, and the stale static self
    keys = QUICK_SCENARIOS if quick else tuple(STATED)
    found = run_scenarios(model, functions, batches, params, config, keys)
    data["scenarios"] = {
        "n_points": found["n_points"], "batch_size": config.batch_size,
        "kept_alive": found["kept_alive"],
        "runs": {k: [{"compiles": r["compiles"], "cache": r["cache"]} for r in found[k]]
                 for k in keys}}
    data["log"]["scenarios"] = {k: verbatim(found[k][-1]["log"]) for k in keys}
    if "new_instance" in keys:  # the page: this jax's explanation does not name `self`
        missed = [m for m in found["new_instance"][-1]["log"] if "CACHE MISS" in m]
        named = [m for m in missed if mentions(m, "self") or "static" in m.lower()]
        fact("training_loop.static_self_unnamed", bool(missed) and not named,
             f"A new static self: JAX's cache-miss explanation was {missed}")
    # each other scenario compiles the step once more: too slow for quick mode
    data["stale"] = None if quick else run_stale(model, batches, config)
    return data


# ---------------------------------------------------------------- verdicts and tables

def run_ahead(seconds, every, fast):
    """Median, over the intervals between logging iterations, of the longest unbroken
    run of iterations under `fast` s (the queue filling; stray ones not counted)."""
    logs = list(range(0, len(seconds), every))
    counts = []
    for a, b in zip(logs, logs[1:]):
        run = longest = 0
        for s in seconds[a + 1:b]:
            run = run + 1 if s < fast else 0
            longest = max(longest, run)
        counts.append(longest)
    return float(np.median(counts)) if counts else 0.0


def levels(loop, step):
    """The shape of the timeline between logging iterations, as the page words it:
    "two_levels" (a run of iterations under half a step, then iterations of 0.5 to 2
    steps each: their median), the chapter's; "no_run_ahead" (no such run), or
    "unexpected" (a run, then iterations of another length)."""
    every, times = loop["log_every"], loop["seconds"]
    ahead = run_ahead(times, every, step / 2)
    slow = [s for i, s in enumerate(times) if i % every and s >= step / 2]
    level = statistics.median(slow) / step if slow else 0.0
    kind = ("no_run_ahead" if ahead < 1 else
            "two_levels" if 0.5 <= level <= 2 else "unexpected")
    return {"kind": kind, "run_ahead": ahead, "level": level, "step": step,
            "expect": "two_levels", "expected": kind == "two_levels"}


def later_logging(loop):
    """How many logging iterations a loop had after iteration 0 (the samples of its
    later_logging): "none", "one" or "several"."""
    count = len(loop["seconds"][loop["log_every"]::loop["log_every"]])
    return {"kind": "none" if count == 0 else "one" if count == 1 else "several",
            "count": count}


def in_flight(found):
    """Steps found in flight against XLA's CPU client's default limit (the page says
    whether this backend is that client: environment.backend)."""
    kind = ("at_limit" if found == CPU_IN_FLIGHT else
            "below_limit" if found < CPU_IN_FLIGHT else "above_limit")
    return {"kind": kind, "found": found, "limit": CPU_IN_FLIGHT}


def queue_bound(levels_found, in_flight_found):
    """Whether the CPU client's full queue explains the timeline's low level (the page's
    "hence"): "half_queue" where the chapter's two levels showed, the run filled the
    queue (at_limit) and the run-ahead is about half of it (within SAME either way: the
    loop queues two computations per iteration), else "not_shown"."""
    half = in_flight_found["limit"] / 2
    near = half / SAME <= levels_found["run_ahead"] <= half * SAME
    kind = ("half_queue" if levels_found["kind"] == "two_levels" and near
            and in_flight_found["kind"] == "at_limit" else "not_shown")
    return {"kind": kind, "run_ahead": levels_found["run_ahead"], "half": half}


def compared(data, a, b, names, expect=None):
    """compare() of two timings found at paths a and b of data (None: not measured);
    `expect`: the name this chapter's explanation expects to be faster."""
    def at(path):
        value = data
        for part in path.split("."):
            value = value[part]
        return value
    if at(a) is None or at(b) is None:
        return {"kind": "not_measured", "names": list(names)}
    return compare(at(a), at(b), names, (a, b), expect)


def timeline_table(data, keys):
    """Each loop's iterations: medians, with the interquartile range of the many (a
    loop that logged once more after iteration 0 has one sample: the cell says so)."""
    def median(t, loop):
        if t is None:
            return word("none")
        cell = seconds(t["median"])
        one = later_logging(loop)["kind"] == "one"
        return pair(cell, word("one_sample")) if one else cell
    rows = [[word(key), word("every", n=loop["log_every"]), seconds(loop["first"]),
             median(loop["later_logging"], loop), median(loop["wait"], loop),
             timing(loop["other"]), seconds(loop["rest"]), seconds(loop["total"])]
            for key, loop in ((k, data["timeline"][k]) for k in keys)]
    n_iter = data["n_iter"]
    return Table(["loop", "logs", "iteration_0", "later_logging", "waiting", "other",
                  "rest", "total"], rows, {"last": n_iter - 1, "n_iter": n_iter})


def report(data: dict) -> Report:
    """Tables and verdicts of the training-loop page, from its data alone."""
    c, sc, stale = data["costs"], data["scenarios"], data["stale"]
    logging = "timeline.{}.later_logging".format
    verdicts = {
        "logging_vs_other": compared(data, "timeline.original.other",
                                     logging("original"), ("other", "logging"),
                                     "other"),
        "evaluation": compared(data, "costs.jitted_eval", "costs.eager_eval",
                               ("jitted_eval", "eager_eval"), "jitted_eval"),
        "jitted_eval_fix": compared(data, logging("jitted_eval"), logging("original"),
                                    ("jitted_eval", "original"), "jitted_eval"),
        "log_less": compared(data, logging("original"), logging("log_less"),
                             ("original", "log_less")),
        "log_less_count": later_logging(data["timeline"]["log_less"]),
        # iterations 1 to n-1, summed: what blocking on every step cost (one pass each)
        "blocking": compared(data, "timeline.original.rest", "timeline.blocking.rest",
                             ("original", "blocking")),
        "in_flight": in_flight(c["in_flight"]),
        "levels": levels(data["timeline"]["original"], c["step"]["median"]),
    }
    verdicts["queue_bound"] = queue_bound(verdicts["levels"], verdicts["in_flight"])
    scenario_rows = []
    for key in STATED:
        title = word(key, n=sc["n_points"], b=sc["batch_size"])
        runs = sc["runs"].get(key)
        if runs is None:
            scenario_rows.append([title, word("skipped"), "", word(f"{key}_fix"), ""])
            continue
        before, after = runs[-1]["cache"]
        with_fix = runs[0]["compiles"] if len(runs) == 2 else "–"
        scenario_rows.append([title, runs[-1]["compiles"], f"{before} → {after}",
                              word(f"{key}_fix"), with_fix])
    if stale is None:
        stale_rows = [[word("skipped"), "", "", ""]]
    else:
        (ten, zero), before, after = stale["fresh"], stale["before"], stale["after"]
        stale_rows = [  # call, where the weight is, loss returned, compilations
            [word("stale_first"), word("in_self", weight=10.0), before, 1],
            [word("stale_after"), word("in_self", weight=0.0), bold(after), 0],
            [word("fresh_ten"), word("as_argument", weight=10.0), ten, 1],
            [word("fresh_zero"), word("as_argument", weight=0.0), bold(zero), 0]]
    tables = {
        "timeline_original": timeline_table(data, ["original"]),
        "timeline": timeline_table(data, list(LOOPS)),
        "costs": Table(["what", "time"],
                       [[word(k), timing(c[k])] for k in COSTS]),
        "scenarios": Table(["what", "compilations", "cache_size", "fix", "with_fix"],
                           scenario_rows),
        "caches": Table(["cache", "entries"],
                        [[word(k), size] for k, size in data["cache_sizes"].items()]),
        "stale": Table(["call", "ics_weight", "loss", "compilations"], stale_rows),
    }
    return Report(tables=tables, verdicts=verdicts)


def timeline_figure(data, words):
    """Each iteration's wall time of the original loop, logging iterations marked."""
    import matplotlib.pyplot as plt

    loop = data["timeline"]["original"]
    ms, every = np.asarray(loop["seconds"]) * 1e3, loop["log_every"]
    logs = list(range(0, len(ms), every))
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    ax.plot(range(len(ms)), ms, lw=0.8, color="C0")
    ax.plot(logs, ms[logs], "o", ms=4, color="C3", label=words["logging_iteration"])
    ax.set_yscale("log")
    ax.set_xlabel(words["xlabel"])
    ax.set_ylabel(words["ylabel"])
    ax.legend(loc="upper right", fontsize=8)
    ax.set_title(words["title"], fontsize=10)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


FIGURES = {"timeline_original": timeline_figure}

if __name__ == "__main__":
    main(measure, report, FIGURES)
