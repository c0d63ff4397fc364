"""Reading a Vista viewer on a Playwright page, and what a page must not do (used by conftest.py
and the tests; a module of its own because test modules cannot import conftest.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page

READY_TIMEOUT_MS = 30_000


@dataclass
class Watch:
    """What happened on a page that must not happen."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return ([f"console error: {m}" for m in self.console_errors] + [f"page error: {m}" for m in self.page_errors]
                + [f"dialog: {m}" for m in self.dialogs] + [f"network request: {u}" for u in self.blocked])


class Viewer:
    """A Vista viewer on a page: reads the drawn graph and clicks through the contract's hooks."""

    def __init__(self, page: Page, scope: str = "") -> None:
        self.page = page
        self.scope = scope  # a CSS selector of the mount container ("" for the whole page)
        self.root = f"{scope} .vista-viewer".strip()

    def sel(self, css: str) -> str:
        return f"{self.root} {css}"

    def wait_ready(self, timeout: float = READY_TIMEOUT_MS) -> None:
        self.page.wait_for_selector(f"{self.root}[data-state=ready]", state="attached", timeout=timeout)

    def state(self) -> str | None:
        return self.page.get_attribute(self.root, "data-state")

    def node_ids(self) -> set[str]:
        ids: list[str] = self.page.eval_on_selector_all(self.sel("g.vista-node"), "els => els.map(e => e.dataset.id)")
        assert len(ids) == len(set(ids)), f"a node is drawn twice: {sorted(ids)}"
        return set(ids)

    def boxes(self) -> dict[str, dict[str, str | None]]:
        found: list[dict[str, Any]] = self.page.eval_on_selector_all(
            self.sel("g.vista-module"),
            "els => els.map(e => ({id: e.dataset.id, state: e.dataset.state, repeat: e.dataset.repeat ?? null}))",
        )
        return {b["id"]: {"state": b["state"], "repeat": b["repeat"]} for b in found}

    def collapsed(self) -> dict[str, int]:
        return {i: int(b["repeat"] or 1) for i, b in self.boxes().items() if b["state"] == "collapsed"}

    def drawn(self) -> tuple[set[str], dict[str, int]]:
        return self.node_ids(), self.collapsed()

    def wait_for_view(self, nodes: frozenset[str] | set[str], boxes: dict[str, int], timeout: float = 15.0) -> None:
        """Poll until the drawn nodes and collapsed boxes are exactly these; assert with a diff."""
        deadline = time.monotonic() + timeout
        while True:
            got_nodes, got_boxes = self.drawn()
            if got_nodes == set(nodes) and got_boxes == boxes and self.state() == "ready":
                return
            if time.monotonic() > deadline:
                break
            self.page.wait_for_timeout(50)
        assert self.state() == "ready"
        assert sorted(got_nodes - set(nodes)) == [], "drawn nodes that should not be"
        assert sorted(set(nodes) - got_nodes) == [], "nodes missing"
        assert got_boxes == boxes

    def click_toggle(self, module_id: str) -> None:
        self.page.click(self.sel(f'g.vista-module[data-id="{module_id}"] [data-action="toggle"]'))

    def click_action(self, action: str) -> None:
        self.click_control(f'button[data-action="{action}"]')

    def click_control(self, css: str) -> None:
        """Clicks a toolbar control; one that a narrow toolbar keeps in a menu, through that menu."""
        target = self.sel(css)
        menu = self.page.eval_on_selector(target, "e => e.closest('.vista-menu')?.dataset.menu ?? null")
        if menu is not None and not self.page.is_visible(target):
            self.page.click(self.sel(f'button[data-menu-button="{menu}"]'))
        self.page.click(target)

    def evaluate_handle(self, expression: str) -> Any:
        """Evaluate `handle => ...` with the viewer handle the page stored on its mount container."""
        container = f"{self.scope} [data-vista=root]".strip() if self.scope else "[data-vista=root]"
        return self.page.eval_on_selector(container, f"(root) => ({expression})(root.vistaHandle)")


OpenPage = Callable[..., Viewer]
