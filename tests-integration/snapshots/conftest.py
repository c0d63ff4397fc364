"""Snapshot settings: documents are stored as JSON with one module, node or edge per line
(reviewable diffs), with machine-specific fields masked."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REPO = Path(__file__).resolve().parents[2]
_SITE = re.compile(r"^.*?/(?:site|dist)-packages/")


def portable_path(path: str) -> str:
    """A source path that is the same on every machine: relative to site-packages or to the
    repository, else the file name."""
    if _SITE.match(path):
        return _SITE.sub("", path)
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return Path(path).name if path.startswith("/") else path


def _mask_traceback(text: str) -> str:
    return re.sub(r'File "([^"]+)"', lambda m: f'File "{portable_path(m.group(1))}"', text)


def mask(document: dict[str, Any]) -> dict[str, Any]:
    """The document with versions and absolute paths replaced by stable text."""
    doc = json.loads(json.dumps(document))
    doc["producer"] = {k: (v if k == "name" else f"<{k}>") for k, v in doc["producer"].items()}
    for item in doc["modules"] + doc["nodes"]:
        if "source" in item:
            item["source"]["file"] = portable_path(item["source"]["file"])
    if "error" in doc:
        doc["error"]["traceback"] = _mask_traceback(doc["error"]["traceback"])
    return doc


def dumps_lines(doc: dict[str, Any]) -> str:
    """JSON with each item of the top-level arrays on its own line."""
    parts = []
    for key, value in doc.items():
        if isinstance(value, list) and value:
            items = ",\n".join("    " + json.dumps(v, ensure_ascii=False) for v in value)
            parts.append(f"  {json.dumps(key)}: [\n{items}\n  ]")
        else:
            parts.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


class DocumentSnapshot(JSONSnapshotExtension):
    """One .json file per model, one line per module, node and edge."""

    def serialize(self, data: Any, **kwargs: Any) -> str:
        return dumps_lines(data)


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(DocumentSnapshot)
