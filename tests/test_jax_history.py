"""The chapter "Has jit got faster?" (snippets/jax_history.py, docs/history.md and
docs-ko/history.md): it renders the committed dataset history/releases.csv (tested, with
the script that measures it, in test_history.py)."""

from importlib.metadata import version

import pytest
from mkdocs.utils.meta import get_data

import jax_history
import measurement
import page_templates
from measurement import DocumentationMismatch
from project import ROOT, draw_figures
from test_history import DATASET, measure, read, write

EDITIONS = {"en": ROOT / "docs", "ko": ROOT / "docs-ko"}


def timing(median):
    return {"median": median, "q1": median * 0.96, "q3": median * 1.04}


def selu_chapter(jit_small=6.3e-6, sizes=(1000, 10_000, 100_000)):
    """A stand-in for the SELU chapter's results (snippets/selu_benchmark.py's data) as
    measure() reads them with shared(): run alone, that would measure the chapter first."""
    return {"scaling": {"n": list(sizes),
                        "jit": [timing(jit_small * n / sizes[0]) for n in sizes]}}


def measured(selu=None):
    """measured(), beside a stand-in SELU chapter (selu_chapter())."""
    real = jax_history.shared
    jax_history.shared = lambda name, quick: selu or selu_chapter()
    try:
        return jax_history.measure(quick=True)
    finally:
        jax_history.shared = real


def installed_selu_small(data):
    """The dataset's jitted SELU at the smaller n, in the installed release."""
    return data["stats"][data["releases"].index(data["installed"])]["absolute"]["selu_jit_small"]


def beside(factor, backend="cpu"):
    """This build's SELU chapter at the dataset's smaller n, `factor` times the dataset's
    installed release there (a PERTURBATIONS change)."""
    def change(data):
        median = installed_selu_small(data)["median"] * factor
        data["here"] = {"n": data["sizes"]["n_small"], "jit": timing(median), "backend": backend}
        return data
    return change


def add_slowed_at(release, factor=3.0):
    """Jitted a + b `factor` times slower from `release` on (a PERTURBATIONS change: the
    step SELU took at the new CPU runtime, a + b takes too)."""
    def change(data):
        for stats in data["stats"][data["releases"].index(release):]:
            for kind in ("absolute", "relative"):
                t = stats[kind].get("dispatch_jit")
                if t:
                    stats[kind]["dispatch_jit"] = {k: x * factor for k, x in t.items()}
        return data
    return change


# How another build's data differ (tests/sitebuild/test_perturbations.py renders every page
# from each): the committed dataset stays; this build's SELU chapter beside it moves.
PERTURBATIONS = {
    "jitted a + b as much slower as SELU at the new CPU runtime": add_slowed_at("0.4.33", 30.0),
    "this build's SELU chapter 6x faster than the dataset's machine": beside(1 / 6),
    "this build's SELU chapter 3x slower than the dataset's machine": beside(3.0),
    "this build's SELU chapter as fast as the dataset's machine": beside(1.0),
    "this build's SELU chapter 1.5x faster than the dataset's machine": beside(1 / 1.5),
    "this build's SELU chapter on a TPU": beside(1 / 6, "tpu"),
}


def dataset_variant(tmp_path, drop=None, fail=None, drop_installed=False):
    """The committed rows with one release left out, one failed, or the installed gone."""
    rows = [r for r in read(DATASET) if r["release"] != drop
            and not (drop_installed and r["release"] == version("jax"))]
    if fail:
        rows = [r for r in rows if r["release"] != fail]
        template = next(r for r in read(DATASET) if r["release"] == fail
                        and r["probe"] == jax_history.probe_digest())
        rows.append({**{c: "" for c in measure.COLUMNS},
                     **{k: template[k] for k in ("release", "cpu", "cores", "date",
                                                   "commit", "probe", "quick")},
                     "status": "failed", "reason": "exit 1: RuntimeError: a stand-in"})
    path = tmp_path / "releases.csv"
    write(path, rows)
    return path


