"""snippets/frameworks_benchmark.py: what the quick build measured, and what it checked."""

from project import QUICK_RESULTS, quick_results

FOLDER = QUICK_RESULTS / "frameworks_benchmark"
FRAMEWORKS = ("numpy", "numba", "torch", "tensorflow", "jax")


def test_every_framework_ran_and_every_variant_has_numbers(built_site):
    results = quick_results("frameworks_benchmark")
    assert sorted(results["tables"]) == ["agreement", "overview", "selu", "selu_sizes", "setup",
                                 "steps"]
    assert set(results["figures"]) == {"overview"}
    runs = results["data"]["results"]
    assert set(runs) == set(FRAMEWORKS)
    for name, run in runs.items():
        assert run["version"] and run["import_s"] > 0, name
        for label, entry in run["selu"].items():
            assert entry["first"] > 0 and len(entry["timing"]) == 2, (name, label)
    assert set(runs["jax"]["selu"]) == {"eager", "jax.jit"}
    assert set(runs["tensorflow"]["steps"]["physics"]) == {
        "eager", "tf.function", "tf.function(jit_compile=True)"}
    assert not runs["numpy"]["steps"] and not runs["numba"]["steps"]


def test_results_agree_within_the_stated_tolerances(built_site):
    data = quick_results("frameworks_benchmark")["data"]
    tol = data["tolerances"]
    for name, run in data["results"].items():
        for label, entry in run["selu"].items():
            assert max(entry["max_diff"].values()) <= tol["selu"], (name, label)
        for kind, variants in run["steps"].items():
            for label, entry in variants.items():
                if "error" in entry or "skipped" in entry:
                    continue
                assert entry["loss_diff"] <= tol["loss"], (name, label, kind)
                assert entry["param_diff"] <= tol["params"], (name, label, kind)


def test_quick_mode_runs_only_the_cheap_steps_and_says_so(built_site):
    # torch.compile's failure on the physics step is checked by the full build only
    results = quick_results("frameworks_benchmark")
    runs = results["data"]["results"]
    for name, label in (("torch", "eager"), ("tensorflow", "eager"), ("jax", "jax.jit")):
        assert "timing" in runs[name]["steps"]["physics"][label], (name, label)
        assert runs[name]["steps"]["data"][label]["skipped"] == "not measured in quick mode"
    for name, label in (("torch", "torch.compile"), ("jax", "eager"),
                        ("tensorflow", "tf.function(jit_compile=True)")):
        assert "skipped" in runs[name]["steps"]["physics"][label], (name, label)
    assert results["text"]["pi"]["tf_xla"]["vs_jit"] == "not measured in quick mode"
    assert "quick mode" in results["text"]["torch_compile_error"]


def test_text_keys_the_pages_quote(built_site):
    text = quick_results("frameworks_benchmark")["text"]
    for path in ("selu.jax_jit.steady", "selu.torch_compile.vs_jit", "pi.jax_jit.steady",
                 "pi.torch_eager.steady", "pi.torch_eager.vs_jit", "pi.tf_xla.vs_jit",
                 "data.torch_compile.steady", "versions", "selu_fastest", "fastest.pi",
                 "torch_compile_backend"):
        value = text
        for part in path.split("."):
            value = value[part]
        assert value, path
    assert "aot_eager" in text["torch_compile_backend"]  # quick mode says it is cheaper


def test_a_readers_run_prints_the_selu_and_step_tables(built_site):
    stdout = (FOLDER / "stdout.txt").read_text()
    assert "SELU" in stdout and "training step" in stdout
