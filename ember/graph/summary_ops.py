"""Summary ops (``tf.summary``): graph nodes whose value is a serialized ``Summary`` protobuf.

Each op is a graph-only node with TensorFlow's type (``ScalarSummary``, ``HistogramSummary``,
``ImageSummary``, ``AudioSummaryV2``, ``TensorSummaryV2``, ``MergeSummary``); its output is a
0-d string tensor computed when ``Session.run`` reaches it, by a kernel registered with the
executor (``run/plan.py``'s ``register_graph_kernel``). ``FileWriter.add_summary`` writes the
fetched bytes into an event file for TensorBoard.

Names are TensorFlow's: the node is named by the summary's name under the current name scope
(made unique), and the tag is that node name, prefixed by ``family/`` when a family is given.
Characters other than letters, digits, ``_-/.`` become ``_``. Each op joins the ``summaries``
collection (``GraphKeys.SUMMARIES``), or ``collections`` when given, and ``merge_all`` merges
that collection into one node.

>>> import ember
>>> with ember.Graph().as_default() as g:
...     loss = ember.constant(0.25)
...     with ember.name_scope("train"):
...         s = scalar("loss", loss)
>>> s.op.type, s.name
('ScalarSummary', 'train/loss:0')
>>> from ember.graph.proto import Summary
>>> Summary.FromString(ember.Session(graph=g).run(merge_all(graph=g))).value[0].tag
'train/loss'
"""

from __future__ import annotations

import contextlib
import re

import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor, tensor as eager_tensor
from ..interop.proto.convert import to_proto
from .errors import InvalidArgumentError
from .graph import Graph, get_default_graph, in_graph_scope
from .lazy import LazyInterpreter
from .proto import Summary, SummaryMetadata
from .run.plan import register_graph_kernel
from .sources import constant
from .summary_encode import encode_png, encode_wav, histogram as histogram_proto, image_to_uint8
from .symbolic import TensorShape

__all__ = ["SUMMARIES", "audio", "histogram", "image", "merge", "merge_all", "scalar", "tensor_summary", "text"]

SUMMARIES = "summaries"  # TensorFlow's GraphKeys.SUMMARIES

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w.]")
_REAL = frozenset(
    {
        _dt.float16,
        _dt.bfloat16,
        _dt.float32,
        _dt.float64,
        _dt.int8,
        _dt.int16,
        _dt.int32,
        _dt.int64,
        _dt.uint8,
        _dt.uint16,
        _dt.uint32,
        _dt.uint64,
    }
)
_IMAGE_DTYPES = frozenset({_dt.uint8, _dt.float16, _dt.float32, _dt.float64})
_BAD_COLOR = np.array([255, 0, 0, 255], np.uint8)


def clean_tag(name: str | None) -> str | None:
    """A summary name with TensorFlow's illegal characters replaced by ``_``, leading ``/`` dropped."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"summary name must be a str, got {type(name).__name__}")
    return _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")


def _graph(what: str) -> Graph:
    if not in_graph_scope():
        raise RuntimeError(f"summary.{what}() needs a graph: call it inside `with ember.Graph().as_default():`")
    return get_default_graph()


@contextlib.contextmanager
def _summary_scope(graph: Graph, name: str, family: str | None):
    """TensorFlow's summary_scope: yields (tag, scope); the node is named ``scope`` exactly."""
    name, family = clean_tag(name), clean_tag(family)
    with graph.name_scope(name if family is None else f"{family}/{name}") as scope:
        tag = scope.rstrip("/")
        yield (tag if family is None else f"{family}/{tag}"), scope


def _input(graph: Graph, value, name: str):
    """A value as a tensor of ``graph``: a Python or NumPy value becomes a Const node ``name``
    (in the summary's scope, as TensorFlow names an op's converted input)."""
    return LazyInterpreter(graph).capture(value if isinstance(value, Tensor) else constant(value, name=name))


def _node(graph: Graph, op_type: str, scope: str, inputs: tuple, attrs: dict, collections) -> Tensor:
    out = graph.create_op(op_type, inputs, attrs, [((), TensorShape(()), _dt.string)], name=scope)
    for key in [SUMMARIES] if collections is None else collections:
        graph.add_to_collection(key, out.outputs[0])
    return out.outputs[0]


