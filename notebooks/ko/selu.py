# ---
# jupyter:
#   translated_from: a097cf74c4d2
# ---

# %% [markdown]
# # 노트북: SELU
#
# [SELU 장](../../selu/)의 코드를 이 사이트를 빌드하면서 실행한 노트북이다. 아래 코드 셀은
# `snippets/selu.py`에서 포함했다. 장과 그 벤치마크가 쓰는 바로 그 파일이다. `.ipynb`를
# 내려받아(오른쪽 위 버튼) 여러분의 컴퓨터에서 실행해 보자. 몇 초 안에 끝나도록 n = 100,000으로
# 실행한다. 장은 1,000,000에서 잰다(견주어 보려면 아래의 `n`을 바꾸면 된다).

# %%
# --8<-- "selu.py:imports"

# --8<-- "selu.py:selu"

# --8<-- "selu.py:selu_numpy"

# %% [markdown]
# ## 1. 입력, 그리고 셋이 같은 값을 내는지 확인

# %%
# --8<-- "selu.py:inputs"

# %%
n = 100_000
x = docs_input(n)
x_np = numpy_input(x)  # JAX가 계산하는 대로 float32
print(x.dtype, x.shape, "->", selu_jit(x).dtype)
print("jit equals eager: ", bool(jnp.allclose(selu(x), selu_jit(x))))
print("jit equals NumPy: ", bool(np.allclose(selu_numpy(x_np), np.asarray(selu_jit(x)))))

# %% [markdown]
# ## 2. block_until_ready로 시간 재기
#
# JAX는 작업이 끝나기 전에 반환한다. 그래서 시간을 재는 호출마다 결과를 기다린다.

# %%
# --8<-- "selu.py:timed_calls"

# %%
import timeit

for name, call, arg in [("eager JAX", eager_call, x), ("jax.jit", jit_call, x),
                        ("NumPy", numpy_call, x_np)]:
    call(arg)  # 워밍업: 첫 호출이 컴파일한다
    timed = timeit.repeat(lambda call=call, arg=arg: call(arg), number=10, repeat=7)
    per_call = sorted(t / 10 for t in timed)
    print(f"{name:10s} median {per_call[3] * 1e3:7.3f} ms   "
          f"best {per_call[0] * 1e3:7.3f} ms")

# %% [markdown]
# ## 3. 첫 호출, 단계별로

# %%
# --8<-- "selu.py:first_call"

# %%
x_random = random_input(n + 1)  # 값 n + 1개: JAX 즉시 실행이 아직 본 적 없는 형태
for stage, seconds in first_call_stages(x_random[:n]).items():
    print(f"{stage:16s} {seconds * 1e3:8.2f} ms")
print(f"eager first call on a new shape: {eager_first_call(x_random) * 1e3:.2f} ms")

# %% [markdown]
# ## 4. 이 노트북을 실행한 환경

# %%
import platform

import jaxlib

print(f"jax {jax.__version__}, jaxlib {jaxlib.__version__}, "
      f"backend {jax.default_backend()}, Python {platform.python_version()}, "
      f"{platform.machine()}")
