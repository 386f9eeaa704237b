"""snippets/designing_for_jit_benchmark.py: the facts it checks, and its verdicts from data.

Timings are never asserted; the documented behaviour of each design is a fact of JAX, and the
page's sentences about timings are chosen from them (PERTURBATIONS below).
"""

import copy

import pytest
from mkdocs.utils.meta import get_data

import designing_for_jit_benchmark as djb
import page_templates
from measurement import DocumentationMismatch, results_of
from project import ROOT, quick_results

DESIGNS = ("static_self", "explicit", "pytree")


def _t(seconds):
    return {"median": seconds, "q1": seconds * 0.95, "q3": seconds * 1.05, "best": seconds * 0.9}


def sample_data(steady=(400e-6, 410e-6, 420e-6), difference=0.0, plain=(400e-6, 410e-6),
                donated=(405e-6, 400e-6)):
    """Data as measure(quick=True) writes it."""
    designs = {d: {"first_step": 1.3, "second_model_first_step": 1.2 if d == "static_self" else 8e-4,
                   "compiled_programs": 2 if d == "static_self" else 1, "steady": _t(s),
                   "new_programs_while_training": 0, "weight_used": "old" if d == "static_self" else "new",
                   "distance_to_old_weight": 0.0, "distance_to_new_weight": 0.005,
                   "max_param_difference": 0.0 if d == "static_self" else difference}
               for d, s in zip(DESIGNS, steady)}
    return {"designs": designs, "config": {"width": 8, "depth": 1, "batch_size": 32}, "n_steps": 2,
            "repeats": 5, "old_weight": 10.0, "new_weight": 0.0,
            "donation": {d: {"plain": _t(p), "donated": _t(q)}
                         for d, p, q in zip(("explicit", "pytree"), plain, donated)}}


# The DeepONet chapter's measurement of design A's step, at this page's size (sample_data)
DEEPONET = {"processes": 2, "config": {"batch_size": 32, "width": 8, "depth": 1},
            "scaling": {"batch": [32], "jit": [{"median": 2.34e-3, "q1": 2.3e-3, "q3": 2.4e-3}]},
            "first_call": {"total": {"median": 1.09, "q1": 1.0, "q3": 1.1}, "count": 4}}


def rendered(data, page="designing-for-jit.md"):
    env = {"cpu": "CPU", "cores": 2, "python": "3.11.7", "backend": "cpu", "device": "cpu",
           "date": "2026-12-04", "libraries": {"jax": "0.10.2"}}
    results = {"designing_for_jit_benchmark": {"environment": env, "quick": True,
                                               **results_of(data, djb.report(data), djb.FIGURES)}}
    results["deeponet_benchmark"] = {"environment": env, "quick": True, "data": DEEPONET}
    pages = {}
    for edition in ("docs", "docs-ko"):
        text, meta = get_data((ROOT / edition / page).read_text(encoding="utf-8"))
        pages[edition] = page_templates.render(
            text, page=page, page_url="designing-for-jit/", results=results,
            words=page_templates.load_words(ROOT / edition), page_words=meta.get("words"))
    return {edition: " ".join(text.split()) for edition, text in pages.items()}  # one line


def test_verdicts_follow_the_numbers_whichever_way_they_fall():
    v = djb.report(sample_data()).verdicts
    assert v["steady"]["kind"] == "same" and v["parameters"]["kind"] == "identical"
    v = djb.report(sample_data(steady=(400e-6, 300e-6, 250e-6))).verdicts
    assert (v["steady"]["kind"], v["steady"]["winner"], v["steady"]["loser"]) == ("close", "pytree", "static_self")
    v = djb.report(sample_data(plain=(800e-6, 400e-6), donated=(400e-6, 800e-6))).verdicts
    assert v["donation_explicit"]["winner"] == "donated" and v["donation_pytree"]["winner"] == "plain"
    assert djb.report(sample_data(difference=3e-7)).verdicts["parameters"]["kind"] == "rounding"
    assert djb.report(sample_data(difference=2e-3)).verdicts["parameters"]["kind"] == "differ"


