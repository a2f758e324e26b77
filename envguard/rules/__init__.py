"""ALL_RULES and run_rules: judge a snapshot against the matrices."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence

from envguard.findings import Finding, Report
from envguard.knowledge import Matrices
from envguard.rules.arch import ArchRule
from envguard.rules.base import Rule
from envguard.rules.builds import CompanionRule, CpuOnlyRule, FreeThreadedRule, PlatformRule, PythonRule
from envguard.rules.built_archs import SiteBuildArchRule
from envguard.rules.conda_forge_arch import CondaForgeArchRule
from envguard.rules.corroborate import merge_corroborated
from envguard.rules.cpu_report import DualOnnxRuntimeRule, DualTensorflowRule, ReportedCpuBuildRule
from envguard.rules.driver import DriverRule
from envguard.rules.driver_compat import ReportedCudaMajorRule
from envguard.rules.jax import JaxPluginRule
from envguard.rules.jax_arch import JaxArchRule
from envguard.rules.jetson import JetsonBuildRule, L4tWithoutRuntimeRule
from envguard.rules.libraries import (
    CupyWheelRule,
    LoaderPathRule,
    MixedWheelsRule,
    ReportedWheelPinRule,
    SystemLibrariesRule,
    ToolkitRule,
    WheelPinRule,
)
from envguard.rules.loaded import LoadedLibraryRule
from envguard.rules.ort import OrtGpuRule
from envguard.rules.paddle_cudnn import PaddleCudnnRule
from envguard.rules.release_arch import ReleaseArchRule
from envguard.rules.tf_arch import ReportedToolkitArchRule, TfToolkitArchRule
from envguard.snapshot import (
    BUILT_FOR_TORCH_KEY,
    CUDNN_REQUIRED_KEY,
    NGC_RELEASE_KEY,
    ONLY_TORCH_INDEX_KEY,
    PYTHON_32BIT_KEY,
    Snapshot,
)

__all__ = ["ALL_RULES", "Rule", "run_rules"]


class OnErrorLines:
    """A rule that judges only the error lines a report shows, imported the first time a snapshot has some (a
    probed machine has none: `check` does not pay for the error catalogue and its rules)."""

    def __init__(self, target: str, rule_id: str, summary: str, key: str | None = None) -> None:
        self.target = target
        self.id = rule_id
        self.summary = summary
        #: a ``Snapshot.environment`` key only a report reader writes: its presence triggers the rule instead
        self.key = key
        self._rule: Rule | None = None

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """The wrapped rule's findings; none without observed error lines (or the key)."""
        if not (snapshot.environment.get(self.key) if self.key else snapshot.observed_errors):
            return
        if self._rule is None:
            module, name = self.target.split(":")
            self._rule = getattr(importlib.import_module(module), name)()
        yield from self._rule.check(snapshot, matrices)


ALL_RULES: tuple[Rule, ...] = (
    DriverRule(),
    OnErrorLines("envguard.rules.driver_compat:ForwardCompatRule", "forward-compat",
                 "CUDA error 804 next to a driver older than the CUDA the image, build or toolkit needs"),
    ReportedCudaMajorRule(),
    OnErrorLines("envguard.rules.driver_said:SaidTooOldRule", "driver-said-too-old",
                 "a reporter's 'the driver is too old' with a CUDA build whose driver floor is known"),
    ArchRule(),
    ReleaseArchRule(),
    CondaForgeArchRule(),
    SiteBuildArchRule(),
    JaxArchRule(),
    TfToolkitArchRule(),
    ReportedToolkitArchRule(),
    CpuOnlyRule(),
    ReportedCpuBuildRule(),
    DualTensorflowRule(),
    DualOnnxRuntimeRule(),
    JetsonBuildRule(),
    L4tWithoutRuntimeRule(),
    PlatformRule(),
    PythonRule(),
    FreeThreadedRule(),
    OnErrorLines("envguard.rules.installs:RejectedWheelRule", "rejected-wheel",
                 "wheel files pip rejected were built for this interpreter's Python"),
    OnErrorLines("envguard.rules.installs:OfferedVersionsRule", "offered-versions",
                 "a pinned framework release supports the interpreter pip offered releases for"),
    OnErrorLines("envguard.rules.installs:OnlyIndexPythonRule", "only-index-python",
                 "the torch releases of the PyTorch index pip was limited to support the interpreter",
                 key=ONLY_TORCH_INDEX_KEY),
    OnErrorLines("envguard.rules.libraries:RequiredCudnnRule", "cudnn-required",
                 "the cuDNN that loads meets the version the report says is required", key=CUDNN_REQUIRED_KEY),
    OnErrorLines("envguard.rules.installs:Python32BitRule", "python-32bit",
                 "torch's wheels are 64-bit: a 32-bit interpreter cannot install any", key=PYTHON_32BIT_KEY),
    CompanionRule(),
    WheelPinRule(),
    ReportedWheelPinRule(),
    CupyWheelRule(),
    JaxPluginRule(),
    LoaderPathRule(),
    SystemLibrariesRule(),
    MixedWheelsRule(),
    LoadedLibraryRule(),
    PaddleCudnnRule(),
    OrtGpuRule(),
    OnErrorLines("envguard.rules.companion_cuda:CudaExtensionCpuTorchRule", "cuda-extension-cpu-torch",
                 "compiled torch extensions are built for the torch variant (CPU or CUDA) installed"),
    OnErrorLines("envguard.rules.paddle_arch:PaddleBannerArchRule", "paddle-banner-arch",
                 "the CUDA runtime Paddle's banner names compiles for the GPU's compute capability it names"),
    OnErrorLines("envguard.rules.cudnn_major:CudnnMajorRule", "cudnn-major",
                 "a cuDNN library the report shows missing has the major of the environment's cuDNN"),
    ToolkitRule(),
    OnErrorLines("envguard.rules.built_for:BuiltForTorchRule", "built-for-torch",
                 "compiled torch extensions (mmcv-full, PyG) were built for the installed torch release",
                 key=BUILT_FOR_TORCH_KEY),
    OnErrorLines("envguard.rules.ngc:NgcDriverRule", "ngc-driver",
                 "the driver meets the floor of the NGC container release the report names", key=NGC_RELEASE_KEY),
    OnErrorLines("envguard.rules.signatures:SignatureRule", "signatures",
                 "error messages in a pasted report, matched against the signature catalogue"),
)


def run_rules(
    snapshot: Snapshot, matrices: Matrices, rules: Sequence[Rule] = ALL_RULES, notes: tuple[str, ...] = ()
) -> Report:
    """Run every rule; findings come out worst first, then in rule order. Duplicates are dropped."""
    findings: list[Finding] = []
    for rule in rules:
        for finding in rule.check(snapshot, matrices):
            if finding not in findings:
                findings.append(finding)
    ordered = sorted(merge_corroborated(findings), key=lambda f: -f.severity)
    return Report(snapshot, tuple(ordered), matrices.loaded(), notes)
