"""SELU and a training step in NumPy, Numba, PyTorch, TensorFlow and JAX, side by side.

    python snippets/frameworks_benchmark.py          # full size, for your machine
    python snippets/frameworks_benchmark.py --quick  # small, cheaper torch.compile

Each framework runs in a process of its own (frameworks_worker.py), one after another
(quick mode: two at a time), with fresh compile caches; this process prepares the
inputs, checks that the results agree with JAX's, and makes the tables and the figure.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

import frameworks as fw
import frameworks_worker as worker
from deeponet import DEFAULT, SMALL
from measurement import (Figure, Report, Timing, fmt_ratio, fmt_ratio_range,
                         fmt_seconds, fmt_timing, main, markdown_table, ratio_range)
from selu import selu_jit

FRAMEWORKS = ("numpy", "numba", "torch", "tensorflow", "jax")
TITLES = {"numpy": "NumPy", "numba": "Numba", "torch": "PyTorch",
          "tensorflow": "TensorFlow", "jax": "JAX"}
# Quick mode: one hidden layer of 8, so that the first calls (compiles) stay short,
# and XLA (this process, the JAX worker) without its optimization passes.
QUICK = replace(SMALL, width=8, depth=1, latent=8, batch_size=32)
ENVIRON = dict(os.environ)  # the workers' start, without quick mode's XLA_FLAGS
QUICK_XLA_FLAGS = ("--xla_backend_optimization_level=0 "
                   "--xla_llvm_disable_expensive_passes=true")
QUICK_XLA_ENV = f"{ENVIRON.get('XLA_FLAGS', '')} {QUICK_XLA_FLAGS}".strip()
SELU_TOLERANCE = 1e-5  # largest |difference| to jax.jit's SELU (outputs reach about 5)
LOSS_TOLERANCE = 1e-4  # relative, on each of the first steps' losses
PARAM_TOLERANCE = 1e-5  # absolute, on every weight: 1/300 of one Adam step (3e-3)
SLUGS = {"NumPy": "numpy", "@njit": "njit", "@njit(parallel=True)": "njit_parallel",
         "eager": "eager", "torch.compile": "compile", "tf.function": "function",
         "tf.function(jit_compile=True)": "xla", "jax.jit": "jit"}
PREFIX = {"torch": "torch_", "tensorflow": "tf_", "jax": "jax_"}  # NumPy, Numba: none


def slug(name, label):
    """A variant's name in text keys (text.pi.tf_xla.first): numpy, njit,
    njit_parallel, torch_eager, torch_compile, tf_eager, tf_function, tf_xla,
    jax_eager, jax_jit."""
    return PREFIX.get(name, "") + SLUGS[label]


def prepare(folder, quick):
    """What every worker reads: the DeepONet problem, and jax.jit's SELU outputs."""
    p = fw.problem(QUICK if quick else DEFAULT)
    arrays = {f"p{i}": a for i, a in enumerate(p.pop("params"))}
    arrays.update({f"b{i}": a for i, a in enumerate(p.pop("batch"))})
    np.savez(folder / "problem.npz", **arrays)
    (folder / "problem.json").write_text(json.dumps(p))
    np.savez(folder / "reference.npz", **{
        str(n): np.asarray(selu_jit(worker.selu_input(n)))
        for n in worker.sizes(quick)})


def run_worker(name, folder, quick):
    """One framework in a new process, with fresh caches; failing fails the build."""
    caches = Path(tempfile.mkdtemp(prefix=f"cache-{name}-", dir=folder))
    threads = str(len(os.sched_getaffinity(0)))
    # TMPDIR: TorchInductor keeps its precompiled C++ headers for later processes in
    # the temporary folder, outside its cache folder: they start cold here too
    env = {**ENVIRON, "TMPDIR": str(caches), "NUMBA_CACHE_DIR": str(caches / "numba"),
           "TORCHINDUCTOR_CACHE_DIR": str(caches / "inductor"), "OMP_NUM_THREADS":
           threads, "NUMBA_NUM_THREADS": threads, "TF_CPP_MIN_LOG_LEVEL": "2"}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)  # JAX: no persistent cache
    if quick and name == "jax":  # shorter compiles; the pages say so (xla_options)
        env["XLA_FLAGS"] = QUICK_XLA_ENV
    cmd = [sys.executable, str(Path(worker.__file__)), name, str(folder), "--threads",
           threads] + (["--quick"] if quick else [])
    start = time.perf_counter()
    # Popen keeps the worker in this process group: it dies with the build. wait4
    # gives its own CPU time (user + system, its threads and children such as g++),
    # true even while another worker runs beside it (quick mode).
    with open(caches / "stderr.txt", "w+") as errors:
        process = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                   stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds, cpu = time.perf_counter() - start, usage.ru_utime + usage.ru_stime
        errors.seek(0)
        stderr = errors.read()
    if process.returncode != 0:
        tail = "\n".join(stderr.splitlines()[-15:])
        raise SystemExit(f"frameworks_benchmark: {TITLES[name]} failed "
                         f"(exit {process.returncode}):\n{tail}")
    result = json.loads((folder / f"{name}.json").read_text())
    result["process"] = {"seconds": seconds, "cpu": cpu}  # the setup table shows it
    phases = "; ".join(f"{k} {s:.1f} s ({c:.1f} s CPU)" for k, (s, c)
                       in result["phases"].items() if s >= 0.05)  # the worker's own
    print(f"frameworks_benchmark: {TITLES[name]} took {seconds:.1f} s ({cpu:.1f} s "
          f"of CPU): {phases}", file=sys.stderr)
    return result, dict(np.load(folder / f"{name}.npz"))


