"""The MkDocs side of the build, wiring only: snippet_runs.py runs and caches build
snippets, notebooks.py makes notebook editions, page_templates.py renders pages over the
results, background_runs.py is serve's queue, check_site.py checks the built HTML.

`mkdocs build` measures every stale build snippet, one at a time, before any page is
made. `mkdocs serve` answers at once and measures what is missing in the background, one
at a time; each result rebuilds its pages. Ctrl-C or SIGTERM kills the running snippet
or notebook with its whole process group. Options (docs/how-this-site-is-built.md):
JIT_DOCS_QUICK=1 (small sizes), JIT_DOCS_REMEASURE=1, JIT_DOCS_TIMEOUT=S (default 600).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent))
import background_runs  # noqa: E402  (this folder is not a package: MkDocs loads hooks by path)
import check_site  # noqa: E402
import notebooks  # noqa: E402
import page_templates  # noqa: E402
import snippet_runs  # noqa: E402

log = logging.getLogger("mkdocs.hooks.measure")
state = {"command": None, "queue": None, "results": {}, "folders": {}, "notebooks": {}, "status": {}}


def _options() -> dict:  # JIT_DOCS_QUICK, JIT_DOCS_REMEASURE, JIT_DOCS_TIMEOUT
    try:
        return snippet_runs.options(os.environ)
    except snippet_runs.SnippetRunError as error:
        raise PluginError(str(error)) from None


def on_startup(command, dirty):  # SIGTERM stops as Ctrl-C does, even a SIGINT a shell ignored
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) in (signal.SIG_DFL, signal.SIG_IGN):
            signal.signal(signum, signal.default_int_handler)
    state.update(command=command, remeasure=_options()["remeasure"])


def on_shutdown():
    if state["queue"]:
        state["queue"].stop()


def on_serve(server, config, builder):
    server.watch(str(state["queue"].progress_dir))  # each finished run rebuilds the pages
    return server


def on_build_error(error):
    if state["queue"]:
        state["queue"].site_built()  # a failed rebuild must not hold up the next measurement


def on_config(config):
    root, options = Path(config.config_file_path).resolve().parent, _options()
    cache, timeout = root / ".cache", options["timeout"]
    names = config.extra.get("build_snippets", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise PluginError("extra.build_snippets in mkdocs.yml must be a list of snippet names.")
    if "mkdocs-jupyter" in config.plugins:  # it resolves its cache folder against the cwd
        config.plugins["mkdocs-jupyter"].config["cache_dir"] = str(cache / "mkdocs-jupyter")
    if state["command"] == "serve" and not state["queue"]:  # `mkdocs serve`: measure in the background
        state["queue"] = background_runs.BackgroundRuns(cache / "serving", log.info)
    serving = state["queue"]
    paths = dict(snippets_dir=root / "snippets", requirements=root / "requirements.txt", quick=options["quick"],
                 cache_root=cache / "measured" / ("quick" if options["quick"] else "full"))
    nb_args = dict(root=root, cache_root=cache / "notebooks", timeout=timeout, log=log.info,
                   snippets_config=config.mdx_configs.get("pymdownx.snippets", {}))
    templates, remeasure = sorted((root / "notebooks").glob("*.py")), state.get("remeasure", False)
    state.update(results={}, folders={}, status={}, remeasure=False)  # remeasure: once per start
    try:
        for name in names:
            if not serving:  # `mkdocs build`: every result, before any page is made
                run = snippet_runs.run_snippet(name, remeasure=remeasure, timeout=timeout, log=log.info, **paths)
            else:
                key, run = snippet_runs.lookup(name, **paths)
                if run is None or remeasure:
                    serving.want(name, key, lambda name=name, again=remeasure: snippet_runs.run_snippet(
                        name, remeasure=again, timeout=timeout, log=log.info, **paths))
                run = None if serving.busy(name) else run
                state["status"][name] = serving.status(name)
            state["results"][name], state["folders"][name] = (run.results, run.folder) if run else (None, None)
        state["notebooks"] = {t.stem: notebooks.run_notebook(t, **nb_args) if not serving
                              else _served_notebook(t, serving, nb_args) for t in templates}
    except snippet_runs.SnippetRunError as error:
        raise PluginError(str(error)) from None
    return config


def _served_notebook(template: Path, serving, nb_args: dict) -> Path:
    (key, path), label = notebooks.lookup(template, nb_args["root"], nb_args["cache_root"]), f"notebook {template.stem}"
    if path is None:
        serving.want(label, key, lambda: notebooks.run_notebook(template, **nb_args))
        path = notebooks.write_pending(
            template, nb_args["snippets_config"], nb_args["cache_root"] / "pending",
            f"**{page_templates.PENDING}**: this notebook {serving.status(label)}; the page "
            "reloads with its outputs when it has run. The code below is what will run.")
    return path


@event_priority(100)  # before mkdocs-jupyter wraps notebook files
def on_files(files, config):
    for name, folder in state["folders"].items():
        if state["results"][name] is None:  # serve, still measuring: a placeholder for links
            files.append(File.generated(config, f"{page_templates.MEASURED}/{name}/results.json",
                                        content='{"pending": "being measured by mkdocs serve"}\n'))
            continue
        for rel in snippet_runs.SnippetRun(name, folder, {}, True, 0).files:
            files.append(File.generated(config, f"{page_templates.MEASURED}/{name}/{rel.as_posix()}",
                                        abs_src_path=str(folder / rel)))
    for name, path in state["notebooks"].items():
        # A File rooted in the cache, not File.generated: mkdocs-jupyter needs its src_dir
        files.append(File(f"notebooks/{name}.ipynb", src_dir=str(path.parent.parent),
                          dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls))
    return files


def on_page_markdown(markdown_text, page, config, files):
    try:
        return page_templates.render(markdown_text, page=page.file.src_uri, page_url=page.url,
                                     results=state["results"], status=state["status"])
    except page_templates.PageError as error:
        raise PluginError(str(error)) from None


@event_priority(-100)  # after mkdocs-jupyter has put its page together
def on_post_page(output, page, config):
    if not page.file.src_uri.endswith(".ipynb"):
        return output
    return notebooks.share_stylesheet(output, page.url, Path(config.site_dir))


def on_post_build(config):
    """THE check of the built HTML (check_site.py, all of it), once per `mkdocs build`."""
    if state["queue"]:  # reading every page back costs most of a reload
        state["queue"].site_built()
        return
    problems = check_site.all_problems(Path(config.site_dir))
    if problems:
        raise PluginError("the built site has problems (sitebuild/check_site.py):\n  " + "\n  ".join(problems))
