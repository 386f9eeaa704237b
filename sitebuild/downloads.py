"""Each chapter's code, downloadable from the site: a MkDocs hook (mkdocs.yml `hooks:`).

A chapter docs/<stem>.md needs the snippet files its page includes (`--8<-- "file.py:..."`),
snippets/<stem with _>.py and <stem with _>_benchmark.py when they exist, and every snippet
file those import, recursively (snippet_runs.imported_snippets). The site serves:

- downloads/<file>.py: each snippet file once, byte for byte;
- downloads/<stem>.zip: a chapter's files in a folder <stem>/, with a requirements.txt
  holding the pinned lines of the project's requirements.txt that they need (what they
  import, and what that pins in turn), so that the folder alone runs them.

Each chapter page shows a "Download the code" box, listing those links, right under the
heading "Run it on your machine"; without one, before the footnotes or at the end.
tests/website/test_downloads.py downloads the zips from the built site into empty folders
and runs them.
"""

from __future__ import annotations

import functools
import importlib.metadata
import io
import re
import sys
import zipfile
from dataclasses import dataclass
from html import escape
from pathlib import Path

from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent))
import page_templates  # noqa: E402  (this folder is not a package: MkDocs loads hooks by path)
import snippet_runs  # noqa: E402

FOLDER = "downloads"  # URL folder of the downloads
_RUN_IT = re.compile(r'<h2 id="run-it-on-your-machine"[^>]*>.*?</h2>\s*', re.S)
_FOOTNOTES = re.compile(r'<div class="footnote">')
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed: the same files make the same zip, build after build


@dataclass
class Chapter:
    stem: str  # docs/<stem>.md
    files: list[Path]  # snippet files, sorted by name

    @property
    def zip_name(self) -> str:
        return f"{self.stem}.zip"


_chapters: dict[str, Chapter] = {}  # page src_uri -> its chapter's code


def chapter_files(page: Path, snippets: Path) -> list[Path]:
    """The snippet files a chapter page needs (see the module's docstring)."""
    stem = page.stem.replace("-", "_")
    wanted = [snippets / name for name in dict.fromkeys(i.split(":")[0] for i in page_templates.INCLUDE.findall(
        page.read_text(encoding="utf-8"))) if name.endswith(".py")]
    wanted += [snippets / f"{stem}.py", snippets / f"{stem}_benchmark.py"]
    found: set[Path] = set()
    for path in wanted:
        if path.is_file():
            found.update(snippet_runs.imported_snippets(path, snippets))
    return sorted(found, key=lambda p: p.name)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.lru_cache(maxsize=1)
def _distributions() -> dict[str, list[str]]:
    """Import name -> installed distributions: read once per process (half a second)."""
    return importlib.metadata.packages_distributions()


def requirements(files: list[Path], requirements_txt: Path) -> str:
    """The pinned lines of requirements.txt that these files need to run.

    A distribution is needed when a file imports it or uses a JAX feature that imports it,
    or when a needed distribution depends on it (jax needs jaxlib, which no snippet imports).
    """
    pinned = {}
    for line in requirements_txt.read_text(encoding="utf-8").splitlines():
        spec = line.split("#")[0].strip()
        if spec:
            pinned[_normal(re.split(r"[=<>!~\[ ]", spec)[0])] = spec
    distributions = _distributions()
    todo = [_normal(d) for f in files for name in snippet_runs.module_imports(f) for d in distributions.get(name, [])]
    todo += [_normal(d) for d, use in {"flatbuffers": "jax.export"}.items() if any(use in f.read_text(encoding="utf-8") for f in files)]
    needed: set[str] = set()
    while todo:
        name = todo.pop()
        if name in needed or name not in pinned:
            continue
        needed.add(name)
        for requirement in importlib.metadata.requires(name) or []:
            if "extra ==" not in requirement:
                todo.append(_normal(re.split(r"[ ;=<>!~\[(]", requirement)[0]))
    return "".join(f"{pinned[name]}\n" for name in sorted(needed))


