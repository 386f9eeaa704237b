"""The PI-DeepONet training step measured: jitted against the same code run op by op.

    python snippets/deeponet_benchmark.py            # full size: the tables for your machine
    python snippets/deeponet_benchmark.py --quick    # small sizes, fewer repeats

Also trains the network briefly and checks it against the heat equation's exact solution.
"""

import itertools
import math
import time
from functools import partial

import jax
import numpy as np

from deeponet import (DEFAULT, ICS_WEIGHT, LEARNING_RATE, SMALL, PIDeepONet, exact_solution,
                      make_batches, predict, random_functions, relative_l2_errors, test_grid)
from measurement import (Figure, Report, fmt_ratio, fmt_ratio_range, fmt_seconds, fmt_timing,
                         main, markdown_table, stopwatch, time_call)


def settings(quick):
    config = SMALL if quick else DEFAULT
    return {"config": config, "batch_sizes": (config.batch_size, 10 * config.batch_size),
            "jit_repeats": 5 if quick else 9, "eager_repeats": 3 if quick else 5,
            "min_sample": 0.002 if quick else 0.01, "log_every": 10 if quick else 20}


# --8<-- [start:eager_step]
def eager_step(model):
    """The step's own Python function, before jit wrapped it: the same code, run op by op."""
    return partial(PIDeepONet.step.__wrapped__, model)
# --8<-- [end:eager_step]


class CompileCounter:
    """Counts XLA compilations, and the seconds spent tracing, lowering and compiling."""

    COMPILE = "/jax/core/compile/backend_compile_duration"
    STAGES = ("/jax/core/compile/jaxpr_trace_duration",
              "/jax/core/compile/jaxpr_to_mlir_module_duration", COMPILE)

    def __enter__(self):
        self.count, self.seconds = 0, 0.0
        jax.monitoring.register_event_duration_secs_listener(self._listen)
        return self

    def _listen(self, event, seconds, **kwargs):
        self.count += event == self.COMPILE
        self.seconds += seconds if event in self.STAGES else 0.0

    def __exit__(self, *exc):
        jax.monitoring.unregister_event_duration_listener(self._listen)


# --8<-- [start:first_call]
def first_call_stages(model, opt_state, batches):
    """The jitted step's first call, stage by stage (seconds)."""
    t0 = time.perf_counter()
    traced = PIDeepONet.step.trace(model, 0, opt_state, *batches)  # self is static
    lowered = traced.lower()  # jaxpr -> StableHLO
    t1 = time.perf_counter()
    compiled = lowered.compile()  # XLA -> machine code; later model.step calls reuse it
    t2 = time.perf_counter()
    jax.block_until_ready(compiled(0, opt_state, *batches))  # self is not passed again
    t3 = time.perf_counter()
    return {"trace_and_lower": t1 - t0, "compile": t2 - t1, "first_execution": t3 - t2}
# --8<-- [end:first_call]


def measure_batch_size(model, functions, batch_size, s, first_calls):
    """Steady-state steps, jitted and un-jitted, at one batch size. With `first_calls`, the
    first call of each is measured before, from cold caches."""
    if first_calls:
        jax.clear_caches()  # nothing compiled so far counts: both first calls start cold
    batches = make_batches(jax.random.key(10 + batch_size), functions, batch_size)
    result = {"batch_size": batch_size}
    # --8<-- [start:timed_steps]
    state = model.opt_state
    eager = eager_step(model)
    if first_calls:
        result["first"] = first_call_stages(model, state, batches)
        with CompileCounter() as compiles:  # op by op, each primitive compiles for its shapes
            result["eager_first"], eager_state = stopwatch(
                lambda: jax.block_until_ready(eager(0, state, *batches)))
        result["eager_first_compiles"] = compiles.count
        result["eager_first_compile_s"] = compiles.seconds
        result["agreement"] = agreement(model, state, model.step(0, state, *batches), eager_state)

    jit_i = itertools.count(1)  # a new Python int i for every call, as in training
    with CompileCounter() as jit_compiles:
        result["jit"] = time_call(
            lambda: jax.block_until_ready(model.step(next(jit_i), state, *batches)),
            repeats=s["jit_repeats"], warmup=1, min_sample_s=s["min_sample"])
    eager_i = itertools.count(1)
    with CompileCounter() as eager_compiles:
        result["eager"] = time_call(
            lambda: jax.block_until_ready(eager(next(eager_i), state, *batches)),
            repeats=s["eager_repeats"], warmup=0 if first_calls else 1,
            min_sample_s=s["min_sample"])
    # --8<-- [end:timed_steps]
    eager_calls = next(eager_i) - 1
    result["jit_steady_calls"] = next(jit_i) - 2  # after the warm-up call
    result["jit_steady_compiles"] = jit_compiles.count - (0 if first_calls else 1)
    result["eager_compiles_per_call"] = eager_compiles.count / eager_calls
    result["eager_compile_s_per_call"] = eager_compiles.seconds / eager_calls
    return result


