"""The MkDocs side of the build: measure, then hand the results to pages.

1. on_config: run every snippet listed in `extra.build_snippets` (mkdocs.yml) through
   snippet_runs.py, and turn each template under notebooks/ into a notebook.
2. on_files: add their outputs as generated files: measured/<snippet>/<file> and
   notebooks/<name>.ipynb (executed here; mkdocs-jupyter renders it).
3. on_page_markdown: render each page as a Jinja template, so prose, tables and figures
   come from the results: {{ selu_benchmark.text.jit_vs_eager }}, {{ table("selu_benchmark",
   "headline") }}, {{ figure("selu_benchmark", "scaling") }}.

Environment variables (documented on docs/how-this-site-is-built.md):
  JIT_DOCS_QUICK=1      small sizes: for tests and a quick first preview
  JIT_DOCS_REMEASURE=1  ignore cached results and measure everything again
  JIT_DOCS_TIMEOUT=S    seconds each build snippet may run (default 600)
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import posixpath
import re
import sys
import tempfile
import time
from pathlib import Path

import jinja2
import jupytext
import markdown
import nbformat
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_site  # noqa: E402  (this folder is not a package: MkDocs loads hooks by path)
import snippet_runs  # noqa: E402

log = logging.getLogger("mkdocs.hooks.measure")
MEASURED = "measured"  # URL folder of generated results
NOTEBOOKS = "notebooks"  # folder of notebook templates, and URL folder of their notebooks

_runs: dict[str, snippet_runs.SnippetRun] = {}
_notebooks: dict[str, Path] = {}  # name -> generated .ipynb


def _flag(name: str) -> bool:
    value = os.environ.get(name, "0").strip()
    if value not in ("", "0", "1"):
        raise PluginError(f"{name} must be 0 or 1, not {value!r}.")
    return value == "1"


def _timeout() -> float:
    value = os.environ.get("JIT_DOCS_TIMEOUT", "600")
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1
    if seconds <= 0:
        raise PluginError(f"JIT_DOCS_TIMEOUT must be a positive number of seconds, not {value!r}.")
    return seconds


def on_config(config):
    root = Path(config.config_file_path).resolve().parent
    quick = _flag("JIT_DOCS_QUICK")
    names = config.extra.get("build_snippets", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise PluginError("extra.build_snippets in mkdocs.yml must be a list of snippet names.")
    cache = root / ".cache"

    # mkdocs-jupyter resolves its cache folder against the working directory: pin it.
    if "mkdocs-jupyter" in config.plugins:
        config.plugins["mkdocs-jupyter"].config["cache_dir"] = str(cache / "mkdocs-jupyter")

    try:
        runs = snippet_runs.run_all(
            names, snippets_dir=root / "snippets", cache_root=cache / "measured" / ("quick" if quick else "full"),
            requirements=root / "requirements.txt", quick=quick, remeasure=_flag("JIT_DOCS_REMEASURE"),
            timeout=_timeout(), log=log.info)
    except snippet_runs.SnippetRunError as error:
        raise PluginError(str(error)) from None
    _runs.clear()
    _runs.update(runs)

    _notebooks.clear()
    for template in sorted((root / NOTEBOOKS).glob("*.py")):
        _notebooks[template.stem] = _make_notebook(template, config, cache / NOTEBOOKS)
    return config


def _make_notebook(template: Path, config, out_dir: Path) -> Path:
    """The executed notebook made from a jupytext template under notebooks/.

    The hook runs it here with nbclient, and mkdocs-jupyter only renders it: each cell's
    printed lines become one output (the kernel sends them in as many pieces as its flush
    timer cut, which varied from build to build), and a cell that raises stops the build
    with the template's name and the cell's error instead of a traceback on the page. It
    runs again only when its source changed: code, environment key or snippet digest.
    """
    source = _notebook_source(template, config)
    digest = snippet_runs.digest(source.encode())
    path = out_dir / f"{template.stem}.ipynb"
    if path.is_file():
        try:
            if json.loads(path.read_text(encoding="utf-8"))["metadata"]["just_in_time"]["source"] == digest:
                return path
        except (ValueError, KeyError):
            pass  # not one of ours, or half written: run it again
    notebook = nbformat.reads(source, as_version=4)
    log.info(f"notebook {template.name}: executing ...")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="notebook-") as cwd:
        client = NotebookClient(notebook, timeout=_timeout(), kernel_name="python3", allow_errors=False,
                                coalesce_streams=True, resources={"metadata": {"path": cwd}})
        try:
            client.execute()
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as error:
            raise PluginError(f"notebook template {template}: a cell failed, so the build stops "
                              f"(nothing was published):\n{error}") from None
    log.info(f"notebook {template.name}: executed in {time.perf_counter() - start:.1f} s")
    notebook.metadata["just_in_time"]["source"] = digest
    out_dir.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(".ipynb.partial")
    scratch.write_text(nbformat.writes(notebook), encoding="utf-8")
    scratch.replace(path)  # never half a notebook that a later build would trust
    return path


def _notebook_source(template: Path, config) -> str:
    """Expand a jupytext template's `# --8<-- "file.py:section"` lines into an unexecuted notebook.

    Sections are expanded by pymdownx.snippets with the site's own settings, so the
    notebook shows exactly the code the pages show. The environment key goes into the
    notebook's metadata, so new code, new versions or a new machine all change the
    source and mean a fresh execution, never stale outputs.
    """
    lines = [line[2:] if line.startswith("# --8<--") else line
             for line in template.read_text(encoding="utf-8").splitlines()]
    md = markdown.Markdown(extensions=["pymdownx.snippets"],
                           extension_configs={"pymdownx.snippets": config.mdx_configs["pymdownx.snippets"]})
    try:
        expanded = md.preprocessors["snippet"].run(lines)
    except Exception as error:
        raise PluginError(f"notebook template {template}: {error}") from None
    notebook = jupytext.reads("\n".join(expanded) + "\n", fmt="py:percent")
    for number, cell in enumerate(notebook.cells):
        # jupytext draws random cell ids: fixed ones keep the source, and so the decision
        # to reuse an executed notebook, the same from build to build.
        cell.id = f"cell-{number}"
    root = template.parent.parent
    notebook.metadata["just_in_time"] = {
        "template": template.relative_to(root).as_posix(),
        "environment": snippet_runs.environment_key(root / "requirements.txt"),
        # The kernel can import any snippet: a change to one must mean a fresh execution;
        # so must a change to this file, which decides how notebooks are made and run.
        "snippets": snippet_runs.files_digest(sorted((root / "snippets").glob("*.py"))),
        "hook": snippet_runs.files_digest([Path(__file__)])}
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return jupytext.writes(notebook, fmt="ipynb")


@event_priority(100)  # before mkdocs-jupyter wraps notebook files
def on_files(files, config):
    for run in _runs.values():
        for rel in run.files:
            if rel.suffix == ".md":
                continue  # tables are rendered into pages by table(), not pages themselves
            files.append(File.generated(config, f"{MEASURED}/{run.name}/{rel.as_posix()}",
                                        abs_src_path=str(run.folder / rel)))
    for name, path in _notebooks.items():
        # A plain File rooted in the cache, not File.generated: mkdocs-jupyter's wrapper
        # recomputes abs_src_path from src_dir, which a generated file does not have.
        files.append(File(f"{NOTEBOOKS}/{name}.ipynb", src_dir=str(path.parent.parent),
                          dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls))
    return files


def _results(name: str) -> dict:
    if name not in _runs:
        raise PluginError(f"no build snippet named {name!r}: add it to extra.build_snippets in mkdocs.yml")
    return _runs[name].results


def on_page_markdown(markdown_text, page, config, files):
    src = page.file.src_uri

    def url(name: str, file: str) -> str:
        return posixpath.relpath(f"{MEASURED}/{name}/{file}", posixpath.dirname(src) or ".")

    def stamp(name: str) -> str:
        return _results(name)["stamp"]

    def source(name: str) -> str:  # from any figure or table to the file that made it
        # Raw HTML (a figcaption's Markdown is not rendered), so the link is relative to the
        # page's URL, which MkDocs would otherwise work out for a Markdown link.
        page_dir = page.url if page.url.endswith("/") or not page.url else posixpath.dirname(page.url)
        numbers = posixpath.relpath(f"{MEASURED}/{name}/results.json", page_dir or ".")
        return f'{stamp(name)} · made by <code>snippets/{name}.py</code> (<a href="{numbers}">numbers</a>)'


    def table(name: str, table_name: str) -> str:
        if table_name not in _results(name)["tables"]:
            raise PluginError(f"{src}: build snippet {name!r} wrote no table {table_name!r}")
        text = (_runs[name].folder / f"{table_name}.md").read_text(encoding="utf-8")
        return f"{text}\n<small class=\"stamp\">{source(name)}</small>\n"

    def figure(name: str, fig_name: str) -> str:
        fig = _results(name)["figures"].get(fig_name)
        if fig is None:
            raise PluginError(f"{src}: build snippet {name!r} wrote no figure {fig_name!r}")
        return (f'<figure markdown="span">\n  ![{fig["alt"]}]({url(name, fig["file"])})\n'
                f'  <figcaption>{fig["caption"]} <small class="stamp">{source(name)}</small></figcaption>\n</figure>\n')

    def data_json(name: str) -> str:  # a link target for readers who want the raw numbers
        return url(name, "results.json")

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["microseconds"] = lambda seconds: f"{seconds * 1e6:.3g} µs"
    variables = {name: run.results for name, run in _runs.items()}
    try:
        return env.from_string(markdown_text).render(
            **variables, table=table, figure=figure, stamp=stamp, results_json=data_json,
            results=_results, build_snippets=list(_runs))
    except jinja2.TemplateError as error:
        line = f" line {error.lineno}" if getattr(error, "lineno", None) else ""
        raise PluginError(f"{src}{line}: {error}") from None


_STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.S)


@event_priority(-100)  # after mkdocs-jupyter has put its page together
def on_post_page(output, page, config):
    """Move the JupyterLab stylesheet that mkdocs-jupyter inlines into every notebook page
    (over half a megabyte, the same each time) into one file that browsers cache."""
    if not page.file.src_uri.endswith(".ipynb"):
        return output

    def to_file(match):
        css = match.group(1)
        if len(css) < 50_000:  # small page-specific styles stay inline
            return match.group(0)
        name = f"assets/stylesheets/jupyter-{hashlib.sha256(css.encode()).hexdigest()[:12]}.css"
        path = Path(config.site_dir) / name
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(css, encoding="utf-8")
        page_dir = page.url if page.url.endswith("/") or not page.url else posixpath.dirname(page.url)
        return f'<link rel="stylesheet" href="{posixpath.relpath(name, page_dir or ".")}">'

    return _STYLE.sub(to_file, output)


_serving = False


def on_startup(command, dirty):
    global _serving
    _serving = command == "serve"
    if _serving:
        log.info("serving: the link and third-party checks of the finished HTML run at `mkdocs build`")


def on_post_build(config):
    """Fail if a page loads anything from another host, or links to a file or #anchor
    that does not exist (check_site.py: plain HTML checks, independent of MkDocs)."""
    if _serving:  # reading every page back costs most of a reload; `mkdocs build` and the tests check
        return
    site = Path(config.site_dir)
    pages = check_site.parse_site(site)
    problems = (check_site.third_party_resources(pages, config.site_url)
                + check_site.broken_links(site, pages, config.site_url))
    if problems:
        raise PluginError("the built site has problems:\n  " + "\n  ".join(problems))
