"""Without Chromium (or a linter) the site tests skip and say why, except under CI."""

import importlib.util
import sys
from pathlib import Path

import pytest


def load_conftest(monkeypatch):
    spec = importlib.util.spec_from_file_location("website_conftest", Path(__file__).with_name("conftest.py"))
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("ci", ["", "0", "false"])
def test_outside_ci_a_missing_tool_skips_with_its_reason(monkeypatch, ci):
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.skip.Exception, match=r"Chromium is missing: skipped \(apt-get install chromium"):
        load_conftest(monkeypatch).unavailable("Chromium is missing")


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_a_missing_tool_fails(monkeypatch, ci):
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception, match="Chromium is missing; under CI these tests must run"):
        load_conftest(monkeypatch).unavailable("Chromium is missing")
