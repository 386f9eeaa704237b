"""Checks of a built site that read nothing but its files: what a machine, a theme or the
build's code can break, so every `mkdocs build` runs them (hook.py; a problem fails the
build), and `python sitebuild/check_site.py SITE_DIR` runs them by hand. What only an
author's edit can break (headings, a figure's table, alt text) is a test: tests/page_checks.py.

Independent of MkDocs: any static site generator's output can be checked, so the same
checks survive a change of generator.

- broken_links: every local href/src resolves to a file, and every #anchor to an id
  in the target page; local links are relative (an absolute path breaks as soon as the
  site is served from another address), except on 404.html, which needs them.
- third_party_resources: no page loads a script, style, image or font from another host.
"""

from __future__ import annotations

import posixpath
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Elements and attributes whose URL the browser fetches while showing the page.
_FETCHED = {("img", "src"), ("script", "src"), ("iframe", "src"), ("source", "src"),
            ("audio", "src"), ("video", "src"), ("video", "poster"), ("embed", "src"),
            ("object", "data"), ("input", "src")}
_FETCHED_LINK_RELS = {"stylesheet", "icon", "preload", "modulepreload", "manifest",
                      "apple-touch-icon", "prefetch"}
_NOT_CHECKED_SCHEMES = ("mailto:", "tel:", "javascript:", "data:", "blob:")


@dataclass
class Page:
    """What the checks need from one HTML file."""

    file: str  # relative to the site root, e.g. "selu/index.html"
    ids: set[str] = field(default_factory=set)
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
        for name in ("id", "name") if tag in ("a", "map") else ("id",):
            if attrs.get(name):
                page.ids.add(attrs[name])
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


def _external(value: str, site_url: str | None) -> bool:
    if value.startswith("//"):
        return True
    if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", value):
        return not (site_url and value.startswith(site_url)) and not value.startswith(_NOT_CHECKED_SCHEMES)
    return False


def third_party_resources(pages: dict[str, Page], site_url: str | None = None) -> list[str]:
    """Resources a page would load from another host: each breaks 'offline'."""
    problems = []
    for file, page in pages.items():
        for value in page.fetched + page.imports:
            if _external(value, site_url):
                problems.append(f"{file}: loads {value}")
    return problems


def local_target(page: Page, value: str, site_url: str | None) -> tuple[str | None, str, str]:
    """(file path relative to the site root or None when not local, #fragment, problem)."""
    if value.startswith(_NOT_CHECKED_SCHEMES) or _external(value, site_url):
        return None, "", ""
    value, _, fragment = value.partition("#")
    value = unquote(value.split("?")[0])
    prefix = urlsplit(site_url).path if site_url else "/"
    problem = ""
    if site_url and value.startswith(site_url):
        path = value[len(site_url):]
    elif value.startswith("/"):
        if not value.startswith(prefix):
            return value, fragment, f"absolute path outside the site's address {prefix}"
        path = value[len(prefix):]
        if posixpath.basename(page.file) != "404.html":  # ko/404.html too
            problem = "absolute path: breaks when the site is served elsewhere; use a relative link"
    elif value:
        path = posixpath.join(posixpath.dirname(page.file), value)
    else:  # "#fragment" or "?query" alone: this page
        return page.file, unquote(fragment), ""
    if path in ("", ".") or path.endswith("/"):
        path += "/index.html"
    return posixpath.normpath(path.lstrip("/")), unquote(fragment), problem


def broken_links(site: Path, pages: dict[str, Page], site_url: str | None = None) -> list[str]:
    """Local links whose file or #anchor does not exist, and absolute local links."""
    problems = []
    for file, page in pages.items():
        for tag, attr, value in page.urls:
            path, fragment, problem = local_target(page, value, site_url)
            if path is None:
                continue
            where = f"{file}: <{tag} {attr}=\"{value}\">"
            if problem:
                problems.append(f"{where}: {problem}")
                continue
            if (site / path).is_dir():
                path = posixpath.normpath(posixpath.join(path, "index.html"))
            if path.startswith("../") or not (site / path).is_file():
                problems.append(f"{where}: no such file {path}")
            elif fragment and path in pages and fragment not in pages[path].ids:
                problems.append(f"{where}: no id \"{fragment}\" in {path}")
    return problems


def all_problems(site: Path) -> list[str]:
    site_url, _ = site_url_and_pages(site)
    pages = parse_site(site)
    return broken_links(site, pages, site_url) + third_party_resources(pages, site_url)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python sitebuild/check_site.py SITE_DIR")
    found = all_problems(Path(sys.argv[1]))
    print("\n".join(found) or "no problems found")
    sys.exit(1 if found else 0)
