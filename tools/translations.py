"""The Korean edition's pages beside their English sources: docs-ko/X.md translates docs/X.md.

A translation keeps what the build and the readers' links depend on, so both editions show
the same code and the same numbers:
  - the same snippet includes (`--8<-- "file.py:section"`), in the same order;
  - the same `{{ ... }}` expressions: tables, figures, stamps and numbers from the build
    (in the same order from section to section; Korean word order may move an expression
    within its section). A Korean verdict may join comparisons that share a name in one
    sentence, `compared(a, b)`, and leave out a subject the sentence already named
    (`topic="..."`, a word, not a number): it counts as `compared(a)` and `compared(b)`,
    so every verdict the English page states is stated in the same section;
  - the same heading anchors, in order: a Korean heading keeps its English id explicitly,
    `## 첫 호출 { #the-first-call }` (the default slugify would turn Hangul into `_1`);
  - every number with a unit that the English prose types (`8,192`, `2 cores`, `3×`);
  - the same blocks, in order: list items (at their indents), definitions, admonitions
    and content tabs, so that no item is dropped or added (a page once lost one);
  - front matter naming the English text it was translated from:
        ---
        translated_from: 1a2b3c4d5e6f  # sha256 of docs/X.md, first 12 hex digits
        ---
    so a changed English page with an unchanged Korean one is caught (see `stale`).

A notebook template notebooks/ko/X.py translates notebooks/X.py (`notebook_differences`):
the same cells in the same order, each code cell the same but for its comments and
docstrings (the build shows the English notebook's outputs under it, never running it), the
same includes, Korean in every prose cell, headings whose ids (their Latin letters and
digits) are their own, and the digest in jupytext's header:
        # ---
        # jupyter:
        #   translated_from: 1a2b3c4d5e6f
        # ---

A translator's and the tests' check, never run by the build (tests/tools/test_translations.py
runs it on every page). Command line: `python tools/translations.py [docs-ko/X.md ...]`
(docs/X.md or X.md name the same page; notebooks/X.py or notebooks/ko/X.py a notebook)
prints every difference (all pages when none is named) and the digest to record.

What the build does for a Korean page, so a translator need not: it adds the banner that
links the English page. The page writes its own sentences
around the build's numbers and verdicts; table headings and figure labels are in its front
matter (`words:`), shared words in docs-ko/words.yml; an edition's own include
(`build-figures.ko.md`) stands for the English one. Quoted error messages and code stay
verbatim; an output block may be titled "출력" (title="Output" works too). The built Korean
pages are checked by the same tests (heading ids, no English prose).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import markdown.extensions.toc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sitebuild"))  # the build's modules
import page_templates  # noqa: E402
import snippet_runs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ENGLISH, KOREAN, NOTEBOOKS = ROOT / "docs", ROOT / "docs-ko", ROOT / "notebooks"

_FENCE = re.compile(r"^(\s*)(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{\s*#([\w-]+)[^}]*\})?\s*$")

_EXPRESSION = re.compile(r"\{\{(.*?)\}\}", re.S)
_FRONT_MATTER = re.compile(r"\A(?:# )?---\n(.*?)\n(?:# )?---\n", re.S)  # a page's, or a template's
# A block a translation keeps: a list item (numbered or not), a definition, an
# admonition (!!! or ???) or a content tab (===), with its indent.
_BLOCK = re.compile(r"^( *)(?:([-*+])|(\d+)\.|(:)  |(!!!|\?\?\?\+?)|(===)) ")
# A number the prose types, with its unit: "8,192", "2 cores" are numbers; "3×", "50 %",
# "1.5 ms" keep their unit, and Korean prose's "3배" is "3×". Expressions are removed
# first: their numbers come from the build.
# A Korean particle may follow the unit ("3×입니다"), so only Latin letters end a match.
_NUMBER_WITH_UNIT = re.compile(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s?(×|배|%|ms|µs|ns|s|KB|MB|GB|GHz|MiB|GiB)(?![A-Za-z0-9_])")


def source_digest(path: Path) -> str:
    """The digest a Korean page records of the English page it translates."""
    return snippet_runs.digest(path.read_bytes(), 12)


def translated_from(text: str) -> str | None:
    match = _FRONT_MATTER.match(text)
    if not match:
        return None
    found = re.search(r"^[#\s]*translated_from:\s*([0-9a-f]+)", match.group(1), re.M)
    return found.group(1) if found else None


def _prose_and_headings(text: str) -> tuple[list[str], list[tuple[int, str, str | None]]]:
    """Lines outside code fences, and the headings among them (level, text, explicit id)."""
    text = _FRONT_MATTER.sub("", text)
    prose, headings, fence = [], [], None
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(2) == fence:
                fence = None
            continue
        if opened:
            fence = opened.group(2)
            continue
        prose.append(line)
        heading = _HEADING.match(line)
        if heading:
            headings.append((len(heading.group(1)), heading.group(2), heading.group(3)))
    return prose, headings


def anchor(heading_text: str) -> str:
    """The id Python-Markdown's toc gives a heading without an explicit one."""
    plain = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading_text)
    return markdown.extensions.toc.slugify(plain, "-")


