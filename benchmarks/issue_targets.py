"""The targets of the speed issue, row by row, and the summary table that checks them after a run.

Each row names the benchmark case it is read from (the first of its candidate names that ran; a
name ending in ``*`` is a prefix), the implementation it is compared with, and its target: a
ceiling on ember's median, on the ratio ember / reference, or on a difference of two
implementations (autograd's cost per op). A row whose case did not run says why: filtered
out, or no such case. Nothing here asserts: the verdicts are printed.
"""

from __future__ import annotations

from dataclasses import dataclass

ISSUE = "issue 19: PyTorch-level CPU, half the per-op overhead, fast import"


def format_ns(ns: float) -> str:
    """A duration in its unit (this module stays free of the runner's imports: NumPy, torch)."""
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if ns >= scale:
            return f"{ns / scale:.2f} {unit}"
    return f"{ns:.0f} ns"


@dataclass(frozen=True)
class Target:
    work: str
    cases: tuple[str, ...]  # candidate case names, first that ran wins; "prefix*" matches a prefix
    reference: str = "torch"
    max_us: float | None = None  # ember's median (or ember minus `minus`) at most this
    max_ratio: float | None = None  # ember / reference at most this
    # the figure is a cost per op: "ember<suffix>" minus "ember" (and the reference's likewise)
    cost_suffix: str | None = None
    # the reference's median on the machine the issue measured (us). An absolute target was set
    # against it, so on another machine the target is the ratio max_us / issue_reference_us to the
    # same reference in this run (a slower machine slows both); the absolute figure is kept for show.
    issue_reference_us: float | None = None

    @property
    def scaled_ratio(self) -> float | None:
        if self.max_us is None or self.issue_reference_us is None:
            return None
        return self.max_us / self.issue_reference_us

    @property
    def goal(self) -> str:
        parts = []
        if self.max_us is not None:
            parts.append(f"<= {format_ns(self.max_us * 1e3)}")
        if self.scaled_ratio is not None:
            parts.append(f"= {self.scaled_ratio:.2f}x {self.reference}")
        if self.max_ratio is not None:
            parts.append(f"<= {self.max_ratio:g}x {self.reference}")
        return " ".join(parts) if self.scaled_ratio is not None else ", ".join(parts)


