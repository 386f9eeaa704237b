"""The same work in NumPy, Numba, PyTorch, TensorFlow and JAX: SELU and a training step.

Each framework's code sits in functions that import it, because the benchmark runs every
framework in a process of its own. The training step is the DeepONet chapter's: the same
network, loss and Adam, with weights, batch and constants handed over as NumPy arrays by
`problem()`, so every framework starts from the same numbers.

Run it to see every framework's SELU agree:  python snippets/frameworks.py [--quick]
(--quick: torch.compile with a backend that generates no C++, so it starts faster)
"""

# --8<-- [start:constants]
import numpy as np

ALPHA, LAMBDA = 1.67, 1.05  # SELU's constants, as in selu.py and JAX's docs
B1, B2, EPS = 0.9, 0.999, 1e-8  # Adam's, as in jax.example_libraries.optimizers.adam
# --8<-- [end:constants]


# --8<-- [start:selu_numpy]
def numpy_selu():
    def selu(x, alpha=ALPHA, lambda_=LAMBDA):
        with np.errstate(over="ignore"):  # exp overflows for large x; where() drops it
            return lambda_ * np.where(x > 0, x, alpha * np.exp(x) - alpha)
    return (lambda x: x), {"NumPy": selu}  # input as it is; the SELUs
# --8<-- [end:selu_numpy]


# --8<-- [start:selu_numba]
def numba_selu():
    import numba

    def selu_loop(x, out, alpha, lambda_):
        for i in numba.prange(x.size):  # prange is plain range unless parallel=True
            v = x[i]
            out[i] = lambda_ * (v if v > 0 else alpha * np.exp(v) - alpha)

    serial = numba.njit(selu_loop)
    parallel = numba.njit(parallel=True)(selu_loop)

    def call(loop):
        def selu(x):
            out = np.empty_like(x)
            # float32 constants: Python floats would make Numba compute in float64
            loop(x, out, np.float32(ALPHA), np.float32(LAMBDA))
            return out
        return selu
    variants = {"@njit": call(serial), "@njit(parallel=True)": call(parallel)}
    return (lambda x: x), variants
# --8<-- [end:selu_numba]


# --8<-- [start:selu_torch]
def torch_selu(compile_options=None):
    import torch

    def selu(x, alpha=ALPHA, lambda_=LAMBDA):
        return lambda_ * torch.where(x > 0, x, alpha * torch.exp(x) - alpha)
    compiled = torch.compile(selu, **(compile_options or {}))  # default: TorchInductor
    return torch.from_numpy, {"eager": selu, "torch.compile": compiled}
# --8<-- [end:selu_torch]


# --8<-- [start:selu_tensorflow]
def tensorflow_selu():
    import tensorflow as tf

    def selu(x, alpha=ALPHA, lambda_=LAMBDA):
        return lambda_ * tf.where(x > 0, x, alpha * tf.exp(x) - alpha)
    xla = tf.function(selu, jit_compile=True)  # compiled by XLA, as jax.jit is
    return tf.constant, {"eager": selu, "tf.function": tf.function(selu),
                         "tf.function(jit_compile=True)": xla}
# --8<-- [end:selu_tensorflow]


# --8<-- [start:selu_jax]
def jax_selu():
    import jax

    from selu import selu  # the SELU chapter's function, unchanged

    def ready(f):  # JAX returns before the work is done: wait for it
        return lambda x: f(x).block_until_ready()
    return jax.numpy.asarray, {"eager": ready(selu), "jax.jit": ready(jax.jit(selu))}
# --8<-- [end:selu_jax]


# --8<-- [start:problem]
def problem(config):
    """The DeepONet chapter's initial weights and a training batch, as NumPy arrays."""
    import jax

    import deeponet as d

    model = d.PIDeepONet(config)  # weights from the chapter's seed
    functions = d.random_functions(jax.random.key(1), config.n_functions,
                                   config.n_sensors)
    (ics, bcs, res) = d.make_batches(jax.random.key(2), functions, config.batch_size)
    branch, trunk = model.params
    flat = [np.asarray(a) for layer in (*branch, *trunk) for a in layer]
    arrays = [ics[0][0], ics[0][1], ics[1], bcs[0][0], bcs[0][1], res[0][0], res[0][1]]
    return {"params": flat, "n_branch": 2 * len(branch),
            "batch": [np.asarray(a) for a in arrays],
            "k": d.DIFFUSIVITY, "t_end": d.T_END, "ics_weight": d.ICS_WEIGHT,
            "lr": d.LEARNING_RATE, "decay_steps": d.DECAY_STEPS,
            "decay_rate": d.DECAY_RATE}


