"""What the runner prints: the environment first, then one table, then targets and ratios."""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Iterable

import numpy as np
from harness import Case, Result, torch

import ember

THREAD_ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
THP_PATH = "/sys/kernel/mm/transparent_hugepage/"


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return "unavailable"


def _thp(name: str) -> str:
    """The selected choice of a THP setting, e.g. 'madvise' from 'always [madvise] never'."""
    text = _read(THP_PATH + name)
    if "[" in text:
        return text[text.index("[") + 1 : text.index("]")]
    return text


def _cpu_model() -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _numpy_blas() -> str:
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
    except Exception:  # older NumPy, or a build without the section
        return "unknown"
    return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()


def _torch_info() -> dict[str, object]:
    if torch is None:
        return {"torch": "not importable (torch columns skipped)"}
    backend = next((line.split(":", 1)[1].strip() for line in torch.__config__.parallel_info().splitlines() if "parallel backend" in line), "?")
    return {
        "torch": torch.__version__,
        "torch threads": f"{torch.get_num_threads()} intra-op, {torch.get_num_interop_threads()} inter-op ({backend})",
    }


def environment(overhead_ns: float) -> dict[str, object]:
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    env: dict[str, object] = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "python": f"{platform.python_implementation()} {sys.version.split()[0]}",
        "platform": platform.platform(),
        "cpu": f"{_cpu_model()}; os.cpu_count()={os.cpu_count()}, usable={affinity}",
        "load average": load,
        "numpy": f"{np.__version__} (BLAS: {_numpy_blas()})",
        **_torch_info(),
        "ember": f"{ember.__version__} ({ember.get_num_threads()} threads for its own parallel loops: graph mode's fused programs, large reductions)",
        "thread env": ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in THREAD_ENV_VARS),
        "transparent huge pages": f"enabled={_thp('enabled')}, defrag={_thp('defrag')}",
        "timer": f"perf_counter_ns, empty-call overhead {format_ns(overhead_ns)}/call (included in every figure)",
    }
    return env


def print_environment(env: dict[str, object]) -> None:
    width = max(len(k) for k in env)
    print("environment")
    for key, value in env.items():
        print(f"  {key:<{width}}  {value}")
    print()


def format_ns(ns: float) -> str:
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.2f} us"
    if ns < 1e9:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e9:.2f} s"


def _ratio(results: dict[str, Result], slow: str, fast: str) -> float | None:
    if slow not in results or fast not in results:
        return None
    return results[slow].median / results[fast].median


def _rows(cases: Iterable[tuple[Case, list[Result]]], with_torch: bool) -> list[list[str]]:
    rows = []
    for bench, results in cases:
        by_name = {r.impl: r for r in results}
        for i, r in enumerate(results):
            row = [bench.name if i == 0 else "", r.impl, format_ns(r.median), format_ns(r.quantile(10)), format_ns(r.quantile(90))]
            row += [f"{r.inner}x{len(r.samples_ns)}", f"{r.faults_per_call:.3g}"]
            peers = ["numpy", "torch"] if with_torch else ["numpy"]
            for peer in peers:
                ratio = _ratio(by_name, r.impl, peer) if r.impl.startswith("ember") else None
                row.append(f"{ratio:.2f}x" if ratio is not None else "")
            rows.append(row)
    return rows


def print_table(cases: list[tuple[Case, list[Result]]]) -> None:
    with_torch = torch is not None
    header = ["case", "impl", "median", "p10", "p90", "calls x rounds", "faults/call", "ember/numpy"]
    if with_torch:
        header.append("ember/torch")
    rows = _rows(cases, with_torch)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    left = {0, 1}  # text columns; numbers align right

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    print(line(header))
    print(line(["-" * w for w in widths]))
    previous = None
    for row in rows:
        if row[0] and previous is not None:
            print()
        previous = row
        print(line(row))
    print()
    print("ratios are median/median; > 1 means ember is slower. faults/call: minor page faults per call (fresh memory).")
    if not with_torch:
        print("torch is not importable here: its column is skipped.")


def comparisons(cases: list[tuple[Case, list[Result]]]) -> list[dict[str, object]]:
    """The targets and extra ratios the cases declare, as printable records."""
    out = []
    for bench, results in cases:
        by_name = {r.impl: r for r in results}
        if bench.target_us is not None and "ember" in by_name:
            value = by_name["ember"].median / 1e3
            out.append({"case": bench.name, "what": "ember median", "value_us": value, "target": f"<= {bench.target_us} us", "met": value <= bench.target_us})
        for cmp in bench.compare:
            ratio = _ratio(by_name, cmp.slow, cmp.fast)
            if ratio is None:
                continue
            met = None if cmp.target is None else ratio >= cmp.target
            target = None if cmp.target is None else f">= {cmp.target}x"
            out.append({"case": bench.name, "what": f"{cmp.label} ({cmp.slow} / {cmp.fast})", "ratio": ratio, "target": target, "met": met})
    return out


def print_comparisons(records: list[dict[str, object]], cases: list[tuple[Case, list[Result]]]) -> None:
    if records:
        print("targets and ratios (informative, never asserted)")
    for rec in records:
        value = f"{rec['value_us']:.2f} us" if "value_us" in rec else f"{rec['ratio']:.2f}x"
        verdict = "" if rec["met"] is None else f"   target {rec['target']}: {'met' if rec['met'] else 'NOT met'}"
        print(f"  {rec['case']}: {rec['what']} = {value}{verdict}")
    notes = [(bench.name, bench.note) for bench, _ in cases if bench.note]
    if notes:
        print("\nnotes")
    for name, note in notes:
        print(f"  {name}: {note}")
