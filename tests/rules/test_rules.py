"""Rules on snapshot scenarios, judged against the shipped matrices (negative traps included)."""

from __future__ import annotations

import pytest

from envguard.archs import parse_arch_list, runs_on
from envguard.findings import Finding, Severity
from envguard.knowledge import Matrices, load_matrices
from envguard.rules import run_rules
from envguard.rules.libraries import wheel_cuda_major
from envguard.snapshot import (
    UNKNOWN_VERSION,
    CudaToolkit,
    Distribution,
    DriverInfo,
    FrameworkBuild,
    PythonInfo,
    RuntimeReport,
    SharedLibrary,
    Snapshot,
    Unavailable,
)
from tests.fakes import gpu, linux_python, make_snapshot, torch_build

TORCH_251_CU124_REQUIRES = (
    'nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux" and platform_machine == "x86_64"',
    'nvidia-nccl-cu12==2.21.5; platform_system == "Linux" and platform_machine == "x86_64"',
    'nvidia-cuda-runtime-cu12==12.4.127; platform_system == "Linux" and platform_machine == "x86_64"',
    "filelock",
    'opt-einsum>=3.3; extra == "opt-einsum"',
)


@pytest.fixture(scope="module")
def matrices() -> Matrices:
    m = load_matrices()
    m.load_all()
    return m


def codes(snapshot: Snapshot, matrices: Matrices, severity: Severity | None = None) -> list[str]:
    return [f.code for f in findings(snapshot, matrices) if severity is None or f.severity == severity]


def findings(snapshot: Snapshot, matrices: Matrices) -> tuple[Finding, ...]:
    return run_rules(snapshot, matrices).findings


def only(snapshot: Snapshot, matrices: Matrices, code: str) -> Finding:
    hits = [f for f in findings(snapshot, matrices) if f.code == code]
    assert len(hits) == 1, [f.code for f in findings(snapshot, matrices)]
    return hits[0]


# ---- driver ------------------------------------------------------------------------------------


def test_cu121_on_driver_470_is_too_old(matrices: Matrices) -> None:
    """Case 009: torch 2.1.0+cu121 on a GKE node with driver 470.182.03 (CUDA 11.4)."""
    snap = make_snapshot(driver="470.182.03", cuda_driver="11.4", gpus=[gpu("Tesla T4", "7.5")],
                         frameworks=[torch_build("2.1.0+cu121", "12.1")])
    finding = only(snap, matrices, "driver-too-old")
    assert finding.severity is Severity.ERROR
    assert "525.60.13" in finding.message
    assert "470.182.03" in finding.message
    # The fix offers the cu118 build of the same release, which driver 470 runs.
    assert finding.fix is not None
    assert "torch==2.1.0" in finding.fix
    assert "whl/cu118" in finding.fix
    assert "docs.nvidia.com" in (finding.source or "")
    assert {e.fact for e in finding.evidence} >= {"driver", "torch", "required driver"}


def test_trap_cu118_on_driver_470_is_fine(matrices: Matrices) -> None:
    """Minor-version compatibility: an 11.8 build runs on any driver >= 450.80.02."""
    snap = make_snapshot(driver="470.182.03", cuda_driver="11.4", gpus=[gpu("Tesla T4", "7.5")],
                         frameworks=[torch_build("2.1.0+cu118", "11.8")])
    assert codes(snap, matrices) == []


def test_trap_cu113_on_driver_460_is_fine(matrices: Matrices) -> None:
    """Case 012 (Colab): torch 1.12 cu113 on driver 460.32.03 (reports CUDA 11.2)."""
    snap = make_snapshot(driver="460.32.03", cuda_driver="11.2", gpus=[gpu("Tesla T4", "7.5")],
                         frameworks=[torch_build("1.12.1+cu113", "11.3")], python=linux_python("3.7.13"))
    assert codes(snap, matrices, Severity.ERROR) == []


def test_cuda_10_has_no_minor_version_compatibility(matrices: Matrices) -> None:
    snap = make_snapshot(driver="418.87.00", cuda_driver="10.1", gpus=[gpu("Tesla V100-SXM2-16GB", "7.0")],
                         frameworks=[torch_build("1.12.1+cu102", "10.2")])
    finding = only(snap, matrices, "driver-too-old")
    assert "440.33" in finding.message
    assert "no minor-version compatibility" in finding.message


