"""snippets/interpreters_benchmark.py: the facts it checks, and its verdicts from data.

Timings are never asserted: the page's sentences are chosen from them, whichever way they
fall (tests/sitebuild/test_perturbations.py renders every page from PERTURBATIONS below).
"""

import copy
import re
from pathlib import Path

import pytest
from mkdocs.utils.meta import get_data

import interpreters_benchmark as ib
import page_templates
from interpreters import loop_body_bytecode
from measurement import DocumentationMismatch, results_of
from project import ROOT, quick_results


def _t(seconds):
    return {"median": seconds, "q1": seconds * 0.95, "q3": seconds * 1.05, "best": seconds * 0.9}


def sample_data(ladder=(1e-3, 30e-6, 400e-6, 20e-6), small=(5.1e-6, 5.2e-6, 5.3e-6), one_jit=5e-6,
                busy=1.0, xla=1, xla_small=1, python="3.13"):
    """Data as measure(quick=True) writes it (n = 10**4); ladder: python, numpy, eager, jit."""
    return {"n": 10**4, "repeats": 5, "positive": 5000, "processes": 2,
            "agreement": {"backend": "cpu", "within": {"rtol": 1e-5, "atol": 1e-6}, "differ": [],
                          "largest": {"pure Python": 4.8e-7, "NumPy": 3.6e-7, "eager JAX": 2.4e-7, "jax.jit": 0.0}},
            "instructions": {"fixed": 7, "positive": 18, "negative": 25},
            "python_instructions": 7 + 18 * 5000 + 25 * 5000, "one_python_instructions": 25,
            "operations": 6,
            "ladder": {k: _t(s) for k, s in zip(ib.KEYS, ladder)},
            "one": {"python": _t(150e-9), "numpy": _t(6e-6), "eager": _t(50e-6), "jit": _t(one_jit)},
            "small": {"n": [10, 100, 1000], "jit": [_t(s) for s in small]},
            "threads": {"xla": xla, "xla_small": xla_small, "eager_cores_busy": busy},
            "quickening": {"python": python, "note_python": ib.NOTE_PYTHON,
                           "specialized": ["BINARY_OP_MULTIPLY_FLOAT"], "fused": [],
                           "count_unchanged": True},
            "bytecode": {"plain": "FOR_ITER", "adaptive": "FOR_ITER"}}


def rendered(data, selu_n=(10**3, 10**4, 10**5), fusions=1):
    """Both editions of the interpreters page from `data` (and a SELU run at selu_n, and the
    compilers chapter's listing with that many fusions)."""
    env = {"cpu": "CPU", "cores": 2, "python": "3.11.7", "backend": "cpu", "device": "cpu",
           "date": "2026-12-04", "libraries": {"jax": "0.10.2"}}
    results = {"interpreters_benchmark": {"environment": env, "quick": True,
                                          **results_of(data, ib.report(data), ib.FIGURES)},
               "selu_benchmark": {"environment": env, "quick": True,
                                  "data": {"repeats": 5, "scaling": {"n": list(selu_n)}}},
               "compilers_benchmark": {"environment": env, "quick": True,
                                       "data": {"listing": {"fusions": [{"kind": "kLoop"}] * fusions}}}}
    pages = {}
    for edition in ("docs", "docs-ko"):
        text, meta = get_data((ROOT / edition / "interpreters.md").read_text(encoding="utf-8"))
        pages[edition] = page_templates.render(
            text, page="interpreters.md", page_url="interpreters/", results=results,
            words=page_templates.load_words(ROOT / edition), page_words=meta.get("words"))
    return {edition: " ".join(text.split()) for edition, text in pages.items()}  # one line


def test_the_rungs_agree_to_the_precision_of_the_backend_that_ran():
    import numpy as np

    from selu import selu_numpy

    x = np.linspace(-4, 4, 10_001, dtype=np.float32)
    jit = selu_numpy(x)
    tpu_like = jit + np.float32(6e-6) * np.sign(np.sin(np.arange(x.size)))  # a TPU v5e's exp
    results = {"pure Python": tpu_like, "NumPy": tpu_like, "eager JAX": jit, "jax.jit": jit}
    assert ib.rungs_agree(results, "tpu")["differ"] == []
    assert ib.rungs_agree(results, "cpu")["differ"] == ["pure Python", "NumPy"]  # the failure
    wrong = {**results, "NumPy": selu_numpy(x, alpha=1.6733)}  # a real disagreement still fails
    assert ib.rungs_agree(wrong, "tpu")["differ"] == ["NumPy"]


