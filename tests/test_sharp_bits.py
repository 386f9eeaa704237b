"""snippets/sharp_bits.py: each pitfall raises exactly the class the page names, each
fix returns the value the page shows (the sessions are sharp_bits.CASES)."""

import numpy as np
import pytest

import error_capture
import sharp_bits
from sharp_bits import CASES


def run_session(session):
    return error_capture.run_session(session, sharp_bits)


RAISING = [(name, case.pitfall, case.error) for name, case in CASES.items() if case.error]
VARIANTS = [(f"{name}-{v}", session, error) for name, case in CASES.items()
            for v, (session, error) in case.variants.items()]
FIXES = [(f"{name}-{f}", session) for name, case in CASES.items()
         for f, session in case.fixes.items()]


@pytest.mark.parametrize("name, session, error", RAISING + VARIANTS,
                         ids=[c[0] for c in RAISING + VARIANTS])
def test_pitfall_raises_exactly_the_documented_class(name, session, error):
    outcome = run_session(session)
    assert type(outcome.error) is error, outcome.transcript  # exactly: not a subclass
    assert outcome.error_text.startswith(error_capture.error_name(outcome.error) + ": ")
    assert outcome.transcript.endswith(outcome.error_text)


def test_the_documented_classes_are_the_ones_the_issue_names():
    import jax

    assert {name: case.error for name, case in CASES.items()} == {
        "branch": jax.errors.TracerBoolConversionError,
        "shape": jax.errors.ConcretizationTypeError,
        "index": jax.errors.TracerIntegerConversionError,
        "numpy": jax.errors.TracerArrayConversionError,
        "mask": jax.errors.NonConcreteBooleanIndexError,
        "trace_time": None,
        "inplace": TypeError,
        "unhashable": ValueError,
        "leak": jax.errors.UnexpectedTracerError,
        "loop": None,
        "donate": RuntimeError,
    }


@pytest.mark.parametrize("name, session", FIXES, ids=[name for name, _ in FIXES])
def test_fix_returns_the_documented_value(name, session):
    outcome = run_session(session)
    assert outcome.error is None, outcome.transcript
    if session.expected is not None:
        np.testing.assert_allclose(np.asarray(outcome.value), session.expected, rtol=1e-6)


def test_fix_values_are_right_by_an_independent_computation():
    x = np.array([-1.0, 2.0, -3.0, 4.0])
    expected = {
        "branch-where": np.where(x > 0, x, 0.1 * x),
        "mask-where": x[x > 0].sum(),
        "mask-size": np.array([2.0, 4.0, 0.0, 0.0]),
        "numpy-jnp": np.linalg.norm([3.0, 4.0]),
        "shape-static": np.mean(np.sin(np.pi * np.linspace(0, 1, 5))),
        "unhashable-tuple": 1.0 + 3.0 * 2.0**2,
        "index-array": 0.3 * 10.0,
    }
    fixes = dict(FIXES)
    for name, value in expected.items():
        np.testing.assert_allclose(np.asarray(run_session(fixes[name]).value), value, rtol=1e-6,
                                   err_msg=name)


def test_every_case_has_a_fix():
    assert all(case.fixes for case in CASES.values())


def test_print_and_global_are_read_only_while_tracing():
    outcome = run_session(CASES["trace_time"].pitfall)
    assert outcome.error is None
    values = [None if v is None else np.asarray(v).tolist() for v in outcome.values]
    assert values == [2.0, 2.0, None, 2.0, [3.0, 3.0]]  # stale 2 after SCALE = 3, then 3 on a retrace
    assert [bool(p) for p in outcome.printed] == [True, False, False, False, True]
    fixed = run_session(CASES["trace_time"].fixes["explicit"])
    assert [p.strip() for p in fixed.printed] == ["scaled_explicit: x = 1.0, scale = 2.0",
                                                  "scaled_explicit: x = 1.0, scale = 3.0"]


def test_static_argument_compiles_once_per_value_and_traced_trip_count_once():
    assert run_session(CASES["branch"].fixes["static"]).value == 2
    assert run_session(CASES["loop"].fixes["traced_length"]).value == 1


def test_loops_agree_with_a_numpy_euler_loop():
    x = np.float32(0.1)
    for _ in range(100):
        x = x + np.float32(sharp_bits.DT) * x * (np.float32(1) - x)
    for session in [CASES["loop"].pitfall, *CASES["loop"].fixes.values()]:
        np.testing.assert_allclose(float(run_session(session).values[0]), x, rtol=1e-5)


def test_sessions_leave_the_module_as_they_found_it():
    for case in CASES.values():
        run_session(case.pitfall)
        for session in case.fixes.values():
            run_session(session)
    assert sharp_bits.SCALE == 2.0
    assert sharp_bits.history == []
    assert not hasattr(sharp_bits, "out") and not hasattr(sharp_bits, "x")


def test_a_donated_array_is_deleted_and_its_name_can_be_rebound():
    outcome = run_session(CASES["donate"].pitfall)
    assert "deleted" in outcome.error_text
    fixed = run_session(CASES["donate"].fixes["rebind"])
    np.testing.assert_array_equal(np.asarray(fixed.value), [2.0, 2.0, 2.0])
