"""Segment a report: normalise its lines, and split it when it describes more than one environment."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from envguard.reports.mentions import MESSAGE, Mention

#: Longest line envguard matches patterns against (a log line can be megabytes; the facts are near its start).
MAX_LINE_CHARS = 65536
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
            # NOTE: a fence is blank, but text pasted right after it on the same line ("```Jax plugin configuration
            # error: ...") is a line of the report; a word alone is the fence's language tag ("```bash").
            rest = line.strip().lstrip("`").strip()
            line = rest if " " in rest else ""
        out.append(line)
    return out


@dataclass(frozen=True, slots=True)
class Environment:
    """A part of a report that describes one environment: its line ranges (0-based, end exclusive)."""

    index: int
    ranges: tuple[tuple[int, int], ...]
    #: What tells it apart ("torch 2.3.1+cu121"), "" for a report of one environment.
    key: str = ""

    def holds(self, line: int) -> bool:
        """Whether report line ``line`` (1-based) belongs here."""
        return any(a < line <= b for a, b in self.ranges)

    def label(self, count: int) -> str:
        spans = ", ".join(f"{a + 1}-{b}" for a, b in self.ranges)
        return f"environment {self.index + 1} of {count} ({self.key}; report lines {spans})"


#: Mention kinds that name the framework build an environment is about (a second, different value of one of
#: them in a later part of the report is a second environment: "works with A, fails with B", before/after).
_KEY_KINDS = ("torch", "tf")
_KEY_PACKAGES = ("torch", "pytorch", "tensorflow", "tensorflow-gpu", "tensorflow-cpu", "jaxlib", "paddlepaddle-gpu",
                 "paddlepaddle")


#: A line that only separates parts of a post: "------", "=====", "*****", "___".
_SEPARATOR = re.compile(r"^\s{0,4}(?:-{3,}|={3,}|\*{3,}|_{3,})\s*$")


def split_environments(count: int, mentions: list[Mention], lines: Sequence[str] = ()) -> list[Environment]:
    """Environments of a report of ``count`` lines, told apart by the framework versions its tool output, fields
    and banners state. Lines before the first such statement belong to the first environment; parts that state
    the same version again belong to the same environment. A part begins at the separator line ("-----") between
    the previous part's last statement and its own first one, when there is one: the words that introduce the
    second environment ("I have another container built from ...") come before its output."""
    keys: list[tuple[int, str]] = []
    # NOTE: a conda listing states torch's build on the package's own line ("pytorch 1.11.0 py3.8_cpu_0"): two
    # listings of one version with different builds are two environments too.
    builds = {m.line: "cpu" if m.kind == "torch_cuda_none" else "cu" + m.value.replace(".", "")
              for m in mentions if m.kind in ("torch_cuda", "torch_cuda_none") and m.tier >= MESSAGE}
    for m in sorted(mentions, key=lambda m: m.line):
        if m.tier < MESSAGE:
            continue
        if m.kind in _KEY_KINDS or (m.kind == "package" and m.key in _KEY_PACKAGES):
            name = {"tf": "tensorflow", "pytorch": "torch"}.get(m.key or m.kind, m.key or m.kind)
            value = m.value
            if name == "torch" and "+" not in value and m.line in builds:
                value = f"{value}+{builds[m.line]}"
            keys.append((m.line, f"{name.split('-')[0]} {value}"))
    by_framework: dict[str, list[tuple[int, str]]] = {}
    for line, key in keys:
        by_framework.setdefault(key.split()[0], []).append((line, key))
    chosen = next((runs for runs in by_framework.values()
                   if any(not _same(runs[0][1], key) for _l, key in runs)), None)
    if chosen is None:
        return [Environment(0, ((0, count),))]
    starts: list[tuple[int, str]] = []
    last = 0
    for line, key in chosen:
        if not starts or _same(starts[-1][1], key) is False:
            start = line - 1
            if starts:
                start = next((i for i in range(start - 1, last - 1, -1) if i < len(lines)
                              and _SEPARATOR.match(lines[i])), start)
            starts.append((start, key))
        last = line
    values: list[str] = []
    for _line, key in starts:
        if not any(_same(v, key) for v in values):
            values.append(key)
    bounds = [0] + [line for line, _k in starts[1:]] + [count]
    ranges: dict[str, list[tuple[int, int]]] = {v: [] for v in values}
    for i, (_line, key) in enumerate(starts):
        home = next(v for v in values if _same(v, key))
        ranges[home].append((bounds[i], bounds[i + 1]))
    return [Environment(i, tuple(ranges[v]), v) for i, v in enumerate(values)]


def _same(a: str, b: str) -> bool:
    """"torch 1.3" and "torch 1.3.1+cu101" name the same build (one is only less precise); "torch 1.11.0+cpu"
    and "torch 1.11.0+cu113" do not (both state their build, and the builds differ)."""
    (x, _, la), (y, _, lb) = a.partition("+"), b.partition("+")
    if la and lb and la != lb:
        return False
    return x == y or x.startswith(y + ".") or y.startswith(x + ".")