def test_cuda13_build_on_driver_570(matrices: Matrices) -> None:
    """The torch >= 2.11 PyPI default (cu130) on a 570 driver: 'found version 12080'."""
    snap = make_snapshot(driver="570.124.06", cuda_driver="12.8", gpus=[gpu("NVIDIA H100 80GB HBM3", "9.0")],
                         frameworks=[torch_build("2.13.0+cu130", "13.0")])
    finding = only(snap, matrices, "driver-too-old")
    assert "580.65.06" in finding.message
    assert finding.fix is not None and "whl/cu126" in finding.fix


def test_driver_library_mismatch(matrices: Matrices) -> None:
    driver = Unavailable("NVML reports Driver/library version mismatch", ("NVML", "nvidia-smi"),
                         "driver-library-mismatch")
    snap = make_snapshot(driver=driver, gpus=Unavailable("mismatch"), frameworks=[])
    finding = only(snap, matrices, "driver-library-mismatch")
    assert finding.severity is Severity.ERROR
    assert finding.fix is not None and "reboot" in finding.fix


def test_cuda_build_without_driver_is_a_warning_on_a_cpu_box(matrices: Matrices) -> None:
    snap = make_snapshot(frameworks=[torch_build("2.13.0+cu130", "13.0")])
    finding = only(snap, matrices, "driver-missing")
    assert finding.severity is Severity.WARNING


def test_installed_but_unloaded_driver_is_an_error(matrices: Matrices) -> None:
    driver = Unavailable("the NVIDIA kernel driver is not loaded", ("NVML",), "driver-not-loaded")
    snap = make_snapshot(driver=driver, frameworks=[torch_build("2.13.0+cu130", "13.0")])
    assert only(snap, matrices, "driver-missing").severity is Severity.ERROR


def test_cpu_machine_with_cpu_torch_and_toolkit_is_clean(matrices: Matrices) -> None:
    """This CI machine: no driver, CUDA 13.0 toolkit, torch 2.13.0+cpu: nothing to report."""
    toolkit = CudaToolkit("13.0", "/usr/local/cuda-13.0", "nvcc on PATH", "/usr/local/bin/nvcc", "13.0.88")
    snap = make_snapshot(frameworks=[torch_build("2.13.0+cpu", None)], toolkits=[toolkit])
    assert codes(snap, matrices) == []


# ---- architectures -----------------------------------------------------------------------------


def test_rtx5090_on_cu126_wheel(matrices: Matrices) -> None:
    """Case 001: RTX 5090 D (sm_120) with torch 2.6.0+cu126 (sm_50..sm_90)."""
    snap = make_snapshot(driver="570.124.04", cuda_driver="12.8", gpus=[gpu("NVIDIA GeForce RTX 5090 D", "12.0")],
                         frameworks=[torch_build("2.6.0+cu126", "12.6")])
    finding = only(snap, matrices, "arch-unsupported")
    assert "12.0" in finding.message
    assert "sm_90" in finding.message
    assert finding.fix is not None
    assert "torch==2.7.*" in finding.fix
    assert "whl/cu128" in finding.fix


def test_compute_capability_from_product_name(matrices: Matrices) -> None:
    """nvidia-smi tables carry names, not capabilities: the gpu-arch table fills in."""
    snap = make_snapshot(driver="570.124.04", cuda_driver="12.8",
                         gpus=[gpu("NVIDIA GeForce RTX 5090", None, source="nvidia-smi table")],
                         frameworks=[torch_build("2.6.0+cu124", "12.4")])
    finding = only(snap, matrices, "arch-unsupported")
    assert any("gpu-arch.toml" in e.source for e in finding.evidence)


def test_volta_on_cu130_wheel(matrices: Matrices) -> None:
    snap = make_snapshot(driver="580.82.07", cuda_driver="13.0", gpus=[gpu("Tesla V100-SXM2-32GB", "7.0")],
                         frameworks=[torch_build("2.13.0+cu130", "13.0")])
    finding = only(snap, matrices, "arch-unsupported")
    assert finding.fix is not None and "whl/cu126" in finding.fix


def test_trap_sass_runs_on_a_higher_minor(matrices: Matrices) -> None:
    """sm_86 SASS runs on an sm_89 card (same major, equal or higher minor): RTX 4090 on cu118 2.0."""
    snap = make_snapshot(driver="535.154.05", cuda_driver="12.2", gpus=[gpu("NVIDIA GeForce RTX 4090", "8.9")],
                         frameworks=[torch_build("2.0.1+cu117", "11.7")])
    assert "arch-unsupported" not in codes(snap, matrices)


