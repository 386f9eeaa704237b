"""A physics-informed DeepONet for the heat equation on a periodic interval, in plain JAX.

The operator it learns maps an initial condition u(x) to the solution s(t, x) of

    s_t = k s_xx   on 0 <= x < 1 (periodic), 0 <= t <= 1,   s(0, x) = u(x),

where u is a random Fourier series. The exact solution is known mode by mode (each mode
decays as exp(-k (2 pi n)^2 t)), so the trained network can be checked against it.

The class `PIDeepONet` keeps the shape of the physics-informed DeepONet code of Wang, Wang
and Perdikaris (Science Advances, 2021): the optimizer triple and an iteration counter on
`self`, and a training `step` compiled with ``@partial(jit, static_argnums=(0,))``. The code
here is written for this site; the structure and the `step` signature follow the paper's code.

Run it to train briefly and print step times and the error:  python deeponet.py

Public API (other snippets import these; keep them stable):

    DIFFUSIVITY, T_END, N_MODES, N_SENSORS, ICS_WEIGHT   the problem's constants
    LEARNING_RATE, DECAY_STEPS, DECAY_RATE   the optimizer's schedule (shared with the Optax version)
    Config, DEFAULT, SMALL      network and batch sizes; SMALL is for tests
    Functions                   NamedTuple(coeffs, u): input functions and their sensor values
    sensors(n_sensors)          the fixed points where the branch net sees u
    random_functions(key, n_functions, n_sensors=N_SENSORS, n_modes=N_MODES) -> Functions
    exact_solution(coeffs, t, x)      the heat equation's solution, broadcasting over t and x
    make_batches(key, functions, batch_size) -> (ics_batch, bcs_batch, res_batch)
                                each batch is ((u, y), s): u (B, m), y (B, 2) = (t, x), s (B,)
    layer_sizes(config) -> (branch_layers, trunk_layers)
    init_params(key, branch_layers, trunk_layers) -> (branch_params, trunk_params)
    mlp(params, x)              tanh multilayer perceptron
    operator_net(params, u, y)  the DeepONet: sum(branch(u) * trunk(y)), one point
    pde_residual(s, t, x)       s_t - k s_xx of any scalar function s(t, x), by jax.grad
    residual(params, u, y)      the network's PDE residual at one point y = (t, x)
    loss_terms(params, ics_batch, bcs_batch, res_batch) -> {"ics", "bcs", "res"}
    loss(params, ics_batch, bcs_batch, res_batch, ics_weight=ICS_WEIGHT)
    evaluate_losses             jax.jit(loss_terms)
    predict(params, functions, t, x)            the network on points (t, x), for each function
    test_grid(n_t=N_T_TEST, n_x=N_X_TEST) -> (t, x)   the held-out error's grid
    relative_l2_errors(params, functions, n_t=N_T_TEST, n_x=N_X_TEST)  one error per function
    demo(config=DEFAULT, steps=300)             what `python deeponet.py [steps]` runs
    PIDeepONet(config=DEFAULT, key=None, ...)   .opt_init, .opt_update, .get_params,
                                .opt_state, .itercount, .ics_weight, .loss(params, ...),
                                .step(i, opt_state, ics_batch, bcs_batch, res_batch) (jitted),
                                .params, .train(key, functions, n_steps, log_every)

Already wrapped in jax.jit: random_functions, exact_solution, make_batches (batch_size static),
init_params (layer sizes static), evaluate_losses, predict, relative_l2_errors and
PIDeepONet.step (self static; PIDeepONet.step.__wrapped__ is the plain function). The rest are
plain functions, to be composed and jitted by the caller.
"""

# --8<-- [start:imports]
import itertools
import time
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import grad, jit, vmap
from jax.example_libraries import optimizers
# --8<-- [end:imports]

# --8<-- [start:problem]
DIFFUSIVITY = 0.01  # k in s_t = k s_xx
T_END = 1.0  # time runs over [0, T_END]; space over [0, 1), periodic
N_MODES = 2  # Fourier modes in each random initial condition
N_SENSORS = 32  # points where the branch net sees the initial condition
ICS_WEIGHT = 10.0  # the initial condition weighs more than the other loss terms
LEARNING_RATE, DECAY_STEPS, DECAY_RATE = 3e-3, 2000, 0.9  # Adam, exponential decay
N_T_TEST, N_X_TEST = 11, 64  # grid for the held-out error


