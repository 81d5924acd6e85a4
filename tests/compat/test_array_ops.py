"""compat.v1's shape, creation, joining, indexing and reordering ops: values against NumPy,
TensorFlow's dtypes, node names and types, run-time shapes, errors and gradients."""

import numpy as np
import pytest

import ember.compat.v1 as tf
from tests.compat._helpers import check_gradient, run

C = np.arange(12, dtype=np.float32).reshape(3, 4)


def test_shape_of_a_partly_known_tensor_is_read_when_the_graph_runs():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (None, 3), name="x")
        s = tf.shape(x)
        batch = tf.shape(x)[0]
        s64 = tf.shape(x, out_type=tf.int64)
        size, rank = tf.size(x), tf.rank(x)
        known = tf.shape(tf.zeros([2, 5]))
        flat = tf.reshape(x, [tf.shape(x)[0], -1])
        stacked = tf.reshape(x, tf.stack([batch, 3, 1]))
        zeros = tf.zeros([tf.shape(x)[0], 2])
        n = tf.shape_n([x, known])
    assert (s.op.name, s.op.type, s.dtype, s.shape.as_list()) == ("Shape", "Shape", tf.int32, [2])
    assert (known.op.type, rank.op.type, size.op.type) == ("Const", "Const", "Size")  # known shapes fold, as TensorFlow 1's
    assert s64.dtype is tf.int64 and flat.shape.as_list() == [None, 3] and zeros.shape.as_list() == [None, 2]
    for rows in (2, 5):
        values = run([s, batch, s64, size, rank, known, flat, stacked, zeros, n[0]], {x: np.ones((rows, 3), np.float32)})
        assert [np.asarray(v).tolist() for v in values[:6]] == [[rows, 3], rows, [rows, 3], rows * 3, 2, [2, 5]]
        assert values[6].shape == (rows, 3) and values[7].shape == (rows, 3, 1) and values[8].shape == (rows, 2)
        assert values[9].tolist() == [rows, 3]


def test_a_computed_shape_is_refused_with_a_reason():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        target = tf.shape(x) * 2
        with pytest.raises(NotImplementedError, match=r"must be known when the graph is built or come from tf\.shape"):
            tf.reshape(x, target)


def test_reshape_transpose_expand_squeeze_tile():
    with tf.Graph().as_default():
        c = tf.constant(C)
        got = {
            "reshape": tf.reshape(c, [2, -1]), "transpose": tf.transpose(c), "perm": tf.transpose(tf.reshape(c, [1, 3, 4]), [2, 0, 1]),
            "expand": tf.expand_dims(c, -1), "expand_dim": tf.expand_dims(c, dim=0), "squeeze": tf.squeeze(tf.zeros([1, 3, 1])),
            "squeeze_axis": tf.squeeze(tf.zeros([1, 3, 1]), [2]), "squeeze_dims": tf.squeeze(tf.zeros([1, 3, 1]), squeeze_dims=[0]),
            "tile": tf.tile(c, [2, 1]), "broadcast_to": tf.broadcast_to([1, 2], [3, 2]),
        }  # fmt: skip
        with pytest.raises(ValueError, match="Cannot reshape a tensor with 12 elements to shape"):
            tf.reshape(c, [5, 2])
        with pytest.raises(ValueError, match=r"Can not squeeze dim\[1\], expected a dimension of 1, got 4"):
            tf.squeeze(c, [1])
        with pytest.raises(ValueError, match="not a permutation"):
            tf.transpose(c, [0, 0])
    types = {k: t.op.type for k, t in got.items()}
    assert types["reshape"] == "Reshape" and types["transpose"] == "Transpose" and types["expand"] == "ExpandDims"
    assert types["squeeze"] == "Squeeze" and types["tile"] == "Tile" and got["transpose"].op.name == "transpose"
    v = run(got)
    np.testing.assert_array_equal(v["reshape"], C.reshape(2, -1))
    np.testing.assert_array_equal(v["transpose"], C.T)
    np.testing.assert_array_equal(v["perm"], C.reshape(1, 3, 4).transpose(2, 0, 1))
    assert v["expand"].shape == (3, 4, 1) and v["expand_dim"].shape == (1, 3, 4)
    assert v["squeeze"].shape == (3,) and v["squeeze_axis"].shape == (1, 3) and v["squeeze_dims"].shape == (3, 1)
    np.testing.assert_array_equal(v["tile"], np.tile(C, (2, 1)))
    assert v["broadcast_to"].tolist() == [[1, 2]] * 3


