"""sitebuild/page_templates.py: numbers into pages, one stamp per run, and pending results."""

import re

import pytest

from mkdocs.utils.meta import get_data

import page_templates
from page_templates import PENDING, PageError, load_words, render
from project import ROOT, build_snippets, uncited_footnotes

ENV = {"cpu": "CPU A", "cores": 2, "backend": "cpu", "device": "cpu", "date": "2026-12-04",
       "libraries": {"jax": "0.10.2", "jaxlib": "0.10.2"}}
TABLE = {"columns": ["n", "jit", "what"], "rows": [[1000, {"timing": [2e-6, 1e-6, 3e-6]}, {"word": "thing", "fields": {"k": 3}}],
                                                 [1000000, {"ratio": 4.25, "range": [4.0, 4.5]}, "jax.jit"]],
         "fields": {"threads": 8}}
RESULTS = {
    "a": {"environment": ENV, "data": {"s": 2e-6, "n": 1000},
          "verdicts": {"v": {"kind": "faster", "winner": "jit", "loser": "numpy", "names": ["numpy", "jit"],
                             "ratio": 4.6, "low": 4.0, "high": 5.0}},
          "tables": {"t": TABLE}, "figures": ["f"]},
    "b": {"environment": {**ENV, "date": "2026-12-05", "libraries": {"torch": "2.13.0"}},
          "data": {"y": 3.0}, "verdicts": {}, "tables": {"u": TABLE}, "figures": []},
}
WORDS = {"range": "{low} to {high}", "times": "{}×",
         "stamp": {"page": "Numbers: {cpu}, {cores} · {libraries} · {backend} · {date} · {mode} · {sources}",
                   "page_also": "; and on {cpu}, {cores} · {libraries} · {date} · {sources}",
                   "made": 'made by <code>snippets/{name}.py</code> (<a href="{numbers}">numbers</a>)',
                   "cores": ["{n} core", "{n} cores"], "spread": 'one run (<a href="{how_far}">how far</a>)', "full": "full size", "quick": "quick", "slower": "; {ratio}× slower", "faster": "; {ratio}× faster"},
         "headings": {"n": "n", "jit": "jax.jit ({threads} threads)"},
         "names": {"jit": "jax.jit", "numpy": "NumPy"},
         "macros": "{%- macro compared(v) -%}{{ words.names[v.winner] }} was {{ v.ratio | times }} faster{%- endmacro -%}"}
PAGE_WORDS = {"a": {"t": {"what": "what", "thing": "{k} things"}}, "b": {"u": {"what": "other", "thing": "x"}}}
PAGE = """# Title

The answer: {{ a.data.s | seconds }}, and {{ compared(a.verdicts.v) }}; {{ results("a").data.s | microseconds }}.

## First section

{{ table("a", "t") }}
{{ figure("a", "f", alt="a line that rises", caption="Rising.") }}
{{ table("b", "u") }}
"""


def rendered(results=RESULTS, text=PAGE, **kwargs):
    return render(text, page="chapter.md", page_url="chapter/", results=results, words=WORDS,
                  page_words=PAGE_WORDS, **kwargs)


def test_numbers_come_from_the_results_and_words_from_the_edition():
    text = rendered()
    assert "The answer: 2 µs, and jax.jit was 4.6× faster; 2 µs." in text
    assert "| n | jax.jit (8 threads) | what |" in text  # headings: the edition's, then the page's
    assert "| 1,000 | 2 µs (1 µs to 3 µs) | 3 things |" in text
    assert "| 1,000,000 | 4.2× (4× to 4.5×) | jax.jit |" in text
    assert "![a line that rises](measured/a/f.svg)" in text and "Rising." in text


def test_one_stamp_for_the_page_naming_every_run_and_library():
    text = rendered()
    opening, rest = text.split("## First section")
    assert opening.count("Numbers: ") == 1
    assert "CPU A, 2 cores · jax 0.10.2, jaxlib 0.10.2, torch 2.13.0 · cpu · 2026-12-04 to 2026-12-05 · full size" in opening
    assert "snippets/a.py" in opening and "snippets/b.py" in opening
    assert "Numbers: " not in rest, "tables and figures link their snippet, never restamp"
    assert rest.count('href="../measured/a/results.json"') == 2  # table and figure keep their link


