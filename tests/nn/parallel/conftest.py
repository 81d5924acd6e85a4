"""The DDP tests that need several ranks use the distributed tests' harness (one MPI job per world
size, see tests/distributed/conftest.py): its per-test hooks and fixtures apply here too."""

from tests.distributed import conftest as _harness

_mpi_world = _harness._mpi_world
_mpi_rank_test = _harness._mpi_rank_test
pytest_pyfunc_call = _harness.pytest_pyfunc_call
pytest_runtest_makereport = _harness.pytest_runtest_makereport
pytest_runtest_logreport = _harness.pytest_runtest_logreport


def pytest_configure(config) -> None:
    if not config.pluginmanager.is_registered(_harness):
        _harness.pytest_configure(config)


def pytest_collection_modifyitems(session, config, items) -> None:
    # the harness's own hook sees every item when its conftest is loaded; only when these tests
    # are collected without tests/distributed must the jobs be planned from here
    if not config.pluginmanager.is_registered(_harness):
        _harness.pytest_collection_modifyitems(session, config, items)
