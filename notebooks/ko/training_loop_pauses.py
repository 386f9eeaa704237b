# ---
# jupyter:
#   translated_from: 7900db82872d
# ---

# %% [markdown]
# # 노트북: 학습 루프(training loop)는 왜 멈칫하나
#
# [학습 루프 장](../../training-loop-pauses/)의 코드를 이 사이트를 빌드하면서 실행한 노트북이다.
# 몇 초 안에 끝나도록 아주 작은 크기로 실행한다. 코드 셀은 `snippets/training_loop_pauses.py`와
# `snippets/deeponet.py`에서 포함했다. 두 장과 그 벤치마크가 쓰는 바로 그 파일들이다. 그래서 이
# 노트북은 다른 파일 없이 혼자 실행된다.

# %% [markdown]
# ## 1. 모델: DeepONet 장의 코드

# %%
# --8<-- "deeponet.py:imports"

# --8<-- "deeponet.py:problem"

# --8<-- "deeponet.py:batches"

# --8<-- "deeponet.py:network"

# --8<-- "deeponet.py:loss"

# --8<-- "deeponet.py:class"

# %% [markdown]
# ## 2. 루프

# %%
# --8<-- "training_loop_pauses.py:imports"

# --8<-- "training_loop_pauses.py:config"

# --8<-- "training_loop_pauses.py:progress_bar"

# --8<-- "training_loop_pauses.py:next_batches"

# --8<-- "training_loop_pauses.py:train"

# --8<-- "training_loop_pauses.py:variants"

# --8<-- "training_loop_pauses.py:reset"

# --8<-- "training_loop_pauses.py:jax_log"

# %% [markdown]
# ## 3. 아주 작은 모델, 그리고 jit하지 않은 평가가 든 루프
#
# 장의 시간은 위의 모델을 `LOOP` 크기로 돌려 잰다. 여기서 쓰는 더 작은 모델은 효과의 모양만
# 몇 초 안에 보여 준다.

# %%
import io  # 여기서는 진행 표시줄을 문자열에 그린다

config = Config(width=8, depth=1, latent=8, batch_size=64, n_functions=16, steps=60)
functions = random_functions(jax.random.key(0), config.n_functions, config.n_sensors)
model = PIDeepONet(config)
params = model.params


def run(name, n_iter=60, log_every=20):
    reset(model, params)
    with jax_log(explain=False) as messages:
        seconds, _, waits = train(model, jax.random.key(1), functions, n_iter,
                                  log_every=log_every, bar_file=io.StringIO(),
                                  **VARIANTS[name])
    logging_its = list(range(0, n_iter, log_every))
    print(f"{name}: iteration 0 took {seconds[0] * 1e3:.0f} ms; later logging iterations "
          + ", ".join(f"{seconds[i] * 1e3:.1f} ms" for i in logging_its[1:])
          + f"; the others {np.median(np.delete(seconds, logging_its)) * 1e3:.2f} ms"
          + " (median)")
    print("  of which waiting for queued steps: "
          + ", ".join(f"{w * 1e3:.1f} ms" for w in waits[1:]))
    names = compiled(messages)
    print(f"  JAX compiled {len(names)} program(s), of which {names.count('step')} step")


run("original")
run("jitted evaluation")

# %% [markdown]
# ## 4. 루프가 프로세서보다 얼마나 앞서 달리나

# %%
# --8<-- "training_loop_pauses.py:in_flight"

# %%
_, batches = next_batches(jax.random.key(2), functions, config.batch_size)
print("steps in flight after each call:", in_flight(model, batches, n=40))

# %% [markdown]
# ## 5. 캐시 키는 NumPy 배열과 jax.Array를 구별한다

# %%
# --8<-- "training_loop_pauses.py:numpy_batch"

# %%
before = PIDeepONet.step._cache_size()
with jax_log() as messages:
    numpy_batches(model, batches)
print(f"compilations of step: {len(compiled(messages, 'step'))}; "
      f"step._cache_size(): {before} -> {PIDeepONet.step._cache_size()}")

# %% [markdown]
# ## 6. jit한 함수가 모두 함께 쓰는 캐시

# %%
# --8<-- "training_loop_pauses.py:cache_sizes"

# %%
for name, size in jit_cache_sizes().items():
    print(f"{name:48s} {size:6,d} entries")

# %% [markdown]
# ## 7. 바뀐 self는 보이지 않고, 인자는 보인다

# %%
# --8<-- "training_loop_pauses.py:stale"

# --8<-- "training_loop_pauses.py:fresh"

# %%
weighted = WeightedDeepONet(config)
before, after = stale_weight(weighted, batches)
print(f"static self: {before:.6g} before, {after:.6g} after ics_weight = 0.0 (stale)")
ten, zero = fresh_weight(weighted.params, batches)
print(f"as an argument: {ten:.6g} with weight 10, {zero:.6g} with weight 0")
