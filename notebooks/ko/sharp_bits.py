# ---
# jupyter:
#   translated_from: 4f4ed2235ff5
# ---

# %% [markdown]
# # 노트북: jit이 내는 오류
#
# [오류 장](../../sharp-bits/)의 함정과 해법을 이 사이트를 빌드하면서 실행한 노트북이다. 코드
# 셀은 `snippets/sharp_bits.py`에서 포함했다. 함정은 일부러 실패한다. `show`가 오류를 잡아
# 트레이스백의 마지막 줄처럼 출력하므로, 노트북은 처음부터 끝까지 멈추지 않고 실행된다.

# %%
# --8<-- "sharp_bits.py:imports"


def show(call):
    """`call()`을 호출해 그 값을 출력한다. 오류가 나면 그 오류를 출력한다(메시지의 첫 줄,
    그 줄이 콜론으로 끝나면 비어 있지 않은 다음 줄까지)."""
    try:
        print(call())
    except Exception as error:  # 아래의 함정은 일부러 실패한다
        first, *rest = str(error).splitlines() or [""]
        more = [line for line in rest if line.strip()][:1] if first.endswith(":") else []
        print(f"{type(error).__name__}: {first}", *more, sep="\n")


# %% [markdown]
# ## 1. 트레이싱된 값에 쓴 Python if

# %%
# --8<-- "sharp_bits.py:branch_pitfall"

# --8<-- "sharp_bits.py:branch_where"

# --8<-- "sharp_bits.py:branch_cond"

# %%
show(lambda: leaky_relu(-2.0))
show(lambda: leaky_relu_where(jnp.array([-1.0, 2.0])))
show(lambda: leaky_relu_cond(-2.0))

# %% [markdown]
# ## 2. 트레이싱된 값으로 계산한 형태

# %%
# --8<-- "sharp_bits.py:shape_pitfall"

# --8<-- "sharp_bits.py:shape_static"

# %%
show(lambda: mean_on_grid(5))
show(lambda: mean_on_grid_static(5))

# %% [markdown]
# ## 3. Python 정수처럼 쓴 트레이서

# %%
# --8<-- "sharp_bits.py:index_pitfall"

# --8<-- "sharp_bits.py:index_array"

# %%
show(lambda: weighted(10.0, 1))
show(lambda: weighted_array(10.0, 1))

# %% [markdown]
# ## 4. NumPy에 넘긴 트레이서

# %%
# --8<-- "sharp_bits.py:numpy_pitfall"

# --8<-- "sharp_bits.py:numpy_jnp"

# %%
show(lambda: norm(jnp.array([3.0, 4.0])))
show(lambda: norm_jnp(jnp.array([3.0, 4.0])))

# %% [markdown]
# ## 5. 데이터에 따라 크기가 달라지는 불리언 마스크

# %%
# --8<-- "sharp_bits.py:mask_pitfall"

# --8<-- "sharp_bits.py:mask_where"

# %%
show(lambda: positive_sum(jnp.array([-1.0, 2.0, -3.0, 4.0])))
show(lambda: positive_sum_where(jnp.array([-1.0, 2.0, -3.0, 4.0])))

# %% [markdown]
# ## 6. 트레이싱 중에만 실행되는 print와 전역 변수 읽기(오류 없이 낡은 값이 남는다)

# %%
# --8<-- "sharp_bits.py:trace_time_pitfall"

# %%
show(lambda: scaled(1.0))
SCALE = 3.0
show(lambda: scaled(1.0))  # 여전히 2.0: 컴파일된 프로그램이 옛 SCALE을 그대로 쓴다
SCALE = 2.0

# %% [markdown]
# ## 7. 제자리 대입

# %%
# --8<-- "sharp_bits.py:inplace_pitfall"

# --8<-- "sharp_bits.py:inplace_at"

# %%
show(lambda: set_first(jnp.array([1.0, 2.0, 3.0]), 9.0))
show(lambda: set_first_at(jnp.array([1.0, 2.0, 3.0]), 9.0))

# %% [markdown]
# ## 8. 해시할 수 없는 정적 인자

# %%
# --8<-- "sharp_bits.py:unhashable_pitfall"

# --8<-- "sharp_bits.py:unhashable_tuple"

# %%
show(lambda: polynomial(2.0, config={"coefficients": [1.0, 0.0, 3.0]}))
show(lambda: polynomial_tuple(2.0, coefficients=(1.0, 0.0, 3.0)))

# %% [markdown]
# ## 9. 새어 나간 트레이서

# %%
# --8<-- "sharp_bits.py:leak_pitfall"

# %%
show(lambda: step_and_record(1.0))
show(lambda: history[-1] + 1.0)  # 오류는 그다음에 쓸 때 난다

# %% [markdown]
# ## 10. 기부한 배열을 다시 쓰기(실행할 때 나는 오류)

# %%
# --8<-- "sharp_bits.py:donate_pitfall"

# %%
x = jnp.zeros(3)
y = add_one_donated(x)
show(lambda: x + 1.0)
x = add_one_donated(jnp.zeros(3))  # 해법: 결과만 남긴다
show(lambda: x + 1.0)

# %% [markdown]
# ## 11. 트레이싱 중에 펼쳐지는 Python 루프

# %%
# --8<-- "sharp_bits.py:loop_python"

# --8<-- "sharp_bits.py:loop_fori"

# %%
for fn in (euler_unrolled, euler_fori):
    n_equations = len(fn.trace(jnp.float32(0.1), n_steps=100).jaxpr.eqns)
    print(f"{fn.__name__}: {n_equations} jaxpr equations for 100 steps, "
          f"result {float(fn(jnp.float32(0.1), 100)):.6f}")
