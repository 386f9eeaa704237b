"""Has jit got faster? The rows history/measure.py measured, as the chapter's numbers.

The build runs no old JAX release: history/measure.py measured each one in its own
environment and committed the rows to history/releases.csv. This snippet reads that file
(it measures nothing itself), checks that the release this site runs is in it, and turns
it into the chapter's tables, verdicts and figures. Beside the dataset's installed
release it sets the SELU chapter's jitted call at the dataset's smaller n, as this build
timed it (snippets/selu_benchmark.py's results; run alone, that snippet measures first).

    python snippets/jax_history.py     # the chapter's tables, from the committed rows
"""

import ast
import csv
import hashlib
import statistics
from importlib.metadata import version
from pathlib import Path

import published
from deeponet import DEFAULT
from measurement import (DocumentationMismatch, Report, Table, compare, fact, main,
                         pair, ratio, seconds, shared, word)

ROOT = Path(__file__).resolve().parent.parent
# What this snippet reads outside snippets/: the build's cache key covers these files
# (sitebuild/snippet_runs.py `data_files`): new rows or a new probe re-render the page.
DATA = ("history/releases.csv", "history/probe.py")
DATASET, PROBE = DATA
REFRESH = "python history/measure.py --releases {release}"

# Release dates, from JAX's CHANGELOG.md (jax-ml/jax): the date of each "jax X" heading.
RELEASED = {
    "0.4.13": "2023-06-22", "0.4.14": "2023-07-27", "0.4.16": "2023-09-18",
    "0.4.17": "2023-10-03", "0.4.18": "2023-10-06", "0.4.19": "2023-10-19",
    "0.4.20": "2023-11-02", "0.4.21": "2023-12-04", "0.4.22": "2023-12-13",
    "0.4.23": "2023-12-13", "0.4.24": "2024-02-06", "0.4.25": "2024-02-26",
    "0.4.26": "2024-04-03", "0.4.27": "2024-05-07", "0.4.28": "2024-05-09",
    "0.4.29": "2024-06-10", "0.4.30": "2024-06-18", "0.4.31": "2024-07-29",
    "0.4.33": "2024-09-16", "0.4.34": "2024-10-04", "0.4.35": "2024-10-22",
    "0.4.36": "2024-12-05", "0.4.37": "2024-12-09", "0.4.38": "2024-12-17",
    "0.5.0": "2025-01-17", "0.5.1": "2025-02-24", "0.5.2": "2025-03-04",
    "0.5.3": "2025-03-19", "0.6.0": "2025-04-16", "0.6.1": "2025-05-21",
    "0.6.2": "2025-06-17", "0.7.0": "2025-07-22", "0.7.1": "2025-08-20",
    "0.7.2": "2025-09-16", "0.8.0": "2025-10-15", "0.8.1": "2025-11-18",
    "0.8.2": "2025-12-18", "0.8.3": "2026-01-28",  # no heading: its tag's date
    "0.9.0": "2026-01-20", "0.9.1": "2026-03-02",
    "0.9.2": "2026-03-18", "0.10.0": "2026-04-16", "0.10.1": "2026-05-20",
    "0.10.2": "2026-06-17",
    # from here: the package index's upload date of the jax wheel (its CHANGELOG.md
    # headings were not at hand; for 0.10.2 the two agree)
    "0.11.0": "2026-07-16", "0.11.1": "2026-08-17", "0.11.2": "2026-09-17",
    "0.12.0": "2026-10-19", "0.12.0.1": "2026-10-21",
}

# What each series is measured against: a yardstick timed in the same process, so that a
# process on a slower moment of the machine does not pass for a slower release.
YARDSTICK = {
    "selu_jit_large": "selu_numpy_large", "selu_eager_large": "selu_numpy_large",
    "selu_jit_small": "selu_numpy_small", "selu_eager_small": "selu_numpy_small",
    "dispatch_eager": "dispatch_numpy", "dispatch_jit": "dispatch_numpy",
    "deeponet_jit": "numpy_mlp", "deeponet_eager": "numpy_mlp",
    # A first call is counted in NumPy SELU calls at the larger n of the same process.
    **{f"first_{s}": "selu_numpy_large"
       for s in ("trace", "lower", "trace_lower", "compile", "run", "call")},
    "deeponet_jit_first": "numpy_mlp", "deeponet_eager_first": "numpy_mlp",
}
YARDSTICKS = ["selu_numpy_large", "selu_numpy_small", "dispatch_numpy", "numpy_mlp",
              "python_loop"]
