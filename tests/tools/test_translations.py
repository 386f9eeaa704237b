"""The Korean edition keeps step with the English one (tools/translations.py).

The tests over docs-ko/ fail, naming the page, until every English page has its Korean
page and each one follows its source; the built ones read the quick build (built_site),
which holds both editions (the Korean one in ko/).

The built Korean page is checked too (below): the same
heading ids as the English page, and no `untranslated` text: a paragraph, heading, list
item, table cell, caption or alt text with four or more English words in a row and no
Hangul, outside code, quotes (blockquote, q) and what is marked lang="en", the names and
units docs-ko/words.yml keeps in Latin letters (`latin_names`) not counted.
"""

import re
from html.parser import HTMLParser

import pytest

import translations
from page_templates import load_words
from project import ROOT, mkdocs_config

PAGES = [english.relative_to(translations.ENGLISH).as_posix()
         for english, _ in translations.page_pairs()]


# The built pages: the text of each block a reader sees

_BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th", "figcaption", "dt", "dd"}
_SKIPPED = {"pre", "code", "blockquote", "q", "script", "style", "kbd", "samp", "svg"}
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


class _Texts(HTMLParser):
    """The text of each block of a page's <article>, and its images' alt text and ids."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.article = self.skipped = 0
        self.skipping: list[list] = []  # [tag, nested same tags] of skipped elements open
        self.open: list[list] = []  # [tag, parts] of the blocks being read
        self.texts: list[tuple[str, str]] = []  # (tag, text)
        self.ids: list[str] = []  # heading ids, in order

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "article":
            self.article += 1
        if not self.article:
            return
        if self.skipping and tag == self.skipping[-1][0]:
            self.skipping[-1][1] += 1  # the same tag nested inside a skipped element
        elif tag in _SKIPPED or (attrs.get("lang") or "").startswith("en"):
            self.skipped += 1
            self.skipping.append([tag, 0])
        elif tag in _BLOCKS:
            self.open.append([tag, []])
            if re.fullmatch(r"h[2-6]", tag) and attrs.get("id"):
                self.ids.append(attrs["id"])
        elif tag == "img" and attrs.get("alt"):
            self.texts.append(("alt", attrs["alt"]))

    def handle_endtag(self, tag):
        if tag == "article" and self.article:
            self.article -= 1
        elif self.skipping and tag == self.skipping[-1][0]:
            if self.skipping[-1][1]:
                self.skipping[-1][1] -= 1
            else:
                self.skipped -= 1
                self.skipping.pop()
        elif self.open and self.open[-1][0] == tag:
            self.texts.append((tag, " ".join("".join(self.open.pop()[1]).split())))

    def handle_data(self, data):
        if self.article and not self.skipped:
            for block in self.open:
                block[1].append(data)


def _read(html: str) -> _Texts:
    parser = _Texts()
    parser.feed(html)
    parser.close()
    return parser


def heading_ids(html: str) -> list[str]:
    """The ids of a built page's h2-h6 headings, in order (deep links, the language switch)."""
    return _read(html).ids


def untranslated(html: str, allowed: set[str] | None = None) -> list[str]:
    """Blocks of a built Korean page left in English (see the module's docstring)."""
    if allowed is None:  # names and units the Korean edition keeps in Latin letters
        words = load_words(ROOT / "docs-ko")
        allowed = {str(name) for name in words["latin_names"]}
    found = []
    for tag, text in _read(html).texts:
        if re.search(r"[가-힣]", text):
            continue
        run = longest = 0
        for token in text.replace("¶", " ").split():
            word = token.strip("()[]{},.;:!?\"'“”‘’*")
            if _LATIN_WORD.fullmatch(word) and word.lower() not in allowed:
                run += 1
                longest = max(longest, run)
            else:
                run = 0
        if longest >= 4:
            found.append(f"<{tag}> {text[:120]}")
    return found


