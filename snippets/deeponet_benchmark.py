"""The PI-DeepONet training step measured: jitted against the same code run op by op.

    python snippets/deeponet_benchmark.py           # full size: your machine's tables
    python snippets/deeponet_benchmark.py --quick   # small sizes, fewer repeats

Times the step over batch sizes and splits its first call, in several fresh processes
(every page that shows the jitted step at the chapter's batch size shows this one
measurement); captures what JAX says about two
mistakes, and trains briefly against the exact solution. `measure` returns numbers;
deeponet_report.py turns them into the page's tables, verdicts and figures (each
edition words them).
"""

# --8<-- [start:imports]
import collections
import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import jax

from compilation import count_compilations  # the site's compilation counter
from deeponet import PIDeepONet  # the chapter's model
from measurement import machine, time_calls  # usable cores; the site's timer
from selu import compile_stages  # the SELU chapter's stage timer
# --8<-- [end:imports]
import re
import warnings
from dataclasses import replace

import numpy as np

from deeponet import (DEFAULT, ICS_WEIGHT, LEARNING_RATE, SMALL, exact_solution,
                      make_batches, predict, random_functions, relative_l2_errors,
                      test_grid)
from deeponet_report import FIGURES, PLOT_TIMES, report
from measurement import (SETTLED, Timing, agree_within, fact, in_processes, main,
                         pooled)

# The error and the warning depend on no size: a tiny model compiles fastest.
TINY = replace(SMALL, width=8, depth=1, latent=8, batch_size=32, n_functions=8)


def settings(quick):
    # Quick mode (tests, previews) must take seconds, and on CPU each compilation of the
    # step takes seconds: the tiny network at one batch size, the step compiled once.
    # Full size: each new batch size compiles the step, and run op by op every primitive
    # again for its shapes (seconds, whatever the repeats), in every process; so the
    # sizes are the curve's ends and the chapter's size. Un-jitted calls,
    # dispatch-bound, are slow: single-call samples, as few per process as still show
    # their spread: more rounds only while a spread has not settled.
    if quick:
        return {"config": TINY, "sizes": (), "first_calls": 1,
                "repeats": 3, "min_repeats": 3, "min_sample": 0.002, "processes": 2}
    return {"config": DEFAULT, "sizes": (64, 250, 4000), "first_calls": 2, "repeats": 6,
            "min_repeats": 5, "min_sample": 0.01, "processes": 2}


