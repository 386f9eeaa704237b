"""SELU measured three ways: eager JAX, jax.jit and NumPy.

python snippets/selu_benchmark.py          # full size: the tables for your machine
python snippets/selu_benchmark.py --quick  # small sizes, a few seconds
"""

import functools
import re
import time

import jax
import jax.numpy as jnp
import numpy as np

import published
from compilation import count_compilations
from compilers import scale_jit
from measurement import (
    CLOSE,
    Report,
    Table,
    Timing,
    bold,
    compare,
    machine_state,
    processes_apart,
    state_change,
    fact,
    in_processes,
    log_log_axes,
    main,
    pooled,
    ratio,
    ratio_of,
    seconds,
    time_calls,
    timing,
    word,
)
from selu import (
    docs_input,
    eager_call,
    eager_first_call,
    first_call_stages,
    jit_call,
    numpy_call,
    numpy_input,
    random_input,
    selu,
    selu_jit,
)

PUBLISHED = published.SELU  # quoted with their sources, beside this build's numbers
WAYS = ("eager", "jit", "numpy")


def three_ways(inputs):
    """(input key, way) -> a call of SELU on that input, for `time_calls`."""
    calls = {}
    for key, x in inputs.items():
        x_np = numpy_input(x)  # float32, like JAX's computation
        calls[key, "eager"] = lambda x=x: eager_call(x)
        calls[key, "jit"] = lambda x=x: jit_call(x)
        calls[key, "numpy"] = lambda x_np=x_np: numpy_call(x_np)
    return calls


def xla_threads(x):
    """Threads XLA splits jitted SELU's fused loop into for x, read from the optimized
    HLO (outer_dimension_partitions of the CPU backend): 1 where it does not split;
    None on another backend, which writes no such plan (a GPU runs kernels)."""
    if jax.default_backend() != "cpu":
        return None
    hlo = selu_jit.lower(x).compile().as_text()
    parts = [
        int(np.prod([int(p) for p in re.findall(r"\d+", found)]))
        for found in re.findall(r'"outer_dimension_partitions":\[([^\]]*)\]', hlo)
    ]
    return max(parts, default=1)


# XLA:CPU runs a program its cost analysis puts under this many flops on the calling
# thread, a larger one on its runtime threads (xla/pjrt/cpu/cpu_client.cc,
# cheap_computation_): a call on such a program returns only once its work is done.
INLINE_FLOPS = 1000


def xla_flops(fn, x):
    """XLA's count of the flops of jitted fn on x (its cost analysis; None where the
    backend gives none)."""
    return fn.lower(x).compile().cost_analysis().get("flops")


def check_machine_check_handed_off():
    """A fact the pages state: the machine check's jitted call (1,000 floats + 1, in
    measurement.py) is not under INLINE_FLOPS: on the CPU it goes to XLA's threads."""
    flops = xla_flops(jax.jit(lambda v: v + 1), jnp.zeros(1000, jnp.float32))
    fact("selu.machine_check_handed_off", jax.default_backend() != "cpu"
         or flops >= INLINE_FLOPS, f"XLA counts {flops} flops for the machine check's "
         f"call: under {INLINE_FLOPS}, XLA:CPU runs it on the calling thread")


def cores_busy(fn, seconds=0.3):
    """CPU time of this process (all its threads) over wall time, while fn runs."""
    fn()
    cpu, wall, calls = time.process_time(), time.perf_counter(), 0
    while time.perf_counter() - wall < seconds or calls < 3:
        fn()
        calls += 1
    return (time.process_time() - cpu) / (time.perf_counter() - wall)


def check_int32_conversions():
    """A fact the page states: on int32 input `x > 0` compares int32, and only the
    operands of exp and of the select are converted to float32."""
    jaxpr = jax.make_jaxpr(selu)(jnp.arange(4))
    gt = [e for e in jaxpr.eqns if e.primitive.name == "gt"]
    text = str(jaxpr)
    fact(
        "selu.int32_conversions",
        len(gt) == 1
        and gt[0].invars[0].aval.dtype == jnp.int32
        and text.count("convert_element_type") == 2,
        f"This JAX traces selu on int32 as:\n{text}",
    )


