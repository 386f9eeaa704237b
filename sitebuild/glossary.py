"""Every page's tooltips, from the one glossary page (a MkDocs hook, listed in mkdocs.yml).

docs/glossary.md defines each term once, as a Markdown definition list whose term line
names the forms a page may use ("tracing, tracer, tracers"). At every build this hook
reads it and hands each form with its definition, as plain text, to Python-Markdown's
abbr extension (its `glossary` option): every page then marks those words, and
Material's `content.tooltips` feature shows the definition. The tooltips are made from
the page, so the two cannot drift, and no generated file is kept.

(pymdownx.snippets' `auto_append` would append an abbreviations file instead, but
sitebuild/hook.py expands the notebook templates with the same snippets settings, and
the appended lines would land in a notebook's last code cell.)
"""

from __future__ import annotations

import re
from pathlib import Path

from markdown.extensions import Extension
from markdown.extensions.abbr import AbbrTreeprocessor
from mkdocs.exceptions import PluginError

PAGE = "glossary.md"
_TERM = re.compile(r"^(?P<forms>\S[^\n]*)\n:   (?P<text>.+?)(?=\n\n|\n*\Z)", re.M | re.S)


def entries(markdown: str) -> list[tuple[str, str]]:
    """The page's terms: (the term line as written, its definition in Markdown)."""
    return [(m["forms"].strip(), " ".join(m["text"].split())) for m in _TERM.finditer(markdown)]


def plain(markdown: str) -> str:
    """A definition as a tooltip shows it: no code marks, emphasis or link targets."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", markdown)
    return re.sub(r"[`*]", "", text)


def abbreviations(markdown: str) -> dict[str, str]:
    """Each form a page may use, to its definition as plain text. A lower-case form also
    stands capitalized, as at the start of a sentence."""
    found: dict[str, str] = {}
    for forms, text in entries(markdown):
        for form in (f.strip() for f in forms.split(",")):
            variants = [form]
            if form[:1].islower() and "_" not in form:
                variants.append(form[:1].upper() + form[1:])
            for variant in variants:
                if variant in found:
                    raise ValueError(f"'{variant}' is defined twice in the glossary")
                found[variant] = plain(text)
    return found


def on_config(config):
    if "abbr" not in config.markdown_extensions:
        raise PluginError("sitebuild/glossary.py needs the abbr extension in mkdocs.yml's "
                          "markdown_extensions")
    page = Path(config.docs_dir) / PAGE
    try:
        found = abbreviations(page.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise PluginError(f"{page}: {error}") from None
    if not found:
        raise PluginError(f"{page}: no terms found (a term line, then ':   definition')")
    config.mdx_configs.setdefault("abbr", {})["glossary"] = found
    if config.extra.get("edition") == "ko":
        config.markdown_extensions.append(ParticleAbbr())
    return config


class _ParticleAbbrTreeprocessor(AbbrTreeprocessor):
    """abbr's matching, with a term's edges checked against Latin letters and digits only:
    Korean attaches particles ("XLA가", "컴파일러는"), and Python's \\b sees Hangul as a
    letter, so abbr alone would never mark a term that a particle follows."""

    def run(self, root):
        if not self.abbrs:
            return
        keys = "|".join(re.escape(k) for k in sorted(self.abbrs, key=len, reverse=True))
        self.RE = re.compile(f"(?<![A-Za-z0-9_])(?:{keys})(?![A-Za-z0-9_])")
        self.iter_element(root)


class ParticleAbbr(Extension):
    """For the Korean edition (mkdocs.ko.yml): abbr's tooltips on terms with particles."""

    def extendMarkdown(self, md):
        abbr = md.treeprocessors["abbr"]
        md.treeprocessors.register(_ParticleAbbrTreeprocessor(md, abbr.abbrs), "abbr", 7)
