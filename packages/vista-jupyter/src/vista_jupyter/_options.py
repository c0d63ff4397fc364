"""The display options of ``trace_model`` and ``VistaGraph``: checked once, then passed on.

The viewer's options are checked against vista-schema's viewer-options JSON Schema, the one
home of those rules (render_html and the viewer's types use the same); ``width``, the notebook
frame's own, is the same schema's CSS length. Every check names the argument, shows the
rejected value with ``!r`` and says what is allowed. Wrong types raise :class:`TypeError`,
values of the right type outside the allowed range raise :class:`ValueError`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, cast

from vista_schema import check_css_length, check_viewer_options, viewer_options_schema

__all__ = ["DEFAULT_HEIGHT", "DEFAULT_WIDTH", "THEMES", "DisplayOptions", "Theme"]

Theme = Literal["auto", "light", "dark"]
#: The themes the viewer-options schema allows, in its order.
THEMES: tuple[Theme, ...] = tuple(viewer_options_schema()["properties"]["theme"]["enum"])

#: Height of the output frame in a notebook: tall enough for a few module boxes and the toolbar.
DEFAULT_HEIGHT = 600
#: Width of the output frame: the whole width of the output area.
DEFAULT_WIDTH = "100%"


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
        viewer = check_viewer_options(depth=depth, theme=theme, height=height, show_parameters=show_parameters,
                                      show_constants=show_constants)
        return cls(
            depth=viewer.get("depth"),
            theme=cast(Theme, viewer["theme"]),
            height=viewer["height"],
            width=check_css_length("width", width),
            show_parameters=viewer["showParameters"],
            show_constants=viewer["showConstants"],
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
