"""Load and validate the compatibility matrices (TOML data files with per-row provenance)."""

from __future__ import annotations

import datetime as dt
import itertools
import logging
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, TypeVar

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from envguard.codes import FINDING_CODES
from envguard.errors import MatrixError, MatrixSchemaError
from envguard.resources import data_dir

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

logger = logging.getLogger(__name__)

MATRIX_SCHEMA: Final = 1
MATRIX_NAMES: Final = (
    "cuda-driver", "gpu-arch", "torch", "tensorflow", "errors",
    "jax", "cudnn", "nccl", "cuda-images", "gpu-peaks", "paddle",
)
CONFIDENCE: Final = ("official", "transcribed", "derived")
#: A row's source entries: documents by URL, or a distribution's own metadata (wheel METADATA /
#: Requires-Dist), cited by name and version so no package-index hostname is written here.
SOURCE_PREFIXES: Final = ("https://", "package metadata: ")
_META_KEYS: Final = {"schema_version", "name", "source", "retrieved", "description"}


class VerbatimVersion(Version):
    """A Version that prints as written (NVIDIA spells 580.65.06, which PEP 440 prints as 580.65.6)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._text = text

    def __str__(self) -> str:
        return self._text


@dataclass(frozen=True, slots=True)
class MatrixMeta:
    """Provenance of one matrix file."""

    name: str
    schema_version: int
    source: str
    retrieved: dt.date
    description: str

    def describe(self) -> str:
        """``"torch v1 (retrieved 2026-11-30)"``."""
        return f"{self.name} v{self.schema_version} (retrieved {self.retrieved.isoformat()})"


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a row's facts come from."""

    source: str
    confidence: str
    note: str | None = None


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


def _norm_gpu(name: str) -> str:
    text = name.strip().lower()
    for prefix in ("nvidia ",):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return " ".join(text.replace("-", " ").split())


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
        key = _norm_gpu(name)
        truncated = key.endswith("...")
        key = key.rstrip(". ")
        exact = next((g for g in self.gpus if _norm_gpu(g.name) == key), None)
        if exact is not None or not key:
            return exact
        if truncated:
            hits = {g.cc: g for g in self.gpus if _norm_gpu(g.name).startswith(key)}
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


# ---- shared: NVIDIA wheels ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WheelRange:
    """The versions one NVIDIA-published wheel distribution (nvidia-cudnn-cu12 ...) is known in."""

    distribution: str
    cuda_major: int
    #: First version published under this name; None when unknown.
    first: Version | None
    #: Last version that will be published under this name (the series is closed); None while open/unknown.
    last: Version | None
    #: Newest version seen when the matrix was retrieved (open series only).
    newest_seen: Version | None
    prov: Provenance

    def covers(self, version: str) -> bool | None:
        """True when ``version`` lies in the known range, False outside it, None when the range cannot tell."""
        try:
            v = Version(version)
        except InvalidVersion:
            return None
        if self.first is not None and v < self.first:
            return False
        top = self.last or self.newest_seen
        if top is not None and v > top:
            return False if self.last is not None else None
        return True if self.first is not None or top is not None else None


# ---- jax -----------------------------------------------------------------------------------


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
class JaxMatrix:
    """jax/jaxlib requirement rows, newest first; each row holds until the next newer one."""

    meta: MatrixMeta
    releases: tuple[JaxRelease, ...]

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


# ---- cudnn ---------------------------------------------------------------------------------


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
        return next((w for w in self.wheels if w.distribution == distribution.lower()), None)


# ---- nccl ----------------------------------------------------------------------------------


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
        return next((w for w in self.wheels if w.distribution == distribution.lower()), None)


# ---- cuda-images ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CudaImage:
    """One nvidia/cuda image release (the x.y.z in ``12.4.1-cudnn-runtime-ubuntu22.04``)."""

    cuda: Version
    #: cuDNN in its cuDNN flavour ("9.1.0.70"); None when unknown or there is none.
    cudnn: str | None
    #: The flavour prefix that carries cuDNN: "cudnn", "cudnn8" or "cudnn9".
    cudnn_flavor: str | None
    #: OS tags ("ubuntu22.04") the image is published for.
    os: tuple[str, ...]
    #: The ``cuda>=`` part of NVIDIA_REQUIRE_CUDA ("12.4").
    require_cuda: Version | None
    #: Older driver branches accepted through cuda-compat (forward compatibility).
    compat_branches: tuple[int, ...]
    #: GPU brands those branches are accepted for.
    brands: tuple[str, ...]
    prov: Provenance

    def accepts_driver(self, driver: str, brand: str | None = None) -> bool | None:
        """Whether the image's NVIDIA_REQUIRE_CUDA forward-compat clause accepts ``driver``'s branch.

        True: the driver's branch is listed (and the brand, when given, too). False: it is not.
        None: the driver string is not a version. The ``cuda>=`` clause needs the driver's CUDA
        version and is judged elsewhere.
        """
        try:
            branch = Version(driver).major
        except InvalidVersion:
            return None
        if branch not in self.compat_branches:
            return False
        return brand is None or brand.lower() in self.brands


