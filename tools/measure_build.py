"""What building this site costs, and how heavy and how wordy its pages are.

On a copy of the project (your .cache/ and site/ stay as they are) it times `mkdocs serve` with no caches (its first
answer, then Ctrl-C while it measures), a cold `mkdocs build --strict`, the same build again and `mkdocs serve`
reloading after edits of docs/selu.md, weighs each page, counts its words and
runs Lighthouse's performance audit on it;
--twice builds cold again and compares the two sites (over a report holding that comparison, only --twice
may write: the pages link it). It writes tools/build-figures.json (the measurements) and
the report in each edition's words (words.yml `report`): build-figures.md and
build-figures.ko.md, which the two editions of how-this-site-is-built include. --quick: small sizes, a smoke test. It drives `mkdocs` and reads what it wrote.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import html
import json
import os
import platform
import posixpath
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sitebuild"))  # the build's modules
import check_site  # noqa: E402
import page_templates  # noqa: E402
import snippet_runs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "tools" / "build-figures.md"  # included by docs/how-this-site-is-built.md
REPORT_KO = ROOT / "tools" / "build-figures.ko.md"  # by docs-ko/how-this-site-is-built.md
DATA = ROOT / "tools" / "build-figures.json"  # what both were written from
TWICE_SECTION = "<!-- two cold builds compared -->"  # written by --twice only
IGNORED = (".venv", ".git", "site", "__pycache__", ".pytest_cache", ".cache", ".ruff_cache")
# A measured number with its unit, masked to compare builds; "never" stands where a break-even count would, long hex strings are hashes, 0x... addresses.
NUMBER = re.compile(r"(?<!\w)(?:[0-9a-f]{32,}\b|0x[0-9a-f]+\b|[-+]?\d[\d,]*(?:\.\d+)?"
                    r"(?:[eE][-+]?\d+)?(?:\s?(?:ns|µs|us|ms|s|×|x|%|GB/s|MB/s))?|never\b)")
# The site's prose limits (issue "Answers first"), in every mode: a chapter's words, the how-page's, the whole site's.
# tests/tools/test_measure_build.py holds the quick build to them; this script's report, the full build.
# "all" was 15,000 for twelve pages; the thirteenth, history/ (issue 35), brought ~1,300 words and
# the data-chosen verdict sentences (issue 32) ~1,100: raised until a trim pass (the round's notes);
# the fourteenth, accelerator/ (issue 45), brought ~900 more. Issue 44's measured sentences (the
# spread across processes, the machine check, NumPy's signs) brought ~300, of which ~110 were
# trimmed elsewhere; the sentences the data choose move a build's count by about ±50 words.
WORD_LIMITS = {"all": 18_700, "chapter": 2_200, "how-this-site-is-built/": 1_500}
# The build's goals on two cores, in seconds (issue 44): a report measured on two cores says beside
# each time whether it met its goal (the how-page points at the table).
GOALS = {"cold": 150, "first_answer": 20}


def against_goal(w: dict, m: dict, name: str, seconds: float) -> str:
    if m["stamp"]["cores"] != 2:  # the goals say nothing of another machine
        return ""
    return w["goal"].format(goal=GOALS[name], verdict=w["goal_met"] if seconds <= GOALS[name] else w["goal_over"])


def over_word_limits(words: dict[str, int]) -> dict[str, int]:
    """The pages (and "all", the whole site) over their word limits, with their counts."""
    over = {page: n for page, n in words.items() if n > WORD_LIMITS.get(page, WORD_LIMITS["chapter"])}
    total = sum(words.values())
    return over | ({"all": total} if total > WORD_LIMITS["all"] else {})


SCALES = ((100e-6, "under 100 µs"), (10e-3, "100 µs to 10 ms"), (float("inf"), "10 ms and more"))  # the smallest are mostly dispatch, which the machine's state moves most
# Not prose: code, tables, figures, navigation, and the hidden copy of each notebook cell's code that mkdocs-jupyter puts beside it for its copy button.
NOT_PROSE = re.compile(r"<(pre|code|table|figure|svg|nav|script|style|clipboard-copy)\b.*?</\1>"
                       r"|<div class=\"clipboard-copy-txt\"[^>]*>.*?</div>", re.S)


def _settings(quick: bool) -> dict[str, str]:
    """What a measured build or serve sets over this environment: the mode, nothing remeasured."""
    return {"NO_MKDOCS_2_WARNING": "1", "PYTHONUNBUFFERED": "1", "JIT_DOCS_QUICK": "1" if quick else "0",
            "JIT_DOCS_REMEASURE": "0"}


def build(project: Path, site: Path, quick: bool) -> float:
    """Wall-clock seconds of `mkdocs build --strict`; a failed build stops the script."""
    start = time.time()
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                            cwd=project, env={**os.environ, **_settings(quick)}, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"mkdocs build failed in {project}:\n{result.stderr[-4000:]}")
    return time.time() - start


def snippet_seconds(measured: Path, start: float) -> dict[str, float]:
    """Each build snippet's share of a cold build, from its results in `measured` (.cache/measured/full): snippets
    run one after another, so each took from the previous one's results.json (or the build's start) to its own."""
    done = sorted((p.stat().st_mtime, p.parent.name) for p in measured.glob("*/results.json"))
    return {name: end - begin for (begin, _), (end, name) in zip([(start, "")] + done, done)}


def _free_address() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def serve_reloads(project: Path, chapter: Path, quick: bool, edits: int = 3) -> list[float]:
    """Seconds from each edit of `chapter` to `mkdocs serve` logging that browsers reload."""
    address = _free_address()
    proc = snippet_runs.start_in_group([sys.executable, "-m", "mkdocs", "serve", "--livereload", "--dev-addr", address],
                                       cwd=project, env=_settings(quick), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines: list[tuple[float, str]] = []  # (when it was read, the line), filled as serve logs
    threading.Thread(target=lambda: lines.extend((time.monotonic(), line.decode("utf-8", "replace"))
                                                 for line in proc.stdout), daemon=True).start()

    def wait_for(text: str, since: float, timeout: float) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and proc.poll() is None:
            found = [at for at, line in list(lines) if at >= since and text in line]
            if found:
                return found[0]
            time.sleep(0.02)
        raise SystemExit(f"mkdocs serve never logged {text!r}:\n" + "".join(line for _, line in lines[-30:]))

    original, seconds = chapter.read_text(encoding="utf-8"), []
    try:
        wait_for("Serving on", 0, 900)
        for i in range(edits):
            time.sleep(1.5)  # let the watcher settle after the previous rebuild
            edited = time.monotonic()
            chapter.write_text(f"{original}\nA sentence added by measure_build.py, edit {i + 1}.\n")
            seconds.append(wait_for("Reloading browsers", edited, 600) - edited)
    finally:
        chapter.write_text(original, encoding="utf-8")
        snippet_runs.kill_group(proc, grace=20)
    return seconds


def serve_fresh(project: Path, quick: bool, stop_after: float = 5.0) -> dict[str, float]:
    """On a project with no caches: seconds from starting `mkdocs serve` to its first answer (the
    home page), then, `stop_after` seconds later, while a build snippet measures, from Ctrl-C
    (SIGINT) to its exit. What it measured is removed: the cold build that follows starts cold."""
    address = _free_address()
    log = project.parent / "serve-fresh.log"
    start = time.monotonic()
    with log.open("w") as out:
        proc = snippet_runs.start_in_group([sys.executable, "-m", "mkdocs", "serve", "--dev-addr", address],
                                           cwd=project, env=_settings(quick), stdout=out, stderr=subprocess.STDOUT)
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"mkdocs serve exited ({proc.returncode}) before answering:\n"
                                 + log.read_text()[-3000:])
            try:
                with urllib.request.urlopen(f"http://{address}/", timeout=5):
                    break
            except OSError:
                time.sleep(0.05)
        answered = time.monotonic() - start
        time.sleep(stop_after)
        interrupted = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
        stopped = time.monotonic() - interrupted
    finally:
        if proc.poll() is None:
            snippet_runs.kill_group(proc)
    shutil.rmtree(project / ".cache", ignore_errors=True)
    return {"answer": answered, "stop": stopped}


def prose_words(page: str) -> int:
    """Words (tokens with a letter or digit) of a page's article outside pre, code, table, figure, svg and nav."""
    article = re.search(r"<article\b.*?</article>", page, re.S)
    text = re.sub(r"<[^>]+>", "", NOT_PROSE.sub(" ", article.group(0) if article else ""))
    return sum(any(c.isalnum() for c in token) for token in html.unescape(text).split())