def learning_rate(p, i):
    """The chapter's schedule, exponential_decay: lr * rate ** (i / steps)."""
    return p["lr"] * p["decay_rate"] ** (i / p["decay_steps"])
# --8<-- [end:problem]


# --8<-- [start:step_torch]
def torch_step(p, physics, compile_options=None):
    """One Adam step; with `physics`, the loss adds the PDE and periodic terms."""
    import torch

    params = [torch.tensor(a, requires_grad=True) for a in p["params"]]
    m = [torch.zeros_like(a) for a in params]
    v = [torch.zeros_like(a) for a in params]
    u0, y0, s0, u1, y1, u2, y2 = (torch.tensor(a) for a in p["batch"])
    scale, shift = torch.tensor([p["t_end"], 1.0]), torch.tensor([0.0, 1.0])

    def mlp(ws, x):
        for w, b in zip(ws[:-2:2], ws[1:-2:2]):
            x = torch.tanh(x @ w + b)
        return x @ ws[-2] + ws[-1]

    def net(u, y):  # one value per point: sum(branch(u) * trunk(y))
        n = p["n_branch"]
        return (mlp(params[:n], u) * mlp(params[n:], 2 * y / scale - 1)).sum(-1)

    def d_dy(s, y):  # ds/dy at each point (points are independent of each other)
        return torch.autograd.grad(s, y, torch.ones_like(s), create_graph=True)[0]

    def loss():
        data = ((net(u0, y0) - s0) ** 2).mean()
        if not physics:
            return data
        y = y1.clone().requires_grad_()  # d/dy: the network differentiated by its input
        left, right = net(u1, y), net(u1, y + shift)  # periodic: x = 0 against x = 1
        bcs = ((left - right) ** 2).mean() + (
            (d_dy(left, y)[:, 1] - d_dy(right, y)[:, 1]) ** 2).mean()
        y = y2.clone().requires_grad_()
        s_y = d_dy(net(u2, y), y)
        s_xx = d_dy(s_y[:, 1], y)[:, 1]
        res = ((s_y[:, 0] - p["k"] * s_xx) ** 2).mean()
        return p["ics_weight"] * data + bcs + res

    def step(i, lr):  # i and lr are tensors: a new Python number would recompile
        value = loss()
        grads = torch.autograd.grad(value, params)
        with torch.no_grad():
            for x, g, m_, v_ in zip(params, grads, m, v):
                m_.mul_(B1).add_((1 - B1) * g)
                v_.mul_(B2).add_((1 - B2) * g * g)
                m_hat, v_hat = m_ / (1 - B1 ** (i + 1)), v_ / (1 - B2 ** (i + 1))
                x.sub_(lr * m_hat / (v_hat.sqrt() + EPS))
        return value.detach()

    if compile_options is not None:
        step = torch.compile(step, **compile_options)
    counter = iter(range(1 << 62))

    def run():
        i = next(counter)
        return float(step(torch.tensor(float(i)), torch.tensor(learning_rate(p, i))))
    return run, lambda: [a.detach().numpy() for a in params]
# --8<-- [end:step_torch]


# --8<-- [start:step_tensorflow]
def tensorflow_step(p, physics, function_options=None):
    """The same step in TensorFlow; with options (maybe {}), wrapped in tf.function."""
    import tensorflow as tf

    params = [tf.Variable(a) for a in p["params"]]
    m = [tf.Variable(tf.zeros_like(a)) for a in params]
    v = [tf.Variable(tf.zeros_like(a)) for a in params]
    u0, y0, s0, u1, y1, u2, y2 = (tf.constant(a) for a in p["batch"])
    scale, shift = tf.constant([p["t_end"], 1.0]), tf.constant([0.0, 1.0])

    def mlp(ws, x):
        for w, b in zip(ws[:-2:2], ws[1:-2:2]):
            x = tf.tanh(x @ w + b)
        return x @ ws[-2] + ws[-1]

    def net(u, y):
        n = p["n_branch"]
        branch, trunk = mlp(params[:n], u), mlp(params[n:], 2 * y / scale - 1)
        return tf.reduce_sum(branch * trunk, -1)

    def mean_sq(x):
        return tf.reduce_mean(x ** 2)

    def loss():
        data = mean_sq(net(u0, y0) - s0)
        if not physics:
            return data
        with tf.GradientTape(persistent=True) as tape:  # records ops on y for d/dy
            tape.watch(y1)
            left, right = net(u1, y1), net(u1, y1 + shift)
        s_x = tape.gradient(left, y1)[:, 1] - tape.gradient(right, y1)[:, 1]
        bcs = mean_sq(left - right) + mean_sq(s_x)
        with tf.GradientTape() as outer:  # nested tapes: a second derivative
            outer.watch(y2)
            with tf.GradientTape() as inner:
                inner.watch(y2)
                s = net(u2, y2)
            s_y = inner.gradient(s, y2)
            s_x = s_y[:, 1]
        s_xx = outer.gradient(s_x, y2)[:, 1]
        res = mean_sq(s_y[:, 0] - p["k"] * s_xx)
        return p["ics_weight"] * data + bcs + res

    def step(i, lr):  # tensors: a new Python number would retrace
        with tf.GradientTape() as tape:
            value = loss()
        grads = tape.gradient(value, params)
        for x, g, m_, v_ in zip(params, grads, m, v):
            m_.assign(B1 * m_ + (1 - B1) * g)
            v_.assign(B2 * v_ + (1 - B2) * g * g)
            m_hat, v_hat = m_ / (1 - B1 ** (i + 1)), v_ / (1 - B2 ** (i + 1))
            x.assign_sub(lr * m_hat / (tf.sqrt(v_hat) + EPS))
        return value

    if function_options is not None:
        step = tf.function(step, **function_options)
    counter = iter(range(1 << 62))

    def run():
        i = next(counter)
        return float(step(tf.constant(float(i)), tf.constant(learning_rate(p, i))))
    return run, lambda: [a.numpy() for a in params]