def _each_verdict(expression: str) -> list[str]:
    """`compared(a, b, topic="x")` as the verdicts it states, `compared(a)` and `compared(b)`;
    any other expression as it is."""
    call = re.fullmatch(r"compared\((.*)\)", expression)
    if not call:
        return [expression]
    args, depth, start = [], 0, 0
    for i, char in enumerate(call.group(1) + ","):
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            args.append(call.group(1)[start:i].strip())
            start = i + 1
    return [f"compared({a})" for a in args if not re.fullmatch(r"\w+ ?= ?(['\"])[\w ]*\1", a)]


def structure(text: str) -> dict:
    """What a translation must keep of a page (see the module's docstring)."""
    lines, headings = _prose_and_headings(text)
    whole = "\n".join(lines)
    sections, current = [], Counter()
    for line in lines:
        if _HEADING.match(line):
            sections.append(current)
            current = Counter()
        current.update(v for e in _EXPRESSION.findall(line) for v in _each_verdict(" ".join(e.split())))
    sections.append(current)
    no_expressions = _EXPRESSION.sub(" ", re.sub(r"`[^`]*`", " ", whole))
    kinds = ("list item", "numbered item", "definition", "admonition", "content tab")
    blocks = [f"{kind} at indent {len(m.group(1))}" for m in map(_BLOCK.match, lines) if m
              for kind, found in zip(kinds, m.groups()[1:]) if found]
    return {
        "blocks": blocks,
        # An edition's own include (build-figures.ko.md) stands for the English one.
        "includes": [i.replace(".ko.md", ".md") for i in page_templates.INCLUDE.findall(text)],
        "expressions by section": sections,
        "anchors": [explicit or anchor(title) for level, title, explicit in headings
                    if level > 1],
        "numbers": sorted(Counter(
            f"{n} {unit}".replace(" 배", "×").replace(" ×", "×").replace(" %", "%")
            for n, unit in _NUMBER_WITH_UNIT.findall(no_expressions)).elements()),
        "korean headings without an id": [title for level, title, explicit in headings
                                          if level > 1 and not explicit
                                          and re.search(r"[가-힣]", title)],
    }


def differences(english: Path, korean: Path) -> list[str]:
    """Every way `korean` fails to follow `english` (empty when it does)."""
    en_text, ko_text = english.read_text("utf-8"), korean.read_text("utf-8")
    en, ko, problems = structure(en_text), structure(ko_text), []
    for key in ("includes", "anchors"):
        if en[key] != ko[key]:
            problems.append(f"{key} differ:\n    English {en[key]}\n    Korean  {ko[key]}")
    if en["blocks"] != ko["blocks"]:
        at = next((i for i, (e, k) in enumerate(zip(en["blocks"], ko["blocks"])) if e != k),
                  min(len(en["blocks"]), len(ko["blocks"])))
        problems.append(f"blocks differ from block {at + 1} on: English "
                        f"{en['blocks'][at:at + 3]}, Korean {ko['blocks'][at:at + 3]} "
                        f"({len(en['blocks'])} against {len(ko['blocks'])} in all)")
    if en["expressions by section"] != ko["expressions by section"]:
        for i, (e, k) in enumerate(zip(en["expressions by section"],
                                       ko["expressions by section"])):
            if e != k:
                problems.append(f"section {i} ({{{{ }}}} expressions) differs: only in English "
                                f"{sorted((e - k).elements())}, only in Korean "
                                f"{sorted((k - e).elements())}")
        if len(en["expressions by section"]) != len(ko["expressions by section"]):
            problems.append("a different number of sections")
    missing = Counter(en["numbers"]) - Counter(ko["numbers"])
    if missing:
        problems.append(f"numbers with units in the English prose, missing here: "
                        f"{sorted(missing.elements())}")
    if ko["korean headings without an id"]:
        problems.append("Korean headings need the English anchor, `{ #id }`: "
                        f"{ko['korean headings without an id']}")
    problems += stale(english, korean)
    return problems