def agreement(model, before, jitted, eager):
    """How far apart one jitted and one un-jitted step leave the parameters."""
    leaves = [jax.tree.leaves(model.get_params(x)) for x in (before, jitted, eager)]
    start, jit_p, eager_p = ([np.asarray(a) for a in group] for group in leaves)
    return {"max_difference": max(float(np.abs(a - b).max()) for a, b in zip(jit_p, eager_p)),
            "max_step": max(float(np.abs(a - b).max()) for a, b in zip(jit_p, start)),
            "allclose": all(np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(jit_p, eager_p))}


def break_even(m):
    """Steps after which jit is ahead: on its compile cost alone, and from a cold start."""
    saving = m["eager"].median - m["jit"].median
    jit_first = sum(m["first"].values())
    if saving <= 0:  # not expected; say so rather than divide by it
        return {"repay_compile_steps": None, "cold_start_steps": None, "jit_first": jit_first}
    repay = (m["first"]["trace_and_lower"] + m["first"]["compile"]) / saving
    cold = 1 if jit_first <= m["eager_first"] else 1 + math.ceil((jit_first - m["eager_first"]) / saving)
    return {"repay_compile_steps": math.ceil(repay), "cold_start_steps": cold, "jit_first": jit_first}


def fmt_steps(steps):
    return "never: the jitted step was not faster" if steps is None else f"{steps:,}"


def measure(quick: bool) -> Report:
    """Time the PI-DeepONet step jitted and op by op; train briefly; check against the exact solution."""
    s = settings(quick)
    config, (small_b, large_b) = s["config"], s["batch_sizes"]
    key = jax.random.key(config.seed)
    train_key, test_key, loop_key = jax.random.split(key, 3)
    functions = random_functions(train_key, config.n_functions, config.n_sensors)
    held_out = random_functions(test_key, config.n_test, config.n_sensors)
    model = PIDeepONet(config)

    # The training batch first, from cold caches; training then reuses its compiled step.
    runs = [measure_batch_size(model, functions, small_b, s, first_calls=True)]
    train_seconds, log = stopwatch(
        lambda: model.train(loop_key, functions, config.steps, log_every=s["log_every"]))
    errors = np.asarray(relative_l2_errors(model.params, held_out))
    t, x = test_grid()
    predicted = np.asarray(predict(model.params, held_out, t, x))  # the grid the errors used
    exact = np.asarray(exact_solution(held_out.coeffs[:, None, None], t, x))
    runs.append(measure_batch_size(model, functions, large_b, s, first_calls=False))

    report = Report()
    report_step_times(report, runs, config)
    report_first_call(report, runs[0])
    report_training(report, log, errors, train_seconds, config)
    report_prediction(report, errors, np.asarray(t[:, 0]), np.asarray(x[0]), predicted, exact)
    return report


