"""What an author's edit or the build's own code can break on a page, read from its built
HTML: one h1 and no skipped heading level, a table beside each figure, alt text that says
what an image shows, no build check in the code a page shows, and links: every local href
and src resolves to a file, every #anchor to an id, and none is an absolute path; and from
its Markdown: no line that pymdownx.snippets would drop.

A machine cannot break these, so they are tests: tests/website/test_structure.py holds
every page of the quick build, both editions, to them. What a build on any machine must
refuse is the build's own check (sitebuild/check_site.py: offline), and MkDocs' strict
build checks the links pages write in Markdown, the branches a machine's data chooses
included.
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pymdownx.snippets import SnippetPreprocessor

import check_site

# Alt texts that say nothing (nbconvert writes the last one for every notebook image).
EMPTY_ALTS = {"image", "figure", "plot", "chart", "graph", "picture", "png", "svg",
              "no description has been provided for this image"}
MIN_ALT_WORDS = 4
# Reader code is reader code: what a page shows a reader copies, so it never holds the
# build's checks of the page against the run.
BUILD_GUARDS = ("DocumentationMismatch",)


@dataclass
class Article:
    """A page's <article> (its content), in document order."""

    headings: list[tuple[int, str]] = field(default_factory=list)  # (level, text)
    images: list[tuple[str, str]] = field(default_factory=list)  # (src, alt)
    sections: list[dict] = field(default_factory=lambda: [{"heading": "(top of page)", "figures": 0, "tables": 0}])
    code: list[str] = field(default_factory=list)  # the text of each <pre>


class _Parser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.article, self.depth, self.in_pre, self.heading = Article(), 0, 0, None

    def handle_starttag(self, tag, attrs):
        self.depth += tag == "article"
        if not self.depth:
            return
        section = self.article.sections[-1]
        if tag == "pre":
            self.in_pre += 1
            if self.in_pre == 1:
                self.article.code.append("")
        elif re.fullmatch(r"h[1-6]", tag):
            self.heading = [int(tag[1]), ""]
        elif tag == "img":
            attrs = dict(attrs)
            self.article.images.append((attrs.get("src") or "", (attrs.get("alt") or "").strip()))
        elif tag in ("figure", "table"):
            section[tag + "s"] += 1

    def handle_endtag(self, tag):
        if tag == "article" and self.depth:
            self.depth -= 1
        elif tag == "pre" and self.in_pre:
            self.in_pre -= 1
        elif self.heading and tag == f"h{self.heading[0]}":
            text = " ".join(self.heading[1].replace("¶", "").split())
            self.article.headings.append((self.heading[0], text))
            self.article.sections.append({"heading": text, "figures": 0, "tables": 0})
            self.heading = None

    def handle_data(self, data):
        if self.heading is not None:
            self.heading[1] += data
        if self.in_pre and self.depth:
            self.article.code[-1] += data


def article(html: str) -> Article:
    parser = _Parser()
    parser.feed(html)
    parser.close()
    return parser.article


def alt_problem(alt: str) -> str:
    """Why an alt text does not say what an image shows ("" when it does)."""
    words = alt.split()
    if not words:
        return "no alt text"
    if alt.lower().strip(" .") in EMPTY_ALTS or re.fullmatch(r"[\w.-]+\.(svg|png|jpe?g|gif|webp)", alt):
        return f"alt text says nothing: {alt!r}"
    if len(words) < MIN_ALT_WORDS:
        return f"alt text too short to say what the image shows: {alt!r}"
    return ""


