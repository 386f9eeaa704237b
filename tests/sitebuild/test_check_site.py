"""sitebuild/check_site.py finds what it is meant to find, on small hand-made sites."""

import subprocess
import sys

from project import ROOT

import check_site

SITE_URL = "https://example.org/docs/"
GOOD_PAGE = """<html><head><link rel="stylesheet" href="../assets/main.css">
<link rel="canonical" href="https://example.org/docs/chapter/"></head><body>
<a href="#content" class="md-skip">Skip</a>
<article><h1 id="content">Chapter</h1><h2 id="results">Results</h2>
<figure><img src="../fig.svg" alt="Bar chart: jit takes 0.3 ms, eager 1.2 ms"></figure>
<table><tr><td>1</td></tr></table>
<h3 id="more">More</h3><p><a href="../#top">home</a> <a href="https://jax.readthedocs.io/">JAX</a>
<a href="mailto:someone@example.org">mail</a></p></article></body></html>"""


def make_site(tmp_path, chapter=GOOD_PAGE, **files):
    site = tmp_path / "site"
    (site / "chapter").mkdir(parents=True)
    (site / "assets").mkdir()
    (site / "assets" / "main.css").write_text("body {}")
    (site / "fig.svg").write_text("<svg/>")
    (site / "index.html").write_text('<html><body><article><h1 id="top">Home</h1>'
                                     '<a href="chapter/#results">go</a></article></body></html>')
    (site / "chapter" / "index.html").write_text(chapter)
    (site / "sitemap.xml").write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{SITE_URL}</loc></url><url><loc>{SITE_URL}chapter/</loc></url></urlset>")
    for name, text in files.items():
        (site / name).write_text(text)
    return site


def test_a_good_site_has_no_problems(tmp_path):
    site = make_site(tmp_path)
    assert check_site.site_url_and_pages(site) == (SITE_URL, ["", "chapter/"])
    assert check_site.all_problems(site) == []


def test_third_party_resources_are_found_and_links_out_are_not(tmp_path):
    chapter = GOOD_PAGE.replace("</head>", '<script src="https://cdn.example.com/x.js"></script>'
                                           '<link rel="stylesheet" href="//fonts.example.com/f.css">'
                                           "<style>@import url(https://fonts.example.com/y.css);</style></head>")
    site = make_site(tmp_path, chapter)
    problems = check_site.third_party_resources(check_site.parse_site(site), SITE_URL)
    assert [p.split(": loads ")[1] for p in problems] == [
        "https://cdn.example.com/x.js", "//fonts.example.com/f.css", "https://fonts.example.com/y.css"]


def test_the_command_line_reports_problems_and_fails(tmp_path):
    site = make_site(tmp_path, GOOD_PAGE.replace("</head>", '<script src="https://cdn.example.com/x.js"></script></head>'))
    result = subprocess.run([sys.executable, str(ROOT / "sitebuild" / "check_site.py"), str(site)],
                            capture_output=True, text=True)
    assert result.returncode == 1 and "chapter/index.html: loads https://cdn.example.com/x.js" in result.stdout