SCALARS = {"deeponet_jit_first", "deeponet_eager_first", "import_s", "first_op_s"}
ABSOLUTE = sorted(set(YARDSTICK) | set(YARDSTICKS) | {"import_s", "first_op_s"})
# The series the chapter words: the first release against the last, and (STEPS) the two
# neighbouring releases between which a series moved most.
HEADLINE = ["selu_jit_large", "selu_eager_large", "selu_jit_small", "selu_eager_small",
            "dispatch_eager", "dispatch_jit", "first_trace_lower", "first_compile",
            "first_call", "deeponet_jit", "deeponet_eager", "deeponet_jit_first"]
STEPS = ["selu_jit_large", "selu_jit_small", "first_trace_lower", "first_compile",
         "dispatch_eager", "deeponet_jit", "deeponet_eager", "deeponet_jit_first"]
# ... and (WORST) the first release against the later one where a series was slowest.
WORST = ["selu_jit_large", "deeponet_jit_first"]
# The series whose verdicts read their times, not their ratios to a yardstick: the
# page's tables show first calls in milliseconds and seconds (a first call does other
# work than its yardstick, which moved beside newer releases while the machine held
# still).
UNDIVIDED = {"first_trace_lower", "first_compile", "first_call", "deeponet_jit_first"}
# The changes JAX's CHANGELOG.md names that could move these costs, at the first
# measured release that has them (the chapter cites each entry).
CHANGES = {
    "slow_compile": ("0.4.28", ["first_compile"]),  # jaxlib 0.4.28's fix
    # jaxlib 0.4.32 (yanked): the new CPU runtime; jax 0.4.32: CPU dispatch asynchronous
    # in more cases. Both first measured at 0.4.33, so the chapter cannot separate them.
    "cpu_runtime": ("0.4.33", ["first_compile", "selu_jit_large", "selu_jit_small",
                               "dispatch_eager", "deeponet_jit"]),
    "stackless": ("0.4.36", ["first_trace_lower", "dispatch_eager"]),  # jax 0.4.36
    "direct_linearize": ("0.7.0", ["deeponet_jit_first", "deeponet_eager"]),
}
WAYS = ("eager", "jit", "numpy")
# XLA:CPU, with asynchronous dispatch, runs a program of fewer flops than this (XLA's
# cost analysis) on the calling thread and hands a larger one to its runtime threads
# (xla/pjrt/cpu/cpu_client.cc: cheap_computation_). The probe's programs, by XLA's
# count (tests/test_jax_history.py checks it): SELU on jnp.arange(n), 6 flops per
# value (the int32 -> float32 conversion counts); dispatch's a + b on 10 values.
INLINE_FLOPS = 1000
SELU_FLOPS_PER_VALUE, ADD_FLOPS = 6, 10
# What a release measured on two Pythons shows of the Python alone, in seconds.
BRIDGED = ["python_loop", "dispatch_eager", "dispatch_jit", "selu_jit_small",
           "selu_jit_large", "first_trace_lower", "first_compile", "deeponet_jit",
           "deeponet_eager"]
# The JAX docs' SELU figures (the JAX 101 notebook's outputs, 2022, Colab): eager,
# jitted; and as the Korean post quotes them (its eager figure differs).
DOCS = published.SELU["jax101"]
POST = published.SELU["post"]


