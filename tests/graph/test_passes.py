"""Graph optimization passes: each pass on its own (before/after op types and values, and what it
must not do), ``optimize`` as a whole (the user's graph untouched, the tensor map, the report),
and a differential test of random programs: eager vs Session vs Session on the optimized graph."""


import numpy as np
import pytest

import ember
from ember.dispatch.interpreter import EAGER
from ember.graph import passes
from ember.graph.passes import algebraic, constant_folding, cse, dce, fusion, memory, optimize
from ember.graph.passes.rewrite import RGraph
from ember.graph.run.plan import Plan, _run_graph_op, inplace_target

G = ember.graph


# -- helpers ------------------------------------------------------------------------------------


def types(graph) -> list:
    return [op.kind for op in graph.get_operations()]


def count(graph, op_type: str) -> int:
    return types(graph).count(op_type)


def run(graph, fetches, feed_dict=None, targets=()):
    with G.Session(graph=graph) as sess:
        for t in targets:
            sess.run(t)
        return sess.run(fetches, feed_dict=feed_dict)


def only(graph, fetches, feeds=(), pass_names=()):
    """The graph after exactly ``pass_names`` (no dce unless named), and the tensor map."""
    return optimize(graph, fetches, feeds, passes=pass_names)


def mapped(tmap, fetches):
    return [tmap[id(f)] for f in fetches]


def feeds_of(tmap, feed_dict):
    return {tmap[id(k)]: v for k, v in feed_dict.items()}


def same(a, b):
    for x, y in zip(a, b, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


X = np.array([[-1.5, 0.0, 2.0], [3.0, -4.0, 0.5]], np.float32)


# -- constant folding ---------------------------------------------------------------------------


def test_constant_folding_evaluates_constant_subgraphs_once():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(None, 3), name="x")
        c = (G.constant([1.0, 2.0, 3.0]) * 2.0 + ember.ones(3)).exp()  # Const, fill, mul_scalar, add, exp
        y = x * c
    new, tmap = only(g, [y], [x], ["constant_folding", "dce"])
    assert count(g, "Const") == 1 and count(new, "Const") == 1
    assert set(types(new)) == {"Placeholder", "Const", "mul"}
    same(run(g, [y], {x: X}), run(new, mapped(tmap, [y]), feeds_of(tmap, {x: X})))
    folded = next(op for op in new.get_operations() if op.type == "Const")
    np.testing.assert_allclose(folded.attrs["value"].numpy(), np.exp(np.array([3.0, 5.0, 7.0], np.float32)), rtol=1e-6)


def test_constant_folding_stops_at_placeholders_variables_random_and_feeds():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(3,), name="x")
        v = G.Variable(ember.zeros(3), name="v")
        r = ember.rand(3)
        c = G.constant([1.0, 2.0, 3.0])
        a = (x + 1.0) * c
        b = (v + 1.0) * c
        d = r * c
        fed = G.constant([5.0, 5.0, 5.0], name="fed")
        e = fed * 2.0
    new, tmap = only(g, [a, b, d, e, v.initializer], [x, fed], ["constant_folding"])
    assert count(new, "add_scalar") == 2 and count(new, "uniform") == 1
    assert count(new, "mul_scalar") == 1  # fed * 2.0 stays: its input is fed
    assert count(new, "fill") == 0  # ember.zeros(3) (the initial value) folds
    out = run(new, mapped(tmap, [a, b, e]), feeds_of(tmap, {x: np.ones(3, np.float32), fed: np.ones(3, np.float32)}),
              targets=[tmap[id(v.initializer)]])
    same(out, [np.array([2, 4, 6], np.float32), np.array([1, 2, 3], np.float32), np.full(3, 2, np.float32)])