class Functions(NamedTuple):
    """Input functions: Fourier coefficients (n, 2, N_MODES) and values at the sensors (n, m)."""
    coeffs: jax.Array
    u: jax.Array


def sensors(n_sensors=N_SENSORS):
    return jnp.linspace(0.0, 1.0, n_sensors, endpoint=False)


@jit
def exact_solution(coeffs, t, x):
    """s(t, x) for initial conditions sum_n a_n cos(2 pi n x) + b_n sin(2 pi n x).

    `coeffs[..., 0, :]` are the a_n, `coeffs[..., 1, :]` the b_n (n = 1 .. N); each mode
    decays on its own as exp(-k (2 pi n)^2 t). The leading axes of `coeffs` broadcast
    against those of `t` and `x`.
    """
    wave = 2 * jnp.pi * jnp.arange(1, coeffs.shape[-1] + 1)
    t, x = jnp.asarray(t)[..., None], jnp.asarray(x)[..., None]
    modes = coeffs[..., 0, :] * jnp.cos(wave * x) + coeffs[..., 1, :] * jnp.sin(wave * x)
    return jnp.sum(jnp.exp(-DIFFUSIVITY * wave**2 * t) * modes, axis=-1)


@partial(jit, static_argnames=("n_functions", "n_sensors", "n_modes"))
def random_functions(key, n_functions, n_sensors=N_SENSORS, n_modes=N_MODES):
    """Random initial conditions: coefficients ~ Normal(0, 1/n^2), so higher modes are smaller."""
    scale = 1.0 / jnp.arange(1, n_modes + 1)
    coeffs = jax.random.normal(key, (n_functions, 2, n_modes)) * scale
    u = exact_solution(coeffs[:, None], 0.0, sensors(n_sensors))
    return Functions(coeffs, u)
# --8<-- [end:problem]


# --8<-- [start:batches]
@partial(jit, static_argnames=("batch_size",))
def make_batches(key, functions, batch_size):
    """One training batch of each kind, B points each: ((u, y), s) with y = (t, x).

    ics: t = 0, target the initial condition; bcs: x = 0, target 0 (the loss compares x = 0
    with x = 1); res: anywhere inside, target 0 (the PDE residual).
    """
    keys = jax.random.split(key, 6)
    n = functions.u.shape[0]

    def draw(k):  # which input function each point belongs to
        idx = jax.random.randint(k, (batch_size,), 0, n)
        return functions.coeffs[idx], functions.u[idx]

    zeros = jnp.zeros(batch_size)
    coeffs, u = draw(keys[0])
    x = jax.random.uniform(keys[1], (batch_size,))
    ics = ((u, jnp.stack([zeros, x], axis=1)), exact_solution(coeffs, 0.0, x))
    _, u = draw(keys[2])
    t = jax.random.uniform(keys[3], (batch_size,), maxval=T_END)
    bcs = ((u, jnp.stack([t, zeros], axis=1)), zeros)
    _, u = draw(keys[4])
    y = jax.random.uniform(keys[5], (batch_size, 2)) * jnp.array([T_END, 1.0])
    res = ((u, y), zeros)
    return ics, bcs, res
# --8<-- [end:batches]


# --8<-- [start:network]
@dataclass(frozen=True)
class Config:
    """Sizes: hidden layers of `width`, `depth` of them, and `latent` outputs per net."""
    width: int = 48
    depth: int = 4
    latent: int = 48
    n_sensors: int = N_SENSORS
    batch_size: int = 250
    n_functions: int = 500  # training functions
    n_test: int = 100  # held-out functions
    steps: int = 2000  # training steps of a short run
    seed: int = 0


DEFAULT = Config()
SMALL = Config(width=16, depth=2, latent=16, batch_size=64, n_functions=32, n_test=8, steps=60)


def layer_sizes(config):
    hidden = (config.width,) * config.depth
    return (config.n_sensors, *hidden, config.latent), (2, *hidden, config.latent)


@partial(jit, static_argnums=(1, 2))  # layer sizes: tuples of ints, fixed
def init_params(key, branch_layers, trunk_layers):
    """Glorot-normal weights, zero biases, for both nets."""
    def init_mlp(key, sizes):
        params = []
        for key, d_in, d_out in zip(jax.random.split(key, len(sizes) - 1), sizes[:-1], sizes[1:]):
            w = jax.random.normal(key, (d_in, d_out)) * jnp.sqrt(2.0 / (d_in + d_out))
            params.append((w, jnp.zeros(d_out)))
        return params

    branch_key, trunk_key = jax.random.split(key)
    return init_mlp(branch_key, branch_layers), init_mlp(trunk_key, trunk_layers)


