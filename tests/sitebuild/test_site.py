"""The whole site, built with --strict in quick mode, and the ways a build must fail."""

import json
import re
from importlib.metadata import version

from project import ROOT, build_site


def page(site, name):
    return (site / name / "index.html").read_text(encoding="utf-8")


def test_selu_page_carries_its_figures_tables_and_stamp(built_site):
    for site, stamp, made in ((built_site, "Numbers on this page: measured on ", "made by <code>snippets/selu_benchmark.py</code>"),
                              (built_site / "ko", "이 페이지의 숫자: ", "만든 코드 <code>snippets/selu_benchmark.py</code>")):
        html = page(site, "selu")
        images = re.findall(r'<img alt="([^"]+)" src="([^"]+)"', html)
        assert {src.rsplit("/", 1)[1] for _, src in images} >= {"scaling.svg", "first_call.svg"}
        for alt, src in images:
            assert len(alt) > 40, "alt text says what the figure shows"
            assert (site / "selu" / src).resolve().is_file(), src
        assert html.count("<table>") >= 4  # headline, published, first call, scaling
        assert html.count(stamp) == 1 and f"jax {version('jax')}" in html, "one stamp per page"
        # every figure and table leads to the snippet that made it, and to its raw numbers
        assert html.count(made) >= 7, "a figure or table without its source"
        assert 'href="../measured/selu_benchmark/results.json"' in html
    results = json.loads((built_site / "measured" / "selu_benchmark" / "results.json").read_text())
    assert results["quick"] is True
    assert f"jnp.arange({results['data']['n']})" in page(built_site, "selu")  # prose numbers come from the results


def test_home_page_shows_this_builds_headline_with_one_stamp(built_site):
    results = json.loads((built_site / "measured" / "selu_benchmark" / "results.json").read_text())
    html = page(built_site, "")
    assert f"jnp.arange({results['data']['n']})" in html
    assert html.count("Numbers on this page: measured on ") == 1


def test_how_page_stamps_each_snippet_in_its_row_not_as_the_pages_numbers(built_site):
    for site, page_stamp, row in ((built_site, "Numbers on this page", "numbers: <a href="),
                                  (built_site / "ko", "이 페이지의 숫자", "측정값: <a href=")):
        html = page(site, "how-this-site-is-built")
        assert page_stamp not in html  # the table's rows are the snippets', not this page's
        assert html.count(row) >= 9 and "selu_benchmark/results.json" in html


def test_notebook_edition_is_executed_and_downloadable(built_site):
    html = page(built_site, "notebooks/selu")
    assert "jit equals eager:  True" in html  # an output: the notebook ran during this build
    notebook = json.loads((built_site / "notebooks" / "selu" / "selu.ipynb").read_text())
    code = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    assert "def selu(x, alpha=1.67, lambda_=1.05):" in code  # the snippet's code, expanded
    assert 'href="selu.ipynb"' in html or "selu.ipynb" in html
    # JupyterLab's stylesheet lives in one shared file, not inlined into every notebook page
    css = re.search(r'<link rel="stylesheet" href="(\.\./\.\./assets/stylesheets/jupyter-\w+\.css)">', html)
    assert css and (built_site / "notebooks" / "selu" / css.group(1)).resolve().stat().st_size > 100_000
    assert len(html) < 300_000


def test_no_page_shows_a_traceback(built_site):
    for html in built_site.rglob("*.html"):
        assert "Traceback (most recent call last)" not in html.read_text(encoding="utf-8"), html


def failed(result):
    assert result.returncode != 0, "the build should have failed"
    return result.stdout + result.stderr


def test_a_broken_snippet_fails_the_build_and_names_it(project_copy, tmp_path):
    selu = project_copy / "snippets" / "selu.py"
    selu.write_text(selu.read_text() + "\nraise RuntimeError('deliberately broken for a test')\n")
    output = failed(build_site(project_copy, tmp_path / "site"))
    # the first build snippet that imports selu.py is named (the build stops there)
    assert re.search(r"build snippet \S+/snippets/\w+_benchmark\.py failed with exit code 1", output)
    assert "RuntimeError: deliberately broken for a test" in output  # its stderr's last lines
    cached = project_copy / ".cache" / "measured" / "quick"
    assert not [p for p in cached.iterdir() if p.name.startswith(".tmp-")]


def test_a_missing_snippet_section_fails_the_build(project_copy, tmp_path):
    doc = project_copy / "docs" / "selu.md"
    doc.write_text(doc.read_text() + '\n```python\n--8<-- "selu.py:no_such_section"\n```\n')
    output = failed(build_site(project_copy, tmp_path / "site"))
    assert "no_such_section" in output


def test_an_unknown_page_variable_fails_the_build_and_names_the_page(project_copy, tmp_path):
    doc = project_copy / "docs" / "selu.md"
    doc.write_text(doc.read_text() + "\n{{ selu_benchmark.data.no_such_number }}\n")
    output = failed(build_site(project_copy, tmp_path / "site"))
    assert "selu.md" in output and "no_such_number" in output


def test_a_broken_korean_page_fails_the_english_build_with_its_messages(project_copy, tmp_path):
    # the Korean edition is built beside the English pages: its failure is the build's
    doc = project_copy / "docs-ko" / "selu.md"
    doc.write_text(doc.read_text() + "\n{{ selu_benchmark.data.no_such_number }}\n")
    output = failed(build_site(project_copy, tmp_path / "site"))
    assert "the Korean edition (mkdocs.ko.yml) failed" in output
    assert "selu.md" in output and "no_such_number" in output  # its own messages, printed


