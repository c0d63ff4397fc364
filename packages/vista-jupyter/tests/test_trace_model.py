"""trace_model: shows the graph in the cell, returns a VistaGraph, re-raises model errors."""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import torch
from conftest import ShapeBug, Shell, TinyNet
from IPython.utils.capture import RichOutput, capture_output
from jupyter_pages import frame_page, page_graph, page_options, parse_frames

import vista_core
import vista_jupyter
from vista_jupyter import TraceInputError, VistaGraph, trace_model
from vista_jupyter._frame import _HOST_THEME_SCRIPT
from vista_jupyter._traceback import is_vista_frame
from vista_render_html import render_html


def test_shows_the_graph_once_and_returns_it(shell: Shell, tiny: TinyNet) -> None:
    outputs, result = shell.run("g = trace_model(model, x)", trace_model=trace_model, model=tiny, x=torch.randn(3, 4))
    assert result.success
    assert len(outputs) == 1
    data = outputs[0].data
    assert set(data) == {"text/html", "text/plain"}
    view = shell.ip.user_ns["g"]
    assert isinstance(view, VistaGraph)
    assert data["text/plain"] == repr(view)
    shown = page_graph(frame_page(data["text/html"]))
    assert shown == view.graph.to_dict()
    assert [m["class_name"] for m in shown["modules"]] == ["TinyNet", "Linear", "Linear"]


def test_last_line_of_a_cell_shows_once_and_later_cells_show_again(shell: Shell, tiny: TinyNet) -> None:
    outputs, _ = shell.run("trace_model(model, x)", trace_model=trace_model, model=tiny, x=torch.randn(3, 4))
    assert len(outputs) == 1  # not a second copy from Out[n]
    outputs, _ = shell.run("g = trace_model(model, x, display=False)")
    assert outputs == []
    outputs, _ = shell.run("g")
    assert len(outputs) == 1
    assert "<iframe" in outputs[0].data["text/html"]
    outputs, _ = shell.run("display(g); g.show(depth=3, height=300)")
    assert len(outputs) == 2
    again = frame_page(outputs[1].data["text/html"])
    assert page_options(again)["depth"] == 3
    assert 'height: 300px' in outputs[1].data["text/html"]


def test_output_is_a_sandboxed_frame_with_the_options(tiny: TinyNet) -> None:
    view = trace_model(tiny, torch.randn(3, 4), depth=2, theme="dark", height="70vh", width=500,
                       show_parameters=False, show_constants=False, display=False)
    html_text = view._repr_html_()
    frames, tags = parse_frames(html_text)
    assert tags == ["iframe", "script"]  # the frame, then vista-jupyter's fixed theme script
    frame = frames[0]
    assert frame["sandbox"] == "allow-scripts allow-downloads"
    assert frame["style"] is not None
    assert "height: 70vh" in frame["style"]
    assert "width: 500px" in frame["style"]
    assert frame["title"] == "Vista graph of TinyNet"
    page = frame_page(html_text)
    assert page == render_html(view.graph, depth=2, theme="dark", height="100vh",
                               show_parameters=False, show_constants=False)
    assert page_options(page) == {"depth": 2, "theme": "dark", "showParameters": False, "showConstants": False,
                                  "height": "100%"}
    assert "http://" not in page
    assert "https://" not in page
    assert view._repr_mimebundle_() == {"text/html": html_text, "text/plain": repr(view)}


def test_only_the_frame_and_its_theme_script_land_on_the_notebook_page(tiny: TinyNet) -> None:
    html_text = trace_model(tiny, torch.randn(1, 4), display=False)._repr_html_()
    _, tags = parse_frames(html_text)
    assert tags == ["iframe", "script"]
    assert html_text.endswith("</iframe>" + _HOST_THEME_SCRIPT)  # the same script for every model
    assert page_options(frame_page(html_text))["theme"] == "auto"


