"""The built site's sitemap and what an author's edit can break on its pages, read without
a browser.

Third-party requests are checked by the build itself (sitebuild/check_site.py, after each
`mkdocs build`; its ability to fail: tests/sitebuild/test_check_site.py). Links, headings,
a figure's table, alt text and reader code are an author's or the build code's
(tests/page_checks.py): every page of the quick build, both editions, is held to them here,
and the hand-made pages below show each check can fail.
"""

from project import ROOT

import check_site
import page_checks

PAGE = """<html><body><nav><h4>Site</h4></nav><article><h1>Chapter</h1><h2>Results</h2>
<figure><img src="fig.svg" alt="Bar chart: jit takes 0.3 ms, eager 1.2 ms"></figure>
<table><tr><td>1</td></tr></table><h3>More</h3><pre><code>y = selu(x)</code></pre>
<p>DocumentationMismatch, in prose</p></article></body></html>"""


def test_every_page_of_the_sitemap_was_built(built_site):
    site_url, urls = check_site.site_url_and_pages(built_site)
    assert site_url and site_url.endswith("/")
    assert [u for u in urls if not (built_site / u / "index.html").is_file()] == []


def test_no_page_has_a_problem_an_author_must_fix(built_site):
    assert page_checks.site_problems(built_site) == []
    assert any(page_checks.article(p.read_text(encoding="utf-8")).images for p in built_site.rglob("*.html"))


def test_a_good_page_has_no_problems():
    assert page_checks.problems(PAGE) == []


def test_skipped_heading_levels_and_a_missing_h1_are_found():
    assert page_checks.problems(PAGE.replace("<h3>More</h3>", "<h4>More</h4>")) == [
        'h2 is followed by h4 "More": a skipped level']
    assert "needs exactly one h1" in page_checks.problems(PAGE.replace("<h1>Chapter</h1>", ""))[0]


def test_a_figure_without_a_table_in_its_section_is_found():
    assert page_checks.problems(PAGE.replace("<table><tr><td>1</td></tr></table>", "")) == [
        'section "Results" has a figure but no table with its data '
        "(put {{ table(...) }} beside {{ figure(...) }})"]


def test_alt_texts_that_say_nothing_are_found():
    assert page_checks.alt_problem("Bar chart: jit takes 0.3 ms, eager 1.2 ms") == ""
    for alt in ["", "figure", "scaling.svg", "No description has been provided for this image", "a plot"]:
        assert page_checks.alt_problem(alt), alt
    assert "alt text says nothing" in page_checks.problems(PAGE.replace('alt="Bar chart', 'alt="figure" x="'))[0]


def test_a_build_guard_in_a_pages_code_is_found():
    guarded = PAGE.replace("y = selu(x)", 'if copies != 1:\n    raise <span>Documentation</span>Mismatch("...")')
    assert page_checks.problems(guarded) == [
        "a code block shows the build's check DocumentationMismatch: move it out of the sections "
        "the page includes (snippets/measurement.py `fact`, in the build snippet)"]


def test_missing_files_and_anchors_and_absolute_links_are_found(tmp_path):
    site_url = "https://example.org/docs/"
    (tmp_path / "chapter").mkdir()
    (tmp_path / "sitemap.xml").write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{site_url}</loc></url><url><loc>{site_url}chapter/</loc></url></urlset>")
    (tmp_path / "index.html").write_text('<h1 id="top">Home</h1><a href="chapter/#results">go</a>'
                                         f'<a href="{site_url}chapter/">canonical</a><a href="mailto:a@b.org">m</a>')
    good = '<h2 id="results">R</h2><a href="../#top">home</a><a href="https://jax.readthedocs.io/">JAX</a>'
    (tmp_path / "chapter" / "index.html").write_text(good)
    assert page_checks.link_problems(tmp_path) == []
    (tmp_path / "chapter" / "index.html").write_text(good + '<a href="../#gone">a</a><a href="../missing/">b</a>'
                                                     '<img src="/docs/fig.svg" alt="x"><a href="#nowhere">c</a>')
    (tmp_path / "404.html").write_text('<a href="/docs/chapter/">back</a>')  # 404.html may: served anywhere
    assert [p.split(">: ")[1] for p in page_checks.link_problems(tmp_path)] == [
        'no id "gone" in index.html', "no such file missing/index.html",
        "absolute path: breaks when the site is served elsewhere; use a relative link",
        'no id "nowhere" in chapter/index.html']


def test_no_page_has_a_line_that_pymdownx_snippets_would_drop():
    pages = sorted((ROOT / "docs").rglob("*.md")) + sorted((ROOT / "docs-ko").rglob("*.md"))
    assert [f"{p.relative_to(ROOT)} {problem}" for p in pages
            for problem in page_checks.dropped_lines(p.read_text(encoding="utf-8"))] == []


def test_a_section_marker_in_a_page_is_found_unless_escaped():
    assert page_checks.dropped_lines("Sections:\n(`# --8<-- [start:name]` … `[end:name]`).") == [
        "line 2: '(`# --8<-- [start:name]` … `[end:name]`).': write ;--8<-- to show it"]
    assert page_checks.dropped_lines("(`# ;--8<-- [start:name]` … `[end:name]`).") == []
    assert page_checks.dropped_lines('--8<-- "selu.py:selu"') == []  # an include is not a section marker
    assert page_checks.dropped_lines("`--8<-- [start:<name>]`") == []  # no valid name: pymdownx keeps it
