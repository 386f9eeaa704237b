"""Why a jitted training loop seems to pause: the DeepONet loop, fixes, recompilations.

The loop has the shape of the physics-informed DeepONet training code (Wang, Wang and
Perdikaris, 2021): a progress bar, the jitted `step` with a static `self`, and every
`log_every` iterations an un-jitted evaluation of the losses for the log. The code here
is written for this site; `deeponet.py` holds the model.

Run it to watch per-iteration times and what JAX logs:  python training_loop_pauses.py
The build measures it with training_loop_pauses_benchmark.py.
"""

# --8<-- [start:imports]
import contextlib
import itertools
import logging
import sys
import time
from functools import partial

import jax
import numpy as np
from jax import jit
# --8<-- [end:imports]

# --8<-- [start:deeponet_imports]
from deeponet import (Config, PIDeepONet, evaluate_losses, loss, loss_terms,
                      make_batches, random_functions)
# --8<-- [end:deeponet_imports]

# --8<-- [start:config]
# A small DeepONet, so that compiling and running it stays quick on a small machine.
LOOP = Config(width=32, depth=1, latent=32, batch_size=1024, n_functions=64, steps=300)
LOG_EVERY = 50  # the original logs every 100 iterations of a longer run
# --8<-- [end:config]
# tests, quick mode and the notebook
TINY = Config(width=8, depth=1, latent=8, batch_size=64, n_functions=16, steps=60)


# --8<-- [start:progress_bar]
class ProgressBar:
    """A minimal tqdm: the iteration count, the rate, and the latest losses."""

    def __init__(self, total, file=sys.stderr, min_interval=0.1):
        self.total, self.file, self.min_interval = total, file, min_interval
        self.n, self.postfix = 0, ""
        self.start = self.last_draw = time.perf_counter()

    def set_postfix(self, values):
        self.postfix = ", ".join(f"{k}={v:.3g}" for k, v in values.items())

    def update(self):
        self.n += 1
        now = time.perf_counter()
        if now - self.last_draw >= self.min_interval or self.n == self.total:
            self.last_draw = now
            elapsed = now - self.start
            rate = self.n / elapsed
            self.file.write(f"\r{self.n}/{self.total} [{elapsed:.1f} s, "
                            f"{rate:.0f} it/s] {self.postfix}")

    def close(self):
        self.file.write("\n")
# --8<-- [end:progress_bar]


# --8<-- [start:next_batches]
@partial(jit, static_argnames=("batch_size",))
def next_batches(key, functions, batch_size):
    """The data generator: a fresh key and three fresh batches, in one jitted call."""
    key, batch_key = jax.random.split(key)
    return key, make_batches(batch_key, functions, batch_size)
# --8<-- [end:next_batches]


# --8<-- [start:train]
def train(model, key, functions, n_iter, log_every=LOG_EVERY, evaluate=loss_terms,
          block=False, bar_file=sys.stderr):
    """The original loop's shape. Returns the wall time of every iteration, the loss
    log, and how long each logging iteration waited for the steps still queued."""
    bar = ProgressBar(n_iter, file=bar_file)
    seconds, log, waits = [], [], []
    last = time.perf_counter()
    for it in range(n_iter):
        key, batches = next_batches(key, functions, model.config.batch_size)
        state = model.step(next(model.itercount), model.opt_state, *batches)
        model.opt_state = state
        if block:  # wait for this step, so that the time taken below is its own
            jax.block_until_ready(state)
        if it % log_every == 0:
            # Only to measure it: float() below waits for these same queued steps.
            start = time.perf_counter()
            jax.block_until_ready(state)
            waits.append(time.perf_counter() - start)
            terms = evaluate(model.params, *batches)  # original: loss_terms, un-jitted
            losses = {k: float(terms[k]) for k in ("ics", "bcs", "res")}  # waits
            log.append({"it": it, **losses})
            bar.set_postfix(log[-1])
        bar.update()
        now = time.perf_counter()
        seconds.append(now - last)  # what the progress bar sees of this iteration
        last = now
    bar.close()
    return seconds, log, waits
# --8<-- [end:train]


# --8<-- [start:variants]
VARIANTS = {  # the original, and each fix on its own
    "original": dict(evaluate=loss_terms),  # un-jitted: runs op by op
    "jitted evaluation": dict(evaluate=evaluate_losses),  # jax.jit(loss_terms)
    "blocking every step": dict(block=True),  # a time per iteration that is its own
    "logging 3x less often": dict(log_every=3 * LOG_EVERY),
}
# --8<-- [end:variants]


