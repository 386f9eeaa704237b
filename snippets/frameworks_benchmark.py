"""SELU and a training step in NumPy, Numba, PyTorch, TensorFlow and JAX, side by side.

    python snippets/frameworks_benchmark.py          # full size, for your machine
    python snippets/frameworks_benchmark.py --quick  # small, cheaper torch.compile

Each framework runs in a process of its own (frameworks_worker.py), one after another
(quick mode: several at a time), with fresh compile caches, on the CPU
(JAX_PLATFORMS=cpu and no CUDA device visible, whatever JAX's default backend is here);
this process prepares the inputs, checks that the results agree with JAX's, and
reports numbers and verdicts (the pages word them).
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
from measurement import (SAME, Report, Table, compare, fact, main, ratio, ratio_of,
                         seconds, timing, trend, word)
from selu import selu_jit

FRAMEWORKS = ("numpy", "numba", "torch", "tensorflow", "jax")
TITLES = {"numpy": "NumPy", "numba": "Numba", "torch": "PyTorch",  # names, as they are
          "tensorflow": "TensorFlow", "jax": "JAX"}
# Each variant's key in the results (a name in the pages' words, docs/words.yml
# `names`), from its framework and its label in frameworks.py. JAX's are the site's
# "eager" and "jit".
SLUGS = {"numpy": {"NumPy": "numpy"},
         "numba": {"@njit": "njit", "@njit(parallel=True)": "njit_parallel"},
         "torch": {"eager": "torch_eager", "torch.compile": "torch_compile"},
         "tensorflow": {"eager": "tf_eager", "tf.function": "tf_function",
                        "tf.function(jit_compile=True)": "tf_xla"},
         "jax": {"eager": "eager", "jax.jit": "jit"}}
KINDS = ("physics", "data")  # the training steps: physics-informed loss, data-only loss
# torch.compile fails on a gradient of a gradient (create_graph=True) with the pinned
# PyTorch: the page shows the message (a fact: if it ever compiles, the build stops).
EXPECTED_FAILURES = {("physics", "torch_compile")}
# The step verdicts the pages word: each against jax.jit ("pi_<variant>").
AGAINST_JIT = ("torch_eager", "tf_eager", "tf_function", "tf_xla", "eager")
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


def workers_at_once(quick):
    """Workers side by side: quick mode (numbers never published) up to one per core."""
    return min(len(os.sched_getaffinity(0)), len(FRAMEWORKS)) if quick else 1


def run_worker(name, folder, quick):
    """One framework in a new process, with fresh caches; failing fails the build."""
    caches = Path(tempfile.mkdtemp(prefix=f"cache-{name}-", dir=folder))
    threads = str(len(os.sched_getaffinity(0)))
    # TMPDIR: TorchInductor keeps its precompiled C++ headers for later processes in
    # the temporary folder, outside its cache folder: they start cold here too.
    # JAX_PLATFORMS, CUDA_VISIBLE_DEVICES: every framework on the CPU, as the page says.
    env = {**ENVIRON, "TMPDIR": str(caches), "NUMBA_CACHE_DIR": str(caches / "numba"),
           "TORCHINDUCTOR_CACHE_DIR": str(caches / "inductor"), "OMP_NUM_THREADS":
           threads, "NUMBA_NUM_THREADS": threads, "TF_CPP_MIN_LOG_LEVEL": "2",
           "JAX_PLATFORMS": "cpu", "CUDA_VISIBLE_DEVICES": ""}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)  # JAX: no cache folder, cold first calls
    if quick and name == "jax":  # shorter compiles; the pages say so (xla_flags)
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
        wall, cpu = time.perf_counter() - start, usage.ru_utime + usage.ru_stime
        errors.seek(0)
        stderr = errors.read()
    if process.returncode != 0:
        tail = "\n".join(stderr.splitlines()[-15:])
        raise SystemExit(f"frameworks_benchmark: {TITLES[name]} failed "
                         f"(exit {process.returncode}):\n{tail}")
    result = json.loads((folder / f"{name}.json").read_text())
    result["process"] = {"seconds": wall, "cpu": cpu}  # the setup table shows it
    phases = "; ".join(f"{k} {s:.1f} s ({c:.1f} s CPU)" for k, (s, c)
                       in result["phases"].items() if s >= 0.05)  # the worker's own
    print(f"frameworks_benchmark: {TITLES[name]} took {wall:.1f} s ({cpu:.1f} s "
          f"of CPU): {phases}", file=sys.stderr)
    return result, dict(np.load(folder / f"{name}.npz"))


def run_workers(folder, quick):
    """Every framework's worker: one after another; quick mode several at a time, the
    slowest first, to finish sooner."""
    if workers_at_once(quick) == 1:
        return {name: run_worker(name, folder, quick) for name in FRAMEWORKS}
    slowest_first = ("tensorflow", "torch", "jax", "numba", "numpy")
    with ThreadPoolExecutor(workers_at_once(quick)) as pool:
        runs = {name: pool.submit(run_worker, name, folder, quick)
                for name in slowest_first}
        return {name: runs[name].result() for name in FRAMEWORKS}


def gathered(results, ns):
    """The workers' results by variant key (SLUGS): each SELU's timings as a list over
    the sizes, each step's entry as the worker wrote it."""
    variants, selu, steps = {}, {}, {kind: {} for kind in KINDS}
    for name in FRAMEWORKS:
        for label, e in results[name]["selu"].items():
            key = SLUGS[name][label]
            variants[key] = {"framework": name, "label": label}
            selu[key] = {"first": e["first"],
                         "max_diff": [e["max_diff"][str(n)] for n in ns],
                         "timing": [e["timing"][str(n)] for n in ns]}
        for kind, entries in results[name]["steps"].items():
            for label, e in entries.items():
                steps[kind][SLUGS[name][label]] = e
    return variants, selu, steps


