"""Fakes at the hardware boundary only (processes, NVML), plus a snapshot builder for rule tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from envguard._subprocess import CommandResult
from envguard.snapshot import (
    SNAPSHOT_SCHEMA,
    DriverInfo,
    FrameworkBuild,
    GpuInfo,
    HostInfo,
    PythonInfo,
    Snapshot,
    Unavailable,
)

CAPTURES = Path(__file__).parent / "data" / "captures"

#: The H100 80GB HBM3 of the driver-590.48.01 captures (nvidia_gpu_exporter), as every source reports it.
H100_590 = GpuInfo(
    index=0,
    name="NVIDIA H100 80GB HBM3",
    source="nvidia-smi --query-gpu",
    uuid="GPU-00000000-0000-0000-0000-000000000000",
    compute_capability="9.0",
    memory_total_mib=81559,
    mig_mode="Disabled",
    persistence_mode="Enabled",
    pcie_link_gen=5,
    pcie_link_gen_max=5,
    pcie_link_width=16,
    pcie_link_width_max=16,
    pci_bus_id="00000000:00:09.0",
)


def capture(relpath: str) -> str:
    """Text of a real captured tool output (tests/data/captures, provenance in its README)."""
    return (CAPTURES / relpath).read_text(encoding="utf-8")


class FakeRunner:
    """Answers commands from a table keyed by argv prefix; records every call."""

    def __init__(self, responses: Mapping[tuple[str, ...], CommandResult | str] | None = None) -> None:
        self.responses = dict(responses or {})
        self.calls: list[tuple[str, ...]] = []

    def __call__(
        self,
        argv: tuple[str, ...],
        *,
        timeout: float,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        stdin: str | None = None,
    ) -> CommandResult:
        self.calls.append(tuple(argv))
        best: tuple[str, ...] | None = None
        for prefix in self.responses:
            if tuple(argv[: len(prefix)]) == prefix and (best is None or len(prefix) > len(best)):
                best = prefix
        if best is None:
            return CommandResult(tuple(argv), 127, "", "", 0.0, start_error="not found")
        answer = self.responses[best]
        if isinstance(answer, str):
            return CommandResult(tuple(argv), 0, answer, "", 0.01)
        return dataclasses.replace(answer, argv=tuple(argv))


def linux_python(version: str = "3.11.7") -> PythonInfo:
    return PythonInfo("/venv/bin/python", version, "CPython", "linux", "x86_64", "/venv", "/usr", True)


def torch_build(version: str, cuda: str | None, cudnn: str | None = None, **kw: Any) -> FrameworkBuild:
    accel = "cuda" if cuda else "cpu"
    return FrameworkBuild("torch", "torch", version, accel, cuda, cudnn, source="torch/version.py", **kw)


def gpu(name: str, cc: str | None, index: int = 0, source: str = "NVML") -> GpuInfo:
    return GpuInfo(index=index, name=name, source=source, compute_capability=cc)


def make_snapshot(
    *,
    driver: DriverInfo | Unavailable | str | None = None,
    cuda_driver: str | None = None,
    gpus: Sequence[GpuInfo] | Unavailable = (),
    frameworks: Sequence[FrameworkBuild] = (),
    python: PythonInfo | None = None,
    packages: Sequence[Any] = (),
    libraries: Sequence[Any] = (),
    toolkits: Sequence[Any] | Unavailable | None = None,
    environment: Mapping[str, str] | None = None,
    system: str = "Linux",
) -> Snapshot:
    """A snapshot with sensible defaults; pass only what the scenario is about."""
    if driver is None:
        drv: DriverInfo | Unavailable = Unavailable("no NVIDIA driver", ("NVML",), "no-driver")
    elif isinstance(driver, str):
        drv = DriverInfo(driver, cuda_driver, "NVML")
    else:
        drv = driver
    if isinstance(gpus, Unavailable):
        gpu_value: tuple[GpuInfo, ...] | Unavailable = gpus
    elif not gpus and isinstance(drv, Unavailable):
        gpu_value = Unavailable("no NVIDIA driver", ("NVML",))
    else:
        gpu_value = tuple(gpus)
    return Snapshot(
        host=HostInfo(system, "x86_64"),
        driver=drv,
        gpus=gpu_value,
        cuda_toolkits=Unavailable("no toolkit") if toolkits is None else (
            toolkits if isinstance(toolkits, Unavailable) else tuple(toolkits)),
        libraries=tuple(libraries),
        cudnn=Unavailable("not found"),
        nccl=Unavailable("not found"),
        python=python or linux_python(),
        packages=tuple(packages),
        frameworks=tuple(frameworks),
        environment=dict(environment or {}),
        origin="test",
        envguard_version="test",
        schema_version=SNAPSHOT_SCHEMA,
    )
