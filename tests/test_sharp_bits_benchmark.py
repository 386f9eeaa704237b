"""snippets/sharp_bits_benchmark.py: what the build captured, the verdicts its report
draws from the data, and what the page shows (no test here asserts a timing).

PERTURBATIONS: the ways another machine's data differ, for tests/sitebuild/test_perturbations.py.
"""

import copy
import html
import re

import pytest

import sharp_bits_benchmark as bench
from error_capture import error_name
from project import ROOT, quick_results
from sharp_bits import CASES


def results():
    return quick_results("sharp_bits_benchmark")


# ---------------------------------------------------------------- other machines

def _last(data, label):
    return data["loops"]["results"][label][-1]


def _swap_first(data):
    """The unrolled loop compiled faster than fori_loop at the largest length."""
    a, b = _last(data, "unrolled"), _last(data, "fori")
    a["first"], b["first"] = b["first"], a["first"]
    return data


def _same_first(data):
    _last(data, "unrolled")["first"] = copy.deepcopy(_last(data, "fori")["first"])
    return data


def _steady(factor, way="unrolled"):
    """`way`'s steady call (the unrolled loop's, or lax.scan's) `factor` times
    fori_loop's."""
    def change(data):
        fori = _last(data, "fori")["steady"]
        _last(data, way)["steady"] = {
            **fori, **{k: fori[k] * factor for k in ("median", "q1", "q3", "best")},
            "samples": [x * factor for x in fori["samples"]]}
        return data
    return change


def _all_about_tracing(data):
    """The three pitfalls the page calls "not about tracing" found raising while tracing
    (in-place assignment accepted without jit): the page drops the line naming them."""
    errors = data["errors"]
    errors["inplace"]["variants"].pop("eager", None)
    errors["unhashable"]["raised_at"] = errors["donate"]["raised_at"] = "tracing"
    return data


PERTURBATIONS = {
    "unrolled loop compiles faster than fori_loop": _swap_first,
    "every pitfall raised while tracing": _all_about_tracing,
    "unrolled loop and fori_loop compile alike": _same_first,
    "unrolled steady call 3x faster": _steady(1 / 3),
    "unrolled steady call 3x slower": _steady(3.0),
    "steady calls alike": _steady(1.0),
    "scan steady call as fori_loop's": _steady(1.0, "scan"),
    "scan steady call 3x slower than fori_loop's": _steady(3.0, "scan"),
    "scan steady call 3x faster than fori_loop's": _steady(1 / 3, "scan"),
}


def _data():
    def t(median, n=3):
        return {"median": median, "q1": median * 0.95, "q3": median * 1.05, "best": median * 0.9,
                "spread": 0.1, "number": 1, "samples": [median * 0.9, median, median * 1.1][:n]}
    point = {"unrolled": (0.2, 10e-6, 400), "fori": (0.05, 10.2e-6, 1), "scan": (0.05, 10e-6, 1)}
    return {"jax": "0.10.2",
            "errors": {"branch": {"error": "jax.errors.TracerBoolConversionError", "message": "",
                                  "raised_at": "tracing", "bases": ["TypeError"],
                                  "fixes": {}, "variants": {}},
                       "loop": {"error": None, "message": "", "raised_at": None, "bases": [],
                                "fixes": {}, "variants": {}}},
            "loops": {"lengths": [100], "repeats": 3,
                      "results": {label: [{"n": 100, "equations": eq, "trace_and_lower": t(f / 2),
                                           "compile": t(f / 2), "first": t(f), "steady": t(s)}]
                                  for label, (f, s, eq) in point.items()},
                      "primitives": {"fori": "scan", "scan": "scan", "traced": "while"}}}


def test_the_report_compares_the_loops_at_the_largest_length():
    verdicts = bench.report(_data()).verdicts
    assert verdicts["first"]["winner"] == "fori" and verdicts["first"]["ratio"] == 4
    assert verdicts["steady"]["kind"] == "same"
    assert verdicts["first"]["reads"] == ["loops.results.fori.-1.first",
                                          "loops.results.unrolled.-1.first"]