def test_save_and_json(tiny: TinyNet, tmp_path: pytest.TempPathFactory) -> None:
    view = trace_model(tiny, torch.randn(3, 4), depth=1, display=False)
    path = view.save(tmp_path / "net.html")  # type: ignore[operator]
    assert path.read_text(encoding="utf-8") == view.to_html()
    assert page_graph(path.read_text(encoding="utf-8")) == view.to_dict()
    assert page_options(view.to_html(theme="light"))["theme"] == "light"
    again = vista_core.Graph.from_json(view.to_json())
    assert again == view.graph
    assert view.to_json(indent=2).startswith("{\n")
    vista_core.validate_document(view.to_json())
    with pytest.raises(TypeError, match="'path'"):
        view.save(42)  # type: ignore[arg-type]


def test_output_is_kept(tiny: TinyNet) -> None:
    x = torch.randn(3, 4)
    view = trace_model(tiny, x, display=False)
    assert torch.equal(view.output, tiny(x))
    assert view.exception is None
    assert not view.failed
    assert repr(view) == "VistaGraph(TinyNet: 3 module calls, 3 ops, " + f"{len(view.graph.edges)} edges)"


def test_stats_are_recorded_and_the_first_nonfinite_op_named() -> None:
    view = trace_model(lambda x: torch.log(x) * 2.0, torch.tensor([1.0, -1.0]), stats=True, display=False)
    first = view.graph.first_nonfinite
    assert first is not None and first.label == "log"
    assert view.graph.to_dict()["first_nonfinite"] == first.id
    plain = trace_model(lambda x: torch.log(x) * 2.0, torch.tensor([1.0, -1.0]), display=False)
    assert plain.graph.first_nonfinite is None


def test_timing_is_measured(tiny: TinyNet) -> None:
    view = trace_model(tiny, torch.randn(3, 4), timing=True, display=False)
    assert view.graph.root.time_us is not None and all(n.time_us is not None for n in view.graph.ops())
    assert view.graph.summary().splitlines()[1].split()[-1] == "Time"


def test_keyword_inputs() -> None:
    class Keyed(torch.nn.Module):
        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
            return input_ids.float() * attention_mask if attention_mask is not None else input_ids.float()

    ids, mask = torch.arange(6).reshape(2, 3), torch.ones(2, 3)
    view = trace_model(Keyed(), kwargs={"input_ids": ids, "attention_mask": mask}, display=False)
    names = [n.name for n in view.graph.nodes if n.kind == "input"]
    assert names == ["input_ids", "attention_mask"]
    assert torch.equal(view.output, ids.float())


def test_failure_shows_partial_graph_then_reraises_the_same_object(shell: Shell, shape_bug: ShapeBug) -> None:
    with pytest.raises(RuntimeError) as info, shell_capture(shell) as outputs:
        trace_model(shape_bug, torch.randn(2, 4))
    assert shape_bug.raised is not None
    assert info.value is shape_bug.raised
    assert len(outputs) == 1
    shown = page_graph(frame_page(outputs[0].data["text/html"]))
    assert shown["error"]["type"] == "RuntimeError"
    failed = [n for n in shown["nodes"] if n.get("error")]
    assert len(failed) == 1
    assert "cat" in failed[0]["name"]
    assert "Traceback" in shown["error"]["traceback"]


def test_failure_in_a_notebook_cell(shell: Shell, shape_bug: ShapeBug) -> None:
    outputs, result = shell.run("trace_model(model, x)", trace_model=trace_model, model=shape_bug,
                                x=torch.randn(2, 4))
    assert len(outputs) == 1  # the partial graph; IPython prints the traceback itself
    assert result.error_in_exec is shape_bug.raised
    printed = shell.printed
    assert "torch.cat([h, x], dim=0)" in printed
    assert "Sizes of tensors must match" in printed
    assert "vista_core" not in printed
    assert "vista_jupyter" not in printed


