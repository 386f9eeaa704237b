"""snippets/training_loop_pauses_benchmark.py: what the quick build measured and logged, and what the page uses."""

import re

from project import QUICK_RESULTS, ROOT, quick_results

FOLDER = QUICK_RESULTS / "training_loop_pauses_benchmark"
PAGE = ROOT / "docs" / "training-loop-pauses.md"


def results():
    return quick_results("training_loop_pauses_benchmark")


def test_results_hold_every_table_figure_and_text_the_page_uses(built_site):
    r = results()
    page = PAGE.read_text()
    assert set(re.findall(r'table\("training_loop_pauses_benchmark", "(\w+)"\)', page)) == set(r["tables"])
    assert set(re.findall(r'figure\("training_loop_pauses_benchmark", "(\w+)"\)', page)) == set(r["figures"])
    for key in set(re.findall(r"training_loop_pauses_benchmark\.text\.(\w+)", page)):
        assert r["text"][key], key
    for figure in r["figures"].values():
        assert (FOLDER / figure["file"]).is_file() and figure["alt"]


def test_the_step_compiled_once_in_iteration_0_and_never_again(built_site):
    by_iteration = results()["data"]["log_by_iteration"]  # compilations JAX logged, per iteration
    assert list(by_iteration) == ["0"]
    compiled = by_iteration["0"]
    assert compiled.count("step") == 1
    eager = [name for name in compiled if name != "step"]  # the un-jitted evaluation, op by op
    assert len(eager) > 10 and {"tanh", "multiply"} <= set(eager)
    assert results()["text"]["step_cache"] == "1"


def test_every_loop_was_timed_at_every_iteration(built_site):
    timeline = results()["data"]["timeline"]
    assert list(timeline["seconds"]) == ["original", "jitted evaluation", "blocking every step",
                                         "logging 3x less often"]
    for seconds in timeline["seconds"].values():
        assert len(seconds) == timeline["n_iter"] and all(s > 0 for s in seconds)
    costs = results()["data"]["costs"]
    assert 0 <= costs["in_flight"] <= 32


def test_quick_mode_says_what_it_left_out(built_site):
    r = results()
    assert r["quick"] and "not run in quick mode" in (FOLDER / "scenarios.md").read_text()
    assert "scenarios" not in r["data"]


def test_the_page_is_built_with_its_figures(built_site):
    html = (built_site / "training-loop-pauses" / "index.html").read_text()
    assert "Why a training loop pauses" in html
    assert html.count("measured/training_loop_pauses_benchmark/timeline_") == 2
    text = re.sub(r"<[^>]+>", "", html)
    assert "JAX_LOG_COMPILES=1 JAX_EXPLAIN_CACHE_MISSES=1 python train.py" in text
