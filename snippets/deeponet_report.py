"""Tables, verdicts and figures of the DeepONet page, from deeponet_benchmark's data.

Nothing here measures: `report(data)` reads only the numbers deeponet_benchmark.py
measured (so the tests can re-derive it from changed numbers), and each figure is drawn
for each edition with that edition's words (`FIGURES`).
"""

import math

import numpy as np

from measurement import (Report, Table, bold, compare, log_log_axes, ratio_of,
                         machine_state, seconds, timing, trend, word)

PLOT_TIMES = (0.0, 0.2, 0.5, 1.0)  # on the error grid's time axis
JIT, EAGER, NEW_I = "jit_step", "eager_step", "eager_new_i"  # compare()'s names


def median(t):
    return t["median"]


def train_index(data):
    """Where the chapter's batch size is in the curve over batch sizes."""
    return data["scaling"]["batch"].index(data["config"]["batch_size"])


def step_verdicts(data):
    """Jitted against un-jitted (the same i every call: nothing compiles) at each batch
    size (step_<batch>); against un-jitted with a new i every call, as in training,
    and what that costs; the trends of the ratio and of the un-jitted medians over
    the batch sizes."""
    s, i = data["scaling"], train_index(data)
    verdicts = {f"step_{b}": compare(
        s["eager"][k], s["jit"][k], (EAGER, JIT),
        (f"scaling.eager.{k}", f"scaling.jit.{k}"), expect=JIT)
        for k, b in enumerate(s["batch"])}
    verdicts["step_new_i"] = compare(
        data["new_i"]["eager"], s["jit"][i], (NEW_I, JIT),
        ("new_i.eager", f"scaling.jit.{i}"), expect=JIT)
    verdicts["new_i_cost"] = compare(
        data["new_i"]["eager"], s["eager"][i], (NEW_I, EAGER),
        ("new_i.eager", f"scaling.eager.{i}"))
    ratios = [median(e) / median(j) for e, j in zip(s["eager"], s["jit"])]
    verdicts["ratio_trend"] = {**trend(ratios), "ratios": ratios}
    verdicts["eager_trend"] = trend([median(t) for t in s["eager"]], "scaling.eager")
    verdicts.update(eager_pairs(s))
    return verdicts


def eager_pairs(s):
    """The un-jitted medians at each pair of neighbouring batch sizes (eager_<a>_<b>):
    winner "smaller_batch" where the median rose past the spread; "same" where the two
    lie inside each other's spread; "larger_batch" where it fell past it."""
    return {f"eager_{a}_{b}": compare(
        s["eager"][k], s["eager"][k + 1], ("smaller_batch", "larger_batch"),
        (f"scaling.eager.{k}", f"scaling.eager.{k + 1}"))
        for k, (a, b) in enumerate(zip(s["batch"], s["batch"][1:]))}


def first_call_verdicts(data):
    """The first execution against the second; YNNPACK's fusions, with and without
    the option; the same step compiled without them (its first and its second
    execution against the step's own); when jit is ahead."""
    f = data["first_call"]
    no = f["no_ynn"]
    verdicts = {"executions": compare(
        f["first_execution"], f["second_execution"],
        ("first_execution", "second_execution"),
        ("first_call.first_execution", "first_call.second_execution"))}
    without = no["ynn_fusions"] if no else None
    verdicts["ynn"] = {"kind": "none" if not f["ynn_fusions"] else "kept" if without
                       else "present", "fusions": f["ynn_fusions"], "without": without}
    if no:
        verdicts["no_ynn_first"] = compare(
            no["first_execution"], f["first_execution"], ("no_ynn", "ynn"),
            ("first_call.no_ynn.first_execution", "first_call.first_execution"))
        verdicts["no_ynn_second"] = compare(
            no["second_execution"], f["second_execution"], ("no_ynn", "ynn"),
            ("first_call.no_ynn.second_execution", "first_call.second_execution"))
    verdicts["break_even"] = break_even(data)
    return verdicts


