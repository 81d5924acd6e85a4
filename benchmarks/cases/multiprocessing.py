"""Sending a 100 MB float32 tensor to another process: put on a queue until the consumer acknowledges.

One consumer process (fork) serves every implementation: it receives, reads one element and
acknowledges on a second queue. "fresh" makes a new tensor in each call with ``empty`` (no fill:
the point is the cost of sending, not of writing 100 MB); "shared" sends one tensor that is
already in shared memory. ember's fresh tensor is born shared inside ``emp.shared_memory()``;
"fresh, not shared" is moved into shared memory on send (a 100 MB copy), as PyTorch's fresh one is.
The NumPy column pickles the array's bytes through the queue's pipe.
"""

import atexit
import importlib

import numpy as np
from harness import Compare, case, torch

import ember
import ember.multiprocessing as emp

NUMEL = 25_000_000  # 100 MB of float32


def _consume(inbox, acks) -> None:
    while True:
        item = inbox.get()
        if item is None:
            return
        float(item[0])  # touch one element of the received memory
        del item
        acks.put(1)


_consumer = None


def _start_consumer():
    global _consumer
    if _consumer is None:
        ctx = emp.get_context("fork")
        inbox, acks = ctx.Queue(), ctx.SimpleQueue()
        process = ctx.Process(target=_consume, args=(inbox, acks), daemon=True)
        process.start()
        _consumer = (inbox, acks, process)

        def stop() -> None:
            inbox.put(None)
            process.join(5)

        atexit.register(stop)
    return _consumer


@case("multiprocessing/queue put+ack 100MB f32", note="measured elsewhere on this class of machine: torch fresh 59 ms, torch shared 1.2 ms, numpy pickled 260 ms; targets: ember born-shared <= 5 ms, shared <= 1.5 ms")
def _put_ack():
    inbox, acks, _ = _start_consumer()

    def send(make):
        def run():
            inbox.put(make())
            acks.get()

        return run

    def born_shared():
        with emp.shared_memory():
            return ember.empty(NUMEL)

    def not_shared():
        fresh = ember.empty(NUMEL)
        fresh.data_ptr()  # allocate now (empty is lazy), as torch.empty does: sending then copies 100 MB
        return fresh

    shared = ember.zeros(NUMEL).share_memory_()
    array = np.zeros(NUMEL, np.float32)
    impls = {
        "ember": send(born_shared),
        "ember shared": send(lambda: shared),
        "ember fresh, not shared": send(not_shared),
        "numpy pickled": send(lambda: array),
    }
    if torch is not None:
        importlib.import_module("torch.multiprocessing")  # registers torch's reductions

        torch_shared = torch.zeros(NUMEL).share_memory_()
        impls["torch"] = send(lambda: torch.empty(NUMEL))
        impls["torch shared"] = send(lambda: torch_shared)
    return impls




class _Images:
    """One preallocated image tensor; a sample is ``(row view, int label)``: the same logic on both frameworks."""

    def __init__(self, images, labels):
        self.images = images
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]


def _loader_epochs(num_workers: int, tensor_dataset: bool = False):
    from ember.utils.data import DataLoader, TensorDataset

    rng = np.random.default_rng(0)
    images = rng.standard_normal((2000, 3, 32, 32), dtype=np.float32)
    labels = rng.integers(0, 10, 2000)
    kwargs = {"batch_size": 64, "shuffle": True, "num_workers": num_workers, "persistent_workers": num_workers > 0}
    if tensor_dataset:
        datasets = {"ember": TensorDataset(ember.from_numpy(images), ember.from_numpy(labels))}
        if torch is not None:
            datasets["torch"] = torch.utils.data.TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))
    else:
        datasets = {"ember": _Images(ember.from_numpy(images), labels.tolist())}
        if torch is not None:
            datasets["torch"] = _Images(torch.from_numpy(images), labels.tolist())
    loaders = {"ember": DataLoader(datasets["ember"], **kwargs)}
    if torch is not None:
        loaders["torch"] = torch.utils.data.DataLoader(datasets["torch"], **kwargs)
    return {name: (lambda loader=loader: sum(x.shape[0] for x, _ in loader)) for name, loader in loaders.items()}


@case(
    "multiprocessing/DataLoader epoch 2000x3x32x32 f32 b64, 2 workers",
    note="batches collated in shared memory by 2 worker processes, persistent across epochs; target: ember >= torch",
    compare=(Compare("2 workers, torch time / ember time", slow="torch", fast="ember", target=1.0),),
)
def _dataloader_workers():
    return _loader_epochs(2)


@case(
    "multiprocessing/DataLoader epoch 2000x3x32x32 f32 b64, in-process",
    note="num_workers=0: the dataset and collate cost alone (samples are (row view, int) pairs); target: ember <= torch",
    compare=(Compare("in-process, torch time / ember time", slow="torch", fast="ember", target=1.0),),
)
def _dataloader_in_process():
    return _loader_epochs(0)


@case(
    "multiprocessing/DataLoader epoch 2000x3x32x32 f32 b64, TensorDataset, in-process",
    note="num_workers=0 over a TensorDataset (images, int64 labels); target: ember <= torch",
    compare=(Compare("TensorDataset in-process, torch time / ember time", slow="torch", fast="ember", target=1.0),),
)
def _dataloader_tensor_dataset():
    return _loader_epochs(0, tensor_dataset=True)
