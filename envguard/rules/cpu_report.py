"""cpu-only-build for what only a pasted report shows: a CPU build where the report lists no GPU but names an NVIDIA
driver, asks for a CUDA build, or shows a GPU working elsewhere on the machine; builds a report names only as "the
CPU version of torch" (version not given); and (any environment) TensorFlow's CPU package before 2.1 installed
beside tensorflow-gpu."""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import InvalidVersion, Version

from envguard.findings import Evidence, Finding, Severity
from envguard.knowledge import Matrices
from envguard.rules.base import CORE_FRAMEWORKS, build_evidence, ev, interpreter_source, system_of
from envguard.snapshot import FrameworkBuild, Snapshot, Unavailable

_FIX = {
    "torch": "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/<cuXXX>  # a CUDA "
             "variant your driver supports (`envguard matrix torch`); with conda, ask for the CUDA build "
             "explicitly (pytorch-cuda=X / cudatoolkit=X of a combination the channel publishes)",
    "tensorflow": "pip install 'tensorflow[and-cuda]' (Linux/WSL2) or a conda CUDA build whose "
                  "tf.test.is_built_with_cuda() is True",
    "jax": "on Linux or WSL2: pip install -U 'jax[cuda12]' (or conda install 'jaxlib=*=*cuda*'); native Windows "
           "has no CUDA jaxlib",
    "paddle": "pip install paddlepaddle-gpu  # from the index for your CUDA version (paddlepaddle.org.cn)",
}


class ReportedCpuBuildRule:
    """A CPU build on what the report shows is a GPU machine, when it lists no GPU (or no framework version)."""

    id = "cpu-only-report"
    summary = "frameworks a report shows meant for a GPU are GPU builds"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield cpu-only-build findings the GPU-listing rule (cpu-only) leaves to this one."""
        gpus = snapshot.gpu_list()
        for build in snapshot.frameworks:
            if build.name not in CORE_FRAMEWORKS or build.accelerator != "cpu":
                continue
            if gpus and build.version_known:
                continue  # the cpu-only rule judges it against the GPUs
            if build.name == "tensorflow" and system_of(snapshot) == "windows":
                continue  # platform-unsupported says it better
            if not gpus and system_of(snapshot) == "darwin":
                continue  # macOS has no NVIDIA GPU to use: a CPU (or MPS) build is what it gets
            machine = self._machine(snapshot, build)
            if machine is None:
                continue
            label = f"{build.name} {build.version}" if build.version_known else \
                f"{build.name} ({build.version_label(snapshot.from_report)})"
            yield Finding(
                "cpu-only-build", Severity.ERROR,
                f"{label} is a CPU-only build, so it cannot use the GPU "
                f"({machine.fact}: {machine.value}).",
                (build_evidence(build, snapshot), machine), _FIX[build.name], None, build.name,
            )

    @staticmethod
    def _machine(snapshot: Snapshot, build: FrameworkBuild) -> Evidence | None:
        gpus = snapshot.gpu_list()
        if gpus:
            return ev("GPUs", ", ".join(g.name for g in gpus), gpus[0].source)
        driver = snapshot.driver
        if not isinstance(driver, Unavailable) and driver.version:
            return ev("NVIDIA driver", driver.version, driver.source)
        if not isinstance(driver, Unavailable) and driver.cuda_driver_version:
            # NOTE: a driver known only by the CUDA it supports (conda info's __cuda=12.0 virtual package, NCCL's
            # cudaDriverVersion) is still an NVIDIA driver on the machine
            return ev("NVIDIA driver", f"supports CUDA {driver.cuda_driver_version}", driver.source)
        if build.gpu_intent:
            value, _, where = build.gpu_intent.partition(" (")
            return ev("meant for a GPU", value, where.removesuffix(")") or "report")
        return None


#: Before 2.1 the "tensorflow" package is the CPU build and "tensorflow-gpu" the GPU one ("For releases 1.15 and
#: older, CPU and GPU packages are separate", TensorFlow's install guide as quoted in tensorflow#48640); both install
#: the same tensorflow module, so the one installed last is what imports (keras-team/keras#6997), and uninstalling the
#: CPU package is the fix reporters confirm (tensorflow#22472, autorope/donkeycar#346).
_TF_SPLIT_SOURCE = ("https://github.com/tensorflow/tensorflow/issues/48640 ; https://github.com/keras-team/keras/issues/"
                    "6997 ; https://github.com/tensorflow/tensorflow/issues/22472 ; https://github.com/autorope/"
                    "donkeycar/pull/346")


class DualTensorflowRule:
    """The CPU tensorflow package (< 2.1) installed beside tensorflow-gpu: one module, two builds."""

    id = "tf-cpu-and-gpu-packages"
    summary = "tensorflow (the CPU package before 2.1) is not installed beside tensorflow-gpu"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield a cpu-only-build finding when both packages are listed."""
        listed = snapshot.package_map()
        cpu, gpu = listed.get("tensorflow"), listed.get("tensorflow-gpu")
        if cpu is None or gpu is None:
            return
        try:
            split = Version(cpu.version).release < (2, 1)
        except InvalidVersion:
            return
        if not split:
            return
        yield Finding(
            "cpu-only-build", Severity.ERROR,
            f"tensorflow {cpu.version} (before 2.1 the CPU-only package) is installed beside tensorflow-gpu "
            f"{gpu.version}: both install the same tensorflow module, the one installed last is what imports, and "
            f"with the CPU one the GPU is never used.",
            (ev("tensorflow", cpu.version, "package list"), ev("tensorflow-gpu", gpu.version, "package list")),
            f"pip uninstall -y tensorflow tensorflow-gpu && pip install tensorflow-gpu=={gpu.version}",
            _TF_SPLIT_SOURCE, "tensorflow",
        )


