"""Honest timing and reporting, shared by every benchmark snippet.

A benchmark snippet builds a `Report` (numbers, Markdown tables, figures) and hands it
to `main`. Run directly it prints the tables for the reader's machine; run by the site
build with ``--out DIR`` it also writes ``results.json`` (numbers, prose text and the
Markdown of every table) and one ``<figure>.svg`` per figure into DIR.

Nothing here knows about MkDocs: the contract with the build is the ``--out`` folder.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import pickle
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable


# --8<-- [start:time_call]
@dataclass
class Timing:
    """Seconds per call: one sample is the mean over `number` back-to-back calls."""

    samples: list[float]
    number: int

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def q1(self) -> float:
        return self.quartiles[0]

    @property
    def q3(self) -> float:
        return self.quartiles[2]

    @property
    def quartiles(self) -> list[float]:
        """Q1, median, Q3, interpolated between samples as NumPy does by default."""
        if len(self.samples) < 2:  # a single sample has no spread
            return self.samples * 3
        return statistics.quantiles(self.samples, n=4, method="inclusive")

    @property
    def best(self) -> float:
        return min(self.samples)

    @property
    def spread(self) -> float:
        """Interquartile range relative to the median (0.1 means +-5 % around it)."""
        return (self.q3 - self.q1) / self.median

    def as_dict(self) -> dict[str, Any]:
        return {"median": self.median, "q1": self.q1, "q3": self.q3, "best": self.best,
                "spread": self.spread, "number": self.number, "samples": self.samples}


def time_call(fn: Callable[[], Any], *, repeats: int = 15, warmup: int = 2,
              min_sample_s: float = 0.01) -> Timing:
    """Time `fn()`, which must block until its result is ready (see `time_calls`)."""
    return time_calls({"fn": fn}, repeats=repeats, warmup=warmup,
                      min_sample_s=min_sample_s)["fn"]


def time_calls(calls: dict[Any, Callable[[], Any]], *, repeats: int = 15,
               warmup: int = 2, min_sample_s: float = 0.01,
               min_repeats: int | None = None) -> dict[Any, Timing]:
    """Time several functions together; each must block until its result is ready.

    Warm-up calls (compilation, caches, page faults of the first allocation) are run
    and discarded. Then, per function, `number` is chosen so that one sample lasts at
    least `min_sample_s`, and `repeats` samples are taken in turns: one sample of each
    function, then the next round. Every timing's samples so span the same stretch of
    time, so a slow spell of a shared machine widens every spread it touches instead of
    shifting one timing alone, and ratios compare calls measured side by side.

    With `min_repeats` (at least 3), sampling may stop early: after the first round
    from `min_repeats` on that moved no timing's quartiles by more than SETTLED of its
    median (every spread has settled; a noisy one keeps sampling, up to `repeats`).
    """
    numbers = {}
    for key, fn in calls.items():
        for _ in range(warmup):
            fn()
        number = 1
        while True:  # calibrate, like timeit's autorange
            start = time.perf_counter()
            for _ in range(number):
                fn()
            if time.perf_counter() - start >= min_sample_s or number >= 1 << 20:
                break
            number *= 2
        numbers[key] = number
    samples: dict[Any, list[float]] = {key: [] for key in calls}
    for done in range(1, repeats + 1):
        for key, fn in calls.items():
            number = numbers[key]
            start = time.perf_counter()
            for _ in range(number):
                fn()
            samples[key].append((time.perf_counter() - start) / number)
        if min_repeats is not None and done >= max(min_repeats, 3) and all(
                _settled(s) for s in samples.values()):
            break
    return {key: Timing(samples[key], numbers[key]) for key in calls}


SETTLED = 0.05  # time_calls(min_repeats=...): the last sample moved no quartile more


def _settled(samples: list[float]) -> bool:
    """Whether the last sample moved each quartile by at most SETTLED of the median."""
    now, before = Timing(samples, 1), Timing(samples[:-1], 1)
    return all(abs(a - b) <= SETTLED * now.median
               for a, b in zip(now.quartiles, before.quartiles))
# --8<-- [end:time_call]


def stopwatch(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds taken by one call of `fn` (a first call: it cannot be repeated)."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


# ---------------------------------------------------------------- formatting

def fmt_seconds(seconds: float) -> str:
    """A duration with a unit a reader can compare at a glance (3 significant
    digits)."""
    rounded = float(f"{seconds:.3g}")  # 0.9996 ms is 1 ms, not "1e+03 µs"
    if rounded >= 1000:
        return f"{rounded:,.0f} s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if rounded >= scale or unit == "ns":
            return f"{rounded / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def fmt_timing(t: Timing) -> str:
    """Median with the interquartile range, e.g. ``1.21 ms (1.18 to 1.30)``."""
    return f"{fmt_seconds(t.median)} ({fmt_seconds(t.q1)} to {fmt_seconds(t.q3)})"


def faster(what, slow, fast):
    """slow / fast (Timings' medians, or seconds) where the page calls `what` faster:
    a ratio under 1 fails the build instead of reading "0.8× faster"."""
    ratio = getattr(slow, "median", slow) / getattr(fast, "median", fast)
    if ratio <= 1:
        raise DocumentationMismatch(
            f"the page says {what} is faster; the ratio was {ratio:.3g}")
    return ratio


def fmt_ratio(ratio: float) -> str:
    return f"{ratio:.2g}×" if ratio < 9.95 else f"{ratio:,.0f}×"


def ratio_range(slow: Timing, fast: Timing) -> tuple[float, float, float]:
    """Median ratio, and the range spanned by the two interquartile ranges."""
    return slow.median / fast.median, slow.q1 / fast.q3, slow.q3 / fast.q1


def fmt_ratio_range(slow: Timing, fast: Timing) -> str:
    mid, low, high = ratio_range(slow, fast)
    return f"{fmt_ratio(mid)} ({fmt_ratio(low)} to {fmt_ratio(high)})"


def markdown_table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def log_log_axes(ax, xlabel: str, ylabel: str, title: str,
                 legend_fontsize: float | None = 8) -> None:
    """Finish a curve over sizes: log-log axes, labels, title, legend, and room at the
    bottom of the figure for the stamp that `main` draws in."""
    ax.set(xscale="log", yscale="log", xlabel=xlabel, ylabel=ylabel, title=title)
    ax.legend(fontsize=legend_fontsize)
    ax.figure.tight_layout(rect=(0, 0.03, 1, 1))


# ---------------------------------------------------------------- pages' claims

class DocumentationMismatch(RuntimeError):
    """What a page says no longer holds (for the installed JAX, say): the build stops.

    The message names the snippet and reads "the page says X, but this JAX does Y"."""


SNIPPETS = str(Path(__file__).resolve().parent) + "/"  # this folder, with its slash


def relative_paths(text: str, folder: str = SNIPPETS, shown_as: str = "") -> str:
    """`text` with the absolute `folder` cut down to `shown_as`: a page names
    snippets/ files as a reader's copy does, and never shows where the build ran."""
    return text.replace(folder, shown_as)


MALLOC_KEEP = {"mmap_threshold": 64 << 20, "trim_threshold": 256 << 20}


def keep_freed_memory() -> str:
    """Tell glibc's malloc to keep the memory it frees for the next allocation, so a
    timing does not depend on what ran before it. Returns what was set ("" elsewhere).

    Eager JAX and NumPy allocate a new array for every operation's result. By default
    glibc gives large freed blocks back to the system, then takes fresh pages (zeroed
    at first touch) for the next ones, or not, depending on the sizes allocated before
    (its thresholds adapt). On 10^6 values in two rotations of different sizes (the
    SELU page's headline and scaling table), eager SELU took 9.3 ms in one and 5.1 ms
    in the other, NumPy 17 ms and 10 ms (2 cores, 2026-12-01). With fixed thresholds
    every sample reuses memory, as a loop of one size does in a default process.
    """
    import ctypes
    import ctypes.util

    if platform.libc_ver()[0] != "glibc":
        return ""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    m_trim_threshold, m_mmap_threshold = -1, -3  # glibc's <malloc.h>
    if not (libc.mallopt(m_mmap_threshold, MALLOC_KEEP["mmap_threshold"])
            and libc.mallopt(m_trim_threshold, MALLOC_KEEP["trim_threshold"])):
        raise OSError("glibc refused mallopt: timings would depend on allocator state")
    return (f"glibc malloc keeps freed memory (mmap threshold "
            f"{MALLOC_KEEP['mmap_threshold'] >> 20} MiB, trim threshold "
            f"{MALLOC_KEEP['trim_threshold'] >> 20} MiB)")


# ---------------------------------------------------------------- where it ran

def machine() -> dict[str, Any]:
    """The CPU's name and how many cores this process may run on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
             else os.cpu_count())
    return {"cpu": cpu, "cores": cores}


def environment() -> dict[str, Any]:
    """Where a measurement was taken: stamped on every table and figure."""
    import jax
    import jaxlib

    return {
        **machine(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "backend": jax.default_backend(),
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
    }


# --8<-- [start:machine_check]
def python_loop():  # one core's speed; frameworks_worker.py times it too (no JAX there)
    return sum(range(10_000))


def machine_check(repeats: int = 9) -> dict[str, float]:
    """How fast, and how busy, the machine is right now: medians of three tiny calls,
    in seconds (`repeats` samples each; quick mode takes fewer).

    A loop of pure Python runs on one core and follows that core's speed alone. A
    jitted call on 1,000 floats is almost all dispatch: Python hands the work to XLA's
    runtime threads and waits for the answer. On a shared virtual machine that handoff
    can take a few microseconds or several times that, and flip between the two, when
    other work runs or for no visible reason. The same NumPy call runs on the calling
    thread. `main` takes this check before and after measuring, so two builds' timings
    can be read against the state of the machine each one met.
    """
    import jax
    import numpy as np

    x_np = np.linspace(-1.0, 1.0, 1000, dtype=np.float32)
    x = jax.numpy.asarray(x_np)
    add_one = jax.jit(lambda v: v + 1)
    timed = time_calls({"python_loop": python_loop,
                        "tiny_jit_call": lambda: add_one(x).block_until_ready(),
                        "tiny_numpy_call": lambda: np.add(x_np, 1)},
                       repeats=repeats, min_sample_s=0.005)
    return {key: t.median for key, t in timed.items()}
# --8<-- [end:machine_check]


FIGURE_PICKLE = ".figure.pickle"  # beside each SVG; the build keeps it off the site


def stamp_text(env: dict[str, Any], quick: bool) -> str:
    mode = "quick mode (small sizes)" if quick else "full size"
    return (f"Measured on {env['cpu']}, {env['cores']} cores · jax {env['jax']}, "
            f"jaxlib {env['jaxlib']}, backend {env['backend']} · {env['date']} · "
            f"{mode}")


# ---------------------------------------------------------------- the report

@dataclass
class Figure:
    figure: Any  # a matplotlib Figure
    alt: str  # what the figure shows, for readers who cannot see it
    caption: str = ""


@dataclass
class Report:
    """What a benchmark hands back: numbers, prose-ready text, tables and figures."""

    data: dict[str, Any] = field(default_factory=dict)  # raw numbers
    text: dict[str, str] = field(default_factory=dict)  # formatted numbers for prose
    tables: dict[str, str] = field(default_factory=dict)  # name -> Markdown table
    figures: dict[str, Figure] = field(default_factory=dict)  # name -> Figure


def plot_style() -> None:
    """Small, reproducible SVGs: text stays text, no timestamp, fixed ids."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams.update({
        "svg.fonttype": "none",
        "svg.hashsalt": "just-in-time",
        "font.size": 10,
        "figure.figsize": (6.4, 4.0),
        "axes.grid": True,
        "grid.alpha": 0.3,
    })