def _nav(nav: list) -> list[str]:
    """The nav's targets in order: a page, or a notebook (notebooks/<name>.ipynb, in each
    edition its own)."""
    return [next(iter(item.values())) if isinstance(item, dict) else item for item in nav]


def _config_nav() -> list:
    return mkdocs_config()["nav"]


def test_every_english_page_has_its_korean_page():
    missing = [f"docs-ko/{page} (translates docs/{page})" for english, korean in
               translations.page_pairs() if not korean.is_file()
               for page in [english.relative_to(translations.ENGLISH).as_posix()]]
    assert not missing, "Korean pages missing:\n  " + "\n  ".join(missing)


def test_the_korean_nav_lists_the_same_pages_in_the_same_order_titled_by_their_h1():
    import korean_edition

    korean = korean_edition.korean_nav(_config_nav(), load_words(ROOT / "docs-ko"))
    assert _nav(korean) == _nav(_config_nav())
    pages = [item for item in korean if isinstance(item, str)]
    assert len(pages) >= 10, "a chapter's nav entry has no title of its own: its page's H1 names it"
    assert not re.search(r"^nav:", (ROOT / "mkdocs.ko.yml").read_text(encoding="utf-8"), re.M)


NOTEBOOKS = [english.stem for english, _ in translations.notebook_pairs()]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_each_korean_notebook_follows_its_english_notebook(name):
    """notebooks/ko/X.py: the same cells and code (the build shows the English outputs under
    it), its words in Korean, and the digest of notebooks/X.py."""
    english, korean = translations.NOTEBOOKS / f"{name}.py", translations.NOTEBOOKS / "ko" / f"{name}.py"
    assert korean.is_file(), f"notebooks/ko/{name}.py is missing"
    problems = translations.notebook_differences(english, korean)
    assert not problems, f"notebooks/ko/{name}.py:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_built_korean_notebook_has_no_english_prose(built_site, name):
    korean_file = built_site / "ko" / "notebooks" / name / "index.html"
    assert korean_file.is_file(), f"ko/notebooks/{name}/ was not built"
    left = untranslated(korean_file.read_text(encoding="utf-8"))
    assert not left, f"ko/notebooks/{name}/ has English text:\n  " + "\n  ".join(left)


@pytest.mark.parametrize("page", PAGES)
def test_each_korean_page_follows_its_english_page(page):
    english, korean = translations.ENGLISH / page, translations.KOREAN / page
    assert korean.is_file(), f"docs-ko/{page} is missing"
    problems = translations.differences(english, korean)
    assert not problems, f"docs-ko/{page}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_the_built_korean_page_keeps_the_english_heading_ids(built_site, page):
    url = "" if page == "index.md" else page.removesuffix(".md") + "/"
    english = (built_site / url / "index.html").read_text(encoding="utf-8")
    korean_file = built_site / "ko" / url / "index.html"
    assert korean_file.is_file(), f"ko/{url} was not built"
    korean = korean_file.read_text(encoding="utf-8")
    assert heading_ids(korean) == heading_ids(english)
    # the language switch leads to this page in the other edition, both ways
    assert f'href="{"../" * url.count("/")}ko/{url}" hreflang="ko"' in english
    assert f'href="{"../" * url.count("/")}../{url}" hreflang="en"' in korean


@pytest.mark.parametrize("page", PAGES)
def test_the_built_korean_page_has_no_english_prose(built_site, page):
    url = "" if page == "index.md" else page.removesuffix(".md") + "/"
    korean_file = built_site / "ko" / url / "index.html"
    assert korean_file.is_file(), f"ko/{url} was not built"
    left = untranslated(korean_file.read_text(encoding="utf-8"))
    assert not left, f"ko/{url} has English text:\n  " + "\n  ".join(left)


# ---------------------------------------------------------------- the checks themselves

ENGLISH_PAGE = """# The first call

It takes {{ selu_benchmark.data.first }} on 2 cores, 3× the rest.

--8<-- "selu.py:selu"

## Why it pauses

{{ table("selu_benchmark", "headline") }}
"""

