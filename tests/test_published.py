"""snippets/published.py: the timings quoted from elsewhere, as each edition's SELU page quotes them."""

import re

import pytest

from project import ROOT
from published import SELU


def _as_written(seconds: float) -> set[str]:
    return {f"{seconds * 1e3:g} ms", f"{seconds * 1e6:g} µs"}


@pytest.mark.parametrize("docs", ["docs", "docs-ko"])
def test_the_selu_page_quotes_each_published_figure_as_the_snippets_set_it(docs):
    page = (ROOT / docs / "selu.md").read_text(encoding="utf-8")
    for source, timings in SELU.items():
        assert f"[^{source}]" in page, f"{docs}/selu.md cites no source [^{source}]"
        # the words that cite it: since the paragraph's start or the citation before
        cited = re.split(r"\n\s*\n|\[\^\w+\]", page[:page.index(f"[^{source}]")])[-1]
        for seconds in timings:
            assert any(text in cited for text in _as_written(seconds)), \
                f"{docs}/selu.md does not quote {source}'s {seconds} s before citing it: {cited!r}"
