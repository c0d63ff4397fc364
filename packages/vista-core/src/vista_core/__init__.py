"""vista-core: trace a PyTorch forward pass into a versioned graph document.

``trace(model, inputs)`` returns a :class:`Graph`; ``capture(...)`` also returns the model's
exception, for showing a partial graph before re-raising it. ``diff(a, b)`` compares two
traces into a :class:`GraphDiff` (``.equal``, ``.summary()``, ``.to_json()``). The document format is
described by the JSON Schema returned by :func:`schema`. The document's contract (the schema,
its version, the exceptions, :func:`validate_document`) is vista-schema's, re-exported here.
"""

from __future__ import annotations

from vista_schema import (
    DIFF_VERSION,
    diff_schema,
    read_diff_document,
    schema,
    validate_diff_document,
    validate_document,
)

from ._diff import Change, FieldChange, GraphDiff, diff
from ._exceptions import DiffVersionError, SchemaError, SchemaVersionError, TraceInputError, VistaError
from ._graph import (
    Argument,
    Attribute,
    CallTensor,
    Edge,
    Graph,
    ModuleCall,
    Node,
    NodeError,
    NodeKind,
    ParameterInfo,
    Producer,
    RepeatedBlock,
    SharedTensor,
    SourceLocation,
    TensorMeta,
    TensorStats,
    TraceError,
)
from ._trace import Capture, capture, trace
from ._version import SCHEMA_VERSION, __version__

__all__ = [
    "DIFF_VERSION",
    "SCHEMA_VERSION",
    "Argument",
    "Attribute",
    "CallTensor",
    "Capture",
    "Change",
    "DiffVersionError",
    "Edge",
    "FieldChange",
    "Graph",
    "GraphDiff",
    "ModuleCall",
    "Node",
    "NodeError",
    "NodeKind",
    "ParameterInfo",
    "Producer",
    "RepeatedBlock",
    "SchemaError",
    "SchemaVersionError",
    "SharedTensor",
    "SourceLocation",
    "TensorMeta",
    "TensorStats",
    "TraceError",
    "TraceInputError",
    "VistaError",
    "__version__",
    "capture",
    "diff",
    "diff_schema",
    "read_diff_document",
    "schema",
    "trace",
    "validate_diff_document",
    "validate_document",
]
