"""The DeepONet training loop's pauses, measured: per-iteration times, JAX's logs, recompilations.

    python snippets/training_loop_pauses_benchmark.py            # a small DeepONet, about 15 s
    python snippets/training_loop_pauses_benchmark.py --quick    # a tiny one, no recompilation scenarios

Every compilation this file reports is counted in JAX's own log (jax_log_compiles), never
guessed from a time.
"""

import bisect
import contextlib
import gc
import io
import logging
import re
import time
import weakref
from pathlib import Path

import jax
import numpy as np

import training_loop_pauses as tl
from deeponet import PIDeepONet, evaluate_losses, loss_terms, random_functions
from measurement import Figure, Report, fmt_seconds, main, markdown_table, time_call, time_calls

# What the page says: compilations of `step` in JAX's log, (with the mistake, with its fix).
STATED = {
    "ragged": (1, 0),
    "numpy_int": (1, 0),
    "new_instance": (1, 0),
    "x64": (1, None),  # on: one compilation; back off: the 32-bit program is still cached
    "numpy_batch": (0, None),  # the cache grows, but nothing compiles
}
SCENARIOS = {  # what the loop does, and the fix
    "ragged": ("a ragged last batch ({n} points in batches of {b})", "drop the short batch"),
    "numpy_int": ("`np.int32(i)` as the iteration number", "`int(i)`"),
    "new_instance": ("a new `PIDeepONet` for a second run", "reuse the instance"),
    "x64": ("`jax_enable_x64` on for a step, then off again", "leave it alone"),
    "numpy_batch": ("the same batches as NumPy arrays", "(nothing to fix)"),
}
SKIPPED = "(not run in quick mode)"
LONG = 500  # log lines longer than this (the step's forty argument types) are cut to CUT, marked …
CUT = 150


@contextlib.contextmanager
def stamped():
    """perf_counter() of every record the 'jax' logger handles, in order (beside jax_log's list)."""
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


def mentions(message, name):
    return re.search(rf"\b{name}\b", message) is not None


def shorten(message):
    """A log message as the page shows it: this folder's path cut off, very long lines cut."""
    here = str(Path(__file__).resolve().parent) + "/"
    lines = message.replace(here, "").splitlines()
    return "\n".join(line if len(line) <= LONG else line[:CUT] + " …" for line in lines)


def verbatim(messages):
    return "\n".join(shorten(m) for m in messages) if messages else "(nothing logged)"


