"""The accelerator dataset: what a row of accelerator/rows.csv holds, and its summary.

Pure Python (csv and statistics, no jax), so that a machine without an accelerator, CI
among them, can read the rows that measure.py wrote on one.

    from dataset import load
    summary = load("accelerator/rows.csv")
    summary["backends"]["tpu"]["scaling"]["selu_jit_1000000"]  # {median, min, max, n}
    summary["over_cpu"]["tpu"]["scaling"]["deeponet_jit_b4000"]  # TPU / host CPU

    python accelerator/dataset.py [rows.csv]     # the summary as JSON

See accelerator/README.md for the columns.
"""

from __future__ import annotations

import csv
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATASET = HERE / "rows.csv"

BACKENDS = ("tpu", "cpu")  # the accelerator first: its process runs first in a round
PROBES = ("history", "scaling")  # history/probe.py, accelerator/scaling.py
# scaling.py's sizes: SELU's n, and the DeepONet step's batch (points per loss term).
SELU_SIZES = (10**3, 10**4, 10**5, 10**6, 10**7)
BATCHES = (64, 250, 1000, 4000)
QUICK_SELU_SIZES = SELU_SIZES[:2]  # --quick: a subset, so quick rows fit the columns
QUICK_BATCHES = BATCHES[:1]

STAMPS = ["status", "reason", "probe", "backend", "device_kind", "devices", "cpu",
          "cores", "jax", "jaxlib", "numpy", "python", "date", "commit", "digest",
          "process", "quick"]
STATUSES = ("ok", "failed")
# Each probe's own scalars (seconds, unless named otherwise) and timings; a timing
# becomes three columns, _median, _q1 and _q3 (quartiles of one process's samples).
SHARED_SCALARS = ["import_s", "first_op_s", "probe_s", "wall_s", "load_start",
                  "load_end", "deeponet_size"]
HISTORY_SCALARS = ["n_small", "n_large", "stages", "deeponet_jit_first",
                   "deeponet_eager_first"]
HISTORY_TIMINGS = (  # history/measure.py's names, so the two datasets read alike
    [f"selu_{way}_{size}" for size in ("small", "large")
     for way in ("eager", "jit", "numpy")]
    + ["dispatch_eager", "dispatch_jit", "dispatch_numpy", "python_loop"]
    + [f"first_{stage}" for stage in ("trace", "lower", "trace_lower", "compile",
                                      "run", "call")]
    + ["deeponet_jit", "deeponet_eager", "numpy_mlp"])
SCALING_SCALARS = (
    [f"selu_{way}_first_{n}" for n in SELU_SIZES for way in ("jit", "eager")]
    + [f"deeponet_{way}_first_b{b}" for b in BATCHES for way in ("jit", "eager")])
SCALING_TIMINGS = (
    [f"selu_{way}_{n}" for n in SELU_SIZES for way in ("eager", "jit", "numpy")]
    + [f"deeponet_{way}_b{b}" for b in BATCHES for way in ("jit", "eager")])
SCALARS = SHARED_SCALARS + HISTORY_SCALARS + SCALING_SCALARS
TIMINGS = HISTORY_TIMINGS + SCALING_TIMINGS
STATS = ("median", "q1", "q3")
COLUMNS = STAMPS + SCALARS + [f"{name}_{stat}" for name in TIMINGS for stat in STATS]
# Stamps that describe the machine and software: the summary lists their values.
MACHINE = ["device_kind", "devices", "cpu", "cores", "jax", "jaxlib", "numpy", "python",
           "commit"]
NOT_NUMBERS = {"stages", "deeponet_size"}  # scalars that are words


def read_rows(path) -> list[dict]:
    with Path(path).open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def spread(values: list[float]) -> dict:
    """Median over processes, with the lowest and highest process as its range."""
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "n": len(values)}


def value(row: dict, name: str) -> float | None:
    """A quantity of one process: a timing's median, or a scalar; None where empty."""
    cell = row.get(f"{name}_median", row.get(name, ""))
    return float(cell) if cell not in ("", None) else None


