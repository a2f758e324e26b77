"""The knowledge: one module per matrix file (``torch.py`` reads ``torch.toml``), each table parsed on first use.

``Matrices`` is the set a rule or a command consults. A table's module is imported, and its file read and
validated, only when the table is first asked for, so ``envguard check`` pays for the tables it consults and
not for the others.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from importlib import import_module
from typing import TYPE_CHECKING, Any

from envguard.knowledge._base import MATRIX_NAMES, Collector, MatrixMeta, load_file, read_meta
from envguard.resources import data_dir

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

    from envguard.knowledge.cuda_driver import CudaDriverMatrix
    from envguard.knowledge.cuda_images import CudaImagesMatrix
    from envguard.knowledge.cudnn import CudnnMatrix
    from envguard.knowledge.errors import ErrorsMatrix
    from envguard.knowledge.gpu_arch import GpuArchMatrix
    from envguard.knowledge.gpu_peaks import GpuPeaksMatrix
    from envguard.knowledge.jax import JaxMatrix
    from envguard.knowledge.nccl import NcclMatrix
    from envguard.knowledge.onnxruntime import OnnxRuntimeMatrix
    from envguard.knowledge.paddle import PaddleMatrix
    from envguard.knowledge.tensorflow import TensorflowMatrix
    from envguard.knowledge.torch import TorchMatrix

__all__ = ["MATRIX_NAMES", "Matrices", "load_matrices", "module_of"]


def module_of(name: str) -> str:
    """The module that reads matrix ``name`` ("cuda-driver" → "envguard.knowledge.cuda_driver")."""
    return f"envguard.knowledge.{name.replace('-', '_')}"


@dataclass(frozen=True)
class Matrices:
    """All matrices, each loaded from one folder on first use."""

    root: Traversable
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def _get(self, name: str) -> Any:
        if name not in self._cache:
            parse: Callable[[MatrixMeta, dict[str, Any], Collector], Any] = import_module(module_of(name)).parse
            self._cache[name] = load_file(self.root, name, parse)
        return self._cache[name]

    @cached_property
    def cuda_driver(self) -> CudaDriverMatrix:
        """CUDA → driver."""
        return self._get("cuda-driver")  # type: ignore[no-any-return] # reason: one parser per name

    @cached_property
    def gpu_arch(self) -> GpuArchMatrix:
        """GPU architectures."""
        return self._get("gpu-arch")  # type: ignore[no-any-return] # reason: one parser per name

    @cached_property
    def torch(self) -> TorchMatrix:
        """PyTorch releases."""
        return self._get("torch")  # type: ignore[no-any-return] # reason: one parser per name

    @cached_property
    def tensorflow(self) -> TensorflowMatrix:
        """TensorFlow releases."""
        return self._get("tensorflow")  # type: ignore[no-any-return] # reason: one parser per name

    @cached_property
    def errors(self) -> ErrorsMatrix:
        """Error-message signatures."""
        return self._get("errors")  # type: ignore[no-any-return] # reason: one parser per name

    @cached_property
    def jax(self) -> JaxMatrix:
        """jax/jaxlib requirements."""
        return self._get("jax")  # type: ignore[no-any-return] # reason: one parser per name

    @cached_property
    def cudnn(self) -> CudnnMatrix:
        """cuDNN support matrix."""
        return self._get("cudnn")  # type: ignore[no-any-return] # reason: one parser per name

    @cached_property
    def nccl(self) -> NcclMatrix:
        """NCCL versions in images, release notes and wheels."""
        return self._get("nccl")  # type: ignore[no-any-return] # reason: one parser per name

    @cached_property
    def cuda_images(self) -> CudaImagesMatrix:
        """nvidia/cuda container images."""
        return self._get("cuda-images")  # type: ignore[no-any-return] # reason: one parser per name

    @cached_property
    def gpu_peaks(self) -> GpuPeaksMatrix:
        """Peak GPU specifications."""
        return self._get("gpu-peaks")  # type: ignore[no-any-return] # reason: one parser per name

    @cached_property
    def paddle(self) -> PaddleMatrix:
        """PaddlePaddle releases and GPU builds."""
        return self._get("paddle")  # type: ignore[no-any-return] # reason: one parser per name

    @cached_property
    def onnxruntime(self) -> OnnxRuntimeMatrix:
        """ONNX Runtime's GPU package: CUDA and cuDNN majors per release."""
        return self._get("onnxruntime")  # type: ignore[no-any-return] # reason: one parser per name

    def loaded(self) -> dict[str, str]:
        """name → description of each matrix consulted so far."""
        return {name: m.meta.describe() for name, m in sorted(self._cache.items())}

    def headers(self) -> tuple[MatrixMeta, ...]:
        """Every matrix file's header (provenance, ``retrieved`` date), without parsing the tables not loaded yet.

        :raises MatrixError: when a file or its header cannot be read.
        """
        return tuple(self._cache[name].meta if name in self._cache else read_meta(self.root, name)
                     for name in MATRIX_NAMES)

    def load_all(self) -> None:
        """Load and validate every matrix now (raises on the first bad file)."""
        for name in MATRIX_NAMES:
            self._get(name)


def load_matrices(root: Traversable | None = None, env: dict[str, str] | None = None) -> Matrices:
    """Matrices from ``root`` (default: shipped data or ``ENVGUARD_MATRICES``); parsed on first use."""
    return Matrices(root if root is not None else data_dir("matrices", env))