def report_step_times(report, runs, config):
    report.tables["step_time"] = markdown_table(
        ["points per loss term", "un-jitted step", "jitted step", "un-jitted / jitted"],
        [[f"{m['batch_size']:,}", fmt_timing(m["eager"]), fmt_timing(m["jit"]),
          fmt_ratio_range(m["eager"], m["jit"])] for m in runs])
    report.data["runs"] = [{**m, "jit": m["jit"].as_dict(), "eager": m["eager"].as_dict()}
                           for m in runs]
    small, large = runs
    report.text.update(
        batch_small=f"{small['batch_size']:,}", batch_large=f"{large['batch_size']:,}",
        jit_small=fmt_seconds(small["jit"].median), eager_small=fmt_seconds(small["eager"].median),
        jit_large=fmt_seconds(large["jit"].median), eager_large=fmt_seconds(large["eager"].median),
        ratio_small=fmt_ratio(small["eager"].median / small["jit"].median),
        ratio_small_range=fmt_ratio_range(small["eager"], small["jit"]),
        ratio_large=fmt_ratio(large["eager"].median / large["jit"].median),
        ratio_large_range=fmt_ratio_range(large["eager"], large["jit"]),
        jit_repeats=str(len(small["jit"].samples)), eager_repeats=str(len(small["eager"].samples)),
        jit_steady_compiles=str(small["jit_steady_compiles"] + large["jit_steady_compiles"]),
        jit_steady_calls=f"{small['jit_steady_calls'] + large['jit_steady_calls']:,}",
        eager_compiles_per_call=f"{small['eager_compiles_per_call']:.2g}",
        eager_compile_per_call=fmt_seconds(small["eager_compile_s_per_call"]),
        width=str(config.width), depth=str(config.depth), latent=str(config.latent),
        n_sensors=str(config.n_sensors), ics_weight=f"{ICS_WEIGHT:g}", learning_rate=f"{LEARNING_RATE:g}",
    )


def report_first_call(report, m):
    b = break_even(m)
    first = m["first"]
    report.tables["first_call"] = markdown_table(
        [f"batch of {m['batch_size']:,} points per loss term", "time"],
        [["trace and lower (Python → jaxpr → StableHLO)", fmt_seconds(first["trace_and_lower"])],
         ["XLA compile", fmt_seconds(first["compile"])],
         ["first execution", fmt_seconds(first["first_execution"])],
         ["**first jitted step, total**", f"**{fmt_seconds(b['jit_first'])}**"],
         ["steady jitted step (median)", fmt_seconds(m["jit"].median)],
         [f"first un-jitted step ({m['eager_first_compiles']} primitive compilations)",
          fmt_seconds(m["eager_first"])],
         ["steady un-jitted step (median)", fmt_seconds(m["eager"].median)],
         ["steps until the time saved per step repays trace + compile",
          fmt_steps(b["repay_compile_steps"])],
         ["steps until jit is ahead, first calls included", fmt_steps(b["cold_start_steps"])]])
    report.data["agreement"] = m["agreement"]
    report.text.update(max_difference=f"{m['agreement']['max_difference']:.1e}",
                       max_step=f"{m['agreement']['max_step']:.1e}")
    report.data["first_call"] = {**first, **b, "eager_first": m["eager_first"],
                                 "eager_first_compiles": m["eager_first_compiles"],
                                 "eager_first_compile_s": m["eager_first_compile_s"]}
    report.text.update(
        trace_and_lower=fmt_seconds(first["trace_and_lower"]),
        compile=fmt_seconds(first["compile"]),
        first_execution=fmt_seconds(first["first_execution"]),
        jit_first=fmt_seconds(b["jit_first"]),
        eager_first=fmt_seconds(m["eager_first"]),
        eager_first_compiles=str(m["eager_first_compiles"]),
        eager_first_compile_s=fmt_seconds(m["eager_first_compile_s"]),
        repay_steps=fmt_steps(b["repay_compile_steps"]),
        cold_start=("never: the jitted step was not faster" if b["cold_start_steps"] is None
                    else "from the very first step" if b["cold_start_steps"] == 1
                    else f"after {b['cold_start_steps']:,} steps"),
    )


