"""Load and validate the compatibility matrices (TOML data files with per-row provenance)."""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from envguard.codes import FINDING_CODES
from envguard.matrix_base import (
    CONFIDENCE,
    MATRIX_NAMES,
    MATRIX_SCHEMA,
    META_KEYS,
    PROV_KEYS,
    SOURCE_PREFIXES,
    Collector,
    MatrixMeta,
    Provenance,
    VerbatimVersion,
    check_order,
    check_unique,
    is_cc,
    load_file,
    norm_gpu,
    series_version,
)
from envguard.resources import data_dir

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

    from envguard.matrix_extra import (
        CudaImagesMatrix,
        CudnnMatrix,
        GpuPeaksMatrix,
        JaxMatrix,
        NcclMatrix,
        PaddleMatrix,
    )

__all__ = [
    "CONFIDENCE", "MATRIX_NAMES", "MATRIX_SCHEMA", "SOURCE_PREFIXES", "ArchRow", "CudaDriverMatrix", "CudaFamily",
    "CudaRelease", "DriverFloor", "ErrorSignature", "ErrorsMatrix", "GpuArchMatrix", "GpuRow", "Matrices",
    "MatrixMeta", "Provenance", "SeriesRow", "SignatureMatch", "TensorflowMatrix", "TensorflowRelease", "TorchMatrix",
    "TorchRelease", "TorchVariant", "VerbatimVersion", "load_matrices",
]

logger = logging.getLogger(__name__)

# ---- cuda-driver ---------------------------------------------------------------------------


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


# ---- gpu-arch ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArchRow:
    """One compute capability: family and the CUDA toolkits that can compile for it."""

    cc: str
    family: str
    first_cuda: Version | None
    last_cuda: Version | None
    examples: tuple[str, ...]
    prov: Provenance
    datacenter_forward_compat: bool | None = None


@dataclass(frozen=True, slots=True)
class GpuRow:
    """A product name and its compute capability."""

    name: str
    cc: str
    datacenter: bool | None
    prov: Provenance


@dataclass(frozen=True, slots=True)
class SeriesRow:
    """A product series and its compute capability; ``pattern`` matches the lower-case alphanumeric name."""

    series: str
    pattern: re.Pattern[str]
    cc: str
    prov: Provenance


@dataclass(frozen=True, slots=True)
class GpuArchMatrix:
    """Compute capabilities and product names."""

    meta: MatrixMeta
    archs: tuple[ArchRow, ...]
    gpus: tuple[GpuRow, ...]
    #: Product-series rules (e.g. every GeForce RTX 40xx is 8.9) for names without a row of their own.
    series: tuple[SeriesRow, ...] = ()

    def arch(self, cc: str) -> ArchRow | None:
        """The row for compute capability ``cc`` ("8.6")."""
        return next((a for a in self.archs if a.cc == cc), None)

    def lookup_name(self, name: str) -> GpuRow | None:
        """Product name (as nvidia-smi or a report prints it, maybe truncated with "...") → row."""
        key = norm_gpu(name)
        truncated = key.endswith("...")
        key = key.rstrip(". ")
        exact = next((g for g in self.gpus if norm_gpu(g.name) == key), None)
        if exact is not None or not key:
            return exact
        if truncated:
            hits = {g.cc: g for g in self.gpus if norm_gpu(g.name).startswith(key)}
            return next(iter(hits.values())) if len(hits) == 1 else None
        compact = re.sub(r"[^a-z0-9]", "", key)
        for rule in self.series:
            if rule.pattern.search(compact):
                return GpuRow(name, rule.cc, False, rule.prov)
        return None


# ---- torch ---------------------------------------------------------------------------------


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
        return _series_lookup(self.releases, version)

    def newest(self) -> Version | None:
        """Newest series known."""
        return max((Version(r.version) for r in self.releases), default=None)


# ---- tensorflow ----------------------------------------------------------------------------


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

    def release(self, version: str) -> TensorflowRelease | None:
        """The minor series a version belongs to."""
        return _series_lookup(self.releases, version)

    def newest(self) -> Version | None:
        """Newest series known."""
        return max((Version(r.version) for r in self.releases), default=None)


_R = TypeVar("_R", TorchRelease, TensorflowRelease)


def _series_lookup(rows: tuple[_R, ...], version: str) -> _R | None:
    try:
        v = Version(version)
    except InvalidVersion:
        return None
    key = f"{v.major}.{v.minor}"
    return next((r for r in rows if r.version == key), None)


