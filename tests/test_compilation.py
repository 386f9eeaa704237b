"""snippets/compilation.py: XLA compilations counted by function name."""

import jax
import jax.numpy as jnp

from compilation import count_compilations


def test_nothing_compiled_counts_nothing():
    with count_compilations() as compiled:
        pass
    assert compiled.total() == 0 and compiled.seconds == 0.0


def test_a_new_program_is_counted_by_name_and_a_cached_one_is_not():
    double, x = jax.jit(lambda x: 2 * x), jnp.ones(5)
    with count_compilations() as compiled:
        double(x).block_until_ready()
    assert compiled == {"jit(<lambda>)": 1} and compiled.seconds > 0
    with count_compilations() as again:
        double(x).block_until_ready()  # same shape: the cached program
    assert again.total() == 0
