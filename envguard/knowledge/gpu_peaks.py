"""gpu-peaks.toml: datasheet peaks (TFLOP/s, memory bandwidth, link) per GPU."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Final

from envguard.knowledge._base import (
    META_KEYS,
    PROV_KEYS,
    Collector,
    MatrixMeta,
    Provenance,
    check_unique,
    norm_gpu,
)

logger = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class GpuPeak:
    """Datasheet peak figures of one GPU, for smoke-benchmark sanity checks (dense, no sparsity)."""

    name: str
    cc: str
    memory_gb: float | None
    memory_type: str | None
    bandwidth_gbs: float | None
    fp32_tflops: float | None
    #: Whether the tensor cores do BF16 (False: none; None: unknown).
    bf16: bool | None
    #: Dense BF16 / FP16 tensor rate with FP32 accumulate.
    tensor_bf16_tflops: float | None
    tensor_fp16_tflops: float | None
    #: Dense FP16 tensor rate with FP16 accumulate (GeForce cards run FP32 accumulate at half this).
    tensor_fp16_fp16acc_tflops: float | None
    #: Dense TF32 tensor rate (no sparsity); TF32 arrived with Ampere (compute capability 8.0).
    tensor_tf32_tflops: float | None
    #: Names of the figures above that are unconfirmed (read once, or derived).
    unconfirmed: tuple[str, ...]
    prov: Provenance

    def confirmed(self, figure: str) -> bool:
        """True when ``figure`` ("fp32_tflops") is present and not marked unconfirmed."""
        return getattr(self, figure, None) is not None and figure not in self.unconfirmed


@dataclass(frozen=True, slots=True)
class GpuPeaksMatrix:
    """Peak specifications by GPU name (names as gpu-arch.toml spells them)."""

    meta: MatrixMeta
    gpus: tuple[GpuPeak, ...]

    def lookup_name(self, name: str) -> GpuPeak | None:
        """Product name as nvidia-smi prints it ("NVIDIA H100 80GB HBM3") → row."""
        key = norm_gpu(name)
        return next((g for g in self.gpus if norm_gpu(g.name) == key), None)


_PEAK_FIGURES: Final = (
    "memory_gb", "bandwidth_gbs", "fp32_tflops", "tensor_bf16_tflops", "tensor_fp16_tflops",
    "tensor_fp16_fp16acc_tflops", "tensor_tf32_tflops",
)


def parse(meta: MatrixMeta, data: dict[str, Any], col: Collector) -> GpuPeaksMatrix:
    col.keys(data, META_KEYS | {"gpu"}, "header")
    gpus = []
    for where, row in col.rows(data, "gpu"):
        col.keys(row, {"name", "cc", "memory_type", "bf16", "unconfirmed", *_PEAK_FIGURES} | PROV_KEYS, where)
        name, cc = col.string(row, "name", where, required=True), col.cc(row, "cc", where, required=True)
        if name is None or cc is None:
            continue
        figures = {key: col.number(row, key, where) for key in _PEAK_FIGURES}
        bf16 = col.flag(row, "bf16", where)
        if bf16 is False and figures["tensor_bf16_tflops"] is not None:
            col.error(where, "bf16 = false but tensor_bf16_tflops is given")
        if figures["tensor_tf32_tflops"] is not None and tuple(int(x) for x in cc.split(".")) < (8, 0):
            col.error(where, f"tensor_tf32_tflops is given, but TF32 tensor cores need compute capability >= 8.0 "
                             f"(this GPU: {cc})")
        unconfirmed = col.strings(row, "unconfirmed", where)
        for figure in unconfirmed:
            if figure not in _PEAK_FIGURES:
                col.error(where, f"unconfirmed names {figure!r}, which is not a figure ({', '.join(_PEAK_FIGURES)})")
            elif figures.get(figure) is None:
                col.error(where, f"unconfirmed names {figure!r}, which has no value")
        gpus.append(GpuPeak(
            name, cc, figures["memory_gb"], col.string(row, "memory_type", where), figures["bandwidth_gbs"],
            figures["fp32_tflops"], bf16, figures["tensor_bf16_tflops"], figures["tensor_fp16_tflops"],
            figures["tensor_fp16_fp16acc_tflops"], figures["tensor_tf32_tflops"], unconfirmed, col.prov(row, where),
        ))
    check_unique([norm_gpu(g.name) for g in gpus], col, "gpu", "name")
    return GpuPeaksMatrix(meta, tuple(gpus))


_PADDLE_VARIANT_KEYS: Final = {"tag", "cuda", "cudnn", "post", "index_url", "min_driver", "min_cc"}
