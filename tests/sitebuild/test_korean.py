"""The Korean edition (sitebuild/korean_edition.py): its words (docs-ko/words.yml), nav,
language links and figures, and that it only reuses the English build's numbers."""

import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from mkdocs.config import load_config

import korean_edition
from project import ROOT

QUICK = ROOT / ".cache" / "measured" / "quick"


@pytest.fixture(scope="module")
def snippets_config():
    return load_config(str(ROOT / "mkdocs.yml")).mdx_configs["pymdownx.snippets"]


def test_the_korean_words_cover_what_the_build_and_the_theme_need():
    from page_templates import load_words

    english, korean = load_words(ROOT / "docs"), load_words(ROOT / "docs-ko")
    for section in ("stamp", "headings", "names", "download"):
        assert set(korean[section]) >= set(english[section]), section
    assert {"dark", "light", "permalink", "footnote_back", "not_found", "banner"} <= set(korean["theme"])
    assert set(korean["subject"]) == set(korean["with"]) == set(korean["topic"]) == set(korean["names"]), \
        "every name has its particles"


def _verdict(names, kind="faster", winner=None, ratio=3.4, low=2.0, expected=True):
    loser = None if winner is None else next(n for n in names if n != winner)
    return dict(names=names, kind=kind, winner=winner, loser=loser, ratio=ratio, low=low, expected=expected)


def test_a_korean_sentence_states_several_verdicts_with_one_subject():
    """compared(a, b): the name they share is said once, as the topic; topic= leaves it out
    where the sentence named it already (issue #46: "또 jax.jit이 …" repeated the subject)."""
    from page_templates import _environment, load_words

    env = _environment(load_words(ROOT / "docs-ko"))

    def said(template, **verdicts):
        return env.from_string(template).render(**verdicts)

    eager, numpy = _verdict(["eager", "jit"], winner="jit"), _verdict(["numpy", "jit"], winner="jit", ratio=21)
    assert said("{{ compared(a, b) }}.", a=eager, b=numpy) == "jax.jit은 JAX 즉시 실행보다 3.4배, NumPy보다 21배 빨랐다."
    numpy_won = _verdict(["numpy", "jit"], winner="numpy", ratio=1.2)
    assert said("{{ compared(a, b) }}.", a=eager, b=numpy_won) == \
        "jax.jit은 JAX 즉시 실행보다 3.4배 빨랐고, NumPy보다는 1.2배 느렸다."
    same = _verdict(["eager", "jit"], kind="same", ratio=1.1, low=0.9)
    assert said("{{ compared(a, b) }}.", a=same, b=numpy) == \
        "jax.jit은 JAX 즉시 실행과 시간이 비슷했고(중앙값 1.1배 차이, 이번 실행의 흩어짐 안), NumPy보다는 21배 빨랐다."
    step = _verdict(["jit_step", "eager_step"], winner="eager_step", ratio=1.5)
    assert said('jit 스텝은 25 ms 걸렸고, {{ compared(a, topic="jit_step") }}.', a=step) == \
        "jit 스텝은 25 ms 걸렸고, jit하지 않은 스텝보다 1.5배 느렸다."
    assert said("{{ compared(a) }}.", a=eager) == "jax.jit이 JAX 즉시 실행보다 3.4배 빨랐다."


def test_language_links_go_to_the_same_page_in_the_other_edition():
    assert korean_edition.other_page("selu/", "en") == "../ko/selu/"
    assert korean_edition.other_page("", "en") == "ko/"
    assert korean_edition.other_page("notebooks/selu/", "en") == "../../ko/notebooks/selu/"
    assert korean_edition.other_page("selu/", "ko") == "../../selu/"
    assert korean_edition.other_page("", "ko") == "../"
    html = ('<link rel="alternate" href="ko/" hreflang="ko">'
            '<a href="ko/" hreflang="ko" class="md-select__link">한국어</a>'
            '<a href="./" hreflang="en" class="md-select__link">English</a>')
    assert korean_edition.language_links(html, "jit/", "en") == (  # no root <link>
        '<a href="../ko/jit/" hreflang="ko" class="md-select__link">한국어</a>'
        '<a href="./" hreflang="en" class="md-select__link">English</a>')


def test_every_page_names_itself_in_both_editions_for_search_engines():
    """hreflang alternates at the published addresses, in place of Material's links to each
    edition's root; written rel=" alternate" so that Material's script passes them by."""
    head = ('<head>\n      <link rel="alternate" href="../" hreflang="en">\n'
            '      <link rel="alternate" href="./" hreflang="ko">\n<title>t</title>')
    both = ('<link rel=" alternate" hreflang="en" href="https://x.example/site/jit/">\n'
            '<link rel=" alternate" hreflang="ko" href="https://x.example/site/ko/jit/">\n')
    for edition, site_url in (("en", "https://x.example/site/"), ("ko", "https://x.example/site/ko/")):
        html = korean_edition.language_links(head, "jit/", edition, site_url)
        assert html == f"<head>\n{both}<title>t</title>", edition
    notebook = korean_edition.language_links(head, "notebooks/selu/", "en", "https://x.example/")
    assert 'hreflang="ko" href="https://x.example/ko/notebooks/selu/"' in notebook, "a Korean notebook page too"


