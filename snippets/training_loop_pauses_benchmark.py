"""The DeepONet training loop's pauses, measured: per-iteration times, JAX's log,
recompilations and the caches behind them.

    python snippets/training_loop_pauses_benchmark.py          # a small DeepONet
    python snippets/training_loop_pauses_benchmark.py --quick  # tiny, fewer scenarios

Every compilation this file reports is counted in JAX's own log (jax_log_compiles),
never guessed from a time.
"""

import bisect
import contextlib
import io
import logging
import time

import jax
import jax.numpy as jnp
import numpy as np

import training_loop_pauses as tl
from compilation import count_compilations
from deeponet import PIDeepONet, evaluate_losses, loss_terms, random_functions
from measurement import (DocumentationMismatch, Figure, Report, faster, fmt_seconds,
                         fmt_timing, main, markdown_table, relative_paths, time_call,
                         time_calls)
from training_loop_scenarios import (SKIPPED, STATED, mentions, run_scenarios,
                                     run_stale, scenario_table, stale_table)

QUICK_SCENARIOS = ("numpy_batch",)  # compiles nothing: cheap enough for quick mode
# What the page says of JAX's shared caches (tl.jit_cache_sizes), in entries.
STATED_CACHES = {"dispatch: compiled calls": 8192, "traced functions": 2048,
                 "lowered programs": 2048, "compiled executables": 2048}
IN_FLIGHT = 32  # XLA's CPU client's default, as the page says (checked at full size)
LONG, CUT = 500, 150  # log lines longer than LONG (the step's argument types) are cut


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
    return "\n".join(line if len(line) <= LONG else line[:CUT] + " …"
                     for line in lines) or "(nothing logged)"


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
# again, as the page says: the dispatch cache, and the lower and compile caches.
STATED_RECOMPILES = {"dispatch": 0, "lowered and compiled": 0,
                     "dispatch and compiled": 0, "dispatch, traced and lowered": 0,
                     "dispatch, lowered and compiled": 1}


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
        double = jax.jit(lambda v: v * 2.0)  # new: in every cache once called
        jax.block_until_ready(double(x))
        for name in case.replace(" and ", ", ").split(", "):
            clear[name]()
        with count_compilations() as compiles:
            jax.block_until_ready(double(x))
        found[case] = compiles.total()
    return found


def check_caches(report: Report) -> None:
    sizes = tl.jit_cache_sizes()
    if sizes != STATED_CACHES:
        raise DocumentationMismatch(f"the page says JAX's shared caches hold "
                                    f"{STATED_CACHES}, but this JAX has {sizes}")
    filled = dispatch_caches_filled()
    expected = ["_cpp_pjit_cache_explicit_attributes"]
    if filled != {"jax.jit": expected, "eager": expected}:
        raise DocumentationMismatch(
            "the page says every jitted call, a plain jax.jit(f) and eager operations "
            "included, goes through pjit.py's _cpp_pjit_cache_explicit_attributes, "
            f"but this JAX filled {filled}")
    recompiles = recompiles_after_leaving()
    if recompiles != STATED_RECOMPILES:
        raise DocumentationMismatch(
            "the page says a jitted function compiles again only once it has left the "
            "dispatch, lower and compile caches; compilations after leaving each set: "
            f"{recompiles}")
    report.data["cache_sizes"] = sizes
    report.tables["caches"] = markdown_table(
        ["cache, shared by every jitted function", "entries (least recently used go)"],
        [[name, f"{size:,}"] for name, size in sizes.items()])
    report.text.update(cache_compiled=f"{sizes['compiled executables']:,}",
                       cache_dispatch=f"{sizes['dispatch: compiled calls']:,}")


