"""`envguard verify`: does an installed environment still match its lock? Pure comparison."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from envguard.installed_facts import InstalledDistribution, SiteScan
from envguard.lock.request import TOOLING
from envguard.lock.spec import LockSpec
from envguard.snapshot import DriverInfo, Unavailable

#: Drift kinds, in report order. Each one fails `envguard verify` (exit 1).
DRIFT_KINDS = ("python", "driver", "variant", "different", "missing", "extra", "files", "unrecorded", "pth",
               "bytecode")


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
    #: Commands that repair the drift (pip's, for the target interpreter), in order.
    fixes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when nothing drifted."""
        return not self.drifts


#: The owner the installed-files script gives virtualenv's own _virtualenv.pth (probes/_installed.py).
VIRTUALENV_OWNER = "(the virtualenv that created this environment)"


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
    scan: SiteScan | None = None, machine: str = "x86_64",
) -> VerifyResult:
    """Missing, extra and different packages, CUDA variant, RECORD integrity (and the RECORD itself against the
    digest the lock recorded), unrecorded files, .pth files and stale bytecode, Python and driver floor."""
    if any(p.marker for p in spec.packages):
        from packaging.markers import Marker

        from envguard.lock.request import marker_environment

        env = {**marker_environment(".".join(python.split(".")[:2]), machine_platform(machine)), "extra": "",
               "python_full_version": python}
        spec = replace(spec, packages=tuple(p for p in spec.packages
                                            if not p.marker or Marker(p.marker).evaluate(env)))
    locked_keys = {p.key for p in spec.packages}
    # NOTE: installer tooling is left out only where the lock does not pin it.
    skip = ((TOOLING - locked_keys) | {canonicalize_name(n) for n in ignore}
            | {canonicalize_name(n) for n, _ in spec.skipped})
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
    unpinned_records = 0
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
        if record is not None and pin.files and record.files_digest and record.files_digest != pin.files:
            drifts.append(Drift("files", pin.name, pin.version, dist.version,
                                "its installed RECORD no longer lists the files of the locked wheel (a file added, "
                                "or edited together with its RECORD line)"))
        elif record is not None and pin.files is None and record.error is None:
            unpinned_records += 1
        if record is not None:
            files_checked += record.checked
            if record.error:
                notes.append(f"{pin.name}: RECORD not checked ({record.error})")
            elif not record.intact:
                sample = ", ".join((record.mismatched + record.missing)[:3])
                drifts.append(Drift("files", pin.name, pin.version, dist.version,
                                    f"{record.mismatched_count} file(s) changed and {record.missing_count} missing "
                                    f"since install (RECORD hashes): {sample}"))
    if unpinned_records:
        notes.append(f"{unpinned_records} package(s) checked against their installed RECORD only: the lock records "
                     "no file digests for them (lock --from-current, or --record-files, records them)")
    if scan is not None:
        drifts += _scan_drifts(scan, locked_keys | skip)
        notes += [f"{path}: accepted, written by virtualenv when it created this environment (`import "
                  "_virtualenv`; the _virtualenv.py it loads is not checked)"
                  for path, owner in scan.pth if owner == VIRTUALENV_OWNER]
    for key, dist in sorted(by_key.items()):
        if key in locked_keys or key in skip:
            continue
        drifts.append(Drift("extra", dist.name, None, dist.version,
                            f"{dist.name} {dist.version} is installed but not in the lock"))
    order = {k: i for i, k in enumerate(DRIFT_KINDS)}
    drifts.sort(key=lambda d: (order[d.kind], d.name.lower()))
    return VerifyResult(spec, lock_name, python, interpreter, tuple(drifts), tuple(notes),
                        len(spec.packages), files_checked, fix_commands(drifts, interpreter, lock_name))


def machine_platform(machine: str) -> str:
    """"x86_64" / "aarch64" (platform.machine()) → the lock's platform name."""
    m = machine.lower().replace("amd64", "x86_64").replace("arm64", "aarch64")
    return f"linux-{m}"


def _scan_drifts(scan: SiteScan, accepted: set[str]) -> list[Drift]:
    """Drift for what lies beside the distributions; a .pth is accepted when a locked (or ignored / installer)
    distribution's RECORD lists it with this content."""
    out = _capped("unrecorded", scan.unrecorded, scan.unrecorded_count,
                  "a file no installed RECORD lists, inside a locked package's folder", "unrecorded file(s)")
    for path, owner in scan.pth:
        if owner == VIRTUALENV_OWNER or (owner is not None and canonicalize_name(owner) in accepted):
            continue
        why = (f"belongs to {owner}, which the lock does not list" if owner else
               "no installed RECORD lists it with this content")
        out.append(Drift("pth", path, None, None, f".pth file (Python runs its import lines at every start): {why}"))
    out += _capped("bytecode", scan.bytecode, scan.bytecode_count,
                   "bytecode that is not the compilation of its source (Python loads it instead of the .py)",
                   "stale bytecode file(s)")
    return out


def _capped(kind: str, paths: Sequence[str], count: int, detail: str, more: str) -> list[Drift]:
    """One drift per listed path, and one "…" for the ``count`` the scan found beyond the list it kept."""
    out = [Drift(kind, path, None, None, detail) for path in paths]
    if count > len(paths):
        out.append(Drift(kind, "…", None, None, f"{count - len(paths)} more {more}"))
    return out


def fix_commands(drifts: Sequence[Drift], interpreter: str, lock_name: str) -> tuple[str, ...]:
    """What repairs the drift, for the target interpreter and the lock's own requirements.lock.txt (pure)."""
    import os
    import shlex

    folder = os.path.dirname(lock_name) or "."
    reqs = shlex.quote(os.path.join(folder, "requirements.lock.txt"))
    py = shlex.quote(interpreter)
    kinds = {d.kind for d in drifts}
    out = []
    extras = sorted({d.name for d in drifts if d.kind == "extra"})
    if extras:
        out.append(f"{py} -m pip uninstall -y " + " ".join(shlex.quote(n) for n in extras))
    bad = sorted({d.name for d in drifts if d.kind in ("unrecorded", "pth", "bytecode") and d.name != "…"})
    if bad:
        out.append("rm -f -- " + " ".join(shlex.quote(p) for p in bad))
    if kinds & {"variant", "different", "missing", "files", "unrecorded", "bytecode"}:
        out.append(f"{py} -m pip install --require-hashes --no-deps --force-reinstall -r {reqs}")
    if "python" in kinds:
        out.append("# the lock is for another Python: recreate the environment with that interpreter")
    if "driver" in kinds:
        out.append("# the driver is below the lock's floor: upgrade the NVIDIA driver, or re-lock for this one")
    return tuple(out)