def weight_difference(params, kind, framework, label):
    """The largest |difference| of a step's weights to jax.jit's, after its steps
    (params: framework -> "kind|label|i" -> array, from the workers' .npz)."""
    ref = {k: a for k, a in params["jax"].items() if k.startswith(f"{kind}|jax.jit|")}
    mine = {k: params[framework][k.replace("jax.jit", label)] for k in ref}
    return max(float(np.abs(mine[k] - a).max()) for k, a in ref.items())


def agreement(data, params):
    """Each step's largest relative loss difference and absolute weight difference to
    jax.jit's (added to its entry); the differences beyond the tolerances."""
    problems = []
    for key, e in data["selu"].items():
        if not max(e["max_diff"]) <= SELU_TOLERANCE:
            problems.append(f"{key} SELU differs from jax.jit by "
                            f"{max(e['max_diff']):.3g}")
    label = {key: v["label"] for key, v in data["variants"].items()}
    for kind, entries in data["steps"].items():
        ref = entries["jit"]
        for key, e in entries.items():
            if "losses" not in e:  # failed or skipped
                continue
            framework = data["variants"][key]["framework"]
            loss = max(abs(a - b) / abs(b) for a, b in zip(e["losses"], ref["losses"]))
            weights = weight_difference(params, kind, framework, label[key])
            e.update(loss_diff=loss, param_diff=weights)
            if not (loss <= LOSS_TOLERANCE and weights <= PARAM_TOLERANCE):
                problems.append(f"{key} {kind} step: losses differ by {loss:.3g} "
                                f"(relative), weights by {weights:.3g}")
    return problems


def check_facts(data, problems):
    """What the page states of the pinned software and of this benchmark's set-up
    (`problems`: agreement's differences beyond the tolerances)."""
    fact("frameworks.results_agree", not problems,
         "Results differ from jax.jit's beyond the tolerances:\n" + "\n".join(problems))
    failed = {(kind, key): e["error"] for kind, entries in data["steps"].items()
              for key, e in entries.items() if "error" in e}
    unexpected = {k: v for k, v in failed.items() if k not in EXPECTED_FAILURES}
    fact("frameworks.steps_compile", not unexpected, "These steps failed:\n"
         + "\n".join(f"{k}: {v}" for k, v in unexpected.items()))
    for kind, key in EXPECTED_FAILURES:
        if not data["steps"][kind][key].get("skipped"):  # quick mode does not run it
            fact("frameworks.torch_compile_nested_grad_fails", (kind, key) in failed,
                 f"The page says {key} cannot compile the {kind} step, but this "
                 "PyTorch compiled it: update the page and EXPECTED_FAILURES")
    cache = data["frameworks"]["jax"].get("compilation_cache_dir")
    fact("frameworks.jax_no_cache_folder", not cache,
         f"The page says JAX was given no cache folder (cold first calls): {cache}")


