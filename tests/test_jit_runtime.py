"""snippets/jit_runtime.py: break-even arithmetic, dispatch bookkeeping, buffer donation."""

import math

import jax.numpy as jnp
import numpy as np
import pytest

from jit_runtime import (add_one_donating, break_even_range, bytes_moved, calls_to_break_even,
                         copy_into, dispatch_timeline, donated_loop, donation_demo, fresh_output,
                         page_faults_per_call, selu_donating, time_one_call)
from measurement import Timing
from selu import random_input, selu_jit


def test_break_even_is_the_first_call_count_where_jit_is_cheaper():
    first, jit, other = 10.0, 1.0, 2.0
    n = calls_to_break_even(first, jit, other)
    assert n == 10
    total_jit = lambda calls: first + (calls - 1) * jit  # noqa: E731
    assert total_jit(n) < n * other and not total_jit(n - 1) < (n - 1) * other


def test_break_even_edge_cases():
    assert calls_to_break_even(5.0, 2.0, 2.0) == math.inf  # no saving: never
    assert calls_to_break_even(5.0, 3.0, 2.0) == math.inf  # jit slower: never
    assert calls_to_break_even(1.0, 0.5, 2.0) == 1  # even the first call is cheaper


def test_break_even_range_spans_the_quartiles():
    first = Timing([9.0, 10.0, 11.0], 1)
    jit = Timing([0.9, 1.0, 1.1], 1)
    other = Timing([1.5, 2.0, 2.5], 1)
    median, low, high = break_even_range(first, jit, other)
    assert low <= median <= high
    assert median == calls_to_break_even(10.0, 1.0, 2.0)
    assert low == calls_to_break_even(first.q1, jit.q1, other.q3)
    assert high == calls_to_break_even(first.q3, jit.q3, other.q1)


def test_break_even_range_says_never_when_a_corner_has_no_saving():
    median, low, high = break_even_range(Timing([10.0] * 3, 1), Timing([1.0, 1.0, 3.0], 1),
                                         Timing([1.5, 2.0, 2.0], 1))
    assert high == math.inf and low < math.inf


def test_a_donated_input_cannot_be_used_afterwards():
    x = random_input(1000)
    donated = x.copy()
    y = selu_donating(donated)
    assert donated.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        donated + 1
    np.testing.assert_array_equal(np.asarray(y), np.asarray(selu_jit(x)))  # the same result


def test_donation_demo_returns_the_result_and_the_error():
    x = random_input(10)
    y, message = donation_demo(x.copy())
    assert "deleted" in message
    np.testing.assert_array_equal(np.asarray(y), np.asarray(selu_jit(x)))


def test_donated_loop_leaves_the_callers_array_alive_and_feeds_results_back():
    x = jnp.zeros(4)
    step = donated_loop(add_one_donating, x)
    for _ in range(3):
        step()
    assert not x.is_deleted()
    np.testing.assert_array_equal(np.asarray(x), 0.0)


def test_probes_do_what_they_say():
    src, dst = np.arange(5, dtype=np.float32), np.zeros(5, np.float32)
    copy_into(src, dst)()
    np.testing.assert_array_equal(dst, src)
    fresh_output(selu_jit, jnp.ones(3))()
    assert bytes_moved(np.zeros(10, np.float32)) == 80


def test_dispatch_timeline_records_every_call_in_order():
    returned, ready = dispatch_timeline(selu_jit, jnp.ones(1000), calls=5)
    assert len(returned) == len(ready) == 5
    assert all(r <= d for r, d in zip(returned, ready))  # a result is ready after its call returns
    assert ready == sorted(ready)  # waited for in order
    bare, blocked = time_one_call(selu_jit, jnp.ones(1000))
    assert 0 < bare <= blocked


def test_page_faults_per_call_counts_something_sensible():
    faults, kernel_share = page_faults_per_call(lambda: np.ones(10), calls=2)
    assert faults >= 0 and 0 <= kernel_share <= 1
