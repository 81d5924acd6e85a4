"""Print what the fuzzing suite did: how many calls, and how each ended."""

from tests.fuzz.test_fuzz_ops import STATS


def pytest_terminal_summary(terminalreporter):
    if STATS:
        terminalreporter.write_sep("-", "fuzzing suite")
        for key, value in STATS.items():
            terminalreporter.write_line(f"{key:>40}: {value}")
