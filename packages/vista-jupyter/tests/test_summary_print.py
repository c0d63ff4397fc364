"""VistaGraph.summary() prints the graph's summary table."""

from __future__ import annotations

import pytest
import torch

import vista_core
from vista_jupyter import VistaGraph


def test_summary_prints_the_graphs_table(capsys: pytest.CaptureFixture[str]) -> None:
    graph = vista_core.trace(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()), torch.randn(2, 4))
    assert VistaGraph(graph).summary(depth=1) is None  # type: ignore[func-returns-value]
    assert capsys.readouterr().out == graph.summary(depth=1) + "\n"
    assert "0 (Linear)" in graph.summary(depth=1)