def test_runtime_arch_list_wins_over_matrix(matrices: Matrices) -> None:
    runtime = RuntimeReport(gpu_available=True, arch_list=("sm_37", "sm_50", "sm_60", "sm_70"))
    build = torch_build("2.5.1+cu124", "12.4", runtime=runtime)
    snap = make_snapshot(driver="550.54.14", cuda_driver="12.4", gpus=[gpu("NVIDIA A100-SXM4-80GB", "8.0")],
                         frameworks=[build])
    finding = only(snap, matrices, "arch-unsupported")
    assert any("runtime" in e.source for e in finding.evidence)


def test_arch_helpers() -> None:
    assert parse_arch_list(("sm_80", "sm_90a", "compute_120", "8.6")) == (("8.0", "9.0", "8.6"), ("12.0",))
    assert runs_on("8.9", ("8.6",), ())
    assert not runs_on("8.0", ("8.6",), ())
    assert runs_on("12.1", ("9.0",), ("12.0",))  # PTX JIT forward
    assert not runs_on("3.5", ("3.7", "5.0"), ())


def test_unknown_arch_list_is_info_not_a_guess(matrices: Matrices) -> None:
    """torch 1.9's CUDA 11 wheels have no pinned arch list in the matrix: say so, do not guess."""
    snap = make_snapshot(driver="580.95.05", cuda_driver="13.0", gpus=[gpu("NVIDIA A100-SXM4-80GB", "8.0")],
                         frameworks=[torch_build("1.9.0+cu111", "11.1")], python=linux_python("3.9.7"))
    assert codes(snap, matrices) == ["unknown-version"]


# ---- builds --------------------------------------------------------------------------------------


def test_cpu_only_torch_on_gpu_machine(matrices: Matrices) -> None:
    """Case 007: torch 2.1.0+cpu with an RTX 3060 Ti and a working driver."""
    snap = make_snapshot(driver="550.54.14", cuda_driver="12.4", gpus=[gpu("NVIDIA GeForce RTX 3060 Ti", "8.6")],
                         frameworks=[torch_build("2.1.0+cpu", None)])
    finding = only(snap, matrices, "cpu-only-build")
    assert "cu121" in (finding.fix or "")


def test_tensorflow_gpu_on_native_windows(matrices: Matrices) -> None:
    """Case 004: TF 2.16 on native Windows never uses the GPU."""
    python = PythonInfo("C:/Python311/python.exe", "3.11.7", "CPython", "win32", "AMD64", "C:/Python311",
                        "C:/Python311")
    tf = FrameworkBuild("tensorflow", "tensorflow", "2.16.1", "cpu", None, None)
    snap = make_snapshot(driver="551.61", cuda_driver="12.4", gpus=[gpu("NVIDIA GeForce RTX 3070", "8.6")],
                         frameworks=[tf], python=python, system="Windows")
    finding = only(snap, matrices, "platform-unsupported")
    assert "2.10" in finding.message
    assert "cpu-only-build" not in codes(snap, matrices)


def test_python_312_with_torch_21(matrices: Matrices) -> None:
    """Case 025: torch 2.1 has no Python 3.12 wheels."""
    snap = make_snapshot(python=linux_python("3.12.0"), frameworks=[torch_build("2.1.1+cpu", None)])
    finding = only(snap, matrices, "python-unsupported")
    assert "3.12.0" in finding.message


def test_python_outside_jax_and_paddle_releases(matrices: Matrices) -> None:
    """jax.toml and paddle.toml record each release's Python range too (jax 0.4.30 needs >= 3.9; Paddle 2.4 < 3.11)."""
    jax = FrameworkBuild("jax", "jaxlib", "0.4.30", "cpu", None, None)
    assert "3.8.10" in only(make_snapshot(python=linux_python("3.8.10"), frameworks=[jax]), matrices,
                            "python-unsupported").message
    assert "python-unsupported" not in codes(make_snapshot(python=linux_python("3.11.4"), frameworks=[jax]), matrices)
    paddle = FrameworkBuild("paddle", "paddlepaddle-gpu", "2.4.2.post117", "cuda", "11.7", None)
    assert "3.12.4" in only(make_snapshot(python=linux_python("3.12.4"), frameworks=[paddle]), matrices,
                            "python-unsupported").message


