"""tf.summary ops in graph mode: names and tags, the values they compute, FileWriter, TensorBoard's reader."""

import bisect
import io
import struct
import wave
import zlib

import numpy as np
import pytest

import ember
from ember.graph import errors, summary as S
from ember.graph.proto import Event, RunMetadata, SessionLog, Summary
from ember.interop.proto.convert import from_proto


def _parse(data: bytes) -> Summary:
    assert isinstance(data, bytes)
    return Summary.FromString(data)


def _decode_png(data: bytes) -> np.ndarray:
    """A minimal PNG reader for 8-bit images with filter 0 rows (what the encoder writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + length
    width, height, depth, color, _, _, _ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert depth == 8
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, 1 + width * channels)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, channels)


def _reference_histogram(values):
    limits, v = [], 1e-12
    while v < 1e20:
        limits.append(v)
        v *= 1.1
    limits.append(np.finfo(np.float64).max)
    limits = [-x for x in reversed(limits)] + [0.0] + limits
    counts = [0] * len(limits)
    for x in values:
        counts[bisect.bisect_right(limits, x)] += 1
    return limits, counts


def _graph_with_summaries():
    g = ember.Graph()
    with g.as_default():
        x = ember.placeholder(ember.float32, shape=(None,), name="x")
        loss = (x * x).mean()
        with ember.name_scope("train"):
            s_loss = S.scalar("loss", loss)
            s_again = S.scalar("loss", loss)
            s_family = S.scalar("acc/top 1", loss, family="metrics")
        s_hist = S.histogram("values", x)
    return g, x, (s_loss, s_again, s_family, s_hist)


FEED = np.array([1.0, 2.0, 3.0, -1.0, 0.0], np.float32)


def test_names_tags_and_collection():
    g, x, (s_loss, s_again, s_family, s_hist) = _graph_with_summaries()
    assert [s.op.name for s in (s_loss, s_again, s_family, s_hist)] == [
        "train/loss",
        "train/loss_1",
        "train/metrics/acc/top_1",
        "values",
    ]
    assert [s.op.type for s in (s_loss, s_hist)] == ["ScalarSummary", "HistogramSummary"]
    assert s_loss.dtype == ember.string and s_loss.shape.as_list() == []
    assert s_loss.op.inputs[0].op.name == "train/loss/tags" and s_hist.op.inputs[0].op.name == "values/tag"
    assert g.get_collection(S.SUMMARIES) == [s_loss, s_again, s_family, s_hist]
    sess = ember.Session(graph=g)
    tags = [_parse(sess.run(s, {x: FEED})).value[0].tag for s in (s_loss, s_again, s_family, s_hist)]
    assert tags == ["train/loss", "train/loss_1", "metrics/train/metrics/acc/top_1", "values"]


def test_scalar_value_and_non_scalar_error():
    g, x, (s_loss, *_) = _graph_with_summaries()
    with g.as_default():
        vector = S.scalar("vector", ember.constant([1.0, 2.0]), collections=[])
        count = S.scalar("count", ember.constant(7))
    assert g.get_collection(S.SUMMARIES)[-1] is not vector
    sess = ember.Session(graph=g)
    value = _parse(sess.run(s_loss, {x: FEED})).value[0]
    assert value.WhichOneof("value") == "simple_value"
    assert value.simple_value == pytest.approx(float(np.mean(FEED * FEED)))
    assert _parse(sess.run(count)).value[0].simple_value == 7.0
    with pytest.raises(
        errors.InvalidArgumentError, match=r"tags and values are not the same shape: \[\] != \[2\] \(tag 'vector'\)"
    ):
        sess.run(vector)
    with g.as_default(), pytest.raises(TypeError, match="dtype bool"):
        S.scalar("flag", ember.constant(True))


def test_histogram_buckets_as_tensorflow():
    values = np.array([1.0, 2.0, 3.0, -1.0, 0.0, 1e-13, 5e30, -7.5], np.float64)
    with ember.Graph().as_default() as g:
        h = S.histogram("h", ember.constant(values))
        empty = S.histogram("empty", ember.constant(np.zeros((0,), np.float32)))
        nan = S.histogram("nan", ember.constant([1.0, np.nan]))
    sess = ember.Session(graph=g)
    histo = _parse(sess.run(h)).value[0].histo
    assert (histo.min, histo.max, histo.num) == (values.min(), values.max(), len(values))
    assert histo.sum == pytest.approx(values.sum()) and histo.sum_squares == pytest.approx((values * values).sum())
    limits, counts = _reference_histogram(values)
    # every written bucket holds the values between the previous written limit and its own
    previous = -np.inf
    for limit, count in zip(histo.bucket_limit, histo.bucket, strict=True):
        assert limit in limits
        assert count == sum(c for lim, c in zip(limits, counts, strict=True) if previous < lim <= limit)
        previous = limit
    assert histo.bucket_limit[-1] == limits[-1]
    assert not any(a == 0 and b == 0 for a, b in zip(histo.bucket, histo.bucket[1:], strict=False))  # empty runs collapsed
    assert sum(histo.bucket) == len(values)
    e = _parse(sess.run(empty)).value[0].histo
    assert e.num == 0 and list(e.bucket) == [0.0] and e.min == np.finfo(np.float64).max
    with pytest.raises(errors.InvalidArgumentError, match="Nan in summary histogram for: nan"):
        sess.run(nan)


def test_image_png_pixels_tags_and_errors():
    rng = np.random.default_rng(0)
    floats = rng.random((3, 4, 5, 3)).astype(np.float32)
    signed = np.array([[[[-1.0], [0.5]], [[np.inf], [0.25]]]], np.float32)
    bytes_ = rng.integers(0, 256, (1, 2, 3, 4), dtype=np.uint8)
    with ember.Graph().as_default() as g:
        many = S.image("many", ember.constant(floats), max_outputs=2)
        one = S.image("one", ember.constant(signed), max_outputs=1)
        raw = S.image("raw", ember.constant(bytes_))
        bad = S.image("bad", ember.constant(np.zeros((2, 2, 2), np.float32)))
        with pytest.raises(ValueError, match="max_outputs"):
            S.image("zero", ember.constant(floats), max_outputs=0)
    assert many.op.type == "ImageSummary" and many.op.attrs["max_images"] == 2
    sess = ember.Session(graph=g)
    values = _parse(sess.run(many)).value
    assert [v.tag for v in values] == ["many/image/0", "many/image/1"]
    for i, v in enumerate(values):
        assert (v.image.height, v.image.width, v.image.colorspace) == (4, 5, 3)
        expected = (floats[i] * (np.float32(255.0) / floats[i].max())).astype(np.uint8)
        np.testing.assert_array_equal(_decode_png(v.image.encoded_image_string), expected)
    (v,) = _parse(sess.run(one)).value
    assert v.tag == "one/image"
    # negative values: scaled by 127 / max|x| around 128; the infinite pixel is bad_color (red)
    np.testing.assert_array_equal(_decode_png(v.image.encoded_image_string).ravel(), [1, 191, 255, 159])
    (v,) = _parse(sess.run(raw)).value
    assert v.image.colorspace == 4
    np.testing.assert_array_equal(_decode_png(v.image.encoded_image_string), bytes_[0])
    with pytest.raises(errors.InvalidArgumentError, match=r"Tensor must be 4-D with last dim 1, 3, or 4, not \[2,2,2\]"):
        sess.run(bad)


def test_audio_wav():
    sound = np.array([[0.5, -0.5, 1.2, -2.0, 0.25]], np.float32)
    with ember.Graph().as_default() as g:
        a = S.audio("voice", ember.constant(sound), 16000, max_outputs=1)
        stereo = S.audio("stereo", ember.constant(np.zeros((3, 4, 2), np.float32)), 100.0, max_outputs=2)
    assert a.op.type == "AudioSummaryV2" and a.op.inputs[2].op.name == "voice/sample_rate"
    sess = ember.Session(graph=g)
    (v,) = _parse(sess.run(a)).value
    assert v.tag == "voice/audio" and v.audio.content_type == "audio/wav"
    assert (v.audio.sample_rate, v.audio.num_channels, v.audio.length_frames) == (16000.0, 1, 5)
    with wave.open(io.BytesIO(v.audio.encoded_audio_string)) as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth(), w.getnframes()) == (16000, 1, 2, 5)
        pcm = np.frombuffer(w.readframes(5), "<i2")
    np.testing.assert_array_equal(pcm, [16384, -16384, 32767, -32768, 8192])
    values = _parse(sess.run(stereo)).value
    assert [v.tag for v in values] == ["stereo/audio/0", "stereo/audio/1"]
    assert values[0].audio.num_channels == 2


def test_text_and_tensor_summary():
    with ember.Graph().as_default() as g:
        t = S.text("notes", ember.constant(b"hello"))
        ts = S.tensor_summary("weights", ember.constant(np.array([[1, 2], [3, 4]], np.int32)), display_name="W")
        with pytest.raises(ValueError, match="to have dtype string, got float32"):
            S.text("bad", ember.constant(1.0))
    assert t.op.type == "TensorSummaryV2" and t.op.inputs[2].op.name == "notes/serialized_summary_metadata"
    sess = ember.Session(graph=g)
    (v,) = _parse(sess.run(t)).value
    assert v.tag == "notes" and v.metadata.plugin_data.plugin_name == "text"
    assert list(v.tensor.string_val) == [b"hello"]
    (v,) = _parse(sess.run(ts)).value
    assert v.metadata.display_name == "W"
    np.testing.assert_array_equal(from_proto(v.tensor).numpy(), [[1, 2], [3, 4]])


def test_merge_and_merge_all():
    g, x, (s_loss, _, _, s_hist) = _graph_with_summaries()
    with g.as_default():
        merged = S.merge([s_loss, s_hist])
        named = S.merge([s_loss], name="m")
        twice = S.merge([s_loss, s_loss])
        garbage = S.merge([ember.constant(b"\xff\xff")])
        with pytest.raises(TypeError, match="list of string tensors"):
            S.merge(s_loss)
    assert merged.op.name == "Merge/MergeSummary" and merged.op.type == "MergeSummary" and merged.op.attrs["N"] == 2
    assert named.op.name == "m/m"
    everything = S.merge_all(graph=g)
    only_train = S.merge_all(scope="train", graph=g)
    assert S.merge_all(key="nothing", graph=g) is None
    sess = ember.Session(graph=g)
    assert [v.tag for v in _parse(sess.run(merged, {x: FEED})).value] == ["train/loss", "values"]
    assert len(_parse(sess.run(everything, {x: FEED})).value) == 4
    assert [v.tag for v in _parse(sess.run(only_train, {x: FEED})).value] == [
        "train/loss",
        "train/loss_1",
        "metrics/train/metrics/acc/top_1",
    ]
    with pytest.raises(errors.InvalidArgumentError, match="Duplicate tag train/loss found in summary inputs"):
        sess.run(twice, {x: FEED})
    with pytest.raises(errors.InvalidArgumentError, match="Could not parse one of the summary inputs"):
        sess.run(garbage)


def test_summaries_beside_training_and_unoptimized():
    with ember.Graph().as_default() as g:
        v = ember.Variable(1.0, name="v")
        step = ember.assign_add(v, 1.0)
        s = S.scalar("v", v)
    for options in ({}, {"optimize": False, "specialize": False}):
        sess = ember.Session(graph=g, **options)
        sess.run(v.initializer)
        out = sess.run([step, s])
        assert out[0] == 2.0 and _parse(out[1]).value[0].simple_value in (1.0, 2.0)


def test_summary_needs_a_graph():
    with pytest.raises(RuntimeError, match="needs a graph"):
        S.scalar("x", 1.0)


# -- FileWriter ---------------------------------------------------------------------------------


def _events(path):
    events = [Event.FromString(r) for r in S.read_records(path)]
    assert list(S.summary_iterator(path)) == events
    return events


def test_file_writer_add_summary_and_friends(tmp_path):
    g, x, (s_loss, *_) = _graph_with_summaries()
    with g.as_default():
        t = S.text("notes", ember.constant(b"hi"))
    sess = ember.Session(graph=g)
    writer = S.FileWriter(tmp_path)
    assert writer.get_logdir() == str(tmp_path)
    for step in range(3):
        writer.add_summary(sess.run(s_loss, {x: FEED * step}), global_step=np.int64(step))
        writer.add_summary(sess.run(t), global_step=step)
    writer.add_summary(Summary(value=[Summary.Value(tag="direct", simple_value=2.5)]))
    writer.add_session_log(SessionLog(status=SessionLog.START), global_step=3)
    writer.flush()
    with pytest.raises(TypeError, match="'summary' must be a Summary"):
        writer.add_summary(1.5)
    with pytest.raises(ValueError, match="not a serialized Summary"):
        writer.add_summary(b"\xff\xff\xff")
    writer.close()
    events = _events(writer.path)
    kinds = [e.WhichOneof("what") for e in events]
    assert kinds == ["file_version"] + ["summary"] * 7 + ["session_log"]
    losses = [
        (e.step, e.summary.value[0].simple_value)
        for e in events
        if e.HasField("summary") and e.summary.value[0].tag == "train/loss"
    ]
    assert [s for s, _ in losses] == [0, 1, 2]
    assert losses[2][1] == pytest.approx(float(np.mean((FEED * 2) ** 2)))
    notes = [e.summary.value[0] for e in events if e.HasField("summary") and e.summary.value[0].tag == "notes"]
    assert [n.HasField("metadata") for n in notes] == [True, False, False]  # plugin metadata with the first value only
    assert events[-1].session_log.status == SessionLog.START and events[-1].step == 3
    with pytest.raises(RuntimeError, match="closed"):
        writer.add_summary(Summary())
    first = writer.path
    writer.reopen()
    assert writer.path != first
    writer.add_summary(Summary(value=[Summary.Value(tag="after", simple_value=1.0)]))
    writer.close()
    assert [e.WhichOneof("what") for e in _events(writer.path)] == ["file_version", "summary"]


def test_file_writer_run_metadata_and_cache(tmp_path):
    with S.FileWriter(tmp_path) as writer:
        writer.add_run_metadata(RunMetadata(), "step1", global_step=1)
        with pytest.raises(ValueError, match="already used"):
            writer.add_run_metadata(RunMetadata(), "step1")
        writer.add_meta_graph(b"\x0a\x00", global_step=2)
        with pytest.raises(TypeError, match="MetaGraphDef"):
            writer.add_meta_graph("meta")
    (event,) = [e for e in _events(writer.path) if e.HasField("tagged_run_metadata")]
    assert event.tagged_run_metadata.tag == "step1" and event.step == 1
    (event,) = [e for e in _events(writer.path) if e.HasField("meta_graph_def")]
    assert event.meta_graph_def == b"\x0a\x00" and event.step == 2
    cached = S.FileWriterCache.get(tmp_path / "cache")
    assert S.FileWriterCache.get(str(tmp_path / "cache")) is cached
    S.FileWriterCache.clear()
    assert S.FileWriterCache.get(tmp_path / "cache") is not cached
    S.FileWriterCache.clear()


def test_tensorboard_reads_it_back(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    g, x, _ = _graph_with_summaries()
    with g.as_default():
        S.image("img", ember.constant(np.random.default_rng(1).random((2, 4, 5, 3)).astype(np.float32)), max_outputs=2)
        merged = S.merge_all()
    sess = ember.Session(graph=g)
    with S.FileWriter(tmp_path, graph=g) as writer:
        for step in range(3):
            writer.add_summary(sess.run(merged, {x: FEED + step}), global_step=step)
    acc = EventAccumulator(str(tmp_path), size_guidance={"scalars": 0, "histograms": 0, "images": 0})
    acc.Reload()
    tags = acc.Tags()
    assert set(tags["scalars"]) == {"train/loss", "train/loss_1", "metrics/train/metrics/acc/top_1"}
    assert tags["histograms"] == ["values"] and tags["images"] == ["img/image/0", "img/image/1"] and tags["graph"]
    scalars = acc.Scalars("train/loss")
    assert [e.step for e in scalars] == [0, 1, 2]
    assert scalars[1].value == pytest.approx(float(np.mean((FEED + 1) ** 2)))
    assert acc.Histograms("values")[2].histogram_value.num == len(FEED)
    image = acc.Images("img/image/1")[0]
    assert (image.height, image.width) == (4, 5) and _decode_png(image.encoded_image_string).shape == (4, 5, 3)
    assert {n.name for n in acc.Graph().node} >= {"x", "train/loss", "values"}


def test_tensorflow_agrees():
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    rng = np.random.default_rng(2)
    values = rng.normal(size=50).astype(np.float32)
    images = rng.random((2, 3, 4, 3)).astype(np.float32) * 2 - 0.5
    sound = rng.uniform(-1.2, 1.2, (2, 7)).astype(np.float32)

    def build(ns, const):
        with ns.name_scope("outer"):
            return [
                ns.summary.scalar("loss", const(3.5)),
                ns.summary.histogram("h", const(values)),
                ns.summary.image("img", const(images), max_outputs=2),
                ns.summary.audio("au", const(sound), 8000, max_outputs=2),
                ns.summary.scalar("fam_loss", const(1.0), family="fam"),
            ]

    g = v1.Graph()
    with g.as_default():
        theirs = v1.Session(graph=g).run(build(v1, v1.constant))
    with ember.Graph().as_default() as eg:

        class Namespace:
            name_scope = staticmethod(ember.name_scope)
            summary = S

        ours = ember.Session(graph=eg).run(build(Namespace, ember.constant))
    for a, b in zip(ours, theirs, strict=True):
        pa, pb = _parse(a), Summary.FromString(b)
        assert [v.tag for v in pa.value] == [v.tag for v in pb.value]
        for va, vb in zip(pa.value, pb.value, strict=True):
            kind = va.WhichOneof("value")
            if kind == "image":
                decoded = tf.io.decode_png(vb.image.encoded_image_string).numpy()
                np.testing.assert_array_equal(_decode_png(va.image.encoded_image_string), decoded)
            elif kind == "histo":
                assert list(va.histo.bucket_limit) == list(vb.histo.bucket_limit)
                assert list(va.histo.bucket) == list(vb.histo.bucket)
                assert va.histo.sum == pytest.approx(vb.histo.sum, rel=1e-12)
            else:
                assert va == vb


def test_register_graph_kernel_checks():
    from ember.graph.run.plan import register_graph_kernel

    with pytest.raises(TypeError, match="kernel must be callable"):
        register_graph_kernel("Whatever", 3)
    with pytest.raises(ValueError, match="'ScalarSummary' already has an executor"):
        register_graph_kernel("ScalarSummary", lambda op, inputs: ())


def test_python_values_become_named_constants():
    with ember.Graph().as_default():
        names = [
            [t.op.name for t in op.op.inputs]
            for op in (
                S.scalar("s", 1.0),
                S.histogram("h", [1.0, 2.0]),
                S.image("i", np.zeros((1, 2, 2, 1), np.float32)),
                S.audio("a", np.zeros((1, 2), np.float32), 8000),
                S.tensor_summary("t", [1, 2]),
            )
        ]
    assert names == [
        ["s/tags", "s/values"],
        ["h/tag", "h/values"],
        ["i/tag", "i/tensor"],
        ["a/tag", "a/tensor", "a/sample_rate"],
        ["t/tag", "t/tensor", "t/serialized_summary_metadata"],
    ]
