"""Measure jit on an accelerator and on that machine's own CPU: accelerator/rows.csv.

Run it on the machine with the accelerator (accelerator/README.md says how). Each round
runs two probes, history/probe.py (unchanged: the history chapter's measurements) and
accelerator/scaling.py (SELU from 10^3 to 10^7 elements, the DeepONet step at four
batch sizes), each in a fresh process per backend, in turn: history on tpu, on cpu,
scaling on tpu, on cpu; then the next round, so that the machine's drift hits both
backends alike. Strictly one process at a time, since one process at a time can hold
the chip; this one never imports jax, so it never holds it. Each process appends one
row as it ends, stamped with the machine, the versions, the date, the commit and the
probe's digest; a process that fails gets a row too, with the reason.

    python3 accelerator/measure.py --out rows.csv --processes 3 --commit 0123abcd4567
    python accelerator/measure.py --quick --backends cpu    # smoke run, a few seconds
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT / "snippets")]
# The history chapter's digest of probe code, so that these rows and history's compare.
from dataset import BACKENDS, COLUMNS, DATASET, PROBES, STATS  # noqa: E402
from jax_history import code_digest  # noqa: E402
from measurement import machine  # noqa: E402  (the CPU, named under gVisor too)

PROBE_FILES = {"history": ROOT / "history" / "probe.py",
               "scaling": HERE / "scaling.py"}
RUNNER = HERE / "run_probe.py"
QUICK_DATASET = ROOT / ".cache" / "accelerator" / "quick.csv"
# A probe that fails this soon most likely met the chip still held by the process
# before it (seen on these machines): it runs once more after a pause.
RETRY_WITHIN_S, RETRY_PAUSE_S = 30, 5


def now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def git_commit() -> str:
    """HEAD's commit, '+changes' when the measuring code differs from it (or is new)."""
    def git(*args):
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True,
                              text=True, check=True).stdout.strip()
    try:
        head = git("rev-parse", "--short=12", "HEAD")
        changed = git("status", "--porcelain", "--", str(HERE),
                      str(PROBE_FILES["history"]))
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if changed else "")


def digest(probe: str) -> str:
    return code_digest(PROBE_FILES[probe].read_text(encoding="utf-8"))


def cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value).replace("\n", " ")


def flatten(result: dict) -> dict:
    """The probes' JSON as one row's columns: a timing ({median, q1, q3}) becomes
    three, anything else one."""
    row = {}
    for key, value in result.items():
        if isinstance(value, dict) and "median" in value:
            row.update({f"{key}_{stat}": value[stat] for stat in STATS})
        else:
            row[key] = value
    return row


def append(path: Path, row: dict) -> None:
    """Append one row, writing the header to a new file; refuse another schema."""
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists() or path.stat().st_size == 0
    if not new:
        with path.open(newline="") as f:
            if next(csv.reader(f)) != COLUMNS:
                sys.exit(f"{path}: its columns differ from this script's; move it "
                         "aside or measure into another file with --out")
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS, lineterminator="\n")
        if new:
            writer.writeheader()
        writer.writerow({c: cell(row.get(c)) for c in COLUMNS})


