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
    """Two significant digits (1.4×, 12×), two decimals near 1 (1.04×, not 1×) and up
    to 1.2 (1.12×); a ratio beside a threshold (SAME, CLOSE = MOVED) that would print as
    the threshold itself gets the decimals that tell them apart: 1.104× "slower" beside
    a 1.1× "about the same", 1.97× "under the 2×"."""
    text, edges = _fmt_ratio(ratio), (SAME, CLOSE)
    if ratio not in edges and ratio < 3 and float(text.rstrip("×")) in edges:
        digits = 2
        while float(f"{ratio:.{digits}f}") in edges and digits < 6:
            digits += 1
        text = f"{ratio:.{digits}f}×"
    return text


def _fmt_ratio(ratio: float) -> str:
    if 1 <= ratio < 1.095:
        return f"{ratio:.2f}×"
    if 1 <= ratio < 1.195:  # SAME itself stays 1.1×
        return f"{ratio:.2f}".rstrip("0") + "×"
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


# Facts stop the build; observations never do. A fact is a property of the pinned
# software (an error JAX raises, what recompiles, CPython's bytecode): `fact` checks
# it and records its id in results.json ("facts"; how-this-site-is-built lists them).
# An observation of the machine (which timing is smaller, a trend, a thread count) is
# data: a verdict below, which each edition's page words; it never stops the build.
FACTS_CHECKED: list[str] = []


def fact(fact_id: str, holds: bool, detail: str = "") -> None:
    """Stop the build unless `holds`: fact_id names the claim ("selu.int32_compare")."""
    if not holds:
        raise DocumentationMismatch(
            f"{fact_id}: the pages rely on this fact of the pinned software, and it "
            f"does not hold here. {detail}".strip())
    if fact_id not in FACTS_CHECKED:
        FACTS_CHECKED.append(fact_id)


# How closely a float32 result computed on a backend must match the same formula on
# the host (NumPy in float32, Python floats in double precision), or computed another
# way on the backend (the DeepONet step jitted and op by op), for a fact or a sentence
# that says they agree: numpy.allclose's rtol and atol. XLA:CPU's exp is NumPy's to
# about an ulp (SELU: 4.8e-7 apart at most); a TPU's float32 exp is coarser (a TPU
# v5e's SELU: 6.4e-6 from NumPy's at most, over 10^6 values). A wrong formula is 1e-3
# off or more.
AGREE = {"cpu": {"rtol": 1e-5, "atol": 1e-6}, "other": {"rtol": 1e-5, "atol": 2e-5}}


def agree_within(backend: str) -> dict[str, float]:
    """AGREE's tolerance for results computed on `backend` (jax.default_backend())."""
    return AGREE["cpu" if backend == "cpu" else "other"]


# Thresholds of every verdict on the site (how-this-site-is-built prints them).
SAME = 1.10  # two timings within 10 % of each other are "about the same"
CLOSE = 2.0  # a winner by less than 2x is "close"


def _median(value) -> float:
    if isinstance(value, Timing):
        return value.median
    return value["median"] if isinstance(value, dict) else float(value)


def _quartiles(value) -> tuple[float, float]:
    if isinstance(value, Timing):
        return value.q1, value.q3
    if isinstance(value, dict):
        return value.get("q1", value["median"]), value.get("q3", value["median"])
    return float(value), float(value)


def compare(a, b, names=("a", "b"), reads=None, expect=None) -> dict:
    """Which of two timings (Timing, its as_dict(), or seconds) is faster, as data a
    page words: winner/loser (names, None when "same"), ratio (slower / faster, >= 1),
    its range over both interquartile ranges, and kind: "same" (within SAME, or the
    ranges say either could be faster), "close" (under CLOSE) or "faster". `reads`:
    where in the results' data a and b are (the tests re-derive the verdict there).
    `expect`: the name the chapter's explanation expects to win; "expected" then says
    whether it did (the page says so plainly when not, and the build's log names it)."""
    ma, mb = _median(a), _median(b)
    (a1, a3), (b1, b3) = _quartiles(a), _quartiles(b)
    if ma <= mb:
        winner, loser, ratio, low, high = names[0], names[1], mb / ma, b1 / a3, b3 / a1
    else:
        winner, loser, ratio, low, high = names[1], names[0], ma / mb, a1 / b3, a3 / b1
    noise = low < 1 < ratio  # the ranges overlap past parity: this run cannot tell
    kind = "same" if ratio < SAME or noise else "close" if ratio < CLOSE else "faster"
    same = kind == "same"
    verdict = {"kind": kind, "winner": None if same else winner,
               "loser": None if same else loser, "faster": winner, "slower": loser,
               "ratio": ratio, "low": low, "high": high, "names": list(names)}
    if reads:
        verdict["reads"] = list(reads)
    if expect is not None:
        verdict.update(expect=expect, expected=verdict["winner"] == expect)
    return verdict


