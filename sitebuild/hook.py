"""The MkDocs side of the build, wiring only: snippet_runs.py runs and caches build
snippets, notebooks.py makes notebook editions, page_templates.py renders pages over the
results, background_runs.py is serve's queue, check_site.py checks the built HTML, and
korean_edition.py makes the Korean edition (mkdocs.ko.yml) from the same results.

`mkdocs build` measures every stale build snippet, one at a time (quick mode, never
published: as many at a time as there are cores), before any page is made; `mkdocs serve`
answers at once and measures what is missing in the background, then serves the Korean
edition at /ko/ too (korean_edition.ServedEdition).
Ctrl-C or SIGTERM kills the running snippet or notebook with its whole process group.
Options: JIT_DOCS_QUICK=1, JIT_DOCS_REMEASURE=1, JIT_DOCS_TIMEOUT=S (README).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from functools import partial
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent))
import background_runs  # noqa: E402  (this folder is not a package: MkDocs loads hooks by path)
import check_site  # noqa: E402
import korean_edition  # noqa: E402
import notebooks  # noqa: E402
import page_templates  # noqa: E402
import snippet_runs  # noqa: E402

log = logging.getLogger("mkdocs.hooks.measure")
state = {"command": None, "queue": None, "korean": None, "results": {}, "folders": {}, "notebooks": {},
         "status": {}, "edition": "en", "korean_build": None}


def _loudly(function, *args, **kwargs):
    """function(...), with its own error as MkDocs' PluginError: the message, no traceback."""
    try:
        return function(*args, **kwargs)
    except (snippet_runs.SnippetRunError, korean_edition.EditionError, page_templates.PageError) as error:
        raise PluginError(str(error)) from None


def on_startup(command, dirty):  # SIGTERM stops as Ctrl-C does, even a SIGINT a shell ignored
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) in (signal.SIG_DFL, signal.SIG_IGN):
            signal.signal(signum, signal.default_int_handler)
    state.update(command=command, remeasure=_loudly(snippet_runs.options, os.environ)["remeasure"])


def on_shutdown():
    if state["korean_build"]:  # the English build ended before the Korean one finished
        state["korean_build"].stop()
        state["korean_build"] = None
    if state["queue"]:
        state["queue"].stop()
    if state["korean"]:
        state["korean"].stop()


def on_serve(server, config, builder):  # each finished run rebuilds the pages
    if state["queue"]:  # (the Korean edition measures nothing)
        server.watch(str(state["queue"].progress_dir))
    return server


def on_build_error(error):
    if state["queue"]:
        state["queue"].site_built()  # a failed rebuild must not hold up the next measurement


