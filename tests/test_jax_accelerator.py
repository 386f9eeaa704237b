"""The chapter "On an accelerator" (snippets/jax_accelerator.py, docs/accelerator.md and
docs-ko/accelerator.md): it renders the committed rows of accelerator/rows.csv, measured
once on a TPU machine, and needs no accelerator itself."""

import copy
import csv
from importlib.metadata import version

import pytest
from mkdocs.utils.meta import get_data

import jax_accelerator
import measurement
import page_templates
from measurement import DocumentationMismatch
from project import ROOT, draw_figures

DATASET = ROOT / "accelerator" / "rows.csv"
EDITIONS = {"en": ROOT / "docs", "ko": ROOT / "docs-ko"}


def results_for(data):
    report = jax_accelerator.report(data)
    env = {"cpu": "a test CPU", "cores": 2, "backend": "cpu", "device": "cpu",
           "date": "2026-12-05", "python": "3.13.0",
           "libraries": {"jax": version("jax"), **data["libraries"]}, **data["environment"]}
    return {"environment": env, "quick": False,
            **measurement.results_of(data, report, jax_accelerator.FIGURES)}


def render_both(results):
    out = {}
    for edition, folder in EDITIONS.items():
        text, meta = get_data((folder / "accelerator.md").read_text(encoding="utf-8"))
        out[edition] = page_templates.render(
            text, page="accelerator.md", page_url="accelerator/",
            results={"jax_accelerator": results},
            words=page_templates.load_words(folder), page_words=meta.get("words"))
    return out


def _at(data, path):
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


# ---------------------------------------------------------------- the data

