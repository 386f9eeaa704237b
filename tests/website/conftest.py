"""The built site, served on 127.0.0.1 and driven by Debian's Chromium through Playwright.

One browser for the whole session, and one visit per page (`visits`) that records what
the per-page tests check. Outside CI the browser tests skip, saying why, when Chromium
or Playwright is missing; under CI (CI=true) they fail instead.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from project import ROOT

import check_site  # sitebuild/, on sys.path through tests/conftest.py

CHROMIUM = Path("/usr/bin/chromium")
# Never a downloaded browser; background networking off: this machine has no internet.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
CONTRAST_JS = (Path(__file__).parent / "contrast.js").read_text(encoding="utf-8")
SCHEMES = ("default", "slate")  # Material's light and dark palettes (mkdocs.yml theme.palette)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(reason: str, install: str = "apt-get install chromium; pip install -r requirements-dev.lock"):
    """Skip outside CI, saying why; under CI a missing tool is a failure, never a skip."""
    if in_ci():
        pytest.fail(f"{reason}; under CI these tests must run ({install})")
    pytest.skip(f"{reason}: skipped ({install})")


@pytest.fixture(scope="session")
def site_pages(built_site) -> list[str]:
    """Every page of the built site, both editions (from their sitemaps: the Korean one
    is in ko/), as URL paths relative to the root."""
    _, pages = check_site.site_url_and_pages(built_site)
    assert "" in pages and len(pages) >= 2, pages
    return pages + [f"ko/{page}" for page in korean_pages(built_site)]


def korean_pages(site: Path) -> list[str]:
    """The Korean edition's pages, relative to ko/ (none when the site has no ko/)."""
    if not (site / "ko" / "index.html").is_file():
        return []
    _, pages = check_site.site_url_and_pages(site / "ko")
    return pages


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def server(built_site):
    """The built site over HTTP on 127.0.0.1 (a free port); yields its base URL."""
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(built_site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright is not installed")
    if not CHROMIUM.is_file():
        unavailable(f"Debian's Chromium is not installed at {CHROMIUM}")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def context(browser, server):
    """A light-mode desktop browser that may read the clipboard; other hosts are cut off."""
    ctx = browser.new_context(base_url=server, color_scheme="light",
                              viewport={"width": 1280, "height": 800})
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.rstrip("/"))
    ctx.route(lambda url: not url.startswith(server), lambda route: route.abort())
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


@pytest.fixture
def open_page():
    """load(): a page, with Material's script started."""
    return load


@pytest.fixture
def page(context):
    tab = context.new_page()
    yield tab
    tab.close()


# Open every <details> around an element and select every content tab that holds it.
REVEAL_JS = """b => { for (let el = b; el; el = el.parentElement) {
    if (el.tagName === 'DETAILS') el.open = true;
    if (el.classList && el.classList.contains('tabbed-block')) {
        const index = [...el.parentElement.children].indexOf(el);
        el.closest('.tabbed-set').querySelectorAll(':scope > input')[index].checked = true;
    } } }"""


@dataclass
class Visit:
    """What one page did in the browser."""

    url: str
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    images: list[dict] = field(default_factory=list)  # src, alt, naturalWidth
    nav_links: list[str] = field(default_factory=list)  # pages the primary navigation links to
    downloads: list[str] = field(default_factory=list)  # absolute URLs of a[download] links
    low_contrast: dict[str, list[dict]] = field(default_factory=dict)  # scheme -> elements
    copies: list[dict] = field(default_factory=list)  # clipboard, expected, language


def load(tab, url: str = "", reload: bool = False) -> None:
    """Load a page and wait for Material's script, which starts after the page's first
    frame (sitebuild/page_markup.py): until then the page shows its no-JavaScript form."""
    tab.reload(wait_until="load") if reload else tab.goto(url, wait_until="load")
    tab.wait_for_function("() => window.siteScriptsReady === true")


def _path(url: str, base: str) -> str:
    """An absolute URL of the site as a page path relative to the root ("", "selu/")."""
    return re.sub(r"[?#].*$", "", url[len(base):]) if url.startswith(base) else url


