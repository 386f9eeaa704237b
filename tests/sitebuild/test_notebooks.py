"""sitebuild/notebooks.py: notebook editions made from snippet sections, keyed like build snippets."""

import json

import pytest
from mkdocs.config import load_config

import notebooks
from project import ROOT

TEMPLATE = ROOT / "notebooks" / "selu.py"


@pytest.fixture(scope="module")
def snippets_config():
    return load_config(str(ROOT / "mkdocs.yml")).mdx_configs["pymdownx.snippets"]


def test_the_notebook_is_the_same_when_nothing_changed(snippets_config):
    # An executed notebook is reused while its key is unchanged; fixed cell ids keep the
    # notebook itself the same from build to build too.
    assert notebooks.expand(TEMPLATE, snippets_config) == notebooks.expand(TEMPLATE, snippets_config)
    assert notebooks.cache_key(TEMPLATE, ROOT) == notebooks.cache_key(TEMPLATE, ROOT)


def test_the_notebook_holds_the_snippet_code(snippets_config):
    notebook = json.loads(notebooks.expand(TEMPLATE, snippets_config))
    code = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    section = (ROOT / "snippets" / "selu.py").read_text().split("# --8<-- [start:selu]\n")[1]
    assert section.split("# --8<-- [end:selu]")[0].strip() in code
    assert "--8<--" not in code
    assert [c["id"] for c in notebook["cells"]] == [f"cell-{i}" for i in range(len(notebook["cells"]))]


def test_the_key_covers_the_template_its_snippets_this_module_and_the_environment():
    key = notebooks.cache_key(TEMPLATE, ROOT)
    assert {"notebooks/selu.py", "snippets/selu.py", "sitebuild/notebooks.py"} <= set(key["files"])
    assert {"jax", "jaxlib", "python", "cpu", "cores", "requirements", "requirements_lock"} <= set(key)


def test_a_pending_edition_says_so_and_lives_apart_from_the_cache(snippets_config, tmp_path):
    path = notebooks.write_pending(TEMPLATE, snippets_config, tmp_path / "pending", "being made")
    cells = json.loads(path.read_text())["cells"]
    assert "".join(cells[0]["source"]).startswith("# SELU as a notebook")  # the title stays first
    assert cells[1]["cell_type"] == "markdown" and "".join(cells[1]["source"]) == "being made"
    assert not any(c.get("outputs") for c in cells if c["cell_type"] == "code")
    assert path == tmp_path / "pending" / "notebooks" / "selu.ipynb"


def test_the_shared_stylesheet_replaces_a_large_inline_one(tmp_path):
    html = "<style>" + "a{}" * 20_000 + "</style><style>small{}</style>"
    out = notebooks.share_stylesheet(html, "notebooks/selu/", tmp_path)
    assert out.startswith('<link rel="stylesheet" href="../../assets/stylesheets/jupyter-')
    assert out.endswith("<style>small{}</style>")
    assert len(list((tmp_path / "assets" / "stylesheets").glob("jupyter-*.css"))) == 1