def test_verdicts_follow_the_numbers_whichever_way_they_fall():
    v = ib.report(sample_data()).verdicts
    assert v["python_vs_jit"]["winner"] == "jit" and v["python_vs_jit"]["ratio"] == pytest.approx(50)
    assert v["numpy_vs_jit"]["winner"] == "jit"
    v = ib.report(sample_data(ladder=(1e-3, 10e-6, 400e-6, 60e-6))).verdicts
    assert v["numpy_vs_jit"]["winner"] == "numpy" and v["numpy_vs_jit"]["kind"] == "faster"


def test_a_jitted_calls_step_with_n_is_told_from_its_own_cost_and_its_elements_work():
    # 2 ns per element in the ladder: 1,000 values add about 2 µs of work
    steady = ib.report(sample_data()).verdicts
    assert steady["jit_small"]["kind"] == "same"
    grows = ib.report(sample_data(small=(5e-6, 5.5e-6, 8e-6))).verdicts  # adds 3 of 5 µs
    assert grows["jit_small"]["winner"] == "one" and grows["jit_small_work"]["kind"] == "own"
    assert grows["jit_small_work"]["share"] == pytest.approx(0.6)
    # more than a one-element call, but no more than CLOSE times its elements' work
    work = ib.report(sample_data(small=(2e-6, 2e-6, 5e-6), one_jit=2e-6)).verdicts["jit_small_work"]
    assert work["kind"] == "work" and work["ratio"] == pytest.approx(1.5)
    # Another CPU: about 4 µs at n = 100, 30 to 60 µs at n = 1,000 (NOTES.md)
    step = ib.report(sample_data(small=(4e-6, 4.2e-6, 45e-6), one_jit=4e-6)).verdicts
    assert step["jit_small"]["kind"] == "faster" and step["jit_small_work"]["kind"] == "step"
    assert step["jit_small_work"]["extra"] == pytest.approx(41e-6)


def test_what_a_jitted_call_adds_is_said_against_the_one_element_call_or_its_work():
    pages = rendered(sample_data(small=(5e-6, 5.5e-6, 8e-6)))
    assert ("the 3 µs it adds is 60 % of a one-element call's 5 µs, so up to that size the call's own "
            "cost is most of its time") in pages["docs"]
    assert "늘어난 3 µs는 원소 하나짜리 호출에 드는 5 µs의 60%다" in pages["docs-ko"]
    half_again = sample_data(small=(2e-6, 2e-6, 5e-6), one_jit=2e-6)  # adds 3 µs: 1.5x 2 µs
    assert not ib.report(half_again).verdicts["jit_small_work"]["about"]
    pages = rendered(half_again)
    assert "the 3 µs it adds is 1.5× what its elements' work at the ladder's rate would add (2 µs)" in pages["docs"]
    assert "작업(2 µs)의 1.5배다" in pages["docs-ko"]
    about = _adds_its_work(sample_data())
    assert ib.report(about).verdicts["jit_small_work"]["about"]
    pages = rendered(about)
    assert "it adds is about what its elements' work" in pages["docs"] and "작업(2 µs)과 거의 같다" in pages["docs-ko"]


def test_the_ladders_rate_is_not_scaled_by_threads_and_the_page_names_both_counts():
    # 2 ns per element on 2 threads at n: XLA's 1 thread at n = 1,000 need not double it
    data = _adds_its_work(sample_data(xla=2, xla_small=1))
    w = ib.report(data).verdicts["jit_small_work"]
    assert w["work"] == pytest.approx(2e-6) and w["kind"] == "work"
    assert (w["threads"], w["ladder_threads"]) == (1, 2)
    off_cpu = ib.report(sample_data(xla=None, xla_small=None)).verdicts["jit_small_work"]
    assert off_cpu["work"] == pytest.approx(2e-6) and off_cpu["threads"] is None
    pages = rendered(data)
    assert "(2 µs, on the ladder's 2 threads; XLA used 1 here)" in pages["docs"]
    assert "(2 µs, 사다리에서는 XLA가 스레드 2개를 썼고 여기서는 1개를 썼다)" in pages["docs-ko"]
    assert "XLA used" not in rendered(_adds_its_work(sample_data()))["docs"]


def test_eager_jaxs_busy_cores_are_said_as_what_they_count_not_as_threads():
    for busy, said in ((1.0, "eager JAX kept 1.0 core busy"), (1.6, "eager JAX kept 1.6 cores busy")):
        pages = rendered(sample_data(busy=busy))
        assert said in pages["docs"] and "JAX's runtime threads included" in pages["docs"]
        assert "several threads" not in pages["docs"]
        assert "JAX 런타임 스레드까지 포함해" in pages["docs-ko"]


