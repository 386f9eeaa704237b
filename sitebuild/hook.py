"""The MkDocs side of the build, wiring only: snippet_runs.py runs and caches build
snippets, notebooks.py makes notebook editions, page_templates.py renders pages over the
results, background_runs.py is serve's queue, check_site.py checks the built HTML.

`mkdocs build` measures every stale build snippet, one at a time, before any page is
made. `mkdocs serve` answers at once and measures what is missing in the background, one
at a time; each result rebuilds its pages. Ctrl-C or SIGTERM kills the running snippet
or notebook with its whole process group. Options (docs/how-this-site-is-built.md):
JIT_DOCS_QUICK=1 (small sizes), JIT_DOCS_REMEASURE=1, JIT_DOCS_TIMEOUT=S (default 600).

The Korean edition (mkdocs.ko.yml, `extra.edition: ko`; korean.py): `mkdocs build` builds
it into SITE/ko after the English site, then checks both together. It only reuses the
English build's results, never measures, and fails when they are missing.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent))
import background_runs  # noqa: E402  (this folder is not a package: MkDocs loads hooks by path)
import check_site  # noqa: E402
import korean  # noqa: E402
import notebooks  # noqa: E402
import page_templates  # noqa: E402
import snippet_runs  # noqa: E402

log = logging.getLogger("mkdocs.hooks.measure")
state = {"command": None, "queue": None, "results": {}, "folders": {}, "notebooks": {}, "status": {},
         "edition": "en", "korean_pages": None}
# The Korean edition (mkdocs.ko.yml, extra.edition: ko) never measures: it reuses the English
# build's cached results (the same cache key), so both editions show the same numbers.
REUSE_ONLY = ("run `mkdocs build` (the English edition) first: it measures; the Korean edition "
              "only reuses its results, and has none for: {}")
FROM_ENGLISH = "JIT_DOCS_FROM_ENGLISH_BUILD"  # set when the English build runs the Korean one


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
    if state["queue"] is None:  # the Korean edition measures nothing
        return server
    server.watch(str(state["queue"].progress_dir))  # each finished run rebuilds the pages
    return server


def on_build_error(error):
    if state["queue"]:
        state["queue"].site_built()  # a failed rebuild must not hold up the next measurement


def on_config(config):
    root, options = Path(config.config_file_path).resolve().parent, _options()
    state["edition"] = edition = config.extra.get("edition", "en")
    if edition == "ko":
        return _korean_config(config, root, options)
    if config.extra.get("korean_edition"):  # the language switch: which pages have a Korean one
        ko_docs = root / "docs-ko"
        state["korean_pages"] = {_page_url(p.relative_to(ko_docs)) for p in ko_docs.rglob("*.md")}
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


def _page_url(src: Path) -> str:
    """The URL of docs' page `src` (directory URLs): index.md -> "", selu.md -> "selu/"."""
    stem = src.with_suffix("").as_posix()
    return "" if stem == "index" else stem.removesuffix("/index") + "/"