def trend(values: list[float], reads: str | None = None) -> dict:
    """Whether a series rises or falls (each step by more than SAME - 1 of its value, or
    within it), as data: kind "rises", "falls", "flat" or "mixed", and last / first."""
    steps = [b / a for a, b in zip(values, values[1:])]
    up = [s >= SAME for s in steps]
    down = [s <= 1 / SAME for s in steps]
    kind = ("rises" if all(u or not d for u, d in zip(up, down)) and any(up) else
            "falls" if all(d or not u for u, d in zip(up, down)) and any(down) else
            "flat" if not any(up) and not any(down) else "mixed")
    verdict = {"kind": kind, "factor": values[-1] / values[0], "first": values[0],
               "last": values[-1]}
    if reads:
        verdict["reads"] = reads
    return verdict


# ---------------------------------------------------------------- tables as data
# A table is data: word keys for its headings (each edition's page or words file holds
# the words), and rows of cells, each a number, a name (a plain string: a function, an
# error class, shown as it is in both editions) or one of the typed cells below.

@dataclass
class Table:
    columns: list[str]  # word keys of the headings
    rows: list[list[Any]]
    fields: dict[str, Any] = field(default_factory=dict)  # numbers headings may name

    def as_dict(self) -> dict[str, Any]:
        return {"columns": self.columns, "rows": self.rows, "fields": self.fields}


def seconds(value: float) -> dict:
    return {"seconds": value}


def timing(t) -> dict:
    """Median with its interquartile range (a Timing or its as_dict())."""
    q1, q3 = _quartiles(t)
    return {"timing": [_median(t), q1, q3]}


def ratio(value: float) -> dict:
    return {"ratio": value}


def ratio_of(slow, fast) -> dict:
    """slow / fast with the range spanned by the two interquartile ranges."""
    (s1, s3), (f1, f3) = _quartiles(slow), _quartiles(fast)
    return {"ratio": _median(slow) / _median(fast), "range": [s1 / f3, s3 / f1]}


def word(key: str, **fields) -> dict:
    """A cell each edition words: the key of its words, with numbers they may name."""
    return {"word": key, **({"fields": fields} if fields else {})}


def bold(cell) -> dict:
    return {"bold": cell}


def pair(cell, other) -> dict:
    """A cell and, in brackets, another: a time and its ratio to a yardstick."""
    return {"pair": [cell, other]}


def plain_cell(cell) -> str:
    """A cell as text without an edition's words (a reader's terminal: keys show)."""
    if isinstance(cell, dict):
        if "seconds" in cell:
            return fmt_seconds(cell["seconds"])
        if "timing" in cell:
            m, q1, q3 = cell["timing"]
            return f"{fmt_seconds(m)} ({fmt_seconds(q1)} to {fmt_seconds(q3)})"
        if "ratio" in cell:
            low, high = cell.get("range") or (None, None)
            spread = f" ({fmt_ratio(low)} to {fmt_ratio(high)})" if low else ""
            return fmt_ratio(cell["ratio"]) + spread
        if "word" in cell:
            return cell["word"]
        if "bold" in cell:
            return f"**{plain_cell(cell['bold'])}**"
    if isinstance(cell, int) and not isinstance(cell, bool):
        return f"{cell:,}"
    return str(cell)


SNIPPETS = str(Path(__file__).resolve().parent) + "/"  # this folder, with its slash


def relative_paths(text: str, folder: str = SNIPPETS, shown_as: str = "") -> str:
    """`text` with the absolute `folder` cut down to `shown_as`: a page names
    snippets/ files as a reader's copy does, and never shows where the build ran."""
    return text.replace(folder, shown_as)


MALLOC_KEEP = {"mmap_threshold": 64 << 20, "trim_threshold": 256 << 20}