# ---------------------------------------------------------------- the Korean notebooks

NOTEBOOK_NAMES = sorted(p.stem for p in (ROOT / "notebooks").glob("*.py"))


def _executed(cache_root, snippets_config, names):
    """Stand-ins for the English build's executed notebooks `names`: each code cell printed its number."""
    import notebooks
    from snippet_runs import KEY_FILE

    for name in names:
        template = ROOT / "notebooks" / f"{name}.py"
        notebook = json.loads(notebooks.expand(template, snippets_config))
        for number, cell in enumerate(c for c in notebook["cells"] if c["cell_type"] == "code"):
            cell.update(execution_count=number + 1, outputs=[
                {"output_type": "stream", "name": "stdout", "text": f"English cell {number}\n"}])
        (cache_root / name / "notebooks").mkdir(parents=True)
        (cache_root / name / "notebooks" / f"{name}.ipynb").write_text(json.dumps(notebook))
        (cache_root / name / KEY_FILE).write_text(json.dumps(notebooks.cache_key(template, ROOT)))


def test_a_korean_notebook_shows_the_english_outputs_and_is_never_executed(snippets_config, tmp_path):
    cache_root = tmp_path / "cache"
    _executed(cache_root, snippets_config, ["selu"])
    with pytest.raises(korean_edition.EditionError, match="run `mkdocs build` \\(the English edition\\) first") as error:
        korean_edition.korean_notebooks(ROOT, cache_root, snippets_config)  # the others: not executed
    assert "notebook deeponet" in str(error.value) and "notebook selu" not in str(error.value)

    _executed(cache_root, snippets_config, [n for n in NOTEBOOK_NAMES if n != "selu"])
    found = korean_edition.korean_notebooks(ROOT, cache_root, snippets_config)
    assert sorted(found) == NOTEBOOK_NAMES
    for name, path in found.items():
        assert path == cache_root / "ko" / "notebooks" / f"{name}.ipynb"  # beside the English ones, apart
        cells = json.loads(path.read_text())["cells"]
        code = [c for c in cells if c["cell_type"] == "code"]
        assert ["".join(c["outputs"][0]["text"]) for c in code] == [f"English cell {i}\n" for i in range(len(code))]
        assert all(re.search(r"[가-힣]", "".join(c["source"])) for c in cells if c["cell_type"] == "markdown")


def test_a_korean_notebook_whose_code_differs_from_the_english_one_fails_the_build(snippets_config, tmp_path, monkeypatch):
    import notebooks

    cache_root, expand = tmp_path / "cache", notebooks.expand
    _executed(cache_root, snippets_config, NOTEBOOK_NAMES)
    monkeypatch.setattr(notebooks, "expand", lambda template, config: expand(template, config).replace(
        "n = 100_000", "n = 1_000") if template == ROOT / "notebooks" / "ko" / "selu.py" else expand(template, config))
    with pytest.raises(korean_edition.EditionError, match=r"notebooks/ko/selu.py: code cells \[3\]: not the English"):
        korean_edition.korean_notebooks(ROOT, cache_root, snippets_config)


def test_only_comments_and_docstrings_may_differ_between_the_editions_code():
    english = 'def f(x):\n    """Double x."""\n    return 2 * x  # twice\n'
    korean = 'def f(x):\n    """x의 두 배."""\n\n    return 2 * x  # 두 배\n'
    assert korean_edition.code(english) == korean_edition.code(korean)
    assert korean_edition.code(english) != korean_edition.code(english.replace("2 * x", "3 * x"))
    assert korean_edition.code('print("x")') != korean_edition.code('print("엑스")')  # a string is code


def test_the_korean_pages_link_the_korean_notebooks_which_show_the_english_outputs(built_site):
    for page, link in (("selu", "../notebooks/selu/"), ("", "notebooks/selu/"),
                       ("sharp-bits", "../notebooks/sharp_bits/")):
        html = (built_site / "ko" / page / "index.html").read_text(encoding="utf-8")
        assert f'href="{link}"' in html and "(영어)" not in html, page
    for name in NOTEBOOK_NAMES:
        english, korean = (json.loads((built_site / folder / "notebooks" / name / f"{name}.ipynb").read_text())
                           for folder in (".", "ko"))
        code = [[c for c in nb["cells"] if c["cell_type"] == "code"] for nb in (english, korean)]
        assert [c["outputs"] for c in code[1]] == [c["outputs"] for c in code[0]], name
        page = (built_site / "ko" / "notebooks" / name / "index.html").read_text(encoding="utf-8")
        assert re.search(r"<h1[^>]*>[^<]*[가-힣]", page) and 'href="' + name + '.ipynb"' in page, name
        assert 'hreflang="en"' in page and 'href="../../../notebooks/' + name + '/"' in page


