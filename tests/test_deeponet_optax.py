"""snippets/deeponet_optax.py: Optax's Adam with exponential decay is the example_libraries one."""

import jax
import jax.numpy as jnp
import numpy as np

import deeponet as d
from deeponet_optax import compare, optax_step, optimizer, schedule
from jax.example_libraries import optimizers


def test_the_schedules_agree():
    theirs = optimizers.exponential_decay(d.LEARNING_RATE, d.DECAY_STEPS, d.DECAY_RATE)
    for i in (0, 1, 10, 1999, 2000, 5000):
        np.testing.assert_allclose(schedule(i), theirs(i), rtol=1e-6)


def test_the_optimizers_agree_on_a_step():
    model = d.PIDeepONet(d.SMALL)
    functions = d.random_functions(jax.random.key(0), d.SMALL.n_functions, d.SMALL.n_sensors)
    batches = d.make_batches(jax.random.key(1), functions, d.SMALL.batch_size)
    ours = model.get_params(model.step(0, model.opt_state, *batches))
    params, _ = optax_step(model.params, optimizer.init(model.params), *batches)
    moved = max(float(jnp.abs(a - b).max()) for a, b in
                zip(jax.tree.leaves(params), jax.tree.leaves(model.params)))
    assert moved > 1e-3
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6), ours, params)


def test_the_optimizers_stay_together_over_several_steps():
    assert compare(d.SMALL, n_steps=5) < 1e-5
