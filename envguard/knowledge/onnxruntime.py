"""onnxruntime.toml: the CUDA and cuDNN majors of ONNX Runtime's GPU package (onnxruntime-gpu) per release."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from envguard.knowledge._base import META_KEYS, PROV_KEYS, Collector, MatrixMeta, Provenance, check_order

_ALSO = re.compile(r"^(\d{1,2})/(\d{1,2})$")


@dataclass(frozen=True, slots=True)
class OrtBuild:
    """The GPU build of a range of onnxruntime-gpu releases on the default package index."""

    versions: SpecifierSet
    #: The CUDA the requirements table names ("12.x", "11.8").
    cuda: str
    cuda_major: int
    cudnn_major: int
    prov: Provenance
    #: Other (CUDA major, cuDNN major) builds published under the same version numbers (1.17/1.18's CUDA 12 ones).
    also: tuple[tuple[int, int], ...] = ()

    def builds(self) -> tuple[tuple[int, int], ...]:
        """Every (CUDA major, cuDNN major) a release of this range may be, the default one first."""
        return ((self.cuda_major, self.cudnn_major), *self.also)


@dataclass(frozen=True, slots=True)
class OnnxRuntimeMatrix:
    """onnxruntime-gpu releases and their CUDA / cuDNN majors."""

    meta: MatrixMeta
    builds: tuple[OrtBuild, ...]

    def gpu_build(self, version: str) -> OrtBuild | None:
        """The row of onnxruntime-gpu ``version``; None when the release is not in the table or the version
        carries a local tag (a build of its own, not the table's)."""
        if "+" in version:
            return None
        try:
            v = Version(version)
        except InvalidVersion:
            return None
        return next((b for b in self.builds if b.versions.contains(v, prereleases=True)), None)


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> OnnxRuntimeMatrix:
    col.keys(data, META_KEYS | {"release"}, "header")
    builds = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"versions", "cuda", "cuda_major", "cudnn_major", "also"} | PROV_KEYS, where)
        versions = col.specifier(row, "versions", where)
        cuda = col.string(row, "cuda", where, required=True)
        cuda_major = col.integer(row, "cuda_major", where, required=True)
        cudnn_major = col.integer(row, "cudnn_major", where, required=True)
        if cuda is None or cuda_major is None or cudnn_major is None:
            continue
        if not cuda.startswith(f"{cuda_major}."):
            col.error(where, f"cuda {cuda!r} is not of cuda_major {cuda_major}")
        also = []
        for text in col.strings(row, "also", where):
            found = _ALSO.match(text)
            if found is None:
                col.error(where, f"also entry {text!r} is not CUDA_MAJOR/CUDNN_MAJOR")
            else:
                also.append((int(found.group(1)), int(found.group(2))))
        builds.append(OrtBuild(versions, cuda, cuda_major, cudnn_major, col.prov(row, where), tuple(also)))
    # NOTE: rows must not overlap (no row may hold another's lower bound) and run newest first
    floors = [next((Version(s.version.removesuffix(".*")) for s in b.versions if s.operator in (">=", "==")), None)
              for b in builds]
    for build, floor in zip(builds, floors, strict=True):
        if floor is not None and any(o is not build and o.versions.contains(floor, prereleases=True) for o in builds):
            col.error("release", f"versions {build.versions} overlaps another row")
    check_order([f or Version("0") for f in floors], col, "release", "versions")
    return OnnxRuntimeMatrix(meta, tuple(builds))
