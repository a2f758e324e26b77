"""cuda-images.toml: nvidia/cuda container images, flavours and the OSes (with their Pythons)."""

from __future__ import annotations

import logging
import re
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


@dataclass(frozen=True, slots=True)
class L4tRelease:
    """A Jetson Linux (L4T) release line, the JetPack it ships in, and the CUDA its driver and containers carry."""

    #: L4T release as major.minor ("32.6", "35.4").
    l4t: Version
    #: The JetPack release ("4.6", "5.1.2").
    jetpack: Version
    #: The CUDA of that JetPack (major.minor): the newest CUDA its driver runs, and the CUDA its containers carry.
    cuda: Version
    prov: Provenance


@dataclass(frozen=True, slots=True)
class NgcRelease:
    """A monthly NGC framework-container release (nvcr.io/nvidia/pytorch:21.10-py3, tensorflow:21.10-tf2-py3,
    tritonserver:21.10-py3 ...): every container of one release is built on the same CUDA, with one driver floor."""

    #: The release as YY.MM ("21.10").
    release: Version
    #: The CUDA it is based on ("11.4.2").
    cuda: Version
    #: The driver it requires ("470", "465.19.01"): the release notes' "requires NVIDIA Driver release N or later".
    driver: str
    #: The older data-center driver floors that forward compatibility admits ("418.40", "440.33", ...).
    datacenter: tuple[str, ...]
    prov: Provenance


def _release_key(text: str) -> Version | None:
    """"r32.6.1" / "R35.4" / "32.7" → a Version; None when not a release number."""
    try:
        return Version(text.strip().lstrip("rR"))
    except InvalidVersion:
        return None


def _agreed_cuda(rows: list[L4tRelease]) -> L4tRelease | None:
    """The one row whose CUDA every candidate shares (rows of one release line that agree), else None."""
    if not rows or len({(r.cuda.major, r.cuda.minor) for r in rows}) != 1:
        return None
    return rows[0]


_IMAGE_TAG = re.compile(r"^(?P<cuda>\d+\.\d+(?:\.\d+)?)-(?P<flavor>[a-z0-9-]+?)-(?P<os>[a-z]+[0-9.]*)$")


@dataclass(frozen=True, slots=True)
class CudaImagesMatrix:
    """nvidia/cuda image releases, newest first, and the image flavours."""

    meta: MatrixMeta
    images: tuple[CudaImage, ...]
    flavors: tuple[CudaImageFlavor, ...]
    oses: tuple[ImageOs, ...] = ()
    l4t_releases: tuple[L4tRelease, ...] = ()
    ngc_releases: tuple[NgcRelease, ...] = ()

    def ngc(self, release: str) -> NgcRelease | None:
        """The row of NGC release ``release`` ("21.10"); None when the table does not have it."""
        try:
            v = Version(release.strip())
        except InvalidVersion:
            return None
        return next((r for r in self.ngc_releases if r.release == v), None)

    def l4t(self, release: str) -> L4tRelease | None:
        """The L4T line of ``release`` ("r32.6.1", "35.4"): its major.minor row, or the row its major shares with
        every other row of that major (all r35 rows carry CUDA 11.4); None when unknown or ambiguous."""
        v = _release_key(release)
        if v is None:
            return None
        exact = [r for r in self.l4t_releases if (r.l4t.major, r.l4t.minor) == (v.major, v.minor)]
        if exact:
            return exact[0]
        return _agreed_cuda([r for r in self.l4t_releases if r.l4t.major == v.major])

    def jetpack(self, release: str) -> L4tRelease | None:
        """The row of JetPack ``release`` ("4.6", "5.1.2"): exact, else its major.minor, else its major, each only
        when the candidate rows agree on the CUDA."""
        v = _release_key(release)
        if v is None:
            return None
        exact = [r for r in self.l4t_releases if r.jetpack == v]
        if exact:
            return exact[0]
        same_minor = [r for r in self.l4t_releases if (r.jetpack.major, r.jetpack.minor) == (v.major, v.minor)]
        if same_minor:
            return _agreed_cuda(same_minor)
        return _agreed_cuda([r for r in self.l4t_releases if r.jetpack.major == v.major])

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


_CUDNN_FLAVORS: Final = ("cudnn", "cudnn8", "cudnn9")


_OS_FAMILIES: Final = ("apt", "dnf")


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> CudaImagesMatrix:
    col.keys(data, META_KEYS | {"image", "flavor", "os", "l4t", "ngc"}, "header")
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
    return CudaImagesMatrix(meta, tuple(images), tuple(flavors), _parse_oses(data, col), _parse_l4t(data, col),
                            _parse_ngc(data, col))


def _parse_l4t(data: dict[str, Any], col: Collector) -> tuple[L4tRelease, ...]:
    rows = []
    for where, row in col.rows(data, "l4t"):
        col.keys(row, {"l4t", "jetpack", "cuda"} | PROV_KEYS, where)
        l4t = col.version(row, "l4t", where, required=True)
        jetpack = col.version(row, "jetpack", where, required=True)
        cuda = col.version(row, "cuda", where, required=True)
        if l4t is None or jetpack is None or cuda is None:
            continue
        if len(l4t.release) != 2:
            col.error(where, f"l4t {l4t} must be a release line major.minor (\"35.4\")")
        rows.append(L4tRelease(l4t, jetpack, cuda, col.prov(row, where)))
    check_order([r.l4t for r in rows], col, "l4t", "l4t")
    return tuple(rows)


_NGC_RELEASE = re.compile(r"^\d{2}\.(?:0[1-9]|1[0-2])$")
_DRIVER_FLOOR = re.compile(r"^\d{3}(?:\.\d{1,3}){0,2}$")


def _parse_ngc(data: dict[str, Any], col: Collector) -> tuple[NgcRelease, ...]:
    rows = []
    for where, row in col.rows(data, "ngc"):
        col.keys(row, {"release", "cuda", "driver", "datacenter"} | PROV_KEYS, where)
        text = col.string(row, "release", where, required=True)
        cuda = col.version(row, "cuda", where, required=True)
        driver = col.string(row, "driver", where, required=True)
        if text is None or cuda is None or driver is None:
            continue
        if not _NGC_RELEASE.match(text):
            col.error(where, f"release {text!r} must be YY.MM (\"21.10\")")
            continue
        floors = col.strings(row, "datacenter", where)
        for floor in (driver, *floors):
            if not _DRIVER_FLOOR.match(floor):
                col.error(where, f"driver floor {floor!r} must be a driver version (\"470\", \"465.19.01\")")
        rows.append(NgcRelease(Version(text), cuda, driver, floors, col.prov(row, where)))
    check_order([r.release for r in rows], col, "ngc", "release")
    return tuple(rows)


_PEAK_FIGURES: Final = (
    "memory_gb", "bandwidth_gbs", "fp32_tflops", "tensor_bf16_tflops", "tensor_fp16_tflops",
    "tensor_fp16_fp16acc_tflops",
)


