# %% [markdown]
# # The DeepONet step as a notebook
#
# The model of the [DeepONet chapter](../../deeponet/), as a notebook executed while
# this site was built, at a tiny size so that it runs in seconds (on CPU, compiling the
# step takes most of them). Each code cell that defines the model is included from
# `snippets/deeponet.py`, the file the chapter and its benchmark use. Download the
# `.ipynb` (button at the top right) and run it on your machine; set `config = DEFAULT`
# for the chapter's size.

# %%
# --8<-- "deeponet.py:imports"

# %%
# --8<-- "deeponet.py:problem"

# --8<-- "deeponet.py:batches"

# %%
# --8<-- "deeponet.py:network"

# --8<-- "deeponet.py:loss"

# %%
# --8<-- "deeponet.py:class"

# --8<-- "deeponet.py:evaluate"

# %% [markdown]
# ## The jitted step
#
# Each timed call waits for its result with `block_until_ready`, and gets a new `i`, as
# in training. The un-jitted step, `PIDeepONet.step.__wrapped__`, compiles each of its
# primitives on its first call, which takes seconds: the chapter measures it, and
# `python deeponet.py` prints both.

# %%
config = Config(width=8, depth=1, latent=8, batch_size=32, n_functions=8, n_test=8,
                steps=40)  # tiny: the chapter's is DEFAULT
functions = random_functions(jax.random.key(0), config.n_functions, config.n_sensors)
model = PIDeepONet(config)
batches = make_batches(jax.random.key(1), functions, config.batch_size)
new_i = itertools.count()


def seconds(step, n):
    """Median seconds of n calls, each with a new i."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        jax.block_until_ready(step(next(new_i), model.opt_state, *batches))
        times.append(time.perf_counter() - start)
    return sorted(times)[n // 2]


first = seconds(model.step, 1)  # traces and compiles the whole step
print(f"{config.batch_size} points per loss term: jitted step, first call "
      f"{first:.2f} s, then {seconds(model.step, 9) * 1e3:.2f} ms (median of 9)")

# %% [markdown]
# ## A short training run, checked against the exact solution
#
# Far shorter than the chapter's run, so the error stays large: this shows the loop,
# not a trained model.

# %%
log = model.train(jax.random.key(2), functions, config.steps, log_every=20)
for row in log:
    print(f"step {row['step']:3d}  ics {row['ics']:.2e}  bcs {row['bcs']:.2e}  "
          f"res {row['res']:.2e}")
held_out = random_functions(jax.random.key(3), config.n_test, config.n_sensors)
errors = relative_l2_errors(model.params, held_out)
print(f"relative L2 error on {len(errors)} held-out inputs: "
      f"mean {float(errors.mean()):.1%}")

# %% [markdown]
# ## Where this ran

# %%
import platform

import jaxlib

print(f"jax {jax.__version__}, jaxlib {jaxlib.__version__}, "
      f"backend {jax.default_backend()}, Python {platform.python_version()}, "
      f"{platform.machine()}")
