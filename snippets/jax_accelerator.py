"""What jit buys on a TPU: the rows accelerator/measure.py measured, as a chapter.

accelerator/measure.py measured once, on a machine with one TPU v5e chip, jitted
and un-jitted JAX on the TPU and on that machine's own host CPU, and its rows are
committed in accelerator/rows.csv. This snippet reads them (it measures nothing)
through accelerator/dataset.py and turns them into the chapter's tables, verdicts and
figure.

    python snippets/jax_accelerator.py     # the chapter's tables, from the rows
"""

import importlib.util
import platform
from importlib.metadata import version
from pathlib import Path

import jax

from deeponet import DEFAULT
from measurement import (CLOSE, Report, Table, compare, fact, main, ratio, seconds,
                         trend, word)

ROOT = Path(__file__).resolve().parent.parent
# What this snippet reads outside snippets/: the build's cache key covers these files
# (sitebuild/snippet_runs.py `data_files`): new rows or a new loader re-render the page.
DATA = ("accelerator/rows.csv", "accelerator/dataset.py", "accelerator/measure.py",
        "accelerator/scaling.py", "accelerator/run_probe.py", "history/probe.py")
DATASET, LOADER = DATA[:2]
BACKENDS = ("tpu", "cpu")  # the accelerator, and its own host CPU
WAYS = ("jit", "eager", "numpy")


