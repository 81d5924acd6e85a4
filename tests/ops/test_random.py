"""Random ops: reproducibility (same seed, same values; explicit generators), dtypes, ranges,
loose statistical checks, in-place samplers on views, and error messages."""

import numpy as np
import pytest

import ember

FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
COMPLEX = [ember.complex64, ember.complex128]


def as_np(t):
    if t.dtype in (ember.float16, ember.bfloat16):
        return t.to(ember.float32).numpy()
    return t.numpy()


# Every sampler, as a function of a generator (None: the default one).
SAMPLERS = {
    "rand": lambda g: ember.rand((5, 3), generator=g),
    "randn": lambda g: ember.randn((7,), generator=g, dtype=ember.float64),
    "rand_like": lambda g: ember.rand_like(ember.zeros(4), generator=g),
    "randn_like": lambda g: ember.randn_like(ember.zeros(4, dtype=ember.complex64), generator=g),
    "randint": lambda g: ember.randint(0, 1000, (6,), generator=g),
    "randint_like": lambda g: ember.randint_like(ember.zeros(6), 50, generator=g),
    "randperm": lambda g: ember.randperm(20, generator=g),
    "normal_ff": lambda g: ember.normal(1.0, 2.0, (6,), generator=g),
    "normal_tt": lambda g: ember.normal(ember.zeros(3, 1), ember.ones(4), generator=g),
    "normal_tf": lambda g: ember.normal(ember.zeros(5), 3.0, generator=g),
    "normal_ft": lambda g: ember.normal(2.0, ember.ones(5), generator=g),
    "bernoulli": lambda g: ember.bernoulli(ember.full((20,), 0.5), generator=g),
    "bernoulli_p": lambda g: ember.bernoulli(ember.zeros(20), 0.3, generator=g),
    "multinomial": lambda g: ember.multinomial(ember.tensor([1.0, 2.0, 3.0, 4.0]), 3, generator=g),
    "multinomial_r": lambda g: ember.multinomial(ember.ones(2, 5), 8, True, generator=g),
    "uniform_": lambda g: ember.empty(6).uniform_(-2, 3, generator=g),
    "normal_": lambda g: ember.empty(6, dtype=ember.float64).normal_(5, 0.5, generator=g),
    "bernoulli_": lambda g: ember.empty(20).bernoulli_(0.5, generator=g),
    "bernoulli_t": lambda g: ember.empty(3, 20).bernoulli_(ember.full((20,), 0.5), generator=g),
    "random_": lambda g: ember.empty(6, dtype=ember.int32).random_(generator=g),
    "exponential_": lambda g: ember.empty(6).exponential_(2.0, generator=g),
    "geometric_": lambda g: ember.empty(6).geometric_(0.2, generator=g),
    "log_normal_": lambda g: ember.empty(6).log_normal_(generator=g),
    "cauchy_": lambda g: ember.empty(6).cauchy_(generator=g),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_same_seed_same_values_other_seed_other_values(name):
    sample = SAMPLERS[name]
    ember.manual_seed(1234)
    a = sample(None).tolist()
    ember.manual_seed(1234)
    b = sample(None).tolist()
    ember.manual_seed(99)
    c = sample(None).tolist()
    assert a == b
    assert a != c
    g1, g2 = ember.Generator().manual_seed(7), ember.Generator().manual_seed(7)
    assert sample(g1).tolist() == sample(g2).tolist()
    ember.manual_seed(7)
    state = ember.default_generator.get_state()
    first = sample(None).tolist()
    ember.default_generator.set_state(state)
    assert sample(None).tolist() == first


def test_explicit_generator_leaves_the_default_alone():
    ember.manual_seed(5)
    expected = ember.rand((4,)).tolist()
    ember.manual_seed(5)
    ember.rand((100,), generator=ember.Generator().manual_seed(1))
    assert ember.rand((4,)).tolist() == expected


def test_known_values_are_stable_across_runs():
    # PCG64 through NumPy: these are fixed for a seed, on every machine
    g = ember.Generator().manual_seed(0)
    expected = np.random.Generator(np.random.PCG64(0)).random(3)
    assert ember.rand((3,), dtype=ember.float64, generator=g).tolist() == expected.tolist()


def test_asynchronous_stream_draws_the_same_values():
    ember.manual_seed(3)
    sync = [ember.randn((50,)).tolist(), ember.randint(0, 9, (10,)).tolist()]
    with ember.vm.asynchronous():
        ember.manual_seed(3)
        a = ember.randn((50,))
        b = ember.randint(0, 9, (10,))
        ember.manual_seed(3)  # a sync point: the draws above happen first
        c = ember.randn((50,))
        assert [a.tolist(), b.tolist()] == sync and c.tolist() == sync[0]


@pytest.mark.parametrize("dtype", FLOATS + COMPLEX)
def test_rand_randn_dtypes_and_ranges(dtype):
    ember.manual_seed(0)
    u = ember.rand((4000,), dtype=dtype)
    n = ember.randn((4000,), dtype=dtype)
    assert u.dtype is dtype and n.dtype is dtype and u.shape == n.shape == (4000,)
    parts = [np.real(as_np(u))] + ([np.imag(u.numpy())] if dtype.is_complex else [])
    for p in parts:
        assert p.min() >= 0 and p.max() < 1 and 0.45 < p.mean() < 0.55
    z = n.numpy() if dtype.is_complex else as_np(n)
    assert abs(z.mean()) < 0.1 and 0.9 < np.mean(np.abs(z) ** 2) < 1.1  # complex: variance 1 in all
    if dtype.is_complex:
        assert 0.4 < np.var(z.real) < 0.6


def test_float16_and_bfloat16_uniforms_never_round_up_to_one():
    ember.manual_seed(0)
    for dtype in (ember.float16, ember.bfloat16):
        u = as_np(ember.rand((200_000,), dtype=dtype))
        assert u.max() < 1.0 and u.min() >= 0.0


def test_normal_statistics_and_shapes():
    ember.manual_seed(1)
    x = ember.randn((10_000,)).numpy()
    assert abs(x.mean()) < 0.05 and 0.95 < x.std() < 1.05
    y = ember.normal(3.0, 2.0, (10_000,)).numpy()
    assert abs(y.mean() - 3) < 0.1 and 1.9 < y.std() < 2.1
    mean = ember.tensor([[-10.0], [10.0]])
    z = ember.normal(mean, ember.full((5000,), 0.5))
    assert z.shape == (2, 5000) and abs(z.numpy()[0].mean() + 10) < 0.05 and abs(z.numpy()[1].std() - 0.5) < 0.03
    assert ember.normal(ember.zeros(3, dtype=ember.float64), ember.ones(3)).dtype is ember.float64
    assert ember.normal(0.0, ember.ones(3, dtype=ember.float64)).dtype is ember.float64
    assert ember.normal(0, 1, (2,), dtype=ember.float64).dtype is ember.float64
    out = ember.empty(2, 3)
    assert ember.normal(ember.zeros(2, 3), 1.0, out=out) is out
    w = ember.empty(10_000, dtype=ember.float64).normal_(-1, 3).numpy()
    assert abs(w.mean() + 1) < 0.15 and 2.85 < w.std() < 3.15


def test_uniform_and_friends_ranges():
    ember.manual_seed(2)
    u = ember.empty(10_000).uniform_(-3, 5).numpy()
    assert u.min() >= -3 and u.max() < 5 and abs(u.mean() - 1) < 0.15
    e = ember.empty(10_000, dtype=ember.float64).exponential_(4.0).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.02
    g = ember.empty(10_000).geometric_(0.25).numpy()
    assert g.min() >= 1 and abs(g.mean() - 4) < 0.3 and np.all(g == np.round(g))
    ln = ember.empty(10_000, dtype=ember.float64).log_normal_(0.0, 0.5).numpy()
    assert ln.min() > 0 and abs(np.log(ln).std() - 0.5) < 0.03
    c = ember.empty(10_000).cauchy_(2.0, 1.0).numpy()
    assert abs(np.median(c) - 2) < 0.1


@pytest.mark.parametrize("dtype", [ember.int64, ember.int8, ember.uint8, ember.int32, ember.float32, ember.float16, ember.bool])
def test_randint_ranges_and_dtypes(dtype):
    ember.manual_seed(4)
    low, high = (0, 2) if dtype is ember.bool else (-5, 7) if dtype not in (ember.uint8,) else (3, 9)
    x = ember.randint(low, high, (3000,), dtype=dtype)
    assert x.dtype is dtype and x.shape == (3000,)
    v = as_np(x).astype(np.int64)
    assert v.min() == low and v.max() == high - 1 and set(np.unique(v)) == set(range(low, high))
    assert ember.randint(5, (2, 3)).shape == (2, 3) and ember.randint(5, (2, 3)).dtype is ember.int64
    assert max(ember.randint(high=5, size=(4,)).tolist()) < 5


def test_randint_like_and_random_():
    x = ember.zeros(1000, dtype=ember.int16)
    r = ember.randint_like(x, 3, 6)
    assert r.dtype is ember.int16 and set(r.tolist()) == {3, 4, 5}
    assert set(ember.randint_like(x, 2).tolist()) == {0, 1}
    assert set(x.clone().random_(10).tolist()) == set(range(10))
    assert set(x.clone().random_(-2, 1).tolist()) == {-2, -1, 0}
    full = ember.empty(2000, dtype=ember.int8).random_().numpy()
    assert full.min() >= 0 and full.max() > 100  # [0, 127]
    f = ember.empty(2000, dtype=ember.float16).random_().to(ember.float32).numpy()
    assert f.min() >= 0 and f.max() <= 2**11 and np.all(f == np.round(f))
    b = ember.empty(100, dtype=ember.bool).random_()
    assert set(b.tolist()) == {False, True}
    u = ember.empty(1000, dtype=ember.uint64).random_()
    assert u.numpy().max() > 2**63  # the whole uint64 range


def test_randperm():
    p = ember.randperm(100)
    assert p.dtype is ember.int64 and sorted(p.tolist()) == list(range(100)) and p.tolist() != list(range(100))
    assert ember.randperm(0).shape == (0,) and sorted(ember.randperm(5, dtype=ember.float32).tolist()) == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_bernoulli():
    ember.manual_seed(6)
    p = ember.tensor([0.0, 1.0, 0.25]).expand(20_000, 3)
    b = ember.bernoulli(p)
    assert b.dtype is ember.float32 and b.shape == (20_000, 3)
    m = b.numpy().mean(axis=0)
    assert m[0] == 0 and m[1] == 1 and abs(m[2] - 0.25) < 0.02
    assert ember.bernoulli(ember.zeros(3, dtype=ember.float64)).dtype is ember.float64
    s = ember.bernoulli(ember.zeros(10_000, dtype=ember.float64), 0.7)
    assert s.dtype is ember.float64 and abs(s.numpy().mean() - 0.7) < 0.02
    i = ember.zeros(10_000, dtype=ember.int64).bernoulli_(0.4)
    assert set(i.tolist()) == {0, 1} and abs(i.numpy().mean() - 0.4) < 0.02
    t = ember.zeros(5000, 2).bernoulli_(ember.tensor([0.0, 1.0]))
    assert t.numpy()[:, 0].sum() == 0 and t.numpy()[:, 1].sum() == 5000


def test_multinomial():
    ember.manual_seed(8)
    probs = ember.tensor([[0.0, 10.0, 30.0, 60.0], [1.0, 0.0, 0.0, 0.0]])
    s = ember.multinomial(probs, 20_000, True)
    assert s.dtype is ember.int64 and s.shape == (2, 20_000)
    counts = np.bincount(s.numpy()[0], minlength=4) / 20_000
    assert counts[0] == 0 and abs(counts[1] - 0.1) < 0.015 and abs(counts[3] - 0.6) < 0.015
    assert set(s.numpy()[1].tolist()) == {0}
    w = ember.multinomial(ember.tensor([1.0, 1.0, 1.0, 0.0, 5.0]), 4)
    assert sorted(w.tolist()) == [0, 1, 2, 4]  # without replacement: distinct, zero-probability last
    first = np.bincount([ember.multinomial(ember.tensor([1.0, 9.0]), 2)[0].item() for _ in range(400)], minlength=2)
    assert first[1] > 300  # the heavier category comes first most of the time
    assert ember.multinomial(ember.tensor([0.2, 0.8], dtype=ember.float64), 1).shape == (1,)
    assert ember.tensor([[1.0, 0.0]]).multinomial(1).tolist() == [[0]]


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda: ember.randint(5, 5, (2,)), RuntimeError, "expects 'from' to be less than 'to', but got from=5 >= to=5"),
        (lambda: ember.randint(6, 5, (2,)), RuntimeError, "from=6 >= to=5"),
        (lambda: ember.randint(0, 300, (2,), dtype=ember.uint8), RuntimeError, "to - 1 = 299 is out of bounds for ember.uint8"),
        (lambda: ember.randint(-1, 3, (2,), dtype=ember.uint8), RuntimeError, "from=-1 is out of bounds"),
        (lambda: ember.randint(0, 3, (2,), dtype=ember.complex64), TypeError, "argument 'dtype' must have a"),
        (lambda: ember.randint(3), TypeError, "missing required argument 'size'"),
        (lambda: ember.randint(0, 1.5, (2,)), TypeError, "argument 'high' must be int, not float"),
        (lambda: ember.rand((2,), dtype=ember.int64), TypeError, "rand\\(\\): argument 'dtype' must have a"),
        (lambda: ember.randn((2,), dtype=ember.bool), TypeError, "must have a"),
        (lambda: ember.rand((-1,)), RuntimeError, "negative dimension -1"),
        (lambda: ember.randperm(-1), RuntimeError, "n must be non-negative, got -1"),
        (lambda: ember.randperm(300, dtype=ember.int8), RuntimeError, "too large for ember.int8"),
        (lambda: ember.normal(ember.zeros(2), -1.0), RuntimeError, "expects std >= 0.0, but found std -1.0"),
        (lambda: ember.normal(0.0, ember.tensor([-1.0])), RuntimeError, "expects all elements of std >= 0.0"),
        (lambda: ember.normal(ember.zeros(2), ember.ones(3)), RuntimeError, "The size of tensor a \\(2\\) must match the size of tensor b \\(3\\)"),
        (lambda: ember.normal(ember.zeros(2, dtype=ember.int64), 1.0), TypeError, "argument 'mean' must have a real floating dtype"),
        (lambda: ember.normal(0.0, 1.0), TypeError, "missing required argument 'size'"),
        (lambda: ember.bernoulli(ember.tensor([1.5])), RuntimeError, "expects all elements of p to be in \\[0, 1\\]"),
        (lambda: ember.bernoulli(ember.tensor([float("nan")])), RuntimeError, "to be in \\[0, 1\\]"),
        (lambda: ember.bernoulli(ember.tensor([0.5]), 2.0), RuntimeError, "expects p to be in \\[0, 1\\], but got p=2.0"),
        (lambda: ember.bernoulli(ember.tensor([1, 0])), TypeError, "argument 'p' must have a real floating dtype"),
        (lambda: ember.zeros(2).bernoulli_(1.5), RuntimeError, "expects p to be in \\[0, 1\\]"),
        (lambda: ember.zeros(2).bernoulli_(ember.ones(3)), RuntimeError, "cannot be broadcast"),
        (lambda: ember.multinomial(ember.tensor([1.0, 1.0]), 3), RuntimeError, "cannot sample n_sample > prob_dist.size\\(-1\\) samples without replacement"),
        (lambda: ember.multinomial(ember.tensor([-1.0, 1.0]), 1), RuntimeError, "probability tensor contains either `inf`, `nan` or element < 0"),
        (lambda: ember.multinomial(ember.tensor([float("inf"), 1.0]), 1), RuntimeError, "`inf`, `nan` or element < 0"),
        (lambda: ember.multinomial(ember.tensor([0.0, 0.0]), 1), RuntimeError, "sum of probabilities <= 0"),
        (lambda: ember.multinomial(ember.tensor([1.0, 0.0, 0.0]), 2), RuntimeError, "not enough non-negative category to sample"),
        (lambda: ember.multinomial(ember.tensor([1.0, 1.0]), 0), RuntimeError, "cannot sample n_sample <= 0 samples"),
        (lambda: ember.multinomial(ember.tensor(1.0), 1), RuntimeError, "prob_dist must be 1 or 2 dim"),
        (lambda: ember.multinomial(ember.ones(2, 2, 2), 1), RuntimeError, "prob_dist must be 1 or 2 dim"),
        (lambda: ember.multinomial(ember.tensor([1, 1]), 1), RuntimeError, "only supports floating-point dtypes"),
        (lambda: ember.zeros(2).uniform_(1, 0), RuntimeError, "expects to return a \\[from, to\\) range, but found from=1.0 > to=0.0"),
        (lambda: ember.zeros(2, dtype=ember.int64).uniform_(), TypeError, "uniform_\\(\\): argument 'self' must have a"),
        (lambda: ember.zeros(2).normal_(0, -1), RuntimeError, "expects std >= 0.0"),
        (lambda: ember.zeros(2).exponential_(-1), RuntimeError, "expects lambda > 0.0, but found lambda=-1.0"),
        (lambda: ember.zeros(2, dtype=ember.int64).exponential_(), RuntimeError, "dtype must be floating point"),
        (lambda: ember.zeros(2).geometric_(1.5), RuntimeError, "expects p to be in \\(0, 1\\)"),
        (lambda: ember.zeros(2, dtype=ember.int8).random_(0, 300), RuntimeError, "out of bounds for ember.int8"),
        (lambda: ember.zeros(2).random_(5, 5), RuntimeError, "from=5 >= to=5"),
        (lambda: ember.zeros(2).random_(0, 2**30), RuntimeError, "out of bounds for ember.float32"),
        (lambda: ember.rand((2,), generator=3), TypeError, "argument 'generator' must be ember.Generator, not int"),
        (lambda: ember.rand((2,), generator=ember.Generator("cuda")), RuntimeError, "Expected a 'cpu' device type for generator but found 'cuda'"),
    ],
)
def test_errors(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


def test_in_place_samplers_write_views_and_refuse_expanded_ones():
    base = ember.zeros(4, 6)
    view = base.t()[::2]
    view.uniform_(1, 2)
    b = base.numpy()
    assert np.all((b[:, ::2] >= 1) & (b[:, ::2] < 2)) and np.all(b[:, 1::2] == 0)
    v0 = base._version
    base[1].normal_()
    assert base._version == v0 + 1
    for write in (lambda t: t.uniform_(), lambda t: t.normal_(), lambda t: t.bernoulli_(), lambda t: t.random_(3)):
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            write(ember.zeros(1).expand(3))
    ro = np.zeros(3, dtype=np.float32)
    ro.flags.writeable = False
    with pytest.raises(RuntimeError, match="read-only"):
        ember.from_numpy(ro).uniform_()


def test_meta_tensors_draw_nothing():
    ember.manual_seed(11)
    state = ember.default_generator.get_state().tolist()
    m = ember.rand((10**6, 10**6), device="meta")
    n = ember.empty(3, device="meta").normal_()
    assert m.is_meta and m.shape == (10**6, 10**6) and n.is_meta
    assert ember.multinomial(ember.empty(3, 4, device="meta"), 2).shape == (3, 2)
    assert ember.default_generator.get_state().tolist() == state


def test_empty_and_requires_grad():
    assert ember.rand((0, 3)).shape == (0, 3) and ember.randint(0, 2, (0,)).shape == (0,)
    assert ember.bernoulli(ember.zeros(0)).shape == (0,)
    assert ember.rand((2,), requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        ember.randint(0, 3, (2,), requires_grad=True)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "complex64"])
@pytest.mark.parametrize(
    ("low", "high", "message"),
    [
        (float("nan"), 1.0, "from=nan is out of bounds"),
        (0.0, float("inf"), "to=inf is out of bounds"),
        (-1e308, 1.0, r"from=-1e\+308 is out of bounds"),
        (2.0, 1.0, r"expects to return a \[from, to\) range"),
    ],
)
def test_uniform_bounds_are_checked_against_the_dtype(dtype, low, high, message):
    t = ember.zeros(3, dtype=getattr(ember, dtype))
    if dtype == "float64" and low == -1e308:
        t.uniform_(low, high)  # within float64's range: a valid (if wide) interval
        return
    with pytest.raises(RuntimeError, match=rf"uniform_\(\): {message}"):
        t.uniform_(low, high)
    assert (t.real if t.dtype.is_complex else t).abs().sum().item() == 0.0  # refused before writing


def test_uniform_refuses_an_interval_wider_than_the_dtype():
    with pytest.raises(RuntimeError, match=r"uniform_\(\): expects to-from <="):
        ember.zeros(3).uniform_(-3e38, 3e38)