def test_a_failing_notebook_cell_fails_the_build(project_copy, tmp_path):
    template = project_copy / "notebooks" / "selu.py"
    # the first cell fails: the kernel's start is all this test waits for
    template.write_text("# %%\nraise ValueError('notebook cell broken')\n\n" + template.read_text())
    output = failed(build_site(project_copy, tmp_path / "site"))
    assert "notebook cell broken" in output and "notebooks/selu.py" in output


def test_a_bad_option_is_explained(tmp_path):
    output = failed(build_site(ROOT, tmp_path / "site", JIT_DOCS_QUICK="yes"))
    assert "JIT_DOCS_QUICK must be 0 or 1, not 'yes'" in output


def test_notebooks_keep_their_cell_ids_and_print_one_output_per_cell(built_site):
    # Random cell ids would change the source at every build, so every build and every serve
    # reload would re-run notebooks; printed lines cut by the kernel's flush timer would give
    # a cell one output in one build and several in the next.
    notebooks = [p for p in (ROOT / ".cache" / "notebooks").glob("*/notebooks/*.ipynb")
                 if p.parts[-3] != "pending"]  # what a `mkdocs serve` showed while executing them
    assert notebooks
    for notebook in notebooks:
        cells = json.loads(notebook.read_text())["cells"]
        assert [c["id"] for c in cells] == [f"cell-{i}" for i in range(len(cells))], notebook
        for cell in (c for c in cells if c["cell_type"] == "code"):
            streams = [o["name"] for o in cell["outputs"] if o["output_type"] == "stream"]
            assert len(streams) == len(set(streams)), (notebook, cell["id"], cell["outputs"])
    assert any(c.get("outputs") for c in cells)  # it was executed


LOOPS = '''"""Summing a list: a Python loop against the built-in sum."""

# --8<-- [start:loops]
def python_sum(values):
    total = 0
    for v in values:
        total += v
    return total
# --8<-- [end:loops]
'''
LOOPS_BENCHMARK = '''from loops import python_sum
from measurement import Report, Table, compare, main, time_calls, timing, word

VALUES = list(range(1000))


def measure(quick):
    timed = time_calls({"loop": lambda: python_sum(VALUES), "builtin": lambda: sum(VALUES)},
                       repeats=3, min_sample_s=0.001)
    return {"loop": timed["loop"].as_dict(), "builtin": timed["builtin"].as_dict()}


def report(data):
    return Report(tables={"t": Table(["what", "time"], [[word("loop"), timing(data["loop"])]])},
                  verdicts={"v": compare(data["loop"], data["builtin"], ("loop", "builtin"),
                                         ("loop", "builtin"))})


def draw(data, words):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.bar([words["loop"]], [data["loop"]["median"]])
    return fig


FIGURES = {"f": draw}

if __name__ == "__main__":
    main(measure, report, FIGURES)
'''
PAGE = '''---
words:
  loops_benchmark:
    t: {{what: "{what}", time: "{time}", loop: "{loop}"}}
    f: {{loop: "{loop}"}}
---
# {title}

{{{{ loops_benchmark.verdicts.v.ratio | times }}}}: {{{{ loops_benchmark.data.loop | seconds }}}}.

## {section} {{ #the-numbers }}

```python
--8<-- "loops.py:loops"
```

{{{{ table("loops_benchmark", "t") }}}}

{{{{ figure("loops_benchmark", "f", alt="{alt}", caption="{caption}") }}}}
'''


def test_a_new_chapter_in_both_editions_is_the_five_files_the_recipe_names(project_copy, tmp_path):
    """How this site is built, "Add a chapter": two snippets, two pages, mkdocs.yml."""
    (project_copy / "snippets" / "loops.py").write_text(LOOPS)
    (project_copy / "snippets" / "loops_benchmark.py").write_text(LOOPS_BENCHMARK)
    (project_copy / "docs" / "loops.md").write_text(PAGE.format(
        what="what", time="time", loop="a Python loop", title="Loops", section="The numbers",
        alt="One bar: the time of a Python loop over 1,000 integers", caption="A loop."))
    korean = PAGE.format(what="무엇", time="시간", loop="Python 루프", title="루프", section="숫자",
                         alt="막대 하나: 정수 1,000개를 도는 Python 루프의 시간", caption="루프.")
    digest = __import__("translations").source_digest(project_copy / "docs" / "loops.md")
    (project_copy / "docs-ko" / "loops.md").write_text(korean.replace("---\nwords:", f"---\ntranslated_from: {digest}\nwords:", 1))
    config = project_copy / "mkdocs.yml"
    text = config.read_text()
    text = text.replace("    - designing_for_jit_benchmark\n", "    - designing_for_jit_benchmark\n    - loops_benchmark\n")
    config.write_text(text.replace("  - glossary.md\n", "  - loops.md\n  - glossary.md\n"))
    result = build_site(project_copy, tmp_path / "site")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    english, korean_html = page(tmp_path / "site", "loops"), page(tmp_path / "site" / "ko", "loops")
    assert "a Python loop" in english and "Python 루프" in korean_html and "<table>" in korean_html
    assert (tmp_path / "site" / "ko" / "measured" / "loops_benchmark" / "f.svg").is_file()
    assert ">루프</a>" in page(tmp_path / "site" / "ko", "") or "루프" in page(tmp_path / "site" / "ko", "")
