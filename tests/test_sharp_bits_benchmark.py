"""snippets/sharp_bits_benchmark.py: what the build captured, and what the page shows."""

import html
import re

from project import ROOT, quick_results
from sharp_bits import CASES, error_name


def results():
    return quick_results("sharp_bits_benchmark")


def test_results_hold_every_table_figure_and_capture(built_site):
    r = results()
    assert r["tables"] == ["errors", "loops"]
    assert set(r["figures"]) == {"loops"}
    for name, case in CASES.items():
        captured = r["data"]["errors"][name]
        assert captured["error"] == (error_name(case.error) if case.error else None), name
        assert set(captured["fixes"]) == set(case.fixes)
        assert r["text"][f"{name}_pitfall"].startswith(">>> ")
    loops = r["data"]["loops"]
    assert loops["lengths"] == [10, 30, 100]
    for rows in loops["results"].values():
        assert all(row["compile"] > 0 and row["trace_and_lower"] > 0 for row in rows)
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
        keys = [f"{name}_pitfall"] + [f"{name}_fix_{f}" for f in case.fixes] + \
               [f"{name}_variant_{v}" for v in case.variants]
        for key in keys:
            for line in r["text"][key].splitlines():
                assert line in text, (key, line)
    assert raw.count('class="tabbed-set') == len(CASES)
    assert str(ROOT) not in text, "absolute paths of the build machine are shortened"
    assert "Measured on " in text and "loops.svg" in raw
