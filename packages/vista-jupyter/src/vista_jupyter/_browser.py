"""Outside a notebook (plain ``python script.py``, IPython in a terminal) a graph is shown as
Plotly's ``show()`` shows a figure there: its page is written to a file of its own and opened
in the default browser, and one short line on stderr says where. Never the HTML itself.

``VISTA_NO_BROWSER=1`` (for CI) writes the file and says where but opens nothing. So does a
Linux machine without a graphical display, unless ``BROWSER`` names one: Python's
``webbrowser`` would otherwise start a console browser (lynx, w3m) in the terminal.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import webbrowser
from collections.abc import Callable
from pathlib import Path

from vista_render_html._text import terminal_text

__all__ = ["NO_BROWSER_ENV", "open_page"]

#: Set to anything but "", "0", "false" or "no" to keep the browser closed.
NO_BROWSER_ENV = "VISTA_NO_BROWSER"


def open_page(write: Callable[[Path], Path], name: str) -> Path:
    """Write a page with ``write(path)`` to a new file in the temporary folder, open it in the
    browser where one can be opened, say so in one line, and return the file's path.

    A new file for every call, so a page open in a tab is never overwritten."""
    label = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:60] or "graph"
    try:
        handle, temporary = tempfile.mkstemp(prefix=f"vista-{label}-", suffix=".html")
        os.close(handle)
        path = write(Path(temporary))
    except OSError as exc:
        raise OSError(
            f"Vista could not write the page of {name} to the temporary folder "
            f"({tempfile.gettempdir()}): {exc}. Save it where you choose with .save('model.html'), "
            "or pass display=False."
        ) from exc
    if _may_open() and webbrowser.open(path.as_uri()):
        line = f"Vista: opened the graph of {name} in your browser ({path})"
    else:
        line = f"Vista: wrote the graph of {name} to {path}; open it in a browser"
    print(terminal_text(line), file=sys.stderr)
    return path


def _may_open() -> bool:
    if os.environ.get(NO_BROWSER_ENV, "").strip().lower() not in ("", "0", "false", "no"):
        return False
    if sys.platform in ("darwin", "win32") or os.environ.get("BROWSER"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
