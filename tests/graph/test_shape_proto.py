"""TensorShape and Dimension: TensorFlow's static-shape API, and TensorShapeProto both ways."""

import pickle

import numpy as np
import pytest

import ember
from ember import io
from ember.graph.dimension import Dimension, as_dimension, dimension_value
from ember.graph.symbolic import TensorShape, as_shape, unknown_dim, unknown_shape

SHAPES = [None, [], [3], [None], [None, 3], [2, 3, 4], [0, None, 1]]


@pytest.mark.parametrize("dims", SHAPES, ids=str)
def test_proto_round_trip(dims):
    shape = TensorShape(dims)
    proto = shape.as_proto()
    assert isinstance(proto, io.TensorShapeProto)
    assert proto.unknown_rank == (dims is None)
    assert [d.size for d in proto.dim] == ([] if dims is None else [-1 if d is None else d for d in dims])
    assert TensorShape(proto) == shape and TensorShape(proto).rank == shape.rank
    assert TensorShape.experimental_from_proto(shape.experimental_as_proto()) == shape
    assert TensorShape(io.TensorShapeProto.FromString(proto.SerializeToString())) == shape


def test_proto_reading_rules():
    unknown = io.TensorShapeProto(unknown_rank=True)
    assert TensorShape(unknown).rank is None and TensorShape(unknown).dims is None
    named = io.TensorShapeProto(dim=[io.TensorShapeProto.Dim(size=2, name="batch"), io.TensorShapeProto.Dim(size=-1)])
    assert TensorShape(named).as_list() == [2, None]  # names are dropped: ember's shapes have none
    with pytest.raises(ValueError, match=r"a dimension must be >= 0 \(or -1 or None for unknown\), got -2"):
        TensorShape(io.TensorShapeProto(dim=[io.TensorShapeProto.Dim(size=-2)]))
    with pytest.raises(TypeError, match=r"must be a TensorShapeProto, not ember.TensorProto"):
        TensorShape(io.TensorProto())


def test_proto_bytes_match_tensorflow_message():
    tb_shape = pytest.importorskip("tensorboard.compat.proto.tensor_shape_pb2")
    for dims in SHAPES:
        ours = TensorShape(dims).as_proto().SerializeToString()
        theirs = tb_shape.TensorShapeProto.FromString(ours)
        assert theirs.unknown_rank == (dims is None)
        assert theirs.SerializeToString() == ours
        assert TensorShape(theirs) == TensorShape(dims)  # another library's message is read directly


def test_construction():
    assert TensorShape(3).as_list() == [3]
    assert TensorShape([Dimension(3), Dimension(None), np.int64(2)]).as_list() == [3, None, 2]
    assert TensorShape(np.array([2, 3])).as_list() == [2, 3]
    assert TensorShape((unknown_dim(), 4)).as_list() == [None, 4]
    assert TensorShape([-1, 2]).as_list() == [None, 2]  # -1 is unknown, as in a TensorShapeProto
    with pytest.raises(TypeError, match=r"failed to convert 'ab' to a shape"):
        TensorShape("ab")
    with pytest.raises(TypeError, match=r"a dimension must be an int or None, got 1.5 of type float"):
        TensorShape([1.5])
    with pytest.raises(ValueError, match=r"got -2"):
        TensorShape([-2])


def test_reading():
    s = TensorShape([None, 3])
    assert (s.rank, s.ndims, len(s), list(s), bool(s)) == (2, 2, 2, [None, 3], True)
    assert [type(d) for d in s.dims] == [Dimension, Dimension] and [d.value for d in s.dims] == [None, 3]
    assert s[0] is None and s[1] == 3 and type(s[1]) is int and s[-1] == 3 and s[Dimension(1)] == 3
    assert s[1:] == TensorShape([3]) and s[:0] == TensorShape([])
    assert (s.num_elements(), TensorShape([2, 3]).num_elements(), TensorShape([]).num_elements()) == (None, 6, 1)
    assert not s.is_fully_defined() and TensorShape([2]).is_fully_defined()
    assert bool(TensorShape([])) and not bool(TensorShape(None))
    with pytest.raises(IndexError):
        s[5]


