"""Segment a report: normalise its lines, and split it when it describes more than one environment."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Longest line envguard matches patterns against (a log line can be megabytes; the facts are near its start).
MAX_LINE_CHARS = 4000
#: Lines envguard reads from one report (a pasted log can be very long; its environment facts come early).
MAX_LINES = 50_000


def normalize_report(text: str) -> list[str]:
    """Lines with quote markers, full-width punctuation, non-breaking spaces and fences removed; each line cut
    at MAX_LINE_CHARS. Line numbers stay those of the text as pasted."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\uff1a", ":").replace("\u00a0", " ").replace("\u3000", " ").replace("\ufeff", "")
    out = []
    for raw in text.split("\n")[:MAX_LINES]:
        line = raw[:MAX_LINE_CHARS].rstrip()
        while line.startswith(">"):
            line = line[1:].lstrip() if line[1:2] in (" ", "") else line[1:]
        if line.strip().startswith("```"):
            line = ""
        out.append(line)
    return out


@dataclass(frozen=True, slots=True)
class Environment:
    """A part of a report that describes one environment: lines ``start``..``end`` (0-based, end exclusive)."""

    index: int
    start: int
    end: int

    def label(self, count: int) -> str:
        return f"environment {self.index + 1} of {count} (report lines {self.start + 1}-{self.end})"


#: Lines that open the description of one whole environment: collect_env's first lines, an ultralytics/YOLO
#: banner, jax.print_environment_info()'s first line, TensorFlow's env-capture header.
_ANCHOR = re.compile(
    r"^\s*(?:Collecting environment information|PyTorch version:\s*\S"
    r"|(?:Ultralytics\s+)?YOLOv?\d+\S*\s+\S+\s+Python-\d|jax:\s+\d+\.\d+|== tensorflow import ==)",
)
#: The facts that tell two environments apart.
_DISTINCT = re.compile(r"PyTorch version:\s*(\S+)|torch-(\d\S*)|jax:\s+(\S+)|tf\.version\.VERSION\s*=?\s*(\S+)")


def split_environments(lines: list[str]) -> list[Environment]:
    """One Environment per anchor when the anchors name different versions; otherwise the whole report.

    The lines before the first anchor (the prose around the pastes) belong to the first environment.
    """
    anchors: list[int] = []
    for i, line in enumerate(lines):
        if _ANCHOR.match(line) and not (anchors and i - anchors[-1] <= 3 and "PyTorch version" in line):
            anchors.append(i)
    if len(anchors) < 2:
        return [Environment(0, 0, len(lines))]
    bounds = [0, *anchors[1:], len(lines)]
    parts = [Environment(i, bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
    seen = [_versions(lines[p.start:p.end]) for p in parts]
    if len({v for v in seen if v}) < 2:
        return [Environment(0, 0, len(lines))]
    return parts


def _versions(lines: list[str]) -> str:
    for line in lines:
        found = _DISTINCT.search(line)
        if found:
            return next(g for g in found.groups() if g)
    return ""
