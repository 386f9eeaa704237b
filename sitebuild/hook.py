"""The MkDocs side of the build, wiring only: snippet_runs.py runs and caches build snippets,
notebooks.py makes notebook editions, page_templates.py renders pages over the results,
background_runs.py is what serve runs beside its pages, check_site.py checks the built HTML, and
korean_edition.py makes the Korean edition (mkdocs.ko.yml) from the same results. `mkdocs build`
measures every stale build snippet before any page is made; `mkdocs serve` answers at once,
measures in the background, and starts over when its own code changes. Ctrl-C or SIGTERM kills
the running snippet or notebook with its whole process group."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent))
import background_runs  # noqa: E402  (this folder is not a package: MkDocs loads hooks by path)
import check_site  # noqa: E402
import figures  # noqa: E402
import korean_edition  # noqa: E402
import notebooks  # noqa: E402
import page_templates  # noqa: E402
import snippet_runs  # noqa: E402

log = logging.getLogger("mkdocs.hooks.measure")
state = {"command": None, "serving": None, "results": {}, "folders": {}, "notebooks": {}, "status": {}, "edition": "en", "korean_build": None}
OWN_CODE = background_runs.OwnCode(Path(__file__).resolve().parent.parent)  # as this process loaded it


def _loudly(function, *args, **kwargs):  # its own error as MkDocs' PluginError: the message, no traceback
    try:
        return function(*args, **kwargs)
    except (snippet_runs.SnippetRunError, korean_edition.EditionError, page_templates.PageError, figures.FigureError) as error:
        raise PluginError(str(error)) from None


def on_startup(command, dirty):
    snippet_runs.stop_on_sigterm()
    state.update(command=command, remeasure=_loudly(snippet_runs.options, os.environ)["remeasure"])


def on_shutdown():  # (a Korean build: the English build ended before it finished)
    for running in filter(None, (state["korean_build"], state["serving"])):
        running.stop()
    state["korean_build"] = None


def on_serve(server, config, builder):  # each finished run rebuilds the pages
    if state["serving"]:  # (the Korean edition measures nothing)
        server.watch(str(state["serving"].queue.progress_dir))
    return server


def on_build_error(error):
    if state["serving"]:
        state["serving"].queue.site_built()  # a failed rebuild must not hold up the next measurement


def on_config(config):
    if state["command"] == "serve" and (changed := OWN_CODE.changed()):  # never measure with old code
        on_shutdown()  # the runs in the background first; then this process becomes a new serve
        raise PluginError(OWN_CODE.restart(changed, Path(config.site_dir), log.info))  # (or says what to fix)
    if state["serving"]:
        state["serving"].queue.build_started()
    root, options = Path(config.config_file_path).resolve().parent, _loudly(snippet_runs.options, os.environ)
    state["edition"], cache, snippets_config = config.extra.get("edition", "en"), root / ".cache", config.mdx_configs.get("pymdownx.snippets", {})
    if "mkdocs-jupyter" in config.plugins:  # it resolves its cache folder against the cwd
        config.plugins["mkdocs-jupyter"].config["cache_dir"] = str(cache / "mkdocs-jupyter")
    state["words"] = _loudly(page_templates.load_words, Path(config.docs_dir))
    if state["edition"] == "ko":  # measures nothing: the English build's results, in Korean
        config.site_url = korean_edition.site_url(os.environ.get("SITE_URL")) or config.site_url
        korean_edition.in_korean(config, state["words"])
        state["results"], state["folders"] = _loudly(korean_edition.reuse_results, root, Path(config.docs_dir), config.extra.get("build_snippets", []), options["quick"])
        state.update(status={}, remeasure=False, notebooks=_loudly(korean_edition.korean_notebooks, root, cache / "notebooks", snippets_config))
        return config
    names, timeout = _loudly(snippet_runs.build_snippets, config.extra), options["timeout"]
    if state["command"] == "serve" and not state["serving"]:  # `mkdocs serve`: measure in the background
        state["serving"] = background_runs.Serving(root, (ko := config.extra.get("korean_edition")) and root / ko, log.info, timeout)
    serving, remeasure, state["remeasure"] = state["serving"] and state["serving"].queue, state.get("remeasure"), False
    workers = snippet_runs.runs_at_once(options["quick"])
    # `mkdocs build`: every result, before any page is made; `mkdocs serve`: what is ready
    state["results"], state["folders"], state["status"] = _loudly(
        snippet_runs.results_for, names, serving=serving, remeasure=remeasure, timeout=timeout,
        log=log.info, workers=workers, **snippet_runs.project_paths(root, options["quick"]))
    state["notebooks"] = _loudly(notebooks.for_site, root, serving=serving, pending=page_templates.PENDING,
        workers=workers, cache_root=cache / "notebooks", timeout=timeout, log=log.info, snippets_config=snippets_config)
    return config


@event_priority(100)  # before mkdocs-jupyter wraps notebook files
def on_files(files, config):
    root = Path(config.config_file_path).resolve().parent
    for uri, path in korean_edition.english_assets(root) if state["edition"] == "ko" else ():
        if files.get_file_from_path(uri) is None:  # the English docs' assets (stylesheets), not copied twice
            files.append(File.generated(config, uri, abs_src_path=str(path)))
    if state["edition"] == "en" and config.extra.get("korean_edition") and state["command"] == "build":
        state["korean_build"] = _loudly(korean_edition.Build, root, root / config.extra["korean_edition"],
                                        Path(config.site_dir), config.site_url, log.info)
    for path, source in snippet_runs.site_files(state["folders"], state["results"]):
        files.append(File.generated(config, f"{page_templates.MEASURED}/{path}", **source))
    for path, svg in _loudly(figures.drawn, state["results"], state["folders"], Path(config.docs_dir),
                             state["words"], state["edition"], root / ".cache" / "figures", log.info):
        files.append(File.generated(config, f"{page_templates.MEASURED}/{path}", abs_src_path=str(svg)))
    for name, path in state["notebooks"].items():  # rooted in the cache: mkdocs-jupyter needs its src_dir
        files.append(File(f"notebooks/{name}.ipynb", str(path.parent.parent), config.site_dir, config.use_directory_urls))
    return files


def on_page_markdown(markdown_text, page, config, files):
    if state["edition"] == "en":  # a machine unlike the one a chapter explains: said, never a failure
        for found in page_templates.unexpected(markdown_text, state["results"]):
            log.info(f"{page.file.src_uri}: this machine behaved differently from what the chapter explains: {found}")
    return _loudly(page_templates.render, markdown_text, page=page.file.src_uri, page_url=page.url,
                   results=state["results"], status=state["status"], words=state["words"],
                   page_words=page.meta.get("words"))


def on_page_content(html, page, config, files):  # a Korean page: "translated from ..." under its title
    return korean_edition.with_banner(html, page.url, state["words"]) if state["edition"] == "ko" else html


@event_priority(-100)  # after mkdocs-jupyter has put its page together
def on_post_page(output, page, config):
    if config.extra.get("alternate"):  # the language switch goes to the same page
        output = korean_edition.language_links(output, page.url, state["edition"], config.site_url)
    if page.file.src_uri.endswith(".ipynb"):
        output = notebooks.share_stylesheet(output, page.url, Path(config.site_dir))
    return output


def on_post_build(config):
    """THE check of the built HTML (check_site.py, all of it), once per `mkdocs build`."""
    if state["serving"]:  # serve checks nothing: reading every page back costs most of a reload
        return state["serving"].site_built(Path(config.site_dir), state["results"], state["folders"])
    site = Path(config.site_dir)
    if state["edition"] == "ko" and not (site := korean_edition.site_to_check(site, state["command"])):
        return  # the English build checks both editions together
    if state["korean_build"]:  # started with the English pages (on_files); interrupted while
        _loudly(state["korean_build"].finish)  # waiting, on_shutdown still stops it
        state["korean_build"] = None
    if problems := check_site.all_problems(site):
        raise PluginError("the built site has problems (sitebuild/check_site.py):\n  " + "\n  ".join(problems))
