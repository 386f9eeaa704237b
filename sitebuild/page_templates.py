"""Render a page's Markdown as a Jinja template over the build snippets' results.

Independent of MkDocs (hook.py is the glue). A page says
`{{ selu_benchmark.data.docs.jit | seconds }}`, `{{ compared(selu_benchmark.verdicts.jit_vs_eager) }}`,
`{{ table("selu_benchmark", "headline") }}`, `{{ figure("selu_benchmark", "scaling", alt=...) }}`
or `{{ results_json("selu_benchmark") }}`; the words are the edition's (words.yml, and the
page's front matter `words:`).

Stamps: one per page, before its first section (after the opening lines that give the
answer): machine, every library, date and size once, and a link to each run's numbers;
each table and figure links its own snippet and raw numbers.

While `mkdocs serve` is still measuring, a snippet's results are None: every number,
table and figure from it shows PENDING, and the page opens with a note naming the
snippet and how many remain. Never an old or quick-mode number in its place.
"""

from __future__ import annotations

import functools
import html
import posixpath
import re
from pathlib import Path

import jinja2
import yaml

import snippet_runs

MEASURED = "measured"  # URL folder of the build snippets' outputs
PENDING = "⏳ being measured"
HOW_FAR = "how-this-site-is-built/#how-far-a-timing-moves-between-builds"  # a URL, as pages link
# A page's snippet include, `--8<-- "file.py:section"` on a line of its own: the file (with its section).
INCLUDE = re.compile(r'^[ \t]*--8<--[ \t]+"([^"]+)"[ \t]*$', re.M)
WORDS_FILE = "words.yml"  # in each edition's docs folder: units, stamps, common headings


def load_words(docs_dir: Path) -> dict:
    """An edition's words (docs/words.yml, docs-ko/words.yml)."""
    path = docs_dir / WORDS_FILE
    if not path.is_file():
        raise PageError(f"{path} is missing: each edition keeps its units, stamp and common "
                        "headings there")
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def speed_change(results: dict, words: dict) -> str:
    """' (its machine check 1.9× slower by the end of its run)' when a full-size run's machine
    check moved by more than MOVED (measurement.check_change; quick runs share the cores)."""
    change, moved = snippet_runs.measurement().check_change(results), snippet_runs.measurement().MOVED
    if change is None or 1 / moved <= change <= moved:
        return ""
    ratio = snippet_runs.measurement().fmt_ratio(max(change, 1 / change)).rstrip("×")
    return words["stamp"]["slower" if change > 1 else "faster"].format(ratio=ratio)


class PageError(Exception):
    """A page asks for something the results lack; the message names the page."""


class Pending:
    """Stands in for results not measured yet: any attribute, item, call, filter or
    arithmetic on it gives itself, and it shows as PENDING."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def _self(self, *args, **kwargs):
        return self

    def _no(self, *other):  # false; a comparison with an unmeasured value takes no branch's side
        return False

    def __str__(self, *spec):
        return PENDING

    def __iter__(self):
        return iter(())

    __html__ = __format__ = __str__
    __bool__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__ = _no
    __hash__ = object.__hash__
    __getitem__ = __call__ = __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _self
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


def number(value) -> str:
    """An integer with thousands separators; another number with 3 significant digits."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or abs(value) >= 100:
        return f"{round(value):,}"
    return f"{value:.3g}"


def _formats(words: dict) -> dict:
    """The filters a page words its numbers with (the same code in both editions; the
    words of units and ranges from the edition's words.yml)."""
    m = snippet_runs.measurement()
    rng = words.get("range", "{low} to {high}")

    def timing(t):
        if isinstance(t, (list, tuple)):
            t = dict(zip(("median", "q1", "q3"), t))
        return f"{m.fmt_seconds(t['median'])} (" + rng.format(
            low=m.fmt_seconds(t["q1"]), high=m.fmt_seconds(t["q3"])) + ")"

    def ratio_range(r, low=None, high=None):
        if isinstance(r, dict):
            r, (low, high) = r["ratio"], r.get("range") or (r.get("low"), r.get("high"))
        text = m.fmt_ratio(r)
        return text if low is None else f"{text} (" + rng.format(
            low=m.fmt_ratio(low), high=m.fmt_ratio(high)) + ")"

    return {"seconds": lambda x: m.fmt_seconds(x["median"] if isinstance(x, dict) else x),
            "microseconds": lambda x: f"{x * 1e6:.3g} µs",
            "timing": timing, "ratio": ratio_range,
            "times": lambda r: words.get("times", "{}×").format(m.fmt_ratio(r).rstrip("×")),
            "num": number, "percent": lambda x, digits=0: words.get("percent", "{} %").format(f"{x:.{digits}f}"),
            "listed": lambda xs: listed([number(x) for x in xs], words.get("list_last", " and ")),
            "cores": lambda n: counted(words["stamp"]["cores"], n),
            "backend_device": backend_and_device}


