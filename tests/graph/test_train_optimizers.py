"""tf.train's optimizers (ember.train): each update rule against a NumPy transcription of
TensorFlow's training kernels over a few steps, slot names and the global step, the API's errors,
and the same program in TensorFlow where it is installed."""

import numpy as np
import pytest

import ember
from ember import train

W0 = np.array([[0.5, -1.5], [2.0, 0.3]], dtype=np.float32)
B0 = np.array([0.1, -0.2], dtype=np.float32)
X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]], dtype=np.float32)


def _grads(w, b):
    """d/d(w, b) of sum(tanh(X @ w + b)^2), in float64."""
    y = X.astype(np.float64) @ w + b
    dy = 2 * np.tanh(y) * (1 - np.tanh(y) ** 2)
    return X.T.astype(np.float64) @ dy, dy.sum(0)


# NumPy transcriptions of TensorFlow's kernels: (initial slots, step(param, grad, slots, t) -> param)


def _sgd(lr):
    return lambda p: {}, lambda p, g, s, t: p - lr * g


def _momentum(lr, mu, nesterov=False):
    def step(p, g, s, t):
        s["a"] = mu * s["a"] + g
        return p - (g * lr + s["a"] * mu * lr if nesterov else lr * s["a"])

    return lambda p: {"a": np.zeros_like(p)}, step


def _adam(lr, b1=0.9, b2=0.999, eps=1e-8):
    def step(p, g, s, t):
        s["m"] += (g - s["m"]) * (1 - b1)
        s["v"] += (g * g - s["v"]) * (1 - b2)
        return p - lr * np.sqrt(1 - b2**t) / (1 - b1**t) * s["m"] / (np.sqrt(s["v"]) + eps)

    return lambda p: {"m": np.zeros_like(p), "v": np.zeros_like(p)}, step


def _adagrad(lr, init):
    def step(p, g, s, t):
        s["a"] += g * g
        return p - lr * g / np.sqrt(s["a"])

    return lambda p: {"a": np.full_like(p, init)}, step


def _rmsprop(lr, rho=0.9, mu=0.0, eps=1e-10, centered=False):
    def step(p, g, s, t):
        s["ms"] += (g * g - s["ms"]) * (1 - rho)
        denominator = s["ms"] + eps
        if centered:
            s["mg"] += (g - s["mg"]) * (1 - rho)
            denominator = s["ms"] - s["mg"] ** 2 + eps
        s["mom"] = mu * s["mom"] + lr * g / np.sqrt(denominator)
        return p - s["mom"]

    return lambda p: {"ms": np.ones_like(p), "mg": np.zeros_like(p), "mom": np.zeros_like(p)}, step


def _adadelta(lr, rho, eps):
    def step(p, g, s, t):
        s["acc"] = rho * s["acc"] + (1 - rho) * g * g
        update = np.sqrt(s["up"] + eps) / np.sqrt(s["acc"] + eps) * g
        s["up"] = rho * s["up"] + (1 - rho) * update * update
        return p - lr * update

    return lambda p: {"acc": np.zeros_like(p), "up": np.zeros_like(p)}, step


def _ftrl(lr, power=-0.5, init=0.1, l1=0.0, l2=0.0, shrink=0.0, beta=0.0):
    l2 = l2 + beta / (2 * lr)

    def step(p, g, s, t):
        new = s["acc"] + g * g
        s["lin"] += g + 2 * shrink * p - (new ** (-power) - s["acc"] ** (-power)) / lr * p
        quadratic = new ** (-power) / lr + 2 * l2
        s["acc"] = new
        return np.where(np.abs(s["lin"]) > l1, (np.sign(s["lin"]) * l1 - s["lin"]) / quadratic, 0.0)

    return lambda p: {"acc": np.full_like(p, init), "lin": np.zeros_like(p)}, step


def _proximal(lr, l1, l2, adagrad_init=None):
    def step(p, g, s, t):
        rate = lr
        if adagrad_init is not None:
            s["a"] += g * g
            rate = lr / np.sqrt(s["a"])
        prox = p - rate * g
        if l1 > 0:
            prox = np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0)
        return prox / (1 + rate * l2)

    return lambda p: {"a": np.full_like(p, adagrad_init or 0.0)}, step


