"""Display options are checked before the model runs; errors name the option and the value."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from vista_jupyter import DisplayOptions, trace_model


class CountingModel(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return x * 2


@pytest.mark.parametrize(
    ("option", "value", "error", "allowed"),
    [
        ("depth", -1, ValueError, "an int from 0 up"),
        ("depth", "2", TypeError, "int"),
        ("depth", True, TypeError, "int"),
        ("depth", 1.5, TypeError, "int"),
        ("theme", "blue", ValueError, "'auto', 'light', 'dark'"),
        ("theme", None, TypeError, "'auto', 'light', 'dark'"),
        ("height", 0, ValueError, "positive"),
        ("height", -300, ValueError, "positive"),
        ("height", "tall", ValueError, "CSS length"),
        ("height", "600", ValueError, "CSS length"),
        ("height", "0px", ValueError, "positive"),
        ("height", "600px; background: red", ValueError, "CSS length"),
        ("height", 1.5, TypeError, "pixels"),
        ("height", True, TypeError, "pixels"),
        ("width", "wide", ValueError, "CSS length"),
        ("width", [100], TypeError, "pixels"),
        ("show_parameters", "yes", TypeError, "True or False"),
        ("show_constants", 1, TypeError, "True or False"),
        ("display", "no", TypeError, "True or False"),
    ],
)
def test_bad_option_is_named_and_model_not_run(option: str, value: Any, error: type[Exception], allowed: str) -> None:
    model = CountingModel()
    with pytest.raises(error) as info:
        trace_model(model, torch.ones(2), **{option: value})
    message = str(info.value)
    assert f"'{option}'" in message
    assert repr(value) in message
    assert allowed in message
    assert model.calls == 0


@pytest.mark.parametrize(
    ("given", "css"),
    [(600, "600px"), ("80vh", "80vh"), (" 100% ", "100%"), ("12.5em", "12.5em"), (".5in", ".5in")],
)
def test_sizes_become_css_lengths(given: int | str, css: str) -> None:
    assert DisplayOptions.create(height=given).height == css
    assert DisplayOptions.create(width=given).width == css


def test_defaults() -> None:
    options = DisplayOptions.create()
    assert options == DisplayOptions()
    assert (options.depth, options.theme, options.height, options.width) == (None, "auto", "600px", "100%")
    assert options.show_parameters
    assert options.show_constants


def test_replace_checks_and_rejects_unknown_names() -> None:
    options = DisplayOptions.create(depth=2)
    assert options.replace(theme="dark") == DisplayOptions.create(depth=2, theme="dark")
    with pytest.raises(ValueError, match="'theme'"):
        options.replace(theme="sepia")
    with pytest.raises(TypeError, match=r"'colour'.*the options are: depth, theme"):
        options.replace(colour="red")


@pytest.mark.parametrize("kwargs", [{"depth": 5000}, {"height": "10vmin"}, {"height": "0.5dvh"}, {"height": 1}])
def test_render_html_and_trace_model_take_the_same_options(kwargs: dict[str, Any]) -> None:
    # Both read vista-schema's viewer-options schema: what one takes, the other takes.
    import vista_core
    from vista_render_html import render_html

    graph = vista_core.trace(CountingModel(), torch.ones(2))
    render_html(graph, **kwargs)
    DisplayOptions.create(**kwargs)
    trace_model(CountingModel(), torch.ones(2), display=False, **kwargs)


@pytest.mark.parametrize("kwargs", [{"height": "0px"}, {"depth": -1}, {"height": "10 vmin"}, {"theme": "Dark"},
                                    {"show_constants": 0}])
def test_render_html_and_trace_model_refuse_alike(kwargs: dict[str, Any]) -> None:
    import vista_core
    from vista_render_html import render_html

    model = CountingModel()
    graph = vista_core.trace(model, torch.ones(2))
    with pytest.raises((TypeError, ValueError)) as from_page:
        render_html(graph, **kwargs)
    with pytest.raises(type(from_page.value)) as from_trace:
        trace_model(model, torch.ones(2), display=False, **kwargs)
    assert str(from_page.value) == str(from_trace.value)
    assert model.calls == 1  # the options were refused before the model ran again
