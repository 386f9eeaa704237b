"""snippets/frameworks_benchmark.py: what the quick build measured, and what it checked."""

from frameworks_benchmark import machine_factor, step_tables, versus
from measurement import Report, Timing
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
                 "runner_up.pi.name", "runner_up.pi.vs", "pi.jax_eager.first",
                 "torch_compile_backend"):
        value = text
        for part in path.split("."):
            value = value[part]
        assert value, path
    assert "aot_eager" in text["torch_compile_backend"]  # quick mode says it is cheaper


def test_a_readers_run_prints_the_selu_and_step_tables(built_site):
    stdout = (FOLDER / "stdout.txt").read_text()
    assert "SELU" in stdout and "training step" in stdout


def timed(*samples):
    return Timing(list(samples), 1)


def test_versus_says_on_par_when_the_ratio_range_includes_1():
    ref = timed(0.9, 1.0, 1.1)  # quartiles 0.95 and 1.05
    assert versus(timed(2.0, 2.1, 2.2), ref) == "2.1× slower"
    assert versus(timed(0.4, 0.5, 0.6), ref) == "2× faster"
    # the home page reads "TensorFlow with XLA <this>": no "slower" within the noise
    assert versus(timed(0.95, 1.05, 1.2), ref) == "on par (0.95× to 1.2×)"
    assert versus(timed(0.8, 0.9, 1.0), ref) == "on par (0.81× to 1×)"


def test_versus_weighs_which_way_the_machine_drifted_between_the_processes():
    ref = timed(0.9, 1.0, 1.1)  # quartiles 0.95 and 1.05
    # 1.5x faster as measured, but the machine ran 1.6-1.7x faster in t's process
    assert versus(timed(0.6, 0.67, 0.7), ref, machine=(0.59, 0.63)) == (
        "within the machine's drift (0.6× to 0.72×; it ran up to 1.7× faster in that "
        "process)")
    # 2x slower although the machine favoured t: slower all the more
    assert versus(timed(2.0, 2.1, 2.2), ref, machine=(0.59, 0.63)) == "2.1× slower"
    # 2x slower, with the machine 1.7-2.5x slower in t's process: not told apart
    assert versus(timed(2.0, 2.1, 2.2), ref, machine=(1.7, 2.5)).startswith(
        "within the machine's drift (2× to 2.3×; it ran up to 2.5× slower")
    # on par as measured, but a machine 1.7x faster in t's process hides a gap
    assert versus(timed(0.95, 1.05, 1.2), ref, machine=(0.55, 0.6)).startswith(
        "within the machine's drift (0.95× to 1.2×")
    assert versus(timed(0.95, 1.05, 1.2), ref, machine=(0.9, 1.1)) == "on par (0.95× to 1.2×)"


def test_the_machine_factor_compares_two_processes_loops_and_is_1_within_one():
    results = {"jax": {"python_loop": {"start": 2.9e-4, "end": 3.0e-4}},
               "torch": {"python_loop": {"start": 1.8e-4, "end": 1.76e-4}}}
    low, high = machine_factor(results, "torch", "jax")
    assert (low, high) == (1.76e-4 / 3.0e-4, 1.8e-4 / 2.9e-4)  # torch's ran faster
    assert machine_factor(results, "jax", "jax") == (1.0, 1.0)  # sampled in turns


def test_the_fastest_step_names_its_runner_up_and_how_close_it_is():
    def entry(*samples):
        return {"timing": timed(*samples).as_dict(), "first": 1.0}
    loop = {"python_loop": {"start": 3e-4, "end": 3e-4}}  # no drift
    results = {"jax": {**loop, "steps": {
                   "physics": {"jax.jit": entry(0.9, 1.0, 1.1), "eager": entry(9, 10, 11)},
                   "data": {"jax.jit": entry(0.9, 1.0, 1.1), "eager": entry(2.0, 2.1, 2.2)}}},
               "tensorflow": {**loop, "steps": {
                   "physics": {"eager": entry(0.95, 1.05, 1.2)},
                   "data": {"eager": entry(5, 6, 7)}}}}
    report = Report()
    step_tables(report, results, [("tensorflow", "eager"), ("jax", "eager"),
                                  ("jax", "jax.jit")], quick=True)
    assert report.text["fastest"] == {"pi": "JAX jax.jit", "data": "JAX jax.jit"}
    assert report.text["runner_up"] == {
        "pi": {"name": "TensorFlow eager", "vs": "on par (0.95× to 1.2×)"},
        "data": {"name": "JAX eager", "vs": "2.1× slower"}}
    assert report.text["pi"]["tf_eager"]["vs_jit"] == "on par (0.95× to 1.2×)"