def run_workers(folder, quick):
    """Every framework's worker: one after another; quick mode (numbers never
    published) two at a time, the slowest starts first, to finish sooner."""
    if not quick:
        return {name: run_worker(name, folder, quick) for name in FRAMEWORKS}
    slowest_first = ("tensorflow", "torch", "jax", "numba", "numpy")
    with ThreadPoolExecutor(len(os.sched_getaffinity(0))) as pool:
        runs = {name: pool.submit(run_worker, name, folder, quick)
                for name in slowest_first}
        return {name: runs[name].result() for name in FRAMEWORKS}


def check_agreement(results, params):
    """SELU within SELU_TOLERANCE of jax.jit; steps within theirs."""
    problems = []
    for name, r in results.items():
        for label, entry in r["selu"].items():
            worst = max(entry["max_diff"].values())
            if not worst <= SELU_TOLERANCE:
                problems.append(
                    f"{TITLES[name]} {label} SELU differs from jax.jit by {worst:.3g}")
        for kind, variants in r["steps"].items():
            ref = results["jax"]["steps"][kind]["jax.jit"]
            for label, entry in variants.items():
                if "error" in entry or "skipped" in entry:
                    continue
                loss = max(abs(a - b) / abs(b)
                           for a, b in zip(entry["losses"], ref["losses"]))
                keys = [k for k in params["jax"] if k.startswith(f"{kind}|jax.jit|")]
                weights = max(float(np.abs(params[name][k.replace("jax.jit", label)]
                                           - params["jax"][k]).max()) for k in keys)
                entry.update(loss_diff=loss, param_diff=weights)
                if not (loss <= LOSS_TOLERANCE and weights <= PARAM_TOLERANCE):
                    problems.append(
                        f"{TITLES[name]} {label} {kind} step: losses differ by "
                        f"{loss:.3g} (relative), weights by {weights:.3g}")
    if problems:
        raise SystemExit("frameworks_benchmark: results disagree with JAX's:\n" +
                         "\n".join(problems))


def timing(d):  # a Timing from its as_dict()
    return Timing(d["samples"], d["number"])


def measure(quick: bool) -> Report:
    """Run every framework in its own process; check agreement; tabulate."""
    start, cpu = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="frameworks-") as tmp:
        folder = Path(tmp)
        prepare(folder, quick)
        runs = run_workers(folder, quick)
    results = {name: r for name, (r, _) in runs.items()}
    took = {"seconds": time.perf_counter() - start,  # inputs and every process
            "cpu": time.process_time() - cpu + sum(r["process"]["cpu"]
                                                   for r in results.values())}
    check_agreement(results, {name: p for name, (_, p) in runs.items()})
    report = Report()
    report.data = {"results": results, "sizes": worker.sizes(quick), "took": took,
                   "tolerances": {"selu": SELU_TOLERANCE, "loss": LOSS_TOLERANCE,
                                  "params": PARAM_TOLERANCE}}
    rows = [(name, label) for name in FRAMEWORKS for label in results[name]["selu"]]
    steps = [(name, label) for name, label in rows
             if label in results[name]["steps"].get("data", {})]
    selu_tables(report, results, rows, worker.sizes(quick))
    step_tables(report, results, steps, quick)
    setup_table(report, results, quick, took)
    report.figures["overview"] = figure(results, rows, worker.sizes(quick)[-1])
    report.tables["overview"] = overview_table(results, rows, worker.sizes(quick)[-1])
    return report


