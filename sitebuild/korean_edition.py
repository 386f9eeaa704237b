"""The Korean edition as an MkDocs build: its pages, nav, links and how it is built.

Independent of MkDocs (hook.py is the glue). mkdocs.ko.yml (`extra.edition: ko`) builds
docs-ko/ into SITE/ko: the English `mkdocs build` runs it beside its own pages (`Build`),
then checks both editions together; the English `mkdocs serve` builds it in the background
once all is measured (`ServedEdition`). It only reuses the English build's results and
executed notebooks, so both show the same numbers and outputs, worded by the Korean pages,
notebooks/ko/ and docs-ko/words.yml, and fails, saying to build the English edition, when any is missing.
"""

from __future__ import annotations

import ast
from html import escape
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import notebooks
import snippet_runs

FROM_ENGLISH = "JIT_DOCS_FROM_ENGLISH_BUILD"  # set when the English build runs the Korean one
REUSE_ONLY = ("run `mkdocs build` (the English edition) first: it measures; the Korean edition "
              "only reuses its results, and has none for: {}")


class EditionError(Exception):
    """The Korean edition cannot be built as it is; the message says what to do."""


def page_url(src: Path) -> str:
    """The URL of a docs page `src` (directory URLs): index.md -> "", selu.md -> "selu/"."""
    stem = src.with_suffix("").as_posix()
    return "" if stem == "index" else stem.removesuffix("/index") + "/"


def korean_pages(root: Path) -> set[str]:
    """The URLs of the Korean pages and notebooks."""
    ko_docs = root / "docs-ko"
    return ({page_url(p.relative_to(ko_docs)) for p in ko_docs.rglob("*.md")}
            | {f"notebooks/{p.stem}/" for p in (root / "notebooks" / "ko").glob("*.py")})


def reuse_results(root: Path, docs_dir: Path, names: list[str], quick: bool) -> tuple[dict, dict]:
    """Every build snippet's results and folder, from the English build's cache: the same
    numbers, which the Korean pages word in Korean."""
    english = root / "docs"
    untranslated = [p.relative_to(english).as_posix() for p in sorted(english.rglob("*.md"))
                    if not (docs_dir / p.relative_to(english)).is_file()]
    if untranslated:
        raise EditionError(f"the Korean edition lacks {len(untranslated)} page(s) of docs/: "
                           f"{', '.join(untranslated)}; write each in {docs_dir.name}/ "
                           "(python tools/translations.py says what a Korean page keeps)")
    paths = snippet_runs.project_paths(root, quick)
    results, folders, lacking = {}, {}, []
    try:
        for name in names:
            run = snippet_runs.lookup(name, **paths)[1]
            if run is None:
                lacking.append(f"{name} ({'quick' if quick else 'full-size'} mode)")
            else:
                results[name], folders[name] = run.results, run.folder
    except snippet_runs.SnippetRunError as error:
        raise EditionError(str(error)) from None
    if lacking:
        raise EditionError(REUSE_ONLY.format(", ".join(lacking)))
    return results, folders


def korean_notebooks(root: Path, cache_root: Path, snippets_config: dict) -> dict[str, Path]:
    """Each Korean notebook (notebooks/ko/X.py) by name, never executed: it shows the outputs the
    English X had (`cache_root`), so its code must be X's but for comments and docstrings."""
    import nbformat

    templates = sorted((root / "notebooks" / "ko").glob("*.py"))
    ran = {t: notebooks.lookup(root / "notebooks" / t.name, root, cache_root)[1] for t in templates}
    if lacking := [f"notebook {t.stem}" for t in templates if ran[t] is None]:
        raise EditionError(REUSE_ONLY.format(", ".join(lacking)))
    found = {}
    for template, executed in ran.items():
        korean, english = (nbformat.reads(text, as_version=4) for text in (
            notebooks.expand(template, snippets_config), executed.read_text(encoding="utf-8")))
        cells, english_cells = ([c for c in nb.cells if c.cell_type == "code"] for nb in (korean, english))
        differ = [n for n, (k, e) in enumerate(zip(cells, english_cells), 1) if code(k.source) != code(e.source)]
        if differ or len(cells) != len(english_cells):
            raise EditionError(f"{template.relative_to(root)}: code cells {differ or 'added or left out'}: not the English "
                               "notebook's, whose outputs it shows (only comments and docstrings are translated)")
        for cell, english_cell in zip(cells, english_cells):
            cell.update(outputs=english_cell.outputs, execution_count=english_cell.execution_count)
        korean.metadata = {**english.metadata, **korean.metadata}
        found[template.stem] = cache_root / "ko" / "notebooks" / f"{template.stem}.ipynb"
        found[template.stem].parent.mkdir(parents=True, exist_ok=True)
        found[template.stem].write_text(nbformat.writes(korean), encoding="utf-8")
    return found


