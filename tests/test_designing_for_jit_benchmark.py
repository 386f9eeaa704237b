"""snippets/designing_for_jit_benchmark.py: what the build measured, and what the page shows.

Timings are never asserted; the documented behaviour of each design is.
"""


from project import quick_results


def results():
    return quick_results("designing_for_jit_benchmark")


def test_results_hold_the_tables_and_the_documented_behaviour(built_site):
    r = results()
    assert list(r["tables"]) == ["donation", "results", "times"]
    designs = r["data"]["designs"]
    assert {d: designs[d]["weight_used"] for d in designs} == {
        "static_self": "old", "explicit": "new", "pytree": "new"}
    assert all(designs[d]["max_param_difference"] <= 1e-6 for d in designs)
    assert all(designs[d]["new_programs_while_training"] == 0 for d in designs)
    assert designs["explicit"]["compiled_programs"] == 1
    assert designs["pytree"]["compiled_programs"] == 1
    assert set(r["data"]["donation"]) == {"explicit", "pytree"}


def test_design_page_shows_the_tables_and_the_code_of_each_design(built_site):
    html = (built_site / "designing-for-jit" / "index.html").read_text(encoding="utf-8")
    assert html.count("<table>") >= 4  # static/traced, results, times, donation
    for code in ("static_argnums", "explicit_step", "register_dataclass",
                 "count_compilations", "donate_argnums"):
        assert code in html, code
    assert "faq.html#how-to-use-jit-with-methods" in html
    assert results()["stamp"] in html
