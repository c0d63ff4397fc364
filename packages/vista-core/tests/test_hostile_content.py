# mypy: disable-error-code="no-any-return"
# (torch types nn.Module.__call__ as returning Any, so every `return module(x)` would need a cast)
"""Hostile and huge content in the document (the Python side; the browser side is tested in
tests-integration/browser).

Strings that come from the model (module, parameter and buffer names, class names, reprs,
exception messages, input and output keys, string arguments, source lines) may hold HTML,
``</script>``, quotes, control characters, non-ASCII text, lone surrogates (file names
decoded with ``surrogateescape``) and 100k characters. The document must stay valid JSON (and
valid UTF-8), validate against the schema, round-trip, and carry names exactly; text that
vista-core promises to bound stays within its bound. Large constant tensors and long argument
lists are summarised, so documents stay small; the bounds are stated next to each test.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from _clean import torch_left_clean
from hypothesis import given
from hypothesis import strategies as st
from torch import nn

import vista_core
from vista_core._recorder import CONSTANT_PREVIEW_NUMEL
from vista_core._values import MAX_ITEMS, MAX_TEXT

pytestmark = pytest.mark.usefixtures("torch_clean")

#: Longest extra_repr, source line and exception message vista-core keeps (see _trace.py,
#: _source.py and _recorder.py).
EXTRA_REPR_LIMIT = 300
SOURCE_CODE_LIMIT = 200
MESSAGE_LIMIT = 4000

HOSTILE = {
    "script": "</script><script>alert('x')</script>",
    "html": '<img src=x onerror="alert(1)"><b>&amp;&lt;</b><!--',
    "quotes": "'\"`\\\\'\\\"${x}{{x}}",
    "control": "a\x00b\x01c\x1b[31md\x7fe\x08\t\r\n",
    "separators": "line\u2028separator\u2029paragraph\ufeff\u200b",
    "non-ascii": "é中文🙂 ܐ עברית Ωμέγα",
    "surrogate": "file-\udcff-\ud800",
}
LONG = "</script>" + "L" * 100_000


def check(graph: vista_core.Graph) -> dict[str, Any]:
    """The document is valid JSON and UTF-8, validates, and round-trips; returns its data."""
    document = graph.to_json()
    document.encode("utf-8")  # a lone surrogate would make it unwritable as a file or page
    data = json.loads(document)
    assert isinstance(data, dict)
    vista_core.validate_document(document)
    again = vista_core.Graph.from_json(document)
    assert again == graph
    assert again.to_json() == document
    return data


def strings(value: object) -> list[str]:
    """Every string in a JSON value (keys too)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


# -- hostile names, class names, reprs, messages ------------------------------------------

def _class_name(text: str) -> str:
    """``text`` as a class name: type() refuses NUL and lone surrogates, allows the rest."""
    return "".join(c for c in text if c != "\x00" and not 0xD800 <= ord(c) <= 0xDFFF)


def hostile_model(text: str) -> nn.Module:
    """A model whose every user-chosen string is ``text``: class name, qualname and module,
    submodule name, parameter and buffer names, extra_repr, and the message it raises."""
    class_name = _class_name(text)

    def forward(self: nn.Module, x: torch.Tensor, options: dict[str, Any]) -> torch.Tensor:
        y = getattr(self, text)(x)  # a source line with </script> & "quotes" in it
        return y * self.get_parameter("p" + text) + self.get_buffer("b" + text)

    def extra_repr(self: nn.Module) -> str:
        return text

    cls = type(class_name, (nn.Module,), {"forward": forward, "extra_repr": extra_repr})
    cls.__qualname__ = text
    cls.__module__ = text
    model = cls()
    model.add_module(text, nn.Linear(3, 3))
    model.register_parameter("p" + text, nn.Parameter(torch.ones(3)))
    model.register_buffer("b" + text, torch.zeros(3))
    return model


@pytest.mark.parametrize("text", [*HOSTILE.values(), LONG], ids=[*HOSTILE, "100k"])
def test_hostile_names_stay_data(text: str) -> None:
    model = hostile_model(text)
    with torch_left_clean(model):
        graph = vista_core.trace(model, (torch.randn(2, 3), {text: text, "k": [text]}))
    data = check(graph)
    root, child = graph.modules
    # Names are carried exactly: the viewer shows them as text, so nothing is lost or mangled.
    assert root.class_name == _class_name(text)
    assert root.class_qualname == f"{text}.{text}"
    assert child.path == text
    assert child.name == text
    assert {p.name for p in root.parameters} == {"p" + text, "b" + text}
    assert {n.name for n in graph.nodes if n.kind in ("parameter", "buffer")} == {
        "p" + text, "b" + text, text + ".weight", text + ".bias"}
    # Bounded fields stay bounded.
    assert len(root.extra_repr) <= EXTRA_REPR_LIMIT
    for node in graph.nodes:
        for argument in node.arguments:
            assert len(argument.value) <= MAX_TEXT
        if node.value is not None:
            assert len(node.value) <= MAX_TEXT
        if node.source is not None:
            assert len(node.source.code) <= SOURCE_CODE_LIMIT
    assert any("</script>" in s for s in strings(data))  # the source line above is kept as text


