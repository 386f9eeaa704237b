"""history/: the dataset of JAX releases and the script that measures it. The chapter
that renders it ("Has jit got faster?", snippets/jax_history.py) is tested in
test_jax_history.py, which reads this file's helpers."""

import csv
import datetime as dt
import importlib.util
from importlib.metadata import version

import pytest

import jax_history
from project import ROOT

DATASET = ROOT / "history" / "releases.csv"


def _load_measure():
    spec = importlib.util.spec_from_file_location("history_measure",
                                                  ROOT / "history" / "measure.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


measure = _load_measure()


def read(path):
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write(path, rows):
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, measure.COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def test_the_dataset_has_the_scripts_columns():
    with DATASET.open(newline="") as f:
        assert next(csv.reader(f)) == measure.COLUMNS


def test_every_row_is_stamped():
    for row in read(DATASET):
        where = f"{DATASET.name}: {row['release']} process {row['process']}"
        assert row["status"] in measure.STATUSES, where
        for stamp in ("release", "cpu", "cores", "date", "commit", "probe", "quick"):
            assert row[stamp], f"{where}: no {stamp}"
        assert dt.datetime.fromisoformat(row["date"]).tzinfo is not None, where
        if row["status"] != "ok":
            assert row["reason"], f"{where}: {row['status']} without a reason"
            continue
        for stamp in ("jax", "jaxlib", "python", "numpy", "process"):
            assert row[stamp], f"{where}: no {stamp}"
        assert row["jax"] == row["release"], where
        for name in measure.TIMINGS:
            if name in ("first_trace", "first_lower") and row["stages"] == "lower/compile":
                assert row[f"{name}_median"] == "", where  # not exposed: left empty
                continue
            if name == "deeponet_eager" and row["quick"] == "1":
                continue
            q1, median, q3 = (float(row[f"{name}_{s}"]) for s in ("q1", "median", "q3"))
            assert 0 < q1 <= median <= q3, f"{where}: {name}"


def test_the_dataset_holds_five_releases_to_the_installed_one_in_three_processes():
    rows = [r for r in read(DATASET) if r["status"] == "ok" and r["quick"] == "0"
            and r["probe"] == measure.probe_digest()]
    processes = {}
    for r in rows:
        processes[r["release"]] = processes.get(r["release"], 0) + 1
    measured = [r for r, n in processes.items() if n >= 3]
    assert len(measured) >= 5, processes
    assert any(r.startswith("0.4.") for r in measured)
    assert version("jax") in measured  # else the build stops: the dataset is stale


def test_the_probes_digest_ignores_comments_and_sees_code():
    """One digest (snippets/jax_history.py), which history/measure.py imports."""
    code = (ROOT / "history" / "probe.py").read_text(encoding="utf-8")
    commented = code.replace("\ndef ", "\n# a comment\ndef ", 1)
    assert jax_history.code_digest(commented) == jax_history.code_digest(code)
    assert jax_history.code_digest(code.replace("REPEATS = 3", "REPEATS = 4")) \
        != jax_history.code_digest(code)


# ---------------------------------------------------------------- the script

def test_quick_measures_the_installed_release_at_small_sizes(tmp_path):
    out = tmp_path / "quick.csv"
    measure.main(["--quick", "--out", str(out)])
    [row] = read(out)
    assert row["status"] == "ok" and row["quick"] == "1" and row["process"] == "1"
    assert row["release"] == row["jax"] == version("jax")
    assert row["numpy"] == version("numpy") and row["probe"] == measure.probe_digest()
    assert int(row["cores"]) >= 1 and row["cpu"] and row["commit"]
    assert float(row["selu_jit_small_median"]) > 0 and float(row["first_compile_median"]) > 0
    assert (row["n_small"], row["n_large"]) == ("1000", "10000")  # quick sizes (no wall time asserted)
    assert float(row["wall_s"]) > 0


def test_releases_interleave_and_failures_are_rows(tmp_path, monkeypatch):
    """Round-robin over releases; a release that cannot install or run keeps a row with
    its reason (measured with stand-ins for pip and the probe)."""
    calls = []

    def install(release, venv, base_python):
        return "pip install jax==0.0.1: No matching distribution" if release == "0.0.1" else ""

    def run_probe(python, quick):
        release = python.split("venv-")[1].split("/")[0].rsplit("-", 1)[0]
        calls.append(release)
        if release == "0.4.99":
            return None, "exit 1: ImportError: no module"
        return {"jax": release, "jaxlib": release, "python": "3.11.7", "numpy": "1.26.4",
                "selu_jit_small": {"median": 1e-5, "q1": 9e-6, "q3": 2e-5}}, ""

    monkeypatch.setattr(measure, "install", install)
    monkeypatch.setattr(measure, "run_probe", run_probe)
    monkeypatch.setattr(measure, "MIN_FREE_BYTES", 0)  # never delete a real environment
    out = tmp_path / "rows.csv"
    measure.main(["--releases", "0.0.1,0.4.98,0.4.99,0.4.97", "--processes", "3",
                  "--out", str(out)])
    assert calls == ["0.4.98", "0.4.99", "0.4.97", "0.4.98", "0.4.97", "0.4.98", "0.4.97"]
    rows = read(out)
    assert [(r["release"], r["status"], r["process"]) for r in rows[:2]] == \
        [("0.0.1", "install failed", ""), ("0.4.98", "ok", "1")]
    failed = [r for r in rows if r["status"] == "failed"]
    assert [(r["release"], r["process"], r["reason"]) for r in failed] == \
        [("0.4.99", "1", "exit 1: ImportError: no module")]
    assert "No matching distribution" in rows[0]["reason"]
    assert {r["process"] for r in rows if r["release"] == "0.4.98"} == {"1", "2", "3"}
    assert rows[1]["selu_jit_small_q3"] == "2e-05" and rows[1]["quick"] == "0"


def test_each_release_runs_on_the_first_python_that_installs_it(tmp_path, monkeypatch):
    """--python lists Pythons; a release takes the first that installs it, and
    release@python runs on that one alone (stand-ins for pip and the probe)."""
    made = []

    def install(release, venv, base_python):
        made.append((release, base_python))
        if release == "0.0.1":
            return "No matching distribution"
        return "" if release == "0.10.2" or base_python == "py313" else "needs 3.12"

    def run_probe(python, quick):
        name = python.split("venv-")[1].split("/")[0]
        release, base = name.rsplit("-", 1)
        return {"jax": release, "jaxlib": release, "numpy": "2.4.6",
                "python": {"py311": "3.11.7", "py313": "3.13.0"}[base]}, ""

    monkeypatch.setattr(measure, "install", install)
    monkeypatch.setattr(measure, "run_probe", run_probe)
    monkeypatch.setattr(measure, "MIN_FREE_BYTES", 0)
    out = tmp_path / "rows.csv"
    measure.main(["--python", "py311,py313", "--releases", "0.10.2,0.12.0,0.10.2@py313,0.0.1@py311",
                  "--processes", "1", "--out", str(out)])
    assert made == [("0.10.2", "py311"), ("0.12.0", "py311"), ("0.12.0", "py313"),
                    ("0.10.2", "py313"), ("0.0.1", "py311")]
    rows = read(out)
    assert [(r["release"], r["python"]) for r in rows if r["status"] == "ok"] == \
        [("0.10.2", "3.11.7"), ("0.12.0", "3.13.0"), ("0.10.2", "3.13.0")]
    [failed] = [r for r in rows if r["status"] == "install failed"]
    assert failed["release"] == "0.0.1" and "No matching distribution" in failed["reason"]


def test_a_release_on_two_pythons_is_a_bridge_not_a_mixed_series():
    def row(release, python, loop):
        return {"release": release, "python": python, "cpu": "X", "cores": "2",
                "jaxlib": release, "numpy": "2.4.6", "stages": "trace/lower/compile",
                "date": "2026-12-05", "load_start": "0.5", "load_end": "0.5",
                "python_loop_median": str(loop)}
    ok = [row("0.10.2", "3.11.7", 1.0), row("0.10.2", "3.13.0", 0.8),
          row("0.12.0", "3.13.0", 0.8)]
    main, again = jax_history.by_python(ok)
    assert [(r["release"], r["python"]) for r in main] == [("0.10.2", "3.11.7"), ("0.12.0", "3.13.0")]
    assert [(r["release"], r["python"]) for r in again] == [("0.10.2", "3.13.0")]
    spans = jax_history.python_spans([jax_history.per_release([r], 1) for r in main])
    assert [(s["python"], s["first"], s["last"], s["count"]) for s in spans] == \
        [("3.11.7", "0.10.2", "0.10.2", 1), ("3.13.0", "0.12.0", "0.12.0", 1)]


def test_pip_errors_are_read_for_what_failed():
    stderr = ("ERROR: Ignored the following versions that require a different python "
              "version: 0.11.0 Requires-Python >=3.12\n"
              "ERROR: Could not find a version that satisfies the requirement "
              "jaxlib==0.4.14 (from versions: 0.4.13, 0.4.18)\n"
              "ERROR: No matching distribution found for jaxlib==0.4.14\n")
    assert measure.pip_error(stderr) == "No matching distribution found for jaxlib==0.4.14"


def test_another_schema_is_refused(tmp_path):
    out = tmp_path / "old.csv"
    out.write_text("status,release\nok,0.4.30\n")
    with pytest.raises(SystemExit, match="columns differ"):
        measure.append(out, {"status": "ok"})
