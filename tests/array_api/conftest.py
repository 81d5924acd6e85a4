"""The array-api-strict fixture: the standard's reference implementation, or a skip where it is not installed."""

import pytest


@pytest.fixture(scope="module")
def xps():
    return pytest.importorskip("array_api_strict")