def _korean_config(config, root: Path, options: dict):
    """The Korean edition: every result from the English build's cache, in Korean."""
    if os.environ.get("SITE_URL") and not os.environ.get("SITE_URL_KO"):  # the English address
        config.site_url = os.environ["SITE_URL"].rstrip("/") + "/ko/"
    english, docs = root / "docs", Path(config.docs_dir)
    untranslated = [p.relative_to(english).as_posix() for p in sorted(english.rglob("*.md"))
                    if not (docs / p.relative_to(english)).is_file()]
    if untranslated:
        raise PluginError(f"the Korean edition lacks {len(untranslated)} page(s) of docs/: "
                          f"{', '.join(untranslated)}; translate each into {docs.name}/ "
                          "(python sitebuild/translations.py says what a translation keeps)")
    paths = dict(snippets_dir=root / "snippets", requirements=root / "requirements.txt", quick=options["quick"],
                 cache_root=root / ".cache" / "measured" / ("quick" if options["quick"] else "full"))
    out_root = root / ".cache" / "korean" / ("quick" if options["quick"] else "full")
    strings = Path(config.docs_dir) / korean.STRINGS
    state.update(results={}, folders={}, status={}, notebooks={}, remeasure=False)
    lacking, missing = [], {}
    try:
        for name in config.extra.get("build_snippets", []):
            run = snippet_runs.lookup(name, **paths)[1]
            if run is None:
                lacking.append(f"{name} ({'quick' if options['quick'] else 'full-size'} mode)")
                continue
            results, folder, missing[name] = korean.korean_run(name, run.folder, run.results, strings, out_root)
            state["results"][name], state["folders"][name] = results, folder
    except (snippet_runs.SnippetRunError, korean.Missing) as error:
        raise PluginError(str(error)) from None
    if lacking:
        raise PluginError(REUSE_ONLY.format(", ".join(lacking)))
    if any(missing.values()):
        raise PluginError(korean.missing_message(missing, strings))
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
    if state["edition"] == "ko":  # the English docs' assets (stylesheets), not copied twice
        english = Path(config.config_file_path).resolve().parent / "docs"
        for path in sorted(p for p in english.rglob("*") if p.is_file() and p.suffix != ".md"):
            uri = path.relative_to(english).as_posix()
            if files.get_file_from_path(uri) is None:
                files.append(File.generated(config, uri, abs_src_path=str(path)))
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
    if state["edition"] == "ko":
        markdown_text = korean.english_reports(korean.notebook_links(markdown_text, page.url))
    try:
        return page_templates.render(markdown_text, page=page.file.src_uri, page_url=page.url,
                                     results=state["results"], status=state["status"],
                                     labels=page_templates.KOREAN if state["edition"] == "ko" else None)
    except page_templates.PageError as error:
        raise PluginError(str(error)) from None


def on_page_content(html, page, config, files):
    """Each Korean page says, under its title, that it translates the English page."""
    if state["edition"] != "ko":
        return html
    end = html.find("</h1>")
    at = end + len("</h1>") if end >= 0 else 0
    return html[:at] + korean.banner(page.url) + html[at:]


@event_priority(-100)  # after mkdocs-jupyter has put its page together
def on_post_page(output, page, config):
    if config.extra.get("alternate"):  # the language switch goes to the same page
        output = korean.language_links(output, page.url, state["edition"], state["korean_pages"])
    if not page.file.src_uri.endswith(".ipynb"):
        return output
    return notebooks.share_stylesheet(output, page.url, Path(config.site_dir))


def _build_korean_edition(config) -> None:
    """After the English build: the Korean edition into SITE/ko (English cleans SITE first)."""
    root = Path(config.config_file_path).resolve().parent
    ko_config = root / config.extra["korean_edition"]
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ko_config),
               "--site-dir", str(Path(config.site_dir) / "ko")]
    log.info("building the Korean edition: %s", " ".join(command[1:]))
    done = subprocess.run(command, cwd=root, env={
        **os.environ, FROM_ENGLISH: "1", "SITE_URL_KO": config.site_url.rstrip("/") + "/ko/"})
    if done.returncode != 0:
        raise PluginError(f"the Korean edition ({ko_config.name}) failed: its messages are above")


def on_post_build(config):
    """THE check of the built HTML (check_site.py, all of it), once per `mkdocs build`."""
    if state["queue"]:  # reading every page back costs most of a reload
        state["queue"].site_built()
        return
    site = Path(config.site_dir)
    if state["edition"] == "ko":
        if os.environ.get(FROM_ENGLISH) or state["command"] != "build":
            return  # the English build checks both editions together
        if (site.parent / "index.html").is_file() and site.name == "ko":
            site = site.parent  # beside the English site: check both, language links too
    elif config.extra.get("korean_edition") and state["command"] == "build":
        _build_korean_edition(config)
    problems = check_site.all_problems(site)
    if problems:
        raise PluginError("the built site has problems (sitebuild/check_site.py):\n  " + "\n  ".join(problems))