def problems(html: str) -> list[str]:
    """Everything on one page that an author must fix."""
    found, page = [], article(html)
    levels = [level for level, _ in page.headings]
    if levels and (levels[0] != 1 or levels.count(1) != 1):
        found.append(f"needs exactly one h1, first; has {[f'h{lv}' for lv in levels[:4]]}...")
    found += [f"h{before} is followed by h{level} \"{text}\": a skipped level"
              for (before, _), (level, text) in zip(page.headings, page.headings[1:]) if level > before + 1]
    found += [f"section \"{s['heading']}\" has a figure but no table with its data "
              "(put {{ table(...) }} beside {{ figure(...) }})"
              for s in page.sections if s["figures"] and not s["tables"]]
    found += [f"<img src=\"{src[:60]}\">: {problem}" for src, alt in page.images if (problem := alt_problem(alt))]
    found += [f"a code block shows the build's check {guard}: move it out of the sections the page "
              "includes (snippets/measurement.py `fact`, in the build snippet)"
              for code in page.code for guard in BUILD_GUARDS if guard in code]
    return found


def site_problems(site: Path) -> list[str]:
    """`problems` of every HTML file under `site`, each named by its path, and its links'."""
    return [f"{path.relative_to(site).as_posix()}: {problem}" for path in sorted(site.rglob("*.html"))
            for problem in problems(path.read_text(encoding="utf-8"))] + link_problems(site)


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.ids.update(v for k, v in attrs if v and (k == "id" or (k == "name" and tag in ("a", "map"))))


def ids(html: str) -> set[str]:
    """The ids a link's #fragment can name on a page."""
    parser = _Ids()
    parser.feed(html)
    parser.close()
    return parser.ids


def local_target(file: str, value: str, site_url: str | None) -> tuple[str | None, str, str]:
    """(the file a link of page `file` names, relative to the site root, or None when it
    leaves the site; its #fragment; what is wrong with it, or "")."""
    if value.startswith(check_site.NOT_CHECKED_SCHEMES) or check_site.external(value, site_url):
        return None, "", ""
    value, _, fragment = value.partition("#")
    value, fragment = unquote(value.split("?")[0]), unquote(fragment)
    prefix, problem = urlsplit(site_url).path if site_url else "/", ""
    if site_url and value.startswith(site_url):
        path = value[len(site_url):]
    elif value.startswith("/"):
        if not value.startswith(prefix):
            return value, fragment, f"absolute path outside the site's address {prefix}"
        path = value[len(prefix):]
        if posixpath.basename(file) != "404.html":  # ko/404.html too
            problem = "absolute path: breaks when the site is served elsewhere; use a relative link"
    elif value:
        path = posixpath.join(posixpath.dirname(file), value)
    else:  # "#fragment" or "?query" alone: this page
        return file, fragment, ""
    if path in ("", ".") or path.endswith("/"):
        path += "/index.html"
    return posixpath.normpath(path.lstrip("/")), fragment, problem


def link_problems(site: Path) -> list[str]:
    """Local links whose file or #anchor does not exist, and absolute local links."""
    site_url, _ = check_site.site_url_and_pages(site)
    pages, found = check_site.parse_site(site), []
    anchors = functools.cache(lambda path: ids((site / path).read_text(encoding="utf-8")))
    for file, page in pages.items():
        for tag, attr, value in page.urls:
            path, fragment, problem = local_target(file, value, site_url)
            if path is None:
                continue
            if not problem:
                if (site / path).is_dir():
                    path = posixpath.normpath(posixpath.join(path, "index.html"))
                if path.startswith("../") or not (site / path).is_file():
                    problem = f"no such file {path}"
                elif fragment and path in pages and fragment not in anchors(path):
                    problem = f"no id \"{fragment}\" in {path}"
            if problem:
                found.append(f"{file}: <{tag} {attr}=\"{value}\">: {problem}")
    return found


def dropped_lines(markdown: str) -> list[str]:
    """A page's lines that pymdownx.snippets drops without a word: a section marker, written
    where the page meant to show one (";--8<--", its escape, shows the marker instead)."""
    return [f"line {number}: {line.strip()!r}: write ;--8<-- to show it" for number, line in enumerate(markdown.splitlines(), 1)
            if "8<-" in line and (m := SnippetPreprocessor.RE_SNIPPET_SECTION.match(line)) and not m.group("escape")]
