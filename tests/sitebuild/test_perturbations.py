"""Pages follow their data: every page of both editions renders from every build snippet's
results changed the ways other machines differ, and each verdict agrees with the numbers it
reads (issue "Built anywhere").

The changes: every timing x3 and x1/3, backend "gpu", one core, and each snippet's own
(`PERTURBATIONS` in tests/test_<snippet>.py: a pair's order swapped, a trend reversed, thread
counts 1 and 16 ...). A data-out snippet (snippets/measurement.py `main(measure, report,
FIGURES)`) is re-reported from the changed data (`report(data)`), so its tables and
verdicts are those the changed machine would have got.
"""

from __future__ import annotations

import copy
import importlib
import json
import re

import pytest
from mkdocs.utils.meta import get_data

import measurement
import page_templates
from project import QUICK_RESULTS, ROOT, build_snippets, uncited_footnotes

EDITIONS = {"en": ROOT / "docs", "ko": ROOT / "docs-ko"}


def data_out(name: str) -> bool:
    return hasattr(importlib.import_module(name), "report")


SETTINGS = {"defaults"}  # JAX's configuration as read by a run: the same on every machine


def scale_timings(data, factor: float):
    """Every float (seconds, and the quartiles and samples of each timing) times factor,
    but JAX's settings (SETTINGS)."""
    if isinstance(data, dict):
        return {k: v if k in SETTINGS else scale_timings(v, factor) for k, v in data.items()}
    if isinstance(data, list):
        return [scale_timings(v, factor) for v in data]
    return data * factor if isinstance(data, float) else data


def own_perturbations(name: str) -> dict:
    try:
        module = importlib.import_module(f"test_{name}")
    except ModuleNotFoundError:
        return {}
    return getattr(module, "PERTURBATIONS", {})


# A TPU v5e, as issue 45 measured it (JAX 0.10.2, 2026-12-05): every jitted SELU call about
# 500 µs whatever n, eager 1.7 ms, NumPy on the host CPU as measured here (so faster at the small
# sizes); SELU's first jitted call 256 ms, 246 of them compiling; the DeepONet step jitted 1.3 ms
# at every batch, un-jitted 970 ms. The host CPU as gVisor shows it; no XLA:CPU thread plan.
TPU = {"backend": "tpu", "device": "TPU v5 lite", "cpu": "AuthenticAMD family 175 model 1 stepping unknown",
       "cores": 13}
JIT, EAGER, FIRST, COMPILING, STEP_JIT, STEP_EAGER = 500e-6, 1.7e-3, 0.256, 0.246, 1.3e-3, 0.97
TPU_TIMINGS = {  # snippet -> path in its data -> seconds (a list of timings: each of them)
    "selu_benchmark": {"docs.jit": JIT, "docs.eager": EAGER, "one.jit": JIT, "one.eager": EAGER,
                       "positive.jit": JIT, "small.jit": JIT, "scaling.jit": JIT, "scaling.scale_jit": JIT,
                       "scaling.eager": EAGER, "first_call.total": FIRST, "first_call.sizes.first": FIRST,
                       "first_call.sizes.compiling": COMPILING},
    "interpreters_benchmark": {"ladder.jit": JIT, "ladder.eager": EAGER, "one.jit": JIT, "one.eager": EAGER,
                               "small.jit": JIT},
    "compilers_benchmark": {"traffic.jit": JIT, "traffic.scale_jit": JIT, "traffic.eager": EAGER},
    "jit_benchmark": {"break_even.jit": JIT, "break_even.eager": EAGER, "break_even.first": FIRST,
                      "break_even.compiling": COMPILING},
    "deeponet_benchmark": {"scaling.jit": STEP_JIT, "scaling.eager": STEP_EAGER, "first_call.total": 4.27},
}
TPU_VALUES = {  # what else a TPU run writes: no thread plan, no YNNPACK, the backend's name
    "selu_benchmark": {"threads.xla": None, "scaling.xla_threads": None, "first_call.compile": COMPILING},
    "interpreters_benchmark": {"threads.xla": None, "agreement.backend": "tpu", "agreement.largest.NumPy": 6.4e-6},
    "jit_benchmark": {"break_even.xla_threads": None},
    "compilers_benchmark": {"backend": "tpu"},
    "deeponet_benchmark": {"backend": "tpu", "first_call.no_ynn": None, "first_call.no_ynn_status": "not_cpu"},
}


def at_seconds(timing: dict, seconds: float) -> dict:
    """A timing moved to a median of `seconds`, its spread (and each process's median) kept relative."""
    factor = seconds / timing["median"]
    return {k: scale_timings(v, factor) if k in ("median", "q1", "q3", "best", "samples", "processes") else v
            for k, v in timing.items()}