def test_unknown_rank():
    u = TensorShape(None)
    assert (u.rank, u.ndims, u.dims, u.num_elements(), u[0]) == (None, None, None, None, None)
    assert u[1:3] == TensorShape([None, None]) and u[1:].rank is None and u[-2:].rank is None
    with pytest.raises(ValueError, match=r"^as_list\(\) is not defined on an unknown TensorShape.$"):
        u.as_list()
    with pytest.raises(ValueError, match=r"^Cannot take the length of shape with unknown rank\.$"):
        len(u)
    with pytest.raises(ValueError, match=r"^Cannot iterate over a shape with unknown rank\.$"):
        iter(u)
    with pytest.raises(ValueError, match="Steps are not yet handled"):
        u[::2]


def test_combining():
    s = TensorShape([None, 3])
    assert s.merge_with([4, None]) == TensorShape([4, 3]) and TensorShape(None).merge_with(s) == s
    assert s.concatenate([2]) == TensorShape([None, 3, 2]) and s.concatenate(None).rank is None
    assert s + [1] == TensorShape([None, 3, 1]) and [1] + s == TensorShape([1, None, 3])  # noqa: RUF005 - the operators under test
    assert TensorShape([1, 2]).most_specific_compatible_shape([1, 3]) == TensorShape([1, None])
    assert s.most_specific_compatible_shape([None, 3, 4]).rank is None
    assert s.is_compatible_with([2, 3]) and not s.is_compatible_with([2, 4]) and s.is_compatible_with(None)
    assert not s.is_compatible_with([3])
    assert s.with_rank(2) is not None and TensorShape(None).with_rank(2) == TensorShape([None, None])
    assert s.with_rank_at_least(1) == s and s.with_rank_at_most(2) == s
    assert unknown_shape(2) == TensorShape([None, None]) and unknown_shape().rank is None
    assert s.__concat__([1]) == TensorShape([None, 3, 1])
    assert TensorShape([2, 3]).is_subtype_of(s) and not s.is_subtype_of([2, 3]) and s.is_subtype_of(None)
    assert not TensorShape(None).is_subtype_of(s) and not s.is_subtype_of([None])
    assert s.most_specific_common_supertype([[2, 3], [None, 3]]) == s
    assert TensorShape([2, 3]).most_specific_common_supertype([[2, 4]]) == TensorShape([2, None])
    assert TensorShape([2, 3]).most_specific_common_supertype([[2]]).rank is None
    for call, message in [
        (lambda: s.merge_with([2, 4]), r"^Shapes \(None, 3\) and \(2, 4\) are not compatible$"),
        (lambda: s.merge_with([2]), r"^Shapes \(None, 3\) and \(2,\) are not compatible$"),
        (lambda: s.with_rank(3), r"^Shape \(None, 3\) must have rank 3$"),
        (lambda: s.with_rank_at_least(3), r"^Shape \(None, 3\) must have rank at least 3$"),
        (lambda: s.with_rank_at_most(1), r"^Shape \(None, 3\) must have rank at most 1$"),
        (lambda: s.assert_has_rank(3), r"^Shape \(None, 3\) must have rank 3$"),
        (lambda: s.assert_same_rank([2]), r"^Shapes \(None, 3\) and \(2,\) must have the same rank$"),
        (lambda: s.assert_is_compatible_with([2, 4]), r"^Shapes \(None, 3\) and \[2, 4\] are incompatible$"),
        (lambda: s.assert_is_fully_defined(), r"^Shape \(None, 3\) is not fully defined$"),
    ]:
        with pytest.raises(ValueError, match=message):
            call()


def test_equality_text_and_pickle():
    s = TensorShape([None, 3])
    assert s == TensorShape([None, 3]) and s == [None, 3] and s != [None, 4] and s != TensorShape(None)
    assert TensorShape(None) == TensorShape(None) and s.__eq__("ab") is NotImplemented
    assert hash(s) == hash(TensorShape([None, 3]))
    assert (repr(s), str(s), str(TensorShape([None])), str(TensorShape([])), str(TensorShape(None))) == (
        "TensorShape([None, 3])",
        "(None, 3)",
        "(None,)",
        "()",
        "<unknown>",
    )
    assert pickle.loads(pickle.dumps(s)) == s and pickle.loads(pickle.dumps(TensorShape(None))).rank is None
    assert as_shape(s) is s and as_shape([1]) == TensorShape([1])