def quantities(probe: str) -> list[str]:
    own = ((HISTORY_SCALARS, HISTORY_TIMINGS) if probe == "history"
           else (SCALING_SCALARS, SCALING_TIMINGS))
    return [n for n in SHARED_SCALARS + own[0] + own[1] if n not in NOT_NUMBERS]


def pairs(probe: str, way: str) -> dict[str, tuple[str, str]]:
    """{ratio name: (timing, its jitted twin)}: 'selu_eager_large' over 'selu_jit_large'
    is 'selu_large'; 'dispatch_numpy' over 'dispatch_jit' is 'dispatch'."""
    timings = HISTORY_TIMINGS if probe == "history" else SCALING_TIMINGS
    found = {}
    for name in timings:
        twin = name.replace(f"_{way}", "_jit")
        if f"_{way}" in name and twin in timings:
            found[name.replace(f"_{way}", "")] = (name, twin)
    return found


def current(rows: list[dict]) -> list[dict]:
    """Rows of each probe's newest code (its digest on its latest row): rows of an
    older probe measured something else."""
    newest = {}
    for row in sorted(rows, key=lambda r: r["date"]):
        newest[row["probe"]] = row["digest"]
    return [r for r in rows if r["digest"] == newest[r["probe"]]]


def summarize_backend(rows: list[dict]) -> dict:
    machine = {}
    for stamp in MACHINE:  # one value, or every value when the rows disagree
        machine[stamp] = " | ".join(sorted({r[stamp] for r in rows}))
    out = {"machine": machine,
           "dates": (min(r["date"] for r in rows), max(r["date"] for r in rows)),
           "processes": {p: sum(r["probe"] == p for r in rows) for p in PROBES},
           "eager_over_jit": {}, "numpy_over_jit": {}}
    for probe in PROBES:
        its = [r for r in rows if r["probe"] == probe]
        out[probe] = {}
        for name in quantities(probe):
            values = [v for v in (value(r, name) for r in its) if v is not None]
            if values:
                out[probe][name] = spread(values)
        for way in ("eager", "numpy"):
            ratios = out[f"{way}_over_jit"].setdefault(probe, {})
            for key, (slow, jit) in pairs(probe, way).items():
                # per process: drift within a process hits both timings alike
                values = [value(r, slow) / value(r, jit) for r in its
                          if value(r, slow) is not None and value(r, jit)]
                if values:
                    ratios[key] = spread(values)
    return out


def load(path=DATASET, quick: bool = False) -> dict:
    """The summary of the ok rows (quick rows only with quick=True) of each probe's
    newest code: per backend the machine, the processes per probe, each quantity's
    median over processes with min and max as the spread, the eager/jit and numpy/jit
    ratios (per process, then their median); and over_cpu, each backend's median over
    the CPU's (below 1: faster than its own host's CPU)."""
    rows = [r for r in read_rows(path)
            if r["status"] == "ok" and (r["quick"] == "1") == quick]
    rows = current(rows)
    backends = {b: summarize_backend([r for r in rows if r["backend"] == b])
                for b in sorted({r["backend"] for r in rows}, key=_backend_order)}
    over_cpu = {}
    if "cpu" in backends:
        cpu = backends["cpu"]
        for backend, summary in backends.items():
            if backend == "cpu":
                continue
            over_cpu[backend] = {
                probe: {name: s["median"] / cpu[probe][name]["median"]
                        for name, s in summary[probe].items()
                        if name in cpu[probe] and cpu[probe][name]["median"]}
                for probe in PROBES}
    return {"path": str(path), "rows": len(rows), "backends": backends,
            "over_cpu": over_cpu}


def _backend_order(backend: str) -> tuple:
    return (BACKENDS.index(backend) if backend in BACKENDS else len(BACKENDS), backend)


if __name__ == "__main__":
    print(json.dumps(load(sys.argv[1] if len(sys.argv) > 1 else DATASET), indent=1))
