"""snippets/error_capture.py: sessions run like a prompt, errors captured, the module
left as it was."""

import sys
import types

import pytest

from error_capture import Session, error_name, run_session, text, trim_message
from project import ROOT


@pytest.fixture
def module():
    """A throwaway module with a global, a list and a function that raises."""
    m = types.ModuleType("scratch")
    exec("SCALE = 2.0\nhistory = []\n"
         "def fail(x):\n    raise ValueError(f'bad {x}')\n", vars(m))
    sys.modules["scratch"] = m
    yield m
    del sys.modules["scratch"]


def test_values_prints_and_the_last_lines_error_are_recorded(module):
    outcome = run_session(Session(["SCALE * 2", "print('hi')", "fail(3)"]), module)
    assert outcome.values == [4.0, None, None]
    assert outcome.printed == ["", "hi\n", ""]
    assert type(outcome.error) is ValueError and outcome.error_text == "ValueError: bad 3"
    assert outcome.transcript.splitlines() == [
        ">>> SCALE * 2", "4.0", ">>> print('hi')", "hi", ">>> fail(3)", "ValueError: bad 3"]


def test_a_session_leaves_the_module_as_it_found_it(module):
    run_session(Session(["SCALE = 3.0", "history.append(1)", "y = 5"]), module)
    assert module.SCALE == 2.0 and module.history == [] and not hasattr(module, "y")


def test_a_line_that_raises_before_the_end_is_a_mistake_in_the_session(module):
    with pytest.raises(RuntimeError, match="raised before the session's end"):
        run_session(Session(["fail(1)", "1 + 1"]), module)


def test_error_name_is_what_a_traceback_prints():
    import jax

    assert error_name(ValueError) == "ValueError"
    assert error_name(jax.errors.ConcretizationTypeError) == \
        "jax.errors.ConcretizationTypeError"


def test_trim_message_shortens_paths_and_long_messages():
    assert trim_message(f"at {ROOT}/snippets/sharp_bits.py:3 for jit") == ["at sharp_bits.py:3 for jit"]
    long = "\n".join(f"line {i}" for i in range(12)) + "\nSee https://example.invalid/x"
    assert trim_message(long) == [
        "line 0", "line 1", "line 2", "line 3", "line 4", {"left_out": 7, "traceback": False},
        "See https://example.invalid/x"]
    nested = "outer\nTraceback (most recent call last):\n  File x\nTypeError: inner"
    assert trim_message(nested) == ["outer", {"left_out": 3, "traceback": True}]


def test_a_cut_is_a_count_not_words_and_a_terminal_words_it(module):
    """results.json keeps what a cut left out as data; each edition of the site words it
    (words.yml `transcript`), and only a terminal gets error_capture's English."""
    exec("def fail_long():\n    raise ValueError('\\n'.join(f'line {i}' for i in range(9)))\n",
         vars(module))
    outcome = run_session(Session(["fail_long()"]), module)
    assert outcome.lines == [">>> fail_long()", "ValueError: line 0", "line 1", "line 2",
                             "line 3", "line 4", "line 5", {"left_out": 3, "traceback": False}]
    assert outcome.error_lines == outcome.lines[1:]
    assert all(isinstance(line, str) for line in outcome.lines[:-1])
    assert outcome.transcript.endswith("line 5\n[… 3 more lines …]")
    assert text(["x", {"left_out": 2, "traceback": True}]) == \
        "x\n[… 2 more lines, a nested traceback among them …]"


@pytest.mark.parametrize("edition, cut, nested", [
    ("docs", "[… 7 more lines …]", "[… 3 more lines, a nested traceback among them …]"),
    ("docs-ko", "[… 7줄 생략 …]", "[… 중첩된 트레이스백 포함 3줄 생략 …]")])
def test_each_edition_words_a_cut_in_its_own_words(edition, cut, nested):
    from page_templates import load_words, render

    lines = [">>> f()", "E: line 0", {"left_out": 7, "traceback": False}, "See https://x"]
    page = "    {{ transcript(a.data.t) | indent(4) }}\n{{ transcript(a.data.n) }}"
    results = {"a": {"data": {"t": lines, "n": ["E: outer", {"left_out": 3, "traceback": True}]}}}
    out = render(page, page="p.md", page_url="p/", results=results, words=load_words(ROOT / edition))
    assert f"    >>> f()\n    E: line 0\n    {cut}\n    See https://x\nE: outer\n{nested}" in out
