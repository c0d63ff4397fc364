"""Graph.summary(): the module tree as a torchinfo-like text table."""

from __future__ import annotations

import copy

import pytest
import torch

import vista_core
from vista_core import Graph


class _Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


@pytest.fixture(scope="module")
def graph() -> Graph:
    return vista_core.trace(_Net(), torch.randn(4, 16))


def test_rows_follow_the_module_tree_to_the_depth_asked(graph: Graph) -> None:
    text = graph.summary(depth=1)
    lines = text.splitlines()
    assert lines[1].split() == ["Module", "(class)", "Output", "shape", "Params", "FLOPs", "Act.", "bytes"]
    rows = lines[3:6]
    assert rows[0].split()[:3] == ["_Net", "[4,", "2]"]
    assert rows[1].startswith("  body (Sequential)") and "[4, 8]" in rows[1]
    assert rows[2].startswith("  head (Linear)")
    assert "body.0" not in text and "(ReLU)" not in text
    assert "(ReLU)" in graph.summary() and graph.summary().count("(Linear)") == 3
    only_model = graph.summary(depth=0).splitlines()
    assert only_model[3].startswith("_Net") and only_model[4].startswith("=")


def test_figures_are_the_documents(graph: Graph) -> None:
    text = graph.summary()
    flops = 2 * 4 * (16 * 32 + 32 * 8 + 8 * 2)
    assert graph.root.flops == flops
    assert f"Total FLOPs: {flops / 1000:.2f} K ({flops:,})" in text
    assert f"Total params: {graph.root.num_params:,}" in text
    head = next(line for line in text.splitlines() if line.startswith("  head"))
    assert head.split()[-4:] == ["18", "128", "32", "B"]  # params, 2*4*8*2 FLOPs, 4x2 float32
    assert f"Activation bytes: {graph.root.bytes / 1024:.2f} KiB" in text


def test_a_one_zero_document_says_it_has_no_costs(graph: Graph) -> None:
    old = copy.deepcopy(graph.to_dict())
    old["schema_version"] = "1.0"
    for record in (*old["nodes"], *old["modules"]):
        for key in ("bytes", "param_bytes", "flops"):
            record.pop(key, None)
    text = Graph.from_dict(old).summary()
    assert "Total FLOPs: --" in text and "schema 1.0 document" in text


@pytest.mark.parametrize("depth", [-1, 1.5, True, "2"])
def test_a_bad_depth_is_refused(graph: Graph, depth: object) -> None:
    with pytest.raises(ValueError, match=r"Invalid 'depth' argument: .*whole number >= 0"):
        graph.summary(depth)  # type: ignore[arg-type]