def tpu_shaped(name: str, data: dict) -> dict:
    data = copy.deepcopy(data)
    for path, seconds in TPU_TIMINGS.get(name, {}).items():
        *parent, key = path.split(".")
        holder = at(data, ".".join(parent)) if parent else data
        found = holder[key]
        holder[key] = [at_seconds(t, seconds) for t in found] if isinstance(found, list) else at_seconds(found, seconds)
    for path, value in TPU_VALUES.get(name, {}).items():
        *parent, key = path.split(".")
        holder = at(data, ".".join(parent)) if parent else data
        holder[key] = [value] * len(holder[key]) if isinstance(holder[key], list) else value
    return data


def variants(name: str, results: dict) -> dict[str, dict]:
    """name of the change -> results as that machine would have written them."""
    found = {"slower x3": scale_timings(results["data"], 3.0),
             "faster x3": scale_timings(results["data"], 1 / 3),
             "tpu": tpu_shaped(name, results["data"]),
             **{label: change(copy.deepcopy(results["data"])) for label, change in own_perturbations(name).items()}}
    out = {}
    for label, data in found.items():
        report = importlib.import_module(name).report(data)
        out[label] = {**results, **measurement.results_of(data, report, importlib.import_module(name).FIGURES)}
    out["tpu"]["environment"] = {**results["environment"], **TPU}
    gpu = copy.deepcopy(results)
    gpu["environment"].update(backend="gpu", device="NVIDIA H200")
    out["gpu backend"] = gpu
    one_core = copy.deepcopy(results)  # `taskset -c 0 mkdocs build`: "1 core", never "1 cores"
    one_core["environment"]["cores"] = 1
    out["one core"] = one_core
    return out


def at(data, path: str):
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def rederived(verdict: dict, data: dict) -> dict | None:
    """The verdict again, from the numbers it says it reads (None: it names none)."""
    reads = verdict.get("reads")
    if reads is None:
        return None
    if isinstance(reads, list):
        return measurement.compare(at(data, reads[0]), at(data, reads[1]), tuple(verdict["names"]), tuple(reads),
                                   verdict.get("expect"))
    return measurement.trend([v["median"] if isinstance(v, dict) else v for v in at(data, reads)], reads)


# A value the data lacks, printed as Python writes it ("298 (159 to None)"); "None of this" is prose.
MISSING_VALUE = re.compile(r".{0,40}\b(?:None(?! of)|nan|inf)\b.{0,20}")


# A count of one with a plural noun: "1 cores", "1 threads", "1 calls".
ONE_PLURAL = re.compile(r".{0,40}(?<![\d.,])\b1 (?:cores|threads|calls|steps|iterations|sizes|processes|runs)\b")
# Two parentheses in a row, "(… spread) (within …)": a sentence that added its own to a verdict's
# (a name's own call, "Numba @njit(parallel=True) (within …)", has no space in it).
BACK_TO_BACK = re.compile(r".{0,60}\([^()]*\s[^()]*\) ?\(.{0,40}")


# A Korean particle right after a name or number a page fills in ("NumPy가", "jax.jit이",
# "25 ms를", "0.4.31로", "n = 1,000으로"): its form follows the word's last sound read aloud.
_ATTACHED = re.compile(r"((?<![A-Za-z])[A-Za-z]+|(?<![0-9.,])[0-9](?:[0-9,.]*[0-9])?|µs|%)\)?"
                       r"(?:(으로|이|가|은|는|을|를|과|와|로)(?=[^가-힣]|$|의|는|도)|(이었|였)(?=다|고|으며|는데|지만))")
_AFTER_CONSONANT = {"가": "이", "는": "은", "를": "을", "와": "과", "로": "으로", "였": "이었"}
_LETTER_SOUNDS = "-----------lmn---l--------"  # a to z read as letters (엘, 엠, 엔, 알 end in one)
_WORD_SOUNDS = {"jit": "t", "njit": "t", "JAX": "-", "NumPy": "-", "Python": "n", "CPython": "n",
                "compile": "l", "function": "n", "PyTorch": "-", "TensorFlow": "-", "Numba": "-",
                "True": "-", "SELU": "-", "DeepONet": "t", "Adam": "m", "ms": "-",
                "ns": "-", "s": "-", "µs": "-", "%": "-", "jaxlib": "b", "XLA": "-", "YNNPACK": "k"}


def last_sound(word: str) -> str | None:
    """How a name or number read aloud ends: "-" a vowel, "l" ㄹ, else another 받침; None: unknown."""
    if word[0].isdigit():  # 1,000 천; 0.4.23 (영 점 사 점) 이십삼; 1.5 일 점 오
        last = word.replace(",", "").split(".")[-1].lstrip("0") or "0"
        return "p" if last.endswith("0") else "-l-m--kll-"[int(last[-1])]  # 영 십 백 천 만 억 end in one
    if word in _WORD_SOUNDS:
        return _WORD_SOUNDS[word]
    if word.isupper() or len(word) == 1:  # read letter by letter: CPU, IQR, n
        return _LETTER_SOUNDS[ord(word[-1].lower()) - ord("a")]
    return None