def measure(quick: bool) -> Report:
    """Time every iteration of the loop and of each fix; count compilations in JAX's log."""
    config = tl.TINY if quick else tl.LOOP
    n_iter, log_every = (60 if quick else 200), tl.LOG_EVERY
    report = Report()
    functions = random_functions(jax.random.key(0), config.n_functions, config.n_sensors)
    model = PIDeepONet(config)
    params = model.params
    jax.block_until_ready(tl.next_batches(jax.random.key(1), functions, config.batch_size))

    # -- the original loop from a cold start (only the data generator compiled), with JAX's log
    with tl.jax_log() as messages, stamped() as stamps:
        start = time.perf_counter()
        seconds, _ = tl.train(model, jax.random.key(1), functions, n_iter, bar_file=io.StringIO(),
                              **tl.VARIANTS["original"])
    ends = start + np.cumsum(seconds)
    by_iteration = {}
    for stamp, message in zip(stamps, messages):
        by_iteration.setdefault(min(bisect.bisect_left(ends, stamp), n_iter - 1), []).append(message)
    report.data["log_by_iteration"] = {str(i): tl.compiled(m) for i, m in by_iteration.items()}
    if set(by_iteration) != {0}:
        raise AssertionError(f"the page says that only iteration 0 compiles; JAX logged in "
                             f"iterations {sorted(by_iteration)}")
    first = by_iteration[0]
    names, compile_s = tl.compiled(first), tl.compile_seconds(first)
    eager = [(n, s) for n, s in zip(names, compile_s) if n != "step"]
    eager_log = [m for m in first if not mentions(m, "step")]
    if names.count("step") != 1:
        raise AssertionError(f"the step compiled {names.count('step')} times in iteration 0")
    report.text.update(
        log_step_first=verbatim([m for m in first if mentions(m, "step")]),
        log_eager_first=verbatim(eager_log[:10]) + f"\n[... {len(eager_log) - 10} more lines]",
        eager_compilations=str(len(eager)), eager_primitives=str(len({n for n, _ in eager})),
        eager_compile_total=fmt_seconds(sum(s for _, s in eager)),
        step_compile=fmt_seconds(compile_s[names.index("step")]),
        step_cache=str(PIDeepONet.step._cache_size()),
        n_iter=str(n_iter), n_after=str(n_iter - 1), log_every=str(log_every),
        log_every_less=str(log_every_of("logging 3x less often", log_every)),
        batch_size=str(config.batch_size), width=str(config.width), depth=str(config.depth))

    # -- each fix on its own, on the same model instance: its compiled step is reused
    runs = {"original": seconds}
    for name, kwargs in tl.VARIANTS.items():
        if name != "original":
            tl.reset(model, params)
            runs[name], _ = tl.train(model, jax.random.key(1), functions, n_iter,
                                     bar_file=io.StringIO(), **kwargs)
    report.data["timeline"] = {"n_iter": n_iter, "log_every": log_every, "seconds": runs}

    # -- what a logging iteration is made of
    _, batches = tl.next_batches(jax.random.key(2), functions, config.batch_size)
    state, repeats = model.opt_state, (3 if quick else 7)
    compiled = time_calls({"step": lambda: jax.block_until_ready(model.step(0, state, *batches)),
                           "jitted": lambda: jax.block_until_ready(evaluate_losses(model.params, *batches))},
                          repeats=repeats)
    step_t, jitted_t = compiled["step"], compiled["jitted"]
    eager_t = time_call(lambda: jax.block_until_ready(loss_terms(model.params, *batches)),
                        repeats=repeats, warmup=1, min_sample_s=0.0)  # slow: one call per sample
    flight = max(tl.in_flight(model, batches))
    ahead = run_ahead(runs["original"], log_every, n_iter, step_t.median / 2)
    report.data["costs"] = {"step": step_t.as_dict(), "eager_eval": eager_t.as_dict(),
                            "jitted_eval": jitted_t.as_dict(), "in_flight": flight, "run_ahead": ahead}
    report.tables["costs"] = markdown_table(
        ["what", "time (median, IQR)"],
        [["one step, waited for", fmt_timing(step_t)],
         ["the un-jitted loss evaluation, its primitives already compiled", fmt_timing(eager_t)],
         ["the jitted loss evaluation, compiled", fmt_timing(jitted_t)]])
    report.text.update(
        step=fmt_seconds(step_t.median), eager_eval=fmt_seconds(eager_t.median),
        jitted_eval=fmt_seconds(jitted_t.median),
        eager_vs_jitted=f"{eager_t.median / jitted_t.median:.0f}×",
        eager_in_steps=f"{eager_t.median / step_t.median:.0f}",
        in_flight=str(flight), run_ahead=f"{ahead:g}",
        queued_work=fmt_seconds(ahead * step_t.median),
        **timeline_text(runs, log_every, n_iter))
    report.tables["timeline"] = timeline_table(runs, log_every, n_iter)
    report.tables["timeline_original"] = timeline_table({"original": runs["original"]}, log_every, n_iter)
    report.figures["timeline_original"] = timeline_figure({"original": runs["original"]}, log_every,
                                                          n_iter, height=3.0)
    report.figures["timeline_fixes"] = timeline_figure(runs, log_every, n_iter, height=7.2)

    if quick:  # each scenario compiles the step once more: about a second each, too slow here
        report.tables["scenarios"] = markdown_table(["what the loop does", "compilations of step"],
                                                    [[SKIPPED, SKIPPED]])
        report.tables["stale"] = markdown_table(["call", "loss returned"], [[SKIPPED, SKIPPED]])
        report.text.update({f"log_{key}": SKIPPED for key in STATED})
        report.text.update(stale_before=SKIPPED, stale_after=SKIPPED, fresh_zero=SKIPPED,
                           fresh_ten=SKIPPED, kept_alive=SKIPPED)
        return report

    scenarios = run_scenarios(model, functions, batches, params, config)
    report.data["scenarios"] = {k: v for k, v in scenarios.items() if k != "n_points"}
    for key in STATED:
        report.text[f"log_{key}"] = verbatim(scenarios[key][-1]["log"])
    report.text["kept_alive"] = "still alive" if scenarios["kept_alive"] else "freed"
    report.tables["scenarios"] = scenario_table(scenarios, config.batch_size)

    stale = run_stale(model, batches, config)
    report.data["stale"] = stale
    report.tables["stale"] = stale_table(stale)
    report.text.update(stale_before=f"{stale['before']:.6g}", stale_after=f"{stale['after']:.6g}",
                       fresh_ten=f"{stale['fresh'][0]:.6g}", fresh_zero=f"{stale['fresh'][1]:.6g}")
    return report


# ---------------------------------------------------------------- recompilations