def test_the_chapter_reads_the_committed_dataset():
    data = jax_accelerator.measure(quick=True)
    with DATASET.open(newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok" and r["quick"] == "0"]
    assert data["n"] == [10**3, 10**4, 10**5, 10**6, 10**7]
    assert data["batch"] == [64, 250, 1000, 4000]
    for backend in jax_accelerator.BACKENDS:
        selu, step = data[backend]["selu"], data[backend]["deeponet"]
        assert all(len(selu[w]) == len(data["n"]) and all(selu[w]) for w in selu)
        assert all(len(step[w]) == len(data["batch"]) and all(step[w]) for w in step)
        for t in selu["jit"] + step["jit"]:
            assert 0 < t["q1"] <= t["median"] <= t["q3"]
    # The stamp names the machine and software that measured, not the build's.
    m = data["machine"]
    assert m["device_kind"] == "TPU v5 lite" and m["rows"] == len(rows)
    assert data["libraries"] == {k: rows[0][k] for k in ("jax", "jaxlib", "numpy")}
    assert data["environment"]["python"] == rows[0]["python"]
    assert data["environment"]["backend"] == "tpu" and data["environment"]["cores"] == int(rows[0]["cores"])
    assert data["site"]["jax"] == version("jax")


def test_the_report_holds_a_row_per_size_and_a_verdict_per_question():
    data = jax_accelerator.measure(quick=True)
    report = jax_accelerator.report(data)
    assert [row[0] for row in report.tables["selu"].rows] == data["n"]
    assert [row[0] for row in report.tables["deeponet"].rows] == data["batch"]
    v = report.verdicts
    for n in data["n"]:
        assert {f"selu_tpu_{n}", f"selu_cpu_{n}", f"selu_backend_{n}", f"numpy_{n}"} <= set(v)
    for b in data["batch"]:
        assert {f"deeponet_tpu_b{b}", f"deeponet_cpu_b{b}", f"deeponet_backend_b{b}",
                f"deeponet_eager_backend_b{b}"} <= set(v)
    assert {"dispatch_eager", "dispatch_jit", "first_compile", "first_op",
            "deeponet_gain_tpu", "deeponet_gain_cpu"} <= set(v)
    # The ratio columns give the verdicts' ratios: the sentences and tables agree.
    for table, prefix in (("selu", "selu_"), ("deeponet", "deeponet_")):
        for row in report.tables[table].rows:
            size = row[0] if table == "selu" else f"b{row[0]}"
            for column, backend in ((5, "tpu"), (6, "cpu")):
                verdict = v[f"{prefix}{backend}_{size}"]
                assert verdict["winner"] == "jit"  # in the committed rows, jit wins
                assert row[column]["ratio"] == pytest.approx(verdict["ratio"])


def test_a_dataset_without_the_accelerators_rows_stops_the_build(tmp_path):
    with DATASET.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = [r for r in reader if r["backend"] != "tpu"]
        columns = reader.fieldnames
    path = tmp_path / "rows.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(DocumentationMismatch, match="accelerator.both_backends"):
        jax_accelerator.load(path)


def test_the_build_renders_again_when_the_dataset_or_its_code_changes(tmp_path):
    """The cache key of the chapter's snippet covers the files its DATA names."""
    from snippet_runs import cache_key

    key = cache_key(ROOT / "snippets" / "jax_accelerator.py", ROOT / "snippets",
                    ROOT / "requirements.txt", quick=False, cache_root=ROOT / ".cache")["files"]
    assert {"accelerator/rows.csv", "accelerator/dataset.py", "accelerator/scaling.py",
            "accelerator/measure.py", "history/probe.py"} <= set(key)
    assert all(key[p] for p in jax_accelerator.DATA)  # every file named exists


# ---------------------------------------------------------------- the pages

def test_both_editions_render_from_the_committed_rows():
    data = jax_accelerator.measure(quick=True)
    pages = render_both(results_for(data))
    for edition, text in pages.items():
        assert "{{" not in text and "{%" not in text, edition
        assert "accelerator/rows.csv" in text and "TPU v5 lite" in text, edition
        assert f"jax {data['libraries']['jax']}" in text, edition  # the dataset's JAX ...
        assert f"jax {version('jax')}" in text, edition  # ... and the site's
        assert "backend tpu (TPU v5 lite)" in text or "백엔드 tpu (TPU v5 lite)" in text, edition


def test_the_page_says_how_its_step_and_this_build_differ_from_the_chapter_and_the_tpu():
    """The probe's networks beside the DeepONet chapter's; "runs on a CPU only" only where
    this build's backend is the CPU."""
    from deeponet import DEFAULT

    data = jax_accelerator.measure(quick=True)
    assert data["chapter"] == {"width": DEFAULT.width, "hidden_layers": DEFAULT.depth}
    for backend in ("cpu", "tpu"):
        variant = copy.deepcopy(data)
        variant["site"]["backend"] = backend
        pages = {e: " ".join(t.split()) for e, t in render_both(results_for(variant)).items()}
        assert ("runs on a CPU only" in pages["en"]) == (backend == "cpu")
        assert ("CPU에서만 돈다" in pages["ko"]) == (backend == "cpu")
    own, chapter = data["deeponet"], data["chapter"]
    if (own["width"], own["hidden_layers"]) != (chapter["width"], chapter["hidden_layers"]):
        pages = {e: " ".join(t.split()) for e, t in render_both(results_for(data)).items()}
        assert (f"(the chapter's: {chapter['hidden_layers']} of {chapter['width']})"
                in pages["en"])
        assert (f"(그 장은 너비 {chapter['width']}의 은닉층 {chapter['hidden_layers']}개)"
                in pages["ko"])
    same = copy.deepcopy(data)
    same["chapter"] = {k: own[k] for k in ("width", "hidden_layers")}
    pages = render_both(results_for(same))
    assert "like that of" not in pages["en"] and "비슷한" not in pages["ko"]


@pytest.mark.parametrize("edition", EDITIONS)
def test_each_figure_draws_with_the_pages_words(edition):
    draw_figures(EDITIONS[edition], "accelerator.md", jax_accelerator,
                 jax_accelerator.measure(quick=True))


def test_verdicts_follow_the_data():
    """The TPU's jitted SELU made 100x faster at the smallest n: the host CPU no longer
    wins there, and both editions say so."""
    data = jax_accelerator.measure(quick=True)
    n = data["n"][0]
    before = render_both(results_for(data))
    data["tpu"]["selu"]["jit"][0] = {k: t / 100 for k, t in data["tpu"]["selu"]["jit"][0].items()}
    v = jax_accelerator.report(data).verdicts
    assert v[f"selu_backend_{n}"]["winner"] == "tpu" and v[f"selu_backend_{n}"]["kind"] == "faster"
    after = render_both(results_for(data))
    for edition in EDITIONS:
        assert after[edition] != before[edition], edition


def test_the_page_says_why_the_un_jitted_step_pays_less_than_a_waited_op_only_where_it_does():
    """The un-jitted step on the TPU against the host CPU, beside a waited `a + b`: where
    its gap is far smaller (eager_step "host"), the page says its operations are not
    waited for one by one; with the step made 50x slower on the TPU, it does not."""
    data = jax_accelerator.measure(quick=True)
    assert jax_accelerator.eager_step(data) == {"kind": "host"}  # the committed rows
    pages = {e: " ".join(t.split()) for e, t in render_both(results_for(data)).items()}
    assert "JAX does not wait for each of its operations" in pages["en"]
    assert "하나하나 기다리지 않고" in pages["ko"]
    data["tpu"]["deeponet_eager"] = {k: t * 50 for k, t in data["tpu"]["deeponet_eager"].items()}
    assert jax_accelerator.eager_step(data) == {"kind": "launches"}
    pages = {e: " ".join(t.split()) for e, t in render_both(results_for(data)).items()}
    assert "does not wait" not in pages["en"] and "기다리지 않고" not in pages["ko"]


def test_every_verdict_reads_its_numbers_and_decides_a_sentence_in_both_editions():
    """As tests/sitebuild/test_perturbations.py holds every build snippet, for this page
    alone and without a site build: a verdict re-derived from the numbers it names is
    the same, and each compare() verdict turned the other way changes both editions."""
    results = results_for(jax_accelerator.measure(quick=True))
    for name, verdict in results["verdicts"].items():
        if isinstance(verdict.get("reads"), list):
            a, b = (_at(results["data"], path) for path in verdict["reads"])
            again = measurement.compare(a, b, tuple(verdict["names"]), tuple(verdict["reads"]))
        elif "reads" in verdict:
            again = measurement.trend(_at(results["data"], verdict["reads"]), verdict["reads"])
        else:  # gain_from: re-derived from the data as a whole
            again = getattr(jax_accelerator, name)(results["data"])
        assert again == verdict, name
    base = render_both(results)
    turned = copy.deepcopy(results)  # why the TPU's gain is larger decides a sentence
    turned["verdicts"]["gain_from"]["kind"] = {"both": "jitted_step"}.get(
        results["verdicts"]["gain_from"]["kind"], "both")
    assert all(render_both(turned)[e] != base[e] for e in EDITIONS) or not (
        min(results["data"]["tpu"]["eager_over_jit"]["deeponet"])
        > max(results["data"]["cpu"]["eager_over_jit"]["deeponet"]))
    for name, verdict in results["verdicts"].items():
        if "winner" not in verdict:
            continue
        names = verdict["names"]
        swaps = ([dict(kind="faster", winner=w, loser=lo) for w, lo in (names, names[::-1])]
                 if verdict["kind"] == "same" else [dict(kind="same", winner=None, loser=None)])
        for swap in swaps:
            turned = copy.deepcopy(results)
            turned["verdicts"][name].update(swap)
            changed = render_both(turned)
            for edition in EDITIONS:
                assert changed[edition] != base[edition], f"{name} decides nothing in {edition}"


def test_the_tpus_jitted_selu_shows_the_work_only_where_the_largest_n_moved():
    """The committed rows: the jitted call on the TPU is nearly flat up to the second-largest
    n and slower at the largest (the work showing). With the largest n's time set to the
    second-largest's, both editions say the call cost the same whatever the work."""
    data = jax_accelerator.measure(quick=True)
    top = jax_accelerator.report(data).verdicts["tpu_jit_largest_n"]
    assert top["kind"] != "same" and top["winner"] == top["names"][0]
    pages = {e: " ".join(t.split()) for e, t in render_both(results_for(data)).items()}
    assert "the work adds its share" in pages["en"] and "계산량이 보태져" in pages["ko"]
    assert "whatever the work" not in pages["en"]
    data["tpu"]["selu"]["jit"][-1] = copy.deepcopy(data["tpu"]["selu"]["jit"][-2])
    assert jax_accelerator.report(data).verdicts["tpu_jit_largest_n"]["kind"] == "same"
    pages = {e: " ".join(t.split()) for e, t in render_both(results_for(data)).items()}
    assert "whatever the work" in pages["en"] and "일의 양과 상관없이" in pages["ko"]
    assert "adds its share" not in pages["en"] and "계산량이 보태져" not in pages["ko"]
