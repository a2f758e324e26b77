"""Decoding JSON that someone else wrote: a bad document is a clear ``DocumentError``, never a crash.

``json.loads`` raises ``RecursionError`` on arrays nested 100,000 deep and ``ValueError`` on a number of more
than 4,300 digits (Python's int-string limit); and a version string of 5,000 digits decodes fine, only to
crash ``packaging.version.Version`` later. :func:`loads` turns all of these into one error type, and
:func:`require` checks the shape of what was decoded.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_DIGIT_RUN", "DocumentError", "loads", "require"]

#: Deepest nesting accepted (envguard's own documents are under 10 deep).
MAX_DEPTH = 64
#: Longest run of decimal digits accepted in a string or number (any longer is no version or count).
MAX_DIGIT_RUN = 1000


class DocumentError(ValueError):
    """A JSON document that cannot be read, or is not of the expected shape."""


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGIT_RUN:
        raise DocumentError(f"has a number of {len(text)} digits")
    return int(text)


def loads(text: str | bytes) -> Any:  # reason: a decoded document, checked by the caller
    """``json.loads``, with nesting and number sizes bounded.

    :raises json.JSONDecodeError: not JSON (its position says where).
    :raises DocumentError: nested deeper than :data:`MAX_DEPTH`, or a digit run longer than
        :data:`MAX_DIGIT_RUN`.
    """
    try:
        doc = json.loads(text, parse_int=_parse_int)
    except RecursionError:
        raise DocumentError(f"is nested too deeply (more than {MAX_DEPTH} levels)") from None
    except json.JSONDecodeError:
        raise
    except DocumentError:
        raise
    except ValueError as exc:  # NOTE: e.g. a float literal too long for the int-string limit
        raise DocumentError(f"cannot be decoded: {str(exc)[:80]}") from None
    _check(doc)
    return doc


def _check(doc: Any) -> None:  # reason: any decoded JSON value
    """Iteratively: depth at most MAX_DEPTH, no digit run longer than MAX_DIGIT_RUN in any string."""
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            if depth > MAX_DEPTH:
                raise DocumentError(f"is nested too deeply (more than {MAX_DEPTH} levels)")
            stack.extend((k, depth + 1) for k in value)
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            if depth > MAX_DEPTH:
                raise DocumentError(f"is nested too deeply (more than {MAX_DEPTH} levels)")
            stack.extend((v, depth + 1) for v in value)
        elif isinstance(value, str) and len(value) > MAX_DIGIT_RUN and _longest_digit_run(value) > MAX_DIGIT_RUN:
            raise DocumentError(f"has a string with a run of more than {MAX_DIGIT_RUN} digits")


def _longest_digit_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if "0" <= char <= "9" else 0
        longest = max(longest, run)
    return longest


def require(doc: Any, kind: type | tuple[type, ...], what: str) -> Any:  # reason: see kind
    """``doc`` when it is an instance of ``kind``.

    :raises DocumentError: naming ``what`` and the type found.
    """
    if not isinstance(doc, kind):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        found = "null" if doc is None else type(doc).__name__
        raise DocumentError(f"{what} must be a JSON {names.replace('dict', 'object').replace('list', 'array')}, "
                            f"not {found}")
    return doc