@pytest.mark.parametrize("text", [*HOSTILE.values(), LONG], ids=[*HOSTILE, "100k"])
def test_hostile_exception_message(text: str) -> None:
    class Fails(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = x + 1
            raise ValueError(text)

    with torch_left_clean():
        result = vista_core.capture(Fails(), torch.randn(2))
    assert isinstance(result.exception, ValueError)
    assert result.exception.args == (text,)  # the user's exception is untouched
    graph = result.graph
    check(graph)
    assert graph.error is not None
    assert graph.error.node is not None
    node_error = graph.node(graph.error.node).error
    assert node_error is not None
    assert len(node_error.message) <= MESSAGE_LIMIT
    assert len(graph.error.message) <= MESSAGE_LIMIT
    if len(text) <= MESSAGE_LIMIT:
        assert node_error.message == text
        assert graph.error.message == text
    else:
        assert node_error.message == text[: MESSAGE_LIMIT - 1] + "…"


@pytest.mark.parametrize("text", [*HOSTILE.values(), LONG], ids=[*HOSTILE, "100k"])
def test_hostile_strings_in_op_arguments_inputs_and_outputs(text: str) -> None:
    class Strings(nn.Module):
        def forward(self, x: torch.Tensor, label: str) -> dict[str, Any]:
            with contextlib.suppress(RuntimeError):
                F.gelu(x, approximate=label)  # a failing op with a hostile string argument
            return {label: x * 2, "label": label, "nested": [label, {label: x}]}

    with torch_left_clean():
        graph = vista_core.trace(Strings(), (torch.randn(2), text))
    check(graph)
    gelu = next(n for n in graph.nodes if n.label == "gelu")
    assert gelu.error is not None
    (approximate,) = [a for a in gelu.arguments if a.name == "approximate"]
    assert len(approximate.value) <= MAX_TEXT
    assert approximate.value == repr(text if len(text) <= 40 else text[:39] + "…")
    (label,) = [n for n in graph.nodes if n.kind == "input" and n.name == "label"]
    assert label.value is not None
    assert len(label.value) <= MAX_TEXT
    outputs = [n for n in graph.nodes if n.kind == "output"]
    assert len(outputs) == 4
    for node in outputs:
        if node.value is not None:
            assert len(node.value) <= MAX_TEXT


def test_huge_exception_message_keeps_the_document_small() -> None:
    """Messages are cut to 4000 characters in ``error.message``; the formatted traceback
    repeats the message, so it must be bounded too. Bound: 64 KB for a 1 MB message."""

    class Fails(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            raise ValueError("x" * 1_000_000)

    result = vista_core.capture(Fails(), torch.randn(2))
    assert len(result.graph.to_json()) < 64_000


@pytest.mark.parametrize("where", ["class name", "module name", "input key", "output key"])
def test_huge_names_keep_the_document_small(where: str) -> None:
    """Names are not cut by vista-core today (a name is an identity: cutting it could make two
    differ only after the cut). A 1 MB name keeps the document valid, and it appears at most
    4 times (a module's path and name, and its parameters' node names): that is the bound."""
    name = "N" * 1_000_000
    x = torch.randn(2, 3)
    if where == "class name":
        model: nn.Module = type(name, (nn.Linear,), {})(3, 3)
        inputs: Any = x
    elif where == "module name":
        model = nn.Sequential()
        model.add_module(name, nn.Linear(3, 3))
        inputs = x
    elif where == "input key":
        model = nn.Linear(3, 3)
        inputs = {"input": x}
        model = _KeyedInput(name)
        inputs = ({name: x},)
    else:
        model = _KeyedOutput(name)
        inputs = x
    graph = vista_core.trace(model, inputs)
    data = check(graph)
    occurrences = sum(s.count(name) for s in strings(data))
    if where in ("input key", "output key"):
        # Keys only label input and output nodes: they are cut to 60 characters.
        assert occurrences == 0
        # The node's name and label, and the model's `key` attribute (its repr cut to 80).
        assert sum(s.count("N" * 59 + "…") for s in strings(data)) == 3
        assert len(graph.to_json()) < 20_000
    else:
        assert 1 <= occurrences <= 4, f"the name appears {occurrences} times"
        assert len(graph.to_json()) < 4 * len(name) + 20_000


class _KeyedInput(nn.Module):
    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key

    def forward(self, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
        return inputs[self.key] * 2


class _KeyedOutput(nn.Module):
    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        return {self.key: x * 2}


# -- large constants and long argument lists are summarised --------------------------------

class BigConstant(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.table = torch.randn(1000, 1000)  # a plain attribute: a constant, 1e6 elements
        self.small = torch.arange(CONSTANT_PREVIEW_NUMEL, dtype=torch.float32)
        self.just_too_big = torch.arange(CONSTANT_PREVIEW_NUMEL + 1, dtype=torch.float32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        values = torch.tensor([float(i) for i in range(100_000)])  # a 100k-item list argument
        return (x @ self.table[:, :4]).sum() + self.small.sum() + self.just_too_big.sum() + values.sum()


def test_large_constant_and_long_list_argument_are_summarised() -> None:
    """Bound: 8 KB for a model reading a 1e6-element constant and building a tensor from a
    100k-item Python list (the document does not grow with the data)."""
    with torch_left_clean():
        graph = vista_core.trace(BigConstant(), torch.randn(2, 1000))
    check(graph)
    size = len(graph.to_json().encode("utf-8"))
    assert size < 8_000, f"document of {size} bytes"
    constants = [n for n in graph.nodes if n.kind == "constant"]
    by_shape = {n.outputs[0].shape: n for n in constants}
    assert by_shape[(1000, 1000)].value is None
    assert by_shape[(CONSTANT_PREVIEW_NUMEL,)].value == ", ".join(
        repr(float(i)) for i in range(CONSTANT_PREVIEW_NUMEL)
    ).join("[]")
    assert by_shape[(CONSTANT_PREVIEW_NUMEL + 1,)].value is None
    factory = next(n for n in graph.ops() if n.name == "torch.tensor")
    (argument,) = factory.arguments
    assert len(argument.value) <= MAX_TEXT
    assert argument.value.endswith(f"…(+{100_000 - MAX_ITEMS})]") or argument.value.endswith("…")


class CatMany(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat(list(x.unbind(0)), 0)


def test_cat_of_500_tensors_stays_small() -> None:
    """A cat of 500 tensors: the argument text is summarised (at most MAX_TEXT characters),
    and the document holds one edge per tensor and nothing bigger. Bound: 250 bytes per
    tensor plus 10 KB, i.e. under 135 KB here."""
    with torch_left_clean():
        graph = vista_core.trace(CatMany(), torch.randn(500, 4))
    check(graph)
    cat = next(n for n in graph.ops() if n.label == "cat")
    tensors = cat.arguments[0].value
    assert tensors.startswith("[tensor#0, tensor#1, ")
    assert tensors.endswith(f"…(+{500 - MAX_ITEMS})]")
    assert len(tensors) <= MAX_TEXT
    assert sum(1 for e in graph.edges if e.target == cat.id) == 500
    size = len(graph.to_json().encode("utf-8"))
    assert size < 250 * 500 + 10_000, f"document of {size} bytes"


class _Key:
    """A dict key whose repr raises (or is huge): used as an input and an output key."""

    def __init__(self, broken: bool) -> None:
        self.broken = broken

    def __repr__(self) -> str:
        if self.broken:
            raise RuntimeError("key __repr__ is broken")
        return "K" * 1_000_000


class _KeyedByObject(nn.Module):
    def __init__(self, key: _Key) -> None:
        super().__init__()
        self.key = key

    def forward(self, inputs: dict[Any, torch.Tensor]) -> dict[Any, torch.Tensor]:
        return {self.key: inputs[self.key] * 2}


@pytest.mark.parametrize("broken", [True, False], ids=["repr-raises", "repr-1MB"])
def test_dict_keys_of_any_type_in_inputs_and_outputs(broken: bool) -> None:
    """Input and output names are built from dict keys; a key's repr may raise or be huge.
    Vista must not raise (after the model ran, the output would be lost) and the names stay
    short (bound: the document stays under 20 KB)."""
    key = _Key(broken)
    model = _KeyedByObject(key)
    x = torch.randn(2, 3)
    with torch_left_clean():
        result = vista_core.capture(model, ({key: x},))
    assert result.exception is None
    graph = result.graph
    check(graph)
    assert [n.kind for n in graph.nodes if n.kind in ("input", "output")] == ["input", "output"]
    assert len(graph.to_json()) < 20_000


# Any text Python allows in each place (Hypothesis' text() leaves out lone surrogates, which
# have their own case above).
module_names = st.text(min_size=1, max_size=40).filter(lambda t: "." not in t)
class_names = st.text(min_size=1, max_size=40).filter(lambda t: "\x00" not in t)


@given(name=module_names, class_name=class_names, message=st.text(max_size=200), key=st.text(max_size=40))
def test_property_any_text_in_names_keys_and_messages(name: str, class_name: str, message: str, key: str) -> None:
    class Model(nn.Module):
        def forward(self, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
            getattr(self, name)(inputs[key])
            raise ValueError(message)

    Model.__name__ = class_name
    model = Model()
    model.add_module(name, nn.Linear(2, 2))
    with torch_left_clean():
        result = vista_core.capture(model, ({key: torch.ones(1, 2)},))
    assert isinstance(result.exception, ValueError)
    graph = result.graph
    check(graph)
    assert graph.root.class_name == class_name
    assert graph.modules[1].path == name
    assert [n.name for n in graph.nodes if n.kind == "input"] == [f"inputs[{key!r}]"]
    assert graph.error is not None
    assert graph.error.message == (message if len(message) <= MESSAGE_LIMIT else message[: MESSAGE_LIMIT - 1] + "…")