def test_constant_folding_respects_control_inputs_errors_and_the_size_limit(monkeypatch):
    g = G.Graph()
    with g.as_default():
        gate = G.no_op(name="gate")
        with G.control_dependencies([gate]):
            ordered = G.constant(2.0) * 3.0
        bad = G.constant([1, 2]) // G.constant([0, 1])  # integer division by zero: left to raise
        big = ember.ones(4, 4) * 2.0
    new, _ = only(g, [ordered, bad, big], [], ["constant_folding"])
    assert count(new, "mul_scalar") == 1 and count(new, "floor_divide") == 1
    assert count(new, "fill") == 0
    monkeypatch.setattr(constant_folding, "MAX_ELEMENTS", 8)
    new, _ = only(g, [big], [], ["constant_folding"])
    assert count(new, "fill") == 1 and count(new, "mul_scalar") == 1


# -- cse ------------------------------------------------------------------------------------------


def test_cse_merges_equal_computations_and_constants():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(None, 3), name="x")
        a = (x * 2.0).exp() + G.constant([1.0, 2.0, 3.0])
        b = (x * 2.0).exp() + G.constant([1.0, 2.0, 3.0])
        y = a * b
    rg = RGraph.from_graph(g, [y], [x])
    assert cse.run(rg, rg.keep) == 4  # mul_scalar, exp, Const, add
    assert cse.run(rg, rg.keep) == 0
    new, tmap = only(g, [y], [x], ["cse", "dce"])
    assert types(g).count("exp") == 2 and count(new, "exp") == 1
    assert count(new, "mul_scalar") == 1 and count(new, "add") == 1 and count(new, "Const") == 1
    same(run(g, [y], {x: X}), run(new, mapped(tmap, [y]), feeds_of(tmap, {x: X})))


def test_cse_keeps_random_ops_different_attrs_and_control_inputs_apart():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(3,), name="x")
        r1, r2 = ember.rand(1000), ember.rand(1000)
        i1, i2 = x * 2, x * 2.0  # int vs float scalar: not the same attrs
        z1, z2 = x * 0.0, x * -0.0  # signed zeros differ
        gate = G.no_op()
        with G.control_dependencies([gate]):
            c1 = x + 1.0
        c2 = x + 1.0
    fetches = [r1, r2, i1, i2, z1, z2, c1, c2]
    new, tmap = only(g, fetches, [x], ["cse"])
    assert count(new, "uniform") == 2 and count(new, "mul_scalar") == 4 and count(new, "add_scalar") == 2
    out = run(new, mapped(tmap, fetches), feeds_of(tmap, {x: np.array([1.0, -1.0, 2.0], np.float32)}))
    assert not np.array_equal(out[0], out[1])
    assert np.signbit(out[4][1]) != np.signbit(out[5][1])
    # and the same ops without those differences do merge
    with g.as_default():
        i3 = x * 2
    new, _ = only(g, [i1, i3], [x], ["cse"])
    assert count(new, "mul_scalar") == 1


# -- dce ------------------------------------------------------------------------------------------


def test_dce_drops_what_no_fetch_needs_and_keeps_needed_assignments():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(3,), name="x")
        v = G.Variable(ember.zeros(3), name="v")
        inc = v.assign_add(ember.ones(3))
        unused_write = v.assign(ember.full((3,), 7.0))
        with G.control_dependencies([inc]):
            out = G.identity(x * 2.0)
        (x.exp() + 1.0).sum()  # dead
    rg = RGraph.from_graph(g, [out, v.initializer], [x], prune=False)
    before = [n.type for n in rg.nodes]
    removed = dce.run(rg, rg.keep)
    after = [n.type for n in rg.nodes]
    assert removed == len(before) - len(after) > 0
    assert "exp" not in after and "sum" not in after
    assert after.count("AssignAdd") == 1 and after.count("Assign") == 1  # the initializer; v.assign(7) goes
    assert unused_write.op.type == "Assign"
    new, tmap = only(g, [out, v.initializer, v], [x], ["dce"])
    with G.Session(graph=new) as sess:
        sess.run(tmap[id(v.initializer)])
        for _ in range(2):
            sess.run(tmap[id(out)], {tmap[id(x)]: np.ones(3, np.float32)})
        np.testing.assert_array_equal(sess.run(tmap[id(v)]), [2.0, 2.0, 2.0])


# -- algebraic ------------------------------------------------------------------------------------


