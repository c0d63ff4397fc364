"""Fixtures of the notebook tests: headless Chromium with the network blocked, and readers of
notebook outputs."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Route, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ARTIFACTS = ROOT / "tests-integration" / "artifacts"

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: Generous: layout runs in WebAssembly on a small, shared CI machine.
RENDER_TIMEOUT_MS = 90_000


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail("Debian's chromium is needed: apt-get install -y chromium (nox -s notebooks installs it)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


class OfflinePage:
    """A browser page that may load only from ``allowed`` origins; everything else is aborted
    and recorded, so a test can assert that nothing tried the network."""

    def __init__(self, context: BrowserContext, allowed: tuple[str, ...] = ()) -> None:
        self.context = context
        self.allowed = allowed
        self.blocked: list[str] = []
        self.console_errors: list[str] = []
        context.route("**/*", self._route)
        self.page: Page = context.new_page()
        self.page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.console_errors.append(str(e)))

    def _route(self, route: Route) -> None:
        url = route.request.url
        if self.allowed and url.startswith(self.allowed):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()


@pytest.fixture
def offline_page(browser: Browser) -> Iterator[OfflinePage]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    yield OfflinePage(context)
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
