"""`envguard matrix`: questions to the knowledge (which builds run here, what CUDA a driver runs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envguard.knowledge import load_matrices

if TYPE_CHECKING:
    from envguard.query import BuildCandidate, CudaAnswer, TorchCandidate


def matrix_torch(
    *, driver: str | None, gpu: str | None, cc: str | None, python: str | None, system: str,
) -> tuple[tuple[TorchCandidate, ...], str | None]:
    """torch candidates for the constraints, and the compute capability the GPU resolved to."""
    from envguard.query import resolve_gpu, torch_candidates

    matrices = load_matrices()
    resolved, _how = resolve_gpu(matrices, gpu, cc)
    return torch_candidates(matrices, driver=driver, cc=resolved, python=python, system=system), resolved


def matrix_cuda(driver: str, system: str) -> CudaAnswer:
    """What CUDA a driver runs."""
    from envguard.query import cuda_for_driver

    return cuda_for_driver(load_matrices(), driver, system)


def matrix_framework(
    framework: str, *, driver: str | None, gpu: str | None, cc: str | None, python: str | None, system: str,
) -> tuple[tuple[BuildCandidate, ...], str | None]:
    """tensorflow/jax/paddle candidates for the constraints, and the compute capability the GPU resolved to."""
    from envguard.query import framework_candidates, resolve_gpu

    matrices = load_matrices()
    resolved, _how = resolve_gpu(matrices, gpu, cc)
    rows = framework_candidates(matrices, framework, driver=driver, cc=resolved, python=python, system=system)
    return rows, resolved
