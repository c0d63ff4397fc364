"""The notebook output frame: the page travels intact in srcdoc, nothing escapes the attribute."""

from __future__ import annotations

import pytest
from jupyter_pages import parse_frames

from vista_jupyter._frame import _HOST_THEME_SCRIPT, SANDBOX, iframe_html

HOSTILE = (
    '<!doctype html><p title="a">x</p></iframe><script>parent.document.body.remove()</script>'
    "&amp; &lt; 'single' \"double\" \u00e9\u2603 \x3c/script>"
)


@pytest.mark.parametrize("page", [HOSTILE, "", "<html><body>plain</body></html>"])
def test_page_round_trips_through_srcdoc(page: str) -> None:
    html_text = iframe_html(page, height="600px", width="100%", title='Vista graph of "Net" <b>')
    frames, tags = parse_frames(html_text)
    assert tags == ["iframe", "script"]  # the page's own tags stay inside the attribute
    assert html_text.endswith("</iframe>" + _HOST_THEME_SCRIPT)  # then the fixed theme script, nothing of the page
    assert frames[0]["srcdoc"] == page
    assert frames[0]["title"] == 'Vista graph of "Net" <b>'
    assert frames[0]["sandbox"] == SANDBOX == "allow-scripts allow-downloads"
    assert "allow-same-origin" not in html_text


def test_size_goes_into_the_style() -> None:
    (frame,), _ = parse_frames(iframe_html("<p>", height="42vh", width="300px", title="t"))
    assert frame["style"] == "width: 300px; height: 42vh; border: 0; display: block; max-width: 100%;"