def test_algebraic_bypasses_identities():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(None, 3), name="x")
        y = ((x * 1 + 0) / 1 - 0) ** 1
        y = y.neg().neg()
        y = y.t().t().permute(1, 0).transpose(0, 1)
        y = y.view(-1, 3).reshape(-1, 3) * ember.ones(3) + ember.zeros(1, 3)
        y = G.identity(y).relu()
    rg = RGraph.from_graph(g, [y], [x])
    constant_folding.run(rg, rg.keep)
    assert algebraic.run(rg, rg.keep) == 13  # 5 scalar forms, neg, 2 in the transposes, 2 views, 2 tensor forms, Identity
    new, tmap = only(g, [y], [x], ["constant_folding", "algebraic", "dce"])
    assert types(new) == ["Placeholder", "relu"]
    same(run(g, [y], {x: X}), run(new, mapped(tmap, [y]), feeds_of(tmap, {x: X})))


def test_algebraic_never_changes_dtype_shape_or_a_real_permutation():
    g = G.Graph()
    with g.as_default():
        i = G.placeholder(ember.int32, shape=(2, 2), name="i")
        x = G.placeholder(ember.float32, shape=(3,), name="x")
        m = G.placeholder(ember.float32, shape=(2, 2), name="m")
        outs = [
            i * 1.0,  # int32 -> float32
            i / 1,  # true division: float
            x + ember.zeros(2, 3),  # broadcasts to (2, 3)
            x * G.constant([1.0, 1.0, 2.0]),  # not all ones
            m.t(),  # a real transpose, same shape
            m.t().t().t(),
            i * 1,  # int32 * 1 is int32: this one goes
        ]
    new, tmap = only(g, outs, [i, x, m], ["constant_folding", "algebraic", "dce"])
    assert count(new, "mul_scalar") == 1 and count(new, "div_scalar") == 1 and count(new, "add") == 1 and count(new, "mul") == 1
    assert count(new, "t") == 2  # m.t(), and the triple collapses to one kept t (its input is m.t())
    iv, xv, mv = np.array([[1, 2], [3, 4]], np.int32), np.array([1.0, 2.0, 3.0], np.float32), np.arange(4, dtype=np.float32).reshape(2, 2)
    feed = {i: iv, x: xv, m: mv}
    a, b = run(g, outs, feed), run(new, mapped(tmap, outs), feeds_of(tmap, feed))
    same(a, b)
    assert b[0].dtype == np.float32 and b[-1].dtype == np.int32 and b[2].shape == (2, 3)


def test_algebraic_compares_unknown_sizes_by_their_expressions():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(None, None), name="x")
        swapped = x.reshape(x.size(1), x.size(0)).relu()  # (m, n): not x's shape
        same_shape = x.reshape(x.size(0), x.size(1)).relu()  # (n, m): x's shape
        flat = x.reshape(-1).reshape(x.size(0), -1).relu()  # (n, n * m // n): not proven (a division by n)
    fetches = [swapped, same_shape, flat]
    new, tmap = only(g, fetches, [x], ["algebraic"])
    assert count(g, "view") == 4 and count(new, "view") == 3
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = run(new, mapped(tmap, fetches), feeds_of(tmap, {x: xv}))
    assert [o.shape for o in out] == [(3, 2), (2, 3), (2, 3)]
    same(out, run(g, fetches, {x: xv}))


def test_algebraic_leaves_variable_reads_in_place():
    g = G.Graph()
    with g.as_default():
        v = G.Variable(G.constant([1.0, 2.0]), name="v")
        y = v * 1.0
    new, _ = only(g, [y, v.initializer], [], ["algebraic"])
    assert count(new, "mul_scalar") == 1


# -- fusion ---------------------------------------------------------------------------------------


