"""How jit's gain grows with the work, in one process, on the backend JAX picks
(JAX_PLATFORMS). measure.py runs it; it prints one JSON line.

    JAX_PLATFORMS=tpu python accelerator/scaling.py [--quick]

It imports history/probe.py, so that both probes time alike and run the same code: its
timer (samples in turn, each the mean of back-to-back calls; warm-up apart), its SELU
(the JAX docs' example, on jnp.arange(n) as int32; NumPy on the same values as float32)
and its DeepONet training step (branch and trunk MLPs of width 100, a heat-equation
residual by nested grad and vmap, Adam written out). What it times, in seconds:

- selu_{eager,jit,numpy}_{n}: at n = 10^3 ... 10^7 (quick: 10^3, 10^4), and
  selu_{jit,eager}_first_{n}: the first call at that n (jit: trace and compile for the
  new shape; eager: each operation's own compile for it).
- deeponet_{jit,eager}_b{batch}: one training step at 64, 250, 1000 and 4000 points per
  loss term (quick: 64, a toy network), and deeponet_{jit,eager}_first_b{batch}: the
  first step at that batch. Un-jitted steps take about a second each on a TPU: a few
  single-step samples, not the timer's batches of calls.
"""

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "history"), str(HERE)]
# The probe imports jax and starts the backend (timed there); it reads --quick itself.
import probe  # noqa: E402
import dataset  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

QUICK = probe.QUICK
SELU_SIZES = dataset.QUICK_SELU_SIZES if QUICK else dataset.SELU_SIZES
BATCHES = dataset.QUICK_BATCHES if QUICK else dataset.BATCHES
# Un-jitted steps after the first, per batch: fewer at the largest, the slowest.
EAGER_STEPS = {64: 3, 250: 3, 1000: 3, 4000: 2}
JIT_REPEATS = max(probe.REPEATS // 2, 3)  # as the probe times its jitted step


def seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure_selu(out):
    selu_jit = jax.jit(probe.selu)
    for n in SELU_SIZES:
        x = jnp.arange(n)
        xn = np.arange(n, dtype=np.float32)
        out[f"selu_jit_first_{n}"] = seconds(
            lambda x=x: selu_jit(x).block_until_ready())
        out[f"selu_eager_first_{n}"] = seconds(
            lambda x=x: probe.selu(x).block_until_ready())
        timed = probe.time_together({
            "eager": lambda x=x: probe.selu(x).block_until_ready(),
            "jit": lambda x=x: selu_jit(x).block_until_ready(),
            "numpy": lambda xn=xn: probe.selu_numpy(xn)})
        for way, t in timed.items():
            out[f"selu_{way}_{n}"] = t


def measure_deeponet(out):
    step_jit = jax.jit(probe.step)
    for batch in BATCHES:
        probe.BATCH = batch  # deeponet_problem reads it; the same seed at every batch
        state, batches, _, _ = probe.deeponet_problem()
        for way, fn in (("jit", step_jit), ("eager", probe.step)):
            current = {"i": 1}

            def first(fn=fn, current=current, state=state, batches=batches):
                current["state"] = probe.block(fn(0, state, *batches))

            def one_step(fn=fn, current=current, batches=batches):
                current["state"] = probe.block(
                    fn(current["i"], current["state"], *batches))
                current["i"] += 1

            out[f"deeponet_{way}_first_b{batch}"] = seconds(first)
            if way == "jit":
                out[f"deeponet_jit_b{batch}"] = probe.time_together(
                    {"s": one_step}, JIT_REPEATS, probe.MIN_SAMPLE_S * 2)["s"]
            else:
                steps = 1 if QUICK else EAGER_STEPS[batch]
                out[f"deeponet_eager_b{batch}"] = probe.quartiles(
                    [seconds(one_step) for _ in range(steps)])
    out["deeponet_size"] = {"width": probe.WIDTH, "hidden_layers": probe.DEPTH,
                            "sensors": probe.SENSORS}


def main():
    out = {**probe.versions(), "quick": QUICK, "import_s": probe.T1 - probe.T0,
           "first_op_s": probe.T2 - probe.T1, "load_start": probe.load()}
    start = time.perf_counter()
    measure_selu(out)
    measure_deeponet(out)
    out["probe_s"] = time.perf_counter() - start
    out["load_end"] = probe.load()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
