"""Render a page's Markdown as a Jinja template over the build snippets' results.

Independent of MkDocs (hook.py is the glue). A page says `{{ selu_benchmark.text.x }}`,
`{{ table("selu_benchmark", "headline") }}`, `{{ figure("selu_benchmark", "scaling") }}`,
`{{ stamp("selu_benchmark") }}`, `{{ results_json("selu_benchmark") }}` or
`{{ results("selu_benchmark").data.x | microseconds }}`.

Stamps: the page gets one stamp per run its numbers come from, before its first section
(after the opening lines that give the answer); its tables and figures link to the
snippet and its raw numbers, and one from another run than the page's main one (the
snippet the page names most) carries that run's own stamp.

While `mkdocs serve` is still measuring, a snippet's results are None: every number,
table and figure from it shows PENDING, and the page opens with a note naming the
snippet and how many remain. Never an old or quick-mode number in its place.
"""

from __future__ import annotations

import functools
import html
import posixpath
import re

import jinja2
from pymdownx.snippets import SnippetPreprocessor

MEASURED = "measured"  # URL folder of the build snippets' outputs
PENDING = "⏳ being measured"
# The words the build puts around stamps, per edition (render's `labels`).
ENGLISH = {"main": "Numbers on this page", "other": "Other numbers on this page",
           "made": 'made by <code>snippets/{name}.py</code> (<a href="{numbers}">numbers</a>)',
           "slower": "machine {ratio}× slower by the end", "faster": "machine {ratio}× faster by the end"}
KOREAN = {"main": "이 페이지의 숫자", "other": "이 페이지의 다른 숫자",
          "made": '측정 코드 <code>snippets/{name}.py</code> (<a href="{numbers}">측정값</a>)',
          "slower": "끝날 무렵 머신 {ratio}× 느려짐", "faster": "끝날 무렵 머신 {ratio}× 빨라짐"}
# A full-size run whose machine check (measurement.machine_check, before and after
# measuring) saw pure Python this much slower or faster at the end says so in its stamp.
# The tiny jitted call is left out: its dispatch flips between two speeds on shared
# machines, often. Quick mode runs snippets side by side: no note there.
SPEED_CHANGE = 1.5


def speed_change(results: dict, labels: dict[str, str]) -> str:
    """' · machine 1.9× slower by the end' when a run's machine check moved that far."""
    check = {} if results.get("quick") else results.get("machine_check") or {}
    start, end = ((check.get(when) or {}).get("python_loop") for when in ("start", "end"))
    if not start or not end or 1 / SPEED_CHANGE < end / start < SPEED_CHANGE:
        return ""
    key, factor = ("slower", end / start) if end > start else ("faster", start / end)
    return " · " + labels[key].format(ratio=f"{factor:.1f}")


class PageError(Exception):
    """A page asks for something the results lack; the message names the page."""


