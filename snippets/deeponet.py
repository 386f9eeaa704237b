"""A physics-informed DeepONet for the heat equation on a periodic interval, in JAX.

The operator it learns maps an initial condition u(x) to the solution s(t, x) of

    s_t = k s_xx   on 0 <= x < 1 (periodic), 0 <= t <= 1,   s(0, x) = u(x),

where u is a random Fourier series. The exact solution is known mode by mode (each mode
decays as exp(-k (2 pi n)^2 t)), so the trained network can be checked against it.

The class `PIDeepONet` keeps the shape of the physics-informed DeepONet code of Wang,
Wang and Perdikaris (Science Advances, 2021): the optimizer triple and an iteration
counter on `self`, and a training `step` compiled with
``@partial(jit, static_argnums=(0,))``. The code here is written for this site; the
structure and the `step` signature follow the paper's code. The file needs only JAX.

Run it to train briefly and print step times and the error:  python deeponet.py [steps]

Other snippets import: the constants (DIFFUSIVITY, T_END, N_MODES, N_SENSORS,
ICS_WEIGHT, LEARNING_RATE, DECAY_STEPS, DECAY_RATE), Config, DEFAULT, SMALL, Functions,
sensors, random_functions, exact_solution, make_batches, layer_sizes, init_params, mlp,
operator_net, pde_residual, residual, loss_terms, loss, evaluate_losses, predict,
test_grid, relative_l2_errors, demo and PIDeepONet (.step is jitted with self static;
PIDeepONet.step.__wrapped__ is the plain function).
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
    """Input functions: Fourier coefficients (n, 2, N_MODES), sensor values (n, m)."""
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
    a, b = coeffs[..., 0, :], coeffs[..., 1, :]
    modes = a * jnp.cos(wave * x) + b * jnp.sin(wave * x)
    return jnp.sum(jnp.exp(-DIFFUSIVITY * wave**2 * t) * modes, axis=-1)


@partial(jit, static_argnames=("n_functions", "n_sensors", "n_modes"))
def random_functions(key, n_functions, n_sensors=N_SENSORS, n_modes=N_MODES):
    """Random initial conditions, coefficients ~ Normal(0, 1/n^2): high modes small."""
    scale = 1.0 / jnp.arange(1, n_modes + 1)
    coeffs = jax.random.normal(key, (n_functions, 2, n_modes)) * scale
    u = exact_solution(coeffs[:, None], 0.0, sensors(n_sensors))
    return Functions(coeffs, u)
# --8<-- [end:problem]


# --8<-- [start:batches]
@partial(jit, static_argnames=("batch_size",))
def make_batches(key, functions, batch_size):
    """One training batch of each kind, B points each: ((u, y), s) with y = (t, x).

    ics: t = 0, target the initial condition; bcs: x = 0, target 0 (the loss compares
    x = 0 with x = 1); res: anywhere inside, target 0 (the PDE residual).
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
    """Sizes: `depth` hidden layers of `width`, and `latent` outputs per net."""
    width: int = 48
    depth: int = 4
    latent: int = 48
    n_sensors: int = N_SENSORS
    batch_size: int = 250
    n_functions: int = 500  # training functions
    n_test: int = 100  # held-out functions
    steps: int = 1000  # training steps of a short run
    seed: int = 0


DEFAULT = Config()
SMALL = Config(width=16, depth=2, latent=16, batch_size=64, n_functions=32, n_test=8,
               steps=60)


def layer_sizes(config):
    hidden = (config.width,) * config.depth
    return (config.n_sensors, *hidden, config.latent), (2, *hidden, config.latent)


@partial(jit, static_argnums=(1, 2))  # layer sizes: tuples of ints, fixed
def init_params(key, branch_layers, trunk_layers):
    """Glorot-normal weights, zero biases, for both nets."""
    def init_mlp(key, sizes):
        params = []
        keys = jax.random.split(key, len(sizes) - 1)
        for key, d_in, d_out in zip(keys, sizes[:-1], sizes[1:]):
            w = jax.random.normal(key, (d_in, d_out)) * jnp.sqrt(2 / (d_in + d_out))
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
    """G(u)(y): the branch net reads u at the sensors, the trunk net y = (t, x)."""
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
    """The network's PDE residual at one point y = (t, x), for the input function u."""
    def s(t, x):
        return operator_net(params, u, jnp.stack([t, x]))

    return pde_residual(s, y[0], y[1])


