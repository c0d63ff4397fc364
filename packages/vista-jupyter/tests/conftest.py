"""Shared fixtures: small models and an IPython shell that records what cells display."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import torch
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import RichOutput, capture_output


class TinyNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


class ShapeBug(torch.nn.Module):
    """Raises inside torch.cat; keeps the exception object it raised."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(4, 8)
        self.raised: BaseException | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        try:
            return torch.cat([h, x], dim=0)
        except RuntimeError as exc:
            self.raised = exc
            raise


@pytest.fixture(autouse=True)
def no_browser(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A test outside an IPython shell shows its graph as a script would: it must not open a
    browser, and its pages go to a folder of the test run (see test_outside_notebook.py)."""
    monkeypatch.setenv("VISTA_NO_BROWSER", "1")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("pages")))


@pytest.fixture
def tiny() -> TinyNet:
    torch.manual_seed(0)
    return TinyNet()


@pytest.fixture
def shape_bug() -> ShapeBug:
    return ShapeBug()


@dataclass
class Shell:
    """An IPython shell whose cells run like a notebook's (history on, Out[n] displayed)."""

    ip: InteractiveShell
    #: What the last cell printed (stdout and stderr, colours removed), e.g. a failing cell's traceback.
    printed: str = ""

    def run(self, code: str, **names: Any) -> tuple[list[RichOutput], Any]:
        """Run one cell; return the rich outputs it displayed and its ExecutionResult."""
        self.ip.user_ns.update(names)
        with capture_output(display=True) as captured:
            result = self.ip.run_cell(code, store_history=True)
        self.printed = re.sub(r"\x1b\[[0-9;]*m", "", captured.stdout + captured.stderr)  # no colours
        return list(captured.outputs), result


@pytest.fixture
def shell() -> Iterator[Shell]:
    ip = InteractiveShell.instance()
    yield Shell(ip)
    ip.reset()
