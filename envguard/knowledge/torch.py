"""torch.toml: PyTorch releases, their CUDA variants, indexes, Python range and arch lists."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envguard.knowledge._base import (
    META_KEYS,
    PROV_KEYS,
    Collector,
    JetsonBuilds,
    MatrixMeta,
    Provenance,
    check_order,
    check_unique,
    jetson_lookup,
    parse_jetson,
    series_lookup,
    series_version,
)

logger = logging.getLogger(__name__)

#: The platform the variant's own ``sass``/``ptx`` describe.
LINUX_X86_64: Final = "linux_x86_64"
#: Platforms that may carry their own arch list (``[[release.variant.platform]]``).
OTHER_PLATFORMS: Final = ("win_amd64", "linux_aarch64")


def wheel_platform(system: str, machine: str) -> str:
    """The wheel platform whose arch list applies: "win_amd64", "linux_aarch64", or "linux_x86_64".

    ``system`` is "linux"/"windows"/"darwin" (rules.base.system_of); ``machine`` as platform.machine() prints it.
    A system or machine that is not known (a pasted report that does not say) reads as Linux x86_64, the
    platform the variant's own lists describe, as everywhere else in envguard.
    """
    if system == "windows":
        return "win_amd64"
    if system == "darwin":
        return f"macosx_{machine.lower()}"
    return "linux_aarch64" if machine.lower() in ("aarch64", "arm64") else LINUX_X86_64


@dataclass(frozen=True, slots=True)
class PlatformArch:
    """The compiled architectures of a variant's wheels on one platform; ``sass`` None when unknown there."""

    platform: str
    sass: tuple[str, ...] | None
    ptx: tuple[str, ...] | None
    prov: Provenance


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
    #: Arch lists of other platforms' wheels; a platform not listed here is unknown (never Linux's list).
    platforms: tuple[PlatformArch, ...] = ()

    def arch(self, platform: str = LINUX_X86_64) -> PlatformArch:
        """The SASS/PTX lists of this variant's wheels on ``platform`` (see ``wheel_platform``)."""
        if platform == LINUX_X86_64:
            return PlatformArch(platform, self.sass, self.ptx, self.prov)
        row = next((p for p in self.platforms if p.platform == platform), None)
        if row is None:
            return PlatformArch(platform, None, None, self.prov)
        return PlatformArch(platform, row.sass, row.ptx, row.prov)


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
    #: Python versions torch.compile (Dynamo) accepts; None when not recorded.
    compile_python: SpecifierSet | None = None
    #: Wheel platforms with free-threaded (cp313t ...) wheels; None when not recorded.
    free_threaded: tuple[str, ...] | None = None
    #: Pythons outside ``python`` whose wheels were published as experimental (RELEASE.md's "(3.12 experimental)"
    #: for 2.2 and 2.3); None when none.
    python_experimental: SpecifierSet | None = None

    def variant(self, tag: str) -> TorchVariant | None:
        """The variant with this tag ("cu124")."""
        return next((v for v in self.variants if v.tag == tag), None)

    @property
    def pypi_variant(self) -> TorchVariant | None:
        """The build the plain package-index wheel is (Linux x86_64); None when not recorded."""
        return self.variant(self.pypi_default) if self.pypi_default else None


@dataclass(frozen=True, slots=True)
class CondaBuilds:
    """The CUDA versions the pytorch conda channel published builds of one series for."""

    version: str
    cuda: tuple[str, ...]
    prov: Provenance


#: conda platforms (subdirs) a conda-forge row may name.
CONDA_FORGE_PLATFORMS: Final = ("linux-64", "linux-aarch64")
#: The linux-aarch64 arm variants of conda-forge's CUDA builds (a row without one is every aarch64 build).
ARM_VARIANTS: Final = ("sbsa", "tegra")


#: conda-forge's CUDA build strings: "cuda126_generic_py312_h…_303", "cuda120_py311h…_1", "cuda126_py312h…_306".
_CONDA_FORGE_BUILD_CUDA = re.compile(r"^cuda(\d{2})(\d)(?:_|py)")


def conda_forge_build_cuda(build_string: str) -> str | None:
    """The CUDA ("12.6") a conda-forge pytorch build string starts with, or None for another build string."""
    found = _CONDA_FORGE_BUILD_CUDA.match(build_string)
    return f"{found.group(1)}.{found.group(2)}" if found else None


