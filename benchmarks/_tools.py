"""The tools under comparison, behind one small interface.

Each :class:`Tool` runs its documented graph-building API on a :class:`~benchmarks._case.Case`
and reduces the graph it built to a :class:`~benchmarks._graphcheck.Connectivity`:

- ``vista``: ``vista_core.trace(model, args, kwargs=...)``; its document's ``input`` nodes must
  reach its ``output`` nodes along ``edges``.
- ``vista+page``: the same, then ``vista_render_html.render_html(graph)`` (the HTML page as a
  string): comparable to torchvista, whose call always writes its page.
- ``torchvista``: ``torchvista.trace_model(model, inputs, export_format="html", export_path=...)``
  (no notebook display). It takes positional inputs only, so keyword inputs are passed as a
  tuple in the order of ``forward``'s parameters (defaults filled in). It returns nothing; its
  graph is read back from the ``adj_list`` it embeds in the page (``Input`` nodes must reach
  ``Output`` nodes).
- ``torchview``: ``draw_graph(model, input_data, graph_name=..., depth=3, save_graph=False)``
  builds the graph and the graphviz source without running ``dot``; its ``edge_list`` must lead
  from the ``input-tensor`` nodes to every ``output-tensor`` node.
- ``torchlens``: ``torchlens.trace(model, args, input_kwargs=..., capture=CaptureOptions(
  layers_to_save=None))`` (metadata only, no activations saved); ``input_layers`` must reach
  every one of ``output_layers`` through the ops' ``children``. torchlens wraps torch's
  functions process-wide and keeps them wrapped; :meth:`Tool.cleanup` unwraps them (untimed)
  so the other tools and the plain forward pass run on an unpatched torch.

And one reference that is not a tool (trace-cost section only):

- ``floor``: the plain forward pass under the mechanism Vista records with, recording nothing:
  a ``TorchFunctionMode`` whose ``__torch_function__`` only calls the function, and global module
  forward hooks (a pre-hook, and a post-hook with ``always_call=True``) that return at once. Any
  tracer built on these public hooks pays this before it records anything; Vista's ratio less
  this one is what its own recording and document building cost. It builds no graph.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar

from ._case import Case
from ._graphcheck import Connectivity, reachability

__all__ = ["PEERS", "REFERENCES", "Tool", "load_tools", "tool_versions"]

PEERS = ("torchvista", "torchview", "torchlens")
TOOL_ORDER = ("vista", "vista+page", *PEERS)
#: References measured beside the tools in the trace-cost section (see ``floor`` above).
REFERENCES = ("floor",)
DISTRIBUTIONS = {"vista": "vista-core", "vista+page": "vista-render-html", "torchvista": "torchvista",
                 "torchview": "torchview", "torchlens": "torchlens"}


@dataclass
class Tool:
    """One tool: ``trace`` builds its graph for a case, ``check`` judges that graph."""

    name: str
    workdir: Path
    #: False for a reference that builds no graph (its connectivity is not checked).
    builds_graph: ClassVar[bool] = True

    def trace(self, case: Case) -> Any:
        raise NotImplementedError

    def check(self, result: Any) -> Connectivity:
        raise NotImplementedError

    def cleanup(self) -> None:
        """Undo process-wide effects of ``trace`` (outside the timed region)."""


class Vista(Tool):
    def trace(self, case: Case) -> Any:
        import vista_core

        return vista_core.trace(case.model, case.args, kwargs=case.kwargs)

    def check(self, result: Any) -> Connectivity:
        return vista_connectivity(result)


class VistaPage(Vista):
    def trace(self, case: Case) -> Any:
        from vista_render_html import render_html

        graph = super().trace(case)
        render_html(graph)
        return graph


def vista_connectivity(graph: Any) -> Connectivity:
    """Input nodes → output nodes of a ``vista_core.Graph`` (or its dict)."""
    doc = graph if isinstance(graph, dict) else graph.to_dict()
    adjacency: dict[str, list[str]] = {}
    for edge in doc["edges"]:
        adjacency.setdefault(edge["source"], []).append(edge["target"])
    nodes = doc["nodes"]
    return reachability(adjacency, [n["id"] for n in nodes if n["kind"] == "input"],
                        [n["id"] for n in nodes if n["kind"] == "output"],
                        {n["id"]: f"{n['name']} ({n['id']})" for n in nodes if n["kind"] == "output"})


def positional_inputs(model: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """``args`` and ``kwargs`` as one positional tuple in the order of ``model.forward``'s
    parameters, with the defaults of the parameters skipped in between."""
    if not kwargs:
        return tuple(args)
    remaining = dict(kwargs)
    values = list(args)
    for param in list(inspect.signature(model.forward).parameters.values())[len(args):]:
        if not remaining:
            break
        if param.kind not in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            break
        default = None if param.default is inspect.Parameter.empty else param.default
        values.append(remaining.pop(param.name, default))
    if remaining:
        raise TypeError(f"Cannot pass {sorted(remaining)!r} positionally to {type(model).__name__}.forward.")
    return tuple(values)


class TorchVista(Tool):
    def trace(self, case: Case) -> Any:
        import torchvista

        path = self.workdir / "torchvista.html"
        inputs = positional_inputs(case.model, case.args, dict(case.kwargs))
        with contextlib.redirect_stdout(io.StringIO()):  # its IPython display() prints outside notebooks
            torchvista.trace_model(case.model, inputs, export_format="html", export_path=str(path))
        return path

    def check(self, result: Any) -> Connectivity:
        adj = torchvista_adjacency(Path(result).read_text(encoding="utf-8"))
        adjacency = {name: [e["target"] for e in node.get("edges", ())] for name, node in adj.items()}
        return reachability(adjacency, [n for n, v in adj.items() if v.get("node_type") == "Input"],
                            [n for n, v in adj.items() if v.get("node_type") == "Output"])


def torchvista_adjacency(html: str) -> dict[str, Any]:
    """The ``adj_list`` object torchvista embeds in its page."""
    match = re.search(r"const adj_list = ", html)
    if match is None:
        raise ValueError("torchvista's page has no 'const adj_list = ' (has its template changed?)")
    value, _ = json.JSONDecoder().raw_decode(html, match.end())
    if not isinstance(value, dict):
        raise ValueError(f"torchvista's adj_list is a {type(value).__name__}, not an object")
    return value


class TorchView(Tool):
    def trace(self, case: Case) -> Any:
        from torchview import draw_graph

        if case.args:
            return draw_graph(case.model, input_data=list(case.args), graph_name="model", depth=3,
                              save_graph=False, device="cpu", **dict(case.kwargs))
        return draw_graph(case.model, input_data=dict(case.kwargs), graph_name="model", depth=3,
                          save_graph=False, device="cpu")

    def check(self, result: Any) -> Connectivity:
        # node_id is what torchview itself keys its drawn graph by (id_dict, render_edges)
        adjacency: dict[str, list[str]] = {}
        outputs: set[str] = set()
        for tail, head in result.edge_list:
            adjacency.setdefault(tail.node_id, []).append(head.node_id)
            for node in (tail, head):
                if getattr(node, "name", None) == "output-tensor":
                    outputs.add(node.node_id)
        return reachability(adjacency, [n.node_id for n in result.root_container], outputs)


class TorchLens(Tool):
    def trace(self, case: Case) -> Any:
        import torchlens
        from torchlens.options import CaptureOptions

        return torchlens.trace(case.model, list(case.args) if case.args else None,
                               input_kwargs=dict(case.kwargs) or None,
                               capture=CaptureOptions(layers_to_save=None))

    def check(self, result: Any) -> Connectivity:
        # Ops are named "label:pass" ("add_6_81:2"); references to single-pass ops may omit
        # the pass ("view_1_1"), so both spellings resolve to the op's full label.
        ops = list(result.ops)
        alias = {op.label: op.label for op in ops}
        for op in ops:
            alias.setdefault(op.layer_label, op.label)
        adjacency = {op.label: [alias.get(c, c) for c in op.children] for op in ops}
        return reachability(adjacency, [alias.get(n, n) for n in result.input_layers],
                            [alias.get(n, n) for n in result.output_layers])

    def cleanup(self) -> None:
        from torchlens.backends.torch.wrappers import unwrap_torch

        unwrap_torch()


class Floor(Tool):
    builds_graph = False

    def trace(self, case: Case) -> Any:
        import torch
        from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
        from torch.overrides import TorchFunctionMode

        class PassThrough(TorchFunctionMode):
            def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                return func(*args, **(kwargs or {}))

        def pre(module: torch.nn.Module, args: Any) -> None:
            return None

        def post(module: torch.nn.Module, args: Any, output: Any) -> None:
            return None

        handles = [register_module_forward_pre_hook(pre), register_module_forward_hook(post, always_call=True)]
        try:
            with PassThrough():
                return case.forward()
        finally:
            for handle in handles:
                handle.remove()

    def check(self, result: Any) -> Connectivity:
        raise TypeError("the floor reference builds no graph")


_CLASSES: dict[str, type[Tool]] = {"vista": Vista, "vista+page": VistaPage, "torchvista": TorchVista,
                                   "torchview": TorchView, "torchlens": TorchLens, "floor": Floor}
_MODULES = {"vista": ("vista_core",), "vista+page": ("vista_core", "vista_render_html"),
            "torchvista": ("torchvista",), "torchview": ("torchview", "graphviz"), "torchlens": ("torchlens",),
            "floor": ()}


def load_tools(workdir: Path, names: tuple[str, ...] = TOOL_ORDER) -> tuple[list[Tool], dict[str, str]]:
    """The tools that import here, and for the others why not (``{name: reason}``)."""
    tools: list[Tool] = []
    missing: dict[str, str] = {}
    for name in names:
        try:
            for module in _MODULES[name]:
                importlib.import_module(module)
        except Exception as exc:  # any import failure is a finding to report  # noqa: BLE001
            missing[name] = f"cannot import: {type(exc).__name__}: {exc}"
            continue
        folder = workdir / name.replace("+", "_")
        folder.mkdir(parents=True, exist_ok=True)
        tools.append(_CLASSES[name](name, folder))
    return tools, missing


def tool_versions() -> dict[str, str]:
    """Installed version of each tool's distribution (``"not installed"`` otherwise)."""
    versions: dict[str, str] = {}
    for name in ("vista-core", "vista-render-html", *PEERS, "graphviz", "torch", "transformers", "playwright"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions
