# %% [markdown]
# # Why a training loop pauses, as a notebook
#
# The code of the [training-loop chapter](../../training-loop-pauses/), as a notebook
# executed while this site was built, at a tiny size so that it runs in seconds. Each code
# cell is included from `snippets/training_loop_pauses.py` and `snippets/deeponet.py`, the
# files the chapters and their benchmarks use: the notebook runs on its own.

# %% [markdown]
# ## The model: the DeepONet chapter's code

# %%
# --8<-- "deeponet.py:imports"

# --8<-- "deeponet.py:problem"

# --8<-- "deeponet.py:batches"

# --8<-- "deeponet.py:network"

# --8<-- "deeponet.py:loss"

# --8<-- "deeponet.py:class"

# %% [markdown]
# ## The loop

# %%
# --8<-- "training_loop_pauses.py:imports"

# --8<-- "training_loop_pauses.py:config"

# --8<-- "training_loop_pauses.py:progress_bar"

# --8<-- "training_loop_pauses.py:next_batches"

# --8<-- "training_loop_pauses.py:train"

# --8<-- "training_loop_pauses.py:variants"

# --8<-- "training_loop_pauses.py:reset"

# --8<-- "training_loop_pauses.py:jax_log"

# %% [markdown]
# ## A tiny model, and the loop with its un-jitted evaluation
#
# The chapter's timings use the model above (`LOOP`); this tinier one only shows the shape
# of the effect, in seconds.

# %%
import io  # the progress bar draws into a string here

config = Config(width=8, depth=1, latent=8, batch_size=64, n_functions=16, steps=60)
functions = random_functions(jax.random.key(0), config.n_functions, config.n_sensors)
model = PIDeepONet(config)
params = model.params


def run(name, n_iter=60, log_every=20):
    reset(model, params)
    with jax_log(explain=False) as messages:
        seconds, _, waits = train(model, jax.random.key(1), functions, n_iter,
                                  log_every=log_every, bar_file=io.StringIO(),
                                  **VARIANTS[name])
    logging_its = list(range(0, n_iter, log_every))
    print(f"{name}: iteration 0 took {seconds[0] * 1e3:.0f} ms; later logging iterations "
          + ", ".join(f"{seconds[i] * 1e3:.1f} ms" for i in logging_its[1:])
          + f"; the others {np.median(np.delete(seconds, logging_its)) * 1e3:.2f} ms"
          + " (median)")
    print("  of which waiting for queued steps: "
          + ", ".join(f"{w * 1e3:.1f} ms" for w in waits[1:]))
    names = compiled(messages)
    print(f"  JAX compiled {len(names)} program(s), of which {names.count('step')} step")


run("original")
run("jitted evaluation")

# %% [markdown]
# ## How far the loop runs ahead of the processor

# %%
# --8<-- "training_loop_pauses.py:in_flight"

# %%
_, batches = next_batches(jax.random.key(2), functions, config.batch_size)
print("steps in flight after each call:", in_flight(model, batches, n=40))

# %% [markdown]
# ## The cache key tells NumPy arrays from jax.Arrays

# %%
# --8<-- "training_loop_pauses.py:numpy_batch"

# %%
before = PIDeepONet.step._cache_size()
with jax_log() as messages:
    numpy_batches(model, batches)
print(f"compilations of step: {len(compiled(messages, 'step'))}; "
      f"step._cache_size(): {before} -> {PIDeepONet.step._cache_size()}")

# %% [markdown]
# ## The caches every jitted function shares

# %%
# --8<-- "training_loop_pauses.py:cache_sizes"

# %%
for name, size in jit_cache_sizes().items():
    print(f"{name:48s} {size:6,d} entries")

# %% [markdown]
# ## A changed self is not seen; an argument is

# %%
# --8<-- "training_loop_pauses.py:stale"

# --8<-- "training_loop_pauses.py:fresh"

# %%
weighted = WeightedDeepONet(config)
before, after = stale_weight(weighted, batches)
print(f"static self: {before:.6g} before, {after:.6g} after ics_weight = 0.0 (stale)")
ten, zero = fresh_weight(weighted.params, batches)
print(f"as an argument: {ten:.6g} with weight 10, {zero:.6g} with weight 0")
