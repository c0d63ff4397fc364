"""The example notebook, executed by a real kernel (nbclient + ipykernel): no cell fails except
the one tagged ``raises-exception``, and every trace output renders its graph in headless
Chromium with the network blocked, all of them together on one page like in a notebook."""

from __future__ import annotations

import html
import shutil
from pathlib import Path
from typing import Any

import nbformat
import pytest
from conftest import EXAMPLES, RENDER_TIMEOUT_MS, OfflinePage
from nbclient import NotebookClient
from playwright.sync_api import expect

NOTEBOOK = EXAMPLES / "vista-quickstart.ipynb"
#: The cells whose output is a trace (a Vista frame), by cell id; the failing one last.
TRACE_CELLS = ["cell-03", "cell-06", "cell-08", "cell-11", "cell-13", "cell-15", "cell-17"]
FAILING_CELL = "cell-13"

pytestmark = pytest.mark.slow


def test_committed_without_outputs() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{cell.id} has outputs; clear them before committing"
            assert cell.execution_count is None, cell.id
    tagged = [c.id for c in notebook.cells if "raises-exception" in c.metadata.get("tags", [])]
    assert tagged == [FAILING_CELL]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> tuple[nbformat.NotebookNode, Path]:
    workdir = tmp_path_factory.mktemp("quickstart")
    shutil.copy(NOTEBOOK, workdir / NOTEBOOK.name)
    notebook = nbformat.read(workdir / NOTEBOOK.name, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",  # jupyter_client starts it with this interpreter (sys.executable)
        resources={"metadata": {"path": str(workdir)}},
        allow_errors=False,  # any error outside a `raises-exception` cell fails the run
    )
    client.execute()
    return notebook, workdir


def _cell(notebook: nbformat.NotebookNode, cell_id: str) -> Any:
    return next(c for c in notebook.cells if c.get("id") == cell_id)


def _frames(cell: Any) -> list[str]:
    return [
        out["data"]["text/html"]
        for out in cell.outputs
        if out.output_type in ("display_data", "execute_result") and 'class="vista-frame"' in out["data"].get(
            "text/html", "")
    ]


def test_only_the_intended_cell_fails(executed: tuple[nbformat.NotebookNode, Path]) -> None:
    notebook, _ = executed
    errors = {c.id: [o for o in c.outputs if o.output_type == "error"] for c in notebook.cells if c.cell_type == "code"}
    assert {cid for cid, errs in errors.items() if errs} == {FAILING_CELL}
    (error,) = errors[FAILING_CELL]
    assert error.ename == "RuntimeError"
    assert "Sizes of tensors must match" in error.evalue
    assert any("torch.cat" in line for line in error.traceback)  # the user's line, in the usual traceback
    assert not any("vista_core" in line or "vista_jupyter" in line for line in error.traceback)  # no Vista frames


def test_each_trace_cell_shows_exactly_one_graph(executed: tuple[nbformat.NotebookNode, Path]) -> None:
    notebook, workdir = executed
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        expected = 1 if cell.id in TRACE_CELLS else 0
        assert len(_frames(cell)) == expected, cell.id
    saved = workdir / "bert-graph.html"
    assert saved.is_file()
    assert "saved to" in _cell(notebook, "cell-10").outputs[0]["text"]


def test_every_trace_output_renders_in_chromium(
    executed: tuple[nbformat.NotebookNode, Path], offline_page: OfflinePage, artifacts: Path
) -> None:
    notebook, _ = executed
    outputs = [_frames(_cell(notebook, cid))[0] for cid in TRACE_CELLS]
    # One host page holding all outputs, like a notebook; an AMD loader as in VS Code's webview,
    # and host styles that must stay as they are.
    host = (
        "<!doctype html><html><head><meta charset='utf-8'>"
        "<script>window.define = function () {}; window.define.amd = {};</script>"
        "<style>p.host { color: rgb(1, 2, 3); font-size: 17px; }</style></head><body>"
        "<p class='host' id='host'>host page</p>"
        + "".join(
            f"<div class='cell' data-cell='{html.escape(cid)}'>{out}</div>"
            for cid, out in zip(TRACE_CELLS, outputs, strict=True)
        )
        + "</body></html>"
    )
    page = offline_page.page
    page.set_content(host)
    for cell_id in TRACE_CELLS:
        frame = page.frame_locator(f"div[data-cell='{cell_id}'] iframe.vista-frame")
        viewer = frame.locator(".vista-viewer")
        expect(viewer).to_have_attribute("data-state", "ready", timeout=RENDER_TIMEOUT_MS)
        assert frame.locator("svg.vista-graph g.vista-node").count() > 0, cell_id
        if cell_id == FAILING_CELL:
            expect(frame.locator('g.vista-node[data-failed="true"]')).to_have_count(1)
            expect(frame.locator(".vista-error pre.vista-traceback")).to_contain_text("RuntimeError")
        else:
            assert frame.locator('g.vista-node[data-failed="true"]').count() == 0, cell_id
        cell = page.locator(f"div[data-cell='{cell_id}']")
        cell.scroll_into_view_if_needed()
        cell.screenshot(path=str(artifacts / f"example-notebook-{cell_id}.png"))
    # The theme option reached its own viewer only.
    assert page.frame_locator("div[data-cell='cell-06'] iframe.vista-frame").locator(
        ".vista-viewer").get_attribute("data-theme") == "dark"
    # Exports are downloads from inside the sandboxed frame (allow-downloads).
    first = page.frame_locator(f"div[data-cell='{TRACE_CELLS[0]}'] iframe.vista-frame")
    for action, suffix in (("export-svg", ".svg"), ("export-png", ".png")):
        with page.expect_download(timeout=60_000) as download:
            button = first.locator(f'button[data-action="{action}"]')
            if not button.is_visible():  # a narrow output keeps the exports in the toolbar's More menu
                first.locator('button[data-menu-button="more"]').click()
            button.click()
        assert download.value.suggested_filename.endswith(suffix)
        saved = download.value.path()
        assert saved is not None and saved.stat().st_size > 100
    host_style = page.eval_on_selector("#host", "e => [getComputedStyle(e).color, getComputedStyle(e).fontSize]")
    assert host_style == ["rgb(1, 2, 3)", "17px"]
    assert page.evaluate("typeof window.VistaViewer") == "undefined"  # nothing leaked into the host
    assert offline_page.blocked == []

