"""The page options: checked in Python, then passed to the viewer's ``mount()`` as JSON.

Every check names the argument, shows the bad value with ``!r`` and says what is allowed,
so that a typo fails when the page is made rather than as a blank page in the browser. A value
of the wrong type raises :class:`TypeError`, a value of the right type out of range
:class:`ValueError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["THEMES", "PageOptions", "check_options"]

Theme = Literal["auto", "light", "dark"]
THEMES: tuple[Theme, ...] = ("auto", "light", "dark")

# A CSS length: a positive number with a unit, e.g. "600px", "80vh", "100%".
_CSS_LENGTH = re.compile(r"(?:\d+(?:\.\d+)?|\.\d+)(?:px|em|rem|vh|vw|vmin|vmax|dvh|svh|lvh|cm|mm|in|pt|pc|ch|ex|%)")
_MAX_DEPTH = 1000
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
    return PageOptions(
        depth=_check_depth(depth),
        theme=_check_theme(theme),
        height=_check_height(height),
        title=_check_title(title),
        show_parameters=_check_flag("show_parameters", show_parameters),
        show_constants=_check_flag("show_constants", show_constants),
    )


def _check_depth(depth: object) -> int | None:
    if depth is None:
        return None
    is_int = isinstance(depth, int) and not isinstance(depth, bool)
    if isinstance(depth, int) and is_int and 0 <= depth <= _MAX_DEPTH:
        return depth
    raise (ValueError if is_int else TypeError)(
        f"Invalid 'depth' argument: {_short(depth)}; pass None for the viewer's default or an int from 0 "
        f"(only the model box) to {_MAX_DEPTH} (the number of module levels initially open)."
    )


def _check_theme(theme: object) -> Theme:
    for allowed in THEMES:
        if isinstance(theme, str) and theme == allowed:
            return allowed
    raise (ValueError if isinstance(theme, str) else TypeError)(
        f"Invalid 'theme' argument: {_short(theme)}; pass one of {', '.join(map(repr, THEMES))}."
    )


def _check_height(height: object) -> str:
    if isinstance(height, int) and not isinstance(height, bool) and height > 0:
        return f"{height}px"
    if isinstance(height, str) and _CSS_LENGTH.fullmatch(height.strip()):
        return height.strip()
    raise (ValueError if isinstance(height, (str, int)) else TypeError)(
        f"Invalid 'height' argument: {_short(height)}; pass a CSS length such as '100vh', '600px' or "
        "'80%', or a positive int of pixels."
    )


def _check_title(title: object) -> str | None:
    if title is None or (isinstance(title, str) and len(title) <= _MAX_TITLE):
        return title
    raise (ValueError if isinstance(title, str) else TypeError)(
        f"Invalid 'title' argument: {_short(title)}; pass None for a title made from the model's "
        f"class name, or a str of at most {_MAX_TITLE} characters."
    )


def _check_flag(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise TypeError(f"Invalid {name!r} argument: {_short(value)}; pass True or False.")


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