def overview_table(results, rows, n):
    """The figure's numbers: medians once warm, and first calls."""
    def cells(e, key):
        if e is None:
            return ["·", "·"]
        if "error" in e:
            return ["fails to compile", "·"]
        if "skipped" in e:
            return [e["skipped"], "·"]
        t = e["timing"][key] if key else e["timing"]
        return [fmt_seconds(t["median"]), fmt_seconds(e["first"])]
    table = []
    for name, label in rows:
        steps = results[name]["steps"]
        table.append([title(name, label)]
                     + cells(results[name]["selu"][label], str(n))
                     + cells(steps.get("physics", {}).get(label), None)
                     + cells(steps.get("data", {}).get(label), None))
    return markdown_table(
        ["", f"SELU, n = {n:,}", "first call", "physics-informed step", "first call",
         "data-only step", "first call"], table)


def title(name, label):
    return f"{TITLES[name]} {label}" if name not in ("numpy",) else "NumPy"


def versus(t, ref, machine=(1.0, 1.0)):
    """How `t` compares with `ref` (jax.jit's), in words that hold either way.
    `machine`: how much slower the machine ran in t's process than in ref's
    (machine_factor), which the brackets cannot show. Faster or slower only when the
    ratio's range, spanned by the two interquartile ranges, lies on one side of 1 both
    as measured and divided by that factor; on par when both include 1; otherwise
    within the machine's drift."""
    r, low, high = ratio_range(t, ref)
    m_low, m_high = machine
    if low <= 1 <= high and low / m_high <= 1 <= high / m_low:
        return f"on par ({fmt_ratio(low)} to {fmt_ratio(high)})"  # "TensorFlow <this>"
    close = lambda x: f"{x:.2f}×" if max(x, 1 / x) < 1.1 else fmt_ratio(x)  # noqa: E731
    if low > 1 and low / m_high > 1:
        return f"{close(r)} slower"  # two decimals within 10 %: never "1× slower"
    if high < 1 and high / m_low < 1:
        return f"{close(1 / r)} faster"
    slower = m_low * m_high > 1  # which way the machine moved, and how far at most
    way = f"{close(m_high)} slower" if slower else f"{close(1 / m_low)} faster"
    return (f"within the machine's drift ({fmt_ratio(low)} to {fmt_ratio(high)}; it "
            f"ran up to {way} in that process)")


def machine_factor(results, name, ref):
    """How much slower the machine ran in `name`'s process than in `ref`'s, as a range:
    the ratios of their pure-Python loop times, each timed at start and end. One process
    gives (1, 1): its variants were sampled in turns, so its brackets hold its drift."""
    if name == ref:
        return 1.0, 1.0
    mine, theirs = (list(results[n]["python_loop"].values()) for n in (name, ref))
    return min(mine) / max(theirs), max(mine) / min(theirs)


def selu_tables(report, results, rows, ns):
    n = str(ns[-1])
    timed = {(name, label): timing(results[name]["selu"][label]["timing"][n])
             for name, label in rows}
    jit = timed["jax", "jax.jit"]
    table = []
    for name, label in rows:
        e, t = results[name]["selu"][label], timed[name, label]
        table.append([title(name, label), fmt_timing(t), fmt_seconds(e["first"]),
                      "1" if label == "jax.jit" else fmt_ratio_range(t, jit),
                      f"{max(e['max_diff'].values()):.1g}"])
        report.text.setdefault("selu", {})[slug(name, label)] = {  # text.selu.jax_jit
            "steady": fmt_seconds(t.median), "first": fmt_seconds(e["first"]),
            "vs_jit": versus(t, jit, machine_factor(results, name, "jax"))}
    report.tables["selu"] = markdown_table(
        ["SELU, n = " + f"{ns[-1]:,}", "per call, steady", "first call", "÷ jax.jit",
         "largest difference to jax.jit"], table)
    report.tables["selu_sizes"] = markdown_table(
        ["SELU, median per call"] + [f"n = {k:,}" for k in ns],
        [[title(name, label)] + [fmt_seconds(results[name]["selu"][label]["timing"][
            str(k)]["median"]) for k in ns] for name, label in rows])
    fastest, runner_up = sorted(rows, key=lambda row: timed[row].median)[:2]
    report.text.update(n=f"{ns[-1]:,}", n_sci=f"10^{len(n) - 1}",
                       sizes=", ".join(f"{k:,}" for k in ns), selu_ways=str(len(rows)),
                       selu_fastest=title(*fastest),
                       selu_runner_up={"name": title(*runner_up), "vs": versus(
                           timed[runner_up], timed[fastest],
                           machine_factor(results, runner_up[0], fastest[0]))})


