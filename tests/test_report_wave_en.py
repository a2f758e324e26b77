"""Held-out sets EN, EO, EP, EQ and ER (issue 14, stop 28, second round), and the reader gaps listed before them: what
they taught, each on a real report's text (the public source above each). A version a change left behind is not the
one in use. A compiled extension installed from wheels built for another torch release is a companion mismatch. The
CPU onnxruntime beside onnxruntime-gpu hides the CUDA provider. A Windows interpreter folder names the Python. NCCL's
debug log names the driver's CUDA."""

from __future__ import annotations

from envguard.findings import Severity
from envguard.reports import parse_environments
from envguard.snapshot import CUDNN_MAJOR_KEY, DriverInfo, PythonInfo, Unavailable
from tests.reports import error_codes, findings, first_snapshot

# oobabooga/text-generation-webui (2025): the update wizard's swap (kept case 2755)
SWAP = """Running the update wizard on a `NVIDIA_CUDA128` install silently replaces `torch 2.9.1+cu128` with \
`torch 2.9.0+cpu` — disabling CUDA for everything except the bundled `llama-server` binary.
NVIDIA GeForce RTX 4090
"""


def test_the_version_a_change_left_behind_is_not_the_one_in_use() -> None:
    torch = first_snapshot(SWAP).framework("torch")
    assert torch is not None and torch.version == "2.9.0+cpu" and torch.accelerator == "cpu"
    assert "cpu-only-build" in error_codes(SWAP)
    # the change that fixed the failure: the failure ran on the version before it (constructed)
    fixed = "Downgrading torch from 2.5.1+cu124 to 2.4.1+cu121 fixed it.\n"
    torch = first_snapshot(fixed).framework("torch")
    assert torch is not None and torch.version == "2.5.1+cu124"


# pip's own lines about what it removed (constructed from pip's output shape)
PIP_SWAP = """  Attempting uninstall: torch
    Found existing installation: torch 2.1.0+cu121
    Uninstalling torch-2.1.0+cu121:
      Successfully uninstalled torch-2.1.0+cu121
Successfully installed torch-2.2.0
"""


def test_pip_s_removal_lines_name_what_was_there_before() -> None:
    env = parse_environments(PIP_SWAP)[0]
    torch = env.snapshot.framework("torch")
    assert torch is not None and torch.version == "2.2.0"
    assert not any("contradictory" in n for n in env.notes)


# open-mmlab/mmdetection#3490 (kept case 2808): mmcv-full's wheel for torch 1.5.0 when conda pulled PyTorch 1.6.0
MMCV = """Install error due to release of pytorch 1.6.0
```
pip install mmcv-full==latest+torch1.5.0+cu101 -f https://openmmlab.oss-accelerate.aliyuncs.com/mmcv/dist/index.html
```
"""
# open-mmlab/mmcv#1734 (kept case 1408): the cu101/torch1.6 index beside Colab's torch 1.10.0
MMCV_INDEX = """torch 1.10.0+cu111
!pip install mmcv-full -f https://download.openmmlab.com/mmcv/dist/cu101/torch1.6/index.html
"""


def test_an_extension_built_for_another_torch_release() -> None:
    for text, built in ((MMCV, "1.5"), (MMCV_INDEX, "1.6")):
        found = [f for f in findings(text) if f.code == "companion-mismatch"]
        assert found and found[0].severity is Severity.ERROR and f"torch {built}" in found[0].message
    # the same release series is the build's (mmcv-full publishes 1.x.0 builds for 1.x.1): nothing to say
    same = MMCV_INDEX.replace("torch 1.10.0+cu111", "torch 1.6.1+cu101")
    assert "companion-mismatch" not in error_codes(same)
    # PyG's local version tag names the torch (constructed from PyG's wheel names)
    pyg = "torch 2.3.1+cu121\ntorch-scatter      2.1.2+pt21cu121\n"
    assert "companion-mismatch" in error_codes(pyg)


# yakhyo/uniface#77 (held-out case 2867): the [gpu] extra installed both ONNX Runtime packages
ORT_BOTH = """Successfully installed certifi-2026.1.4 numpy-2.4.1 onnx-1.20.1 onnxruntime-1.23.2 \
onnxruntime-gpu-1.23.2 uniface-2.2.1
"""


