"""The contract every build snippet (mkdocs.yml's extra.build_snippets) keeps with the build.

Each ran in quick mode during the session's quick build (the built_site fixture), exactly
as a reader runs it (an empty working folder, MPLBACKEND=Agg): rather than run it again,
these tests read what that run left in the cache, after checking that the cached run
belongs to the current files (the cache key covers the snippet, what it imports and the
environment, so a match means that these very files ran cleanly).
"""

import json

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
                         quick=True, cache_root=folder.parent)
    assert json.loads((folder / "key.json").read_text()) == expected, "the cached run is not of these files"
    return name, folder, json.loads((folder / "results.json").read_text())


def test_it_ran_in_quick_mode_and_kept_its_stamps_parts(run):
    _, _, results = run
    assert results["quick"] is True and "stamp" not in results, "the stamp is worded by each edition"
    env = results["environment"]
    assert {"cpu", "cores", "python", "backend", "device", "date", "libraries"} <= set(env)
    assert {"jax", "jaxlib", "numpy"} <= set(env["libraries"])


def test_its_tables_are_data_for_each_editions_words(run):
    _, folder, results = run
    for table_name, table in results["tables"].items():
        assert set(table) == {"columns", "rows", "fields"}, table_name
        assert all(isinstance(c, str) and c for c in table["columns"]), table_name
        assert all(len(row) == len(table["columns"]) for row in table["rows"]), table_name
    assert not list(folder.glob("*.md")) and not list(folder.glob("*.svg")), "the site words and draws them"


def test_its_figures_are_drawn_in_both_editions(run, built_site):
    name, _, results = run
    assert isinstance(results["figures"], list)
    for fig_name in results["figures"]:
        for site in (built_site, built_site / "ko"):
            svg = (site / "measured" / name / f"{fig_name}.svg").read_text()
            assert svg.lstrip().startswith(("<?xml", "<svg")), fig_name
            assert results["environment"]["cpu"] in svg, f"{fig_name}: the stamp is drawn in"


def test_a_readers_run_prints_its_tables(run):
    """`python snippets/<name>.py` prints every table the page shows (headed by its keys)."""
    _, folder, results = run
    printed = (folder / "stdout.txt").read_text()
    for table_name, table in results["tables"].items():
        assert "| " + " | ".join(table["columns"]) + " |" in printed, table_name
