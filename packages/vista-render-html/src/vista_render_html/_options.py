"""The page options: the viewer's options checked against vista-schema's viewer-options JSON
Schema (the one home of those rules, shared with vista-jupyter and the viewer's types), the
page's own title checked here; then passed to the viewer's ``mount()`` as JSON.

Every check names the argument, shows the bad value with ``!r`` and says what is allowed,
so that a typo fails when the page is made rather than as a blank page in the browser. A value
of the wrong type raises :class:`TypeError`, a value of the right type out of range
:class:`ValueError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast

from vista_schema import check_viewer_options

__all__ = ["PageOptions", "check_options"]

Theme = Literal["auto", "light", "dark"]
_MAX_TITLE = 500


@dataclass(frozen=True)
class PageOptions:
    """Checked options of one page."""

    depth: int | None
    theme: Theme
    height: str
    title: str | None
    show_parameters: bool
    show_constants: bool

    def viewer_options(self) -> dict[str, Any]:
        """The ``ViewerOptions`` object given to ``VistaViewer.mount()`` (see the contract)."""
        options: dict[str, Any] = {
            "theme": self.theme,
            "showParameters": self.show_parameters,
            "showConstants": self.show_constants,
            # The page sizes the container; the viewer fills it.
            "height": "100%",
        }
        if self.depth is not None:
            options["depth"] = self.depth
        return options


def check_options(
    *,
    depth: object,
    theme: object,
    height: object,
    title: object,
    show_parameters: object,
    show_constants: object,
) -> PageOptions:
    """Check every option and return them as :class:`PageOptions`."""
    viewer = check_viewer_options(depth=depth, theme=theme, height=height, show_parameters=show_parameters,
                                  show_constants=show_constants)
    return PageOptions(
        depth=viewer.get("depth"),
        theme=cast(Theme, viewer["theme"]),
        height=viewer["height"],
        title=_check_title(title),
        show_parameters=viewer["showParameters"],
        show_constants=viewer["showConstants"],
    )


def _check_title(title: object) -> str | None:
    if title is None or (isinstance(title, str) and len(title) <= _MAX_TITLE):
        return title
    raise (ValueError if isinstance(title, str) else TypeError)(
        f"Invalid 'title' argument: {_short(title)}; pass None for a title made from the model's "
        f"class name, or a str of at most {_MAX_TITLE} characters."
    )


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
