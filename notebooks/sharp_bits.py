# %% [markdown]
# # The errors jit raises, as a notebook
#
# The pitfalls and fixes of the [errors chapter](../../sharp-bits/), as a notebook executed
# while this site was built. Each code cell is included from `snippets/sharp_bits.py`.
# The pitfalls fail on purpose: `show` catches each error and prints it the way a
# traceback's last line reads, so the notebook runs from top to bottom.

# %%
# --8<-- "sharp_bits.py:imports"


def show(call):
    """Call `call()`; print its value, or the error it raises (first line of the message,
    and the next non-empty one where the first ends with a colon)."""
    try:
        print(call())
    except Exception as error:  # the pitfalls below fail on purpose
        first, *rest = str(error).splitlines() or [""]
        more = [line for line in rest if line.strip()][:1] if first.endswith(":") else []
        print(f"{type(error).__name__}: {first}", *more, sep="\n")


# %% [markdown]
# ## 1. A Python if on a traced value

# %%
# --8<-- "sharp_bits.py:branch_pitfall"

# --8<-- "sharp_bits.py:branch_where"

# --8<-- "sharp_bits.py:branch_cond"

# %%
show(lambda: leaky_relu(-2.0))
show(lambda: leaky_relu_where(jnp.array([-1.0, 2.0])))
show(lambda: leaky_relu_cond(-2.0))

# %% [markdown]
# ## 2. A shape computed from a traced value

# %%
# --8<-- "sharp_bits.py:shape_pitfall"

# --8<-- "sharp_bits.py:shape_static"

# %%
show(lambda: mean_on_grid(5))
show(lambda: mean_on_grid_static(5))

# %% [markdown]
# ## 3. A tracer used as a Python integer

# %%
# --8<-- "sharp_bits.py:index_pitfall"

# --8<-- "sharp_bits.py:index_array"

# %%
show(lambda: weighted(10.0, 1))
show(lambda: weighted_array(10.0, 1))

# %% [markdown]
# ## 4. A tracer handed to NumPy

# %%
# --8<-- "sharp_bits.py:numpy_pitfall"

# --8<-- "sharp_bits.py:numpy_jnp"

# %%
show(lambda: norm(jnp.array([3.0, 4.0])))
show(lambda: norm_jnp(jnp.array([3.0, 4.0])))

# %% [markdown]
# ## 5. A boolean mask with a data-dependent size

# %%
# --8<-- "sharp_bits.py:mask_pitfall"

# --8<-- "sharp_bits.py:mask_where"

# %%
show(lambda: positive_sum(jnp.array([-1.0, 2.0, -3.0, 4.0])))
show(lambda: positive_sum_where(jnp.array([-1.0, 2.0, -3.0, 4.0])))

# %% [markdown]
# ## 6. print and a global, read while tracing (no error: a stale value)

# %%
# --8<-- "sharp_bits.py:trace_time_pitfall"

# %%
show(lambda: scaled(1.0))
SCALE = 3.0
show(lambda: scaled(1.0))  # still 2.0: the compiled program kept the old SCALE
SCALE = 2.0

# %% [markdown]
# ## 7. In-place assignment

# %%
# --8<-- "sharp_bits.py:inplace_pitfall"

# --8<-- "sharp_bits.py:inplace_at"

# %%
show(lambda: set_first(jnp.array([1.0, 2.0, 3.0]), 9.0))
show(lambda: set_first_at(jnp.array([1.0, 2.0, 3.0]), 9.0))

# %% [markdown]
# ## 8. An unhashable static argument

# %%
# --8<-- "sharp_bits.py:unhashable_pitfall"

# --8<-- "sharp_bits.py:unhashable_tuple"

# %%
show(lambda: polynomial(2.0, config={"coefficients": [1.0, 0.0, 3.0]}))
show(lambda: polynomial_tuple(2.0, coefficients=(1.0, 0.0, 3.0)))

# %% [markdown]
# ## 9. A leaked tracer

# %%
# --8<-- "sharp_bits.py:leak_pitfall"

# %%
show(lambda: step_and_record(1.0))
show(lambda: history[-1] + 1.0)  # the error comes at the next use

# %% [markdown]
# ## 10. A donated array, used again (an error at run time)

# %%
# --8<-- "sharp_bits.py:donate_pitfall"

# %%
x = jnp.zeros(3)
y = add_one_donated(x)
show(lambda: x + 1.0)
x = add_one_donated(jnp.zeros(3))  # the fix: keep only the result
show(lambda: x + 1.0)

# %% [markdown]
# ## 11. A Python loop, unrolled while tracing

# %%
# --8<-- "sharp_bits.py:loop_python"

# --8<-- "sharp_bits.py:loop_fori"

# %%
for fn in (euler_unrolled, euler_fori):
    n_equations = len(fn.trace(jnp.float32(0.1), n_steps=100).jaxpr.eqns)
    print(f"{fn.__name__}: {n_equations} jaxpr equations for 100 steps, "
          f"result {float(fn(jnp.float32(0.1), 100)):.6f}")
