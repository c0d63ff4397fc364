"""A saved document renders with `pip install vista-render-html` in a venv without torch.

The venv gets this checkout's vista-schema and vista-render-html and their other dependencies,
jinja2 and fontTools, nothing else; the pages it writes must be the very pages rendered here, a
page with names outside Latin-1 (and so the font subset cut from the installed fonts) too.
"""

from __future__ import annotations

import json
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
    named = mlp_graph.to_dict()
    named["modules"][0]["class_name"] = "多层感知机"
    saved_named = tmp_path / "named.json"
    saved_named.write_text(json.dumps(named, ensure_ascii=False), encoding="utf-8")
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
        "for source, target in zip(sys.argv[1::2], sys.argv[2::2]):\n"
        "    with open(source, encoding='utf-8') as f:\n"
        "        print(save_html(f.read(), target))\n"
    )
    page = tmp_path / "page.html"
    page_named = tmp_path / "named.html"
    done = subprocess.run([str(python), "-c", script, str(saved), str(page), str(saved_named), str(page_named)],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(page.resolve()), str(page_named.resolve())]
    assert page.read_text(encoding="utf-8") == render_html(saved.read_text(encoding="utf-8"))
    assert 'data-vista="font"' in page_named.read_text(encoding="utf-8")
    assert page_named.read_text(encoding="utf-8") == render_html(saved_named.read_text(encoding="utf-8"))
