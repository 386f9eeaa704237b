"""The recompilations a training loop can cause, run on the DeepONet step, and the stale
static self; training_loop_pauses_benchmark.py calls them. Compilations are counted in
JAX's own log (jax_log_compiles). What JAX compiles in each case is a fact of the pinned
JAX (its cache key): `measurement.fact` stops the build where it changed.
"""

import gc
import re
import weakref

import jax
import numpy as np

import training_loop_pauses as tl
from deeponet import PIDeepONet
from measurement import fact

# What the page says: compilations of `step` in JAX's log, (with the mistake, the fix).
STATED = {
    "ragged": (1, 0),
    "numpy_int": (1, 0),
    "new_instance": (1, 0),
    "x64": (1, None),  # on: one compilation; off again: the 32-bit program is cached
    "numpy_batch": (0, None),  # the cache grows, but nothing compiles
}


def mentions(message, name):
    return re.search(rf"\b{name}\b", message) is not None


def run_scenarios(model, functions, batches, params, config, keys=tuple(STATED)):
    """Each real recompilation in `keys`, its fix first; compilations of step counted
    in JAX's log. Stops the build unless JAX compiled what STATED (the page) says."""
    scenarios = {}

    def count(key, fn):
        if key not in keys:
            return None
        before = PIDeepONet.step._cache_size()
        with tl.jax_log() as log:
            result = fn()
            jax.block_until_ready(model.opt_state)
        scenarios.setdefault(key, []).append(
            {"compiles": len(tl.compiled(log, "step")),
             "cache": [before, PIDeepONet.step._cache_size()],
             "log": [m for m in log if mentions(m, "step")]})
        return result

    it = model.itercount
    model.opt_state = model.step(next(it), model.opt_state, *batches)  # compiled before
    draws = [tl.next_batches(jax.random.key(10 + k), functions, config.batch_size)[1]
             for k in range(3)]
    n_points = config.batch_size * 5 // 2  # two full batches and a half one
    data = jax.tree.map(
        lambda *a: np.concatenate([np.asarray(x) for x in a])[:n_points], *draws)
    b = config.batch_size
    count("ragged", lambda: tl.epochs_over(model, data, b, drop_last=True))
    count("ragged", lambda: tl.epochs_over(model, data, b))
    count("numpy_int", lambda: tl.numpy_step_number(model, batches, fixed=True))
    count("numpy_int", lambda: tl.numpy_step_number(model, batches))
    count("new_instance", lambda: tl.same_model(model, batches, params))
    second = count("new_instance", lambda: tl.new_model(config, batches, params))
    second = weakref.ref(second) if second is not None else None
    gc.collect()  # nothing of ours refers to the second model any more; the cache does
    x64 = jax.config.jax_enable_x64
    count("x64", lambda: tl.x64_on_and_off(model, batches))
    if jax.config.jax_enable_x64 != x64:
        raise AssertionError("jax_enable_x64 was not restored")
    count("numpy_batch", lambda: tl.numpy_batches(model, batches))
    for key in keys:
        mistake, fix = STATED[key]
        seen = [r["compiles"] for r in scenarios[key]]
        expected = [mistake] if fix is None else [fix, mistake]
        fact(f"training_loop.recompiles.{key}", seen == expected,
             f"The page says {expected} compilations of step (with the fix, then "
             f"without), JAX logged {seen}.")
    if "numpy_batch" in keys:
        before, after = scenarios["numpy_batch"][0]["cache"]
        fact("training_loop.numpy_batch_cache_entry", after == before + 1,
             "The page says NumPy batches, compiling nothing, add one entry to the "
             "step's cache (its key tells NumPy from jax.Array); it went "
             f"{before} → {after}.")
    return {**scenarios, "n_points": n_points,
            "kept_alive": None if second is None else second() is not None}


def run_stale(model, batches, config):
    """The stale static self, with numbers; stops the build unless JAX behaves as the
    page says (no recompilation, the old weight kept, the argument read anew)."""
    weighted = tl.WeightedDeepONet(config)
    with tl.jax_log() as stale_log:
        before, after = tl.stale_weight(weighted, batches)
    with tl.jax_log() as fresh_log:
        fresh = tl.fresh_weight(weighted.params, batches)
    with tl.jax_log() as step_log:
        step_before, step_after = tl.stale_step(model, batches)
    step_diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) for a, b
                    in zip(jax.tree.leaves(step_before), jax.tree.leaves(step_after)))
    stale = {"before": before, "after": after, "fresh": fresh,
             "compiles_stale": len(tl.compiled(stale_log, "total_loss")),
             "compiles_fresh": len(tl.compiled(fresh_log, "weighted_loss")),
             "compiles_step": len(tl.compiled(step_log, "step")),
             "step_difference": step_diff}
    counts = (stale["compiles_stale"], stale["compiles_fresh"], stale["compiles_step"])
    # the same program on the same values (a backend may round a reduction otherwise
    # from one run to the next), where the argument's 0 changes the loss outright
    kept = np.isclose(after, before, rtol=1e-5)
    fact("training_loop.stale_self",
         counts == (1, 1, 0) and kept and not np.isclose(fresh[1], before, rtol=1e-3),
         f"A changed attribute of a static self: {stale}")
    return stale