def test_scan_is_compared_with_fori_loop_once_compiled():
    """A verdict of its own (the page words it from the data): both loops are one scan,
    yet another machine may time them apart."""
    verdicts = bench.report(_data()).verdicts
    assert verdicts["steady_scan"]["names"] == ["scan", "fori"]
    assert verdicts["steady_scan"]["reads"] == ["loops.results.scan.-1.steady",
                                                "loops.results.fori.-1.steady"]
    assert verdicts["steady_scan"]["kind"] == "same"  # 10 µs against 10.2 µs
    assert bench.report(_steady(3.0, "scan")(_data())).verdicts["steady_scan"]["winner"] == "fori"
    assert bench.report(_steady(1 / 3, "scan")(_data())).verdicts["steady_scan"]["winner"] == "scan"


def test_other_machines_get_other_verdicts_and_never_stop_the_build():
    assert bench.report(_swap_first(_data())).verdicts["first"]["winner"] == "unrolled"
    assert bench.report(_same_first(_data())).verdicts["first"]["kind"] == "same"
    assert bench.report(_steady(3.0)(_data())).verdicts["steady"]["winner"] == "fori"
    assert bench.report(_steady(1 / 3)(_data())).verdicts["steady"]["winner"] == "unrolled"


def test_the_errors_table_holds_names_and_word_keys():
    rows = bench.report(_data()).tables["errors"].rows
    assert rows[0] == [{"word": "case_branch"}, {"word": "at_tracing"},
                       "`jax.errors.TracerBoolConversionError`", "`TypeError`"]
    assert rows[1][1:3] == [{"word": "at_none"}, {"word": "silent_compiles_slower"}]


@pytest.mark.parametrize("change, name, cell", [
    (lambda d: d, "trace_time", "silent"),
    (lambda d: d, "loop", "silent_compiles_slower"),
    (_steady(3.0), "loop", "silent_slower"),
    (_swap_first, "loop", "silent_longer"),
    (_same_first, "loop", "silent_longer")])
def test_a_pitfall_that_raises_nothing_gets_a_word_of_its_own(change, name, cell):
    """A global read while tracing goes wrong silently; an unrolled loop gives the same
    results, and its cell says what the loops' verdicts found it costs instead."""
    data = change(_data())
    data["errors"] = {name: {"error": None, "message": "", "raised_at": None, "bases": [],
                             "fixes": {}, "variants": {}}}
    assert bench.report(data).tables["errors"].rows[0][2] == {"word": cell}


def test_loops_table_gives_fastest_to_slowest_compilation():
    row = bench.report(_data()).tables["loops"].rows[0]
    assert row[1] == {"word": "unrolled"} and row[5]["timing"] == pytest.approx([0.2, 0.18, 0.22])


# ---------------------------------------------------------------- the quick build

def test_every_capture_is_the_documented_class_and_every_fix_ran(built_site):
    r = results()
    for name, case in CASES.items():
        captured = r["data"]["errors"][name]
        assert captured["error"] == (error_name(case.error) if case.error else None), name
        assert set(captured["fixes"]) == set(case.fixes)
        assert r["data"]["captured"][name]["pitfall"][0].startswith(">>> ")
    assert r["data"]["errors"]["donate"]["error"] == "RuntimeError"
    assert "sharp_bits.raised_and_returned" in r["facts"]


def test_loop_compilations_were_repeated_and_each_kept(built_site):
    loops = results()["data"]["loops"]
    assert loops["lengths"] == [10, 30] and loops["repeats"] == 2  # quick mode
    for rows in loops["results"].values():
        assert all(len(row["first"]["samples"]) == loops["repeats"] for row in rows)
    unrolled = loops["results"]["unrolled"]
    assert [row["equations"] for row in unrolled] == [4 * n for n in loops["lengths"]]
    assert all(row["equations"] == 1 for row in loops["results"]["fori"])