def normal_prefixes(sizes):
    """size -> random_input(size), each the first values of one draw at the largest
    size: JAX's draws for one seed are prefixes of each other, so the values are the
    same, and the random generator is compiled once, not once per size (and again
    after every jax.clear_caches() of a first call)."""
    pool = np.asarray(random_input(max(sizes)))
    return {size: jnp.asarray(pool[:size]) for size in sizes}


def sizes(quick):
    return [10**k for k in range(3, 6 if quick else 8)]


def headline_n(quick):
    return 10**5 if quick else 10**6


SMALL = (1, 10, 100)  # jitted calls this small are almost all the call's own cost
PROCESSES = 2  # each timing from this many processes, as pyperf does


def measure(quick: bool) -> dict:
    """Every SELU timing this site shows, each measured once per build: in several
    fresh processes (measure_once), pooled; the thread counts of this process."""
    runs = in_processes(measure_once, quick, PROCESSES)  # before any device work
    check_int32_conversions()
    check_machine_check_handed_off()
    each = runs["processes"]

    def pool(*path):  # one timing (or a list of them) across the processes
        found = [functools.reduce(lambda d, k: d[k], path, run) for run in each]
        if isinstance(found[0], list):
            return [pooled(list(ts)) for ts in zip(*found)]
        return pooled(found)

    n, ns = headline_n(quick), sizes(quick)
    normal = normal_prefixes([*SMALL, *ns, n + 1])
    docs = docs_input(n)
    first = {k: pool("first_call", k) for k in each[0]["first_call"]}
    at = ns.index(n)
    return {
        "n": n,
        "repeats": each[0]["repeats"],
        "processes": len(each),
        "checks": runs["checks"],
        "docs": {way: pool("docs", way) for way in WAYS},
        "scaling": {
            "n": ns,
            "xla_threads": [xla_threads(normal[size]) for size in ns],
            "flops": [xla_flops(selu_jit, normal[size]) for size in ns],
            **{way: pool("scaling", way) for way in (*WAYS, "scale_jit")},
        },
        "positive": {way: pool("positive", way) for way in ("numpy", "jit")},
        "one": {way: pool("one", way) for way in WAYS},  # n = 1
        "small": {"n": list(SMALL), "jit": pool("small", "jit"),
                  "flops": [xla_flops(selu_jit, normal[size]) for size in SMALL]},
        # XLA:CPU's inline threshold, where it applies (None on another backend)
        "inline_flops": INLINE_FLOPS if jax.default_backend() == "cpu" else None,
        "threads": {
            "xla": xla_threads(docs),
            "cores_busy": {
                way: cores_busy(three_ways({"docs": docs})["docs", way],
                                0.1 if quick else 0.3)
                for way in WAYS
            },
        },
        "first_call": {
            # the stages at the headline's size (medians), their sum at every size
            **{k: first[k][at]["median"] for k in STAGES},
            "total": first["total"][at],
            "sizes": {"first": first["total"], "compiling": first["compiling"]},
            "eager_first_call": first["eager_first_call"],
            "eager_compilations": each[0]["eager_compilations"],
            "repeats": len(first["total"][at]["samples"]),
        },
    }


STAGES = ("trace_and_lower", "compile", "first_execution")


def scale_call(x):
    return scale_jit(x).block_until_ready()