def measure(quick: bool) -> dict:
    """Run every framework in its own process; check agreement; return the numbers."""
    start, cpu = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="frameworks-") as tmp:
        folder = Path(tmp)
        prepare(folder, quick)
        runs = run_workers(folder, quick)
    results = {name: r for name, (r, _) in runs.items()}
    took = {"seconds": time.perf_counter() - start,  # inputs and every process
            "cpu": time.process_time() - cpu + sum(r["process"]["cpu"]
                                                   for r in results.values())}
    ns = worker.sizes(quick)
    variants, selu, steps = gathered(results, ns)
    config = QUICK if quick else DEFAULT
    libraries = {}
    for r in results.values():
        libraries.update(r.pop("libraries"))
    data = {"sizes": ns, "variants": variants, "selu": selu, "steps": steps,
            "frameworks": {name: {k: v for k, v in r.items()
                                  if k not in ("selu", "steps")}
                           for name, r in results.items()},
            "libraries": libraries, "took": took,
            "config": {"batch": config.batch_size, "width": config.width,
                       "depth": config.depth,
                       "agreement_steps": worker.AGREEMENT_STEPS},
            "options": {"workers_at_once": workers_at_once(quick),
                        "torch_compile": worker.QUICK_TORCH_COMPILE if quick else {},
                        "xla_flags": QUICK_XLA_FLAGS if quick else None},
            "tolerances": {"selu": SELU_TOLERANCE, "loss": LOSS_TOLERANCE,
                           "params": PARAM_TOLERANCE}}
    check_facts(data, agreement(data, {name: p for name, (_, p) in runs.items()}))
    return data


# ---------------------------------------------------------------- verdicts

def at(data, path):
    """The value at a dotted path ("selu.jit.timing.2"), as verdicts' reads name it."""
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def machine_factor(data, name, ref):
    """How much slower the machine ran in `name`'s process than in `ref`'s, as a range:
    the ratios of their pure-Python loop times, each timed at start and end. One process
    gives (1, 1): its variants were sampled in turns, so its brackets hold its drift."""
    if name == ref:
        return 1.0, 1.0
    mine, theirs = (list(data["frameworks"][n]["python_loop"].values())
                    for n in (name, ref))
    return min(mine) / max(theirs), max(mine) / min(theirs)


def drift(verdict, a, b, machine):
    """Whether the machine's drift between two processes could change a comparison of a
    (run where the machine ran `machine` times slower) with b: the comparison again with
    a's timing divided by each end of that range. kind "one_process" (a and b sampled in
    turns), "beyond" (the verdict stands either way) or "within" (the drift could make
    the winner the loser, or the two the same, or tell apart two called the same);
    `way` and `factor`: how far the machine moved, for the page's words."""
    low, high = machine
    if (low, high) == (1.0, 1.0):
        return {"kind": "one_process"}

    def winner(f):
        scaled = {k: a[k] / f for k in ("median", "q1", "q3")}
        return compare(scaled, b, tuple(verdict["names"]))["winner"]
    within = any(winner(f) != verdict["winner"] for f in (low, high))
    way, factor = ("slower", high) if low * high >= 1 else ("faster", 1 / low)
    return {"kind": "within" if within else "beyond", "machine": [low, high],
            "way": way, "factor": factor}


def versus(data, a, b, path_a, path_b):
    """compare() of two variants' timings at those paths, and its drift verdict."""
    ta, tb = at(data, path_a), at(data, path_b)
    verdict = compare(ta, tb, (a, b), (path_a, path_b))
    framework = {k: v["framework"] for k, v in data["variants"].items()}
    machine = machine_factor(data, framework[a], framework[b])
    return verdict, drift(verdict, ta, tb, machine)


def unmeasured(entry, names):
    """The verdict where a step has no timing: quick mode skipped it, or it failed."""
    kind = "failed" if "error" in entry else "not_measured"
    return {"kind": kind, "names": list(names)}


def runner_up(data, timings):
    """The variant with the lowest median against the next one (paths: key -> path)."""
    if len(timings) < 2:
        only = {"kind": "alone", "fastest": next(iter(timings))} if timings else {
            "kind": "not_measured"}
        return only, only
    first, second = sorted(timings, key=lambda k: at(data, timings[k])["median"])[:2]
    return versus(data, second, first, timings[second], timings[first])


