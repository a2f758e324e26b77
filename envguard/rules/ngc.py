"""An NGC framework container (nvcr.io/nvidia/pytorch:21.10-py3, tritonserver:21.10-py3 ...) named in a report, on a
driver older than the one its release requires.

Every monthly NGC release is built on one CUDA and its release notes state the driver it needs ("Release 21.10 is
based on NVIDIA CUDA 11.4.2 ..., which requires NVIDIA Driver release 470 or later"), with older data-center driver
branches that forward compatibility admits on data-center GPUs only (cuda-images.toml [[ngc]]). The container itself
refuses to start CUDA below that floor (triton-inference-server/server#3773: 21.10 on driver 455.45.01).
"""

from __future__ import annotations

from collections.abc import Iterator

from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import driver_evidence, ev, version
from envguard.rules.driver import meets
from envguard.snapshot import NGC_RELEASE_KEY, DriverInfo, Snapshot, stated_parts


def _same_branch_at_least(driver: str, floor: str) -> bool:
    """Whether ``driver`` is on ``floor``'s branch (R470 for 470.57) and not older than it."""
    have, want = version(driver), version(floor)
    return have is not None and want is not None and have.major == want.major and meets(driver, want)


class NgcDriverRule:
    """The driver against the floor of the NGC release a report names."""

    id = "ngc-driver"
    summary = "the driver meets the floor of the NGC container release the report names"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """At most one driver-too-old finding (an error; a warning where only a data-center GPU would run it)."""
        named = snapshot.environment.get(NGC_RELEASE_KEY, "")
        image, where = stated_parts(named)
        release = image.rpartition(":")[2]
        row = matrices.cuda_images.ngc(release) if release else None
        driver = snapshot.driver
        if row is None or not isinstance(driver, DriverInfo) or not driver.version:
            return
        floor = version(row.driver)
        if floor is None or meets(driver.version, floor):
            return
        branch = next((f for f in row.datacenter if _same_branch_at_least(driver.version, f)), None)
        rows = [matrices.gpu_arch.lookup_name(g.name) for g in snapshot.gpu_list()]
        kinds = [r.datacenter for r in rows if r is not None and r.datacenter is not None]
        if branch is not None and kinds and all(kinds):
            return  # a data-center GPU on an admitted branch: forward compatibility runs the release
        # NOTE: on an admitted branch with no GPU known to be a consumer one, only a data-center GPU would run it
        severity = Severity.WARNING if branch is not None and not any(k is False for k in kinds) else Severity.ERROR
        admitted = (f"; on data-center GPUs only, the {branch} branch is admitted (forward compatibility)"
                    if branch is not None else "")
        yield Finding(
            "driver-too-old", severity,
            f"The NGC container {image} (release {release}) is built on CUDA {row.cuda} and requires NVIDIA "
            f"driver {row.driver} or later; the driver is {driver.version}{admitted}.",
            (ev("NGC container", image, where or "report"), *driver_evidence(driver),
             ev("driver the release requires", row.driver, "cuda-images.toml [[ngc]]")),
            f"upgrade the driver to {row.driver} or later, or use an NGC release whose driver requirement this driver "
            "meets (the release notes' Driver Requirements)",
            row.prov.source, "container image",
        )
