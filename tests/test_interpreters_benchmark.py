"""snippets/interpreters_benchmark.py: what the interpreters page shows."""

import platform
import re

from interpreters import loop_body_bytecode
from project import ROOT, quick_results


def results():
    return quick_results("interpreters_benchmark")


def test_bytecode_holds_the_instructions_the_chapter_names(built_site):
    text = results()["text"]
    assert text["python_version"] == platform.python_version()
    assert text["bytecode"] == loop_body_bytecode()  # what this very Python produces
    opnames = {word for line in text["bytecode"].splitlines() for word in line.split()}
    chapter = (ROOT / "docs" / "interpreters.md").read_text()
    named = set(re.findall(r"`([A-Z][A-Z_]{2,})`", chapter))
    assert {"FOR_ITER", "COMPARE_OP", "BINARY_OP", "CALL", "JUMP_BACKWARD"} <= named
    assert named <= opnames | {"DO_TRACING"}, named - opnames


def test_the_instruction_counts_add_up(built_site):
    data = results()["data"]
    assert list(data["ladder"]) == ["pure Python", "NumPy", "eager JAX", "jax.jit"]
    counts = data["instructions"]
    assert data["python_instructions"] == (
        counts["fixed"] + counts["positive"] * data["positive"]
        + counts["negative"] * (data["n"] - data["positive"]))
    assert data["operations"] == 6  # gt, exp, mul, sub, where, mul
    assert data["fused"] and data["specialized"]  # what the note lists


def test_page_shows_the_listings_numbers_and_quickening(built_site):
    res = results()
    html = (built_site / "interpreters" / "index.html").read_text()
    assert "FOR_ITER" in html and res["text"]["per_element"]["python"] in html
    assert res["data"]["fused"][0] in html  # the superinstructions, in the note
    assert 'src="../measured/interpreters_benchmark/ladder.svg"' in html
    assert str(ROOT) not in html


def test_the_threads_note_names_eager_jaxs_threads_only_when_they_were_busy():
    from interpreters_benchmark import threads_note

    assert threads_note(2, 1.6) == ("XLA split the jitted loop over 2 threads and eager JAX "
                                    "kept 1.6 cores busy; Python and NumPy ran on one")
    assert threads_note(2, 1.0) == "XLA split the jitted loop over 2 threads; the others ran on one"
    assert threads_note(1, 1.0) == "every rung ran on one thread"
