"""The built site's sitemap, read without a browser.

Links, anchors, third-party requests, headings, figures and alt text are checked by the
build itself: sitebuild/hook.py runs every check of sitebuild/check_site.py after each
`mkdocs build`, so the quick build (built_site) has passed them all. Their ability to
fail is tested in tests/sitebuild/test_check_site.py.
"""

import check_site


def test_every_page_of_the_sitemap_was_built(built_site):
    site_url, urls = check_site.site_url_and_pages(built_site)
    assert site_url and site_url.endswith("/")
    assert [u for u in urls if not (built_site / u / "index.html").is_file()] == []