def keep_freed_memory() -> dict[str, int]:
    """Tell glibc's malloc to keep the memory it frees for the next allocation, so a
    timing does not depend on what ran before it. Returns what was set ({} elsewhere).

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
        return {}
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    m_trim_threshold, m_mmap_threshold = -1, -3  # glibc's <malloc.h>
    if not (libc.mallopt(m_mmap_threshold, MALLOC_KEEP["mmap_threshold"])
            and libc.mallopt(m_trim_threshold, MALLOC_KEEP["trim_threshold"])):
        raise OSError("glibc refused mallopt: timings would depend on allocator state")
    return {f"glibc_{name}_mib": value >> 20 for name, value in MALLOC_KEEP.items()}


# ---------------------------------------------------------------- where it ran

def machine() -> dict[str, Any]:
    """The host CPU's name and how many cores this process may run on.

    The name is /proc/cpuinfo's model name. gVisor (the sandbox of the TPU machines
    this site was measured on) says "unknown" there, and so does `platform`: then the
    vendor and CPUID family, model and stepping, which still name the part."""
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if not line.strip():
                break  # the first processor's block is enough
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    except OSError:  # macOS, Windows
        pass
    cpu = fields.get("model name", "")
    if (not cpu or cpu.lower() == "unknown") and fields.get("vendor_id"):
        cpu = (f"{fields['vendor_id']} family {fields.get('cpu family', '?')} model "
               f"{fields.get('model', '?')} stepping {fields.get('stepping', '?')}")
    if not cpu or cpu.lower() == "unknown":  # uname -p says "unknown" on Linux
        cpu = platform.processor().replace("unknown", "") or platform.machine()
    cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
             else os.cpu_count())
    return {"cpu": cpu, "cores": cores}


def environment() -> dict[str, Any]:
    """Where a measurement was taken: stamped on every table and figure."""
    import jax
    import jaxlib

    import numpy

    return {
        **machine(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "backend": jax.default_backend(),
        "device": jax.devices()[0].device_kind,
        "libraries": {"jax": jax.__version__, "jaxlib": jaxlib.__version__,
                      "numpy": numpy.__version__},
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
    }


# --8<-- [start:machine_check]
def python_loop():  # one core's speed; frameworks_worker.py times it too (no JAX there)
    return sum(range(10_000))


def machine_check(repeats: int = 9) -> dict[str, float]:
    """How fast, and how busy, the machine is right now: medians of three tiny calls,
    in seconds (`repeats` samples each; quick mode takes fewer).

    A loop of pure Python runs on one core and follows that core's speed alone. A
    jitted call on 1,000 floats is almost all dispatch: its 1,000 flops are enough for
    XLA:CPU to hand the work to its runtime threads (a program under 1,000 runs on the
    calling thread), and Python waits for the answer. On a shared virtual machine that
    handoff can take a few microseconds or several times that, and flip between the
    two, when other work runs or for no visible reason. The same NumPy call runs on the
    calling thread. `main` takes this check before and after measuring, so two builds'
    timings can be read against the state of the machine each one met.
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


# ---------------------------------------------------------------- processes

# A machine check's call this much slower or faster after: a state change. Twice: the
# tiny jitted call differs by up to ~1.9x between two fresh processes started back to
# back on a quiet 2-core VM (thread placement); the slow states that moved this site's
# timings were 4-6x.
MOVED = 2.0


def state_change(before: dict, after: dict) -> float:
    """How far the machine's state moved between two machine checks: after / before of
    the call (machine_check's) that moved most, slower (> 1) or faster (< 1)."""
    return max((after[k] / before[k] for k in before), key=lambda r: max(r, 1 / r))


def check_change(results: dict) -> float | None:
    """How far a full-size run's machine check (its results' machine_check) moved while
    it measured (state_change); None for a quick run (its runs share the cores) or none.
    Pages read it as machine_change(results)."""
    check = {} if results.get("quick") else results.get("machine_check") or {}
    return state_change(check["start"], check["end"]) if check.get("start") else None


def state_moved(before: dict, after: dict) -> bool:
    """Whether the machine changed state while it measured (state_change, by MOVED)."""
    return not 1 / MOVED <= state_change(before, after) <= MOVED


def machine_state(checks: list[dict], kept: int) -> dict:
    """How the machine check held over in_processes' processes (`checks`, `kept` of them
    kept): "steady", "remeasured" (a process whose check moved was measured again) or
    "moved" (a kept process's check moved, out of attempts); `largest`: how far the
    check moved in the kept process that moved most (a factor, 1 or more)."""
    moved = sum(c["moved"] and c["kept"] for c in checks)
    largest = max((max(r, 1 / r) for c in checks if c["kept"]
                   for r in [state_change(c["start"], c["end"])]), default=1.0)
    return {"kind": "moved" if moved else "remeasured" if len(checks) > kept
            else "steady", "remeasured": len(checks) - kept, "moved": moved,
            "by": MOVED, "largest": largest}


