"""The build's check of a built site, reading nothing but its files: no page loads a script,
style, image or font from another host (the site works offline and tells no third party
who reads it). Every `mkdocs build` runs it (hook.py; a problem fails the build), and
`python sitebuild/check_site.py SITE_DIR` runs it by hand.

Links and anchors are MkDocs' own check in a strict build (mkdocs.yml `validation`) for
what pages write; tests/page_checks.py checks every link of the built HTML, the build's
own included, with what else only an author's edit or the build's code can break.

Independent of MkDocs: any static site generator's output can be checked.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

# Elements and attributes whose URL the browser fetches while showing the page.
_FETCHED = {("img", "src"), ("script", "src"), ("iframe", "src"), ("source", "src"),
            ("audio", "src"), ("video", "src"), ("video", "poster"), ("embed", "src"),
            ("object", "data"), ("input", "src")}
_FETCHED_LINK_RELS = {"stylesheet", "icon", "preload", "modulepreload", "manifest",
                      "apple-touch-icon", "prefetch"}
NOT_CHECKED_SCHEMES = ("mailto:", "tel:", "javascript:", "data:", "blob:")


@dataclass
class Page:
    """What the checks need from one HTML file."""

    file: str  # relative to the site root, e.g. "selu/index.html"
    urls: list[tuple[str, str, str]] = field(default_factory=list)  # (tag, attribute, value)
    fetched: list[str] = field(default_factory=list)  # URLs the browser loads with the page
    imports: list[str] = field(default_factory=list)  # @import url(...) in <style>


class _Parser(HTMLParser):
    def __init__(self, page: Page):
        super().__init__(convert_charrefs=True)
        self.page = page
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        page = self.page
        for name in ("href", "src", "poster", "data"):
            value = attrs.get(name)
            if value is None:
                continue
            page.urls.append((tag, name, value))
            rels = set((attrs.get("rel") or "").lower().split())
            if (tag, name) in _FETCHED or (tag == "link" and name == "href" and rels & _FETCHED_LINK_RELS):
                page.fetched.append(value)
        self.in_style = self.in_style or tag == "style"

    def handle_endtag(self, tag):
        self.in_style = self.in_style and tag != "style"

    def handle_data(self, data):
        if self.in_style:
            self.page.imports += re.findall(r"@import\s+url\(\s*['\"]?([^'\")]+)", data)


def parse_page(site: Path, file: str) -> Page:
    page = Page(file)
    parser = _Parser(page)
    parser.feed((site / file).read_text(encoding="utf-8"))
    parser.close()
    return page


def parse_site(site: Path) -> dict[str, Page]:
    """Every HTML file of the site, by its path relative to the site root."""
    return {p.relative_to(site).as_posix(): parse_page(site, p.relative_to(site).as_posix())
            for p in sorted(site.rglob("*.html"))}


def site_url_and_pages(site: Path) -> tuple[str | None, list[str]]:
    """The site's address and its pages' URLs (relative to the root), from sitemap.xml.

    Falls back to every index.html when there is no sitemap.
    """
    sitemap = site / "sitemap.xml"
    if sitemap.is_file():
        ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
        locs = [loc.text.strip() for loc in ET.parse(sitemap).getroot().findall("s:url/s:loc", ns)]
        if locs:
            root = min(locs, key=len)  # the home page
            return root, [loc[len(root):] for loc in locs]
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("index.html"))
    return None, [p[: -len("index.html")] for p in pages]


def external(value: str, site_url: str | None) -> bool:
    if value.startswith("//"):
        return True
    if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", value):
        return not (site_url and value.startswith(site_url)) and not value.startswith(NOT_CHECKED_SCHEMES)
    return False


def third_party_resources(pages: dict[str, Page], site_url: str | None = None) -> list[str]:
    """Resources a page would load from another host: each breaks 'offline'."""
    problems = []
    for file, page in pages.items():
        for value in page.fetched + page.imports:
            if external(value, site_url):
                problems.append(f"{file}: loads {value}")
    return problems


def all_problems(site: Path) -> list[str]:
    site_url, _ = site_url_and_pages(site)
    return third_party_resources(parse_site(site), site_url)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python sitebuild/check_site.py SITE_DIR")
    found = all_problems(Path(sys.argv[1]))
    print("\n".join(found) or "no problems found")
    sys.exit(1 if found else 0)
