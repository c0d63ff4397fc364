"""The public surface of vista_schema is exactly __all__, and importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import vista_schema

EXPECTED = {
    "DIFF_VERSION", "SCHEMA_VERSION", "DiffVersionError", "SchemaError", "SchemaVersionError", "VistaError",
    "__version__", "check_css_length", "check_finite", "check_schema_version", "check_viewer_options",
    "diff_schema", "host_theme_schema", "is_diff_document", "parse_json", "read_diff_document", "read_document",
    "schema", "validate_diff_document", "validate_document", "viewer_options_schema",
}


def test_all_is_exactly_the_public_surface() -> None:
    assert set(vista_schema.__all__) == EXPECTED
    assert len(vista_schema.__all__) == len(EXPECTED)
    public = {name for name in vars(vista_schema) if not name.startswith("_")} - {"annotations"}
    assert public | {"__version__"} == EXPECTED


def test_schema_version_is_major_minor_and_separate_from_the_package_version() -> None:
    major, minor = vista_schema.SCHEMA_VERSION.split(".")
    assert major.isdigit() and minor.isdigit()
    assert vista_schema.__version__ != vista_schema.SCHEMA_VERSION


def test_import_and_reading_import_nothing_heavy() -> None:
    code = (
        "import sys, vista_schema\n"
        "vista_schema.read_document('{\"schema_version\": \"1.0\", \"modules\": [{\"parent\": null}],"
        " \"nodes\": [], \"edges\": []}')\n"
        "print(','.join(sorted(m for m in ('torch', 'numpy', 'jinja2', 'jsonschema', 'vista_core')"
        " if m in sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_exception_hierarchy() -> None:
    assert issubclass(vista_schema.SchemaVersionError, vista_schema.SchemaError)
    assert issubclass(vista_schema.SchemaError, vista_schema.VistaError)
    assert issubclass(vista_schema.SchemaError, ValueError)
    error = vista_schema.SchemaVersionError("2.0", "1.0")
    assert (error.document_version, error.supported_version) == ("2.0", "1.0")
