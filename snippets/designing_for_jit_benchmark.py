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
from measurement import (Report, Table, compare, fact, main, ratio_of, seconds,
                         stopwatch, time_calls, timing, word)


STEP_NAMES = {"static_self": "jit(step)", "explicit": "jit(explicit_step)",
              "pytree": "jit(step)"}
# What the page states of each design, facts of JAX: the weight that the step after a
# change of `ics_weight` used, and the programs compiled for two models of one setting.
DOCUMENTED = {"static_self": ("old", 2), "explicit": ("new", 1), "pytree": ("new", 1)}
ROUNDING = 1e-6  # parameters this close to design A's differ by float32 rounding alone


def step_call(design, model, batches):
    """A function that runs one step of `model` from the same state and waits for it."""
    if design == "pytree":
        return lambda: jax.block_until_ready(model.step(0, *batches))
    return lambda: jax.block_until_ready(model.step(0, model.opt_state, *batches))


def measure(quick: bool) -> dict:
    """Train each design a few steps from one start; time steps and compilations."""
    config = TINY if quick else DEFAULT
    n_steps = 2 if quick else 5
    repeats, min_sample = (5, 0.002) if quick else (9, 0.01)
    batches = example_batches(config)
    data, params, models = {}, {}, {}

    # Times first: no design's step has been compiled yet in this process.
    for design, (_, make, _) in DESIGNS.items():
        model = models[design] = make(config)
        first, _ = stopwatch(step_call(design, model, batches))  # trace, compile, run
        second_model = make(config)  # another object, same settings: a cache hit?
        with count_compilations() as compiled:
            second, _ = stopwatch(step_call(design, second_model, batches))
        data[design] = {"first_step": first, "second_model_first_step": second,
                        "compiled_programs": 1 + compiled[STEP_NAMES[design]]}
    steady = time_calls({d: step_call(d, models[d], batches) for d in DESIGNS},
                        repeats=repeats, min_sample_s=min_sample)
    for design in DESIGNS:
        data[design]["steady"] = steady[design].as_dict()

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
    for design in DESIGNS:
        data[design]["max_param_difference"] = max_difference(params["static_self"],
                                                               params[design])

    check_documented_behaviour(data)
    return {"designs": data, "config": vars(config), "n_steps": n_steps,
            "repeats": repeats, "old_weight": ICS_WEIGHT, "new_weight": 0.0,
            "donation": donation(config, batches, repeats, min_sample)}


def donation(config, batches, repeats, min_sample):
    """Chained steps of B and C (each step's output feeds the next), with and without
    donating the optimizer state, timed in turns: {design: {"plain", "donated"}}."""
    adam, weight = Adam(), ICS_WEIGHT

    def copy(tree):  # a donating step deletes what it is given: each chain gets its own
        return jax.tree.map(jnp.copy, tree)

    def chain(step, start):
        box = [start]

        def call():
            box[0] = jax.block_until_ready(step(box[0]))
        return call

    state, model = ExplicitDeepONet(config).opt_state, PytreeDeepONet.create(config)
    calls = {
        ("explicit", "plain"): chain(
            lambda s: explicit_step(0, s, *batches, weight, adam), copy(state)),
        ("explicit", "donated"): chain(
            lambda s: explicit_step_donating(0, s, *batches, weight, adam),
            copy(state)),
        ("pytree", "plain"): chain(lambda m: m.step(0, *batches), copy(model)),
        ("pytree", "donated"): chain(lambda m: pytree_step_donating(m, 0, *batches),
                                     copy(model))}
    given = copy(state)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explicit_step_donating(0, given, *batches, weight, adam)
        timings = time_calls(calls, repeats=repeats, min_sample_s=min_sample)
    unusable = [str(w.message) for w in caught if "donated" in str(w.message)]
    fact("designing.donation_reuses_the_state", not unusable,
         "the page says XLA may reuse all of the donated optimizer state; this JAX "
         f"warned {unusable}")
    fact("designing.donation_deletes_what_it_is_given",
         all(leaf.is_deleted() for leaf in jax.tree.leaves(given)),
         "the page says the arrays passed to a donating step are deleted; these were "
         "not")
    return {design: {kind: timings[design, kind].as_dict()
                     for kind in ("plain", "donated")}
            for design in ("explicit", "pytree")}


def check_documented_behaviour(data):
    """What the page's prose states about the three designs: facts of JAX."""
    def each(key):
        return {design: data[design][key] for design in DESIGNS}

    used, programs = each("weight_used"), each("compiled_programs")
    fact("designing.static_self_keeps_the_old_weight",
         used == {d: weight for d, (weight, _) in DOCUMENTED.items()},
         f"after ics_weight changed, the designs used the weights {used}")
    fact("designing.only_static_self_compiles_a_second_model",
         programs == {d: count for d, (_, count) in DOCUMENTED.items()},
         f"programs compiled for two models: {programs}")
    fact("designing.a_new_step_counter_compiles_nothing",
         not any(each("new_programs_while_training").values()),
         f"new programs while training: {each('new_programs_while_training')}")


def report(data: dict) -> Report:
    """Tables and verdicts of the designing-for-jit page, from its data alone."""
    designs, donated = data["designs"], data["donation"]
    steady = {d: designs[d]["steady"]["median"] for d in DESIGNS}
    fastest, slowest = min(steady, key=steady.get), max(steady, key=steady.get)
    largest = max(designs[d]["max_param_difference"] for d in DESIGNS)
    verdicts = {
        # The steady steps: can the slowest be told from the fastest?
        "steady": compare(designs[slowest]["steady"], designs[fastest]["steady"],
                          (slowest, fastest),
                          (f"designs.{slowest}.steady", f"designs.{fastest}.steady")),
        **{f"donation_{d}": compare(donated[d]["plain"], donated[d]["donated"],
                                    ("plain", "donated"),
                                    (f"donation.{d}.plain", f"donation.{d}.donated"))
           for d in donated},
        # The parameters the designs trained to, against A's (a threshold, not timings).
        "parameters": {"kind": "identical" if largest == 0
                       else "rounding" if largest <= ROUNDING else "differ",
                       "largest": largest, "rounding": ROUNDING},
    }
    tables = {
        "times": Table(
            ["design", "first_step", "steady", "second_first_step", "programs"],
            [[word(d), seconds(t["first_step"]), timing(t["steady"]),
              seconds(t["second_model_first_step"]), t["compiled_programs"]]
             for d, t in designs.items()]),
        "results": Table(
            ["design", "difference", "weight_used"],
            [[word(d),
              word("reference") if d == "static_self" else t["max_param_difference"],
              word(f"weight_{t['weight_used']}")] for d, t in designs.items()],
            {"n_steps": data["n_steps"], "old": data["old_weight"],
             "new": data["new_weight"]}),
        "donation": Table(
            ["design", "plain", "donated", "plain_vs_donated"],
            [[word(d), timing(t["plain"]), timing(t["donated"]),
              ratio_of(t["plain"], t["donated"])] for d, t in donated.items()]),
    }
    return Report(tables=tables, verdicts=verdicts)


FIGURES = {}

if __name__ == "__main__":
    main(measure, report, FIGURES)
