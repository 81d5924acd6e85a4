"""Large reductions cut into blocks that ember's threads reduce at once (NumPy's reductions
release the GIL), the blocks' results combined in a fixed order.

The blocks depend on the array alone (shape, strides, dtype, axes), never on the thread count,
and are combined in one order: a result has the same bits with 1 thread or 16. Arrays of at most
``LEAF`` elements are not cut at all (the kernels call NumPy on the whole array).

**Along some axes**, with a kept extent of at least 2: the output is cut along its outermost
kept axis of size > 1, and each block of output is NumPy's reduction of its slice of the input.
The terms of one output element are summed in the order the whole call sums them, so the result
is the unblocked kernel's, bit for bit (tests check contiguous, transposed, stepped, reversed
and sliced inputs), except where NumPy's casting buffer (a half-precision input) may fall
differently on a slice.

**Over every element** (every kept axis of size 1): the input is viewed in memory order (axes
sorted by the size of their stride, neighbours merged, as NumPy's iterator does). A 1-d view is
cut where NumPy's pairwise summation cuts it (halves, the first rounded down to a multiple of 8)
until a block has at most ``LEAF`` elements, and the blocks' sums are added back up the same
tree: the sum of a contiguous or evenly strided float array is np.sum's, bit for bit. A view
of several dimensions (a strided slice that does not merge) has its outer axis halved the same
way; each block is NumPy's reduction of the block and the blocks are combined pairwise.

Error bound of a float sum, with ``eps`` the unit roundoff of the accumulating dtype and ``b``
the number of blocks: |error| <= (ceil(log2 b) + k) * eps * sum|x| (to first order), where
k * eps * sum|x| is NumPy's bound for one block (k <= 16 + log2(block / 128) for a 1-d block:
eight interleaved runs of at most 16 terms, then pairwise halving; for a block of r rows, r more).
That is never above NumPy's bound for the whole array, which adds a 2-d view's rows one after
another. Products, maxima and minima use the same blocks (integer sums and products wrap
exactly in any order; maxima and minima are exact, NaN propagating).

>>> import numpy as np
>>> x = np.random.default_rng(0).standard_normal(3 * LEAF + 5).astype(np.float32)
>>> out = np.empty((), np.float32)
>>> reduce_in_blocks(np.sum, np.add, x, (0,), out, np.float32)
True
>>> bool(out == np.sum(x))
True
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..._core.threads import parallel_map

__all__ = ["LEAF", "reduce_in_blocks"]

# Elements per block: 4 MiB of float32. A block costs ~5 us of Python (its NumPy call, its
# share of the combine); 16M float32 makes 16 blocks, enough to balance 2 to 8 threads.
LEAF = 1 << 20


def _memory_order(x: np.ndarray) -> np.ndarray:
    """``x``'s elements as a view in memory order: size-1 axes dropped, axes sorted by the size
    of their stride (outer first), neighbours merged where they can be. Reversed axes stay
    reversed: NumPy sums a reversed 1-d view in the order it is given."""
    order = sorted((i for i, d in enumerate(x.shape) if d != 1), key=lambda i: -abs(x.strides[i]))
    shape: list[int] = []
    strides: list[int] = []
    for i in order:
        d, s = x.shape[i], x.strides[i]
        if shape and strides[-1] == s * d:
            shape[-1] *= d
            strides[-1] = s
        else:
            shape.append(d)
            strides.append(s)
    return as_strided(x, tuple(shape), tuple(strides), writeable=False)


def _tree(v: np.ndarray, leaves: list):
    """Cut ``v`` into blocks of at most LEAF elements (appended to ``leaves``); returns the
    combining tree: a leaf's index, or a pair of subtrees."""
    if v.size <= LEAF:
        leaves.append(v)
        return len(leaves) - 1
    if v.ndim == 1:
        half = v.shape[0] // 2
        half -= half % 8  # NumPy's pairwise_sum keeps its first half a multiple of its 8-way unroll
    elif v.shape[0] == 1:
        return _tree(v[0], leaves)
    else:
        half = v.shape[0] // 2
    return (_tree(v[:half], leaves), _tree(v[half:], leaves))


def _combine(node, parts: list, combine):
    if isinstance(node, int):
        return parts[node]
    return combine(_combine(node[0], parts, combine), _combine(node[1], parts, combine))


def _output_blocks(x: np.ndarray, dims: tuple) -> tuple[int, list[slice]] | None:
    """The kept axis to cut the output along and its blocks, or None when the kept extent is 1."""
    kept = [i for i in range(x.ndim) if i not in dims]
    if not kept:
        return None
    axis = next((i for i in kept if x.shape[i] > 1), None)  # the output's outermost: its blocks are whole rows of it
    if axis is None:
        return None
    size = x.shape[axis]
    count = min(size, -(-x.size // LEAF))
    return axis, [slice(size * k // count, size * (k + 1) // count) for k in range(count)]


def reduce_in_blocks(reduce, combine, x: np.ndarray, dims: tuple, out: np.ndarray, acc: np.dtype) -> bool:
    """``reduce(x, axis=dims)`` written into ``out`` (the kept axes' shape, with or without
    the reduced ones as 1s), computed in blocks on ember's threads; False (and nothing
    written) when ``x`` has at most LEAF elements.

    ``reduce(block, axis=None, keepdims=False, out=None)`` is NumPy-like and gives results of
    dtype ``acc``; ``combine(a, b)`` is the ufunc joining two blocks' results (np.add for a
    sum). The result is cast into ``out`` as the kernels' ``store`` does.
    """
    if x.size <= LEAF:
        return False
    split = _output_blocks(x, dims)
    if split is None:
        leaves: list = []
        tree = _tree(_memory_order(x), leaves)
        parts = parallel_map(lambda run: [reduce(v) for v in run], leaves)
        np.copyto(out, _combine(tree, parts, combine), casting="unsafe")
        return True
    axis, blocks = split
    kept_shape = tuple(1 if i in dims else d for i, d in enumerate(x.shape))
    target = out.reshape(kept_shape)  # a view when out is contiguous (the kernels' outputs are)
    direct = target.dtype == acc and np.may_share_memory(target, out)
    if not direct:
        target = np.empty(kept_shape, acc)
    parallel_map(lambda run: _reduce_blocks(reduce, x, dims, target, axis, run), blocks)
    if not direct:
        np.copyto(out, target.reshape(out.shape), casting="unsafe")
    return True


def _reduce_blocks(reduce, x: np.ndarray, dims: tuple, target: np.ndarray, axis: int, blocks: list) -> list:
    """One thread's run of output blocks: NumPy's reduction of each slice into its slice of ``target``."""
    index = [slice(None)] * x.ndim
    for block in blocks:
        index[axis] = block
        at = tuple(index)
        reduce(x[at], axis=dims, keepdims=True, out=target[at])
    return []