def batches_of(functions, batch_size, draw):
    """`batch_size` points per loss term: consecutive draws of `draw` points each, cut
    to size. make_batches compiles for each batch size; this compiles it for one."""
    n = -(-batch_size // draw)  # draws needed, rounded up
    draws = [make_batches(jax.random.key(10 + k), functions, draw) for k in range(n)]
    if batch_size == draw:
        return draws[0]
    return jax.device_put(  # NumPy cuts and joins without compiling anything
        jax.tree.map(lambda *parts: np.concatenate(parts)[:batch_size], *draws))


# --8<-- [start:eager_step]
def eager_step(model):
    """The step's own Python function, before jit wrapped it: the same code, op by op"""
    return partial(PIDeepONet.step.__wrapped__, model)
# --8<-- [end:eager_step]


# --8<-- [start:timed_steps]
new_i = itertools.count(1)  # step numbers never used before, as in a training run


def step_calls(model, batches, new_i_too=False):
    """Calls that run one step and wait for it: jitted with a new i every call, as in
    training (one program serves every i); un-jitted with the same i every call, so
    that Adam's b1 ** (i + 1), which run op by op compiles for each new i, comes from
    JAX's cache; with new_i_too, also un-jitted with a new i every call, as in
    training: one compilation per step."""
    state, eager = model.opt_state, eager_step(model)

    def timed(step, i=None):
        def call():
            step_i = next(new_i) if i is None else i
            return jax.block_until_ready(step(step_i, state, *batches))
        return call

    calls = {"jit": timed(model.step), "eager": timed(eager, i=0)}
    if new_i_too:  # as slow as "eager", and more: measured at one batch size
        calls["eager_new_i"] = timed(eager)
    return calls


def time_steps(calls, repeats=5, min_sample_s=0.02, min_repeats=4):
    """Seconds per call, every call sampled in turns with all the others (every batch
    size): a slow spell of the machine touches them all. Compilations counted. The
    warm-up, one call of each, compiles: one call per core, the largest sizes first;
    it is over before any sample is taken."""
    calls_made = collections.Counter()

    def counted(key, call):
        def run():
            calls_made[key] += 1
            return call()
        return run

    start = time.perf_counter()
    with ThreadPoolExecutor(machine()["cores"]) as pool:  # the cores it may use
        list(pool.map(lambda call: call(), reversed(calls.values())))
    warm_up_s = time.perf_counter() - start
    with count_compilations() as compiles:
        timings = time_calls({key: counted(key, call) for key, call in calls.items()},
                             repeats=repeats, warmup=0, min_sample_s=min_sample_s,
                             min_repeats=min_repeats)  # fewer rounds once settled
    seconds = {"warm_up": warm_up_s, "samples": time.perf_counter() - start - warm_up_s}
    return timings, compiles, calls_made, seconds
# --8<-- [end:timed_steps]


# --8<-- [start:first_call]
def first_call_stages(model, opt_state, batches):
    """The jitted step's first call stage by stage, and its second execution (s)."""
    seconds, _, compiled = compile_stages(  # self (the model) is static
        PIDeepONet.step, model, 0, opt_state, *batches)
    return {**seconds, **executions(compiled, opt_state, batches)}


def executions(compiled, opt_state, batches):
    """A compiled step's first and second execution (s), and its YNNPACK fusions."""
    seconds = {}
    for i, run in enumerate(("first_execution", "second_execution")):
        start = time.perf_counter()
        jax.block_until_ready(compiled(i, opt_state, *batches))  # self: not passed
        seconds[run] = time.perf_counter() - start
    seconds["ynn_fusions"] = compiled.as_text().count('"__ynn_fusion"')
    return seconds


# Compiled without YNNPACK fusions: the first execution then has no runtimes to build.
NO_YNN = {"xla_cpu_experimental_ynn_fusion_type": ""}


def compile_no_ynn(model, batches):
    """The step compiled again, without YNNPACK fusions; `executions` times it."""
    return compile_stages(PIDeepONet.step, model, 0, model.opt_state, *batches,
                          compiler_options=NO_YNN)[2]
# --8<-- [end:first_call]


def no_ynn_or_refusal(model, batches):
    """compile_no_ynn's program, or the name of the error a jaxlib refused it with
    (an XLA without this option): the page then says it was not measured."""
    try:
        return compile_no_ynn(model, batches)
    except Exception as error:  # any refusal: data, not a stop
        return type(error).__name__


def all_steps(models, s):
    """Step times for each (label, model, functions, batch size), sampled in turns,
    with the compilations counted (the parent checks them: check_compilations); the
    un-jitted step with a new i at the chapter's batch size only."""
    calls = {}
    for label, model, functions, batch_size in models:
        batches = batches_of(functions, batch_size, s["config"].batch_size)
        new_i_too = label == s["config"].batch_size
        for name, call in step_calls(model, batches, new_i_too).items():
            calls[label, name] = call
    timings, compiles, made, seconds = time_steps(
        calls, s["repeats"], s["min_sample"], s["min_repeats"])
    steps = {str(label): {"batch_size": batch_size,
                          "calls": {name: n for (key, name), n in made.items()
                                    if key == label},
                          **{name: t.as_dict() for (key, name), t in timings.items()
                             if key == label}}
             for label, _, _, batch_size in models}
    compiled = {"counts": dict(compiles), "seconds": compiles.seconds,
                "new_i_calls": sum(n for (_, name), n in made.items()
                                   if name == "eager_new_i")}
    return steps, compiled, seconds


def check_compilations(compiled):
    """What the page says JAX compiled while one process sampled (facts)."""
    counts, new_calls = compiled["counts"], compiled["new_i_calls"]
    fact("deeponet.one_step_serves_every_i", not counts.get("jit(step)"),
         f"After its first call the jitted step compiled again: {counts}")
    fact("deeponet.eager_compiles_power_per_new_i",
         counts.get("jit(integer_pow)", 0) == new_calls,
         f"{new_calls} un-jitted steps, each with a new i, compiled {counts}")
    fact("deeponet.same_i_compiles_nothing",
         sum(counts.values()) == counts.get("jit(integer_pow)", 0),
         f"Un-jitted steps with the same i compiled {counts} once warm")


def first_calls(model, functions, batch_size, count):
    """Both first calls from cold caches: the jitted one `count` times, stage by
    stage, then the un-jitted one; and how far one step of each moves apart."""
    batches = batches_of(functions, batch_size, batch_size)
    state = model.opt_state
    runs = []
    for _ in range(count):
        jax.clear_caches()  # nothing compiled so far counts: each first call is cold
        runs.append(first_call_stages(model, state, batches))
    result = {"runs": runs}
    with count_compilations() as compiles:  # op by op: each primitive, for its shapes
        start = time.perf_counter()
        eager_state = jax.block_until_ready(eager_step(model)(0, state, *batches))
        result["eager_first"] = time.perf_counter() - start
    result["eager_first_compiles"] = compiles.total()
    result["eager_first_compile_s"] = compiles.seconds
    agreed = agreement(model, state, model.step(0, state, *batches), eager_state)
    return result, agreed


STAGES = ("trace_and_lower", "compile", "first_execution")


def first_call_pooled(found):
    """Each process's first calls as one: every stage's median over all first calls,
    each call's total, the un-jitted first call's median over the processes."""
    runs = [r for f in found for r in f["runs"]]
    totals = [sum(r[k] for k in STAGES) for r in runs]
    return {**{k: type(v)(np.median([r[k] for r in runs]))  # int stays int
               for k, v in runs[0].items()},
            "count": len(runs), "total": timing_of(totals),
            "eager_first": float(np.median([f["eager_first"] for f in found])),
            "eager_first_compile_s": float(np.median(
                [f["eager_first_compile_s"] for f in found])),
            "eager_first_compiles": found[0]["eager_first_compiles"]}


def timing_of(samples):
    return Timing(list(samples), 1).as_dict()


def agreement(model, before, jitted, eager):
    """How far apart one jitted and one un-jitted step leave the parameters."""
    leaves = [jax.tree.leaves(model.get_params(x)) for x in (before, jitted, eager)]
    start, jit_p, eager_p = ([np.asarray(a) for a in group] for group in leaves)
    pairs = list(zip(jit_p, eager_p))
    within = agree_within(jax.default_backend())  # the site's one set of tolerances
    return {"max_difference": max(float(np.abs(a - b).max()) for a, b in pairs),
            "max_step": max(float(np.abs(a - b).max()) for a, b in zip(jit_p, start)),
            "allclose": all(np.allclose(a, b, **within) for a, b in pairs), **within}


def step_operations(model, batches):
    """Operations in the step's traced program (jaxpr, top level): run op by op, each
    is dispatched on its own (a nested jit as one)."""
    jaxpr = jax.make_jaxpr(PIDeepONet.step.__wrapped__, static_argnums=(0,))(
        model, 0, model.opt_state, *batches)
    return len(jaxpr.jaxpr.eqns)


# --8<-- [start:decorator_factory]
class PIDeepONetFactoryForm(PIDeepONet):
    """The same step, with jit's decorator-factory form (JAX 0.8.1 and later)."""

    @jax.jit(static_argnums=(0,))
    def step(self, i, opt_state, ics_batch, bcs_batch, res_batch):
        params = self.get_params(opt_state)
        g = jax.grad(self.loss)(params, ics_batch, bcs_batch, res_batch)
        return self.opt_update(i, g, opt_state)
# --8<-- [end:decorator_factory]


def both_forms_agree(model, batches):
    """Both decorator forms traced and lowered for the same arguments: the same
    StableHLO program, character for character (XLA's input: then XLA compiles the
    same step)? Nothing is compiled."""
    factory = PIDeepONetFactoryForm(model.config)
    texts = [type(m).step.trace(m, 0, model.opt_state, *batches).lower().as_text()
             for m in (model, factory)]
    fact("deeponet.decorator_forms_lower_alike", texts[0] == texts[1],
         "The two decorator forms lowered to different StableHLO.")
    return True


def no_static_error(model, batches):
    """The message of the seed's step jitted without static_argnums, as JAX says it."""
    try:
        # --8<-- [start:no_static]
        step = jax.jit(PIDeepONet.step.__wrapped__)  # no static_argnums: self is traced
        step(model, 0, model.opt_state, *batches)  # raises TypeError
        # --8<-- [end:no_static]
    except TypeError as error:
        text = re.sub(r" at 0x[0-9a-f]+", "", str(error))
        fact("deeponet.no_static_raises_type_error", "not marked as static" in text,
             f"The page quotes a TypeError that says 'not marked as static'; this JAX "
             f"says: {text}")
        return f"TypeError: {text}"
    fact("deeponet.no_static_raises_type_error", False,
         "jit without static_argnums did not raise on self.")


def donation_warning(model, batches, quick=False):
    """The warning when donated arguments match no output, and what became of them:
    (warning, batch buffers deleted, batch buffers, how many the warning lists). JAX
    warns while lowering: quick mode lowers the step and neither compiles nor runs it,
    so it cannot say what became of the batches (None)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if quick:
            jax.jit(PIDeepONet.step.__wrapped__, static_argnums=(0,),
                    donate_argnums=(3, 4, 5)).trace(model, 0, model.opt_state,
                                                    *batches).lower()
        else:
            # --8<-- [start:donate_batches]
            donating_step = jax.jit(PIDeepONet.step.__wrapped__, static_argnums=(0,),
                                    donate_argnums=(3, 4, 5))  # the three batches
            donating_step(model, 0, model.opt_state, *batches)  # warns
            # --8<-- [end:donate_batches]
    messages = [str(w.message) for w in caught if "donated" in str(w.message)]
    fact("deeponet.unusable_donation_warns",
         bool(messages) and "Some donated buffers were not usable" in messages[0],
         f"The page quotes 'Some donated buffers were not usable'; this JAX warned: "
         f"{messages}")
    # the warning lists each unusable array's type: "...not usable: float32[32,32], ..."
    listed = messages[0].split(":", 1)[1].splitlines()[0].strip(" .")
    unusable = collections.Counter(listed.split(", "))
    leaves = jax.tree.leaves(batches)
    deleted = None if quick else sum(x.is_deleted() for x in leaves)
    intact = collections.Counter(f"{x.dtype}[{','.join(map(str, x.shape))}]"
                                 for x in leaves if not x.is_deleted())
    fact("deeponet.unusable_donation_kept",
         all(intact[t] >= n for t, n in unusable.items()),
         f"The page says the arrays JAX could not use ({dict(unusable)}) stay intact; "
         f"intact after the call: {dict(intact)}")
    unread = unread_arrays(model, batches)
    if not quick:
        fact("deeponet.unread_batches_not_donated",
             len(leaves) - unusable.total() - deleted == unread,
             f"The page says the batches' arrays neither listed nor deleted are those "
             f"the step never reads ({unread}); of {len(leaves)}, {unusable.total()} "
             f"were listed and {deleted} deleted")
    return (f"UserWarning: {messages[0]}", deleted, len(leaves), unusable.total(),
            unread)


def unread_arrays(model, batches):
    """How many of the batches' arrays the step's jaxpr never reads: jit drops unused
    arguments (keep_unused=False), so JAX neither lists nor donates them."""
    closed = jax.make_jaxpr(PIDeepONet.step.__wrapped__, static_argnums=(0,))(
        model, 0, model.opt_state, *batches)
    jaxpr = closed.jaxpr
    read = {id(v) for e in jaxpr.eqns for v in e.invars} | set(map(id, jaxpr.outvars))
    arrays = jaxpr.invars[-len(jax.tree.leaves(batches)):]  # the batches come last
    return sum(id(v) not in read for v in arrays)


def tiny_checks(functions, draw, quick):
    """The error and the warning, with the tiny model (batches cut from a draw of
    `draw` points, already compiled)."""
    tiny = PIDeepONet(TINY)
    batches = batches_of(functions, TINY.batch_size, draw)
    return (no_static_error(tiny, batches), *donation_warning(tiny, batches, quick))


def config_data(config):
    return {k: getattr(config, k) for k in (
        "width", "depth", "latent", "n_sensors", "batch_size", "n_functions", "n_test",
        "steps")}


def measure_once(quick: bool) -> dict:
    """One process's measurement (measure runs it in several): the jitted step's cold
    first calls and the un-jitted one's, then every step timed in turns."""
    s = settings(quick)
    config = s["config"]
    start = time.perf_counter()
    train_key = jax.random.split(jax.random.key(config.seed), 3)[0]
    functions = random_functions(train_key, config.n_functions, config.n_sensors)
    model = PIDeepONet(config)
    first, agreed = first_calls(model, functions, config.batch_size, s["first_calls"])
    seconds = {"first_calls": time.perf_counter() - start}
    sizes = sorted({*s["sizes"], config.batch_size})
    models = [(b, model, functions, b) for b in sizes]
    steps, compiled, phases = all_steps(models, s)
    return {"first_call": first, "agreement": agreed, "steps": steps,
            "compiled": compiled, "seconds": {**seconds, **phases}}


def measure(quick: bool) -> dict:
    """Time the PI-DeepONet step jitted and op by op in fresh processes; check what
    JAX does with it; train briefly; check the result."""
    s = settings(quick)
    config = s["config"]
    start = time.perf_counter()
    runs = in_processes(measure_once, quick, s["processes"])  # before any device work
    backend = jax.default_backend()
    each = runs["processes"]
    for run in each:
        check_compilations(run["compiled"])
    seconds = {k: sum(run["seconds"][k] for run in each)
               for k in ("first_calls", "warm_up", "samples")}
    seconds["processes"] = time.perf_counter() - start

    def pool(label, name):
        return pooled([run["steps"][str(label)][name] for run in each])

    def calls(label, name):
        return sum(run["steps"][str(label)]["calls"][name] for run in each)

    sizes = sorted({*s["sizes"], config.batch_size})
    b = config.batch_size
    first = first_call_pooled([run["first_call"] for run in each])
    data = {
        "backend": backend, "config": config_data(config),
        "ics_weight": ICS_WEIGHT, "learning_rate": LEARNING_RATE,
        "processes": len(each), "checks": runs["checks"],
        "scaling": {"batch": sizes, "jit": [pool(n, "jit") for n in sizes],
                    "eager": [pool(n, "eager") for n in sizes],
                    "calls": {k: [calls(n, k) for n in sizes]
                              for k in ("jit", "eager")}},
        "compile_s_per_new_i": sum(run["compiled"]["seconds"] for run in each)
        / sum(run["compiled"]["new_i_calls"] for run in each),
        "new_i": {"batch": b, "eager": pool(b, "eager_new_i"),
                  "calls": calls(b, "eager_new_i")},
        "rounds": {"min": s["min_repeats"], "max": s["repeats"], "settled": SETTLED},
        "first_call": first, "agreement": each[0]["agreement"],
    }
    data.update(checks_and_training(config, backend, quick, first))
    seconds["total"] = time.perf_counter() - start
    seconds["training"] = data["training"]["seconds"]
    data.update(seconds=seconds, workers=machine()["cores"])
    return data


def checks_and_training(config, backend, quick, first):
    """This process's part, after the processes measured: what JAX says and does with
    the step (nothing timed, side by side, one per core); the step compiled without
    YNNPACK's fusions, its executions timed alone; then the chapter's training run."""
    train_key, test_key, loop_key = jax.random.split(jax.random.key(config.seed), 3)
    functions = random_functions(train_key, config.n_functions, config.n_sensors)
    model = PIDeepONet(config)
    batches = batches_of(functions, config.batch_size, config.batch_size)
    # Quick mode compiles the step once only; YNNPACK is XLA:CPU's: on another
    # backend there is nothing to compile without.
    no_ynn_status = ("quick" if quick else "not_cpu" if backend != "cpu"
                     else "measured")
    checks = [partial(both_forms_agree, model, batches),
              partial(tiny_checks, functions, config.batch_size, quick),
              partial(step_operations, model, batches)]
    if no_ynn_status == "measured":
        checks.append(partial(no_ynn_or_refusal, model, batches))
    with ThreadPoolExecutor(machine()["cores"]) as pool:
        forms_agree, tiny, operations, *no_ynn = pool.map(lambda f: f(), checks)
    first["no_ynn"], first["no_ynn_status"] = None, no_ynn_status
    if no_ynn and isinstance(no_ynn[0], str):  # this jaxlib refused the option
        first["no_ynn_status"], first["no_ynn_error"] = "refused", no_ynn[0]
    elif no_ynn:  # timed alone, after the checks
        first["no_ynn"] = executions(no_ynn[0], model.opt_state, batches)
    no_static, warning, deleted, buffers, unusable, unread = tiny
    return {"step_operations": operations, "forms_agree": forms_agree,
            "captured": {"no_static_error": no_static, "donation_warning": warning},
            "donation": {"deleted": deleted, "buffers": buffers, "unusable": unusable,
                         "unread": unread},
            **train_and_check(model, functions, test_key, loop_key,
                              10 if quick else 20)}


def train_and_check(model, functions, test_key, loop_key, log_every):
    """Train the chapter's run; compare with the exact solution on held-out inputs:
    the errors, and the curves of the input with the median error at PLOT_TIMES."""
    config = model.config
    start = time.perf_counter()
    log = model.train(loop_key, functions, config.steps, log_every=log_every)
    seconds = time.perf_counter() - start
    held_out = random_functions(test_key, config.n_test, config.n_sensors)
    errors = np.asarray(relative_l2_errors(model.params, held_out))
    t, x = test_grid()
    predicted = np.asarray(predict(model.params, held_out, t, x))  # the errors' grid
    exact = np.asarray(exact_solution(held_out.coeffs[:, None, None], t, x))
    example = int(np.argsort(errors)[len(errors) // 2])
    times = np.asarray(t[:, 0])
    rows = [int(np.argmin(np.abs(times - wanted))) for wanted in PLOT_TIMES]
    net, true = predicted[example, rows], exact[example, rows]
    return {"training": {"log": log, "seconds": seconds, "steps": config.steps,
                         "errors": errors.tolist()},
            "prediction": {
                "example": example, "grid": list(t.shape),
                "t": times[rows].tolist(), "x": np.asarray(x[0]).tolist(),
                "exact": true.tolist(), "network": net.tolist(),
                "exact_max": np.abs(true).max(axis=1).tolist(),
                "error_max": np.abs(net - true).max(axis=1).tolist(),
                "relative_error": (np.linalg.norm(net - true, axis=1)
                                   / np.linalg.norm(true, axis=1)).tolist()}}


if __name__ == "__main__":
    main(measure, report, FIGURES)
