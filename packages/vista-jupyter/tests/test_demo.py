"""The demo model and ``python -m vista_jupyter.demo``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch
from jupyter_pages import page_graph, page_options

import vista_core
from vista_jupyter import demo


def test_demo_model_is_deterministic_and_leaves_the_rng_alone() -> None:
    state = torch.random.get_rng_state()
    first, second = demo.demo_model(), demo.demo_model()
    assert torch.equal(torch.random.get_rng_state(), state)
    for a, b in zip(first.parameters(), second.parameters(), strict=False):
        assert torch.equal(a, b)
    assert first(demo.demo_inputs()).shape == (2, 10)


def test_demo_graph_has_the_interesting_parts() -> None:
    graph = vista_core.trace(demo.demo_model(), demo.demo_inputs())
    classes = {m.class_name for m in graph.modules}
    assert {"TinyViT", "ResidualConvStem", "PatchEmbedding", "Block", "SelfAttention", "MLP"} <= classes
    folded = [b for b in graph.repeated_blocks if len(b.modules) == 4]
    assert folded, "the four transformer blocks should be a repeated block"
    op_names = {n.name for n in graph.ops()}
    assert any("cat" in name for name in op_names)
    assert any("softmax" in name for name in op_names)
    assert sum(1 for _ in graph.ops()) > 50


def test_main_writes_the_page_and_says_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sub" / "demo.html"
    assert demo.main([str(out)]) == 0
    printed = capsys.readouterr().out
    assert str(out.resolve()) in printed
    page = out.read_text(encoding="utf-8")
    assert page_graph(page)["modules"][0]["class_name"] == "TinyViT"
    assert page_options(page)["depth"] == demo.DEFAULT_DEPTH == 2  # the blocks show folded "×4"


def test_default_path_is_out_vista_demo_html(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert demo.main([]) == 0
    assert (tmp_path / "out" / "vista-demo.html").is_file()
    assert "out/vista-demo.html" in capsys.readouterr().out


def test_unwritable_path_fails_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert demo.main([str(blocker / "demo.html")]) == 1
    assert "could not write" in capsys.readouterr().err


@pytest.mark.slow
def test_runs_as_a_module(tmp_path: Path) -> None:
    out = tmp_path / "demo.html"
    done = subprocess.run([sys.executable, "-m", "vista_jupyter.demo", str(out)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert str(out.resolve()) in done.stdout
    assert out.stat().st_size > 1000
