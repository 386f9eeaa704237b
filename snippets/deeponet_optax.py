"""The PI-DeepONet training step with Optax instead of jax.example_libraries.optimizers.

`jax.example_libraries.optimizers` still ships with JAX, but its docstring points to
Optax. The same Adam with the same exponential decay, and a step that needs no `self`:

    python deeponet_optax.py    # runs both optimizers side by side and compares them
"""

# --8<-- [start:imports]
import jax
import optax
# --8<-- [end:imports]

from deeponet import DECAY_RATE, DECAY_STEPS, LEARNING_RATE, loss  # the model's file

# --8<-- [start:optax]
# The schedule and Adam of PIDeepONet.__init__, the Optax way: learning rate =
# LEARNING_RATE * DECAY_RATE ** (count / DECAY_STEPS), as in example_libraries.
schedule = optax.exponential_decay(LEARNING_RATE, transition_steps=DECAY_STEPS,
                                   decay_rate=DECAY_RATE)
optimizer = optax.adam(schedule)


@jax.jit
def optax_step(params, opt_state, ics_batch, bcs_batch, res_batch):
    g = jax.grad(loss)(params, ics_batch, bcs_batch, res_batch)
    updates, opt_state = optimizer.update(g, opt_state)  # it counts steps in opt_state
    return optax.apply_updates(params, updates), opt_state
# --8<-- [end:optax]


def compare(config, n_steps=3, seed=0):
    """Both optimizers from one start on the same batches: the largest difference."""
    import numpy as np

    from deeponet import PIDeepONet, make_batches, random_functions

    model = PIDeepONet(config)
    key = jax.random.key(seed)
    functions = random_functions(key, config.n_functions, config.n_sensors)
    params, state = model.params, model.opt_state
    opt_state = optimizer.init(params)
    for i in range(n_steps):
        key = jax.random.key(seed + 1 + i)
        batches = make_batches(key, functions, config.batch_size)
        state = model.step(i, state, *batches)
        params, opt_state = optax_step(params, opt_state, *batches)
    ours, theirs = jax.tree.leaves(model.get_params(state)), jax.tree.leaves(params)
    return max(float(abs(np.asarray(a) - np.asarray(b)).max())
               for a, b in zip(ours, theirs))


if __name__ == "__main__":
    import sys
    from dataclasses import replace

    from deeponet import SMALL

    # --quick (the tests): a tiny network, as each compilation of the step takes seconds
    config = (replace(SMALL, width=8, depth=1, latent=8) if "--quick" in sys.argv
              else SMALL)
    print("largest parameter difference after 5 steps, example_libraries against "
          f"Optax: {compare(config, n_steps=5):.2e}")
