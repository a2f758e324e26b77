"""Matrices that only some commands consult (jax, cuDNN, NCCL, CUDA images, GPU peaks, Paddle).

Kept out of ``envguard.matrix`` so that `envguard check` does not pay for defining their row types.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from envguard.matrix_base import (
    META_KEYS,
    PROV_KEYS,
    Collector,
    MatrixMeta,
    Provenance,
    check_order,
    check_unique,
    norm_gpu,
    series_version,
)

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


@dataclass(frozen=True, slots=True)
class OsPython:
    """A Python minor an image OS's own archive ships, and the packages that install it."""

    #: Major.minor ("3.11").
    version: str
    #: Package that installs the interpreter ("python3" for the default, "python3.11" for another minor).
    package: str
    #: Package that makes ``python -m venv`` work ("python3-venv", "python3.11-venv").
    venv_package: str


@dataclass(frozen=True, slots=True)
class ImageOs:
    """An image OS tag ("ubuntu22.04") and the Python minors its own package manager can install."""

    tag: str
    #: Package-manager family: "apt" or "dnf".
    family: str
    #: The minor /usr/bin/python3 is ("3.10").
    python_default: str
    #: Every minor the OS's own archive ships, the default included; a minor not listed is unknown or absent.
    pythons: tuple[OsPython, ...]
    prov: Provenance

    def python(self, version: str) -> OsPython | None:
        """The entry for ``version``'s major.minor ("3.11" or "3.11.7"); None when not listed or not a version."""
        key = _minor(version)
        return next((p for p in self.pythons if p.version == key), None) if key else None


def _minor(version: str) -> str | None:
    """``"3.11.7"`` → ``"3.11"``; None when the text is not a version with at least a minor."""
    try:
        v = Version(version.strip())
    except InvalidVersion:
        return None
    return f"{v.major}.{v.minor}" if len(v.release) >= 2 else None


_IMAGE_TAG = re.compile(r"^(?P<cuda>\d+\.\d+(?:\.\d+)?)-(?P<flavor>[a-z0-9-]+?)-(?P<os>[a-z]+[0-9.]*)$")


@dataclass(frozen=True, slots=True)
class CudaImagesMatrix:
    """nvidia/cuda image releases, newest first, and the image flavours."""

    meta: MatrixMeta
    images: tuple[CudaImage, ...]
    flavors: tuple[CudaImageFlavor, ...]
    oses: tuple[ImageOs, ...] = ()

    def image(self, cuda: str) -> CudaImage | None:
        """The row for image release ``cuda`` ("12.4.1"), or the image tag that starts with it."""
        parsed = parse_image_tag(cuda)
        text = parsed[0] if parsed else cuda
        try:
            v = Version(text)
        except InvalidVersion:
            return None
        return next((i for i in self.images if i.cuda == v), None)

    def os_for(self, tag: str) -> ImageOs | None:
        """The row for OS tag ``tag`` ("ubuntu22.04"), or the OS of a full image tag; None when unknown."""
        parsed = parse_image_tag(tag)
        key = (parsed[2] if parsed else tag).strip().lower()
        return next((o for o in self.oses if o.tag == key), None)

    def oses_with_python(self, version: str) -> tuple[ImageOs, ...]:
        """The OS rows whose own archive ships ``version``'s major.minor ("3.11", "3.11.7")."""
        return tuple(o for o in self.oses if o.python(version) is not None)


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
        key = norm_gpu(name)
        return next((g for g in self.gpus if norm_gpu(g.name) == key), None)


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


# ---- parsers of the matrices added with schema 1 (jax, cudnn, nccl, cuda-images, gpu-peaks) ---


def _check_not_newer(values: list[Version], col: Collector, table: str, key: str) -> None:
    """Newest first, equal values allowed (several rows per release)."""
    for i, (a, b) in enumerate(itertools.pairwise(values)):
        if b > a:
            col.error(f"[[{table}]] #{i + 2}",
                      f"{key} {b} must not be newer than the row before it ({a}): newest first")


_WHEEL_KEYS: Final = {"distribution", "cuda_major", "first", "last", "newest_seen"}
_WHEEL_NAME = re.compile(r"^nvidia-[a-z0-9-]+-cu\d+$")