def report(data: dict) -> Report:
    """Tables and verdicts of the frameworks page, from its data alone."""
    last = len(data["sizes"]) - 1
    v = {}  # verdicts
    v["selu_runner_up"], v["selu_runner_up_drift"] = runner_up(
        data, {key: f"selu.{key}.timing.{last}" for key in data["selu"]})
    # Plain tf.function against eager TensorFlow: what it saves, and how that moves
    eager, function = (data["selu"][k]["timing"] for k in ("tf_eager", "tf_function"))
    for where, i in (("smallest", 0), ("largest", last)):
        v[f"tf_function_{where}"] = compare(
            eager[i], function[i], ("tf_eager", "tf_function"),
            (f"selu.tf_eager.timing.{i}", f"selu.tf_function.timing.{i}"))
    saved = [e["median"] / f["median"] for e, f in zip(eager, function)]
    v["tf_function_trend"] = {**trend(saved), "values": saved, "n": data["sizes"]}
    # the same in seconds per call: a fixed saving (Python overhead) stays about the
    # same from the smallest n to the largest; "grew": by more than SAME, or from a loss
    per_call = [e["median"] - f["median"] for e, f in zip(eager, function)]
    v["tf_function_saved"] = {
        "kind": "grew" if per_call[-1] > SAME * max(per_call[0], 0) else "not_grown",
        "first": per_call[0], "last": per_call[-1]}
    # Numba's one pass against NumPy's loop per operation, at the largest n
    v["njit_vs_numpy"], v["njit_vs_numpy_drift"] = versus(
        data, "njit", "numpy", f"selu.njit.timing.{last}", f"selu.numpy.timing.{last}")
    physics = data["steps"]["physics"]
    for key in AGAINST_JIT:
        if "timing" in physics[key] and "timing" in physics["jit"]:
            v[f"pi_{key}"], v[f"pi_{key}_drift"] = versus(
                data, key, "jit", f"steps.physics.{key}.timing",
                "steps.physics.jit.timing")
        else:
            v[f"pi_{key}"] = unmeasured(physics[key], (key, "jit"))
            v[f"pi_{key}_drift"] = v[f"pi_{key}"]
    if "timing" in physics["tf_xla"] and "timing" in physics["tf_eager"]:
        v["pi_tf_xla_vs_eager"] = compare(
            physics["tf_xla"]["timing"], physics["tf_eager"]["timing"],
            ("tf_xla", "tf_eager"),
            ("steps.physics.tf_xla.timing", "steps.physics.tf_eager.timing"))
    else:
        v["pi_tf_xla_vs_eager"] = unmeasured(physics["tf_xla"], ("tf_xla", "tf_eager"))
    for kind in KINDS:
        timed = {key: f"steps.{kind}.{key}.timing"
                 for key, e in data["steps"][kind].items() if "timing" in e}
        v[f"step_runner_up_{kind}"], v[f"step_runner_up_{kind}_drift"] = runner_up(
            data, timed)
    loops = [t for f in data["frameworks"].values() for t in f["python_loop"].values()]
    # the pure-Python loop's spread: across every process, and within the widest one
    within = max(max(f["python_loop"].values()) / min(f["python_loop"].values())
                 for f in data["frameworks"].values())
    v["machine"] = {"kind": "drift", "factor": max(loops) / min(loops),
                    "within": within}
    tables = {"setup": setup_table(data), "selu": selu_table(data),
              "selu_sizes": selu_sizes_table(data), "steps": steps_table(data),
              "agreement": agreement_table(data), "overview": overview_table(data)}
    return Report(tables=tables, verdicts=v)


# ---------------------------------------------------------------- tables

def exponent(value):
    """A tolerance as a heading names it: 1e-04, 1e-05 (as the differences print)."""
    mantissa, power = f"{value:.2e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{power}"


def threads_cell(threads):
    """How a framework uses threads, worded by each edition (`threads_<kind>`)."""
    counts = {k: threads[k] for k in ("intra_op", "inter_op", "layer") if k in threads}
    return word(f"threads_{threads['kind']}", **counts)


def setup_table(data):
    rows = []
    for name, f in data["frameworks"].items():
        loop, process = f["python_loop"], f["process"]
        rows.append([TITLES[name], f["version"], seconds(f["import_s"]),
                     threads_cell(f["threads"]),
                     seconds(process["seconds"]), seconds(process["cpu"]),
                     seconds(loop["start"]), seconds(loop["end"])])
    return Table(["framework", "version", "import", "threads", "process", "process_cpu",
                  "loop_start", "loop_end"], rows)


def selu_table(data):
    jit = data["selu"]["jit"]["timing"][-1]
    rows = [[word(key), timing(e["timing"][-1]), seconds(e["first"]),
             ratio(1) if key == "jit" else ratio_of(e["timing"][-1], jit),
             float(f"{max(e['max_diff']):.1g}")] for key, e in data["selu"].items()]
    return Table(["selu_n", "steady", "first", "vs_jit", "max_diff"], rows,
                 {"n": data["sizes"][-1],
                  "tolerance": exponent(data["tolerances"]["selu"])})


def selu_sizes_table(data):
    rows = [[word(key)] + [seconds(t["median"]) for t in e["timing"]]
            for key, e in data["selu"].items()]
    sizes = {f"size_{i}": n for i, n in enumerate(data["sizes"])}
    return Table(["selu_median", *sizes], rows, sizes)


