"""nccl.toml: NCCL in images, release notes and wheels."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Final

from packaging.version import InvalidVersion, Version

from envguard.knowledge._base import (
    META_KEYS,
    PROV_KEYS,
    Collector,
    MatrixMeta,
    Provenance,
    check_not_newer,
    check_order,
)
from envguard.knowledge._wheels import WheelRange, find_wheel, parse_wheels

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class NcclImage:
    """The NCCL (libnccl2) shipped in the official nvidia/cuda runtime image of one CUDA release."""

    cuda_image: Version
    nccl: Version
    prov: Provenance


@dataclass(frozen=True, slots=True)
class NcclRelease:
    """An NCCL release and the CUDA versions its release notes list."""

    nccl: Version
    cuda: tuple[str, ...]
    prov: Provenance


@dataclass(frozen=True, slots=True)
class NcclMatrix:
    """NCCL in CUDA images, release-note CUDA lists, and PyPI wheel ranges."""

    meta: MatrixMeta
    images: tuple[NcclImage, ...]
    releases: tuple[NcclRelease, ...]
    wheels: tuple[WheelRange, ...]

    def image(self, cuda: str) -> NcclImage | None:
        """The row for nvidia/cuda image ``cuda`` ("12.4.1")."""
        try:
            v = Version(cuda)
        except InvalidVersion:
            return None
        return next((i for i in self.images if i.cuda_image == v), None)

    def wheel(self, distribution: str) -> WheelRange | None:
        """The range row for ``distribution`` ("nvidia-nccl-cu12")."""
        return find_wheel(self.wheels, distribution)


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> NcclMatrix:
    col.keys(data, META_KEYS | {"image", "release", "wheel"}, "header")
    images = []
    for where, row in col.rows(data, "image"):
        col.keys(row, {"cuda_image", "nccl"} | PROV_KEYS, where)
        image = col.version(row, "cuda_image", where, required=True)
        shipped = col.version(row, "nccl", where, required=True)
        if image is None or shipped is None:
            continue
        images.append(NcclImage(image, shipped, col.prov(row, where)))
    check_order([i.cuda_image for i in images], col, "image", "cuda_image")
    check_not_newer([i.nccl for i in images], col, "image", "nccl")
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"nccl", "cuda"} | PROV_KEYS, where)
        nccl = col.version(row, "nccl", where, required=True)
        cuda = col.strings(row, "cuda", where)
        for text in cuda:
            try:
                Version(text)
            except InvalidVersion:
                col.error(where, f"cuda entry {text!r} is not a version")
        if nccl is None:
            continue
        releases.append(NcclRelease(nccl, cuda, col.prov(row, where)))
    check_order([r.nccl for r in releases], col, "release", "nccl")
    return NcclMatrix(meta, tuple(images), tuple(releases), parse_wheels(data, col))


_CUDNN_FLAVORS: Final = ("cudnn", "cudnn8", "cudnn9")


_OS_FAMILIES: Final = ("apt", "dnf")
