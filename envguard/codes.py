"""The public finding codes (ARCHITECTURE.md): JSON consumers and CI rules match on them."""

from __future__ import annotations

from typing import Final

#: The public finding codes (ARCHITECTURE.md); JSON consumers and CI rules match on them.
FINDING_CODES: Final = (
    "driver-missing",
    "driver-too-old",
    "driver-library-mismatch",
    "arch-unsupported",
    "cpu-only-build",
    "cudnn-mismatch",
    "cuda-libs-missing",
    "nccl-mismatch",
    "python-unsupported",
    "companion-mismatch",
    "platform-unsupported",
    "mixed-cuda-wheels",
    "toolkit-mismatch",
    "unknown-version",
    "gpu-runtime-missing",
)

#: errors.toml's "code" of a message that is NOT an environment problem (CUDA out of memory, a device-side assert):
#: recognised, so that it is never read as one, and it never becomes a finding. Its severity is "info".
NOT_ENVIRONMENT: Final = "not-environment"
