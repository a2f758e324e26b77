"""Reproducibility fingerprint: canonical JSON of named components → sha256, components kept for diffs."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from envguard._redact import is_secret_name
from envguard.errors import InputError
from envguard.smoke.base import SmokeRun
from envguard.snapshot import DriverInfo, PythonInfo, RuntimeReport, Snapshot, Unavailable

#: Bump when the same environment would produce a different digest (every stored fingerprint changes).
FINGERPRINT_SCHEME: Final = 1
FINGERPRINT_FILE_VERSION: Final = 1
#: Environment variables that change numerics or what runs; everything else (and hostnames, UUIDs,
#: timestamps) is left out so that equal environments get equal fingerprints.
NUMERIC_ENV: Final = (
    "CUBLAS_WORKSPACE_CONFIG", "CUDA_VISIBLE_DEVICES", "PYTHONHASHSEED", "NVIDIA_TF32_OVERRIDE",
    "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "CUDA_LAUNCH_BLOCKING", "TF_DETERMINISTIC_OPS", "TF_CUDNN_DETERMINISTIC",
    "XLA_FLAGS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTORCH_CUDA_ALLOC_CONF",
)
NUMERIC_ENV_PREFIXES: Final = ("NCCL_",)


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A digest and the components it was computed from."""

    scheme: int
    digest: str
    components: Mapping[str, str]
    #: name → version of every distribution the ``packages`` component hashes (not hashed itself: kept so a
    #: diff can name what was added, removed or changed). Empty in files from envguard versions without it.
    packages: Mapping[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The one written form of the fingerprint: ``sha256:<hex>``."""
        return f"sha256:{self.digest}"

    def to_dict(self) -> dict[str, Any]:
        """The versioned file form."""
        doc: dict[str, Any] = {"schema_version": FINGERPRINT_FILE_VERSION, "scheme": self.scheme,
                               "digest": self.digest, "components": dict(sorted(self.components.items()))}
        if self.packages:
            doc["packages"] = dict(sorted(self.packages.items()))
        return doc

    @classmethod
    def from_dict(cls, data: Any, name: str = "fingerprint") -> Fingerprint:
        """Read a fingerprint file (or an envguard JSON envelope that carries one).

        :raises InputError: unknown version or malformed content.
        """
        if isinstance(data, Mapping) and isinstance(data.get("fingerprint"), Mapping):
            data = data["fingerprint"]
        if not isinstance(data, Mapping) or "digest" not in data or "components" not in data:
            raise InputError(f"{name} is not an envguard fingerprint (no digest/components)")
        if data.get("schema_version") is None:
            raise InputError(f"{name} has no schema_version: not an envguard fingerprint file")
        if data.get("schema_version") != FINGERPRINT_FILE_VERSION:
            raise InputError(f"{name}: fingerprint schema_version {data.get('schema_version')!r} is not supported "
                             f"(this envguard reads {FINGERPRINT_FILE_VERSION})")
        components = data["components"]
        if not isinstance(components, Mapping):
            raise InputError(f"{name}: components must be an object")
        scheme = data.get("scheme")
        if not isinstance(scheme, int):
            raise InputError(f"{name}: scheme must be an integer")
        packages = data.get("packages", {})
        if not isinstance(packages, Mapping):
            raise InputError(f"{name}: packages must be an object")
        return cls(scheme, str(data["digest"]), {str(k): str(v) for k, v in components.items()},
                   {str(k): str(v) for k, v in packages.items()})


def _digest(components: Mapping[str, str]) -> str:
    canonical = json.dumps(dict(sorted(components.items())), sort_keys=True, separators=(",", ":"),
                           ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def environment_components(snapshot: Snapshot) -> dict[str, str]:
    """The parts of a snapshot that decide what runs and how numbers come out."""
    out: dict[str, str] = {}
    driver = snapshot.driver
    out["driver"] = driver.version or "unknown" if isinstance(driver, DriverInfo) else "none"
    if isinstance(driver, DriverInfo) and driver.cuda_driver_version:
        out["driver.cuda"] = driver.cuda_driver_version
    gpus = snapshot.gpu_list()
    out["gpus"] = ", ".join(f"{g.name} (cc {g.compute_capability or '?'})" for g in gpus) or "none"
    tk = snapshot.toolkit_list()
    if tk:
        out["cuda.toolkit"] = ", ".join(sorted(t.build or t.version for t in tk))
    for label, component in (("cudnn", snapshot.cudnn), ("nccl", snapshot.nccl)):
        if not isinstance(component, Unavailable):
            out[label] = ", ".join(sorted({c.version for c in component}))
    python = snapshot.python
    if isinstance(python, PythonInfo):
        out["python"] = f"{python.implementation} {python.version}" + (" (free-threaded)" if python.free_threaded
                                                                       else "")
    for fw in snapshot.frameworks:
        detail = f"{fw.version} {fw.accelerator or '?'}" + (f" cuda {fw.cuda}" if fw.cuda else "")
        runtime = fw.runtime
        if isinstance(runtime, RuntimeReport):
            if runtime.cudnn:
                detail += f" cudnn {runtime.cudnn}"
            if runtime.nccl:
                detail += f" nccl {runtime.nccl}"
        out[f"framework.{fw.name}"] = detail
    if not isinstance(snapshot.packages, Unavailable):
        listing = "\n".join(sorted(f"{p.name.lower()}=={p.version}" for p in snapshot.packages))
        digest = hashlib.sha256(listing.encode()).hexdigest()
        out["packages"] = f"{len(snapshot.packages)} distributions, sha256 {digest}"
    for key, value in sorted(snapshot.environment.items()):
        if (key in NUMERIC_ENV or key.startswith(NUMERIC_ENV_PREFIXES)) and not is_secret_name(key):
            out[f"env.{key}"] = value
    return out


def result_components(run: SmokeRun) -> dict[str, str]:
    """Per case: status and the digests of its result tensors (dtype and device are in the names)."""
    out: dict[str, str] = {}
    for result in run.results:
        out[f"result.{result.case}.status"] = result.status.value
        for name, digest in sorted(result.digests.items()):
            out[f"result.{result.case}.{name}"] = digest
    return out


def make_fingerprint(components: Mapping[str, str], packages: Mapping[str, str] | None = None) -> Fingerprint:
    """Hash the components (``packages``, the listing behind the packages component, is kept, not hashed)."""
    return Fingerprint(FINGERPRINT_SCHEME, _digest(components), dict(components), dict(packages or {}))


def fingerprint_of(snapshot: Snapshot, run: SmokeRun | None = None) -> Fingerprint:
    """The environment's fingerprint, with smoke results when given."""
    components = environment_components(snapshot)
    if run is not None:
        components.update(result_components(run))
    packages = {} if isinstance(snapshot.packages, Unavailable) else {
        p.name.lower(): p.version for p in snapshot.packages}
    return make_fingerprint(components, packages)


@dataclass(frozen=True, slots=True)
class Difference:
    """One component that differs."""

    component: str
    left: str | None
    right: str | None
    #: For ``packages``: "added x 1.0", "removed y 2.0", "changed numpy 2.1.0 → 2.2.1" (when both files list them).
    details: tuple[str, ...] = ()


def diff(a: Fingerprint, b: Fingerprint) -> tuple[Difference, ...]:
    """Every component whose value differs (or exists on one side only)."""
    if a.scheme != b.scheme:
        return (Difference("scheme", str(a.scheme), str(b.scheme)),)
    keys = sorted(set(a.components) | set(b.components))
    return tuple(Difference(k, a.components.get(k), b.components.get(k),
                            package_changes(a, b) if k == "packages" else ())
                 for k in keys if a.components.get(k) != b.components.get(k))


def package_changes(a: Fingerprint, b: Fingerprint) -> tuple[str, ...]:
    """What was added, removed and changed between two package listings (empty when either has none)."""
    if not a.packages or not b.packages:
        return ()
    names = sorted(set(a.packages) | set(b.packages))
    out = [f"added {n} {b.packages[n]}" for n in names if n not in a.packages]
    out += [f"removed {n} {a.packages[n]}" for n in names if n not in b.packages]
    out += [f"changed {n} {a.packages[n]} → {b.packages[n]}" for n in names
            if n in a.packages and n in b.packages and a.packages[n] != b.packages[n]]
    return tuple(out)


@dataclass(frozen=True, slots=True)
class FleetGroup:
    """Nodes that share one fingerprint."""

    digest: str
    members: tuple[str, ...]
    #: Components where this group differs from the largest group (empty for the largest).
    differences: tuple[Difference, ...]


def fleet(prints: Sequence[tuple[str, Fingerprint]]) -> tuple[FleetGroup, ...]:
    """Group nodes by digest, largest group first; every other group names how it differs from it."""
    counts = Counter(fp.digest for _name, fp in prints)
    order = [d for d, _n in counts.most_common()]
    reference = next(fp for _name, fp in prints if fp.digest == order[0]) if order else None
    groups = []
    for digest in order:
        members = tuple(name for name, fp in prints if fp.digest == digest)
        sample = next(fp for _name, fp in prints if fp.digest == digest)
        diffs = diff(reference, sample) if reference is not None and digest != order[0] else ()
        groups.append(FleetGroup(digest, members, diffs))
    return tuple(groups)