def test_concat_stack_unstack_split():
    with tf.Graph().as_default():
        c = tf.constant(C)
        cat, stack, pack = tf.concat([c, c], 1), tf.stack([c, c], axis=-1), tf.pack([[1, 2], [3, 4]])
        rows = tf.unstack(c)
        cols = tf.unpack(c, axis=1)
        halves, parts = tf.split(c, 2, axis=1), tf.split(c, [1, -1], 0)
        with pytest.raises(TypeError, match="one dtype"):
            tf.concat([c, tf.constant([[1]])], 0)
        with pytest.raises(ValueError, match="evenly divisible by 3"):
            tf.split(c, 3, axis=1)
        with pytest.raises(ValueError, match="Cannot infer argument `num`"):
            tf.unstack(tf.placeholder(tf.float32, (None, 2)))
    assert (cat.op.type, stack.op.type, rows[0].op.type, halves[0].op.type, parts[0].op.type) == (
        "ConcatV2",
        "Pack",
        "Unpack",
        "Split",
        "SplitV",
    )
    assert (cat.op.name, stack.op.name, halves[0].op.name) == ("concat", "stack", "split")
    v = run([cat, stack, pack, *rows, *cols, *halves, *parts])
    np.testing.assert_array_equal(v[0], np.concatenate([C, C], 1))
    np.testing.assert_array_equal(v[1], np.stack([C, C], -1))
    assert v[2].tolist() == [[1, 2], [3, 4]] and v[2].dtype == np.int32
    for i in range(3):
        np.testing.assert_array_equal(v[3 + i], C[i])
    for j in range(4):
        np.testing.assert_array_equal(v[6 + j], C[:, j])
    np.testing.assert_array_equal(v[10], C[:, :2])
    np.testing.assert_array_equal(v[11], C[:, 2:])
    np.testing.assert_array_equal(v[12], C[:1])
    np.testing.assert_array_equal(v[13], C[1:])


def test_gather_gather_nd_scatter_nd_one_hot():
    with tf.Graph().as_default():
        c = tf.constant(C)
        got = [
            tf.gather(c, [[2, 0]]), tf.gather(c, tf.constant([3, 1], dtype=tf.int64), axis=1), tf.gather(c, [[1], [0], [3]], batch_dims=1),
            tf.gather_nd(c, [[1, 2], [0, 0]]), tf.gather_nd(c, [[2]]), tf.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [5]),
            tf.scatter_nd([[0, 1]], [[5, 6]], tf.constant([2, 2, 2])) if False else tf.scatter_nd([[0, 1]], [[5, 6]], [2, 2, 2]),
            tf.one_hot([0, 2, -1, 7], 3), tf.one_hot([0, 2], 3, on_value=5, off_value=-1, axis=0), tf.one_hot([1], 2, dtype=tf.int64),
        ]  # fmt: skip
        with pytest.raises(TypeError, match="DataType float32 not in list of allowed values: int32, int64"):
            tf.gather(c, [0.5])
    assert [t.op.type for t in got] == ["GatherV2"] * 3 + ["GatherNd"] * 2 + ["ScatterNd"] * 2 + ["OneHot"] * 3
    assert [t.dtype for t in got[7:]] == [tf.float32, tf.int32, tf.int64]
    v = run(got)
    np.testing.assert_array_equal(v[0], C[[[2, 0]]])
    np.testing.assert_array_equal(v[1], C[:, [3, 1]])
    np.testing.assert_array_equal(v[2], [[C[0, 1]], [C[1, 0]], [C[2, 3]]])
    np.testing.assert_array_equal(v[3], [C[1, 2], C[0, 0]])
    np.testing.assert_array_equal(v[4], [C[2]])
    assert v[5].tolist() == [0.0, 4.0, 0.0, 2.0, 0.0]  # repeated indices sum
    assert v[6].tolist() == [[[0, 0], [5, 6]], [[0, 0], [0, 0]]]
    assert v[7].tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]
    assert v[8].tolist() == [[5, -1], [-1, -1], [-1, 5]] and v[9].tolist() == [[0, 1]]