def _file(page: str, url: str) -> str | None:
    """The file a page's relative URL names (the site's local links are relative: tests/page_checks.py);
    None for a URL with a scheme or host of its own (data:, https:)."""
    if re.match(r"[a-zA-Z][\w+.-]*:|//", url):
        return None
    path = posixpath.join(posixpath.dirname(page), url.split("#")[0].split("?")[0])
    return posixpath.normpath(path + "/index.html" if url.endswith("/") else path)


def page_weights(site: Path) -> tuple[list[dict], int]:
    """Each page's HTML and own figures in bytes (raw, gzipped), its words; the shared assets."""
    _, urls = check_site.site_url_and_pages(site)
    rows, shared = [], set()
    for url in urls:
        file = f"{url}index.html"
        page = check_site.parse_page(site, file)
        page_html = (site / file).read_bytes()
        images = [value for tag, name, value in page.urls if (tag, name) == ("img", "src")]
        figures = {_file(file, src) for src in images} - {None}
        for value in page.fetched:  # stylesheets, scripts, icons: the same on every page
            target = _file(file, value)
            if target and target not in figures and target != file and (site / target).is_file():
                shared.add(target)
        fig_bytes = [(site / f).read_bytes() for f in sorted(figures)]
        rows.append({"page": url or "(home)", "html": len(page_html), "figures": len(fig_bytes),
                     "figure_bytes": sum(map(len, fig_bytes)), "words": prose_words(page_html.decode()),
                     "gzipped": len(gzip.compress(page_html)) + sum(map(len, map(gzip.compress, fig_bytes)))})
    return rows, sum((site / f).stat().st_size for f in shared)


