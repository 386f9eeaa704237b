"""The interpreter ladder: SELU as a pure-Python loop, in NumPy, eager JAX and jax.jit.

    python snippets/interpreters_benchmark.py          # full size: your tables
    python snippets/interpreters_benchmark.py --quick  # small sizes, a few seconds

Also shows what CPython runs for the pure-Python loop: its bytecode, for this Python.
"""

import platform
import re

import jax
import jax.numpy as jnp
import numpy as np

from interpreters import (RUNGS, instructions_executed, instructions_per_element,
                          ladder_inputs, loop_body_bytecode, never_run_copy, quickened,
                          selu_python)
from measurement import (CLOSE, SAME, Report, Table, agree_within, compare, fact,
                         fmt_seconds, main, ratio, ratio_of, seconds, shared,
                         time_calls, timing, word)
from selu import random_input, selu

KEYS = {"python": "pure Python", "numpy": "NumPy", "eager": "eager JAX",
        "jit": "jax.jit"}  # data's keys: RUNGS' names
COLORS = {"python": "C3", "numpy": "C2", "eager": "C0", "jit": "C1"}
# The CPython the page's note on quickening and counting describes (its facts checked
# there; on another Python the page says what that Python did).
NOTE_PYTHON = "3.13"
# The instructions the page names and describes: present in the loop on every Python.
NAMED = ("FOR_ITER", "COMPARE_OP", "BINARY_OP", "CALL", "JUMP_BACKWARD")
COMPILED = ("numpy", "eager", "jit")  # the rungs the SELU chapter times
# CPython's specialized list.append also runs the POP_TOP after it, one dispatch for
# both (SKIP_OVER in Python/bytecodes.c: 3.13's CALL_LIST_APPEND, 3.12's
# CALL_NO_KW_LIST_APPEND); sys.monitoring, which de-specializes, counts both
APPENDS = ("CALL_LIST_APPEND", "CALL_NO_KW_LIST_APPEND")
OPNAME = re.compile(r"[A-Z][A-Z0-9_]+")


def measure(quick: bool) -> dict:
    """Time the pure-Python rung beside the SELU chapter's measurement of the other
    three (one number per quantity on every page); show the bytecode and count it."""
    sel = shared("selu_benchmark", quick)  # NumPy, eager JAX and jax.jit, timed there
    n = sel["n"]
    at = sel["scaling"]["n"].index(n)
    repeats, min_sample = (5, 0.002) if quick else (7, 0.01)

    # -- one n, one input for every rung: random_input(n), as the SELU chapter's
    x = random_input(n)
    inputs = ladder_inputs(x)
    results = {name: np.asarray(rung(inputs[name]), dtype=np.float32)
               for name, rung in RUNGS.items()}
    agreement = rungs_agree(results, jax.default_backend())
    fact("interpreters.rungs_agree", not agreement["differ"],
         f"these rungs differ from jax.jit beyond {agreement['within']}: "
         f"{agreement['differ']} (largest differences {agreement['largest']})")
    # The loop on every value, and on the first alone (the fixed cost of one call)
    one = ladder_inputs(jnp.asarray(np.asarray(x)[:1]))
    python = time_calls({"ladder": lambda: selu_python(inputs["pure Python"]),
                         "one": lambda: selu_python(one["pure Python"])},
                        repeats=repeats, min_sample_s=min_sample)
    bytecode = {"plain": loop_body_bytecode(),  # and after many runs, quickened:
                "adaptive": loop_body_bytecode(adaptive=True)}
    swapped = quickened()
    named = [op for op in NAMED if op not in bytecode["plain"].split()]
    fact("interpreters.named_instructions", not named,
         f"Python {platform.python_version()}'s loop has no {named}:\n"
         + bytecode["plain"])

    # -- how many dispatches each rung makes per call
    counts = instructions_per_element()
    positive = int(np.count_nonzero(inputs["NumPy"] > 0))
    sample = inputs["pure Python"][:200]  # the per-branch counts predict a real run
    sample_positive = sum(v > 0 for v in sample)
    predicted = (counts["fixed"] + counts["positive"] * sample_positive
                 + counts["negative"] * (len(sample) - sample_positive))
    counted = instructions_executed(selu_python, sample)
    fact("interpreters.counts_add_up", counted == predicted,
         f"{len(sample)} elements ran {counted} instructions; the per-branch counts "
         f"{counts} predict {predicted}")

    small = sel["small"]  # jitted calls on 1, 10, 100 values; 1,000 is the scaling's
    sizes = [*small["n"][1:], sel["scaling"]["n"][0]]
    return {
        "n": n, "repeats": repeats, "positive": positive, "instructions": counts,
        "agreement": agreement,
        "processes": sel["processes"],
        "python_instructions": (counts["fixed"] + counts["positive"] * positive
                                + counts["negative"] * (n - positive)),
        "one_python_instructions": instructions_executed(selu_python,
                                                         one["pure Python"]),
        "operations": len(jax.make_jaxpr(selu)(x).jaxpr.eqns),  # the formula's
        "ladder": {"python": python["ladder"].as_dict(),
                   **{key: sel["scaling"][key][at] for key in COMPILED}},
        "one": {"python": python["one"].as_dict(),
                **{key: sel["one"][key] for key in COMPILED}},
        "small": {"n": sizes, "jit": [*small["jit"][1:], sel["scaling"]["jit"][0]],
                  # XLA's flop counts, and the count from which XLA:CPU hands off
                  "flops": [*small["flops"][1:], sel["scaling"]["flops"][0]],
                  "inline_flops": sel["inline_flops"]},
        # XLA's threads at n, and at the largest small n (the scaling's first)
        "threads": {"xla": sel["scaling"]["xla_threads"][at],
                    "xla_small": sel["scaling"]["xla_threads"][0],
                    "eager_cores_busy": sel["threads"]["cores_busy"]["eager"]},
        "quickening": quickening(swapped, counts),
        "bytecode": bytecode,
    }