def test_fusion_makes_one_node_of_an_elementwise_chain():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(None, 3), name="x")
        b = G.placeholder(ember.float32, shape=(3,), name="b")
        y = ((x * 2.0 + b).relu() - 1.0).tanh()
    new, tmap = only(g, [y], [x, b], ["fusion"])
    assert types(new) == ["Placeholder", "Placeholder", "Fused"]
    fused = new.get_operations()[-1]
    assert fused.attrs["ops"] == ("mul_scalar", "add", "relu", "sub_scalar", "tanh")
    bv = np.array([0.5, -0.5, 1.0], np.float32)
    for batch in (X, np.random.default_rng(0).standard_normal((7, 3)).astype(np.float32)):  # unknown batch: two sizes
        same(run(g, [y], {x: batch, b: bv}), run(new, mapped(tmap, [y]), feeds_of(tmap, {x: batch, b: bv})))


def test_fusion_keeps_intermediates_read_outside_or_fetched_and_makes_no_cycle():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(2, 3), name="x")
        e = x.exp()
        s = e.sum(1, keepdim=True)  # reads e: a path out of the chain and back
        z = (e + s).sqrt() * 3.0
        w = e * 2.0  # e also feeds another chain
        k = (w + 1.0).abs()
        fetched_mid = w
    fetches = [z, k, fetched_mid]
    new, tmap = only(g, fetches, [x], ["fusion"])
    rg = RGraph.from_graph(new, mapped(tmap, fetches), [tmap[id(x)]])
    rg.toposort()  # no cycle
    fused = [op for op in new.get_operations() if op.type == "Fused"]
    assert fused and all(len(op.attrs["ops"]) >= 2 for op in fused)
    assert count(new, "sum") == 1
    producer = tmap[id(fetched_mid)].op
    assert producer.type == "Fused"
    same(run(g, fetches, {x: X}), run(new, mapped(tmap, fetches), feeds_of(tmap, {x: X})))


def test_fusion_skips_random_fed_and_controlled_nodes():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(3,), name="x")
        r = ember.rand(3) * 2.0 + 1.0  # uniform is not elementwise; mul+add fuse
        fed = x * 3.0
        after = (fed + 1.0).exp()  # fed's producer stays out
        gate = G.no_op()
        with G.control_dependencies([gate]):
            c = x.neg()
        d = c.abs()
    fetches = [r, after, d]
    new, tmap = only(g, fetches, [x, fed], ["fusion"])
    assert count(new, "uniform") == 1 and count(new, "mul_scalar") == 1 and count(new, "neg") == 1
    fused = sorted(op.attrs["ops"] for op in new.get_operations() if op.type == "Fused")
    assert fused == [("add_scalar", "exp"), ("mul_scalar", "add_scalar")]
    out = run(new, mapped(tmap, fetches[1:]), feeds_of(tmap, {x: np.ones(3, np.float32), fed: np.zeros(3, np.float32)}))
    same(out, [np.full(3, np.e, np.float32), np.ones(3, np.float32)])


def test_fusion_rules_out_moving_a_variable_read_past_an_assignment():
    g = G.Graph()
    with g.as_default():
        v = G.Variable(G.constant([1.0, 2.0]), name="v")
        early = v * 2.0  # reads v before the write
        write = v.assign(G.constant([10.0, 20.0]))
        with G.control_dependencies([write]):
            late = G.identity(G.constant([0.5, 0.5]))
        y = early + late
    new, tmap = only(g, [y, v.initializer], [], ["fusion"])
    assert count(new, "Fused") == 0
    with G.Session(graph=g) as sess:
        sess.run(v.initializer)
        expected = sess.run(y)
    with G.Session(graph=new) as sess:
        sess.run(tmap[id(v.initializer)])
        np.testing.assert_array_equal(sess.run(tmap[id(y)]), expected)


def test_fused_kernel_runs_on_eager_tensors_with_broadcasting():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(None, 4), name="x")
        b = G.constant(np.arange(4, dtype=np.float32))
        y = (x + b.exp()).sigmoid()
    _, tmap = only(g, [y], [x], ["fusion"])
    op = tmap[id(y)].op
    assert op.type == "Fused" and isinstance(op.attrs["program"], fusion.FusedKernel)
    xv = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    args = [t.op.attrs["value"] if t.op.type == "Const" else ember.tensor(xv) for t in op.inputs]
    (out,) = op.attrs["program"](args)
    np.testing.assert_allclose(out.numpy(), 1 / (1 + np.exp(-(xv + np.exp(np.arange(4))))), rtol=1e-6)