def test_tables_are_words_and_numbers():
    tables = djb.report(sample_data(difference=3e-7)).tables
    assert [row[0] for row in tables["times"].rows] == [{"word": d} for d in DESIGNS]
    assert [row[1:] for row in tables["results"].rows] == [
        [{"word": "reference"}, {"word": "weight_old"}], [3e-7, {"word": "weight_new"}],
        [3e-7, {"word": "weight_new"}]]
    assert tables["results"].fields == {"n_steps": 2, "old": 10.0, "new": 0.0}


def test_the_pages_sentences_follow_the_data_in_both_editions():
    pages = rendered(sample_data())
    assert "three step times are about the same" in pages["docs"]
    assert "세 스텝 시간이 비슷하다" in pages["docs-ko"]
    pages = rendered(sample_data(steady=(400e-6, 300e-6, 250e-6), difference=2e-3,
                                 plain=(800e-6, 400e-6), donated=(400e-6, 800e-6)))
    assert "Design C's step was 1.6× faster than design A's, the slowest" in pages["docs"]
    assert "설계 C의 스텝이 가장 느린 설계 A의 스텝보다 1.6배 빨랐다" in pages["docs-ko"]
    assert "This machine behaved differently" in pages["docs"]  # parameters 0.002 apart
    assert "In design B the donated step was 2× faster; in design C the donated step was 2× slower" in pages["docs"]
    assert "기부한 스텝이 하지 않은 스텝보다 2배 빨랐다" in pages["docs-ko"]
    same = rendered(sample_data())
    assert "In both designs the donated and the undonated step took about the same time, inside this run's spread" in same["docs"]
    apart = rendered(_donation_apart_in_c(sample_data()))
    assert ("The donated and the undonated step took about the same time: in B inside this run's spread, "
            "in C under the 1.1× this site counts as a difference") in apart["docs"]
    assert "(B는 이번 실행의 흩어짐 안, C는 이 사이트가 차이로 치는 1.1배 미만)" in apart["docs-ko"]


def test_the_home_page_words_the_parameters_from_the_verdict():
    for edition, differ in (("docs", "up to 0.002 apart"), ("docs-ko", "최대 0.002만큼 달라졌고")):
        text, _ = get_data((ROOT / edition / "index.md").read_text(encoding="utf-8"))
        start = text.rindex("{%", 0, text.index("designing_for_jit_benchmark.verdicts.parameters"))
        snippet = text[start:text.index("endif %}", start) + len("endif %}")]
        env = page_templates._environment(page_templates.load_words(ROOT / edition))
        for difference, expected in ((0.0, "same parameters" if edition == "docs" else "같은 파라미터"),
                                     (2e-3, differ)):
            data = sample_data(difference=difference)
            out = env.from_string(snippet).render(designing_for_jit_benchmark={
                "data": data, "verdicts": djb.report(data).verdicts})
            assert expected in out, (edition, out)


def test_the_documented_behaviour_is_a_fact_that_stops_the_build():
    data = sample_data()["designs"]
    djb.check_documented_behaviour(data)
    broken = copy.deepcopy(data)
    broken["explicit"]["weight_used"] = "old"
    with pytest.raises(DocumentationMismatch, match="designing.static_self_keeps_the_old_weight"):
        djb.check_documented_behaviour(broken)
    broken = copy.deepcopy(data)
    broken["pytree"]["compiled_programs"] = 2
    with pytest.raises(DocumentationMismatch, match="designing.only_static_self_compiles_a_second_model"):
        djb.check_documented_behaviour(broken)


def _steady(order):
    """Steady steps of A, B, C in this order of speed (the first fastest), 1.5× apart each."""
    def change(data):
        base = min(data["designs"][d]["steady"]["median"] for d in DESIGNS)
        for rank, design in enumerate(order):
            data["designs"][design]["steady"] = _t(base * 1.5 ** rank)
        return data
    return change


