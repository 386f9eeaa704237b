"""The Korean edition's strings from the build (sitebuild/korean.py): catalogs with masked
numbers, tables, stamps, figures; the edition's language links (korean_edition.py); and the
numbers stay the English ones."""

import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

import korean
import korean_edition
from project import ROOT, build_snippets

STRINGS = ROOT / "docs-ko" / korean.STRINGS
QUICK = ROOT / ".cache" / "measured" / "quick"


def catalog(tmp_path, text: str, common: str = "") -> korean.Catalog:
    (tmp_path / "x.yml").write_text(text, encoding="utf-8")
    (tmp_path / "common.yml").write_text(common, encoding="utf-8")
    return korean.Catalog(tmp_path / "x.yml")


def test_one_masked_entry_serves_every_measured_value_and_may_reorder(tmp_path):
    c = catalog(tmp_path, '"{} on {} cores": "코어 {1}개에서 {0}"\n'
                          '"after {} calls": "호출 {}번 뒤"\n')
    assert c("1.5 ms on 2 cores") == "코어 2개에서 1.5 ms"  # a number with its unit
    assert c("12,345.6 µs on 16 cores") == "코어 16개에서 12,345.6 µs"
    assert c("3× on 2 cores") == "코어 2개에서 3×"
    assert c("after 3 calls") == "호출 3번 뒤"
    assert c.missing == []


def test_exact_entries_win_null_keeps_english_and_common_entries_are_shared(tmp_path):
    c = catalog(tmp_path, '"after 1 calls": "한 번 호출한 뒤"\n"after {} calls": "호출 {}번 뒤"\n'
                          '"Array has been deleted": null\n', '"first call": "첫 호출"\n')
    assert c("after 1 calls") == "한 번 호출한 뒤" and c("after 2 calls") == "호출 2번 뒤"
    assert c("Array has been deleted") == "Array has been deleted"
    assert c("first call") == "첫 호출"


def test_names_code_ranges_and_logs_need_no_entry(tmp_path):
    c = catalog(tmp_path, "")
    for text in ("JAX", "jax.jit (2)", "`jnp.sum`", "1.2 ms (1.1 ms to 1.3 ms)", "NumPy, XLA",
                 ">>> f(1)\nTypeError: no", "TypeError: Argument types differ from ..."):
        c(text)
    assert c("7.4× (5.5× to 8.7×)") == "7.4× (5.5×~8.7×)"
    assert c.missing == []


def test_a_string_without_an_entry_is_recorded_masked(tmp_path):
    c = catalog(tmp_path, '"first call": ""\n')  # an empty value is still missing
    assert c("first call") == "first call" and c("took 3 s in all") == "took 3 s in all"
    assert c.missing == ["first call", "took {} in all"]


def test_a_table_translates_its_cells_and_keeps_numbers_code_and_layout(tmp_path):
    c = catalog(tmp_path, '"input": "입력"\n"eager first call": "즉시 실행 첫 호출"\n'
                          '"a total": "합계"\n')
    table = ("| input | `jnp.sum` | time |\n|---|---|---|\n"
             "| eager first call | `a \\| b` | 1.2 ms (1.1 ms to 1.3 ms) |\n| **a total** |  | **8** |\n")
    assert korean.translate_table(table, c) == (
        "| 입력 | `jnp.sum` | time |\n|---|---|---|\n"
        "| 즉시 실행 첫 호출 | `a \\| b` | 1.2 ms (1.1 ms~1.3 ms) |\n| **합계** |  | **8** |\n")
    assert c.missing == ["time"]


def test_the_korean_stamp_states_the_english_stamps_facts():
    env = {"cpu": "AMD EPYC", "cores": 2, "jax": "0.10.2", "jaxlib": "0.10.2",
           "backend": "cpu", "date": "2026-12-01", "python": "3.11.7"}
    for quick in (True, False):
        stamp = korean.stamp(env, quick)
        for fact in ("AMD EPYC", "코어 2개", "jax 0.10.2", "jaxlib 0.10.2", "backend cpu",
                     "2026-12-01", "빠른 모드" if quick else "전체 크기"):
            assert fact in stamp


