"""Module mechanics: registration, traversal order, state_dict, hooks, modes, printing, copying."""

import copy
import pickle

import numpy as np
import pytest

import ember
import ember.nn as nn


class TinyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(100, 200)
        self.activation = nn.ReLU()
        self.linear2 = nn.Linear(200, 10)
        self.softmax = nn.Softmax()

    def forward(self, x):
        return self.softmax(self.linear2(self.activation(self.linear1(x))))


TINY_REPR = """TinyModel(
  (linear1): Linear(in_features=100, out_features=200, bias=True)
  (activation): ReLU()
  (linear2): Linear(in_features=200, out_features=10, bias=True)
  (softmax): Softmax(dim=None)
)"""


def test_tiny_model_repr_and_forward():
    model = TinyModel()
    assert repr(model) == TINY_REPR
    out = model(ember.rand(4, 100))
    assert out.shape == (4, 10)
    np.testing.assert_allclose(out.detach().numpy().sum(axis=1), np.ones(4), rtol=1e-5)


def test_registration_order_and_names():
    model = TinyModel()
    assert [n for n, _ in model.named_parameters()] == ["linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias"]
    assert [n for n, _ in model.named_children()] == ["linear1", "activation", "linear2", "softmax"]
    assert [n for n, _ in model.named_modules()] == ["", "linear1", "activation", "linear2", "softmax"]
    assert next(iter(model.named_parameters(prefix="m")))[0] == "m.linear1.weight"
    assert list(model.parameters(recurse=False)) == []
    assert isinstance(model.linear1.weight, nn.Parameter)
    assert model.get_submodule("linear2") is model.linear2
    assert model.get_parameter("linear1.bias") is model.linear1.bias


def test_shared_parameters_are_deduplicated():
    a = nn.Linear(3, 3)
    seq = nn.Sequential(a, a)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4
    assert len(list(seq.modules())) == 2


def test_setattr_rules():
    m = nn.Module()
    m.w = nn.Parameter(ember.zeros(2))
    assert "w" in m._parameters
    with pytest.raises(TypeError, match=r"cannot assign 'ember\.Tensor' as parameter 'w'"):
        m.w = ember.zeros(2)
    m.w = None
    assert m._parameters["w"] is None
    m.register_buffer("b", ember.ones(1))
    m.b = ember.zeros(1)
    assert m._buffers["b"].item() == 0
    with pytest.raises(KeyError, match="attribute 'b' already exists"):
        m.register_parameter("b", None)
    with pytest.raises(KeyError, match="contain"):
        m.register_buffer("a.b", None)
    m.child = nn.ReLU()
    assert "child" in dir(m) and "b" in dir(m)
    del m.child
    assert "child" not in m._modules
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = m.nope
    with pytest.raises(AttributeError, match=r"before Module\.__init__"):

        class Bad(nn.Module):
            def __init__(self):
                self.p = nn.Parameter(ember.zeros(1))

        Bad()


def test_state_dict_round_trip():
    src, dst = TinyModel(), TinyModel()
    sd = src.state_dict()
    assert list(sd) == ["linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias"]
    assert not isinstance(sd["linear1.weight"], nn.Parameter) and not sd["linear1.weight"].requires_grad
    assert isinstance(src.state_dict(keep_vars=True)["linear1.weight"], nn.Parameter)
    result = dst.load_state_dict(sd)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    np.testing.assert_array_equal(dst.linear2.weight.detach().numpy(), src.linear2.weight.detach().numpy())
    # the load copies in place: the parameter objects survive
    weight = dst.linear1.weight
    dst.load_state_dict(TinyModel().state_dict())
    assert dst.linear1.weight is weight


def test_state_dict_errors_match_pytorch():
    model = TinyModel()
    sd = model.state_dict()
    del sd["linear1.weight"]
    sd["extra"] = ember.zeros(1)
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(sd)
    assert str(info.value) == (
        'Error(s) in loading state_dict for TinyModel:\n\tMissing key(s) in state_dict: "linear1.weight". '
        '\n\tUnexpected key(s) in state_dict: "extra". '
    )
    result = model.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["linear1.weight"] and result.unexpected_keys == ["extra"]

    bad = model.state_dict()
    bad["linear2.bias"] = ember.zeros(3)
    with pytest.raises(RuntimeError, match=r"size mismatch for linear2.bias: copying a param with shape ember.Size\(\[3\]\) "
                       r"from checkpoint, the shape in current model is ember.Size\(\[10\]\)."):  # fmt: skip
        model.load_state_dict(bad)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        model.load_state_dict([1, 2])


