# ---
# jupyter:
#   translated_from: a9e031c35498
# ---

# %% [markdown]
# # 노트북: DeepONet 스텝
#
# [DeepONet 장](../../deeponet/)의 모델을 이 사이트를 빌드하면서 실행한 노트북이다. 몇 초 안에
# 끝나도록 아주 작은 크기로 실행한다(CPU에서는 그 대부분이 스텝을 컴파일하는 시간이다). 모델을
# 정의하는 코드 셀은 `snippets/deeponet.py`에서 포함했다. 장과 그 벤치마크가 쓰는 바로 그
# 파일이다. `.ipynb`를 내려받아(오른쪽 위 버튼) 여러분의 컴퓨터에서 실행해 보자. 장의 크기로
# 돌리려면 `config = DEFAULT`로 바꾸면 된다.

# %%
# --8<-- "deeponet.py:imports"

# %%
# --8<-- "deeponet.py:problem"

# --8<-- "deeponet.py:batches"

# %%
# --8<-- "deeponet.py:network"

# --8<-- "deeponet.py:loss"

# %%
# --8<-- "deeponet.py:class"

# --8<-- "deeponet.py:evaluate"

# %% [markdown]
# ## 1. jit한 스텝
#
# 시간을 재는 호출은 저마다 `block_until_ready`로 결과를 기다리고, 학습할 때처럼 새 `i`를
# 받는다. jit하지 않은 스텝 `PIDeepONet.step.__wrapped__`는 첫 호출 때 프리미티브를 하나씩
# 컴파일하느라 몇 초가 걸린다. 그 시간은 장에서 잰다. `python deeponet.py`는 두 스텝을 모두
# 출력한다.

# %%
config = Config(width=8, depth=1, latent=8, batch_size=32, n_functions=8, n_test=8,
                steps=40)  # 아주 작은 크기: 장의 크기는 DEFAULT
functions = random_functions(jax.random.key(0), config.n_functions, config.n_sensors)
model = PIDeepONet(config)
batches = make_batches(jax.random.key(1), functions, config.batch_size)
new_i = itertools.count()


def seconds(step, n):
    """n번 호출한 시간(초)의 중앙값. 호출마다 새 i를 쓴다."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        jax.block_until_ready(step(next(new_i), model.opt_state, *batches))
        times.append(time.perf_counter() - start)
    return sorted(times)[n // 2]


first = seconds(model.step, 1)  # 스텝 전체를 트레이싱하고 컴파일한다
print(f"{config.batch_size} points per loss term: jitted step, first call "
      f"{first:.2f} s, then {seconds(model.step, 9) * 1e3:.2f} ms (median of 9)")

# %% [markdown]
# ## 2. 짧은 학습, 그리고 정확한 해와의 비교
#
# 장의 학습보다 훨씬 짧아서 오차가 크게 남는다. 학습된 모델이 아니라 루프를 보여 주려는 것이다.

# %%
log = model.train(jax.random.key(2), functions, config.steps, log_every=20)
for row in log:
    print(f"step {row['step']:3d}  ics {row['ics']:.2e}  bcs {row['bcs']:.2e}  "
          f"res {row['res']:.2e}")
held_out = random_functions(jax.random.key(3), config.n_test, config.n_sensors)
errors = relative_l2_errors(model.params, held_out)
print(f"relative L2 error on {len(errors)} held-out inputs: "
      f"mean {float(errors.mean()):.1%}")

# %% [markdown]
# ## 3. 이 노트북을 실행한 환경

# %%
import platform

import jaxlib

print(f"jax {jax.__version__}, jaxlib {jaxlib.__version__}, "
      f"backend {jax.default_backend()}, Python {platform.python_version()}, "
      f"{platform.machine()}")