class _Environment(jinja2.Environment):
    def getitem(self, obj, argument):  # letter[verdict.winner] before it is measured
        return argument if isinstance(argument, Pending) else super().getitem(obj, argument)


def _environment(words: dict) -> jinja2.Environment:
    """Jinja with the edition's filters, its words (`words`), and its sentence macros
    (words.yml `macros`: how this edition words a verdict, e.g. `compared(v)`)."""
    env = _Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters.update(_formats(words))
    env.filters = {name: _passes_pending(f) for name, f in env.filters.items()}
    m = snippet_runs.measurement()
    env.globals.update(words=words, thresholds={"same": m.SAME, "close": m.CLOSE, "moved": m.MOVED},
                       machine_change=_passes_pending(m.check_change))
    if words.get("macros"):
        module = env.from_string(words["macros"]).module
        env.globals.update({name: _passes_pending(getattr(module, name))
                            for name in dir(module) if not name.startswith("_")})
    return env


def render_cell(cell, words: dict, fmt: dict, where: str) -> str:
    """A table cell (snippets/measurement.py's typed cells) in an edition's words."""
    if isinstance(cell, dict):
        if "seconds" in cell:
            return fmt["seconds"](cell["seconds"])
        if "timing" in cell:
            return fmt["timing"](cell["timing"])
        if "ratio" in cell:
            return fmt["ratio"](cell["ratio"], *(cell.get("range") or (None, None)))
        if "bold" in cell:
            return f"**{render_cell(cell['bold'], words, fmt, where)}**"
        if "pair" in cell:  # a value and, in brackets, another: "4.2 ms (1.2×)"
            return "{} ({})".format(*(render_cell(c, words, fmt, where) for c in cell["pair"]))
        if "word" in cell:
            return worded(cell["word"], words, cell.get("fields", {}), where)
    if isinstance(cell, (int, float)) and not isinstance(cell, bool):
        return number(cell)
    return str(cell)


def worded(key: str, words: dict, fields: dict, where: str) -> str:
    if key not in words:
        raise PageError(f"{where} needs the word {key!r}: add it to the page's front matter "
                        "(words:) or the edition's words.yml")
    return str(words[key]).format(**{k: number(v) for k, v in fields.items()})