def loss_terms(params, ics_batch, bcs_batch, res_batch):
    """Mean squared error of each condition over its batch (vmap maps 1-point code)."""
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
                 decay_steps=DECAY_STEPS, decay_rate=DECAY_RATE,
                 ics_weight=ICS_WEIGHT):
        self.config = config
        self.ics_weight = ics_weight
        key = jax.random.key(config.seed) if key is None else key
        params = init_params(key, *layer_sizes(config))
        # --8<-- [start:optimizer]
        # The optimizer triple: build a state, update it, read the parameters back.
        schedule = optimizers.exponential_decay(learning_rate, decay_steps,
                                                decay_rate)
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
        """Train `n_steps`; every `log_every` steps log the loss terms on its batch."""
        log = []
        for n in range(n_steps):
            key, batch_key = jax.random.split(key)
            batches = make_batches(batch_key, functions, self.config.batch_size)
            i = next(self.itercount)
            self.opt_state = self.step(i, self.opt_state, *batches)
            if n % log_every == 0 or n == n_steps - 1:
                terms = evaluate_losses(self.params, *batches)
                log.append({"step": n + 1, **{k: float(v) for k, v in terms.items()}})
        return log
    # --8<-- [end:train]
# --8<-- [end:class]


# --8<-- [start:evaluate]
@jit
def predict(params, functions, t, x):
    """The network on the points (t, x), per function: shape (n_functions, *t.shape)."""
    y = jnp.stack(jnp.broadcast_arrays(t, x), axis=-1).reshape(-1, 2)

    def one(u):
        net = vmap(operator_net, in_axes=(None, None, 0))
        return net(params, u, y).reshape(jnp.shape(t))

    return vmap(one)(functions.u)


def test_grid(n_t=N_T_TEST, n_x=N_X_TEST):
    t = jnp.linspace(0.0, T_END, n_t)
    x = jnp.linspace(0.0, 1.0, n_x, endpoint=False)
    return jnp.meshgrid(t, x, indexing="ij")


@partial(jit, static_argnames=("n_t", "n_x"))
def relative_l2_errors(params, functions, n_t=N_T_TEST, n_x=N_X_TEST):
    """||prediction - exact|| / ||exact|| over a t-x grid, one per input function."""
    t, x = test_grid(n_t, n_x)
    exact = exact_solution(functions.coeffs[:, None, None], t, x)
    error = predict(params, functions, t, x) - exact
    def norms(a):
        return jnp.linalg.norm(a.reshape(len(a), -1), axis=1)

    return norms(error) / norms(exact)
# --8<-- [end:evaluate]



def demo(config=DEFAULT, steps=300, compare_eager=True):
    """Train briefly and print what a reader wants to know: step times and the error."""
    train_key, test_key, batch_key = jax.random.split(jax.random.key(config.seed), 3)
    functions = random_functions(train_key, config.n_functions, config.n_sensors)
    held_out = random_functions(test_key, config.n_test, config.n_sensors)
    model = PIDeepONet(config)
    batches = make_batches(batch_key, functions, config.batch_size)
    eager_step = partial(PIDeepONet.step.__wrapped__, model)  # the same code, op by op

    def per_step(step, n):
        start = time.perf_counter()
        for i in range(n):
            jax.block_until_ready(step(i, model.opt_state, *batches))
        return (time.perf_counter() - start) / n

    print(f"batch of {config.batch_size} points per loss term")
    first, steady = per_step(model.step, 1), per_step(model.step, 20)
    print(f"  jitted step:    first call {first:6.2f} s, then {steady * 1e3:8.2f} ms")
    if compare_eager:  # its first call compiles every primitive on its own: seconds
        first, eager = per_step(eager_step, 1), per_step(eager_step, 3)
        print(f"  un-jitted step: first call {first:6.2f} s, then {eager * 1e3:8.2f} ms"
              f"  ({eager / steady:.0f}x the jitted time)")

    start = time.perf_counter()
    log = model.train(jax.random.key(1), functions, steps, max(steps // 4, 1))
    seconds = time.perf_counter() - start
    for row in log:
        print(f"step {row['step']:5d}   loss ics {row['ics']:.2e}  bcs {row['bcs']:.2e}"
              f"  res {row['res']:.2e}")
    errors = [float(e) for e in relative_l2_errors(model.params, held_out)]
    print(f"{steps} steps in {seconds:.1f} s; relative L2 error against the exact "
          f"solution on {len(errors)} held-out inputs: mean "
          f"{sum(errors) / len(errors):.1%}, largest {max(errors):.1%}")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Train; print times and error.")
    parser.add_argument("steps", type=int, nargs="?", default=300,
                        help="training steps (the chapter trains 1000)")
    parser.add_argument("--quick", action="store_true", help="the tests' tiny size")
    args = parser.parse_args()
    if args.quick:  # each compilation of the step takes seconds: a tiny network
        from dataclasses import replace

        demo(replace(SMALL, width=8, depth=1, latent=8), steps=20, compare_eager=False)
    else:
        demo(steps=args.steps)