# -- memory ---------------------------------------------------------------------------------------


def _run_honouring_inplace(plan, feed_values):
    """Plan.run with the executor change the memory pass asks for (a primitive marked
    ``inplace`` writes into that input when ``inplace_target`` allows), recording the writes."""
    values = plan.template.copy()
    for s, v in zip(plan.feed_slots, feed_values, strict=True):
        values[s] = v
    written = []
    for step in plan.steps:
        if step.kind == "primitive":
            ins = tuple(values[i] for i in step.ins)
            attrs = {k: v for k, v in step.attrs.items() if k != "inplace"}
            out = None
            if "inplace" in step.op.attrs:
                target = inplace_target(ins, step.op.attrs["inplace"])
                out = None if target is None else (target,)
                written.append(target is not None)
            result = EAGER.apply(step.op.op_expr, ins, attrs, out)
            for s, r in zip(step.outs, result, strict=True):
                values[s] = r
            result = None
        else:
            _run_graph_op(step, values, {})
        for s in step.free:
            values[s] = None
    return [values[s].numpy().copy() for s in plan.fetch_slots], written


def test_memory_marks_ops_that_can_write_into_a_dying_input():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(None, 3), name="x")
        w = G.constant(np.ones((3, 3), np.float32))
        h = ember.matmul(x, w)  # fresh, read once: add may write into it
        a = h + G.constant([1.0, 2.0, 3.0])
        v = ember.matmul(a, w)
        twice = v.relu()  # v is read by relu and by the sum below: no
        s = v.sum()
        viewed = ember.matmul(x, w)
        t = viewed.t()  # a view of viewed: no
        n = viewed.neg()
        c = G.constant([1.0, 2.0, 3.0]) + x  # input 0 is a Const: no
        p = x.exp()  # a feed: no
    fetches = [a, twice, s, t, n, c, p]
    new, tmap = only(g, fetches, [x], ["memory"])
    marked = {op.name: op.attrs.get("inplace") for op in new.get_operations() if op.op_expr is not None and op.kind != "matmul"}
    assert marked == {"add": 0, "Relu": None, "Sum": None, "t": None, "Neg": None, "add_1": None, "Exp": None}
    # "a" is fetched, but its input h dies with it: writing into h is fine
    plan = Plan(new, mapped(tmap, fetches), [], [tmap[id(x)]])
    got, written = _run_honouring_inplace(plan, [ember.tensor(X)])
    assert written == [True]
    same(got, run(g, fetches, {x: X}))


def test_memory_runtime_check_refuses_broadcast_and_views():
    a = ember.ones(2, 3)
    assert inplace_target((a, ember.ones(3)), 0) is a
    assert inplace_target((ember.ones(1, 3), ember.ones(2, 3)), 0) is None  # would grow
    assert inplace_target((ember.ones(3, 2).t(), ember.ones(2, 3)), 0) is None  # a view
    assert inplace_target((a, ember.ones(4, 2, 3)), 0) is None


def test_every_op_the_memory_pass_may_mark_computes_the_same_into_its_first_input():
    from ember.dispatch.opexpr import OP_REGISTRY

    rng = np.random.default_rng(0)
    attr_sets = [{}, {"other": 2}, {"other": 2.5}, {"alpha": 2}, {"min": -1.0, "max": 1.0}, {"negative_slope": 0.1}, {"weight": 0.3}]
    checked = 0
    for name in sorted(memory._inplace_ops()):
        op = OP_REGISTRY[name]
        for dt in (np.float32, np.int32):
            arrays = [(rng.standard_normal((4, 5)) * 3).astype(dt) for _ in op.inputs]
            if name in ("log", "log2", "log10", "sqrt", "rsqrt", "acosh"):
                arrays = [np.abs(a) + 1 for a in arrays]
            for attrs in attr_sets:
                try:
                    ref = EAGER.apply(op, tuple(ember.tensor(a.copy()) for a in arrays), attrs)[0].numpy()
                except Exception:  # not this op's attributes or dtype
                    continue
                if ref.dtype != arrays[0].dtype:
                    break
                ts = [ember.tensor(a.copy()) for a in arrays]
                EAGER.apply(op, tuple(ts), attrs, (ts[0],))
                np.testing.assert_array_equal(ts[0].numpy(), ref, err_msg=f"{name} {dt.__name__} {attrs}")
                checked += 1
                break
    assert checked > 100