def report_training(report, log, errors, seconds, config):
    report.data["training"] = {"log": log, "seconds": seconds, "steps": config.steps,
                               "errors": errors.tolist()}
    report.figures["loss_curve"] = loss_figure(log)
    every = max(len(log) // 8, 1)
    shown = log[::every] + ([log[-1]] if (len(log) - 1) % every else [])
    report.tables["loss"] = markdown_table(
        ["step", "initial condition", "boundary (periodic)", "PDE residual"],
        [[f"{r['step']:,}", f"{r['ics']:.2e}", f"{r['bcs']:.2e}", f"{r['res']:.2e}"] for r in shown])
    first, last = log[0], log[-1]
    report.text.update(
        steps=f"{config.steps:,}", train_seconds=fmt_seconds(seconds),
        train_per_step=fmt_seconds(seconds / config.steps),
        batch_train=f"{config.batch_size:,}", n_functions=f"{config.n_functions:,}",
        n_test=f"{config.n_test:,}",
        error_mean=f"{errors.mean():.1%}", error_median=f"{np.median(errors):.1%}",
        error_max=f"{errors.max():.1%}",
        **{f"loss_{k}_{when}": f"{row[k]:.2g}" for k in ("ics", "bcs", "res")
           for when, row in (("first", first), ("last", last))},
    )
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
    alt = (f"Log-scale plot of the three loss terms over {last['step']:,} training steps: "
           f"initial condition from {first['ics']:.2g} to {last['ics']:.2g}, periodic boundary "
           f"from {first['bcs']:.2g} to {last['bcs']:.2g}, PDE residual from {first['res']:.2g} "
           f"to {last['res']:.2g}. The curves are noisy because each point is measured on that "
           f"step's random batch.")
    return Figure(fig, alt, "Each term of the loss, on the batch of that step.")


PLOT_TIMES = (0.0, 0.2, 0.5, 1.0)  # on the error grid's time axis


def report_prediction(report, errors, t, x, predicted, exact):
    """Prediction against the exact solution, for the held-out input with the median error."""
    import matplotlib.pyplot as plt

    example = int(np.argsort(errors)[len(errors) // 2])
    fig, ax = plt.subplots()
    rows = []
    for time_ in PLOT_TIMES:
        k = int(np.argmin(np.abs(t - time_)))
        net, true = predicted[example, k], exact[example, k]
        line, = ax.plot(x, true, label=f"exact, t = {t[k]:.2g}")
        ax.plot(x, net, "--", color=line.get_color(), label=f"network, t = {t[k]:.2g}")
        rows.append([f"{t[k]:.2g}", f"{np.abs(true).max():.3f}", f"{np.abs(net - true).max():.3f}",
                     f"{np.linalg.norm(net - true) / np.linalg.norm(true):.1%}"])
    ax.set_xlabel("x")
    ax.set_ylabel("s(t, x)")
    ax.set_title(f"Held-out input {example}: network (dashed) against exact solution (solid)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    alt = ("Four pairs of curves of s against x, at t = "
           + ", ".join(r[0] for r in rows) + f", for held-out input {example} (relative L2 error "
           f"{errors[example]:.1%} over the whole grid): the exact solution flattens as it "
           f"diffuses; the network's dashed curves have relative L2 errors of "
           + ", ".join(f"{r[3]} at t = {r[0]}" for r in rows) + ".")
    report.figures["prediction"] = Figure(
        fig, alt, "Solid: the exact solution; dashed: the trained network; one colour per time.")
    report.tables["prediction"] = markdown_table(
        ["t", "largest exact value (absolute)", "largest error (absolute)", "relative L2 error"], rows)
    report.text.update(example=str(example), example_error=f"{errors[example]:.1%}",
                       grid=f"{len(t)} × {len(x)}")


if __name__ == "__main__":
    main(measure)
