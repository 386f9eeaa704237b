"""Run lines as if typed at a Python prompt; capture what comes back, errors included.

The errors chapter (docs/sharp-bits.md) shows each pitfall as a short session: the
lines, what they printed, the value of the last line or the error it raised.
`run_session` runs those lines in a module's namespace and records all of it, so the
page can quote the message the installed JAX really raised (its first lines verbatim;
what a long message's cut left out is a count, which each edition words). Nothing here
is about JAX's errors themselves: sharp_bits.py holds the teaching code,
sharp_bits_benchmark.py the sessions the page shows.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass, field
from types import ModuleType

import jax

from measurement import relative_paths


@dataclass
class Session:
    """Lines typed at a Python prompt."""

    lines: list[str]
    expected: object = None  # what the last line returns (fixes); None: not checked


@dataclass
class Case:
    """One pitfall: the session that shows it, what it raises, and its fixes."""

    title: str
    pitfall: Session
    error: type[BaseException] | None  # None: no exception (it goes wrong silently)
    fixes: dict[str, Session] = field(default_factory=dict)
    variants: dict[str, tuple[Session, type[BaseException]]] = field(
        default_factory=dict)


@dataclass
class Outcome:
    """What a session printed and returned, or the exception its last line raised."""

    lines: list  # the transcript as the page shows it (Line): prompts, output, error
    values: list  # each line's value (None for a statement or the line that raised)
    printed: list[str]  # each line's printed output
    error: BaseException | None = None
    error_lines: list = field(default_factory=list)  # "jax.errors.Name: message", cut

    @property
    def value(self):
        """The last line's value."""
        return self.values[-1]

    @property
    def transcript(self) -> str:
        """The transcript as a terminal shows it (a cut worded as `text` words it)."""
        return text(self.lines)

    @property
    def error_text(self) -> str:
        return text(self.error_lines)


# A line of a transcript: a string, verbatim, or where trim_message cut a message, a
# cut: {"left_out": 7, "traceback": False}, the number of lines left out and whether a
# traceback the message quotes was among them. Each edition of the site words a cut
# itself (its words.yml macro `transcript`); `text` words it for a terminal.
Line = str | dict

MAX_MESSAGE_LINES = 6


def error_name(error: BaseException | type[BaseException]) -> str:
    """How a traceback names an exception or its class: jax.errors.Name, ValueError."""
    cls = error if isinstance(error, type) else type(error)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def trim_message(message: str) -> list[Line]:
    """The first lines of an error message, verbatim but for file paths, and a cut.

    Absolute paths of this folder become bare file names; a message longer than
    MAX_MESSAGE_LINES keeps its first lines, a cut (how many lines it left out), and its
    closing "See https://..." line. A nested traceback quoted inside a message is cut
    too, with all that follows it: no traceback reaches a page.
    """
    lines = relative_paths(message).rstrip().splitlines()
    head = lines
    for i, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            head = lines[:i]
            break
    traceback = len(head) < len(lines)
    if not traceback and len(lines) <= MAX_MESSAGE_LINES:
        return lines
    see = [lines[-1]] if not traceback and lines[-1].startswith("See https://") else []
    kept = head[:MAX_MESSAGE_LINES - len(see)]
    cut = {"left_out": len(lines) - len(kept) - len(see), "traceback": traceback}
    return kept + [cut] + see


def text(lines: list[Line]) -> str:
    """Lines as a terminal shows them, a cut as "[… 7 more lines …]"."""
    def worded(line: Line) -> str:
        if isinstance(line, str):
            return line
        among = ", a nested traceback among them" if line["traceback"] else ""
        return f"[… {line['left_out']} more lines{among} …]"
    return "\n".join(worded(line) for line in lines)


def _run_line(line: str, namespace: dict):
    """Evaluate an expression, or execute a statement (then the value is None)."""
    try:
        code = compile(line, "<session>", "eval")
    except SyntaxError:
        exec(compile(line, "<session>", "exec"), namespace)
        return None
    return eval(code, namespace)


def run_session(session: Session, module: ModuleType) -> Outcome:
    """Run each line at a fake prompt in `module`'s namespace; stop at an exception.

    Only the last line may raise. Every session starts as in a new process (no jitted
    function of the module compiled yet) and leaves the module as it found it: names it
    assigned are removed, names it rebound and lists it appended to are restored.
    """
    namespace = vars(module)  # as after `from module import *`
    saved = dict(namespace)
    lists = {name: list(v) for name, v in namespace.items() if isinstance(v, list)}
    for obj in list(namespace.values()):
        if callable(getattr(obj, "clear_cache", None)):  # a jitted function
            obj.clear_cache()
    out, values, printed_lines = [], [], []
    try:
        for number, line in enumerate(session.lines, start=1):
            out.append(f">>> {line}")
            printed = io.StringIO()
            try:
                with contextlib.redirect_stdout(printed):
                    value = _run_line(line, namespace)
                    jax.effects_barrier()  # let jax.debug.print finish before we read
            except Exception as error:  # noqa: BLE001 (the point is to show it)
                out += printed.getvalue().splitlines()
                message = trim_message(str(error)) or [""]
                if not isinstance(message[0], str):  # cut from its first line
                    message = ["", *message]
                said = [f"{error_name(error)}: {message[0]}", *message[1:]]
                out += said
                if number != len(session.lines):
                    raise RuntimeError(
                        f"line {line!r} raised before the session's end") from error
                return Outcome(out, values + [None],
                               printed_lines + [printed.getvalue()], error, said)
            out += printed.getvalue().splitlines()
            values.append(value)
            printed_lines.append(printed.getvalue())
            if value is not None:
                out += repr(value).splitlines()
        return Outcome(out, values, printed_lines)
    finally:
        for name in set(namespace) - set(saved):
            del namespace[name]
        namespace.update(saved)
        for name, items in lists.items():
            namespace[name][:] = items
