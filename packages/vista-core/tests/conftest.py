"""Shared fixtures and settings of vista-core's tests.

Hypothesis profiles: ``ci`` (the default: 40 examples per property test, derandomized so CI
is reproducible) and ``long`` (1000 examples, random), chosen with the environment variable
``VISTA_HYPOTHESIS_PROFILE``; ``nox -s hypothesis_long`` sets ``long`` and selects the tests
whose names contain "property".
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import torch
from _clean import torch_left_clean
from hypothesis import HealthCheck, settings

import vista_core

_SLOW_DRAWS = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("ci", max_examples=40, deadline=None, derandomize=True, database=None,
                          suppress_health_check=_SLOW_DRAWS)
settings.register_profile("long", max_examples=1000, deadline=None, suppress_health_check=_SLOW_DRAWS)
_PROFILE = os.environ.get("VISTA_HYPOTHESIS_PROFILE", "ci")
if _PROFILE not in ("ci", "long"):
    raise pytest.UsageError(f"Invalid VISTA_HYPOTHESIS_PROFILE {_PROFILE!r}; use 'ci' or 'long'.")
settings.load_profile(_PROFILE)


@pytest.fixture
def torch_clean() -> Iterator[None]:
    """Fail the test unless it leaves torch as it found it: no torch-function mode, no global
    module hook, no attribute added to or replaced in torch (see ``_clean.py``)."""
    with torch_left_clean():
        yield


@pytest.fixture(scope="session", autouse=True)
def _first_trace_done() -> None:
    """One trace before any test: the first trace in a process imports torch's compiler modules
    (torch.compiler.set_stance loads torch._dynamo), a one-time lazy import that would otherwise
    make whichever test runs first, alone, see torch "changed"."""
    # Reading the document replays the FLOPs on fake tensors, which imports more of torch lazily.
    vista_core.trace(torch.nn.Linear(2, 2), (torch.zeros(1, 2),)).to_json()
