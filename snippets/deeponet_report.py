"""Tables, figures and prose numbers of deeponet_benchmark.py, from what it measured.

Nothing here measures; deeponet_benchmark.py calls these with its results.
"""

import math

import numpy as np

from deeponet import ICS_WEIGHT, LEARNING_RATE
from measurement import (SETTLED, DocumentationMismatch, Figure, Timing, fmt_ratio,
                         fmt_ratio_range, fmt_seconds, fmt_timing, log_log_axes,
                         markdown_table, ratio_range)

SAME_I = "un-jitted, the same i every call (no compilation)"


def sizes_text(sizes):
    words = [f"{b:,}" for b in sizes]
    if len(words) == 1:  # quick mode: one batch size
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def same_i_saving(train) -> str:
    """What reusing one i saved per un-jitted step at the chapter's batch (medians)."""
    saved = train["eager"].median - train["eager_same_i"].median
    return (f"{fmt_seconds(saved)} less per step, medians" if saved > 0
            else "no less per step at the medians")


def report_scaling(report, runs, original, config, rounds):
    """The step over batch sizes: table, figure and the numbers the prose quotes. The
    un-jitted step with the same i was timed at the chapter's batch size only."""
    train = next(m for m in runs if m["batch_size"] == config.batch_size)
    rows = []
    for m in runs + ([original] if original else []):
        label = f"{m['batch_size']:,}"
        if m is original:
            label += " (the paper's network)"
        rows.append([label, fmt_timing(m["jit"]), fmt_timing(m["eager"]),
                     fmt_ratio_range(m["eager"], m["jit"])])
        if m is train:
            rows.append([f"{m['batch_size']:,}, un-jitted with the same i every call",
                         fmt_timing(m["jit"]), fmt_timing(m["eager_same_i"]),
                         fmt_ratio_range(m["eager_same_i"], m["jit"])])
    report.tables["step_time"] = markdown_table(
        ["points per loss term", "jitted step", "un-jitted step", "un-jitted / jitted"],
        rows)
    report.data["runs"] = [as_data(m) for m in runs]
    report.data["original"] = original and as_data(original)
    report.figures["scaling"] = scaling_figure(runs, original, train)

    def ratio(m, key="eager"):
        return fmt_ratio(m[key].median / m["jit"].median)

    small, large = runs[0], runs[-1]
    ratios = [m["eager"].median / m["jit"].median for m in runs]
    if ratios[-1] <= 1 or any(a <= b for a, b in zip(ratios, ratios[1:])):
        raise DocumentationMismatch(
            "the page says the jitted step is faster, and the un-jitted / jitted ratio "
            "falls as the batch grows; over "
            f"the batch sizes: {ratios}")
    measured = runs + ([original] if original else [])
    eager_calls = max(m["eager"].number for m in measured)
    report.text.update(
        sizes=sizes_text([m["batch_size"] for m in runs]), n_sizes=str(len(runs)),
        batch_small=f"{small['batch_size']:,}", batch_large=f"{large['batch_size']:,}",
        batch_train=f"{config.batch_size:,}",
        ratio_small=ratio(small), ratio_large=ratio(large), ratio_train=ratio(train),
        ratio_train_range=fmt_ratio_range(train["eager"], train["jit"]),
        ratio_nocompile_train=ratio(train, "eager_same_i"),
        ratio_nocompile_train_range=fmt_ratio_range(train["eager_same_i"],
                                                     train["jit"]),
        jit_train=fmt_seconds(train["jit"].median),
        eager_train=fmt_seconds(train["eager"].median),
        eager_same_i_train=fmt_seconds(train["eager_same_i"].median),
        jit_large=fmt_seconds(large["jit"].median),
        eager_large=fmt_seconds(large["eager"].median),
        eager_compile_per_call=fmt_seconds(train["compile_s_per_eager_call"]),
        same_i_saving=same_i_saving(train),
        repeats=str(len(small["jit"].samples)),
        rounds=(f"{rounds[0]} rounds" if rounds[0] == rounds[1] else
                f"{rounds[0]} to {rounds[1]} rounds, until one moved no quartile by "
                f"over {SETTLED:.0%} of its median"),
        eager_sample=("a single call" if eager_calls == 1 else
                      f"the mean of up to {eager_calls} calls"),
        jit_steady_calls=f"{sum(m['calls']['jit'] for m in runs):,}",
        eager_grows=eager_order(runs),
        width=str(config.width), depth=str(config.depth), latent=str(config.latent),
        n_sensors=str(config.n_sensors), ics_weight=f"{ICS_WEIGHT:g}",
        learning_rate=f"{LEARNING_RATE:g}")
    o = original
    report.text["original_summary"] = (
        "In quick mode the paper's network size is not measured." if not o else
        f"At the size of the paper's network ({o['config']['n_sensors']} sensors, "
        f"{o['config']['depth']} hidden layers of {o['config']['width']}, as plain "
        f"MLPs, at {o['batch_size']:,} points per loss term where the paper's notebook "
        f"uses 50,000) the jitted step took {fmt_seconds(o['jit'].median)} and the "
        f"ratio was {ratio(o)}.")
    report.text["original_ratio"] = ratio(o) if o else "not measured in quick mode"


