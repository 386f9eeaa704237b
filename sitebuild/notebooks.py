"""Notebook editions: jupytext templates under notebooks/ made into executed notebooks.

Independent of MkDocs (hook.py is the glue; mkdocs-jupyter only renders the result).
A template's `# --8<-- "file.py:section"` lines are expanded by pymdownx.snippets with
the site's own settings, so a notebook shows exactly the code the pages show. The
notebook is executed in a subprocess of its own (`python sitebuild/notebooks.py SOURCE
OUT`), cached like a build snippet (snippet_runs: same key scheme, same scratch folder
and rename, same process groups), and executed again only when its key changes: the
template, the snippets it includes or imports, this file, and the environment.
"""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import sys
from pathlib import Path
from collections.abc import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import page_templates  # noqa: E402
import snippet_runs  # noqa: E402

GRACE_S = 3.0  # after SIGTERM, time for the executor to kill its kernel before SIGKILL


def expand(template: Path, snippets_config: dict) -> str:
    """The unexecuted notebook (ipynb JSON) that `template` describes."""
    import jupytext  # here, not at the top: a build with cached notebooks never needs them
    import markdown

    lines = _includes_uncommented(template).splitlines()
    md = markdown.Markdown(extensions=["pymdownx.snippets"],
                           extension_configs={"pymdownx.snippets": snippets_config})
    try:
        expanded = md.preprocessors["snippet"].run(lines)
    except Exception as error:
        raise snippet_runs.SnippetRunError(f"notebook template {template}: {error}") from None
    notebook = jupytext.reads("\n".join(expanded) + "\n", fmt="py:percent")
    for number, cell in enumerate(notebook.cells):
        # jupytext draws random cell ids: fixed ones keep a notebook the same between builds
        cell.id = f"cell-{number}"
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    return jupytext.writes(notebook, fmt="ipynb")


def _includes_uncommented(template: Path) -> str:
    """The template with its `# --8<-- "file.py:section"` lines as a page writes them."""
    return re.sub(r"^# (?=--8<--)", "", template.read_text(encoding="utf-8"), flags=re.M)


def cache_key(template: Path, root: Path) -> dict:
    """The same scheme as a build snippet's key: the files the notebook's code comes from
    (the template, the snippets it includes, what those import), this file, the environment."""
    snippets_dir = root / "snippets"
    files = set(snippet_runs.imported_snippets(template, snippets_dir))
    for included in page_templates.INCLUDE.findall(_includes_uncommented(template)):
        if (path := snippets_dir / included.split(":")[0]).is_file():
            files.update(snippet_runs.imported_snippets(path, snippets_dir))
    files.add(Path(__file__).resolve())
    return {"files": snippet_runs.files_key(sorted(files), root), "quick": False,
            **snippet_runs.environment_key(root / "requirements.txt")}


def lookup(template: Path, root: Path, cache_root: Path) -> tuple[dict, Path | None]:
    """The key, and the executed notebook if it is cached under that key (else None)."""
    snippet_runs.remove_abandoned_scratch(cache_root)
    key = cache_key(template, root)
    path = cache_root / template.stem / "notebooks" / f"{template.stem}.ipynb"
    if snippet_runs.cached_key(cache_root / template.stem) == key and path.is_file():
        return key, path
    return key, None


def run_notebook(template: Path, *, root: Path, cache_root: Path, snippets_config: dict,
                 timeout: float, log: Callable[[str], None] = print) -> Path:
    """The executed notebook of `template`, executed now unless its key is cached.
    It lives at <cache_root>/<name>/notebooks/<name>.ipynb: MkDocs finds it by its URL."""
    key, path = lookup(template, root, cache_root)
    if path is not None:
        return path
    folder = cache_root / template.stem
    why = snippet_runs.changed(snippet_runs.cached_key(folder), key)
    log(f"notebook {template.name}: executing ({why}) ...")
    cache_root.mkdir(parents=True, exist_ok=True)
    # The expanded notebook stays beside the cache, for running it again by hand.
    source = cache_root / f"{template.stem}.source.ipynb"
    source.write_text(expand(template, snippets_config), encoding="utf-8")
    rel = template.relative_to(root).as_posix()
    seconds = snippet_runs.run_into_cache(
        lambda out: [sys.executable, __file__, str(source), str(out / "notebooks"),
                     "--timeout", str(timeout)],
        folder=folder, key=key, expected=f"notebooks/{template.stem}.ipynb", timeout=timeout,
        grace=GRACE_S, what=f"notebook template {rel}",
        rerun=f"python sitebuild/notebooks.py {source.relative_to(root)} OUT_DIR")
    log(f"notebook {template.name}: executed in {seconds:.1f} s")
    return folder / "notebooks" / f"{template.stem}.ipynb"


