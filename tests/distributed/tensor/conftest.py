"""Global tensors switch the process's default interpreter to the global route for good; each
module here puts the eager-local one back after it, so later tests (and doctests) see the usual
stack."""

import pytest

from ember.distributed.tensor import interpreter


@pytest.fixture(autouse=True, scope="module")
def _local_routing_afterwards():
    yield
    interpreter.deactivate()