def wrong_particles(text: str) -> list[str]:
    """Particles that do not fit the name or number before them ("jax.jit가", "1,000로")."""
    found = []
    for match in _ATTACHED.finditer(text):
        word, particle = match.group(1), match.group(2) or match.group(3)
        opened = text.rfind("(", 0, match.start())
        if match.group(0)[len(word)] == ")" and "=" not in text[opened:match.start()]:
            # a gloss, "사분위 범위(IQR)가", "0.15 ms(jit)로": the particle follows the word before
            # it (a call in a name, "@njit(parallel=True)와", is read to its end)
            before = re.search(r"([A-Za-z]+|[0-9][0-9,.]*)$", text[:opened])
            word = before and before.group(1)
        sound = word and last_sound(word)
        if sound is None or not word:
            continue
        after_vowel = {v: k for k, v in _AFTER_CONSONANT.items()}.get(particle, particle)
        wants = after_vowel if sound == "-" or (sound == "l" and after_vowel == "로") else _AFTER_CONSONANT[after_vowel]
        if particle != wants:
            found.append(text[max(0, match.start() - 30):match.end() + 10])
    return found


def _prose(text: str) -> str:
    """A rendered page's sentences: no code blocks, inline code, tables or link targets."""
    text = re.sub(r"`[^`\n]*`", "", re.sub(r"^[ \t]*```.*?^[ \t]*```", "", text, flags=re.M | re.S))
    return re.sub(r"\]\([^)\s]*\)", "]", re.sub(r"^\s*\|.*$", "", text, flags=re.M))


def pages():
    for edition, folder in EDITIONS.items():
        for path in sorted(folder.glob("*.md")):
            yield edition, path


def render_all(results: dict[str, dict]) -> dict[tuple[str, str], str]:
    out = {}
    for edition, path in pages():
        text, meta = get_data(path.read_text(encoding="utf-8"))
        out[edition, path.name] = page_templates.render(
            text, page=path.name, page_url=path.stem + "/", results=results,
            words=page_templates.load_words(EDITIONS[edition]), page_words=meta.get("words"))
    return out


@pytest.fixture(scope="module")
def measured(built_site) -> dict[str, dict]:
    return {name: json.loads((QUICK_RESULTS / name / "results.json").read_text()) for name in build_snippets()}


def converted() -> list[str]:
    return [name for name in build_snippets() if data_out(name)]


@pytest.mark.parametrize("name", converted())
def test_every_page_renders_and_every_verdict_reads_its_numbers(name, measured):
    for label, changed in variants(name, measured[name]).items():
        for verdict_name, verdict in changed["verdicts"].items():
            again = rederived(verdict, changed["data"])
            assert again is None or again == verdict, f"{name} ({label}): verdict {verdict_name} disagrees with its reads"
        pages = render_all({**measured, name: changed})  # raises PageError naming the page
        for page, text in pages.items():  # MkDocs' strict mode fails on an uncited footnote
            assert not uncited_footnotes(text), f"{name} ({label}): {page}"
            assert not MISSING_VALUE.search(_prose(text)), f"{name} ({label}): {page}: {MISSING_VALUE.search(_prose(text))}"
            assert not BACK_TO_BACK.search(_prose(text)), f"{name} ({label}): {page}: {BACK_TO_BACK.search(_prose(text))}"
            assert not ONE_PLURAL.search(_prose(text)), f"{name} ({label}): {page}: {ONE_PLURAL.search(_prose(text))}"
            if page[0] == "ko":
                assert not wrong_particles(_prose(text)), f"{name} ({label}): {page}: {wrong_particles(_prose(text))}"
        if label == "gpu backend":  # the stamps name the backend and its device
            assert any("gpu (NVIDIA H200)" in text for text in pages.values()), name


def test_a_tpu_build_reads_true_in_both_editions(measured):
    """Every snippet's results TPU-shaped at once (TPU above), as one build on that machine
    would write them: stamps name the device and the host CPU, and no page explains jit
    against NumPy as if both ran on one CPU."""
    tpu = {name: variants(name, results)["tpu"] if data_out(name) else {**results, "environment": {
        **results["environment"], **TPU}} for name, results in measured.items()}
    pages = render_all(tpu)
    for key, text in pages.items():
        prose = _prose(text)
        assert not MISSING_VALUE.search(prose), f"{key}: {MISSING_VALUE.search(prose)}"
        for cpu_only in ("XLA kept the fused loop on one thread", "XLA split the fused loop",
                         "퓨전된 루프를 스레드"):
            assert cpu_only not in prose, f"{key}: {cpu_only!r} on a TPU"
    for edition in EDITIONS:
        stamped = [text for (e, _), text in pages.items() if e == edition and "tpu (TPU v5 lite)" in text]
        assert stamped and all(TPU["cpu"] in text for text in stamped), edition
    assert "XLA ran the fused loop on the TPU v5 lite" in pages["en", "selu.md"]
    assert "XLA는 퓨전된 루프를 TPU v5 lite에서 돌렸고" in pages["ko", "selu.md"]
    for edition, words in (("en", "as the TPU v5 lite\ncomputes it"), ("ko", "정밀도는 TPU v5 lite에서")):
        assert words in pages[edition, "interpreters.md"], edition  # the rungs' agreement, to its precision