def test_the_one_element_row_names_its_values_branch():
    def python_row(data):
        return ib.report(data).tables["one_element"].rows[0][2]
    assert python_row(sample_data())["word"] == "dispatch_python_positive"  # 7 + 18
    assert python_row({**sample_data(), "one_python_instructions": 7 + 25})["word"] == "dispatch_python_negative"
    assert python_row({**sample_data(), "one_python_instructions": 40})["word"] == "dispatch_python"
    pages = rendered(sample_data())
    assert "at most 25: the bytecode instructions counted (a positive value)" in pages["docs"]
    assert "많아야 25번(센 바이트코드 명령어 수, 양수 값 하나)" in pages["docs-ko"]


def test_tables_are_words_and_numbers():
    tables = ib.report(sample_data()).tables
    ladder = tables["ladder"]
    assert [row[0] for row in ladder.rows] == [{"word": k} for k in ib.KEYS]
    assert ladder.rows[0][2] == {"word": "dispatch_python", "fields": {"count": 215007}}
    assert ladder.rows[-1][-1] == {"ratio": 1.0} and ladder.fields == {"n": 10**4}
    assert [row[0] for row in tables["small"].rows] == [1, 10, 100, 1000]


def test_the_pages_sentences_follow_the_data_in_both_editions():
    pages = rendered(sample_data())
    assert "the interpreted loop was 50× slower" in pages["docs"]
    assert "순수 Python 루프가 `jax.jit`보다 50배 느렸다" in pages["docs-ko"]  # subject and comparand
    assert "up to that size the call's own cost" in pages["docs"]
    step = rendered(sample_data(small=(4e-6, 4.2e-6, 45e-6), one_jit=4e-6))
    assert "is not one fixed number here: by n = 1,000 it had grown" in step["docs"]
    assert "고정된 숫자 하나가 아니다" in step["docs-ko"]
    assert "and jax.jit was 1.5× faster than NumPy; the Python loop took" in step["docs"]  # jit won at n


def test_a_single_loop_is_said_only_where_xla_made_one_fusion():
    one, two = rendered(sample_data()), rendered(sample_data(), fusions=2)
    assert "fuses the operations](compilers.md#optimized-hlo) into a single loop" in one["docs"]
    assert "연산들을 루프 하나로 [퓨전(fusion)한다]" in one["docs-ko"]
    assert "single loop" not in two["docs"] and "루프 하나로" not in two["docs-ko"]


def test_the_compiled_rungs_are_named_as_the_selu_chapters_measurement():
    pages = rendered(sample_data())
    assert "NumPy, eager JAX and `jax.jit` are the [SELU chapter's measurement]" in pages["docs"]
    assert "in each of 2 fresh processes (5 samples each, pooled)" in pages["docs"]
    assert "[SELU 장의 측정]" in pages["docs-ko"]


def test_on_another_python_the_note_says_what_that_python_did():
    pages = rendered(sample_data(python="3.14"))
    assert "which the chapter does not describe" in pages["docs"]
    assert "이 장은 그 버전을 설명하지 않는다" in pages["docs-ko"]


def test_cpython_313s_quickening_is_a_fact_there_and_data_elsewhere(monkeypatch):
    counts = {"fixed": 7, "positive": 16, "negative": 23}
    monkeypatch.setattr(ib, "instructions_per_element", lambda fn=None: counts)
    none = {"specialized": [], "fused": []}
    fused = {"specialized": ["BINARY_OP_MULTIPLY_FLOAT"], "fused": ["LOAD_FAST__LOAD_FAST"]}
    monkeypatch.setattr(ib.platform, "python_version_tuple", lambda: ("3", "13", "0"))
    with pytest.raises(DocumentationMismatch, match="interpreters.cpython313_specializes_the_loop"):
        ib.quickening(none, counts)
    with pytest.raises(DocumentationMismatch, match="cpython313_fuses_nothing_at_run_time"):
        ib.quickening(fused, counts)
    monkeypatch.setattr(ib.platform, "python_version_tuple", lambda: ("3", "11", "7"))
    assert ib.quickening(none, counts) == {"python": "3.11", "note_python": "3.13", **none,
                                           "count_unchanged": True}


def _swap(a, b):
    def change(data):
        data["ladder"][a], data["ladder"][b] = data["ladder"][b], data["ladder"][a]
        return data
    return change


