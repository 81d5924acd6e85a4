"""What summary ops compute from NumPy values: TensorFlow's histogram, PNG images, WAV sound.

Everything here is a pure function of arrays, with TensorFlow's numbers:

- ``histogram``: buckets whose limits grow by 10% from 1e-12 to 1e20, mirrored below zero
  around a bucket at 0, then ``DBL_MAX``; a value goes to the first bucket whose limit exceeds
  it; runs of empty buckets are written as one; sums are accumulated in order, in double.
- ``image_to_uint8``: a float image scaled into 0..255 (by ``255 / max`` when no value is
  negative, else ``127 / max|value|`` around 128), non-finite pixels painted ``bad_color``.
- ``encode_png``: an 8-bit PNG (zlib and struct only: no imaging library).
- ``encode_wav``: 16-bit PCM, samples ``round(x * 32768)`` clamped to the int16 range.

>>> proto = histogram([0.0, 1.0])
>>> proto.num, proto.sum, list(proto.bucket)
(2.0, 1.0, [0.0, 1.0, 0.0, 1.0, 0.0])
>>> encode_png(np.zeros((1, 1, 3), np.uint8))[:8]
b'\\x89PNG\\r\\n\\x1a\\n'
"""

from __future__ import annotations

import struct
import sys
import zlib

import numpy as np

from .proto import HistogramProto

__all__ = ["DEFAULT_BUCKET_LIMITS", "encode_png", "encode_wav", "histogram", "image_to_uint8"]

_DBL_MAX = sys.float_info.max


def _default_bucket_limits() -> tuple:
    positive = []
    v = 1.0e-12
    while v < 1.0e20:  # multiplied step by step, as TensorFlow does, so every limit is bit-equal
        positive.append(v)
        v *= 1.1
    positive.append(_DBL_MAX)
    return tuple([-x for x in reversed(positive)] + [0.0] + positive)


DEFAULT_BUCKET_LIMITS = _default_bucket_limits()


def histogram(values) -> HistogramProto:
    """TensorFlow's ``HistogramProto`` of ``values`` (any shape; finite numbers).

    ValueError for a NaN or an infinity (the summary op turns it into InvalidArgumentError).
    """
    flat = np.asarray(values).reshape(-1).astype(np.float64)
    if not np.all(np.isfinite(flat)):
        raise ValueError("Nan in summary histogram")
    limits = DEFAULT_BUCKET_LIMITS
    counts = np.bincount(np.searchsorted(limits, flat, side="right"), minlength=len(limits)).astype(np.float64)
    proto = HistogramProto()
    if flat.size:
        proto.min = float(flat.min())
        proto.max = float(flat.max())
        proto.num = float(flat.size)
        proto.sum = float(np.cumsum(flat)[-1])  # in order, as TensorFlow adds them
        proto.sum_squares = float(np.cumsum(flat * flat)[-1])
    else:
        proto.min, proto.max = _DBL_MAX, -_DBL_MAX
    counts = counts.tolist()
    i, n = 0, len(limits)
    while i < n:  # TensorFlow's encoding: a run of empty buckets is one bucket, up to the run's last limit
        end, count = limits[i], counts[i]
        i += 1
        if count <= 0:
            while i < n and counts[i] <= 0:
                end, count = limits[i], counts[i]
                i += 1
        proto.bucket_limit.append(end)
        proto.bucket.append(count)
    return proto


def image_to_uint8(image: np.ndarray, bad_color: np.ndarray) -> np.ndarray:
    """One ``[height, width, channels]`` image as uint8, scaled as TensorFlow's ImageSummary does."""
    if image.dtype == np.uint8:
        return image
    pixels = image.reshape(-1, image.shape[-1])
    finite = np.all(np.isfinite(pixels), axis=1)
    good = pixels[finite]
    low = float(good.min()) if good.size else float("inf")
    high = float(good.max()) if good.size else float("-inf")
    dtype = pixels.dtype.type
    if low < 0:
        top = max(abs(low), abs(high))
        scale, offset = dtype(0.0 if top < 1e-6 else np.float32(127.0) / np.float32(top)), dtype(128.0)
    else:
        scale, offset = dtype(0.0 if high < 1e-6 else np.float32(255.0) / np.float32(high)), dtype(0.0)
    out = np.empty(pixels.shape, np.uint8)
    with np.errstate(invalid="ignore"):
        out[finite] = (good * scale + offset).astype(np.uint8)  # truncation, as a C cast
    out[~finite] = bad_color[: pixels.shape[1]]
    return out.reshape(image.shape)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


_PNG_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> gray, gray+alpha, RGB, RGBA


def encode_png(image: np.ndarray) -> bytes:
    """A ``[height, width, channels]`` uint8 image (1 to 4 channels) as PNG bytes."""
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] not in _PNG_COLOR_TYPES:
        raise ValueError(f"encode_png(): expected a uint8 [height, width, 1|2|3|4] image, got {image.dtype} {list(image.shape)}")
    height, width, channels = image.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _PNG_COLOR_TYPES[channels], 0, 0, 0)
    rows = np.zeros((height, 1 + width * channels), np.uint8)  # each row starts with filter type 0
    rows[:, 1:] = np.ascontiguousarray(image).reshape(height, width * channels)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.tobytes())) + _chunk(b"IEND", b"")


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """A ``[frames, channels]`` float sound (in -1..1) as a 16-bit PCM WAV file."""
    channels = samples.shape[1]
    scaled = (np.nan_to_num(samples.astype(np.float32)) * np.float32(32768.0)).astype(np.float64)
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)  # C's roundf: halves away from zero
    pcm = np.clip(rounded, -32768, 32767).astype("<i2")
    data = pcm.tobytes()
    fmt = struct.pack("<HHIIHH", 1, channels, sample_rate, sample_rate * channels * 2, channels * 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body