@dataclass(frozen=True, slots=True)
class CondaForgeBuild:
    """The architectures conda-forge's pytorch CUDA builds of some versions were compiled for on some platforms."""

    cuda: str
    platforms: tuple[str, ...]
    #: "sbsa" / "tegra" (linux-aarch64 only); None: every build of those platforms.
    arm_variant: str | None
    versions: SpecifierSet
    #: The recipe build numbers the row covers; None: all.
    builds: SpecifierSet | None
    sass: tuple[str, ...]
    #: None when the PTX is not recorded (unknown, not "none").
    ptx: tuple[str, ...] | None
    prov: Provenance

    def covers(self, version: str | None, cuda: str | None, platform: str, build: int | None = None,
               arm_variant: str | None = None) -> bool:
        """Whether a build of this version/CUDA/platform could be one of this row's (None: not reported)."""
        if platform not in self.platforms or (cuda is not None and cuda != self.cuda):
            return False
        if arm_variant is not None and self.arm_variant is not None and arm_variant != self.arm_variant:
            return False
        if build is not None and self.builds is not None and not self.builds.contains(str(build)):
            return False
        if version is None:
            return True
        try:
            return self.versions.contains(Version(version.split("+", maxsplit=1)[0]).public, prereleases=True)
        except ValueError:
            return True


#: The package indexes an [[aarch64_index]] row may name.
AARCH64_INDEXES: Final = ("default", "download.pytorch.org")


@dataclass(frozen=True, slots=True)
class Aarch64Index:
    """The torch releases whose linux_aarch64 wheel on one package index is the CPU build."""

    #: "default" (the plain package index) or "download.pytorch.org" (its /whl/cuXXX indexes).
    index: str
    cpu_only: SpecifierSet
    prov: Provenance

    def is_cpu(self, version: str) -> bool:
        """Whether this release's linux_aarch64 wheel on this index is the CPU build."""
        try:
            return self.cpu_only.contains(Version(version.split("+", maxsplit=1)[0]).public, prereleases=True)
        except ValueError:
            return False


@dataclass(frozen=True, slots=True)
class TorchMatrix:
    """torch releases, newest first."""

    meta: MatrixMeta
    releases: tuple[TorchRelease, ...]
    #: The pytorch conda channel's CUDA builds per series (only the series read).
    conda: tuple[CondaBuilds, ...] = ()
    #: conda-forge's pytorch CUDA builds and their arch lists (recipe/build.sh history).
    conda_forge: tuple[CondaForgeBuild, ...] = ()
    #: Which releases' linux_aarch64 wheels are CPU builds on the default and PyTorch indexes.
    aarch64_indexes: tuple[Aarch64Index, ...] = ()
    #: NVIDIA's Jetson builds per JetPack major.
    jetson: tuple[JetsonBuilds, ...] = ()

    def aarch64_index(self, index: str) -> Aarch64Index | None:
        """The [[aarch64_index]] row of "default" or "download.pytorch.org"."""
        return next((r for r in self.aarch64_indexes if r.index == index), None)

    def jetson_builds(self, jetpack: str | None, cc: str | None) -> JetsonBuilds | None:
        """NVIDIA's Jetson torch builds for JetPack ``jetpack``, else for the last JetPack of a ``cc`` board."""
        return jetson_lookup(self.jetson, jetpack, cc)

    def conda_forge_builds(self, version: str | None, cuda: str | None, platform: str, build: int | None = None,
                           arm_variant: str | None = None) -> tuple[CondaForgeBuild, ...]:
        """The conda-forge rows a CUDA build with these facts (None: not reported) could be one of."""
        return tuple(r for r in self.conda_forge if r.covers(version, cuda, platform, build, arm_variant))

    def conda_builds(self, version: str) -> CondaBuilds | None:
        """The pytorch channel's CUDA builds of the series "1.9.0" belongs to; None when not recorded."""
        return series_lookup(self.conda, version)

    def release(self, version: str) -> TorchRelease | None:
        """The minor series a version ("2.5.1+cu124") belongs to."""
        return series_lookup(self.releases, version)

    def newest(self) -> Version | None:
        """Newest series known."""
        return max((Version(r.version) for r in self.releases), default=None)


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> TorchMatrix:
    col.keys(data, META_KEYS | {"release", "conda_channel", "conda_forge", "aarch64_index", "jetson"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"version", "python", "compile_python", "free_threaded", "pypi_default", "torchvision",
                       "torchaudio", "variant", "python_experimental"} | PROV_KEYS, where)
        version = col.string(row, "version", where, required=True)
        if version is None:
            continue
        variants = []
        for inner, vrow in col.rows(row, "variant"):
            vwhere = f"{where} {inner}"
            col.keys(vrow, {"tag", "cuda", "cudnn", "nccl", "sass", "ptx", "index_url", "platform"} | PROV_KEYS,
                     vwhere)
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
                _platforms(vrow, vwhere, tag, col),
            ))
        check_unique([v.tag for v in variants], col, f"{where} variant", "tag")
        default = col.string(row, "pypi_default", where)
        if default is not None and not any(v.tag == default for v in variants):
            col.error(where, f"pypi_default {default!r} is not one of its variants")
        releases.append(TorchRelease(
            version, col.specifier(row, "python", where), default,
            col.string(row, "torchvision", where), col.string(row, "torchaudio", where),
            tuple(variants), col.prov(row, where), col.optional_specifier(row, "compile_python", where),
            _free_threaded(row, where, col), col.optional_specifier(row, "python_experimental", where),
        ))
    check_order([series_version(r.version, col) for r in releases], col, "release", "version")
    return TorchMatrix(meta, tuple(releases), _conda(data, col), _conda_forge(data, col), _aarch64(data, col),
                       parse_jetson(data, col))