def _jit_small(factor):
    """The jitted call on the largest small input: `factor` times the call on one value."""
    def change(data):
        data["small"]["jit"][-1] = {k: v * factor if isinstance(v, float) else v
                                    for k, v in data["one"]["jit"].items()}
        return data
    return change


def _adds_its_work(data):
    """A one-element jitted call of half its elements' work at the ladder's rate, and the
    call on the largest small input that plus that work: "about" that work, and more than
    the one-element call."""
    work = data["ladder"]["jit"]["median"] / data["n"] * data["small"]["n"][-1]
    one = data["one"]["jit"]
    data["one"]["jit"] = {k: v * work / 2 / one["median"] if isinstance(v, float) else v
                          for k, v in one.items()}
    data["small"]["jit"][-1] = {k: v * 3 if isinstance(v, float) else v
                                for k, v in data["one"]["jit"].items()}
    return data


def _one_value_negative(data):
    counts = data["instructions"]
    data["one_python_instructions"] = counts["fixed"] + counts["negative"]
    return data


def _set(path, value):
    def change(data):
        *parents, last = path.split(".")
        target = data
        for part in parents:
            target = target[part]
        target[last] = copy.deepcopy(value)
        return data
    return change


def _append_unspecialized(data):
    """A loop whose list.append stayed a plain CALL: nothing runs its POP_TOP."""
    data["bytecode"]["adaptive"] = data["bytecode"]["adaptive"].replace("CALL_LIST_APPEND", "CALL")
    return data


def _handoff(data):
    """A step by n = 1,000 whose program, unlike the one at n = 100, XLA:CPU hands off."""
    data = _jit_small(10.0)(data)
    data["small"].update(flops=[50.0, 500.0, 5000.0], inline_flops=1000)
    return data


# The ways other machines differ (tests/sitebuild/test_perturbations.py re-renders every page).
PERTURBATIONS = {
    "NumPy faster than jit": _swap("numpy", "jit"),
    "pure Python faster than jit": _swap("python", "jit"),
    "pure Python faster than NumPy": _swap("python", "numpy"),
    "a jitted call costs the same at n = 1,000": _jit_small(1.0),
    "a jitted call steps up 10x by n = 1,000": _jit_small(10.0),
    "a jitted call faster on 1,000 values than on one": _jit_small(0.3),
    "a jitted call adds about its elements' work by n = 1,000": _adds_its_work,
    "a jitted call adds about its elements' work on fewer threads at n = 1,000":
        lambda d: _adds_its_work(_set("threads.xla_small", 1)(_set("threads.xla", 2)(d))),
    "the one value negative": _one_value_negative,
    "XLA threads 1": _set("threads.xla", 1), "XLA threads 16": _set("threads.xla", 16),
    "XLA threads 2 at n, 1 at n = 1,000": lambda d: _set("threads.xla_small", 1)(_set("threads.xla", 2)(d)),
    "a jitted call steps up 10x on fewer threads at n = 1,000":
        lambda d: _jit_small(10.0)(_set("threads.xla_small", 1)(_set("threads.xla", 4)(d))),
    "eager JAX on one core": _set("threads.eager_cores_busy", 1.0),
    "eager JAX busy on 1.9 cores": _set("threads.eager_cores_busy", 1.9),
    "rungs off the CPU": _set("agreement", {"backend": "tpu", "within": {"rtol": 1e-5, "atol": 2e-5},
                                            "differ": [], "largest": {"NumPy": 6.4e-6, "jax.jit": 0.0}}),
    "list.append not specialized": _append_unspecialized,
    "a jitted call steps up 10x by n = 1,000, across XLA:CPU's inline threshold": _handoff,
    "Python 3.11": _set("quickening", {"python": "3.11", "note_python": "3.13", "specialized": [],
                                       "fused": [], "count_unchanged": False}),
}


QUICKENED_TAIL = """ 35   L3:     LOAD_FAST                3 (out)
              LOAD_ATTR_METHOD_NO_DICT 5 (append + NULL|self)
              LOAD_FAST_LOAD_FAST     37 (lambda_, y)
              BINARY_OP_MULTIPLY_FLOAT 5 (*)
              CALL_LIST_APPEND         1
              POP_TOP
              JUMP_BACKWARD           61 (to L1)"""


