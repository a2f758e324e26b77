"""tensorflow.toml: TensorFlow releases, tested CUDA/cuDNN, Windows GPU end, [and-cuda] pins."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from envguard.knowledge._base import (
    META_KEYS,
    PROV_KEYS,
    Collector,
    JetsonBuilds,
    MatrixMeta,
    Provenance,
    check_order,
    jetson_lookup,
    parse_jetson,
    series_lookup,
    series_version,
)

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class TensorflowRelease:
    """A TensorFlow minor series and its tested GPU build configuration."""

    version: str
    python: SpecifierSet
    cuda: str | None
    cudnn: str | None
    windows_native_gpu: bool | None
    and_cuda: Mapping[str, SpecifierSet]
    prov: Provenance


@dataclass(frozen=True, slots=True)
class TensorflowMatrix:
    """TensorFlow releases, newest first."""

    meta: MatrixMeta
    releases: tuple[TensorflowRelease, ...]
    #: NVIDIA's TensorFlow-for-Jetson builds per JetPack major (only the majors read).
    jetson: tuple[JetsonBuilds, ...] = ()

    def jetson_builds(self, jetpack: str | None, cc: str | None) -> JetsonBuilds | None:
        """NVIDIA's Jetson TensorFlow builds for JetPack ``jetpack``, else for the last JetPack of a ``cc`` board."""
        return jetson_lookup(self.jetson, jetpack, cc)

    def release(self, version: str) -> TensorflowRelease | None:
        """The minor series a version belongs to."""
        return series_lookup(self.releases, version)

    def newest(self) -> Version | None:
        """Newest series known."""
        return max((Version(r.version) for r in self.releases), default=None)


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> TensorflowMatrix:
    col.keys(data, META_KEYS | {"release", "jetson"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"version", "python", "cuda", "cudnn", "windows_native_gpu", "and_cuda"} | PROV_KEYS, where)
        version = col.string(row, "version", where, required=True)
        if version is None:
            continue
        pins: dict[str, SpecifierSet] = {}
        raw_pins = row.get("and_cuda", {})
        if not isinstance(raw_pins, Mapping):
            col.error(where, "and_cuda must be a table")
            raw_pins = {}
        for dist, spec in raw_pins.items():
            try:
                pins[str(dist)] = SpecifierSet(str(spec))
            except InvalidSpecifier:
                col.error(where, f"and_cuda[{dist!r}] is not a specifier: {spec!r}")
        releases.append(TensorflowRelease(
            version, col.specifier(row, "python", where), col.string(row, "cuda", where),
            col.string(row, "cudnn", where), col.flag(row, "windows_native_gpu", where), pins,
            col.prov(row, where),
        ))
    check_order([series_version(r.version, col) for r in releases], col, "release", "version")
    return TensorflowMatrix(meta, tuple(releases), parse_jetson(data, col))


