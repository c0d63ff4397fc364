"""Graph documents for the unit tests, traced on the fly with vista-core."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from render_models import TinyMLP, hostile_model

import vista_core


@pytest.fixture(scope="session")
def mlp_graph() -> vista_core.Graph:
    torch.manual_seed(0)
    return vista_core.trace(TinyMLP(), torch.randn(3, 4))


@pytest.fixture(scope="session")
def mlp_doc(mlp_graph: vista_core.Graph) -> dict[str, Any]:
    return mlp_graph.to_dict()


@pytest.fixture(scope="session")
def hostile_doc() -> dict[str, Any]:
    result = vista_core.capture(hostile_model(), torch.randn(2, 3))
    assert isinstance(result.exception, ValueError)
    return result.graph.to_dict()