def step_tables(report, results, steps, quick):
    table, agree = [], []
    jax_jit = {k: results["jax"]["steps"][k]["jax.jit"] for k in ("physics", "data")}
    jits = {k: timing(e["timing"]) for k, e in jax_jit.items() if "timing" in e}
    for name, label in steps:
        cells = [title(name, label)]
        for kind in ("physics", "data"):
            e, s = results[name]["steps"][kind][label], slug(name, label)
            key = "pi" if kind == "physics" else "data"
            if "error" in e:
                cells += ["fails to compile (below)", "·", "·"]
                report.text["torch_compile_error"] = e["error"].splitlines()[0][:300]
                continue
            shown = report.text.setdefault(key, {})  # text.pi.jax_jit.steady, ...
            if "skipped" in e:  # quick mode: every key the page quotes says so
                cells += [e["skipped"], "·", "·"]
                shown[s] = dict.fromkeys(("steady", "first", "vs_jit"), e["skipped"])
                continue
            t = timing(e["timing"])
            cells += [fmt_timing(t), fmt_seconds(e["first"]),
                      "1" if label == "jax.jit" else fmt_ratio_range(t, jits[kind])]
            shown[s] = {"steady": fmt_seconds(t.median),
                        "first": fmt_seconds(e["first"]),
                        "vs_jit": versus(t, jits[kind],
                                         machine_factor(results, name, "jax"))}
        table.append(cells)
        agree.append([title(name, label)] + [
            "·" if "loss_diff" not in e else
            f"{e['loss_diff']:.1g} / {e['param_diff']:.1g}"
            for e in (results[name]["steps"][k][label] for k in ("physics", "data"))])
    # quick mode skips that step, so the page's console block says so instead
    report.text.setdefault("torch_compile_error", "(quick mode: torch.compile was "
                           "not run on this step; the full build runs it, and checks "
                           "that it fails)")
    report.tables["steps"] = markdown_table(
        ["training step", "physics-informed, steady", "first call", "÷ jax.jit",
         "data only, steady", "first call", "÷ jax.jit"], table)
    report.tables["agreement"] = markdown_table(
        ["after 3 steps: loss (relative) / weights (absolute) diff. to jax.jit",
         "physics-informed", "data only"], agree)
    config = QUICK if quick else DEFAULT
    report.text.update(batch=f"{config.batch_size:,}", width=str(config.width),
                       depth=str(config.depth), steps=str(worker.AGREEMENT_STEPS))
    fastest = report.text["fastest"] = {}  # text.fastest.pi, text.fastest.data
    runner_up = report.text["runner_up"] = {}  # text.runner_up.pi.name, ...pi.vs
    for kind, key in (("physics", "pi"), ("data", "data")):
        timed = {r: timing(results[r[0]]["steps"][kind][r[1]]["timing"]) for r in steps
                 if "timing" in results[r[0]]["steps"][kind][r[1]]}
        done = sorted(timed, key=lambda r: timed[r].median)
        fastest[key] = title(*done[0]) if done else worker.SKIPPED
        # the fastest wins only if the next is not on par with it
        runner_up[key] = ({"name": title(*done[1]),
                           "vs": versus(timed[done[1]], timed[done[0]], machine_factor(
                               results, done[1][0], done[0][0]))}
                          if done[1:]
                          else dict.fromkeys(("name", "vs"), worker.SKIPPED))


def took_text(took):
    """Wall time, with the CPU time (all threads and child processes) beside it."""
    return f"{fmt_seconds(took['seconds'])} ({fmt_seconds(took['cpu'])} CPU)"


