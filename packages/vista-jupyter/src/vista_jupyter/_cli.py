"""The ``vista`` command: trace a model from the command line, render a saved graph, or write
the demo page. The text of ``vista --help`` is at the top of this module."""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["InputSpec", "build_inputs", "load_factory", "main", "parse_input"]

DESCRIPTION = """\
See what a PyTorch model does: trace its forward pass into one self-contained, offline HTML
page (an interactive graph: modules as boxes that open and close, tensors as edges labelled
with their shapes, details on click), or render a saved graph document into one.
"""

EPILOG = """\
examples:
  vista trace torchvision.models:resnet18 --input 1x3x224x224 -o resnet18.html
  vista trace mypkg.models:build --kwargs-json '{"layers": 4}' --input 2x16 --input 2x16:int64
  vista trace torch.nn:Linear --kwargs-json '{"in_features": 16, "out_features": 4}' --input 8x16
  vista trace mypkg.llm:make_70b --meta --input input_ids=1x128:int64 -o llm.html
  vista render graph.json -o page.html --depth 2
  vista summary graph.json --depth 2               (a text table of params, FLOPs and bytes)
  vista diff before.json after.json -o diff.html   (what changed; exit status 1 when anything did)
  vista diff before.html after.html                (saved pages work wherever documents do)
  vista demo                                        (the demo model's page, out/vista-demo.html)

In Python: trace_model(model, inputs) in a notebook, vista_core.trace(model, x).to_json() for a
graph document. Embed a page in Sphinx or MkDocs docs with an <iframe src="model.html">.
"""

TRACE_DESCRIPTION = """\
Import MODULE, call FACTORY(**KWARGS) to build the model (a class is a factory too), run its
forward pass once on inputs of the given shapes and dtypes, and write the page. The model is put
in eval mode first (--train keeps training mode). If the forward pass raises, the page shows the
graph up to the failure and the command exits with status 1.
"""

TRACE_EPILOG = """\
inputs (--input, in the order of the forward's arguments):
  1x3x224x224           a float32 tensor of that shape
  2x128:int64           any torch dtype: float16, bfloat16, int64 (long), bool, ...
  input_ids=1x128:int64 a keyword argument (Hugging Face models)
  Floats are standard normal, integers and bools 0 or 1 (valid token ids, masks and indices for
  any model); --zeros makes every input zero. Random numbers come from --seed (default 0), which
  also seeds the model's initial weights.

examples:
  vista trace torchvision.models:resnet18 --input 1x3x224x224 -o resnet18.html
  vista trace mypkg.models:Net --kwargs-json '{"width": 64}' --input 8x32 --depth 2
  vista trace mypkg.llm:make_70b --meta --input input_ids=1x128:int64 -o llm.html
"""

RENDER_DESCRIPTION = """\
Render a saved graph document (the JSON of vista_core.trace(model, x).to_json() or
VistaGraph.to_json()) into one self-contained HTML page. Use - to read it from stdin. A page
Vista wrote is read too (its embedded document), so it can be rendered again with other options.
"""

