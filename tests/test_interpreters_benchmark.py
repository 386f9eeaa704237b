"""snippets/interpreters_benchmark.py: the ladder the build measured, and the bytecode it showed."""

import platform
import re

from interpreters import loop_body_bytecode
from project import QUICK_RESULTS, ROOT, quick_results

FOLDER = QUICK_RESULTS / "interpreters_benchmark"


def results():
    return quick_results("interpreters_benchmark")


def test_bytecode_holds_the_instructions_the_chapter_names_for_this_python(built_site):
    text = results()["text"]
    assert text["python_version"] == platform.python_version()
    assert text["bytecode"] == loop_body_bytecode()  # what this very Python produces
    opnames = {word for line in text["bytecode"].splitlines() for word in line.split()}
    chapter = (ROOT / "docs" / "interpreters.md").read_text()
    named = set(re.findall(r"`([A-Z][A-Z_]{2,})`", chapter))
    assert {"FOR_ITER", "COMPARE_OP", "BINARY_OP", "CALL", "JUMP_BACKWARD"} <= named
    assert named <= opnames, f"the chapter names instructions this Python does not show: {named - opnames}"


def test_the_ladder_measured_every_rung_at_one_n(built_site):
    data = results()["data"]
    assert list(data["ladder"]) == ["pure Python", "NumPy", "eager JAX", "jax.jit"]
    assert data["n"] == 10_000  # quick mode
    assert all(t["median"] > 0 for t in data["ladder"].values())
    counts = data["instructions"]
    assert data["python_instructions"] == (counts["fixed"] + counts["positive"] * data["positive"]
                                           + counts["negative"] * (data["n"] - data["positive"]))
    assert data["operations"] == 6  # the formula's operations: gt, exp, mul, sub, where, mul


def test_results_hold_the_tables_figure_and_numbers_the_page_uses(built_site):
    res = results()
    assert res["tables"] == ["ladder", "one_element"]
    assert set(res["figures"]) == {"ladder"}
    assert all(rung in res["figures"]["ladder"]["alt"] for rung in ("pure Python", "NumPy", "jax.jit"))
    printed = (FOLDER / "stdout.txt").read_text()
    for table in res["tables"]:
        assert (FOLDER / f"{table}.md").read_text() in printed
    html = (built_site / "interpreters" / "index.html").read_text()
    assert "FOR_ITER" in html and res["text"]["per_element_python"] in html
    assert 'src="../measured/interpreters_benchmark/ladder.svg"' in html