def rungs_agree(results, backend):
    """Which rungs' values differ from jax.jit's beyond the precision of the backend
    that ran it (measurement.AGREE), and each rung's largest difference."""
    within, jit = agree_within(backend), results["jax.jit"]
    return {"backend": backend, "within": within,
            "differ": [name for name, values in results.items()
                       if not np.allclose(values, jit, **within)],
            "largest": {name: float(np.max(np.abs(values - jit)))
                        for name, values in results.items()}}


def quickening(swapped, counts):
    """What this Python swapped into the loop (`quickened()` after the timed runs), and
    whether the count is of instructions regardless (the same count as for a copy that
    never ran). The page's note describes CPython 3.13: there, all three are facts."""
    fresh = instructions_per_element(never_run_copy(selu_python))
    python = ".".join(platform.python_version_tuple()[:2])
    if python == NOTE_PYTHON:
        fact("interpreters.cpython313_specializes_the_loop",
             bool(swapped["specialized"]), f"CPython {python} swapped in {swapped}")
        # 3.11 fused pairs at run time (LOAD_FAST__LOAD_FAST); 3.13's compiler emits
        # LOAD_FAST_LOAD_FAST in the plain bytecode, and nothing is fused while running
        fact("interpreters.cpython313_fuses_nothing_at_run_time", not swapped["fused"],
             f"CPython {python} fused {swapped['fused']} while running")
        fact("interpreters.cpython313_counts_plain_instructions", fresh == counts,
             f"CPython {python} counted {counts} after quickening and {fresh} on a "
             "copy that never ran")
    return {"python": python, "note_python": NOTE_PYTHON, **swapped,
            "count_unchanged": fresh == counts}


def append_skips(listing: str) -> dict:
    """Whether the quickened loop (`loop_body_bytecode(adaptive=True)`'s text) holds
    a specialized list.append followed by POP_TOP: kind "skips" (then the timed loop,
    which nothing watches, dispatches one instruction fewer per element than counted:
    the loop appends once per element) or "none"."""
    names = ([w for w in line.split() if OPNAME.fullmatch(w)]
             for line in listing.splitlines())
    ops = [found[0] for found in names if found]  # each line's instruction
    found = [a for a, b in zip(ops, ops[1:]) if a in APPENDS and b == "POP_TOP"]
    return {"kind": "skips" if found else "none",
            "instruction": found[0] if found else None}