def setup_table(report, results, quick, took):
    table = []
    for name in FRAMEWORKS:
        r = results[name]
        th = r["threads"]
        threads = ", ".join(filter(None, [
            f"intra-op {th['intra_op']}" if th.get("intra_op") else None,
            f"inter-op {th['inter_op']}" if th.get("inter_op") else None,
            f"layer {th['layer']}" if th.get("layer") else None, th.get("note")]))
        loop = r["python_loop"]  # the machine's speed, at the process's start and end
        table.append([TITLES[name], r["version"], fmt_seconds(r["import_s"]), threads,
                      took_text(r["process"]),
                      f"{fmt_seconds(loop['start'])} → {fmt_seconds(loop['end'])}"])
        report.text.setdefault("imports", {})[name] = fmt_seconds(r["import_s"])
        report.text.setdefault("process", {})[name] = took_text(r["process"])
        report.text.setdefault("version", {})[name] = r["version"]
    loops = [v for n in FRAMEWORKS for v in results[n]["python_loop"].values()]
    report.text["machine_drift"] = fmt_ratio(max(loops) / min(loops))
    report.tables["setup"] = markdown_table(
        ["framework", "version", "import", "threads", "whole process",
         "pure-Python loop, start → end"], table)
    report.text["took"] = took_text(took)  # text.took: inputs and every process
    report.text["versions"] = " · ".join(f"{TITLES[n]} {results[n]['version']}"
                                         for n in FRAMEWORKS)
    report.text["process_order"] = (  # text.process_order: how the processes ran
        "two at a time (quick mode: sharing the cores)" if quick
        else "one after another, so no framework's threads or caches touch another's")
    report.text["torch_compile_backend"] = (
        "aot_eager (quick mode: no C++ generated)" if quick
        else "inductor (the default: generated C++)")
    report.text["xla_options"] = (  # text.xla_options: what quick mode changes in XLA
        f"{QUICK_XLA_FLAGS} (quick mode: XLA's backend optimizations off; the inputs "
        "were prepared so too)"
        if quick else "its default options")


def figure(results, rows, n) -> Figure:
    import matplotlib.pyplot as plt

    fig, (steady, first) = plt.subplots(1, 2, figsize=(7.6, 4.6), sharey=True)
    labels = [title(*r) for r in rows][::-1]
    marks = (("selu", "o", f"SELU, n = {n:,}"),
             ("physics", "^", "physics-informed step"), ("data", "s", "data-only step"))
    for y, (name, label) in enumerate(rows[::-1]):
        r = results[name]
        for i, (kind, marker, text) in enumerate(marks):
            e = (r["selu"] if kind == "selu" else r["steps"].get(kind, {})).get(label)
            if e is None or "timing" not in e:  # no such step, failed or skipped
                continue
            t = e["timing"][str(n)] if kind == "selu" else e["timing"]
            err = [[t["median"] - t["q1"]], [t["q3"] - t["median"]]]
            steady.errorbar(t["median"], y, xerr=err, fmt=marker, color=f"C{i}",
                            label=text)
            first.plot(e["first"], y, marker, color=f"C{i}")
        if "error" in r["steps"].get("physics", {}).get(label, {}):
            steady.text(0.98, y + 0.3, "physics-informed: fails", ha="right",
                        va="center", fontsize=7, transform=steady.get_yaxis_transform())
        if y and rows[::-1][y - 1][0] != name:  # a line between frameworks
            for ax in (steady, first):
                ax.axhline(y - 0.5, color="0.6", linewidth=0.6)
    for ax, what in ((steady, "per call, steady state (median, IQR)"),
                     (first, "first call, cold caches")):
        ax.set_xscale("log")
        ax.set_xlabel(f"seconds, {what}", fontsize=8)
    steady.set_yticks(range(len(labels)), labels, fontsize=8)
    handles, names = steady.get_legend_handles_labels()
    unique = dict(zip(names, handles))
    fig.legend(unique.values(), unique.keys(), loc="upper center", ncol=3, fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 0.93))
    jit = results["jax"]["selu"]["jax.jit"]
    alt = (f"Two dot plots on log scales, one row per framework and mode. Left: "
           f"seconds per call after warm-up for SELU at n = {n:,} and for two training "
           f"steps; right: the first call with cold caches. jax.jit's SELU takes "
           f"{fmt_seconds(jit['timing'][str(n)]['median'])} per call, its first call "
           f"{fmt_seconds(jit['first'])}. The table below gives every number.")
    versions = ", ".join(f"{TITLES[k]} {v['version']}" for k, v in results.items())
    skipped = any("skipped" in e for r in results.values()
                  for variants in r["steps"].values() for e in variants.values())
    return Figure(fig, alt, "Every framework on the same work: per call once warm "
                  "(left) and the first call (right). Missing marks: no such step "
                  "(NumPy, Numba), a compile that failed"
                  + (", or a step not measured in quick mode" if skipped else "")
                  + f". Versions: {versions}.")


if __name__ == "__main__":
    if "--quick" in sys.argv[1:]:  # before main() starts JAX: the inputs' compiles too
        os.environ["XLA_FLAGS"] = QUICK_XLA_ENV
    main(measure)