def mlp(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def operator_net(params, u, y):
    """G(u)(y): the branch net reads u at the sensors, the trunk net reads y = (t, x)."""
    branch_params, trunk_params = params
    y = 2 * y / jnp.array([T_END, 1.0]) - 1  # scaled to [-1, 1], where tanh bends
    return jnp.sum(mlp(branch_params, u) * mlp(trunk_params, y))
# --8<-- [end:network]


# --8<-- [start:loss]
def pde_residual(s, t, x):
    """s_t - k s_xx for any scalar function s(t, x), by automatic differentiation."""
    s_t = grad(s, argnums=0)(t, x)
    s_xx = grad(grad(s, argnums=1), argnums=1)(t, x)
    return s_t - DIFFUSIVITY * s_xx


def residual(params, u, y):
    """The PDE residual of the network at one point y = (t, x), for the input function u."""
    return pde_residual(lambda t, x: operator_net(params, u, jnp.stack([t, x])), y[0], y[1])


def loss_terms(params, ics_batch, bcs_batch, res_batch):
    """Mean squared error of each condition, over its batch (vmap maps the one-point code)."""
    net = vmap(operator_net, in_axes=(None, 0, 0))
    (u, y), s = ics_batch
    ics = jnp.mean((net(params, u, y) - s) ** 2)

    (u, y), _ = bcs_batch  # periodic: s and s_x agree at x = 0 and x = 1
    y_right = y + jnp.array([0.0, 1.0])
    s_x = vmap(grad(operator_net, argnums=2), in_axes=(None, 0, 0))
    bcs = (jnp.mean((net(params, u, y) - net(params, u, y_right)) ** 2)
           + jnp.mean((s_x(params, u, y)[:, 1] - s_x(params, u, y_right)[:, 1]) ** 2))

    (u, y), target = res_batch
    res = jnp.mean((vmap(residual, in_axes=(None, 0, 0))(params, u, y) - target) ** 2)
    return {"ics": ics, "bcs": bcs, "res": res}


def loss(params, ics_batch, bcs_batch, res_batch, ics_weight=ICS_WEIGHT):
    terms = loss_terms(params, ics_batch, bcs_batch, res_batch)
    return ics_weight * terms["ics"] + terms["bcs"] + terms["res"]


evaluate_losses = jit(loss_terms)  # logging: compiled once, not run op by op
# --8<-- [end:loss]


# --8<-- [start:class]
class PIDeepONet:
    def __init__(self, config=DEFAULT, key=None, learning_rate=LEARNING_RATE,
                 decay_steps=DECAY_STEPS, decay_rate=DECAY_RATE, ics_weight=ICS_WEIGHT):
        self.config = config
        self.ics_weight = ics_weight
        key = jax.random.key(config.seed) if key is None else key
        params = init_params(key, *layer_sizes(config))
        # --8<-- [start:optimizer]
        # The optimizer triple: build a state, update it with a gradient, read the parameters.
        schedule = optimizers.exponential_decay(learning_rate, decay_steps, decay_rate)
        self.opt_init, self.opt_update, self.get_params = optimizers.adam(schedule)
        self.opt_state = self.opt_init(params)
        self.itercount = itertools.count()  # i: a plain Python int, 0, 1, 2, ...
        # --8<-- [end:optimizer]

    def loss(self, params, ics_batch, bcs_batch, res_batch):
        return loss(params, ics_batch, bcs_batch, res_batch, self.ics_weight)

    # --8<-- [start:step]
    @partial(jit, static_argnums=(0,))
    def step(self, i, opt_state, ics_batch, bcs_batch, res_batch):
        params = self.get_params(opt_state)
        g = grad(self.loss)(params, ics_batch, bcs_batch, res_batch)
        return self.opt_update(i, g, opt_state)
    # --8<-- [end:step]

    @property
    def params(self):
        return self.get_params(self.opt_state)

    # --8<-- [start:train]
    def train(self, key, functions, n_steps, log_every=100):
        """Train for `n_steps`; every `log_every` steps record the loss terms on that batch."""
        log = []
        for n in range(n_steps):
            key, batch_key = jax.random.split(key)
            batches = make_batches(batch_key, functions, self.config.batch_size)
            self.opt_state = self.step(next(self.itercount), self.opt_state, *batches)
            if n % log_every == 0 or n == n_steps - 1:
                terms = evaluate_losses(self.params, *batches)
                log.append({"step": n + 1, **{k: float(v) for k, v in terms.items()}})
        return log
    # --8<-- [end:train]
# --8<-- [end:class]


# --8<-- [start:evaluate]
@jit
def predict(params, functions, t, x):
    """The network on the points (t, x), for each function: shape (n_functions, *t.shape)."""
    y = jnp.stack(jnp.broadcast_arrays(t, x), axis=-1).reshape(-1, 2)

    def one(u):
        return vmap(operator_net, in_axes=(None, None, 0))(params, u, y).reshape(jnp.shape(t))

    return vmap(one)(functions.u)


def test_grid(n_t=N_T_TEST, n_x=N_X_TEST):
    return jnp.meshgrid(jnp.linspace(0.0, T_END, n_t), jnp.linspace(0.0, 1.0, n_x, endpoint=False),
                        indexing="ij")


@partial(jit, static_argnames=("n_t", "n_x"))
def relative_l2_errors(params, functions, n_t=N_T_TEST, n_x=N_X_TEST):
    """||prediction - exact|| / ||exact|| over a t-x grid, one number per input function."""
    t, x = test_grid(n_t, n_x)
    exact = exact_solution(functions.coeffs[:, None, None], t, x)
    error = predict(params, functions, t, x) - exact
    return jnp.linalg.norm(error.reshape(len(error), -1), axis=1) / \
        jnp.linalg.norm(exact.reshape(len(exact), -1), axis=1)
# --8<-- [end:evaluate]


def demo(config=DEFAULT, steps=300, compare_eager=True):
    """Train briefly and print what a reader wants to know: step times and the error."""
    train_key, test_key, batch_key = jax.random.split(jax.random.key(config.seed), 3)
    functions = random_functions(train_key, config.n_functions, config.n_sensors)
    held_out = random_functions(test_key, config.n_test, config.n_sensors)
    model = PIDeepONet(config)
    batches = make_batches(batch_key, functions, config.batch_size)
    eager_step = partial(PIDeepONet.step.__wrapped__, model)  # the same code, run op by op

    def seconds_per_step(step, n):
        start = time.perf_counter()
        for i in range(n):
            jax.block_until_ready(step(i, model.opt_state, *batches))
        return (time.perf_counter() - start) / n

    first_jit, jitted = seconds_per_step(model.step, 1), seconds_per_step(model.step, 20)
    print(f"batch of {config.batch_size} points per loss term")
    print(f"  jitted step:    first call {first_jit:6.2f} s, then {jitted * 1e3:7.2f} ms per step")
    if compare_eager:  # its first call compiles every primitive on its own: seconds
        first_eager, eager = seconds_per_step(eager_step, 1), seconds_per_step(eager_step, 2)
        print(f"  un-jitted step: first call {first_eager:6.2f} s, then {eager * 1e3:7.2f} ms per step"
              f"  ({eager / jitted:.0f}x the jitted time)")

    start = time.perf_counter()
    log = model.train(jax.random.key(1), functions, steps, log_every=max(steps // 4, 1))
    seconds = time.perf_counter() - start
    for row in log:
        print(f"step {row['step']:5d}   loss ics {row['ics']:.2e}  bcs {row['bcs']:.2e}  "
              f"res {row['res']:.2e}")
    errors = [float(e) for e in relative_l2_errors(model.params, held_out)]
    print(f"{steps} steps in {seconds:.1f} s; relative L2 error against the exact solution on "
          f"{len(errors)} held-out initial conditions: mean {sum(errors) / len(errors):.1%}, "
          f"largest {max(errors):.1%}")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Train the PI-DeepONet briefly; print step times and error.")
    parser.add_argument("steps", type=int, nargs="?", default=300, help="training steps (the chapter trains 2000)")
    parser.add_argument("--quick", action="store_true", help="the small size the tests use")
    args = parser.parse_args()
    demo(SMALL, steps=20, compare_eager=False) if args.quick else demo(steps=args.steps)