_DIMENSIONS = re.compile(r"\d+(?:x\d+)*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _say(text: str, *, error: bool = False) -> None:
    """Print one line; a file name from non-UTF-8 bytes is shown escaped instead of raising."""
    from vista_render_html._text import terminal_text

    print(terminal_text(text), file=sys.stderr if error else sys.stdout)


class CommandError(Exception):
    """A mistake in the command line or what it names: the message says what to do."""


@dataclass(frozen=True)
class InputSpec:
    """One ``--input``: an optional keyword, a shape and a dtype name."""

    name: str | None
    shape: tuple[int, ...]
    dtype: str

    def describe(self) -> str:
        shape = "x".join(map(str, self.shape)) or "()"
        return f"{self.name + '=' if self.name else ''}{shape}:{self.dtype}"


def parse_input(text: str) -> InputSpec:
    """``[NAME=]DIMxDIM...[:DTYPE]`` (``()`` for a scalar) as an :class:`InputSpec`."""
    name: str | None = None
    rest = text.strip()
    if "=" in rest:
        name, rest = (part.strip() for part in rest.split("=", 1))
        if not _NAME.fullmatch(name):
            raise CommandError(f"--input {text!r}: {name!r} is not an argument name; write e.g. input_ids=1x128:int64.")
    shape_text, _, dtype = rest.partition(":")
    dtype = dtype.strip() or "float32"
    shape_text = shape_text.strip()
    if shape_text == "()":
        shape: tuple[int, ...] = ()
    elif _DIMENSIONS.fullmatch(shape_text):
        shape = tuple(int(d) for d in shape_text.split("x"))
    else:
        raise CommandError(f"--input {text!r}: the shape must be sizes joined by x, e.g. 1x3x224x224 "
                           "(or () for a scalar), optionally followed by :DTYPE such as :int64.")
    return InputSpec(name, shape, dtype)


def _dtype(spec: InputSpec) -> Any:
    import torch

    found = getattr(torch, spec.dtype, None)
    if not isinstance(found, torch.dtype):
        raise CommandError(f"--input {spec.describe()!r}: {spec.dtype!r} is not a torch dtype; use e.g. "
                           "float32, float16, bfloat16, int64 or bool.")
    return found


def build_inputs(specs: Sequence[InputSpec], *, zeros: bool = False, device: str = "cpu",
                 seed: int = 0) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The positional and keyword tensors the specs describe (see ``vista trace --help``)."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for spec in specs:
        dtype = _dtype(spec)
        if zeros or device == "meta":
            tensor = torch.zeros(spec.shape, dtype=dtype, device=device)
        elif dtype.is_floating_point or dtype.is_complex:
            tensor = torch.randn(spec.shape, generator=generator).to(dtype)
        else:
            tensor = torch.randint(0, 2, spec.shape, generator=generator).to(dtype)
        if spec.name is None:
            if kwargs:
                raise CommandError(f"--input {spec.describe()!r}: positional inputs come before keyword ones.")
            args.append(tensor)
        elif spec.name in kwargs:
            raise CommandError(f"--input {spec.describe()!r}: {spec.name!r} is given twice.")
        else:
            kwargs[spec.name] = tensor
    return tuple(args), kwargs


def load_factory(target: str) -> Any:
    """The callable ``MODULE:ATTR`` names (``ATTR`` may be dotted, like ``Models.small``)."""
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise CommandError(f"{target!r} is not MODULE:FACTORY; write e.g. torchvision.models:resnet18 "
                           "or mypkg.models:Net (the module is imported, the factory called).")
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, "")  # like python -m: modules in the current directory are found
    try:
        found: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise CommandError(f"could not import {module_name!r}: {exc}. Is it installed, or in the "
                           "current directory?") from exc
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise CommandError(f"{module_name!r} has no {attribute!r} (no attribute {part!r}).") from None
    if not callable(found):
        raise CommandError(f"{target!r} is a {type(found).__name__}, not a callable that builds a model.")
    return found


def _kwargs_json(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"--kwargs-json is not valid JSON ({exc}); write e.g. '{{\"layers\": 4}}'.") from None
    if not isinstance(value, dict):
        raise CommandError(f"--kwargs-json must be a JSON object of keyword arguments, got {text!r}.")
    return value


def _display_options(args: argparse.Namespace) -> Any:
    from ._options import DisplayOptions

    try:
        return DisplayOptions.create(depth=args.depth, theme=args.theme, show_parameters=not args.no_parameters,
                                     show_constants=not args.no_constants)
    except (TypeError, ValueError) as exc:
        raise CommandError(str(exc)) from exc


def _trace(args: argparse.Namespace) -> int:
    import torch

    import vista_core

    from ._view import VistaGraph

    specs = [parse_input(text) for text in args.input]
    options = _display_options(args)
    factory = load_factory(args.target)
    factory_kwargs = _kwargs_json(args.kwargs_json)
    out = Path(args.output) if args.output else Path(f"{args.target.rpartition(':')[2].split('.')[-1].lower()}.html")
    if not out.parent.is_dir():
        raise CommandError(f"-o {str(out)!r}: the folder {str(out.parent)!r} does not exist; create it first.")
    torch.manual_seed(args.seed)
    device = "meta" if args.meta else "cpu"
    try:
        with torch.device(device):
            model = factory(**factory_kwargs)
    except Exception:  # the user's own code: show its traceback, as Python would  # noqa: BLE001
        traceback.print_exc()
        _say(f"vista trace: building the model with {args.target}(...) raised; see above.", error=True)
        return 1
    if isinstance(model, torch.nn.Module) and not args.train:
        model.eval()
    inputs, kwargs = build_inputs(specs, zeros=args.zeros, device=device, seed=args.seed)
    captured = vista_core.capture(model, inputs, kwargs=kwargs, stats=args.stats, timing=args.timing)
    try:
        written = VistaGraph(captured.graph, options).save(out)
        if args.json:
            Path(args.json).write_text(captured.graph.to_json(), encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"could not write the page: {exc}") from exc
    if captured.exception is not None:
        error = captured.exception
        if not isinstance(error, Exception):  # KeyboardInterrupt, SystemExit: the page is written, go on
            captured.reraise()
        _say(f"vista trace: the forward pass raised {type(error).__name__}: {error}", error=True)
        _say(f"Wrote the graph up to the failure to {written}", error=True)
        return 1
    graph = captured.graph
    ops = sum(1 for _ in graph.ops())
    calls = len(graph.modules)
    counts = f"{calls} module call{'s' * (calls != 1)}, {ops} op{'s' * (ops != 1)}"
    _say(f"Wrote the graph of {graph.root.class_name} ({counts}) to {written}")
    return 0


