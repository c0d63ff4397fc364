"""Vista's benchmark suite: trace cost, page speed, coverage and huge models, side by side with
torchvista, torchview and torchlens. Run it with ``python -m benchmarks.run`` (see README.md).

The package is not published; its modules are imported by the runner and, for the model zoo
(:mod:`benchmarks.hf_zoo`, :mod:`benchmarks.models`), by the integration tests.
"""

from __future__ import annotations

__all__: list[str] = []