@dataclass(frozen=True, slots=True)
class CudaImageFlavor:
    """An image flavour (base, runtime, devel, cudnn-runtime ...) and what it adds."""

    name: str
    contents: str
    #: Image versions that have this flavour (">=12.4.1"); None when not restricted or unknown.
    cuda: SpecifierSet | None
    prov: Provenance


_IMAGE_TAG = re.compile(r"^(?P<cuda>\d+\.\d+(?:\.\d+)?)-(?P<flavor>[a-z0-9-]+?)-(?P<os>[a-z]+[0-9.]*)$")


@dataclass(frozen=True, slots=True)
class CudaImagesMatrix:
    """nvidia/cuda image releases, newest first, and the image flavours."""

    meta: MatrixMeta
    images: tuple[CudaImage, ...]
    flavors: tuple[CudaImageFlavor, ...]

    def image(self, cuda: str) -> CudaImage | None:
        """The row for image release ``cuda`` ("12.4.1"), or the image tag that starts with it."""
        parsed = parse_image_tag(cuda)
        text = parsed[0] if parsed else cuda
        try:
            v = Version(text)
        except InvalidVersion:
            return None
        return next((i for i in self.images if i.cuda == v), None)


def parse_image_tag(tag: str) -> tuple[str, str, str] | None:
    """``"nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04"`` → ``("12.4.1", "cudnn-runtime", "ubuntu22.04")``."""
    text = tag.rsplit(":", 1)[-1] if ":" in tag else tag
    found = _IMAGE_TAG.match(text.strip())
    if not found:
        return None
    return found["cuda"], found["flavor"], found["os"]


# ---- gpu-peaks -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GpuPeak:
    """Datasheet peak figures of one GPU, for smoke-benchmark sanity checks (dense, no sparsity)."""

    name: str
    cc: str
    memory_gb: float | None
    memory_type: str | None
    bandwidth_gbs: float | None
    fp32_tflops: float | None
    #: Whether the tensor cores do BF16 (False: none; None: unknown).
    bf16: bool | None
    #: Dense BF16 / FP16 tensor rate with FP32 accumulate.
    tensor_bf16_tflops: float | None
    tensor_fp16_tflops: float | None
    #: Dense FP16 tensor rate with FP16 accumulate (GeForce cards run FP32 accumulate at half this).
    tensor_fp16_fp16acc_tflops: float | None
    #: Names of the figures above that are unconfirmed (read once, or derived).
    unconfirmed: tuple[str, ...]
    prov: Provenance

    def confirmed(self, figure: str) -> bool:
        """True when ``figure`` ("fp32_tflops") is present and not marked unconfirmed."""
        return getattr(self, figure, None) is not None and figure not in self.unconfirmed


@dataclass(frozen=True, slots=True)
class GpuPeaksMatrix:
    """Peak specifications by GPU name (names as gpu-arch.toml spells them)."""

    meta: MatrixMeta
    gpus: tuple[GpuPeak, ...]

    def lookup_name(self, name: str) -> GpuPeak | None:
        """Product name as nvidia-smi prints it ("NVIDIA H100 80GB HBM3") → row."""
        key = _norm_gpu(name)
        return next((g for g in self.gpus if _norm_gpu(g.name) == key), None)


# ---- paddle --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PaddleVariant:
    """One published paddlepaddle-gpu CUDA build of a PaddlePaddle release (cu118, cu126 ...)."""

    tag: str
    cuda: str
    #: cuDNN the build was made with, as the docs' build label names it ("8.6", "8.4.1"); None when unknown.
    cudnn: str | None
    #: Local version the 2.x wheel carries ("post112" in 2.6.0.post112); None for the unsuffixed builds.
    post: str | None
    #: Paddle's own package index of this build (3.x, ``-i``); None when it is not a package index or unknown.
    index_url: str | None
    min_driver: Version | None
    #: Lowest compute capability the docs offer this build for ("5.0"); None when not stated.
    min_cc: str | None
    prov: Provenance


@dataclass(frozen=True, slots=True)
class PaddleRelease:
    """A PaddlePaddle minor series (2.6) and its paddlepaddle-gpu builds."""

    version: str
    python: SpecifierSet
    #: Tag of the build the plain ``paddlepaddle-gpu==X`` wheel on the default index is; None for 3.x (none there).
    default_variant: str | None
    variants: tuple[PaddleVariant, ...]
    prov: Provenance

    def variant(self, tag: str) -> PaddleVariant | None:
        """The build with this tag ("cu118")."""
        return next((v for v in self.variants if v.tag == tag), None)

    def variant_for_post(self, post: str) -> PaddleVariant | None:
        """The 2.x build a ``.postNNN`` local version names ("post112")."""
        return next((v for v in self.variants if v.post == post), None)


