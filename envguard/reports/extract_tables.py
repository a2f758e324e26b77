"""Markdown tables whose header names environment columns: "| ソースコード | Python | PyTorch | 備考 |" and one
row per environment tried (litagin02/Style-Bert-VITS2#185: three Python/PyTorch combinations, one per row).

A header row, the ``| --- |`` separator under it, then rows; a column counts when its header is one of the
names below, and a cell when it holds a version of that column's shape. Each row's values carry the row's line,
PROSE tier: a table is what the reporter typed, and a table of documentation ("the compatibility table from the
docs") is not the reporter's machine, so a table introduced by such words within the three lines above it is not
read, and a table never outranks what the report's tools or fields state. Every pattern is bounded (linear time).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envguard.reports.mentions import PROSE, Mention

__all__ = ["EXTRACTORS", "table_facts"]

_ROW = re.compile(r"^\s{0,3}\|(.{1,800})\|\s*$")
_SEPARATOR = re.compile(r"^\s{0,3}\|?(?:\s{0,3}:?-{3,}:?\s{0,3}\|){1,20}\s{0,3}(?::?-{3,}:?\s{0,3})?$")
#: Header (lower-cased, "version" dropped) -> (mention kind, package key, the cell's version shape).
_COLUMNS: dict[str, tuple[str, str, str]] = {
    "python": ("python", "", r"3\.\d{1,2}(?:\.\d{1,3})?"),
    "pytorch": ("package", "torch", r"\d\.\d{1,2}(?:\.\d{1,2})?(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]{1,6}))?"),
    "torch": ("package", "torch", r"\d\.\d{1,2}(?:\.\d{1,2})?(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]{1,6}))?"),
    "tensorflow": ("package", "tensorflow", r"\d\.\d{1,2}(?:\.\d{1,2})?"),
    "cuda": ("cuda_text", "", r"\d{1,2}\.\d(?:\.\d{1,3})?"),
    "cudnn": ("cudnn", "", r"\d{1,2}\.\d{1,2}(?:\.\d{1,3})?"),
    "driver": ("driver", "", r"\d{3}\.\d{1,3}(?:\.\d{1,3})?"),
    "nvidia driver": ("driver", "", r"\d{3}\.\d{1,3}(?:\.\d{1,3})?"),
}
_MAX_ROWS = 40
#: Words before a table that make it a reference, not the reporter's environment.
_REFERENCE = re.compile(r"\b(?:compatib\w{0,8}|support(?:ed)?\s{1,2}(?:versions?|matrix)|matrix|docs?|documentation|"
                        r"requirements?|official|recommended|for reference)\b", re.IGNORECASE)
#: The compiled cell shape of each column kind.
_SHAPES = {key: re.compile(rf"v?({shape})") for key, (_kind, _package, shape) in _COLUMNS.items()}


def _cells(line: str) -> list[str]:
    found = _ROW.match(line)
    return [c.strip() for c in found.group(1).split("|")] if found else []


def table_facts(lines: list[str], offset: int) -> Iterator[Mention]:
    """Versions in the environment columns of each markdown table (see the module docstring)."""
    i = 0
    while i + 1 < len(lines):
        header = _cells(lines[i]) if "|" in lines[i] and len(lines[i]) <= 800 else []
        columns: dict[int, tuple[str, str]] = {}
        for index, name in enumerate(header):
            key = " ".join(name.lower().replace("version", "").replace("*", "").split())
            if key in _COLUMNS:
                columns[index] = (name, key)
        if not columns or not _SEPARATOR.match(lines[i + 1]) \
                or any(_REFERENCE.search(before) for before in lines[max(0, i - 3):i]):
            i += 1
            continue
        j = i + 2
        while j < len(lines) and j - i - 2 < _MAX_ROWS and (row := _cells(lines[j])):
            for index, (name, key) in columns.items():
                kind, package, _shape = _COLUMNS[key]
                cell = row[index] if index < len(row) else ""
                value = _SHAPES[key].fullmatch(cell)
                if value:
                    yield Mention(kind, value.group(1), offset + j + 1, PROSE, f"table column {name}", package)
            j += 1
        i = j


EXTRACTORS = (table_facts,)
