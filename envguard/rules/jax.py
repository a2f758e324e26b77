"""JAX CUDA plugin rules: cudnn-mismatch / nccl-mismatch against the ranges the jax-cudaN-plugin accepts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envguard.findings import Evidence, Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import applicable_requirements, build_evidence, ev, version
from envguard.snapshot import Snapshot, normalize_name

if TYPE_CHECKING:  # NOTE: the jax table's types only; `check` without jax never imports its module
    from envguard.knowledge.jax import JaxRelease

#: (library, wheel prefix, finding code, JaxCuda attribute)
_LIBRARIES = (("cuDNN", "nvidia-cudnn", "cudnn-mismatch", "cudnn"), ("NCCL", "nvidia-nccl", "nccl-mismatch", "nccl"))


class JaxPluginRule:
    """The cuDNN and NCCL wheels next to a jax-cudaN-plugin must be in the range that plugin accepts."""

    id = "jax-plugin"
    summary = "cuDNN/NCCL wheels are in the range the installed jax CUDA plugin accepts"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield cudnn-mismatch / nccl-mismatch findings for the jax build."""
        build = snapshot.framework("jax")
        if build is None or build.accelerator != "cuda" or build.cuda is None or not build.cuda.isdigit():
            return
        major = int(build.cuda)
        plugin = f"jax-cuda{major}-plugin"
        packages = snapshot.package_map()
        if plugin not in packages:
            return
        row = self._row(build.version, matrices)
        for label, prefix, code, attr in _LIBRARIES:
            wheel = f"{prefix}-cu{major}"
            have = packages.get(wheel)
            if have is None or version(have.version) is None:
                continue  # not installed: the plugin loads the system library (or cuda-libs-missing says so)
            spec, where = self._range(snapshot, plugin, wheel, row, major, attr)
            if spec is None or spec.contains(have.version, prereleases=True):
                continue
            yield Finding(
                code, Severity.ERROR,
                f"jax {build.version}'s {plugin} accepts {label} {spec}, but {wheel} {have.version} is installed, "
                f"so jax cannot use the GPU (it fails to load {label} or falls back to the CPU).",
                (build_evidence(build, snapshot), where, ev(wheel, have.version, "target interpreter distributions")),
                f"pip install '{wheel}{spec}'  # or pip install -U 'jax[cuda{major}]', which installs a matching set",
                row.prov.source if row is not None else None, "jax",
            )

    @staticmethod
    def _row(jax_version: str, matrices: Matrices) -> JaxRelease | None:
        """The jax.toml row for this release, only when the matrices cover it (not a release newer than them)."""
        row, newest = matrices.jax.release(jax_version), matrices.jax.newest()
        v = version(jax_version)
        if row is None or newest is None or v is None:
            return None
        public = Version(v.public)
        if public > newest and (public.major, public.minor) != (newest.major, newest.minor):
            return None  # newer than the matrices: its ranges are unknown, not the newest row's
        return row

    @staticmethod
    def _range(
        snapshot: Snapshot, plugin: str, wheel: str, row: JaxRelease | None, major: int, attr: str
    ) -> tuple[SpecifierSet | None, Evidence]:
        """The plugin's own Requires-Dist pin (its with-cuda extra) first, then the jax.toml row."""
        for extra in ("with-cuda", ""):
            for pin in applicable_requirements(snapshot, plugin, "nvidia-", extra=extra):
                if normalize_name(pin.requirement.name) == wheel and pin.requirement.specifier:
                    return pin.requirement.specifier, ev(f"{plugin} requires", str(pin.requirement),
                                                         f"{plugin} Requires-Dist")
        cuda = row.plugin(major) if row is not None else None
        spec = getattr(cuda, attr, None) if cuda is not None else None
        if row is None or not isinstance(spec, SpecifierSet):
            return None, ev(plugin, "range unknown", "jax.toml")
        return spec, ev(f"{plugin} accepts", f"{wheel}{spec}", f"jax.toml {row.version} cuda{major}")

