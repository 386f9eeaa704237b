"""Every file under snippets/ runs as a script in an empty folder, with matplotlib's Agg.

Each runs with --quick: a script whose demo takes long (deeponet.py) offers a small size
under that switch, and a script without options ignores it. Build snippets (mkdocs.yml's
extra.build_snippets) are left to tests/test_build_snippets.py: the build runs them exactly
that way, and that test checks what their run left.
"""

import os
import subprocess
import sys

import pytest

from project import ROOT, build_snippets

SNIPPETS = sorted(p for p in (ROOT / "snippets").glob("*.py") if p.stem not in build_snippets())
# Each run starts Python and imports its libraries afresh (5 to 30 s): `make check` runs them,
# `make test` leaves them out (pytest.ini); each snippet's own tests check its behaviour.
pytestmark = pytest.mark.scripts


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda p: p.name)
def test_snippet_runs_as_a_script_in_an_empty_folder(snippet, tmp_path):
    # --quick: scripts with a slow demo offer the small size the tests use; others ignore it
    result = subprocess.run([sys.executable, str(snippet), "--quick"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, env={**os.environ, "MPLBACKEND": "Agg"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert not list(tmp_path.iterdir()), "a snippet run leaves no files behind"