def test_newer_torch_than_matrices_is_unknown_not_judged(matrices: Matrices) -> None:
    snap = make_snapshot(python=linux_python("3.16.0"), frameworks=[torch_build("9.1.0+cpu", None)])
    assert codes(snap, matrices) == ["unknown-version"]


def test_torchvision_for_another_torch_release(matrices: Matrices) -> None:
    tv = FrameworkBuild("torchvision", "torchvision", "0.15.2+cu118", "cuda", "11.8", None)
    snap = make_snapshot(frameworks=[torch_build("2.1.0+cu118", "11.8"), tv])
    finding = only(snap, matrices, "companion-mismatch")
    assert "0.16" in finding.message


def test_torchvision_pin_in_metadata(matrices: Matrices) -> None:
    tv = FrameworkBuild("torchvision", "torchvision", "0.29.1", "cuda", "13.0", None)
    packages = [Distribution("torchvision", "0.29.1", ("torch==2.14.1",)), Distribution("torch", "2.13.0")]
    snap = make_snapshot(frameworks=[torch_build("2.13.0+cu130", "13.0"), tv], packages=packages)
    finding = only(snap, matrices, "companion-mismatch")
    assert "torch==2.14.1" in finding.message


def test_torchvision_other_cuda_variant(matrices: Matrices) -> None:
    tv = FrameworkBuild("torchvision", "torchvision", "0.20.1+cu121", "cuda", "12.1", None)
    snap = make_snapshot(frameworks=[torch_build("2.5.1+cu124", "12.4"), tv])
    assert "different CUDA variants" in only(snap, matrices, "companion-mismatch").message


def test_jax_plugin_version_mismatch(matrices: Matrices) -> None:
    packages = [Distribution("jaxlib", "0.4.31"), Distribution("jax-cuda12-plugin", "0.4.30")]
    snap = make_snapshot(packages=packages)
    assert only(snap, matrices, "companion-mismatch").subject == "jax"


# ---- libraries ------------------------------------------------------------------------------------


def test_nvidia_wheel_pinned_but_missing(matrices: Matrices) -> None:
    packages = [Distribution("torch", "2.5.1", TORCH_251_CU124_REQUIRES),
                Distribution("nvidia-cudnn-cu12", "9.1.0.70"), Distribution("nvidia-cuda-runtime-cu12", "12.4.127")]
    build = FrameworkBuild("torch", "torch", "2.5.1+cu124", "cuda", "12.4", "9.1.0.70")
    snap = make_snapshot(frameworks=[build], packages=packages)
    finding = only(snap, matrices, "cuda-libs-missing")
    assert "nvidia-nccl-cu12==2.21.5" in finding.message


def test_older_nccl_wheel_than_pinned(matrices: Matrices) -> None:
    """ncclCommRegister undefined: torch 2.2 (NCCL 2.19.3) with nvidia-nccl-cu12 2.18.1 from another package."""
    requires = ('nvidia-nccl-cu12==2.19.3; platform_system == "Linux" and platform_machine == "x86_64"',)
    packages = [Distribution("torch", "2.2.0", requires), Distribution("nvidia-nccl-cu12", "2.18.1")]
    snap = make_snapshot(frameworks=[torch_build("2.2.0+cu121", "12.1")], packages=packages)
    assert only(snap, matrices, "nccl-mismatch").severity is Severity.ERROR


def test_pins_for_other_platforms_do_not_apply(matrices: Matrices) -> None:
    requires = ('nvidia-nccl-cu12==2.19.3; platform_system == "Linux" and platform_machine == "aarch64"',)
    packages = [Distribution("torch", "2.2.0", requires)]
    snap = make_snapshot(frameworks=[torch_build("2.2.0+cu121", "12.1")], packages=packages)
    assert codes(snap, matrices) == ["driver-missing"]


def test_old_cudnn_on_ld_library_path_shadows_the_wheel(matrices: Matrices) -> None:
    """Case 015: cuDNN 8.0.3 first on LD_LIBRARY_PATH, torch 1.12 cu113 bundles 8.3.2."""
    lib = SharedLibrary("cudnn", "libcudnn.so.8", "/usr/local/cuda-11.0/lib64/libcudnn.so.8", "LD_LIBRARY_PATH",
                        "8.0.3")
    snap = make_snapshot(driver="470.82.01", cuda_driver="11.4", gpus=[gpu("NVIDIA GeForce RTX 3090", "8.6")],
                         frameworks=[torch_build("1.12.0+cu113", "11.3")], libraries=[lib],
                         environment={"LD_LIBRARY_PATH": "/usr/local/cuda-11.0/lib64"})
    finding = only(snap, matrices, "cudnn-mismatch")
    assert "8.3.2" in finding.message
    assert "LD_LIBRARY_PATH" in (finding.fix or "")


