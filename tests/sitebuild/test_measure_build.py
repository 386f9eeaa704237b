"""sitebuild/measure_build.py: the parts that need no full builds (the script itself runs
four builds and a `mkdocs serve`; run it by hand: python sitebuild/measure_build.py)."""

import json
import shutil

import pytest

import measure_build


def test_two_builds_are_sorted_into_identical_numbers_only_and_other(built_site, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(built_site, a)
    shutil.copytree(built_site, b)
    selu = b / "selu" / "index.html"
    selu.write_text(selu.read_text().replace("Measured on", "Measured 12.5 ms on"))
    a_only = (a / "selu" / "index.html").read_text().replace("Measured on", "Measured 980 µs on")
    (a / "selu" / "index.html").write_text(a_only)
    home = b / "index.html"
    home.write_text(home.read_text().replace("<h2", "<h3", 1))
    (b / "sitemap.xml.gz").unlink()
    found = measure_build.compare_sites(a, b)
    assert found["numbers"] == ["selu/index.html"]  # 980 µs against 12.5 ms: a measured value
    assert list(found["other"]) == ["index.html"]
    before, after = found["other"]["index.html"]
    assert "<h2" in before and "<h3" in after
    assert found["only_first"] == ["sitemap.xml.gz"] and found["only_second"] == []
    assert "assets/javascripts/" in " ".join(found["identical"])


def timing(median, q1, q3):
    return {"median": median, "q1": q1, "q3": q3, "samples": [q1, median, q3]}


def test_timings_are_compared_against_their_stated_spread():
    first = {"n": 1000, "sizes": [{"jit": timing(1.0, 0.9, 1.1)}, {"jit": timing(2.0, 1.9, 2.1)}]}
    second = {"n": 1000, "sizes": [{"jit": timing(1.05, 1.0, 1.2)}, {"jit": timing(3.0, 2.8, 3.2)}]}
    rows = measure_build.timing_agreement(first, second)
    assert [r["path"] for r in rows] == ["sizes/0/jit", "sizes/1/jit"]
    assert [r["inside"] for r in rows] == [True, False]  # 1.05 in 0.9..1.1; 3.0 outside 1.9..2.1
    assert round(rows[1]["change"], 3) == 0.5


def test_never_is_masked_where_a_break_even_count_would_stand():
    assert measure_build.NUMBER.sub("#", "12 (3 to never) calls; 4.5 µs") == "# (# to #) calls; #"
    assert measure_build.NUMBER.sub("#", "key 'jit_selu-" + "de7deb6b" * 8 + "'") == "key 'jit_selu-#'"
    assert measure_build.NUMBER.sub("#", "<Model object at 0x7f78947d73d0>") == "<Model object at #>"


def test_the_spread_between_builds_is_stated_by_size_and_checked_against_an_earlier_one():
    first = {"tiny": timing(5e-6, 4e-6, 6e-6), "long": timing(0.1, 0.09, 0.11)}
    second = {"tiny": timing(4e-5, 3e-5, 5e-5), "long": timing(0.105, 0.1, 0.11)}
    rows = measure_build.timing_agreement(first, second)
    tiny, long = rows
    assert tiny["move"] == pytest.approx(7.0) and not tiny["inside"] and not tiny["in_range"]
    assert long["move"] == pytest.approx(0.05) and long["inside"] and long["in_range"]
    # twice as fast moves as far as twice as slow
    assert measure_build._move(2.0, 1.0) == measure_build._move(1.0, 2.0) == 1.0
    spread = {s["scale"]: s for s in measure_build.spread_by_scale(rows)}
    assert set(spread) == {"under 100 µs", "10 ms and more"}
    assert spread["under 100 µs"]["max"] == pytest.approx(7.0)
    found = measure_build.against_stated(rows, {"under 100 µs": 1.5, "10 ms and more": 0.1})
    assert found["count"] == 2 and found["within"] == 1 and found["beyond"] == [tiny]
    # what the report states next: the largest move over this comparison and the earlier ones
    earlier = {"comparisons": 2, "largest": {"under 100 µs": 1.5, "10 ms and more": 0.1}}
    stated = measure_build.renewed_statement(earlier, list(spread.values()), "Measured on X", False)
    assert stated["comparisons"] == 3 and stated["quick"] is False
    assert stated["largest"] == {"under 100 µs": 7.0, "10 ms and more": 0.1}
    assert measure_build.renewed_statement(None, list(spread.values()), "", False)["comparisons"] == 1


def test_the_report_carries_the_spread_it_states_for_the_next_run(tmp_path):
    stated = {"stamp": "Measured on X", "quick": False, "largest": {"under 100 µs": 1.4}}
    report = tmp_path / "build-figures.md"
    report.write_text("<!-- Written by ... -->\n<!-- stated spread: " + json.dumps(stated) + " -->\n| a |\n")
    assert measure_build.previous_statement(report) == stated
    assert measure_build.previous_statement(tmp_path / "missing.md") is None
    committed = measure_build.previous_statement(measure_build.REPORT)
    assert committed and committed["largest"] and committed["quick"] is False


def test_machine_checks_are_read_from_each_snippets_results(built_site):
    checks = measure_build.machine_checks(built_site)
    assert checks and all({"start", "end"} <= set(check) for check in checks.values())


def test_page_weight_counts_each_pages_html_and_own_figures(built_site):
    rows, shared = measure_build.page_weights(built_site)
    by_page = {r["page"]: r for r in rows}
    assert by_page["(home)"]["html"] == (built_site / "index.html").stat().st_size
    selu = by_page["selu/"]
    svgs = sorted((built_site / "measured" / "selu_benchmark").glob("*.svg"))
    assert selu["figures"] == len(svgs) and selu["figure_bytes"] == sum(p.stat().st_size for p in svgs)
    assert 0 < selu["gzipped"] < selu["html"] + selu["figure_bytes"]
    assert shared > 100_000  # Material's CSS and JavaScript, counted once


def test_snippet_times_are_read_from_the_build_log():
    log = "INFO - selu_benchmark: measured in 31.2 s\nINFO - other: reusing cached results\n"
    assert measure_build.snippet_seconds(log) == {"selu_benchmark": 31.2}


def test_the_report_is_stamped_and_the_how_page_includes_it(built_site):
    report = (measure_build.REPORT).read_text(encoding="utf-8")
    assert "Measured on" in report and "### Two cold builds compared" in report
    html = (built_site / "how-this-site-is-built" / "index.html").read_text(encoding="utf-8")
    assert "Two cold builds compared" in html and "measure_build.py" in html


def test_page_weight_shows_what_inline_css_costs(built_site):
    rows, _ = measure_build.page_weights(built_site)
    notebook_pages = [r for r in rows if r["page"].startswith("notebooks/")]
    assert notebook_pages and all(0 < r["inline_css"] < r["html"] for r in notebook_pages)