def child_env(backend: str) -> dict:
    """This environment (on the device machine PYTHONPATH names JAX's folder and the
    TPU_ variables configure the chip) with JAX pinned to one backend."""
    env = {k: v for k, v in os.environ.items() if k != "JAX_PLATFORM_NAME"}
    env.update(JAX_PLATFORMS=backend, TF_CPP_MIN_LOG_LEVEL="2")
    return env


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def run_probe(probe: str, backend: str, quick: bool, timeout: float):
    """(the probe's result with its device, '') or (None, why it failed)."""
    args = [sys.executable, str(RUNNER), str(PROBE_FILES[probe])] + ["--quick"] * quick
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout,
                              env=child_env(backend), cwd=str(ROOT))
    except subprocess.TimeoutExpired:
        return None, f"ran past {timeout:.0f} s"
    if done.returncode != 0:
        log("its error output ends:\n" + "\n".join(done.stderr.splitlines()[-15:]))
        return None, f"exit {done.returncode}: {last_line(done.stderr)}"
    try:
        *_, result, device = (json.loads(line) for line in done.stdout.splitlines()
                              if line.startswith("{"))
    except ValueError:
        return None, f"no result in the output: {last_line(done.stdout)}"
    if device["backend"] != backend:
        return None, f"asked for {backend}, ran on {device['backend']}"
    return {**result, **device}, ""


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def measure(out: Path, backends, processes: int, first: int, quick: bool,
            commit: str, budget_s: float | None) -> None:
    started = time.monotonic()
    deadline = started + budget_s if budget_s else float("inf")
    last_wall = {}  # (probe, backend) -> its last process's seconds: the next's guess
    digests = {probe: digest(probe) for probe in PROBES}
    for process in range(first, first + processes):
        for probe in PROBES:
            for backend in backends:
                left = deadline - time.monotonic()
                guess = last_wall.get((probe, backend), 0.0)
                if guess * 1.2 + 5 > left:
                    log(f"{probe} on {backend}, process {process}: skipped, about "
                        f"{guess:.0f} s and {left:.0f} s left")
                    continue
                stamp = {"probe": probe, "backend": backend, **machine(),
                         "commit": commit,
                         "digest": digests[probe], "process": process,
                         "quick": int(quick)}
                t0 = time.monotonic()
                result, why = run_probe(probe, backend, quick, min(left, 1800))
                if (result is None and backend != "cpu"
                        and time.monotonic() - t0 < RETRY_WITHIN_S):
                    log(f"{probe} on {backend}: {why}; once more in {RETRY_PAUSE_S} s")
                    time.sleep(RETRY_PAUSE_S)
                    t0 = time.monotonic()
                    result, why = run_probe(probe, backend, quick,
                                            min(deadline - time.monotonic(), 1800))
                wall = time.monotonic() - t0
                last_wall[(probe, backend)] = wall
                if result is None:
                    append(out, {**stamp, "status": "failed", "reason": why,
                                 "date": now(), "wall_s": wall})
                    log(f"{probe} on {backend}, process {process}: failed: {why}")
                    continue
                row = {**flatten(result), **stamp, "status": "ok", "date": now(),
                       "wall_s": wall}
                unrecorded = sorted(set(row) - set(COLUMNS))
                if unrecorded:
                    log(f"{probe}: no column for {', '.join(unrecorded)} (left out)")
                append(out, row)
                log(f"{probe} on {backend} ({result['device_kind']}), process "
                    f"{process}: {wall:.0f} s")
    log(f"done in {time.monotonic() - started:.0f} s; rows appended to {out}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help=f"the CSV to append to (default "
                        f"{DATASET.relative_to(ROOT)}; --quick: "
                        f"{QUICK_DATASET.relative_to(ROOT)})")
    parser.add_argument("--processes", type=int, default=None,
                        help="fresh processes per probe and backend (default 3; "
                        "--quick: 1)")
    parser.add_argument("--first-process", type=int, default=1, help="the number of "
                        "the first round (to add rounds to an earlier run's)")
    parser.add_argument("--backends", default=",".join(BACKENDS),
                        help="comma-separated JAX_PLATFORMS values (default tpu,cpu)")
    parser.add_argument("--commit", help="the repository's commit, where the copy that "
                        "runs has no git (default: git rev-parse HEAD here)")
    parser.add_argument("--budget-s", type=float, help="start no process that would "
                        "likely end after this many seconds (guessed from the same "
                        "probe's last process), and stop any at that time")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and a toy network, for the tests")
    args = parser.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    processes = args.processes or (1 if args.quick else 3)
    out = args.out or (QUICK_DATASET if args.quick else DATASET)
    measure(out, backends, processes, args.first_process, args.quick,
            args.commit or git_commit(), args.budget_s)


if __name__ == "__main__":
    main()