def measure_once(quick: bool) -> dict:
    """One process's measurement: every timing in one rotation (time_calls), then the
    first jitted call at every size and eager's first call (each clears every cache)."""
    repeats, min_sample = (5, 0.002) if quick else (9, 0.01)
    n, ns = headline_n(quick), sizes(quick)
    normal = normal_prefixes([*ns, *SMALL, n + 1])
    inputs = {"docs": docs_input(n), **{size: normal[size] for size in (*SMALL, *ns)}}
    calls = three_ways(inputs)
    calls = {k: c for k, c in calls.items() if k[0] not in SMALL[1:] or k[1] == "jit"}
    # the same values made positive: NumPy's and jit's work without random signs
    positive = three_ways({"positive": jnp.abs(normal[n])})
    calls.update({("positive", w): positive["positive", w] for w in ("numpy", "jit")})
    # a jitted 1.05 * x: the least work a program can do with each value (compilers)
    calls.update({(size, "scale_jit"): functools.partial(scale_call, normal[size])
                  for size in ns})
    timed = {k: t.as_dict() for k, t in
             time_calls(calls, repeats=repeats, min_sample_s=min_sample).items()}
    count = 1 if quick else 2  # first calls per size in this process
    first = {size: [first_call_stages(normal[size]) for _ in range(count)]
             for size in ns}

    def stages(size, keys):
        return Timing([sum(s[k] for k in keys) for s in first[size]], 1).as_dict()

    with count_compilations() as compiled:
        eager_first = eager_first_call(normal[n + 1])  # a new shape: compiles again
    return {
        "repeats": repeats,
        "docs": {way: timed["docs", way] for way in WAYS},
        "scaling": {way: [timed[size, way] for size in ns]
                    for way in (*WAYS, "scale_jit")},
        "positive": {way: timed["positive", way] for way in ("numpy", "jit")},
        "one": {way: timed[1, way] for way in WAYS},
        "small": {"jit": [timed[size, "jit"] for size in SMALL]},
        "first_call": {
            **{k: [stages(size, (k,)) for size in ns] for k in STAGES},
            "total": [stages(size, STAGES) for size in ns],
            "compiling": [stages(size, STAGES[:2]) for size in ns],
            "eager_first_call": Timing([eager_first], 1).as_dict(),
        },
        "eager_compilations": compiled.total(),
    }


def at_n(data, way):
    """A way's timing at the headline's size, on the normal input (one measurement)."""
    return data["scaling"][way][data["scaling"]["n"].index(data["n"])]


def numpy_most(data: dict) -> dict:
    """Where NumPy beat jax.jit by most (a compare() winner over n), and what explains
    it: kind "fixed_cost" (a one-element jitted call took half the jitted call there or
    more), "dearer_loop" (beyond their one-element calls, jit's call took longer than
    NumPy's: per element its loop was the dearer), "other", or "none" (NumPy never
    won)."""
    s, one = data["scaling"], data["one"]
    verdicts = [compare(a, b, ("numpy", "jit")) for a, b in zip(s["numpy"], s["jit"])]
    wins = [(v["ratio"], i) for i, v in enumerate(verdicts) if v["winner"] == "numpy"]
    if not wins:
        return {"kind": "none"}
    i = max(wins)[1]
    jit, numpy = s["jit"][i]["median"], s["numpy"][i]["median"]
    one_jit, one_numpy = one["jit"]["median"], one["numpy"]["median"]
    kind = ("fixed_cost" if 2 * one_jit >= jit else
            "dearer_loop" if jit - one_jit > numpy - one_numpy else "other")
    return {"kind": kind, "index": i}


def eager_dispatch(data: dict) -> dict:
    """What the eager call on the JAX docs' input is mostly made of: kind "dispatch"
    where a one-element eager call takes 1 / CLOSE of it or more (its fixed cost
    decides the eager/jit ratio), else "work"; share: the one-element call's part."""
    share = data["one"]["eager"]["median"] / data["docs"]["eager"]["median"]
    return {"kind": "dispatch" if share * CLOSE >= 1 else "work", "share": share}