TARGETS: tuple[Target, ...] = (
    Target("eager a + b, 100 float32", ("ops/a + b 100 f32",), max_us=1.5, issue_reference_us=1.3),
    Target("eager relu(a), 100 float32", ("ops/relu(a) 100 f32",), max_us=1.5, issue_reference_us=1.3),
    Target("eager a * 2.0, 100 float32", ("ops/a * 2.0 100 f32",), max_us=1.5, issue_reference_us=3.0),
    Target("view op: view", ("views/view(9) 3x3 f32",), max_ratio=1.0),
    Target("view op: transpose", ("views/transpose(0,1) 3x3 f32",), max_ratio=1.0),
    Target("view op: slice", ("views/slice [1:, ::2] 3x3 f32",), max_ratio=1.0),
    Target(
        "autograd cost per recorded op",
        ("overhead/a * b 100 f32, recorded*", "training/autograd cost per recorded op: a*b 100 f32"),
        max_us=0.8,
        cost_suffix="[recorded]",
    ),
    Target("small CNN train step, batch 32, 3x32x32", ("training/(c) CNN 3x32x32 batch 32",), max_ratio=1.0),
    Target("TransformerEncoderLayer(128,4,512,gelu) + head, batch 16 x 64", ("transformer/(a)*",), max_ratio=1.0),
    Target("2-layer LSTM(32,128) + head, batch 32 x 32 steps", ("rnn/(a)*",), max_ratio=1.5),
    Target("sum of 16M float32 (2 threads)", ("ops/sum 16M f32 (2 threads)", "ops/sum 16M f32"), max_us=1500.0, issue_reference_us=1650.0),
    Target(
        "compiled relu(a*b+c)*0.5, 16M float32, 1 thread", ("fusion/relu(a*b+c)*0.5 16M f32",), reference="numpy", max_us=8000.0
    ),
    Target(
        "DataLoader in-process, (row, label) samples",
        ("multiprocessing/DataLoader epoch 2000x3x32x32 f32 b64, in-process",),
        max_ratio=1.0,
    ),
    Target(
        "DataLoader in-process, TensorDataset batches",
        ("multiprocessing/DataLoader epoch 2000x3x32x32 f32 b64, TensorDataset, in-process",),
        max_ratio=1.0,
    ),
    Target("import ember", ("startup/import*",), reference="numpy", max_us=200_000.0, issue_reference_us=100_000.0),
    Target("small TensorProto serialize + parse", ("tensorproto/serialize+parse 3x3 f32",), reference="protobuf", max_us=5.0, issue_reference_us=4.4),
    Target(
        "DLPack import of a PyTorch tensor", ("dlpack/import: from_dlpack(torch tensor) 1 elem",), reference="numpy", max_us=3.0, issue_reference_us=1.8
    ),
    Target(
        "Transformer encoder train step (d 256, 4 heads, ff 1024, seq 128, b 16, AdamW)",
        ("transformer/(b)*",),
        max_ratio=1.0,
    ),
    Target("LSTM train step (64, 256, 2 layers, seq 64, b 32)", ("rnn/(b)*",), max_ratio=1.5),
    Target("GRU train step (64, 256, 2 layers, seq 64, b 32)", ("rnn/(c)*",), max_ratio=1.5),
    Target(
        "peak memory, MLP 784-1024-1024-10 train loop (fresh process)",
        ("peak_memory/MLP*loop, batch 256, SGD (fresh process)",),
        max_ratio=1.0,
    ),
    Target(
        "peak memory, CNN 3x32x32 train loop (fresh process)",
        ("peak_memory/CNN*loop, batch 32, SGD (fresh process)",),
        max_ratio=1.0,
    ),
)


def _matches(pattern: str, name: str) -> bool:
    if "*" not in pattern:
        return name == pattern
    head, *middle, tail = pattern.split("*")
    if not (name.startswith(head) and name.endswith(tail)):
        return False
    at = len(head)
    for part in middle:
        at = name.find(part, at)
        if at < 0:
            return False
        at += len(part)
    return at <= len(name) - len(tail)


def selected(cases: list[str], jobs: list[str]) -> set[str]:
    """The cases and jobs that feed the table (what ``run.py --issue`` runs): per row, the cases
    of its first candidate that is registered; a job by its family (the text before '/')."""
    chosen = set()
    for t in TARGETS:
        for pattern in t.cases:
            hits = [n for n in cases if _matches(pattern, n)]
            if hits:
                chosen.update(hits)
                break
    families = {p.split("/", 1)[0] + "/" for t in TARGETS for p in t.cases}
    chosen.update(j for j in jobs if j.split("/", 1)[0] + "/" in families)
    return chosen


# ---------------------------------------------------------------------------------------
# the figures of one run: {case name: {impl: (value, unit)}}, unit "ns" or "KiB"


def figures(done: list, job_records: dict[str, list]) -> dict[str, dict[str, tuple[float, str]]]:
    out: dict[str, dict[str, tuple[float, str]]] = {}
    for bench, results in done:
        out[bench.name] = {r.impl: (r.median, "ns") for r in results}
    for records in job_records.values():
        for rec in records if isinstance(records, list) else ():
            if not isinstance(rec, dict) or "case" not in rec or "impl" not in rec:
                continue  # a job's own record format: not a row of this table
            if "median_ns" in rec:
                out.setdefault(rec["case"], {})[rec["impl"]] = (rec["median_ns"], "ns")
            elif "kib" in rec:
                out.setdefault(rec["case"], {})[rec["impl"]] = (rec["kib"], "KiB")
    return out