def eager_order(runs):
    """Whether the un-jitted medians grew with the batch; where a larger batch was
    faster, whether that order is within the noise (interquartile ranges overlap)."""
    swaps = [(a, b) for a, b in zip(runs, runs[1:])
             if b["eager"].median <= a["eager"].median]
    if not swaps:
        return "grew with the batch at every step of the curve"
    medians = ", ".join(fmt_seconds(m["eager"].median) for m in runs)
    beyond = [(a, b) for a, b in swaps if b["eager"].q3 < a["eager"].q1]
    if not beyond:
        return (f"did not grow at every step of the curve ({medians}), but wherever a "
                "larger batch was faster, the two interquartile ranges overlap: an "
                "order within the noise")
    a, b = beyond[0]
    return (f"did not grow at every step of the curve ({medians}): at "
            f"{a['batch_size']:,} points the un-jitted step was slower than at "
            f"{b['batch_size']:,}, beyond both interquartile ranges")


def as_data(m):
    return {k: v.as_dict() if hasattr(v, "as_dict") else v for k, v in m.items()}


def scaling_figure(runs, original, train):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    sizes = [m["batch_size"] for m in runs]
    mid, low, high = np.array([ratio_range(m["eager"], m["jit"]) for m in runs]).T
    ax.errorbar(sizes, mid, yerr=[mid - low, high - mid], marker="o", capsize=3,
                label="un-jitted, Python int i (as in training)")
    color = ax.lines[-1].get_color()
    same_mid, same_low, same_high = ratio_range(train["eager_same_i"], train["jit"])
    ax.errorbar([train["batch_size"]], [same_mid],
                yerr=[[same_mid - same_low], [same_high - same_mid]], marker="s",
                capsize=3, linestyle="none", label=SAME_I)
    ratios = [fmt_ratio(r) for r in mid]
    alt = ("Log-log plot of the un-jitted step time divided by the jitted one against "
           f"the batch size, {sizes_text(sizes)} points per loss term. With a Python "
           "int i the ratio goes " + ", ".join(ratios) + "; with the same i every "
           f"call, measured at {train['batch_size']:,} points only, "
           f"{fmt_ratio(same_mid)}.")
    caption = "Ratio of medians; bars span both interquartile ranges."
    if original:
        o_mid = original["eager"].median / original["jit"].median
        ax.plot([original["batch_size"]], [o_mid], marker="o", linestyle="none",
                markersize=9, markerfacecolor="none", color=color)
        alt += (" Hollow marker: the paper's network size at "
                f"{original['batch_size']:,} points, {fmt_ratio(o_mid)}.")
        caption += " Hollow marker: the paper's network size."
    log_log_axes(ax, "points per loss term (batch size)",
                 "un-jitted step time / jitted step time",
                 "PI-DeepONet training step: how much faster with jit")
    return Figure(fig, alt, caption)


def break_even(first, train):
    """Steps after which jit is ahead: on its compile cost alone, from a cold start."""
    saving = train["eager"].median - train["jit"].median
    jit_first = Timing(first["totals"], 1).median  # each cold first call's total
    if saving <= 0:  # not expected; say so rather than divide by it
        return None, None, jit_first
    repay = math.ceil((first["first"]["trace_and_lower"] + first["first"]["compile"])
                      / saving)
    behind = jit_first - first["eager_first"]
    cold = 1 if behind <= 0 else 1 + math.ceil(behind / saving)
    return repay, cold, jit_first


