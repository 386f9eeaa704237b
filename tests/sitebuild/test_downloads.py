"""sitebuild/downloads.py: which files a chapter needs, and the zip that carries them."""

import io
import zipfile
from pathlib import Path

import pytest

import downloads
import page_templates
from project import ROOT

SNIPPETS = ROOT / "snippets"


def test_a_chapter_needs_its_snippets_and_what_they_import(tmp_path):
    page = tmp_path / "designing-for-jit.md"
    page.write_text('Text\n\n```python\n--8<-- "selu.py:selu"\n```\n'
                    'Not an include: `--8<-- "compilers.py:x"` in prose.\n')
    names = [p.name for p in downloads.chapter_files(page, SNIPPETS)]
    assert "selu.py" in names and "compilers.py" not in names
    assert {"designing_for_jit.py", "designing_for_jit_benchmark.py", "deeponet.py", "measurement.py"} <= set(names)
    assert names == sorted(names)


def test_requirements_are_the_pinned_lines_the_files_need():
    needed = downloads.requirements([SNIPPETS / "deeponet.py"], ROOT / "requirements.txt").splitlines()
    pinned = (ROOT / "requirements.txt").read_text()
    assert {line.split("==")[0] for line in needed} >= {"jax", "jaxlib"}  # jaxlib: what jax pins
    assert all(line in pinned for line in needed)
    assert not any(line.startswith(("mkdocs", "pytest")) for line in needed)


def test_a_file_that_uses_a_jax_feature_gets_what_jax_imports_for_it():
    """The compilers chapter serializes with jax.export, which imports flatbuffers: no
    import in the file names it, and a clean environment without it fails."""
    needed = downloads.requirements([SNIPPETS / "compilers.py"], ROOT / "requirements.txt")
    assert "flatbuffers==" in needed
    assert "flatbuffers" not in downloads.requirements([SNIPPETS / "selu.py"], ROOT / "requirements.txt")


def test_the_zip_is_the_same_build_after_build():
    chapter = downloads.Chapter("selu", [SNIPPETS / "selu.py", SNIPPETS / "measurement.py"])
    first = downloads.chapter_zip(chapter, ROOT / "requirements.txt")
    assert first == downloads.chapter_zip(chapter, ROOT / "requirements.txt")
    names = zipfile.ZipFile(io.BytesIO(first)).namelist()
    assert names == ["selu/measurement.py", "selu/requirements.txt", "selu/selu.py"]


def test_a_notebook_opens_in_colab_only_from_a_github_repository():
    assert downloads.colab_url("https://github.com/someone/jit-docs", "edit/main/docs/", "selu") == (
        "https://colab.research.google.com/github/someone/jit-docs/blob/main/notebooks/selu.ipynb")
    assert downloads.colab_url("https://github.com/someone/jit-docs.git", "edit/dev/docs/", "x").endswith(
        "/someone/jit-docs/blob/dev/notebooks/x.ipynb")
    assert downloads.colab_url("https://gitlab.com/someone/jit-docs", "edit/main/docs/", "selu") is None
    assert downloads.colab_url(None, None, "selu") is None
    assert downloads.colab_url("https://github.com/someone/jit-docs", "docs", "selu") is None


def test_a_korean_notebook_page_opens_its_korean_notebook_in_colab_and_edits_its_template():
    from types import SimpleNamespace

    for edition, folder in (("en", "notebooks/"), ("ko", "notebooks/ko/")):
        page = SimpleNamespace(file=SimpleNamespace(src_uri="notebooks/selu.ipynb"), edit_url="x")
        config = SimpleNamespace(repo_url="https://github.com/someone/jit-docs", edit_uri="edit/main/docs/",
                                 extra={"edition": edition})
        downloads.on_page_context({}, page, config, None)
        assert page.colab_url.endswith(f"/someone/jit-docs/blob/main/{folder}selu.ipynb"), edition
        assert page.edit_url == f"https://github.com/someone/jit-docs/edit/main/{folder}selu.py"


def test_source_links_point_at_the_branch_the_site_is_built_from():
    assert downloads.source_url("https://github.com/someone/jit-docs/", "edit/dev/docs-ko/", "snippets/") == (
        "https://github.com/someone/jit-docs/blob/dev/snippets/")
    assert downloads.source_url("https://gitlab.com/a/b", "edit/main/docs/", "notebooks/x.py", "edit") == (
        "https://gitlab.com/a/b/edit/main/notebooks/x.py")
    assert downloads.source_url(None, "edit/main/docs/", "snippets/") is None


@pytest.mark.parametrize("edition, one, several", [("docs", "its file and", "all 2 files and"),
                                                   ("docs-ko", "파일 하나와", "파일 2개 전부와")])
def test_the_box_counts_one_file_and_several_in_each_editions_words(edition, one, several):
    words = page_templates.load_words(ROOT / edition)["download"]
    box = downloads._box(downloads.Chapter("x", [Path("a.py")]), "x/", None, words, commands=True)
    assert one in box and "1 files" not in box and "1개 전부" not in box
    assert several in downloads._box(downloads.Chapter("x", [Path("a.py"), Path("b.py")]), "x/", None, words,
                                     commands=True)


@pytest.mark.parametrize("edition", ["docs", "docs-ko"])
def test_a_box_with_no_run_it_section_after_it_points_at_no_commands(edition):
    words = page_templates.load_words(ROOT / edition)["download"]
    chapter = downloads.Chapter("x", [Path("a.py")])
    assert words["text"] in downloads._box(chapter, "x/", None, words, commands=True)
    alone = downloads._box(chapter, "x/", None, words, commands=False)
    assert words["text_no_commands"] in alone and "below" not in alone and "아래" not in alone
