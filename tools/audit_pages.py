"""Audit a built site the way its readers' browsers and validators see it.

    python tools/audit_pages.py SITE_DIR [--performance-pages N] [--json FILE]

Two tools, installed by `.ci/run` (see tools/audit-tools/package.json):

- the Nu Html Checker (vnu.jar, on Debian's Java): every HTML page in one Java process,
  errors only;
- Lighthouse (on Debian's Chromium, default mobile emulation), over the site served on
  127.0.0.1: accessibility, best practices and SEO, and what the page weighs and
  requests on load, on every page; performance on the N heaviest pages (most HTML
  elements; none in the tests, which time nothing), a few Chromium processes in parallel.

It prints one line per page and exits 1 when a page has a validation error, or scores
below 100 in accessibility, best practices or SEO. The performance score is printed but
never decides: it comes from timings, which move with the machine's load (a slow moment
would fail a correct site). What decides instead are the figures that make those timings
and do not move: the page's elements, its bytes, and what it requests on load.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import gzip
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sitebuild"))
import check_site  # noqa: E402

TOOLS = Path(__file__).resolve().parent / "audit-tools"
VNU_JAR = TOOLS / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
LIGHTHOUSE = TOOLS / "node_modules" / "lighthouse"
CHROMIUM = Path("/usr/bin/chromium")
INSTALL = ("apt-get install chromium default-jre-headless nodejs npm; "
           "npm ci --ignore-scripts --prefix tools/audit-tools")
STRICT_CATEGORIES = ("accessibility", "best-practices", "seo")  # each must score 100

# What a page may weigh; Lighthouse's own warnings start at 800 elements (a "large" DOM)
# and 1,400 (an "excessive" one), and at 1.6 MB of transfer.
MAX_DOM_ELEMENTS = 1_400
MAX_BYTES = 1_600_000
# Requests a page must not make while it loads (only when the reader asks for them).
NOT_ON_LOAD = re.compile(r"search/search_index\.json$")


_COMPRESSED = {".html", ".css", ".js", ".json", ".svg", ".xml", ".txt", ".ipynb"}


class ToolMissing(Exception):
    """An audit tool is not installed; the message says what to install."""


@dataclass
class PageAudit:
    page: str  # URL path relative to the site root ("" is the home page)
    validation_errors: list[str] = field(default_factory=list)
    scores: dict[str, float | None] = field(default_factory=dict)
    failing: list[dict] = field(default_factory=list)
    metrics: dict | None = None

    def problems(self) -> list[str]:
        found = [f"Nu Html Checker: {e}" for e in self.validation_errors]
        for category in STRICT_CATEGORIES:
            score = self.scores.get(category)
            if score is not None and score < 1:
                failed = [f"{f['id']} ({', '.join(i for i in f['items'] if i)[:200]})"
                          for f in self.failing if f["category"] == category]
                found.append(f"Lighthouse {category} {score * 100:.0f}: "
                             + ("; ".join(failed) or "see the Lighthouse report"))
        if self.metrics:
            m = self.metrics
            if m["dom_elements"] > MAX_DOM_ELEMENTS:
                found.append(f"{m['dom_elements']:.0f} HTML elements: over {MAX_DOM_ELEMENTS}")
            if m["total_bytes"] > MAX_BYTES:
                found.append(f"{m['total_bytes'] / 1e3:.0f} kB transferred: over {MAX_BYTES / 1e3:.0f}")
            found += [f"requests {u} while loading" for u in m["requests"] if NOT_ON_LOAD.search(u)]
        return found


def tools() -> dict[str, str]:
    """The commands the audits need, or ToolMissing saying what to install."""
    java, node = shutil.which("java"), shutil.which("node")
    missing = [name for name, ok in [("java", java), ("node", node), (str(CHROMIUM), CHROMIUM.is_file()),
                                     (str(VNU_JAR), VNU_JAR.is_file()), (str(LIGHTHOUSE), LIGHTHOUSE.is_dir())]
               if not ok]
    if missing:
        raise ToolMissing(f"the page audits need {', '.join(missing)}")
    return {"java": java, "node": node}


def html_files(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def validate(site: Path, java: str) -> dict[str, list[str]]:
    """Nu Html Checker errors per HTML file (relative to the site), all files in one run."""
    files = html_files(site)
    result = subprocess.run(
        # The quick compiler alone and the serial collector: a third of the CPU time
        # for a run this short.
        [java, "-Xss4m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", str(VNU_JAR),
         "--errors-only", "--format", "json", *files],
        cwd=site, capture_output=True, text=True, timeout=300)
    try:
        messages = json.loads(result.stderr or result.stdout)["messages"]
    except (ValueError, KeyError):
        raise RuntimeError(f"vnu.jar gave no JSON report (exit {result.returncode}):\n"
                           f"{result.stderr[-2000:]}") from None
    errors: dict[str, list[str]] = {f: [] for f in files}
    for m in messages:
        file = Path(m.get("url", "").removeprefix("file:")).resolve()
        try:
            rel = file.relative_to(site.resolve()).as_posix()
        except ValueError:
            rel = str(file)
        errors.setdefault(rel, []).append(f"line {m.get('lastLine', '?')}: {m.get('message', '')}")
    return errors


def element_counts(site: Path, pages: list[str]) -> dict[str, int]:
    return {p: len(re.findall(r"<[a-zA-Z]", (site / p / "index.html").read_text(encoding="utf-8")))
            for p in pages}


class _Server(http.server.SimpleHTTPRequestHandler):
    """The site as GitHub Pages serves it: text compressed with gzip when the browser asks.

    Lighthouse's performance figures simulate a phone's network from the bytes that
    crossed the wire, so an uncompressed local server would make every page look heavier
    than its published self.
    """

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if (path.suffix not in _COMPRESSED or not path.is_file()
                or "gzip" not in self.headers.get("Accept-Encoding", "")):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, *args):
        pass


def lighthouse(site: Path, pages: list[str], performance: set[str], node: str,
               processes: int = 2) -> dict[str, dict]:
    """Lighthouse results per page: `processes` Chromium processes share the pages."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Server, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    # The heaviest pages first, so the slowest runs start at once.
    order = sorted(pages, key=lambda p: p not in performance)
    jobs = [{"url": base + p, "categories": (["performance"] if p in performance else []) + list(STRICT_CATEGORIES)}
            for p in order]
    shares = [jobs[i::processes] for i in range(processes) if jobs[i::processes]]
    try:
        with tempfile.TemporaryDirectory(prefix="lighthouse-") as tmp, \
                concurrent.futures.ThreadPoolExecutor(len(shares)) as pool:
            def run(i: int, share: list[dict]) -> list[dict]:
                spec = Path(tmp) / f"jobs-{i}.json"
                spec.write_text(json.dumps({"chrome": str(CHROMIUM), "jobs": share}))
                result = subprocess.run([node, str(TOOLS / "lighthouse-pages.mjs"), str(spec)],
                                        capture_output=True, text=True, timeout=600,
                                        env={**os.environ, "CHROME_PATH": str(CHROMIUM)})
                if result.returncode != 0:
                    raise RuntimeError(f"Lighthouse failed (exit {result.returncode}):\n{result.stderr[-2000:]}")
                return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
            found = [r for rows in pool.map(run, range(len(shares)), shares) for r in rows]
    finally:
        httpd.shutdown()
        httpd.server_close()
    return {r["url"][len(base):]: r for r in found}