def fmt_steps(steps):
    return "never: the jitted step was not faster" if steps is None else f"{steps:,}"


def report_first_call(report, first, train):
    repay, cold, jit_first = break_even(first, train)
    f, no = first["first"], first["no_ynn"]
    totals = Timing(first["totals"], 1)
    # several cold first calls: stage medians, and the totals' median with their IQR
    several = len(first["totals"]) > 1
    total = fmt_timing(totals) if several else fmt_seconds(jit_first)
    scope = (f"median of {len(first['totals'])} cold first calls" if several
             else "one cold first call")
    not_measured = "not measured in quick mode"  # a second compilation of the step
    report.tables["first_call"] = markdown_table(
        [f"batch of {train['batch_size']:,} points per loss term ({scope})", "time"],
        [["trace and lower (Python → jaxpr → StableHLO)",
          fmt_seconds(f["trace_and_lower"])],
         ["XLA compile", fmt_seconds(f["compile"])],
         [f"first execution (builds {f['ynn_fusions']} YNNPACK runtimes)",
          fmt_seconds(f["first_execution"])],
         ["**first jitted step, total**", f"**{total}**"],
         ["second execution", fmt_seconds(f["second_execution"])],
         ["steady jitted step (median)", fmt_seconds(train["jit"].median)],
         ["compiled without YNNPACK fusions: first, second execution",
          not_measured if no is None else fmt_seconds(no["first_execution"]) + ", "
          + fmt_seconds(no["second_execution"])],
         [f"first un-jitted step ({first['eager_first_compiles']} compilations)",
          fmt_seconds(first["eager_first"])],
         ["steady un-jitted step (median)", fmt_seconds(train["eager"].median)],
         ["steps until the time saved repays trace + compile", fmt_steps(repay)],
         ["steps until jit is ahead, first calls included", fmt_steps(cold)]])
    a = first["agreement"]
    report.data["agreement"] = a
    report.data["first_call"] = {
        **f, "no_ynn": no, "jit_first": jit_first, "total": totals.as_dict(),
        "repay_compile_steps": repay,
        "cold_start_steps": cold, **{k: first[k] for k in (
            "eager_first", "eager_first_compiles", "eager_first_compile_s")}}
    report.text.update(
        max_difference=f"{a['max_difference']:.1e}", max_step=f"{a['max_step']:.1e}",
        trace_and_lower=fmt_seconds(f["trace_and_lower"]),
        compile=fmt_seconds(f["compile"]), jit_first=total,
        first_call_scope=scope,
        first_execution=fmt_seconds(f["first_execution"]),
        second_execution=fmt_seconds(f["second_execution"]),
        ynn_fusions=str(f["ynn_fusions"]),
        no_ynn_first_execution=no and fmt_seconds(no["first_execution"])
        or not_measured,
        no_ynn_second_execution=no and fmt_seconds(no["second_execution"])
        or not_measured,
        eager_first=fmt_seconds(first["eager_first"]),
        eager_first_compiles=str(first["eager_first_compiles"]),
        eager_first_compile_s=fmt_seconds(first["eager_first_compile_s"]),
        break_even=break_even_sentence(repay, cold))


def break_even_sentence(repay, cold):
    """One sentence, since it reads differently when the jitted step never wins."""
    if repay is None:
        return ("The jitted step was not faster here, so trace and compile are never "
                "repaid.")
    ahead = "from the very first step" if cold == 1 else f"after {cold:,} steps"
    return (f"So trace and compile are repaid after {repay:,} steps, and counting "
            f"both first calls, the jitted version is ahead {ahead}.")


