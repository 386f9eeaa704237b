"""The README's promises: its two commands are the Makefile's, and CI runs `make check`."""

import re

from project import ROOT


def makefile_recipe(target: str) -> str:
    """The commands of one Makefile target."""
    text = (ROOT / "Makefile").read_text()
    return re.search(rf"^{target}:.*\n((?:\t.*\n)+)", text, re.M).group(1)


def test_the_readme_commands_are_make_serve_and_make_test_and_ci_runs_make_check():
    readme = (ROOT / "README.md").read_text()
    assert "```bash\nmake serve\n```" in readme and "```bash\nmake test\n```" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.rstrip().endswith("\nmake check"), "CI's last step is make check"


def test_make_test_runs_the_fast_tier_and_make_check_every_tier_as_ci():
    assert "-m pytest" in makefile_recipe("test") and '-m "' not in makefile_recipe("test")  # pytest.ini's tier
    check = makefile_recipe("check")
    assert 'CI=true $(BIN)/python -m pytest -m "" ' in check  # every tier; a missing tool fails
    ini = (ROOT / "pytest.ini").read_text()
    assert '-m "not (site_build or browser or audits or scripts)"' in ini


def test_requirements_are_pinned():
    for line in [*(ROOT / "requirements.txt").read_text().splitlines(),
                 *(ROOT / "requirements-dev.txt").read_text().splitlines()]:
        line = line.split("#")[0].strip()
        if line and not line.startswith("-c "):
            assert re.fullmatch(r"[A-Za-z0-9_.\[\]-]+==[0-9][^ ;]*( *;.+)?", line), line  # ; a platform
