"""The designs of designing_for_jit.py measured: results, step times, compilations.

    python snippets/designing_for_jit_benchmark.py          # full size: your machine
    python snippets/designing_for_jit_benchmark.py --quick  # a tiny network, seconds
"""

import warnings

import jax
import jax.numpy as jnp

from deeponet import DEFAULT, ICS_WEIGHT
from designing_for_jit import (DESIGNS, TINY, Adam, ExplicitDeepONet, PytreeDeepONet,
                               example_batches, explicit_step,
                               explicit_step_donating, max_difference,
                               pytree_step_donating, trained_params,
                               which_weight_was_used)
from compilation import count_compilations
from measurement import (DocumentationMismatch, Report, fmt_ratio_range, fmt_seconds,
                         fmt_timing, main, markdown_table, stopwatch, time_calls)


STEP_NAMES = {"static_self": "jit(step)", "explicit": "jit(explicit_step)",
              "pytree": "jit(step)"}


def step_call(design, model, batches):
    """A function that runs one step of `model` from the same state and waits for it."""
    if design == "pytree":
        return lambda: jax.block_until_ready(model.step(0, *batches))
    return lambda: jax.block_until_ready(model.step(0, model.opt_state, *batches))


def measure(quick: bool) -> Report:
    """Train each design a few steps from one start; time steps and compilations."""
    config = TINY if quick else DEFAULT
    n_steps = 2 if quick else 5
    repeats, min_sample = (5, 0.002) if quick else (9, 0.01)
    batches = example_batches(config)
    report = Report()
    rows_times, rows_results, data = [], [], {}
    shown = report.text["designs"] = {}  # text.designs.<design>.first, .steady, ...
    params = {}

    # Times first: no design's step has been compiled yet in this process.
    models = {}
    for design, (_, make, _) in DESIGNS.items():
        model = models[design] = make(config)
        first, _ = stopwatch(step_call(design, model, batches))  # trace, compile, run
        if quick and design == "static_self":  # a second compilation: full size only
            second, programs = None, None
        else:
            second_model = make(config)  # another object, same settings: a cache hit?
            with count_compilations() as compiled:
                second, _ = stopwatch(step_call(design, second_model, batches))
            programs = 1 + compiled[STEP_NAMES[design]]
        data[design] = {"first_step": first, "second_model_first_step": second,
                        "compiled_programs": programs}
    steady = time_calls({d: step_call(d, models[d], batches) for d in DESIGNS},
                        repeats=repeats, min_sample_s=min_sample)
    for design, (label, _, _) in DESIGNS.items():
        first, second, programs = (
            data[design][k]
            for k in ("first_step", "second_model_first_step", "compiled_programs"))
        quick_text = "not measured in quick mode"
        second_text = quick_text if second is None else fmt_seconds(second)
        programs_text = quick_text if programs is None else str(programs)
        data[design]["steady"] = steady[design].as_dict()
        rows_times.append([label, fmt_seconds(first), fmt_timing(steady[design]),
                           second_text, programs_text])
        shown[design] = {"first": fmt_seconds(first),
                         "steady": fmt_seconds(steady[design].median),
                         "second": second_text, "programs": programs_text}

    # Then results: a few steps of each from the same start, and the changed weight.
    for design in DESIGNS:
        with count_compilations() as compiled:
            params[design] = trained_params(design, models[design], config, batches,
                                            n_steps)
        data[design]["new_programs_while_training"] = sum(compiled.values())
        used, d_old, d_new = which_weight_was_used(design, models[design], config,
                                                   batches)
        data[design].update(weight_used=used, distance_to_old_weight=d_old,
                            distance_to_new_weight=d_new)
        shown[design]["weight"] = used

    for design, (label, _, _) in DESIGNS.items():
        diff = max_difference(params["static_self"], params[design])
        data[design]["max_param_difference"] = diff
        reference = design == "static_self"
        rows_results.append([label, "0 (the reference)" if reference else f"{diff:.1e}",
                             f"the {data[design]['weight_used']} one"
                             + (" (stale)" if data[design]["weight_used"] == "old"
                                else "")])
        shown[design]["difference"] = f"{diff:.1e}"

    check_documented_behaviour(data)
    report_donation(report, donation(config, batches, repeats, min_sample, quick))
    steady = {d: data[d]["steady"]["median"] for d in DESIGNS}
    largest = max(data[d]["max_param_difference"] for d in DESIGNS)
    report.data.update(designs=data, config=vars(config), n_steps=n_steps)
    report.tables["times"] = markdown_table(
        ["design", "first step (trace + compile + run)", "steady-state step",
         "a second model's first step",
         "programs compiled for two models"], rows_times)
    report.tables["results"] = markdown_table(
        ["design", f"largest parameter difference from A after {n_steps} steps",
         f"after `ics_weight` changes from {ICS_WEIGHT:g} to 0, the next step uses"],
        rows_results)
    report.text.update(
        n_steps=str(n_steps), old_weight=f"{ICS_WEIGHT:g}", width=str(config.width),
        depth=str(config.depth),
        batch_size=f"{config.batch_size:,}", repeats=str(repeats),
        steady_spread=f"{max(steady.values()) / min(steady.values()) - 1:.0%}",
        steady_comparison=compare_steady({d: data[d]["steady"] for d in DESIGNS}),
        max_difference=largest and f"{largest:.1e}" or "0, bit for bit",
        new_programs_while_training=str(
            sum(data[d]["new_programs_while_training"] for d in DESIGNS)))
    return report


