"""snippets/deeponet.py: the physics is right, the step is one function jitted or not, and it learns."""

from dataclasses import replace
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import deeponet as d
from compilation import count_compilations

# Tiny: on CPU each compilation of the step takes seconds, and fewer layers halve it.
CONFIG = replace(d.SMALL, width=8, depth=1, latent=8, batch_size=32)


@pytest.fixture(scope="module")
def functions():
    return d.random_functions(jax.random.key(0), CONFIG.n_functions, CONFIG.n_sensors)


@pytest.fixture(scope="module")
def batches(functions):
    return d.make_batches(jax.random.key(1), functions, CONFIG.batch_size)


def points(n, seed=2):
    t = jax.random.uniform(jax.random.key(seed), (n,), maxval=d.T_END)
    x = jax.random.uniform(jax.random.key(seed + 1), (n,))
    return t, x


# ------------------------------------------------------------------ the physics


@jax.jit
def residual_of_exact(coeffs, t, x):
    """The PDE residual of the exact solution for each function (rows) at each point (columns)."""
    def one(coeffs):
        return jax.vmap(partial(d.pde_residual, lambda t, x: d.exact_solution(coeffs, t, x)))(t, x)
    return jax.vmap(one)(coeffs)


@jax.jit
def residual_of_frozen(coeffs, t, x):
    """The same for u(x) held constant in time: no solution of the heat equation."""
    def one(coeffs):
        return jax.vmap(partial(d.pde_residual, lambda t, x: d.exact_solution(coeffs, 0.0, x)))(t, x)
    return jax.vmap(one)(coeffs)


def test_the_pde_residual_is_zero_on_the_exact_solution_only(functions):
    t, x = points(200)
    np.testing.assert_allclose(residual_of_exact(functions.coeffs, t, x), 0.0, atol=1e-5)
    frozen = np.abs(np.asarray(residual_of_frozen(functions.coeffs, t, x))).max(axis=1)
    assert np.all(frozen > 1e-2)  # the test has teeth: s_t = 0 there, k s_xx is not


def test_exact_solution_starts_at_the_input_and_is_periodic(functions):
    np.testing.assert_allclose(
        d.exact_solution(functions.coeffs[:, None], 0.0, d.sensors(CONFIG.n_sensors)),
        functions.u, atol=1e-6)
    t, _ = points(50)
    for coeffs in functions.coeffs[:3]:
        np.testing.assert_allclose(d.exact_solution(coeffs, t, 0.0), d.exact_solution(coeffs, t, 1.0),
                                   atol=1e-5)


def test_higher_modes_decay_faster():
    one = jnp.array([[1.0, 0.0], [0.0, 0.0]])  # cos(2 pi x)
    two = jnp.array([[0.0, 1.0], [0.0, 0.0]])  # cos(4 pi x)
    for coeffs, n in ((one, 1), (two, 2)):
        expected = np.exp(-d.DIFFUSIVITY * (2 * np.pi * n) ** 2 * d.T_END)
        np.testing.assert_allclose(d.exact_solution(coeffs, d.T_END, 0.0), expected, rtol=1e-5)


# ------------------------------------------------------------------ the network and the data


def test_operator_net_is_the_sum_of_branch_times_trunk(functions):
    params = d.init_params(jax.random.key(3), *d.layer_sizes(CONFIG))
    u, y = functions.u[0], jnp.array([0.3, 0.7])
    branch = d.mlp(params[0], u)
    trunk = d.mlp(params[1], 2 * y / jnp.array([d.T_END, 1.0]) - 1)
    assert branch.shape == trunk.shape == (CONFIG.latent,)
    np.testing.assert_allclose(d.operator_net(params, u, y), jnp.sum(branch * trunk), rtol=1e-6)


def test_network_residual_agrees_with_the_hessian(functions):
    params = d.init_params(jax.random.key(3), *d.layer_sizes(CONFIG))

    @jax.jit
    def both(u, y):
        def net(y):
            return d.operator_net(params, u, y)
        return d.residual(params, u, y), jax.grad(net)(y)[0] - d.DIFFUSIVITY * jax.hessian(net)(y)[1, 1]

    for y in (jnp.array([0.1, 0.2]), jnp.array([0.8, 0.95])):
        residual, expected = both(functions.u[1], y)
        np.testing.assert_allclose(residual, expected, rtol=1e-4, atol=1e-6)


