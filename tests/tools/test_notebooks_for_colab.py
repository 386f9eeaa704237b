"""tools/notebooks_for_colab.py: the notebooks Colab opens from the repository are current."""

import pytest
from mkdocs.config import load_config

import notebooks
import notebooks_for_colab
from project import ROOT


@pytest.fixture(scope="module")
def snippets_config():
    return load_config(str(ROOT / "mkdocs.yml")).mdx_configs["pymdownx.snippets"]


@pytest.mark.parametrize("template", notebooks_for_colab.templates(), ids=lambda p: p.relative_to(ROOT / "notebooks").with_suffix("").as_posix())
def test_the_notebook_colab_opens_is_the_templates_edition(template, snippets_config):
    # Colab opens notebooks only from the repository: each template's unexecuted edition is
    # committed beside it, and must be what the build would make of it today.
    committed = notebooks_for_colab.for_colab(template)
    assert committed.is_file() and committed.read_text(encoding="utf-8") == notebooks.expand(template, snippets_config), (
        f"{committed.relative_to(ROOT)} is not the edition of {template.relative_to(ROOT)}: "
        "run `python tools/notebooks_for_colab.py` and commit the notebooks it writes")