def test_numbers_measured_on_another_machine_get_their_own_stamp():
    """A committed dataset (history/'s) was measured elsewhere: its machine and libraries are
    its own, never folded into the build machine's."""
    other = {**RESULTS["b"], "environment": {**ENV, "cpu": "CPU B", "cores": 13, "libraries": {"jax": "0.4.13–0.12.0.1"}}}
    opening = rendered({**RESULTS, "b": other}).split("## First section")[0]
    assert "Numbers: CPU A, 2 cores · jax 0.10.2, jaxlib 0.10.2 · cpu · 2026-12-04 · full size" in opening
    assert "; and on CPU B, 13 cores · jax 0.4.13–0.12.0.1 · 2026-12-04 · " in opening
    assert opening.index("snippets/a.py") < opening.index("CPU B") < opening.index("snippets/b.py")


def test_a_missing_word_is_named():
    with pytest.raises(PageError, match="table a.t needs the word 'what'"):
        render(PAGE, page="chapter.md", page_url="chapter/", results=RESULTS, words=WORDS, page_words={})


def test_a_stamp_says_when_the_machine_changed_speed_while_measuring():
    def check(start, end, dispatch=(1.0, 1.0)):
        return {"start": {"python_loop": start, "tiny_jit_call": dispatch[0]},
                "end": {"python_loop": end, "tiny_jit_call": dispatch[1]}}

    results = {"a": {**RESULTS["a"], "machine_check": check(1e-4, 2.3e-4)},
               "b": {**RESULTS["b"], "machine_check": check(2.2e-4, 1e-4)}}
    text = rendered(results)
    assert "snippets/a.py</code> (<a href=\"../measured/a/results.json\">numbers</a>); 2.3× slower" in text
    assert "; 2.2× faster" in text
    # the dispatch probe moved most (measurement.state_change): it is the one named
    dispatch = {"a": {**RESULTS["a"], "machine_check": check(1e-4, 1.6e-4, (26e-6, 4e-6))}}
    assert "; 6.5× faster" in rendered({**RESULTS, **dispatch})
    steady = {"a": {**RESULTS["a"], "machine_check": check(1e-4, 1.4e-4, (4e-6, 5e-6))},
              "b": {**results["b"], "quick": True}}  # quick runs share the cores: no note
    assert "slower" not in rendered(steady) and "2.2× faster" not in rendered(steady)


@pytest.mark.parametrize("bad, message", [
    ('{{ table("a", "nope") }}', "chapter.md: build snippet 'a' wrote no table 'nope'"),
    ('{{ figure("a", "nope") }}', "wrote no figure 'nope'"),
    ('{{ figure("a", "f") }}', "figure a.f needs alt="),
    ("{{ a.data.nope }}", "chapter.md: 'dict object' has no attribute 'nope'"),
    ('{{ stamp("c") }}', "no build snippet named 'c'"),
])
def test_a_page_asking_for_what_is_not_there_is_named(bad, message):
    with pytest.raises(PageError, match=re.escape(message)):
        rendered(text=bad)


def test_pending_results_show_as_pending_never_as_numbers():
    text = rendered(results={"a": None, "b": RESULTS["b"]}, status={"a": "is running now"},
                    text=PAGE.replace("{{ compared(a.verdicts.v) }}", "{{ a.verdicts.v.ratio | times }}"))
    assert "The answer: 2 µs" not in text and "CPU A" in text  # b's stamp only
    assert f"The answer: {PENDING}" in text and f"{PENDING}: `snippets/a.py`" in text
    note = text.split("## First section")[0]
    assert "<code>snippets/a.py</code> is running now." in note
    assert text.index("# Title") < text.index(PENDING)  # the note comes after the title


@pytest.mark.parametrize("edition", ["docs", "docs-ko"])
def test_every_page_renders_while_nothing_is_measured(edition):
    words = load_words(ROOT / edition)
    for page in sorted((ROOT / edition).glob("*.md")):
        text, meta = get_data(page.read_text(encoding="utf-8"))
        out = render(text, page=page.name, page_url=page.stem + "/", words=words,
                     page_words=meta.get("words"), results={name: None for name in build_snippets()})
        if any(name in text for name in build_snippets()):
            assert PENDING in out, page
        assert not uncited_footnotes(out), f"{page}: strict mode would stop mkdocs serve"