def release_key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def code_digest(source: str) -> str:
    """A digest of Python code that its comments, docstrings and layout do not change:
    the probe's, stamped on each row by history/measure.py, which imports this one."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    # unparsed, not ast.dump: the dump's form changes between Pythons, the code does not
    return hashlib.sha256(ast.unparse(tree).encode()).hexdigest()[:12]


def probe_digest(root: Path = ROOT) -> str:
    """The probe code this checkout measures with: rows of another measured else."""
    return code_digest((root / PROBE).read_text(encoding="utf-8"))


def read_rows(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def spread(values: list[float]) -> dict:
    """Median over processes, with the lowest and highest process as its range."""
    return {"median": statistics.median(values), "q1": min(values), "q3": max(values)}


def quiet(row: dict) -> bool:
    """Whether a process started on a quiet machine: a one-minute load average of at
    most its cores plus one (the probe's own threads count). On a busier machine JAX's
    threads and NumPy's one thread lose different shares of the cores, so even the
    ratio to the yardstick moves (by 2x and more in this dataset)."""
    return row.get("load_start", "") != "" and \
        float(row["load_start"]) <= int(row["cores"]) + 1


def kept(measured: list[dict]) -> list[dict]:
    """A release's processes that count: the quiet ones, when there are any."""
    return [r for r in measured if quiet(r)] or measured


def per_release(rows: list[dict], measured: int) -> dict:
    """One release's processes: each series' median per process, over processes."""
    out = {"release": rows[0]["release"], "python": rows[0]["python"],
           "processes": len(rows),
           "measured": measured, "quiet": quiet(rows[0]),
           "jaxlib": sorted({r["jaxlib"] for r in rows}),
           "numpy": sorted({r["numpy"] for r in rows}),
           "stages": rows[0]["stages"], "dates": sorted({r["date"][:10] for r in rows}),
           "absolute": {}, "relative": {}}

    def value(row, name):
        cell = row.get(name if name in SCALARS else f"{name}_median", "")
        return float(cell) if cell not in ("", None) else None

    for name in ABSOLUTE:
        values = [v for v in (value(r, name) for r in rows) if v is not None]
        if values:
            out["absolute"][name] = spread(values)
    for name, stick in YARDSTICK.items():
        pairs = [(value(r, name), value(r, stick)) for r in rows]
        values = [a / b for a, b in pairs if a is not None and b]
        if values:
            out["relative"][name] = spread(values)
    loads = [float(r[k]) for r in rows for k in ("load_start", "load_end") if r.get(k)]
    out["load"] = spread(loads) if loads else None
    return out


def first_release_with(rows: list[dict], releases: list[str], column: str) -> dict:
    """Each value of a column, and the first release that ran with it."""
    found = {}
    for release in releases:
        for r in rows:
            if r["release"] == release:
                found.setdefault(r[column], release)
    return found


def by_python(ok: list[dict]) -> tuple[list[dict], list[dict]]:
    """Each release's rows on the oldest Python that ran it (the chapter's series), and
    the rest: the same release run again on a newer Python, to show what the Python
    alone changed."""
    oldest = {}
    for r in ok:
        if r["release"] not in oldest or \
                release_key(r["python"]) < release_key(oldest[r["release"]]):
            oldest[r["release"]] = r["python"]
    main = [r for r in ok if r["python"] == oldest[r["release"]]]
    return main, [r for r in ok if r["python"] != oldest[r["release"]]]


def python_spans(stats: list[dict]) -> list[dict]:
    """Runs of neighbouring releases measured on one Python: which ran where, and the
    pure-Python loop's lowest and highest median there (the machine's drift alone)."""
    spans = []
    for s in stats:
        loop = s["absolute"]["python_loop"]["median"]
        if spans and spans[-1]["python"] == s["python"]:
            span = spans[-1]
            span.update(last=s["release"], count=span["count"] + 1,
                        python_loop=[min(span["python_loop"][0], loop),
                                     max(span["python_loop"][1], loop)])
        else:
            spans.append({"python": s["python"], "first": s["release"],
                          "last": s["release"], "count": 1,
                          "python_loop": [loop, loop]})
    return spans


def load(path: Path, installed: str, digest: str) -> dict:
    """The dataset as the chapter's data; stops when it lacks the installed release."""
    rows = [r for r in read_rows(path) if r["quick"] != "1" and r["probe"] == digest]
    ok, again = by_python([r for r in rows if r["status"] == "ok"])
    releases = sorted({r["release"] for r in ok}, key=release_key)
    groups = {r: [x for x in ok if x["release"] == r] for r in releases}
    used = {r: kept(group) for r, group in groups.items()}
    stats = [per_release(used[r], len(groups[r])) for r in releases]
    # The one-minute load average of the kept processes, at their start (what `quiet`
    # reads) and at their end, apart: one range of both would pass the start's limit.
    loads = {k: [float(x[k]) for r in releases for x in used[r] if x.get(k)]
             for k in ("load_start", "load_end")}
    n_kept = sum(len(rows) for rows in used.values())
    if installed not in releases:
        raise DocumentationMismatch(
            f"{DATASET} has no rows for jax {installed}, the release this site runs "
            f"(measured with this {PROBE}, digest {digest}): the chapter would compare "
            "old releases with nothing current. Refresh it with "
            f"`{REFRESH.format(release=installed)}` (minutes) and commit the rows.")
    failed = {}  # releases with no process that ran: why (pip's or Python's words)
    for r in rows:
        if r["status"] != "ok" and r["release"] not in releases:
            failed[r["release"]] = {"release": r["release"], "status": r["status"],
                                    "error": r["reason"], "date": r["date"][:10]}
    # A release measured on two Pythons: its stats on each, the series' Python first.
    bridges = []
    for release in sorted({r["release"] for r in again}, key=release_key):
        on_new = [r for r in again if r["release"] == release]
        newest = max((r["python"] for r in on_new), key=release_key)
        on_new = [r for r in on_new if r["python"] == newest]
        i = releases.index(release)
        bridges.append({"release": release, "stats": [
            stats[i], per_release(kept(on_new), len(on_new))]})
    return {
        "installed": installed, "probe": digest, "path": DATASET,
        "releases": releases,
        "pythons": python_spans(stats),
        "bridge": bridges[-1] if bridges else None,
        "released": {r: RELEASED.get(r) for r in releases},
        "failed": sorted(failed.values(), key=lambda f: release_key(f["release"])),
        # A list in release order: verdicts name their numbers by index ("stats.3...").
        "stats": stats,
        "numpy_from": first_release_with(ok, releases, "numpy"),
        "stages_from": first_release_with(ok, releases, "stages"),
        "machine": {"cpus": sorted({r["cpu"] for r in ok}),
                    "cores": sorted({int(r["cores"]) for r in ok}),
                    "python": sorted({r["python"] for r in ok}),
                    "dates": [min(r["date"][:10] for r in ok),
                              max(r["date"][:10] for r in ok)],
                    "rows": len(ok), "kept": n_kept, "left_out": len(ok) - n_kept,
                    "quiet_load": max(int(r["cores"]) for r in ok) + 1,
                    "commits": sorted({r["commit"] for r in ok}),
                    **{k: [min(v, default=0), max(v, default=0)]
                       for k, v in loads.items()},
                    "python_loop": [f(s["absolute"]["python_loop"]["median"]
                                      for s in stats) for f in (min, max)]},
        "sizes": {"n_small": int(ok[0]["n_small"]), "n_large": int(ok[0]["n_large"]),
                  "deeponet": {k: int(v) for k, v in (part.split("=") for part in
                                                      ok[0]["deeponet_size"].split())},
                  # the DeepONet chapter's networks, beside the probe's
                  "chapter": {"width": DEFAULT.width, "hidden_layers": DEFAULT.depth}},
        # The stamp's parts: these numbers were measured by history/measure.py, not by
        # the build that renders them (snippets/measurement.py takes `libraries`).
        "libraries": {"jax": f"{releases[0]}–{releases[-1]}",
                      "jaxlib": f"{releases[0]}–{releases[-1]}",
                      "numpy": " / ".join(sorted({r["numpy"] for r in ok},
                                                 key=release_key))},
        "post": dict(zip(("eager", "jit"), POST)),  # the page quotes its source
        "environment": {"cpu": " / ".join(sorted({r["cpu"] for r in ok})),
                        "cores": max(int(r["cores"]) for r in ok),
                        "python": " / ".join(sorted({r["python"] for r in ok})),
                        "date": max(r["date"][:10] for r in ok)},
    }


def this_build(selu: dict, n: int) -> dict | None:
    """The SELU chapter's jitted call at n (its standard normal float32 input), as this
    build timed it, and the backend it ran on; None where the chapter has no such n."""
    import jax

    scaling = selu["scaling"]
    if n not in scaling["n"]:
        return None
    t = scaling["jit"][scaling["n"].index(n)]
    return {"n": n, "jit": {k: t[k] for k in ("median", "q1", "q3")},
            "backend": jax.default_backend()}


def measure(quick: bool) -> dict:
    """Read the committed dataset (quick or not: nothing is measured here), and the
    SELU chapter's jitted call beside it (this build's; run alone, measured first)."""
    selu = shared("selu_benchmark", quick)  # first: alone, it starts processes
    data = load(ROOT / DATASET, version("jax"), probe_digest())
    fact("history.jaxlib_is_its_jax", all(
        s["jaxlib"] == [r] for r, s in zip(data["releases"], data["stats"])),
        "the chapter says every release ran with the jaxlib of its own version")
    data["here"] = this_build(selu, data["sizes"]["n_small"])
    return data


# ------------------------------------------------------------ the chapter's verdicts

def kind_of(name: str) -> str:
    """Which of a series' numbers its verdicts read: "absolute" for UNDIVIDED ones."""
    return "absolute" if name in UNDIVIDED else "relative"


def series(data: dict, name: str, kind: str = "relative") -> list[dict | None]:
    return [stats[kind].get(name) for stats in data["stats"]]


def compared(data: dict, name: str, i: int, j: int,
             kind: str = "relative") -> dict | None:
    """Release i against release j on one series (relative to its yardstick, or in
    seconds: kind "absolute")."""
    a, b = (data["stats"][k][kind].get(name) for k in (i, j))
    if a is None or b is None:
        return None
    return compare(a, b, (data["releases"][i], data["releases"][j]),
                   (f"stats.{i}.{kind}.{name}", f"stats.{j}.{kind}.{name}"))


def largest_step(data: dict, name: str) -> dict | None:
    """Between which two neighbouring releases a series moved most: a step within the
    spread of the processes counts as none, and one clear of it but under SAME ("same"
    with low > 1) comes after every larger one."""
    steps = [v for i in range(1, len(data["releases"]))
             if (v := compared(data, name, i - 1, i, kind_of(name))) is not None]

    def size(v):
        same = v["kind"] == "same"
        return (0, 0.0) if same and v["low"] <= 1 else (1 - same, v["ratio"])
    return max(steps, key=size, default=None)


def across(data: dict, release: str, name: str) -> dict | None:
    """A series across the change `release` brought: the measured release before it
    against it (None when either is not in the dataset)."""
    releases = data["releases"]
    if release not in releases or releases.index(release) == 0:
        return None
    i = releases.index(release)
    return compared(data, name, i - 1, i, kind_of(name))


def handoff(data: dict) -> dict:
    """Jitted SELU at the smaller n against jitted a + b across the new CPU runtime and
    asynchronous dispatch (CHANGES' "cpu_runtime"): kind "selu_only" where SELU, a
    program XLA:CPU hands to its runtime threads, got slower ("faster" or "close") and
    a + b, which runs on the calling thread, did not ("same" or faster); else "other".
    With the threshold and both programs' flops, which the page prints."""
    flops = {"selu": SELU_FLOPS_PER_VALUE * data["sizes"]["n_small"], "add": ADD_FLOPS}
    selu, add = (across(data, CHANGES["cpu_runtime"][0], name)
                 for name in ("selu_jit_small", "dispatch_jit"))
    slower = lambda v: v["kind"] != "same" and v["winner"] == v["names"][0]  # noqa: E731
    only = (selu and add and slower(selu) and not slower(add)
            and flops["selu"] >= INLINE_FLOPS > flops["add"])
    return {"kind": "selu_only" if only else "other", "threshold": INLINE_FLOPS,
            "flops": flops}


def one_python(data: dict) -> tuple[int, int]:
    """The first and last release of the longest run of neighbouring releases measured
    on one Python (the earliest such run on a tie): between them the pure-Python loop
    moves with the machine alone."""
    run = max(data["pythons"], key=lambda p: p["count"])
    return data["releases"].index(run["first"]), data["releases"].index(run["last"])


def report(data: dict) -> Report:
    """Tables and verdicts of the chapter, from the dataset's summary alone."""
    releases, stats = data["releases"], data["stats"]
    last = len(releases) - 1
    verdicts = {}
    for name in HEADLINE:
        verdicts[name] = compared(data, name, 0, last, kind_of(name))
    for name in STEPS:
        verdicts[f"{name}_step"] = largest_step(data, name)
    first, end = one_python(data)  # did the yardsticks hold still, on one Python?
    for name in ("python_loop", "selu_numpy_large"):
        verdicts[f"yardstick_{name}"] = compared(data, name, first, end, "absolute")
    # NumPy's own SELU at the smaller n, first release to last: what a ratio to it hides
    verdicts["numpy_selu_small"] = compared(data, "selu_numpy_small", 0, last,
                                            "absolute")
    for name in WORST:  # the slowest release after the first (the first may be slowest)
        kind = kind_of(name)
        values = [t["median"] if t else 0.0 for t in series(data, name, kind)][1:]
        worst = 1 + values.index(max(values))
        verdicts[f"{name}_worst"] = compared(data, name, 0, worst, kind)
    for change, (release, names) in CHANGES.items():
        for name in names:
            verdicts[f"{change}_{name}"] = across(data, release, name)
    verdicts["handoff"] = handoff(data)
    bridge = data.get("bridge")
    for name in BRIDGED if bridge else ():
        a, b = (s["absolute"].get(name) for s in bridge["stats"])
        if a and b:
            verdicts[f"python_{name}"] = compare(
                a, b, tuple(s["python"] for s in bridge["stats"]),
                tuple(f"bridge.stats.{k}.absolute.{name}" for k in (0, 1)))
    verdicts = {k: v for k, v in verdicts.items() if v is not None}
    # This build's SELU chapter beside the dataset, the installed release at the smaller
    # n (on a CPU, as the dataset's rows): "faster", CLOSE (= MOVED) apart or more, is
    # the machine's doing, not JAX's, as the release is the same.
    here = data.get("here")
    if here and here["backend"] == "cpu" and data["installed"] in releases:
        i = releases.index(data["installed"])
        if "selu_jit_small" in stats[i]["absolute"]:
            verdicts["here_selu_jit_small"] = compare(
                stats[i]["absolute"]["selu_jit_small"], here["jit"],
                (data["installed"], "build"),
                (f"stats.{i}.absolute.selu_jit_small", "here.jit"))
    # The docs' eager / jit ratio (the notebook's figures, which the post quotes) beside
    # each release's (both in one process each).
    ratios = [s["relative"]["selu_eager_large"]["median"]
              / s["relative"]["selu_jit_large"]["median"] for s in stats]
    post = DOCS[0] / DOCS[1]
    verdicts["post"] = {"ratio": post, "lowest": min(ratios), "highest": max(ratios),
                        "below": sum(r < post for r in ratios), "of": len(ratios),
                        "eager": DOCS[0], "jit": DOCS[1], "quoted": list(POST)}

    def cell(i, name, kind="relative"):
        t = stats[i][kind].get(name)
        if t is None:
            return word("not_exposed")
        return seconds(t["median"]) if kind == "absolute" else ratio(t["median"])

    def both(i, name):  # the time, and in brackets its ratio to the yardstick
        t, r = (stats[i][kind].get(name) for kind in ("absolute", "relative"))
        if t is None or r is None:
            return word("not_exposed")
        return pair(seconds(t["median"]), ratio(r["median"]))

    rows = list(enumerate(releases))
    sizes = {k: data["sizes"][k] for k in ("n_large", "n_small")}  # headings name them
    # A time and its ratio share a cell, and the yardsticks' own times are in the last
    # table: the page stays under its budget of HTML elements with a row per release.
    tables = {
        "selu": Table(
            ["release", "jit_large", "eager_large_vs_numpy", "jit_small",
             "eager_small_vs_numpy"],
            [[r, both(i, "selu_jit_large"), cell(i, "selu_eager_large"),
              both(i, "selu_jit_small"), cell(i, "selu_eager_small")] for i, r in rows],
            sizes),
        "first_call": Table(
            ["release", "trace_lower", "compile", "first_call"],
            [[r] + [cell(i, f"first_{s}", "absolute")
                    for s in ("trace_lower", "compile", "call")] for i, r in rows],
            sizes),
        "dispatch": Table(
            ["release", "dispatch_eager", "dispatch_jit"],
            [[r, both(i, "dispatch_eager"), both(i, "dispatch_jit")] for i, r in rows]),
        "deeponet": Table(
            ["release", "deeponet_jit", "deeponet_eager", "deeponet_jit_first"],
            [[r, both(i, "deeponet_jit"), cell(i, "deeponet_eager", "absolute"),
              cell(i, "deeponet_jit_first", "absolute")] for i, r in rows],
            {**sizes, **data["sizes"]["deeponet"]}),
        # with what each release ran (every jaxlib is its jax's version, as installed)
        "yardsticks": Table(
            ["release", "released", "python", "numpy", "processes", *YARDSTICKS],
            [[r, data["released"].get(r) or "", stats[i]["python"],
              ", ".join(stats[i]["numpy"]),
              word("kept_of", kept=stats[i]["processes"],
                   measured=stats[i]["measured"])]
             + [cell(i, n, "absolute") for n in YARDSTICKS] for i, r in rows],
            sizes),
    }
    return Report(tables=tables, verdicts=verdicts)


# ---------------------------------------------------------------- figures

def label(words, key, data):
    """A figure's word, with the sizes it may name filled in."""
    return words[key].format(n_large=f"{data['sizes']['n_large']:,}",
                             n_small=f"{data['sizes']['n_small']:,}")


def _axes_over_releases(ax, data, words, ylabel, title):
    releases = data["releases"]
    ax.set_xticks(range(len(releases)), releases, rotation=60, ha="right", fontsize=8)
    ax.set(ylabel=label(words, ylabel, data), title=label(words, title, data),
           xlabel=label(words, "xlabel", data))
    ax.figure.tight_layout(rect=(0, 0.03, 1, 1))


def _lines(ax, data, names, words, kind="relative", scale=1.0):
    x = range(len(data["releases"]))
    for name, marker in zip(names, "os^vD<>"):
        values = series(data, name, kind)
        pts = [(i, v) for i, v in zip(x, values) if v is not None]
        if not pts:
            continue
        xs = [i for i, _ in pts]
        med = [v["median"] * scale for _, v in pts]
        low = [(v["median"] - v["q1"]) * scale for _, v in pts]
        high = [(v["q3"] - v["median"]) * scale for _, v in pts]
        ax.errorbar(xs, med, yerr=[low, high], marker=marker, capsize=2,
                    label=label(words, name, data))


def selu_figure(data, words):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    _lines(ax, data, ["selu_eager_large", "selu_jit_large", "selu_eager_small",
                      "selu_jit_small"], words)
    ax.axhline(1.0, color="0.5", lw=1, ls="--")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    _axes_over_releases(ax, data, words, "ylabel", "title")
    return fig


def first_call_figure(data, words):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    _lines(ax, data, ["first_trace_lower", "first_compile", "first_call"], words,
           kind="absolute", scale=1e3)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    _axes_over_releases(ax, data, words, "ylabel", "title")
    return fig


def dispatch_figure(data, words):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    _lines(ax, data, ["dispatch_eager", "dispatch_jit", "dispatch_numpy"], words,
           kind="absolute", scale=1e6)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    _axes_over_releases(ax, data, words, "ylabel", "title")
    return fig


def deeponet_figure(data, words):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    _lines(ax, data, ["deeponet_eager", "deeponet_jit"], words)
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    _axes_over_releases(ax, data, words, "ylabel", "title")
    return fig


def yardsticks_figure(data, words):
    """Each yardstick over releases, relative to its own median: the machine's drift."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    x = range(len(data["releases"]))
    for name, marker in zip(YARDSTICKS, "os^vD"):
        values = series(data, name, "absolute")
        mid = statistics.median(v["median"] for v in values if v)  # its own scale
        ax.plot([i for i, v in zip(x, values) if v],
                [v["median"] / mid for v in values if v], marker=marker,
                label=label(words, name, data))
    ax.axhline(1.0, color="0.5", lw=1, ls="--")
    ax.set_yscale("log")
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain)
    ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    _axes_over_releases(ax, data, words, "ylabel", "title")
    return fig


FIGURES = {"selu": selu_figure, "first_call": first_call_figure,
           "dispatch": dispatch_figure, "deeponet": deeponet_figure,
           "yardsticks": yardsticks_figure}

if __name__ == "__main__":
    main(measure, report, FIGURES, times_here=False)  # a committed dataset
