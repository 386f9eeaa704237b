"""The Korean edition as an MkDocs build: its pages, nav, links and how it is built.

Independent of MkDocs (hook.py is the glue). mkdocs.ko.yml (`extra.edition: ko`) builds
docs-ko/ into SITE/ko: the English `mkdocs build` runs it beside its own pages (`Build`),
then checks both editions together; the English `mkdocs serve` builds it in the background
once all is measured (`ServedEdition`). It only reuses the English build's results
(`reuse_results`), so both show the same numbers, worded by the Korean pages and
docs-ko/words.yml, and fails, saying to build the English edition, when any is missing.
"""

from __future__ import annotations

from html import escape
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

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
    """The URLs that have a Korean page (the English language switch goes there)."""
    ko_docs = root / "docs-ko"
    return {page_url(p.relative_to(ko_docs)) for p in ko_docs.rglob("*.md")}


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


def english_assets(root: Path) -> list[tuple[str, Path]]:
    """(URI, file) of docs/'s files other than pages (stylesheets): the Korean site's too."""
    english = root / "docs"
    return [(p.relative_to(english).as_posix(), p) for p in sorted(english.rglob("*"))
            if p.is_file() and p.suffix != ".md"]


class Build:
    """The Korean edition's `mkdocs build` into SITE/ko, run by the English build beside its
    own pages (it needs only the measured results, ready before any page is made; English
    cleans SITE first): start it, then `finish` (its messages printed together; EditionError
    when it failed), or `stop` it when the English build ends early."""

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
    background runs (`queue`), asked for once every English result is measured (the Korean
    edition only reuses them), and dropped while anything is measured again. Its site is
    cached in `folder` under the digest of its inputs; serve rebuilds the English site into
    a clean folder each time, and `refresh` puts the Korean site back, or, until it is built
    for the inputs as they are, a page at each Korean address saying where it stands (never
    a page of older numbers)."""

    LABEL = "the Korean edition"

    def __init__(self, root: Path, ko_config: Path, queue, folder: Path, timeout: float,
                 command=_build_command):
        self.root, self.ko_config, self.queue, self.folder = root, ko_config, queue, folder
        self.timeout, self.command = timeout, command  # (ko_config, out_dir) -> the build's command line

    def digest(self, results: dict) -> str:
        """What the Korean pages depend on: the project's sources and the results' folders."""
        seen = [repr(sorted((k, str(v)) for k, v in results.items()))]
        for folder, pattern in (("docs", "**/*"), ("docs-ko", "**/*"), ("overrides", "**/*"),
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
    titled by its Korean H1; the notebooks link to the English notebook pages."""
    out = []
    for item in nav:
        target = next(iter(item.values())) if isinstance(item, dict) else item
        notebook = re.fullmatch(r"notebooks/(\w+)\.ipynb", target)
        if notebook:
            out.append({words["notebooks"][notebook.group(1)]: f"../notebooks/{notebook.group(1)}/"})
        else:
            out.append({words["home"]: target} if target == "index.md" else target)
    return out


def site_url(english_site_url: str | None) -> str | None:
    """The Korean edition's address under the English one's (SITE_URL), if that is set."""
    if english_site_url and not os.environ.get("SITE_URL_KO"):
        return english_site_url.rstrip("/") + "/ko/"
    return None


# ---------------------------------------------------------------- pages and links

def other_page(page_url: str, edition: str, korean_pages: set[str] | None) -> str:
    """The same page in the other edition, relative to this page (the Korean site lives
    in ko/ under the English one). An English page without a Korean one (a notebook)
    links the Korean home page."""
    up = "../" * page_url.count("/")
    if edition == "ko":
        return f"{up}../{page_url}"
    target = page_url if korean_pages is None or page_url in korean_pages else ""
    return f"{up}ko/{target}"


# Material's selector (partials/alternate.html), and its <link rel="alternate"> (base.html),
# which name each edition's root. Material's script fetches the sitemap at each such link's
# address, and on a click goes to the same page only when the sitemap's address (site_url)
# is the one the site is served from, else to the root. The selector's own links go to the
# same page anywhere, so those <link> elements make way for ones that name the same page in
# each edition, at its published address, as search engines read them (hreflang). Their rel
# is the token "alternate" written " alternate": Material's script looks for exactly
# rel=alternate, so it fetches no sitemap at a page's address (a 404) and takes no detour.
_LANGUAGE_LINK = re.compile(r'(<a href=")[^"]*(" hreflang="(en|ko)" class="md-select__link")')
_ROOT_LINK = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="(?:en|ko)">\n?')


def alternates(page_url: str, edition: str, site_url: str, korean_pages: set[str] | None) -> str:
    """<link> elements naming this page in both editions (none for a page only one has, such
    as a notebook), by their absolute addresses under the English edition's site_url."""
    english = site_url.removesuffix("ko/") if edition == "ko" else site_url
    if edition == "en" and korean_pages is not None and page_url not in korean_pages:
        return ""
    return "".join(f'<link rel=" alternate" hreflang="{lang}" href="{escape(base + page_url)}">\n'
                   for lang, base in (("en", english), ("ko", english + "ko/")))


def language_links(html: str, page_url: str, edition: str, root: Path | None = None,
                   site_url: str | None = None) -> str:
    """Point Material's language selector at the same page in the other edition (an English
    page without a Korean one: the Korean home page; `root`: the project, None: every page),
    and, given the edition's `site_url`, name that page in each edition in the head."""
    korean = korean_pages(root.resolve()) if root else None
    other = other_page(page_url, edition, korean)

    def href(match: re.Match) -> str:
        start, end, lang = match.group(1, 2, 3)
        return start + ("./" if lang == edition else other) + end
    links = alternates(page_url, edition, site_url, korean) if site_url else ""
    first = _ROOT_LINK.search(html)
    if first:
        html = html[:first.start()] + links + _ROOT_LINK.sub("", html[first.start():])
    return _LANGUAGE_LINK.sub(href, html)


_NOTEBOOK_LINK = re.compile(r"\[([^\]]+)\]\((?:\.\./)*notebooks/(\w+)\.ipynb(#[\w-]+)?\)")


def notebook_links(markdown: str, page_url: str) -> str:
    """A Korean page's links to a notebook edition go to the English notebook page (the
    notebooks are not translated): raw HTML, which MkDocs does not resolve in docs-ko/."""
    up = "../" * page_url.count("/")
    return _NOTEBOOK_LINK.sub(
        lambda m: f'<a href="{up}../notebooks/{m.group(2)}/{m.group(3) or ""}">{m.group(1)}</a>'
                  " (영어)", markdown)


def with_banner(html: str, page_url: str, words: dict) -> str:
    """A Korean page's HTML with the note (words.yml `theme.banner`) right under its title:
    the English page it follows, linked."""
    end = html.find("</h1>")
    at = end + len("</h1>") if end >= 0 else 0
    note = words["theme"]["banner"].format(english=other_page(page_url, "ko", None))
    return html[:at] + f'<p class="translation-note">{note}</p>\n' + html[at:]


def site_to_check(site: Path, command: str) -> Path | None:
    """What a Korean `mkdocs build` checks: nothing when the English build runs it (that one
    checks both editions together) or when serving; both editions when built beside the
    English site, else its own."""
    if os.environ.get(FROM_ENGLISH) or command != "build":
        return None
    return site.parent if site.name == "ko" and (site.parent / "index.html").is_file() else site
