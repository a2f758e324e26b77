"""torch.toml: PyTorch releases, their CUDA variants, indexes, Python range and arch lists."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envguard.knowledge._base import (
    META_KEYS,
    PROV_KEYS,
    Collector,
    MatrixMeta,
    Provenance,
    check_order,
    check_unique,
    series_lookup,
    series_version,
)

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class TorchVariant:
    """One published build of a torch release (cu124, cpu, rocm6.2 ...)."""

    tag: str
    cuda: str | None
    cudnn: str | None
    nccl: str | None
    #: Compute capabilities with SASS; None when unknown.
    sass: tuple[str, ...] | None
    #: Compute capabilities embedded as PTX; None when unknown.
    ptx: tuple[str, ...] | None
    index_url: str | None
    prov: Provenance


@dataclass(frozen=True, slots=True)
class TorchRelease:
    """A torch minor series (2.5) and what its wheels were built for."""

    version: str
    python: SpecifierSet
    pypi_default: str | None
    torchvision: str | None
    torchaudio: str | None
    variants: tuple[TorchVariant, ...]
    prov: Provenance

    def variant(self, tag: str) -> TorchVariant | None:
        """The variant with this tag ("cu124")."""
        return next((v for v in self.variants if v.tag == tag), None)


@dataclass(frozen=True, slots=True)
class TorchMatrix:
    """torch releases, newest first."""

    meta: MatrixMeta
    releases: tuple[TorchRelease, ...]

    def release(self, version: str) -> TorchRelease | None:
        """The minor series a version ("2.5.1+cu124") belongs to."""
        return series_lookup(self.releases, version)

    def newest(self) -> Version | None:
        """Newest series known."""
        return max((Version(r.version) for r in self.releases), default=None)




def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> TorchMatrix:
    col.keys(data, META_KEYS | {"release"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"version", "python", "pypi_default", "torchvision", "torchaudio", "variant"} | PROV_KEYS, where)
        version = col.string(row, "version", where, required=True)
        if version is None:
            continue
        variants = []
        for inner, vrow in col.rows(row, "variant"):
            vwhere = f"{where} {inner}"
            col.keys(vrow, {"tag", "cuda", "cudnn", "nccl", "sass", "ptx", "index_url"} | PROV_KEYS, vwhere)
            tag = col.string(vrow, "tag", vwhere, required=True)
            if tag is None:
                continue
            cuda = col.string(vrow, "cuda", vwhere)
            if tag.startswith("cu") and cuda is None:
                col.error(vwhere, f"CUDA variant {tag} needs 'cuda'")
            if cuda is not None and tag != "cu" + cuda.replace(".", ""):
                col.error(vwhere, f"tag {tag} does not match cuda {cuda}")
            variants.append(TorchVariant(
                tag, cuda, col.string(vrow, "cudnn", vwhere), col.string(vrow, "nccl", vwhere),
                col.cc_list(vrow, "sass", vwhere), col.cc_list(vrow, "ptx", vwhere),
                col.string(vrow, "index_url", vwhere), col.prov(vrow, vwhere),
            ))
        check_unique([v.tag for v in variants], col, f"{where} variant", "tag")
        default = col.string(row, "pypi_default", where)
        if default is not None and not any(v.tag == default for v in variants):
            col.error(where, f"pypi_default {default!r} is not one of its variants")
        releases.append(TorchRelease(
            version, col.specifier(row, "python", where), default,
            col.string(row, "torchvision", where), col.string(row, "torchaudio", where),
            tuple(variants), col.prov(row, where),
        ))
    check_order([series_version(r.version, col) for r in releases], col, "release", "version")
    return TorchMatrix(meta, tuple(releases))


