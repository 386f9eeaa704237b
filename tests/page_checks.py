"""What an author's edit can break on a built page, read from its HTML: one h1 and no
skipped heading level, a table beside each figure, alt text that says what an image shows,
and no build check in the code a page shows.

A machine cannot break these (the build's own check, sitebuild/check_site.py, keeps what
a machine or a theme can: links, anchors, offline), so they are tests:
tests/website/test_structure.py holds every page of the quick build to them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

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
    """`problems` of every HTML file under `site`, each named by its path."""
    return [f"{path.relative_to(site).as_posix()}: {problem}" for path in sorted(site.rglob("*.html"))
            for problem in problems(path.read_text(encoding="utf-8"))]