def render_table(table: dict, words: dict, fmt: dict, where: str) -> str:
    fields = table.get("fields", {})
    header = [worded(c, words, fields, where) for c in table["columns"]]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(render_cell(c, words, fmt, where) for c in row) + " |"
              for row in table["rows"]]
    return "\n".join(lines) + "\n"


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
           status: dict[str, str] | None = None, words: dict | None = None,
           page_words: dict | None = None) -> str:
    """The page's Markdown with every {{ ... }} filled in from `results` (snippet name ->
    results.json, or None while it is measured; `status` then says where it stands).
    `words`: the edition's words.yml; `page_words`: the page's front-matter words."""
    status, words, page_words = status or {}, words or {}, page_words or {}
    counts = {name: len(re.findall(rf"\b{name}\b", markdown_text)) for name in results}
    used = sorted((n for n in results if counts[n]), key=lambda n: -counts[n])
    fmt = _formats(words)

    def known(name: str) -> dict | None:
        if name not in results:
            raise PageError(f"{page}: no build snippet named {name!r}: "
                            "add it to extra.build_snippets in mkdocs.yml")
        return results[name]

    def url(name: str, file: str) -> str:
        return posixpath.relpath(f"{MEASURED}/{name}/{file}", posixpath.dirname(page) or ".")

    def numbers_url(name: str) -> str:
        return relative(f"{MEASURED}/{name}/results.json", page_url)  # raw HTML: from the page's URL

    def made(name: str) -> str:
        return words["stamp"]["made"].format(name=name, numbers=numbers_url(name))

    def table(name: str, table_name: str) -> str:
        if known(name) is None:
            return f"*{PENDING}: `snippets/{name}.py`*\n"
        tables = known(name)["tables"]
        if table_name not in tables:
            raise PageError(f"{page}: build snippet {name!r} wrote no table {table_name!r} "
                            f"(its tables: {', '.join(tables) or 'none'})")
        own = words_for(words, page_words.get(name, {}), table_name)
        found = render_table(tables[table_name], own, fmt, f"{page}: table {name}.{table_name}")
        spread = ""  # a timing's bracket is one run's: say how far the next run moves it
        if "spread" in words["stamp"] and any(isinstance(c, dict) and "timing" in c
                                              for row in tables[table_name]["rows"] for c in row):
            spread = " · " + words["stamp"]["spread"].format(how_far=relative(HOW_FAR, page_url))
        return f'{found}\n<small class="stamp">{made(name)}{spread}</small>\n'

    def figure(name: str, fig_name: str, alt: str | None = None, caption: str | None = None) -> str:
        if known(name) is None:
            return f"*{PENDING}: `snippets/{name}.py`*\n"
        figures = known(name)["figures"]
        if fig_name not in figures:
            raise PageError(f"{page}: build snippet {name!r} wrote no figure {fig_name!r} "
                            f"(its figures: {', '.join(figures) or 'none'})")
        if not alt:
            raise PageError(f"{page}: figure {name}.{fig_name} needs alt=\"...\": what it shows, "
                            "for readers who cannot see it")
        return (f'<figure markdown="span">\n  ![{alt.strip()}]({url(name, fig_name + ".svg")})\n'
                f'  <figcaption>{(caption or "").strip()} <small class="stamp">{made(name)}</small></figcaption>\n'
                f'</figure>\n')

    def results_json(name: str) -> str:  # a link target for readers who want the raw numbers
        known(name)
        return url(name, "results.json")

    def page_stamp(names: list[str]) -> str:
        """One stamp for the numbers of several runs: where, with what, when, once for each
        machine (a committed dataset, such as history/'s, was measured on its own)."""
        machines: dict[tuple, list[str]] = {}
        for n in (n for n in names if results[n] is not None):
            env = results[n].get("environment", {})
            machines.setdefault((env.get("cpu"), env.get("cores"), env.get("python"), backend_and_device(env)), []).append(n)
        return "".join(machine_stamp(ready, "page" if i == 0 else "page_also") for i, ready in enumerate(machines.values())) or PENDING

    def machine_stamp(ready: list[str], form: str) -> str:
        envs, stamp = [results[n].get("environment", {}) for n in ready], words["stamp"]
        dates = sorted({e.get("date", "?") for e in envs})
        modes = sorted({stamp["quick" if results[n].get("quick") else "full"] for n in ready})
        sources = ", ".join(stamp.get("source", stamp["made"]).format(name=n, numbers=numbers_url(n))
                            + speed_change(results[n], words) for n in ready)
        return stamp.get(form, stamp["page"]).format(**machine_fields(envs, words), date=rng_join(dates, words),
                                  mode=" / ".join(modes), sources=sources)

    variables = {name: (res if res is not None else Pending()) for name, res in results.items()}
    try:
        text = _environment(words).from_string(markdown_text).render(
            **variables, table=table, figure=figure, stamp=lambda name: known(name) and machine_stamp([name], "row") or PENDING,
            results_json=results_json, results=lambda name: known(name) or variables[name],
            build_snippets=list(results))
    except jinja2.UndefinedError as error:
        raise PageError(f"{page}: {error}: the page names a number its build snippet's "
                        "results.json lacks; fix the name, or the snippet") from None
    except jinja2.TemplateError as error:
        line = f" line {error.lineno}" if getattr(error, "lineno", None) else ""
        raise PageError(f"{page}{line}: {error}") from None

    text = _without_unused_footnotes(text)
    if "stamp(" not in markdown_text and any(results[n] is not None for n in used):
        text = _insert_before_first_section(text, f'<small class="stamp">{page_stamp(used)}</small>')
    looped = "build_snippets" in markdown_text  # a loop over every snippet's results
    waiting = [n for n in results if (counts[n] or looped) and results[n] is None]
    if waiting:
        lines = [f"<code>snippets/{n}.py</code> {html.escape(status.get(n) or 'is waiting to be measured')}."
                 for n in waiting]
        text = _insert_after_title(text, pending_note(lines))
    return text