def test_creation_ops_take_tensorflows_dtypes():
    with tf.Graph().as_default():
        got = [tf.zeros([2, 3]), tf.ones((2,), tf.int32), tf.zeros_like(tf.constant([1, 2])), tf.ones_like(C, dtype=tf.int64), tf.fill([2, 2], 7),
               tf.range(5), tf.range(1, 2, 0.25), tf.range(3, dtype=tf.float64), tf.linspace(0.0, 1.0, 5), tf.lin_space(-1.0, 1.0, 3),
               tf.eye(2, 3), tf.zeros([2], dtype=tf.bool)]  # fmt: skip
        with pytest.raises(ValueError, match="delta must not be 0"):
            tf.range(0, 5, 0)
    dtypes = [
        tf.float32,
        tf.int32,
        tf.int32,
        tf.int64,
        tf.int32,
        tf.int32,
        tf.float32,
        tf.float64,
        tf.float32,
        tf.float32,
        tf.float32,
        tf.bool,
    ]
    assert [t.dtype for t in got] == dtypes
    assert [t.op.name for t in got[:3]] == ["zeros", "ones", "zeros_like"] and got[5].op.type == "Range"
    v = run(got)
    assert (
        v[0].tolist() == [[0.0] * 3] * 2
        and v[1].tolist() == [1, 1]
        and v[2].tolist() == [0, 0]
        and v[3].tolist() == [[1] * 4] * 3
    )
    assert v[4].tolist() == [[7, 7], [7, 7]] and v[5].tolist() == [0, 1, 2, 3, 4] and v[6].tolist() == [1.0, 1.25, 1.5, 1.75]
    assert v[7].tolist() == [0.0, 1.0, 2.0] and v[8].tolist() == [0.0, 0.25, 0.5, 0.75, 1.0] and v[9].tolist() == [-1.0, 0.0, 1.0]
    assert v[10].tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] and v[11].tolist() == [False, False]


def test_where_follows_tensorflow_1s_rules():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    with tf.Graph().as_default():
        rows = tf.where([True, False, True], x, -x)
        elems = tf.where([[True, False]] * 3, x, -x)
        v2 = tf.where_v2([True, False], 1.0, x)
        with pytest.raises(ValueError, match="Shapes must be equal rank"):
            tf.where([True, False], x, x[0])
    assert (rows.op.type, v2.op.type) == ("Select", "SelectV2")
    v = run([rows, elems, v2])
    np.testing.assert_array_equal(v[0], [[0, 1], [-2, -3], [4, 5]])
    np.testing.assert_array_equal(v[1], np.where([[True, False]] * 3, x, -x))
    np.testing.assert_array_equal(v[2], np.where([True, False], 1.0, x))


def test_reverse_slice_strided_slice_pad():
    with tf.Graph().as_default():
        c = tf.constant(C)
        got = [
            tf.reverse(c, [1]), tf.reverse(c, axis=[0, 1]), tf.slice(c, [1, 1], [-1, 2]), tf.slice(c, [0, 0], [3, 4]),
            tf.strided_slice(c, [0, 3], [3, 0], [2, -1]), tf.strided_slice(c, [1, 0], [2, 4], shrink_axis_mask=1),
            tf.strided_slice(c, [0, 1], [0, 3], begin_mask=1, end_mask=1), tf.strided_slice(c, [0, 0], [1, 2], new_axis_mask=1),
            tf.pad(c, [[1, 0], [0, 2]]), tf.pad(c, [[1, 1], [2, 2]], "REFLECT"), tf.pad(c, [[1, 1], [2, 2]], "symmetric"),
            tf.pad(c, [[0, 1], [1, 0]], constant_values=-1.0),
        ]  # fmt: skip
        with pytest.raises(ValueError, match="no greater than the dimension size"):
            tf.pad(c, [[3, 0], [0, 0]], "REFLECT")
        with pytest.raises(ValueError, match="Unknown padding mode"):
            tf.pad(c, [[1, 1], [1, 1]], "EDGE")
    assert [t.op.type for t in got] == ["ReverseV2"] * 2 + ["Slice"] * 2 + ["StridedSlice"] * 4 + [
        "Pad",
        "MirrorPad",
        "MirrorPad",
        "PadV2",
    ]
    v = run(got)
    expected = [
        C[:, ::-1], C[::-1, ::-1], C[1:, 1:3], C, C[0:3:2, 3:0:-1], C[1, 0:4], C[:, 1:3], C[None, 0:2],
        np.pad(C, [[1, 0], [0, 2]]), np.pad(C, [[1, 1], [2, 2]], "reflect"), np.pad(C, [[1, 1], [2, 2]], "symmetric"),
        np.pad(C, [[0, 1], [1, 0]], constant_values=-1),
    ]  # fmt: skip
    for i, (a, b) in enumerate(zip(v, expected, strict=True)):
        np.testing.assert_array_equal(a, b, err_msg=str(i))