def _parse_wheels(data: Mapping[str, Any], col: Collector) -> tuple[WheelRange, ...]:
    wheels = []
    for where, row in col.rows(data, "wheel"):
        col.keys(row, _WHEEL_KEYS | PROV_KEYS, where)
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
    check_unique([w.distribution for w in wheels], col, "wheel", "distribution")
    return tuple(wheels)


_JAX_CUDA_KEYS: Final = {"major", "extra", "plugin", "built_with", "min_cuda", "cudnn", "nccl", "min_driver", "min_cc"}


def parse_jax(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> JaxMatrix:
    col.keys(data, META_KEYS | {"release"}, "header")
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
    return JaxMatrix(meta, tuple(releases))


def parse_cudnn(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> CudnnMatrix:
    col.keys(data, META_KEYS | {"release", "arch_floor", "wheel"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        keys = {"cudnn", "cuda_major", "cuda", "linux_min_driver", "windows_min_driver", "min_cc", "max_cc"}
        col.keys(row, keys | PROV_KEYS, where)
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
    check_unique([(str(r.cudnn), r.cuda_major, str(r.cuda)) for r in releases], col, "release", "(cudnn, cuda)")
    floors = []
    for where, row in col.rows(data, "arch_floor"):
        col.keys(row, {"since", "cuda_majors", "min_cc"} | PROV_KEYS, where)
        since, low = col.version(row, "since", where, required=True), col.cc(row, "min_cc", where, required=True)
        majors = col.integers(row, "cuda_majors", where)
        if not majors:
            col.error(where, "cuda_majors must list at least one CUDA major")
        if since is None or low is None:
            continue
        floors.append(CudnnArchFloor(since, majors, low, col.prov(row, where)))
    check_order([f.since for f in floors], col, "arch_floor", "since")
    return CudnnMatrix(meta, tuple(releases), tuple(floors), _parse_wheels(data, col))


def parse_nccl(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> NcclMatrix:
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
    _check_not_newer([i.nccl for i in images], col, "image", "nccl")
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
    return NcclMatrix(meta, tuple(images), tuple(releases), _parse_wheels(data, col))


_CUDNN_FLAVORS: Final = ("cudnn", "cudnn8", "cudnn9")


_OS_FAMILIES: Final = ("apt", "dnf")
_PYTHON_MINOR = re.compile(r"^\d+\.\d+$")


def _parse_oses(data: dict[str, Any], col: Collector) -> tuple[ImageOs, ...]:
    oses = []
    for where, row in col.rows(data, "os"):
        col.keys(row, {"tag", "family", "python_default", "python"} | PROV_KEYS, where)
        tag, family = col.string(row, "tag", where, required=True), col.string(row, "family", where, required=True)
        default = col.string(row, "python_default", where, required=True)
        prov = col.prov(row, where)
        if family is not None and family not in _OS_FAMILIES:
            col.error(where, f"family must be one of {_OS_FAMILIES}, got {family!r}")
        if default is not None and not _PYTHON_MINOR.match(default):
            col.error(where, f"python_default {default!r} must be a Python minor like '3.11'")
        pythons = []
        for inner, prow in col.rows(row, "python"):
            pwhere = f"{where} {inner}"
            col.keys(prow, {"version", "package", "venv_package"}, pwhere)
            version = col.string(prow, "version", pwhere, required=True)
            package = col.string(prow, "package", pwhere, required=True)
            venv = col.string(prow, "venv_package", pwhere, required=True)
            if version is not None and not _PYTHON_MINOR.match(version):
                col.error(pwhere, f"version {version!r} must be a Python minor like '3.11'")
                continue
            if version is None or package is None or venv is None:
                continue
            pythons.append(OsPython(version, package, venv))
        if not pythons:
            col.error(where, "an os needs at least one [[os.python]]")
        check_unique([p.version for p in pythons], col, f"{where} python", "version")
        if default is not None and pythons and default not in {p.version for p in pythons}:
            col.error(where, f"python_default {default} is not one of its [[os.python]] versions")
        if tag is None or family is None or default is None:
            continue
        if tag != tag.strip().lower():
            col.error(where, f"tag {tag!r} must be lower-case, without spaces")
        oses.append(ImageOs(tag, family, default, tuple(pythons), prov))
    check_unique([o.tag for o in oses], col, "os", "tag")
    return tuple(oses)


def parse_cuda_images(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> CudaImagesMatrix:
    col.keys(data, META_KEYS | {"image", "flavor", "os"}, "header")
    images = []
    for where, row in col.rows(data, "image"):
        keys = {"cuda", "cudnn", "cudnn_flavor", "os", "require_cuda", "compat_branches", "brands"}
        col.keys(row, keys | PROV_KEYS, where)
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
        check_unique(list(os_tags), col, f"{where} os", "tag")
        brands = tuple(b.lower() for b in col.strings(row, "brands", where))
        branches = col.integers(row, "compat_branches", where)
        if branches and not brands:
            col.error(where, "compat_branches need the brands they are accepted for")
        if list(branches) != sorted(set(branches)):
            col.error(where, "compat_branches must be ascending, without duplicates")
        images.append(CudaImage(cuda, cudnn, flavor, os_tags, require, branches, brands, col.prov(row, where)))
    check_order([i.cuda for i in images], col, "image", "cuda")
    flavors = []
    for where, row in col.rows(data, "flavor"):
        col.keys(row, {"name", "contents", "cuda"} | PROV_KEYS, where)
        name = col.string(row, "name", where, required=True)
        contents = col.string(row, "contents", where, required=True)
        if name is None or contents is None:
            continue
        flavors.append(CudaImageFlavor(name, contents, col.optional_specifier(row, "cuda", where),
                                       col.prov(row, where)))
    check_unique([f.name for f in flavors], col, "flavor", "name")
    return CudaImagesMatrix(meta, tuple(images), tuple(flavors), _parse_oses(data, col))


_PEAK_FIGURES: Final = (
    "memory_gb", "bandwidth_gbs", "fp32_tflops", "tensor_bf16_tflops", "tensor_fp16_tflops",
    "tensor_fp16_fp16acc_tflops",
)


def parse_gpu_peaks(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> GpuPeaksMatrix:
    col.keys(data, META_KEYS | {"gpu"}, "header")
    gpus = []
    for where, row in col.rows(data, "gpu"):
        col.keys(row, {"name", "cc", "memory_type", "bf16", "unconfirmed", *_PEAK_FIGURES} | PROV_KEYS, where)
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
    check_unique([norm_gpu(g.name) for g in gpus], col, "gpu", "name")
    return GpuPeaksMatrix(meta, tuple(gpus))


_PADDLE_VARIANT_KEYS: Final = {"tag", "cuda", "cudnn", "post", "index_url", "min_driver", "min_cc"}
_PADDLE_SERIES = re.compile(r"^\d+\.\d+$")


def parse_paddle(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> PaddleMatrix:
    col.keys(data, META_KEYS | {"release", "version_field"}, "header")
    releases = []
    for where, row in col.rows(data, "release"):
        col.keys(row, {"version", "python", "default_variant", "variant"} | PROV_KEYS, where)
        version = col.string(row, "version", where, required=True)
        if version is None:
            continue
        if not _PADDLE_SERIES.match(version):
            col.error(where, f"version {version!r} must be a minor series like '2.6'")
        variants = []
        for inner, vrow in col.rows(row, "variant"):
            vwhere = f"{where} {inner}"
            col.keys(vrow, _PADDLE_VARIANT_KEYS | PROV_KEYS, vwhere)
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
        check_unique([v.tag for v in variants], col, f"{where} variant", "tag")
        check_unique([v.post for v in variants if v.post is not None], col, f"{where} variant", "post")
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
    check_order([series_version(r.version, col) for r in releases], col, "release", "version")
    fields = []
    for where, row in col.rows(data, "version_field"):
        col.keys(row, {"name", "meaning", "cpu_value"} | PROV_KEYS, where)
        name, meaning = col.string(row, "name", where, required=True), col.string(row, "meaning", where, required=True)
        if name is None or meaning is None:
            continue
        if not name.isidentifier():
            col.error(where, f"name {name!r} is not a Python identifier")
        fields.append(PaddleVersionField(name, meaning, col.string(row, "cpu_value", where), col.prov(row, where)))
    check_unique([f.name for f in fields], col, "version_field", "name")
    return PaddleMatrix(meta, tuple(releases), tuple(fields))
