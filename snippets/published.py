"""Timings published elsewhere, quoted with their sources: none is measured here.

The pages cite each source in a footnote; selu_benchmark.py and jax_history.py set
these beside the numbers of the machine that builds the site.
"""

# SELU on jnp.arange(1_000_000): (eager, jitted) seconds per call.
SELU = {
    # The JAX 101 notebook "Just-in-time compilation" (jax-ml/jax,
    # docs/jax-101/02-jitting.ipynb): its stored Colab outputs of 2022, %timeit
    # best of 5.
    "jax101": (2.05e-3, 150e-6),
    # The Korean blog post this site grows from, quoting the JAX docs' figures.
    "post": (2.5e-3, 0.15e-3),
}