def kept_moved(checks: list[dict]) -> dict:
    """Of the kept processes whose machine check moved (machine_state's "moved"), the
    one that moved most: the call of its check that moved most (`call`, a machine_check
    key), that call's time at the start and at the end, and the factor (1 or more).
    kind "spare" where that process is the only one kept that moved and is the spare,
    the process that measured again (in_processes appends it last); "other" where an
    original process was kept moved; "none" where no kept process moved."""
    moved = [c for c in checks if c["moved"] and c["kept"]]
    if not moved:
        return {"kind": "none"}
    factor = lambda start, end: max(r := state_change(start, end), 1 / r)  # noqa: E731
    most = max(moved, key=lambda c: factor(c["start"], c["end"]))
    call = max(most["start"],
               key=lambda k: factor({k: most["start"][k]}, {k: most["end"][k]}))
    spare = len(checks) > sum(c["kept"] for c in checks)  # a process was measured again
    only_spare = spare and len(moved) == 1 and moved[0] is checks[-1]
    return {"kind": "spare" if only_spare else "other", "call": call,
            "start": most["start"][call], "end": most["end"][call],
            "factor": factor(most["start"], most["end"])}


def report(data: dict) -> Report:
    """Tables and verdicts of the SELU page, from its data alone."""
    docs, s = data["docs"], data["scaling"]
    normal = {way: at_n(data, way) for way in WAYS}
    row = data["scaling"]["n"].index(data["n"])
    first, steady = data["first_call"], normal["jit"]["median"]
    in_calls = lambda t: ratio(t / steady)  # noqa: E731
    verdicts = {
        "jit_vs_eager": compare(
            docs["eager"], docs["jit"], ("eager", "jit"), ("docs.eager", "docs.jit"),
            "jit",
        ),
        "jit_vs_numpy": compare(
            docs["numpy"], docs["jit"], ("numpy", "jit"), ("docs.numpy", "docs.jit")
        ),
        **{
            f"{a}_vs_jit_{where}": compare(
                s[a][i],
                s["jit"][i],
                (a, "jit"),
                (f"scaling.{a}.{i}", f"scaling.jit.{i}"),
                # the chapter explains jit beating eager, and NumPy at large n
                "jit" if a == "eager" or where == "largest" else None,
            )
            for a in ("eager", "numpy")
            for where, i in (("normal", row), ("smallest", 0), ("largest", -1))
        },
        # Do random signs cost NumPy, or jit, more than the same values made positive?
        **{
            f"{way}_signs": compare(
                normal[way], data["positive"][way], ("signs", "positive"),
                (f"scaling.{way}.{row}", f"positive.{way}"),
            )
            for way in ("numpy", "jit")
        },
    }
    verdicts["numpy_most"] = numpy_most(data)
    verdicts["eager_dispatch"] = eager_dispatch(data)
    verdicts["machine_state"] = machine_state(data["checks"], data["processes"])
    verdicts["kept_moved"] = kept_moved(data["checks"])  # the page names the call
    # the rows whose processes disagreed, of the ways this page shows
    verdicts["processes_apart"] = processes_apart({w: s[w] for w in WAYS}, s["n"])
    plan = data["threads"]["xla"] is not None  # XLA:CPU writes a thread plan; no other
    tables = {
        "headline": Table(
            ["input", "eager", "jit" if plan else "jit_on_device", "numpy",
             "eager_vs_jit", "numpy_vs_jit"],
            [
                [word(key)]
                + [timing(t[way]) for way in WAYS]
                + [ratio_of(t["eager"], t["jit"]), ratio_of(t["numpy"], t["jit"])]
                for key, t in (("docs_input", docs), ("normal_input", normal))
            ],
            {"n": data["n"], "threads": data["threads"]["xla"]},
        ),
        "threads": Table(
            ["what", "eager", "jit", "numpy"],
            ([[word("loop_threads"), word("xla_per_op"), data["threads"]["xla"], 1]]
             if plan else [])
            + [
                [word("cores_busy")]
                + [round(data["threads"]["cores_busy"][w], 2) for w in WAYS],
            ],
        ),
        "published": Table(
            ["source", "eager", "jit", "eager_vs_jit", "timing"],
            [
                [word(key), seconds(e), seconds(j), ratio(e / j), word(f"{key}_timing")]
                for key, (e, j) in PUBLISHED.items()
            ]
            + [
                [
                    word("this_build", n=data["n"]),
                    seconds(docs["eager"]["best"]),
                    seconds(docs["jit"]["best"]),
                    ratio(docs["eager"]["best"] / docs["jit"]["best"]),
                    word("best_of", samples=len(docs["jit"]["samples"]),
                         processes=data["processes"]),
                ]
            ],
        ),
        "first_call": Table(
            ["stage", "time", "in_steady_calls"],
            [
                [
                    word("trace_and_lower"),
                    seconds(first["trace_and_lower"]),
                    in_calls(first["trace_and_lower"]),
                ],
                [
                    word("compile"),
                    seconds(first["compile"]),
                    in_calls(first["compile"]),
                ],
                [
                    word("first_execution"),
                    seconds(first["first_execution"]),
                    in_calls(first["first_execution"]),
                ],
                [
                    bold(word("first_total")),
                    bold(timing(first["total"])),
                    bold(in_calls(first["total"]["median"])),
                ],
                [word("steady"), seconds(steady), ratio(1)],
                [
                    word("eager_first", compilations=first["eager_compilations"]),
                    timing(first["eager_first_call"]),
                    in_calls(first["eager_first_call"]["median"]),
                ],
            ],
        ),
        "scaling": Table(
            [
                "n",
                "eager",
                "jit",
                *(["xla_threads"] if plan else []),
                "numpy",
                "eager_vs_jit",
                "numpy_vs_jit",
            ],
            [
                [
                    size,
                    timing(e),
                    timing(j),
                    *([threads] if plan else []),
                    timing(p),
                    ratio_of(e, j),
                    ratio_of(p, j),
                ]
                for size, e, j, threads, p in zip(
                    s["n"], s["eager"], s["jit"], s["xla_threads"], s["numpy"]
                )
            ],
        ),
    }
    return Report(tables=tables, verdicts=verdicts)