def test_memory_mark_survives_a_fused_chain_and_values_stay_right():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(None, 3), name="x")
        y = ember.matmul(x, G.constant(np.eye(3, dtype=np.float32))) + 1.0
        z = ember.matmul(y.relu(), G.constant(np.eye(3, dtype=np.float32))).neg()
    new, tmap = optimize(g, [z], [x])
    assert count(new, "Fused") == 1 and count(new, "neg") == 1
    neg = next(op for op in new.get_operations() if op.kind == "neg")
    assert neg.attrs.get("inplace") == 0
    plan = Plan(new, [tmap[id(z)]], [], [tmap[id(x)]])
    got, written = _run_honouring_inplace(plan, [ember.tensor(X)])
    assert written == [True]
    same(got, run(g, [z], {x: X}))


# -- optimize -------------------------------------------------------------------------------------


def _model_graph():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(None, 3), name="x")
        w = G.Variable(ember.ones(3, 3) * 0.5, name="w")
        h = x
        for _ in range(3):
            h = (ember.matmul(h, w) * 1.0 + ember.ones(3)).relu()
            h = h + (h * 2.0).exp().sum(1, keepdim=True) * 0.01
        y = h.mean()
        init = G.global_variables_initializer()
    return g, x, y, init


def test_optimize_leaves_the_users_graph_alone_and_maps_fetches_and_feeds():
    g, x, y, init = _model_graph()
    ops = g.get_operations()
    snapshot = [(op.name, op.type, tuple(op.inputs), tuple(op.control_inputs), tuple(op._consumers), dict(op.attrs)) for op in ops]
    version = g.version
    new, tmap = optimize(g, [y, init], [x])
    assert new is not g and g.version == version and g.get_operations() == ops
    assert [(op.name, op.type, tuple(op.inputs), tuple(op.control_inputs), tuple(op._consumers), dict(op.attrs)) for op in ops] == snapshot
    assert tmap[id(y)].graph is new and tmap[id(x)].graph is new and tmap[id(init)].graph is new
    assert tmap[id(x)].name == "x:0" and len(new.get_operations()) < len(ops)
    with G.Session(graph=g) as sess:
        sess.run(init)
        expected = sess.run(y, {x: X})
    with G.Session(graph=new) as sess:
        sess.run(tmap[id(init)])
        np.testing.assert_allclose(sess.run(tmap[id(y)], {tmap[id(x)]: X}), expected, rtol=1e-5)


def test_optimize_keeps_names_the_graph_made_itself_and_names_new_nodes_uniquely():
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(2,), name="x")
        d = x.double()  # a node named "_to_copy": the graph's own name, refused from a caller
        y = (d * 2.0 + 1.0).exp()
        G.identity(x, name="exp/fused")  # takes the name fusion would suggest
    new, tmap = optimize(g, [y, d], [x])
    names = [op.name for op in new.get_operations()]
    assert "_to_copy" in names and len(set(names)) == len(names)
    assert new.get_operation_by_name("_to_copy").kind == "_to_copy"
    fused = tmap[id(y)].op
    assert fused.type == "Fused" and fused.name != "exp/fused" and new.get_operation_by_name(fused.name) is fused
    same(run(new, mapped(tmap, [y, d]), feeds_of(tmap, {x: np.ones(2, np.float32)})), run(g, [y, d], {x: np.ones(2, np.float32)}))


