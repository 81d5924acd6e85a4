"""A short tour of what ember does today: the seeds' examples about tensors, run for real.

Run with `make tour` (or `python examples/tour.py`). Each section prints what it shows.
`make demo` runs the training example, examples/train_digits.py.
"""

import pickle

import numpy as np

import ember
from ember.memory import CachingAllocator, memory_stats, using_allocator


def section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 70 - len(title)))


def show(label: str, value) -> None:
    text = repr(value)
    if "\n" in text:
        print(f"{label}:")
        print("    " + text.replace("\n", "\n    "))
    else:
        print(f"{label}: {text}")


section("A tensor is a view over a dumb storage (PyTorch internals seed)")
tensor_a = ember.ones((3, 3))
tensor_b = tensor_a.view(9)
show("tensor_a.storage().data_ptr() == tensor_b.storage().data_ptr()",
     tensor_a.storage().data_ptr() == tensor_b.storage().data_ptr())
show("tensor_a.untyped_storage()", tensor_a.untyped_storage())
tensor_b[4] = 5.0
show("after tensor_b[4] = 5, tensor_a", tensor_a)
show("shared version counter (tensor_a._version, tensor_b._version)", (tensor_a._version, tensor_b._version))

section("Strided views are metadata only")
t = ember.tensor([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])
for label, view in [("t.T", t.T), ("t[::-1, 1::2]", t[::-1, 1::2]), ("t[0].expand(2, 4)", t[0].expand(2, 4)),
                    ("t.diagonal()", t.diagonal()), ("t.view(ember.int32)[0, :4]", t.view(ember.int32)[0, :4])]:
    print(f"{label:28s} shape={list(view.shape)!s:8s} stride={view.stride()!s:9s} offset={view.storage_offset():2d} "
          f"same storage={view.untyped_storage() is t.untyped_storage()}")
try:
    t.T.view(12)
except RuntimeError as error:
    print("t.T.view(12) ->", error)
try:
    t.as_strided((4, 4), (4, 1))
except RuntimeError as error:
    print("t.as_strided((4, 4), (4, 1)) ->", str(error)[:110], "...")

section("Zero-copy NumPy both ways (tensor_from_numpy in the seed)")
array = np.arange(6, dtype=np.float32).reshape(2, 3)
from_np = ember.from_numpy(array[:, ::-1])
show("ember.from_numpy(array[:, ::-1])", from_np)
show("its strides (negative, as in NumPy)", from_np.stride())
from_np[0, 0] = 100.0
show("array after from_np[0, 0] = 100", array)
show("np.shares_memory(from_np.numpy(), array)", np.shares_memory(from_np.numpy(), array))

section("dtypes: the array API's promotion, PyTorch's weak Python scalars")
show("ember.result_type(ember.int8, ember.uint8)", ember.result_type(ember.int8, ember.uint8))
show("ember.result_type(ember.tensor([1, 2]), 2.5)", ember.result_type(ember.tensor([1, 2]), 2.5))
show("ember.result_type(ember.tensor([1.0], dtype=ember.float16), 2.5)",
     ember.result_type(ember.tensor([1.0], dtype=ember.float16), 2.5))
print(f"{'dtype':10s} {'itemsize':>8s} {'DLPack (code, bits, lanes)':>28s} {'TF DataType':>12s}")
for dtype in (ember.bool, ember.int64, ember.bfloat16, ember.float32, ember.complex64, ember.string):
    print(f"{dtype.name:10s} {dtype.itemsize:8d} {dtype.dlpack!s:>28s} {dtype.tf_enum:12d}")

section("String tensors: the allocator runs element constructors (TensorFlow's RunCtor)")
words = ember.empty(3, dtype=ember.string)
show("ember.empty(3, dtype=ember.string)", words)
words[1] = "ember"
show("after words[1] = 'ember'", words)

section("Lazy allocation and the meta device (caffe2's mutable_data, taken to its end)")
before = memory_stats()["num_allocs"]
lazy = ember.empty(1_000_000)
show("allocations made by ember.empty(1_000_000)", memory_stats()["num_allocs"] - before)
lazy.fill_(0.5)
show("allocations after the first write", memory_stats()["num_allocs"] - before)
huge = ember.empty(1 << 20, 1 << 20, device="meta")
show("a 4 TiB meta tensor", huge)
show("its transpose's strides", huge.T.stride())

section("Allocators: 64-byte aligned blocks, a caching allocator, statistics")
show("data_ptr() % 64 of a fresh tensor", ember.empty(1000).fill_(0).data_ptr() % 64)
with using_allocator(CachingAllocator()):
    first = ember.empty(10_000).fill_(1)
    address = first.data_ptr()
    del first
    second = ember.empty(10_000).fill_(2)
    show("the caching allocator handed the freed block out again", second.data_ptr() == address)
stats = memory_stats("cpu")
print("memory_stats('cpu'):", {k: stats[k] for k in ("allocated_bytes.current", "allocated_bytes.peak", "cached_bytes.current", "num_allocs")})
ember.empty_cache()

section("Pickling: protocol 5 sends the bytes out of band, views stay views")
base = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
buffers = []
payload = pickle.dumps((base, base.T), protocol=5, buffer_callback=buffers.append)
restored, restored_t = pickle.loads(payload, buffers=[bytearray(b.raw()) for b in buffers])
show("pickled bytes in-band / out-of-band", (len(payload), sum(b.raw().nbytes for b in buffers)))
show("restored views share one storage", restored.untyped_storage() is restored_t.untyped_storage())
show("restored.T", restored_t)

section("The op system: ember.relu(x) travels schema -> functor -> interpreter -> VM -> kernel (OneFlow seed)")
x = ember.tensor([[-1.0, 2.0], [3.0, -4.0]])
ember.relu(x)  # a first call fills the inference cache; explain the steady state
y = ember.explain(ember.relu, x)
show("relu(x)", y)
with ember.trace() as journeys:
    h = ember.linear(ember.randn(4, 100), ember.randn(200, 100) * 0.1, ember.zeros(200))
    h = ember.relu(h)
    logits = ember.linear(h, ember.randn(10, 200) * 0.1, ember.zeros(10))
    probabilities = ember.softmax(logits, dim=1)
print("the seed's TinyModel forward pass, op by op:")
print(journeys.table())
show("rows of softmax sum to 1", probabilities.sum(dim=1))
show("the same ops on the meta device (inference, no kernels)", ember.matmul(ember.empty(64, 128, device="meta"), ember.empty(128, 32, device="meta")))

print("\nTraining: `make demo` (examples/train_digits.py). More to come: graphs and sessions, DLPack and TensorProto.")
