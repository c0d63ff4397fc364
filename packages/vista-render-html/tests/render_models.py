"""Small models for the unit tests: an MLP, and one whose strings are markup."""

from __future__ import annotations

import torch

HOSTILE_CLASS = "<img src=x onerror=alert(1)>"
HOSTILE_MESSAGE = "bad shapes </script><script>alert(1)</script> & 'quotes' \"too\""


class TinyMLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.act = torch.nn.ReLU()
        self.fc2 = torch.nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.fc2(self.act(self.fc1(x)))
        return out


def _hostile_forward(self: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    y: torch.Tensor = self.get_submodule("inner")(x)
    raise ValueError(HOSTILE_MESSAGE + f" got {tuple(y.shape)}")


def hostile_model() -> torch.nn.Module:
    """A model whose class name is markup, whose forward raises with </script> in the message."""
    inner = type(HOSTILE_CLASS, (torch.nn.Module,), {"forward": lambda self, x: x * 2})()
    outer_cls = type(HOSTILE_CLASS, (torch.nn.Module,), {"forward": _hostile_forward})
    outer: torch.nn.Module = outer_cls()
    outer.add_module("inner", inner)
    return outer