def code(source: str) -> str:
    """Python code without its words (comments, docstrings): what both editions share."""
    for node in ast.walk(tree := ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(node):
            node.body = node.body[1:]
    return ast.dump(tree)


def english_assets(root: Path) -> list[tuple[str, Path]]:
    """(URI, file) of docs/'s files other than pages (stylesheets): the Korean site's too."""
    english = root / "docs"
    return [(p.relative_to(english).as_posix(), p) for p in sorted(english.rglob("*"))
            if p.is_file() and p.suffix != ".md"]


class Build:
    """The Korean edition's `mkdocs build` into SITE/ko, run by the English build beside its own
    pages (once every result and notebook is ready): start it, then `finish` (its messages
    printed together; EditionError when it failed), or `stop` it when the English build ends early."""

    def __init__(self, root: Path, ko_config: Path, site_dir: Path, site_url: str, log):
        self.ko_config, command = ko_config, _build_command(ko_config, site_dir / "ko")
        log("building the Korean edition beside the English pages: " + " ".join(command[1:]))
        self.output = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.process = snippet_runs.start_in_group(
            command, cwd=root, stdout=self.output, stderr=subprocess.STDOUT,
            env={FROM_ENGLISH: "1", "SITE_URL_KO": site_url.rstrip("/") + "/ko/"})

    def finish(self) -> None:
        code = self.process.wait()
        self.output.seek(0)
        sys.stderr.write(self.output.read())
        self.output.close()
        if code != 0:
            raise EditionError(f"the Korean edition ({self.ko_config.name}) failed: its messages are above")

    def stop(self) -> None:  # also after a finish() that failed or was interrupted
        snippet_runs.kill_group(self.process)
        self.output.close()


def _build_command(ko_config: Path, site_dir: Path) -> list[str]:
    return [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ko_config), "--site-dir", str(site_dir)]


class ServedEdition:
    """The Korean edition under the English `mkdocs serve`, at /ko/: one more job on serve's
    background runs (`queue`), asked for once every English result and notebook is ready (it
    only reuses them), dropped while anything is measured again, and cached in `folder` under
    the digest of its inputs. `refresh` puts it back into each English rebuild, or, until it is
    built for the inputs as they are, a page at each Korean address saying where it stands."""

    LABEL = "the Korean edition"

    def __init__(self, root: Path, ko_config: Path, queue, folder: Path, timeout: float,
                 command=_build_command):
        self.root, self.ko_config, self.queue, self.folder = root, ko_config, queue, folder
        self.timeout, self.command = timeout, command  # (ko_config, out_dir) -> the build's command line

    def digest(self, results: dict) -> str:
        """What the Korean pages depend on: the project's sources and the results' folders."""
        seen = [repr(sorted((k, str(v)) for k, v in results.items()))]
        for folder, pattern in (("docs", "**/*"), ("docs-ko", "**/*"), ("overrides", "**/*"), ("notebooks", "**/*.py"),
                                ("snippets", "*.py"), ("sitebuild", "*.py"), (".", "mkdocs*.yml")):
            seen += [f"{p}:{p.stat().st_mtime_ns}:{p.stat().st_size}"
                     for p in sorted((self.root / folder).glob(pattern)) if p.is_file()]
        return snippet_runs.digest("\n".join(seen).encode())

    def refresh(self, site_dir: Path, results: dict | None) -> None:
        """After an English rebuild into `site_dir`; `results`: the English results' folders,
        None while anything is still being measured."""
        if results is None:  # never beside a measurement, nor with numbers about to change
            self.queue.drop(self.LABEL)
            return _placeholders(site_dir / "ko", korean_pages(self.root), None)
        key = {"inputs": self.digest(results)}
        if snippet_runs.cached_key(self.folder) == key:
            shutil.copytree(self.folder / "site", site_dir / "ko", dirs_exist_ok=True)
            return
        self.queue.want(self.LABEL, key, lambda: snippet_runs.run_into_cache(
            lambda out: self.command(self.ko_config, out / "site"), folder=self.folder, key=key,
            expected="site/index.html", what=self.LABEL, timeout=self.timeout, cwd=self.root,
            env={FROM_ENGLISH: "1"}, rerun=f"mkdocs build -f {self.ko_config.name}"))
        _placeholders(site_dir / "ko", korean_pages(self.root), self.queue.failure(self.LABEL) or "")


def _placeholders(target: Path, pages: set[str], failure: str | None) -> None:
    """A page at each Korean page's address saying where the edition stands: None while the
    English edition is measured, "" while the Korean one builds, else why its build failed;
    serve's livereload reloads it."""
    when = ("영어판의 수치를 모두 잰 뒤에 빌드됩니다 (the Korean edition is built once every "
            "number of the English edition is measured). 준비되면 이 페이지가 다시 열립니다")
    if failure:
        when = (f"빌드에 실패했습니다 ({escape(failure)} The terminal running mkdocs serve shows "
                "why; save a fix and it is built again)")
    elif failure == "":
        when = ("지금 빌드하고 있습니다 (the Korean edition is being built). 준비되면 이 페이지가 "
                "다시 열립니다")
    for page in pages:
        up = "../" * (page.count("/") + 1)
        (target / page).mkdir(parents=True, exist_ok=True)
        (target / page / "index.html").write_text(
            '<!doctype html>\n<html lang="ko"><head><meta charset="utf-8"><title>한국어판 준비 중</title>'
            f'</head><body><p>한국어판은 {when}.</p>'
            f'<p><a href="{up}{page}" lang="en">English edition</a></p></body></html>\n', encoding="utf-8")