def test_optimize_reports_what_each_pass_did(capsys):
    g, x, y, init = _model_graph()
    optimize(g, [y, init], [x], report=True)
    text = capsys.readouterr().out
    for name in ("constant_folding", "algebraic", "cse", "dce", "fusion", "memory"):
        assert f"  {name}: " in text
    assert "folded" in text and "bypassed" in text and "fused" in text
    assert passes.explain(g, [y, init], [x]).startswith("optimize: ")
    with pytest.raises(ValueError, match="unknown pass 'nope'"):
        optimize(g, [y], [x], passes=["nope"])


# -- differential: random programs --------------------------------------------------------------


_UNARY = ["exp", "tanh", "relu", "sigmoid", "abs", "neg", "square", "sin"]
_BINARY = ["add", "sub", "mul", "maximum"]


def _random_program(rng, api, x_value, w_value):
    """A random program over ``api`` (eager ember or a graph scope): a list of values built by
    elementwise ops, scalars, constants, matmuls, reductions and reshapes. Same rng -> same program."""
    x = api["x"]
    vals = [x]
    consts = {}
    for _ in range(int(rng.integers(6, 16))):
        kind = rng.choice(["unary", "binary", "scalar", "const", "matmul", "reduce", "reshape", "transpose"])
        a = vals[int(rng.integers(len(vals)))]
        if kind == "unary":
            v = getattr(ember, _UNARY[int(rng.integers(len(_UNARY)))])(a)
        elif kind == "binary":
            b = vals[int(rng.integers(len(vals)))]
            v = getattr(ember, _BINARY[int(rng.integers(len(_BINARY)))])(a, b)
        elif kind == "scalar":
            s = float(rng.choice([0.0, 1.0, 0.5, -2.0]))
            v = [a * s, a + s, a - s][int(rng.integers(3))]
        elif kind == "const":
            key = len(consts)
            consts[key] = rng.choice([0.0, 1.0, 0.25], size=(4,)).astype(np.float32)
            c = api["const"](consts[key])
            if rng.random() < 0.5:
                c = (c * 2.0 - 1.0).exp() * 0.5  # a constant subexpression: folds
            v = a * c + api["const"](np.zeros(4, np.float32))
        elif kind == "matmul":
            v = ember.matmul(a, api["const"](w_value)) * 0.25
        elif kind == "reduce":
            v = a.sum(1, keepdim=True) * 0.1 + a if rng.random() < 0.5 else a - a.mean(0, keepdim=True)
        elif kind == "reshape":
            v = a.reshape(-1, 2, 2).reshape(-1, 4) * 1.0
        else:
            v = a.t().t() if rng.random() < 0.5 else a.t().relu().t()
        v = ember.tanh(v)  # keep values bounded
        vals.append(v)
    return vals[1:]


@pytest.mark.parametrize("seed", range(24))
def test_random_programs_agree_eager_session_and_optimized(seed):
    rng = np.random.default_rng(seed)
    x_value = rng.standard_normal((5, 4)).astype(np.float32)
    w_value = rng.standard_normal((4, 4)).astype(np.float32)
    eager = _random_program(np.random.default_rng(seed + 1000), {"x": ember.tensor(x_value), "const": ember.tensor}, x_value, w_value)
    g = G.Graph()
    with g.as_default():
        x = G.placeholder(ember.float32, shape=(None, 4), name="x")
        outs = _random_program(np.random.default_rng(seed + 1000), {"x": x, "const": G.constant}, x_value, w_value)
    plain = run(g, outs, {x: x_value})
    new, tmap = optimize(g, outs, [x])
    opt = run(new, mapped(tmap, outs), feeds_of(tmap, {x: x_value}))
    expected = [t.numpy() for t in eager]
    same(plain, expected)
    same(opt, expected)
    assert len(new.get_operations()) <= len(g.get_operations())
    # without fusion, more single elementwise ops remain: run them honouring the in-place marks
    unfused, tmap = optimize(g, outs, [x], passes=[p for p in passes.DEFAULT_PASSES if p != "fusion"])
    got, _ = _run_honouring_inplace(Plan(unfused, mapped(tmap, outs), [], [tmap[id(x)]]), [ember.tensor(x_value)])
    same(got, expected)
