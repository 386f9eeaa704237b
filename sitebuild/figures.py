"""Each edition's figures, drawn from a build snippet's results by the snippet's own code.

A data-out build snippet lists its figures in results.json and keeps their drawing code
in `FIGURES` (name -> draw(data, words) -> matplotlib Figure). Each edition draws them
with its own words: the page that shows a figure holds its labels in its front matter
(`words: {snippet: {figure: {...}}}`), over the edition's common words (docs/words.yml,
docs-ko/words.yml). Drawing runs in one subprocess per build (`python figures.py JOBS`),
so the MkDocs process never imports JAX or changes matplotlib's settings, and only
figures whose results, words or code changed are drawn again (cached by digest).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from mkdocs.utils.meta import get_data

import page_templates
import snippet_runs

HERE = Path(__file__).resolve().parent
STALE_S = 3600  # a cached drawing of other data older than this is removed when its figure is drawn


class FigureError(Exception):
    """A figure could not be drawn; the message names it and says what to do."""


def hangul_font() -> Path:
    """NanumGothic from the koreanize-matplotlib package (found, never imported)."""
    spec = importlib.util.find_spec("koreanize_matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise FigureError("the Korean figures need koreanize-matplotlib (requirements.txt) for "
                          "its NanumGothic font: pip install -r requirements.lock")
    font = Path(list(spec.submodule_search_locations)[0]) / "fonts" / "NanumGothic.ttf"
    if not font.is_file():
        raise FigureError(f"{font} is missing: reinstall koreanize-matplotlib==0.1.1")
    return font


def page_words(docs_dir: Path) -> dict[str, dict]:
    """Every page's front-matter `words`, merged: snippet -> {table or figure -> words}."""
    found: dict[str, dict] = {}
    for page in sorted(docs_dir.rglob("*.md")):
        words = get_data(page.read_text(encoding="utf-8"))[1].get("words") or {}
        for snippet, named in words.items():
            found.setdefault(snippet, {}).update(named or {})
    return found


def drawn(results: dict, folders: dict, docs_dir: Path, common: dict, edition: str,
          cache: Path, log=print) -> list[tuple[str, Path]]:
    """(path under measured/, SVG) of every data-out snippet's figures, in this edition:
    drawn now where the cached SVG is stale (one subprocess for all of them)."""
    pages, jobs, found = page_words(docs_dir), [], []
    drawing_code = snippet_runs.digest(Path(__file__).read_bytes())
    for name, res in results.items():
        if not res or not isinstance(res.get("figures"), list):
            continue  # pending, or a snippet that draws its own figures
        snippet = docs_dir.parent / "snippets" / f"{name}.py"
        code = snippet_runs.files_key(snippet_runs.imported_snippets(snippet, snippet.parent), snippet.parent)
        for fig in res["figures"]:
            words = {**page_templates.words_for(common, pages.get(name, {}), fig), "stamp": stamp_line(res, common)}
            key = snippet_runs.digest(json.dumps([res.get("data"), words, code, edition, drawing_code],
                                                 sort_keys=True, default=str).encode())
            out = cache / edition / name / f"{fig}-{key}.svg"
            if not out.is_file():
                jobs.append({"snippet": str(snippet), "figure": fig, "out": str(out), "words": words,
                             "results": str(folders[name] / "results.json"), "korean": edition == "ko"})
            found.append((f"{name}/{fig}.svg", out))
    if jobs:
        log(f"drawing {len(jobs)} figure(s) for the {edition} edition")
        cache.mkdir(parents=True, exist_ok=True)
        # a file of its own: the Korean edition, and the tests' builds, draw at the same time
        with tempfile.NamedTemporaryFile("w", suffix=".json", dir=cache, delete=False) as f:
            json.dump(jobs, f)
        try:
            done = subprocess.run([sys.executable, __file__, f.name], capture_output=True, text=True)
        finally:
            os.unlink(f.name)
        if done.returncode != 0:
            raise FigureError(f"drawing figures failed:\n{done.stderr[-3000:]}")
    return found


def stamp_line(results: dict, common: dict) -> str:
    """The line at the foot of a figure: where and with what its numbers were measured."""
    env = results.get("environment", {})
    return common["stamp"]["figure"].format(**page_templates.machine_fields([env], common), date=env.get("date"))


class _Words(dict):
    def __init__(self, words, job):
        super().__init__(words)
        self.job = job

    def __missing__(self, key):
        name = Path(self.job["snippet"]).stem
        raise FigureError(f"figure {name}.{self.job['figure']} needs the word {key!r}: add it to the "
                          f"front matter of the page that shows it (words: {name}: {self.job['figure']}: "
                          f"{key}: ...)")


def _draw(jobs: list[dict]) -> None:
    """Draw each job's figure (this process: a subprocess of the build)."""
    import matplotlib
    import matplotlib.font_manager

    sys.path.insert(0, str(Path(jobs[0]["snippet"]).parent))
    import measurement  # snippets/: one style for every figure

    measurement.plot_style()
    latin = matplotlib.rcParams["font.family"]
    for job in jobs:
        if job["korean"]:
            font = hangul_font()
            matplotlib.font_manager.fontManager.addfont(str(font))
            name = matplotlib.font_manager.FontProperties(fname=str(font)).get_name()
            matplotlib.rcParams["font.family"] = ["DejaVu Sans", name]
        else:
            matplotlib.rcParams["font.family"] = latin
        spec = importlib.util.spec_from_file_location(Path(job["snippet"]).stem, job["snippet"])
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        results = json.loads(Path(job["results"]).read_text(encoding="utf-8"))
        fig = module.FIGURES[job["figure"]](results["data"], _Words(job["words"], job))
        fig.text(0.01, 0.005, job["words"]["stamp"], fontsize=6, color="0.4", ha="left", va="bottom")
        out = Path(job["out"])
        out.parent.mkdir(parents=True, exist_ok=True)
        for old in out.parent.glob(f"{job['figure']}-*.svg"):  # other data's drawings, unless
            if time.time() - old.stat().st_mtime > STALE_S:  # another build may still copy them
                old.unlink(missing_ok=True)
        with warnings.catch_warnings():  # a glyph in no font would be drawn as an empty box
            warnings.filterwarnings("error", message=".*[Gg]lyph.*missing")
            fig.savefig(f"{out}.{os.getpid()}.tmp", format="svg", metadata={"Date": None})
        os.replace(f"{out}.{os.getpid()}.tmp", out)  # a build copying it never sees half a file
        matplotlib.pyplot.close(fig)


if __name__ == "__main__":
    import matplotlib.pyplot  # noqa: F401  (closes figures in _draw)

    _draw(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8")))
