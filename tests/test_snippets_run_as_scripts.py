"""Every file under snippets/ runs as a script in an empty folder, with matplotlib's Agg.

Each runs with --quick: a script whose demo takes long (deeponet.py) offers a small size
under that switch, and a script without options ignores it.

Build snippets (mkdocs.yml's extra.build_snippets) are run exactly that way by the build
(sitebuild/snippet_runs.py: an empty working folder, MPLBACKEND=Agg). Rather than run them a
second time, the test checks that the quick build's cached run belongs to the current files:
the cache key covers the snippet, what it imports and the environment, so a match means that
these very files ran cleanly.
"""

import json
import os
import subprocess
import sys

import pytest
import yaml

from project import QUICK_RESULTS, ROOT
from snippet_runs import cache_key

SNIPPETS = sorted(p for p in (ROOT / "snippets").glob("*.py"))


def build_snippets():
    class Loader(yaml.SafeLoader):  # mkdocs.yml uses MkDocs' own tags (!relative)
        pass
    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)
    return config["extra"]["build_snippets"]


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda p: p.name)
def test_snippet_runs_as_a_script_in_an_empty_folder(snippet, tmp_path, built_site):
    if snippet.stem in build_snippets():
        folder = QUICK_RESULTS / snippet.stem
        expected = cache_key(snippet, ROOT / "snippets", ROOT / "requirements.txt", quick=True)
        assert json.loads((folder / "key.json").read_text()) == expected
        assert (folder / "results.json").is_file()
        return
    # --quick: scripts with a slow demo offer the small size the tests use; others ignore it
    result = subprocess.run([sys.executable, str(snippet), "--quick"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, env={**os.environ, "MPLBACKEND": "Agg"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert not list(tmp_path.iterdir()), "a snippet run leaves no files behind"


@pytest.mark.parametrize("name", build_snippets())
def test_a_readers_run_prints_the_tables_the_page_shows(name, built_site):
    """`python snippets/<name>.py` prints every table, and the stamp, that the build wrote."""
    folder = QUICK_RESULTS / name
    printed = (folder / "stdout.txt").read_text()
    results = json.loads((folder / "results.json").read_text())
    for table in results["tables"]:
        assert (folder / f"{table}.md").read_text() in printed, table
    assert results["stamp"] in printed


def test_every_build_snippet_exists():
    for name in build_snippets():
        assert (ROOT / "snippets" / f"{name}.py").is_file(), name
