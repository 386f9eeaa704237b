"""snippets/jit.py: trace-time side effects, the jaxpr, every cache case the chapter
states, break-even arithmetic, dispatch bookkeeping, donation and in-place updates; and
the page's code, copied in order into one file, runs."""

import math
import re
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jit
from jit import (CASES, break_even_range, calls_to_break_even, copies_in,
                 dispatch_timeline, donation_demo, run_case, selu_donating, selu_jaxpr,
                 selu_loud, set_first, three_calls, time_one_call, watching_jax)
from jit_benchmark import STATED_CASES
from measurement import Timing
from page_templates import INCLUDE
from project import ROOT
from selu import random_input, selu_jit

FIRST = (0, 1, True, 1)
# What docs/jit.md states for each case: per call, (cache before, after, traced, compiled).
STATED = {
    "new_values": [FIRST, (1, 1, False, 0)],
    "new_shape": [FIRST, (1, 2, True, 1)],
    "new_dtype": [FIRST, (1, 2, True, 1)],
    "weak_type": [FIRST, (1, 1, False, 0), (1, 2, True, 1)],
    "numpy_array": [FIRST, (1, 2, False, 0)],
    "placement": [FIRST, (1, 2, False, 1)],
    "fresh_lambda": [FIRST, FIRST],
    "fresh_partial": [FIRST, FIRST],
    "same_function": [FIRST, (1, 1, False, 0), (1, 1, False, 0)],
    "bound_method": [FIRST, FIRST],
    "static_argument": [FIRST, (1, 2, True, 1), (2, 2, False, 0)],
}
def shown_sections(page):
    """(file, section) of every snippet section a page includes, in page order."""
    return [tuple(i.split(":")) for i in INCLUDE.findall(page.read_text(encoding="utf-8")) if ":" in i]


def section_code(file, name):
    """A section's lines as pymdownx.snippets shows them (nested markers dropped)."""
    lines, inside = [], False
    for line in (ROOT / "snippets" / file).read_text(encoding="utf-8").splitlines():
        if f"--8<-- [start:{name}]" in line:
            inside = True
        elif f"--8<-- [end:{name}]" in line:
            break
        elif inside and "--8<-- [" not in line:
            lines.append(line)
    assert inside, f"{file} has no section {name!r}"
    return "\n".join(lines)


# Calls every function the page shows, as the page uses them (test code, not the page's).
DRIVER = """
three_calls()
print(selu_jaxpr(jax.ShapeDtypeStruct((8,), jnp.float32)))
print(scale(jnp.ones(2), 3.0), traces)
for case in (case_new_values, case_new_shape, case_new_dtype, case_weak_type,
             case_numpy_array, case_placement, case_fresh_lambda, case_fresh_partial,
             case_same_function, case_bound_method, case_static_argument):
    jax.clear_caches()
    with watching_jax():
        case()
assert len(calls) == 25 and compilations.total() == 2, (len(calls), compilations)
assert calls_to_break_even(10.0, 1.0, 2.0) == 10
quartiles = type("T", (), {"median": 2.0, "q1": 1.5, "q3": 2.5})
print(break_even_range(quartiles, quartiles, quartiles))
returned, ready = dispatch_timeline(selu_jit, jnp.ones(1000), calls=3)
print(time_one_call(selu_jit, jnp.ones(1000)))
y, error = donation_demo(jnp.ones(5))
assert error is not None
print(copies_in(jax.jit(set_first), jnp.ones(10)))
print("ran")
"""


def test_trace_time_print_happens_once_per_compilation(capsys):
    jax.clear_caches()
    inputs = [jnp.ones(2), jnp.zeros(2), jnp.ones(3), jnp.ones(2) * 5,
              jnp.ones(3, jnp.int32), jnp.ones(3), jnp.ones((2, 2))]
    for x in inputs:
        selu_loud(x).block_until_ready()
    jax.effects_barrier()
    out = capsys.readouterr().out.splitlines()
    compilations = selu_loud._cache_size()
    assert compilations == len({(x.shape, x.dtype) for x in inputs}) == 4
    assert sum(line.startswith("tracing selu_loud") for line in out) == compilations
    assert sum(line.startswith("running selu_loud") for line in out) == len(inputs)


def test_three_calls_trace_twice_and_run_three_times(capsys):
    jax.clear_caches()
    three_calls()
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" with")[0] for line in out] == [
        "tracing selu_loud", "running selu_loud", "running selu_loud",
        "tracing selu_loud", "running selu_loud"]
    assert "JitTracer(float32[2])" in out[0] and "JitTracer(float32[3])" in out[3]


def test_jaxpr_holds_shapes_and_dtypes_not_data():
    abstract = selu_jaxpr(jax.ShapeDtypeStruct((1000,), jnp.float32))
    assert str(abstract) == str(selu_jaxpr(jnp.arange(1000.0))) == str(
        selu_jaxpr(-jnp.ones(1000)))
    text = str(abstract)
    assert "f32[1000]" in text and "exp" in text and "select_n" in text


@pytest.mark.parametrize("case", list(STATED))
def test_each_cache_case_behaves_exactly_as_the_chapter_states(case):
    calls = run_case(case)
    got = [(c["cache_before"], c["cache_after"], c["traced"], c["compiled"]) for c in calls]
    assert got == STATED[case]
    assert STATED_CASES[case] == STATED[case]  # the build checks the same statement


