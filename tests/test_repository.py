"""The repository's promises: the README's two commands are the Makefile's, CI runs `make check`, one home each, and the files the pages name exist."""

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


def _build_and_tools_code() -> dict[str, str]:
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
            for folder in ("sitebuild", "tools") for p in sorted((ROOT / folder).glob("*.py"))}


def test_each_thing_the_build_does_twice_has_one_home():
    """Process groups (start_in_group, kill_group), digests, the snippet-include pattern: one
    home each, in sitebuild/ (issue "Data out, words in each edition")."""
    homes = {r"start_new_session|os\.killpg": "sitebuild/snippet_runs.py",
             r"hashlib\.sha256": "sitebuild/snippet_runs.py",
             r"re\.compile\([^)]*--8<--": "sitebuild/page_templates.py"}
    # notebooks.py's executor ends the kernel that nbclient started in a session of its own
    allowed = {("sitebuild/notebooks.py", r"start_new_session|os\.killpg")}
    for pattern, home in homes.items():
        found = sorted(name for name, code in _build_and_tools_code().items()
                       if re.search(pattern, code) and (name, pattern) not in allowed)
        assert found == [home], f"{pattern}: {found}"


def test_every_build_or_tool_file_that_a_page_or_the_readme_names_exists():
    """A command a reader copies names the file where it lives now (tools moved out of
    sitebuild/ once; a report's words kept the old path)."""
    texts = [ROOT / "README.md", *(ROOT / "tools").glob("*.md"),
             *(p for docs in ("docs", "docs-ko") for p in (ROOT / docs).rglob("*") if p.suffix in (".md", ".yml"))]
    missing = sorted({f"{text.relative_to(ROOT)}: {name}" for text in texts
                      for name in re.findall(r"(?<![\w/.-])((?:sitebuild|tools)/[A-Za-z0-9_/.-]+\.py)",
                                             text.read_text(encoding="utf-8"))
                      if not (ROOT / name).is_file()})
    assert not missing, missing


def test_the_build_machinery_stays_small():
    # The budget issue #33 set: sitebuild/ at most 2,600 lines, the Korean edition's own code
    # at most 400, and hook.py, the MkDocs wiring, at most 150.
    lines = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in (ROOT / "sitebuild").glob("*.py")}
    assert sum(lines.values()) <= 2_600, lines
    assert lines["korean_edition.py"] <= 400 and lines["hook.py"] <= 150, lines
