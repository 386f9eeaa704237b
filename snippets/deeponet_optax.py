"""The PI-DeepONet training step with Optax in place of jax.example_libraries.optimizers.

`jax.example_libraries.optimizers` still ships with JAX, but its docstring points to Optax.
The same Adam with the same exponential decay, and a step that needs no `self`:

    python deeponet_optax.py    # runs both optimizers side by side and compares them
"""

# --8<-- [start:optax]
import jax
import optax

from deeponet import DECAY_RATE, DECAY_STEPS, LEARNING_RATE, loss

# The schedule and Adam of PIDeepONet.__init__, the Optax way:
# learning rate = LEARNING_RATE * DECAY_RATE ** (count / DECAY_STEPS), as in example_libraries.
schedule = optax.exponential_decay(LEARNING_RATE, transition_steps=DECAY_STEPS,
                                   decay_rate=DECAY_RATE)
optimizer = optax.adam(schedule)


@jax.jit
def optax_step(params, opt_state, ics_batch, bcs_batch, res_batch):
    g = jax.grad(loss)(params, ics_batch, bcs_batch, res_batch)
    updates, opt_state = optimizer.update(g, opt_state)  # the step count lives in opt_state
    return optax.apply_updates(params, updates), opt_state
# --8<-- [end:optax]


def compare(config, n_steps=3, seed=0):
    """Run both optimizers from the same start on the same batches; the largest difference."""
    import numpy as np

    from deeponet import PIDeepONet, make_batches, random_functions

    model = PIDeepONet(config)
    functions = random_functions(jax.random.key(seed), config.n_functions, config.n_sensors)
    params, opt_state, state = model.params, optimizer.init(model.params), model.opt_state
    for i in range(n_steps):
        batches = make_batches(jax.random.key(seed + 1 + i), functions, config.batch_size)
        state = model.step(i, state, *batches)
        params, opt_state = optax_step(params, opt_state, *batches)
    ours, theirs = jax.tree.leaves(model.get_params(state)), jax.tree.leaves(params)
    return max(float(abs(np.asarray(a) - np.asarray(b)).max()) for a, b in zip(ours, theirs))


if __name__ == "__main__":
    from deeponet import SMALL

    print(f"largest parameter difference after 5 steps, example_libraries against Optax: "
          f"{compare(SMALL, n_steps=5):.2e}")