def on_config(config):
    root, options = Path(config.config_file_path).resolve().parent, _loudly(snippet_runs.options, os.environ)
    state["edition"] = config.extra.get("edition", "en")
    if state["edition"] == "ko":  # measures nothing: the English build's results, in Korean
        config.site_url = korean_edition.site_url(os.environ.get("SITE_URL")) or config.site_url
        state.update(status={}, notebooks={}, remeasure=False)
        state["results"], state["folders"] = _loudly(korean_edition.reuse_results, root, Path(config.docs_dir),
                                                      config.extra.get("build_snippets", []), options["quick"])
        return config
    cache, timeout = root / ".cache", options["timeout"]
    names = config.extra.get("build_snippets", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise PluginError("extra.build_snippets in mkdocs.yml must be a list of snippet names.")
    if "mkdocs-jupyter" in config.plugins:  # it resolves its cache folder against the cwd
        config.plugins["mkdocs-jupyter"].config["cache_dir"] = str(cache / "mkdocs-jupyter")
    if state["command"] == "serve" and not state["queue"]:  # `mkdocs serve`: measure in the background
        state["queue"] = background_runs.BackgroundRuns(cache / "serving", log.info)
    serving = state["queue"]
    if serving and config.extra.get("korean_edition") and not state["korean"]:  # /ko/ under serve
        state["korean"] = korean_edition.ServedEdition(
            root, root / config.extra["korean_edition"], cache / "serving-korean",  # not watched
            serving.progress_dir / "korean-built", log.info)
    paths = snippet_runs.project_paths(root, options["quick"])
    nb_args = dict(root=root, cache_root=cache / "notebooks", timeout=timeout, log=log.info,
                   snippets_config=config.mdx_configs.get("pymdownx.snippets", {}))
    templates, remeasure = sorted((root / "notebooks").glob("*.py")), state.get("remeasure", False)
    state["remeasure"] = False  # once per start
    # `mkdocs build`: every result, before any page is made; `mkdocs serve`: what is ready
    workers = snippet_runs.runs_at_once(options["quick"])
    state["results"], state["folders"], state["status"] = _loudly(
        snippet_runs.results_for, names, serving=serving, remeasure=remeasure, timeout=timeout,
        log=log.info, workers=workers, **paths)
    state["notebooks"] = _loudly(snippet_runs.side_by_side, {
        t.stem: partial(notebooks.run_notebook, t, **nb_args) for t in templates}, workers) if not serving else {
        t.stem: notebooks.served_notebook(t, serving, page_templates.PENDING, **nb_args) for t in templates}
    return config


@event_priority(100)  # before mkdocs-jupyter wraps notebook files
def on_files(files, config):
    if state["edition"] == "ko":  # the English docs' assets (stylesheets), not copied twice
        for uri, path in korean_edition.english_assets(Path(config.config_file_path).resolve().parent):
            if files.get_file_from_path(uri) is None:
                files.append(File.generated(config, uri, abs_src_path=str(path)))
    if state["edition"] == "en" and config.extra.get("korean_edition") and state["command"] == "build":
        root = Path(config.config_file_path).resolve().parent  # every result is measured by now
        state["korean_build"] = _loudly(korean_edition.Build, root, root / config.extra["korean_edition"],
                                        Path(config.site_dir), config.site_url, log.info)
    for path, source in snippet_runs.site_files(state["folders"], state["results"]):
        files.append(File.generated(config, f"{page_templates.MEASURED}/{path}", **source))
    for name, path in state["notebooks"].items():
        # A File rooted in the cache, not File.generated: mkdocs-jupyter needs its src_dir
        files.append(File(f"notebooks/{name}.ipynb", src_dir=str(path.parent.parent),
                          dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls))
    return files


def on_page_markdown(markdown_text, page, config, files):
    if state["edition"] == "ko":
        markdown_text = korean_edition.english_reports(korean_edition.notebook_links(markdown_text, page.url))
    return _loudly(page_templates.render, markdown_text, page=page.file.src_uri, page_url=page.url,
                   results=state["results"], status=state["status"],
                   labels=page_templates.KOREAN if state["edition"] == "ko" else None)


def on_page_content(html, page, config, files):  # a Korean page: "translated from ..." under its title
    return korean_edition.with_banner(html, page.url) if state["edition"] == "ko" else html


@event_priority(-100)  # after mkdocs-jupyter has put its page together
def on_post_page(output, page, config):
    if config.extra.get("alternate"):  # the language switch goes to the same page
        output = korean_edition.language_links(output, page.url, state["edition"], Path(config.config_file_path).parent)
    if page.file.src_uri.endswith(".ipynb"):
        output = notebooks.share_stylesheet(output, page.url, Path(config.site_dir))
    return output


def on_post_build(config):
    """THE check of the built HTML (check_site.py, all of it), once per `mkdocs build`."""
    if state["queue"]:  # reading every page back costs most of a reload
        if state["korean"]:  # the Korean edition, once nothing is left to measure
            ready = None not in state["results"].values() and state["queue"].idle()
            state["korean"].refresh(Path(config.site_dir), state["folders"] if ready else None)
        state["queue"].site_built()
        return
    site = Path(config.site_dir)
    if state["edition"] == "ko" and not (site := korean_edition.site_to_check(site, state["command"])):
        return  # the English build checks both editions together
    if state["korean_build"]:  # started with the English pages (on_files); interrupted while
        _loudly(state["korean_build"].finish)  # waiting, on_shutdown still stops it
        state["korean_build"] = None
    problems = check_site.all_problems(site)
    if problems:
        raise PluginError("the built site has problems (sitebuild/check_site.py):\n  " + "\n  ".join(problems))
