"""What several tests need: where the project is, and how to build it."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
QUICK_RESULTS = ROOT / ".cache" / "measured" / "quick"  # what the quick build (built_site) measured


def build_site(project: Path, site_dir: Path, **env) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` in quick mode; returns the finished process (never raises)."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=project, capture_output=True, text=True, timeout=900,
        env={**os.environ, "JIT_DOCS_QUICK": "1", "NO_MKDOCS_2_WARNING": "1", **env})


def quick_results(name: str) -> dict:
    """results.json of a build snippet, as the quick build (the built_site fixture) wrote it."""
    return json.loads((QUICK_RESULTS / name / "results.json").read_text())


class _Loader(yaml.SafeLoader):  # mkdocs.yml uses MkDocs' own tags (!ENV, !relative): None here
    pass


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def mkdocs_config(name: str = "mkdocs.yml") -> dict:
    """The project's mkdocs.yml (or mkdocs.ko.yml) as written, its MkDocs tags read as None."""
    return yaml.load((ROOT / name).read_text(encoding="utf-8"), Loader=_Loader)


def build_snippets() -> list[str]:
    """The build snippets mkdocs.yml lists (extra.build_snippets), in the order the build runs them."""
    return mkdocs_config()["extra"]["build_snippets"]


def one_step_taken(config):
    """A DeepONet of `config` whose step is compiled for one batch, as after the training loop:
    (model, functions, batches, params before the step)."""
    import jax

    import training_loop_pauses as tl
    from deeponet import PIDeepONet, random_functions

    functions = random_functions(jax.random.key(0), config.n_functions, config.n_sensors)
    model = PIDeepONet(config)
    params = model.params
    _, batches = tl.next_batches(jax.random.key(1), functions, config.batch_size)
    model.opt_state = model.step(next(model.itercount), model.opt_state, *batches)
    return model, functions, batches, params


def uncited_footnotes(markdown_text: str) -> list[str]:
    """Footnotes a page defines and never cites (MkDocs' strict mode fails on them)."""
    defined = re.findall(r"^\[\^([^\]]+)\]:", markdown_text, re.M)
    return [n for n in defined if markdown_text.count(f"[^{n}]") < 2]


def rendered_page(page: str, results: dict) -> dict[str, str]:
    """Both editions of `page` (e.g. "selu.md") rendered from `results` (snippet name ->
    its results.json), each on one line: what a test of a page's sentences reads."""
    from mkdocs.utils.meta import get_data

    import page_templates

    pages = {}
    for edition in ("docs", "docs-ko"):
        text, meta = get_data((ROOT / edition / page).read_text(encoding="utf-8"))
        pages[edition] = " ".join(page_templates.render(
            text, page=page, page_url=page.removesuffix(".md") + "/", results=results,
            words=page_templates.load_words(ROOT / edition), page_words=meta.get("words")).split())
    return pages


def draw_figures(edition: Path, page: str, snippet, data: dict) -> None:
    """Draw each of `snippet`'s FIGURES from `data` with the words of `page` in `edition`
    (docs/ or docs-ko/), in the fonts sitebuild/figures.py gives that edition."""
    import matplotlib
    import matplotlib.font_manager

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from mkdocs.utils.meta import get_data

    import figures
    import page_templates

    common = page_templates.load_words(edition)
    meta = get_data((edition / page).read_text(encoding="utf-8"))[1]
    name = snippet.__name__
    family = matplotlib.rcParams["font.family"]
    if edition.name == "docs-ko":  # as sitebuild/figures.py draws the Korean figures
        font = figures.hangul_font()
        matplotlib.font_manager.fontManager.addfont(str(font))
        family = ["DejaVu Sans",
                  matplotlib.font_manager.FontProperties(fname=str(font)).get_name()]
    with matplotlib.rc_context({"font.family": family}):
        for figure, draw in snippet.FIGURES.items():
            words = page_templates.words_for(common, meta["words"].get(name, {}), figure)
            plt.close(draw(data, words))
