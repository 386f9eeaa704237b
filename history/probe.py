"""One process's measurements of jit's costs, for every JAX release from 0.4.13 on.

history/measure.py runs this file with each release's own Python (a virtual environment
per release) and reads the one JSON line it prints last. It imports only jax and NumPy,
uses no API younger than JAX 0.4.13 (except where it checks first: the `trace` stage),
and draws every input from NumPy's generator, so each release sees the same numbers.

    python history/probe.py [--quick]

What it times, each as seconds (median and quartiles of samples; one sample is the mean
of back-to-back calls), NumPy beside JAX in the same process as the machine's yardstick:

- selu_{eager,jit,numpy}_{small,large}: SELU on the JAX docs' input, the integers
  0 .. n-1 (int32 in, float32 out; NumPy on the same values as float32), at n = 1,000
  and 1,000,000 (quick: 1,000 and 10,000), given as n_small and n_large.
- dispatch_{eager,jit,numpy}: one small op (a + b on 10 float32), waited for each call.
- first_*: a new jitted SELU (a new constant, so no cache answers) at the larger n,
  split into the stages the release exposes: trace, lower, compile, first run
  (`jit(f).trace(x).lower().compile()`); releases without `trace` give trace and lower
  together (`jit(f).lower(x)`), in first_trace_lower. first_call: a plain first call.
- deeponet_{jit,eager}: one training step of a physics-informed DeepONet (branch and
  trunk MLPs of width 100, tanh, heat-equation residual by nested jax.grad and vmap,
  Adam written out), at one batch size; *_first: its first call.
- numpy_mlp: the DeepONet's forward pass on the same batch in NumPy, on one thread
  (a yardstick of matrix products, timed in turns with the jitted step).
- python_loop: a pure-Python loop (a yardstick no library version moves, timed in
  turns with dispatch).
- load_start, load_end: the machine's one-minute load average before and after.
- import_s, first_op_s: `import jax`, then the first array op (starting the backend).
"""

import json
import os
import sys
import time

# NumPy's matrix products on one thread: a yardstick that another program's load on
# the other cores moves less (OpenBLAS's threads spin and wait for each other).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
T0 = time.perf_counter()
import jax  # noqa: E402  (timed)
T1 = time.perf_counter()
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

jnp.zeros(1).block_until_ready()
T2 = time.perf_counter()

from jax import grad, vmap  # noqa: E402
from jax.tree_util import tree_leaves, tree_map  # noqa: E402

QUICK = "--quick" in sys.argv[1:]
SIZES = (1_000, 10_000) if QUICK else (1_000, 1_000_000)
REPEATS = 3 if QUICK else 21  # samples per timing
MIN_SAMPLE_S = 0.002 if QUICK else 0.025  # calls per sample: at least this long
FRESH = 2 if QUICK else 5  # new functions compiled for the first-call split
# The DeepONet: width 100 as in the paper's code; quick: a toy, for the tests.
WIDTH, DEPTH, SENSORS, BATCH = (8, 1, 8, 16) if QUICK else (100, 2, 32, 500)
EAGER_STEPS = 0 if QUICK else 5  # quick: none (an un-jitted first call takes seconds)
DIFFUSIVITY = 0.01


def block(tree):
    for leaf in tree_leaves(tree):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return tree


def quartiles(samples):
    q1, median, q3 = np.percentile(np.asarray(samples), [25, 50, 75])
    return {"median": float(median), "q1": float(q1), "q3": float(q3)}


def time_together(calls, repeats=REPEATS, min_sample_s=MIN_SAMPLE_S):
    """Seconds per call of each function, sampled in turn (so drift hits all alike)."""
    numbers = {}
    for name, fn in calls.items():
        fn()
        fn()  # warm: compiled, allocated
        number, elapsed = 1, 0.0
        while True:
            start = time.perf_counter()
            for _ in range(number):
                fn()
            elapsed = time.perf_counter() - start
            if elapsed >= min_sample_s or number >= 1 << 20:
                break
            number *= 2 if elapsed * 4 > min_sample_s else 8
        numbers[name] = number
    samples = {name: [] for name in calls}
    for _ in range(repeats):
        for name, fn in calls.items():
            number = numbers[name]
            start = time.perf_counter()
            for _ in range(number):
                fn()
            samples[name].append((time.perf_counter() - start) / number)
    return {name: quartiles(s) for name, s in samples.items()}


# --- SELU, the JAX docs' example ---------------------------------------------------