def audit(site: Path, performance_pages: int = 3, processes: int = 2,
          validate_html: bool = True) -> list[PageAudit]:
    """Every page of the built site through both tools (ToolMissing when one is absent);
    without `validate_html`, Lighthouse alone (nothing else then runs beside its timings)."""
    site = site.resolve()
    commands = tools()
    _, pages = check_site.site_url_and_pages(site)
    if (site / "ko" / "sitemap.xml").is_file():  # the Korean edition, built beside the English one
        pages += [f"ko/{page}" for page in check_site.site_url_and_pages(site / "ko")[1]]
    counts = element_counts(site, pages)
    heaviest = set(sorted(pages, key=counts.get, reverse=True)[:performance_pages])
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # Java beside the browsers
        validation = pool.submit(validate, site, commands["java"]) if validate_html else None
        scores = lighthouse(site, pages, heaviest, commands["node"], processes)
        errors = validation.result() if validation else {}
    audits = []
    for page in pages:
        found = scores.get(page, {})
        if found.get("runtimeError"):
            raise RuntimeError(f"Lighthouse could not audit {page or '(home)'}: {found['runtimeError']}")
        audits.append(PageAudit(page, errors.pop(f"{page}index.html", []), found.get("scores", {}),
                                found.get("failing", []), found.get("metrics")))
    # HTML files that are not pages of the sitemap (404.html) are validated too.
    audits += [PageAudit(file, errs) for file, errs in errors.items() if errs]
    return audits


def describe(a: PageAudit) -> str:
    scores = " ".join(f"{k} {v * 100:.0f}" for k, v in a.scores.items() if v is not None)
    line = f"{a.page or '(home)'}: Nu errors {len(a.validation_errors)}; {scores}"
    if a.metrics:
        m = a.metrics
        line += f"; {m['dom_elements']:.0f} elements, {m['total_bytes'] / 1e3:.0f} kB"
        if m.get("total_blocking_time_ms") is not None:  # a performance audit's timings
            line += (f", TBT {m['total_blocking_time_ms']:.0f} ms, "
                     f"style and layout {m.get('style_and_layout_ms') or 0:.0f} ms")
    return line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--performance-pages", type=int, default=3,
                        help="audit performance on this many of the heaviest pages (default 3)")
    parser.add_argument("--processes", type=int, default=2, help="Chromium processes at once")
    parser.add_argument("--json", type=Path, help="also write every result to this file")
    args = parser.parse_args()
    try:
        audits = audit(args.site, args.performance_pages, args.processes)
    except ToolMissing as missing:
        print(f"{missing}: install them with `{INSTALL}`", file=sys.stderr)
        return 2
    for a in audits:
        print(describe(a))
        for problem in a.problems():
            print(f"    {problem}")
    if args.json:
        args.json.write_text(json.dumps([a.__dict__ for a in audits], indent=1))
    return 1 if any(a.problems() for a in audits) else 0


if __name__ == "__main__":
    sys.exit(main())
