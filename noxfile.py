"""Every check of the Vista monorepo, one nox session each.

`nox` runs the default sessions: the whole test suite (what CI runs). `nox -s demo` traces the
demo model and writes a self-contained HTML page. Slow sessions (`benchmarks`,
`hypothesis_long`) run only when named. Arguments after `--` reach pytest (or the script).

Every session installs torch from constraints.txt: package metadata declares a range, the
sessions pin the CPU wheel that lies on this project's machines.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox

ROOT = Path(__file__).parent
CONSTRAINTS = str(ROOT / "constraints.txt")
SCHEMA = "./packages/vista-schema[validate]"
CORE = "./packages/vista-core[schema]"
RENDER = "./packages/vista-render-html"
JUPYTER = "./packages/vista-jupyter"
PYTHON = "3.11"

nox.options.default_venv_backend = "venv"
nox.options.error_on_missing_interpreters = True
nox.options.sessions = [
    "lint",
    "typecheck",
    "frontend",
    "tests_schema",
    "tests_core",
    "tests_render",
    "tests_jupyter",
    "integration",
    "browser",
    "notebooks",
    "benchmarks_smoke",
    "wheels",
]

#: Where `nox -s build` puts the wheels and sdists (of every package under packages/).
DIST = ROOT / "dist"


def install(session: nox.Session, *args: str) -> None:
    """pip install with the repository's constraints (torch pinned; numpy comes with vista-core,
    which declares it because torch warns at import without it)."""
    session.install("-c", CONSTRAINTS, *args)


def package_dirs() -> list[Path]:
    """Every package of the monorepo: each folder under packages/ with a pyproject.toml."""
    return sorted(p.parent for p in (ROOT / "packages").glob("*/pyproject.toml"))


def ensure_chromium(session: nox.Session) -> None:
    """Debian's Chromium is what the browser tests drive; install it when missing (as root)."""
    if shutil.which("chromium"):
        return
    if os.geteuid() != 0:
        session.error("Browser tests need Debian's chromium: run `sudo apt-get install -y chromium`.")
    session.run("apt-get", "update", "-q", external=True)
    session.run("apt-get", "install", "-y", "-q", "chromium", "fonts-dejavu-core", external=True)


def build_frontend(session: nox.Session) -> None:
    """Install the frontend's npm packages (from package-lock.json) if needed."""
    if not (ROOT / "frontend" / "node_modules").is_dir():
        session.run("npm", "ci", "--no-audit", "--no-fund", external=True)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff over all Python code in the repository."""
    install(session, "ruff")
    session.run("ruff", "check", ".", *session.posargs)


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict over the four packages' sources."""
    install(session, "mypy", "types-jsonschema", "-e", SCHEMA, "-e", CORE, "-e", RENDER, "-e", JUPYTER)
    session.run("mypy", *session.posargs)


@nox.session(python=PYTHON)
def frontend(session: nox.Session) -> None:
    """Typecheck and unit-test the TypeScript viewer, and check the shipped bundle is the
    one the source builds (no drift)."""
    with session.chdir(ROOT / "frontend"):
        build_frontend(session)
        session.run("npm", "run", "check", external=True)


@nox.session(python=PYTHON)
def tests_schema(session: nox.Session) -> None:
    """Unit tests of vista-schema, in a venv without torch (the package must not need it)."""
    session.install("-e", SCHEMA, "pytest")
    session.run("python", "-c", "import importlib.util as u, sys; sys.exit(u.find_spec('torch') is not None)")
    session.run("pytest", "packages/vista-schema/tests", *session.posargs)


@nox.session(python=PYTHON)
def tests_core(session: nox.Session) -> None:
    """Unit tests of vista-core (some build Hugging Face models: transformers comes pinned from
    the integration requirements, its one pin)."""
    install(session, "-e", SCHEMA, "-e", CORE, "pytest", "hypothesis", "-r", "tests-integration/requirements.txt")
    session.run("pytest", "packages/vista-core/tests", *session.posargs)


@nox.session(python=PYTHON)
def tests_render(session: nox.Session) -> None:
    """Unit tests of vista-render-html, among them rendering a saved document in a fresh venv
    without torch (pip install of this checkout's vista-schema and vista-render-html)."""
    install(session, "-e", SCHEMA, "-e", CORE, "-e", RENDER, "pytest", "hypothesis")
    session.run("pytest", "packages/vista-render-html/tests", *session.posargs)


