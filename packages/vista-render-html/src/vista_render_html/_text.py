"""Strings with lone surrogates: ``"\\udcff"`` is what ``os.fsdecode`` makes of a non-UTF-8 byte
in a file name, and model names and messages may hold any code point. A lone surrogate has no
UTF-8 encoding, so the page, a saved file or a notebook message cannot carry it as it is.

Data keeps it exactly (as a JSON ``\\u`` escape, which the viewer's ``JSON.parse`` reads back);
text shown as it is (a page title, a frame's name) gets U+FFFD, as a browser shows it; a line
for a terminal gets the escape, so a file name stays recognisable.
"""

from __future__ import annotations

import re

__all__ = ["json_utf8", "shown_text", "terminal_text"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_utf8(text: str) -> bytes:
    """JSON text as UTF-8, with each lone surrogate written as its ``\\uXXXX`` escape.

    Raw characters of JSON text only occur inside its strings, where the escape means the same
    code point; text without surrogates is encoded unchanged."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def shown_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (the replacement character)."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def terminal_text(text: str) -> str:
    """``text`` with each lone surrogate written as ``\\udcff`` (what ``repr`` shows), for a
    line printed to a terminal or log that expects UTF-8."""
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
