"""A reader of the published site can take each chapter's code away and run it.

The zips and files are downloaded over HTTP from the built site (sitebuild/downloads.py
makes them) into empty folders: each holds exactly the snippet files, byte for byte, and
everything they import; and the file the DeepONet chapter says runs "copied alone into an
empty folder" does, downloaded alone.
"""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
import zipfile

import pytest

from project import ROOT

import downloads  # sitebuild/


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200, url
        return response.read()


def chapters(built_site) -> list[str]:
    return sorted(p.stem for p in (built_site / downloads.FOLDER).glob("*.zip"))


def isolated_env() -> dict:
    """No PYTHONPATH: only the folder itself (and installed packages) can be imported."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"MPLBACKEND": "Agg"}


def test_every_chapter_with_code_offers_it_for_download(built_site, server):
    expected = {p.stem for p in (ROOT / "docs").glob("*.md")
                if downloads.chapter_files(p, ROOT / "snippets")}
    assert set(chapters(built_site)) == expected
    for stem in expected:
        page = fetch(f"{server}{stem}/").decode()
        links = re.findall(r'<a href="([^"]+)" download>', page)
        assert f"../{downloads.FOLDER}/{stem}.zip" in links, stem
        names = {p.name for p in downloads.chapter_files(ROOT / "docs" / f"{stem}.md", ROOT / "snippets")}
        assert {f"../{downloads.FOLDER}/{n}" for n in names} <= set(links), stem


# One Python for every folder (jax is imported once): each folder's modules are imported
# from that folder alone, then forgotten, so the next folder imports its own copies.
IMPORT_EACH_FOLDER = """
import importlib, json, sys
for folder, modules in json.loads(sys.argv[1]):
    sys.path.insert(0, folder)
    for name in modules:
        module = importlib.import_module(name)
        assert module.__file__.startswith(folder), (name, module.__file__, folder)
    for name in modules:
        del sys.modules[name]
    sys.path.remove(folder)
"""


def test_each_zip_holds_its_files_and_they_import_from_an_empty_folder(built_site, server, tmp_path):
    plan, problems = [], []
    for stem in chapters(built_site):
        folder = tmp_path / stem
        folder.mkdir()
        zipfile.ZipFile(io.BytesIO(fetch(f"{server}{downloads.FOLDER}/{stem}.zip"))).extractall(folder)
        snippets = sorted(p for p in (folder / stem).iterdir() if p.suffix == ".py")
        problems += [f"{stem}.zip: {p.name} differs from snippets/{p.name}" for p in snippets
                     if p.read_bytes() != (ROOT / "snippets" / p.name).read_bytes()]
        if "jax==" not in (folder / stem / "requirements.txt").read_text():
            problems.append(f"{stem}.zip: its requirements.txt names no jax")
        plan.append([str(folder / stem), [p.stem for p in snippets]])
    # Importing every module runs every import a script does, from its folder alone.
    result = subprocess.run([sys.executable, "-c", IMPORT_EACH_FOLDER, json.dumps(plan)], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300, env=isolated_env())
    assert result.returncode == 0, result.stderr[-3000:]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", ["deeponet.py"])
def test_a_file_the_page_says_runs_alone_runs_downloaded_alone(built_site, server, tmp_path, name):
    """Downloaded alone, it starts and reads its options (tests/test_snippets_run_as_scripts.py
    runs the same bytes through its demo)."""
    (tmp_path / name).write_bytes(fetch(f"{server}{downloads.FOLDER}/{name}"))
    result = subprocess.run([sys.executable, name, "--help"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, env=isolated_env())
    assert result.returncode == 0, result.stderr[-3000:]
    assert "usage:" in result.stdout


def chapter_command(folder, stem: str) -> list[str]:
    """What a reader runs first in a chapter's folder: its benchmark at quick sizes, else
    its demo, else an import of each file."""
    name = stem.replace("-", "_")
    if (folder / f"{name}_benchmark.py").exists():
        return [f"{name}_benchmark.py", "--quick", "--out", "out"]
    if (folder / f"{name}.py").exists():
        return [f"{name}.py"]
    return ["-c", "; ".join(f"import {p.stem}" for p in sorted(folder.glob("*.py")))]


def test_each_download_runs_in_an_environment_made_from_its_requirements(built_site, tmp_path):
    """Every chapter's zip, unpacked into an empty folder, runs in a new environment that
    has its requirements.txt and nothing else (chapters whose files are alike share one;
    uv makes them from its cache in seconds)."""
    uv = [sys.executable, "-m", "uv"]
    groups = {}  # requirements.txt -> the chapters that ship it
    for stem in chapters(built_site):
        zipfile.ZipFile(built_site / downloads.FOLDER / f"{stem}.zip").extractall(tmp_path / "chapters")
        needs = (tmp_path / "chapters" / stem / "requirements.txt").read_text()
        groups.setdefault(needs, []).append(stem)
    failures = []
    for i, stems in enumerate(groups.values()):
        venv = tmp_path / f"env-{i}"
        python = venv / "bin" / "python"
        made = subprocess.run([*uv, "venv", "-q", "--python", sys.executable, str(venv)],
                              capture_output=True, text=True)
        assert made.returncode == 0, made.stderr[-2000:]
        installed = subprocess.run(
            [*uv, "pip", "install", "-q", "--python", str(python), "-r",
             str(tmp_path / "chapters" / stems[0] / "requirements.txt")],
            capture_output=True, text=True, timeout=1200)
        assert installed.returncode == 0, (stems, installed.stderr[-3000:])
        for stem in stems:
            folder = tmp_path / "chapters" / stem
            ran = subprocess.run([str(python), *chapter_command(folder, stem)], cwd=folder,
                                 capture_output=True, text=True, timeout=900,
                                 env=isolated_env() | {"JIT_DOCS_QUICK": "1"})
            if ran.returncode != 0:
                failures.append(f"{stem}: {ran.stderr[-2000:]}")
        shutil.rmtree(venv, ignore_errors=True)
    assert not failures, "\n\n".join(failures)
