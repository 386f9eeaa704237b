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


# Each input and the lock made from it (`make lock`): the site's build, and the tools that
# test and lint it, which the Pages workflow does not install.
LOCKS = {"requirements.txt": "requirements.lock", "requirements-dev.txt": "requirements-dev.lock"}


@pytest.mark.parametrize("requirements", LOCKS)
def test_the_lock_pins_every_direct_dependency_at_its_requirements_version(requirements):
    text = (ROOT / requirements).read_text()
    locked = pins((ROOT / LOCKS[requirements]).read_text())
    left_out = pins("\n".join(line for line in text.splitlines() if NOT_LOCKED in line))
    for name, version in pins(text).items():
        if name in left_out:
            assert name not in locked, f"{name} is marked '{NOT_LOCKED}' but is in the lock"
        else:
            assert locked.get(name) == version, (
                f"{requirements} pins {name}=={version}, {LOCKS[requirements]} has "
                f"{locked.get(name)}: regenerate the locks (make lock)")


@pytest.mark.parametrize("lock", LOCKS.values())
def test_every_locked_package_carries_hashes(lock):
    text = (ROOT / lock).read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    for entry in entries:
        if "==" in entry:
            assert "--hash=sha256:" in entry, entry.splitlines()[0]
    assert "make lock (README.md, Reproducible installs)" in text.splitlines()[1], "the lock says how it is made"


def test_the_site_lock_holds_no_test_or_lint_tool_and_the_dev_lock_agrees_with_it():
    """The Pages workflow installs requirements.lock: what builds the site, and nothing else."""
    site = pins((ROOT / "requirements.lock").read_text())
    tools = pins((ROOT / "requirements-dev.txt").read_text())
    assert tools and not set(tools) & set(site), "a test or lint tool in requirements.lock"
    assert "-c requirements.lock" in (ROOT / "requirements-dev.txt").read_text().splitlines()
    for name, version in pins((ROOT / "requirements-dev.lock").read_text()).items():
        assert site.get(name, version) == version, f"{name}: the two locks disagree"


def test_the_makefile_installs_from_the_locks():
    makefile = (ROOT / "Makefile").read_text()
    for line in ("install -q -r requirements.lock", "install -q --no-deps -r requirements.txt",
                 "install -q -r requirements-dev.lock"):
        assert line in makefile, line


def ruff_check(*paths: str) -> subprocess.CompletedProcess:
    ruff = [sys.executable, "-m", "ruff"]
    if subprocess.run([*ruff, "--version"], capture_output=True).returncode != 0:
        if not shutil.which("ruff"):
            pytest.fail("ruff is not installed: make test (pip install -r requirements-dev.lock)")
        ruff = ["ruff"]
    return subprocess.run([*ruff, "check", "--output-format", "concise", *paths],
                          cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing():
    result = ruff_check(".")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