def notebook_differences(english: Path, korean: Path) -> list[str]:
    """Every way a Korean notebook template fails to follow its English one (empty when
    it does; see the module's docstring)."""
    import jupytext

    import korean_edition

    en, ko = (jupytext.read(path, fmt="py:percent").cells for path in (english, korean))
    problems = [] if [c.cell_type for c in en] == [c.cell_type for c in ko] else [
        f"cells differ: English {[c.cell_type for c in en]}, Korean {[c.cell_type for c in ko]}"]
    for number, (e, k) in enumerate(zip(en, ko), 1):
        if e.cell_type == k.cell_type == "code" and (
                korean_edition.code(e.source) != korean_edition.code(k.source)
                or re.findall(r'^# --8<-- "(.+)"', e.source, re.M) != re.findall(r'^# --8<-- "(.+)"', k.source, re.M)):
            problems.append(f"cell {number}: not the English code (only comments and docstrings are translated):\n{k.source}")
        if k.cell_type == "markdown" and not re.search(r"[가-힣]", k.source):
            problems.append(f"cell {number}: prose with no Korean: {k.source[:80]!r}")
    # A heading's id is made of its Latin letters and digits, by mkdocs-jupyter in the page
    # (code included) and by Markdown in its table of contents (code left out, repeats numbered).
    headings = [line.lstrip("#").strip() for c in ko if c.cell_type == "markdown"
                for line in c.source.splitlines() if re.match(r"#{1,6} ", line)]
    ids = [anchor(heading) for heading in headings]
    problems += [f"heading {heading!r}: its id {i!r} must be one of its own, so give it a number or Latin "
                 "letters, and no `code` (mkdocs-jupyter's ids and the table of contents' would differ)"
                 for heading, i in zip(headings, ids) if not i or "`" in heading or ids.count(i) > 1]
    return problems + stale(english, korean)


def stale(english: Path, korean: Path) -> list[str]:
    """The Korean page does not record the English text it follows."""
    recorded, digest = translated_from(korean.read_text("utf-8")), source_digest(english)
    if recorded == digest:
        return []
    return [f"{_shown(korean)} records translated_from: {recorded}, but "
            f"{_shown(english)} is now {digest}: bring the translation in step "
            f"with the English page (git diff it), then record the new digest"]


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def page_pairs() -> list[tuple[Path, Path]]:
    """(English, Korean) for every English page; the Korean one may not exist yet."""
    return [(page, KOREAN / page.relative_to(ENGLISH)) for page in sorted(ENGLISH.rglob("*.md"))]


def notebook_pairs() -> list[tuple[Path, Path]]:
    """(English, Korean) for every notebook template; the Korean one may not exist yet."""
    return [(template, NOTEBOOKS / "ko" / template.name) for template in sorted(NOTEBOOKS.glob("*.py"))]


def english_source(korean: Path) -> Path:
    """What a Korean page or notebook template translates."""
    return NOTEBOOKS / korean.name if korean.suffix == ".py" else ENGLISH / korean.relative_to(KOREAN)


def korean_page(arg: str) -> Path:
    """docs-ko/X.md from docs-ko/X.md, docs/X.md or X.md; notebooks/ko/X.py from it or
    notebooks/X.py (SystemExit naming the forms else)."""
    path = Path(arg).resolve()
    if path.suffix == ".py" and path.is_relative_to(NOTEBOOKS):
        return NOTEBOOKS / "ko" / path.name
    for folder in (KOREAN, ENGLISH):
        if path.is_relative_to(folder):
            return KOREAN / path.relative_to(folder)
    if (ENGLISH / arg).is_file():
        return KOREAN / arg
    raise SystemExit(f"{arg}: not a page; name it docs-ko/X.md, docs/X.md, X.md or notebooks/X.py (pages: "
                     f"{', '.join(p.name for p, _ in page_pairs())})")


def main(argv: list[str]) -> int:
    pages = [korean_page(a) for a in argv] or [ko for _, ko in page_pairs() + notebook_pairs()]
    failed = False
    for korean in pages:
        english = english_source(korean)
        if not korean.exists():
            print(f"{korean.relative_to(ROOT)}: missing (translates {english.relative_to(ROOT)})")
            failed = True
            continue
        problems = (notebook_differences if korean.suffix == ".py" else differences)(english, korean)
        failed |= bool(problems)
        print(f"{korean.relative_to(ROOT)}: " + ("follows its English page" if not problems
              else "\n  " + "\n  ".join(problems)))
        print(f"  English digest to record: translated_from: {source_digest(english)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