def results_for(data):
    report = jax_history.report(data)
    env = {"cpu": "a test CPU", "cores": 2, "backend": "cpu", "device": "cpu",
           "date": "2026-12-04", "python": "3.11.7",
           "libraries": {"jax": version("jax"), **data["libraries"]}}
    return {"environment": env, "quick": False,
            **measurement.results_of(data, report, jax_history.FIGURES)}


def render_both(results):
    out = {}
    for edition, folder in EDITIONS.items():
        text, meta = get_data((folder / "history.md").read_text(encoding="utf-8"))
        out[edition] = page_templates.render(
            text, page="history.md", page_url="history/", results={"jax_history": results},
            words=page_templates.load_words(folder), page_words=meta.get("words"))
    return out


def test_the_chapter_reads_the_committed_dataset():
    data = measured()
    assert data["releases"][-1] == version("jax") or version("jax") in data["releases"]
    assert data["releases"] == sorted(data["releases"], key=jax_history.release_key)
    report = jax_history.report(data)
    assert len(report.tables["selu"].rows) == len(data["releases"])
    assert {"selu_jit_large", "first_compile", "deeponet_jit", "post"} <= set(report.verdicts)


def test_the_dataset_covers_every_minor_release_and_each_release_the_chapter_names():
    """The first and last release of every minor from 0.4 on (of those the chapter knows
    a date for), every release a CHANGES entry names, and the installed one have rows of
    the current probe: measured, or with the reason they could not be."""
    digest = jax_history.probe_digest()
    rows = [r for r in read(DATASET) if r["probe"] == digest and r["quick"] != "1"]
    have = {r["release"] for r in rows}
    minors = {}
    for release in sorted(jax_history.RELEASED, key=jax_history.release_key):
        minors.setdefault(".".join(release.split(".")[:2]), []).append(release)
    wanted = {r for releases in minors.values() for r in (releases[0], releases[-1])}
    wanted |= {release for release, _ in jax_history.CHANGES.values()} | {version("jax")}
    assert not wanted - have, sorted(wanted - have, key=jax_history.release_key)
    data = measured()
    assert {"3.11.7", "3.13.0"} <= {p["python"] for p in data["pythons"]}
    assert data["bridge"] and data["bridge"]["stats"][0]["python"] != data["bridge"]["stats"][1]["python"]


def test_a_stale_dataset_stops_the_build_with_the_command_that_refreshes_it(tmp_path):
    path = dataset_variant(tmp_path, drop_installed=True)
    with pytest.raises(DocumentationMismatch,
                       match=f"python history/measure.py --releases {version('jax')}"):
        jax_history.load(path, version("jax"), measure.probe_digest())


def test_rows_of_another_probe_do_not_count(tmp_path):
    with pytest.raises(DocumentationMismatch, match="no rows for jax"):
        jax_history.load(DATASET, version("jax"), "0123456789ab")