def report(data: dict) -> Report:
    """Tables and verdicts of the interpreters page, from its data alone."""
    n, ladder, one, small = data["n"], data["ladder"], data["one"], data["small"]
    dispatches = {"python": data["python_instructions"], "numpy": data["operations"],
                  "eager": data["operations"], "jit": 1}
    one_dispatches = {**dispatches, "python": data["one_python_instructions"]}
    # the one value's branch, where the counts tell it (the row names it)
    counts = data["instructions"]
    branch = [b for b in ("positive", "negative")
              if data["one_python_instructions"] == counts["fixed"] + counts[b]]
    one_python = ("dispatch_python" if len(branch) != 1
                  else f"dispatch_python_{branch[0]}")
    per_element_jit = ladder["jit"]["median"] / n
    # What the largest small call adds to a one-element call, beside that call and
    # beside its elements at the ladder's rate (the ladder's XLA threads, which may not
    # be the small call's: the rate is not scaled, the page names both counts)
    one_jit = one["jit"]["median"]
    extra = small["jit"][-1]["median"] - one_jit
    work = per_element_jit * small["n"][-1]
    at_n, at_small = data["threads"]["xla"], data["threads"]["xla_small"]

    def rungs(a, b):  # two rungs of the ladder
        return compare(ladder[a], ladder[b], (a, b), (f"ladder.{a}", f"ladder.{b}"))

    verdicts = {
        "python_vs_jit": rungs("python", "jit"),
        "python_vs_numpy": rungs("python", "numpy"),
        "numpy_vs_jit": rungs("numpy", "jit"),
        # Does a jitted call cost the same on the largest small input as on one value?
        "jit_small": compare(small["jit"][-1], one["jit"], ("larger", "one"),
                             (f"small.jit.{len(small['jit']) - 1}", "one.jit")),
        # ... and what it adds: kind "own" (no more than a one-element call: that call's
        # own cost is most of it), "work" (more, but at most CLOSE times its elements'
        # work at the ladder's rate; "about" it: within SAME) or "step" (more than both)
        "jit_small_work": {
            "kind": ("own" if extra <= one_jit else
                     "work" if extra <= CLOSE * work else "step"),
            "share": extra / one_jit, "one": one_jit,
            "ratio": extra / work, "about": 1 / SAME < extra / work < SAME,
            "extra": extra, "work": work, "n": small["n"][-1],
            "threads": at_small, "ladder_threads": at_n,
            # XLA:CPU ran the smaller calls on the calling thread, this one on its
            # threads: the handoff, a step of its own (CPU only; flops by XLA's count)
            "handoff": bool(small.get("inline_flops")) and small["flops"][-2]
            < small["inline_flops"] <= small["flops"][-1]},
        "append_skips": append_skips(data["bytecode"]["adaptive"]),
    }
    tables = {
        "ladder": Table(
            ["rung", "translated", "dispatches", "time", "per_element", "vs_jit"],
            [[word(key), word(f"translated_{key}"),
              word(f"dispatch_{key}", count=dispatches[key]),
              timing(t), seconds(t["median"] / n),
              ratio(1.0) if key == "jit" else ratio_of(t, ladder["jit"])]
             for key, t in ladder.items()],
            {"n": n}),
        "one_element": Table(
            ["rung", "time_one", "dispatches_one", "vs_python"],
            [[word(key), timing(t),
              word(one_python if key == "python" else f"dispatch_{key}",
                   count=one_dispatches[key]),
              ratio(1.0) if key == "python" else ratio_of(t, one["python"])]
             for key, t in one.items()]),
        "small": Table(
            ["n", "jit_time", "vs_one", "work"],
            [[1, timing(one["jit"]), ratio(1.0), seconds(per_element_jit)]]
            + [[size, timing(t), ratio_of(t, one["jit"]),
                seconds(per_element_jit * size)]
               for size, t in zip(small["n"], small["jit"])],
            {"n": n}),
    }
    return Report(tables=tables, verdicts=verdicts)


def ladder_figure(data, words):
    """Bars: each rung's median time per element, whiskers its interquartile range."""
    import matplotlib.pyplot as plt

    n, ladder = data["n"], data["ladder"]
    keys = list(ladder)[::-1]  # barh draws upwards: pure Python ends up on top
    per = [ladder[k]["median"] / n * 1e9 for k in keys]
    low = [(ladder[k]["median"] - ladder[k]["q1"]) / n * 1e9 for k in keys]
    high = [(ladder[k]["q3"] - ladder[k]["median"]) / n * 1e9 for k in keys]
    fig, ax = plt.subplots(figsize=(6.4, 2.9))
    ax.barh([words[k] for k in keys], per, xerr=[low, high],
            color=[COLORS[k] for k in keys], capsize=3)
    for y, (value, above) in enumerate(zip(per, high)):  # label past the whisker
        ax.text((value + above) * 1.2, y, fmt_seconds(value * 1e-9), va="center",
                fontsize=8)
    ax.set_xscale("log")
    ax.set_xlim(min(per) / 3, max(p + h for p, h in zip(per, high)) * 10)
    ax.set_xlabel(words["xlabel"])
    ax.set_title(words["title"].format(n=f"{n:,}"))
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


FIGURES = {"ladder": ladder_figure}

if __name__ == "__main__":
    main(measure, report, FIGURES)