def _dataset():
    spec = importlib.util.spec_from_file_location("accelerator_dataset", ROOT / LOADER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timing(s: dict | None) -> dict | None:
    """A quantity over processes: the median process, the lowest and highest as its
    range (compare() reads q1 and q3)."""
    if s is None:
        return None
    return {"median": s["median"], "q1": s["min"], "q3": s["max"]}


def load(path: Path) -> dict:
    """The committed rows as the chapter's data."""
    dataset = _dataset()
    summary = dataset.load(path)
    backends = summary["backends"]
    missing = [b for b in BACKENDS if b not in backends]
    fact("accelerator.both_backends", not missing,
         f"{DATASET} has no rows for {', '.join(missing)}: the chapter sets the TPU "
         "beside its own host CPU")
    rows = [r for r in dataset.current(dataset.read_rows(path))
            if r["status"] == "ok" and r["quick"] != "1"]
    size = next(r["deeponet_size"] for r in rows if r["probe"] == "scaling")
    data = {"path": DATASET, "n": list(dataset.SELU_SIZES),
            "batch": list(dataset.BATCHES),
            "deeponet": {k: int(v) for k, v in (p.split("=") for p in size.split())},
            # the DeepONet chapter's networks, beside the probe's
            "chapter": {"width": DEFAULT.width, "hidden_layers": DEFAULT.depth},
            "n_history": int(backends["tpu"]["history"]["n_large"]["median"]),
            "batch_history": int(next(
                r["deeponet_size"] for r in rows if r["probe"] == "history"
            ).split("batch=")[1])}
    for b in BACKENDS:
        s, h = backends[b]["scaling"], backends[b]["history"]
        data[b] = {
            "selu": {w: [timing(s.get(f"selu_{w}_{n}")) for n in data["n"]]
                     for w in WAYS},
            "deeponet": {w: [timing(s.get(f"deeponet_{w}_b{x}"))
                             for x in data["batch"]] for w in ("jit", "eager")},
            "deeponet_first": [timing(s.get(f"deeponet_jit_first_b{x}"))
                               for x in data["batch"]],
            **{name: timing(h.get(name)) for name in (
                "dispatch_eager", "dispatch_jit", "dispatch_numpy", "first_trace_lower",
                "first_compile", "first_call", "deeponet_jit_first", "deeponet_jit",
                "deeponet_eager")},
            "first_op": timing(s.get("first_op_s")),
            "processes": backends[b]["processes"],
        }
        # eager over jit, of the medians: the ratios the verdicts word, so that the
        # tables and the sentences give one number
        data[b]["eager_over_jit"] = {
            way: [e["median"] / j["median"] for e, j in
                  zip(data[b][way]["eager"], data[b][way]["jit"])]
            for way in ("selu", "deeponet")}
    machine = backends["tpu"]["machine"]
    dates = sorted(d for b in BACKENDS for d in backends[b]["dates"])
    # the one-minute load average, at each process's start and end (0 under gVisor)
    loads = [float(r[k]) for r in rows for k in ("load_start", "load_end") if r[k]]
    data["machine"] = {**machine, "date": dates[0][:10], "from": dates[0][11:16],
                       "to": dates[-1][11:16], "rows": summary["rows"],
                       "load": max(loads, default=None)}
    # The stamp's parts: measured by accelerator/measure.py on that machine, not by the
    # build that renders them (snippets/measurement.py `main` takes these).
    data["libraries"] = {k: machine[k] for k in ("jax", "jaxlib", "numpy")}
    data["environment"] = {"cpu": machine["cpu"], "cores": int(machine["cores"]),
                           "python": machine["python"], "backend": "tpu",
                           "device": machine["device_kind"], "date": dates[-1][:10]}
    return data


def measure(quick: bool) -> dict:
    """Read the committed dataset (quick or not: nothing is measured here)."""
    data = load(ROOT / DATASET)
    # what the rest of the site runs, to set beside the dataset's JAX and Python, and
    # the backend this build runs on (the page says whether it could measure a TPU)
    data["site"] = {"jax": version("jax"), "python": platform.python_version(),
                    "backend": jax.default_backend()}
    return data


# ------------------------------------------------------------ the chapter's verdicts

def _compare(data, a: str, b: str, names) -> dict | None:
    def at(path):
        value = data
        for part in path.split("."):
            value = value[int(part)] if isinstance(value, list) else value[part]
        return value
    x, y = at(a), at(b)
    return None if x is None or y is None else compare(x, y, names, (a, b))


def gain_from(data: dict) -> dict:
    """What makes jit's gain on the step differ between the backends: at each batch it
    is the jitted step's speed-up on the TPU over the host CPU times the un-jitted
    step's slow-down there. Kind "jitted_step" when, at every batch, the first is over
    1 and the larger of the two; else "both"."""
    tpu, cpu = data["tpu"]["deeponet"], data["cpu"]["deeponet"]
    for i in range(len(data["batch"])):
        if not all(s[w][i] for s in (tpu, cpu) for w in ("jit", "eager")):
            return {"kind": "both"}
        sped = cpu["jit"][i]["median"] / tpu["jit"][i]["median"]
        if sped <= max(1.0, tpu["eager"][i]["median"] / cpu["eager"][i]["median"]):
            return {"kind": "both"}
    return {"kind": "jitted_step"}


def eager_step(data: dict) -> dict:
    """Whether the un-jitted step (the history probe's) paid the TPU's waited launch
    per operation: kind "host" when on the TPU it was less than CLOSE times as slow as
    on the host CPU (so the host CPU's time, work both backends do, is most of it) and
    a waited `a + b` slowed down more than CLOSE times as much; else "launches"."""
    step, op = (data["tpu"][name]["median"] / data["cpu"][name]["median"]
                if data["tpu"][name] and data["cpu"][name] else None
                for name in ("deeponet_eager", "dispatch_eager"))
    host = step is not None and op is not None and step < CLOSE and op > CLOSE * step
    return {"kind": "host" if host else "launches"}


def report(data: dict) -> Report:
    """Tables and verdicts of the chapter, from its data alone."""
    v = {}
    for i, n in enumerate(data["n"]):
        for b in BACKENDS:  # what jit buys on each backend
            v[f"selu_{b}_{n}"] = _compare(data, f"{b}.selu.jit.{i}",
                                          f"{b}.selu.eager.{i}", ("jit", "eager"))
        v[f"selu_backend_{n}"] = _compare(data, f"tpu.selu.jit.{i}",
                                          f"cpu.selu.jit.{i}", ("tpu", "cpu"))
    for i, x in enumerate(data["batch"]):
        for b in BACKENDS:
            v[f"deeponet_{b}_b{x}"] = _compare(
                data, f"{b}.deeponet.jit.{i}", f"{b}.deeponet.eager.{i}",
                ("jit", "eager"))
        v[f"deeponet_backend_b{x}"] = _compare(data, f"tpu.deeponet.jit.{i}",
                                               f"cpu.deeponet.jit.{i}", ("tpu", "cpu"))
        v[f"deeponet_eager_backend_b{x}"] = _compare(
            data, f"tpu.deeponet.eager.{i}", f"cpu.deeponet.eager.{i}", ("tpu", "cpu"))
    for name in ("dispatch_eager", "dispatch_jit", "deeponet_eager", "first_compile",
                 "first_call", "deeponet_jit_first", "first_op"):
        v[name] = _compare(data, f"tpu.{name}", f"cpu.{name}", ("tpu", "cpu"))
    # the TPU's jitted SELU at the two largest n: does the work show past the launch?
    last = len(data["n"]) - 1
    v["tpu_jit_largest_n"] = _compare(
        data, f"tpu.selu.jit.{last - 1}", f"tpu.selu.jit.{last}",
        tuple(str(n) for n in data["n"][-2:]))
    for i, n in enumerate(data["n"]):  # NumPy, one host: TPU's processes, CPU's
        v[f"numpy_{n}"] = _compare(data, f"tpu.selu.numpy.{i}", f"cpu.selu.numpy.{i}",
                                   ("tpu", "cpu"))
    verdicts = {k: c for k, c in v.items() if c is not None}
    for b in BACKENDS:  # does jit's gain on the step move with the batch?
        verdicts[f"deeponet_gain_{b}"] = trend(data[b]["eager_over_jit"]["deeponet"],
                                               f"{b}.eager_over_jit.deeponet")
    verdicts["gain_from"] = gain_from(data)
    verdicts["eager_step"] = eager_step(data)

    def t(b, *path):
        value = data[b]
        for part in path:
            value = value[part]
        return seconds(value["median"]) if value else "–"

    selu = [[n, t("tpu", "selu", "jit", i), t("cpu", "selu", "jit", i),
             t("tpu", "selu", "eager", i), t("cpu", "selu", "eager", i),
             ratio(data["tpu"]["eager_over_jit"]["selu"][i]),
             ratio(data["cpu"]["eager_over_jit"]["selu"][i]),
             t("tpu", "selu", "numpy", i), t("cpu", "selu", "numpy", i)]
            for i, n in enumerate(data["n"])]
    deeponet = [[x, t("tpu", "deeponet", "jit", i), t("cpu", "deeponet", "jit", i),
                 t("tpu", "deeponet", "eager", i), t("cpu", "deeponet", "eager", i),
                 ratio(data["tpu"]["eager_over_jit"]["deeponet"][i]),
                 ratio(data["cpu"]["eager_over_jit"]["deeponet"][i]),
                 t("tpu", "deeponet_first", i), t("cpu", "deeponet_first", i)]
                for i, x in enumerate(data["batch"])]
    fields = {"n": data["n_history"], "batch": data["batch_history"]}  # rows name them
    first = [[word(name, **fields), t("tpu", name), t("cpu", name)] for name in (
        "first_op", "dispatch_numpy", "dispatch_jit", "dispatch_eager",
        "first_trace_lower", "first_compile", "first_call", "deeponet_jit_first",
        "deeponet_jit", "deeponet_eager")]
    tables = {
        "selu": Table(["n", "tpu_jit", "cpu_jit", "tpu_eager", "cpu_eager", "tpu_ratio",
                       "cpu_ratio", "tpu_numpy", "cpu_numpy"], selu),
        "deeponet": Table(["batch", "tpu_jit", "cpu_jit", "tpu_eager", "cpu_eager",
                           "tpu_ratio", "cpu_ratio", "tpu_first", "cpu_first"],
                          deeponet),
        "costs": Table(["what", "tpu", "cpu"], first),
    }
    return Report(tables=tables, verdicts=verdicts)


# ---------------------------------------------------------------- the figure

def selu_figure(data, words):
    """SELU's time per call over n: jitted and eager, on the TPU and on its host CPU."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for b, colour in zip(BACKENDS, ("C0", "C1")):
        for way, style in (("jit", "-o"), ("eager", "--s")):
            points = [(n, t) for n, t in zip(data["n"], data[b]["selu"][way]) if t]
            ax.errorbar([n for n, _ in points], [t["median"] * 1e3 for _, t in points],
                        yerr=[[(t["median"] - t["q1"]) * 1e3 for _, t in points],
                              [(t["q3"] - t["median"]) * 1e3 for _, t in points]],
                        fmt=style, color=colour, capsize=2, label=words[f"{b}_{way}"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set(xlabel=words["xlabel"], ylabel=words["ylabel"], title=words["title"])
    ax.legend(fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


FIGURES = {"selu": selu_figure}

if __name__ == "__main__":
    main(measure, report, FIGURES, times_here=False)  # a committed dataset