def lighthouse_performance(site: Path, runs: int) -> dict[str, str]:
    """Each page's Lighthouse performance score and total blocking time (mobile emulation,
    one Chromium at a time): the median of `runs` audits, with the scores' range, since one
    audit of the same page moves by ten points. A timing: it moves with the machine, so it
    is reported here, never asserted by a test."""
    import audit_pages
    scores, blocking = {}, {}
    try:
        for _ in range(runs):
            for a in audit_pages.audit(site, performance_pages=1_000, processes=1, validate_html=False):
                if a.scores.get("performance") is not None:
                    scores.setdefault(a.page or "(home)", []).append(a.scores["performance"] * 100)
                    blocking.setdefault(a.page or "(home)", []).append(a.metrics["total_blocking_time_ms"])
    except audit_pages.ToolMissing as missing:  # the report says "not measured" in its edition's words
        return {"(all)": str(missing)}
    found = {page: f"{statistics.median(s):.0f}" + (f" ({min(s):.0f}–{max(s):.0f})" if runs > 1 else "")
             + f" (TBT {statistics.median(blocking[page]):.0f} ms)" for page, s in scores.items()}
    if any(page.startswith("ko/") for page in found) and not hangul_font():
        # The report says what this means in its edition's words (words.yml report.lighthouse_fonts).
        found["(fonts)"] = "fc-list :lang=ko lists no font"
    return found


