"""What building this site costs, how heavy its pages are, and whether two builds agree.

    python sitebuild/measure_build.py            # full size: several minutes
    python sitebuild/measure_build.py --quick    # small sizes: a smoke test of this script

Works on a copy of the project in a temporary folder, so your .cache/ and site/ stay as
they are. In that copy it runs, one after another:

1. a cold `mkdocs build --strict`: no caches, so every build snippet measures and every
   notebook executes (this is what a fresh clone or the Pages workflow pays);
2. the same build again with nothing changed (caches reused);
3. `mkdocs serve`, editing a chapter's prose three times: the time from each edit to the
   log line saying the rebuild is done and browsers reload;
4. a second cold build (caches removed again), compared with the first file by file:
   which files are identical, which differ only in numbers, which differ otherwise, and
   how far the measured timings moved, by size. The report states the spread between builds:
   the largest moves over every comparison so far (kept in a comment at its top, with how
   many), and the next run checks its own pair of builds against it before widening it.

It also weighs each page (its HTML plus its own figures; the theme's shared CSS and
JavaScript are counted once, apart) and writes a stamped Markdown report,
sitebuild/build-figures.md, which the page "How this site is built" includes.
Nothing here imports MkDocs: it drives the `mkdocs` command and reads the built files.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import math
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_site  # noqa: E402
import snippet_runs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "sitebuild" / "build-figures.md"
IGNORED = (".venv", ".git", "site", "__pycache__", ".pytest_cache", ".cache")
# A measured number as pages print it, with its unit: masked before two builds are compared.
# "never" stands where a break-even count would be when jit saves nothing; long hex strings
# are hashes (JAX's persistent-cache keys hash the cache folder's path, a new temporary one),
# 0x... are memory addresses in the reprs JAX's messages print.
NUMBER = re.compile(r"(?<!\w)(?:[0-9a-f]{32,}\b|0x[0-9a-f]+\b|[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?(?:\s?(?:ns|µs|us|ms|s|×|x|%|GB/s|MB/s))?|never\b)")
# Timings are compared by size: calls of a few microseconds are mostly dispatch, which the
# build machine's state moves far more than it moves long computations.
SCALES = ((100e-6, "under 100 µs"), (10e-3, "100 µs to 10 ms"), (math.inf, "10 ms and more"))


# ---------------------------------------------------------------- running the builds

def copy_project(dst: Path) -> Path:
    shutil.copytree(ROOT, dst, ignore=shutil.ignore_patterns(*IGNORED))
    return dst


def _env(quick: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("JIT_DOCS_QUICK", "JIT_DOCS_REMEASURE")}
    env.update(NO_MKDOCS_2_WARNING="1", PYTHONUNBUFFERED="1")
    if quick:
        env["JIT_DOCS_QUICK"] = "1"
    return env


def build(project: Path, site: Path, quick: bool) -> tuple[float, str]:
    """Wall-clock seconds of `mkdocs build --strict`, and its log."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                            cwd=project, env=_env(quick), capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"mkdocs build failed in {project}:\n{result.stdout}\n{result.stderr[-4000:]}")
    return seconds, result.stdout + result.stderr