def report_training(report, log, errors, seconds, config):
    report.data["training"] = {"log": log, "seconds": seconds, "steps": config.steps,
                               "errors": errors.tolist()}
    report.figures["loss_curve"] = loss_figure(log)
    every = max(len(log) // 8, 1)
    shown = log[::every] + ([log[-1]] if (len(log) - 1) % every else [])
    report.tables["loss"] = markdown_table(
        ["step", "initial condition", "boundary (periodic)", "PDE residual"],
        [[f"{r['step']:,}", f"{r['ics']:.2e}", f"{r['bcs']:.2e}", f"{r['res']:.2e}"]
         for r in shown])
    report.text.update(
        steps=f"{config.steps:,}", train_seconds=fmt_seconds(seconds),
        train_per_step=fmt_seconds(seconds / config.steps),
        n_functions=f"{config.n_functions:,}", n_test=f"{config.n_test:,}",
        error_mean=f"{errors.mean():.1%}", error_median=f"{np.median(errors):.1%}",
        error_max=f"{errors.max():.1%}")
    report.tables["accuracy"] = markdown_table(
        ["held-out initial conditions", "mean", "median", "largest"],
        [[f"{config.n_test:,}, not used in training", report.text["error_mean"],
          report.text["error_median"], report.text["error_max"]]])


def loss_figure(log):
    import matplotlib.pyplot as plt

    steps = [r["step"] for r in log]
    fig, ax = plt.subplots()
    for key, label in (("ics", "initial condition"), ("bcs", "boundary (periodic)"),
                       ("res", "PDE residual")):
        ax.plot(steps, [r[key] for r in log], label=label, linewidth=1)
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel("mean squared error on the step's batch")
    ax.set_title("PI-DeepONet, heat equation: each loss term during training")
    ax.legend()
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    first, last = log[0], log[-1]
    alt = (f"Log-scale plot of the three loss terms over {last['step']:,} training "
           f"steps: initial condition from {first['ics']:.2g} to {last['ics']:.2g}, "
           f"periodic boundary from {first['bcs']:.2g} to {last['bcs']:.2g}, PDE "
           f"residual from {first['res']:.2g} to {last['res']:.2g}. The curves are "
           "noisy because each point is measured on that step's random batch.")
    return Figure(fig, alt, "Each term of the loss, on the batch of that step.")


PLOT_TIMES = (0.0, 0.2, 0.5, 1.0)  # on the error grid's time axis


def report_prediction(report, errors, t, x, predicted, exact):
    """Prediction against the exact solution, for the held-out input of median error."""
    import matplotlib.pyplot as plt

    example = int(np.argsort(errors)[len(errors) // 2])
    fig, ax = plt.subplots()
    rows = []
    for time_ in PLOT_TIMES:
        k = int(np.argmin(np.abs(t - time_)))
        net, true = predicted[example, k], exact[example, k]
        line, = ax.plot(x, true, label=f"exact, t = {t[k]:.2g}")
        ax.plot(x, net, "--", color=line.get_color(), label=f"network, t = {t[k]:.2g}")
        rows.append([f"{t[k]:.2g}", f"{np.abs(true).max():.3f}",
                     f"{np.abs(net - true).max():.3f}",
                     f"{np.linalg.norm(net - true) / np.linalg.norm(true):.1%}"])
    ax.set_xlabel("x")
    ax.set_ylabel("s(t, x)")
    ax.set_title(f"Held-out input {example}: network (dashed), exact solution (solid)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    alt = ("Four pairs of curves of s against x, at t = "
           + ", ".join(r[0] for r in rows) + f", for held-out input {example} "
           f"(relative L2 error {errors[example]:.1%} "
           "over the whole grid): the exact solution flattens as it diffuses; the "
           "network's dashed curves have relative L2 errors of "
           + ", ".join(f"{r[3]} at t = {r[0]}" for r in rows) + ".")
    report.figures["prediction"] = Figure(
        fig, alt, "Solid: the exact solution; dashed: the trained network; one colour "
        "per time.")
    report.tables["prediction"] = markdown_table(
        ["t", "largest exact value (absolute)", "largest error (absolute)",
         "relative L2 error"], rows)
    report.text.update(example=str(example), example_error=f"{errors[example]:.1%}",
                       grid=f"{len(t)} × {len(x)}")


def report_build_time(report, seconds, workers):
    """Where this snippet's own time went: measured, for the page to say."""
    report.data["seconds"] = seconds
    report.text["build_time"] = (
        f"Measuring took {fmt_seconds(seconds['total'])}: first calls "
        f"{fmt_seconds(seconds['first_calls'])}, warm-up "
        f"{fmt_seconds(seconds['warm_up'])} ({workers} at a time), samples "
        f"{fmt_seconds(seconds['samples'])}, training and its check "
        f"{fmt_seconds(seconds['training'])}.")
