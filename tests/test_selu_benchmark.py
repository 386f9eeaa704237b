"""snippets/selu_benchmark.py: what the build measured, and what a reader's run prints."""

from project import QUICK_RESULTS, quick_results

FOLDER = QUICK_RESULTS / "selu_benchmark"


def test_results_hold_every_table_figure_and_number_the_pages_use(built_site):
    results = quick_results("selu_benchmark")
    assert results["tables"] == ["first_call", "headline", "published", "scaling"]
    assert set(results["figures"]) == {"first_call", "scaling"}
    for key in ("jit_vs_eager", "jit_vs_numpy", "compile", "trace_and_lower", "steady", "n"):
        assert results["text"][key], key
    first = results["data"]["first_call"]
    assert first["compile"] > 0 and first["trace_and_lower"] > 0 and first["steady"] > 0
    scaling = results["data"]["scaling"]
    assert scaling["n"] == [1_000, 10_000, 100_000]
    assert all(len(scaling[k]) == 3 for k in ("eager", "jit", "numpy"))


def test_published_figures_are_quoted_with_their_source(built_site):
    published = (FOLDER / "published.md").read_text()
    assert "2.05 ms" in published and "150 µs" in published and "02-jitting.ipynb" in published
    assert "this build" in published
