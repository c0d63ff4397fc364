"""The public surface is exactly __all__, and importing the package stays light."""

from __future__ import annotations

import subprocess
import sys

import vista_core
import vista_render_html
import vista_schema

EXPECTED = {
    "SUPPORTED_SCHEMA_VERSION",
    "BundleMissingError",
    "DocumentError",
    "SchemaVersionError",
    "__version__",
    "read_html",
    "render_html",
    "save_html",
}


def test_all_is_exactly_the_public_surface() -> None:
    assert set(vista_render_html.__all__) == EXPECTED
    assert len(vista_render_html.__all__) == len(EXPECTED)
    # `annotations` is the __future__ feature bound by `from __future__ import annotations`.
    public = {name for name in vars(vista_render_html) if not name.startswith("_")} - {"annotations"}
    # Only the names in __all__ are public (no helper function or module leaks out).
    assert public | {"__version__"} == EXPECTED
    for name in EXPECTED:
        assert getattr(vista_render_html, name) is not None


def test_version_matches_the_package_metadata() -> None:
    from importlib.metadata import version

    assert vista_render_html.__version__ == version("vista-render-html") == "0.1.0"


def test_the_schema_version_and_errors_are_vista_schema_s() -> None:
    # One version check: the renderer reads documents through vista-schema, as vista-core does.
    assert vista_render_html.SUPPORTED_SCHEMA_VERSION == vista_schema.SCHEMA_VERSION == vista_core.SCHEMA_VERSION
    assert vista_render_html.SchemaVersionError is vista_schema.SchemaVersionError is vista_core.SchemaVersionError
    assert vista_render_html.DocumentError is vista_schema.SchemaError is vista_core.SchemaError


def test_import_does_not_import_torch_ipython_or_vista_core() -> None:
    code = (
        "import sys, vista_render_html\n"
        "heavy = sorted(m for m in ('torch', 'IPython', 'vista_core', 'numpy') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_rendering_a_dict_does_not_import_torch(tmp_path: object) -> None:
    code = (
        "import json, sys, vista_render_html\n"
        "doc = {'schema_version': '1.0', 'producer': {'name': 'x', 'version': '0', 'torch': '0', 'python': '3'},\n"
        "       'modules': [{'id': 'm0', 'parent': None, 'path': '', 'name': '', 'class_name': 'M',\n"
        "                    'class_qualname': 'M', 'call_index': 0, 'num_params': 0, 'num_params_own': 0,\n"
        "                    'signature': 's'}], 'nodes': [], 'edges': []}\n"
        "html = vista_render_html.render_html(doc)\n"
        "print('torch' in sys.modules, html.startswith('<!doctype html>'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
