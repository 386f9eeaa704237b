# %% [markdown]
# # SELU as a notebook
#
# The code of the [SELU chapter](../../selu/), as a notebook executed while this site was built.
# Each code cell below is included from `snippets/selu.py`, the file the chapter and its
# benchmark use. Download the `.ipynb` (button at the top right) and run it on your machine.

# %%
# --8<-- "selu.py:imports"

# --8<-- "selu.py:selu"

# --8<-- "selu.py:selu_numpy"

# %% [markdown]
# ## The input, and a check that the three agree

# %%
# --8<-- "selu.py:inputs"

# %%
x = docs_input(1_000_000)
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
    per_call = sorted(t / 20 for t in timeit.repeat(lambda: call(arg), number=20, repeat=7))
    print(f"{name:10s} median {per_call[3] * 1e3:7.3f} ms   best {per_call[0] * 1e3:7.3f} ms")

# %% [markdown]
# ## The first call, stage by stage

# %%
# --8<-- "selu.py:first_call"

# %%
for stage, seconds in first_call_stages(random_input(1_000_000)).items():
    print(f"{stage:16s} {seconds * 1e3:8.2f} ms")
print(f"eager first call on a new shape: "
      f"{eager_first_call(random_input(1_000_001)) * 1e3:.2f} ms")

# %% [markdown]
# ## Where this ran

# %%
import platform

import jaxlib

print(f"jax {jax.__version__}, jaxlib {jaxlib.__version__}, backend {jax.default_backend()}, "
      f"Python {platform.python_version()}, {platform.machine()}")