def _donation(explicit, pytree):
    """The donated step `factor` times the undonated one, per design."""
    def change(data):
        for design, factor in (("explicit", explicit), ("pytree", pytree)):
            plain = data["donation"][design]["plain"]
            data["donation"][design]["donated"] = {k: v * factor if isinstance(v, float) else v
                                                   for k, v in plain.items()}
        return data
    return change


def _donation_apart_in_c(data):
    """Both donated steps about the same as the undonated, B's ranges overlapping, C's
    apart (under the site's 1.1×, narrow ranges): the two verdicts need different reasons."""
    data = _donation(1.0, 1.0)(data)
    plain = data["donation"]["pytree"]["plain"]["median"]
    for key, median in (("plain", plain), ("donated", plain / 1.06)):
        data["donation"]["pytree"][key] = {"median": median, "q1": median * 0.99,
                                           "q3": median * 1.01, "best": median * 0.98}
    return data


def _difference(value):
    def change(data):
        for design in ("explicit", "pytree"):
            data["designs"][design]["max_param_difference"] = value
        return data
    return change


# The ways other machines differ (tests/sitebuild/test_perturbations.py re-renders every page).
PERTURBATIONS = {
    "design A fastest, C slowest": _steady(("static_self", "explicit", "pytree")),
    "design C fastest, A slowest": _steady(("pytree", "explicit", "static_self")),
    "donation 3x faster in B, 3x slower in C": _donation(1 / 3, 3.0),
    "donation changes nothing": _donation(1.0, 1.0),
    "donation about the same in both, C's ranges apart": _donation_apart_in_c,
    "parameters differ by float32 rounding": _difference(3e-7),
    "parameters differ by more than rounding (a GPU, say)": _difference(2e-3),
}


@pytest.mark.parametrize("label", PERTURBATIONS)
def test_every_perturbation_renders_both_editions(label):
    pages = rendered(PERTURBATIONS[label](sample_data()))
    for text in pages.values():
        assert "None" not in text and "{{" not in text


# ---------------------------------------------------------------- the quick build's run

def test_results_hold_the_tables_and_the_documented_behaviour(built_site):
    r = quick_results("designing_for_jit_benchmark")
    assert sorted(r["tables"]) == ["donation", "results", "times"]
    assert set(r["facts"]) >= {"designing.static_self_keeps_the_old_weight",
                               "designing.only_static_self_compiles_a_second_model",
                               "designing.a_new_step_counter_compiles_nothing",
                               "designing.donation_reuses_the_state",
                               "designing.donation_deletes_what_it_is_given"}
    assert set(r["data"]["donation"]) == {"explicit", "pytree"}


def test_design_page_shows_the_tables_and_the_code_of_each_design(built_site):
    html = (built_site / "designing-for-jit" / "index.html").read_text(encoding="utf-8")
    assert html.count("<table>") >= 4  # static/traced, results, times, donation
    for code in ("static_argnums", "explicit_step", "register_dataclass",
                 "count_compilations", "donate_argnums"):
        assert code in html, code
    assert "faq.html#how-to-use-jit-with-methods" in html
    assert "DocumentationMismatch" not in html


def test_the_steady_steps_are_named_as_this_chapters_own_beside_the_deeponet_chapters():
    pages = rendered(sample_data())
    assert "this chapter's own measurement. First steps are single stopwatch calls, taken A, B, then C" in pages["docs"]
    assert "in 2 processes of their own: 2.34 ms" in pages["docs"]
    assert "the chapter's new `i` at every call runs the same compiled program as `i` = 0 here" in pages["docs"]
    assert "this build does not measure what each of these differences costs" in pages["docs"]
    assert "its [first call](deeponet.md#the-first-call) 1.09 s (median of 4 cold calls)" in pages["docs"]
    assert "이 장이 따로 잰 값이다" in pages["docs-ko"] and "2.34 ms" in pages["docs-ko"]
    assert "[첫 호출](deeponet.md#the-first-call)은 1.09 s였다(캐시를 비운 첫 호출 4번의 중앙값)" in pages["docs-ko"]
