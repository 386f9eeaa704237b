"""The README's promises: its test command is the one CI runs."""

import re

from project import ROOT


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    command = re.search(r"^TEST_COMMAND='(.+)'$", ci, re.M).group(1)
    assert command in (ROOT / "README.md").read_text()


def test_requirements_are_pinned():
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            assert re.fullmatch(r"[A-Za-z0-9_.\[\]-]+==[0-9][^ ;]*( *;.+)?", line), line  # ; a platform
