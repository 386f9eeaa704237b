"""Checks of a built site that read nothing but its files.

Independent of MkDocs: any static site generator's output can be checked, so the same
checks survive a change of generator. `hook.py` runs them all (`all_problems`) after
every `mkdocs build` (a problem fails the build); `python sitebuild/check_site.py
SITE_DIR` runs them by hand.

- broken_links: every local href/src resolves to a file, and every #anchor to an id
  in the target page; local links are relative (an absolute path breaks as soon as the
  site is served from another address), except on 404.html, which needs them.
- third_party_resources: no page loads a script, style, image or font from another host.
- heading_problems: one h1 per page, and no skipped level (h2 -> h4).
- figure_problems: every figure has a table in its section (its data, readable as text).
- image_problems: every image has alt text that says what it shows.
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
# Alt texts that say nothing (nbconvert writes the last one for every notebook image).
_EMPTY_ALTS = {"image", "figure", "plot", "chart", "graph", "picture", "png", "svg",
               "no description has been provided for this image"}
MIN_ALT_WORDS = 4


@dataclass
class Page:
    """What the checks need from one HTML file."""

    file: str  # relative to the site root, e.g. "selu/index.html"
    ids: set[str] = field(default_factory=set)
    urls: list[tuple[str, str, str]] = field(default_factory=list)  # (tag, attribute, value)
    fetched: list[str] = field(default_factory=list)  # URLs the browser loads with the page
    imports: list[str] = field(default_factory=list)  # @import url(...) in <style>
    # Inside the page's <article> (the content), in document order:
    headings: list[tuple[int, str]] = field(default_factory=list)  # (level, text)
    images: list[tuple[str, str]] = field(default_factory=list)  # (src, alt)
    sections: list[dict] = field(default_factory=list)  # per heading: figures, tables
    code: list[str] = field(default_factory=list)  # the text of each <pre> in the article


class _Parser(HTMLParser):
    def __init__(self, page: Page):
        super().__init__(convert_charrefs=True)
        self.page = page
        self.in_article = 0
        self.heading: list | None = None  # [level, text parts] while inside a heading
        self.in_style = False
        self.in_pre = 0
        page.sections.append({"heading": "(top of page)", "figures": [], "tables": 0})

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
        if tag == "style":
            self.in_style = True
        if tag == "article":
            self.in_article += 1
        if not self.in_article:
            return
        if tag == "pre":
            self.in_pre += 1
            if self.in_pre == 1:
                page.code.append("")
        if re.fullmatch(r"h[1-6]", tag):
            self.heading = [int(tag[1]), []]
        elif tag == "img":
            page.images.append((attrs.get("src") or "", (attrs.get("alt") or "").strip()))
            if page.sections[-1]["figures"] and page.sections[-1]["figures"][-1]["alt"] is None:
                page.sections[-1]["figures"][-1]["alt"] = (attrs.get("alt") or "").strip()
        elif tag == "figure":
            page.sections[-1]["figures"].append({"alt": None})
        elif tag == "table":
            page.sections[-1]["tables"] += 1

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False
        elif tag == "article" and self.in_article:
            self.in_article -= 1
        elif tag == "pre" and self.in_pre:
            self.in_pre -= 1
        elif self.heading and tag == f"h{self.heading[0]}":
            text = " ".join("".join(self.heading[1]).replace("¶", "").split())
            self.page.headings.append((self.heading[0], text))
            self.page.sections.append({"heading": text, "figures": [], "tables": 0})
            self.heading = None

    def handle_data(self, data):
        if self.heading is not None:
            self.heading[1].append(data)
        if self.in_pre and self.in_article:
            self.page.code[-1] += data
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


def heading_problems(pages: dict[str, Page]) -> list[str]:
    problems = []
    for file, page in pages.items():
        if not page.headings:
            continue
        levels = [level for level, _ in page.headings]
        if levels[0] != 1 or levels.count(1) != 1:
            problems.append(f"{file}: needs exactly one h1, first; has {[f'h{lv}' for lv in levels[:4]]}...")
        for (before, _), (level, text) in zip(page.headings, page.headings[1:]):
            if level > before + 1:
                problems.append(f"{file}: h{before} is followed by h{level} \"{text}\": a skipped level")
    return problems


def figure_problems(pages: dict[str, Page]) -> list[str]:
    problems = []
    for file, page in pages.items():
        for section in page.sections:
            if section["figures"] and not section["tables"]:
                problems.append(f"{file}: section \"{section['heading']}\" has a figure but no table with its data "
                                "(put {{ table(...) }} beside {{ figure(...) }})")
    return problems


def alt_problem(alt: str) -> str:
    """Why an alt text does not say what an image shows ("" when it does)."""
    words = alt.split()
    if not words:
        return "no alt text"
    if alt.lower().strip(" .") in _EMPTY_ALTS or re.fullmatch(r"[\w.-]+\.(svg|png|jpe?g|gif|webp)", alt):
        return f"alt text says nothing: {alt!r}"
    if len(words) < MIN_ALT_WORDS:
        return f"alt text too short to say what the image shows: {alt!r}"
    return ""


def image_problems(pages: dict[str, Page]) -> list[str]:
    problems = []
    for file, page in pages.items():
        for src, alt in page.images:
            problem = alt_problem(alt)
            if problem:
                problems.append(f"{file}: <img src=\"{src[:60]}\">: {problem}")
    return problems


# Reader code is reader code: what a page shows a reader copies, so it never holds the
# build's checks of the page against the run.
BUILD_GUARDS = ("DocumentationMismatch",)


def build_guard_problems(pages: dict[str, Page]) -> list[str]:
    return [f"{file}: a code block shows the build's check {guard}: move it out of the "
            "sections the page includes (snippets/measurement.py `fact`, in the build snippet)"
            for file, page in pages.items() for code in page.code for guard in BUILD_GUARDS
            if guard in code]


def all_problems(site: Path) -> list[str]:
    site_url, _ = site_url_and_pages(site)
    pages = parse_site(site)
    return (broken_links(site, pages, site_url) + third_party_resources(pages, site_url)
            + heading_problems(pages) + figure_problems(pages) + image_problems(pages)
            + build_guard_problems(pages))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python sitebuild/check_site.py SITE_DIR")
    found = all_problems(Path(sys.argv[1]))
    print("\n".join(found) or "no problems found")
    sys.exit(1 if found else 0)
