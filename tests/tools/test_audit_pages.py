"""tools/audit_pages.py decides from its tools' findings (the tools run in tests/website)."""

import audit_pages


def test_a_clean_page_has_no_problems():
    page = audit_pages.PageAudit("selu/", [], {"accessibility": 1, "best-practices": 1, "seo": 1},
                                 [], {"dom_elements": 900, "total_bytes": 90_000, "requests": ["x/"]})
    assert page.problems() == []


def test_each_kind_of_problem_is_named():
    page = audit_pages.PageAudit(
        "jit/", ["line 3: Bad value"], {"accessibility": 0.9, "performance": 0.4, "seo": 1},
        [{"id": "color-contrast", "category": "accessibility", "items": ['<span class="c1">']}],
        {"dom_elements": 2500, "total_bytes": 2_000_000, "requests": ["http://h/search/search_index.json"]})
    problems = "\n".join(page.problems())
    assert "Nu Html Checker: line 3: Bad value" in problems
    assert 'Lighthouse accessibility 90: color-contrast (<span class="c1">)' in problems
    assert "performance" not in problems  # a timing score never decides
    assert "2500 HTML elements" in problems and "2000 kB" in problems
    assert "search_index.json while loading" in problems