# ---- errors (signature catalogue) ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ErrorSignature:
    """An error message people paste, what it means, and what to check."""

    id: str
    #: Compiled, case-insensitive regular expression matched against one line at a time.
    pattern: re.Pattern[str]
    #: The finding code this message is evidence of.
    code: str
    severity: str
    #: The cause, in one sentence.
    cause: str
    #: What to check or run to confirm it.
    check: str
    #: Example lines (tests assert each matches).
    examples: tuple[str, ...]
    prov: Provenance


@dataclass(frozen=True, slots=True)
class SignatureMatch:
    """One signature found in one line of text."""

    signature: ErrorSignature
    line: str
    #: Named groups of the pattern (e.g. {"found": "11040"}).
    groups: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ErrorsMatrix:
    """The catalogue of error signatures."""

    meta: MatrixMeta
    signatures: tuple[ErrorSignature, ...]

    def match(self, lines: Iterable[str]) -> tuple[SignatureMatch, ...]:
        """Every (signature, line) pair that matches, in line order; one match per signature and line."""
        out: list[SignatureMatch] = []
        for line in lines:
            text = line.strip()
            if not text:
                continue
            for sig in self.signatures:
                found = sig.pattern.search(text)
                if found:
                    groups = {k: v for k, v in found.groupdict().items() if v is not None}
                    out.append(SignatureMatch(sig, text[:500], groups))
        return tuple(out)


# ---- the set -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Matrices:
    """All matrices, loaded lazily from one folder on first use."""

    root: Traversable
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def _get(self, name: str, parse: Callable[[MatrixMeta, dict[str, Any], Collector], Any]) -> Any:
        if name not in self._cache:
            self._cache[name] = load_file(self.root, name, parse)
        return self._cache[name]

    @cached_property
    def cuda_driver(self) -> CudaDriverMatrix:
        """CUDA → driver."""
        return self._get("cuda-driver", _parse_cuda_driver)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def gpu_arch(self) -> GpuArchMatrix:
        """GPU architectures."""
        return self._get("gpu-arch", _parse_gpu_arch)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def torch(self) -> TorchMatrix:
        """PyTorch releases."""
        return self._get("torch", _parse_torch)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def tensorflow(self) -> TensorflowMatrix:
        """TensorFlow releases."""
        return self._get("tensorflow", _parse_tensorflow)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def errors(self) -> ErrorsMatrix:
        """Error-message signatures."""
        return self._get("errors", _parse_errors)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def jax(self) -> JaxMatrix:
        """jax/jaxlib requirements."""
        from envguard import matrix_extra

        return self._get("jax", matrix_extra.parse_jax)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def cudnn(self) -> CudnnMatrix:
        """cuDNN support matrix."""
        from envguard import matrix_extra

        return self._get("cudnn", matrix_extra.parse_cudnn)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def nccl(self) -> NcclMatrix:
        """NCCL versions in images, release notes and wheels."""
        from envguard import matrix_extra

        return self._get("nccl", matrix_extra.parse_nccl)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def cuda_images(self) -> CudaImagesMatrix:
        """nvidia/cuda container images."""
        from envguard import matrix_extra

        return self._get("cuda-images", matrix_extra.parse_cuda_images)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def gpu_peaks(self) -> GpuPeaksMatrix:
        """Peak GPU specifications."""
        from envguard import matrix_extra

        return self._get("gpu-peaks", matrix_extra.parse_gpu_peaks)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def paddle(self) -> PaddleMatrix:
        """PaddlePaddle releases and GPU builds."""
        from envguard import matrix_extra

        return self._get("paddle", matrix_extra.parse_paddle)  # type: ignore[no-any-return] # reason: parser type

    def loaded(self) -> dict[str, str]:
        """name → description of each matrix consulted so far."""
        return {name: m.meta.describe() for name, m in sorted(self._cache.items())}

    def load_all(self) -> None:
        """Load and validate every matrix now (raises on the first bad file)."""
        _ = (self.cuda_driver, self.gpu_arch, self.torch, self.tensorflow, self.errors,
             self.jax, self.cudnn, self.nccl, self.cuda_images, self.gpu_peaks, self.paddle)


def load_matrices(root: Traversable | None = None, env: dict[str, str] | None = None) -> Matrices:
    """Matrices from ``root`` (default: shipped data or ``ENVGUARD_MATRICES``); parsed on first use."""
    return Matrices(root if root is not None else data_dir("matrices", env))