def test_the_explanations_name_what_changed():
    new_shape = run_case("new_shape")
    weak = run_case("weak_type")
    static = run_case("static_argument")
    fresh = run_case("fresh_lambda")
    same = run_case("same_function")
    assert "now f32[4] and before f32[3]" in "".join(new_shape[1]["log"])
    assert "weak_type=False" in "".join(weak[2]["log"]) and weak[1]["log"] == []
    # jax 0.12.0.1 does not name a changed static argument (0.10.2 wrote Static(val=3.0))
    assert "cache miss explanation unavailable" in "".join(static[1]["log"]) and static[2]["log"] == []
    assert "being re-defined repeatedly" in "".join(fresh[1]["log"])
    assert same[1]["log"] == same[2]["log"] == []


def test_watching_is_switched_off_again():
    before = jax.config.jax_explain_cache_misses
    with watching_jax():
        assert jax.config.jax_explain_cache_misses
    assert jax.config.jax_explain_cache_misses == before
    counted = jit.compilations.total()
    jax.jit(lambda v: v - 7.0)(jnp.ones(5))  # compiles, but nobody is counting
    assert jit.compilations.total() == counted


def test_the_page_states_eleven_cases_in_jit_py_order():
    assert list(CASES) == list(STATED) == list(STATED_CASES)  # "Eleven cases", in page order
    assert STATED_CASES == STATED


def test_the_pages_code_copied_in_order_runs(tmp_path):
    """docs/jit.md says its blocks, copied in order into one file, run: they do, in an
    empty folder (no snippets/ on the path), with nothing undefined in any function."""
    sections = shown_sections(ROOT / "docs" / "jit.md")
    code = "\n\n\n".join(section_code(file, name) for file, name in sections)
    script = tmp_path / "jit_page.py"
    script.write_text(code + "\n" + DRIVER, encoding="utf-8")
    # the ruff of whichever environment runs the tests, not a path into .venv
    undefined = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated",
                                "--select", "F821,F822,F823", str(script)],
                               capture_output=True, text=True)
    assert undefined.returncode == 0, undefined.stdout
    ran = subprocess.run([sys.executable, "-I", str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert ran.returncode == 0 and ran.stdout.endswith("ran\n"), ran.stderr[-3000:]


def test_no_section_the_page_shows_holds_a_build_check():
    for file, name in shown_sections(ROOT / "docs" / "jit.md"):
        code = section_code(file, name)
        assert not re.search(r"DocumentationMismatch|\bfact\(|measurement", code), (file, name)


def test_both_editions_show_the_same_code_in_the_same_order():
    assert shown_sections(ROOT / "docs-ko" / "jit.md") == shown_sections(ROOT / "docs" / "jit.md")


def test_scale_and_the_bound_method_scale():
    np.testing.assert_array_equal(jit.scale(jnp.arange(3.0), 2.0), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(jit.Scaler(3.0).apply(jnp.ones(2)), [3.0, 3.0])


def test_break_even_is_the_first_call_count_where_jit_is_cheaper():
    first, jitted, other = 10.0, 1.0, 2.0
    n = calls_to_break_even(first, jitted, other)
    assert n == 10
    total_jit = lambda calls: first + (calls - 1) * jitted  # noqa: E731
    assert total_jit(n) < n * other and not total_jit(n - 1) < (n - 1) * other


def test_break_even_edge_cases():
    assert calls_to_break_even(5.0, 2.0, 2.0) == math.inf  # no saving: never
    assert calls_to_break_even(5.0, 3.0, 2.0) == math.inf  # jit slower: never
    assert calls_to_break_even(1.0, 0.5, 2.0) == 1  # even the first call is cheaper


def test_break_even_range_spans_the_quartiles():
    first = Timing([9.0, 10.0, 11.0], 1)
    jitted = Timing([0.9, 1.0, 1.1], 1)
    other = Timing([1.5, 2.0, 2.5], 1)
    median, low, high = break_even_range(first, jitted, other)
    assert low <= median <= high
    assert median == calls_to_break_even(10.0, 1.0, 2.0)
    assert low == calls_to_break_even(first.q1, jitted.q1, other.q3)
    assert high == calls_to_break_even(first.q3, jitted.q3, other.q1)


def test_break_even_range_says_never_when_a_corner_has_no_saving():
    median, low, high = break_even_range(Timing([10.0] * 3, 1), Timing([1.0, 1.0, 3.0], 1),
                                         Timing([1.5, 2.0, 2.0], 1))
    assert high == math.inf and low < math.inf


def test_a_donated_input_cannot_be_used_afterwards():
    x = random_input(1000)
    donated = x.copy()
    y = selu_donating(donated)
    assert donated.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        donated + 1
    np.testing.assert_array_equal(np.asarray(y), np.asarray(selu_jit(x)))


def test_donation_demo_returns_the_result_and_the_error():
    x = random_input(10)
    y, message = donation_demo(x.copy())
    assert "deleted" in message
    np.testing.assert_array_equal(np.asarray(y), np.asarray(selu_jit(x)))


def test_at_set_copies_a_kept_argument_and_reuses_a_donated_one():
    v = jnp.arange(4.0)
    assert copies_in(jax.jit(set_first), v) == 1
    assert copies_in(jax.jit(set_first, donate_argnums=0), v) == 0
    np.testing.assert_array_equal(jax.jit(set_first)(v), [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v, [0.0, 1.0, 2.0, 3.0])  # the kept argument survived


def test_dispatch_timeline_records_every_call_in_order():
    returned, ready = dispatch_timeline(selu_jit, jnp.ones(1000), calls=5)
    assert len(returned) == len(ready) == 5
    assert all(r <= d for r, d in zip(returned, ready))  # ready after it returned
    assert ready == sorted(ready)  # waited for in order
    bare, blocked = time_one_call(selu_jit, jnp.ones(1000))
    assert 0 < bare <= blocked