def selu(x, alpha=1.67, lambda_=1.05):
    return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def selu_numpy(x, alpha=1.67, lambda_=1.05):
    with np.errstate(over="ignore"):
        return lambda_ * np.where(x > 0, x, alpha * np.exp(x) - alpha)


def measure_selu(out):
    selu_jit = jax.jit(selu)
    for size, n in zip(("small", "large"), SIZES):
        x = jnp.arange(n)
        xn = np.arange(n, dtype=np.float32)
        timed = time_together({
            "eager": lambda x=x: selu(x).block_until_ready(),
            "jit": lambda x=x: selu_jit(x).block_until_ready(),
            "numpy": lambda xn=xn: selu_numpy(xn)})
        for way, t in timed.items():
            out[f"selu_{way}_{size}"] = t


def measure_dispatch(out):
    a = jnp.asarray(np.linspace(0, 1, 10, dtype=np.float32))
    b = jnp.asarray(np.linspace(1, 2, 10, dtype=np.float32))
    an, bn = np.asarray(a), np.asarray(b)
    add = jax.jit(lambda a, b: a + b)
    def python_loop():
        return sum(i * i for i in range(1000))

    timed = time_together({
        "eager": lambda: (a + b).block_until_ready(),
        "jit": lambda: add(a, b).block_until_ready(),
        "numpy": lambda: an + bn,
        "python": python_loop})
    for way in ("eager", "jit", "numpy"):
        out[f"dispatch_{way}"] = timed[way]
    out["python_loop"] = timed["python"]


def fresh_selu(i):
    """SELU with its own constant: a program no cache has seen."""
    alpha = 1.67 + 1e-3 * (i + 1)

    def f(x):
        return 1.05 * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
    return f


def measure_first_call(out):
    x = jnp.arange(SIZES[-1])
    names = ("trace", "lower", "trace_lower", "compile", "run", "call")
    stages = {k: [] for k in names}
    has_trace = hasattr(jax.jit(selu), "trace")
    out["stages"] = "trace/lower/compile" if has_trace else "lower/compile"
    for i in range(FRESH):
        jitted = jax.jit(fresh_selu(2 * i))
        t0 = time.perf_counter()
        if has_trace:
            traced = jitted.trace(x)
            t1 = time.perf_counter()
            lowered = traced.lower()
        else:
            t1 = None
            lowered = jitted.lower(x)
        t2 = time.perf_counter()
        compiled = lowered.compile()
        t3 = time.perf_counter()
        compiled(x).block_until_ready()
        t4 = time.perf_counter()
        if t1 is not None:
            stages["trace"].append(t1 - t0)
            stages["lower"].append(t2 - t1)
        stages["trace_lower"].append(t2 - t0)
        stages["compile"].append(t3 - t2)
        stages["run"].append(t4 - t3)
        plain = jax.jit(fresh_selu(2 * i + 1))
        t0 = time.perf_counter()
        plain(x).block_until_ready()
        stages["call"].append(time.perf_counter() - t0)
    for stage, samples in stages.items():
        out[f"first_{stage}"] = quartiles(samples) if samples else None


# --- A physics-informed DeepONet step (heat equation, periodic in x) ----------------

def init_mlp(rng, sizes):
    return [(jnp.asarray(rng.standard_normal((m, n), dtype=np.float32)
                         * np.float32(np.sqrt(2 / (m + n)))),
             jnp.zeros(n, dtype=jnp.float32))
            for m, n in zip(sizes[:-1], sizes[1:])]