@dataclass(frozen=True, slots=True)
class PaddleVersionField:
    """An assignment setup.py writes into paddle/version/__init__.py."""

    name: str
    meaning: str
    #: The literal a CPU build holds ("False"); None when not stated.
    cpu_value: str | None
    prov: Provenance


@dataclass(frozen=True, slots=True)
class PaddleMatrix:
    """PaddlePaddle releases (newest first) and the fields of paddle/version/__init__.py."""

    meta: MatrixMeta
    releases: tuple[PaddleRelease, ...]
    version_fields: tuple[PaddleVersionField, ...] = ()

    def release(self, version: str) -> PaddleRelease | None:
        """The minor series a version ("2.6.1.post120", "3.0.0") belongs to."""
        try:
            v = Version(version)
        except InvalidVersion:
            return None
        key = f"{v.major}.{v.minor}"
        return next((r for r in self.releases if r.version == key), None)

    def build(self, version: str) -> PaddleVariant | None:
        """The build an installed paddlepaddle-gpu version string names.

        ``2.6.1.post120`` -> the cu120 build; an unsuffixed 2.x version -> the default-index build. None when the
        string cannot tell: every 3.x build is unsuffixed (read cuda_version from paddle/version/__init__.py).
        """
        release = self.release(version)
        if release is None:
            return None
        post = Version(version).post
        if post is not None:
            return release.variant_for_post(f"post{post}")
        return release.variant(release.default_variant) if release.default_variant else None

    def newest(self) -> Version | None:
        """Newest series known."""
        return max((Version(r.version) for r in self.releases), default=None)

    def field(self, name: str) -> PaddleVersionField | None:
        """The paddle/version/__init__.py field called ``name`` ("cuda_version")."""
        return next((f for f in self.version_fields if f.name == name), None)


# ---- the set -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Matrices:
    """All matrices, loaded lazily from one folder on first use."""

    root: Traversable
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def _get(self, name: str, parse: Callable[[MatrixMeta, dict[str, Any], _Collector], Any]) -> Any:
        if name not in self._cache:
            self._cache[name] = _load(self.root, name, parse)
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
        return self._get("jax", _parse_jax)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def cudnn(self) -> CudnnMatrix:
        """cuDNN support matrix."""
        return self._get("cudnn", _parse_cudnn)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def nccl(self) -> NcclMatrix:
        """NCCL versions in images, release notes and wheels."""
        return self._get("nccl", _parse_nccl)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def cuda_images(self) -> CudaImagesMatrix:
        """nvidia/cuda container images."""
        return self._get("cuda-images", _parse_cuda_images)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def gpu_peaks(self) -> GpuPeaksMatrix:
        """Peak GPU specifications."""
        return self._get("gpu-peaks", _parse_gpu_peaks)  # type: ignore[no-any-return] # reason: parser type

    @cached_property
    def paddle(self) -> PaddleMatrix:
        """PaddlePaddle releases and GPU builds."""
        return self._get("paddle", _parse_paddle)  # type: ignore[no-any-return] # reason: parser type

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


