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