def test_language_links_go_to_the_same_page_in_the_other_edition():
    assert korean_edition.other_page("selu/", "en", {"", "selu/"}) == "../ko/selu/"
    assert korean_edition.other_page("", "en", {"", "selu/"}) == "ko/"
    assert korean_edition.other_page("notebooks/selu/", "en", {"", "selu/"}) == "../../ko/"
    assert korean_edition.other_page("selu/", "ko", None) == "../../selu/"
    assert korean_edition.other_page("", "ko", None) == "../"
    html = ('<link rel="alternate" href="ko/" hreflang="ko">'
            '<a href="ko/" hreflang="ko" class="md-select__link">한국어</a>'
            '<a href="./" hreflang="en" class="md-select__link">English</a>')
    assert korean_edition.language_links(html, "jit/", "en", ROOT) == (  # no root <link>
        '<a href="../ko/jit/" hreflang="ko" class="md-select__link">한국어</a>'
        '<a href="./" hreflang="en" class="md-select__link">English</a>')


def test_notebook_links_of_a_korean_page_go_to_the_english_notebook_page():
    text = "코드는 [노트북](notebooks/selu.ipynb)으로도 있습니다."
    assert korean_edition.notebook_links(text, "selu/") == (
        '코드는 <a href="../../notebooks/selu/">노트북</a> (영어)으로도 있습니다.')


def _cached(name):
    folder = QUICK / name
    if not (folder / "results.json").is_file():
        pytest.skip(f"no quick results for {name}: the built_site fixture measures them")
    return folder, json.loads((folder / "results.json").read_text(encoding="utf-8"))


def _leaves(text: dict, path: str = ""):
    """(dotted key, string) for every string of results.json's nested `text`."""
    for key, value in text.items():
        if isinstance(value, dict):
            yield from _leaves(value, f"{path}{key}.")
        else:
            yield f"{path}{key}", value


def _numbers(text: str) -> list[str]:
    return sorted(re.findall(r"\d+(?:[.,]\d+)*", text))


@pytest.mark.parametrize("name", build_snippets())
def test_every_string_of_the_quick_build_has_korean_with_the_same_numbers(built_site, name):
    folder, results = _cached(name)
    c = korean.Catalog(STRINGS / f"{name}.yml")
    ko = korean.translate_results(results, c)
    assert not c.missing, korean.missing_message({name: c.missing}, STRINGS)
    assert ko["data"] == results["data"]
    for key, text in _leaves(results["text"]):
        assert _numbers(dict(_leaves(ko["text"]))[key]) == _numbers(text), (key, text)
    for key, table in results["tables"].items():
        rows = zip(table.split("\n"), ko["tables"][key].split("\n"))
        for en_row, ko_row in rows:
            assert _numbers(ko_row) == _numbers(en_row), (en_row, ko_row)
    for key, figure in results["figures"].items():
        assert _numbers(ko["figures"][key]["alt"]) == _numbers(figure["alt"])


def test_the_korean_figures_are_in_the_built_site_with_korean_labels(built_site):
    figures = sorted((built_site / "ko" / "measured").rglob("*.svg"))
    english = sorted((built_site / "measured").rglob("*.svg"))
    assert [f.relative_to(built_site / "ko") for f in figures] == \
        [f.relative_to(built_site) for f in english]
    for svg in figures:
        text = svg.read_text(encoding="utf-8")
        assert "에서 측정" in text and "Measured on" not in text, svg
        assert "NanumGothic" in text, svg  # laid out with a Hangul font
    assert not list(built_site.rglob("*.pickle")), "pickled figures are kept off the site"


def test_a_missing_glyph_fails_instead_of_drawing_boxes(tmp_path):
    import pickle

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    fig.text(0.5, 0.5, "label")
    path = tmp_path / "f.figure.pickle"
    path.write_bytes(pickle.dumps(fig))
    c = catalog(tmp_path, '"label": "\\U0010FFFD 악보"\n')  # private use: in no font
    korean._figure_style()
    with pytest.raises(korean.Missing, match="missing"):
        korean.translate_figure(path, c, "스탬프", tmp_path / "f.svg")


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


def test_a_string_without_korean_fails_naming_the_snippet_and_the_string(built_site, tmp_path):
    folder, results = _cached("selu_benchmark")
    strings = tmp_path / "strings"
    strings.mkdir()  # no catalog at all
    ko, out, missing = korean.korean_run("selu_benchmark", folder, results, strings,
                                         tmp_path / "out")
    assert ("Median time per call on standard normal float{} values (seed {}); the "
            "shaded band is the interquartile range. The table's row at n = {} is a second "
            "measurement, after the one above: the build fails if the two differ by more "
            "than {}.") in missing
    message = korean.missing_message({"selu_benchmark": missing}, strings)
    assert "strings/selu_benchmark.yml lacks" in message and "--append-missing" in message
    assert not (out / "key.json").exists(), "a run with missing strings is not cached"


