"""The display options of ``trace_model`` and ``VistaGraph``: checked once, then passed on.

Every check names the argument, shows the rejected value with ``!r`` and says what is allowed,
like vista-core's own input errors. Wrong types raise :class:`TypeError`, values of the right
type outside the allowed range raise :class:`ValueError`.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["DEFAULT_HEIGHT", "DEFAULT_WIDTH", "THEMES", "DisplayOptions", "Theme", "css_length"]

Theme = Literal["auto", "light", "dark"]
THEMES: tuple[Theme, ...] = ("auto", "light", "dark")

#: Height of the output frame in a notebook: tall enough for a few module boxes and the toolbar.
DEFAULT_HEIGHT = 600
#: Width of the output frame: the whole width of the output area.
DEFAULT_WIDTH = "100%"

_CSS_LENGTH = re.compile(r"(?:\d+(?:\.\d+)?|\.\d+)(?:px|em|rem|vh|vw|%|cm|mm|in|pt|pc|ch|ex)")


def css_length(name: str, value: object) -> str:
    """``value`` as a CSS length: an int is pixels, a str must be a number with a unit.

    ``name`` is the argument's name, used in the error message.
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(
            f"Invalid {name!r} argument: {value!r} (type {type(value).__name__}). Pass a number of "
            f"pixels such as {name}=600, or a CSS length such as {name}='80vh' or {name}='100%'."
        )
    if isinstance(value, int):
        if value <= 0:
            raise ValueError(
                f"Invalid {name!r} argument: {value!r}. A size in pixels must be a positive int, e.g. 600."
            )
        return f"{value}px"
    text = value.strip()
    if not _CSS_LENGTH.fullmatch(text) or float(re.sub(r"[a-z%]+$", "", text)) <= 0:
        raise ValueError(
            f"Invalid {name!r} argument: {value!r}. Pass a positive CSS length with a unit "
            "(px, em, rem, vh, vw, %, ...), e.g. '600px', '80vh' or '100%', or an int number of pixels."
        )
    return text


def _check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"Invalid {name!r} argument: {value!r} (type {type(value).__name__}). Pass True or False.")
    return value


def _check_depth(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"Invalid 'depth' argument: {value!r} (type {type(value).__name__}). Pass an int number of "
            "module levels to open at first (0 shows only the model's box, 1 its children, ...), or "
            "None for the viewer's default."
        )
    if value < 0:
        raise ValueError(f"Invalid 'depth' argument: {value!r}. The depth must be 0 or more, or None.")
    return value


def _check_theme(value: object) -> Theme:
    if not isinstance(value, str) or value not in THEMES:
        raise (ValueError if isinstance(value, str) else TypeError)(
            f"Invalid 'theme' argument: {value!r}. Pass one of {', '.join(map(repr, THEMES))}; 'auto' "
            "follows the browser's light or dark preference."
        )
    return value


@dataclass(frozen=True)
class DisplayOptions:
    """How a graph is shown: the viewer's options and the size of the notebook frame.

    ``height`` and ``width`` are CSS lengths of the output frame; the page inside fills it.
    Build with :meth:`create`, which checks every value.
    """

    depth: int | None = None
    theme: Theme = "auto"
    height: str = f"{DEFAULT_HEIGHT}px"
    width: str = DEFAULT_WIDTH
    show_parameters: bool = True
    show_constants: bool = True

    @classmethod
    def create(
        cls,
        *,
        depth: object = None,
        theme: object = "auto",
        height: object = DEFAULT_HEIGHT,
        width: object = DEFAULT_WIDTH,
        show_parameters: object = True,
        show_constants: object = True,
    ) -> DisplayOptions:
        """Check each option and return them; raises TypeError/ValueError naming a bad one."""
        return cls(
            depth=_check_depth(depth),
            theme=_check_theme(theme),
            height=css_length("height", height),
            width=css_length("width", width),
            show_parameters=_check_bool("show_parameters", show_parameters),
            show_constants=_check_bool("show_constants", show_constants),
        )

    def replace(self, **changes: Any) -> DisplayOptions:
        """These options with some changed (checked like :meth:`create`)."""
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            allowed = ", ".join(f.name for f in dataclasses.fields(self))
            raise TypeError(f"Unknown display option(s) {', '.join(map(repr, unknown))}; the options are: {allowed}.")
        merged: dict[str, Any] = dataclasses.asdict(self)
        merged.update(changes)
        return DisplayOptions.create(**merged)