KOREAN_PAGE = """---
translated_from: {digest}
---
# 첫 호출

코어 2 cores에서 {{{{ selu_benchmark.data.first }}}}가 걸리며, 나머지의 3×입니다.

--8<-- "selu.py:selu"

## 왜 멈추나 {{ #why-it-pauses }}

{{{{ table("selu_benchmark", "headline") }}}}
"""


def test_a_translator_may_name_a_page_three_ways_and_a_wrong_name_is_explained():
    ko = ROOT / "docs-ko" / "selu.md"
    assert {translations.korean_page(a) for a in ("selu.md", str(ROOT / "docs" / "selu.md"), str(ko))} == {ko}
    notebook = ROOT / "notebooks" / "ko" / "selu.py"
    assert {translations.korean_page(str(p)) for p in (notebook, ROOT / "notebooks" / "selu.py")} == {notebook}
    assert translations.english_source(notebook) == ROOT / "notebooks" / "selu.py"
    with pytest.raises(SystemExit, match="nope.md: not a page; name it docs-ko/X.md"):
        translations.korean_page("nope.md")


def test_a_faithful_translation_has_no_differences(tmp_path):
    english = tmp_path / "en.md"
    english.write_text(ENGLISH_PAGE, encoding="utf-8")
    korean = tmp_path / "ko.md"
    korean.write_text(KOREAN_PAGE.format(digest=translations.source_digest(english)), "utf-8")
    assert translations.differences(english, korean) == []


def test_a_changed_english_page_makes_its_translation_stale_naming_both(tmp_path):
    english = tmp_path / "en.md"
    english.write_text(ENGLISH_PAGE, encoding="utf-8")
    korean = tmp_path / "ko.md"
    korean.write_text(KOREAN_PAGE.format(digest=translations.source_digest(english)), "utf-8")
    english.write_text(ENGLISH_PAGE + "\nA new paragraph.\n", encoding="utf-8")
    (problem,) = translations.stale(english, korean)
    assert str(korean) in problem and str(english) in problem


def test_a_lost_include_expression_anchor_or_number_is_reported(tmp_path):
    english = tmp_path / "en.md"
    english.write_text(ENGLISH_PAGE, encoding="utf-8")
    korean = tmp_path / "ko.md"
    broken = (KOREAN_PAGE.format(digest=translations.source_digest(english))
              .replace('--8<-- "selu.py:selu"', "").replace("{ #why-it-pauses }", "")
              .replace("3×", "세 배").replace('{{ table("selu_benchmark", "headline") }}', ""))
    korean.write_text(broken, encoding="utf-8")
    found = "\n".join(translations.differences(english, korean))
    for what in ("includes differ", "anchors differ", "only in English", "3×", "{ #id }"):
        assert what in found, (what, found)
    korean.write_text(KOREAN_PAGE.format(digest=translations.source_digest(english)).replace("3×", "3배"),
                      encoding="utf-8")  # Korean prose writes a ratio "3배"
    assert translations.differences(english, korean) == []


def test_a_lost_list_item_is_reported_though_the_digest_matches(tmp_path):
    english = tmp_path / "en.md"
    english.write_text(ENGLISH_PAGE + "\n- **Warm-up excluded.**\n- **JAX's defaults.**\n",
                       encoding="utf-8")
    korean = tmp_path / "ko.md"
    korean.write_text(KOREAN_PAGE.format(digest=translations.source_digest(english))
                      + "\n- **워밍업은 뺀다.**\n", encoding="utf-8")
    (problem,) = translations.differences(english, korean)
    assert problem.startswith("blocks differ from block 2 on") and "2 against 1" in problem