@pytest.mark.parametrize("name", converted())
def test_every_verdict_decides_a_sentence_in_both_editions(name, measured):
    """Each compare() verdict, its winner swapped, changes some page of each edition: no
    verdict is computed and then ignored, and no page words one edition's way only. A
    "same" verdict turns "faster" either way (a page may word only the expected winner)."""
    base = render_all(measured)
    results = measured[name]
    for verdict_name, verdict in results["verdicts"].items():
        if "winner" not in verdict:
            continue
        names = verdict["names"]
        swaps = ([dict(kind="faster", winner=w, loser=lo) for w, lo in (names, names[::-1])]
                 if verdict["kind"] == "same" else [dict(kind="same", winner=None, loser=None)])
        changed = []
        for swap in swaps:
            swapped = copy.deepcopy(results)
            swapped["verdicts"][verdict_name].update(swap)
            changed.append(render_all({**measured, name: swapped}))
        for edition in EDITIONS:
            assert any(pages[key] != base[key] for pages in changed for key in base if key[0] == edition), \
                f"{name}: verdict {verdict_name} decides no sentence of the {edition} edition"


@pytest.mark.parametrize("name", converted())
def test_results_hold_data_not_english_sentences(name, measured):
    """No English prose in results.json: numbers, names, verdicts (the words are the pages')."""
    import re

    verbatim = {"cpu", "device", "message", "messages", "error", "errors", "traceback", "captured",
                "code", "hlo", "jaxpr", "warning", "warnings", "source", "explanation", "log"}
    sentence = re.compile(r"[A-Za-z]{2,}[ ,]+[a-z]{2,} [a-z]{2,} [a-z]{2,}")

    def walk(value, key=""):
        if isinstance(value, dict):
            for k, v in value.items():
                if k not in verbatim:
                    yield from walk(v, k)
        elif isinstance(value, list):
            for v in value:
                yield from walk(v, key)
        elif isinstance(value, str) and sentence.search(value):
            yield f"{key}: {value[:80]!r}"

    found = list(walk({k: v for k, v in measured[name].items() if k != "environment"}))
    assert not found, f"{name}'s results.json holds English sentences: " + "; ".join(found)


def test_the_prose_checks_find_what_they_name_and_pass_names_and_code():
    assert BACK_TO_BACK.search("about the same time (medians 1.07× apart) (within the drift)")
    assert BACK_TO_BACK.search("비슷했다(1.5배 이내, 흩어짐 안)(jax.jit은 스레드 1개)")
    assert not BACK_TO_BACK.search("3.3× slower than Numba @njit(parallel=True) (within the drift)")
    assert MISSING_VALUE.search("after 298 (159 to None) calls") and not MISSING_VALUE.search("None of this")
    assert ONE_PLURAL.search("AMD EPYC, 1 cores") and not ONE_PLURAL.search("on 1 core, 11 cores, 2.1 cores")
    assert not BACK_TO_BACK.search(_prose("text\n\n    ```text\n    f(a b) (c)\n    ```\n"))


def test_the_particle_check_reads_names_and_numbers_as_a_korean_reader_does():
    right = ("jax.jit이 NumPy보다 빨랐고, NumPy가 이겼다. 순수 Python은 1,000개에서, n = 1,000으로, 0.4.31로, "
             "0.4.23이 가장 느렸고 25 ms를 썼다. Numba @njit(parallel=True)와 torch.compile과 IQR은 8로, 3으로. "
             "XLA가 CPU를 쓴다. 10이 아니라 7이었다. 2였다. 사분위 범위(IQR)가 0.15 ms(jit)로, 작업(58.7 µs)으로")
    assert wrong_particles(right) == []
    for wrong in ("jax.jit가 ", "NumPy이 ", "1,000로 ", "0.4.31으로 ", "25 ms을 ", "torch.compile와 ",
                  "@njit(parallel=True)과 ", "3로 ", "8으로 ", "IQR는 ", "2 ms(jit)으로 ", "2이었다", "7였다"):
        assert len(wrong_particles(wrong)) == 1, wrong