def test_tensorflow_missing_system_cudnn(matrices: Matrices) -> None:
    """Case 023 shape: a TF GPU build whose cuDNN major is not on the loader path."""
    tf = FrameworkBuild("tensorflow", "tensorflow", "2.11.0", "cuda", "11.2", "8",
                        source="tensorflow/python/platform/build_info.py")
    libs = [SharedLibrary("cudart", "libcudart.so.11.0", "/usr/local/cuda/lib64/libcudart.so.11.0", "ldconfig",
                          "11.2.152"),
            SharedLibrary("cudnn", "libcudnn.so.7", "/usr/lib/libcudnn.so.7", "ldconfig", "7.6.5")]
    snap = make_snapshot(driver="470.82.01", cuda_driver="11.4", gpus=[gpu("Tesla T4", "7.5")], frameworks=[tf],
                         libraries=libs)
    finding = only(snap, matrices, "cuda-libs-missing")
    assert "libcudnn.so.8" in finding.message


def test_mixed_cuda_wheels_and_nccl_twins(matrices: Matrices) -> None:
    """pytorch#186591: nvidia-nccl-cu12 and nvidia-nccl-cu13 both installed."""
    packages = [Distribution("nvidia-nccl-cu12", "2.29.3"), Distribution("nvidia-nccl-cu13", "2.29.7"),
                Distribution("nvidia-cublas", "13.1.0.3"), Distribution("nvidia-ml-py", "13.580.82")]
    snap = make_snapshot(packages=packages)
    got = codes(snap, matrices)
    assert sorted(got) == ["mixed-cuda-wheels", "nccl-mismatch"]


def test_wheel_cuda_major() -> None:
    assert wheel_cuda_major("nvidia-cudnn-cu12", "9.1.0.70") == ("nvidia-cudnn", 12)
    assert wheel_cuda_major("nvidia_cublas", "13.1.0.3") == ("nvidia-cublas", 13)
    assert wheel_cuda_major("nvidia-ml-py", "13.580.82") is None
    assert wheel_cuda_major("nvidia-cudnn-frontend", "1.5.0") is None


def test_toolkit_mismatch_is_a_warning(matrices: Matrices) -> None:
    toolkit = CudaToolkit("13.0", "/usr/local/cuda-13.0", "nvcc on PATH", "/usr/local/cuda-13.0/bin/nvcc", "13.0.88")
    snap = make_snapshot(driver="580.95.05", cuda_driver="13.0", gpus=[gpu("NVIDIA L4", "8.9")],
                         frameworks=[torch_build("2.8.0+cu128", "12.8")], toolkits=[toolkit])
    finding = only(snap, matrices, "toolkit-mismatch")
    assert finding.severity is Severity.WARNING


def test_trap_toolkit_same_major_is_fine(matrices: Matrices) -> None:
    """Case 027: torch 1.8 cu111 with a system CUDA 11.2 toolkit: not a problem."""
    toolkit = CudaToolkit("11.2", "/usr/local/cuda-11.2", "nvcc on PATH", "/usr/local/cuda-11.2/bin/nvcc", "11.2.152")
    snap = make_snapshot(driver="460.39", cuda_driver="11.2", gpus=[gpu("GeForce RTX 3090", "8.6")],
                         frameworks=[torch_build("1.12.0+cu113", "11.3")], toolkits=[toolkit],
                         python=linux_python("3.8.10"))
    assert codes(snap, matrices, Severity.ERROR) == []
    assert "toolkit-mismatch" not in codes(snap, matrices)


def test_report_orders_worst_first_and_exit_code(matrices: Matrices) -> None:
    toolkit = CudaToolkit("13.0", "/usr/local/cuda-13.0", "nvcc on PATH", None, "13.0.88")
    snap = make_snapshot(driver="470.182.03", cuda_driver="11.4", gpus=[gpu("Tesla T4", "7.5")],
                         frameworks=[torch_build("2.1.0+cu121", "12.1")], toolkits=[toolkit])
    report = run_rules(snap, matrices)
    assert [f.severity for f in report.findings] == sorted((f.severity for f in report.findings), reverse=True)
    assert report.exit_code(Severity.ERROR) == 1
    assert report.worst is Severity.ERROR
    clean = run_rules(make_snapshot(), matrices)
    assert clean.exit_code(Severity.INFO) == 0


