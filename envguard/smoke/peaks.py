"""Measured throughput as a percentage of the GPU's datasheet peak (gpu-peaks.toml) and of its PCIe link."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from envguard.knowledge import Matrices
from envguard.knowledge.gpu_peaks import GpuPeak
from envguard.smoke.base import SmokeResult, SmokeRun
from envguard.snapshot import GpuInfo, Snapshot

#: Theoretical PCIe throughput per lane and direction in GB/s (128b/130b encoding from gen 3):
#: https://hpc-notes.pages.dev/reference/pcie (x16: 15.75 / 31.5 / 63 GB/s for gen 3 / 4 / 5).
PCIE_GBPS_PER_LANE = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}

#: perf metric → the GpuPeak figure it is compared with.
PERF_PEAKS = {
    "tflops_bf16": "tensor_bf16_tflops",
    "tflops_fp16": "tensor_fp16_tflops",
    "tflops_fp32": "fp32_tflops",
    "d2d_GBps": "bandwidth_gbs",
}


def _peak_for(gpu: GpuInfo, matrices: Matrices) -> GpuPeak | None:
    row = matrices.gpu_peaks.lookup_name(gpu.name)
    if row is None:
        named = matrices.gpu_arch.lookup_name(gpu.name)
        row = matrices.gpu_peaks.lookup_name(named.name) if named is not None else None
    return row


def annotate(
    run: SmokeRun, snapshot: Snapshot, matrices: Matrices, throttled: Mapping[str, tuple[str, ...]] | None = None,
) -> SmokeRun:
    """Add pct_of_peak_* metrics to perf, pct_of_pcie to the pinned host-to-device copy, and the clock
    slowdown reasons NVML reported while a case ran (GPU runs only)."""
    gpus = snapshot.gpu_list()
    if not gpus:
        return run
    gpu = gpus[0]
    peak = _peak_for(gpu, matrices)
    results = []
    for result in run.results:
        metrics = dict(result.metrics)
        notes: list[str] = []
        if result.case == "perf" and peak is not None:
            for metric, figure in PERF_PEAKS.items():
                value, reference = metrics.get(metric), getattr(peak, figure)
                if value is not None and reference:
                    metrics[f"pct_of_peak_{metric}"] = 100.0 * value / reference
                    flag = "" if peak.confirmed(figure) else " (peak unconfirmed)"
                    notes.append(f"{metric} {100.0 * value / reference:.0f}% of {reference:g}{flag}")
        if result.case == "dataloader" and gpu.pcie_link_gen and gpu.pcie_link_width:
            link = PCIE_GBPS_PER_LANE.get(gpu.pcie_link_gen_max or gpu.pcie_link_gen, 0.0) * (
                gpu.pcie_link_width_max or gpu.pcie_link_width)
            pinned = metrics.get("h2d_GBps_pinned")
            if pinned is not None and link:
                metrics["pct_of_pcie_h2d_pinned"] = 100.0 * pinned / link
                notes.append(f"pinned H2D {100.0 * pinned / link:.0f}% of the PCIe link ({link:.1f} GB/s)")
            if gpu.pcie_link_width_max and gpu.pcie_link_width < gpu.pcie_link_width_max:
                notes.append(f"PCIe link runs x{gpu.pcie_link_width} of x{gpu.pcie_link_width_max} (degraded)")
        reasons = (throttled or {}).get(result.case)
        if reasons:
            notes.append(f"GPU clocks slowed down during the run: {', '.join(reasons)}")
            metrics["throttled"] = 1.0
        if notes:
            detail = "; ".join(filter(None, [result.detail, *notes]))
            results.append(dataclasses.replace(result, metrics=metrics, detail=detail))
        else:
            results.append(result)
    return dataclasses.replace(run, results=tuple(results))


__all__ = ["PCIE_GBPS_PER_LANE", "SmokeResult", "annotate"]
