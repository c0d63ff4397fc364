"""The toolbar fits narrow outputs: on one row at 800 and 1000 px with the less used controls in
the "Open ▾" and "More ▾" menus, every control inline where they fit, and the menus work with the
mouse and the keyboard (the WAI-ARIA menu button pattern)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from browser_page import OpenPage, Viewer

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]

# Every control of the toolbar, by selector: each must stay reachable at every width.
CONTROLS = [f'button[data-action="{a}"]' for a in (
    "zoom-in", "zoom-out", "fit", "toggle-minimap", "open-modules", "expand-all", "collapse-all",
    "export-svg", "export-png", "export-pdf", "toggle-theme")] + [
    'input[data-control="depth"]', 'select[data-control="colour-by"]', 'button[data-control="hot-spots"]',
    'button[data-control="transitions"]', 'input[data-control="search"]']

MENU_OF = {'button[data-action="open-modules"]': "open", 'button[data-action="expand-all"]': "open",
           'button[data-action="collapse-all"]': "open", 'button[data-action="export-svg"]': "more",
           'button[data-action="export-png"]': "more", 'button[data-action="export-pdf"]': "more",
           'button[data-action="toggle-theme"]': "more", 'button[data-control="hot-spots"]': "more",
           'button[data-control="transitions"]': "more"}

# The toolbar's rows: its visible controls' tops, counted apart where they differ by more than
# half a control's height (a wrapped toolbar has two).
ROWS = """bar => [...bar.children].filter(e => e.offsetParent !== null && !e.classList.contains('vista-sep'))
  .map(e => e.getBoundingClientRect().top).sort((a, b) => a - b)
  .filter((top, i, tops) => i === 0 || top - tops[i - 1] > 12).length"""


def _sized(viewer: Viewer, width: int) -> None:
    viewer.page.set_viewport_size({"width": width, "height": 700})
    viewer.page.wait_for_function("([w, sel]) => document.querySelector(sel).clientWidth <= w",
                                  arg=[width, viewer.sel(".vista-toolbar")])
    # The toolbar refits in its ResizeObserver, before the next frame is painted.
    viewer.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def _rows(viewer: Viewer) -> int:
    rows: int = viewer.page.eval_on_selector(viewer.sel(".vista-toolbar"), ROWS)
    return rows


def _focused(viewer: Viewer) -> str:
    text: str = viewer.page.evaluate("() => document.activeElement?.textContent ?? ''")
    return text


@pytest.mark.parametrize("width", [800, 1000])
def test_a_narrow_toolbar_is_one_row_with_menus(documents: Documents, open_viewer: OpenPage, width: int) -> None:
    viewer = open_viewer(documents("gpt2"))
    _sized(viewer, width)
    assert viewer.page.get_attribute(viewer.sel(".vista-toolbar"), "data-compact") == "true"
    assert _rows(viewer) == 1
    for css in CONTROLS:
        menu = MENU_OF.get(css)
        inside = viewer.page.eval_on_selector(viewer.sel(css), "e => e.closest('.vista-menu-list')?.id ?? null")
        if menu is None:
            assert inside is None and viewer.page.is_visible(viewer.sel(css)), css
        else:
            assert inside == viewer.page.get_attribute(viewer.sel(f'[data-menu-button="{menu}"]'), "aria-controls"), css
            assert viewer.page.is_hidden(viewer.sel(css)), f"{css} waits in its closed menu"
            assert viewer.page.get_attribute(viewer.sel(css), "role") in ("menuitem", "menuitemcheckbox")


def test_a_wide_toolbar_keeps_every_control_inline(documents: Documents, open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents("gpt2"))
    _sized(viewer, 1500)
    assert viewer.page.get_attribute(viewer.sel(".vista-toolbar"), "data-compact") == "false"
    assert _rows(viewer) == 1
    for css in CONTROLS:
        assert viewer.page.is_visible(viewer.sel(css)), css
        assert viewer.page.get_attribute(viewer.sel(css), "role") is None, css
    assert viewer.page.is_hidden(viewer.sel(".vista-menu"))
    # Narrowed, then widened again: every control is back where it was, in the same order.
    order = ("bar => [...bar.querySelectorAll('button, input, select')]"
             ".filter(e => e.offsetParent !== null).map(e => e.outerHTML)")
    before = viewer.page.eval_on_selector(viewer.sel(".vista-toolbar"), order)
    _sized(viewer, 800)
    _sized(viewer, 1500)
    assert viewer.page.eval_on_selector(viewer.sel(".vista-toolbar"), order) == before


def test_menu_items_run_their_action_and_close_the_menu(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("gpt2")
    viewer = open_viewer(doc)
    _sized(viewer, 800)
    button = viewer.sel('button[data-menu-button="open"]')
    assert viewer.page.get_attribute(button, "aria-haspopup") == "menu"
    assert viewer.page.get_attribute(button, "aria-expanded") == "false"
    viewer.page.click(button)
    assert viewer.page.get_attribute(button, "aria-expanded") == "true"
    assert viewer.page.is_visible(viewer.sel('[role=menu] button[data-action="expand-all"]'))
    viewer.page.click(viewer.sel('button[data-action="expand-all"]'))
    viewer.wait_for_view({n["id"] for n in doc["nodes"]}, {}, timeout=60)
    assert viewer.page.get_attribute(button, "aria-expanded") == "false"
    assert viewer.page.is_hidden(viewer.sel(".vista-menu-list"))
    # A click elsewhere closes an open menu.
    viewer.page.click(viewer.sel('button[data-menu-button="more"]'))
    assert viewer.page.is_visible(viewer.sel('button[data-action="export-svg"]'))
    viewer.page.mouse.click(400, 400)
    assert viewer.page.is_hidden(viewer.sel('button[data-action="export-svg"]'))


def test_menus_work_from_the_keyboard(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("gpt2")
    viewer = open_viewer(doc)
    _sized(viewer, 800)
    page = viewer.page
    page.focus(viewer.sel('button[data-menu-button="open"]'))
    page.keyboard.press("ArrowDown")
    assert _focused(viewer) == "Open modules"
    page.keyboard.press("ArrowDown")
    assert _focused(viewer) == "Open everything"
    page.keyboard.press("End")
    assert _focused(viewer) == "Collapse all"
    page.keyboard.press("ArrowDown")
    assert _focused(viewer) == "Open modules", "the arrows wrap around"
    page.keyboard.press("ArrowUp")
    assert _focused(viewer) == "Collapse all"
    page.keyboard.press("Escape")
    assert page.get_attribute(viewer.sel('button[data-menu-button="open"]'), "aria-expanded") == "false"
    assert _focused(viewer) == "Open ▾", "Escape gives the focus back to the menu button"
    # ↑ opens on the last item; Enter runs it, and the focus goes back to the menu button.
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert _focused(viewer) == "Open everything"
    page.keyboard.press("Enter")
    viewer.wait_for_view({n["id"] for n in doc["nodes"]}, {}, timeout=60)
    assert _focused(viewer) == "Open ▾"
    # Enter on the menu button opens it on its first item; Tab leaves and closes it.
    page.keyboard.press("Enter")
    assert _focused(viewer) == "Open modules"
    page.keyboard.press("Tab")
    assert page.is_hidden(viewer.sel(".vista-menu-list"))


def test_a_toggle_in_a_menu_shows_its_state(documents: Documents, open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents("gpt2"))
    _sized(viewer, 800)
    toggle = viewer.sel('button[data-control="transitions"]')
    assert viewer.page.get_attribute(toggle, "role") == "menuitemcheckbox"
    assert viewer.page.get_attribute(toggle, "aria-checked") == "false"
    viewer.click_control('button[data-control="transitions"]')
    viewer.page.wait_for_function("sel => document.querySelector(sel).getAttribute('aria-checked') === 'true'",
                                  arg=toggle)
    assert viewer.page.get_attribute(toggle, "aria-pressed") == "true"
    # Back on a wide toolbar, it is a plain toggle button again, still pressed.
    _sized(viewer, 1500)
    assert viewer.page.get_attribute(toggle, "role") is None
    assert viewer.page.get_attribute(toggle, "aria-checked") is None
    assert viewer.page.get_attribute(toggle, "aria-pressed") == "true"
