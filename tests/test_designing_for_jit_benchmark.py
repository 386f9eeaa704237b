"""snippets/designing_for_jit_benchmark.py: what the build measured, and what the page shows."""


from project import quick_results


def results():
    return quick_results("designing_for_jit_benchmark")


def test_results_hold_the_tables_and_the_documented_behaviour(built_site):
    r = results()
    assert r["tables"] == ["results", "times"]
    designs = r["data"]["designs"]
    assert {d: designs[d]["weight_used"] for d in designs} == {
        "static_self": "old", "explicit": "new", "pytree": "new"}
    assert all(designs[d]["max_param_difference"] <= 1e-6 for d in designs)
    assert all(designs[d]["new_programs_while_training"] == 0 for d in designs)
    assert designs["explicit"]["compiled_programs"] == designs["pytree"]["compiled_programs"] == 1
    assert all(designs[d]["first_step"] > designs[d]["steady"]["median"] for d in designs)


def test_design_page_shows_the_tables_and_the_code_of_each_design(built_site):
    html = (built_site / "designing-for-jit" / "index.html").read_text(encoding="utf-8")
    assert html.count("<table>") >= 3  # the static/traced table and two measured tables
    for code in ("static_argnums", "explicit_step", "register_dataclass", "count_compilations"):
        assert code in html, code
    assert results()["stamp"] in html