def _check_dtype(value, allowed, what: str, arg: str) -> None:
    if value._dtype not in allowed:
        names = ", ".join(sorted(d.name for d in allowed))
        raise TypeError(f"summary.{what}(): '{arg}' has dtype {value._dtype.name}, not one of {names}")


# -- the ops ------------------------------------------------------------------------------------


def scalar(name: str, tensor, collections=None, family: str | None = None) -> Tensor:
    """A ``ScalarSummary`` of a real 0-d tensor (InvalidArgumentError at run time for another shape)."""
    graph = _graph("scalar")
    with _summary_scope(graph, name, family) as (tag, scope):
        value = _input(graph, tensor, "values")
        _check_dtype(value, _REAL, "scalar", "tensor")
        tags = constant(tag.encode(), name="tags")
        return _node(graph, "ScalarSummary", scope, (tags, value), {"T": value._dtype}, collections)


def histogram(name: str, values, collections=None, family: str | None = None) -> Tensor:
    """A ``HistogramSummary`` of ``values`` (any shape; NaN or infinity: InvalidArgumentError at run time)."""
    graph = _graph("histogram")
    with _summary_scope(graph, name, family) as (tag, scope):
        value = _input(graph, values, "values")
        _check_dtype(value, _REAL, "histogram", "values")
        tag_node = constant(tag.encode(), name="tag")
        return _node(graph, "HistogramSummary", scope, (tag_node, value), {"T": value._dtype}, collections)


def image(name: str, tensor, max_outputs: int = 3, collections=None, family: str | None = None) -> Tensor:
    """An ``ImageSummary`` of up to ``max_outputs`` images of a ``[batch, height, width, 1|3|4]`` tensor.

    uint8 pixels are written as they are; float pixels are scaled into 0..255 (by ``255 / max``
    when none is negative, else ``127 / max|x|`` around 128), non-finite ones painted red.
    """
    graph = _graph("image")
    if isinstance(max_outputs, bool) or not isinstance(max_outputs, (int, np.integer)) or max_outputs < 1:
        raise ValueError(f"summary.image(): max_outputs must be an int >= 1, got {max_outputs!r}")
    with _summary_scope(graph, name, family) as (tag, scope):
        value = _input(graph, tensor, "tensor")
        _check_dtype(value, _IMAGE_DTYPES, "image", "tensor")
        tag_node = constant(tag.encode(), name="tag")
        bad_color = eager_tensor(_BAD_COLOR.copy())
        attrs = {"max_images": int(max_outputs), "bad_color": bad_color, "T": value._dtype}
        return _node(graph, "ImageSummary", scope, (tag_node, value), attrs, collections)


def audio(name: str, tensor, sample_rate, max_outputs: int = 3, collections=None, family: str | None = None) -> Tensor:
    """An ``AudioSummaryV2`` of up to ``max_outputs`` sounds of a float32 ``[batch, frames(, channels)]``
    tensor with values in -1..1, as 16-bit WAV at ``sample_rate`` Hz."""
    graph = _graph("audio")
    if isinstance(max_outputs, bool) or not isinstance(max_outputs, (int, np.integer)) or max_outputs < 1:
        raise ValueError(f"summary.audio(): max_outputs must be an int >= 1, got {max_outputs!r}")
    with _summary_scope(graph, name, family) as (tag, scope):
        value = _input(graph, tensor, "tensor")
        _check_dtype(value, {_dt.float32}, "audio", "tensor")
        tag_node = constant(tag.encode(), name="tag")
        if isinstance(sample_rate, Tensor):
            rate = LazyInterpreter(graph).capture(sample_rate)
            rate = rate if rate._dtype is _dt.float32 else rate.to(_dt.float32)
        else:
            rate = constant(float(sample_rate), dtype=_dt.float32, name="sample_rate")
        return _node(graph, "AudioSummaryV2", scope, (tag_node, value, rate), {"max_outputs": int(max_outputs)}, collections)