def mlp(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def operator_net(params, u, y):
    branch, trunk = params
    return jnp.sum(mlp(branch, u) * mlp(trunk, y))


def residual(params, u, t, x):
    def s(t, x):
        return operator_net(params, u, jnp.stack([t, x]))
    s_xx = grad(grad(s, argnums=1), argnums=1)(t, x)
    return grad(s, argnums=0)(t, x) - DIFFUSIVITY * s_xx


def loss(params, ics, bcs, res):
    net = vmap(operator_net, in_axes=(None, 0, 0))
    u, y, s = ics
    loss_ics = jnp.mean((net(params, u, y) - s) ** 2)
    u, y = bcs
    right = y + jnp.array([0.0, 1.0])  # periodic: x = 0 and x = 1 agree
    loss_bcs = jnp.mean((net(params, u, y) - net(params, u, right)) ** 2)
    u, y = res
    r = vmap(residual, in_axes=(None, 0, 0, 0))(params, u, y[:, 0], y[:, 1])
    return 10.0 * loss_ics + loss_bcs + jnp.mean(r ** 2)


def step(i, state, ics, bcs, res):
    """One Adam step (learning rate 1e-3, decaying 0.9 per 2,000 steps), written out."""
    params, m, v = state
    g = grad(loss)(params, ics, bcs, res)
    lr = 1e-3 * 0.9 ** (i / 2000)
    m = tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    c1, c2 = 1 - 0.9 ** (i + 1), 1 - 0.999 ** (i + 1)
    params = tree_map(lambda p, m, v: p - lr * (m / c1) / (jnp.sqrt(v / c2) + 1e-8),
                      params, m, v)
    return params, m, v


def deeponet_problem():
    rng = np.random.default_rng(0)
    hidden = (WIDTH,) * DEPTH
    params = (init_mlp(rng, (SENSORS, *hidden, WIDTH)),
              init_mlp(rng, (2, *hidden, WIDTH)))
    zeros = tree_map(jnp.zeros_like, params)
    sensors = np.linspace(0, 1, SENSORS, endpoint=False, dtype=np.float32)

    def functions():  # u = a cos 2 pi x + b sin 2 pi x, sampled at the sensors
        a, b = rng.standard_normal((2, BATCH, 1)).astype(np.float32)
        return a, b, a * np.cos(2 * np.pi * sensors) + b * np.sin(2 * np.pi * sensors)

    a, b, u = functions()
    x = rng.uniform(size=BATCH).astype(np.float32)
    ics = (u, np.stack([np.zeros_like(x), x], 1),
           (a[:, 0] * np.cos(2 * np.pi * x) + b[:, 0] * np.sin(2 * np.pi * x)))
    bcs = (functions()[2], np.stack([rng.uniform(size=BATCH).astype(np.float32),
                                     np.zeros(BATCH, np.float32)], 1))
    res = (functions()[2], rng.uniform(size=(BATCH, 2)).astype(np.float32))
    batches = tree_map(jnp.asarray, (ics, bcs, res))
    numpy_params = tree_map(np.asarray, params)
    return (params, zeros, zeros), batches, numpy_params, (u, ics[1])


def numpy_forward(params, u, y):
    def mlp_np(params, x):
        for w, b in params[:-1]:
            x = np.tanh(x @ w + b)
        w, b = params[-1]
        return x @ w + b
    branch, trunk = params
    return np.sum(mlp_np(branch, u) * mlp_np(trunk, y), axis=1)


def measure_deeponet(out):
    state, batches, numpy_params, (u, y) = deeponet_problem()
    step_jit = jax.jit(step)
    ways = [("jit", step_jit, None)]
    if EAGER_STEPS:
        ways.append(("eager", step, EAGER_STEPS))
    for name, fn, steps in ways:
        t0 = time.perf_counter()
        first = block(fn(0, state, *batches))
        out[f"deeponet_{name}_first"] = time.perf_counter() - t0
        current = {"i": 1, "state": first}

        def one_step(fn=fn, current=current):
            current["state"] = block(fn(current["i"], current["state"], *batches))
            current["i"] += 1

        if steps is None:  # in turns with the yardstick: NumPy's forward pass
            timed = time_together(
                {"s": one_step, "np": lambda: numpy_forward(numpy_params, u, y)},
                max(REPEATS // 2, 3), MIN_SAMPLE_S * 2)
            out[f"deeponet_{name}"], out["numpy_mlp"] = timed["s"], timed["np"]
        else:
            samples = []
            for _ in range(steps):
                t0 = time.perf_counter()
                one_step()
                samples.append(time.perf_counter() - t0)
            out[f"deeponet_{name}"] = quartiles(samples)
    out["deeponet_size"] = {"width": WIDTH, "hidden_layers": DEPTH, "sensors": SENSORS,
                            "batch": BATCH}


def versions():
    try:
        from importlib.metadata import version
        jaxlib = version("jaxlib")
    except Exception:  # pragma: no cover - every release here has jaxlib's metadata
        import jaxlib.version
        jaxlib = jaxlib.version.__version__
    return {"jax": jax.__version__, "jaxlib": jaxlib, "numpy": np.__version__,
            "python": ".".join(map(str, sys.version_info[:3])),
            "backend": jax.default_backend()}


def load():
    """The machine's load average over the last minute: how busy its cores were."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def main():
    out = {**versions(), "quick": QUICK, "n_small": SIZES[0], "n_large": SIZES[1],
           "import_s": T1 - T0, "first_op_s": T2 - T1, "load_start": load()}
    start = time.perf_counter()
    measure_selu(out)
    measure_dispatch(out)
    measure_first_call(out)
    measure_deeponet(out)
    out["probe_s"] = time.perf_counter() - start
    out["load_end"] = load()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
