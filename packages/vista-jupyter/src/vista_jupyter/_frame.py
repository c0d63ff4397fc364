"""The notebook output: the self-contained page inside a sandboxed ``<iframe srcdoc>``.

Why a frame: notebook hosts differ (JupyterLab 4 and Notebook 7 put outputs in the page,
VS Code in a webview where an AMD ``define`` may exist, Colab in one iframe per output). A
frame of its own gives the viewer a fresh document in every one of them: it reads no page
globals, its styles and scripts cannot touch the host page, and several outputs in one
notebook cannot see each other.

The sandbox allows scripts (the viewer) and downloads (its SVG/PNG/PDF exports) and nothing
else: without ``allow-same-origin`` the page runs in an opaque origin, so it cannot reach the
notebook's cookies, storage or DOM.
"""

from __future__ import annotations

import html

__all__ = ["SANDBOX", "iframe_html"]

#: What the framed page may do: run its own scripts and save exported files.
SANDBOX = "allow-scripts allow-downloads"


def iframe_html(page: str, *, height: str, width: str, title: str) -> str:
    """An ``<iframe>`` element showing ``page`` (a full HTML document) at the given CSS size.

    The page goes into the ``srcdoc`` attribute escaped as attribute text, so nothing in it
    (quotes, ``</iframe>``, model names) can end the attribute or the element early.
    ``height``/``width`` must already be checked CSS lengths (see ``_options.css_length``).
    """
    style = f"width: {width}; height: {height}; border: 0; display: block; max-width: 100%;"
    return (
        f'<iframe class="vista-frame" title="{html.escape(title, quote=True)}" '
        f'sandbox="{SANDBOX}" style="{style}" '
        f'srcdoc="{html.escape(page, quote=True)}"></iframe>'
    )