def in_korean(config, words: dict) -> None:
    """The Korean edition's config: mkdocs.yml's nav (`korean_nav`), and the words the theme
    and Markdown's extensions would leave English (words.yml `theme`)."""
    theme = words["theme"]
    config.nav = korean_nav(config.nav, words)
    for palette, name in zip(config.theme["palette"], (theme["dark"], theme["light"])):
        palette["toggle"]["name"] = name
    config.mdx_configs.setdefault("toc", {})["permalink_title"] = theme["permalink"]
    config.mdx_configs.setdefault("footnotes", {})["BACKLINK_TITLE"] = theme["footnote_back"]
    config.extra["not_found"] = theme["not_found"]


def korean_nav(nav: list, words: dict) -> list:
    """mkdocs.yml's nav for the Korean edition: the same pages in the same order, each
    titled by its Korean H1, and the notebooks by words.yml `notebooks`."""
    out = []
    for item in nav:
        target = next(iter(item.values())) if isinstance(item, dict) else item
        notebook = re.fullmatch(r"notebooks/(\w+)\.ipynb", target)
        title = words["notebooks"][notebook.group(1)] if notebook else target == "index.md" and words["home"]
        out.append({title: target} if title else target)
    return out


def site_url(english_site_url: str | None) -> str | None:
    """The Korean edition's address under the English one's (SITE_URL), if that is set."""
    return english_site_url.rstrip("/") + "/ko/" if english_site_url and not os.environ.get("SITE_URL_KO") else None


# ---------------------------------------------------------------- pages and links

def other_page(page_url: str, edition: str) -> str:
    """The same page in the other edition, relative to this page (the Korean site lives in
    ko/ under the English one, and has every page of it: its build fails without one)."""
    return "../" * page_url.count("/") + ("../" if edition == "ko" else "ko/") + page_url


# Material's selector (partials/alternate.html) and its <link rel="alternate"> (base.html) name
# each edition's root; its script, on a click, fetches the sitemap at such a link and goes to the
# same page only where site_url is the address served, else to the root. So the selector links
# the same page, and the <link>s name it in each edition at its published address (hreflang),
# with rel " alternate": Material's script, seeking exactly rel=alternate, fetches no sitemap.
_LANGUAGE_LINK = re.compile(r'(<a href=")[^"]*(" hreflang="(en|ko)" class="md-select__link")')
_ROOT_LINK = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="(?:en|ko)">\n?')


def alternates(page_url: str, edition: str, site_url: str) -> str:
    """<link> elements naming this page in both editions, by their absolute addresses under
    the English edition's site_url."""
    english = site_url.removesuffix("ko/") if edition == "ko" else site_url
    return "".join(f'<link rel=" alternate" hreflang="{lang}" href="{escape(base + page_url)}">\n'
                   for lang, base in (("en", english), ("ko", english + "ko/")))


def language_links(html: str, page_url: str, edition: str, site_url: str | None = None) -> str:
    """Point Material's language selector at the same page in the other edition, and,
    given the edition's `site_url`, name that page in each edition in the head."""
    other = other_page(page_url, edition)

    def href(match: re.Match) -> str:
        start, end, lang = match.group(1, 2, 3)
        return start + ("./" if lang == edition else other) + end
    links = alternates(page_url, edition, site_url) if site_url else ""
    first = _ROOT_LINK.search(html)
    if first:
        html = html[:first.start()] + links + _ROOT_LINK.sub("", html[first.start():])
    return _LANGUAGE_LINK.sub(href, html)


def with_banner(html: str, page_url: str, words: dict) -> str:
    """A Korean page's HTML with the note (words.yml `theme.banner`) right under its title:
    the English page it follows, linked."""
    at = html.find("</h1>") + len("</h1>") if "</h1>" in html else 0
    note = words["theme"]["banner"].format(english=other_page(page_url, "ko"))
    return html[:at] + f'<p class="translation-note">{note}</p>\n' + html[at:]


def site_to_check(site: Path, command: str) -> Path | None:
    """What a Korean `mkdocs build` checks: nothing when the English build runs it (that one
    checks both editions together) or when serving; both editions when built beside the
    English site, else its own."""
    if os.environ.get(FROM_ENGLISH) or command != "build":
        return None
    return site.parent if site.name == "ko" and (site.parent / "index.html").is_file() else site