def test_english_prose_in_a_built_korean_page_is_found_and_code_quotes_names_are_not():
    html = """<article>
      <h2 id="a">The first call takes long</h2>
      <p>첫 호출은 JAX, NumPy, XLA, jit 모두에서 깁니다.</p>
      <p>JAX NumPy XLA jit PyTorch</p>
      <pre><code>for the whole loop we wait</code></pre>
      <blockquote><p>Quoted from the JAX documentation as it was</p></blockquote>
      <table><tr><th>eager first call on a shape</th><td>1.2 ms</td></tr></table>
      <img alt="A log-log plot of time per call" src="x.svg">
    </article>"""
    found = untranslated(html)
    assert found == ["<h2> The first call takes long", "<th> eager first call on a shape",
                     "<alt> A log-log plot of time per call"], found
    assert heading_ids(html) == ["a"]


def test_a_korean_sentence_may_join_verdicts_that_share_a_name_but_not_drop_one(tmp_path):
    """compared(a, b) states the verdicts a and b (the Korean topic form): it counts as the
    English page's compared(a) and compared(b); topic="..." is a word, not a number."""
    english = tmp_path / "en.md"
    english.write_text("# T\n\n{{ compared(v.a) }}, and {{ compared(v[\"b\"]) }}.\n", encoding="utf-8")
    korean = tmp_path / "ko.md"
    front = f"---\ntranslated_from: {translations.source_digest(english)}\n---\n# 티\n\n"
    korean.write_text(front + '{{ compared(v.a, v["b"]) }}.\n', encoding="utf-8")
    assert translations.differences(english, korean) == []
    korean.write_text(front + '{{ compared(v.a, topic="jit") }}.\n', encoding="utf-8")
    (problem,) = translations.differences(english, korean)
    assert "only in English ['compared(v[\"b\"])']" in problem, problem


ENGLISH_NOTEBOOK = """# %% [markdown]
# # A notebook
#
# Its words.

# %%
# --8<-- "selu.py:selu"

x = selu(1.0)  # one value
print("x is", x)
"""

KOREAN_NOTEBOOK = """# ---
# jupyter:
#   translated_from: {digest}
# ---

# %% [markdown]
# # JAX 노트북
#
# 그 말.

# %%
# --8<-- "selu.py:selu"

x = selu(1.0)  # 값 하나
print("x is", x)
"""


def test_a_korean_notebook_may_translate_its_words_but_not_its_code(tmp_path):
    english, korean = tmp_path / "en.py", tmp_path / "ko.py"
    english.write_text(ENGLISH_NOTEBOOK, encoding="utf-8")
    faithful = KOREAN_NOTEBOOK.format(digest=translations.source_digest(english))
    korean.write_text(faithful, encoding="utf-8")
    assert translations.notebook_differences(english, korean) == []
    for broken, what in ((faithful.replace('"x is"', '"x는"'), "cell 2: not the English code"),
                         (faithful.replace('selu.py:selu"', 'selu.py:inputs"'), "cell 2: not the English code"),
                         (faithful.replace("# 그 말.", "# Its words."), ""),
                         (faithful.replace("# # JAX 노트북\n#\n# 그 말.", "# # A notebook"), "cell 1: prose with no Korean"),
                         (faithful.replace("\n# %% [markdown]\n# # JAX 노트북", "\n# %%\n# # JAX 노트북"), "cells differ"),
                         (faithful.replace("# # JAX 노트북", "# # JAX 노트북\n#\n# ## 1. 절\n#\n# ## 1. 절"), "heading '1. 절'"),
                         (faithful.replace("# # JAX 노트북", "# # `selu` 노트북"), "heading '`selu` 노트북'")):
        korean.write_text(broken, encoding="utf-8")
        found = "\n".join(translations.notebook_differences(english, korean))
        assert what in found and (what or not found), (what, found)
    english.write_text(ENGLISH_NOTEBOOK + "\nprint(x)\n", encoding="utf-8")
    korean.write_text(faithful, encoding="utf-8")
    (problem,) = translations.notebook_differences(english, korean)[-1:]
    assert "records translated_from" in problem  # a changed English template: stale
