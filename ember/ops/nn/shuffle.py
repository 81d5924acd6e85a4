"""Space-to-depth rearrangements: pixel_shuffle and pixel_unshuffle, composites of reshape and permute.

>>> import ember
>>> ember.pixel_shuffle(ember.zeros(1, 8, 3, 3), 2).shape
ember.Size([1, 2, 6, 6])
"""

from __future__ import annotations

from ..functor import functor
from ..schema import schema_family

declare = schema_family("nn", namespaces=("nn.functional",))


def _spatial_split(op: str, input) -> tuple:
    if len(input._shape) < 3:
        raise RuntimeError(
            f"{op} expects input to have at least 3 dimensions, but got input with {len(input._shape)} dimension(s)"
        )
    *lead, c, h, w = input._shape
    return list(lead), c, h, w


def _check_factor(op: str, name: str, factor: int) -> None:
    if factor <= 0:
        raise RuntimeError(f"{op} expects a positive {name}, but got {factor}")


declare(
    "pixel_shuffle",
    "Tensor (Tensor input, Int upscale_factor) => PixelShuffle",
    composite=True,
    doc="""
    (*, C * r * r, H, W) -> (*, C, H * r, W * r): blocks of r * r channels become r x r pixels.

    >>> ember.pixel_shuffle(ember.arange(4.0).reshape(4, 1, 1), 2).tolist()
    [[[0.0, 1.0], [2.0, 3.0]]]
    """,
)


@functor("PixelShuffle")
def pixel_shuffle(input, upscale_factor):
    _check_factor("pixel_shuffle", "upscale_factor", upscale_factor)
    lead, c, h, w = _spatial_split("pixel_shuffle", input)
    r = upscale_factor
    if c % (r * r) != 0:
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
            f"but input.size(-3)={c} is not divisible by {r * r}"
        )
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


declare(
    "pixel_unshuffle",
    "Tensor (Tensor input, Int downscale_factor) => PixelUnshuffle",
    composite=True,
    doc="""
    (*, C, H * r, W * r) -> (*, C * r * r, H, W), the inverse of pixel_shuffle.

    >>> ember.pixel_unshuffle(ember.arange(4.0).reshape(1, 2, 2), 2).flatten().tolist()
    [0.0, 1.0, 2.0, 3.0]
    """,
)


@functor("PixelUnshuffle")
def pixel_unshuffle(input, downscale_factor):
    _check_factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    lead, c, h, w = _spatial_split("pixel_unshuffle", input)
    r = downscale_factor
    for axis, index, size in (("height", -2, h), ("width", -1, w)):
        if size % r != 0:
            raise RuntimeError(
                f"pixel_unshuffle expects {axis} to be divisible by downscale_factor, but input.size({index})={size} "
                f"is not divisible by {r}"
            )
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)
