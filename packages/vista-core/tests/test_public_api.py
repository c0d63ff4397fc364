"""The public surface of vista_core is exactly what __all__ says."""

from __future__ import annotations

import vista_core

EXPECTED = {
    "DIFF_VERSION", "SCHEMA_VERSION", "Argument", "Attribute", "CallTensor", "Capture", "Change", "DiffVersionError",
    "Edge",
    "FieldChange", "Graph", "GraphDiff", "ModuleCall", "Node", "NodeError",
    "NodeKind", "ParameterInfo", "Producer", "RepeatedBlock", "SchemaError", "SchemaVersionError", "SharedTensor",
    "SourceLocation",
    "TensorMeta", "TensorStats", "TraceError", "TraceInputError", "VistaError", "__version__", "capture", "diff",
    "diff_schema", "read_diff_document", "schema", "trace", "validate_diff_document", "validate_document",
}


def test_all_is_exactly_the_public_surface() -> None:
    assert set(vista_core.__all__) == EXPECTED
    public = {name for name in vars(vista_core) if not name.startswith("_")} | {"__version__"}
    assert public - {"annotations"} == EXPECTED
    for name in vista_core.__all__:
        assert hasattr(vista_core, name), name


def test_schema_version_is_major_minor_and_separate_from_the_package_version() -> None:
    major, minor = vista_core.SCHEMA_VERSION.split(".")
    assert major.isdigit() and minor.isdigit()
    assert vista_core.__version__ != vista_core.SCHEMA_VERSION
