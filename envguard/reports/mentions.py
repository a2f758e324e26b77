"""Typed mentions: one fact a report states, where it states it, and how much that shape is to be trusted."""

from __future__ import annotations

from dataclasses import dataclass

#: Tiers, strongest first. A fact is taken from the strongest tier that states it; a weaker tier never
#: overrides a stronger one, and two values of the same tier that disagree become a note.
TOOL = 4  #: output of a tool (collect_env, nvidia-smi, nvcc, pip/conda listings, envguard JSON, /proc)
FIELD = 3  #: a field of an issue template ("- TensorFlow version: 2.15"), an environment line (KEY=VALUE)
MESSAGE = 2  #: a version a program printed in a message or banner; a wheel file name; an image tag; a command
PROSE = 1  #: a sentence ("I use CUDA 11.2 and cudnn 8.0.5")


@dataclass(frozen=True, slots=True)
class Mention:
    """``kind`` (e.g. "driver", "python", "gpu", "package") has ``value``, said on report ``line`` (1-based)."""

    kind: str
    value: str
    line: int
    tier: int
    #: How it was read ("collect_env: Nvidia driver version", "nvidia-smi table", "wheel file name" ...).
    how: str
    #: For kind "package": the distribution name; for "gpu": memory in MiB or compute capability as "mem|cc".
    key: str = ""

    @property
    def source(self) -> str:
        """The evidence source envguard shows: the report line and the shape it was read from."""
        return f"report line {self.line}: {self.how}"
