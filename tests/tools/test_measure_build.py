"""tools/measure_build.py: the parts that need no extra builds (the script itself runs
several builds and a `mkdocs serve`; run it by hand: python tools/measure_build.py),
and the site's word counts on the quick build."""

import json
import os
import shutil
import subprocess

import pytest

import measure_build


def test_two_builds_are_sorted_into_identical_numbers_only_and_other(built_site, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(built_site, a)
    shutil.copytree(built_site, b)
    selu = b / "selu" / "index.html"
    selu.write_text(selu.read_text().replace("measured on", "measured 12.5 ms on"))
    a_only = (a / "selu" / "index.html").read_text().replace("measured on", "measured 980 µs on")
    (a / "selu" / "index.html").write_text(a_only)
    home = b / "index.html"
    home.write_text(home.read_text().replace("<h2", "<h3", 1))
    (b / "sitemap.xml.gz").unlink()
    found = measure_build.compare_sites(a, b)
    assert found["numbers"] == ["selu/index.html"]  # 980 µs against 12.5 ms: a measured value
    assert found["other"] == ["index.html"]
    assert found["only_one"] == ["sitemap.xml.gz"]
    assert "assets/javascripts/" in " ".join(found["identical"])


def test_never_hashes_and_addresses_are_masked_with_the_numbers():
    mask = measure_build.NUMBER.sub
    assert mask("#", "12 (3 to never) calls; 4.5 µs") == "# (# to #) calls; #"
    assert mask("#", "key 'jit_selu-" + "de7deb6b" * 8 + "'") == "key 'jit_selu-#'"
    assert mask("#", "<Model object at 0x7f78947d73d0>") == "<Model object at #>"


def test_timings_are_compared_by_size_and_a_move_is_the_same_either_way(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for site, factor in ((a, 1.0), (b, 2.0)):
        results = site / "measured" / "x_benchmark" / "results.json"
        results.parent.mkdir(parents=True)
        tiny, long = (dict(median=m * f, q1=m, q3=m) for m, f in ((5e-6, factor), (0.1, 1 / factor)))
        check = {"start": {"tiny_jit_call": 5e-6}, "end": {"tiny_jit_call": 5e-6}}
        results.write_text(json.dumps({"data": {"sizes": [{"jit": tiny}], "long": long}, "machine_check": check}))
        committed = site / "measured" / "jax_history" / "results.json"  # timed elsewhere: no check
        committed.parent.mkdir(parents=True)
        committed.write_text(json.dumps({"data": {"rows": [dict(median=1.0, q1=1.0, q3=1.0)]}, "machine_check": {}}))
    assert measure_build.timing_moves(a, b) == {"under 100 µs": [1.0], "10 ms and more": [1.0]}
    # b's tiny median (1e-5) is outside a's spread (5e-6); its long one (0.05) too
    assert measure_build.within_spreads(a, b) == {"under 100 µs": (0, 0), "100 µs to 10 ms": (0, 0),
                                                  "10 ms and more": (0, 0)}
    assert measure_build.within_spreads(a, a)["10 ms and more"] == (1, 1)


def test_snippet_times_are_read_from_their_results(tmp_path):
    # Build snippets run one after another: each took from the previous results to its own.
    for name, finished in (("first", 110.0), ("second", 135.5)):
        results = tmp_path / name / "results.json"
        results.parent.mkdir()
        results.write_text("{}")
        os.utime(results, (finished, finished))
    assert measure_build.snippet_seconds(tmp_path, start=100.0) == {"first": 10.0, "second": 25.5}


def test_words_are_counted_in_the_article_outside_code_tables_figures_and_navigation():
    page = """<html><nav>Skip these navigation words</nav><article class="md-typeset">
    <h1 id="t">A title<a class="headerlink" href="#t">¶</a></h1>
    <p>Three <abbr title="x">XLA</abbr> words, and <code>not_this</code> 4.5&nbsp;µs.</p>
    <pre><code>print("no")</code></pre><table><tr><td>no words here</td></tr></table>
    <figure><svg><text>none</text></svg><figcaption>nor here</figcaption></figure>
    <div class="admonition"><p>Two more</p></div></article><footer>not this</footer></html>"""
    # "A title" 2, "Three XLA words, and" 4, "4.5 µs." 2, "Two more" 2
    assert measure_build.prose_words(page) == 10


def test_page_weight_counts_each_pages_html_figures_and_words(built_site):
    rows, shared = measure_build.page_weights(built_site)
    by_page = {r["page"]: r for r in rows}
    assert by_page["(home)"]["html"] == (built_site / "index.html").stat().st_size
    selu = by_page["selu/"]
    svgs = sorted((built_site / "measured" / "selu_benchmark").glob("*.svg"))
    assert selu["figures"] == len(svgs)
    assert selu["figure_bytes"] == sum(p.stat().st_size for p in svgs)
    assert 0 < selu["gzipped"] < selu["html"] + selu["figure_bytes"]
    assert selu["words"] > 100 and by_page["glossary/"]["words"] > 100
    assert shared > 100_000  # Material's CSS and JavaScript, counted once


def test_a_page_weighs_its_own_figure_files_not_images_inlined_or_from_elsewhere(tmp_path):
    (tmp_path / "sitemap.xml").write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                                          "<url><loc>http://127.0.0.1:8000/</loc></url></urlset>")
    (tmp_path / "fig.svg").write_text("<svg/>")
    (tmp_path / "index.html").write_text('<img src="fig.svg" alt="a"><img src="data:image/png;base64,'
                                         + "A" * 400 + '" alt="b"><img src="https://example.org/x.png" alt="c">')
    (row,), shared = measure_build.page_weights(tmp_path)
    assert (row["figures"], row["figure_bytes"], shared) == (1, len("<svg/>"), 0)


def test_the_report_is_rendered_in_each_editions_words_and_the_how_pages_include_it(built_site):
    rows, shared = measure_build.page_weights(built_site)
    m = {
        "cold": 80.0, "warm": 1.5, "reloads": [1.0, 0.8, 1.2], "chapter": "docs/selu.md",
        "snippets": {"selu_benchmark": 12.0}, "weights": rows,
        "stamp": {"cpu": "X", "cores": 2, "python": "3.11.7", "mkdocs": "1.6.1", "material": "9.8.2",
                  "date": "2026-12-04", "commit": "abc1234", "changed": True, "quick": False},
        "shared": shared, "lighthouse_runs": 3, "cold2": 81.0, "serve_fresh": {"answer": 11.4, "stop": 0.7},
        "lighthouse": {"selu/": "93 (90–95) (TBT 120 ms)", "ko/selu/": "91 (89–94) (TBT 150 ms)",
                       "(fonts)": "no Hangul font on this machine"},
        "compare": {"identical": 1, "numbers": 1, "other": 0, "other_files": [], "only_one": 0},
        "moves": measure_build.moves_summary({"under 100 µs": [0.1, 0.3, 0.5]}, {"under 100 µs": (2, 3)})}
    report = measure_build.render_report(m)
    assert "| of which `selu_benchmark` | 12.0 s |" in report
    assert "| of which the rest: notebooks, pages, checks | 68.0 s |" in report
    assert "no caches: its first answer (the home page) | 11.4 s (goal on 2 cores: 20 s; met) |" in report
    assert "to its exit | 0.7 s |" in report
    assert "every build snippet measures | 80 s (goal on 2 cores: 150 s; met) |" in report
    assert "measures | 200 s (goal on 2 cores: 150 s; over it) |" in measure_build.render_report({**m, "cold": 200.0})
    assert f"| all pages | | | | {sum(r['words'] for r in rows):,} | | |" in report
    assert " | 93 (90–95) (TBT 120 ms) | 91 (89–94) (TBT 150 ms) |" in report  # the Korean page beside
    assert "median of 3 audits" in report and "Korean figures: no Hangul font" in report
    assert "commit abc1234 with uncommitted changes · full size" in report
    assert "1 are identical, 1 differ only in numbers and 0 otherwise" in report
    assert "| under 100 µs | 3 | 30% | 50% | 2 (67%) | 3 (100%) |" in report
    assert "Over the word limits" not in report  # the quick build is within them (the test below)
    korean = measure_build.render_report(m, measure_build.report_words("docs-ko"))
    assert "| 그중 `selu_benchmark` | 12.0 s |" in korean and "커밋 abc1234(커밋하지 않은 변경 포함)" in korean
    assert "| 100 µs 미만 | 3 | 30% | 50% | 2 (67%) | 3 (100%) |" in korean
    assert "| 80 s (코어 2개에서 목표 150 s: 달성) |" in korean
    assert "Measured on X, 2 cores ·" in report and "X, 코어 2개에서 측정 ·" in korean
    one_core = measure_build.render_report({**m, "stamp": {**m["stamp"], "cores": 1}})
    assert "Measured on X, 1 core ·" in one_core and "goal" not in one_core  # the goals are 2 cores'
    m["weights"] = [{**r, "words": 3_000} if r["page"] == "selu/" else r for r in rows]
    assert "**Over the word limits (selu/ 3,000, all " in measure_build.render_report(m)
    data = json.loads(measure_build.DATA.read_text(encoding="utf-8"))  # the committed report's measurements
    for path, words in ((measure_build.REPORT, "docs"), (measure_build.REPORT_KO, "docs-ko")):
        assert path.read_text(encoding="utf-8") == measure_build.render_report(data, measure_build.report_words(words)), \
            f"{path.name} is stale: python tools/measure_build.py --render"
    for site in (built_site, built_site / "ko"):
        html = (site / "how-this-site-is-built" / "index.html").read_text(encoding="utf-8")
        assert "measure_build.py" in html and ("all pages" in html or "모든 페이지" in html)


def site_words(site) -> dict[str, int]:
    rows, _ = measure_build.page_weights(site)
    words = {r["page"]: r["words"] for r in rows}
    print(json.dumps({**words, "all": sum(words.values())}, indent=1))  # shown with -rA
    return words


@pytest.mark.word_limits
def test_no_page_and_not_the_whole_site_is_over_its_word_limit(built_site):
    """The quick build here; measure_build.py's report says when the full build is over."""
    over = measure_build.over_word_limits(site_words(built_site))
    assert not over, f"over their word limits ({measure_build.WORD_LIMITS}): {over}"


def test_words_over_a_limit_are_named_and_the_report_says_so():
    limits = measure_build.WORD_LIMITS
    words = {"": 100, "selu/": limits["chapter"] + 1, "how-this-site-is-built/": limits["how-this-site-is-built/"]}
    assert measure_build.over_word_limits(words) == {"selu/": limits["chapter"] + 1}
    many = {f"p{i}/": limits["chapter"] for i in range(limits["all"] // limits["chapter"] + 1)}
    assert measure_build.over_word_limits(many) == {"all": sum(many.values())}


def test_the_stamp_names_the_commit_and_says_when_the_tree_differs_from_it(tmp_path, monkeypatch):
    def git(*args):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path,
                              capture_output=True, text=True, check=True).stdout.strip()
    git("init", "-q")
    (tmp_path / "a.md").write_text("a")
    git("add", "a.md")
    git("commit", "-qm", "a")
    monkeypatch.setattr(measure_build, "ROOT", tmp_path)
    head = git("rev-parse", "--short", "HEAD")
    assert measure_build.stamp(quick=False) | {"commit": head, "changed": False, "quick": False} == measure_build.stamp(quick=False)
    (tmp_path / "b.md").write_text("b")  # untracked: the copy measured takes it too
    assert {"commit": head, "changed": True, "quick": True}.items() <= measure_build.stamp(quick=True).items()


def test_a_one_build_run_refuses_to_overwrite_a_two_build_report(tmp_path, capsys, monkeypatch):
    report = tmp_path / "build-figures.md"
    report.write_text(f"figures\n\n{measure_build.TWICE_SECTION}\n\nmoves\n", encoding="utf-8")

    def measure(*args, **kwargs):  # without the refusal, fail at once instead of building
        raise AssertionError("a one-build run started measuring over a two-build report")
    monkeypatch.setattr(measure_build, "measure", measure)
    with pytest.raises(SystemExit) as stopped:
        measure_build.main(["--out", str(report)])
    assert stopped.value.code == 2
    assert "--twice" in capsys.readouterr().err
    assert measure_build.TWICE_SECTION in report.read_text(encoding="utf-8")