def donation(config, batches, repeats, min_sample, quick=False):
    """Chained steps of B and C (each step's output feeds the next), with and without
    donating the optimizer state, timed in turns. Quick mode compiles neither donating
    step: it lowers B's, which is where JAX would warn, and times nothing."""
    adam, weight = Adam(), ICS_WEIGHT
    if quick:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            state = ExplicitDeepONet(config).opt_state
            explicit_step_donating.trace(0, state, *batches, weight, adam).lower()
        unusable = [str(w.message) for w in caught if "donated" in str(w.message)]
        if unusable:
            raise DocumentationMismatch(
                "the page says donating the optimizer state lets XLA reuse all of it; "
                f"this JAX warned {unusable}")
        return None

    def copy(tree):  # a donating step deletes what it is given: each chain gets its own
        return jax.tree.map(jnp.copy, tree)

    def chain(step, start):
        box = [start]

        def call():
            box[0] = jax.block_until_ready(step(box[0]))
        return call

    state, model = ExplicitDeepONet(config).opt_state, PytreeDeepONet.create(config)
    calls = {
        ("explicit", False): chain(
            lambda s: explicit_step(0, s, *batches, weight, adam), copy(state)),
        ("explicit", True): chain(
            lambda s: explicit_step_donating(0, s, *batches, weight, adam),
            copy(state)),
        ("pytree", False): chain(lambda m: m.step(0, *batches), copy(model)),
        ("pytree", True): chain(lambda m: pytree_step_donating(m, 0, *batches),
                                copy(model))}
    given = copy(state)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explicit_step_donating(0, given, *batches, weight, adam)
        timings = time_calls(calls, repeats=repeats, min_sample_s=min_sample)
    unusable = [str(w.message) for w in caught if "donated" in str(w.message)]
    deleted = all(leaf.is_deleted() for leaf in jax.tree.leaves(given))
    if unusable or not deleted:
        raise DocumentationMismatch(
            "the page says donating the optimizer state lets XLA reuse all of it and "
            f"deletes the arrays given; this JAX warned {unusable}, deleted: {deleted}")
    return timings


def report_donation(report, timings):
    rows, data = [], {}
    if timings is None:  # quick mode
        rows = [[DESIGNS[d][0]] + ["not measured in quick mode"] * 3
                for d in ("explicit", "pytree")]
        report.data["donation"] = {"explicit": None, "pytree": None}
        report.tables["donation"] = markdown_table(
            ["design", "step, state not donated", "step, state donated",
             "not donated / donated"], rows)
        report.text["donation_comparison"] = ("Quick mode does not time donation.")
        return
    for design in ("explicit", "pytree"):
        plain, donated = timings[(design, False)], timings[(design, True)]
        data[design] = {"plain": plain.as_dict(), "donated": donated.as_dict()}
        rows.append([DESIGNS[design][0], fmt_timing(plain), fmt_timing(donated),
                     fmt_ratio_range(plain, donated)])
    report.data["donation"] = data
    report.tables["donation"] = markdown_table(
        ["design", "step, state not donated", "step, state donated",
         "not donated / donated"], rows)
    report.text["donation_comparison"] = compare_steady(
        {f"{d} {k}": data[d][k] for d in data for k in ("plain", "donated")},
        what="four step times")


def check_documented_behaviour(data):
    """What the page's prose states about the three designs, checked on this run."""
    expected = {"static_self": ("old", 2), "explicit": ("new", 1), "pytree": ("new", 1)}
    for design, (weight, programs) in expected.items():
        got = data[design]
        problems = []
        if got["weight_used"] != weight:
            problems.append(f"used the {got['weight_used']} weight")
        if got["compiled_programs"] not in (programs, None):
            problems.append(f"compiled {got['compiled_programs']} programs for two "
                            "models")
        if got["new_programs_while_training"]:
            problems.append(f"compiled {got['new_programs_while_training']} programs "
                            "while training")
        if got["max_param_difference"] > 1e-6:
            problems.append(f"differs from A by {got['max_param_difference']:.2e}")
        if problems:
            raise DocumentationMismatch(f"design {design}: " + "; ".join(problems))


def compare_steady(timings, what="three step times") -> str:
    """One sentence on whether the step times can be told apart on this run."""
    if max(t["q1"] for t in timings.values()) <= min(t["q3"] for t in timings.values()):
        return ("Their interquartile ranges overlap: on this build's machine the "
                f"{what} cannot be told apart.")
    fastest = min(t["median"] for t in timings.values())
    slowest = max(t["median"] for t in timings.values())
    return (f"Their interquartile ranges do not all overlap, and the slowest median is "
            f"{slowest / fastest - 1:.0%} above the fastest.")


if __name__ == "__main__":
    main(measure)
