"""Shared fixtures of vista-core's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _clean import torch_left_clean


@pytest.fixture
def torch_clean() -> Iterator[None]:
    """Fail the test unless it leaves torch as it found it: no torch-function mode, no global
    module hook, no attribute added to or replaced in torch (see ``_clean.py``)."""
    with torch_left_clean():
        yield