def chapter_zip(chapter: Chapter, requirements_txt: Path) -> bytes:
    """The chapter's files in a folder named after it, with their requirements."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        entries = [(p.name, p.read_bytes()) for p in chapter.files]
        entries.append(("requirements.txt", requirements(chapter.files, requirements_txt).encode()))
        for name, data in sorted(entries):
            info = zipfile.ZipInfo(f"{chapter.stem}/{name}", date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def on_files(files, config):
    root = Path(config.config_file_path).resolve().parent
    snippets = root / "snippets"
    _chapters.clear()
    served: set[Path] = set()
    for file in files.documentation_pages():
        if not file.src_uri.endswith(".md") or file.abs_src_path is None:
            continue
        found = chapter_files(Path(file.abs_src_path), snippets)
        if not found:
            continue  # a page without code: nothing to download
        chapter = Chapter(Path(file.src_uri).stem, found)
        _chapters[file.src_uri] = chapter
        served.update(found)
        files.append(File.generated(config, f"{FOLDER}/{chapter.zip_name}",
                                    content=chapter_zip(chapter, root / "requirements.txt")))
    for path in sorted(served):
        files.append(File.generated(config, f"{FOLDER}/{path.name}", abs_src_path=str(path)))
    return files


def _box(chapter: Chapter, page_url: str, source_url: str | None, words: dict, commands: bool) -> str:
    """The download box, in the edition's words (words.yml `download`); `commands`: a "Run it" section follows."""
    def link(name: str) -> str:
        return escape(page_templates.relative(f"{FOLDER}/{name}", page_url))

    everything = page_templates.counted(words["all"], len(chapter.files), stem=chapter.stem)
    items = [f'<li><a href="{link(chapter.zip_name)}" download><code>{chapter.zip_name}</code></a>: '
             f'{everything}</li>']
    for path in chapter.files:
        item = f'<li><a href="{link(path.name)}" download><code>{path.name}</code></a>'
        if source_url:
            item += f' (<a href="{escape(source_url + path.name)}">{words["source"]}</a>)'
        items.append(item + "</li>")
    return ('<div class="admonition abstract downloads">\n'
            f'<p class="admonition-title">{words["title"]}</p>\n'
            f'<p>{words["text" if commands else "text_no_commands"]}</p>\n'
            f'<ul>\n{"".join(items)}\n</ul>\n</div>\n')


def on_page_content(html, page, config, files):
    chapter = _chapters.get(page.file.src_uri)
    if chapter is None:
        return html
    heading = _RUN_IT.search(html)
    box = _box(chapter, page.url, source_url(config.repo_url, config.edit_uri, "snippets/"),
               page_templates.load_words(Path(config.docs_dir))["download"], commands=bool(heading))
    if heading:
        return html[:heading.end()] + box + html[heading.end():]
    footnotes = _FOOTNOTES.search(html)
    if footnotes:
        return html[:footnotes.start()] + box + html[footnotes.start():]
    return html + box


def _repository(repo_url: str | None, edit_uri: str | None) -> tuple[str, str] | None:
    """(the repository's address, the branch the site is built from), when both are
    configured: edit_uri "edit/main/docs/" names branch "main" (the docs folder sits at the
    repository's root, beside snippets/ and notebooks/)."""
    parts = (edit_uri or "").strip("/").split("/")
    if not repo_url or len(parts) < 2:
        return None
    return repo_url.rstrip("/"), parts[1]


def source_url(repo_url: str | None, edit_uri: str | None, path: str, action: str = "blob") -> str | None:
    """A path of the repository on the branch the site is built from, to view ("blob") or
    edit ("edit"); None without a repository address."""
    repository = _repository(repo_url, edit_uri)
    return f"{repository[0]}/{action}/{repository[1]}/{path}" if repository else None


_GITHUB = re.compile(r"https://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?$")


def colab_url(repo_url: str | None, edit_uri: str | None, name: str) -> str | None:
    """Colab's address for notebooks/<name>.ipynb (or ko/<name>), committed unexecuted beside
    its template (tools/notebooks_for_colab.py): Colab opens notebooks from GitHub only."""
    repository = _repository(repo_url, edit_uri)
    github = _GITHUB.match(repository[0]) if repository else None
    if not github:
        return None
    return f"https://colab.research.google.com/github/{github.group(1)}/blob/{repository[1]}/notebooks/{name}.ipynb"


def on_page_context(context, page, config, nav):
    """A notebook page's source is its template (notebooks/X.py; in Korean notebooks/ko/X.py),
    not a file in docs/; with a GitHub repository configured, it also opens in Colab."""
    if page.file.src_uri.endswith(".ipynb"):
        name = ("ko/" if config.extra.get("edition") == "ko" else "") + Path(page.file.src_uri).stem
        page.colab_url = colab_url(config.repo_url, config.edit_uri, name)
        if page.edit_url:
            page.edit_url = source_url(config.repo_url, config.edit_uri, f"notebooks/{name}.py", "edit")
    return context
