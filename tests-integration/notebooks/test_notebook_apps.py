"""trace_model in the real notebook apps, JupyterLab 4 and Jupyter Notebook 7: a server on
localhost, a notebook opened in headless Chromium, cells run through the UI. The graph must
appear inside the output's frame and respond to clicks; a failing model must show its partial
graph and the usual Python traceback; theme "auto" must follow the app's theme. Screenshots go
to tests-integration/artifacts/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from _jupyter_server import APPS, JupyterServer, start_server, stop_server
from conftest import RENDER_TIMEOUT_MS, OfflinePage
from nbformat.v4 import new_code_cell, new_notebook
from playwright.sync_api import Browser, FrameLocator, Locator, Page, expect

pytestmark = pytest.mark.slow

NOTEBOOK = "vista-app.ipynb"
SETUP = '''import torch
from torch import nn
from vista_jupyter import trace_model

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        return x + self.norm(torch.relu(self.fc(x)))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(Block(), Block())
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.encoder(x))

class ConcatBug(nn.Module):
    def __init__(self):
        super().__init__()
        self.left = nn.Linear(16, 8)
        self.right = nn.Linear(16, 4)

    def forward(self, x):
        return torch.cat([self.left(x), self.right(x)], dim=0)
'''
TRACE = "graph = trace_model(Net(), torch.randn(2, 8), depth=1, height=460)"
FAIL = "trace_model(ConcatBug(), torch.randn(3, 16), height=560)"


@pytest.fixture(scope="module", params=sorted(APPS))
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    app: str = request.param
    root = tmp_path_factory.mktemp(f"{app}-root")
    # No kernelspec in the metadata: the app asks which kernel to start ("Select Kernel").
    notebook = new_notebook(cells=[new_code_cell(SETUP), new_code_cell(TRACE), new_code_cell(FAIL)])
    nbformat.write(notebook, root / NOTEBOOK)
    running = start_server(app, root, tmp_path_factory.mktemp(f"{app}-home"))
    yield running
    stop_server(running)


@pytest.fixture
def app_page(browser: Browser, server: JupyterServer) -> Iterator[OfflinePage]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = OfflinePage(context, allowed=(server.url + "/", server.url.replace("http", "ws") + "/"))
    yield page
    context.close()


def _accept_kernel_dialog(page: Page) -> None:
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_be_visible(timeout=60_000)
    expect(dialog).to_contain_text("Select Kernel")
    dialog.locator("button.jp-mod-accept").click()
    expect(dialog).to_have_count(0)
    # The kernel is up when the toolbar's kernel status reads idle.
    expect(page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(1, timeout=120_000)


def _run_cell(page: Page, index: int) -> Locator:
    """Run the index-th cell through the UI and wait until it has finished."""
    cell = page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    expect(cell.locator(".jp-InputArea-prompt")).to_have_text(re.compile(r"\[\d+\]:"), timeout=180_000)
    return cell


def _viewer(cell: Locator) -> FrameLocator:
    frame = cell.frame_locator(".jp-OutputArea-output iframe.vista-frame")
    expect(frame.locator(".vista-viewer")).to_have_attribute("data-state", "ready", timeout=RENDER_TIMEOUT_MS)
    return frame


def _use_theme(page: Page, name: str) -> None:
    """Settings > Theme > name, through the app's menus (Lumino's, in both apps)."""
    def item(label: str) -> Locator:
        return page.locator(".lm-Menu-item .lm-Menu-itemLabel").filter(has_text=re.compile(f"^{re.escape(label)}$"))

    page.locator(".lm-MenuBar-itemLabel").filter(has_text=re.compile("^Settings$")).click()
    item("Theme").click()
    item(name).click()


def test_trace_failure_and_theme(server: JupyterServer, app_page: OfflinePage, artifacts: Path) -> None:
    page = app_page.page
    shot = server.app  # screenshots: jupyterlab-*.png, notebook-*.png
    page.goto(server.notebook_url(NOTEBOOK))
    _accept_kernel_dialog(page)

    setup = _run_cell(page, 0)
    assert setup.locator(".jp-OutputArea-output").count() == 0, setup.inner_text()

    # A trace: the graph is drawn inside the output's frame and answers clicks.
    traced = _run_cell(page, 1)
    expect(traced.locator(".jp-OutputArea-output iframe.vista-frame")).to_have_count(1)
    frame = _viewer(traced)
    nodes = frame.locator("svg.vista-graph g.vista-node")
    before = nodes.count()
    assert before > 0
    # Open the last closed box, `head` (a Linear): its op and parameters get drawn.
    frame.locator('g.vista-module[data-state="collapsed"] [data-action="toggle"]').last.click()
    expect(frame.locator('g.vista-module[data-state="expanded"]')).to_have_count(2)  # the model and the opened one
    expect(nodes).not_to_have_count(before)  # the opened module's insides are drawn
    # The only op drawn now is the opened head's linear; a click shows its details.
    ops = frame.locator('svg.vista-graph g.vista-node[data-kind="op"]')
    expect(ops).to_have_count(1)
    ops.first.click()
    details = frame.locator(".vista-details")
    expect(details).to_contain_text("torch.nn.functional.linear")
    expect(details).to_contain_text("head (Linear)")
    traced.scroll_into_view_if_needed()
    traced.screenshot(path=str(artifacts / f"{shot}-trace.png"))

    # A failing model: partial graph with the failed node and traceback, then the usual error.
    failed = _run_cell(page, 2)
    frame = _viewer(failed)
    expect(frame.locator('g.vista-node[data-failed="true"]')).to_have_count(1)
    expect(frame.locator(".vista-error pre.vista-traceback")).to_contain_text("RuntimeError")
    stderr = failed.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
    expect(stderr).to_contain_text("RuntimeError")
    expect(stderr).to_contain_text("Sizes of tensors must match")
    expect(stderr).to_contain_text("torch.cat")
    expect(stderr).not_to_contain_text("vista_core")  # the traceback is the model's own
    outputs = failed.locator(".jp-OutputArea-output")
    assert outputs.first.locator("iframe.vista-frame").count() == 1  # the graph comes before the traceback

    # Both outputs stay alive and independent in one notebook.
    expect(_viewer(traced).locator('g.vista-node[data-failed="true"]')).to_have_count(0)

    # theme "auto" follows the app's theme, not only the system's: the frames cannot read the
    # notebook's DOM, so the script next to each frame posts the theme in on every change.
    assert _viewer(traced).locator(".vista-viewer").get_attribute("data-theme") == "light"
    _use_theme(page, "JupyterLab Dark")
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
    for cell in (traced, failed):
        expect(_viewer(cell).locator(".vista-viewer")).to_have_attribute("data-theme", "dark")
    traced.scroll_into_view_if_needed()
    traced.screenshot(path=str(artifacts / f"{shot}-trace-dark.png"))
    _use_theme(page, "JupyterLab Light")
    for cell in (traced, failed):
        expect(_viewer(cell).locator(".vista-viewer")).to_have_attribute("data-theme", "light")
    page.set_viewport_size({"width": 1400, "height": 1600})  # the partial graph and the traceback at once
    failed.scroll_into_view_if_needed()
    _viewer(failed).locator(".vista-error").scroll_into_view_if_needed()
    page.wait_for_timeout(500)  # let the resized page repaint its frames
    page.screenshot(path=str(artifacts / f"{shot}-failure.png"))
    failed.locator("iframe.vista-frame").screenshot(path=str(artifacts / f"{shot}-failure-frame.png"))
    assert app_page.blocked == [], f"requests outside the local server: {app_page.blocked}"
