"""The benchmark harness: a registry of cases and an interleaved timer.

A case is a name and a setup function; setup builds its inputs once and returns
``{impl_name: callable}`` (or :class:`Impl` when an implementation needs a scope, such as an
allocator, entered around each sample). Every implementation of a case is timed in the same
run, round-robin in a shuffled order each round, so that machine noise hits all of them alike.

    @case("views/view(9) 3x3 f32", target_us=1.5)
    def _view():
        t = ember.from_numpy(a)
        return {"ember": lambda: t.view(9), "numpy": lambda: a.reshape(9)}

Nothing here asserts a time: targets and ratios are printed, never checked.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import random
import resource
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def _import_torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


# The optional peer: None when torch is not importable, and every torch column is skipped.
torch = _import_torch()


# ---------------------------------------------------------------------------------------
# the registry


@dataclass(frozen=True)
class Impl:
    """One implementation: a zero-argument callable and an optional scope entered around
    each sample (outside the timed region), e.g. ``lambda: using_allocator(cache)``."""

    fn: Callable[[], object]
    scope: Callable[[], contextlib.AbstractContextManager] | None = None


@dataclass(frozen=True)
class Compare:
    """An extra ratio to print for a case: median(slow) / median(fast), with an optional
    target that the ratio should reach (printed as met / not met, never asserted)."""

    label: str
    slow: str
    fast: str
    target: float | None = None


@dataclass(frozen=True)
class Case:
    name: str
    setup: Callable[[], dict[str, Callable[[], object] | Impl]]
    note: str = ""
    target_us: float | None = None  # what the 'ember' implementation should stay under
    compare: tuple[Compare, ...] = ()


CASES: list[Case] = []


def case(name: str, *, note: str = "", target_us: float | None = None, compare: tuple[Compare, ...] = ()):
    """Register the decorated setup function as a benchmark case."""

    def register(setup):
        CASES.append(Case(name, setup, note, target_us, compare))
        return setup

    return register


@dataclass(frozen=True)
class Job:
    """A case that runs in processes of its own (a multi-rank MPI job), times its variants there,
    and prints its own table: ``run(quick)`` returns records for the JSON output."""

    name: str
    run: Callable[[bool], list]


JOBS: list[Job] = []


def job(name: str):
    """Register ``run(quick) -> records`` as a job case (run after the in-process cases)."""

    def register(run):
        JOBS.append(Job(name, run))
        return run

    return register


# ---------------------------------------------------------------------------------------
# timing


@dataclass(frozen=True)
class Settings:
    sample_ns: int = 2_000_000  # aim each sample (inner loop) at ~2 ms
    min_rounds: int = 20
    max_rounds: int = 300
    budget_s: float = 8.0  # stop adding rounds to a case after this, once min_rounds are done
    warmup_s: float = 0.05


QUICK = Settings(min_rounds=5, max_rounds=30, budget_s=0.75, warmup_s=0.01)


@dataclass
class Result:
    case: str
    impl: str
    inner: int  # calls per sample
    samples_ns: list[float] = field(default_factory=list)  # per-call time of each sample
    minflt: int = 0  # minor page faults over all timed samples
    calls: int = 0

    @property
    def median(self) -> float:
        return statistics.median(self.samples_ns)

    def quantile(self, q: int) -> float:
        """The q-th percentile, q in 10..90 by tens."""
        if len(self.samples_ns) < 2:
            return self.samples_ns[0]
        return statistics.quantiles(self.samples_ns, n=10, method="inclusive")[q // 10 - 1]

    @property
    def faults_per_call(self) -> float:
        return self.minflt / self.calls if self.calls else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "impl": self.impl,
            "median_ns": self.median,
            "p10_ns": self.quantile(10),
            "p90_ns": self.quantile(90),
            "inner": self.inner,
            "rounds": len(self.samples_ns),
            "minor_faults_per_call": self.faults_per_call,
            "samples_ns": self.samples_ns,
        }


def _minflt() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _time_loop(fn: Callable[[], object], n: int) -> int:
    """Nanoseconds for n calls of fn, with the garbage collector off while the clock runs."""
    gc.disable()
    try:
        start = time.perf_counter_ns()
        for _ in itertools.repeat(None, n):
            fn()
        return time.perf_counter_ns() - start
    finally:
        gc.enable()


def _scope(impl: Impl) -> contextlib.AbstractContextManager:
    return impl.scope() if impl.scope is not None else contextlib.nullcontext()


def _calibrate(impl: Impl, settings: Settings) -> int:
    """Warm up, then find the inner loop count that makes one sample about sample_ns long."""
    deadline = time.perf_counter() + settings.warmup_s
    with _scope(impl):
        for _ in range(3):
            impl.fn()
        while time.perf_counter() < deadline:
            impl.fn()
        n = 1
        while True:
            elapsed = max(min(_time_loop(impl.fn, n) for _ in range(3)), 1)  # min: a noisy try must not shrink n
            if elapsed >= settings.sample_ns // 2:
                return max(1, round(n * settings.sample_ns / elapsed))
            n = min(n * 100, max(n * 2, round(n * settings.sample_ns / elapsed)))


def run_case(bench: Case, settings: Settings, rng: random.Random) -> list[Result]:
    """Time every implementation of a case, interleaved, and return one Result each."""
    impls = {name: fn if isinstance(fn, Impl) else Impl(fn) for name, fn in bench.setup().items()}
    results = {name: Result(bench.name, name, _calibrate(impl, settings)) for name, impl in impls.items()}
    order = list(impls)
    gc.collect()
    start = time.perf_counter()
    for done in itertools.count(1):
        rng.shuffle(order)
        for name in order:
            impl, result = impls[name], results[name]
            with _scope(impl):
                faults = _minflt()
                elapsed = _time_loop(impl.fn, result.inner)
                result.minflt += _minflt() - faults
            result.samples_ns.append(elapsed / result.inner)
            result.calls += result.inner
        if done >= settings.max_rounds or (done >= settings.min_rounds and time.perf_counter() - start > settings.budget_s):
            break
    return list(results.values())


def call_overhead_ns(settings: Settings) -> float:
    """The median cost of one empty call in the timing loop; every figure includes it."""
    impl = Impl(lambda: None)
    n = _calibrate(impl, settings)
    return statistics.median(_time_loop(impl.fn, n) / n for _ in range(25))