def main(measure: Callable[[bool], Report], argv: list[str] | None = None) -> Report:
    """Command line of every benchmark snippet: ``[--quick] [--out DIR]``."""
    parser = argparse.ArgumentParser(
        description=(measure.__doc__ or "").strip() or None)
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and few repeats (tests, a first preview)")
    parser.add_argument("--out", type=Path,
                        help="folder for results.json (numbers, tables) and figures")
    args = parser.parse_args(argv)

    allocator = keep_freed_memory()  # before anything large is allocated
    plot_style()
    env = {**environment(), "allocator": allocator}
    check_repeats = 3 if args.quick else 9  # quick mode: tests and a first preview
    check = {"start": machine_check(check_repeats)}
    report = measure(args.quick)
    check["end"] = machine_check(check_repeats)
    stamp = stamp_text(env, args.quick)
    for name, table in report.tables.items():
        print(f"\n{name}\n\n{table}")
    print("machine check (before, after measuring): " + "; ".join(
        f"{key.replace('_', ' ')} {fmt_seconds(check['start'][key])}, "
        f"{fmt_seconds(check['end'][key])}" for key in check["start"]))
    print(stamp)

    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        figures = {}
        for name, fig in report.figures.items():
            # The figure without the English stamp, for the Korean edition: it relabels
            # the same artists (sitebuild/korean.py), so both show the same numbers.
            with open(args.out / f"{name}{FIGURE_PICKLE}", "wb") as f:
                pickle.dump(fig.figure, f)
            fig.figure.text(0.01, 0.005, stamp, fontsize=6, color="0.4", ha="left",
                            va="bottom")
            fig.figure.savefig(args.out / f"{name}.svg", metadata={"Date": None})
            figures[name] = {"file": f"{name}.svg", "alt": fig.alt,
                             "caption": fig.caption}
        results = {"environment": env, "machine_check": check, "quick": args.quick,
                   "stamp": stamp, "data": report.data, "text": report.text,
                   "tables": dict(sorted(report.tables.items())), "figures": figures}
        (args.out / "results.json").write_text(json.dumps(results, indent=1),
                                               encoding="utf-8")
    sys.stdout.flush()
    return report
