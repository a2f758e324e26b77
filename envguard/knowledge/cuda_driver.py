"""cuda-driver.toml: CUDA releases, their driver floors (native and minor-version), per OS."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from envguard.knowledge._base import (
    META_KEYS,
    PROV_KEYS,
    Collector,
    MatrixMeta,
    Provenance,
    check_order,
    check_unique,
)

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class CudaFamily:
    """Minor-version compatibility floor of a CUDA major (11 and newer)."""

    major: int
    linux_min_driver: Version
    windows_min_driver: Version | None
    prov: Provenance


@dataclass(frozen=True, slots=True)
class CudaRelease:
    """One CUDA toolkit release and the driver bundled with it (release notes, Table 3)."""

    cuda: Version
    label: str
    linux_driver: Version | None
    windows_driver: Version | None
    prov: Provenance

    @property
    def minor_series(self) -> tuple[int, int]:
        """(major, minor) of the release."""
        return (self.cuda.major, self.cuda.minor)


@dataclass(frozen=True, slots=True)
class DriverFloor:
    """The lowest driver that runs code built with a given CUDA version, and why."""

    cuda: str
    min_driver: Version
    #: "minor-version compatibility (12.x)" or "toolkit driver (10.2 has no minor-version compatibility)".
    rule: str
    prov: Provenance


@dataclass(frozen=True, slots=True)
class CudaDriverMatrix:
    """CUDA toolkit → minimum driver, with minor-version compatibility families."""

    meta: MatrixMeta
    families: tuple[CudaFamily, ...]
    releases: tuple[CudaRelease, ...]

    def newest(self) -> Version | None:
        """The newest CUDA release this matrix knows."""
        return max((r.cuda for r in self.releases), default=None)

    def knows(self, cuda: Version) -> bool:
        """True when some release of this (major, minor) is in the matrix."""
        return any(r.minor_series == (cuda.major, cuda.minor) for r in self.releases)

    def floor(self, cuda: str, system: str = "linux") -> DriverFloor | None:
        """Minimum driver for code built with ``cuda`` ("12.4") on ``system`` ("linux"/"windows").

        Minor-version compatibility (CUDA 11+) makes the family floor the answer; CUDA 10.x
        needs the driver of its own minor release. None when the matrix cannot tell.
        """
        try:
            version = Version(cuda)
        except InvalidVersion:
            return None
        family = next((f for f in self.families if f.major == version.major), None)
        if family is not None:
            floor = family.linux_min_driver if system != "windows" else family.windows_min_driver
            if floor is None:
                return None
            return DriverFloor(cuda, floor, f"minor-version compatibility ({version.major}.x)", family.prov)
        same_minor = [r for r in self.releases if r.minor_series == (version.major, version.minor)]
        drivers = [
            (r.linux_driver if system != "windows" else r.windows_driver, r)
            for r in same_minor
        ]
        known = [(d, r) for d, r in drivers if d is not None]
        if not known:
            return None
        driver, row = min(known, key=lambda pair: pair[0])
        return DriverFloor(
            cuda, driver, f"toolkit driver ({version.major}.{version.minor} has no minor-version compatibility)",
            row.prov,
        )

    def native_driver(self, cuda: str, system: str = "linux") -> Version | None:
        """Driver bundled with the GA release of this CUDA minor (full feature set, PTX JIT)."""
        try:
            version = Version(cuda)
        except InvalidVersion:
            return None
        rows = [r for r in self.releases if r.minor_series == (version.major, version.minor)]
        drivers = [r.linux_driver if system != "windows" else r.windows_driver for r in rows]
        return min((d for d in drivers if d is not None), default=None)


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> CudaDriverMatrix:
    col.keys(data, META_KEYS | {"family", "release"}, "header")
    families = []
    for where, row in col.rows(data, "family"):
        col.keys(row, {"major", "linux_min_driver", "windows_min_driver"} | PROV_KEYS, where)
        major = row.get("major")
        if not isinstance(major, int):
            col.error(where, "major must be an integer")
            continue
        linux = col.version(row, "linux_min_driver", where, required=True)
        if linux is None:
            continue
        families.append(CudaFamily(major, linux, col.version(row, "windows_min_driver", where), col.prov(row, where)))
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"cuda", "label", "linux_driver", "windows_driver"} | PROV_KEYS, where)
        cuda = col.version(row, "cuda", where, required=True)
        if cuda is None:
            continue
        releases.append(CudaRelease(
            cuda, col.string(row, "label", where) or str(cuda),
            col.version(row, "linux_driver", where), col.version(row, "windows_driver", where),
            col.prov(row, where),
        ))
    check_order([r.cuda for r in releases], col, "release", "cuda")
    check_unique([f.major for f in families], col, "family", "major")
    return CudaDriverMatrix(meta, tuple(families), tuple(releases))