def _parse_cuda_driver(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> CudaDriverMatrix:
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


def _parse_gpu_arch(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> GpuArchMatrix:
    col.keys(data, META_KEYS | {"arch", "gpu", "series"}, "header")
    archs = []
    for where, row in col.rows(data, "arch"):
        allowed = {"cc", "family", "first_cuda", "last_cuda", "examples", "datacenter_forward_compat"}
        col.keys(row, allowed | PROV_KEYS, where)
        cc = col.string(row, "cc", where, required=True)
        if cc is None or not is_cc(cc):
            col.error(where, f"cc must look like '8.6', got {cc!r}")
            continue
        examples = row.get("examples", [])
        if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
            col.error(where, "examples must be a list of strings")
            examples = []
        first, last = col.version(row, "first_cuda", where), col.version(row, "last_cuda", where)
        if first is not None and last is not None and last < first:
            col.error(where, f"last_cuda {last} is before first_cuda {first}")
        archs.append(ArchRow(
            cc, col.string(row, "family", where, required=True) or "", first, last, tuple(examples),
            col.prov(row, where), col.flag(row, "datacenter_forward_compat", where),
        ))
    gpus = []
    for where, row in col.rows(data, "gpu"):
        col.keys(row, {"name", "cc", "datacenter"} | PROV_KEYS, where)
        name, cc = col.string(row, "name", where, required=True), col.string(row, "cc", where, required=True)
        if name is None or cc is None:
            continue
        if not any(a.cc == cc for a in archs):
            col.error(where, f"cc {cc!r} of {name!r} has no [[arch]] row")
        gpus.append(GpuRow(name, cc, col.flag(row, "datacenter", where), col.prov(row, where)))
    series = []
    for where, row in col.rows(data, "series"):
        col.keys(row, {"series", "pattern", "cc", "examples"} | PROV_KEYS, where)
        label, raw, cc = (col.string(row, k, where, required=True) for k in ("series", "pattern", "cc"))
        if label is None or raw is None or cc is None:
            continue
        if not any(a.cc == cc for a in archs):
            col.error(where, f"cc {cc!r} of series {label!r} has no [[arch]] row")
        try:
            pattern = re.compile(raw)
        except re.error as exc:
            col.error(where, f"pattern is not a valid regular expression: {exc}")
            continue
        examples = row.get("examples", [])
        for example in examples if isinstance(examples, list) else []:
            if not pattern.search(re.sub(r"[^a-z0-9]", "", norm_gpu(str(example)))):
                col.error(where, f"pattern does not match its example {example!r}")
        series.append(SeriesRow(label, pattern, cc, col.prov(row, where)))
    check_unique([a.cc for a in archs], col, "arch", "cc")
    check_unique([norm_gpu(g.name) for g in gpus], col, "gpu", "name")
    return GpuArchMatrix(meta, tuple(archs), tuple(gpus), tuple(series))


def _parse_torch(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> TorchMatrix:
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


def _parse_tensorflow(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> TensorflowMatrix:
    col.keys(data, META_KEYS | {"release"}, "header")
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
    return TensorflowMatrix(meta, tuple(releases))


_SEVERITIES = ("error", "warning", "info")


def _parse_errors(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> ErrorsMatrix:
    col.keys(data, META_KEYS | {"signature"}, "header")
    sigs = []
    for where, row in col.rows(data, "signature"):
        col.keys(row, {"id", "pattern", "code", "severity", "cause", "check", "examples"} | PROV_KEYS, where)
        sig_id = col.string(row, "id", where, required=True)
        raw = col.string(row, "pattern", where, required=True)
        code = col.string(row, "code", where, required=True)
        severity = col.string(row, "severity", where) or "error"
        cause = col.string(row, "cause", where, required=True)
        check = col.string(row, "check", where, required=True)
        examples = row.get("examples", [])
        if not isinstance(examples, list) or not examples or not all(isinstance(e, str) for e in examples):
            col.error(where, "examples must be a non-empty list of strings (real messages the pattern matches)")
            examples = []
        if code is not None and code not in FINDING_CODES:
            col.error(where, f"code {code!r} is not a finding code")
        if severity not in _SEVERITIES:
            col.error(where, f"severity must be one of {_SEVERITIES}")
        if None in (sig_id, raw, code, cause, check):
            continue
        try:
            pattern = re.compile(raw or "", re.IGNORECASE)
        except re.error as exc:
            col.error(where, f"pattern is not a valid regular expression: {exc}")
            continue
        for example in examples:
            if not pattern.search(example):
                col.error(where, f"pattern does not match its own example {example[:80]!r}")
        sigs.append(ErrorSignature(sig_id or "", pattern, code or "", severity, cause or "", check or "",
                                   tuple(examples), col.prov(row, where)))
    check_unique([s.id for s in sigs], col, "signature", "id")
    return ErrorsMatrix(meta, tuple(sigs))