def _aarch64(data: Mapping[str, Any], col: Collector) -> tuple[Aarch64Index, ...]:
    out = []
    for where, row in col.rows(data, "aarch64_index"):
        col.keys(row, {"index", "cpu_only"} | PROV_KEYS, where)
        index = col.string(row, "index", where, required=True)
        if index is not None and index not in AARCH64_INDEXES:
            col.error(where, f"index must be one of {', '.join(AARCH64_INDEXES)}, got {index!r}")
        if index is not None:
            out.append(Aarch64Index(index, col.specifier(row, "cpu_only", where), col.prov(row, where)))
    check_unique([r.index for r in out], col, "aarch64_index", "index")
    return tuple(out)


def _conda_forge(data: Mapping[str, Any], col: Collector) -> tuple[CondaForgeBuild, ...]:
    out = []
    for where, row in col.rows(data, "conda_forge"):
        col.keys(row, {"cuda", "platforms", "arm_variant", "versions", "builds", "sass", "ptx"} | PROV_KEYS, where)
        cuda = col.string(row, "cuda", where, required=True)
        platforms = col.strings(row, "platforms", where)
        bad = [p for p in platforms if p not in CONDA_FORGE_PLATFORMS]
        if bad or not platforms:
            col.error(where, f"platforms must be a non-empty list of {', '.join(CONDA_FORGE_PLATFORMS)}, got {bad}")
        variant = col.string(row, "arm_variant", where)
        if variant is not None and variant not in ARM_VARIANTS:
            col.error(where, f"arm_variant must be one of {', '.join(ARM_VARIANTS)}, got {variant!r}")
        sass = col.cc_list(row, "sass", where)
        if cuda is None or sass is None:
            col.error(where, "needs 'cuda' and 'sass'")
            continue
        out.append(CondaForgeBuild(cuda, platforms, variant, col.specifier(row, "versions", where),
                                   col.optional_specifier(row, "builds", where), sass, col.cc_list(row, "ptx", where),
                                   col.prov(row, where)))
    return tuple(out)


def _conda(data: Mapping[str, Any], col: Collector) -> tuple[CondaBuilds, ...]:
    out = []
    for where, row in col.rows(data, "conda_channel"):
        col.keys(row, {"series", "cuda"} | PROV_KEYS, where)
        series = col.string(row, "series", where, required=True)
        if series is not None:
            out.append(CondaBuilds(series, col.strings(row, "cuda", where), col.prov(row, where)))
    check_unique([c.version for c in out], col, "conda_channel", "series")
    return tuple(out)


#: Wheel platforms a free_threaded list may name.
FREE_THREADED_PLATFORMS: Final = ("linux_x86_64", "linux_aarch64", "win_amd64", "win_arm64", "macosx_arm64",
                                  "macosx_x86_64")


def _free_threaded(row: Mapping[str, Any], where: str, col: Collector) -> tuple[str, ...] | None:
    raw = row.get("free_threaded")
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(p, str) and p in FREE_THREADED_PLATFORMS for p in raw):
        col.error(where, f"free_threaded must be a list of {', '.join(FREE_THREADED_PLATFORMS)}, got {raw!r}")
        return None
    return tuple(raw)


def _platforms(vrow: Mapping[str, Any], vwhere: str, tag: str, col: Collector) -> tuple[PlatformArch, ...]:
    out = []
    for inner, prow in col.rows(vrow, "platform"):
        pwhere = f"{vwhere} {inner}"
        col.keys(prow, {"platform", "sass", "ptx"} | PROV_KEYS, pwhere)
        platform = col.string(prow, "platform", pwhere, required=True)
        if platform is None:
            continue
        if platform not in OTHER_PLATFORMS:
            col.error(pwhere, f"platform must be one of {', '.join(OTHER_PLATFORMS)} (the variant's own sass/ptx "
                              f"describe {LINUX_X86_64}), got {platform!r}")
        if not tag.startswith("cu"):
            col.error(pwhere, f"only CUDA variants have arch lists, not {tag}")
        sass = col.cc_list(prow, "sass", pwhere)
        if sass is None:
            col.error(pwhere, "needs 'sass' (leave the platform out when its list is unknown)")
        out.append(PlatformArch(platform, sass, col.cc_list(prow, "ptx", pwhere), col.prov(prow, pwhere)))
    check_unique([p.platform for p in out], col, f"{vwhere} platform", "platform")
    return tuple(out)