def tensor_summary(
    name: str,
    tensor,
    summary_description: str | None = None,
    collections=None,
    summary_metadata=None,
    family: str | None = None,
    display_name: str | None = None,
) -> Tensor:
    """A ``TensorSummaryV2``: the whole tensor as a ``TensorProto`` in the summary, with its metadata."""
    graph = _graph("tensor_summary")
    if summary_metadata is None:
        summary_metadata = SummaryMetadata()
    elif not isinstance(summary_metadata, SummaryMetadata):
        summary_metadata = SummaryMetadata.FromString(summary_metadata.SerializeToString())  # TensorFlow's or TensorBoard's class
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    with _summary_scope(graph, name, family) as (tag, scope):
        value = _input(graph, tensor, "tensor")
        tag_node = constant(tag.encode(), name="tag")
        metadata = constant(summary_metadata.SerializeToString(), name="serialized_summary_metadata")
        return _node(graph, "TensorSummaryV2", scope, (tag_node, value, metadata), {"T": value._dtype}, collections)


def text(name: str, tensor, collections=None) -> Tensor:
    """A summary of a string tensor for TensorBoard's text dashboard (a ``TensorSummaryV2``)."""
    graph = _graph("text")
    value = _input(graph, tensor, "Const")
    if value._dtype is not _dt.string:
        raise ValueError(f"Expected tensor {value.name} to have dtype string, got {value._dtype.name}")
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name, value, collections=collections, summary_metadata=metadata)


def merge(inputs, collections=None, name: str | None = None) -> Tensor:
    """One ``MergeSummary`` of serialized summaries: their values together (a tag twice is an
    InvalidArgumentError at run time)."""
    graph = _graph("merge")
    if isinstance(inputs, Tensor) or not isinstance(inputs, (list, tuple)):
        raise TypeError(f"summary.merge(): inputs must be a list of string tensors, got {type(inputs).__name__}")
    captured = tuple(LazyInterpreter(graph).capture(t) for t in inputs)
    for t in captured:
        if t._dtype is not _dt.string:
            raise TypeError(f"summary.merge(): every input must be a string tensor, got {t.name} of dtype {t._dtype.name}")
    with graph.name_scope(name or "Merge"):
        out = graph.create_op(
            "MergeSummary", captured, {"N": len(captured)}, [((), TensorShape(()), _dt.string)], name=name or "MergeSummary"
        )
    for key in collections or ():
        graph.add_to_collection(key, out.outputs[0])
    return out.outputs[0]


def merge_all(key: str = SUMMARIES, scope: str | None = None, name: str | None = None, graph: Graph | None = None):
    """``merge`` of every summary in the collection ``key`` (names matching ``scope``, a regex,
    when given), or None when there is none."""
    graph = graph or get_default_graph()
    ops = [t for t in graph.get_collection(key) if scope is None or re.match(scope, t.name)]
    if not ops:
        return None
    with graph.as_default():
        return merge(ops, name=name)


# -- kernels: what each node computes when a Session runs it --------------------------------------


def _strings(t: Tensor) -> list:
    return [s.decode() if isinstance(s, bytes) else str(s) for s in np.asarray(t._host_array(), dtype=object).reshape(-1)]


def _tag(op, t: Tensor) -> str:
    if t._shape != ():
        raise InvalidArgumentError(None, op, f"tag must be a scalar, got shape {list(t._shape)}")
    return _strings(t)[0]


def _out(summary: Summary) -> tuple:
    return (eager_tensor(summary.SerializeToString()),)


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _scalar_kernel(op, inputs: list) -> tuple:
    tags, values = inputs
    if tuple(tags._shape) != tuple(values._shape):
        raise InvalidArgumentError(
            None,
            op,
            f"tags and values are not the same shape: {_shape_text(tags._shape)} != {_shape_text(values._shape)} (tag '{_strings(tags)[0]}')",
        )
    numbers = np.asarray(values._host_array(), dtype=np.float64).reshape(-1)
    return _out(
        Summary(value=[Summary.Value(tag=t, simple_value=float(v)) for t, v in zip(_strings(tags), numbers, strict=True)])
    )


