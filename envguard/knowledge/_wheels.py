"""NVIDIA wheel version ranges, shared by cudnn.toml and nccl.toml."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from packaging.version import InvalidVersion, Version

from envguard.knowledge._base import (
    PROV_KEYS,
    Collector,
    Provenance,
    check_unique,
)


@dataclass(frozen=True, slots=True)
class WheelRange:
    """The versions one NVIDIA-published wheel distribution (nvidia-cudnn-cu12 ...) is known in."""

    distribution: str
    cuda_major: int
    #: First version published under this name; None when unknown.
    first: Version | None
    #: Last version that will be published under this name (the series is closed); None while open/unknown.
    last: Version | None
    #: Newest version seen when the matrix was retrieved (open series only).
    newest_seen: Version | None
    prov: Provenance

    def covers(self, version: str) -> bool | None:
        """True when ``version`` lies in the known range, False outside it, None when the range cannot tell."""
        try:
            v = Version(version)
        except InvalidVersion:
            return None
        if self.first is not None and v < self.first:
            return False
        top = self.last or self.newest_seen
        if top is not None and v > top:
            return False if self.last is not None else None
        return True if self.first is not None or top is not None else None


_WHEEL_KEYS: Final = {"distribution", "cuda_major", "first", "last", "newest_seen"}
_WHEEL_NAME = re.compile(r"^nvidia-[a-z0-9-]+-cu\d+$")


def find_wheel(wheels: tuple[WheelRange, ...], distribution: str) -> WheelRange | None:
    """The range row for ``distribution`` (names compared in lower case)."""
    return next((w for w in wheels if w.distribution == distribution.lower()), None)


def parse_wheels(data: Mapping[str, Any], col: Collector) -> tuple[WheelRange, ...]:
    wheels = []
    for where, row in col.rows(data, "wheel"):
        col.keys(row, _WHEEL_KEYS | PROV_KEYS, where)
        dist = col.string(row, "distribution", where, required=True)
        major = col.integer(row, "cuda_major", where, required=True)
        if dist is None or major is None:
            continue
        if not _WHEEL_NAME.match(dist) or not dist.endswith(f"-cu{major}"):
            col.error(where, f"distribution {dist!r} must be lower-case nvidia-...-cu{major}")
        first, last = col.version(row, "first", where), col.version(row, "last", where)
        newest = col.version(row, "newest_seen", where)
        if last is not None and newest is not None:
            col.error(where, "give 'last' (closed series) or 'newest_seen' (open series), not both")
        for top in (last, newest):
            if first is not None and top is not None and top < first:
                col.error(where, f"{top} is older than first {first}")
        wheels.append(WheelRange(dist, major, first, last, newest, col.prov(row, where)))
    check_unique([w.distribution for w in wheels], col, "wheel", "distribution")
    return tuple(wheels)


_JAX_CUDA_KEYS: Final = {"major", "extra", "plugin", "built_with", "min_cuda", "cudnn", "nccl", "min_driver", "min_cc"}


