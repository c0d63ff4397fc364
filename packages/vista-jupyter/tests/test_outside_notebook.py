"""trace_model outside a notebook (plain ``python script.py``, IPython in a terminal): the page
goes to a file and opens in the default browser, one short line says where; never the HTML.
``display=False`` does nothing of it; ``VISTA_NO_BROWSER=1`` (CI) writes and says but opens
nothing, and so does a machine without a graphical display."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import webbrowser
from pathlib import Path
from typing import Any

import pytest
import torch
from conftest import ShapeBug, TinyNet
from jupyter_pages import page_graph

import vista_jupyter._ipython as ipython_module
from vista_jupyter import trace_model
from vista_jupyter._browser import NO_BROWSER_ENV

SCRIPT = textwrap.dedent("""
    import torch
    from vista_jupyter import trace_model

    class TinyNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)

    g = trace_model(TinyNet(), torch.randn(3, 4))
    print("saved", g.save("again.html"))
""")


class Opened:
    """Stands in for webbrowser.open: records the URLs, says whether a browser took them."""

    def __init__(self, result: bool = True) -> None:
        self.urls: list[str] = []
        self.result = result

    def __call__(self, url: str, *args: Any, **kwargs: Any) -> bool:
        self.urls.append(url)
        return self.result


@pytest.fixture
def plain_python(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Opened:
    """No IPython shell, a graphical display, opening on, pages written under tmp_path."""
    monkeypatch.setattr(ipython_module, "get_ipython", lambda: None)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv(NO_BROWSER_ENV, raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    opened = Opened()
    monkeypatch.setattr(webbrowser, "open", opened)
    return opened


def _pages(folder: Path) -> list[Path]:
    return sorted(folder.glob("vista-*.html"))


def test_a_script_writes_the_page_and_prints_one_short_line(tmp_path: Path) -> None:
    env = {**os.environ, NO_BROWSER_ENV: "1", "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    pages = _pages(tmp_path / "tmp")
    assert len(pages) == 1
    assert done.stdout == f"saved {(tmp_path / 'again.html').resolve()}\n"  # nothing else on stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr[:500]
    assert str(pages[0]) in lines[0]
    assert len(lines[0]) < 120 + len(str(pages[0])) * 2
    assert "<" not in done.stderr
    assert pages[0].read_bytes() == (tmp_path / "again.html").read_bytes()  # the very page save() writes


def test_the_page_opens_in_the_default_browser(plain_python: Opened, tmp_path: Path, tiny: TinyNet,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    view = trace_model(tiny, torch.randn(3, 4), depth=1)
    pages = _pages(tmp_path)
    assert len(pages) == 1
    assert plain_python.urls == [pages[0].as_uri()]
    assert pages[0].read_text(encoding="utf-8") == view.to_html()
    assert page_graph(pages[0].read_text(encoding="utf-8")) == view.to_dict()
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"Vista: opened the graph of TinyNet in your browser ({pages[0]})\n"


def test_show_opens_another_page_with_its_options(plain_python: Opened, tmp_path: Path, tiny: TinyNet,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    view = trace_model(tiny, torch.randn(3, 4), display=False)
    assert _pages(tmp_path) == [] and plain_python.urls == []
    view.show(theme="dark")
    view.show(theme="dark")
    pages = _pages(tmp_path)
    assert len(pages) == 2  # a page per call: an open tab is never overwritten
    assert pages[0].read_text(encoding="utf-8") == view.to_html(theme="dark")
    assert len(plain_python.urls) == 2
    assert len(capsys.readouterr().err.splitlines()) == 2


def test_display_false_writes_and_prints_nothing(plain_python: Opened, tmp_path: Path, tiny: TinyNet,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    trace_model(tiny, torch.randn(3, 4), display=False)
    assert _pages(tmp_path) == []
    assert plain_python.urls == []
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_the_environment_variable_turns_opening_off(plain_python: Opened, tmp_path: Path, tiny: TinyNet,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(NO_BROWSER_ENV, value)
    trace_model(tiny, torch.randn(3, 4))
    pages = _pages(tmp_path)
    assert len(pages) == 1
    assert plain_python.urls == []
    assert capsys.readouterr().err == f"Vista: wrote the graph of TinyNet to {pages[0]}; open it in a browser\n"


@pytest.mark.parametrize("value", ["", "0", "false", "no"])
def test_the_environment_variable_set_to_no_keeps_opening_on(plain_python: Opened, tmp_path: Path,
                                                             tiny: TinyNet, monkeypatch: pytest.MonkeyPatch,
                                                             value: str) -> None:
    monkeypatch.setenv(NO_BROWSER_ENV, value)
    trace_model(tiny, torch.randn(3, 4))
    assert len(plain_python.urls) == 1


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="a graphical display is always there")
def test_no_graphical_display_opens_nothing(plain_python: Opened, tmp_path: Path, tiny: TinyNet,
                                            capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A console browser (lynx, w3m) would take over the terminal of an ssh session or a CI job."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(name, raising=False)
    trace_model(tiny, torch.randn(3, 4))
    assert plain_python.urls == []
    assert "open it in a browser" in capsys.readouterr().err
    monkeypatch.setenv("BROWSER", "firefox")  # the user's own choice of browser is followed
    trace_model(tiny, torch.randn(3, 4))
    assert len(plain_python.urls) == 1


def test_a_browser_that_cannot_be_started_is_said(plain_python: Opened, tmp_path: Path, tiny: TinyNet,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    plain_python.result = False
    trace_model(tiny, torch.randn(3, 4))
    pages = _pages(tmp_path)
    assert capsys.readouterr().err == f"Vista: wrote the graph of TinyNet to {pages[0]}; open it in a browser\n"


def test_a_failed_forward_pass_opens_its_graph_then_raises(plain_python: Opened, tmp_path: Path,
                                                           shape_bug: ShapeBug,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(RuntimeError) as info:
        trace_model(shape_bug, torch.randn(2, 4))
    assert info.value is shape_bug.raised
    pages = _pages(tmp_path)
    assert len(pages) == 1 and plain_python.urls == [pages[0].as_uri()]
    assert page_graph(pages[0].read_text(encoding="utf-8"))["error"]["type"] == "RuntimeError"
    assert "ShapeBug" in capsys.readouterr().err


def test_ipython_in_a_terminal_counts_as_outside(plain_python: Opened, tmp_path: Path, tiny: TinyNet,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """IPython's terminal shows a bundle as its text: the graph goes to the browser there too."""
    terminal = type("TerminalInteractiveShell", (), {"__module__": "IPython.terminal.interactiveshell"})()
    monkeypatch.setattr(ipython_module, "get_ipython", lambda: terminal)
    assert not ipython_module.in_notebook()
    trace_model(tiny, torch.randn(3, 4))
    assert len(_pages(tmp_path)) == 1 and len(plain_python.urls) == 1


def test_an_unwritable_temporary_folder_gives_a_clear_error(plain_python: Opened, tmp_path: Path,
                                                            tiny: TinyNet, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    view = trace_model(tiny, torch.randn(3, 4), display=False)
    with pytest.raises(OSError, match=r"could not write the page.*save\("):
        view.show()


def test_a_temporary_folder_with_a_lone_surrogate_is_printed(plain_python: Opened, tmp_path: Path, tiny: TinyNet,
                                                             capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "tmp-\udcff"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    trace_model(tiny, torch.randn(3, 4))
    assert len(_pages(folder)) == 1
    assert "tmp-\\udcff" in capsys.readouterr().err
