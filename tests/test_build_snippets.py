"""The contract every build snippet (mkdocs.yml's extra.build_snippets) keeps with the build.

Each ran in quick mode during the session's quick build (the built_site fixture), exactly
as a reader runs it (an empty working folder, MPLBACKEND=Agg): rather than run it again,
these tests read what that run left in the cache, after checking that the cached run
belongs to the current files (the cache key covers the snippet, what it imports and the
environment, so a match means that these very files ran cleanly).
"""

import json
import re

import pytest

from project import QUICK_RESULTS, ROOT, build_snippets
from snippet_runs import cache_key


NAMES = build_snippets()


def test_every_build_snippet_exists():
    assert NAMES, "extra.build_snippets lists no snippet"
    for name in NAMES:
        assert (ROOT / "snippets" / f"{name}.py").is_file(), name


@pytest.fixture(params=NAMES)
def run(request, built_site):
    """(name, cached folder, results.json) of one build snippet's quick run."""
    name = request.param
    folder = QUICK_RESULTS / name
    expected = cache_key(ROOT / "snippets" / f"{name}.py", ROOT / "snippets", ROOT / "requirements.txt",
                         quick=True)
    assert json.loads((folder / "key.json").read_text()) == expected, "the cached run is not of these files"
    return name, folder, json.loads((folder / "results.json").read_text())


def test_it_ran_in_quick_mode_and_wrote_a_stamp(run):
    _, _, results = run
    assert results["quick"] is True
    assert results["stamp"].startswith("Measured on ") and "quick mode" in results["stamp"]
    assert {"cpu", "cores", "jax", "jaxlib", "backend", "date"} <= set(results["environment"])


def test_its_tables_travel_inside_results_json(run):
    _, folder, results = run
    assert isinstance(results["tables"], dict)
    for table_name, markdown in results["tables"].items():
        lines = markdown.strip().splitlines()
        assert len(lines) >= 2 and lines[0].startswith("|") and re.match(r"^\|(-+\|)+$", lines[1]), table_name
    assert not list(folder.glob("*.md")), "tables are no longer written as Markdown files"


def test_its_figures_are_written_with_alt_text(run):
    _, folder, results = run
    for fig_name, figure in results["figures"].items():
        svg = folder / figure["file"]
        assert svg.is_file() and svg.read_text().lstrip().startswith(("<?xml", "<svg")), fig_name
        assert len(figure["alt"].split()) >= 4, f"{fig_name}: alt text says what the figure shows"
        assert results["stamp"].split(" · ")[0] in svg.read_text(), f"{fig_name}: the stamp is drawn in"


def test_a_readers_run_prints_its_tables_and_stamp(run):
    """`python snippets/<name>.py` prints every table the page shows, and the stamp."""
    _, folder, results = run
    printed = (folder / "stdout.txt").read_text()
    for table_name, markdown in results["tables"].items():
        assert markdown in printed, table_name
    assert results["stamp"] in printed

