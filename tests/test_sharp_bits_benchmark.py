"""snippets/sharp_bits_benchmark.py: what the build captured, and what the page shows
(no test here asserts a timing)."""

import html
import re

from error_capture import error_name
from project import ROOT, quick_results
from sharp_bits_benchmark import CASES


def results():
    return quick_results("sharp_bits_benchmark")


def test_every_capture_is_the_documented_class_and_every_fix_ran(built_site):
    r = results()
    for name, case in CASES.items():
        captured = r["data"]["errors"][name]
        assert captured["error"] == (error_name(case.error) if case.error else None), name
        assert set(captured["fixes"]) == set(case.fixes)
        assert r["text"]["sessions"][name]["pitfall"].startswith(">>> ")
    assert r["data"]["errors"]["donate"]["error"] == "RuntimeError"


def test_loop_compilations_were_repeated_and_each_kept(built_site):
    loops = results()["data"]["loops"]
    assert loops["lengths"] == [10, 30] and loops["repeats"] == 2  # quick mode
    for rows in loops["results"].values():
        assert all(len(row["first_samples"]) == loops["repeats"] for row in rows)
    unrolled = loops["results"]["Python for loop (unrolled)"]
    assert [row["equations"] for row in unrolled] == [4 * n for n in loops["lengths"]]
    assert all(row["equations"] == 1 for row in loops["results"]["lax.fori_loop"])


def page_text(site):
    raw = (site / "sharp-bits" / "index.html").read_text(encoding="utf-8")
    return raw, html.unescape(re.sub(r"<[^>]+>", "", raw))


def test_page_shows_each_captured_error_and_fix(built_site):
    raw, text = page_text(built_site)
    r = results()
    for name, case in CASES.items():
        shown = r["text"]["sessions"][name]
        transcripts = {"pitfall": shown["pitfall"], **shown["fixes"],
                       **{v: shown["variants"][v]["transcript"] for v in case.variants}}
        assert set(shown["fixes"]) == set(case.fixes), name
        for key, transcript in transcripts.items():
            for line in transcript.splitlines():
                assert line in text, (name, key, line)
    assert raw.count('class="tabbed-set') == len(CASES)
    assert str(ROOT) not in text, "absolute paths of the build machine are shortened"
    assert "Every JAX-specific error is a" not in text
