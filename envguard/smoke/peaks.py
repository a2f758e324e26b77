"""Measured throughput as a percentage of the GPU's datasheet peak (gpu-peaks.toml) and of its PCIe link."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Protocol

from envguard.knowledge import Matrices
from envguard.knowledge.gpu_peaks import GpuPeak
from envguard.smoke.base import SmokeResult, SmokeRun
from envguard.snapshot import GpuInfo, Snapshot

#: Theoretical PCIe throughput per lane and direction in GB/s (128b/130b encoding from gen 3):
#: https://hpc-notes.pages.dev/reference/pcie (x16: 15.75 / 31.5 / 63 GB/s for gen 3 / 4 / 5).
PCIE_GBPS_PER_LANE = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}

class ClockEvents(Protocol):
    """The clock events NVML reported while a case ran (envguard.probes.nvml.ClockEvents)."""

    @property
    def known(self) -> bool:
        """NVML answered."""
        ...

    @property
    def source(self) -> str:
        """The getter that answered, or why none did."""
        ...

    @property
    def slowdowns(self) -> tuple[str, ...]:
        """Reasons that mean the GPU slowed down."""
        ...

    @property
    def power_capped(self) -> bool:
        """The software power cap was active."""
        ...


#: perf metric → the GpuPeak figure it is compared with. The tf32 figure is read only where the peaks
#: table has that column (getattr: absent → no percentage).
PERF_PEAKS = {
    "tflops_bf16": "tensor_bf16_tflops",
    "tflops_fp16": "tensor_fp16_tflops",
    "tflops_tf32": "tensor_tf32_tflops",
    "tflops_fp32": "fp32_tflops",
    "d2d_GBps": "bandwidth_gbs",
}
#: Below this matrix size cuBLAS does not reach the tensor-core peak (2048² runs at 50-65 % of bf16 peak on
#: an H100 at best), so a percentage of peak would measure the size, not the GPU.
MIN_PEAK_MATMUL_N = 8192


def _peak_for(name: str, matrices: Matrices) -> GpuPeak | None:
    row = matrices.gpu_peaks.lookup_name(name)
    if row is None:
        named = matrices.gpu_arch.lookup_name(name)
        row = matrices.gpu_peaks.lookup_name(named.name) if named is not None else None
    return row


def _norm_uuid(uuid: str) -> str:
    text = uuid.strip().lower()
    return text[4:] if text.startswith("gpu-") else text


def gpu_that_ran(result: SmokeResult, gpus: Sequence[GpuInfo], env: Mapping[str, str]) -> GpuInfo | None:
    """The GPU a case ran on: by the UUID the payload reported, else by its name, else the first GPU that
    CUDA_VISIBLE_DEVICES leaves visible (an index or a UUID); None when none matches."""
    uuid = result.info.get("gpu_uuid")
    if uuid:
        found = next((g for g in gpus if g.uuid and _norm_uuid(g.uuid) == _norm_uuid(uuid)), None)
        if found is not None:
            return found
    name = result.info.get("gpu_name")
    if name:
        named = [g for g in gpus if g.name == name]
        if len(named) == 1 or (named and len({g.name for g in gpus}) == 1):
            return named[0]
    visible = env.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return gpus[0] if gpus else None
    first = visible.split(",")[0].strip()
    if first.isdigit():
        return next((g for g in gpus if g.index == int(first)), None)
    return next((g for g in gpus if g.uuid and first and _norm_uuid(g.uuid).startswith(_norm_uuid(first))), None)


def _mig(result: SmokeResult, gpu: GpuInfo) -> bool:
    return (gpu.mig_mode == "Enabled" or result.info.get("gpu_uuid", "").upper().startswith("MIG-")
            or " MIG " in f" {result.info.get('gpu_name', '')} ")


def _clock_note(events: ClockEvents) -> tuple[str, bool]:
    """The note on the clock events seen while a case ran, and whether the GPU slowed down."""
    if not events.known:
        return f"clock-event reasons unknown ({events.source})", False
    parts = []
    if events.slowdowns:
        parts.append(f"GPU clocks slowed down during the run: {', '.join(events.slowdowns)}")
    if events.power_capped:
        parts.append("software power cap active (normal under a dense GEMM; information, not a slowdown)")
    return "; ".join(parts), bool(events.slowdowns)


def annotate(
    run: SmokeRun, snapshot: Snapshot, matrices: Matrices, clock_events: Mapping[str, ClockEvents] | None = None,
    env: Mapping[str, str] | None = None,
) -> SmokeRun:
    """Add pct_of_peak_* metrics to perf (matrices of at least MIN_PEAK_MATMUL_N, the peak of the GPU that
    ran, never of a MIG slice), pct_of_pcie to the pinned host-to-device copy, and the clock events NVML
    reported while a case ran (GPU runs only)."""
    gpus = snapshot.gpu_list()
    if not gpus:
        return run
    environ = env if env is not None else {}
    results = []
    for result in run.results:
        metrics = dict(result.metrics)
        notes: list[str] = []
        gpu = gpu_that_ran(result, gpus, environ)
        if result.case == "perf" and gpu is not None:
            notes += _perf_percentages(result, gpu, metrics, matrices)
        if result.case == "dataloader" and gpu is not None and gpu.pcie_link_gen and gpu.pcie_link_width:
            link = PCIE_GBPS_PER_LANE.get(gpu.pcie_link_gen_max or gpu.pcie_link_gen, 0.0) * (
                gpu.pcie_link_width_max or gpu.pcie_link_width)
            pinned = metrics.get("h2d_GBps_pinned")
            if pinned is not None and link:
                metrics["pct_of_pcie_h2d_pinned"] = 100.0 * pinned / link
                notes.append(f"pinned H2D {100.0 * pinned / link:.0f}% of the PCIe link ({link:.1f} GB/s)")
            if gpu.pcie_link_width_max and gpu.pcie_link_width < gpu.pcie_link_width_max:
                notes.append(f"PCIe link runs x{gpu.pcie_link_width} of x{gpu.pcie_link_width_max} (degraded)")
        events = (clock_events or {}).get(result.case)
        if events is not None:
            note, slowed = _clock_note(events)
            if note:
                notes.append(note)
            if slowed:
                metrics["throttled"] = 1.0
            if events.power_capped:
                metrics["sw_power_cap"] = 1.0
        if notes:
            detail = "; ".join(filter(None, [result.detail, *notes]))
            results.append(dataclasses.replace(result, metrics=metrics, detail=detail))
        else:
            results.append(result)
    return dataclasses.replace(run, results=tuple(results))


def _perf_percentages(result: SmokeResult, gpu: GpuInfo, metrics: dict[str, float], matrices: Matrices) -> list[str]:
    if _mig(result, gpu):
        return ["MIG instance: no percentage of the whole GPU's peak"]
    peak = _peak_for(result.info.get("gpu_name") or gpu.name, matrices)
    if peak is None:
        return []
    notes = []
    size_ok = metrics.get("matmul_n", 0.0) >= MIN_PEAK_MATMUL_N
    for metric, figure in PERF_PEAKS.items():
        value, reference = metrics.get(metric), getattr(peak, figure, None)
        if value is None or not reference or (metric.startswith("tflops_") and not size_ok):
            continue
        metrics[f"pct_of_peak_{metric}"] = 100.0 * value / reference
        flag = "" if peak.confirmed(figure) else " (peak unconfirmed)"
        notes.append(f"{metric} {100.0 * value / reference:.0f}% of {reference:g}{flag}")
    if not size_ok and any(m.startswith("tflops_") for m in metrics):
        notes.append(f"matmul {metrics.get('matmul_n', 0):.0f}² is below {MIN_PEAK_MATMUL_N}²: no percentage of peak")
    return notes


__all__ = ["MIN_PEAK_MATMUL_N", "PCIE_GBPS_PER_LANE", "SmokeResult", "annotate", "gpu_that_ran"]