CASES = {
    "sgd": (lambda: train.GradientDescentOptimizer(0.1), _sgd(0.1), []),
    "momentum": (lambda: train.MomentumOptimizer(0.1, 0.9), _momentum(0.1, 0.9), ["Momentum"]),
    "nesterov": (lambda: train.MomentumOptimizer(0.1, 0.9, use_nesterov=True), _momentum(0.1, 0.9, True), ["Momentum"]),
    "adam": (lambda: train.AdamOptimizer(0.05), _adam(0.05), ["Adam", "Adam_1"]),
    "adagrad": (lambda: train.AdagradOptimizer(0.2, initial_accumulator_value=0.3), _adagrad(0.2, 0.3), ["Adagrad"]),
    "rmsprop": (lambda: train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5, epsilon=1e-6), _rmsprop(0.01, 0.8, 0.5, 1e-6), ["RMSProp", "RMSProp_1"]),
    "rmsprop_centered": (lambda: train.RMSPropOptimizer(0.01, centered=True), _rmsprop(0.01, centered=True), ["RMSProp", "RMSProp_1", "RMSProp_2"]),
    "adadelta": (lambda: train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6), _adadelta(1.0, 0.9, 1e-6), ["Adadelta", "Adadelta_1"]),
    "ftrl": (lambda: train.FtrlOptimizer(0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
             _ftrl(0.3, l1=0.01, l2=0.02), ["Ftrl", "Ftrl_1"]),
    "ftrl_v2": (lambda: train.FtrlOptimizer(0.3, learning_rate_power=-0.7, l2_shrinkage_regularization_strength=0.05, beta=0.1),
                _ftrl(0.3, power=-0.7, shrink=0.05, beta=0.1), ["Ftrl", "Ftrl_1"]),
    "proximal_gd": (lambda: train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.05, l2_regularization_strength=0.1),
                    _proximal(0.1, 0.05, 0.1), []),
    "proximal_adagrad": (lambda: train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.05, l2_regularization_strength=0.1),
                         _proximal(0.1, 0.05, 0.1, adagrad_init=0.1), ["ProximalAdagrad"]),
}  # fmt: skip


def _program(tf, make, steps=4):
    """Train w, b of sum(tanh(X @ w + b)^2) for ``steps`` steps with ``tf``'s optimizer; the
    values after each step, the final global step and the global variables' names."""
    with tf.Graph().as_default() as g:
        w = tf.Variable(W0, name="w")
        b = tf.Variable(B0, name="b")
        y = tf.matmul(tf.constant(X), w) + b
        loss = tf.reduce_sum(tf.tanh(y) ** 2)
        step = tf.train.get_or_create_global_step()
        op = make().minimize(loss, global_step=step)
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        values = []
        for _ in range(steps):
            sess.run(op)
            values.append(sess.run([w, b]))
        final_step = sess.run(step)
    return values, final_step, [v.op.name for v in g.get_collection("variables")]


class _EmberTF:
    """The handful of TF1 spellings the program above uses, on ember."""

    Graph, Session, Variable, train = ember.Graph, ember.Session, ember.Variable, train
    constant, matmul, tanh = staticmethod(ember.constant), staticmethod(ember.matmul), staticmethod(ember.tanh)
    global_variables_initializer = staticmethod(ember.global_variables_initializer)

    @staticmethod
    def reduce_sum(x):
        return x.sum()


@pytest.mark.parametrize("case", CASES)
def test_update_rule_matches_tensorflows_kernel(case):
    make, (init_slots, step), slot_suffixes = CASES[case]
    values, final_step, names = _program(_EmberTF, make)
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    sw, sb = init_slots(w), init_slots(b)
    for t in range(1, len(values) + 1):
        gw, gb = _grads(w, b)
        w, b = step(w, gw, sw, t), step(b, gb, sb, t)
        np.testing.assert_allclose(values[t - 1][0], w, rtol=2e-5, atol=2e-6)
        np.testing.assert_allclose(values[t - 1][1], b, rtol=2e-5, atol=2e-6)
    assert final_step == len(values)
    expected = ["w", "b", "global_step"] + [f"{v}/{s}" for v in ("b", "w") for s in slot_suffixes]
    if case == "adam":
        expected += ["beta1_power", "beta2_power"]
    assert sorted(names) == sorted(expected)


@pytest.mark.parametrize("case", CASES)
def test_same_program_in_tensorflow(case):
    tensorflow = pytest.importorskip("tensorflow")
    v1 = tensorflow.compat.v1
    make = CASES[case][0]
    ours, our_step, our_names = _program(_EmberTF, make)
    tf_make = {
        "sgd": lambda: v1.train.GradientDescentOptimizer(0.1),
        "momentum": lambda: v1.train.MomentumOptimizer(0.1, 0.9),
        "nesterov": lambda: v1.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
        "adam": lambda: v1.train.AdamOptimizer(0.05),
        "adagrad": lambda: v1.train.AdagradOptimizer(0.2, initial_accumulator_value=0.3),
        "rmsprop": lambda: v1.train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5, epsilon=1e-6),
        "rmsprop_centered": lambda: v1.train.RMSPropOptimizer(0.01, centered=True),
        "adadelta": lambda: v1.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6),
        "ftrl": lambda: v1.train.FtrlOptimizer(0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
        "ftrl_v2": lambda: v1.train.FtrlOptimizer(
            0.3, learning_rate_power=-0.7, l2_shrinkage_regularization_strength=0.05, beta=0.1
        ),
        "proximal_gd": lambda: v1.train.ProximalGradientDescentOptimizer(
            0.1, l1_regularization_strength=0.05, l2_regularization_strength=0.1
        ),
        "proximal_adagrad": lambda: v1.train.ProximalAdagradOptimizer(
            0.1, l1_regularization_strength=0.05, l2_regularization_strength=0.1
        ),
    }[case]
    theirs, their_step, their_names = _program(v1, tf_make)
    for (ow, ob), (tw, tb) in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(ow, tw, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ob, tb, rtol=1e-5, atol=1e-6)
    assert (our_step, our_names) == (their_step, their_names)


