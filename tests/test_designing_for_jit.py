"""snippets/designing_for_jit.py: the three designs train to the same parameters; only
design A ignores a changed attribute and compiles again for a new object."""

import pytest

from compilation import count_compilations
from designing_for_jit import (DESIGNS, Adam, PytreeDeepONet, example_batches, explicit_step,
                               max_difference, trained_params, which_weight_was_used)
from deeponet import ICS_WEIGHT
from designing_for_jit import TINY


@pytest.fixture(scope="module")
def batches():
    return example_batches(TINY)


@pytest.fixture(scope="module")
def models():
    return {name: make(TINY) for name, (_, make, _) in DESIGNS.items()}


def test_the_three_designs_give_the_same_parameters_after_a_few_steps(batches, models):
    params = {name: trained_params(name, models[name], TINY, batches, 4) for name in DESIGNS}
    assert max_difference(params["static_self"], params["explicit"]) <= 1e-6
    assert max_difference(params["static_self"], params["pytree"]) <= 1e-6
    initial = trained_params("explicit", models["explicit"], TINY, batches, 0)
    assert max_difference(initial, params["explicit"]) > 0, "the steps changed the parameters"


def test_training_with_a_new_step_counter_compiles_nothing_new(batches, models):
    for name in DESIGNS:
        trained_params(name, models[name], TINY, batches, 1)  # compiled, if it was not yet
        with count_compilations() as compiled:
            trained_params(name, models[name], TINY, batches, 3)
        assert sum(compiled.values()) == 0, (name, compiled)


def test_only_the_static_self_design_ignores_a_changed_attribute(batches, models):
    # The check leaves ics_weight changed on the model it is given: B and C get new objects
    # (no new compilation), A the shared one (a new A object would compile again), restored after.
    used = {}
    for name, (_, make, _) in DESIGNS.items():
        model = models[name] if name == "static_self" else make(TINY)
        used[name] = which_weight_was_used(name, model, TINY, batches)[0]
    models["static_self"].ics_weight = ICS_WEIGHT
    assert used == {"static_self": "old", "explicit": "new", "pytree": "new"}


def test_a_second_object_compiles_again_only_with_static_self(batches, models):
    for name, (_, make, _) in DESIGNS.items():
        trained_params(name, models[name], TINY, batches, 1)  # the first object's step is compiled
        with count_compilations() as compiled:
            trained_params(name, make(TINY), TINY, batches, 1)
        step_compilations = sum(n for fn, n in compiled.items() if "step" in fn)
        assert step_compilations == (1 if name == "static_self" else 0), (name, compiled)


def test_pytree_model_splits_into_traced_arrays_and_static_settings():
    import jax

    model = PytreeDeepONet.create(TINY)
    leaves = jax.tree.leaves(model)
    assert len(leaves) == len(jax.tree.leaves(model.opt_state)) + 1  # the arrays, and ics_weight
    assert not any(isinstance(leaf, Adam) for leaf in leaves)  # the settings are not leaves
    assert jax.tree.map(lambda x: x, model).adam == model.adam  # they travel in the tree's structure


def test_donating_steps_give_the_same_result_and_delete_the_state_given(batches):
    import jax
    import jax.numpy as jnp

    from designing_for_jit import (ExplicitDeepONet, explicit_step_donating,
                                   pytree_step_donating)

    model = ExplicitDeepONet(TINY)
    given = jax.tree.map(jnp.array, model.opt_state)  # a copy, to donate
    donated = explicit_step_donating(0, given, *batches, ICS_WEIGHT, model.adam)
    kept = explicit_step(0, model.opt_state, *batches, ICS_WEIGHT, model.adam)
    assert max_difference(donated, kept) == 0
    assert all(leaf.is_deleted() for leaf in jax.tree.leaves(given))
    assert not any(leaf.is_deleted() for leaf in jax.tree.leaves(model.opt_state))

    pytree = PytreeDeepONet.create(TINY)
    copy = jax.tree.map(jnp.array, pytree)
    new = pytree_step_donating(copy, 0, *batches)
    assert max_difference(new.opt_state, pytree.step(0, *batches).opt_state) == 0
    assert all(leaf.is_deleted() for leaf in jax.tree.leaves(copy.opt_state))