def test_reraised_traceback_has_no_vista_frames(shape_bug: ShapeBug) -> None:
    with pytest.raises(RuntimeError) as info:
        trace_model(shape_bug, torch.randn(2, 4), display=False)
    frames = [frame for frame, _ in traceback.walk_tb(info.value.__traceback__)]
    vista = [f.f_code.co_name for f in frames if is_vista_frame(f.f_code.co_filename)]
    assert vista == ["trace_model"]  # the raise itself; it carries __tracebackhide__
    assert frames[vista.index("trace_model") + 1 :] != []
    assert frames[-1].f_code.co_name == "forward"  # torch.cat raised in C, inside the model's forward
    assert frames[-1].f_code.co_filename == __file__.replace("test_trace_model.py", "conftest.py")


def test_display_failure_does_not_hide_the_models_exception(
    shape_bug: ShapeBug, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> str:
        raise OSError("disk on fire")

    monkeypatch.setattr("vista_jupyter._shown.render_html", broken)
    with (
        pytest.warns(RuntimeWarning, match=r"could not show the partial graph.*disk on fire"),
        pytest.raises(RuntimeError) as info,
    ):
        trace_model(shape_bug, torch.randn(2, 4))
    assert info.value is shape_bug.raised


def test_keyboard_interrupt_in_forward_propagates() -> None:
    class Interrupted(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        trace_model(Interrupted(), torch.ones(1), display=False)


@pytest.mark.parametrize(
    ("model", "inputs", "kwargs"),
    [
        ("not a model", (), None),
        (torch.nn.Linear(2, 2), 5, None),
        (torch.nn.Linear(2, 2), "text", None),
        (torch.nn.Linear(2, 2), [1.0, 2.0], None),
        (torch.nn.Linear(2, 2), (), [("x", 1)]),
        (torch.nn.Linear(2, 2), {"x": torch.ones(2)}, {"x": torch.ones(2)}),
    ],
)
def test_bad_input_gives_vista_cores_error(shell: Shell, model: object, inputs: object, kwargs: object) -> None:
    with pytest.raises(TraceInputError) as expected:
        vista_core.capture(model, inputs, kwargs=kwargs)  # type: ignore[arg-type]
    with shell_capture(shell) as outputs, pytest.raises(TraceInputError) as got:
        trace_model(model, inputs, kwargs=kwargs)  # type: ignore[arg-type]
    assert str(got.value) == str(expected.value)
    assert outputs == []  # nothing shown for a call that could not run


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_torchscript_is_refused_clearly() -> None:
    scripted = torch.jit.script(torch.nn.Linear(2, 2))
    with pytest.raises(vista_jupyter.TraceInputError, match="TorchScript"):
        trace_model(scripted, torch.ones(1, 2))


def test_vistagraph_rejects_non_graphs() -> None:
    with pytest.raises(TypeError, match=r"'graph'.*vista_core\.Graph"):
        VistaGraph({"nodes": []})  # type: ignore[arg-type]


def test_a_saved_document_can_be_shown_again(tiny: TinyNet) -> None:
    text = trace_model(tiny, torch.randn(1, 4), display=False).to_json()
    view = VistaGraph(vista_core.Graph.from_json(text))
    assert page_graph(frame_page(view._repr_html_())) == vista_core.Graph.from_json(text).to_dict()


@contextmanager
def shell_capture(shell: Shell) -> Iterator[list[RichOutput]]:
    """Collect what is displayed while a block runs, even when the block raises."""
    outputs: list[RichOutput] = []
    with capture_output(display=True) as captured:
        try:
            yield outputs
        finally:
            outputs.extend(captured.outputs)


def test_trace_model_is_never_the_source_line_of_an_op() -> None:
    """Ops that only torch's own modules led to have no source: not the line in vista_jupyter
    that called vista_core, nor the line that called trace_model."""
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.GELU())
    view = trace_model(model, torch.randn(1, 3), display=False)
    assert [n.label for n in view.graph.ops()] == ["linear", "gelu"]
    located = [*view.graph.ops(), *view.graph.modules]
    assert [n.source for n in located if n.source is not None] == []