def test_slots_api_and_train_op():
    with ember.Graph().as_default() as g:
        w = ember.Variable(W0, name="w")
        loss = (w * w).sum()
        opt = train.AdamOptimizer(0.1)
        op = opt.minimize(loss, name="fit")
    assert opt.get_slot_names() == ["m", "v"]
    assert opt.get_slot(w, "m").op.name == "w/Adam" and opt.get_slot(w, "v").op.name == "w/Adam_1"
    assert opt.get_slot(w, "nope") is None
    assert [v.op.name for v in opt.variables()] == ["beta1_power", "beta2_power", "w/Adam", "w/Adam_1"]
    assert op.name == "fit" and op.type == "NoOp" and g.get_collection("train_op") == [op]
    with g.as_default():
        assert [v.op.name for v in opt._get_beta_accumulators()] == ["beta1_power", "beta2_power"]
    assert all(not v.trainable for v in opt.variables())


def test_none_gradients_are_skipped_and_all_none_is_an_error():
    with ember.Graph().as_default():
        w = ember.Variable(np.ones(2, np.float32), name="w")
        unused = ember.Variable(np.ones(2, np.float32), name="unused")
        loss = (w * 3.0).sum()
        opt = train.GradientDescentOptimizer(0.5)
        pairs = opt.compute_gradients(loss)
        assert pairs[1][0] is None and pairs[1][1] is unused
        op = opt.apply_gradients(pairs)
        with pytest.raises(ValueError, match=r"No gradients provided for any variable: \["):
            opt.apply_gradients([(None, w)])
        with pytest.raises(ValueError, match="No gradients provided for any variable, check your graph"):
            opt.minimize((unused * 0).sum() + ember.constant(1.0), var_list=[w])
        with pytest.raises(ValueError, match=r"No variables provided\."):
            opt.apply_gradients([])
        with pytest.raises(ValueError, match="gate_gradients must be one of"):
            opt.compute_gradients(loss, gate_gradients=7)
        init = ember.global_variables_initializer()
    with ember.Session(graph=w.graph) as sess:
        sess.run(init)
        sess.run(op)
        np.testing.assert_allclose(sess.run([w, unused]), [[-0.5, -0.5], [1.0, 1.0]])


def test_invalid_dtypes_and_hyperparameters():
    with ember.Graph().as_default():
        n = ember.Variable(np.array([1, 2], dtype=np.int32), name="n")
        with pytest.raises(ValueError, match=r"Invalid type <dtype: 'int32'> for"):
            train.GradientDescentOptimizer(0.1).minimize(n * n)
    with pytest.raises(ValueError, match=r"initial_accumulator_value must be positive: 0\.0"):
        train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match=r"learning_rate_power 0\.5 needs to be negative or zero"):
        train.FtrlOptimizer(0.1, learning_rate_power=0.5)


def test_global_step_helpers():
    with ember.Graph().as_default() as g:
        assert train.get_global_step() is None
        step = train.create_global_step()
        with pytest.raises(ValueError, match=r'"global_step" already exists\.'):
            train.create_global_step()
        assert train.get_or_create_global_step() is step and train.get_global_step(g) is step
        assert (step.name, step.dtype, step.trainable) == ("global_step:0", ember.int64, False)
        assert g.get_collection("global_step") == [step]
        assert "global_step/Initializer/zeros" in [op.name for op in g.get_operations()]
        w = ember.Variable(np.ones(2, np.float32))
        op = train.MomentumOptimizer(0.1, 0.5).minimize((w * w).sum(), global_step=step)
        init = ember.global_variables_initializer()
    assert op.type == "AssignAdd" and op.name == "Momentum"
    with ember.Session(graph=g) as sess:
        sess.run(init)
        for _ in range(3):
            sess.run(op)
        assert train.global_step(sess, step) == 3


def test_tensor_learning_rate_from_a_schedule():
    with ember.Graph().as_default() as g:
        step = train.get_or_create_global_step()
        lr = train.exponential_decay(0.5, step, 1, 0.5)
        w = ember.Variable(np.array([1.0], np.float32))
        op = train.GradientDescentOptimizer(lr).minimize((w * 1.0).sum(), global_step=step)
        init = ember.global_variables_initializer()
    with ember.Session(graph=g) as sess:
        sess.run(init)
        for _ in range(3):
            sess.run(op)
        # steps of 0.5, 0.25, 0.125 (the rate read before each increment)
        np.testing.assert_allclose(sess.run(w), [1 - 0.875])
