"""`envguard verify`: does an installed environment still match its lock? Pure comparison."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from envguard.lock.request import TOOLING
from envguard.lock.spec import LockSpec
from envguard.snapshot import DriverInfo, InstalledDistribution, Unavailable

#: Drift kinds, in report order. Each one fails `envguard verify` (exit 1).
DRIFT_KINDS = ("python", "driver", "variant", "different", "missing", "extra", "files")


@dataclass(frozen=True, slots=True)
class Drift:
    """One way the environment differs from the lock."""

    kind: str
    name: str
    locked: str | None
    installed: str | None
    detail: str


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """The comparison, with what was checked."""

    lock: LockSpec
    lock_name: str
    python: str
    interpreter: str
    drifts: tuple[Drift, ...]
    #: Notes that are not drift (e.g. no driver on this machine to compare with the lock's floor).
    notes: tuple[str, ...]
    packages_checked: int
    files_checked: int

    @property
    def ok(self) -> bool:
        """True when nothing drifted."""
        return not self.drifts


def _same_version(a: str, b: str) -> bool:
    """PEP 440 equality ("1.0" == "1.0.0"), local label included; text equality for non-versions."""
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def _same_public(a: str, b: str) -> bool:
    try:
        return Version(a).public == Version(b).public
    except InvalidVersion:
        return False


def compare(
    spec: LockSpec, installed: Sequence[InstalledDistribution], *, python: str, interpreter: str,
    driver: DriverInfo | Unavailable | None, lock_name: str, ignore: Iterable[str] = (),
) -> VerifyResult:
    """Missing, extra and different packages, CUDA variant, RECORD integrity, Python and driver floor."""
    skip = TOOLING | {canonicalize_name(n) for n in ignore} | {canonicalize_name(n) for n, _ in spec.skipped}
    drifts: list[Drift] = []
    notes: list[str] = []
    have_minor = ".".join(python.split(".")[:2])
    if have_minor != spec.target.python:
        drifts.append(Drift("python", "python", spec.target.python, python,
                            f"the lock is for Python {spec.target.python}, the interpreter is {python}"))
    floor = spec.target.driver_floor
    if floor and spec.target.cuda:
        if isinstance(driver, DriverInfo) and driver.version:
            try:
                below = Version(driver.version) < Version(floor)
            except InvalidVersion:
                below = False
                notes.append(f"driver version {driver.version!r} is not comparable with the floor {floor}")
            if below:
                drifts.append(Drift("driver", "nvidia-driver", f">={floor}", driver.version,
                                    f"CUDA {spec.target.cuda} needs driver >= {floor}; this machine has "
                                    f"{driver.version} ({driver.source})"))
        else:
            reason = driver.reason if isinstance(driver, Unavailable) else "not probed"
            notes.append(f"driver floor {floor} for CUDA {spec.target.cuda} not checked: {reason}")
    by_key: dict[str, InstalledDistribution] = {canonicalize_name(d.name): d for d in installed}
    files_checked = 0
    for pin in sorted(spec.packages, key=lambda p: p.key):
        if pin.key in skip:
            continue
        dist = by_key.get(pin.key)
        if dist is None:
            drifts.append(Drift("missing", pin.name, pin.version, None, f"{pin.name}=={pin.version} is not installed"))
            continue
        if not _same_version(dist.version, pin.version):
            if _same_public(dist.version, pin.version):
                drifts.append(Drift("variant", pin.name, pin.version, dist.version,
                                    f"{pin.name} {dist.version} is a different build variant than the locked "
                                    f"{pin.version} (e.g. another CUDA version)"))
            else:
                drifts.append(Drift("different", pin.name, pin.version, dist.version,
                                    f"{pin.name} is {dist.version}, the lock has {pin.version}"))
            continue
        if dist.direct_url or dist.editable:
            drifts.append(Drift("different", pin.name, pin.version, dist.version,
                                f"{pin.name} {dist.version} was installed from {dist.direct_url}, not the locked "
                                "index file"))
        record = dist.record
        if record is not None:
            files_checked += record.checked
            if record.error:
                notes.append(f"{pin.name}: RECORD not checked ({record.error})")
            elif not record.intact:
                sample = ", ".join((record.mismatched + record.missing)[:3])
                drifts.append(Drift("files", pin.name, pin.version, dist.version,
                                    f"{record.mismatched_count} file(s) changed and {record.missing_count} missing "
                                    f"since install (RECORD hashes): {sample}"))
    locked_keys = {p.key for p in spec.packages}
    for key, dist in sorted(by_key.items()):
        if key in locked_keys or key in skip:
            continue
        drifts.append(Drift("extra", dist.name, None, dist.version,
                            f"{dist.name} {dist.version} is installed but not in the lock"))
    order = {k: i for i, k in enumerate(DRIFT_KINDS)}
    drifts.sort(key=lambda d: (order[d.kind], d.name.lower()))
    return VerifyResult(spec, lock_name, python, interpreter, tuple(drifts), tuple(notes),
                        len(spec.packages), files_checked)