@nox.session(python=PYTHON)
def tests_jupyter(session: nox.Session) -> None:
    """Unit tests of vista-jupyter."""
    install(session, "-e", SCHEMA, "-e", CORE, "-e", RENDER, "-e", JUPYTER, "pytest")
    session.run("pytest", "packages/vista-jupyter/tests", *session.posargs)


@nox.session(python=PYTHON)
def integration(session: nox.Session) -> None:
    """Known-model schema snapshots (syrupy). Update with: nox -s integration -- --snapshot-update"""
    install(session, "-e", SCHEMA, "-e", CORE, "-r", "tests-integration/requirements.txt")
    session.run("pytest", "tests-integration/snapshots", *session.posargs)


@nox.session(python=PYTHON)
def browser(session: nox.Session) -> None:
    """The viewer in real headless Chromium (Playwright), network blocked."""
    ensure_chromium(session)
    install(session, "-e", SCHEMA, "-e", CORE, "-e", RENDER, "-r", "tests-integration/requirements.txt")
    session.run("pytest", "tests-integration/browser", *session.posargs)


@nox.session(python=PYTHON)
def notebooks(session: nox.Session) -> None:
    """The example notebook executed by a real kernel, and trace_model in real JupyterLab and Notebook 7 servers."""
    ensure_chromium(session)
    install(session, "-e", SCHEMA, "-e", CORE, "-e", RENDER, "-e", JUPYTER, "-r", "tests-integration/requirements.txt",
            "-r", "tests-integration/requirements-notebooks.txt")
    session.run("pytest", "tests-integration/notebooks", *session.posargs)


@nox.session(python=PYTHON)
def demo(session: nox.Session) -> None:
    """Trace the demo model that ships with vista-jupyter and write a self-contained HTML page."""
    install(session, "-e", SCHEMA, "-e", CORE, "-e", RENDER, "-e", JUPYTER)
    out = session.posargs[0] if session.posargs else str(ROOT / "out" / "vista-demo.html")
    session.run("python", "-m", "vista_jupyter.demo", out)


@nox.session(python=PYTHON, default=False)
def benchmarks(session: nox.Session) -> None:
    """The full benchmark suite against torchvista, torchview and torchlens (slow)."""
    ensure_chromium(session)
    install(session, "-e", SCHEMA, "-e", CORE, "-e", RENDER, "-r", "benchmarks/requirements.txt")
    session.run("python", "-m", "benchmarks.run", *session.posargs)


@nox.session(python=PYTHON)
def benchmarks_smoke(session: nox.Session) -> None:
    """One model, one repetition per tool: keeps the benchmark suite from rotting."""
    ensure_chromium(session)
    install(session, "-e", SCHEMA, "-e", CORE, "-e", RENDER, "-r", "benchmarks/requirements.txt")
    session.run("python", "-m", "benchmarks.run", "--smoke", "--out", str(ROOT / ".nox" / "bench-smoke"),
                *session.posargs)


@nox.session(python=PYTHON, default=False)
def hypothesis_long(session: nox.Session) -> None:
    """The property-based tests with many more examples than CI runs."""
    install(session, "-e", SCHEMA, "-e", CORE, "pytest", "hypothesis")
    session.run("pytest", "packages/vista-core/tests", "-k", "property", *session.posargs,
                env={"VISTA_HYPOTHESIS_PROFILE": "long"})


@nox.session(python=PYTHON)
def build(session: nox.Session) -> None:
    """Wheels and sdists of every package under packages/ into dist/ (emptied first), and
    `twine check --strict` of their metadata."""
    session.install("build", "twine")
    shutil.rmtree(DIST, ignore_errors=True)
    for package in package_dirs():
        session.run("python", "-m", "build", "--outdir", str(DIST), str(package))
    session.run("twine", "check", "--strict", *sorted(str(p) for p in DIST.iterdir()))


@nox.session(python=PYTHON, requires=["build"])
def wheels(session: nox.Session) -> None:
    """The built wheels (not the source tree) installed into a fresh venv: the demo, a trace,
    the `vista` command and a plain-Python trace_model run there (tests-integration/wheels)."""
    install(session, "pytest")
    session.run("pytest", "tests-integration/wheels", *session.posargs,
                env={"VISTA_DIST": str(DIST), "VISTA_CONSTRAINTS": CONSTRAINTS})