def break_even(data):
    """Steps after which jit is ahead: on its compile cost alone ("repay_steps"), and
    from a cold start, both first calls counted ("cold_start_steps"). Kind "never"
    where the jitted step saved nothing per step."""
    f, s, i = data["first_call"], data["scaling"], train_index(data)
    saving = median(s["eager"][i]) - median(s["jit"][i])
    if saving <= 0:
        return {"kind": "never", "saving": saving}
    behind = median(f["total"]) - f["eager_first"]
    return {"kind": "repaid", "saving": saving,
            "repay_steps": math.ceil((f["trace_and_lower"] + f["compile"]) / saving),
            "cold_start_steps": 1 if behind <= 0 else 1 + math.ceil(behind / saving)}


def step_table(data):
    s, i, new = data["scaling"], train_index(data), data["new_i"]
    rows = []
    for k, b in enumerate(s["batch"]):
        rows.append([b, timing(s["jit"][k]), timing(s["eager"][k]),
                     ratio_of(s["eager"][k], s["jit"][k])])
        if k == i:
            rows.append([word("new_i_row", n=b), timing(s["jit"][k]),
                         timing(new["eager"]), ratio_of(new["eager"], s["jit"][k])])
    return Table(["points", "jit_step", "eager_step", "ratio"], rows)


def first_call_table(data, even):
    f, s, i = data["first_call"], data["scaling"], train_index(data)
    no, status = f["no_ynn"], f["no_ynn_status"]
    several = f["count"] > 1  # the totals' median with their IQR; one call: its time

    def steps(key):
        return even[key] if even["kind"] == "repaid" else word("never")

    rows = [[word("trace_and_lower"), seconds(f["trace_and_lower"])],
            [word("compile"), seconds(f["compile"])],
            [word("first_execution_ynn", fusions=f["ynn_fusions"]) if f["ynn_fusions"]
             else word("first_execution"), seconds(f["first_execution"])],
            [bold(word("first_total_median" if several else "first_total")),
             bold(timing(f["total"]) if several else seconds(median(f["total"])))],
            [word("second_execution"), seconds(f["second_execution"])],
            [word("steady_jit"), seconds(median(s["jit"][i]))]]
    if no:
        rows += [[word("no_ynn_first"), seconds(no["first_execution"])],
                 [word("no_ynn_second"), seconds(no["second_execution"])]]
    else:  # quick mode, another backend, or a jaxlib that refused the option
        error = {"error": f["no_ynn_error"]} if status == "refused" else {}
        rows.append([word("no_ynn"), word(f"no_ynn_{status}", **error)])
    rows += [[word("eager_first", compilations=f["eager_first_compiles"]),
              seconds(f["eager_first"])],
             [word("steady_eager"), seconds(median(s["eager"][i]))],
             [word("repay_steps"), steps("repay_steps")],
             [word("cold_start_steps"), steps("cold_start_steps")]]
    return Table(["stage_several" if several else "stage_one", "time"], rows,
                 {"batch": data["config"]["batch_size"], "count": f["count"]})


def percent(fraction):
    """A percentage cell each edition words ("92.1 %", "92.1%")."""
    return word("percent_cell", value=round(100 * fraction, 1))


