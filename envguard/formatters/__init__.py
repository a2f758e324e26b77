"""FORMATTERS: the output formats a command can render."""

from __future__ import annotations

from collections.abc import Callable

from envguard.formatters.base import Formatter
from envguard.formatters.json import JsonFormatter
from envguard.formatters.markdown import MarkdownFormatter
from envguard.formatters.text import TextFormatter

__all__ = ["FORMATTERS", "Formatter", "make_formatter"]

FORMATTERS: dict[str, Callable[[bool, int], Formatter]] = {
    "text": lambda color, width: TextFormatter(color=color, width=width),
    "json": lambda _color, _width: JsonFormatter(),
    "markdown": lambda _color, _width: MarkdownFormatter(),
}


def make_formatter(name: str, *, color: bool = False, width: int = 100) -> Formatter:
    """The formatter registered as ``name`` (``width`` applies to text).

    :raises KeyError: for an unknown format.
    """
    return FORMATTERS[name](color, width)