def hangul_font() -> bool:
    """Whether fontconfig knows a font that covers Korean."""
    try:
        listed = subprocess.run(["fc-list", ":lang=ko", "family"], capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        return False
    return bool(listed.stdout.strip())


def _normalized(path: Path) -> str:
    data = path.read_bytes()
    text = (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8", "replace")
    if path.suffix in (".json", ".ipynb"):  # "\u00b5s" -> "µs": units are masked with numbers
        text = json.dumps(json.loads(text), ensure_ascii=False, indent=0)
    return " ".join(NUMBER.sub("#", text).split())  # numbers, and the padding around them


def compare_sites(a: Path, b: Path) -> dict:
    """Files of two builds: identical, differing only in numbers, or differing otherwise."""
    files_a, files_b = ({p.relative_to(s).as_posix() for p in s.rglob("*") if p.is_file()} for s in (a, b))
    found = {"only_one": sorted(files_a ^ files_b), "identical": [], "numbers": [], "other": []}
    for rel in sorted(files_a & files_b):
        kind = ("identical" if (a / rel).read_bytes() == (b / rel).read_bytes() else
                "numbers" if _normalized(a / rel) == _normalized(b / rel) else "other")
        found[kind].append(rel)
    return found


def _timings(tree, path=()):
    """(path, timing) for every measurement.Timing (median, q1, q3) in a results tree."""
    if isinstance(tree, dict) and {"median", "q1", "q3"} <= tree.keys():
        yield "/".join(path), tree
    elif isinstance(tree, (dict, list)):
        for key, value in tree.items() if isinstance(tree, dict) else enumerate(tree):
            yield from _timings(value, (*path, str(key)))


def _paired_timings(a: Path, b: Path):
    """(size label, the first build's timing, the second's) for every timing both builds
    measured: a committed dataset's (history/, accelerator/: no machine check, as nothing
    was timed here) is the same file twice, and would count as a timing that never moved."""
    for results in sorted(a.glob("measured/*/results.json")):
        first, other = json.loads(results.read_text()), b / results.relative_to(a)
        second = dict(_timings(json.loads(other.read_text())["data"])) if other.is_file() else {}
        for path, t in _timings(first["data"]) if first.get("machine_check") else ():
            if path in second and min(t["median"], second[path]["median"]) > 0:
                yield next(label for bound, label in SCALES if t["median"] < bound), t, second[path]


def timing_moves(a: Path, b: Path) -> dict[str, list[float]]:
    """How far each timing's median moved between builds, by size: the ratio less one (2x slower or faster: 100 %)."""
    moves: dict[str, list[float]] = {label: [] for _, label in SCALES}
    for label, first, second in _paired_timings(a, b):
        low, high = sorted((first["median"], second["median"]))
        moves[label].append(high / low - 1)
    return {label: found for label, found in moves.items() if found}


def within_spreads(a: Path, b: Path) -> dict[str, tuple[int, int]]:
    """By size, how many of the second build's medians lie within the first build's
    interquartile range (the spread a page states), and within the range of its samples."""
    found: dict[str, list[int]] = {label: [0, 0] for _, label in SCALES}
    for label, first, second in _paired_timings(a, b):
        samples = first.get("samples") or (first["q1"], first["q3"])
        found[label][0] += first["q1"] <= second["median"] <= first["q3"]
        found[label][1] += min(samples) <= second["median"] <= max(samples)
    return {label: tuple(counts) for label, counts in found.items()}


def moves_summary(moves: dict[str, list[float]], spreads: dict[str, tuple[int, int]]) -> dict:
    """By size: how many timings, their median and largest move, and how many second-build
    medians fell within the first build's interquartile range and samples' range."""
    return {label: {"n": len(found), "median": statistics.median(found), "max": max(found),
                    "within_iqr": spreads[label][0], "within_samples": spreads[label][1]}
            for label, found in moves.items()}


def stamp(quick: bool) -> dict:
    """Where and what was measured: taken as the project is copied (a commit made while
    the builds run is not the one they measured)."""
    env, version = snippet_runs.machine(), snippet_runs._version

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    commit = git("rev-parse", "--short", "HEAD")
    return {"cpu": env["cpu"], "cores": env["cores"], "python": platform.python_version(),
            "mkdocs": version("mkdocs"), "material": version("mkdocs-material"),
            "date": f"{dt.datetime.now(dt.UTC):%Y-%m-%d}", "commit": commit or "?",
            "changed": bool(commit and git("status", "--porcelain", "--untracked-files=normal")),
            "quick": quick}


def _kb(n: int) -> str:
    return f"{n / 1024:,.0f} KB" if n >= 10 * 1024 else f"{n / 1024:.1f} KB"


def render_report(m: dict, w: dict | None = None) -> str:
    """The report of measurements `m`, in an edition's words (words.yml `report`)."""
    w = w or report_words("docs")
    reloads, snippets = m["reloads"], m["snippets"]
    lines = [f"<!-- {w['written']} -->", "", f"| {w['step']} | {w['time']} |", "|---|---|",
             f"| {w['cold']} | {m['cold']:.0f} s{against_goal(w, m, 'cold', m['cold'])} |"]
    lines += [f"| {w['of_which'].format(name=name)} | {s:.1f} s |" for name, s in snippets.items()]
    lines += [f"| {w['the_rest']} | {m.get('rest', m['cold'] - sum(snippets.values())):.1f} s |",
              f"| {w['warm']} | {m['warm']:.1f} s |",
              f"| {w['reload'].format(chapter=m['chapter'], n=len(reloads))} | "
              f"{statistics.median(reloads):.1f} s ({w['range'].format(low=f'{min(reloads):.1f}', high=f'{max(reloads):.1f}')}) |"]
    if "serve_fresh" in m:
        answer = m["serve_fresh"]["answer"]
        lines += [f"| {w['first_answer']} | {answer:.1f} s{against_goal(w, m, 'first_answer', answer)} |",
                  f"| {w['stop']} | {m['serve_fresh']['stop']:.1f} s |"]
    lines += [f"| {w['cold2']} | {m['cold2']:.0f} s |"] if "cold2" in m else []
    weights, runs = m["weights"], m.get("lighthouse_runs", 1)
    st = m["stamp"]
    stamp_text = w["stamp"].format(**{**st, "changed": w["changed"] if st["changed"] else "",
                                      "cores": w["cores"][st["cores"] != 1].format(n=st["cores"]),
                                      "mode": w["quick"] if st["quick"] else w["full"]})
    lines += ["", f"<small class=\"stamp\">{stamp_text}</small>", "",
              f"### {w['pages']} {{ #build-report-pages }}", "",
              w["pages_text"].format(shared=_kb(m["shared"]), audits=w["audits"].format(n=runs) if runs > 1 else w["one_audit"]),
              "", "| " + " | ".join(w["columns"]) + " |", "|---|---|---|---|---|---|---|"]
    perf = m.get("lighthouse", {})
    # A table, not a sentence: the figures are not prose, and do not count towards its words.
    def named(page: str) -> str:  # the report's own rows, in the edition's words
        return w["home"] if page in ("(home)", "") else w["total"] if page == "all" else page
    lines += [f"| {named(r['page'])} | {_kb(r['html'])} | "
              + (f"{r['figures']}: {_kb(r['figure_bytes'])}" if r["figures"] else w["none"])
              + f" | {_kb(r['gzipped'])} | {r['words']:,} | {perf.get(r['page'], '')} | "
              + f"{perf.get('ko/' + ('' if r['page'] == '(home)' else r['page']), '')} |" for r in weights]
    lines.append(f"| {w['all_pages']} | | | | {sum(r['words'] for r in weights):,} | | |")
    over = over_word_limits({r["page"]: r["words"] for r in weights})
    lines += ["", "**" + w["over"].format(pages=", ".join(f"{named(page)} {n:,}" for page, n in over.items()),
                                          chapter=f"{WORD_LIMITS['chapter']:,}",
                                          how=f"{WORD_LIMITS['how-this-site-is-built/']:,}",
                                          all=f"{WORD_LIMITS['all']:,}") + "**"] if over else []
    lines += ["", w["lighthouse_all"].format(text=perf["(all)"])] if "(all)" in perf else []  # the missing tool
    lines += ["", w["lighthouse_fonts"]] if "(fonts)" in perf else []  # whatever the measurement noted
    if "compare" in m:
        c = m["compare"]  # counts of files, and the first that differ otherwise
        other = w["files_first"].format(shown=len(c["other_files"]), files=", ".join(
            f"`{f}`" for f in c["other_files"])) if c["other_files"] else ""
        lines += ["", TWICE_SECTION, f"### {w['twice']} {{ #build-report-twice }}", "",
                  w["files"].format(all=c["identical"] + c["numbers"] + c["other"], identical=c["identical"],
                                    numbers=c["numbers"], other=c["other"], files=other, one=c["only_one"]), "",
                  w["moves_text"], "", "| " + " | ".join(w["moves_columns"]) + " |", "|---|---|---|---|---|---|"]
        lines += [f"| {w['sizes'].get(label, label)} | {n['n']} | {n['median']:.0%} | {n['max']:.0%} | "
                  f"{n['within_iqr']} ({n['within_iqr'] / n['n']:.0%}) | "
                  f"{n['within_samples']} ({n['within_samples'] / n['n']:.0%}) |"
                  for label, n in m["moves"].items()]
    return "\n".join(lines) + "\n"


def report_words(docs: str) -> dict:
    return page_templates.load_words(ROOT / docs)["report"]


def write_reports(m: dict) -> None:
    """The measurements (build-figures.json) and the report in each edition's words."""
    DATA.write_text(json.dumps(m, indent=1), encoding="utf-8")
    for docs, path in (("docs", REPORT), ("docs-ko", REPORT_KO)):
        path.write_text(render_report(m, report_words(docs)), encoding="utf-8")


def measure(quick: bool, work: Path, twice: bool, chapter_name: str = "docs/selu.md") -> dict:
    m = {"stamp": stamp(quick), "chapter": chapter_name}
    shutil.copytree(ROOT, project := work / "project", ignore=shutil.ignore_patterns(*IGNORED))
    measured = project / ".cache" / "measured" / ("quick" if quick else "full")
    print("mkdocs serve with no caches, a cold build, the same build again, mkdocs serve reloading ...", flush=True)
    m["serve_fresh"] = serve_fresh(project, quick)
    start = time.time()  # the snippets' shares count from the cold build's start
    m["cold"] = build(project, work / "site-a", quick)
    m.update(snippets=snippet_seconds(measured, start), warm=build(project, work / "site-warm", quick),
             reloads=serve_reloads(project, project / chapter_name, quick))
    m["weights"], m["shared"] = page_weights(work / "site-a")
    print("Lighthouse on every page ...", flush=True)
    m["lighthouse_runs"] = 1 if quick else 3
    m["lighthouse"] = lighthouse_performance(work / "site-a", m["lighthouse_runs"])
    if twice:
        print("a second cold build ...", flush=True)
        shutil.rmtree(project / ".cache")
        m["cold2"] = build(project, work / "site-b", quick)
        c = compare_sites(work / "site-a", work / "site-b")
        m["compare"] = {**{k: len(v) for k, v in c.items()}, "other_files": c["other"][:8]}
        m["moves"] = moves_summary(timing_moves(work / "site-a", work / "site-b"),
                                   within_spreads(work / "site-a", work / "site-b"))
    return m


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    parser.add_argument("--twice", action="store_true", help="build cold again and compare the sites")
    parser.add_argument("--out", type=Path, default=REPORT, help=f"the report (default {REPORT}: then "
                        "also its Korean edition and the measurements, build-figures.json)")
    parser.add_argument("--render", action="store_true",
                        help="write both editions' reports again from build-figures.json, measuring nothing")
    args = parser.parse_args(argv)
    if args.render:
        write_reports(json.loads(DATA.read_text(encoding="utf-8")))
        return
    if not args.twice and args.out.is_file() and TWICE_SECTION in args.out.read_text(encoding="utf-8"):
        # The pages link that comparison (how far a timing moves between builds): a one-build
        # report would drop it without a word.
        parser.error(f"{args.out} holds two cold builds compared, which the pages link to; "
                     "measure with --twice, or write a one-build report elsewhere with --out FILE")
    with tempfile.TemporaryDirectory(prefix="measure-build-") as work:
        m = measure(args.quick, Path(work), args.twice)
    if args.out != REPORT:
        args.out.write_text(render_report(m), encoding="utf-8")
    else:
        write_reports(m)
    print(f"\n{render_report(m)}\nwritten to {args.out}")


if __name__ == "__main__":
    main()
