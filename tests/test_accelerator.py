"""accelerator/: the rows measured on a TPU machine and its own CPU, the script that
measured them, and the loader that summarizes them. No test here needs an accelerator:
they read the committed rows, a synthetic row set, and (one) a quick run on the CPU."""

import ast
import csv
import datetime as dt
import importlib.util
import re
import statistics

import pytest

from project import ROOT

HERE = ROOT / "accelerator"
DATASET = HERE / "rows.csv"
# The files that run on the device machine, whose Python is 3.11.
ON_DEVICE = ["measure.py", "scaling.py", "run_probe.py", "dataset.py"]


def _load(name):
    spec = importlib.util.spec_from_file_location(f"accelerator_{name}",
                                                  HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


dataset = _load("dataset")
measure = _load("measure")


def read(path):
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def measured(rows=None):
    """The committed rows a summary counts: ok, not quick."""
    return [r for r in (rows or read(DATASET)) if r["status"] == "ok" and r["quick"] == "0"]


# ---------------------------------------------------------------- the committed rows

def test_the_dataset_has_the_loaders_columns():
    with DATASET.open(newline="") as f:
        assert next(csv.reader(f)) == dataset.COLUMNS == measure.COLUMNS


def test_every_row_is_stamped():
    for row in read(DATASET):
        where = f"{row['probe']} on {row['backend']} process {row['process']}"
        assert row["status"] in dataset.STATUSES, where
        assert row["probe"] in dataset.PROBES and row["backend"] in dataset.BACKENDS, where
        for stamp in ("cpu", "cores", "date", "commit", "digest", "process", "quick"):
            assert row[stamp], f"{where}: no {stamp}"
        assert dt.datetime.fromisoformat(row["date"]).tzinfo is not None, where
        assert re.fullmatch(r"[0-9a-f]{12}", row["digest"]), where
        assert row["cpu"].lower() != "unknown", f"{where}: the CPU is not named"
        if row["status"] == "ok":
            for stamp in ("device_kind", "devices", "jax", "jaxlib", "numpy", "python"):
                assert row[stamp], f"{where}: no {stamp}"
        else:
            assert row["reason"], f"{where}: failed without a reason"


def test_each_row_ran_on_the_backend_it_names():
    for row in measured():
        if row["backend"] == "tpu":
            assert "TPU" in row["device_kind"], row["device_kind"]
        else:
            assert row["device_kind"] == "cpu", row["device_kind"]


def test_each_probe_ran_in_at_least_two_processes_per_backend():
    rows = measured()
    for backend in dataset.BACKENDS:
        for probe in dataset.PROBES:
            processes = [r for r in rows if (r["backend"], r["probe"]) == (backend, probe)]
            assert len(processes) >= 2, f"{probe} on {backend}: {len(processes)}"


def test_the_cpu_rows_ran_on_the_accelerators_own_host():
    """The TPU's numbers are compared with its own host's CPU: the same machine."""
    hosts = {b: {(r["cpu"], r["cores"]) for r in measured() if r["backend"] == b}
             for b in dataset.BACKENDS}
    assert hosts["tpu"] == hosts["cpu"] and len(hosts["tpu"]) == 1, hosts


def test_every_quantity_of_a_probe_is_measured_with_ordered_quartiles():
    for row in measured():
        where = f"{row['probe']} on {row['backend']} process {row['process']}"
        timings = (dataset.HISTORY_TIMINGS if row["probe"] == "history"
                   else dataset.SCALING_TIMINGS)
        for name in dataset.quantities(row["probe"]):
            if name not in ("first_trace", "first_lower"):  # not in a release's stages
                assert row.get(f"{name}_median", row.get(name)), f"{where}: no {name}"
        for name in timings:
            if row[f"{name}_median"]:
                q1, median, q3 = (float(row[f"{name}_{s}"]) for s in ("q1", "median", "q3"))
                assert 0 < q1 <= median <= q3, f"{where}: {name}"


def test_the_summary_agrees_with_the_rows():
    rows = measured()
    summary = dataset.load(DATASET)
    assert summary["rows"] == len(rows)
    for backend, its in summary["backends"].items():
        assert its["processes"] == {
            p: sum((r["backend"], r["probe"]) == (backend, p) for r in rows)
            for p in dataset.PROBES}
        for probe in dataset.PROBES:
            mine = [r for r in rows if (r["backend"], r["probe"]) == (backend, probe)]
            for name, spread in its[probe].items():
                values = [dataset.value(r, name) for r in mine]
                assert spread == {"median": statistics.median(values),
                                  "min": min(values), "max": max(values),
                                  "n": len(values)}, f"{backend} {probe} {name}"
            for key, (eager, jit) in dataset.pairs(probe, "eager").items():
                ratios = [float(r[f"{eager}_median"]) / float(r[f"{jit}_median"])
                          for r in mine]
                assert its["eager_over_jit"][probe][key]["median"] == pytest.approx(
                    statistics.median(ratios))
    tpu, cpu = summary["backends"]["tpu"], summary["backends"]["cpu"]
    for probe, ratios in summary["over_cpu"]["tpu"].items():
        for name, ratio in ratios.items():
            assert ratio == tpu[probe][name]["median"] / cpu[probe][name]["median"]
    assert summary["over_cpu"]["tpu"]["scaling"]["deeponet_jit_b4000"] > 0


# ---------------------------------------------------------------- the loader

def _synthetic(path, extra=()):
    """Three processes per probe on a TPU and its host CPU, with numbers chosen so that
    each median, ratio and spread is known; plus `extra` rows."""
    rows = []
    for process in (1, 2, 3):
        for probe in dataset.PROBES:
            for backend, kind, scale in (("tpu", "TPU v5 lite", 1.0), ("cpu", "cpu", 4.0)):
                row = {"status": "ok", "probe": probe, "backend": backend,
                       "device_kind": kind, "devices": 1, "cpu": "Some CPU",
                       "cores": 13, "jax": "0.10.2", "jaxlib": "0.10.2",
                       "numpy": "2.4.6", "python": "3.11.2",
                       "date": f"2026-12-05T13:0{process}:00+00:00",
                       "commit": "0123456789ab", "digest": f"{probe[:1] * 12}",
                       "process": process, "quick": 0, "wall_s": 10.0 * process}
                jit = 1e-3 * process * scale  # 1, 2, 3 ms on the TPU; 4x on the CPU
                if probe == "scaling":
                    names = ("selu_jit_1000000", "selu_eager_1000000",
                             "deeponet_jit_b4000", "deeponet_eager_b4000")
                    values = (jit, 3 * jit, 2 * jit, 100 * jit)
                else:
                    names = ("selu_jit_large", "selu_eager_large", "selu_numpy_large")
                    values = (jit, 5 * jit, 10 * jit)
                for name, v in zip(names, values):
                    row.update({f"{name}_median": v, f"{name}_q1": v, f"{name}_q3": v})
                if probe == "scaling":
                    row["deeponet_jit_first_b4000"] = 2.0 * scale
                rows.append(row)
    rows += list(extra)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, dataset.COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows({c: measure.cell(r.get(c)) for c in dataset.COLUMNS}
                         for r in rows)
    return rows


def test_the_loader_summarizes_a_synthetic_tpu_and_cpu_row_set(tmp_path):
    path = tmp_path / "rows.csv"
    rows = _synthetic(path)
    summary = dataset.load(path)
    assert summary["rows"] == len(rows) == 12
    assert list(summary["backends"]) == ["tpu", "cpu"]
    tpu, cpu = summary["backends"]["tpu"], summary["backends"]["cpu"]
    assert tpu["machine"]["device_kind"] == "TPU v5 lite"
    assert tpu["machine"]["cpu"] == cpu["machine"]["cpu"] == "Some CPU"
    assert tpu["processes"] == cpu["processes"] == {"history": 3, "scaling": 3}
    assert tpu["dates"] == ("2026-12-05T13:01:00+00:00", "2026-12-05T13:03:00+00:00")
    assert tpu["scaling"]["selu_jit_1000000"] == pytest.approx(
        {"median": 2e-3, "min": 1e-3, "max": 3e-3, "n": 3})
    assert tpu["scaling"]["wall_s"]["median"] == 20.0
    assert cpu["scaling"]["deeponet_jit_first_b4000"]["median"] == 8.0
    assert "selu_jit_1000" not in tpu["scaling"]  # empty columns are no quantity
    ratios = tpu["eager_over_jit"]["scaling"]
    assert sorted(ratios) == ["deeponet_b4000", "selu_1000000"]  # where both were measured
    assert ratios["selu_1000000"] == pytest.approx({"median": 3, "min": 3, "max": 3, "n": 3})
    assert ratios["deeponet_b4000"] == pytest.approx(
        {"median": 50, "min": 50, "max": 50, "n": 3})
    assert tpu["eager_over_jit"]["history"]["selu_large"]["median"] == pytest.approx(5)
    assert cpu["numpy_over_jit"]["history"]["selu_large"]["median"] == pytest.approx(10)
    over = summary["over_cpu"]["tpu"]
    assert over["scaling"]["selu_jit_1000000"] == pytest.approx(0.25)
    assert over["scaling"]["deeponet_jit_first_b4000"] == pytest.approx(0.25)
    assert over["history"]["wall_s"] == pytest.approx(1.0)


def test_failed_quick_and_older_probe_rows_are_left_out(tmp_path):
    path = tmp_path / "rows.csv"
    base = {"probe": "scaling", "backend": "tpu", "device_kind": "TPU v5 lite",
            "cpu": "Some CPU", "cores": 13, "commit": "0123456789ab", "process": 4,
            "selu_jit_1000000_median": 1.0}
    _synthetic(path, extra=[
        {**base, "status": "failed", "reason": "exit 1", "digest": "s" * 12,
         "date": "2026-12-05T13:04:00+00:00", "quick": 0},
        {**base, "status": "ok", "digest": "s" * 12, "date": "2026-12-05T13:05:00+00:00",
         "quick": 1},
        {**base, "status": "ok", "digest": "0" * 12, "date": "2026-12-05T12:00:00+00:00",
         "quick": 0}])
    summary = dataset.load(path)
    assert summary["rows"] == 12
    assert summary["backends"]["tpu"]["scaling"]["selu_jit_1000000"]["max"] == 3e-3
    assert dataset.load(path, quick=True)["rows"] == 1


def test_a_summary_without_cpu_rows_has_no_ratios_to_the_cpu(tmp_path):
    path = tmp_path / "rows.csv"
    _synthetic(path)
    rows = [r for r in read(path) if r["backend"] == "tpu"]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, dataset.COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    summary = dataset.load(path)
    assert list(summary["backends"]) == ["tpu"] and summary["over_cpu"] == {}


# ---------------------------------------------------------------- the scripts

def test_the_scripts_that_run_on_the_device_parse_as_python_3_11():
    for name in ON_DEVICE:
        ast.parse((HERE / name).read_text(), name, feature_version=(3, 11))


def test_the_parent_process_never_imports_jax():
    """One process at a time can hold the chip: measure.py must not be one."""
    for name in ("measure.py", "dataset.py"):
        for node in ast.walk(ast.parse((HERE / name).read_text())):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            assert not any(m.split(".")[0] in ("jax", "jaxlib") for m in modules), name


def test_a_quick_run_on_the_cpu_writes_a_row_per_probe(tmp_path):
    out = tmp_path / "quick.csv"
    measure.main(["--quick", "--backends", "cpu", "--out", str(out), "--commit", "test"])
    rows = read(out)
    assert [(r["probe"], r["backend"], r["status"]) for r in rows] == [
        ("history", "cpu", "ok"), ("scaling", "cpu", "ok")], [r["reason"] for r in rows]
    history, scaling = rows
    assert {r["quick"] for r in rows} == {"1"} and history["commit"] == "test"
    assert history["device_kind"] == "cpu" and history["n_large"] == "10000"
    for n in dataset.QUICK_SELU_SIZES:
        assert scaling[f"selu_jit_{n}_median"] and scaling[f"selu_jit_first_{n}"]
    assert scaling["deeponet_eager_b64_median"] and scaling["deeponet_jit_first_b64"]
    assert not scaling["selu_jit_10000000_median"]  # quick: small sizes only
    summary = dataset.load(out, quick=True)
    assert summary["backends"]["cpu"]["processes"] == {"history": 1, "scaling": 1}
    assert dataset.load(out)["rows"] == 0  # quick rows are not the dataset's


def test_another_schema_is_refused(tmp_path):
    out = tmp_path / "rows.csv"
    out.write_text("status,probe\nok,history\n")
    with pytest.raises(SystemExit, match="columns differ"):
        measure.append(out, {"status": "ok"})