def _histogram_kernel(op, inputs: list) -> tuple:
    tag = _tag(op, inputs[0])
    try:
        histo = histogram_proto(inputs[1]._host_array())
    except ValueError:
        raise InvalidArgumentError(None, op, f"Nan in summary histogram for: {tag}") from None
    return _out(Summary(value=[Summary.Value(tag=tag, histo=histo)]))


def _image_kernel(op, inputs: list) -> tuple:
    tag = _tag(op, inputs[0])
    images = inputs[1]._host_array()
    if images.ndim != 4 or images.shape[3] not in (1, 3, 4):
        raise InvalidArgumentError(None, op, f"Tensor must be 4-D with last dim 1, 3, or 4, not {_shape_text(images.shape)}")
    max_images = op.attrs["max_images"]
    bad_color = op.attrs["bad_color"]._host_array().astype(np.uint8)
    summary = Summary()
    for i in range(min(images.shape[0], max_images)):
        pixels = image_to_uint8(images[i], bad_color)
        height, width, channels = pixels.shape
        encoded = Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=encode_png(pixels))
        summary.value.add(tag=f"{tag}/image/{i}" if max_images > 1 else f"{tag}/image", image=encoded)
    return _out(summary)


def _audio_kernel(op, inputs: list) -> tuple:
    tag = _tag(op, inputs[0])
    sounds = inputs[1]._host_array()
    rate = inputs[2]._host_array().reshape(-1)
    if sounds.ndim not in (2, 3):
        raise InvalidArgumentError(None, op, f"Tensor must be 3-D or 2-D, got: {_shape_text(sounds.shape)}")
    if rate.size != 1:
        raise InvalidArgumentError(None, op, "sample_rate must be rank-0 or contain a single value")
    if sounds.ndim == 2:
        sounds = sounds[:, :, None]
    sample_rate = float(rate[0])
    max_outputs = op.attrs["max_outputs"]
    summary = Summary()
    for i in range(min(sounds.shape[0], max_outputs)):
        wav = encode_wav(sounds[i], int(sample_rate))
        sound = Summary.Audio(
            sample_rate=sample_rate,
            num_channels=sounds.shape[2],
            length_frames=sounds.shape[1],
            encoded_audio_string=wav,
            content_type="audio/wav",
        )
        summary.value.add(tag=f"{tag}/audio/{i}" if max_outputs > 1 else f"{tag}/audio", audio=sound)
    return _out(summary)


def _tensor_kernel(op, inputs: list) -> tuple:
    tag_t, value, metadata_t = inputs
    tag = _tag(op, tag_t)
    raw = metadata_t._host_array()[()]
    metadata = SummaryMetadata.FromString(raw if isinstance(raw, bytes) else str(raw).encode())
    proto = to_proto(value, "fields" if value._dtype is _dt.string else "content")
    return _out(Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=metadata)]))


def _merge_kernel(op, inputs: list) -> tuple:
    merged = Summary()
    seen: set = set()
    for t in inputs:
        for raw in np.asarray(t._host_array(), dtype=object).reshape(-1):
            try:
                part = Summary.FromString(raw if isinstance(raw, bytes) else str(raw).encode())
            except Exception:  # protobuf's DecodeError, or anything its parser raises on garbage
                raise InvalidArgumentError(None, op, "Could not parse one of the summary inputs") from None
            for value in part.value:
                if value.tag and value.tag in seen:
                    raise InvalidArgumentError(None, op, f"Duplicate tag {value.tag} found in summary inputs ")
                seen.add(value.tag)
                merged.value.add().CopyFrom(value)
    return _out(merged)


register_graph_kernel("ScalarSummary", _scalar_kernel)
register_graph_kernel("HistogramSummary", _histogram_kernel)
register_graph_kernel("ImageSummary", _image_kernel)
register_graph_kernel("AudioSummaryV2", _audio_kernel)
register_graph_kernel("TensorSummaryV2", _tensor_kernel)
register_graph_kernel("MergeSummary", _merge_kernel)
