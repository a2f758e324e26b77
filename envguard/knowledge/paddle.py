"""paddle.toml: PaddlePaddle releases and GPU builds."""

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
    series_version,
)

logger = logging.getLogger(__name__)

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
    #: cuDNN of the TensorRT build Tables.md also lists for this CUDA under the same version string (2.0/2.1
    #: "with-trt" wheels: cuda10.2-cudnn8.1-trt7 beside cuda10.2-cudnn7); None when there is none.
    trt_cudnn: str | None = None

    def cudnn_builds(self) -> tuple[str, ...]:
        """Every cuDNN a wheel of this CUDA build was made with (the plain build's, then the TensorRT one's)."""
        return tuple(c for c in (self.cudnn, self.trt_cudnn) if c)


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

    def cuda_builds(self, cuda: str, *, same_major: bool = False) -> tuple[tuple[PaddleRelease, PaddleVariant], ...]:
        """Every release's build for this CUDA ("10.2"), newest release first; with ``same_major`` every build of
        that CUDA major (a CUDA 11 runtime serves any 11.x build: libcudart.so.11.0)."""
        try:
            want = Version(cuda)
        except InvalidVersion:
            return ()
        out = []
        for release in self.releases:
            for v in release.variants:
                have = Version(v.cuda)
                if have.release[:2] == want.release[:2] or (same_major and have.major == want.major):
                    out.append((release, v))
        return tuple(out)

    def newest(self) -> Version | None:
        """Newest series known."""
        return max((Version(r.version) for r in self.releases), default=None)

    def field(self, name: str) -> PaddleVersionField | None:
        """The paddle/version/__init__.py field called ``name`` ("cuda_version")."""
        return next((f for f in self.version_fields if f.name == name), None)


_PADDLE_SERIES = re.compile(r"^\d+\.\d+$")


_PADDLE_VARIANT_KEYS: Final = {"tag", "cuda", "cudnn", "trt_cudnn", "post", "index_url", "min_driver", "min_cc"}


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> PaddleMatrix:
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
            trt_cudnn = col.string(vrow, "trt_cudnn", vwhere)
            if trt_cudnn is not None:
                col.version(vrow, "trt_cudnn", vwhere)
                if cudnn is None:
                    col.error(vwhere, "trt_cudnn needs the plain build's cudnn too")
            index_url = col.string(vrow, "index_url", vwhere)
            if index_url is not None and not index_url.startswith("https://"):
                col.error(vwhere, f"index_url must be an https URL, got {index_url!r}")
            if post is not None and index_url is not None:
                col.error(vwhere, "a .post build was published on find-links pages, not a package index: "
                                  "give post or index_url, not both")
            variants.append(PaddleVariant(
                tag, cuda, cudnn, post, index_url, col.version(vrow, "min_driver", vwhere),
                col.cc(vrow, "min_cc", vwhere), col.prov(vrow, vwhere), trt_cudnn,
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