class _Collector:
    """Collects every row error of one file, so they are reported together."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.errors: list[str] = []

    def error(self, where: str, message: str) -> None:
        self.errors.append(f"{self.name}.toml {where}: {message}")

    def version(self, row: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> Version | None:
        value = row.get(key)
        if value is None:
            if required:
                self.error(where, f"missing {key!r}")
            return None
        if not isinstance(value, str):
            self.error(where, f"{key!r} must be a string, got {value!r}")
            return None
        try:
            return VerbatimVersion(value)
        except InvalidVersion:
            self.error(where, f"{key!r} is not a version: {value!r}")
            return None

    def string(self, row: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
        value = row.get(key)
        if value is None:
            if required:
                self.error(where, f"missing {key!r}")
            return None
        if not isinstance(value, str) or not value.strip():
            self.error(where, f"{key!r} must be a non-empty string, got {value!r}")
            return None
        return value

    def specifier(self, row: Mapping[str, Any], key: str, where: str) -> SpecifierSet:
        value = self.string(row, key, where, required=True)
        try:
            return SpecifierSet(value or "")
        except InvalidSpecifier:
            self.error(where, f"{key!r} is not a PEP 440 specifier: {value!r}")
            return SpecifierSet()

    def cc_list(self, row: Mapping[str, Any], key: str, where: str) -> tuple[str, ...] | None:
        value = row.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) and _is_cc(v) for v in value):
            self.error(where, f"{key!r} must be a list of compute capabilities like '8.6', got {value!r}")
            return None
        return tuple(value)

    def flag(self, row: Mapping[str, Any], key: str, where: str) -> bool | None:
        value = row.get(key)
        if value is not None and not isinstance(value, bool):
            self.error(where, f"{key!r} must be true or false")
            return None
        return value

    def prov(self, row: Mapping[str, Any], where: str) -> Provenance:
        source = self.string(row, "source", where, required=True) or ""
        if source and not all(part.strip().startswith(SOURCE_PREFIXES) for part in source.split(" ; ")):
            self.error(where, f"source must be https URLs or 'package metadata: NAME VERSION' entries separated "
                              f"by ' ; ', got {source!r}")
        confidence = self.string(row, "confidence", where, required=True) or ""
        if confidence and confidence not in CONFIDENCE:
            self.error(where, f"confidence must be one of {CONFIDENCE}, got {confidence!r}")
        return Provenance(source, confidence, self.string(row, "note", where))

    def keys(self, row: Mapping[str, Any], allowed: set[str], where: str) -> None:
        unknown = sorted(set(row) - allowed)
        if unknown:
            self.error(where, f"unknown key(s) {', '.join(unknown)}")

    def rows(self, data: Mapping[str, Any], table: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
        value = data.get(table, [])
        if not isinstance(value, list):
            self.error(table, "must be an array of tables")
            return
        for i, row in enumerate(value):
            where = f"[[{table}]] #{i + 1}"
            if not isinstance(row, Mapping):
                self.error(where, "must be a table")
                continue
            yield where, row

    def integer(self, row: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> int | None:
        value = row.get(key)
        if value is None:
            if required:
                self.error(where, f"missing {key!r}")
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(where, f"{key!r} must be an integer, got {value!r}")
            return None
        return value

    def number(self, row: Mapping[str, Any], key: str, where: str) -> float | None:
        value = row.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            self.error(where, f"{key!r} must be a non-negative number, got {value!r}")
            return None
        return float(value)

    def date(self, row: Mapping[str, Any], key: str, where: str) -> dt.date | None:
        value = row.get(key)
        if value is None:
            return None
        if isinstance(value, dt.datetime) or not isinstance(value, dt.date):
            self.error(where, f"{key!r} must be a TOML date, got {value!r}")
            return None
        return value

    def strings(self, row: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = row.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            self.error(where, f"{key!r} must be a list of non-empty strings, got {value!r}")
            return ()
        return tuple(value)

    def integers(self, row: Mapping[str, Any], key: str, where: str) -> tuple[int, ...]:
        value = row.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            self.error(where, f"{key!r} must be a list of integers, got {value!r}")
            return ()
        return tuple(value)

    def optional_specifier(self, row: Mapping[str, Any], key: str, where: str) -> SpecifierSet | None:
        if row.get(key) is None:
            return None
        value = self.string(row, key, where)
        if value is None:
            return None
        try:
            return SpecifierSet(value)
        except InvalidSpecifier:
            self.error(where, f"{key!r} is not a PEP 440 specifier: {value!r}")
            return None

    def cc(self, row: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
        value = self.string(row, key, where, required=required)
        if value is not None and not _is_cc(value):
            self.error(where, f"{key!r} must look like '8.6', got {value!r}")
            return None
        return value


def _is_cc(text: str) -> bool:
    major, _, minor = text.partition(".")
    return major.isdigit() and minor.isdigit()


def _load(root: Traversable, name: str, parse: Callable[[MatrixMeta, dict[str, Any], _Collector], Any]) -> Any:
    node = root / f"{name}.toml"
    try:
        raw = node.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MatrixError(f"cannot read matrix {name}.toml from {root}: {exc}") from exc
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise MatrixError(f"matrix {name}.toml is not valid TOML: {exc}") from exc
    version = data.get("schema_version")
    if version != MATRIX_SCHEMA:
        raise MatrixError(
            f"matrix {name}.toml has schema_version {version!r}; this envguard reads {MATRIX_SCHEMA}"
        )
    col = _Collector(name)
    retrieved = data.get("retrieved")
    if not isinstance(retrieved, dt.date):
        col.error("header", "retrieved must be a TOML date")
        retrieved = dt.date.min
    meta = MatrixMeta(
        name=col.string(data, "name", "header", required=True) or name,
        schema_version=MATRIX_SCHEMA,
        source=col.string(data, "source", "header", required=True) or "",
        retrieved=retrieved,
        description=col.string(data, "description", "header") or "",
    )
    if meta.name != name:
        col.error("header", f"name {meta.name!r} does not match the file name")
    result = parse(meta, data, col)
    if col.errors:
        raise MatrixSchemaError(f"{len(col.errors)} problem(s) in the matrices:\n  " + "\n  ".join(col.errors))
    logger.info("loaded matrix %s from %s", meta.describe(), root)
    return result


_PROV = {"source", "confidence", "note"}


def _parse_cuda_driver(meta: MatrixMeta, data: dict[str, Any], col: _Collector) -> CudaDriverMatrix:
    col.keys(data, _META_KEYS | {"family", "release"}, "header")
    families = []
    for where, row in col.rows(data, "family"):
        col.keys(row, {"major", "linux_min_driver", "windows_min_driver"} | _PROV, where)
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
        col.keys(row, {"cuda", "label", "linux_driver", "windows_driver"} | _PROV, where)
        cuda = col.version(row, "cuda", where, required=True)
        if cuda is None:
            continue
        releases.append(CudaRelease(
            cuda, col.string(row, "label", where) or str(cuda),
            col.version(row, "linux_driver", where), col.version(row, "windows_driver", where),
            col.prov(row, where),
        ))
    _check_order([r.cuda for r in releases], col, "release", "cuda")
    _check_unique([f.major for f in families], col, "family", "major")
    return CudaDriverMatrix(meta, tuple(families), tuple(releases))


def _parse_gpu_arch(meta: MatrixMeta, data: dict[str, Any], col: _Collector) -> GpuArchMatrix:
    col.keys(data, _META_KEYS | {"arch", "gpu", "series"}, "header")
    archs = []
    for where, row in col.rows(data, "arch"):
        allowed = {"cc", "family", "first_cuda", "last_cuda", "examples", "datacenter_forward_compat"}
        col.keys(row, allowed | _PROV, where)
        cc = col.string(row, "cc", where, required=True)
        if cc is None or not _is_cc(cc):
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
        col.keys(row, {"name", "cc", "datacenter"} | _PROV, where)
        name, cc = col.string(row, "name", where, required=True), col.string(row, "cc", where, required=True)
        if name is None or cc is None:
            continue
        if not any(a.cc == cc for a in archs):
            col.error(where, f"cc {cc!r} of {name!r} has no [[arch]] row")
        gpus.append(GpuRow(name, cc, col.flag(row, "datacenter", where), col.prov(row, where)))
    series = []
    for where, row in col.rows(data, "series"):
        col.keys(row, {"series", "pattern", "cc", "examples"} | _PROV, where)
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
            if not pattern.search(re.sub(r"[^a-z0-9]", "", _norm_gpu(str(example)))):
                col.error(where, f"pattern does not match its example {example!r}")
        series.append(SeriesRow(label, pattern, cc, col.prov(row, where)))
    _check_unique([a.cc for a in archs], col, "arch", "cc")
    _check_unique([_norm_gpu(g.name) for g in gpus], col, "gpu", "name")
    return GpuArchMatrix(meta, tuple(archs), tuple(gpus), tuple(series))


def _parse_torch(meta: MatrixMeta, data: dict[str, Any], col: _Collector) -> TorchMatrix:
    col.keys(data, _META_KEYS | {"release"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"version", "python", "pypi_default", "torchvision", "torchaudio", "variant"} | _PROV, where)
        version = col.string(row, "version", where, required=True)
        if version is None:
            continue
        variants = []
        for inner, vrow in col.rows(row, "variant"):
            vwhere = f"{where} {inner}"
            col.keys(vrow, {"tag", "cuda", "cudnn", "nccl", "sass", "ptx", "index_url"} | _PROV, vwhere)
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
        _check_unique([v.tag for v in variants], col, f"{where} variant", "tag")
        default = col.string(row, "pypi_default", where)
        if default is not None and not any(v.tag == default for v in variants):
            col.error(where, f"pypi_default {default!r} is not one of its variants")
        releases.append(TorchRelease(
            version, col.specifier(row, "python", where), default,
            col.string(row, "torchvision", where), col.string(row, "torchaudio", where),
            tuple(variants), col.prov(row, where),
        ))
    _check_order([_series(r.version, col) for r in releases], col, "release", "version")
    return TorchMatrix(meta, tuple(releases))


def _parse_tensorflow(meta: MatrixMeta, data: dict[str, Any], col: _Collector) -> TensorflowMatrix:
    col.keys(data, _META_KEYS | {"release"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"version", "python", "cuda", "cudnn", "windows_native_gpu", "and_cuda"} | _PROV, where)
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
    _check_order([_series(r.version, col) for r in releases], col, "release", "version")
    return TensorflowMatrix(meta, tuple(releases))


def _series(text: str, col: _Collector) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        col.error("release", f"version {text!r} is not a version")
        return Version("0")


def _check_order(values: list[Version], col: _Collector, table: str, key: str) -> None:
    for i, (a, b) in enumerate(itertools.pairwise(values)):
        if b >= a:
            col.error(f"[[{table}]] #{i + 2}",
                      f"{key} {b} must be older than the row before it ({a}): newest first, no duplicates")


def _check_unique(values: list[Any], col: _Collector, table: str, key: str) -> None:
    seen: set[Any] = set()
    for value in values:
        if value in seen:
            col.error(f"[[{table}]]", f"duplicate {key} {value!r}")
        seen.add(value)


_SEVERITIES = ("error", "warning", "info")


def _parse_errors(meta: MatrixMeta, data: dict[str, Any], col: _Collector) -> ErrorsMatrix:
    col.keys(data, _META_KEYS | {"signature"}, "header")
    sigs = []
    for where, row in col.rows(data, "signature"):
        col.keys(row, {"id", "pattern", "code", "severity", "cause", "check", "examples"} | _PROV, where)
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
    _check_unique([s.id for s in sigs], col, "signature", "id")
    return ErrorsMatrix(meta, tuple(sigs))


# ---- parsers of the matrices added with schema 1 (jax, cudnn, nccl, cuda-images, gpu-peaks) ---


def _check_not_newer(values: list[Version], col: _Collector, table: str, key: str) -> None:
    """Newest first, equal values allowed (several rows per release)."""
    for i, (a, b) in enumerate(itertools.pairwise(values)):
        if b > a:
            col.error(f"[[{table}]] #{i + 2}",
                      f"{key} {b} must not be newer than the row before it ({a}): newest first")


_WHEEL_KEYS: Final = {"distribution", "cuda_major", "first", "last", "newest_seen"}
_WHEEL_NAME = re.compile(r"^nvidia-[a-z0-9-]+-cu\d+$")


def _parse_wheels(data: Mapping[str, Any], col: _Collector) -> tuple[WheelRange, ...]:
    wheels = []
    for where, row in col.rows(data, "wheel"):
        col.keys(row, _WHEEL_KEYS | _PROV, where)
        dist = col.string(row, "distribution", where, required=True)
        major = col.integer(row, "cuda_major", where, required=True)
        if dist is None or major is None:
            continue
        if not _WHEEL_NAME.match(dist) or not dist.endswith(f"-cu{major}"):
            col.error(where, f"distribution {dist!r} must be lower-case nvidia-...-cu{major}")
        first, last = col.version(row, "first", where), col.version(row, "last", where)
        newest = col.version(row, "newest_seen", where)
        if last is not None and newest is not None:
            col.error(where, "give 'last' (closed series) or 'newest_seen' (open series), not both")
        for top in (last, newest):
            if first is not None and top is not None and top < first:
                col.error(where, f"{top} is older than first {first}")
        wheels.append(WheelRange(dist, major, first, last, newest, col.prov(row, where)))
    _check_unique([w.distribution for w in wheels], col, "wheel", "distribution")
    return tuple(wheels)


_JAX_CUDA_KEYS: Final = {"major", "extra", "plugin", "built_with", "min_cuda", "cudnn", "nccl", "min_driver", "min_cc"}


def _parse_jax(meta: MatrixMeta, data: dict[str, Any], col: _Collector) -> JaxMatrix:
    col.keys(data, _META_KEYS | {"release"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"version", "released", "python", "cuda"} | _PROV, where)
        version = col.version(row, "version", where, required=True)
        if version is None:
            continue
        plugins = []
        for inner, crow in col.rows(row, "cuda"):
            cwhere = f"{where} {inner}"
            col.keys(crow, _JAX_CUDA_KEYS | _PROV, cwhere)
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
        _check_unique([p.major for p in plugins], col, f"{where} cuda", "major")
        releases.append(JaxRelease(
            version, col.date(row, "released", where), col.specifier(row, "python", where),
            tuple(plugins), col.prov(row, where),
        ))
    _check_order([r.version for r in releases], col, "release", "version")
    dated = [(r.version, r.released) for r in releases if r.released is not None]
    for (newer, d_new), (older, d_old) in itertools.pairwise(dated):
        if d_new < d_old:
            col.error("[[release]]", f"{newer} is dated {d_new}, before the older {older} ({d_old})")
    return JaxMatrix(meta, tuple(releases))


def _parse_cudnn(meta: MatrixMeta, data: dict[str, Any], col: _Collector) -> CudnnMatrix:
    col.keys(data, _META_KEYS | {"release", "arch_floor", "wheel"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        keys = {"cudnn", "cuda_major", "cuda", "linux_min_driver", "windows_min_driver", "min_cc", "max_cc"}
        col.keys(row, keys | _PROV, where)
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
    _check_not_newer([r.cudnn for r in releases], col, "release", "cudnn")
    _check_unique([(str(r.cudnn), r.cuda_major, str(r.cuda)) for r in releases], col, "release", "(cudnn, cuda)")
    floors = []
    for where, row in col.rows(data, "arch_floor"):
        col.keys(row, {"since", "cuda_majors", "min_cc"} | _PROV, where)
        since, low = col.version(row, "since", where, required=True), col.cc(row, "min_cc", where, required=True)
        majors = col.integers(row, "cuda_majors", where)
        if not majors:
            col.error(where, "cuda_majors must list at least one CUDA major")
        if since is None or low is None:
            continue
        floors.append(CudnnArchFloor(since, majors, low, col.prov(row, where)))
    _check_order([f.since for f in floors], col, "arch_floor", "since")
    return CudnnMatrix(meta, tuple(releases), tuple(floors), _parse_wheels(data, col))


def _parse_nccl(meta: MatrixMeta, data: dict[str, Any], col: _Collector) -> NcclMatrix:
    col.keys(data, _META_KEYS | {"image", "release", "wheel"}, "header")
    images = []
    for where, row in col.rows(data, "image"):
        col.keys(row, {"cuda_image", "nccl"} | _PROV, where)
        image = col.version(row, "cuda_image", where, required=True)
        shipped = col.version(row, "nccl", where, required=True)
        if image is None or shipped is None:
            continue
        images.append(NcclImage(image, shipped, col.prov(row, where)))
    _check_order([i.cuda_image for i in images], col, "image", "cuda_image")
    _check_not_newer([i.nccl for i in images], col, "image", "nccl")
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"nccl", "cuda"} | _PROV, where)
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
    _check_order([r.nccl for r in releases], col, "release", "nccl")
    return NcclMatrix(meta, tuple(images), tuple(releases), _parse_wheels(data, col))


_CUDNN_FLAVORS: Final = ("cudnn", "cudnn8", "cudnn9")


def _parse_cuda_images(meta: MatrixMeta, data: dict[str, Any], col: _Collector) -> CudaImagesMatrix:
    col.keys(data, _META_KEYS | {"image", "flavor"}, "header")
    images = []
    for where, row in col.rows(data, "image"):
        keys = {"cuda", "cudnn", "cudnn_flavor", "os", "require_cuda", "compat_branches", "brands"}
        col.keys(row, keys | _PROV, where)
        cuda = col.version(row, "cuda", where, required=True)
        if cuda is None:
            continue
        if len(cuda.release) != 3:
            col.error(where, f"cuda {cuda} must be the full image release x.y.z")
        cudnn, flavor = col.string(row, "cudnn", where), col.string(row, "cudnn_flavor", where)
        if (cudnn is None) != (flavor is None):
            col.error(where, "cudnn and cudnn_flavor go together")
        if flavor is not None and flavor not in _CUDNN_FLAVORS:
            col.error(where, f"cudnn_flavor must be one of {_CUDNN_FLAVORS}, got {flavor!r}")
        if cudnn is not None:
            col.version(row, "cudnn", where)
        require = col.version(row, "require_cuda", where)
        if require is not None and (require.major, require.minor) != (cuda.major, cuda.minor):
            col.error(where, f"require_cuda {require} does not match image {cuda}")
        os_tags = col.strings(row, "os", where)
        _check_unique(list(os_tags), col, f"{where} os", "tag")
        brands = tuple(b.lower() for b in col.strings(row, "brands", where))
        branches = col.integers(row, "compat_branches", where)
        if branches and not brands:
            col.error(where, "compat_branches need the brands they are accepted for")
        if list(branches) != sorted(set(branches)):
            col.error(where, "compat_branches must be ascending, without duplicates")
        images.append(CudaImage(cuda, cudnn, flavor, os_tags, require, branches, brands, col.prov(row, where)))
    _check_order([i.cuda for i in images], col, "image", "cuda")
    flavors = []
    for where, row in col.rows(data, "flavor"):
        col.keys(row, {"name", "contents", "cuda"} | _PROV, where)
        name = col.string(row, "name", where, required=True)
        contents = col.string(row, "contents", where, required=True)
        if name is None or contents is None:
            continue
        flavors.append(CudaImageFlavor(name, contents, col.optional_specifier(row, "cuda", where),
                                       col.prov(row, where)))
    _check_unique([f.name for f in flavors], col, "flavor", "name")
    return CudaImagesMatrix(meta, tuple(images), tuple(flavors))


_PEAK_FIGURES: Final = (
    "memory_gb", "bandwidth_gbs", "fp32_tflops", "tensor_bf16_tflops", "tensor_fp16_tflops",
    "tensor_fp16_fp16acc_tflops",
)


def _parse_gpu_peaks(meta: MatrixMeta, data: dict[str, Any], col: _Collector) -> GpuPeaksMatrix:
    col.keys(data, _META_KEYS | {"gpu"}, "header")
    gpus = []
    for where, row in col.rows(data, "gpu"):
        col.keys(row, {"name", "cc", "memory_type", "bf16", "unconfirmed", *_PEAK_FIGURES} | _PROV, where)
        name, cc = col.string(row, "name", where, required=True), col.cc(row, "cc", where, required=True)
        if name is None or cc is None:
            continue
        figures = {key: col.number(row, key, where) for key in _PEAK_FIGURES}
        bf16 = col.flag(row, "bf16", where)
        if bf16 is False and figures["tensor_bf16_tflops"] is not None:
            col.error(where, "bf16 = false but tensor_bf16_tflops is given")
        unconfirmed = col.strings(row, "unconfirmed", where)
        for figure in unconfirmed:
            if figure not in _PEAK_FIGURES:
                col.error(where, f"unconfirmed names {figure!r}, which is not a figure ({', '.join(_PEAK_FIGURES)})")
            elif figures.get(figure) is None:
                col.error(where, f"unconfirmed names {figure!r}, which has no value")
        gpus.append(GpuPeak(
            name, cc, figures["memory_gb"], col.string(row, "memory_type", where), figures["bandwidth_gbs"],
            figures["fp32_tflops"], bf16, figures["tensor_bf16_tflops"], figures["tensor_fp16_tflops"],
            figures["tensor_fp16_fp16acc_tflops"], unconfirmed, col.prov(row, where),
        ))
    _check_unique([_norm_gpu(g.name) for g in gpus], col, "gpu", "name")
    return GpuPeaksMatrix(meta, tuple(gpus))


_PADDLE_VARIANT_KEYS: Final = {"tag", "cuda", "cudnn", "post", "index_url", "min_driver", "min_cc"}
_PADDLE_SERIES = re.compile(r"^\d+\.\d+$")


def _parse_paddle(meta: MatrixMeta, data: dict[str, Any], col: _Collector) -> PaddleMatrix:
    col.keys(data, _META_KEYS | {"release", "version_field"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"version", "python", "default_variant", "variant"} | _PROV, where)
        version = col.string(row, "version", where, required=True)
        if version is None:
            continue
        if not _PADDLE_SERIES.match(version):
            col.error(where, f"version {version!r} must be a minor series like '2.6'")
        variants = []
        for inner, vrow in col.rows(row, "variant"):
            vwhere = f"{where} {inner}"
            col.keys(vrow, _PADDLE_VARIANT_KEYS | _PROV, vwhere)
            tag, cuda = col.string(vrow, "tag", vwhere, required=True), col.string(vrow, "cuda", vwhere, required=True)
            if tag is None or cuda is None:
                continue
            digits = cuda.replace(".", "")
            if col.version(vrow, "cuda", vwhere) is None or tag != f"cu{digits}":
                col.error(vwhere, f"tag {tag} does not match cuda {cuda}")
            post = col.string(vrow, "post", vwhere)
            if post is not None and post != f"post{digits}":
                col.error(vwhere, f"post {post!r} must be 'post{digits}' (the CUDA version, as Paddle names it)")
            cudnn = col.string(vrow, "cudnn", vwhere)
            if cudnn is not None:
                col.version(vrow, "cudnn", vwhere)
            index_url = col.string(vrow, "index_url", vwhere)
            if index_url is not None and not index_url.startswith("https://"):
                col.error(vwhere, f"index_url must be an https URL, got {index_url!r}")
            if post is not None and index_url is not None:
                col.error(vwhere, "a .post build was published on find-links pages, not a package index: "
                                  "give post or index_url, not both")
            variants.append(PaddleVariant(
                tag, cuda, cudnn, post, index_url, col.version(vrow, "min_driver", vwhere),
                col.cc(vrow, "min_cc", vwhere), col.prov(vrow, vwhere),
            ))
        if not variants:
            col.error(where, "a release needs at least one [[release.variant]]")
        _check_unique([v.tag for v in variants], col, f"{where} variant", "tag")
        _check_unique([v.post for v in variants if v.post is not None], col, f"{where} variant", "post")
        default = col.string(row, "default_variant", where)
        if default is not None:
            chosen = next((v for v in variants if v.tag == default), None)
            if chosen is None:
                col.error(where, f"default_variant {default!r} is not one of its variants")
            elif chosen.post is not None:
                col.error(where, f"default_variant {default!r} carries {chosen.post}: the default-index wheel has none")
        releases.append(PaddleRelease(
            version, col.specifier(row, "python", where), default, tuple(variants), col.prov(row, where),
        ))
    _check_order([_series(r.version, col) for r in releases], col, "release", "version")
    fields = []
    for where, row in col.rows(data, "version_field"):
        col.keys(row, {"name", "meaning", "cpu_value"} | _PROV, where)
        name, meaning = col.string(row, "name", where, required=True), col.string(row, "meaning", where, required=True)
        if name is None or meaning is None:
            continue
        if not name.isidentifier():
            col.error(where, f"name {name!r} is not a Python identifier")
        fields.append(PaddleVersionField(name, meaning, col.string(row, "cpu_value", where), col.prov(row, where)))
    _check_unique([f.name for f in fields], col, "version_field", "name")
    return PaddleMatrix(meta, tuple(releases), tuple(fields))
