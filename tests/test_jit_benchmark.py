"""snippets/jit_benchmark.py and docs/jit.md: what the build captured, and the page."""

import math
import mmap
import re

from jit import CASES
from project import ROOT, quick_results, text_used


def results():
    return quick_results("jit_benchmark")


def test_every_number_the_page_uses_was_measured(built_site):
    used = text_used((ROOT / "docs" / "jit.md").read_text(), "jit_benchmark")
    assert used and all(used.values()), [path for path, v in used.items() if not v]


def test_the_trace_time_print_ran_once_per_compilation_at_build(built_site):
    res = results()
    assert res["data"]["three_calls"] == {"tracing": 2, "running": 3}
    assert "JitTracer(float32[2])" in res["text"]["three_calls"]
    assert "f32[1000000]" in res["text"]["jaxpr"]


def test_the_cache_cases_at_build_match_what_the_page_states(built_site):
    measured = results()["data"]["cache_cases"]
    for slug, (_, _, expected) in CASES.items():
        got = [(c["cache_before"], c["cache_after"], c["traced"], c["compiled"])
               for c in measured[slug]]
        assert got == expected, slug
    text = results()["text"]
    assert "now f32[4] and before f32[3]" in text["log"]["new_shape"]
    assert "weak_type=True" in text["log"]["weak_type"]
    assert text["log"]["new_values"].startswith("(no message")


def test_break_even_ranges_bracket_their_medians_and_state_threads(built_site):
    rows = results()["data"]["break_even"]
    assert [r["n"] for r in rows] == [1_000, 100_000]
    assert all(r["xla_threads"] >= 1 for r in rows)
    number = lambda v: math.inf if v == "inf" else v  # noqa: E731
    for row in rows:
        for key in ("vs_eager", "vs_numpy"):
            median, low, high = map(number, row[key])
            assert low <= median <= high, (row["n"], key)


def test_donation_and_in_place_updates_at_build(built_site):
    res = results()
    assert res["data"]["donated_equals_undonated"] is True
    assert "deleted" in res["text"]["donated_error"]
    assert res["data"]["in_place_copies"] == {"kept": 1, "donated": 0}


def test_the_page_shows_captured_output_and_marks_output_blocks(built_site):
    html = (built_site / "jit" / "index.html").read_text(encoding="utf-8")
    images = re.findall(r'<img alt="([^"]+)" src="([^"]+)"', html)
    assert {src.rsplit("/", 1)[1] for _, src in images} == {"dispatch.svg"}
    assert "tracing selu_loud with x = JitTracer(float32[2])" in html
    assert "TRACING CACHE MISS" in html
    assert "faq.html#how-to-use-jit-with-methods" in html
    assert '<span class="filename">Output</span>' in html
    assert "{{" not in html and "--8&lt;--" not in html


def test_the_loop_against_a_single_call_names_the_cause_only_when_measured():
    from jit_benchmark import loop_vs_single

    assert "close to a single call" in loop_vs_single(1.1e-3, 1e-3, 400, 0, 4_000_000)
    faulted = loop_vs_single(2e-3, 1e-3, 400, 0, 4_000_000)
    assert "2× the time of a single call" in faulted and "400 page faults per call" in faulted
    assert f"{4_000_000 / mmap.PAGESIZE:,.0f} pages per result" in faulted
    for faults in (None, 5):  # not counted (Windows), or too few to explain it
        said = loop_vs_single(2e-3, 1e-3, faults, 0, 4_000_000)
        assert said.endswith("timed just after).") and "fault" not in said