def test_a_specialized_append_that_runs_the_pop_top_after_it_is_named():
    """CPython 3.13's CALL_LIST_APPEND (3.12's CALL_NO_KW_LIST_APPEND) also runs the POP_TOP
    after it: one dispatch for two counted instructions."""
    assert ib.append_skips(QUICKENED_TAIL) == {"kind": "skips", "instruction": "CALL_LIST_APPEND"}
    old = QUICKENED_TAIL.replace("CALL_LIST_APPEND        ", "CALL_NO_KW_LIST_APPEND  ")
    assert ib.append_skips(old)["instruction"] == "CALL_NO_KW_LIST_APPEND"
    assert ib.append_skips(QUICKENED_TAIL.replace("CALL_LIST_APPEND", "CALL"))["kind"] == "none"
    assert ib.append_skips("FOR_ITER")["kind"] == "none"
    data = sample_data()
    data["bytecode"]["adaptive"] = QUICKENED_TAIL
    pages = rendered(data)
    assert "fused pairs: `CALL_LIST_APPEND` with the `POP_TOP` after it." in pages["docs"]
    assert "dispatches one instruction fewer per element than counted" in pages["docs"]
    assert "`CALL_LIST_APPEND`(바로 뒤의 `POP_TOP`까지)" in pages["docs-ko"]
    assert "fused pairs: none." in rendered(sample_data())["docs"]


@pytest.mark.parametrize("label", PERTURBATIONS)
def test_every_perturbation_renders_both_editions(label):
    pages = rendered(PERTURBATIONS[label](sample_data()))
    for text in pages.values():
        assert "None" not in text and "{{" not in text


# ---------------------------------------------------------------- the quick build's run

def test_bytecode_holds_the_instructions_the_chapter_names(built_site):
    res = quick_results("interpreters_benchmark")
    assert res["data"]["bytecode"]["plain"] == loop_body_bytecode()  # what this very Python produces
    opnames = {word for line in res["data"]["bytecode"]["plain"].splitlines() for word in line.split()}
    chapter = (ROOT / "docs" / "interpreters.md").read_text()
    named = set(re.findall(r"`([A-Z][A-Z_]{2,})`", chapter))
    assert set(ib.NAMED) <= named
    # names the note gives that are not in this listing: what 3.11 fused, how 3.13 counts
    assert named <= opnames | {"LOAD_FAST__LOAD_FAST", "INSTRUMENTED_INSTRUCTION"}, named - opnames


def test_the_instruction_counts_add_up(built_site):
    data = quick_results("interpreters_benchmark")["data"]
    assert list(data["ladder"]) == list(ib.KEYS)
    counts = data["instructions"]
    assert data["python_instructions"] == (
        counts["fixed"] + counts["positive"] * data["positive"]
        + counts["negative"] * (data["n"] - data["positive"]))
    assert data["operations"] == 6  # gt, exp, mul, sub, where, mul


def test_page_shows_the_listings_numbers_and_quickening(built_site):
    res = quick_results("interpreters_benchmark")
    html = (built_site / "interpreters" / "index.html").read_text()
    assert "FOR_ITER" in html
    if res["data"]["quickening"]["fused"]:
        assert res["data"]["quickening"]["fused"][0] in html  # the superinstructions, in the note
    assert 'src="../measured/interpreters_benchmark/ladder.svg"' in html
    assert str(ROOT) not in html and str(Path.home()) not in html


def test_a_step_across_xlas_inline_threshold_is_named_the_likely_handoff_in_both_editions():
    """Where the call at the largest small n is the first XLA:CPU hands to its threads (by
    XLA's flop count), the step is most likely that handoff; elsewhere, or off the CPU (no
    threshold), the page says it does not explain the step."""
    data = _handoff(sample_data())
    assert ib.report(data).verdicts["jit_small_work"]["handoff"]
    pages = {e: " ".join(t.split()) for e, t in rendered(data).items()}
    assert ("most likely XLA's handoff (not timed on its own here): XLA:CPU runs a program of "
            "under 1,000 flops on the calling thread") in pages["docs"]
    assert "XLA counts 500 flops at n = 100, 5,000 at n = 1,000" in pages["docs"]
    assert "XLA가 일을 넘긴 탓일 가능성이 크다" in pages["docs-ko"]
    assert "n = 100에서 500 flops, n = 1,000에서 5,000 flops로 센다" in pages["docs-ko"]
    for inline in (None, 100):  # another backend; a threshold both sizes pass
        data["small"]["inline_flops"] = inline
        assert not ib.report(data).verdicts["jit_small_work"]["handoff"]
        assert "this chapter does not explain" in " ".join(rendered(data)["docs"].split())
