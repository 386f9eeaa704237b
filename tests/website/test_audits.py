"""Every page of the built site passes the Nu Html Checker and Lighthouse's audits.

The audits are tools/audit_pages.py's (see its docstring for what runs where); the
tools come from Debian (Chromium, Java) and npm (tools/audit-tools, `npm ci`). Without
them these tests skip and say what to install, except under CI.

Lighthouse's performance category does not run here: it comes from timings, which no
test asserts (`python tools/audit_pages.py SITE` prints it). What is asserted instead,
on every page, are the figures behind it that do not move with the machine's load:
elements, bytes, and the requests a page makes while it loads.
"""

import audit_pages


def report(problems: dict[str, list]) -> str:
    return "\n".join(f"{page or '(home)'}: {item}" for page, items in problems.items() for item in items)


def test_every_page_was_audited(page_audits, site_pages):
    scored = {a.page for a in page_audits if a.scores}
    assert scored == set(site_pages), f"not audited by Lighthouse: {set(site_pages) - scored}"
    weighed = {a.page for a in page_audits if a.metrics}
    assert weighed == set(site_pages), f"not weighed by Lighthouse: {set(site_pages) - weighed}"


def test_no_page_has_an_html_error(page_audits):
    errors = {a.page: a.validation_errors for a in page_audits if a.validation_errors}
    assert not errors, report(errors)


def test_every_page_scores_100_in_accessibility_best_practices_and_seo(page_audits):
    low = {a.page: [p for p in a.problems() if p.startswith("Lighthouse")] for a in page_audits}
    low = {page: items for page, items in low.items() if items}
    assert not low, report(low)
    for a in page_audits:
        if a.scores:
            assert set(audit_pages.STRICT_CATEGORIES) <= set(a.scores), (a.page, a.scores)


def test_every_page_stays_light_and_loads_no_search_index(page_audits):
    heavy = {a.page: [p for p in a.problems() if not p.startswith(("Lighthouse", "Nu"))]
             for a in page_audits if a.metrics}
    heavy = {page: items for page, items in heavy.items() if items}
    assert not heavy, report(heavy)
