"""The glossary: one definition per term on docs/glossary.md, shown as tooltips everywhere."""

import re

import pytest

import glossary
from project import ROOT, mkdocs_config

PAGE = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")


def test_each_term_is_defined_once_and_its_forms_become_abbreviations():
    text = "# Glossary\n\nIntro.\n\nXLA\n:   The *compiler*, see\n    `jax.jit`.\n\ntracing, tracer\n:   Running on [tracers](jit.md).\n"
    assert glossary.entries(text) == [("XLA", "The *compiler*, see `jax.jit`."),
                                      ("tracing, tracer", "Running on [tracers](jit.md).")]
    found = glossary.abbreviations(text)
    assert found["XLA"] == "The compiler, see jax.jit."  # a tooltip is plain text
    assert found["tracing"] == found["Tracer"] == "Running on tracers."
    with pytest.raises(ValueError, match="'XLA' is defined twice"):
        glossary.abbreviations(text + "\nXLA\n:   Again.\n")


def test_the_glossary_defines_the_terms_a_newcomer_trips_on():
    forms = glossary.abbreviations(PAGE)
    for term in ("XLA", "dispatch", "tracing", "tracer", "jaxpr", "lowering", "StableHLO", "HLO",
                 "fusion", "pytree", "static argument", "interquartile range", "eager", "op-by-op",
                 "compilation cache", "persistent cache", "donation", "asynchronous dispatch",
                 "weak type", "recompilation", "block_until_ready", "PI-DeepONet", "Adam", "LRU",
                 "quickening", "specialization", "bytecode", "JIT", "HotSpot", "PyPy", "Numba",
                 "TorchInductor", "median"):
        assert term in forms, term
    assert all(len(text.split()) <= 45 for text in forms.values()), "a tooltip is a sentence or two"


def test_the_glossary_is_near_the_end_of_the_reading_order():
    config = mkdocs_config()
    pages = [next(iter(entry.values())) if isinstance(entry, dict) else entry for entry in config["nav"]]
    assert pages[:3] == ["index.md", "selu.md", "notebooks/selu.ipynb"]
    assert pages[-2:] == ["glossary.md", "how-this-site-is-built.md"]
    assert "sitebuild/glossary.py" in config["hooks"]
    assert "content.tooltips" in config["theme"]["features"]


def test_every_page_shows_the_glossary_as_tooltips(built_site):
    forms = glossary.abbreviations(PAGE)
    jit = (built_site / "jit" / "index.html").read_text(encoding="utf-8")
    titles = dict((text, title) for title, text in re.findall(r'<abbr title="([^"]*)">([^<]+)</abbr>', jit))
    assert "XLA" in titles and titles["XLA"].startswith("Accelerated Linear Algebra")
    assert set(titles) <= set(forms)
    assert "<abbr" not in "".join(re.findall(r"<pre.*?</pre>", jit, re.S)), "code stays code"
    listed = (built_site / "glossary" / "index.html").read_text(encoding="utf-8")
    assert listed.count("<dt>") == len(glossary.entries(PAGE))