def test_the_korean_figures_are_in_the_built_site_with_korean_labels(built_site):
    figures = sorted((built_site / "ko" / "measured").rglob("*.svg"))
    english = sorted((built_site / "measured").rglob("*.svg"))
    assert [f.relative_to(built_site / "ko") for f in figures] == \
        [f.relative_to(built_site) for f in english]
    for svg in figures:
        text = svg.read_text(encoding="utf-8")
        assert "에서 측정" in text and "Measured on" not in text, svg
        assert "NanumGothic" in text, svg  # laid out with a Hangul font
    assert not list(built_site.rglob("*.pickle")), "no pickled figures: each edition draws its own"


def test_a_missing_glyph_fails_instead_of_drawing_boxes(tmp_path):
    import figures

    snippet = tmp_path / "boxes.py"
    snippet.write_text("import matplotlib.pyplot as plt\n\n"
                       "def draw(data, words):\n    fig = plt.figure()\n"
                       "    fig.text(0.5, 0.5, words['label'])\n    return fig\n\n"
                       "FIGURES = {'f': draw}\n")
    (tmp_path / "results.json").write_text('{"data": {}}')
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps([{"snippet": str(snippet), "figure": "f", "out": str(tmp_path / "f.svg"),
                                 "words": {"label": "\U0010FFFD 악보", "stamp": "스탬프"},  # private use: in no font
                                 "results": str(tmp_path / "results.json"), "korean": True}]))
    done = subprocess.run([sys.executable, figures.__file__, str(jobs)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "snippets")})
    assert done.returncode != 0 and "missing" in done.stderr, done.stderr[-2000:]