def scaling_figure(data, words):
    """Time per call against n, each way's median with its interquartile band."""
    import matplotlib.pyplot as plt

    s = data["scaling"]
    fig, ax = plt.subplots()
    for way, marker in zip(WAYS, "os^"):
        ax.plot(s["n"], [t["median"] for t in s[way]], marker=marker, label=words[way])
        ax.fill_between(
            s["n"], [t["q1"] for t in s[way]], [t["q3"] for t in s[way]], alpha=0.25
        )
    log_log_axes(
        ax, words["xlabel"], words["ylabel"], words["title"], legend_fontsize=None
    )
    return fig


def first_call_figure(data, words):
    """Bars: each stage's median, and the count of steady calls the first call costs."""
    import matplotlib.pyplot as plt

    first = data["first_call"]
    steady, eager = at_n(data, "jit")["median"], first["eager_first_call"]["median"]
    fig, ax = plt.subplots(figsize=(6.4, 2.6))
    left = 0.0
    for key in ("trace_and_lower", "compile", "first_execution"):
        ax.barh(
            words["first_jitted"],
            first[key] * 1e3,
            left=left,
            label=words[f"bar_{key}"],
        )
        left += first[key] * 1e3
    ax.barh(
        words["bar_eager_first"].format(compilations=first["eager_compilations"]),
        eager * 1e3,
        color="0.6",
    )
    for y, ms, secs in ((0, left, first["total"]["median"]), (1, eager * 1e3, eager)):
        ax.text(
            ms,
            y,
            " " + words["steady_calls"].format(calls=f"{secs / steady:,.0f}"),
            va="center",
            fontsize=8,
        )
    ax.set_xlim(0, max(left, eager * 1e3) * 1.45)
    ax.set_xlabel(words["milliseconds"])
    ax.set_title(words["figure_title"].format(n=f"{data['n']:,}"))
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


FIGURES = {"scaling": scaling_figure, "first_call": first_call_figure}

if __name__ == "__main__":
    main(measure, report, FIGURES)
