"""Cache sizes read from the OS (``ember/_core/caches.py``), with fallbacks."""

import pytest

from ember._core.caches import FALLBACK, cache_sizes, parse_size


def _fake_sysfs(tmp_path, entries):
    for i, (level, kind, size) in enumerate(entries):
        d = tmp_path / f"index{i}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n")
        (d / "type").write_text(f"{kind}\n")
        (d / "size").write_text(f"{size}\n")
    return str(tmp_path)


def test_reads_levels_types_and_units(tmp_path):
    root = _fake_sysfs(tmp_path, [(1, "Data", "48K"), (1, "Instruction", "32K"), (2, "Unified", "2048K"), (3, "Unified", "105M")])
    assert cache_sizes(root) == {1: 48 << 10, 2: 2 << 20, 3: 105 << 20}


def test_missing_levels_and_bad_files_fall_back(tmp_path):
    root = _fake_sysfs(tmp_path, [(1, "Data", "64K"), (2, "Unified", "garbage")])
    assert cache_sizes(root) == {1: 64 << 10, 2: FALLBACK[2], 3: FALLBACK[3]}
    assert cache_sizes(str(tmp_path / "absent")) == FALLBACK


@pytest.mark.parametrize(
    ("text", "size"),
    [("512K", 512 << 10), ("2M", 2 << 20), ("1G", 1 << 30), ("4096", 4096), ("0K", None), ("", None), ("K", None), ("-1K", None)],
)
def test_parse_size(text, size):
    assert parse_size(text) == size


def test_this_machine_reports_positive_sizes():
    sizes = cache_sizes()
    assert set(sizes) == {1, 2, 3} and all(v > 0 for v in sizes.values())
