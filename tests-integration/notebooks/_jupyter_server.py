"""A real notebook server on localhost for the tests, JupyterLab 4 or Jupyter Notebook 7:
started in a temporary root with its own config, settings and runtime folders (nothing from
the user's ~/.jupyter), a random free port and a random token; stopped (its whole process
group) when the test is done."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO

__all__ = ["APPS", "JupyterServer", "start_server", "stop_server"]

#: The notebook front ends tested, by the name of their Python module, with the URL path that
#: opens a notebook and the flags that keep them offline.
APPS: dict[str, tuple[str, list[str]]] = {
    "jupyterlab": ("lab/tree", ["--LabApp.news_url=",
                                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]),
    # Notebook 7 takes no LabApp flags; the notification settings written by _quiet_settings
    # (its front end is built from JupyterLab's components) keep it offline too.
    "notebook": ("notebooks", []),
}

STARTUP_TIMEOUT_S = 120.0


@dataclass
class JupyterServer:
    """A running server: its app, base URL, token, root folder, process and log file."""

    app: str
    url: str
    token: str
    root: Path
    process: subprocess.Popen[bytes]
    log_path: Path
    log_file: IO[bytes]

    def notebook_url(self, notebook: str) -> str:
        return f"{self.url}/{APPS[self.app][0]}/{notebook}?token={self.token}"

    def log(self) -> str:
        self.log_file.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _quiet_settings(settings_dir: Path) -> None:
    """User settings that keep the app from asking about news and updates (no network)."""
    target = settings_dir / "@jupyterlab" / "apputils-extension"
    target.mkdir(parents=True, exist_ok=True)
    (target / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf-8"
    )


def start_server(app: str, root: Path, home: Path) -> JupyterServer:
    """Start ``app`` (a key of :data:`APPS`) serving ``root``; ``home`` holds its private config
    and state."""
    port, token = _free_port(), secrets.token_hex(16)
    _quiet_settings(home / "settings")
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        IPYTHONDIR=str(home / "ipython"),
    )
    command = [
        sys.executable, "-m", app,
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        *APPS[app][1],
    ]
    if os.geteuid() == 0:  # CI runs the tests as root
        command.append("--allow-root")
    log_path = home / f"{app}.log"
    log_file = log_path.open("wb")
    process = subprocess.Popen(command, env=env, stdout=log_file, stderr=subprocess.STDOUT, cwd=root,
                               start_new_session=True)
    server = JupyterServer(app, f"http://127.0.0.1:{port}", token, root, process, log_path, log_file)
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{app} exited with code {process.returncode}:\n{server.log()}")
        try:
            with urllib.request.urlopen(f"{server.url}/api/status?token={token}", timeout=5) as response:
                if response.status == 200:
                    return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    stop_server(server)
    raise RuntimeError(f"{app} did not answer within {STARTUP_TIMEOUT_S:.0f} s:\n{server.log()}")


def stop_server(server: JupyterServer) -> None:
    """Stop the server and its kernels (the process group the server leads)."""
    if server.process.poll() is None:
        os.killpg(server.process.pid, signal.SIGTERM)
        try:
            server.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.process.pid, signal.SIGKILL)
            server.process.wait(timeout=10)
    server.log_file.close()
