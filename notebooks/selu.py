# %% [markdown]
# # SELU as a notebook
#
# The code of the [SELU chapter](../../selu/), as a notebook executed while this site was
# built. Each code cell below is included from `snippets/selu.py`, the file the chapter and
# its benchmark use. Download the `.ipynb` (button at the top right) and run it on your
# machine. It runs at n = 100,000 so that it takes seconds; the chapter measures 1,000,000
# (set `n` below to compare).

# %%
# --8<-- "selu.py:imports"

# --8<-- "selu.py:selu"

# --8<-- "selu.py:selu_numpy"

# %% [markdown]
# ## The input, and a check that the three agree

# %%
# --8<-- "selu.py:inputs"

# %%
n = 100_000
x = docs_input(n)
x_np = numpy_input(x)  # float32, as JAX computes
print(x.dtype, x.shape, "->", selu_jit(x).dtype)
print("jit equals eager: ", bool(jnp.allclose(selu(x), selu_jit(x))))
print("jit equals NumPy: ", bool(np.allclose(selu_numpy(x_np), np.asarray(selu_jit(x)))))

# %% [markdown]
# ## Timing, with block_until_ready
#
# JAX returns before the work is done, so each timed call waits for its result.

# %%
# --8<-- "selu.py:timed_calls"

# %%
import timeit

for name, call, arg in [("eager JAX", eager_call, x), ("jax.jit", jit_call, x),
                        ("NumPy", numpy_call, x_np)]:
    call(arg)  # warm-up: the first call compiles
    timed = timeit.repeat(lambda call=call, arg=arg: call(arg), number=10, repeat=7)
    per_call = sorted(t / 10 for t in timed)
    print(f"{name:10s} median {per_call[3] * 1e3:7.3f} ms   "
          f"best {per_call[0] * 1e3:7.3f} ms")

# %% [markdown]
# ## The first call, stage by stage

# %%
# --8<-- "selu.py:first_call"

# %%
x_random = random_input(n + 1)  # n + 1 values: a shape eager JAX has not seen yet
for stage, seconds in first_call_stages(x_random[:n]).items():
    print(f"{stage:16s} {seconds * 1e3:8.2f} ms")
print(f"eager first call on a new shape: {eager_first_call(x_random) * 1e3:.2f} ms")

# %% [markdown]
# ## Where this ran

# %%
import platform

import jaxlib

print(f"jax {jax.__version__}, jaxlib {jaxlib.__version__}, "
      f"backend {jax.default_backend()}, Python {platform.python_version()}, "
      f"{platform.machine()}")
