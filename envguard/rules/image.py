"""Container-image rules for `envguard check --image`: will the NVIDIA container toolkit start this image
on this host's driver (NVIDIA_REQUIRE_CUDA), and can this engine give containers a GPU at all?"""

from __future__ import annotations

import re
from collections.abc import Iterator

from packaging.version import InvalidVersion, Version

from envguard.findings import Finding, Severity
from envguard.image_facts import EngineFacts, ImageFacts
from envguard.rules.base import cuda_builds, driver_evidence, ev
from envguard.snapshot import DriverInfo, Snapshot

REQUIRE_SOURCE = ("https://github.com/NVIDIA/nvidia-container-toolkit (NVIDIA_REQUIRE_* constraints); "
                  "matrices/cuda-images.toml")


def _clause_holds(clause: str, driver: DriverInfo) -> bool | None:
    """One AND-clause ("cuda>=12.4" or "brand=tesla,driver>=470,driver<471"): True, False, or None (unknown)."""
    result: bool | None = True
    for part in clause.split(","):
        m = re.fullmatch(r"(cuda|driver|brand|arch)(>=|<=|=|<|>)(.+)", part.strip())
        if not m:
            return None
        key, op, value = m.groups()
        if key in ("brand", "arch"):
            result = None  # not knowable from here: never proves a clause
            continue
        have_text = driver.cuda_driver_version if key == "cuda" else driver.version
        try:
            have, want = Version(have_text or ""), Version(value)
        except InvalidVersion:
            result = None
            continue
        ok = {">=": have >= want, "<=": have <= want, "=": have == want, "<": have < want, ">": have > want}[op]
        if not ok:
            return False
    return result


def require_cuda_verdict(require: str, driver: DriverInfo) -> bool | None:
    """NVIDIA_REQUIRE_CUDA: space-separated clauses are OR, comma-separated parts AND."""
    verdicts = [_clause_holds(c, driver) for c in require.split() if c.strip()]
    if any(v is True for v in verdicts):
        return True
    if any(v is None for v in verdicts):
        return None
    return False if verdicts else None


def image_findings(image: ImageFacts, engine: EngineFacts, snapshot: Snapshot) -> Iterator[Finding]:
    """Findings about running ``image`` on this engine and driver (the framework rules run separately)."""
    cuda_in_image = image.env.get("CUDA_VERSION") or next((b.cuda for b in cuda_builds(snapshot)), None)
    driver = snapshot.driver
    require = image.env.get("NVIDIA_REQUIRE_CUDA", "").strip()
    disabled = image.env.get("NVIDIA_DISABLE_REQUIRE", "").lower() in ("1", "true", "yes")
    if require and isinstance(driver, DriverInfo) and not disabled:
        verdict = require_cuda_verdict(require, driver)
        if verdict is False:
            yield Finding(
                "driver-too-old", Severity.ERROR,
                f"The NVIDIA container toolkit will refuse to start {image.ref} on this host: its "
                f"NVIDIA_REQUIRE_CUDA ({require.split()[0]} …) is not met by driver {driver.version} "
                f"(supports CUDA {driver.cuda_driver_version or 'unknown'}).",
                (ev("NVIDIA_REQUIRE_CUDA", require, f"image {image.ref} env"), *driver_evidence(driver)),
                "Upgrade the host driver to one that supports the image's CUDA, or use an image built for an "
                "older CUDA (envguard lock --cuda X.Y renders one).",
                REQUIRE_SOURCE, "image",
            )
    if cuda_in_image and not engine.nvidia:
        has_gpu = isinstance(driver, DriverInfo) or bool(snapshot.gpu_list())
        yield Finding(
            "gpu-runtime-missing", Severity.ERROR if has_gpu else Severity.WARNING,
            f"{image.ref} is a CUDA image, but this Docker engine has no NVIDIA runtime and no NVIDIA CDI "
            "devices, so containers cannot see a GPU" + ("" if has_gpu else " (and this host has no NVIDIA driver)")
            + ".",
            (ev("runtimes", ", ".join(engine.runtimes) or "none", "docker info"),
             ev("CDI devices", ", ".join(engine.cdi_devices) or "none", "docker info"),
             ev("CUDA in image", cuda_in_image, f"image {image.ref}")),
            "Install the NVIDIA Container Toolkit and run `sudo nvidia-ctk runtime configure --runtime=docker && "
            "sudo systemctl restart docker` (or generate CDI specs with `nvidia-ctk cdi generate`); then run "
            "with --gpus all.",
            "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html",
            "engine",
        )
