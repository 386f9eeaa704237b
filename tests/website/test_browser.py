"""The built site in a real browser (Debian's Chromium), page by page.

Pages come from the built site's sitemap, so every chapter a helper adds is checked
without being named here. Each page is visited once (conftest.visits); the tests read
what the visit recorded.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import page_checks
import pytest


def report(problems: dict[str, list]) -> str:
    return "\n".join(f"{url or '(home)'}: {item}" for url, items in problems.items() for item in items)


def each_page(visits, what) -> dict[str, list]:
    return {url: found for url, visit in visits.items() if (found := what(visit))}


def test_no_console_errors(visits):
    assert not (bad := each_page(visits, lambda v: v.console_errors)), report(bad)


def test_no_failed_requests(visits):
    assert not (bad := each_page(visits, lambda v: v.failed_requests)), report(bad)


def test_no_request_leaves_the_local_server(visits):
    assert not (bad := each_page(visits, lambda v: v.foreign_requests)), report(bad)


def test_every_image_loads_and_says_what_it_shows(visits):
    def problems(visit):
        return [f"{img['src'][-60:]}: " + (page_checks.alt_problem(img["alt"]) or "did not load (naturalWidth 0)")
                for img in visit.images if img["width"] == 0 or page_checks.alt_problem(img["alt"])]
    assert not (bad := each_page(visits, problems)), report(bad)
    assert any(v.images for v in visits.values()), "no page shows a figure: is the site complete?"


def test_copy_buttons_put_the_code_blocks_exact_text_on_the_clipboard(visits, snippet_lines):
    copies = [(url, c) for url, v in visits.items() for c in v.copies]
    assert copies, "no code block with a copy button on any page"
    wrong = [f"{url}: clipboard {c['clipboard'][:60]!r} is not the block's {c['expected'][:60]!r}"
             for url, c in copies if c["clipboard"] != c["expected"]]
    assert not wrong, "\n".join(wrong)
    # Python on a page is included from snippets/: every line copied is a line of a snippet file.
    typed = [f"{url}: {line!r}" for url, c in copies if "language-python" in c["language"]
             for line in c["clipboard"].splitlines() if line.strip() and line.strip() not in snippet_lines]
    assert not typed, "Python lines that are in no file under snippets/:\n" + "\n".join(typed)


def test_text_and_links_are_readable_in_both_palettes(visits):
    def problems(visit):
        return [f"{scheme}: <{e['tag']} class={e['cls']!r}> {e['text']!r}: contrast {e['ratio']}, needs {e['need']}"
                for scheme, items in visit.low_contrast.items() for e in items]
    assert not (bad := each_page(visits, problems)), report(bad)


def test_the_navigation_reaches_every_page(visits, site_pages):
    reached, todo = set(), ["", "ko/"]  # from each edition's home page
    while todo:
        url = todo.pop()
        if url in reached or url not in visits:
            continue
        reached.add(url)
        todo += visits[url].nav_links
    assert reached == set(site_pages), f"not reachable from the home page's navigation: {set(site_pages) - reached}"


def test_every_notebook_is_offered_for_download_and_served(visits, built_site, context, server):
    notebooks = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*.ipynb")}
    offered = {url[len(server):] for v in visits.values() for url in v.downloads if url.endswith(".ipynb")}
    assert offered == notebooks, f"download links {sorted(offered)} against notebooks in the site {sorted(notebooks)}"
    for path in offered:
        response = context.request.get(server + path)
        assert response.status == 200, (path, response.status)
        notebook = json.loads(response.body())
        assert notebook["nbformat"] == 4 and notebook["cells"], path


def distinctive_words(search_index: dict) -> dict[str, str]:
    """For each page, a word from its body that as few other pages as possible contain."""
    words: dict[str, Counter] = {}
    for doc in search_index["docs"]:
        text = re.sub(r"<[^>]+>", " ", doc["text"]).lower()
        tokens = (t.strip(".,;:!?()[]{}\"'“”‘’`*") for t in re.split(r"[\s\-]+", text))
        words.setdefault(doc["location"].split("#")[0], Counter()).update(
            t for t in tokens if re.fullmatch(r"[a-z]{5,}", t))
    pages_with = Counter(w for counts in words.values() for w in counts)
    return {page: min(counts, key=lambda w: (pages_with[w], -counts[w], w))
            for page, counts in words.items() if counts}


def test_search_finds_each_page_by_a_word_from_its_body(page, open_page, search_index, site_pages):
    site_pages = [url for url in site_pages if not url.startswith("ko/")]  # English
    words = distinctive_words(search_index)
    assert set(site_pages) <= set(words), f"pages missing from the search index: {set(site_pages) - set(words)}"
    open_page(page)
    box = page.locator("input.md-search__input")
    missed = []
    for url in site_pages:
        box.click()
        box.fill("")
        box.press_sequentially(words[url])
        try:
            page.wait_for_function(
                """path => [...document.querySelectorAll('.md-search-result__link')]
                          .some(a => new URL(a.href).pathname === path)""", arg="/" + url, timeout=5000)
        except Exception:  # playwright's TimeoutError: report every miss at once
            missed.append(f"{url or '(home)'}: searching {words[url]!r} does not list it")
    assert not missed, "\n".join(missed)


def test_korean_search_finds_a_noun_that_a_particle_follows(page, open_page, korean_search_index):
    """Korean attaches particles to nouns: "컴파일러" must find a section that only says
    "컴파일러가" (or 는, 를 ...): mkdocs.ko.yml's search separator and lang."""
    only_attached = [doc["location"] for doc in korean_search_index["docs"]
                     if re.search(r"컴파일러[가-힣]", doc["text"])
                     and not re.search(r"컴파일러(?![가-힣])", doc["text"])]
    assert only_attached, "no Korean section says 컴파일러 only with a particle: are the pages translated?"
    pages = sorted({"/ko/" + location.split("#")[0] for location in only_attached})
    open_page(page, "ko/")
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially("컴파일러")
    try:
        page.wait_for_function(
            """paths => [...document.querySelectorAll('.md-search-result__link')]
                      .some(a => paths.includes(new URL(a.href).pathname))""", arg=pages, timeout=8000)
    except Exception:  # playwright's TimeoutError
        found = page.eval_on_selector_all(".md-search-result__link", "els => els.map(e => e.href)")
        pytest.fail(f"searching 컴파일러 lists {found}, none of {pages}")