def write_pending(template: Path, snippets_config: dict, out_dir: Path, note: str) -> Path:
    """An unexecuted edition with `note` on top, for serve while the real one is made.
    It lives apart from the cache, so it is never taken for an executed notebook."""
    import nbformat

    notebook = nbformat.reads(expand(template, snippets_config), as_version=4)
    title = 1 if notebook.cells and notebook.cells[0].cell_type == "markdown" else 0
    notebook.cells.insert(title, nbformat.v4.new_markdown_cell(note, id="being-made"))
    path = out_dir / "notebooks" / f"{template.stem}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    return path


def served_notebook(template: Path, serving, pending: str, **run_args) -> Path:
    """`mkdocs serve`: the executed notebook when cached, else its code under a note that it
    is being run (`pending` starts the note), queued on serve's background runs."""
    (key, path), label = lookup(template, run_args["root"], run_args["cache_root"]), f"notebook {template.stem}"
    if path is None:
        serving.want(label, key, lambda: run_notebook(template, **run_args))
        path = write_pending(
            template, run_args["snippets_config"], run_args["cache_root"] / "pending",
            f"**{pending}**: this notebook {serving.status(label)}; the page reloads with its "
            "outputs when it has run. The code below is what will run.")
    return path


_STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.S)


def for_site(root: Path, *, serving, pending: str, workers: int, **run_args) -> dict[str, Path]:
    """Every notebook edition (notebooks/*.py) by name, as `run_notebook` takes `run_args`:
    `mkdocs build` executes the stale ones now, `workers` at a time; `mkdocs serve`
    (`serving`: its queue) hands them to the background and shows `pending` meanwhile."""
    templates = sorted((root / "notebooks").glob("*.py"))
    if serving:
        return {t.stem: served_notebook(t, serving, pending, root=root, **run_args) for t in templates}
    return snippet_runs.side_by_side(
        {t.stem: functools.partial(run_notebook, t, root=root, **run_args) for t in templates}, workers)


def share_stylesheet(html: str, page_url: str, site_dir: Path) -> str:
    """Move the JupyterLab stylesheet that mkdocs-jupyter inlines into every notebook page
    (over half a megabyte, the same each time) into one file that browsers cache."""
    def to_file(match):
        if len(match.group(1)) < 50_000:  # small page-specific styles stay inline
            return match.group(0)
        css = match.group(1)
        name = f"assets/stylesheets/jupyter-{snippet_runs.digest(css.encode(), 12)}.css"
        path = site_dir / name
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(css, encoding="utf-8")
        return f'<link rel="stylesheet" href="{page_templates.relative(name, page_url)}">'

    return _STYLE.sub(to_file, html)


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def execute(source: Path, out_dir: Path, timeout: float) -> int:
    """Execute `source` with nbclient into out_dir/<name>.ipynb; 1 and the cell's error
    on stderr when a cell raises. Each cell's printed lines become one output (the kernel
    sends them in as many pieces as its flush timer cut, which varied between builds)."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    notebook = nbformat.read(source, as_version=4)
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            allow_errors=False, coalesce_streams=True,
                            resources={"metadata": {"path": os.getcwd()}})

    def stop(signum, frame):  # the kernel runs in a session of its own: end it with us
        pgid = getattr(getattr(client.km, "provisioner", None), "pgid", None)
        if pgid:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as error:
        print(_strip_ansi(str(error)), file=sys.stderr)
        return 1
    out_dir.mkdir(parents=True, exist_ok=True)
    name = source.name.replace(".source.ipynb", ".ipynb")
    (out_dir / name).write_text(nbformat.writes(notebook), encoding="utf-8")
    print(json.dumps({"executed": name}))
    return 0


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Execute one expanded notebook (the build runs this).")
    parser.add_argument("source", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    sys.exit(execute(args.source.resolve(), args.out_dir.resolve(), args.timeout))
