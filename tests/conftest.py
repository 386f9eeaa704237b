"""Shared fixtures: one quick build of the site (pytest.ini puts tests/, snippets/ and
sitebuild/ on sys.path, so tests import snippets the way a reader's script would)."""

import os
import shutil
from pathlib import Path

import pytest

from project import ROOT, build_site

os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The whole site, built once with --strict in quick mode (measurements cached in .cache/)."""
    site = tmp_path_factory.mktemp("site")
    result = build_site(ROOT, site)
    assert result.returncode == 0, f"mkdocs build failed:\n{result.stdout}\n{result.stderr}"
    return site


@pytest.fixture
def project_copy(tmp_path, built_site) -> Path:
    """A throwaway copy of the project that shares the quick build's caches.

    Cache keys are content hashes, so the copied results stay valid until a test
    changes a snippet, and only then does that copy measure anything.
    """
    copy = tmp_path / "project"
    ignore = shutil.ignore_patterns(".venv", ".git", "site", "__pycache__", ".pytest_cache", ".cache")
    shutil.copytree(ROOT, copy, ignore=ignore)
    for cache in ("measured/quick", "notebooks", "mkdocs-jupyter", "korean/quick"):
        if (ROOT / ".cache" / cache).is_dir():
            shutil.copytree(ROOT / ".cache" / cache, copy / ".cache" / cache)
    return copy
