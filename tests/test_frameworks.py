"""snippets/frameworks.py: every framework computes the same SELU and the same training step.

The compiled variants of PyTorch and TensorFlow are left to the build (frameworks_benchmark
checks every variant and fails on disagreement): compiling them here would cost seconds each.
The steps here are the data-only ones: the quick build checks the physics-informed step of
PyTorch eager and TensorFlow eager against jax.jit's, and compiling that here would double it.
"""

import numpy as np
import pytest

import frameworks as fw
from deeponet import PIDeepONet
from frameworks_benchmark import QUICK  # one small hidden layer: quick compiles
from frameworks_worker import selu_input

STEPS = 3


@pytest.fixture(scope="module")
def x():
    return selu_input(1000)


@pytest.fixture(scope="module")
def reference(x):
    _, variants = fw.jax_selu()
    return np.asarray(variants["jax.jit"](x))


@pytest.mark.parametrize("name", ["numpy", "numba", "torch", "tensorflow", "jax"])
def test_each_frameworks_selu_agrees_with_jax(name, x, reference):
    convert, variants = fw.SELU[name]()
    for label, selu in variants.items():
        if label == "torch.compile":
            continue
        out = np.asarray(selu(convert(x)))
        assert out.dtype == np.float32, label
        np.testing.assert_allclose(out, reference, rtol=0, atol=1e-5, err_msg=label)


def test_selu_takes_both_branches(x, reference):
    assert (x > 0).any() and (x < 0).any()
    assert reference.min() > -1.05 * 1.67  # the negative branch saturates at -lambda * alpha


@pytest.fixture(scope="module")
def problem():
    return fw.problem(QUICK)


def steps(build):
    run, params = build()
    losses = [run() for _ in range(STEPS)]
    return losses, [np.array(a) for a in params()]


@pytest.fixture(scope="module")
def jax_data_steps(problem):
    return steps(lambda: fw.jax_step(problem, False, jit=True))


@pytest.mark.parametrize("variant", ["torch eager", "tensorflow eager"])
def test_data_step_agrees_with_jax_after_a_few_steps(variant, problem, jax_data_steps):
    build = {"torch eager": lambda: fw.torch_step(problem, False),
             "tensorflow eager": lambda: fw.tensorflow_step(problem, False)}[variant]
    losses, params = steps(build)
    ref_losses, ref_params = jax_data_steps
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-4)
    assert losses[-1] < losses[0], "three Adam steps on one batch lower its loss"
    for a, b in zip(params, ref_params):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-5)


def test_eager_jax_step_agrees_and_compiles_nothing_after_its_first_calls(
        problem, jax_data_steps):
    # a step number that eager JAX sees as a concrete int compiles Adam's b1 ** (i + 1)
    # anew at every step: the timings would measure that compile, not the step
    import jax.monitoring

    run, params = fw.jax_step(problem, False, jit=False)
    losses = [run() for _ in range(STEPS)]
    np.testing.assert_allclose(losses, jax_data_steps[0], rtol=1e-4)
    for a, b in zip(params(), jax_data_steps[1]):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-5)
    compiles = []

    def listener(event, seconds, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(seconds)
    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        run(), run()
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    assert not compiles, f"eager JAX compiled {len(compiles)} times on later steps"


def test_problem_hands_over_the_deeponet_weights(problem):
    branch, trunk = PIDeepONet(QUICK).params
    assert len(problem["params"]) == 2 * (len(branch) + len(trunk))
    np.testing.assert_array_equal(problem["params"][0], np.asarray(branch[0][0]))
    assert all(a.dtype == np.float32 for a in problem["params"] + problem["batch"])