def test_batches_hold_what_each_loss_term_needs(functions, batches):
    b, m = CONFIG.batch_size, CONFIG.n_sensors
    known = np.asarray(functions.u)
    batches = jax.tree.map(np.asarray, batches)
    for (u, y), s in batches:
        assert u.shape == (b, m) and y.shape == (b, 2) and s.shape == (b,)
        distance = np.abs(u[:, None] - known[None]).sum(-1)
        assert np.all(distance.min(axis=1) == 0)  # every u is one of the training functions
    (u, y), s = batches[0]
    assert np.all(y[:, 0] == 0)  # initial condition: t = 0, target u(x)
    idx = np.abs(u[:, None] - known[None]).sum(-1).argmin(axis=1)
    np.testing.assert_allclose(s, d.exact_solution(functions.coeffs[idx], 0.0, y[:, 1]), atol=1e-6)
    (u, y), s = batches[1]
    assert np.all(y[:, 1] == 0) and np.all(s == 0)  # boundary: x = 0, compared with x = 1
    (u, y), s = batches[2]
    assert np.all((y >= 0) & (y <= [d.T_END, 1.0])) and np.all(s == 0)


def test_batches_are_reproducible_and_differ_by_key(functions):
    a = d.make_batches(jax.random.key(5), functions, CONFIG.batch_size)
    b = d.make_batches(jax.random.key(5), functions, CONFIG.batch_size)
    c = d.make_batches(jax.random.key(6), functions, CONFIG.batch_size)
    jax.tree.map(np.testing.assert_array_equal, a, b)
    assert not np.array_equal(a[2][0][1], c[2][0][1])


# ------------------------------------------------------------------ the step
# (that the jitted and the un-jitted step give the same parameters is checked on the
# build's own run of both: tests/test_deeponet_benchmark.py)


def largest_difference(a, b):
    return max(float(np.abs(np.asarray(x) - np.asarray(y)).max())
               for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


def test_static_self_python_int_i_and_frozen_attributes(batches):
    model = d.PIDeepONet(CONFIG)
    first = model.step(next(model.itercount), model.opt_state, *batches)
    with count_compilations() as compiles:
        state = first
        for _ in range(5):  # a new Python int i each step: one compiled step serves them all
            state = model.step(next(model.itercount), state, *batches)
        model.ics_weight = 0.0  # too late: the compiled step keeps the value it was traced with
        stale = model.step(0, model.opt_state, *batches)
    assert compiles.total() == 0
    jax.tree.map(np.testing.assert_array_equal, stale, first)

    other = d.PIDeepONet(CONFIG, ics_weight=0.0)  # a new instance: hashed by identity, compiled anew
    with count_compilations() as compiles:
        fresh = other.step(0, other.opt_state, *batches)
    assert compiles.total() == 1
    assert largest_difference(other.get_params(fresh), model.get_params(first)) > 1e-4


# ------------------------------------------------------------------ training


def test_loss_decreases_over_a_short_run(functions):
    model = d.PIDeepONet(CONFIG)
    held = d.make_batches(jax.random.key(9), functions, 256)  # a fixed batch to compare on
    loss = jax.jit(d.loss)
    before = float(loss(model.params, *held))
    log = model.train(jax.random.key(4), functions, CONFIG.steps, log_every=10)
    after = float(loss(model.params, *held))
    assert after < 0.75 * before  # a start: the chapter's run trains DEFAULT far longer
    assert [row["step"] for row in log][:2] == [1, 11] and log[-1]["step"] == CONFIG.steps
    assert all(set(row) == {"step", "ics", "bcs", "res"} for row in log)
    assert all(np.isfinite(row[k]) for row in log for k in ("ics", "bcs", "res"))


def test_relative_l2_errors_one_per_function(functions):
    model = d.PIDeepONet(CONFIG)
    held_out = d.random_functions(jax.random.key(7), 4, CONFIG.n_sensors)
    errors = np.asarray(d.relative_l2_errors(model.params, held_out, n_t=3, n_x=8))
    assert errors.shape == (4,) and np.all(np.isfinite(errors)) and np.all(errors > 0)
    t, x = d.test_grid(3, 8)
    assert d.predict(model.params, held_out, t, x).shape == (4, 3, 8)
