"""Smoke-test cases, their statuses and results."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field


class SmokeStatus(str, enum.Enum):
    """How a case ended."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    ERROR = "error"
    TIMEOUT = "timeout"

    @property
    def bad(self) -> bool:
        """Failed, errored or timed out (exit code 4)."""
        return self in (SmokeStatus.FAILED, SmokeStatus.ERROR, SmokeStatus.TIMEOUT)


@dataclass(frozen=True, slots=True)
class SmokeCase:
    """One case of the suite."""

    name: str
    #: Lowest --level that runs it.
    level: int
    summary: str
    #: Launched through torch.distributed.run (one process per rank).
    distributed: bool = False


#: The suite, in the order it runs. Levels follow DCGM's: 1 = seconds, 2 = default, 3 = longer.
CASES: tuple[SmokeCase, ...] = (
    SmokeCase("amp", 1, "mixed-precision training: fp16/bf16 autocast, GradScaler, loss and gradients finite"),
    SmokeCase("determinism", 1, "the same seeded run twice (and deterministic algorithms): bitwise-equal"),
    SmokeCase("gradcheck", 1, "torch.autograd.gradcheck on matmul, conv2d, softmax, layer_norm in float64"),
    SmokeCase("dataloader", 1, "DataLoader across worker counts, pin_memory, host-to-device bandwidth"),
    SmokeCase("perf", 1, "matmul TFLOP/s (bf16/fp16/fp32) and memory bandwidth against the GPU's peak"),
    SmokeCase("ddp", 2, "DistributedDataParallel over torch.distributed.run: identical parameters, exact "
                        "all-reduce, bus bandwidth", distributed=True),
    SmokeCase("tensorflow", 2, "Keras under a mixed-precision policy, tf.data, MirroredStrategy"),
    SmokeCase("jax", 2, "a jitted gradient step"),
    SmokeCase("export", 2, "torch.export of a small model; ONNX export with onnxruntime parity when installed"),
)
CASE_NAMES: tuple[str, ...] = tuple(c.name for c in CASES)


@dataclass(frozen=True, slots=True)
class SmokeResult:
    """What one case reported (or why it reported nothing)."""

    case: str
    status: SmokeStatus
    duration_s: float
    detail: str = ""
    metrics: Mapping[str, float] = field(default_factory=dict)
    #: Named digests of result tensors ("weights[float32,cpu]" -> sha256), for the fingerprint.
    digests: Mapping[str, str] = field(default_factory=dict)
    device: str | None = None
    framework: str | None = None
    returncode: int | None = None
    #: Facts the case reported as text: the GPU that ran it ("gpu_name", "gpu_uuid"), "nccl", "backend" ...
    info: Mapping[str, str] = field(default_factory=dict)
    #: The file holding the case's full stderr (kept for every case that did not pass, or all of them
    #: under ENVGUARD_SMOKE_LOG_DIR); None when nothing was kept.
    log: str | None = None


@dataclass(frozen=True, slots=True)
class SmokeRun:
    """A whole suite run."""

    level: int
    target_python: str
    results: tuple[SmokeResult, ...]
    wall_s: float

    @property
    def nothing_tested(self) -> bool:
        """True when no case ran to a verdict: every case was skipped, or none was selected."""
        return not any(r.status is not SmokeStatus.SKIPPED for r in self.results)

    @property
    def failed(self) -> bool:
        """True when any case failed, errored or timed out, or when nothing was tested (exit code 4):
        a gate that passes on nothing proves nothing."""
        return self.nothing_tested or any(r.status.bad for r in self.results)
