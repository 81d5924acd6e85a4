"""FusedProgram against the same primitives run one by one through ember's eager dispatch."""

from __future__ import annotations

import random
import threading
import warnings

import numpy as np
import pytest

import ember
from ember.dispatch import OP_REGISTRY, dispatch
from ember.graph.elementwise import is_elementwise
from ember.graph.run.fused import FusedProgram

OPS = OP_REGISTRY


def eager(steps, in_arrays, outputs):
    """The reference: each step's primitive through eager dispatch, on ember tensors (the
    steps that an output needs, as a graph runs them)."""
    needed = set(outputs)
    for j in range(len(steps) - 1, -1, -1):
        if j in needed:
            needed.update(i for kind, i in steps[j][1] if kind == "step")
    values = [ember.from_numpy(a) for a in in_arrays]
    results = []
    for j, (op, args, attrs) in enumerate(steps):
        ins = tuple(values[i] if kind == "in" else results[i] for kind, i in args)
        results.append(dispatch(op, ins, dict(attrs))[0] if j in needed else None)
    return [results[o].numpy() for o in outputs]


def check(steps, in_arrays, outputs, **kw):
    prog = FusedProgram(steps, [(a.shape, ember.from_numpy(np.ascontiguousarray(a)).dtype) for a in in_arrays], outputs, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow in the fast add/mul paths, eager alike
        got = prog(list(in_arrays))
        want = eager(steps, in_arrays, outputs)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_array_equal(g, w)
    return prog, got


def chain(n_in=3):
    """relu(a * b + c) * 0.5"""
    return [
        (OPS["mul"], (("in", 0), ("in", 1)), {}),
        (OPS["add"], (("step", 0), ("in", 2)), {}),
        (OPS["relu"], (("step", 1),), {}),
        (OPS["mul_scalar"], (("step", 2),), {"other": 0.5}),
    ]


def randn(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------------------
# is_elementwise


@pytest.mark.parametrize(
    "name", ["relu", "add", "mul", "mul_scalar", "add_scalar", "sigmoid", "tanh", "exp", "where", "eq", "clamp"]
)
def test_elementwise_ops_are_in(name):
    assert is_elementwise(OPS[name])


@pytest.mark.parametrize(
    "name", ["sum", "matmul", "view", "softmax", "real", "imag", "dropout", "cumsum", "expand", "masked_select"]
)
def test_other_ops_are_out(name):
    assert not is_elementwise(OPS[name])


def test_is_elementwise_refuses_non_ops():
    assert not is_elementwise("relu")
    assert not is_elementwise(None)


# attributes for probing the inference rules of the ops that take some
PROBE_ATTRS = {
    "gelu": {"approximate": "none"},
    "softplus": {"beta": 1.0, "threshold": 20.0},
    "elu": {"alpha": 1.0},
    "leaky_relu": {"negative_slope": 0.01},
    "hardtanh": {"min_val": -1.0, "max_val": 1.0},
    "round": {"decimals": 0},
    "nan_to_num": {"nan": 0.0, "posinf": None, "neginf": None},
    "clamp": {"min": 0.0, "max": 1.0},
    "add_alpha": {"alpha": 2},
    "lerp_scalar": {"weight": 0.5},
    "isclose": {"rtol": 1e-5, "atol": 1e-8, "equal_nan": False},
    "polygamma": {"n": 1},
    "mvlgamma": {"p": 2},
}


def test_every_elementwise_op_infers_the_broadcast_shape():
    """The derived criterion against each op's own inference rule: broadcast inputs in, the
    broadcast shape out (a reduction or shape op let in by mistake fails here)."""
    ops = [op for op in OPS.values() if is_elementwise(op)]
    assert len(ops) > 90
    shapes = [(4, 1, 3), (5, 1), (3,)]
    for op in ops:
        n = len(op.inputs)
        tries = [
            (PROBE_ATTRS.get(op.name, {"other": other} if op.name.endswith("_scalar") else {}), dtype)
            for other in (2, 2.0)
            for dtype in (ember.float64, ember.int64, ember.bool, ember.complex128)
        ]
        for attrs, dtype in tries:  # the first attributes and dtype the op takes
            first = ember.bool if op.name == "where" else dtype
            metas = [ember.empty(shapes[k % 3], dtype=first if k == 0 else dtype, device="meta") for k in range(n)]
            try:
                ((shape, _),) = op.infer(attrs, *metas)
            except TypeError:
                continue
            assert tuple(shape) == np.broadcast_shapes(*[m.shape for m in metas]), op.name
            break
        else:
            raise AssertionError(f"{op.name}: no dtype to probe")


# ---------------------------------------------------------------------------------------
# the mechanism on fixed cases


def test_chain_whole_and_chunked_match_eager():
    a, b, c = randn(1000, seed=1), randn(1000, seed=2), randn(1000, seed=3)
    prog, _ = check(chain(), [a, b, c], [3])
    assert prog.mode == "whole"
    prog, _ = check(chain(), [a, b, c], [3], chunk_bytes=256)  # 64 float32 per chunk: 16 chunks
    assert prog.mode == "chunked"
    (plan,) = prog._plans.values()
    assert len(plan.chunks) == 16 and plan.shape == (1000,)
    assert plan.chunks[-1][1] == (1000 - 15 * 63,) != plan.chunks[0][1]  # near-equal blocks, ragged last


def test_many_chunks_ragged_2d_non_contiguous():
    x = randn((53, 37), seed=4).T  # (37, 53), transposed: strides (4, 148)
    y = randn((37, 53), np.float64, seed=5)
    steps = [
        (OPS["mul"], (("in", 0), ("in", 1)), {}),
        (OPS["tanh"], (("step", 0),), {}),
        (OPS["sub_scalar"], (("step", 1),), {"other": 0.25}),
        (OPS["gt"], (("step", 2), ("in", 0)), {}),
        (OPS["where"], (("step", 3), ("step", 1), ("in", 0)), {}),
    ]
    prog, _ = check(steps, [x, y], [4, 3], chunk_bytes=8 * 50)
    (plan,) = prog._plans.values()
    assert len(plan.chunks) > 30


def test_bias_broadcast_chunks_rows():
    x, bias = randn((64, 200), seed=6), randn(200, seed=7)
    steps = [(OPS["add"], (("in", 0), ("in", 1)), {}), (OPS["relu"], (("step", 0),), {})]
    prog, _ = check(steps, [x, bias], [1], chunk_bytes=4 * 1000)
    (plan,) = prog._plans.values()
    assert plan.shape == (64, 200)  # the bias's zero stride along rows keeps two dimensions
    assert plan.chunks[0][1] == (5, 200)
    prog, _ = check(steps, [x, x[:1]], [1], chunk_bytes=4 * 1000)  # a (1, 200) input
    check(steps, [x, np.float32(3.0) * np.ones((64, 1), np.float32)], [1], chunk_bytes=4 * 300)  # a column


def test_contiguous_chain_collapses_to_one_axis():
    x, y = randn((8, 9, 10), seed=8), randn((8, 9, 10), seed=9)
    prog, _ = check([(OPS["add"], (("in", 0), ("in", 1)), {})], [x, y], [0], chunk_bytes=4 * 100)
    assert next(iter(prog._plans.values())).shape == (720,)


def test_steps_smaller_than_the_output_run_whole_first():
    x, bias = randn((30, 20), seed=10), randn((20,), seed=11)
    steps = [
        (OPS["exp"], (("in", 1),), {}),  # (20,)
        (OPS["mul_scalar"], (("step", 0),), {"other": 2}),  # (20,)
        (OPS["add"], (("in", 0), ("step", 1)), {}),  # (30, 20)
        (OPS["sigmoid"], (("step", 2),), {}),
    ]
    prog, got = check(steps, [x, bias], [3, 1, 0], chunk_bytes=4 * 64)
    assert prog.mode == "chunked" and [g.shape for g in got] == [(30, 20), (20,), (20,)]


def test_zero_d_and_empty():
    s = np.array(2.5, np.float32)
    check(chain(), [s, s, np.array(-9.0, np.float32)], [3])  # a 0-d program
    check(chain(), [randn((5, 4)), s, randn(4)], [3], chunk_bytes=16)  # 0-d inputs, chunked
    e = np.zeros((0, 7), np.float32)
    _, (out,) = check(chain(), [e, e, randn(7)], [3], chunk_bytes=16)
    assert out.shape == (0, 7)
    # an empty result next to a non-empty one
    steps = [(OPS["neg"], (("in", 1),), {}), (OPS["add"], (("in", 0), ("step", 0)), {})]
    check(steps, [e, randn(7)], [1, 0])


def test_mixed_dtypes():
    i = np.arange(-50, 50, dtype=np.int32)
    f = randn(100, seed=12)
    b = np.arange(100) % 3 == 0
    steps = [
        (OPS["mul"], (("in", 0), ("in", 2)), {}),  # int32 * bool -> int32
        (OPS["add"], (("step", 0), ("in", 1)), {}),  # -> float32
        (OPS["div_scalar"], (("in", 0),), {"other": 7}),  # int / int -> float32 (default)
        (OPS["maximum"], (("step", 1), ("step", 2)), {}),
        (OPS["lt_scalar"], (("step", 3),), {"other": 0.0}),  # bool
        (OPS["logical_and"], (("step", 4), ("in", 2)), {}),
        (OPS["where"], (("step", 5), ("in", 0), ("step", 3)), {}),  # int32 | float32
        (OPS["add_scalar"], (("in", 0),), {"other": 3}),  # stays int32
    ]
    for chunk in (1 << 20, 40):
        _, got = check(steps, [i, f, b], [6, 5, 7, 0], chunk_bytes=chunk)
        assert [g.dtype for g in got] == [np.float32, np.bool_, np.int32, np.int32]


def test_float64_scalar_keeps_float32_and_weak_scalars():
    x = randn(300, seed=13)
    steps = [(OPS["mul_scalar"], (("in", 0),), {"other": 1e-3}), (OPS["pow_scalar"], (("step", 0),), {"other": 2})]
    _, (out,) = check(steps, [x], [1], chunk_bytes=64)
    assert out.dtype == np.float32


def test_integer_division_by_zero_raises_as_eager():
    x = np.arange(10, dtype=np.int64)
    steps = [(OPS["floor_divide"], (("in", 0), ("in", 1)), {})]
    prog = FusedProgram(steps, [((10,), ember.int64), ((10,), ember.int64)], [0], chunk_bytes=16)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        prog([x, x])
    np.testing.assert_array_equal(prog([x, x + 1])[0], x // (x + 1))  # the program still works after


def test_out_arrays():
    a, b, c = randn(500, seed=14), randn(500, seed=15), randn(500, seed=16)
    want = eager(chain(), [a, b, c], [3])[0]
    for chunk in (1 << 20, 64):
        prog = FusedProgram(chain(), [((500,), ember.float32)] * 3, [3], chunk_bytes=chunk)
        out = np.full(500, np.nan, np.float32)
        assert prog([a, b, c], [out])[0] is out
        np.testing.assert_array_equal(out, want)
        strided = np.zeros(1000, np.float32)[::2]  # a non-contiguous output
        prog([a, b, c], [strided])
        np.testing.assert_array_equal(strided, want)
        a2 = a.copy()  # the output is an input: the result is still the eager one
        prog([a2, b, c], [a2])
        np.testing.assert_array_equal(a2, want)


def test_out_arrays_are_checked():
    prog = FusedProgram(chain(), [((5,), ember.float32)] * 3, [3])
    x = randn(5)
    with pytest.raises(ValueError, match="output 0 must be an array of shape"):
        prog([x, x, x], [np.empty(5, np.float64)])
    with pytest.raises(ValueError, match="expected 1 output arrays"):
        prog([x, x, x], [])
    ro = np.empty(5, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        prog([x, x, x], [ro])


def test_inputs_are_checked():
    prog = FusedProgram(chain(), [((5,), ember.float32)] * 3, [3])
    x = randn(5)
    with pytest.raises(ValueError, match="expected 3 input arrays"):
        prog([x, x])
    with pytest.raises(ValueError, match=r"input 1 must have shape \(5,\) and dtype float32"):
        prog([x, x.astype(np.float64), x])
    with pytest.raises(ValueError, match="input 2 must have shape"):
        prog([x, x, randn(6)])
    with pytest.raises(TypeError, match="must be a NumPy array"):
        prog([x, x, [1.0] * 5])


def test_construction_errors():
    spec = [((3,), ember.float32)]
    with pytest.raises(ValueError, match=r"'sum'.* is not an elementwise primitive"):
        FusedProgram([(OPS["sum"], (("in", 0),), {"dim": None, "keepdim": False, "dtype": None})], spec, [0])
    with pytest.raises(ValueError, match="bad reference"):
        FusedProgram([(OPS["relu"], (("step", 0),), {})], spec, [0])
    with pytest.raises(ValueError, match="takes 2 inputs, got 1"):
        FusedProgram([(OPS["add"], (("in", 0),), {})], spec, [0])
    with pytest.raises(ValueError, match="not a step index"):
        FusedProgram([(OPS["relu"], (("in", 0),), {})], spec, [1])
    with pytest.raises(ValueError, match="twice"):
        FusedProgram([(OPS["relu"], (("in", 0),), {})], spec, [0, 0])
    with pytest.raises(TypeError, match="relu"):  # the op's own dtype check, at construction
        FusedProgram([(OPS["relu"], (("in", 0),), {})], [((3,), ember.bool)], [0])
    with pytest.raises(RuntimeError, match="must match"):  # shapes that do not broadcast
        FusedProgram([(OPS["add"], (("in", 0), ("in", 1)), {})], [((3,), ember.float32), ((4,), ember.float32)], [0])


def test_dead_steps_are_dropped_and_scratch_is_shared():
    steps = [
        *chain(),
        (OPS["exp"], (("in", 0),), {}),  # dead
        (OPS["neg"], (("step", 3),), {}),
    ]
    prog = FusedProgram(steps, [((100,), ember.float32)] * 3, [5])
    assert [op.name for op, _ in prog.steps] == ["mul", "add", "relu", "mul_scalar", "neg"]
    # mul -> add -> relu -> mul_scalar run in one buffer (in place)
    assert len(prog._whole_keys) == 1
    prog = FusedProgram(steps, [((100,), ember.float32)] * 3, [5], chunk_bytes=64)
    assert len(prog._chunk_keys) == 1


@pytest.mark.parametrize("chunk_bytes", [64, 1 << 20])
def test_every_step_runs_its_ops_own_kernel(chunk_bytes):
    prog = FusedProgram(chain(), [((1000,), ember.float32)] * 3, [3], chunk_bytes=chunk_bytes)
    kernels = [kernel for kernel, _, _, _ in prog._pre + prog._main]
    assert kernels == [OPS[name].kernels["cpu"] for name in ("mul", "add", "relu", "mul_scalar")]
    x = np.array([np.nan, -0.0, 0.0, -np.inf, 2.0] * 200, np.float32)
    one = np.ones(1000, np.float32)
    got = prog([x, one, -0.0 * one])[0]
    want = eager(chain(), [x, one, -0.0 * one], [3])[0]
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))  # NaN and signed zeros bit for bit


def test_repeated_calls_reuse_scratch_but_not_outputs():
    prog = FusedProgram(chain(), [((100,), ember.float32)] * 3, [3], chunk_bytes=64)
    a, b, c = randn(100, seed=17), randn(100, seed=18), randn(100, seed=19)
    first = prog([a, b, c])[0]
    keep = first.copy()
    second = prog([b, c, a])[0]
    assert first is not second
    np.testing.assert_array_equal(first, keep)
    np.testing.assert_array_equal(second, eager(chain(), [b, c, a], [3])[0])
    assert len(prog._pool) == 1


def test_threads_take_their_own_scratch():
    n = 4000
    prog = FusedProgram(chain(), [((n,), ember.float32)] * 3, [3], chunk_bytes=1024)
    inputs = [[randn(n, seed=100 + 3 * t + k) for k in range(3)] for t in range(4)]
    wants = [eager(chain(), ins, [3])[0] for ins in inputs]
    errors = []

    def work(t):
        for _ in range(30):
            got = prog(inputs[t])[0]
            if not np.array_equal(got, wants[t]):
                errors.append(t)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors


def test_large_output_uses_the_allocator():
    n = (4 << 20) // 4 + 3  # just over the huge-page threshold
    prog = FusedProgram([(OPS["add_scalar"], (("in", 0),), {"other": 1.0})], [((n,), ember.float32)], [0])
    x = np.zeros(n, np.float32)
    (out,) = prog([x])
    assert out.base is not None and out.flags.c_contiguous and (out == 1).all()


# ---------------------------------------------------------------------------------------
# random chains

UNARY = ["relu", "neg", "abs", "exp", "tanh", "sigmoid", "sqrt", "square", "floor", "sign", "logical_not", "isnan", "bitwise_not"]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "eq", "lt", "logical_and", "bitwise_xor", "atan2", "remainder"]
SCALAR = [("add_scalar", 1.5), ("mul_scalar", 2), ("sub_scalar", 1), ("pow_scalar", 2), ("gt_scalar", 0.0), ("clamp", None)]
DTYPES = [np.float32, np.float64, np.int32, np.bool_]


def _random_array(rng, shape, dtype, nprng):
    if dtype == np.bool_:
        a = np.asarray(nprng.random(shape) < 0.5)
    elif np.issubdtype(dtype, np.integer):
        a = np.asarray(nprng.integers(-5, 6, shape)).astype(dtype)
    else:
        a = np.asarray(nprng.standard_normal(shape) * 3).astype(dtype)
    kind = rng.random()
    if kind < 0.2 and a.ndim >= 2:  # transposed memory
        a = np.ascontiguousarray(np.swapaxes(a, 0, 1)).swapaxes(0, 1)
    elif kind < 0.35 and a.ndim >= 1:  # every other element
        big = np.repeat(a, 2, axis=-1)
        a = big[..., ::2]
        assert not a.flags.c_contiguous or a.size <= 1
    elif kind < 0.45 and a.ndim >= 1:  # reversed
        a = np.ascontiguousarray(a[..., ::-1])[..., ::-1]
    return a


def _broadcast_variant(rng, shape):
    """A shape that broadcasts to ``shape``: leading dims dropped, some dims set to 1."""
    r = rng.random()
    if r < 0.1:
        return ()
    drop = rng.randrange(len(shape) + 1) if r < 0.3 else 0
    return tuple(1 if rng.random() < 0.25 else d for d in shape[drop:])


SHAPES = [(), (0,), (7,), (1,), (5, 4), (3, 0, 2), (2, 3, 4), (37, 53), (1000,), (6, 1, 25), (3, 64, 5)]


def _random_program(rng, nprng):
    shape = rng.choice(SHAPES)
    n_in = rng.randint(1, 3)
    in_shapes = [shape] + [_broadcast_variant(rng, shape) for _ in range(n_in - 1)]
    rng.shuffle(in_shapes)
    arrays = [_random_array(rng, s, rng.choice(DTYPES), nprng) for s in in_shapes]
    metas = [ember.empty(a.shape, dtype=ember.from_numpy(np.ascontiguousarray(a)).dtype, device="meta") for a in arrays]
    refs = [("in", i) for i in range(n_in)]
    steps = []
    while len(steps) < rng.randint(1, 8):
        kind = rng.random()
        if kind < 0.4:
            op, args, attrs = OPS[rng.choice(UNARY)], (rng.choice(refs),), {}
        elif kind < 0.75:
            op, args, attrs = OPS[rng.choice(BINARY)], (rng.choice(refs), rng.choice(refs)), {}
        elif kind < 0.9:
            name, value = rng.choice(SCALAR)
            op = OPS[name]
            attrs = {"min": -1, "max": 2} if name == "clamp" else {"other": value}
            args = (rng.choice(refs),)
        else:
            op, args, attrs = OPS["where"], (rng.choice(refs), rng.choice(refs), rng.choice(refs)), {}
        ins = [metas[i] if k == "in" else metas[n_in + i] for k, i in args]
        if op.name == "where" and ins[0].dtype != ember.bool:
            continue
        try:
            ((s, d),) = op.infer(attrs, *ins)
        except (TypeError, RuntimeError):  # the op refuses these dtypes: draw another
            continue
        metas.append(ember.empty(s, dtype=d, device="meta"))
        refs.append(("step", len(steps)))
        steps.append((op, args, attrs))
    n = len(steps)
    outputs = sorted(rng.sample(range(n), rng.randint(1, min(3, n))))
    if n - 1 not in outputs:
        outputs.append(n - 1)
    return steps, arrays, outputs


@pytest.mark.parametrize("seed", range(6))
def test_random_chains_match_eager(seed):
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    for _ in range(80):
        steps, arrays, outputs = _random_program(rng, nprng)
        chunk = rng.choice([1 << 20, 64, 200, 24])
        try:
            eager(steps, arrays, outputs)
        except RuntimeError as e:  # integer remainder by zero: the program must raise alike
            assert "ZeroDivisionError" in str(e)
            prog = FusedProgram(steps, [(a.shape, ember.from_numpy(np.ascontiguousarray(a)).dtype) for a in arrays], outputs)
            with pytest.raises(RuntimeError, match="ZeroDivisionError"):
                prog(arrays)
            continue
        check(steps, arrays, outputs, chunk_bytes=chunk)


def test_random_chains_can_fail(monkeypatch):
    """The comparison notices a wrong kernel: a program built while mul's kernel is add's."""
    a, b = randn(100, seed=20), randn(100, seed=21)
    steps = [(OPS["mul"], (("in", 0), ("in", 1)), {})]
    with monkeypatch.context() as m:
        m.setitem(OPS["mul"].kernels, "cpu", OPS["add"].kernels["cpu"])
        prog = FusedProgram(steps, [((100,), ember.float32)] * 2, [0], chunk_bytes=64)
    with pytest.raises(AssertionError):
        np.testing.assert_array_equal(prog([a, b])[0], eager(steps, [a, b], [0])[0])


def test_threads_split_the_chunks():
    x, y = randn((300, 40), seed=30), randn(40, np.float64, seed=31)
    steps = [(OPS["mul"], (("in", 0), ("in", 1)), {}), (OPS["tanh"], (("step", 0),), {}), (OPS["relu"], (("step", 1),), {})]
    prog, _ = check(steps, [x, y], [2, 0], chunk_bytes=8 * 100, threads=3)
    # the call's scratch and one per worker run (a worker finding a finished run's scratch reuses it)
    assert len(next(iter(prog._plans.values())).chunks) > 3 and 2 <= len(prog._pool) <= 3
    # a worker's error reaches the caller: a zero divisor in the last chunk only
    n = 1000
    d = np.ones(n, np.int32)
    d[-1] = 0
    prog = FusedProgram([(OPS["remainder"], (("in", 0), ("in", 1)), {})], [((n,), ember.int32)] * 2, [0], chunk_bytes=64, threads=2)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        prog([d, d])


def test_set_num_threads_splits_large_programs_with_the_same_results():
    import ember.graph.passes.fusion as fusion

    previous = ember.get_num_threads()
    g = ember.Graph()
    with g.as_default():
        a = ember.placeholder(ember.float32, (1 << 20,))
        y = (a * 2.0 + 1.0).relu() * 0.5
    x = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    try:
        results = []
        for n in (1, 2):
            ember.set_num_threads(n)
            with ember.Session(graph=g) as sess:
                results.append(sess.run(y, {a: x}))
        kernels = [op.attrs["program"] for op in ember.graph.optimize(g, [y], [a])[0].get_operations() if op.type == "Fused"]
        assert kernels and isinstance(kernels[0], fusion.FusedKernel)
        assert kernels[0].program(((1 << 20,),)).threads == 2
    finally:
        ember.set_num_threads(previous)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], np.maximum(x * 2 + 1, 0) * 0.5)
    with pytest.raises(RuntimeError, match="positive integer"):
        ember.set_num_threads(0)
