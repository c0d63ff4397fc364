"""compare(a, b): the diff of two traces or two models, shown once in the cell, returned."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from conftest import ShapeBug, Shell, TinyNet
from jupyter_pages import frame_page, page_graph, page_options

import vista_core
from vista_jupyter import TraceInputError, VistaDiff, VistaGraph, compare, trace_model
from vista_render_html import render_html


class Wider(torch.nn.Module):
    """TinyNet with a wider hidden layer and one more op."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 16)
        self.fc2 = torch.nn.Linear(16, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)) * 2)


def test_two_models_on_the_same_inputs_show_their_diff_once(shell: Shell, tiny: TinyNet) -> None:
    outputs, result = shell.run("d = compare(a, b, x)", compare=compare, a=tiny, b=Wider(), x=torch.randn(3, 4))
    assert result.success
    assert len(outputs) == 1
    view = shell.ip.user_ns["d"]
    assert isinstance(view, VistaDiff) and not view.equal
    counts = [sum(1 for c in view.diff.changes if c.status == s) for s in ("added", "removed", "changed")]
    assert all(counts)
    assert outputs[0].data["text/plain"] == repr(view) == (
        f"VistaDiff(TinyNet → Wider: {counts[0]} added, {counts[1]} removed, {counts[2]} changed)")
    shown = page_graph(frame_page(outputs[0].data["text/html"]))
    assert shown == view.to_dict() == view.diff.to_dict()
    assert shown["diff_version"] == vista_core.DIFF_VERSION
    assert view.a.output is not None and view.b.output.shape == (3, 2)


def test_stats_and_timing_reach_the_traces_and_do_not_count_as_changes(tiny: TinyNet) -> None:
    view = compare(tiny, tiny, torch.randn(3, 4), stats=True, timing=True, display=False)
    assert view.equal
    ops = list(view.a.graph.ops())
    assert all(op.time_us is not None for op in ops) and ops[0].outputs[0].stats is not None
    assert [op.time_us for op in ops] != [op.time_us for op in view.b.graph.ops()]


def test_two_traces_compare_without_inputs_and_a_trace_with_itself_is_equal(tiny: TinyNet) -> None:
    x = torch.randn(3, 4)
    g = trace_model(tiny, x, display=False)
    view = compare(g, g, display=False)
    assert view.equal and view.a is g and view.b is g
    assert repr(view) == "VistaDiff(TinyNet → TinyNet: equal)"
    from_graph = compare(g.graph, g.to_json(), display=False)
    assert from_graph.to_json() == view.to_json()
    assert isinstance(from_graph.a, VistaGraph)


def test_kwargs_and_display_options_are_trace_models(tiny: TinyNet) -> None:
    class Keyword(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *, x: torch.Tensor) -> torch.Tensor:
            return self.inner(x)

    view = compare(Keyword(tiny), Keyword(tiny), kwargs={"x": torch.randn(3, 4)}, depth=2, theme="dark",
                   show_parameters=False, display=False)
    assert view.equal
    options = page_options(frame_page(view._repr_html_()))
    assert options["depth"] == 2 and options["theme"] == "dark" and options["showParameters"] is False
    assert view.to_html(theme="light") == render_html(view.diff, theme="light", depth=2, show_parameters=False)


def test_a_model_that_raises_is_compared_by_its_partial_graph_with_a_warning(tiny: TinyNet) -> None:
    class Fixed(ShapeBug):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.cat([self.proj(x), self.proj(x)], dim=0)

    bug = ShapeBug()
    with pytest.warns(RuntimeWarning, match=r"Model 'a' \(ShapeBug\) raised RuntimeError.*\.a\.exception"):
        view = compare(bug, Fixed(), torch.randn(3, 4), display=False)
    assert view.a.exception is bug.raised and view.a.failed and view.b.exception is None
    failed = next(c for c in view.diff.changes if c.a == view.a.graph.error.node)  # type: ignore[union-attr]
    assert any(f.field == "error" for f in failed.fields)


def test_summary_and_save(tmp_path: Path, tiny: TinyNet, capsys: pytest.CaptureFixture[str]) -> None:
    view = compare(tiny, Wider(), torch.randn(3, 4), display=False)
    view.summary()
    printed = capsys.readouterr().out
    assert printed.strip() == view.diff.summary()
    assert "mul added" in printed
    path = view.save(tmp_path / "diff.html")
    assert path.read_text(encoding="utf-8") == view.to_html()


def test_bad_arguments_say_what_to_pass(tiny: TinyNet) -> None:
    g = trace_model(tiny, torch.randn(3, 4), display=False)
    with pytest.raises(TraceInputError, match="no model"):
        compare(g, g, torch.randn(3, 4), display=False)
    with pytest.raises(TypeError, match=r"Invalid 'b' argument: 3 \(type int\)"):
        compare(g, 3, display=False)
    with pytest.raises(vista_core.SchemaError, match="Invalid 'a' argument"):
        compare({"schema_version": "1.0"}, g, display=False)
    with pytest.raises(TypeError, match="'display'"):
        compare(g, g, display="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="theme"):
        compare(g, g, theme="blue", display=False)  # type: ignore[arg-type]