def test_dimension():
    d, u = Dimension(3), Dimension(None)
    assert (d + 2, 2 + d, d - 1, d * 2, Dimension(7) // 2, Dimension(7) % 2) == (
        Dimension(5),
        Dimension(5),
        Dimension(2),
        Dimension(6),
        Dimension(3),
        Dimension(1),
    )
    assert (u + 2).value is None and (2 * u).value is None
    assert (d == 3, d != 3, d < 4, u == 3, u < 4, d == "a") == (True, False, True, None, None, False)
    assert (int(d), [0, 1, 2, 3][d], bool(Dimension(0)), bool(u), str(u), repr(u)) == (3, 3, False, False, "?", "Dimension(None)")
    assert d.merge_with(None) == d and u.merge_with(4).value == 4 and d.is_compatible_with(u)
    assert as_dimension(d) is d and dimension_value(d) == 3 and dimension_value(5) == 5
    assert pickle.loads(pickle.dumps(d)).value == 3
    for call, error, message in [
        (lambda: Dimension(-1), ValueError, r"^Dimension -1 must be >= 0$"),
        (lambda: Dimension(2.5), TypeError, r"must be integer or None or have an __index__ method, got value '2.5'"),
        (lambda: Dimension(3) - 5, ValueError, r"^Dimension -2 must be >= 0$"),
        (lambda: Dimension(7) / 2, TypeError, r"please use // instead"),
        (lambda: d.merge_with(4), ValueError, r"^Dimensions 3 and 4 are not compatible$"),
        (lambda: int(u), TypeError, r"unknown Dimension"),
        (lambda: hash(d), TypeError, r"unhashable"),
    ]:
        with pytest.raises(error, match=message):
            call()


def test_graph_tensor_text():
    with ember.Graph().as_default():
        unknown = ember.placeholder(ember.float32, shape=None, name="x")
        partial = ember.placeholder(ember.float32, shape=[None, 3], name="y")
        scalar = ember.constant(1.0)
        assert repr(unknown) == str(unknown) == 'Tensor("x:0", dtype=float32)'
        assert repr(partial) == 'Tensor("y:0", shape=(None, 3), dtype=float32)'
        assert repr(scalar) == 'Tensor("Const:0", shape=(), dtype=float32)'
        assert partial.shape.dims[1].value == 3 and partial.get_shape()[0] is None


ORACLE = [
    ("s.dims", lambda tf, s: [d.value for d in s.dims]),
    ("str", lambda tf, s: str(s)),
    ("repr", lambda tf, s: repr(s)),
    ("concat", lambda tf, s: s.concatenate([2]).as_list()),
    ("msc", lambda tf, s: s.most_specific_compatible_shape(tf.TensorShape([4, 3])).as_list()),
    ("slice", lambda tf, s: s[1:].as_list()),
    ("proto", lambda tf, s: s.as_proto().SerializeToString()),
    ("unknown proto", lambda tf, s: tf.TensorShape(None).as_proto().SerializeToString()),
    ("unknown slice", lambda tf, s: tf.TensorShape(None)[1:3].as_list()),
    ("supertype", lambda tf, s: s.most_specific_common_supertype([tf.TensorShape([2, 3]), tf.TensorShape([4, 3])]).as_list()),
    ("subtype", lambda tf, s: (tf.TensorShape([2, 3]).is_subtype_of(s), s.is_subtype_of(tf.TensorShape([2, 3])))),
    ("dimension", lambda tf, s: (str(tf.Dimension(None)), repr(tf.Dimension(3) + 1), tf.Dimension(None) == 3)),
]


@pytest.mark.parametrize(("name", "expr"), ORACLE, ids=[n for n, _ in ORACLE])
def test_against_tensorflow(name, expr):
    class Ember:  # the names the expressions use, from ember
        TensorShape = TensorShape
        Dimension = Dimension

    ours = expr(Ember, TensorShape([None, 3]))
    assert ours is not None
    tf = pytest.importorskip("tensorflow").compat.v1
    assert ours == expr(tf, tf.TensorShape([None, 3]))
