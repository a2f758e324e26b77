"""cudnn.toml: cuDNN releases, the CUDA they support, arch floors and wheel ranges."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from envguard.knowledge._base import (
    META_KEYS,
    PROV_KEYS,
    Collector,
    MatrixMeta,
    Provenance,
    check_not_newer,
    check_order,
    check_unique,
)
from envguard.knowledge._wheels import WheelRange, find_wheel, parse_wheels

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class CudnnSupport:
    """One row of a cuDNN support matrix: a cuDNN build for a CUDA major and what it runs on."""

    cudnn: Version
    cuda_major: int
    #: CUDA toolkit versions this build supports (">=12.0,<13.0"); None when unknown.
    cuda: SpecifierSet | None
    linux_min_driver: Version | None
    windows_min_driver: Version | None
    #: Lowest and highest compute capability the matrix lists ("5.0", "9.0"); None when unknown.
    min_cc: str | None
    max_cc: str | None
    prov: Provenance

    def supports_cuda(self, cuda: str) -> bool | None:
        """Whether CUDA ``cuda`` ("12.4") is in this row's range (None when unknown)."""
        if self.cuda is None:
            return None
        try:
            return Version(cuda) in self.cuda
        except InvalidVersion:
            return None


@dataclass(frozen=True, slots=True)
class CudnnArchFloor:
    """From cuDNN ``since`` on (for the listed CUDA majors), GPUs below ``min_cc`` are not supported."""

    since: Version
    cuda_majors: tuple[int, ...]
    min_cc: str
    prov: Provenance


@dataclass(frozen=True, slots=True)
class CudnnMatrix:
    """cuDNN support-matrix rows (newest first), architecture floors and PyPI wheel ranges."""

    meta: MatrixMeta
    releases: tuple[CudnnSupport, ...]
    arch_floors: tuple[CudnnArchFloor, ...]
    wheels: tuple[WheelRange, ...]

    def support(self, cudnn: str, cuda_major: int | None = None) -> tuple[CudnnSupport, ...]:
        """Rows for the newest matrix at or below ``cudnn`` ("9.10.2.21" matches the 9.10.2 rows)."""
        try:
            v = Version(cudnn)
        except InvalidVersion:
            return ()
        rows = [r for r in self.releases if cuda_major is None or r.cuda_major == cuda_major]
        best = next((r.cudnn for r in rows if r.cudnn <= v), None)
        return tuple(r for r in rows if best is not None and r.cudnn == best)

    def min_cc(self, cudnn: str, cuda_major: int) -> CudnnArchFloor | None:
        """The architecture floor in force for ``cudnn`` with CUDA ``cuda_major`` (None when none is known)."""
        try:
            v = Version(cudnn)
        except InvalidVersion:
            return None
        floors = [f for f in self.arch_floors if f.since <= v and cuda_major in f.cuda_majors]
        return max(floors, key=lambda f: f.since, default=None)

    def wheel(self, distribution: str) -> WheelRange | None:
        """The range row for ``distribution`` ("nvidia-cudnn-cu11")."""
        return find_wheel(self.wheels, distribution)


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> CudnnMatrix:
    col.keys(data, META_KEYS | {"release", "arch_floor", "wheel"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        keys = {"cudnn", "cuda_major", "cuda", "linux_min_driver", "windows_min_driver", "min_cc", "max_cc"}
        col.keys(row, keys | PROV_KEYS, where)
        cudnn = col.version(row, "cudnn", where, required=True)
        major = col.integer(row, "cuda_major", where, required=True)
        if cudnn is None or major is None:
            continue
        cuda = col.optional_specifier(row, "cuda", where)
        if cuda is not None and not any(Version(f"{major}.{minor}") in cuda for minor in range(10)):
            col.error(where, f"cuda {cuda} admits no CUDA {major}.x release")
        low, high = col.cc(row, "min_cc", where), col.cc(row, "max_cc", where)
        if low is not None and high is not None and Version(high) < Version(low):
            col.error(where, f"max_cc {high} is below min_cc {low}")
        releases.append(CudnnSupport(
            cudnn, major, cuda, col.version(row, "linux_min_driver", where),
            col.version(row, "windows_min_driver", where), low, high, col.prov(row, where),
        ))
    check_not_newer([r.cudnn for r in releases], col, "release", "cudnn")
    check_unique([(str(r.cudnn), r.cuda_major, str(r.cuda)) for r in releases], col, "release", "(cudnn, cuda)")
    floors = []
    for where, row in col.rows(data, "arch_floor"):
        col.keys(row, {"since", "cuda_majors", "min_cc"} | PROV_KEYS, where)
        since, low = col.version(row, "since", where, required=True), col.cc(row, "min_cc", where, required=True)
        majors = col.integers(row, "cuda_majors", where)
        if not majors:
            col.error(where, "cuda_majors must list at least one CUDA major")
        if since is None or low is None:
            continue
        floors.append(CudnnArchFloor(since, majors, low, col.prov(row, where)))
    check_order([f.since for f in floors], col, "arch_floor", "since")
    return CudnnMatrix(meta, tuple(releases), tuple(floors), parse_wheels(data, col))


