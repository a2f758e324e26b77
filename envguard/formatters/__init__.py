"""FORMATTERS: the output formats a command can render."""

from __future__ import annotations

from collections.abc import Callable

from envguard.formatters.base import Formatter
from envguard.formatters.json import JsonFormatter
from envguard.formatters.markdown import MarkdownFormatter
from envguard.formatters.text import TextFormatter

__all__ = ["FORMATTERS", "Formatter", "make_formatter"]

FORMATTERS: dict[str, Callable[[bool], Formatter]] = {
    "text": lambda color: TextFormatter(color=color),
    "json": lambda _color: JsonFormatter(),
    "markdown": lambda _color: MarkdownFormatter(),
}


def make_formatter(name: str, *, color: bool = False) -> Formatter:
    """The formatter registered as ``name``.

    :raises KeyError: for an unknown format.
    """
    return FORMATTERS[name](color)
