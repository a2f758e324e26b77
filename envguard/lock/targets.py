"""The machine(s) a lock is for, when that is not this host: snapshots taken on the GPU nodes (``--for``) or
manual facts (``--driver``, ``--gpu``, ``--cc``, ``--os``). Pure: snapshots in, HostFacts out."""

from __future__ import annotations

import re
from collections.abc import Sequence

from packaging.version import InvalidVersion, Version

from envguard.errors import LockError
from envguard.knowledge import Matrices
from envguard.lock.request import HostFacts
from envguard.snapshot import DriverInfo, Snapshot

_CC = re.compile(r"^\d{1,2}\.\d$")


def from_snapshots(snapshots: Sequence[tuple[str, Snapshot]]) -> HostFacts:
    """The facts every node shares: the LOWEST driver and the union of compute capabilities, so the lock
    runs on every node.

    :raises LockError: when a snapshot has no driver version (a CPU node, or a report that does not say).
    """
    if not snapshots:
        raise LockError("--for: no snapshot found")
    drivers: list[tuple[Version, str, str]] = []
    ccs: set[str] = set()
    for name, snap in snapshots:
        driver = snap.driver
        if not isinstance(driver, DriverInfo) or not driver.version:
            reason = getattr(driver, "reason", "no driver version")
            raise LockError(f"--for {name}: the snapshot has no NVIDIA driver version ({reason}); take it on the "
                            "GPU node (envguard snapshot) or give --driver")
        try:
            drivers.append((Version(driver.version), driver.version, name))
        except InvalidVersion:
            raise LockError(f"--for {name}: driver version {driver.version!r} is not a version") from None
        if isinstance(snap.gpus, tuple):
            for gpu in snap.gpus:
                if gpu.compute_capability:
                    ccs.add(gpu.compute_capability)
    low = min(drivers)
    where = f"{len(snapshots)} snapshot(s); lowest driver in {low[2]}" if len(snapshots) > 1 else low[2]
    return HostFacts(low[1], tuple(sorted(ccs, key=Version)), source=f"--for {where}")


def manual(matrices: Matrices, *, driver: str | None, gpus: Sequence[str], ccs: Sequence[str],
           base: HostFacts | None = None) -> HostFacts | None:
    """--driver / --gpu / --cc on top of (or instead of) --for facts; None when none is given.

    :raises LockError: for a malformed version or compute capability, or a GPU name gpu-arch.toml does not know.
    """
    if driver is None and not gpus and not ccs:
        return base
    if driver is not None:
        try:
            Version(driver)
        except InvalidVersion:
            raise LockError(f"--driver {driver!r} is not a driver version (e.g. 580.65.06)") from None
    found: list[str] = []
    for cc in ccs:
        if not _CC.fullmatch(cc.strip()):
            raise LockError(f"--cc {cc!r} is not a compute capability (e.g. 7.0, 9.0)")
        found.append(cc.strip())
    for name in gpus:
        row = matrices.gpu_arch.lookup_name(name)
        if row is None:
            raise LockError(f"--gpu {name!r}: gpu-arch.toml knows no GPU of that name; give its --cc instead")
        found.append(row.cc)
    parts = [f"--driver {driver}"] if driver else []
    parts += [f"--gpu {g}" for g in gpus] + [f"--cc {c}" for c in ccs]
    merged = set(found) | set(base.ccs if base else ())
    return HostFacts(driver if driver is not None else (base.driver if base else None),
                     tuple(sorted(merged, key=Version)),
                     source=" ".join(parts) + (f" with {base.source}" if base else ""))
