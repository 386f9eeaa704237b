"""sitebuild/hook.py: notebook editions are made from snippet sections, deterministically."""

import json

import pytest
from mkdocs.config import load_config

import hook
from project import ROOT


@pytest.fixture
def config():
    return load_config(str(ROOT / "mkdocs.yml"))


def test_notebook_source_is_identical_when_nothing_changed(config):
    # An executed notebook is reused while its source is unchanged: a source that changed by
    # itself would execute the notebook on every build.
    first = hook._notebook_source(ROOT / "notebooks" / "selu.py", config)
    assert hook._notebook_source(ROOT / "notebooks" / "selu.py", config) == first


def test_notebook_holds_the_snippet_code_and_the_environment(config):
    notebook = json.loads(hook._notebook_source(ROOT / "notebooks" / "selu.py", config))
    code = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    assert (ROOT / "snippets" / "selu.py").read_text().split("# --8<-- [start:selu]\n")[1] \
        .split("# --8<-- [end:selu]")[0].strip() in code
    assert "--8<--" not in code
    environment = notebook["metadata"]["just_in_time"]["environment"]
    assert {"jax", "jaxlib", "cpu", "cores", "python"} <= set(environment)


def test_bad_flag_values_are_refused(monkeypatch):
    monkeypatch.setenv("JIT_DOCS_REMEASURE", "true")
    with pytest.raises(Exception, match="JIT_DOCS_REMEASURE must be 0 or 1"):
        hook._flag("JIT_DOCS_REMEASURE")
    monkeypatch.setenv("JIT_DOCS_TIMEOUT", "-3")
    with pytest.raises(Exception, match="JIT_DOCS_TIMEOUT must be a positive number"):
        hook._timeout()