def test_sort_argsort_meshgrid_sequence_mask_diag():
    with tf.Graph().as_default():
        got = [
            tf.sort([3, 1, 2], direction="DESCENDING"), tf.argsort([3.0, 1.0, 2.0]), *tf.meshgrid([1, 2, 3], [4, 5]),
            *tf.meshgrid([1, 2, 3], [4, 5], indexing="ij"), tf.sequence_mask([1, 3], 4), tf.sequence_mask([2], 3, dtype=tf.float32),
            tf.diag([1, 2]), tf.diag_part(tf.constant(np.arange(16).reshape(2, 2, 2, 2))),
        ]  # fmt: skip
    assert got[1].dtype is tf.int32 and got[6].dtype is tf.bool and got[7].dtype is tf.float32
    v = run(got)
    assert v[0].tolist() == [3, 2, 1] and v[1].tolist() == [1, 2, 0]
    for a, b in zip(v[2:6], [*np.meshgrid([1, 2, 3], [4, 5]), *np.meshgrid([1, 2, 3], [4, 5], indexing="ij")], strict=True):
        np.testing.assert_array_equal(a, b)
    assert v[6].tolist() == [[True, False, False, False], [True, True, True, False]] and v[7].tolist() == [[1.0, 1.0, 0.0]]
    assert v[8].tolist() == [[1, 0], [0, 2]] and v[9].tolist() == [[0, 5], [10, 15]]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: tf.reshape(x, [-1]), lambda x: tf.transpose(x), lambda x: tf.concat([x, x * 2.0], 0), lambda x: tf.stack([x, x], 1),
        lambda x: tf.split(x, [1, 2], 1)[1], lambda x: tf.unstack(x)[1], lambda x: tf.tile(x, [2, 1]), lambda x: tf.expand_dims(x, 1),
        lambda x: tf.gather(x, [2, 0, 2], axis=1), lambda x: tf.gather_nd(x, [[1, 2], [0, 0]]), lambda x: tf.reverse(x, [1]),
        lambda x: tf.slice(x, [0, 1], [2, -1]), lambda x: tf.strided_slice(x, [0, 2], [2, 0], [1, -1]), lambda x: tf.pad(x, [[1, 0], [0, 1]]),
        lambda x: tf.pad(x, [[1, 1], [1, 1]], "REFLECT"), lambda x: tf.where([True, False], x, x * x),
    ],
)  # fmt: skip
def test_array_op_gradients_match_finite_differences(fn):
    check_gradient(fn, np.array([[0.5, 1.25, -2.0], [2.0, 0.75, 1.5]]))


def test_scatter_nd_gradient():
    check_gradient(lambda u: tf.scatter_nd([[1], [3], [1]], u, [5]), np.array([1.0, 2.0, 3.0]))


def test_against_tensorflow_where_importable():
    tf_real = pytest.importorskip("tensorflow").compat.v1
    with tf_real.Graph().as_default():
        x = tf_real.placeholder(tf_real.float32, (None, 3))
        ops = [
            tf_real.shape(x),
            tf_real.reshape(x, [-1]),
            tf_real.gather(x, [0], axis=1),
            tf_real.one_hot([1], 2),
            tf_real.range(3),
        ]
        expected = [(t.op.name, t.op.type, t.dtype.name) for t in ops]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        ops = [tf.shape(x), tf.reshape(x, [-1]), tf.gather(x, [0], axis=1), tf.one_hot([1], 2), tf.range(3)]
        assert [(t.op.name, t.op.type, t.dtype.name) for t in ops] == expected


def test_small_known_zeros_and_ones_fold_to_constants_as_tensorflow_1s():
    with tf.Graph().as_default():
        small, large = tf.zeros([2, 3]), tf.ones([40, 40])
        x = tf.placeholder(tf.float32, (None, 2))
        dynamic = tf.zeros([tf.shape(x)[0], 2])
    assert (small.op.name, small.op.type, large.op.type, dynamic.op.type) == ("zeros", "Const", "Fill", "Fill")
    assert run(large).sum() == 1600.0