class Pending:
    """Stands in for results not measured yet: any attribute, item, call, filter or
    arithmetic on it gives itself, and it shows as PENDING."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __getitem__(self, key):
        return self

    def __call__(self, *args, **kwargs):
        return self

    def __str__(self):
        return PENDING

    __html__ = __str__

    def __format__(self, spec):
        return PENDING

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def _self(self, *args):
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _self
    __truediv__ = __rtruediv__ = __floordiv__ = __mod__ = __pow__ = __neg__ = _self


def _passes_pending(filter_function):
    """A Jinja filter that hands a Pending value back untouched (the value is the first
    argument, after the context or environment when the filter asks for one)."""
    skip = 1 if getattr(filter_function, "jinja_pass_arg", None) else 0

    @functools.wraps(filter_function)
    def wrapped(*args, **kwargs):
        if len(args) > skip and isinstance(args[skip], Pending):
            return args[skip]
        return filter_function(*args, **kwargs)
    return wrapped


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["microseconds"] = lambda seconds: f"{seconds * 1e6:.3g} µs"
    env.filters = {name: _passes_pending(f) for name, f in env.filters.items()}
    return env


_ENV = _environment()


def _outside_fences(lines: list[str]):
    """(index, line) of the lines outside fenced code blocks."""
    fence = None
    for index, line in enumerate(lines):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        elif fence is None:
            yield index, line


def _insert_before_first_section(text: str, block: str) -> str:
    lines = text.split("\n")
    for index, line in _outside_fences(lines):
        if line.startswith("## "):
            return "\n".join(lines[:index] + [block, ""] + lines[index:])
    return text.rstrip("\n") + "\n\n" + block + "\n"


def _insert_after_title(text: str, block: str) -> str:
    lines = text.split("\n")
    for index, line in _outside_fences(lines):
        if line.startswith("# "):
            return "\n".join(lines[:index + 1] + ["", block, ""] + lines[index + 1:])
    return block + "\n\n" + text


def render(markdown_text: str, *, page: str, page_url: str, results: dict[str, dict | None],
           status: dict[str, str] | None = None, labels: dict[str, str] | None = None) -> str:
    """The page's Markdown with every {{ ... }} filled in from `results` (snippet name ->
    results.json, or None while it is measured; `status` then says where it stands).
    `labels`: the words around stamps (ENGLISH, the default, or KOREAN)."""
    status, labels = status or {}, labels or ENGLISH
    _no_bare_section_marker(markdown_text, page)
    # Raw HTML (a figcaption's Markdown is not rendered) links relative to the page's URL.
    page_dir = page_url if page_url.endswith("/") or not page_url else posixpath.dirname(page_url)
    counts = {name: len(re.findall(rf"\b{name}\b", markdown_text)) for name in results}
    used = sorted((n for n in results if counts[n]), key=lambda n: -counts[n])
    main = used[0] if used else None
    stamped = set(re.findall(r"stamp\(\s*[\"'](\w+)[\"']\s*\)", markdown_text))
    if re.search(r"stamp\(\s*\w+\s*\)", markdown_text):  # stamp(name) in a loop: all of them
        stamped = set(results)

    def known(name: str) -> dict | None:
        if name not in results:
            raise PageError(f"{page}: no build snippet named {name!r}: "
                            "add it to extra.build_snippets in mkdocs.yml")
        return results[name]

    def url(name: str, file: str) -> str:
        return posixpath.relpath(f"{MEASURED}/{name}/{file}", posixpath.dirname(page) or ".")

    def stamp(name: str) -> str:
        found = known(name)
        return found["stamp"] + speed_change(found, labels) if found else PENDING

    def source(name: str, own_stamp: bool) -> str:
        numbers = posixpath.relpath(f"{MEASURED}/{name}/results.json", page_dir or ".")
        made = labels["made"].format(name=name, numbers=numbers)
        return f"{stamp(name)} · {made}" if own_stamp else made

    def table(name: str, table_name: str) -> str:
        if known(name) is None:
            return f"*{PENDING}: a table from `snippets/{name}.py`.*\n"
        tables = known(name)["tables"]
        if table_name not in tables:
            raise PageError(f"{page}: build snippet {name!r} wrote no table {table_name!r} "
                            f"(its tables: {', '.join(tables) or 'none'})")
        return f'{tables[table_name]}\n<small class="stamp">{source(name, name != main)}</small>\n'

    def figure(name: str, fig_name: str) -> str:
        if known(name) is None:
            return f"*{PENDING}: a figure from `snippets/{name}.py`.*\n"
        fig = known(name)["figures"].get(fig_name)
        if fig is None:
            raise PageError(f"{page}: build snippet {name!r} wrote no figure {fig_name!r} "
                            f"(its figures: {', '.join(known(name)['figures']) or 'none'})")
        return (f'<figure markdown="span">\n  ![{fig["alt"]}]({url(name, fig["file"])})\n'
                f'  <figcaption>{fig["caption"]} <small class="stamp">'
                f'{source(name, name != main)}</small></figcaption>\n</figure>\n')

    def results_json(name: str) -> str:  # a link target for readers who want the raw numbers
        known(name)
        return url(name, "results.json")

    variables = {name: (res if res is not None else Pending()) for name, res in results.items()}
    try:
        text = _ENV.from_string(markdown_text).render(
            **variables, table=table, figure=figure, stamp=stamp,
            results_json=results_json, results=lambda name: known(name) or variables[name],
            build_snippets=list(results))
    except jinja2.UndefinedError as error:
        raise PageError(f"{page}: {error}: the page names a number its build snippet's "
                        "results.json lacks (its text or data); fix the name, or the snippet") from None
    except jinja2.TemplateError as error:
        line = f" line {error.lineno}" if getattr(error, "lineno", None) else ""
        raise PageError(f"{page}{line}: {error}") from None

    page_stamps = [f"{labels['main'] if n == main else labels['other']}: {source(n, True)}"
                   for n in used if n not in stamped and results[n] is not None]
    if page_stamps:
        text = _insert_before_first_section(
            text, '<small class="stamp">' + "<br>\n".join(page_stamps) + "</small>")
    looped = "build_snippets" in markdown_text  # a loop over every snippet's results
    waiting = [n for n in results if (counts[n] or looped) and results[n] is None]
    if waiting:
        lines = [f"<code>snippets/{n}.py</code> {html.escape(status.get(n) or 'is waiting to be measured')}."
                 for n in waiting]
        text = _insert_after_title(text, pending_note(lines))
    return text


def _no_bare_section_marker(markdown_text: str, page: str) -> None:
    """pymdownx.snippets silently drops a page's line that holds a section marker: find
    one with its own expression (";--8<--", its escape, shows the marker instead)."""
    for number, line in enumerate(markdown_text.splitlines(), 1):
        marker = SnippetPreprocessor.RE_SNIPPET_SECTION.match(line) if "8<-" in line else None
        if marker and not marker.group("escape"):
            raise PageError(f"{page} line {number}: pymdownx.snippets would drop this line, "
                            f"a section marker: {line.strip()!r}; write ;--8<-- to show it")


def pending_note(lines: list[str]) -> str:
    """A note (raw HTML: it needs no Markdown extension) naming what a page waits for."""
    items = "".join(f"<li>{line}</li>" for line in lines)
    return (f'<div class="admonition info pending"><p class="admonition-title">{PENDING}</p>'
            f"<p>Some numbers on this page are not measured yet; “{PENDING}” stands in for "
            f"them, and the page reloads by itself as each one comes in.</p><ul>{items}</ul></div>")
