"""sitebuild/page_templates.py: numbers into pages, one stamp per run, and pending results."""

import re

import pytest

from page_templates import PENDING, PageError, render
from project import ROOT, build_snippets

RESULTS = {
    "a": {"stamp": "Measured on A", "text": {"x": "1.5 ms"}, "data": {"s": 2e-6},
          "tables": {"t": "| a |\n|---|\n| 1 |\n"},
          "figures": {"f": {"file": "f.svg", "alt": "a line that rises", "caption": "Rising."}}},
    "b": {"stamp": "Measured on B", "text": {"y": "3×"}, "data": {},
          "tables": {"u": "| b |\n|---|\n| 2 |\n"}, "figures": {}},
}
PAGE = """# Title

The answer: {{ a.text.x }}, and {{ a.text.x }} again; {{ results("a").data.s | microseconds }}.

## First section

{{ table("a", "t") }}
{{ figure("a", "f") }}
{{ table("b", "u") }}
"""


def rendered(results=RESULTS, text=PAGE, **kwargs):
    return render(text, page="chapter.md", page_url="chapter/", results=results, **kwargs)


def test_numbers_come_from_the_results():
    text = rendered()
    assert "The answer: 1.5 ms" in text and "2 µs" in text
    assert "| a |" in text and "![a line that rises](measured/a/f.svg)" in text


def test_one_stamp_for_the_page_and_an_own_stamp_for_another_runs_table():
    text = rendered()
    opening, rest = text.split("## First section")
    assert "Numbers on this page: Measured on A" in opening and "Other numbers on this page: Measured on B" in opening
    assert "Measured on A" not in rest, "tables and figures of the page's run link, not restamp"
    assert rest.count('href="../measured/a/results.json"') == 2  # table and figure keep their link
    assert "Measured on B · made by <code>snippets/b.py</code>" in rest  # another run's own stamp


def test_an_explicit_stamp_is_not_repeated():
    text = rendered(text='# T\n\n{{ a.text.x }} <small>{{ stamp("a") }}</small>\n\n## S\n')
    assert text.count("Measured on A") == 1


def test_a_stamp_says_when_the_machine_changed_speed_while_measuring():
    def check(start, end):
        return {"start": {"python_loop": start, "tiny_jit_call": 1.0},
                "end": {"python_loop": end, "tiny_jit_call": 9.0}}  # dispatch flips: ignored

    results = {"a": {**RESULTS["a"], "machine_check": check(1e-4, 1.9e-4)},
               "b": {**RESULTS["b"], "machine_check": check(2e-4, 1e-4)}}
    text = rendered(results)
    assert "Measured on A · machine 1.9× slower by the end" in text
    assert "Measured on B · machine 2.0× faster by the end" in text
    steady = {"a": {**RESULTS["a"], "machine_check": check(1e-4, 1.4e-4)},
              "b": {**results["b"], "quick": True}}  # quick runs share the cores: no note
    assert "machine" not in rendered(steady)  # within 1.5x, quick mode, or not checked


@pytest.mark.parametrize("bad, message", [
    ('{{ table("a", "nope") }}', "chapter.md: build snippet 'a' wrote no table 'nope'"),
    ('{{ figure("a", "nope") }}', "wrote no figure 'nope'"),
    ("{{ a.text.nope }}", "chapter.md: 'dict object' has no attribute 'nope'"),
    ('{{ stamp("c") }}', "no build snippet named 'c'"),
])
def test_a_page_asking_for_what_is_not_there_is_named(bad, message):
    with pytest.raises(PageError, match=re.escape(message)):
        rendered(text=bad)


def test_a_section_marker_in_a_page_fails_unless_escaped():
    # pymdownx.snippets would drop the whole line from the page, without a word
    with pytest.raises(PageError, match=r"chapter.md line 2: pymdownx.snippets would drop"):
        rendered(text="Sections:\n(`# --8<-- [start:name]` … `[end:name]`). A missing one fails.")
    assert "[start:name]" in rendered(text="(`# ;--8<-- [start:name]` … `[end:name]`).")
    assert rendered(text='--8<-- "selu.py:selu"')  # an include is not a section marker
    assert rendered(text="`--8<-- [start:<name>]`")  # no valid name: pymdownx keeps it


def test_pending_results_show_as_pending_never_as_numbers():
    text = rendered(results={"a": None, "b": RESULTS["b"]}, status={"a": "is running now"})
    assert "1.5 ms" not in text and "Measured on A" not in text
    assert f"The answer: {PENDING}" in text and f"{PENDING}: a table from `snippets/a.py`" in text
    note = text.split("## First section")[0]
    assert "<code>snippets/a.py</code> is running now." in note
    assert text.index("# Title") < text.index(PENDING)  # the note comes after the title


@pytest.mark.parametrize("page", sorted((ROOT / "docs").rglob("*.md")), ids=lambda p: p.name)
def test_every_page_renders_while_nothing_is_measured(page):
    text = page.read_text(encoding="utf-8")
    out = render(text, page=page.name, page_url=page.stem + "/",
                 results={name: None for name in build_snippets()})
    if any(name in text for name in build_snippets()):
        assert PENDING in out


def test_a_page_that_stamps_every_run_itself_gets_no_page_stamp():
    text = rendered(text="# T\n\n{% for n in build_snippets %}- {{ stamp(n) }}\n{% endfor %}\n{{ a.text.x }}\n\n## S\n")
    assert text.count("Measured on A") == 1 and "Numbers on this page" not in text
