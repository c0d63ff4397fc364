"""The built wheels, not the source tree, installed into a fresh venv as a user installs them:
the demo, a trace, the `vista` command and a plain-Python trace_model work there.

`nox -s wheels` runs this after `nox -s build` (VISTA_DIST names dist/). Run alone, it builds the
wheels of every package under packages/ itself (`build` must be installed). torch comes from
constraints.txt (the CPU wheel on this project's machines), as in every session.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted(p.parent for p in (ROOT / "packages").glob("*/pyproject.toml"))
# Nothing of this process's environment may let the venv see the source tree.
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
ENV["VISTA_NO_BROWSER"] = "1"


def _distribution(package: Path) -> str:
    """The wheel file name's prefix of a package (vista-core -> vista_core)."""
    for line in (package / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("name = "):
            return line.split("=", 1)[1].strip().strip('"').replace("-", "_")
    raise AssertionError(f"no name in {package / 'pyproject.toml'}")


def _built(kind: str, suffix: str, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """One ``kind`` ("wheel" or "sdist") of every package: from VISTA_DIST, or built here."""
    given = os.environ.get("VISTA_DIST")
    dist = Path(given) if given else tmp_path_factory.mktemp(kind)
    if not given:
        for package in PACKAGES:
            subprocess.run([sys.executable, "-m", "build", f"--{kind}", "--outdir", str(dist), str(package)],
                           check=True, env=ENV, capture_output=True)
    found = []
    for package in PACKAGES:
        matches = sorted(dist.glob(f"{_distribution(package)}-*{suffix}"))
        assert len(matches) == 1, f"expected one {kind} of {package.name} in {dist}, found {matches}"
        found.append(matches[0])
    return found


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return _built("wheel", ".whl", tmp_path_factory)


@pytest.fixture(scope="module")
def sdists(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return _built("sdist", ".tar.gz", tmp_path_factory)


@pytest.fixture(scope="module")
def venv(wheels: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheels and what they declare, and nothing else."""
    where = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, env=ENV)
    constraints = os.environ.get("VISTA_CONSTRAINTS", str(ROOT / "constraints.txt"))
    subprocess.run([str(where / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-input",
                    "-c", constraints, *map(str, wheels)], check=True, env=ENV)
    return where


def _run(venv: Path, args: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(list(args), cwd=cwd, env={**ENV, "PATH": f"{venv / 'bin'}:{ENV.get('PATH', '')}"},
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_wheels_hold_the_packages_and_the_viewer(wheels: list[Path]) -> None:
    names = {w.name.split("-")[0]: set(zipfile.ZipFile(w).namelist()) for w in wheels}
    assert {"vista_schema", "vista_core", "vista_render_html", "vista_jupyter"} <= set(names)
    assert any(n.endswith(".js") and "/static/" in n for n in names["vista_render_html"]), "the viewer bundle"
    assert any(n.endswith(".jinja") for n in names["vista_render_html"]), "the page template"
    fonts = {n.rsplit("/", 1)[-1] for n in names["vista_render_html"] if "/fonts/" in n}
    # The fonts of the PDF export's subsets for names outside Latin-1, with their licenses.
    assert {"DejaVuSans.ttf", "DroidSansFallback.ttf", "LICENSE-DejaVuSans.txt",
            "LICENSE-DroidSansFallback.txt"} <= fonts
    assert any(n.endswith(".schema.json") for n in names["vista_schema"]), "the JSON Schema"
    assert not any("/tests/" in n for files in names.values() for n in files)


def test_the_package_readmes_link_only_to_addresses(wheels: list[Path]) -> None:
    """Each README is the package's PyPI page, where a relative link leads nowhere."""
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as files:
            (metadata,) = [n for n in files.namelist() if n.endswith(".dist-info/METADATA")]
            text = files.read(metadata).decode("utf-8")
        links = re.findall(r"\]\(([^)\s]+)\)", text)
        relative = [link for link in links if not link.startswith(("https://", "http://", "#"))]
        assert not relative, f"{wheel.name}: relative links {relative}"


def test_each_sdist_builds_the_same_wheel(wheels: list[Path], sdists: list[Path], tmp_path: Path) -> None:
    """What PyPI users without a matching wheel get: a wheel built from the sdist alone holds the
    same files, byte for byte, as the published wheel (the bundle and schema files included)."""
    for wheel, sdist in zip(wheels, sdists, strict=True):
        out = tmp_path / sdist.name.removesuffix(".tar.gz")
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-input",
                        "--wheel-dir", str(out), str(sdist)], check=True, env=ENV, timeout=300)
        (rebuilt,) = out.glob("*.whl")
        with zipfile.ZipFile(wheel) as given, zipfile.ZipFile(rebuilt) as again:
            # RECORD lists hashes and dist-info ordering; the files themselves must match.
            files = sorted(n for n in given.namelist() if not n.endswith("/RECORD"))
            assert files == sorted(n for n in again.namelist() if not n.endswith("/RECORD")), sdist.name
            for name in files:
                assert given.read(name) == again.read(name), f"{name} differs when built from {sdist.name}"


def test_imports_come_from_the_venv_without_warnings(venv: Path, tmp_path: Path) -> None:
    script = (
        "import json, warnings\n"
        "warnings.simplefilter('error')\n"  # torch warns at import without numpy
        "import vista_schema, vista_core, vista_render_html, vista_jupyter, numpy\n"
        "from importlib.metadata import version\n"
        "print(json.dumps({m.__name__: [m.__file__, m.__version__] for m in "
        "(vista_schema, vista_core, vista_render_html, vista_jupyter)}))\n"
    )
    done = _run(venv, ["python", "-c", script], tmp_path)
    assert done.stderr == ""
    found = json.loads(done.stdout)
    for name, (path, version) in found.items():
        assert Path(path).is_relative_to(venv), f"{name} imported from {path}, not the venv"
        assert version == "0.1.0" or version.count(".") >= 2, (name, version)
    _run(venv, ["python", "-m", "pip", "check"], tmp_path)


def test_the_demo_runs(venv: Path, tmp_path: Path) -> None:
    done = _run(venv, ["python", "-m", "vista_jupyter.demo", "demo.html"], tmp_path)
    assert str((tmp_path / "demo.html").resolve()) in done.stdout
    assert (tmp_path / "demo.html").stat().st_size > 100_000  # the viewer is in the page
    assert _run(venv, ["vista-demo", "again.html"], tmp_path).returncode == 0
    assert (tmp_path / "again.html").read_bytes() == (tmp_path / "demo.html").read_bytes()


def test_a_trace_and_its_page(venv: Path, tmp_path: Path) -> None:
    script = (
        "import torch, vista_core\n"
        "from vista_render_html import save_html\n"
        "model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))\n"
        "x = torch.randn(3, 4)\n"
        "graph = vista_core.trace(model, x)\n"
        "assert vista_core.Graph.from_json(graph.to_json()) == graph\n"
        "open('graph.json', 'w').write(graph.to_json())\n"
        "print(save_html(graph, 'page.html'), sum(1 for _ in graph.ops()))\n"
    )
    done = _run(venv, ["python", "-c", script], tmp_path)
    assert done.stdout.split() == [str((tmp_path / "page.html").resolve()), "3"]
    rendered = _run(venv, ["vista", "render", "graph.json", "-o", "again.html"], tmp_path)
    assert "again.html" in rendered.stdout
    assert (tmp_path / "again.html").read_bytes() == (tmp_path / "page.html").read_bytes()


def test_the_vista_command_traces(venv: Path, tmp_path: Path) -> None:
    done = _run(venv, ["vista", "trace", "torch.nn:Linear", "--kwargs-json", '{"in_features": 4, "out_features": 2}',
                       "--input", "3x4", "-o", "linear.html"], tmp_path)
    assert done.stdout == f"Wrote the graph of Linear (1 module call, 1 op) to {tmp_path / 'linear.html'}\n"
    assert "usage: vista" in _run(venv, ["vista", "--help"], tmp_path).stdout


def test_trace_model_in_a_script(venv: Path, tmp_path: Path) -> None:
    script = (
        "import torch\n"
        "from vista_jupyter import trace_model\n"
        "trace_model(torch.nn.Linear(4, 2), torch.randn(3, 4))\n"
    )
    done = _run(venv, ["python", "-c", script], tmp_path)
    assert done.stdout == ""
    assert done.stderr.startswith("Vista: wrote the graph of Linear to ") and done.stderr.count("\n") == 1
    page = Path(done.stderr.split(" to ", 1)[1].split(";", 1)[0])
    assert page.is_file() and page.stat().st_size > 100_000
    page.unlink()


def test_the_readme_install_line_resolves_to_this_checkout(venv: Path, tmp_path: Path) -> None:
    """The README's one command from a checkout: it takes every package from packages/ (pip
    resolves it, nothing is installed a second time)."""
    lines = [line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
             if line.startswith("pip install ./packages/")]
    assert len(lines) == 1, "the README shows one install command for a checkout"
    arguments = lines[0].split()[2:]
    assert sorted(arguments) == sorted(f"./packages/{p.name}" for p in PACKAGES), "every package, no other"
    report = tmp_path / "report.json"
    constraints = os.environ.get("VISTA_CONSTRAINTS", str(ROOT / "constraints.txt"))
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--dry-run", "--ignore-installed",
                    "-c", constraints, "--report", str(report), *arguments], cwd=ROOT, env=ENV, check=True,
                   timeout=300)
    installs = json.loads(report.read_text(encoding="utf-8"))["install"]
    local = {item["metadata"]["name"]: item["download_info"]["url"] for item in installs
             if item["metadata"]["name"].startswith("vista-")}
    assert sorted(local) == sorted(_distribution(p).replace("_", "-") for p in PACKAGES)
    assert all(url.startswith((ROOT / "packages").as_uri()) for url in local.values()), local
    assert {"torch", "numpy", "ipython", "jinja2"} <= {item["metadata"]["name"].lower() for item in installs}