def _render(args: argparse.Namespace) -> int:
    from vista_render_html import save_html

    options = _display_options(args)
    source = "stdin" if args.document == "-" else args.document
    text = _read(args.document)
    out = Path(args.output) if args.output else (
        Path(args.document).with_suffix(".html") if args.document != "-" else Path("graph.html"))
    if args.document != "-" and out.resolve() == Path(args.document).resolve():
        raise CommandError(f"the page would overwrite {source!r}, which it is rendered from; "
                           "name another file with -o PAGE.html")
    try:
        written = save_html(text, out, depth=options.depth, theme=options.theme, title=args.title,
                            show_parameters=options.show_parameters, show_constants=options.show_constants)
    except (OSError, TypeError, ValueError) as exc:  # DocumentError and SchemaVersionError are ValueErrors
        raise CommandError(f"could not render {source!r}: {exc}") from exc
    _say(f"Wrote the page of {source} to {written}")
    return 0


def _read(document: str) -> str:
    """The JSON text of the graph or diff document in file ``document`` (``-``: stdin), which
    holds that document or a page written by Vista (its embedded document is read back)."""
    from vista_render_html import read_html

    source = "stdin" if document == "-" else document
    try:
        text = sys.stdin.read() if document == "-" else Path(document).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"could not read {source!r}: {exc}") from exc
    if not text.lstrip().startswith("<"):  # a JSON document never starts with "<", a page always does
        return text
    try:
        return json.dumps(read_html(text), ensure_ascii=False)
    except ValueError as exc:  # DocumentError and SchemaVersionError
        raise CommandError(f"could not read {source!r} as a Vista page: {exc}") from exc


def _diff(args: argparse.Namespace) -> int:
    import vista_core
    from vista_render_html import save_html

    options = _display_options(args)
    if args.before == "-" and args.after == "-":
        raise CommandError("only one of the two documents can be read from stdin (-)")
    texts = [_read(args.before), _read(args.after)]
    try:
        result = vista_core.diff(*texts)
    except (TypeError, ValueError) as exc:  # SchemaError and SchemaVersionError are ValueErrors
        raise CommandError(f"could not compare {args.before!r} and {args.after!r}: {exc}") from exc
    print(result.summary())
    try:
        if args.json:
            Path(args.json).write_text(result.to_json(), encoding="utf-8")
        if args.output:
            written = save_html(result, args.output, depth=options.depth, theme=options.theme, title=args.title,
                                show_parameters=options.show_parameters, show_constants=options.show_constants)
            _say(f"Wrote the page of the diff to {written}")
    except (OSError, TypeError, ValueError) as exc:
        raise CommandError(f"could not write the diff: {exc}") from exc
    return 0 if result.equal else 1


def _summary(args: argparse.Namespace) -> int:
    import vista_core

    source = "stdin" if args.document == "-" else args.document
    text = _read(args.document)
    try:
        table = vista_core.Graph.from_json(text).summary(depth=args.depth)
    except (TypeError, ValueError) as exc:  # SchemaError and SchemaVersionError are ValueErrors
        raise CommandError(f"could not summarise {source!r}: {exc}") from exc
    print(table)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from ._demo_cli import main as demo_main

    return demo_main([args.out, "--depth", str(args.depth), "--theme", args.theme])


def _add_view_options(parser: argparse.ArgumentParser) -> None:
    from ._options import THEMES

    group = parser.add_argument_group("page options")
    group.add_argument("--depth", type=int, default=None, help="module levels open at first (default: the viewer's)")
    group.add_argument("--theme", choices=THEMES, default="auto", help="colour theme (default: auto, the system's)")
    group.add_argument("--no-parameters", action="store_true", help="leave out parameter and buffer nodes")
    group.add_argument("--no-constants", action="store_true", help="leave out constant-tensor nodes")


