"""The built site's HTML, without a browser: links, anchors, headings, figures, alt text.

The checks live in sitebuild/check_site.py (the build runs the link checks too); here
they run over the quick build. Their ability to fail is tested in
tests/sitebuild/test_check_site.py.
"""

import pytest

import check_site


@pytest.fixture(scope="session")
def pages(built_site):
    return check_site.parse_site(built_site)


@pytest.fixture(scope="session")
def site_url(built_site):
    return check_site.site_url_and_pages(built_site)[0]


def test_every_page_of_the_sitemap_was_built(built_site, site_url):
    _, urls = check_site.site_url_and_pages(built_site)
    assert site_url and site_url.endswith("/")
    assert [u for u in urls if not (built_site / u / "index.html").is_file()] == []


def test_every_local_link_and_anchor_resolves(built_site, pages, site_url):
    assert check_site.broken_links(built_site, pages, site_url) == []
    assert sum(len(p.urls) for p in pages.values()) > 100  # the check saw the links


def test_nothing_is_loaded_from_another_host(pages, site_url):
    assert check_site.third_party_resources(pages, site_url) == []


def test_headings_are_in_order(pages):
    assert check_site.heading_problems(pages) == []


def test_every_figure_has_its_data_as_a_table(pages):
    assert check_site.figure_problems(pages) == []
    assert any(s["figures"] for p in pages.values() for s in p.sections), "no figure found: is the site complete?"


def test_every_image_says_what_it_shows(pages):
    assert check_site.image_problems(pages) == []
