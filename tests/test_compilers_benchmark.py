"""snippets/compilers_benchmark.py: listings, the model, and the persistent cache the build measured."""


from project import QUICK_RESULTS, quick_results

FOLDER = QUICK_RESULTS / "compilers_benchmark"


def results():
    return quick_results("compilers_benchmark")


def test_second_process_finds_the_persistent_cache_entry(built_site):
    cache = results()["data"]["persistent_cache"]
    cold, warm = cache["runs"]["cold"][0], cache["runs"]["warm"][0]
    assert cache["entries"]["cold"][0] and cache["entries"]["cold"][0][0].startswith("jit_selu-")
    assert cache["entries"]["warm"][0] == cache["entries"]["cold"][0]  # nothing new written
    assert (cold["cache_hits"], cold["cache_writes"]) == (0, 1)  # JAX's monitoring events
    assert (warm["cache_hits"], warm["cache_writes"]) == (1, 0)
    assert any(line.startswith("Writing jit_selu to persistent compilation cache") for line in cold["log"])
    assert any(line.startswith("Persistent compilation cache hit for 'jit_selu'") for line in warm["log"])
    assert cold["in_effect"] == {"min_compile_time_secs": 0, "min_entry_size_bytes": -1}
    assert cold["defaults"]["min_compile_time_secs"] == 1.0  # what the chapter explains


def test_listings_show_the_fusion_and_the_cost_analysis(built_site):
    res = results()
    assert res["data"]["fusions"][0]["kind"] == "kLoop"
    assert res["data"]["cost"]["transcendentals"] == res["data"]["n_listing"]
    assert "fusion(" in res["text"]["hlo_entry"] and "stablehlo.exponential" in res["text"]["stablehlo"]
    assert res["data"]["model"]["ratio"] == 50 / 8
    assert res["data"]["export"]["round_trip_equal"] == [True, True]


def test_page_carries_tables_figure_and_collapsible_listings(built_site):
    res = results()
    assert res["tables"] == ["cost_analysis", "memory_model", "model_vs_measured", "persistent_cache"]
    assert set(res["figures"]) == {"model_vs_measured"}
    printed = (FOLDER / "stdout.txt").read_text()
    for table in res["tables"]:
        assert (FOLDER / f"{table}.md").read_text() in printed
    html = (built_site / "compilers" / "index.html").read_text()
    assert html.count("<details") >= 2  # StableHLO and optimized HLO, collapsed
    assert "kind=kLoop" in html and "Persistent compilation cache hit" in html
    assert res["text"]["model_ratio"] in html and res["stamp"] in html