def test_the_chapter_renders_with_a_release_missing_or_failed(tmp_path):
    full = jax_history.load(DATASET, version("jax"), measure.probe_digest())
    middle, other = full["releases"][len(full["releases"]) // 2], full["releases"][1]
    data = jax_history.load(dataset_variant(tmp_path, drop=middle, fail=other),
                            version("jax"), measure.probe_digest())
    assert middle not in data["releases"] and other not in data["releases"]
    assert [f["release"] for f in data["failed"] if f["error"].endswith("a stand-in")] \
        == [other]
    pages = render_both(results_for(data))
    for edition, text in pages.items():
        assert other in text and "a stand-in" in text, edition  # the failure is shown
        assert "{{" not in text, edition
    # a release that failed to run among those pip could not install: each says which
    assert "that could not be measured here" in pages["en"] and "failed to run" in pages["en"]
    assert "여기서 재지 못한" in pages["ko"] and "실행하지 못했다" in pages["ko"]
    # the committed dataset: every release not measured is one pip could not install
    assert full["failed"] and all(f["status"] == "install failed" for f in full["failed"])
    pages = render_both(results_for(full))
    assert "Releases pip could not install here" in pages["en"]
    assert "여기서 pip이 설치하지 못한" in pages["ko"]


def test_the_step_is_set_beside_the_deeponet_chapters_networks():
    from deeponet import DEFAULT

    data = jax_history.load(DATASET, version("jax"), measure.probe_digest())
    chapter, probe = data["sizes"]["chapter"], data["sizes"]["deeponet"]
    assert chapter == {"width": DEFAULT.width, "hidden_layers": DEFAULT.depth}
    pages = {e: " ".join(t.split()) for e, t in render_both(results_for(data)).items()}
    differ = (probe["width"], probe["hidden_layers"]) != (chapter["width"],
                                                        chapter["hidden_layers"])
    assert (f"(the chapter's: {chapter['hidden_layers']} of {chapter['width']})"
            in pages["en"]) == differ
    assert (f"(그 장은 너비 {chapter['width']}의 은닉층 {chapter['hidden_layers']}개)"
            in pages["ko"]) == differ


@pytest.mark.parametrize("edition", EDITIONS)
def test_each_figure_draws_with_the_pages_words(edition):
    draw_figures(EDITIONS[edition], "history.md", jax_history, measured())


def test_verdicts_follow_the_data(tmp_path):
    """The newest release made 3x slower than the oldest in every JAX series: the chapter's
    verdicts turn."""
    data = measured()
    first, last = data["stats"][0]["relative"], data["stats"][-1]["relative"]
    for name, t in last.items():  # from the oldest's range, above it however the dataset moves
        base = first.get(name, t)
        last[name] = {k: v * 3 * base["q3"] / base["q1"] for k, v in base.items()}
    v = jax_history.report(data).verdicts
    assert v["selu_jit_large"]["winner"] == data["releases"][0]
    assert v["selu_jit_large"]["kind"] == "faster"
    render_both(results_for(data))


def test_the_yardsticks_drift_is_read_on_one_python_and_numpys_own_move_is_said():
    """The loop and NumPy's SELU are compared over the longest run of releases on one
    Python (a change of Python moves the loop by itself); where the loop held still and
    NumPy did not, the page says ratios to NumPy move with it. Beside a ratio to NumPy's
    SELU at the smaller n, the page gives NumPy's own move, where it moved."""
    import copy

    data = measured()
    run = max(data["pythons"], key=lambda p: p["count"])
    v = jax_history.report(data).verdicts
    assert list(v["yardstick_python_loop"]["names"]) == [run["first"], run["last"]]
    assert list(v["numpy_selu_small"]["names"]) == [data["releases"][0], data["releases"][-1]]
    first, end = (data["releases"].index(run[k]) for k in ("first", "last"))

    def pages_with(loop_moves, numpy_moves, small_moves):
        changed = copy.deepcopy(data)
        for i, name, moves in ((end, "python_loop", loop_moves),
                               (end, "selu_numpy_large", numpy_moves),
                               (-1, "selu_numpy_small", small_moves)):
            start = changed["stats"][first if i == end else 0]["absolute"][name]
            changed["stats"][i]["absolute"][name] = {k: t * (3 if moves else 1)
                                                     for k, t in start.items()}
        return {e: " ".join(t.split()) for e, t in render_both(results_for(changed)).items()}

    pages = pages_with(loop_moves=False, numpy_moves=True, small_moves=True)
    assert "the machine held still, NumPy beside newer JAX releases did not" in pages["en"]
    assert "머신은 그대로였지만" in pages["ko"]
    assert pages["en"].count("while NumPy itself got 3× slower") == 2
    assert pages["ko"].count("그동안 NumPy 자신은 3배 느려졌다") == 2
    for moved in ({"loop_moves": True, "numpy_moves": True}, {"loop_moves": False, "numpy_moves": False}):
        pages = pages_with(**moved, small_moves=False)
        assert "held still" not in pages["en"] and "그대로였지만" not in pages["ko"]
        assert "NumPy itself" not in pages["en"] and "NumPy 자신은" not in pages["ko"]


def test_the_build_measures_again_when_the_dataset_or_the_probe_changes(tmp_path):
    """The cache key of the chapter's snippet covers the files its DATA names."""
    import shutil

    from snippet_runs import cache_key

    (tmp_path / "snippets").mkdir()
    (tmp_path / "history").mkdir()
    for name in ("jax_history.py", "measurement.py"):
        shutil.copy(ROOT / "snippets" / name, tmp_path / "snippets" / name)
    for name in ("releases.csv", "probe.py"):
        shutil.copy(ROOT / "history" / name, tmp_path / "history" / name)

    def key():
        return cache_key(tmp_path / "snippets" / "jax_history.py", tmp_path / "snippets",
                         ROOT / "requirements.txt", quick=False, cache_root=tmp_path / "cache")["files"]

    before = key()
    assert {"history/releases.csv", "history/probe.py"} <= set(before)
    with (tmp_path / "history" / "releases.csv").open("a") as f:
        f.write("\n")
    assert key()["history/releases.csv"] != before["history/releases.csv"]


def test_processes_on_a_busy_machine_are_left_out_where_quieter_ones_exist():
    def row(load, selu):
        return {"release": "0.4.30", "cores": "2", "load_start": str(load),
                "jaxlib": "0.4.30", "numpy": "1.26.4", "stages": "trace/lower/compile",
                "date": "2026-12-04T06:00:00+00:00", "selu_jit_large_median": str(selu),
                "python": "3.11.7",
                "selu_numpy_large_median": "1e-3"}

    busy, calm = row(7.5, 4e-4), row(1.2, 1e-4)
    assert jax_history.kept([busy, calm, busy]) == [calm]
    assert jax_history.kept([busy, busy]) == [busy, busy]  # none quiet: all of them
    stats = jax_history.per_release(jax_history.kept([busy, calm]), 2)
    assert stats["processes"] == 1 and stats["measured"] == 2 and stats["quiet"]
    assert stats["relative"]["selu_jit_large"]["median"] == pytest.approx(0.1)


def test_every_verdict_reads_its_numbers_and_decides_a_sentence_in_both_editions():
    """As tests/sitebuild/test_perturbations.py holds every build snippet, for this page
    alone and without a site build: a verdict re-derived from the numbers it names is
    the same, and each compare() verdict turned the other way changes both editions."""
    import copy

    results = results_for(measured())
    for name, verdict in results["verdicts"].items():
        if "reads" in verdict:
            a, b = (_at(results["data"], path) for path in verdict["reads"])
            again = measurement.compare(a, b, tuple(verdict["names"]), tuple(verdict["reads"]))
            assert again == verdict, name
    base = render_both(results)
    for name, verdict in results["verdicts"].items():
        if "winner" not in verdict:
            continue
        turned = copy.deepcopy(results)
        v = turned["verdicts"][name]
        if v["kind"] == "same":
            v.update(kind="faster", winner=v["names"][0], loser=v["names"][1])
        else:
            v.update(kind="same", winner=None, loser=None)
        changed = render_both(turned)
        for edition in EDITIONS:
            assert changed[edition] != base[edition], f"{name} decides nothing in {edition}"


def _at(data, path):
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def test_a_changelog_bullet_names_what_moved_and_groups_what_stayed_in_both_editions():
    """Each series that moved gets its own clause; those within the spread between
    processes are named together once (grouped() on the page, as the Python paragraph)."""
    import copy

    results = copy.deepcopy(results_for(measured()))
    v = results["verdicts"]
    for name in ("cpu_runtime_selu_jit_large", "cpu_runtime_selu_jit_small"):
        del v[name]  # the bullet keeps three series: two within the spread, one that moved
    for name in ("cpu_runtime_first_compile", "cpu_runtime_dispatch_eager",
                 "stackless_first_trace_lower", "stackless_dispatch_eager"):
        v[name].update(kind="same", winner=None, loser=None, low=0.95)  # ranges that meet
    step = v["cpu_runtime_deeponet_jit"]
    step.update(kind="faster", winner=step["names"][1], loser=step["names"][0], ratio=2.0)
    first, last = step["names"]
    pages = {e: " ".join(t.split()) for e, t in render_both(results).items()}
    assert (f"From {first} to {last}, the jitted DeepONet step got 2× faster; XLA's compile "
            "and eager `a + b` both stayed within the spread between processes.") in pages["en"]
    assert (f"{first}에서 {last}까지 jit한 DeepONet 스텝은 2배 빨라졌다. XLA 컴파일 시간, "
            "즉시 실행 `a + b`는 모두 프로세스 사이의 흩어짐 안에 머물렀다.") in pages["ko"]
    # two names, one with an "and" of its own: not "tracing and lowering and eager dispatch"
    assert ("tracing and lowering as well as eager dispatch stayed within the spread "
            "between processes.") in pages["en"]
    assert "트레이싱과 로워링, 즉시 실행 디스패치는 모두 프로세스 사이의 흩어짐 안에" in pages["ko"]


def test_a_same_verdict_whose_processes_ranges_do_not_meet_moved_less_than_the_threshold():
    """"Within the spread between processes" only where the processes' ranges meet; a
    "same" verdict by the 1.1x rule alone (low > 1) moved, by less than that, in both
    editions: in a changelog bullet (grouped()) and in a sentence of its own (moved())."""
    import copy

    results = copy.deepcopy(results_for(measured()))
    v = results["verdicts"]
    for name in ("stackless_first_trace_lower", "stackless_dispatch_eager"):
        v[name].update(kind="same", winner=None, loser=None, ratio=1.03, low=0.95, high=1.1)
    v["stackless_dispatch_eager"]["low"] = 1.02  # 1.03x apart, the ranges apart
    v["dispatch_jit"].update(kind="same", winner=None, loser=None, ratio=1.05, low=1.01, high=1.1)
    pages = {e: " ".join(t.split()) for e, t in render_both(results).items()}
    first, last = v["stackless_dispatch_eager"]["names"]
    assert (f"from {first} to {last}, eager dispatch moved less than 1.1× (medians 1.03× apart); "
            "tracing and lowering stayed within the spread between processes.") in pages["en"]
    assert (f"{first}에서 {last}까지 즉시 실행 디스패치는 1.1배 미만으로 움직였다(중앙값 1.03배 차이). "
            "트레이싱과 로워링은 프로세스 사이의 흩어짐 안에 머물렀다.") in pages["ko"]
    assert "a jitted call moved less than 1.1× (medians 1.05× apart) from" in pages["en"]
    assert "jit한 호출은" in pages["ko"] and "1.1배 미만으로 움직였다(중앙값 1.05배 차이)" in pages["ko"]


def test_a_largest_step_or_slowest_release_clear_of_the_spread_but_under_the_threshold():
    """step() and slowest() as moved(): a "same" verdict whose processes' ranges do not
    meet is not "within the spread"; largest_step() prefers such a step to one whose
    ranges meet, and the larger of two such steps."""
    import copy

    data = measured()
    same = {"kind": "same", "winner": None, "loser": None}
    steps = [dict(same, ratio=1.5, low=0.9, names=["a", "b"]),
             dict(same, ratio=1.02, low=1.01, names=["b", "c"]),
             dict(same, ratio=1.06, low=1.03, names=["c", "d"])]
    original = jax_history.compared
    try:
        jax_history.compared = lambda data, name, i, j, kind: steps[i] if j < 4 else None
        assert jax_history.largest_step(data, "x")["names"] == ["c", "d"]
        steps[1:] = [dict(same, ratio=1.02, low=0.99, names=["b", "c"])] * 2
        assert jax_history.largest_step(data, "x")["names"] == ["a", "b"]
    finally:
        jax_history.compared = original
    results = copy.deepcopy(results_for(data))
    v = results["verdicts"]
    v["selu_jit_large_step"].update(same, ratio=1.06, low=1.03, names=["0.4.30", "0.4.31"])
    worst = v["selu_jit_large_worst"]
    worst.update(same, ratio=1.04, low=1.01, faster=worst["names"][0])
    pages = {e: " ".join(t.split()) for e, t in render_both(results).items()}
    first, slow = worst["names"]
    assert ("no step between neighbouring releases moved by 1.1× or more clear of the spread "
            "between processes (largest clear of it: 0.4.30 to 0.4.31, medians "
            "1.06× apart)") in pages["en"]
    assert (f"its slowest later release, {slow}, was less than 1.1× slower than {first} "
            "(medians 1.04× apart)") in pages["en"]
    assert "흩어짐을 벗어난 것 중 가장 큰 변화는 0.4.30 → 0.4.31, 중앙값 1.06배 차이" in pages["ko"]
    assert f"가장 느렸던 {slow}도 {first}보다 1.1배 미만으로 느렸다(중앙값 1.04배 차이)" in pages["ko"]
    worst["faster"] = slow
    pages = {e: " ".join(t.split()) for e, t in render_both(results).items()}
    assert (f"every later release was faster than {first}, the slowest of them, {slow}, by "
            "less than 1.1×") in pages["en"]
    assert f"가장 느렸던 {slow}도 빨랐지만 차이는 1.1배 미만이었다" in pages["ko"]


def test_this_builds_selu_chapter_is_set_beside_the_datasets_machine_in_both_editions():
    """The installed release's jitted SELU at the smaller n, as the dataset's machine and as
    this build timed it: apart by CLOSE (= MOVED) or more, the page says small calls depend
    on the machine; near, it gives both numbers; on another backend, or where the SELU
    chapter has no such n, it says nothing of it."""
    assert measurement.CLOSE == measurement.MOVED  # "faster" is "moved", as the page says
    data = measured(selu_chapter(jit_small=1e-9))  # replaced below, from the dataset
    assert data["here"]["n"] == data["sizes"]["n_small"] and data["here"]["backend"] == "cpu"
    for factor, kind in ((1 / 6, "faster"), (1.0, "same"), (1 / 1.5, "close")):
        changed = beside(factor)(measured())
        verdict = jax_history.report(changed).verdicts["here_selu_jit_small"]
        assert verdict["kind"] == kind, factor
        assert verdict["reads"][1] == "here.jit"
        pages = {e: " ".join(t.split()) for e, t in render_both(results_for(changed)).items()}
        assert "This build's [SELU page](selu.md) timed" in pages["en"]
        assert "이 빌드의 [SELU 장](selu.md)은" in pages["ko"]
        assert ("calls this small depend on the machine" in pages["en"]) == (kind == "faster")
        assert ("머신에 따라 달라진다" in pages["ko"]) == (kind == "faster")
        assert ("about as fast as the dataset's" in pages["en"]) == (kind == "same")
    step = jax_history.report(data).verdicts["selu_jit_small_step"]
    pages = {e: " ".join(t.split()) for e, t in render_both(results_for(beside(1 / 6)(measured()))).items()}
    if step["kind"] != "same":
        assert f"as may the step at {step['names'][1]}" in pages["en"]
        assert f"{step['names'][1]}에서의 변화 폭도 머신에 따라 다를 수 있다" in pages["ko"]
    for changed in (beside(1 / 6, "tpu")(measured()), measured(selu_chapter(sizes=(10**5,)))):
        assert "here_selu_jit_small" not in jax_history.report(changed).verdicts
        pages = render_both(results_for(changed))
        assert "This build's [SELU page]" not in pages["en"] and "이 빌드의 [SELU 장]" not in pages["ko"]


def test_the_docs_selu_figures_come_from_published_and_the_posts_misquote_is_named():
    import published

    eager, jit = published.SELU["jax101"]
    v = jax_history.report(measured()).verdicts["post"]
    assert (v["eager"], v["jit"]) == (eager, jit) and v["ratio"] == eager / jit
    pages = {e: " ".join(t.split()) for e, t in render_both(results_for(measured())).items()}
    quoted = measurement.fmt_seconds(published.SELU["post"][0])
    assert f"{measurement.fmt_seconds(eager)} eager (the post says {quoted})" in pages["en"]
    assert f"(글은 {quoted}로 옮겼다)" in pages["ko"]
    assert f"is {measurement.fmt_ratio(eager / jit)}." in pages["en"]


def test_the_flops_the_page_prints_are_xlas_count_of_the_probes_programs():
    """XLA:CPU hands a program of INLINE_FLOPS or more to its runtime threads: the
    chapter prints XLA's count of the probe's SELU at the smaller n and of its a + b."""
    import importlib.util

    import jax
    import jax.numpy as jnp
    import numpy as np

    spec = importlib.util.spec_from_file_location("probe", ROOT / "history" / "probe.py")
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    flops = lambda f, *args: jax.jit(f).lower(*args).compile().cost_analysis()["flops"]  # noqa: E731
    n = probe.SIZES[0]
    assert flops(probe.selu, jnp.arange(n)) == jax_history.SELU_FLOPS_PER_VALUE * n
    a = jnp.asarray(np.linspace(0, 1, 10, dtype=np.float32))
    assert flops(lambda a, b: a + b, a, a) == jax_history.ADD_FLOPS
    assert jax_history.ADD_FLOPS < jax_history.INLINE_FLOPS <= jax_history.SELU_FLOPS_PER_VALUE * n


def test_the_handoff_is_named_the_likely_cause_only_where_selu_stepped_and_a_plus_b_did_not():
    data = measured()
    v = jax_history.report(data).verdicts["handoff"]
    assert v == {"kind": "selu_only", "threshold": 1000,
                 "flops": {"selu": 6 * data["sizes"]["n_small"], "add": 10}}
    pages = {e: " ".join(t.split()) for e, t in render_both(results_for(data)).items()}
    assert "jitted SELU on 1,000 values is 6,000 flops, `a + b` on ten values 10." in pages["en"]
    assert "So the handoff likely caused SELU's step" in pages["en"]
    assert "값 1,000개의 jit한 SELU는 6,000 flops, 값 10개의 `a + b`는 10 flops다." in pages["ko"]
    assert "이 넘겨주기 탓일 가능성이 크다" in pages["ko"]
    both = add_slowed_at("0.4.33", 30.0)(measured())
    assert jax_history.report(both).verdicts["handoff"]["kind"] == "other"
    pages = {e: " ".join(t.split()) for e, t in render_both(results_for(both)).items()}
    assert "jitted SELU on 1,000 values is 6,000 flops, `a + b` on ten values 10." in pages["en"]
    assert "likely caused" not in pages["en"] and "넘겨주기 탓" not in pages["ko"]


def test_equal_load_ranges_at_start_and_end_are_said_once():
    data = measured()
    data["machine"].update(load_start=[1.03, 1.78], load_end=[1.031, 1.779])  # print alike
    pages = {e: " ".join(t.split()) for e, t in render_both(results_for(data)).items()}
    assert "The kept processes started and ended at a load average of 1.03 to 1.78." in pages["en"]
    assert "부하 평균은 시작할 때와 끝날 때 모두 1.03~1.78 사이였다." in pages["ko"]
    data["machine"].update(load_end=[0.5, 2.0])
    pages = {e: " ".join(t.split()) for e, t in render_both(results_for(data)).items()}
    assert ("The kept processes started at a load average of 1.03 to 1.78 and ended at 0.5 to 2."
            in pages["en"])
    assert "부하 평균은 시작할 때 1.03~1.78, 끝날 때 0.5~2 사이였다." in pages["ko"]
