"""Print docs/pytorch-coverage.md: which of PyTorch's public names ember has, and why the rest are missing.

    python tools/api_coverage.py > docs/pytorch-coverage.md

Needs torch installed (it is the list of names); the output depends only on the torch and ember
versions, so rerunning it after a change shows the change and nothing else. A name counts as
present when ember's namesake namespace (``ember``, ``ember.Tensor``, ``ember.nn``...) has an
attribute of that name; a missing name is sorted into a reason by the rules in ``REASONS``
(the first that matches), else "not yet".
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import types

# (torch namespace, ember namespace): the lists a training or research program draws on
NAMESPACES = [
    ("torch", "ember"),
    ("torch.Tensor", "ember.Tensor"),
    ("torch.nn", "ember.nn"),
    ("torch.nn.functional", "ember.nn.functional"),
    ("torch.linalg", "ember.linalg"),
    ("torch.fft", "ember.fft"),
    ("torch.special", "ember.special"),
    ("torch.optim", "ember.optim"),
    ("torch.optim.lr_scheduler", "ember.optim.lr_scheduler"),
    ("torch.distributions", "ember.distributions"),
    ("torch.utils.data", "ember.utils.data"),
]

# (reason, pattern on the name): first match wins; names matching none are "not yet"
REASONS = [
    (
        "not API: helpers and documentation imported into the namespace",
        r"^Callable$|BroadcastingList|boolean_dispatch|handle_torch_function|has_torch_function|notes$|common_args$|^multi_dim_common$|GRID_SAMPLE|assert_int_or_pair|^factory_kwargs$|argument_validation|runtime_validation|functional_datapipe|guaranteed_datapipes_determinism|^non_deterministic$|^classproperty$|^get_file_path$",
    ),
    ("out of scope: DataPipes (deprecated in PyTorch)", r"DataPipe|^DataChunk$"),
    (
        "out of scope: float8, sub-byte and complex32 dtypes",
        r"^float8_|^float4_|^bits|^complex32$|^chalf$|^uint[1-7]$|^int[1-7]$",
    ),
    ("out of scope: functionalization's *_copy variants", r"_copy$|_scatter$"),
    (
        "out of scope: CUDA and other accelerators",
        r"AcceleratorError|OutOfMemoryError|^batch_norm_(backward|elemt|gather|stats|update)|SyncBatchNorm|DataParallel|cuda|cudnn|miopen|mps|xpu|mtia|^hip|_hip|nccl|accelerator|pin_memory|is_pinned|record_stream|_ipu|^ipu|hpu|maia|^ve$|xla|vulkan|mkldnn|mkl|fbgemm|^cpu$|stream|Stream|Event|device_module|_amp_|^amp|autocast|get_autocast|set_autocast|is_autocast|clear_autocast",
    ),
    (
        "out of scope: quantized tensors",
        r"quant(?!ile)|^q_|qint|quint|qscheme|per_channel|per_tensor|int_repr|Q[U]?Int|fake_|^QInt|^QUInt|^q_per|qr_q|dequant",
    ),
    (
        "out of scope: sparse layouts (ember.sparse is TensorFlow's)",
        r"sparse|coo|csr|csc|bsr|bsc|crow|ccol|col_indices|row_indices|_nnz|coalesce|dense_dim|^smm$|hspmm|sspaddmm|^indices$|^values$|to_dense|saddmm|^spmm$",
    ),
    ("out of scope: named tensors", r"^names$|rename|refine_names|align_to|align_as|has_names"),
    ("out of scope: nested and jagged tensors", r"nested|jagged"),
    (
        "out of scope: TorchScript, FX, export and compiler internals",
        r"CallStack|ExecutionPlan|FileCheck|^Gradient$|JITException|Logger|OperatorInfo|^Script|StorageContext|^Use$|StorageBase|jit|script|^fx$|^export|onnx|compiler|compile|^library$|^ops$|^classes$|^fork$|^wait$|Future|^_|Graph|Node|Block|Value|Type$|^Code$|CompilationUnit|FunctionSchema|Argument|AliasDb|Capsule|ErrorReport|IODescriptor|LiteScriptModule|ScriptObject|ScriptFunction|ScriptMethod|ScriptModule|ConcreteModuleType|DeepCopyMemoTable|TracingState|ThroughputBenchmark|Benchmark|AggregationType|AVG|SUM|PyTorchFileReader|PyTorchFileWriter|DispatchKey|DisableTorchFunction|StaticModule|InferredType|TensorType|ParameterDict|BufferDict|TypedStorage|UntypedStorage|Tag$|SymBool|SymFloat|SymInt|sym_|Sym|guard|OpOverload|unify_type_list|merge_type_from_type_comment|import_ir_module|parse_ir|parse_schema|parse_type_comment|set_flush_denormal|vitals|set_vital|read_vitals|is_anomaly|set_anomaly|_assert|opaque|Opaque",
    ),
    ("out of scope: legacy typed storages (ember has one untyped Storage)", r"Storage$|^storage_type$|^is_shared$"),
    (
        "out of scope: process-level and packaging tools",
        r"^hub$|^package$|^utils$|^testing$|^backends$|^monitor$|^profiler$|^futures$|^overrides$|^multiprocessing$|^distributed$|^distributions$|^func$|^masked$|^signal$|^return_types$|^types$|^version$|^torch_version$|^serialization$|^storage$|^random$|^quasirandom$|^functional$|^contrib$|^ao$|^backends$|^nn$|^optim$|^special$|^linalg$|^fft$|^sparse$|^autograd$|^cpu$|^mps$|^cuda$|^xpu$|^mtia$|^accelerator$|^amp$|^export$|^onnx$|^jit$|^fx$",
    ),
]
_REASONS = [(why, re.compile(pattern)) for why, pattern in REASONS]
NOT_YET = "not yet"


def resolve(dotted: str):
    """``torch.nn.functional``, ``ember.Tensor``...: attributes from the package down (for ember,
    only what importing ember binds, so a namespace it lacks is None, never a stray module)."""
    head, *rest = dotted.split(".")
    value = importlib.import_module(head)
    for i, part in enumerate(rest):
        if not hasattr(value, part) and head == "torch":
            importlib.import_module(".".join([head, *rest[: i + 1]]))  # torch's lazily loaded submodules
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def public_names(namespace) -> list[str]:
    """The public names a program uses: not underscored, not a submodule, not a bare constant."""
    names = []
    listed = getattr(namespace, "__all__", None) if isinstance(namespace, types.ModuleType) else None
    for name in dir(namespace):
        if listed is not None and name not in listed and namespace.__name__ != "torch":
            continue  # a submodule's own list of its API leaves out what it imports for itself
        if name.startswith("_"):
            continue
        try:
            value = getattr(namespace, name)
        except Exception:  # a lazy attribute that fails on this host (a CUDA-only one)
            continue
        if isinstance(value, (types.ModuleType, bool, int, float, str, tuple, dict, list, set)):
            continue
        if not inspect.isclass(namespace) and getattr(value, "__module__", "") in ("typing", "collections", "abc"):
            continue  # names a module imported for itself (typing.Any...)
        if namespace is not value and name == "Tensor" and getattr(namespace, "__name__", "") != "torch":
            continue  # torch.fft.Tensor and kin: the class, imported for annotations
        names.append(name)
    return sorted(names)


def reason(name: str) -> str:
    for why, pattern in _REASONS:
        if pattern.search(name):
            return why
    return NOT_YET


def section(torch_name: str, ember_name: str) -> tuple[str, tuple]:
    theirs, ours = resolve(torch_name), resolve(ember_name)
    names = public_names(theirs) if theirs is not None else []
    have = [n for n in names if ours is not None and hasattr(ours, n)]
    missing: dict[str, list[str]] = {}
    for n in names:
        if ours is None or not hasattr(ours, n):
            missing.setdefault(reason(n), []).append(n)
    lines = [f"## `{torch_name}` -> `{ember_name}`", ""]
    if ours is None:
        lines += [f"`{ember_name}` does not exist yet.", ""]
    lines += [f"**Has ({len(have)}):** " + (", ".join(f"`{n}`" for n in have) or "none"), ""]
    for why in [NOT_YET, *(w for w, _ in REASONS)]:
        if why in missing:
            lines += [f"**Missing, {why} ({len(missing[why])}):** " + ", ".join(f"`{n}`" for n in missing[why]), ""]
    out_of_scope = sum(len(v) for k, v in missing.items() if k != NOT_YET)
    return "\n".join(lines), (torch_name, len(names), len(have), len(missing.get(NOT_YET, [])), out_of_scope)


def main() -> int:
    try:
        import torch
    except ImportError:
        print("tools/api_coverage.py needs torch installed: it reads PyTorch's lists of names", file=sys.stderr)
        return 1
    import ember

    sections, rows = [], []
    for torch_name, ember_name in NAMESPACES:
        text, row = section(torch_name, ember_name)
        sections.append(text)
        rows.append(row)
    print("# PyTorch API coverage")
    print()
    print(
        f"Generated by `tools/api_coverage.py` from torch {torch.__version__.split('+')[0]} and ember {ember.__version__}; refresh with"
    )
    print("`python tools/api_coverage.py > docs/pytorch-coverage.md`. A name is present when ember's namesake")
    print("namespace has an attribute of that name (its behaviour is what the tests check, not this table).")
    print("Missing names are sorted by the script's rules into out-of-scope groups (CUDA and other")
    print("accelerators, quantized tensors, PyTorch's sparse layouts, named and nested tensors, TorchScript")
    print('and compiler internals, typed storages, process-level tools) and the rest, "not yet".')
    print()
    print("| namespace | public names | in ember | missing: not yet | missing: out of scope |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for torch_name, total, have, not_yet, out in rows:
        print(f"| `{torch_name}` | {total} | {have} | {not_yet} | {out} |")
    print()
    print("\n".join(sections).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