def page_text(site, edition=""):
    raw = (site / edition / "sharp-bits" / "index.html").read_text(encoding="utf-8")
    return raw, html.unescape(re.sub(r"<[^>]+>", "", raw))


# How each edition words a cut message (words.yml `transcript`): the data is a count.
CUT = {"": ("[… {} more lines …]", "[… {} more lines, a nested traceback among them …]"),
       "ko": ("[… {}줄 생략 …]", "[… 중첩된 트레이스백 포함 {}줄 생략 …]")}


def test_page_shows_each_captured_error_and_fix(built_site):
    raw, text = page_text(built_site)
    captured = results()["data"]["captured"]
    for name, case in CASES.items():
        shown = captured[name]
        transcripts = {"pitfall": shown["pitfall"], **shown["fixes"],
                       **{v: shown["variants"][v] for v in case.variants}}
        assert set(shown["fixes"]) == set(case.fixes), name
        for key, transcript in transcripts.items():
            for line in transcript:
                if not isinstance(line, str):  # a cut: a count, worded by the page
                    line = CUT[""][line["traceback"]].format(line["left_out"])
                assert line in text, (name, key, line)
    assert raw.count('class="tabbed-set') == len(CASES)
    assert str(ROOT) not in text, "absolute paths of the build machine are shortened"
    assert "Every JAX-specific error is a" not in text


def test_each_edition_words_a_cut_message_itself(built_site):
    """A message too long for the page keeps its first lines verbatim; what was left out
    is a count in results.json, worded by each edition (no English marker on a Korean page)."""
    captured = results()["data"]["captured"]
    cuts = [line for shown in captured.values()
            for transcript in [shown["pitfall"], *shown["fixes"].values(), *shown["variants"].values()]
            for line in transcript if not isinstance(line, str)]
    assert cuts, "the leak's message is long enough to be cut"
    assert all(set(cut) == {"left_out", "traceback"} and cut["left_out"] > 0 for cut in cuts)
    for edition, forms in CUT.items():
        _, text = page_text(built_site, edition)
        for cut in cuts:
            assert forms[cut["traceback"]].format(cut["left_out"]) in text, edition
    _, korean = page_text(built_site, "ko")
    assert "more lines" not in korean and "nested traceback" not in korean


@pytest.mark.parametrize("tiny, en, ko", [
    ((3e-6, 4e-6), "dispatch is under half of a `fori_loop` call",
     "디스패치는 `fori_loop` 호출 시간의 절반이 안 된다"),
    ((6e-6, 30e-6), "most of a `fori_loop` call is dispatch",
     "`fori_loop` 호출 시간의 대부분은 디스패치다"),
    ((18e-6, 30e-6), "a `fori_loop` call is about all dispatch (the checks, timed at other "
     "moments, took even longer than its median call)",
     "`fori_loop` 호출은 거의 전부가 디스패치다(다른 때에 잰 점검의 호출이 그 중앙값보다도 오래 걸렸다)")])
def test_the_dispatch_share_follows_the_machine_checks_never_a_part_larger_than_its_whole(
        built_site, tiny, en, ko):
    """A fori_loop call of 13 µs against the near-empty jitted call of the machine checks
    around the run: under half, most, or (the checks' calls longer than the loop's, as on a
    one-core build) about all of it."""
    from project import rendered_page

    r = copy.deepcopy(results())
    r["quick"] = False
    r["data"]["loops"]["results"]["fori"][-1]["steady"]["median"] = 13e-6
    r["machine_check"] = {"start": {"tiny_jit_call": tiny[0]}, "end": {"tiny_jit_call": tiny[1]}}
    pages = rendered_page("sharp-bits.md", {"sharp_bits_benchmark": r})
    assert en in pages["docs"] and ko in pages["docs-ko"]
