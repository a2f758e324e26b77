"""A container image and the Docker engine as `check --image` sees them. Pure data, apart from the Snapshot
(`check` of this machine does not read these)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ImageFacts:
    """A container image as the Docker engine describes it (``docker image inspect``)."""

    ref: str
    id: str
    #: Environment baked into the image (CUDA_VERSION, NVIDIA_REQUIRE_CUDA, NV_CUDNN_VERSION ...).
    env: Mapping[str, str]
    labels: Mapping[str, str]
    os: str = "linux"
    architecture: str = ""
    user: str = ""


@dataclass(frozen=True, slots=True)
class EngineFacts:
    """What the Docker engine can give a container (``docker info``)."""

    server_version: str
    runtimes: tuple[str, ...]
    default_runtime: str
    cdi_spec_dirs: tuple[str, ...] = ()
    #: CDI devices the engine discovered ("nvidia.com/gpu=0"), newer engines only.
    cdi_devices: tuple[str, ...] = ()

    @property
    def nvidia(self) -> bool:
        """True when an NVIDIA runtime or NVIDIA CDI devices are available to containers."""
        return any("nvidia" in r for r in self.runtimes) or any(d.startswith("nvidia.com/") for d in self.cdi_devices)