def measure(quick: bool) -> Report:
    """Time each iteration of the loop and of each fix; count compilations (the log)."""
    config = tl.TINY if quick else tl.LOOP
    n_iter, log_every = (60 if quick else 200), tl.LOG_EVERY
    report = Report()
    check_caches(report)
    functions = random_functions(jax.random.key(0), config.n_functions,
                                 config.n_sensors)
    model = PIDeepONet(config)
    params = model.params
    jax.block_until_ready(
        tl.next_batches(jax.random.key(1), functions, config.batch_size))

    # -- the original loop from a cold start (only the data generator compiled)
    with tl.jax_log() as messages, stamped() as stamps:
        start = time.perf_counter()
        seconds, _, waits = tl.train(model, jax.random.key(1), functions, n_iter,
                                     bar_file=io.StringIO(), **tl.VARIANTS["original"])
    ends = start + np.cumsum(seconds)
    by_iteration = {}
    for stamp, message in zip(stamps, messages):
        i = min(bisect.bisect_left(ends, stamp), n_iter - 1)
        by_iteration.setdefault(i, []).append(message)
    report.data["log_by_iteration"] = {str(i): tl.compiled(m)
                                       for i, m in by_iteration.items()}
    if set(by_iteration) != {0}:
        raise DocumentationMismatch(
            f"the page says that only iteration 0 compiles; JAX logged in iterations "
            f"{sorted(by_iteration)}")
    first = by_iteration[0]
    names, compile_s = tl.compiled(first), tl.compile_seconds(first)
    eager = [(n, s) for n, s in zip(names, compile_s) if n != "step"]
    eager_log = [m for m in first if not mentions(m, "step")]
    if names.count("step") != 1:
        raise DocumentationMismatch(
            f"the page says the step compiles once in iteration 0; JAX logged "
            f"{names.count('step')}")
    report.text.update(
        log_step_first=verbatim([m for m in first if mentions(m, "step")]),
        log_eager_first=verbatim(eager_log[:10])
        + f"\n[... {len(eager_log) - 10} more lines]",
        eager_compilations=str(len(eager)),
        eager_primitives=str(len({n for n, _ in eager})),
        eager_compile_total=fmt_seconds(sum(s for _, s in eager)),
        step_compile=fmt_seconds(compile_s[names.index("step")]),
        step_cache=str(PIDeepONet.step._cache_size()),
        n_iter=str(n_iter), n_after=str(n_iter - 1), log_every=str(log_every),
        log_every_less=str(every_of("logging 3x less often", log_every)),
        batch_size=str(config.batch_size), width=str(config.width),
        depth=str(config.depth))

    # -- each fix on its own, on the same model instance: its compiled step is reused
    runs, drains = {"original": seconds}, {"original": waits}
    for name, kwargs in tl.VARIANTS.items():
        if name != "original":
            tl.reset(model, params)
            runs[name], _, drains[name] = tl.train(
                model, jax.random.key(1), functions, n_iter, bar_file=io.StringIO(),
                **kwargs)
    report.data["timeline"] = {"n_iter": n_iter, "log_every": log_every,
                               "seconds": runs, "waits": drains}

    # -- what a logging iteration is made of
    _, batches = tl.next_batches(jax.random.key(2), functions, config.batch_size)
    state, repeats = model.opt_state, (3 if quick else 7)
    p = model.params
    timed = time_calls(
        {"step": lambda: jax.block_until_ready(model.step(0, state, *batches)),
         "jitted": lambda: jax.block_until_ready(evaluate_losses(p, *batches))},
        repeats=repeats)
    step_t, jitted_t = timed["step"], timed["jitted"]
    eager_t = time_call(lambda: jax.block_until_ready(loss_terms(p, *batches)),
                        repeats=repeats, warmup=1, min_sample_s=0.0)  # 1 call a sample
    flight = max(tl.in_flight(model, batches))
    if not quick and flight != IN_FLIGHT:  # quick mode's tiny steps may not fill it
        raise DocumentationMismatch(
            f"the page says XLA's CPU client admits {IN_FLIGHT} computations in "
            f"flight; the loop found {flight}")
    ahead = run_ahead(runs["original"], log_every, n_iter, step_t.median / 2)
    check_two_levels(runs["original"], log_every, step_t.median, ahead, quick)
    report.data["costs"] = {"step": step_t.as_dict(), "eager_eval": eager_t.as_dict(),
                            "jitted_eval": jitted_t.as_dict(), "in_flight": flight,
                            "run_ahead": ahead}
    report.tables["costs"] = markdown_table(
        ["what", "time (median, IQR)"],
        [["one step, waited for", fmt_timing(step_t)],
         ["the un-jitted loss evaluation, its primitives compiled",
          fmt_timing(eager_t)],
         ["the jitted loss evaluation, compiled", fmt_timing(jitted_t)]])
    report.text.update(
        step=fmt_seconds(step_t.median), eager_eval=fmt_seconds(eager_t.median),
        jitted_eval=fmt_seconds(jitted_t.median),
        eager_vs_jitted=f"{faster('the jitted evaluation', eager_t, jitted_t):.0f}×",
        eager_in_steps=f"{eager_t.median / step_t.median:.0f}",
        in_flight=str(flight), run_ahead=f"{ahead:g}",
        timeline=timeline_text(runs, drains, log_every, n_iter))
    report.tables["timeline"] = timeline_table(runs, drains, log_every, n_iter)
    report.tables["timeline_original"] = timeline_table(
        {"original": runs["original"]}, drains, log_every, n_iter)
    report.figures["timeline_original"] = timeline_figure(runs["original"], log_every,
                                                          n_iter)

    keys = QUICK_SCENARIOS if quick else tuple(STATED)
    scenarios = run_scenarios(model, functions, batches, params, config, keys)
    report.data["scenarios"] = {k: v for k, v in scenarios.items() if k != "n_points"}
    report.text["log"] = {  # text.log.<scenario>: what JAX logged, or why not
        key: verbatim(scenarios[key][-1]["log"]) if key in keys else SKIPPED
        for key in STATED}
    report.tables["scenarios"] = scenario_table(scenarios, config.batch_size, keys)
    if quick:  # each other scenario compiles the step once more: too slow here
        report.tables["stale"] = markdown_table(["call", "loss returned"],
                                                [[SKIPPED, SKIPPED]])
        report.text.update(stale_before=SKIPPED, stale_after=SKIPPED,
                           fresh_zero=SKIPPED, fresh_ten=SKIPPED, kept_alive=SKIPPED)
        return report
    report.text["kept_alive"] = "still alive" if scenarios["kept_alive"] else "freed"
    stale = run_stale(model, batches, config)
    report.data["stale"] = stale
    report.tables["stale"] = stale_table(stale)
    report.text.update(stale_before=f"{stale['before']:.6g}",
                       stale_after=f"{stale['after']:.6g}",
                       fresh_ten=f"{stale['fresh'][0]:.6g}",
                       fresh_zero=f"{stale['fresh'][1]:.6g}")
    return report