def test_the_language_switch_goes_to_the_same_page(page, open_page):
    for start, lang, end in (("selu/", "ko", "/ko/selu/"), ("ko/jit/", "en", "/jit/")):
        open_page(page, start)
        page.locator("div.md-select").first.hover()
        with page.expect_navigation():
            page.locator(f'a.md-select__link[hreflang="{lang}"]').click()
        assert page.url.endswith(end), (start, page.url)


def test_the_light_dark_toggle_switches_and_persists(page, open_page):
    # Material's palette and, for scrollbars and form controls, the root's colour scheme
    # (stylesheets/extra.css sets it: the page's own meta names both, overrides/main.html).
    scheme = """() => [document.body.getAttribute('data-md-color-scheme'),
                      getComputedStyle(document.documentElement).colorScheme]"""
    open_page(page)
    assert page.evaluate(scheme) == ["default", "light"]  # the browser prefers light
    page.locator("label.md-header__button[for^=__palette_]:visible").click()
    assert page.evaluate(scheme) == ["slate", "dark"]
    open_page(page, reload=True)
    assert page.evaluate(scheme) == ["slate", "dark"], "the choice did not survive a reload"
    page.locator("label.md-header__button[for^=__palette_]:visible").click()
    assert page.evaluate(scheme) == ["default", "light"]


def test_keyboard_reaches_skip_link_search_and_navigation(page, open_page, site_pages):
    focused = """() => { const e = document.activeElement;
        return {tag: e.tagName.toLowerCase(), cls: String(e.className), href: e.getAttribute('href') || '', url: e.href,
                search: e.matches('input.md-search__input'),
                firstNav: e === document.querySelector('nav.md-nav--primary a.md-nav__link[href]')}; }"""
    open_page(page, site_pages[1] if len(site_pages) > 1 else "")
    page.keyboard.press("Tab")
    first = page.evaluate(focused)
    assert "md-skip" in first["cls"] and first["href"].startswith("#"), f"first Tab stop is not a skip link: {first}"
    assert page.locator(f"[id='{first['href'][1:]}']").count() == 1, "the skip link's target is missing"
    stops = []
    for _ in range(60):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(focused))
        if stops[-1]["firstNav"]:
            break
    assert any(s["search"] for s in stops), f"Tab never reaches the search box: {stops[:8]}"
    assert stops[-1]["firstNav"], "Tab never reaches the first navigation link"
    with page.expect_navigation():
        page.keyboard.press("Enter")  # the focused link works from the keyboard
    assert page.url == stops[-1]["url"]