def processes_apart(timings: dict, sizes: list) -> dict:
    """How far the processes' own medians lay apart, for each way (`timings`: way -> one
    pooled timing per size) and size: the largest over the smallest (`factors`). Where a
    way's factor is over MOVED, the machine check's mark of a state change, that row
    pools two states of the machine: `apart` lists those sizes (n, index), each with the
    way apart most, its lowest and highest process median and the factor; kind "apart"
    where there is one, else "together"."""
    factors = {way: [max(t.get("processes") or [t["median"]])
                     / min(t.get("processes") or [t["median"]]) for t in found]
               for way, found in timings.items()}
    apart = []
    for i, n in enumerate(sizes):
        way = max(timings, key=lambda w: factors[w][i])
        if factors[way][i] > MOVED:
            medians = timings[way][i]["processes"]
            apart.append({"n": n, "index": i, "way": way, "low": min(medians),
                          "high": max(medians), "factor": factors[way][i]})
    return {"kind": "apart" if apart else "together", "by": MOVED, "factors": factors,
            "apart": apart, "sizes": [a["n"] for a in apart],
            "indices": [a["index"] for a in apart]}


def checked(measure_once: Callable[[bool], dict], quick: bool) -> dict:
    """measure_once(quick) after a machine check, in a process of its own (in_processes
    takes the check after it in a fresh process)."""
    start = fresh_check(quick)  # this process is fresh still
    return {"start": start, "data": measure_once(quick)}


def fresh_check(quick: bool, host: bool = False) -> dict[str, float]:
    """machine_check in a new process (in_a_new_process runs it): a process that has
    measured keeps what it made (compiled programs, memory), and its own tiny calls are
    not the machine's state; quick mode (tests, a first preview) takes fewer samples.
    host: on the CPU, as the device may be held by the process that asks (main's
    check after `measure`). Frees memory as main() does, before anything large is
    allocated."""
    if host:
        import jax
        jax.config.update("jax_platforms", "cpu")
    keep_freed_memory()
    return machine_check(3 if quick else 9)


def in_a_new_process(function: Callable, *args):
    """function(*args) in a fresh Python process (its result comes back pickled).

    The process that starts it must not hold a device yet: an accelerator such as a
    TPU admits one process at a time, and a second one that opens it fails ("Internal
    error when accessing libtpu multi-process lockfile"). So a build snippet's process
    touches no device before its fresh processes have run: `main` reads the machine
    and the versions after `measure`, and a `measure` that measures in fresh processes
    starts them before it computes anything itself."""
    import multiprocessing

    spawn = multiprocessing.get_context("spawn")  # a new interpreter, no inherited JAX
    pool = spawn.Pool(1)
    try:
        return pool.apply(function, args)
    finally:  # let it exit and let go of the device (a `with` block would kill it)
        pool.close()
        pool.join()


def in_processes(measure_once: Callable[[bool], dict], quick: bool, count: int) -> dict:
    """measure_once(quick) in `count` fresh Python processes, one after another, as
    pyperf does: a number from one process carries that process's luck (where its
    memory landed, how its threads were placed). Each process is checked in fresh
    processes: at its start, before it measures, and after it, at the next one's start
    (or in one more that only checks). A process whose check moved (state_moved) is
    measured again, once per call at most (a process can take most of a minute); the
    page says how often. Returns each kept process's data and the checks of them all."""
    runs = [in_a_new_process(checked, measure_once, quick) for _ in range(count)]
    ends = [run["start"] for run in runs[1:]] + [in_a_new_process(fresh_check, quick)]
    checks = [{"start": run["start"], "end": end} for run, end in zip(runs, ends)]
    for check in checks:
        check["moved"] = state_moved(check["start"], check["end"])
    if any(check["moved"] for check in checks):  # one spare process
        runs.append(in_a_new_process(checked, measure_once, quick))
        end = in_a_new_process(fresh_check, quick)
        checks.append({"start": runs[-1]["start"], "end": end,
                       "moved": state_moved(runs[-1]["start"], end)})
    # the spare replaces the first process that moved (out of spares, the rest are kept)
    dropped = next(i for i, check in enumerate(checks) if check["moved"]) \
        if len(checks) > count else None
    for i, check in enumerate(checks):
        check["kept"] = i != dropped
    kept = [run["data"] for run, check in zip(runs, checks) if check["kept"]]
    return {"processes": kept, "checks": checks}