# --8<-- [end:step_tensorflow]


# --8<-- [start:step_jax]
def jax_step(p, physics, jit):
    """The DeepONet chapter's loss and optimizer, from the same weights and batch."""
    import jax
    import jax.numpy as jnp
    from jax.example_libraries import optimizers

    import deeponet as d

    n = p["n_branch"]
    ws = [jnp.asarray(a) for a in p["params"]]
    pairs = list(zip(ws[::2], ws[1::2]))
    params = (pairs[:n // 2], pairs[n // 2:])
    u0, y0, s0, u1, y1, u2, y2 = (jnp.asarray(a) for a in p["batch"])
    batches = ((u0, y0), s0), ((u1, y1), 0 * y1[:, 0]), ((u2, y2), 0 * y2[:, 0])
    schedule = optimizers.exponential_decay(p["lr"], p["decay_steps"], p["decay_rate"])
    opt_init, opt_update, get_params = optimizers.adam(schedule)

    def data_loss(params, ics_batch):  # the initial-condition term alone
        (u, y), s = ics_batch
        return jnp.mean((jax.vmap(d.operator_net, (None, 0, 0))(params, u, y) - s) ** 2)

    def step(i, state, ics, bcs, res):  # the loss before the update, like the others
        params = get_params(state)
        if physics:  # the chapter's loss, unchanged
            value, g = jax.value_and_grad(d.loss)(params, ics, bcs, res)
        else:
            value, g = jax.value_and_grad(data_loss)(params, ics)
        return opt_update(i, g, state), value

    step = jax.jit(step) if jit else step
    state, counter = [opt_init(params)], iter(range(1 << 62))

    def run():
        # i as an array, as the others get tensors; eager JAX gets a float: an int i,
        # even in an array, makes Adam's b1 ** (i + 1) an integer_pow compiled per i
        i = jnp.asarray(next(counter), None if jit else jnp.float32)
        state[0], value = jax.block_until_ready(step(i, state[0], *batches))
        return float(value)
    def flat():
        return [np.asarray(a) for pair in sum(get_params(state[0]), []) for a in pair]
    return run, flat
# --8<-- [end:step_jax]


SELU = {"numpy": numpy_selu, "numba": numba_selu, "torch": torch_selu,
        "tensorflow": tensorflow_selu, "jax": jax_selu}


def demo(name, quick=False):
    """Every SELU of one framework on seven values."""
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    options = {"backend": "aot_eager"} if quick else {}  # quick: no C++ to compile
    convert, variants = SELU[name](options) if name == "torch" else SELU[name]()
    for label, selu in variants.items():
        print(f"{name} {label}".ljust(42), np.asarray(selu(convert(x))).round(4))


if __name__ == "__main__":
    import subprocess
    import sys

    quick = "--quick" in sys.argv
    if sys.argv[1:2] and sys.argv[1] in SELU:
        demo(sys.argv[1], quick)
    else:  # each framework in a process of its own, as the benchmark runs them
        print("input".ljust(42), np.linspace(-3, 3, 7, dtype=np.float32))
        for name in SELU:
            subprocess.run([sys.executable, __file__, name] + sys.argv[1:], check=True)