def _visit(tab, base: str, url: str) -> Visit:
    visit = Visit(url)
    handlers = {
        "console": lambda m: m.type == "error" and visit.console_errors.append(m.text),
        "pageerror": lambda e: visit.console_errors.append(str(e)),
        "request": lambda r: r.url.startswith((base, "data:", "blob:")) or visit.foreign_requests.append(r.url),
        "requestfailed": lambda r: visit.failed_requests.append(f"{r.url}: {r.failure}"),
        "response": lambda r: r.status >= 400 and visit.failed_requests.append(f"{r.url}: HTTP {r.status}"),
    }
    for event, handler in handlers.items():
        tab.on(event, handler)
    load(tab, base + url)
    visit.images = tab.eval_on_selector_all(
        "article img", "els => els.map(e => ({src: e.currentSrc || e.src, alt: e.alt, width: e.naturalWidth}))")
    visit.nav_links = [_path(h, base) for h in tab.eval_on_selector_all(
        "nav.md-nav--primary a.md-nav__link[href]", "els => els.map(e => e.href)")]
    visit.downloads = tab.eval_on_selector_all("a[download][href]", "els => els.map(e => e.href)")

    # content.lazy (mkdocs.yml): a code block gets its copy button once it scrolls into view
    tab.evaluate("""async () => { for (const block of document.querySelectorAll('article .highlight')) {
        block.scrollIntoView(); await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); } }""")
    buttons = tab.locator("button.md-code__button[data-md-type=copy]")
    count = buttons.count()  # every button works alike: try up to five, spread over the page
    for i in sorted({round(j * (count - 1) / 4) for j in range(5)} if count > 5 else range(count)):
        button = buttons.nth(i)
        button.evaluate(REVEAL_JS)  # code folded in a details block or an unselected tab
        button.scroll_into_view_if_needed()
        button.click()
        visit.copies.append({
            "clipboard": tab.evaluate("navigator.clipboard.readText()"),
            **button.evaluate("""b => { const code = document.querySelector(b.dataset.clipboardTarget);
                return {expected: code.textContent.replace(/\\n$/, ''),
                        language: (code.closest('[class*=language-]') || {className: ''}).className}; }""")})

    # Both palettes on the same DOM: switch the scheme with transitions off, then measure,
    # with every section and code block laid out (off screen, content-visibility skips them).
    tab.add_style_tag(content="*, *::before, *::after { transition: none !important; animation: none !important;"
                              " content-visibility: visible !important }")
    for scheme in SCHEMES:
        tab.evaluate("s => document.body.setAttribute('data-md-color-scheme', s)", scheme)
        visit.low_contrast[scheme] = [e for e in tab.evaluate(CONTRAST_JS) if e["fails"]]
    for event, handler in handlers.items():
        tab.remove_listener(event, handler)
    return visit


@pytest.fixture(scope="session")
def visits(context, server, site_pages) -> dict[str, Visit]:
    """Each page of the site, visited once in the browser (page URL -> Visit)."""
    tab = context.new_page()
    try:
        return {url: _visit(tab, server, url) for url in site_pages}
    finally:
        tab.close()


@pytest.fixture(scope="session")
def search_index(built_site) -> dict:
    return json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def korean_search_index(built_site) -> dict:
    return json.loads((built_site / "ko" / "search" / "search_index.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def snippet_lines() -> set[str]:
    """Every line of every file under snippets/, stripped: what a Python code block may show."""
    return {line.strip() for path in (ROOT / "snippets").glob("*.py")
            for line in path.read_text(encoding="utf-8").splitlines()}


@pytest.fixture(scope="session")
def page_audits(built_site) -> list:
    """Every page through the Nu Html Checker and Lighthouse (tools/audit_pages.py)."""
    import audit_pages  # tools/
    try:
        audit_pages.tools()
    except audit_pages.ToolMissing as missing:
        unavailable(str(missing), audit_pages.INSTALL)
    start = time.perf_counter()
    # No performance audit: it times the pages, which no test asserts (python
    # tools/audit_pages.py SITE prints it); every page's weight is still read.
    found = audit_pages.audit(built_site, performance_pages=0, processes=2)
    # Reported, never asserted: how long the audits take on this machine.
    print(f"\npage audits: {len(found)} pages in {time.perf_counter() - start:.0f} s")
    for page in found:
        print("  " + audit_pages.describe(page))
    return found


@pytest.fixture(scope="session")
def tool():
    """The path of a command-line tool from requirements-dev.txt (the venv's bin, then PATH)."""
    def find(name: str) -> str:
        beside = Path(sys.executable).parent / name
        found = str(beside) if beside.is_file() else shutil.which(name)
        if found is None:
            unavailable(f"{name} is not installed", "pip install -r requirements-dev.lock")
        return found
    return find