def step_cells(entry, jit):
    """Steady timing, first call and ratio to jax.jit, or why there are none."""
    if "error" in entry:
        return [word("fails_below"), "·", "·"]
    if "timing" not in entry:
        return [word("not_measured"), "·", "·"]
    against = "·" if "timing" not in jit else ratio(1) if entry is jit else ratio_of(
        entry["timing"], jit["timing"])
    return [timing(entry["timing"]), seconds(entry["first"]), against]


def step_keys(data):
    return [key for key in data["variants"] if key in data["steps"]["physics"]]


def steps_table(data):
    steps = data["steps"]
    rows = [[word(key)] + step_cells(steps["physics"][key], steps["physics"]["jit"])
            + step_cells(steps["data"][key], steps["data"]["jit"])
            for key in step_keys(data)]
    return Table(["step", "physics_steady", "first", "vs_jit", "data_steady", "first",
                  "vs_jit"], rows)


def agreement_table(data):
    def cell(e):
        if "loss_diff" not in e:
            return "·"
        return word("diffs", loss=float(f"{e['loss_diff']:.1g}"),
                    weights=float(f"{e['param_diff']:.1g}"))
    rows = [[word(key)] + [cell(data["steps"][kind][key]) for kind in KINDS]
            for key in step_keys(data)]
    tolerances = data["tolerances"]
    return Table(["after_steps", "physics", "data"], rows,
                 {"steps": data["config"]["agreement_steps"],
                  "loss": exponent(tolerances["loss"]),
                  "weights": exponent(tolerances["params"])})


def overview_table(data):
    """The figure's numbers: medians once warm, and first calls."""
    def cells(e, t):
        if e is None:
            return ["·", "·"]
        if "error" in e:
            return [word("fails"), "·"]
        if "timing" not in e:
            return [word("not_measured"), "·"]
        return [seconds(t["median"]), seconds(e["first"])]
    rows = []
    for key, e in data["selu"].items():
        row = [word(key)] + cells(e, e["timing"][-1])
        for kind in KINDS:
            step = data["steps"][kind].get(key)
            row += cells(step, step and step.get("timing"))
        rows.append(row)
    return Table(["variant", "selu_n", "first", "physics", "first", "data", "first"],
                 rows, {"n": data["sizes"][-1]})


# ---------------------------------------------------------------- the figure

def overview_figure(data, words):
    """Dot plots, one row per variant: per call once warm (left), first call (right)."""
    import matplotlib.pyplot as plt

    fig, (steady, first) = plt.subplots(1, 2, figsize=(7.6, 4.6), sharey=True)
    rows = list(data["variants"])[::-1]
    marks = (("selu", "o", words["mark_selu"].format(n=f"{data['sizes'][-1]:,}")),
             ("physics", "^", words["mark_physics"]), ("data", "s", words["mark_data"]))
    for y, key in enumerate(rows):
        for i, (kind, marker, text) in enumerate(marks):
            e = data["selu"][key] if kind == "selu" else data["steps"][kind].get(key)
            if e is None or "timing" not in e:  # no such step, failed or skipped
                continue
            t = e["timing"][-1] if kind == "selu" else e["timing"]
            err = [[t["median"] - t["q1"]], [t["q3"] - t["median"]]]
            steady.errorbar(t["median"], y, xerr=err, fmt=marker, color=f"C{i}",
                            label=text)
            first.plot(e["first"], y, marker, color=f"C{i}")
        if "error" in data["steps"]["physics"].get(key, {}):
            steady.text(0.98, y + 0.3, words["physics_fails"], ha="right", va="center",
                        fontsize=7, transform=steady.get_yaxis_transform())
        framework = data["variants"][key]["framework"]
        if y and data["variants"][rows[y - 1]]["framework"] != framework:
            for ax in (steady, first):  # a line between frameworks
                ax.axhline(y - 0.5, color="0.6", linewidth=0.6)
    for ax, label in ((steady, words["steady_axis"]), (first, words["first_axis"])):
        ax.set_xscale("log")
        ax.set_xlabel(label, fontsize=8)
    steady.set_yticks(range(len(rows)), [words[key] for key in rows], fontsize=8)
    handles, names = steady.get_legend_handles_labels()
    unique = dict(zip(names, handles))
    fig.legend(unique.values(), unique.keys(), loc="upper center", ncol=3, fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 0.93))
    return fig


FIGURES = {"overview": overview_figure}

if __name__ == "__main__":
    if "--quick" in sys.argv[1:]:  # before main() starts JAX: the inputs' compiles too
        os.environ["XLA_FLAGS"] = QUICK_XLA_ENV
    main(measure, report, FIGURES)
