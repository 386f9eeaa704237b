"""snippets/compilers_benchmark.py: what the compilers page shows from the build."""

from project import ROOT, quick_results


def results():
    return quick_results("compilers_benchmark")


def test_persistent_cache_runs_behaved_as_the_page_says(built_site):
    cache = results()["data"]["persistent_cache"]
    cold, warm = cache["runs"]["cold"][0], cache["runs"]["warm"][0]
    moved = cache["runs"]["moved"][0]
    assert cache["entries"]["cold"][0][0].startswith("jit_selu-")
    assert cache["entries"]["warm"][0] == cache["entries"]["cold"][0]  # nothing new
    assert (cold["cache_hits"], cold["cache_writes"]) == (0, 1)  # JAX's events
    assert (warm["cache_hits"], warm["cache_writes"]) == (1, 0)
    assert (moved["cache_hits"], moved["cache_writes"]) == (0, 1)  # the move missed
    assert len(cache["entries"]["moved"][0]) == 2
    assert any(line.startswith("Persistent compilation cache hit for 'jit_selu'")
               for line in warm["log"])
    assert cold["defaults"]["min_compile_time_secs"] == 1.0  # what the page explains
    assert cache["configured_late"]["second"] == []


def test_page_shows_the_fusion_without_build_paths(built_site):
    res = results()
    html = (built_site / "compilers" / "index.html").read_text()
    assert "kind=kLoop" in html and "exponential" in html
    assert "metadata=" not in html and str(ROOT) not in html
    assert "<tmp>/moved" in html or "&lt;tmp&gt;/moved" in html
    assert res["text"]["capacity"]["dispatch"] == "8,192" and "8,192" in html
    assert "exported for platforms" in html


def test_the_model_against_the_range_says_when_it_sits_at_an_edge():
    from compilers_benchmark import against_model
    from measurement import Timing

    jit = Timing([0.9, 1.0, 1.1], 1)  # quartiles 0.95 and 1.05
    assert against_model(Timing([5.9, 6.25, 7.5], 1), jit, 6.25) == "within the range"
    # the range's lower end, 6.25 / 1.05 = 5.95, lies within 5 % of the model, 6.0
    assert against_model(Timing([6.0, 6.5, 7.0], 1), jit, 6.0) == "at the edge of the range"
    assert against_model(Timing([7.0, 7.5, 8.0], 1), jit, 6.25) == "below the range"
    assert against_model(Timing([4.0, 4.5, 5.0], 1), jit, 6.25) == "above the range"
