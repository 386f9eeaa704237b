"""Measure jit's costs across JAX releases and append them to history/releases.csv.

For each release it makes a virtual environment of its own under .cache/history/,
installs that jax and jaxlib with a NumPy the release supports, and runs
history/probe.py there in several fresh processes, interleaved across releases
(round-robin: every release's first process, then every release's second, ...) so that
the machine's drift over the run does not pass for a release's change. Every row it
appends is stamped with the release, the versions the process saw, the CPU, the date and
the repository's commit; a release that cannot install or run gets a row with its
status and the reason.

    python history/measure.py --releases 0.4.30,0.10.2 [--processes 3]
    python history/measure.py --python python3.11,python3.13 --releases 0.10.2,0.12.0.1
    python history/measure.py --quick      # the installed release, small sizes, once

With several Pythons, each release runs on the first one that installs it; a release
written 0.10.2@python3.13 runs on that Python alone (the same release on two Pythons
shows what the Python alone changed).

See history/README.md.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PROBE = HERE / "probe.py"
DATASET = HERE / "releases.csv"
CACHE = ROOT / ".cache" / "history"
sys.path.insert(0, str(ROOT / "snippets"))
# One digest of the probe, for the rows written here and those the chapter keeps.
from jax_history import probe_digest  # noqa: E402
from measurement import machine  # noqa: E402
QUICK_DATASET = CACHE / "quick.csv"
# A NumPy per release: 1.26.4 wherever the release accepts it (jaxlib before 0.4.26
# needs NumPy 1), else the site's own NumPy, so that the yardstick changes only once.
NUMPY_CHOICES = ("numpy==1.26.4", "numpy==2.4.6", "numpy")
MIN_FREE_BYTES = 20e9  # below this, a release's environment goes once it is done
PROBE_TIMEOUT_S = 1800

STAMPS = ["status", "reason", "release", "jax", "jaxlib", "python", "numpy", "cpu",
          "cores", "date", "commit", "probe", "process", "quick"]
TIMINGS = (  # each becomes three columns: _median, _q1, _q3 (seconds)
    [f"selu_{way}_{size}" for size in ("small", "large")
     for way in ("eager", "jit", "numpy")]
    + ["dispatch_eager", "dispatch_jit", "dispatch_numpy", "python_loop"]
    + [f"first_{stage}" for stage in ("trace", "lower", "trace_lower", "compile",
                                      "run", "call")]
    + ["deeponet_jit", "deeponet_eager", "numpy_mlp"])
SCALARS = ["n_small", "n_large", "stages", "deeponet_size", "deeponet_jit_first",
           "deeponet_eager_first", "import_s", "first_op_s", "probe_s", "wall_s",
           "load_start", "load_end"]
COLUMNS = STAMPS + SCALARS + [f"{name}_{stat}" for name in TIMINGS
                              for stat in ("median", "q1", "q3")]
STATUSES = ("ok", "install failed", "failed")


def commit() -> str:
    """HEAD's commit, with '+changes' when the measuring code differs from it."""
    def git(*args):
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True,
                              text=True, check=True).stdout.strip()
    try:
        head = git("rev-parse", "--short=12", "HEAD")
        changed = git("status", "--porcelain", "--", str(PROBE), str(Path(__file__)))
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if changed else "")


def now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def stamp(release, process, quick, status="ok", reason="") -> dict:
    return {"status": status, "reason": reason, "release": release, **machine(),
            "date": now(), "commit": commit(),
            "probe": probe_digest(), "process": process, "quick": int(quick)}


def flatten(result: dict) -> dict:
    """The probe's JSON as one CSV row's measurement columns."""
    row = {}
    for key in ("jax", "jaxlib", "python", "numpy", *SCALARS):
        value = result.get(key)
        if isinstance(value, dict):
            value = " ".join(f"{k}={v}" for k, v in value.items())
        row[key] = value
    for name in TIMINGS:
        timing = result.get(name) or {}
        for stat in ("median", "q1", "q3"):
            row[f"{name}_{stat}"] = timing.get(stat)
    return row


def cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value).replace("\n", " ")


def append(path: Path, row: dict) -> None:
    """Append one row, writing the header to a new file; refuse another schema."""
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists() or path.stat().st_size == 0
    if not new:
        with path.open(newline="") as f:
            header = next(csv.reader(f))
        if header != COLUMNS:
            sys.exit(f"{path}: its columns differ from this script's; move it aside "
                     "or measure into another file with --out")
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS, lineterminator="\n")
        if new:
            writer.writeheader()
        writer.writerow({c: cell(row.get(c)) for c in COLUMNS})


def clean_env() -> dict:
    """The probe's environment: CPU only, none of this shell's Python or JAX flags."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "JAX_", "XLA_", "TF_"))}
    env.update(JAX_PLATFORMS="cpu", JAX_PLATFORM_NAME="cpu", TF_CPP_MIN_LOG_LEVEL="2")
    return env


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()
             and not ln.startswith("WARNING: Location")]
    return lines[-1][:300] if lines else ""


def pip_error(text: str) -> str:
    """What pip could not do: its ERROR lines, less the lists of versions it ignored
    and the pointer to its help page."""
    found = [line[len("ERROR:"):].strip() for line in text.splitlines()
             if line.startswith("ERROR:") and "Ignored the following" not in line
             and "ResolutionImpossible" not in line]
    return (found[-1] if found else last_line(text))[:300]


def run_probe(python: str, quick: bool) -> tuple[dict | None, str]:
    """(the probe's result, '') or (None, why it failed)."""
    args = [python, str(PROBE)] + ["--quick"] * quick
    try:
        done = subprocess.run(args, capture_output=True, text=True, env=clean_env(),
                              timeout=PROBE_TIMEOUT_S, cwd=str(HERE))
    except subprocess.TimeoutExpired:
        return None, f"the probe ran past {PROBE_TIMEOUT_S} s"
    if done.returncode != 0:
        return None, f"exit {done.returncode}: {last_line(done.stderr)}"
    try:
        return json.loads(done.stdout.strip().splitlines()[-1]), ""
    except (ValueError, IndexError):
        return None, f"no result in the probe's output: {last_line(done.stdout)}"


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def install(release: str, venv: Path, base_python: str) -> str:
    """Make the release's environment; '' when ready, else why it could not be made."""
    marker = venv / "history-installed.txt"
    if marker.exists() and venv_python(venv).exists():
        return ""
    if venv.exists():
        shutil.rmtree(venv)
    made = subprocess.run([base_python, "-m", "venv", str(venv)], capture_output=True,
                          text=True)
    if made.returncode != 0:
        return f"python -m venv failed: {last_line(made.stderr)}"
    errors = {}  # pip's error -> the first install that met it
    for jaxlib in (f"jaxlib=={release}", None):  # a jax without its own jaxlib: any
        jax = f"jax=={release}" if jaxlib else f"jax[cpu]=={release}"
        for numpy in NUMPY_CHOICES:
            specs = [jax, numpy] + ([jaxlib] if jaxlib else [])
            pip = subprocess.run(
                # wheels only: NumPy 1.26.4 has none for Python 3.13, and pip would
                # otherwise compile it for minutes instead of moving on to NumPy 2
                [str(venv_python(venv)), "-m", "pip", "install", "-q",
                 "--disable-pip-version-check", "--only-binary=:all:", *specs],
                capture_output=True, text=True, env=clean_env())
            if pip.returncode == 0:
                marker.write_text(" ".join(specs) + "\n")
                return ""
            errors.setdefault(pip_error(pip.stderr), " ".join(specs))
    shutil.rmtree(venv, ignore_errors=True)
    return " / ".join(f"pip install {specs}: {error}"
                      for error, specs in errors.items())


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def venv_for(release: str, python: str) -> Path:
    return CACHE / f"venv-{release}-{Path(python).name}"


def measure_releases(releases, processes, out, pythons, remove_venvs):
    """releases: "0.10.2" (the first of `pythons` that installs it) or
    "0.10.2@python3.13" (that Python alone)."""
    started = time.perf_counter()
    ready = []  # (release, its environment)
    for token in releases:
        release, _, only = token.partition("@")
        t0 = time.perf_counter()
        whys = []
        for python in [only] if only else pythons:
            venv = venv_for(release, python)
            why = install(release, venv, python)
            if not why:
                log(f"{release}: environment ready on {python} "
                    f"({time.perf_counter() - t0:.0f} s)")
                ready.append((release, venv))
                break
            whys.append(f"{python}: {why}" if len(pythons) > 1 or only else why)
        else:
            why = " // ".join(whys)
            log(f"{release}: cannot install: {why}")
            append(out, stamp(release, "", False, "install failed", why))
    failed = set()
    for process in range(1, processes + 1):
        for release, venv in ready:
            if venv in failed:
                continue
            t0 = time.perf_counter()
            result, why = run_probe(str(venv_python(venv)), quick=False)
            wall = time.perf_counter() - t0
            if result is None:
                failed.add(venv)  # recorded once; its later processes would fail too
                append(out, stamp(release, process, False, "failed", why))
                log(f"{release} ({venv.name}) process {process}: failed: {why}")
            else:
                append(out, {**stamp(release, process, False), **flatten(result),
                             "wall_s": wall})
                log(f"{release} ({venv.name}) process {process}: {wall:.0f} s")
            if process == processes or venv in failed:
                if remove_venvs or shutil.disk_usage(ROOT).free < MIN_FREE_BYTES:
                    shutil.rmtree(venv, ignore_errors=True)
    log(f"done in {time.perf_counter() - started:.0f} s; rows appended to {out}")


def measure_installed(processes, out):
    try:
        release = version("jax")
    except PackageNotFoundError:
        sys.exit("--quick measures the installed jax, and this Python has none")
    for process in range(1, processes + 1):
        t0 = time.perf_counter()
        result, why = run_probe(sys.executable, quick=True)
        wall = time.perf_counter() - t0
        if result is None:
            append(out, stamp(release, process, True, "failed", why))
            sys.exit(f"{release}: the probe failed: {why}")
        row = {**stamp(release, process, True), **flatten(result), "wall_s": wall}
        append(out, row)
        log(f"{release} quick process {process}: {wall:.1f} s, appended to {out}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--releases", help="comma-separated jax releases, e.g. "
                        "0.4.30,0.10.2 (each installs into its own environment)")
    parser.add_argument("--processes", type=int, help="fresh processes per release "
                        "(default 3; --quick: 1)")
    parser.add_argument("--quick", action="store_true", help="a smoke run of the "
                        "installed release at small sizes, in this Python")
    parser.add_argument("--out", type=Path, help=f"the CSV to append to (default "
                        f"{DATASET.relative_to(ROOT)}; --quick: "
                        f"{QUICK_DATASET.relative_to(ROOT)})")
    parser.add_argument("--python", default=getattr(sys, "_base_executable",
                                                    sys.executable),
                        help="the Pythons that make the environments, comma-separated: "
                        "each release runs on the first that installs it (default: "
                        "this one's base interpreter)")
    parser.add_argument("--remove-venvs", action="store_true", help="delete each "
                        "release's environment after its last process (they are "
                        "also deleted when the disk has under 20 GB free)")
    args = parser.parse_args(argv)
    if args.quick:
        if args.releases:
            parser.error("--quick measures the installed release only")
        measure_installed(args.processes or 1, args.out or QUICK_DATASET)
    elif not args.releases:
        parser.error("name the releases (--releases 0.4.30,0.10.2) or use --quick")
    else:
        releases = [r.strip() for r in args.releases.split(",") if r.strip()]
        pythons = [p.strip() for p in args.python.split(",") if p.strip()]
        measure_releases(releases, args.processes or 3, args.out or DATASET,
                         pythons, args.remove_venvs)


if __name__ == "__main__":
    main()