def test_onnxruntime_beside_onnxruntime_gpu() -> None:
    assert "cpu-only-build" in error_codes(ORT_BOTH)
    # microsoft/onnxruntime's issue form names the product, not the CPU distribution (kept case 1808)
    form = "CUDA onnxruntime-gpu=1.12.1 inference result differs\n- ONNX Runtime version: 1.12.1\n"
    assert "cpu-only-build" not in error_codes(form)


# pytorch/pytorch#98385: collect_env fails when the Python path contains white space (held-out case 2886)
WIN_PYTHON = ("My Python is installed to `C:\\Program Files\\Python310`. Installation to other directories may "
              "also fail.\n")


def test_a_windows_interpreter_folder_names_the_python() -> None:
    snapshot = first_snapshot(WIN_PYTHON)
    assert isinstance(snapshot.python, PythonInfo) and snapshot.python.version == "3.10"
    assert snapshot.host.system == "Windows" and snapshot.host.source.startswith("report line 1")


# pytorch/pytorch#152077 (held-out case 2845): NCCL_DEBUG=INFO's driver line, and torch's arch warning cut mid-word
NCCL_LOG = """4d1a2ae696c8:50555:50555 [0] NCCL INFO cudaDriverVersion 12080
NCCL version 2.14.3+cuda11.8
NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch ins
"""


def test_nccl_s_driver_line_and_a_cut_arch_warning() -> None:
    snapshot = first_snapshot(NCCL_LOG)
    assert isinstance(snapshot.driver, DriverInfo) and snapshot.driver.cuda_driver_version == "12.8"
    assert "arch-unsupported" in error_codes(NCCL_LOG)


# tensorflow/tensorflow#61326 (held-out case 2924): the form's "CUDA/cuDNN version" answered with the packages' versions
CUDNN_FLAVOUR = """### TensorFlow version

v2.13.0-rc2-7-g1cb1a030a62 2.13.0

### CUDA/cuDNN version

11.8.0-1/8.9.3.28-1+cuda12.1
"""


def test_a_cudnn_package_built_for_another_cuda_major() -> None:
    snapshot = first_snapshot(CUDNN_FLAVOUR)
    assert [t.version.startswith("11.8") for t in snapshot.toolkit_list()] == [True]
    found = [f for f in findings(CUDNN_FLAVOUR) if f.code == "cudnn-mismatch"]
    assert found and found[0].severity is Severity.ERROR and "built for CUDA 12.1" in found[0].message
    # dpkg -l's row of the same shape, with a toolkit of the same major: nothing to say (tensorflow/build#221)
    same = ("ii  libcudnn8  8.9.6.50-1+cuda12.2  amd64  cuDNN runtime libraries\nCUDA Version: 12.2\n"
            "nvcc: release 12.2\n")
    assert not [f for f in findings(same) if f.code == "cudnn-mismatch" and "built for CUDA" in f.message]


# conda-forge/jaxlib-feedstock#273 (held-out case 3130): conda's download table names the CPU jaxlib build, and
# conda info's __cuda virtual package shows the machine's driver
JAXLIB_CPU = """       virtual packages : __archspec=1=skylake
                          __cuda=12.0=0
    jaxlib-0.4.27              |cpu_py312h17e8b90_0        51.3 MB  conda-forge
"""


def test_a_conda_download_table_names_the_cpu_build() -> None:
    jax = first_snapshot(JAXLIB_CPU).framework("jax")
    assert jax is not None and jax.accelerator == "cpu"
    assert "cpu-only-build" in error_codes(JAXLIB_CPU)


# pytorch/pytorch#20844 (held-out case 3100): collect_env prints the library it found as the cuDNN version
CUDNN_PATH = "cuDNN version: /usr/local/cuda-9.0/targets/x86_64-linux/lib/libcudnn.so.7\nPyTorch version: 1.1.0\n"


def test_a_cudnn_path_gives_its_soname_not_its_folder() -> None:
    snapshot = first_snapshot(CUDNN_PATH)
    assert isinstance(snapshot.cudnn, Unavailable)
    assert snapshot.environment.get(CUDNN_MAJOR_KEY, "").startswith("7")
