"""Reproducible installs and the linter: requirements.lock pins the whole environment,
and `ruff check .` runs with the tests."""

import re
import shutil
import subprocess
import sys

import pytest

from project import ROOT

NOT_LOCKED = "# not locked"  # a requirements.txt line the lock leaves out, on purpose


def pins(text: str) -> dict[str, str]:
    """name -> version of every `name==version` line (names normalized as pip does)."""
    found = {}
    for line in text.splitlines():
        match = re.match(r"([A-Za-z0-9_.-]+)==([^\s;\\]+)", line.strip())
        if match:
            found[re.sub(r"[-_.]+", "-", match[1]).lower()] = match[2]
    return found


def test_the_lock_pins_every_direct_dependency_at_its_requirements_version():
    requirements = (ROOT / "requirements.txt").read_text()
    lock = (ROOT / "requirements.lock").read_text()
    locked = pins(lock)
    left_out = pins("\n".join(line for line in requirements.splitlines() if NOT_LOCKED in line))
    for name, version in pins(requirements).items():
        if name in left_out:
            assert name not in locked, f"{name} is marked '{NOT_LOCKED}' but is in the lock"
        else:
            assert locked.get(name) == version, (
                f"requirements.txt pins {name}=={version}, requirements.lock has "
                f"{locked.get(name)}: regenerate the lock (README.md, Reproducible installs)")


def test_every_locked_package_carries_hashes():
    lock = (ROOT / "requirements.lock").read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", lock.split("\n", 2)[2])
    for entry in entries:
        if "==" in entry:
            assert "--hash=sha256:" in entry, entry.splitlines()[0]
    assert "README.md, Reproducible installs" in lock.splitlines()[1], "the lock says how it is made"


def test_the_readme_installs_from_the_lock():
    readme = (ROOT / "README.md").read_text()
    assert "pip install -q -r requirements.lock" in readme
    assert "pip install -q --no-deps -r requirements.txt" in readme


def ruff_check(*paths: str) -> subprocess.CompletedProcess:
    ruff = [sys.executable, "-m", "ruff"]
    if subprocess.run([*ruff, "--version"], capture_output=True).returncode != 0:
        if not shutil.which("ruff"):
            pytest.fail("ruff is not installed: pip install -r requirements.lock")
        ruff = ["ruff"]
    return subprocess.run([*ruff, "check", "--output-format", "concise", *paths],
                          cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing():
    result = ruff_check(".")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