# --8<-- [start:reset]
def reset(model, params):
    """Start `model` again from `params`, keeping its compiled step (same instance)."""
    model.opt_state = model.opt_init(params)
    model.itercount = itertools.count()
# --8<-- [end:reset]


# --8<-- [start:jax_log]
@contextlib.contextmanager
def jax_log(explain=True):
    """Collect what JAX logs about tracing and compiling while the block runs: the
    messages that JAX_LOG_COMPILES=1 JAX_EXPLAIN_CACHE_MISSES=1 print on stderr."""
    messages = []

    class Collect(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())

    handler, logger = Collect(), logging.getLogger("jax")
    flags = {"jax_log_compiles": True, "jax_explain_cache_misses": explain}
    previous = {name: getattr(jax.config, name) for name in flags}
    logger.addHandler(handler)
    for name, value in flags.items():
        jax.config.update(name, value)
    try:
        yield messages
    finally:
        for name, value in previous.items():
            jax.config.update(name, value)
        logger.removeHandler(handler)


def compiled(messages, name=None):
    """The functions XLA compiled: one per 'Finished XLA compilation of jit(...)'."""
    prefix = "Finished XLA compilation of jit("
    names = [m[len(prefix):].split(")", 1)[0] for m in messages
             if m.startswith(prefix)]
    return [n for n in names if name is None or n == name]
# --8<-- [end:jax_log]


def compile_seconds(messages):
    """The XLA compile time of each compilation, as logged ('... in 0.51 sec')."""
    return [float(m.rsplit(" in ", 1)[1].split()[0]) for m in messages
            if m.startswith("Finished XLA compilation of jit(")]


# ---------------------------------------------------------------- real recompilations

# --8<-- [start:ragged]
def epochs_over(model, data, batch_size, epochs=2, drop_last=False):
    """Train over a fixed data set in consecutive batches, as a data loader does."""
    n = len(data[0][1])
    stop = n - n % batch_size if drop_last else n  # the fix: skip the short last batch
    for _ in range(epochs):
        for start in range(0, stop, batch_size):
            # NumPy slices, as a data loader hands them out
            batch = jax.tree.map(lambda a, s=start: a[s:s + batch_size], data)
            model.opt_state = model.step(next(model.itercount), model.opt_state,
                                         *jax.device_put(batch))
# --8<-- [end:ragged]


# --8<-- [start:numpy_int]
def numpy_step_number(model, batches, n=3, fixed=False):
    """The iteration number as a NumPy integer, e.g. restored from a checkpoint."""
    for i in np.arange(n, dtype=np.int32):
        i = int(i) if fixed else i  # the fix: a Python int, as itertools.count() gives
        model.opt_state = model.step(i, model.opt_state, *batches)
# --8<-- [end:numpy_int]


# --8<-- [start:numpy_batch]
def numpy_batches(model, batches, n=2):
    """The same batches as NumPy arrays, as a data loader may hand them out."""
    host = jax.tree.map(np.asarray, batches)
    for _ in range(n):
        model.opt_state = model.step(next(model.itercount), model.opt_state, *host)
# --8<-- [end:numpy_batch]


# --8<-- [start:new_instance]
def new_model(config, batches, params):
    """A second run (a restart, another seed): a new PIDeepONet, a new static `self`."""
    model = PIDeepONet(config)
    reset(model, params)
    model.opt_state = model.step(0, model.opt_state, *batches)
    return model


def same_model(model, batches, params):
    """The fix: one instance, its state reset (or a step that takes no `self`)."""
    reset(model, params)
    model.opt_state = model.step(0, model.opt_state, *batches)
    return model
# --8<-- [end:new_instance]


# --8<-- [start:x64]
def x64_on_and_off(model, batches):
    """A library or a notebook cell turns on 64-bit mode for a while."""
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        model.opt_state = model.step(next(model.itercount), model.opt_state, *batches)
    finally:
        jax.config.update("jax_enable_x64", previous)  # always restore it
    # back to 32-bit: the program compiled first is still cached
    model.opt_state = model.step(next(model.itercount), model.opt_state, *batches)
# --8<-- [end:x64]


# ---------------------------------------------------------------- the opposite danger