# ---------------------------------------------------------------- the timelines

def every_of(name, log_every):
    return tl.VARIANTS[name].get("log_every", log_every)


def summary(seconds, waits, every, n_iter):
    """Iteration 0, later logging iterations and their wait for the queue (medians),
    the other iterations (median, slowest), sums."""
    s = np.asarray(seconds)
    later = list(range(every, n_iter, every))
    others = [i for i in range(1, n_iter) if i % every]
    def median(v):
        return float(np.median(v)) if len(v) else None
    return {"first": float(s[0]), "later_logging": median(s[later]),
            "wait": median(waits[1:]), "other": median(s[others]),
            "other_max": float(np.max(s[others])), "total": float(s.sum()),
            "rest": float(s[1:].sum())}


def check_two_levels(seconds, every, step, ahead, quick):
    """The page: between logging iterations, a run of iterations much shorter than a
    step, then iterations of about a step each (their median within 0.5 to 2 steps)."""
    slow = [s for i, s in enumerate(seconds) if i % every and s >= step / 2]
    level = float(np.median(slow)) / step if slow else 0.0
    if not quick and (ahead < 1 or not 0.5 <= level <= 2):
        raise DocumentationMismatch(
            "the page says the timeline has two levels between logging iterations (a "
            "run much shorter than a step, then about a step each); found a run of "
            f"{ahead:g} and a level of {level:.2g} steps")


def run_ahead(seconds, every, n_iter, fast):
    """Median, over the intervals between logging iterations, of the longest unbroken
    run of iterations under `fast` s (the queue filling; stray ones not counted)."""
    logs = list(range(0, n_iter, every))
    counts = []
    for a, b in zip(logs, logs[1:]):
        run = longest = 0
        for s in seconds[a + 1:b]:
            run = run + 1 if s < fast else 0
            longest = max(longest, run)
        counts.append(longest)
    return float(np.median(counts)) if counts else 0.0


def timeline_table(runs, drains, log_every, n_iter):
    def fmt(v):
        return fmt_seconds(v) if v is not None else "(none)"
    rows = []
    for name, seconds in runs.items():
        every = every_of(name, log_every)
        s = summary(seconds, drains[name], every, n_iter)
        rows.append([name, f"every {every}", fmt(s["first"]), fmt(s["later_logging"]),
                     fmt(s["wait"]), fmt(s["other"]), fmt(s["rest"]), fmt(s["total"])])
    return markdown_table(["loop", "logs", "iteration 0", "later logging iterations",
                           "of which waiting for queued steps", "other iterations",
                           f"iterations 1 to {n_iter - 1}", f"all {n_iter} iterations"],
                          rows)


def timeline_text(runs, drains, log_every, n_iter):
    """text.timeline.<loop>.<field>: loop orig, jit, block or less; field as in
    `summary` (first, later_logging, wait, other, other_max, total, rest)."""
    text, s = {}, {}
    for key, name in (("orig", "original"), ("jit", "jitted evaluation"),
                      ("block", "blocking every step"),
                      ("less", "logging 3x less often")):
        s[key] = summary(runs[name], drains[name], every_of(name, log_every), n_iter)
        text[key] = {field: fmt_seconds(value) if value is not None else "(none)"
                     for field, value in s[key].items()}
    faster("the other iterations (the pauses are the logging ones)",
           s["orig"]["later_logging"], s["orig"]["other"])
    faster("a logging iteration with the jitted evaluation",
           s["orig"]["later_logging"], s["jit"]["later_logging"])
    return text


def timeline_figure(seconds, log_every, n_iter) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    ms = np.asarray(seconds) * 1e3
    logs = list(range(0, n_iter, log_every))
    ax.plot(range(n_iter), ms, lw=0.8, color="C0")
    ax.plot(logs, ms[logs], "o", ms=4, color="C3", label="logging iteration")
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("ms (log scale)")
    ax.legend(loc="upper right", fontsize=8)
    ax.set_title("Wall time of each iteration, as the progress bar sees it",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    s = summary(seconds, [0.0] * len(logs), log_every, n_iter)
    alt = (f"A timeline of {n_iter} training iterations: milliseconds per iteration "
           f"on a log scale, logging iterations marked. Iteration 0 took "
           f"{fmt_seconds(s['first'])}, later logging iterations "
           f"{fmt_seconds(s['later_logging'])} (median), the others "
           f"{fmt_seconds(s['other'])} (median).")
    caption = ("Each iteration's wall time; red dots mark the iterations that evaluate "
               "the losses for the log.")
    return Figure(fig, alt, caption)


if __name__ == "__main__":
    main(measure)