_FOOTNOTE = re.compile(r"^\[\^([^\]]+)\]:.*\n(?:(?:[ \t]+.*)?\n)*?(?=\S|\Z)", re.M)


def _without_unused_footnotes(text: str) -> str:
    """The page without footnotes that no sentence it kept cites: a branch this machine's
    data did not choose (or a number still being measured) may hold the only citation, and
    MkDocs' strict mode fails on a footnote defined but never cited."""
    def cited(match: re.Match) -> bool:
        rest = text[:match.start()] + text[match.end():]
        return f"[^{match.group(1)}]" in rest
    return _FOOTNOTE.sub(lambda m: m.group(0) if cited(m) else "", text)


def unexpected(markdown_text: str, results: dict[str, dict | None]) -> list[str]:
    """The verdicts a page shows that went against what its chapter explains
    (measurement.compare's `expected`): the build's log names them."""
    return [f"{name}.{key} ({v.get('winner') or 'neither'} faster, expected {v['expect']})"
            for name, res in results.items() if res and re.search(rf"\b{name}\b", markdown_text)
            for key, v in (res.get("verdicts") or {}).items() if v.get("expected") is False]


def words_for(common: dict, snippet_words: dict, name: str) -> dict:
    """The words a table or figure `name` is drawn with: the edition's headings, the page's
    words for its snippet (front matter `words: {snippet: ...}`), then its own."""
    return {**common.get("headings", {}), **{k: v for k, v in snippet_words.items() if not isinstance(v, dict)},
            **snippet_words.get(name, {})}


def relative(target: str, page_url: str) -> str:
    """`target`, a path from the site's root, as a link from the page at `page_url`."""
    page_dir = page_url if page_url.endswith("/") or not page_url else posixpath.dirname(page_url)
    return posixpath.relpath(target, page_dir or ".")


def machine_fields(envs: list[dict], words: dict) -> dict:
    """A stamp's cpu, cores, backend and libraries (every library of every run) in an
    edition's words, for runs on one machine (page_stamp groups them by machine)."""
    libraries = {k: v for env in envs for k, v in (env.get("libraries") or {"jax": env.get("jax"), "jaxlib": env.get("jaxlib")}).items()}
    first = envs[0]
    return dict(cpu=first.get("cpu"), cores=counted(words["stamp"]["cores"], first.get("cores")), python=first.get("python", "?"),
                backend=backend_and_device(first), libraries=", ".join(f"{k} {v}" for k, v in libraries.items()))


def listed(items: list[str], last: str) -> str:
    """"1,000, 10,000 and 100,000": numbers with thousands separators read apart (`last`,
    an edition's words.yml `list_last`, joins the last two)."""
    return ", ".join(items[:-1]) + last + items[-1] if len(items) > 1 else "".join(items)


def counted(forms: list[str], n, **fields) -> str:
    """"1 core", "2 cores": an edition's [one, several] forms (words.yml), with `fields`."""
    return forms[0 if n == 1 else 1].format(n=n, **fields)


def backend_and_device(env: dict) -> str:
    """"cpu", or "gpu (NVIDIA H200)": the device where it says more than the backend."""
    backend, device = str(env.get("backend")), str(env.get("device") or "")
    return backend if device.lower() in ("", backend.lower()) else f"{backend} ({device})"


def rng_join(values: list[str], words: dict) -> str:
    return values[0] if len(values) == 1 else words.get("range", "{low} to {high}").format(
        low=values[0], high=values[-1])


def pending_note(lines: list[str]) -> str:
    """A note (raw HTML: it needs no Markdown extension) naming what a page waits for."""
    items = "".join(f"<li>{line}</li>" for line in lines)
    return (f'<div class="admonition info pending"><p class="admonition-title">{PENDING}</p>'
            f"<p>Some numbers on this page are not measured yet; “{PENDING}” stands in for "
            f"them, and the page reloads by itself as each one comes in.</p><ul>{items}</ul></div>")