# --8<-- [start:stale]
class WeightedDeepONet(PIDeepONet):
    @partial(jit, static_argnums=(0,))  # a static `self`, like step
    def total_loss(self, params, ics_batch, bcs_batch, res_batch):
        # reads self.ics_weight while tracing
        return self.loss(params, ics_batch, bcs_batch, res_batch)


def stale_weight(model, batches):
    """The compiled loss before and after changing self.ics_weight."""
    # traced with ics_weight = 10.0
    before = float(model.total_loss(model.params, *batches))
    model.ics_weight = 0.0  # e.g. a schedule that turns the initial condition off
    # no recompilation: 10.0 is baked into the program
    after = float(model.total_loss(model.params, *batches))
    return before, after
# --8<-- [end:stale]


# --8<-- [start:stale_step]
def stale_step(model, batches):
    """The step from the same state, before and after changing self.ics_weight."""
    state, weight = model.opt_state, model.ics_weight
    before = model.step(0, state, *batches)
    model.ics_weight = 0.0
    after = model.step(0, state, *batches)  # the update made with the old weight
    model.ics_weight = weight
    return before, after
# --8<-- [end:stale_step]


# --8<-- [start:fresh]
@jit
def weighted_loss(params, ics_weight, ics_batch, bcs_batch, res_batch):
    """The weight is an argument: traced, read on every call, never baked in."""
    return loss(params, ics_batch, bcs_batch, res_batch, ics_weight)


def fresh_weight(params, batches, weights=(10.0, 0.0)):
    # one compilation serves every weight
    return [float(weighted_loss(params, w, *batches)) for w in weights]
# --8<-- [end:fresh]


# --8<-- [start:in_flight]
def in_flight(model, batches, n=64):
    """Dispatch n steps without waiting; after each, count the steps not yet done."""
    state = jax.block_until_ready(model.opt_state)
    pending, counts = [], []
    for i in range(n):
        state = model.step(i, state, *batches)
        pending.append(jax.tree.leaves(state)[0])
        counts.append(sum(not a.is_ready() for a in pending))
    jax.block_until_ready(state)
    return counts
# --8<-- [end:in_flight]


# --8<-- [start:cache_sizes]
def jit_cache_sizes():
    """The bounded caches that every jitted function in the process shares.

    Private parts of JAX (jax/_src/pjit.py and jax/_src/interpreters/pxla.py), read
    here so that a change shows up; they may move in any release.
    """
    from jax._src import pjit
    from jax._src.interpreters import pxla

    return {
        # compiled calls, looked up in C++ (pjit.py makes a second one,
        # _cpp_pjit_cache_fun_only, for jit without options; no call in
        # jax 0.12.0.1 uses it: donate_argnums=() counts as an option)
        "dispatch": pjit._cpp_pjit_cache_explicit_attributes.capacity(),
        # traces, one per function and argument types
        "traced": pjit._infer_params_cached.cache_info().maxsize,
        "lowered": pjit._pjit_lower.cache_info().maxsize,  # programs
        "compiled": pxla._cached_compilation.cache_info().maxsize,  # executables
    }
# --8<-- [end:cache_sizes]


def demo(config=TINY, n_iter=120, log_every=40):
    """Train briefly, the original loop and with jitted evaluation; print the log."""
    functions = random_functions(jax.random.key(0), config.n_functions,
                                 config.n_sensors)
    model = PIDeepONet(config)
    params = model.params
    for name in ("original", "jitted evaluation"):
        reset(model, params)
        with jax_log(explain=False) as messages:
            seconds, _, waits = train(model, jax.random.key(1), functions, n_iter,
                                      log_every=log_every, **VARIANTS[name])
        slowest = sorted(range(n_iter), key=lambda i: -seconds[i])[:4]
        print(f"{name}: {sum(seconds):.2f} s for {n_iter} iterations; slowest: "
              + ", ".join(f"#{i} {seconds[i] * 1e3:.1f} ms" for i in sorted(slowest)))
        print("  waited for queued steps at each logging iteration: "
              + ", ".join(f"{w * 1e3:.1f} ms" for w in waits))
        names = compiled(messages)
        unique = sorted(set(names), key=names.index)
        print(f"  JAX logged {len(names)} compilation(s): " + ", ".join(unique[:8])
              + (" ..." if len(unique) > 8 else ""))
    print(f"the step's cache holds {PIDeepONet.step._cache_size()} entry")
    print("caches shared by every jitted function:", jit_cache_sizes())


if __name__ == "__main__":
    demo()
