"""jax.toml: jax/jaxlib releases and their CUDA plugins."""

from __future__ import annotations

import datetime as dt
import itertools
import logging
from dataclasses import dataclass
from typing import Any, Final

from packaging.specifiers import SpecifierSet
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
class JaxCuda:
    """What a jax release's CUDA-N plugin (``jax[cudaN]``) needs and was built with."""

    major: int
    extra: str | None
    plugin: str | None
    built_with: Version | None
    min_cuda: Version | None
    #: cuDNN versions the plugin accepts (">=9.8,<10"); None when unknown.
    cudnn: SpecifierSet | None
    #: NCCL versions the plugin accepts (">=2.18.1"); None when unknown.
    nccl: SpecifierSet | None
    min_driver: Version | None
    #: Lowest compute capability the wheel supports ("5.2"); None when unknown.
    min_cc: str | None
    prov: Provenance


@dataclass(frozen=True, slots=True)
class JaxRelease:
    """The requirements that hold from jax ``version`` up to (not including) the next newer row."""

    version: Version
    released: dt.date | None
    python: SpecifierSet
    cuda: tuple[JaxCuda, ...]
    prov: Provenance

    def plugin(self, major: int) -> JaxCuda | None:
        """The CUDA-``major`` plugin row (None: no such plugin known for this release)."""
        return next((c for c in self.cuda if c.major == major), None)


@dataclass(frozen=True, slots=True)
class JaxArchFloor:
    """The lowest compute capability of the default jaxlib GPU builds from jaxlib ``since`` on."""

    since: Version
    min_cc: str
    prov: Provenance


@dataclass(frozen=True, slots=True)
class JaxMatrix:
    """jax/jaxlib requirement rows, newest first; each row holds until the next newer one."""

    meta: MatrixMeta
    releases: tuple[JaxRelease, ...]
    #: [[arch_floor]] rows, newest first.
    arch_floors: tuple[JaxArchFloor, ...] = ()

    def arch_floor(self, version: str | None) -> JaxArchFloor | None:
        """The floor in force for jaxlib ``version``; for an unknown version the lowest, which every jaxlib GPU
        build requires. None when no row applies."""
        try:
            v = Version(Version(version).public) if version else None
        except InvalidVersion:
            v = None
        if v is None:
            return min(self.arch_floors, key=lambda f: Version(f.min_cc), default=None)
        return next((f for f in self.arch_floors if f.since <= v), None)

    def release(self, version: str) -> JaxRelease | None:
        """The row in force for jax/jaxlib ``version`` ("0.4.30"); None when older than every row."""
        try:
            v = Version(version)
        except InvalidVersion:
            return None
        public = Version(v.public)
        return next((r for r in self.releases if r.version <= public), None)

    def newest(self) -> Version | None:
        """Newest jax release with a row."""
        return max((r.version for r in self.releases), default=None)


_JAX_CUDA_KEYS: Final = {"major", "extra", "plugin", "built_with", "min_cuda", "cudnn", "nccl", "min_driver", "min_cc"}


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> JaxMatrix:
    col.keys(data, META_KEYS | {"release", "arch_floor"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"version", "released", "python", "cuda"} | PROV_KEYS, where)
        version = col.version(row, "version", where, required=True)
        if version is None:
            continue
        plugins = []
        for inner, crow in col.rows(row, "cuda"):
            cwhere = f"{where} {inner}"
            col.keys(crow, _JAX_CUDA_KEYS | PROV_KEYS, cwhere)
            major = col.integer(crow, "major", cwhere, required=True)
            if major is None:
                continue
            extra, plugin = col.string(crow, "extra", cwhere), col.string(crow, "plugin", cwhere)
            if extra is not None and not extra.startswith(f"cuda{major}"):
                col.error(cwhere, f"extra {extra!r} does not belong to CUDA {major}")
            if plugin is not None and plugin != f"jax-cuda{major}-plugin":
                col.error(cwhere, f"plugin {plugin!r} must be 'jax-cuda{major}-plugin'")
            built, min_cuda = col.version(crow, "built_with", cwhere), col.version(crow, "min_cuda", cwhere)
            for label, value in (("built_with", built), ("min_cuda", min_cuda)):
                if value is not None and value.major != major:
                    col.error(cwhere, f"{label} {value} is not CUDA {major}")
            if built is not None and min_cuda is not None and built < min_cuda:
                col.error(cwhere, f"built_with {built} is older than min_cuda {min_cuda}")
            plugins.append(JaxCuda(
                major, extra, plugin, built, min_cuda, col.optional_specifier(crow, "cudnn", cwhere),
                col.optional_specifier(crow, "nccl", cwhere), col.version(crow, "min_driver", cwhere),
                col.cc(crow, "min_cc", cwhere), col.prov(crow, cwhere),
            ))
        check_unique([p.major for p in plugins], col, f"{where} cuda", "major")
        releases.append(JaxRelease(
            version, col.date(row, "released", where), col.specifier(row, "python", where),
            tuple(plugins), col.prov(row, where),
        ))
    check_order([r.version for r in releases], col, "release", "version")
    dated = [(r.version, r.released) for r in releases if r.released is not None]
    for (newer, d_new), (older, d_old) in itertools.pairwise(dated):
        if d_new < d_old:
            col.error("[[release]]", f"{newer} is dated {d_new}, before the older {older} ({d_old})")
    floors = []
    for where, row in col.rows(data, "arch_floor"):
        col.keys(row, {"since", "min_cc"} | PROV_KEYS, where)
        since, min_cc = col.version(row, "since", where, required=True), col.cc(row, "min_cc", where, required=True)
        if since is not None and min_cc is not None:
            floors.append(JaxArchFloor(since, min_cc, col.prov(row, where)))
    check_order([f.since for f in floors], col, "arch_floor", "since")
    return JaxMatrix(meta, tuple(releases), tuple(floors))