def snippet_seconds(log: str) -> dict[str, float]:
    """Measuring time of each build snippet, from the build log (sitebuild/hook.py)."""
    return {name: float(s) for name, s in re.findall(r"(\S+): measured in ([\d.]+) s", log)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_reloads(project: Path, chapter: Path, quick: bool, edits: int = 3) -> list[float]:
    """Seconds from each edit of `chapter` to `mkdocs serve` logging that browsers reload."""
    lines: list[tuple[float, str]] = []
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--livereload", "--dev-addr", f"127.0.0.1:{_free_port()}"],
        cwd=project, env=_env(quick), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def read():
        for line in proc.stdout:
            lines.append((time.monotonic(), line))
    threading.Thread(target=read, daemon=True).start()

    def wait_for(text: str, since: float, timeout: float) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for stamp, line in list(lines):
                if stamp >= since and text in line:
                    return stamp
            if proc.poll() is not None:
                break
            time.sleep(0.02)
        raise SystemExit(f"mkdocs serve never logged {text!r}:\n" + "".join(line for _, line in lines[-30:]))

    original = chapter.read_text(encoding="utf-8")
    seconds = []
    try:
        wait_for("Serving on", 0, 900)
        for i in range(edits):
            time.sleep(1.5)  # let the watcher settle after the previous build
            edited = time.monotonic()
            chapter.write_text(original + f"\nA sentence added by measure_build.py, edit {i + 1}.\n", encoding="utf-8")
            seconds.append(wait_for("Reloading browsers", edited, 600) - edited)
    finally:
        chapter.write_text(original, encoding="utf-8")
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    return seconds


# ---------------------------------------------------------------- comparing two builds

def _normalized(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    text = data.decode("utf-8", "replace")
    if path.suffix in (".json", ".ipynb"):  # "\u00b5s" -> "µs", so units are masked with their numbers
        try:
            text = json.dumps(json.loads(text), ensure_ascii=False, indent=0)
        except ValueError:
            pass
    return " ".join(NUMBER.sub("#", text).split())  # numbers and the padding around them


def compare_sites(a: Path, b: Path) -> dict:
    """Files of two builds: identical, differing only in numbers, or differing otherwise."""
    files_a = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    result = {"only_first": sorted(files_a - files_b), "only_second": sorted(files_b - files_a),
              "identical": [], "numbers": [], "other": {}}
    for rel in sorted(files_a & files_b):
        if (a / rel).read_bytes() == (b / rel).read_bytes():
            result["identical"].append(rel)
            continue
        text_a, text_b = _normalized(a / rel), _normalized(b / rel)
        if text_a == text_b:
            result["numbers"].append(rel)
        else:
            at = next((i for i, (x, y) in enumerate(zip(text_a, text_b)) if x != y), min(len(text_a), len(text_b)))
            start = max(0, at - 30)
            result["other"][rel] = (text_a[start:at + 50], text_b[start:at + 50])  # where they part
    return result


def _timings(tree, path=()):
    """(path, timing dict) for every measurement.Timing (median, q1, q3) in a results tree."""
    if isinstance(tree, dict):
        if {"median", "q1", "q3"} <= tree.keys():
            yield path, tree
        else:
            for key, value in tree.items():
                yield from _timings(value, path + (str(key),))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from _timings(value, path + (str(i),))


def _move(first: float, second: float) -> float:
    """How far a value moved, the same either way: 2x slower and 2x faster are both 100 %."""
    return max(first, second) / min(first, second) - 1


def _scale(seconds: float) -> str:
    return next(label for bound, label in SCALES if seconds < bound)


def timing_agreement(first: dict, second: dict) -> list[dict]:
    """How far each timing moved between two builds, against the spread each one states."""
    b = dict(_timings(second))
    rows = []
    for path, t in _timings(first):
        u = b.get(path)
        if u is None or not t["median"] or not u["median"]:
            continue
        samples = t.get("samples") or [t["q1"], t["q3"]]
        rows.append({"path": "/".join(path), "first": t["median"], "second": u["median"],
                     "change": u["median"] / t["median"] - 1, "move": _move(t["median"], u["median"]),
                     "scale": _scale(t["median"]),
                     "inside": t["q1"] <= u["median"] <= t["q3"],
                     "in_range": min(samples) <= u["median"] <= max(samples)})
    return rows


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def spread_by_scale(rows: list[dict]) -> list[dict]:
    """Per size of timing: how many stayed in the first build's spread, and how far they moved."""
    found = []
    for _, label in SCALES:
        moves = [r["move"] for r in rows if r["scale"] == label]
        if moves:
            found.append({"scale": label, "count": len(moves),
                          "inside": sum(r["inside"] for r in rows if r["scale"] == label),
                          "in_range": sum(r["in_range"] for r in rows if r["scale"] == label),
                          "median": statistics.median(moves), "p90": _quantile(moves, 0.9),
                          "max": max(moves)})
    return found


def against_stated(rows: list[dict], stated: dict[str, float]) -> dict:
    """The timings that moved no further than an earlier measurement said they would (its
    largest move for their size); `stated` maps a size label to that move."""
    checked = [r for r in rows if r["scale"] in stated]
    beyond = [r for r in checked if r["move"] > stated[r["scale"]]]
    return {"count": len(checked), "within": len(checked) - len(beyond), "beyond": beyond}


def renewed_statement(previous: dict | None, spread: list[dict], stamp: str, quick: bool) -> dict:
    """The spread between builds a report states: per size of timing, the largest move over
    every comparison so far (this one and those the previous statement covered)."""
    largest = dict((previous or {}).get("largest", {}))
    for found in spread:
        largest[found["scale"]] = round(max(found["max"], largest.get(found["scale"], 0.0)), 4)
    earlier = previous.get("comparisons", 1) if previous else 0
    return {"stamp": stamp, "quick": quick, "comparisons": earlier + 1,
            "largest": largest}


def machine_checks(site: Path) -> dict[str, dict]:
    """Each build snippet's machine check (measurement.machine_check), before and after measuring."""
    return {path.parent.name: json.loads(path.read_text(encoding="utf-8")).get("machine_check", {})
            for path in sorted(site.glob("measured/*/results.json"))}


# ---------------------------------------------------------------- page weight

def page_weights(site: Path) -> tuple[list[dict], int]:
    """Each page: its HTML and its own figures in bytes (raw and gzipped); and the theme's assets."""
    _, urls = check_site.site_url_and_pages(site)
    rows, shared = [], set()
    for url in urls:
        file = f"{url}index.html"
        page = check_site.parse_page(site, file)
        html = (site / file).read_bytes()
        figures = set()
        for value in [src for src, _ in page.images]:
            target, _, _ = check_site.local_target(page, value, None)
            if target and (site / target).is_file():
                figures.add(target)
        for value in page.fetched:  # stylesheets, scripts, icons: the same on every page
            target, _, _ = check_site.local_target(page, value, None)
            if value and target not in figures and target != file and (site / target).is_file():
                shared.add(target)
        fig_bytes = [(site / f).read_bytes() for f in sorted(figures)]
        inline_css = sum(map(len, re.findall(rb"<style.*?</style>", html, re.S)))
        rows.append({"page": url or "(home)", "html": len(html), "inline_css": inline_css, "figures": len(fig_bytes),
                     "figure_bytes": sum(map(len, fig_bytes)),
                     "gzipped": len(gzip.compress(html)) + sum(len(gzip.compress(f)) for f in fig_bytes)})
    return rows, sum((site / f).stat().st_size for f in shared)


# ---------------------------------------------------------------- the report

def _kb(n: int) -> str:
    return f"{n / 1024:,.0f} KB" if n >= 10 * 1024 else f"{n / 1024:.1f} KB"


def stamp(quick: bool) -> str:
    env = snippet_runs.machine()
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        commit = ""
    return (f"Measured on {env['cpu']}, {env['cores']} cores · Python {platform.python_version()}, "
            f"mkdocs {snippet_runs._version('mkdocs')}, mkdocs-material {snippet_runs._version('mkdocs-material')} · "
            f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d}" + (f" · commit {commit}" if commit else "")
            + (" · quick mode (small sizes)" if quick else " · full size"))


def _kinds(files: list[str]) -> str:
    kinds: dict[str, int] = {}
    for f in files:
        kind = ("results.json" if f.endswith("results.json") else Path(f).suffix.lstrip(".") or f)
        kinds[kind] = kinds.get(kind, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"


def render_report(m: dict) -> str:
    cold, warm, cold2 = m["cold"], m["warm"], m["cold2"]
    reload = m["reloads"]
    measuring = sum(m["snippets"].values())
    lines = [
        "<!-- Written by `python sitebuild/measure_build.py`; included by docs/how-this-site-is-built.md. -->",
        "<!-- stated spread: " + json.dumps(m["statement"], ensure_ascii=False) + " -->",
        "",
        "| step | time |",
        "|---|---|",
        f"| cold `mkdocs build --strict` (no caches: every build snippet measures, every notebook runs) | {cold:.0f} s |",
        f"| of which build snippets measuring | {measuring:.0f} s |",
        f"| the same build again, nothing changed (caches reused) | {warm:.1f} s |",
        f"| `mkdocs serve`: edit of `{m['chapter']}` to \"Reloading browsers\" (median of {len(reload)}) | "
        f"{statistics.median(reload):.1f} s ({min(reload):.1f} to {max(reload):.1f}) |",
        f"| second cold build | {cold2:.0f} s |",
        "",
        "| build snippet | measuring, first cold build | second cold build |",
        "|---|---|---|",
    ]
    lines += [f"| `{name}` | {s:.1f} s | {m['snippets2'].get(name, float('nan')):.1f} s |"
              for name, s in m["snippets"].items()]
    lines += ["", f"<small class=\"stamp\">{m['stamp']}</small>", "", "### Page weight", "",
              "Each page's HTML plus its own figures, as the server sends them and gzipped. The shared "
              f"stylesheets, scripts and icons ({_kb(m['shared'])}) come on top, once: browsers cache them.", "",
              "| page | HTML | of which inline CSS | own figures | total | gzipped |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['page']} | {_kb(r['html'])} | {_kb(r['inline_css']) if r['inline_css'] else 'none'} | "
              + (f"{r['figures']}: {_kb(r['figure_bytes'])} | " if r["figures"] else "none | ")
              + f"{_kb(r['html'] + r['figure_bytes'])} | {_kb(r['gzipped'])} |" for r in m["weights"]]
    c, t = m["compare"], m["timings"]
    worst = sorted(t["rows"], key=lambda r: -abs(r["change"]))[:3]
    lines += ["", "### Two cold builds compared", "",
              f"Of {len(c['identical']) + len(c['numbers']) + len(c['other'])} files in both builds, "
              f"**{len(c['identical'])}** are byte for byte identical and **{len(c['numbers'])}** differ only in "
              f"numbers ({_kinds(c['numbers'])}); **{len(c['other'])}** differ otherwise"
              + (f" ({_kinds(list(c['other']))})" if c["other"] else "") + ". "
              f"Files in one build only: {len(c['only_first']) + len(c['only_second'])}.", ""]
    for rel, (x, y) in list(c["other"].items())[:5]:
        x, y = (' '.join(v.replace('`', "'").split()) for v in (x, y))
        lines.append(f"- `{rel}`: `{x}` against `{y}`")
    if t["count"]:
        lines += timing_report(m)
    return "\n".join(lines) + "\n"


def _pct(move: float) -> str:
    return f"{move:.0%}" if move < 10 else f"{move + 1:.0f}×"


def timing_report(m: dict) -> list[str]:
    t, spread, previous = m["timings"], m["spread"], m["previous"]
    worst = sorted(t["rows"], key=lambda r: -r["move"])[:3]
    lines = ["", "#### How far the timings moved", "",
             f"All {t['count']} timings in the results (medians of repeated samples, with their "
             "interquartile ranges: the brackets on the pages), first build against second. *Inside* "
             "counts the second build's median within the first build's interquartile range, *in range* "
             "within the first build's fastest and slowest samples. A move is the ratio of the two "
             "medians, the same either way: twice as slow or twice as fast is a move of 100 %.", "",
             "| timings | how many | inside | in range | median move | 9 in 10 moved less than | largest move |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {s['scale']} | {s['count']} | {s['inside']} | {s['in_range']} | {_pct(s['median'])} | "
              f"{_pct(s['p90'])} | {_pct(s['max'])} |" for s in spread]
    lines += ["", "Moved most: " + "; ".join(f"`{r['path']}` {r['change']:+.0%}" for r in worst) + "."]
    if previous:
        found = against_stated(t["rows"], previous["largest"])
        runs = previous.get("comparisons", 1)
        lines += ["", f"Against the spread stated before this run (the largest moves over {runs} earlier "
                      f"comparison{'s' if runs > 1 else ''}, the last {previous['stamp']}): "
                      f"**{found['within']} of {found['count']}** timings moved no further than the stated "
                      "move for their size"
                  + (". Beyond it: " + "; ".join(f"`{r['path']}` {_pct(r['move'])}" for r in found["beyond"][:5])
                     + ("; …" if len(found["beyond"]) > 5 else "") if found["beyond"] else "") + "."]
    if "statement" in m:
        stated = m["statement"]
        lines += ["", f"**The spread between builds this report states**, the largest move over "
                      f"{stated['comparisons']} comparison{'s' if stated['comparisons'] > 1 else ''} of two cold "
                      "builds: " + "; ".join(f"{scale}: {_pct(move)}" for scale, move in stated["largest"].items())
                  + ". The next run checks its own pair of builds against it."]
    checks = m["checks"]
    keys = (("python_loop", "pure-Python loop"), ("tiny_jit_call", "tiny jitted call"))
    lines += ["", "#### The machine each build met", "",
              "`measurement.machine_check`, taken by every build snippet before and after it measures "
              "(median of 9 samples, before → after):", "",
              "| build snippet | " + " | ".join(f"{label}, {which}" for _, label in keys
                                               for which in ("first build", "second build")) + " |",
              "|---|" + "---|" * 2 * len(keys)]
    for name, first in checks["first"].items():
        second = checks["second"].get(name, {})
        cells = []
        for key, _ in keys:
            for check in (first, second):
                values = [check.get(when, {}).get(key) for when in ("start", "end")]
                cells.append(" → ".join(map(_seconds, values)) if None not in values else "n/a")
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return lines


def _seconds(seconds: float) -> str:
    return f"{seconds * 1e6:.3g} µs" if seconds < 1e-3 else f"{seconds * 1e3:.3g} ms"


STATED = re.compile(r"<!-- stated spread: (\{.*?\}) -->")


def previous_statement(report: Path) -> dict | None:
    """The largest moves an earlier report stated, per size of timing, with its stamp."""
    try:
        found = STATED.search(report.read_text(encoding="utf-8"))
    except OSError:
        return None
    return json.loads(found.group(1)) if found else None


def measure(quick: bool, chapter_name: str, work: Path) -> dict:
    project = copy_project(work / "project")
    chapter = project / chapter_name
    if not chapter.is_file():
        raise SystemExit(f"no chapter {chapter_name} to edit: pass --chapter docs/<page>.md")
    print("1/4 cold build ...", flush=True)
    cold, log = build(project, work / "site-a", quick)
    print(f"    {cold:.1f} s\n2/4 rebuild, nothing changed ...", flush=True)
    warm, _ = build(project, work / "site-warm", quick)
    print(f"    {warm:.1f} s\n3/4 mkdocs serve, editing {chapter_name} ...", flush=True)
    reloads = serve_reloads(project, chapter, quick)
    print(f"    {', '.join(f'{s:.1f} s' for s in reloads)}\n4/4 second cold build ...", flush=True)
    shutil.rmtree(project / ".cache")
    cold2, log2 = build(project, work / "site-b", quick)
    print(f"    {cold2:.1f} s", flush=True)
    a, b = work / "site-a", work / "site-b"
    weights, shared = page_weights(a)
    return {"cold": cold, "warm": warm, "cold2": cold2, "reloads": reloads, "chapter": chapter_name,
            "snippets": snippet_seconds(log), "snippets2": snippet_seconds(log2),
            "weights": weights, "shared": shared, "compare": compare_sites(a, b), **compare_timings(a, b),
            "stamp": stamp(quick)}


def compare_timings(a: Path, b: Path) -> dict:
    """Every timing of two builds' results, and the machine checks each build snippet took."""
    rows = []
    for results in sorted(a.glob("measured/*/results.json")):
        other = b / results.relative_to(a)
        if other.is_file():
            for row in timing_agreement(json.loads(results.read_text())["data"], json.loads(other.read_text())["data"]):
                rows.append({**row, "path": f"{results.parent.name}/{row['path']}"})
    return {"timings": {"rows": rows, "count": len(rows)}, "spread": spread_by_scale(rows),
            "checks": {"first": machine_checks(a), "second": machine_checks(b)}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="build in quick mode (a smoke test of this script)")
    parser.add_argument("--chapter", default="docs/selu.md", help="the page whose prose serve's test edits")
    parser.add_argument("--out", type=Path, default=REPORT, help=f"where to write the report (default {REPORT})")
    parser.add_argument("--keep", type=Path, help="copy the two cold builds here (site-a, site-b) to compare by hand")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"),
                        help="build nothing: print how far the timings of two built sites moved")
    args = parser.parse_args(argv)
    previous = previous_statement(args.out)
    if previous and previous.get("quick") != args.quick:
        previous = None  # quick and full size measure different things
    if args.compare:
        print("\n".join(timing_report({**compare_timings(*args.compare), "previous": previous})))
        return
    with tempfile.TemporaryDirectory(prefix="measure-build-") as work:
        measured = measure(args.quick, args.chapter, Path(work))
        measured["statement"] = renewed_statement(previous, measured["spread"], measured["stamp"], args.quick)
        report = render_report({**measured, "previous": previous})
        if args.keep:
            for name in ("site-a", "site-b"):
                shutil.copytree(Path(work) / name, args.keep / name, dirs_exist_ok=True)
    args.out.write_text(report, encoding="utf-8")
    print(f"\n{report}\nwritten to {args.out}")


if __name__ == "__main__":
    main()
