"""A benchmark case: a model in eval mode and the inputs every tool receives."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

__all__ = ["Case"]


@dataclass(frozen=True)
class Case:
    """One model and its inputs: ``model(*args, **kwargs)`` is the plain forward pass."""

    name: str
    model: torch.nn.Module
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def forward(self) -> Any:
        """Run the plain forward pass once."""
        return self.model(*self.args, **self.kwargs)