#: onnxruntime (the CPU package) and onnxruntime-gpu install the same onnxruntime module: with both installed the CUDA
#: provider is not available ("`onnxruntime` and `onnxruntime-gpu` can not co-exist and support
#: CUDAExecutionProvider", microsoft/onnxruntime#26996, 1.23.2 on a T4; "If you want to run on GPU, you don't need to
#: install onnxruntime (CPU pkg)", a maintainer in microsoft/onnxruntime#3787); the fix reporters confirm is removing
#: both and installing onnxruntime-gpu alone (microsoft/onnxruntime#7748, yakhyo/uniface#77).
_ORT_SPLIT_SOURCE = ("https://github.com/microsoft/onnxruntime/issues/26996 ; https://github.com/microsoft/onnxruntime/"
                     "issues/3787 ; https://github.com/microsoft/onnxruntime/issues/7748")


class DualOnnxRuntimeRule:
    """The CPU onnxruntime package installed beside onnxruntime-gpu: one module, two builds."""

    id = "ort-cpu-and-gpu-packages"
    summary = "onnxruntime (the CPU package) is not installed beside onnxruntime-gpu"

    def check(self, snapshot: Snapshot, matrices: Matrices) -> Iterator[Finding]:
        """Yield a cpu-only-build finding when both packages are listed."""
        listed = snapshot.package_map()
        cpu, gpu = listed.get("onnxruntime"), listed.get("onnxruntime-gpu")
        if cpu is None or gpu is None:
            return
        where = interpreter_source(snapshot, "distributions")
        yield Finding(
            "cpu-only-build", Severity.ERROR,
            f"onnxruntime {cpu.version} (the CPU-only package) is installed beside onnxruntime-gpu {gpu.version}: "
            f"both install the same onnxruntime module, and with both installed the CUDA execution provider is not "
            f"available.",
            (ev("onnxruntime", cpu.version, where), ev("onnxruntime-gpu", gpu.version, where)),
            f"pip uninstall -y onnxruntime onnxruntime-gpu && pip install onnxruntime-gpu=={gpu.version} "
            "(onnxruntime-gpu includes the CPU provider)",
            _ORT_SPLIT_SOURCE, "onnxruntime",
        )
