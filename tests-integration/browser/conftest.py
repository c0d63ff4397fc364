"""Headless Chromium (Debian's, through Playwright) with the network blocked, and a helper to
open a Vista page from a file:// URL and read the drawn graph back.

Every page a test opens is watched: console errors, uncaught exceptions, dialogs (alert…)
and any request that would leave the machine fail the test at teardown.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import browser_models
import pytest
from browser_page import OpenPage, Viewer, Watch
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Playwright, Request, Route, sync_playwright

from vista_render_html import render_html

# The registry of known models (tests-integration/known_models.py) is shared with the snapshots.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
LOCAL_SCHEMES = ("file:", "about:", "data:", "blob:")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail("Debian's chromium is not installed: sudo apt-get install -y chromium")
    browser = playwright_instance.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def documents() -> Callable[[str], dict[str, Any]]:
    """documents(name) -> the graph document of a model in browser_models.BUILDERS (cached)."""
    cache: dict[str, dict[str, Any]] = {}

    def get(name: str) -> dict[str, Any]:
        if name not in cache:
            cache[name] = browser_models.BUILDERS[name]()
        return cache[name]

    return get


@pytest.fixture
def watch() -> Watch:
    return Watch()


@pytest.fixture
def open_html(browser: Browser, tmp_path: Path, watch: Watch) -> Iterator[Callable[[str], Page]]:
    """open_html(html) -> a Page showing that HTML from a file:// URL, network blocked."""
    contexts = []

    def open_(html: str, *, name: str = "page.html", color_scheme: str = "light") -> Page:
        path = tmp_path / name
        path.write_text(html, encoding="utf-8")
        context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=color_scheme,
                                      accept_downloads=True)
        contexts.append(context)

        def route(r: Route, request: Request) -> None:
            if request.url.startswith(LOCAL_SCHEMES):
                r.continue_()
            else:
                watch.blocked.append(request.url)
                r.abort()

        context.route("**/*", route)
        page = context.new_page()
        page.on("console", lambda m: _on_console(watch, m))
        page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
        page.on("dialog", lambda d: _on_dialog(watch, d))
        page.goto(path.as_uri())
        return page

    yield open_
    for context in contexts:
        context.close()
    assert watch.problems() == []


def _on_console(watch: Watch, message: ConsoleMessage) -> None:
    if message.type == "error":
        watch.console_errors.append(message.text)


def _on_dialog(watch: Watch, dialog: Dialog) -> None:
    watch.dialogs.append(f"{dialog.type}: {dialog.message}")
    dialog.dismiss()


@pytest.fixture
def open_viewer(open_html: Callable[..., Page]) -> OpenPage:
    """open_viewer(doc, **render_html options) -> a ready Viewer of render_html's page."""

    def open_(doc: dict[str, Any], *, color_scheme: str = "light", **options: Any) -> Viewer:
        page = open_html(render_html(doc, **options), color_scheme=color_scheme)
        viewer = Viewer(page)
        viewer.wait_ready()
        return viewer

    return open_


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