def run_scenarios(model, functions, batches, params, config):
    """Each real recompilation, its fix first; compilations of step counted in JAX's log.

    Raises unless JAX compiled what STATED (and so the page) says.
    """
    scenarios = {}

    def count(key, fn):
        before = PIDeepONet.step._cache_size()
        with tl.jax_log() as log:
            result = fn()
            jax.block_until_ready(model.opt_state)
        scenarios.setdefault(key, []).append(
            {"compiles": len(tl.compiled(log, "step")),
             "cache": [before, PIDeepONet.step._cache_size()],
             "log": [m for m in log if mentions(m, "step")]})
        return result

    model.opt_state = model.step(next(model.itercount), model.opt_state, *batches)  # compiled before
    draws = [tl.next_batches(jax.random.key(10 + k), functions, config.batch_size)[1] for k in range(3)]
    n_points = config.batch_size * 5 // 2  # two full batches and a half one
    data = jax.tree.map(lambda *a: np.concatenate([np.asarray(x) for x in a])[:n_points], *draws)
    count("ragged", lambda: tl.epochs_over(model, data, config.batch_size, drop_last=True))
    count("ragged", lambda: tl.epochs_over(model, data, config.batch_size))
    count("numpy_int", lambda: tl.numpy_step_number(model, batches, fixed=True))
    count("numpy_int", lambda: tl.numpy_step_number(model, batches))
    count("new_instance", lambda: tl.same_model(model, batches, params))
    second = weakref.ref(count("new_instance", lambda: tl.new_model(config, batches, params)))
    gc.collect()  # nothing of ours refers to the second model any more; the step's cache does
    x64 = jax.config.jax_enable_x64
    count("x64", lambda: tl.x64_on_and_off(model, batches))
    if jax.config.jax_enable_x64 != x64:
        raise AssertionError("jax_enable_x64 was not restored")
    count("numpy_batch", lambda: tl.numpy_batches(model, batches))
    for key, (mistake, fix) in STATED.items():
        seen = [r["compiles"] for r in scenarios[key]]
        expected = [mistake] if fix is None else [fix, mistake]
        if seen != expected:
            raise AssertionError(f"scenario {key}: the page says {expected} compilations of step, "
                                 f"JAX logged {seen}")
    growth = scenarios["numpy_batch"][0]["cache"]
    if growth[1] != growth[0] + 1:
        raise AssertionError(f"the page says NumPy batches add a cache entry: {growth}")
    return {**scenarios, "n_points": n_points, "kept_alive": second() is not None}


def run_stale(model, batches, config):
    """The stale static self, with numbers; raises unless it behaves as the page says."""
    weighted = tl.WeightedDeepONet(config)
    with tl.jax_log() as stale_log:
        before, after = tl.stale_weight(weighted, batches)
    with tl.jax_log() as fresh_log:
        fresh = tl.fresh_weight(weighted.params, batches)
    with tl.jax_log() as step_log:
        step_before, step_after = tl.stale_step(model, batches)
    step_diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
                    for a, b in zip(jax.tree.leaves(step_before), jax.tree.leaves(step_after)))
    stale = {"before": before, "after": after, "fresh": fresh,
             "compiles_stale": len(tl.compiled(stale_log, "total_loss")),
             "compiles_fresh": len(tl.compiled(fresh_log, "weighted_loss")),
             "compiles_step": len(tl.compiled(step_log, "step")), "step_difference": step_diff}
    if ((stale["compiles_stale"], stale["compiles_fresh"], stale["compiles_step"]) != (1, 1, 0)
            or after != before or step_diff != 0.0 or fresh[1] == before):
        raise AssertionError(f"the stale-self case did not behave as the page says: {stale}")
    return stale


def scenario_table(scenarios, batch_size):
    rows = []
    for key, (title, fix) in SCENARIOS.items():
        runs = scenarios[key]
        mistake, before, after = runs[-1]["compiles"], *runs[-1]["cache"]
        rows.append([title.format(n=scenarios["n_points"], b=batch_size), str(mistake),
                     f"{before} → {after}", fix, str(runs[0]["compiles"]) if len(runs) == 2 else "–"])
    return markdown_table(["what the loop does", "compilations of `step`", "`step._cache_size()`",
                           "fix", "compilations with the fix"], rows)


def stale_table(stale):
    before, after, (ten, zero) = stale["before"], stale["after"], stale["fresh"]
    return markdown_table(
        ["call", "ics_weight", "loss returned", "compilations"],
        [["`model.total_loss(params, ...)`, first call", "10.0, in `self`", f"{before:.6g}", "1"],
         ["the same, after `model.ics_weight = 0.0`", "0.0, in `self`", f"**{after:.6g}** (stale)", "0"],
         ["`weighted_loss(params, 10.0, ...)`", "10.0, an argument", f"{ten:.6g}", "1"],
         ["`weighted_loss(params, 0.0, ...)`", "0.0, an argument", f"**{zero:.6g}**", "0"]])


