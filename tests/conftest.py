"""Shared fixtures: one quick build of the site (pytest.ini puts tests/, snippets/,
sitebuild/ and tools/ on sys.path, so tests import snippets the way a reader's script would)."""

import os
import shutil
from pathlib import Path

import pytest

import site_build
from project import ROOT

os.environ.setdefault("MPLBACKEND", "Agg")


# The tiers (pytest.ini): a test that uses one of these fixtures, directly or through
# another fixture, carries its marker (and tests/test_snippets_run_as_scripts.py `scripts`),
# and plain `pytest` (`make test`) leaves it out; `make check` (CI) runs every tier: -m "".
TIERS = {"built_site": "site_build", "browser": "browser", "page_audits": "audits"}


@pytest.hookimpl(tryfirst=True)  # before pytest's -m selection reads the markers
def pytest_collection_modifyitems(items):
    for item in items:
        for fixture, marker in TIERS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)


@pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")  # on the tests selected
def start_the_build(config, items):
    """The build starts now, in the background, when a selected test reads it (under
    pytest-xdist, every worker collects; the first to claim the run's build starts it), and
    test modules that read it go last. That order holds in one process (-n 0);
    pytest-xdist's loadscope hands out the largest modules first instead, which is no
    slower here: the build alone keeps both cores busy."""
    def module(item):
        return item.nodeid.split("::")[0]
    reading = {module(item) for item in items if "built_site" in getattr(item, "fixturenames", ())}
    if reading and not config.option.collectonly:  # whole modules move (--dist loadscope hands out modules)
        items.sort(key=lambda item: module(item) in reading)  # a stable sort
        site_build.start(_shared_folder(config._tmp_path_factory))


def _shared_folder(tmp_path_factory) -> Path:
    """The test run's own folder, the same for every pytest-xdist worker."""
    folder = tmp_path_factory.getbasetemp()
    return folder.parent if os.environ.get("PYTEST_XDIST_WORKER") else folder


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The whole site, built once per test run with --strict in quick mode (measurements
    cached in .cache/), by tests/site_build.py in the background; waits for it to finish."""
    shared = _shared_folder(tmp_path_factory)
    site_build.start(shared)  # a no-op once started (a run that did not collect it: -k, say)
    site, failure = site_build.wait(shared)
    if failure:
        pytest.fail("mkdocs build failed:\n" + failure, pytrace=False)
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