def test_driver_reported_only_by_proc(matrices: Matrices) -> None:
    driver = DriverInfo("550.90.07", None, "/proc/driver/nvidia/version", "550.90.07")
    snap = make_snapshot(driver=driver, frameworks=[torch_build("2.5.1+cu124", "12.4")])
    assert codes(snap, matrices) == []


def test_torch_cudnn_wheel_breaks_tensorflow_and_cuda(matrices: Matrices) -> None:
    """TF 2.18 [and-cuda] needs cuDNN 9.3; torch 2.5's pin left nvidia-cudnn-cu12 9.1.0.70 installed."""
    tf_requires = ('nvidia-cudnn-cu12==9.3.0.75; extra == "and-cuda"',
                   'nvidia-nccl-cu12==2.21.5; extra == "and-cuda"', "numpy<2.1.0,>=1.26.0")
    packages = [Distribution("tensorflow", "2.18.0", tf_requires), Distribution("nvidia-cudnn-cu12", "9.1.0.70"),
                Distribution("nvidia-nccl-cu12", "2.21.5")]
    tf = FrameworkBuild("tensorflow", "tensorflow", "2.18.0", "cuda", "12.5.1", "9",
                        source="tensorflow/python/platform/build_info.py")
    snap = make_snapshot(driver="550.90.07", cuda_driver="12.4", gpus=[gpu("NVIDIA A10", "8.6")], frameworks=[tf],
                         packages=packages)
    finding = only(snap, matrices, "cudnn-mismatch")
    assert "9.1.0.70" in finding.message and "9.3.0.75" in finding.message
    # Without the extra installed, the and-cuda pins are not judged.
    bare = make_snapshot(driver="550.90.07", cuda_driver="12.4", gpus=[gpu("NVIDIA A10", "8.6")], frameworks=[tf],
                         packages=[Distribution("tensorflow", "2.18.0", tf_requires)])
    assert "cudnn-mismatch" not in codes(bare, matrices)


def test_forward_compat_is_offered_only_on_datacenter_gpus(matrices: Matrices) -> None:
    build = torch_build("2.13.0+cu130", "13.0")
    dc = make_snapshot(driver="570.124.06", cuda_driver="12.8", gpus=[gpu("NVIDIA H100 80GB HBM3", "9.0")],
                       frameworks=[build])
    assert "cuda-compat-13-0" in (only(dc, matrices, "driver-too-old").fix or "")
    consumer = make_snapshot(driver="570.124.06", cuda_driver="12.8", gpus=[gpu("NVIDIA GeForce RTX 4090", "8.9")],
                             frameworks=[build])
    assert "cuda-compat" not in (only(consumer, matrices, "driver-too-old").fix or "")


def test_unknown_build_version_is_named_by_the_snapshot_mode(matrices: Matrices) -> None:
    """A probed package without ``__version__`` or metadata says "version unknown" (not the report wording)."""
    snap = make_snapshot(driver="470.182.03", cuda_driver="11.4", gpus=[gpu("Tesla T4", "7.5")],
                         frameworks=[torch_build(UNKNOWN_VERSION, "12.1")])
    assert not snap.from_report
    finding = only(snap, matrices, "driver-too-old")
    torch_ev = next(e for e in finding.evidence if e.fact == "torch")
    assert torch_ev.value == "version unknown (CUDA 12.1)"
    build = snap.frameworks[0]
    assert build.version_label(from_report=True) == "version not reported"
    assert not build.version_known and torch_build("2.1.0+cu121", "12.1").version_known


def test_onnxruntime_cpu_package_beside_the_gpu_one(matrices: Matrices) -> None:
    """microsoft/onnxruntime#26996, yakhyo/uniface#77: onnxruntime 1.23.2 and onnxruntime-gpu 1.23.2 together."""
    packages = [Distribution("onnxruntime", "1.23.2"), Distribution("onnxruntime-gpu", "1.23.2")]
    finding = only(make_snapshot(packages=packages), matrices, "cpu-only-build")
    assert finding.severity is Severity.ERROR and "onnxruntime-gpu==1.23.2" in (finding.fix or "")


def test_onnxruntime_gpu_alone_is_fine(matrices: Matrices) -> None:
    snap = make_snapshot(packages=[Distribution("onnxruntime-gpu", "1.23.2")])
    assert "cpu-only-build" not in codes(snap, matrices)