def test_the_korean_edition_never_measures_and_says_to_build_the_english_one(project_copy):
    shutil.rmtree(project_copy / ".cache" / "measured")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.ko.yml"],
        cwd=project_copy, capture_output=True, text=True, timeout=300,
        env={**os.environ, "JIT_DOCS_QUICK": "1", "JIT_DOCS_REMEASURE": "1",
             "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode != 0
    assert "run `mkdocs build` (the English edition) first" in done.stderr, done.stderr[-2000:]
    assert "selu_benchmark (quick mode)" in done.stderr
    assert not (project_copy / ".cache" / "measured").exists(), "it measured something"


def test_glossary_terms_are_marked_with_a_korean_particle_attached():
    import markdown

    import glossary

    md = markdown.Markdown(extensions=["abbr", glossary.ParticleAbbr()], extension_configs={
        "abbr": {"glossary": {"XLA": "the compiler", "컴파일러": "a translator"}}})
    html = md.convert("XLA가 만든 코드를 컴파일러는 XLAB로 보지 않습니다.")
    assert '<abbr title="the compiler">XLA</abbr>가' in html
    assert '<abbr title="a translator">컴파일러</abbr>는' in html
    assert "XLAB" in html and html.count("<abbr") == 2


FAKE_KOREAN_BUILD = """
import pathlib, sys, time
out, go = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
while not go.exists():
    time.sleep(0.02)
for page in ("", "selu/"):
    (out / page).mkdir(parents=True, exist_ok=True)
    (out / page / "index.html").write_text("built " + go.read_text())
"""


def _served(tmp_path, script: str, *args: str):
    """A ServedEdition on a real serve queue, whose Korean build runs `script`."""
    from background_runs import BackgroundRuns

    root = tmp_path / "project"
    (root / "docs-ko").mkdir(parents=True)
    for page in ("index.md", "selu.md"):
        (root / "docs-ko" / page).write_text("# 쪽\n")
    queue = BackgroundRuns(tmp_path / "serving", log=lambda _: None, rebuild_wait_s=0)
    served = korean_edition.ServedEdition(
        root, root / "mkdocs.ko.yml", queue, tmp_path / "korean", timeout=60,
        command=lambda config, out: [sys.executable, "-c", script, str(out), *args])
    return served, queue


def wait_for(condition):
    for _ in range(500):
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError("timed out")


def test_serve_puts_the_korean_edition_at_ko_once_everything_is_measured(tmp_path):
    go = tmp_path / "go"
    served, queue = _served(tmp_path, FAKE_KOREAN_BUILD, str(go))
    try:
        site = tmp_path / "site"  # measuring: a placeholder at every Korean address, nothing built
        served.refresh(site, None)
        assert "수치를 모두 잰 뒤에" in (site / "ko" / "selu" / "index.html").read_text()
        assert queue.idle()

        served.refresh(site, {"selu_benchmark": "folder-1"})  # measured: built on serve's queue
        assert "지금 빌드하고" in (site / "ko" / "index.html").read_text() and not queue.idle()
        assert queue.idle(but=served.LABEL)  # the English edition counts as measured meanwhile
        go.write_text("1")
        wait_for(queue.idle)  # its end asks serve for a rebuild, which puts it in place
        served.refresh(site := tmp_path / "site-2", {"selu_benchmark": "folder-1"})
        assert (site / "ko" / "selu" / "index.html").read_text() == "built 1"

        go.unlink()  # new results: a new build, never the old pages meanwhile
        served.refresh(site := tmp_path / "site-3", {"selu_benchmark": "folder-2"})
        assert "지금 빌드하고" in (site / "ko" / "index.html").read_text()
        wait_for(lambda: "running now" in (queue.status(served.LABEL) or ""))
        served.refresh(site, None)  # measuring again: the Korean build stops
        wait_for(queue.idle)
        assert queue.status(served.LABEL) is None
    finally:
        queue.stop()


def test_a_korean_build_that_fails_under_serve_says_so_at_ko_until_its_inputs_change(tmp_path):
    fails = "import sys; print('lacks a Korean string: <x>', file=sys.stderr); sys.exit(1)"
    served, queue = _served(tmp_path, fails)
    try:
        served.refresh(tmp_path / "site", {"x": "folder"})
        wait_for(queue.idle)
        served.refresh(site := tmp_path / "site-2", {"x": "folder"})  # the rebuild its end asks for
        page = (site / "ko" / "index.html").read_text()
        assert "빌드에 실패했습니다" in page and "exit code 1" in page
        assert queue.idle()  # not started again for the same inputs
        served.refresh(tmp_path / "site-3", {"x": "new folder"})  # a change: built again
        assert not queue.idle()
    finally:
        queue.stop()


def test_the_theme_speaks_korean_as_an_editor_writes_it(built_site):
    """overrides/partials/language.html corrects Material's Korean strings, copyright.html
    words its footer, and mkdocs.ko.yml describes the site in Korean; English stays as is."""
    korean, english = ((built_site / p / "index.html").read_text(encoding="utf-8") for p in ("ko", "."))
    for text in ("내비게이션", "언어 선택", "맨 위로", "이 사이트를 만든 도구"):
        assert text in korean, text
    for text in ("네비게이션", "언어설정", "맨위로", "Made with"):
        assert text not in korean, text
    assert re.search(r'<meta name="description" content="[^"]*[가-힣]', korean)
    assert "Made with" in english and 'aria-label="Navigation"' in english


def _korean_prose(path) -> str:
    """A Korean page's words: no code blocks or inline code (code keeps its own names); a
    Korean notebook template's: its comments, Markdown cells included."""
    if path.suffix == ".py":
        text = "\n".join(re.findall(r"#(.*)$", path.read_text(encoding="utf-8"), re.M))
    else:
        text = re.sub(r"^[ \t]*```.*?^[ \t]*```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "`code`", text)


def test_one_korean_term_per_concept_everywhere():
    """docs-ko/words.yml `terms`: each concept's one Korean term; no page or notebook uses a rejected one,
    and a term the glossary defines is on its glossary line, so its tooltip appears."""
    from page_templates import load_words

    import glossary

    terms = load_words(ROOT / "docs-ko")["terms"]
    defined = glossary.abbreviations((ROOT / "docs-ko" / "glossary.md").read_text(encoding="utf-8"))
    assert [t for t, spec in terms.items() if spec.get("glossary") and t not in defined] == []
    found = [f"{page.name}: {match.group(0)!r} (write {term}, for {spec['for']})"
             for page in [*sorted((ROOT / "docs-ko").glob("*.md")), *sorted((ROOT / "notebooks" / "ko").glob("*.py"))]
             for text in [_korean_prose(page)]
             for term, spec in terms.items() for rejected in spec["not"]
             for match in re.finditer(rejected, text)]
    assert not found, "\n".join(found)


def test_korean_pages_show_tooltips_on_the_korean_terms():
    """The glossary's Korean forms mark Korean pages' words (재컴파일, 중앙값), particles attached."""
    import markdown

    import glossary

    forms = glossary.abbreviations((ROOT / "docs-ko" / "glossary.md").read_text(encoding="utf-8"))
    md = markdown.Markdown(extensions=["abbr", glossary.ParticleAbbr()],
                           extension_configs={"abbr": {"glossary": forms}})
    html = md.convert("재컴파일이 없으면 중앙값은 안정 상태의 시간이다.")
    for term in ("재컴파일", "중앙값", "안정 상태"):
        assert f'<abbr title="{forms[term]}">{term}</abbr>' in html, term
