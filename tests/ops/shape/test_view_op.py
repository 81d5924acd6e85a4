"""View ops are ops: each dispatches as one primitive (recorded by an interpreter, with hashable
attributes), shares the input's storage, and infers on meta tensors without data."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.dispatch import interpreter_scope
from ember.ops.shape import VIEW_OPS
from tests.ops._arrays import Recorder

_FLAT = ember.zeros(24)
_SPLITS = ember.tensor([1, 3])

VIEW_CALLS = [
    ("view", lambda t: t.view(4, 6), ["view"]),
    ("view_dtype", lambda t: t.view(ember.int32), ["view_dtype"]),
    ("view_as", lambda t: t.view_as(_FLAT), ["view"]),
    ("reshape", lambda t: t.reshape(-1), ["view"]),
    ("reshape_copy", lambda t: t.transpose(0, 2).reshape(-1), ["transpose", "reshape_copy"]),
    ("flatten", lambda t: t.flatten(1), ["view"]),
    ("ravel", lambda t: ember.ravel(t), ["view"]),
    ("unflatten", lambda t: t.unflatten(2, (2, 2)), ["unflatten"]),
    ("squeeze", lambda t: t[:1].squeeze((0, 1)), ["getitem", "squeeze"]),
    ("unsqueeze", lambda t: t.unsqueeze(-1), ["unsqueeze"]),
    ("expand_dims", lambda t: ember.expand_dims(t, axis=(0, 2)), ["unsqueeze", "unsqueeze"]),
    ("transpose", lambda t: t.swapaxes(0, 1), ["transpose"]),
    ("permute", lambda t: t.permute(2, 0, 1), ["permute"]),
    ("permute_dims", lambda t: ember.permute_dims(t, (2, 0, 1)), ["permute"]),
    ("movedim", lambda t: t.moveaxis((0, 1), (2, 0)), ["movedim"]),
    ("t", lambda t: t[0].t(), ["getitem", "t"]),
    ("T", lambda t: t[0].T, ["getitem", "T"]),
    ("mT", lambda t: t.mT, ["mT"]),
    ("matrix_transpose", lambda t: ember.matrix_transpose(t), ["mT"]),
    ("expand", lambda t: t[:, :1].expand(2, 5, 4), ["getitem", "expand"]),
    ("expand_as", lambda t: t[:1].expand_as(t), ["getitem", "expand"]),
    ("broadcast_to", lambda t: t.broadcast_to((3, 2, 3, 4)), ["broadcast_to"]),
    ("narrow", lambda t: t.narrow(1, 1, 2), ["narrow"]),
    ("select", lambda t: t.select(-1, 2), ["select"]),
    ("unbind", lambda t: t.unbind(1), ["unbind"]),
    ("split", lambda t: t.split([1, 2], 1), ["split"]),
    ("chunk", lambda t: t.chunk(2, 2), ["chunk"]),
    ("tensor_split", lambda t: t.tensor_split(_SPLITS, 2), ["tensor_split"]),
    ("diagonal", lambda t: t.diagonal(1, 1, 2), ["diagonal"]),
    ("unfold", lambda t: t.unfold(2, 2, 1), ["unfold"]),
    ("as_strided", lambda t: t.as_strided((2, 2), (1, 3), 1), ["as_strided"]),
    ("getitem", lambda t: t[1, ::-1, None], ["getitem"]),
]


@pytest.mark.parametrize("name, call, ops", VIEW_CALLS, ids=[c[0] for c in VIEW_CALLS])
def test_view_ops_dispatch_as_ops_with_hashable_attrs(name, call, ops):
    t = ember.from_numpy(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    recorder = Recorder()
    with interpreter_scope(recorder):
        result = call(t)
    assert recorder.ops == ops
    eager = call(t)
    results = result if isinstance(result, tuple) else (result,)
    eagers = eager if isinstance(eager, tuple) else (eager,)
    for r, e in zip(results, eagers, strict=True):
        assert (r.shape, r.stride(), r.storage_offset(), r.dtype) == (e.shape, e.stride(), e.storage_offset(), e.dtype)
        assert r.tolist() == e.tolist()
        if name != "reshape_copy":
            assert r.untyped_storage() is t.untyped_storage()  # a view: same memory
    if name == "reshape_copy":
        assert result.untyped_storage() is not t.untyped_storage() and result._base is None


def test_views_share_storage_and_writes_go_both_ways():
    t = ember.zeros(2, 3, 4)
    for view in (
        t.permute(2, 0, 1),
        ember.expand_dims(t, axis=(0, 2)),
        t.mT,
        t.reshape(6, 4),
        ember.ravel(t),
        t.flatten(),
        t.view(ember.int32),
    ):
        assert view.untyped_storage() is t.untyped_storage()
    p = t.permute(2, 0, 1)
    p[3, 1, 2] = 7.0
    assert t[1, 2, 3].item() == 7.0
    t[0, 0, 0] = 5.0
    assert ember.matrix_transpose(t)[0, 0, 0].item() == 5.0
    assert t._version == p._version == 2


def test_views_of_meta_tensors_and_attrs_in_the_inference_cache():
    m = ember.empty(2, 3, 4, device="meta")
    assert m.permute(2, 0, 1).shape == (4, 2, 3) and m.reshape(6, -1).is_meta
    assert m.transpose(0, 2).reshape(-1).shape == (24,)  # the copying branch infers on meta too
    assert ember.cat([m, m], 1).shape == (2, 6, 4) and ember.flip(m, 0).is_meta
    assert ember.pad(m, (1, 1)).shape == (2, 3, 6)
    for name, op in VIEW_OPS.items():
        assert op.infer is not None and op.view is not None, name
