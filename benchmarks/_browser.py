"""Headless Chromium for the page benchmarks, set up so that the harness stays out of what it times.

Every page (Vista's and torchvista's) is opened the same way by :func:`open_page`:

- no request interception: a route handler would hold each request (the page's own file
  included) until the Python side lets it through, which lands in the page's timeline. The
  network is cut at Chromium's resolver instead (``--host-resolver-rules``) and every request
  bound for it is recorded from the ``request`` event, which holds nothing;
- the navigation is awaited only until it commits, and the page is then polled with a one-line
  ``Runtime.evaluate`` over CDP until its probe has fired. Playwright's own waits
  (``wait_for_selector``, ``wait_for_function``, ``evaluate``) first inject Playwright's script
  library into the page, a main-thread task of 10-25 ms that would fall into the middle of a
  load still in progress;
- the time is taken inside the page by an init script (``performance.now()``, from the start of
  the navigation) when the tool's own "drawn" condition first holds.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM_FLAGS", "LOCAL", "VIEWPORT", "Loaded", "launch", "open_page"]

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  # No network: every host name fails to resolve (file:, data: and blob: need none).
                  "--host-resolver-rules=MAP * ~NOTFOUND"]
LOCAL = ("file:", "about:", "data:", "blob:")
VIEWPORT = {"width": 1400, "height": 900}

# Sets globalThis.__benchDrawnAt (ms from navigation start) the first time CONDITION holds,
# checked after every DOM change (nodes added, or a data-state attribute changed).
_PROBE = """
(() => {
  const check = () => {
    if (globalThis.__benchDrawnAt === undefined && (CONDITION))
      globalThis.__benchDrawnAt = performance.now();
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true,
                                                  attributeFilter: ['data-state'] });
})();
"""


@dataclass
class Loaded:
    """A page opened by :func:`open_page`: its tab, when it was drawn, what went wrong."""

    context: Any
    tab: Any
    drawn_ms: float
    network: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def close(self) -> None:
        self.context.close()


def launch(playwright: Any, chromium: str | None = None) -> Any:
    """Debian's Chromium, headless, without network."""
    executable = chromium or shutil.which("chromium")
    if executable is None:
        raise RuntimeError("Debian's chromium is needed: apt-get install -y chromium")
    return playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)


def open_page(browser: Any, path: Path, condition: str, *, timeout_ms: float = 120_000,
              poll_s: float = 0.02) -> Loaded:
    """Open ``path`` in a fresh context and wait until the JavaScript expression ``condition``
    (checked on every DOM change) holds; :class:`TimeoutError` when it does not within
    ``timeout_ms``. The caller closes the returned page (``Loaded.close``)."""
    context = browser.new_context(viewport=VIEWPORT)
    network: list[str] = []
    errors: list[str] = []
    try:
        tab = context.new_page()
        tab.on("request", lambda request: None if request.url.startswith(LOCAL) else network.append(request.url))
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.add_init_script(_PROBE.replace("CONDITION", condition))
        cdp = context.new_cdp_session(tab)
        tab.goto(path.as_uri(), wait_until="commit", timeout=timeout_ms)
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            # Until the new document runs its init script, this reads the old one's (undefined).
            reply = cdp.send("Runtime.evaluate", {"expression": "globalThis.__benchDrawnAt", "returnByValue": True})
            drawn = reply.get("result", {}).get("value")
            if isinstance(drawn, (int, float)):
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"{path.name}: not drawn within {timeout_ms / 1000:.0f} s "
                                   f"(waited for {json.dumps(condition)})")
            time.sleep(poll_s)
        cdp.detach()
    except BaseException:
        context.close()
        raise
    return Loaded(context, tab, float(drawn), network, errors)
