"""Three ways to jit a method, applied to the physics-informed DeepONet of deeponet.py.

A. `self` static: deeponet.PIDeepONet.step, as in the paper's code,
   ``@partial(jit, static_argnums=(0,))``; the object is hashed by identity.
B. State passed explicitly: a module-level jitted function of arrays and settings; the
   class only holds state between steps and calls it.
C. The model as a pytree: a dataclass registered with jax.tree_util.register_dataclass,
   whose arrays are traced and whose settings are static; `step` returns a new model.

All three train the same network from the same initial parameters on the same batches.
Run it to see them agree:  python snippets/designing_for_jit.py
"""

# --8<-- [start:imports]
import itertools
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from jax import grad, jit
from jax.example_libraries import optimizers

from deeponet import (DECAY_RATE, DECAY_STEPS, DEFAULT, ICS_WEIGHT, LEARNING_RATE,
                      SMALL, PIDeepONet, init_params, layer_sizes, loss, make_batches,
                      random_functions)
# --8<-- [end:imports]


# --8<-- [start:adam]
@dataclass(frozen=True)
class Adam:
    """The optimizer's settings; frozen: hashable, compared by value, so static."""

    learning_rate: float = LEARNING_RATE  # the same schedule as PIDeepONet's
    decay_steps: int = DECAY_STEPS
    decay_rate: float = DECAY_RATE

    def triple(self):
        """(opt_init, opt_update, get_params), rebuilt from the settings (cheap)."""
        schedule = optimizers.exponential_decay(self.learning_rate, self.decay_steps,
                                                self.decay_rate)
        return optimizers.adam(schedule)
# --8<-- [end:adam]


# --8<-- [start:explicit]
@partial(jit, static_argnames="adam")
def explicit_step(i, opt_state, ics_batch, bcs_batch, res_batch, ics_weight, adam):
    """Everything the step reads is an argument: arrays traced, settings static."""
    _, opt_update, get_params = adam.triple()
    params = get_params(opt_state)
    g = grad(loss)(params, ics_batch, bcs_batch, res_batch, ics_weight)
    return opt_update(i, g, opt_state)


class ExplicitDeepONet:
    """Holds the state between steps; the compiled step sees only its arguments."""

    def __init__(self, config=DEFAULT, key=None, adam=Adam(), ics_weight=ICS_WEIGHT):
        key = jax.random.key(config.seed) if key is None else key
        self.config, self.adam, self.ics_weight = config, adam, ics_weight
        self.opt_init, _, self.get_params = adam.triple()
        self.opt_state = self.opt_init(init_params(key, *layer_sizes(config)))
        self.itercount = itertools.count()

    def step(self, i, opt_state, ics_batch, bcs_batch, res_batch):  # as the original
        return explicit_step(i, opt_state, ics_batch, bcs_batch, res_batch,
                             self.ics_weight, self.adam)
# --8<-- [end:explicit]


# --8<-- [start:pytree]
@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class PytreeDeepONet:
    opt_state: Any  # a pytree of arrays: traced
    ics_weight: float  # a number you may change between steps: traced too
    adam: Adam = field(default=Adam(), metadata=dict(static=True))  # in the cache key

    @classmethod
    def create(cls, config=DEFAULT, key=None, adam=Adam(), ics_weight=ICS_WEIGHT):
        key = jax.random.key(config.seed) if key is None else key
        opt_init, _, _ = adam.triple()
        return cls(opt_init(init_params(key, *layer_sizes(config))), ics_weight, adam)

    @property
    def params(self):
        return self.adam.triple()[2](self.opt_state)

    @jit  # self is an ordinary argument now: a pytree, flattened into its arrays
    def step(self, i, ics_batch, bcs_batch, res_batch):
        _, opt_update, get_params = self.adam.triple()
        g = grad(loss)(get_params(self.opt_state), ics_batch, bcs_batch, res_batch,
                       self.ics_weight)
        return replace(self, opt_state=opt_update(i, g, self.opt_state))  # a new model
# --8<-- [end:pytree]


# --8<-- [start:donate]
# The same steps, donating the optimizer state: XLA may write the new state into the
# old one's memory, and the old arrays are deleted (using them again raises).
explicit_step_donating = jit(explicit_step.__wrapped__, static_argnames="adam",
                             donate_argnums=(1,))  # opt_state
pytree_step_donating = jit(PytreeDeepONet.step.__wrapped__,
                           donate_argnums=(0,))  # the model: its arrays
# --8<-- [end:donate]


# --8<-- [start:train_loops]
def train_static_self(model, batches, n_steps):  # A: the paper's loop
    for _ in range(n_steps):
        model.opt_state = model.step(next(model.itercount), model.opt_state, *batches)
    return model.get_params(model.opt_state)