def test_a_page_that_stamps_itself_gets_no_page_stamp():
    text = rendered(text="# T\n\n{% for n in build_snippets %}- {{ stamp(n) }}\n{% endfor %}\n{{ a.data.n }}\n\n## S\n")
    assert text.count("Numbers: ") == 2


def test_a_stamp_counts_one_core_and_names_a_device_that_says_more_than_its_backend():
    assert page_templates.counted(WORDS["stamp"]["cores"], 1) == "1 core"
    assert page_templates.counted(WORDS["stamp"]["cores"], 4) == "4 cores"
    assert page_templates.backend_and_device({"backend": "cpu", "device": "cpu"}) == "cpu"
    assert page_templates.backend_and_device({"backend": "gpu", "device": "NVIDIA H200"}) == "gpu (NVIDIA H200)"


def test_a_footnote_cited_only_in_a_branch_the_data_did_not_choose_is_left_out():
    """MkDocs' strict mode fails on a footnote defined but never cited."""
    page = ("# T\n\n{% if a.data.n > 5000 %}Cited.[^big]{% else %}Not cited.{% endif %} Always.[^kept]\n\n"
            "[^big]: Only the big branch cites this,\n    over two lines.\n[^kept]: Cited everywhere.\n")
    small = render(page, page="p.md", page_url="p/", results=RESULTS, words=WORDS)
    assert "[^big]" not in small and "over two lines" not in small and "[^kept]: Cited everywhere." in small
    big = {**RESULTS, "a": {**RESULTS["a"], "data": {**RESULTS["a"]["data"], "n": 10_000}}}
    assert "[^big]: Only the big branch" in render(page, page="p.md", page_url="p/", results=big, words=WORDS)


def test_a_table_of_timings_says_its_brackets_are_one_runs_and_links_how_far_they_move():
    text = rendered()
    assert 'one run (<a href="../how-this-site-is-built/#how-far-a-timing-moves-between-builds">how far</a>)' in text
    plain = {**RESULTS, "a": {**RESULTS["a"], "tables": {"t": {"columns": ["n"], "rows": [[1]]}}}}
    assert "how far" not in render('{{ table("a", "t") }}', page="p.md", page_url="p/", results=plain, words=WORDS)


@pytest.mark.parametrize("edition, notice", [("docs", "not what the chapter explains"),
                                             ("docs-ko", "장에서 설명한 것과 다르다")])
def test_a_verdict_against_the_chapters_explanation_says_so_in_each_edition(edition, notice):
    words = load_words(ROOT / edition)
    verdict = {"kind": "faster", "names": ["eager", "jit"], "winner": "eager", "loser": "jit",
               "ratio": 2.0, "expect": "jit", "expected": False}
    results = {"a": {**RESULTS["a"], "verdicts": {"v": verdict}}}
    text = render("{{ compared(a.verdicts.v) }}", page="p.md", page_url="p/", results=results, words=words)
    assert notice in text
    verdict.update(winner="jit", loser="eager", expected=True)
    assert notice not in render("{{ compared(a.verdicts.v) }}", page="p.md", page_url="p/", results=results,
                                words=words)


@pytest.mark.parametrize("edition, crossing, apart", [
    ("docs", "inside this run's spread", "under the 1.1× this site counts as a difference"),
    ("docs-ko", "이번 실행의 흩어짐 안", "이 사이트가 차이로 치는 1.1배 미만")])
def test_about_the_same_says_why_ranges_that_cross_or_a_ratio_under_the_threshold(edition, crossing, apart):
    # measurement.compare calls two timings "same" when their ranges cross parity, or when
    # they differ by under SAME although their ranges are apart: "inside the spread" is only
    # true of the first.
    words = load_words(ROOT / edition)
    verdict = {"kind": "same", "names": ["eager", "jit"], "winner": None, "loser": None,
               "ratio": 1.06, "low": 0.97, "high": 1.2}
    results = {"a": {**RESULTS["a"], "verdicts": {"v": verdict}}}

    def said():
        return render("{{ compared(a.verdicts.v) }}", page="p.md", page_url="p/", results=results, words=words)
    assert crossing in said() and apart not in said()
    verdict.update(low=1.04, high=1.1)
    assert apart in said() and crossing not in said()
