"""snippets/training_loop_pauses_benchmark.py: what the quick build measured and logged
that docs/training-loop-pauses.md relies on (no test here asserts a timing)."""

import re

from project import quick_results


def results():
    return quick_results("training_loop_pauses_benchmark")


def test_the_step_compiled_once_in_iteration_0_and_never_again(built_site):
    by_iteration = results()["data"]["log_by_iteration"]  # compilations JAX logged
    assert list(by_iteration) == ["0"]
    compiled = by_iteration["0"]
    assert compiled.count("step") == 1
    eager = [name for name in compiled if name != "step"]  # un-jitted evaluation, op by op
    assert len(eager) > 10 and {"tanh", "multiply"} <= set(eager)
    assert results()["text"]["step_cache"] == "1"


def test_every_loop_was_timed_at_every_iteration_and_each_wait_measured(built_site):
    timeline = results()["data"]["timeline"]
    assert list(timeline["seconds"]) == ["original", "jitted evaluation",
                                         "blocking every step", "logging 3x less often"]
    n_iter, every = timeline["n_iter"], timeline["log_every"]
    for name, seconds in timeline["seconds"].items():
        assert len(seconds) == n_iter
        step = 3 * every if name == "logging 3x less often" else every
        assert len(timeline["waits"][name]) == len(range(0, n_iter, step)), name
    assert 0 <= results()["data"]["costs"]["in_flight"] <= 32


def test_numpy_batches_take_a_cache_entry_and_compile_nothing_even_in_quick_mode(
        built_site):
    r = results()
    numpy_batch = r["data"]["scenarios"]["numpy_batch"]
    assert [run["compiles"] for run in numpy_batch] == [0]
    before, after = numpy_batch[0]["cache"]
    assert after == before + 1
    table = results()["tables"]["scenarios"]
    assert "not run in quick mode" in table and "| 1 → 2 |" in table


def test_the_shared_cache_sizes_were_read_from_jax(built_site):
    sizes = results()["data"]["cache_sizes"]
    assert sizes["dispatch: compiled calls"] == 8192
    assert sizes["compiled executables"] == 2048
    assert "8,192" in results()["tables"]["caches"]


def test_the_page_is_built_with_its_figure_and_answer_first(built_site):
    html = (built_site / "training-loop-pauses" / "index.html").read_text()
    assert html.count("measured/training_loop_pauses_benchmark/timeline_") == 1
    text = re.sub(r"<[^>]+>", "", html)
    assert "JAX_LOG_COMPILES=1 JAX_EXPLAIN_CACHE_MISSES=1 python train.py" in text
    assert "56.9 ms" not in text and "8,192 entries (jax/_src/pjit.py), far more" not in text