def training_tables(data):
    log, errors = data["training"]["log"], data["training"]["errors"]
    every = max(len(log) // 8, 1)
    shown = log[::every] + ([log[-1]] if (len(log) - 1) % every else [])
    p = data["prediction"]
    return {
        "loss": Table(["step", "ics", "bcs", "res"],
                      [[r["step"], r["ics"], r["bcs"], r["res"]] for r in shown]),
        "accuracy": Table(["held_out", "mean", "median", "largest"],
                          [[word("held_out_row", n=len(errors)),
                            percent(np.mean(errors)), percent(np.median(errors)),
                            percent(max(errors))]]),
        "prediction": Table(
            ["t", "exact_max", "error_max", "relative_error"],
            [[round(t, 3), round(e, 3), round(d, 3), percent(r)] for t, e, d, r in zip(
                p["t"], p["exact_max"], p["error_max"], p["relative_error"])]),
    }


def rounds(data):
    """How many rounds each process sampled the steps for (all in turns, so each
    timing's samples are rounds x processes): "fixed" (no settling allowed: min is max),
    "cap" (every process ran the most rounds allowed: not every timing's spread
    had settled sooner) or "settled" (some process stopped before the cap)."""
    r, s = data["rounds"], data["scaling"]
    timings = [*s["jit"], *s["eager"], data["new_i"]["eager"]]
    cap = all(len(t["samples"]) == r["max"] * data["processes"] for t in timings)
    return {"kind": "fixed" if r["min"] == r["max"] else "cap" if cap else "settled"}


def donation(data):
    """What became of the donated batches' arrays: listed in the warning (unusable,
    left intact), deleted (an output took their memory), or neither: `unread`, the
    arrays the step's jaxpr never reads, which jit drops (keep_unused=False), so never
    donated (the fact deeponet.unread_batches_not_donated holds the three to the
    count). Kind "not_measured" where quick mode only lowered the step."""
    dn = data["donation"]
    if dn["deleted"] is None:
        return {"kind": "not_measured"}
    return {"kind": "measured", "unread": dn["unread"]}


def report(data: dict) -> Report:
    """The DeepONet page's tables and verdicts, from its data alone."""
    verdicts = {**step_verdicts(data), **first_call_verdicts(data),
                "machine_state": machine_state(data["checks"], data["processes"]),
                "rounds": rounds(data), "donation": donation(data)}
    tables = {"step_time": step_table(data),
              "first_call": first_call_table(data, verdicts["break_even"]),
              **training_tables(data)}
    return Report(tables=tables, verdicts=verdicts)


# ---------------------------------------------------------------- figures


def ratio_bars(slow, fast):
    """Median ratio and the distances to the range over both interquartile ranges."""
    mid = median(slow) / median(fast)
    return mid, [[mid - slow["q1"] / fast["q3"]], [slow["q3"] / fast["q1"] - mid]]


def scaling_figure(data, words):
    """The un-jitted / jitted ratio against the batch size."""
    import matplotlib.pyplot as plt

    s, i = data["scaling"], train_index(data)
    fig, ax = plt.subplots()
    bars = [ratio_bars(e, j) for e, j in zip(s["eager"], s["jit"])]
    ax.errorbar(s["batch"], [m for m, _ in bars],
                yerr=np.hstack([np.array(b) for _, b in bars]), marker="o", capsize=3,
                label=words["same_i"])
    mid, bar = ratio_bars(data["new_i"]["eager"], s["jit"][i])
    ax.errorbar([s["batch"][i]], [mid], yerr=bar, marker="s", capsize=3,
                linestyle="none", label=words["new_i"])
    log_log_axes(ax, words["xlabel"], words["ylabel"], words["title"])
    return fig


def loss_figure(data, words):
    """Each loss term on its step's batch, over the training run."""
    import matplotlib.pyplot as plt

    log = data["training"]["log"]
    steps = [r["step"] for r in log]
    fig, ax = plt.subplots()
    for key in ("ics", "bcs", "res"):
        ax.plot(steps, [r[key] for r in log], label=words[key], linewidth=1)
    ax.set(yscale="log", xlabel=words["xlabel"], ylabel=words["ylabel"],
           title=words["title"])
    ax.legend()
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def prediction_figure(data, words):
    """The held-out input of median error: network (dashed) and exact (solid)."""
    import matplotlib.pyplot as plt

    p = data["prediction"]
    fig, ax = plt.subplots()
    for t, true, net in zip(p["t"], p["exact"], p["network"]):
        line, = ax.plot(p["x"], true, label=words["exact"].format(t=f"{t:.2g}"))
        ax.plot(p["x"], net, "--", color=line.get_color(),
                label=words["network"].format(t=f"{t:.2g}"))
    ax.set(xlabel="x", ylabel="s(t, x)",
           title=words["title"].format(example=p["example"]))
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


FIGURES = {"scaling": scaling_figure, "loss_curve": loss_figure,
           "prediction": prediction_figure}