def test_buffers_and_non_persistent():
    bn = nn.BatchNorm1d(4)
    assert [n for n, _ in bn.named_buffers()] == ["running_mean", "running_var", "num_batches_tracked"]
    m = nn.Module()
    m.register_buffer("cache", ember.zeros(2), persistent=False)
    assert list(m.state_dict()) == [] and len(list(m.buffers())) == 1


def test_hooks_and_handles():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: calls.append("pre") or (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append("post") or out + 1)
    out = lin(ember.ones(1, 2))
    assert calls == ["pre", "post"]
    np.testing.assert_allclose(out.detach().numpy(), lin.bias.detach().numpy()[None] + 1, rtol=1e-6)
    h1.remove()
    h2.remove()
    assert not lin._forward_hooks and not lin._forward_pre_hooks
    seen = {}
    with lin.register_forward_pre_hook(lambda m, a, k: seen.update(k), with_kwargs=True):
        lin(input=ember.ones(1, 2))
    assert "input" in seen and not lin._forward_pre_hooks
    h = lin.register_forward_hook(lambda m, a, k, o: o * 0, with_kwargs=True)
    assert float(lin(ember.ones(1, 2)).abs().sum()) == 0
    h.remove()
    calls = []
    h = lin.register_full_backward_hook(lambda m, grad_input, grad_output: calls.append(len(grad_output)))
    lin(ember.ones(1, 2)).sum().backward()
    assert calls == [1]
    h.remove()
    lin(ember.ones(1, 2)).sum().backward()
    assert calls == [1]


def test_train_eval_apply_requires_grad():
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.BatchNorm1d(2))
    assert model.training and all(m.training for m in model.modules())
    model.eval()
    assert not any(m.training for m in model.modules())
    with pytest.raises(ValueError, match="boolean"):
        model.train("yes")
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Dropout", "BatchNorm1d", "Sequential"]
    model.requires_grad_(False)
    assert not any(p.requires_grad for p in model.parameters())


def test_zero_grad():
    lin = nn.Linear(2, 2)
    for p in lin.parameters():
        p.grad = ember.ones(tuple(p.shape))
    lin.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in lin.parameters())
    lin.zero_grad()
    assert all(p.grad is None for p in lin.parameters())


def test_to_and_float_keep_parameter_identity():
    bn = nn.BatchNorm1d(3)
    weight = bn.weight
    bn.double()
    assert bn.weight is weight and bn.weight.dtype == ember.float64 and isinstance(bn.weight, nn.Parameter)
    assert bn.running_mean.dtype == ember.float64 and bn.num_batches_tracked.dtype == ember.int64
    bn.to(ember.float32)
    assert bn.weight.dtype == ember.float32
    bn.to("cpu").cpu().half().float()
    with pytest.raises(TypeError, match="floating point or complex"):
        bn.to(ember.int32)


def test_pickle_and_deepcopy():
    model = TinyModel()
    for clone in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert repr(clone) == TINY_REPR
        assert isinstance(clone.linear1.weight, nn.Parameter)
        assert clone.linear1.weight.data_ptr() != model.linear1.weight.data_ptr()
        np.testing.assert_array_equal(clone.linear1.weight.detach().numpy(), model.linear1.weight.detach().numpy())


def test_parameter_basics():
    t = ember.ones(2)
    p = nn.Parameter(t)
    assert p.requires_grad and p.data_ptr() == t.data_ptr()
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert nn.Parameter().shape == (0,)
    assert type(pickle.loads(pickle.dumps(p))) is nn.Parameter
    with pytest.raises(RuntimeError):
        nn.Parameter(ember.tensor([1, 2]))
    assert not nn.Parameter(ember.tensor([1, 2]), requires_grad=False).requires_grad


def test_forward_not_implemented():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(1)