def test_every_catalog_entry_puts_back_exactly_the_numbers_of_its_key():
    problems = []
    for path in sorted(STRINGS.glob("*.yml")):
        for key, value in korean._load(path).items():
            if not value:
                continue
            count = len(re.findall(r"(?<!\{)\{\}(?!\})", key))
            numbers = [str(i) for i in range(count)]
            try:
                filled = korean.unmask(value, numbers)
            except (ValueError, IndexError, StopIteration) as error:
                problems.append(f"{path.name}: {key!r}: {error}")
                continue
            if sorted(re.findall(r"\d+", filled)) != sorted(numbers) and \
                    sorted(re.findall(r"\d+", korean.unmask(key, numbers))) != \
                    sorted(re.findall(r"\d+", filled)):
                problems.append(f"{path.name}: {key!r} -> {value!r} drops or repeats a number")
    assert not problems, "\n".join(problems)


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


def test_serve_puts_the_korean_edition_at_ko_once_everything_is_measured(tmp_path):
    root, go, trigger = tmp_path / "project", tmp_path / "go", tmp_path / "progress" / "korean-built"
    (root / "docs-ko").mkdir(parents=True)
    for page in ("index.md", "selu.md"):
        (root / "docs-ko" / page).write_text("# 쪽\n")
    trigger.parent.mkdir()
    served = korean_edition.ServedEdition(
        root, root / "mkdocs.ko.yml", tmp_path / "work", trigger, log=lambda _: None,
        command=lambda config, out: [sys.executable, "-c", FAKE_KOREAN_BUILD, str(out), str(go)])

    def wait_for(condition):
        for _ in range(500):
            if condition():
                return
            time.sleep(0.02)
        raise AssertionError("timed out")

    site = tmp_path / "site"  # measuring: a placeholder at every Korean address, nothing built
    served.refresh(site, None)
    assert "수치를 모두 잰 뒤에" in (site / "ko" / "selu" / "index.html").read_text()
    assert served.running is None

    served.refresh(site, {"selu_benchmark": "folder-1"})  # measured: built in the background
    assert "지금 빌드하고" in (site / "ko" / "index.html").read_text() and served.running
    go.write_text("1")
    wait_for(trigger.is_file)  # serve watches it: the rebuild that follows puts it in place
    served.refresh(site := tmp_path / "site-2", {"selu_benchmark": "folder-1"})
    assert (site / "ko" / "selu" / "index.html").read_text() == "built 1"

    go.unlink()  # new results: a new build, never the old pages meanwhile
    served.refresh(site := tmp_path / "site-3", {"selu_benchmark": "folder-2"})
    assert "지금 빌드하고" in (site / "ko" / "index.html").read_text()
    proc = served.running[1]
    served.refresh(site, None)  # measuring again: the Korean build stops
    assert served.running is None and proc.wait(timeout=5) is not None


def test_a_korean_build_that_fails_under_serve_says_so_at_ko_until_its_inputs_change(tmp_path):
    root, trigger = tmp_path / "project", tmp_path / "korean-built"
    (root / "docs-ko").mkdir(parents=True)
    (root / "docs-ko" / "index.md").write_text("# 쪽\n")
    fails = "import sys; print('building'); print('lacks a Korean string: <x>'); sys.exit(1)"
    served = korean_edition.ServedEdition(root, root / "mkdocs.ko.yml", tmp_path / "work", trigger,
                                          log=lambda _: None, command=lambda config, out: [sys.executable, "-c", fails])
    served.refresh(tmp_path / "site", {"x": "folder"})
    for _ in range(500):
        if trigger.is_file():
            break
        time.sleep(0.02)
    served.refresh(site := tmp_path / "site-2", {"x": "folder"})  # the rebuild the trigger causes
    page = (site / "ko" / "index.html").read_text()
    assert "failed to build" in page and "lacks a Korean string: &lt;x&gt;" in page
    assert served.running is None  # not started again for the same inputs
    served.refresh(tmp_path / "site-3", {"x": "new folder"})  # a change: built again
    assert served.running is not None
    served.stop()