def pooled(timings: list[dict]) -> dict:
    """One timing from several processes' (Timing.as_dict()): quartiles of all their
    samples together, so the spread includes how processes differ; and each process's
    median beside it (`processes`)."""
    t = Timing([s for t in timings for s in t["samples"]], timings[0]["number"])
    return {**t.as_dict(), "processes": [t["median"] for t in timings]}


READS_FROM: Path | None = None  # main(): where the build keeps other snippets' results


def shared(name: str, quick: bool) -> dict:
    """The data of another build snippet's measurement (`name`, e.g. "selu_benchmark"):
    in a site build, the very results that snippet wrote (its pages show the same
    numbers); run alone, measured now by that snippet's own `measure`."""
    if READS_FROM is not None:
        path = READS_FROM / name / "results.json"
        return json.loads(path.read_text(encoding="utf-8"))["data"]
    import importlib

    return importlib.import_module(name).measure(quick)


# ---------------------------------------------------------------- the report

@dataclass
class Report:
    """What a build snippet's `report(data)` hands back: tables and verdicts (compare,
    trend: data a page words) from its data alone, so the tests can re-derive both from
    changed data."""

    tables: dict[str, Table] = field(default_factory=dict)
    verdicts: dict[str, Any] = field(default_factory=dict)  # name -> compare() ...


def results_of(data: dict, report: Report, figures: dict[str, Callable]) -> dict:
    """What results.json holds of a data-out snippet besides its stamp's parts."""
    return {"data": data, "verdicts": report.verdicts,
            "tables": {name: t.as_dict() for name, t in sorted(report.tables.items())},
            "figures": sorted(figures), "facts": list(FACTS_CHECKED)}


def print_tables(report: Report) -> None:
    for name, table in report.tables.items():
        rows = [[plain_cell(c) for c in row] for row in table.rows]
        print(f"\n{name}\n\n{markdown_table(table.columns, rows)}")


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


def main(measure: Callable[[bool], dict], report: Callable[[dict], Report],
         figures: dict[str, Callable], argv: list[str] | None = None,
         times_here: bool = True) -> dict:
    """Command line of every build snippet: ``[--quick] [--out DIR]``.

    times_here=False: `measure` times nothing on this machine (it reads a committed
    dataset), so no machine check is taken.

    `measure(quick)` returns numbers, `report(data)` the tables and verdicts; DIR gets
    results.json, and the site draws each figure (`figures[name](data, words)`) in each
    edition's words."""
    parser = argparse.ArgumentParser(
        description=(measure.__doc__ or "").strip() or None)
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and few repeats (tests, a first preview)")
    parser.add_argument("--out", type=Path, help="folder for results.json")
    parser.add_argument("--reads", type=Path, help="folder of other snippets' results "
                        "(the site build's); without it, `shared` measures them")
    args = parser.parse_args(argv)
    global READS_FROM
    READS_FROM = args.reads

    allocator = keep_freed_memory()  # before anything large is allocated
    plot_style()
    # Both machine checks run in fresh processes (fresh_check): no device work here
    # before `measure`, which may start fresh processes (see in_a_new_process).
    check = {}
    if times_here:
        check["start"] = in_a_new_process(fresh_check, args.quick, True)
    data = measure(args.quick)
    if times_here:
        check["end"] = in_a_new_process(fresh_check, args.quick, True)
    env = {**environment(), "allocator": allocator}
    # Numbers measured elsewhere (history/measure.py's rows) bring their stamp parts.
    env["libraries"].update(data.get("libraries", {}))
    env.update(data.get("environment", {}))
    report_ = report(data)
    print_tables(report_)
    mode = "quick mode (small sizes)" if args.quick else "full size"
    print(f"Measured on {env['cpu']}, {env['cores']} cores · "
          + ", ".join(f"{k} {v}" for k, v in env["libraries"].items())
          + f" · backend {env['backend']} ({env['device']}) · {env['date']} · {mode}")
    results = {"environment": env, "machine_check": check, "quick": args.quick,
               **results_of(data, report_, figures)}
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "results.json").write_text(json.dumps(results, indent=1),
                                               encoding="utf-8")
    sys.stdout.flush()
    return results
