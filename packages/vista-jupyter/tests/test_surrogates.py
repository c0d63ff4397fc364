"""Lone surrogates in a graph's strings (a module named from non-UTF-8 bytes, an exception
message): the notebook output, ``save()`` and ``to_html()`` work, and every message a kernel
sends is valid UTF-8 (a kernel cannot send a lone surrogate: jupyter_client's packer raises
on ``\\ud800`` and writes invalid UTF-8 for ``\\udcff``)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
import torch
from conftest import Shell, TinyNet
from IPython.utils.capture import capture_output
from jupyter_pages import frame_page, page_graph, parse_frames

import vista_core
from vista_jupyter import VistaGraph, trace_model

NAME = "blk-\udcff"
MESSAGE = "bad \ud800 shape"


class Named(torch.nn.Module):
    def __init__(self, fail: bool) -> None:
        super().__init__()
        self.add_module(NAME, TinyNet())
        self.fail = fail

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = getattr(self, NAME)(x)
        if self.fail:
            raise ValueError(MESSAGE)
        return y


def _sendable(bundle: dict[str, Any]) -> None:
    """What the kernel would send: strict UTF-8 JSON of the bundle."""
    json.dumps(bundle, ensure_ascii=False).encode("utf-8")


def test_the_cell_shows_the_graph(shell: Shell) -> None:
    outputs, result = shell.run("g = trace_model(model, x)", trace_model=trace_model, model=Named(False),
                                x=torch.randn(3, 4))
    assert result.success, result.error_in_exec
    assert len(outputs) == 1
    _sendable(outputs[0].data)
    view = shell.ip.user_ns["g"]
    assert page_graph(frame_page(outputs[0].data["text/html"])) == view.graph.to_dict()
    assert NAME in [m["path"] for m in view.graph.to_dict()["modules"]]


def test_a_failed_forward_pass_shows_its_graph_and_raises() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "could not show the partial graph" would be a RuntimeWarning
        with capture_output(display=True) as captured, pytest.raises(ValueError, match="bad") as info:
            trace_model(Named(True), torch.randn(3, 4))
    assert str(info.value) == MESSAGE
    assert len(captured.outputs) == 1
    _sendable(captured.outputs[0].data)
    shown = page_graph(frame_page(captured.outputs[0].data["text/html"]))
    assert shown["error"]["message"] == MESSAGE  # the viewer gets the message exactly
    assert "\ufffd" in captured.outputs[0].data["text/plain"]  # the text form shows a replacement


def test_a_document_with_a_surrogate_class_name(tmp_path: Path) -> None:
    data = vista_core.trace(TinyNet(), torch.randn(3, 4)).to_dict()
    data["modules"][0]["class_name"] = "Net\udcff"
    view = VistaGraph(vista_core.Graph.from_dict(data))
    bundle = view._repr_mimebundle_()
    _sendable(bundle)
    frames, _ = parse_frames(bundle["text/html"])
    assert frames[0]["title"] == "Vista graph of Net\ufffd"
    assert repr(view).startswith("VistaGraph(Net\ufffd: ")
    assert page_graph(view.to_html())["modules"][0]["class_name"] == "Net\udcff"
    written = view.save(tmp_path / "page.html")
    assert written.read_bytes() == view.to_html().encode("utf-8")
