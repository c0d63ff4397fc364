"""``render_html`` and ``save_html``: a graph document into one self-contained HTML page.

The page is ``templates/page.html.jinja`` filled with the gzip+base64 bundle and graph, the
checked options (through ``|tojson``) and an autoescaped title. Same input, same bytes.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from vista_schema import host_theme_schema

from ._bundle import asset_payload, bundle_payload
from ._document import read_document
from ._embed import document_payload, payload_document
from ._exceptions import DocumentError
from ._font import font_payload
from ._options import PageOptions, check_options
from ._text import shown_text
from ._version import __version__

__all__ = ["read_html", "render_html", "save_html"]


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("vista_render_html", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def render_html(
    document: object,
    *,
    depth: int | None = None,
    theme: str = "auto",
    height: str | int = "100vh",
    title: str | None = None,
    show_parameters: bool = True,
    show_constants: bool = True,
) -> str:
    """One self-contained HTML page (UTF-8, no network) showing ``document`` in the viewer.

    ``document`` is a ``vista_core.Graph`` (or any object with ``to_dict()``), its dict, or
    its JSON text; never a model (trace it first with ``vista_core.trace``). A diff document
    (``vista_core.diff(a, b)``, a ``GraphDiff``, or its dict or text) is embedded the same way
    and the page shows the comparison. ``depth`` is the
    number of module levels open at first (None: the viewer's default); ``theme`` is
    ``"auto"`` (follow the system), ``"light"`` or ``"dark"``; ``height`` is the CSS height of
    the viewer (or pixels as an int); ``title`` defaults to one made from the model's class.
    ``show_parameters`` and ``show_constants`` draw parameter/buffer and constant nodes.

    Raises :class:`TypeError` for a value that is no document (such as a model),
    :class:`DocumentError` / :class:`SchemaVersionError` for an unreadable document, and
    :class:`ValueError` / :class:`TypeError` naming the option for a bad option value.
    """
    options = check_options(
        depth=depth,
        theme=theme,
        height=height,
        title=title,
        show_parameters=show_parameters,
        show_constants=show_constants,
    )
    data = read_document(document)
    return _render(data, options)


def save_html(
    document: object,
    path: str | os.PathLike[str],
    *,
    depth: int | None = None,
    theme: str = "auto",
    height: str | int = "100vh",
    title: str | None = None,
    show_parameters: bool = True,
    show_constants: bool = True,
) -> Path:
    """Write :func:`render_html`'s page to ``path`` (UTF-8) and return the resolved path.

    The parent directory must exist; an existing file is replaced.
    """
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes) or os.fspath(path) == "":
        raise TypeError(f"Invalid 'path' argument: {path!r}; pass a file path as str or pathlib.Path.")
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(f"Invalid 'path' argument: {os.fspath(path)!r} is a directory; pass a file path "
                                "such as 'model.html'.")
    if not target.parent.is_dir():
        raise FileNotFoundError(f"Invalid 'path' argument: the directory of {os.fspath(path)!r} does not exist; "
                                "create it first.")
    page = render_html(
        document,
        depth=depth,
        theme=theme,
        height=height,
        title=title,
        show_parameters=show_parameters,
        show_constants=show_constants,
    )
    target.write_text(page, encoding="utf-8", newline="\n")
    return target.resolve()


# The graph's element as page.html.jinja writes it; base64 has no "<", so the text ends at "</script>".
_GRAPH_ELEMENT = re.compile(r'<script type="application/octet-stream" data-vista="graph">([^<]*)</script>')


def read_html(page: str) -> dict[str, Any]:
    """The graph or diff document that a page of :func:`render_html` embeds, as a new dict.

    ``page`` is the page's text (``Path("model.html").read_text("utf-8")``). Raises
    :class:`DocumentError` when it is no Vista page or its graph cannot be read, and
    :class:`SchemaVersionError` when its document has a schema this renderer does not read.
    """
    if not isinstance(page, str):
        raise TypeError(f"Invalid 'page' argument: {type(page).__name__}; pass the page's HTML text as str "
                        "(Path(...).read_text(encoding='utf-8')).")
    found = _GRAPH_ELEMENT.findall(page)
    if len(found) != 1:
        raise DocumentError(f"This text is not a Vista page: it has {len(found)} embedded graph elements "
                            '(<script data-vista="graph">), not one. Pass the text of a page that '
                            "render_html, save_html or trace_model wrote, unchanged.")
    try:
        data = payload_document(found[0])
    except ValueError as exc:
        raise DocumentError(f"The page's embedded graph cannot be read: {exc}. The page was changed after it "
                            "was written; render it again from its model or graph document.") from exc
    # A JSON round trip: the packed form shares equal parts, a caller's edit must not reach its twins.
    return read_document(json.loads(json.dumps(data)))


def _render(data: dict[str, Any], options: PageOptions) -> str:
    template = _environment().get_template("page.html.jinja")
    return template.render(
        title=shown_text(options.title if options.title is not None else _default_title(data)),
        height=options.height,
        theme=options.theme,
        viewer_options=options.viewer_options(),
        bundle_b64=bundle_payload(),
        graphviz_b64=asset_payload("graphviz"),
        pdf_b64=asset_payload("pdf"),
        graph_b64=document_payload(data),
        font_b64=font_payload(data),
        generator=f"vista-render-html {__version__}",
        host_theme_type=_HOST_THEME["properties"]["type"]["const"],
        host_themes=_HOST_THEME["properties"]["theme"]["enum"],
    )


# The message a notebook posts in with its theme: the page's listener accepts what its schema says.
_HOST_THEME = host_theme_schema()


def _default_title(data: dict[str, Any]) -> str:
    if "diff_version" in data:
        before, after = (str(data[k]["modules"][0].get("class_name") or "model") for k in ("a", "b"))
        return f"{before} (diff) · Vista" if before == after else f"{before} → {after} (diff) · Vista"
    root = data["modules"][0]
    name = str(root.get("class_name") or "model")
    error = data.get("error")
    if isinstance(error, dict) and error.get("type"):
        return f"{name} ({error['type']}) · Vista"
    return f"{name} · Vista"
