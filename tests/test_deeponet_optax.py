"""snippets/deeponet_optax.py: Optax's Adam with exponential decay is the example_libraries one."""

from dataclasses import replace

import jax
import numpy as np

import deeponet as d
from deeponet_optax import optax_step, optimizer, schedule
from jax.example_libraries import optimizers

# Tiny: on CPU each compilation of the step takes seconds, and fewer layers halve it.
CONFIG = replace(d.SMALL, width=8, depth=1, latent=8, batch_size=32)


def test_the_schedules_agree():
    theirs = optimizers.exponential_decay(d.LEARNING_RATE, d.DECAY_STEPS, d.DECAY_RATE)
    for i in (0, 1, 10, 1999, 2000, 5000):
        np.testing.assert_allclose(schedule(i), theirs(i), rtol=1e-6)


def test_the_optimizers_agree_step_by_step():
    model = d.PIDeepONet(CONFIG)
    functions = d.random_functions(jax.random.key(0), CONFIG.n_functions, CONFIG.n_sensors)
    state, params, opt_state = model.opt_state, model.params, optimizer.init(model.params)
    for i in range(3):
        batches = d.make_batches(jax.random.key(1 + i), functions, CONFIG.batch_size)
        state = model.step(i, state, *batches)
        params, opt_state = optax_step(params, opt_state, *batches)
        if i == 0:
            moved = max(float(np.abs(np.asarray(a) - np.asarray(b)).max()) for a, b in
                        zip(jax.tree.leaves(params), jax.tree.leaves(model.params)))
            assert moved > 1e-3
        jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6),
                     model.get_params(state), params)
