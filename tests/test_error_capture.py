"""snippets/error_capture.py: sessions run like a prompt, errors captured, the module
left as it was."""

import sys
import types

import pytest

from error_capture import Session, error_name, run_session, trim_message
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
    assert trim_message(f"at {ROOT}/snippets/sharp_bits.py:3 for jit") == "at sharp_bits.py:3 for jit"
    long = "\n".join(f"line {i}" for i in range(12)) + "\nSee https://example.invalid/x"
    assert trim_message(long).splitlines() == [
        "line 0", "line 1", "line 2", "line 3", "line 4", "[… 7 more lines …]",
        "See https://example.invalid/x"]
    nested = "outer\nTraceback (most recent call last):\n  File x\nTypeError: inner"
    assert "Traceback" not in trim_message(nested)