# ---------------------------------------------------------------- the timelines

def fmt_timing(t):
    return f"{fmt_seconds(t.median)} ({fmt_seconds(t.q1)} to {fmt_seconds(t.q3)})"


def log_every_of(name, log_every):
    return tl.VARIANTS[name].get("log_every", log_every)


def logged(n_iter, every):
    return list(range(0, n_iter, every))


def summary(seconds, every, n_iter):
    """Iteration 0, later logging iterations (median), the others (median, slowest), sums."""
    s = np.asarray(seconds)
    later = logged(n_iter, every)[1:]
    others = [i for i in range(1, n_iter) if i % every]
    return {"first": float(s[0]), "later_logging": float(np.median(s[later])) if later else None,
            "other": float(np.median(s[others])), "other_max": float(np.max(s[others])),
            "total": float(s.sum()), "rest": float(s[1:].sum())}


def run_ahead(seconds, every, n_iter, fast):
    """Median count, between two logging iterations, of the iterations faster than `fast` seconds."""
    logs = logged(n_iter, every)
    counts = [sum(s < fast for s in seconds[a + 1:b]) for a, b in zip(logs, logs[1:])]
    return float(np.median(counts)) if counts else 0.0


def timeline_table(runs, log_every, n_iter):
    rows = []
    for name, seconds in runs.items():
        every = log_every_of(name, log_every)
        s = summary(seconds, every, n_iter)
        later = fmt_seconds(s["later_logging"]) if s["later_logging"] is not None else "(none)"
        rows.append([name, f"every {every}", fmt_seconds(s["first"]), later, fmt_seconds(s["other"]),
                     fmt_seconds(s["other_max"]), fmt_seconds(s["rest"]), fmt_seconds(s["total"])])
    return markdown_table(["loop", "logs", "iteration 0", "later logging iterations (median)",
                           "other iterations (median)", "other iterations (slowest)",
                           f"iterations 1 to {n_iter - 1}", f"all {n_iter} iterations"], rows)


def timeline_text(runs, log_every, n_iter):
    text = {}
    for key, name in (("orig", "original"), ("jit", "jitted evaluation"),
                      ("block", "blocking every step"), ("less", "logging 3x less often")):
        for field, value in summary(runs[name], log_every_of(name, log_every), n_iter).items():
            text[f"{key}_{field}"] = fmt_seconds(value) if value is not None else "(none)"
    return text


def timeline_figure(runs, log_every, n_iter, height) -> Figure:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(runs), 1, figsize=(6.4, height), sharex=True, sharey=True,
                             squeeze=False)
    axes = axes[:, 0]
    for ax, (name, seconds) in zip(axes, runs.items()):
        ms = np.asarray(seconds) * 1e3
        logs = logged(n_iter, log_every_of(name, log_every))
        ax.plot(range(n_iter), ms, lw=0.8, color="C0")
        ax.plot(logs, ms[logs], "o", ms=4, color="C3", label="logging iteration")
        ax.set_yscale("log")
        ax.set_title(f"{name}: {fmt_seconds(float(np.sum(seconds)))} for {n_iter} iterations",
                     fontsize=9, loc="left")
        ax.set_ylabel("ms")
    axes[0].legend(loc="upper right", fontsize=8)
    axes[-1].set_xlabel("iteration")
    fig.suptitle("Wall time of each iteration, as the progress bar sees it", fontsize=10)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    parts = []
    for name, seconds in runs.items():
        s = summary(seconds, log_every_of(name, log_every), n_iter)
        later = (f", later logging iterations {fmt_seconds(s['later_logging'])} (median)"
                 if s["later_logging"] is not None else "")
        parts.append(f"{name}: iteration 0 took {fmt_seconds(s['first'])}{later}, the other "
                     f"iterations {fmt_seconds(s['other'])} (median)")
    what = "A timeline" if len(runs) == 1 else f"{len(runs)} timelines, one above the other,"
    alt = (f"{what} of {n_iter} training iterations: milliseconds per iteration on a log scale, "
           "with the logging iterations marked. " + "; ".join(parts) + ".")
    caption = ("Each iteration's wall time; red dots mark the iterations that evaluate the losses "
               "for the log.")
    return Figure(fig, alt, caption)


if __name__ == "__main__":
    main(measure)