def parser() -> argparse.ArgumentParser:
    """The ``vista`` argument parser (its help is what ``vista --help`` prints)."""
    from ._demo_cli import DEFAULT_DEPTH, DEFAULT_OUT
    from ._options import THEMES
    from ._version import __version__

    formatter = argparse.RawDescriptionHelpFormatter
    top = argparse.ArgumentParser(prog="vista", description=DESCRIPTION, epilog=EPILOG, formatter_class=formatter)
    top.add_argument("--version", action="version", version=f"vista {__version__}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", required=True)

    trace = commands.add_parser("trace", help="trace a model built by an importable factory and write its page",
                                description=TRACE_DESCRIPTION, epilog=TRACE_EPILOG, formatter_class=formatter)
    trace.add_argument("target", metavar="MODULE:FACTORY", help="e.g. torchvision.models:resnet18 or mypkg.models:Net")
    trace.add_argument("--input", "-i", action="append", default=[], metavar="[NAME=]SHAPE[:DTYPE]",
                       help="an input tensor, e.g. 1x3x224x224 or input_ids=1x128:int64 (repeat for more)")
    trace.add_argument("--kwargs-json", metavar="JSON", help="keyword arguments of the factory, as a JSON object")
    trace.add_argument("--meta", action="store_true",
                       help="build the model and inputs on the meta device: shapes only, no memory for weights")
    trace.add_argument("--zeros", action="store_true", help="zero inputs instead of random ones")
    trace.add_argument("--seed", type=int, default=0, help="seed of the inputs and the initial weights (default: 0)")
    trace.add_argument("--train", action="store_true", help="keep the model in training mode (default: eval)")
    trace.add_argument("--stats", action="store_true",
                       help="record each op output's min, max, mean, std and NaN/Inf/zero counts, and the first op "
                            "that made a NaN or Inf (colour by non-finite in the page)")
    trace.add_argument("--timing", action="store_true", help="measure each op's and module call's wall time")
    trace.add_argument("-o", "--output", metavar="PAGE.html", help="where to write the page (default: FACTORY.html)")
    trace.add_argument("--json", metavar="GRAPH.json", help="also write the graph document as JSON")
    _add_view_options(trace)
    trace.set_defaults(run=_trace)

    render = commands.add_parser("render", help="render a saved graph document (JSON, or a page) into a page",
                                 description=RENDER_DESCRIPTION, formatter_class=formatter)
    render.add_argument("document", metavar="GRAPH.json", help="the graph document or a Vista page, or - for stdin")
    render.add_argument("-o", "--output", metavar="PAGE.html", help="where to write the page (default: GRAPH.html)")
    render.add_argument("--title", help="the page's title (default: the model's class name)")
    _add_view_options(render)
    render.set_defaults(run=_render)

    summary = commands.add_parser("summary", help="print a saved graph document's module table (params, FLOPs, bytes)",
                                  description="Print the module tree of a saved graph document as a table: class, "
                                              "output shapes, parameters, FLOPs and activation bytes of each "
                                              "module call, and the totals (Graph.summary()).",
                                  formatter_class=formatter)
    summary.add_argument("document", metavar="GRAPH.json", help="the graph document or a Vista page, or - for stdin")
    summary.add_argument("--depth", type=int, default=3, help="module levels below the model (default: 3)")
    summary.set_defaults(run=_summary)

    diff = commands.add_parser("diff", help="compare two saved graph documents: what was added, removed, changed",
                               description="Compare two saved graph documents (vista_core.diff): print a short "
                                           "report of what was added, removed and changed, and with -o write the "
                                           "page that shows the comparison. Exits with status 0 when the graphs "
                                           "are equal, 1 when they differ (as diff does), 2 on a mistake.",
                               formatter_class=formatter)
    diff.add_argument("before", metavar="A.json", help="the first graph document or page ('before'), or - for stdin")
    diff.add_argument("after", metavar="B.json", help="the second graph document or page ('after'), or - for stdin")
    diff.add_argument("-o", "--output", metavar="PAGE.html", help="also write the page of the diff")
    diff.add_argument("--json", metavar="DIFF.json", help="also write the diff document as JSON")
    diff.add_argument("--title", help="the page's title (default: made from both models' classes)")
    _add_view_options(diff)
    diff.set_defaults(run=_diff)

    demo = commands.add_parser("demo", help="write the page of the demo model that ships with Vista",
                               description="Trace Vista's demo model (a tiny vision transformer) and write its page.",
                               formatter_class=formatter)
    demo.add_argument("out", nargs="?", default=str(DEFAULT_OUT), help=f"where to write it (default: {DEFAULT_OUT})")
    demo.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                      help=f"module levels open at first (default: {DEFAULT_DEPTH})")
    demo.add_argument("--theme", choices=THEMES, default="auto", help="colour theme (default: auto)")
    demo.set_defaults(run=_demo)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """The ``vista`` console script; returns the exit status (2 for a mistake in the command)."""
    args = parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except CommandError as exc:
        _say(f"vista {args.command}: {exc}", error=True)
        return 2
    return status