def train_explicit(model, batches, n_steps):  # B: the same loop, another step inside
    for _ in range(n_steps):
        model.opt_state = model.step(next(model.itercount), model.opt_state, *batches)
    return model.get_params(model.opt_state)


def train_pytree(model, batches, n_steps):  # C: each step returns the next model
    for i in range(n_steps):
        model = model.step(i, *batches)
    return model.params
# --8<-- [end:train_loops]


# A tiny network for tests, quick builds and the demo: the designs compare the same way
# at any size, and a tiny network compiles fastest.
TINY = replace(SMALL, width=8, depth=1, latent=8, batch_size=32)

DESIGNS = {
    "static_self": ("A. self static", PIDeepONet, train_static_self),
    "explicit": ("B. state explicit", ExplicitDeepONet, train_explicit),
    "pytree": ("C. pytree", lambda config: PytreeDeepONet.create(config), train_pytree),
}


@partial(jit, static_argnames=("config", "seed"))  # one compilation, not many
def example_batches(config, seed=1):
    """One fixed batch of each kind, from fixed seeds (the same for every design)."""
    key = jax.random.key(seed)
    functions = random_functions(key, config.n_functions, config.n_sensors)
    return make_batches(jax.random.key(seed + 1), functions, config.batch_size)


def restart(design, model, config):
    """The model back at its initial parameters, keeping the object where that matters
    (A: a new object would compile its step again). Returns the model to use."""
    if design == "pytree":
        return PytreeDeepONet.create(config, adam=model.adam,
                                     ics_weight=model.ics_weight)
    key = jax.random.key(config.seed)
    model.opt_state = model.opt_init(init_params(key, *layer_sizes(config)))
    model.itercount = itertools.count()
    return model


def trained_params(design, model, config, batches, n_steps):
    """Parameters after `n_steps` steps of one design's model, from the config seed."""
    _, _, train = DESIGNS[design]
    return train(restart(design, model, config), batches, n_steps)


def max_difference(a, b):
    """Largest absolute difference between two parameter pytrees of one structure."""
    return float(_max_difference(a, b))


@jit
def _max_difference(a, b):
    pairs = zip(jax.tree.leaves(a), jax.tree.leaves(b))
    return jnp.max(jnp.stack([jnp.max(jnp.abs(x - y)) for x, y in pairs]))


# --8<-- [start:stale]
def change_weight_between_steps(design, model, batches, new_weight=0.0):
    """Step, set model.ics_weight = new_weight, step again: the second step's state."""
    if design != "pytree":  # A and B: the paper's calling convention
        model.opt_state = model.step(0, model.opt_state, *batches)
        model.ics_weight = new_weight  # A: self static, hashed by identity: no trace
        return model.step(1, model.opt_state, *batches)
    model = model.step(0, *batches)  # C: frozen, so a changed weight is a changed copy
    model = replace(model, ics_weight=new_weight)
    return model.step(1, *batches).opt_state
# --8<-- [end:stale]


def second_step_with_weight(config, batches, weight):
    """Reference: two explicit steps, the second with `weight` (design B's code)."""
    model = ExplicitDeepONet(config)
    opt_state = model.step(0, model.opt_state, *batches)
    return explicit_step(1, opt_state, *batches, weight, model.adam)


def which_weight_was_used(design, model, config, batches, old=ICS_WEIGHT, new=0.0):
    """Run change_weight_between_steps on a restarted `model` (which keeps ics_weight =
    new afterwards), and compare with steps known to use the old or the new weight."""
    model = restart(design, model, config)
    state = change_weight_between_steps(design, model, batches, new)
    get = Adam().triple()[2]
    got = get(state)
    d_old = max_difference(got, get(second_step_with_weight(config, batches, old)))
    d_new = max_difference(got, get(second_step_with_weight(config, batches, new)))
    return ("new" if d_new < d_old else "old"), d_old, d_new


if __name__ == "__main__":
    config = TINY
    batches = example_batches(config)
    models = {name: make(config) for name, (_, make, _) in DESIGNS.items()}
    params = {name: trained_params(name, models[name], config, batches, 3)
              for name in DESIGNS}
    for name in ("explicit", "pytree"):
        print(f"{DESIGNS[name][0]} against A after 3 steps: largest difference "
              f"{max_difference(params['static_self'], params[name]):.2e}")
    for name in DESIGNS:
        used, _, _ = which_weight_was_used(name, models[name], config, batches)
        print(f"{DESIGNS[name][0]}: after model.ics_weight changed, the next step used "
              f"the {used} weight")
