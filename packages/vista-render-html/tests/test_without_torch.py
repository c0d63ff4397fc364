"""A saved document renders with `pip install vista-render-html` in a venv without torch.

The venv gets this checkout's vista-schema and vista-render-html and their one other
dependency, jinja2, nothing else; the page it writes must be the very page rendered here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import vista_core
from vista_render_html import render_html

PACKAGES = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_saved_document_renders_in_a_venv_without_torch(tmp_path: Path, mlp_graph: vista_core.Graph) -> None:
    saved = tmp_path / "graph.json"
    saved.write_text(mlp_graph.to_json(), encoding="utf-8")
    venv = tmp_path / "venv"
    # Nothing of this process's paths may leak into the venv (a source checkout's PYTHONPATH).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-input",
                    str(PACKAGES / "vista-schema"), str(PACKAGES / "vista-render-html")], check=True, env=env)
    script = (
        "import importlib.util, sys\n"
        "from vista_render_html import save_html\n"
        "missing = [m for m in ('torch', 'vista_core', 'numpy') if importlib.util.find_spec(m) is not None]\n"
        "assert not missing, f'installed in the torch-free venv: {missing}'\n"
        "with open(sys.argv[1], encoding='utf-8') as f:\n"
        "    print(save_html(f.read(), sys.argv[2]))\n"
    )
    page = tmp_path / "page.html"
    done = subprocess.run([str(python), "-c", script, str(saved), str(page)], capture_output=True, text=True,
                          cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == page.resolve()
    assert page.read_text(encoding="utf-8") == render_html(saved.read_text(encoding="utf-8"))
