"""snippets/selu_benchmark.py: what the SELU page relies on, as the build measured it."""


import jax.numpy as jnp
import pytest

from measurement import DocumentationMismatch, Report
from project import quick_results
from selu_benchmark import (NORMAL, check_int32_conversions, check_same_size_agrees,
                            cores_busy, xla_threads)

def test_threads_are_read_from_the_optimized_program():
    assert xla_threads(jnp.ones(1000)) == 1  # too small to split
    assert xla_threads(jnp.ones(1_000_000)) >= 1


def test_cores_busy_counts_one_thread_for_pure_python():
    assert 0 <= cores_busy(lambda: sum(range(1000)), seconds=0.01) <= 1.5  # one thread


def test_the_int32_conversions_the_page_describes():
    check_int32_conversions()  # raises if JAX traces int32 SELU otherwise


def test_results_state_threads_and_the_eager_first_call(built_site):
    results = quick_results("selu_benchmark")
    assert set(results["figures"]) == {"first_call", "scaling"}
    threads = results["data"]["threads"]
    assert threads["xla"] >= 1 and threads["cores_busy"]["numpy"] <= 1.5
    assert "NumPy on 1" in results["text"]["threads"]
    first = results["data"]["first_call"]
    assert first["eager_compilations"] >= 3  # each primitive compiled for the new shape
    assert len(results["data"]["scaling"]["xla_threads"]) == len(results["data"]["scaling"]["n"])
    assert "NumPy, float32 (1 thread)" in results["tables"]["headline"]


def test_published_figures_are_quoted_with_their_source(built_site):
    published = quick_results("selu_benchmark")["tables"]["published"]
    assert "2.05 ms" in published and "150 µs" in published and "02-jitting.ipynb" in published
    assert "this build" in published


def _timings(eager, jit, numpy):
    return {way: {"median": seconds} for way, seconds in
            zip(("eager", "jit", "numpy"), (eager, jit, numpy))}


def test_headline_and_scaling_row_at_the_same_size_must_agree():
    report = Report()
    report.data["headline"] = {NORMAL: _timings(3.5e-3, 5e-4, 1e-2)}
    report.data["scaling"] = {"n": [10**5, 10**6], **{
        way: [{"median": 1.0}, t] for way, t in _timings(3.9e-3, 6e-4, 1e-2).items()}}
    check_same_size_agrees(report, 10**6, quick=False)  # within 1.5x: passes
    report.data["headline"][NORMAL]["eager"]["median"] = 7e-3
    with pytest.raises(DocumentationMismatch, match="eager SELU at n = 1,000,000"):
        check_same_size_agrees(report, 10**6, quick=False)