def _format(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    return format_ns(value) if unit == "ns" else f"{value / 1024:.1f} MiB"


def evaluate(found: dict[str, dict[str, tuple[float, str]]], cases: list[str], jobs: list[str]) -> list[dict]:
    """One record per target: the case used, the figures, the ratio and the verdict. ``cases``
    and ``jobs`` are every registered name, to tell a filtered-out row from a missing case."""
    rows = []
    for t in TARGETS:
        name = next((n for p in t.cases for n in found if _matches(p, n)), None)
        row: dict = {"work": t.work, "target": t.goal, "case": name, "candidates": t.cases}
        impls = found.get(name, {})
        if name is None or "ember" not in impls:
            known = any(_matches(p, n) for p in t.cases for n in cases) or any(
                p.startswith(j.split("/", 1)[0] + "/") for p in t.cases for j in jobs
            )
            row.update(status="not run (filtered out)" if known else "not run (no such case yet)", met=None)
            rows.append(row)
            continue
        ember, unit = impls["ember"]
        ref = impls.get(t.reference, (None,))[0]
        row.update(
            unit=unit,
            ember=ember,
            numpy=impls.get("numpy", (None,))[0],
            torch=impls.get("torch", (None,))[0],
            reference=t.reference,
        )
        row["ratio"] = ember / ref if ref else None
        value = ember
        if t.cost_suffix is not None:
            value = row["cost"] = _cost(impls, "ember", t.cost_suffix)
            row["reference_cost"] = _cost(impls, t.reference, t.cost_suffix)
            row["torch"] = row["reference_cost"] if t.reference == "torch" else None
            row["ratio"] = value / row["reference_cost"] if value is not None and row["reference_cost"] else None
        checks = []
        if t.scaled_ratio is not None and row["ratio"] is not None:
            checks.append(row["ratio"] <= t.scaled_ratio)  # the absolute target, carried to this machine
        elif t.max_us is not None and value is not None:
            checks.append(value <= t.max_us * 1e3)
        if t.max_ratio is not None and row["ratio"] is not None:
            checks.append(row["ratio"] <= t.max_ratio)
        row["met"] = all(checks) if checks else None
        row["status"] = "met" if row["met"] else ("NOT met" if row["met"] is not None else "no reference in this run")
        rows.append(row)
    return rows


def _cost(impls: dict[str, tuple[float, str]], impl: str, suffix: str) -> float | None:
    if impl not in impls or impl + suffix not in impls:
        return None
    return impls[impl + suffix][0] - impls[impl][0]


def print_table(rows: list[dict]) -> None:
    header = ["work (case)", "ember", "numpy", "torch", "ratio", "target", "verdict"]
    lines = []
    for r in rows:
        unit = r.get("unit", "ns")
        if "ember" not in r:
            lines.append([r["work"], "", "", "", "", r["target"], r["status"]])
        else:
            ember, numpy, torch = (_format(r[k], unit) for k in ("ember", "numpy", "torch"))
            if "cost" in r:  # a cost per op: the recorded op's median minus the plain one's
                ember, torch = (f"+{_format(r[k], unit)}/op" if r[k] is not None else "" for k in ("cost", "torch"))
                numpy = ""
            ratio = f"{r['ratio']:.2f}x {r['reference']}" if r.get("ratio") is not None else ""
            lines.append([r["work"], ember, numpy, torch, ratio, r["target"], r["status"]])
        lines.append([f"  {r['case'] or ' or '.join(r['candidates'])}", "", "", "", "", "", ""])
    # the case lines (only their first cell filled) may run past the first column
    widths = [max(len(row[i]) for row in [header, *lines[::2]]) for i in range(len(header))]
    left = {0, 5, 6}

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    print(f"\nissue targets ({ISSUE}); ratio = ember / reference, medians of this run; informative, never asserted")
    print(line(header))
    print(line(["-" * w for w in widths]))
    for cells in lines:
        print(line(cells))
    met = sum(1 for r in rows if r["met"])
    ran = sum(1 for r in rows if r["met"] is not None)
    print(f"{met} of {ran} rows that ran meet their target; {len(rows) - ran} not run or without a reference")