def test_where_of_a_condition_alone_and_boolean_mask_have_run_time_sizes():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, (None, 2))
        coords = tf.where(x > 0)
        rows = tf.boolean_mask(x, x[:, 0] > 0)
        elements = tf.boolean_mask(x, x > 0)
        columns = tf.boolean_mask(x, [True, False], axis=1)
        (grad,) = tf.gradients(tf.reduce_sum(rows * rows), [x])
        with pytest.raises(ValueError, match="mask cannot be scalar"):
            tf.boolean_mask(x, True)
        with pytest.raises(ValueError, match="incompatible"):
            tf.boolean_mask(x, [True, False, True], axis=1)
        with tf.Session() as sess:
            a = np.array([[1.0, -2.0], [-3.0, 4.0], [5.0, 6.0]])
            got = sess.run([coords, rows, elements, columns, grad], {x: a})
            empty = sess.run([coords, rows], {x: -np.abs(a[:1])})
    assert (coords.op.name, coords.op.type, coords.dtype, coords.shape.as_list()) == ("Where", "Where", tf.int64, [None, 2])
    assert rows.op.name == "boolean_mask" and rows.shape.as_list() == [None, 2]
    assert got[0].tolist() == np.argwhere(a > 0).tolist()
    np.testing.assert_array_equal(got[1], a[a[:, 0] > 0])
    np.testing.assert_array_equal(got[2], a[a > 0])
    np.testing.assert_array_equal(got[3], a[:, :1])
    np.testing.assert_array_equal(got[4], np.where(a[:, :1] > 0, 2 * a, 0.0))
    assert empty[0].shape == (0, 2) and empty[1].shape == (0, 2)


def test_unique_in_first_occurrence_order_and_counts_per_run():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, (None,))
        y, idx = tf.unique(x)
        coords = tf.where(x > 1)
        floats = tf.unique(tf.constant([1.5, 0.5, 1.5]), out_idx=tf.int64)
        with pytest.raises(ValueError, match="unique expects a 1D vector"):
            tf.unique(tf.zeros([2, 2]))
        with tf.Session() as sess:
            first = sess.run([y, idx, coords], {x: [4, 1, 4, 2, 1]})
            second = sess.run([y, idx, coords], {x: [4, 4, 4, 4, 4]})  # the same shape, other counts
            f = sess.run(floats)
    assert (y.op.name, y.op.type, y.dtype, idx.dtype, floats[1].dtype) == ("Unique", "Unique", tf.int32, tf.int32, tf.int64)
    assert first[0].tolist() == [4, 1, 2] and first[1].tolist() == [0, 1, 0, 2, 1] and first[2].tolist() == [[0], [2], [3]]
    assert second[0].tolist() == [4] and second[1].tolist() == [0] * 5 and second[2].tolist() == [[0], [1], [2], [3], [4]]
    assert f[0].tolist() == [1.5, 0.5] and f[1].tolist() == [0, 1, 0]


def test_range_up_to_a_run_time_size():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        n = tf.shape(x)[0]
        ranges = [tf.range(n), tf.range(1, n, 2), tf.range(n, 0, -1)]
        first_column = tf.gather_nd(x, tf.stack([tf.range(n), tf.zeros_like(tf.range(n))], axis=1))
        with pytest.raises(NotImplementedError, match="integer ranges only"):
            tf.range(0.0, tf.cast(n, tf.float32))
        a = np.arange(15, dtype=np.float32).reshape(5, 3)
        got = run([*ranges, first_column], {x: a})
    assert ranges[0].dtype is tf.int32 and ranges[0].op.type == "Range"
    assert [g.tolist() for g in got[:3]] == [[0, 1, 2, 3, 4], [1, 3], [5, 4, 3, 2, 1]]
    assert got[3].tolist() == a[:, 0].tolist()


def test_the_ops_run_eagerly_outside_a_graph():
    assert tf.executing_eagerly()
    c = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert tf.shape(c).numpy().tolist() == [2, 2] and tf.size(c).numpy() == 4
    assert tf.reduce_sum(c, 1).numpy().tolist() == [3.0, 7.0] and tf.reshape(c, [-1]).numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    assert tf.matmul(c, c).numpy().tolist() == [[7.0, 10.0], [15.0, 22.0]]
    assert tf.where(c > 2.0).numpy().tolist() == [[1, 0], [1, 1]] and tf.unique([3, 1, 3])[0].numpy().tolist() == [3, 1]
    assert tf.boolean_mask(c, [False, True]).numpy().tolist() == [[3.0, 4.0]]
