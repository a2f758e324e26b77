"""onnxruntime.toml: the CUDA and cuDNN majors of ONNX Runtime's GPU package (onnxruntime-gpu) per release."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from envguard.knowledge._base import META_KEYS, PROV_KEYS, Collector, MatrixMeta, Provenance


@dataclass(frozen=True, slots=True)
class OrtBuild:
    """The GPU build of a range of onnxruntime-gpu releases on the default package index."""

    versions: SpecifierSet
    #: The CUDA the requirements table names ("12.x", "11.8").
    cuda: str
    cuda_major: int
    cudnn_major: int
    prov: Provenance


@dataclass(frozen=True, slots=True)
class OnnxRuntimeMatrix:
    """onnxruntime-gpu releases and their CUDA / cuDNN majors."""

    meta: MatrixMeta
    builds: tuple[OrtBuild, ...]

    def gpu_build(self, version: str) -> OrtBuild | None:
        """The row of onnxruntime-gpu ``version`` ("1.19.1", "1.19.1+cu118" has another build: None); None when
        the release is not in the table."""
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
        col.keys(row, {"versions", "cuda", "cuda_major", "cudnn_major"} | PROV_KEYS, where)
        versions = col.specifier(row, "versions", where)
        cuda = col.string(row, "cuda", where, required=True)
        cuda_major = col.integer(row, "cuda_major", where, required=True)
        cudnn_major = col.integer(row, "cudnn_major", where, required=True)
        if cuda is None or cuda_major is None or cudnn_major is None:
            continue
        if not cuda.startswith(f"{cuda_major}."):
            col.error(where, f"cuda {cuda!r} is not of cuda_major {cuda_major}")
        builds.append(OrtBuild(versions, cuda, cuda_major, cudnn_major, col.prov(row, where)))
    # NOTE: rows must not overlap: no row may hold another's lower bound
    for build in builds:
        floors = [Version(spec.version) for spec in build.versions if spec.operator == ">="]
        for other in builds:
            if other is not build and any(other.versions.contains(f, prereleases=True) for f in floors):
                col.error("release", f"versions {build.versions} and {other.versions} overlap")
    return OnnxRuntimeMatrix(meta, tuple(builds))
