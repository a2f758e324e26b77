"""Held-out sets CJ-CO (issue 14, stop 25): what their first contact taught, each on a real report's text (the public
source above each). A cuDNN library of one major missing beside an environment's cuDNN of another is a cuDNN
mismatch; an extension's own .so under site-packages asking libtorch for a symbol is built for another torch;
`grep CUDNN_MAJOR -A 1` gives major.minor; Colab and Kaggle run Linux; a TensorFlow whose cuDNN is another major than
the one the report shows; NVIDIA's CUDA image banner names the image's toolkit; the pytorch channel's CPU mutex and
old nightly package in a conda plan; a torch that an install failed or attempted to get is not the installed one;
collect_env's "Is CUDA available: Yes" turns a driver floor into a warning; Paddle's banner with a runtime older than
the GPU's architecture family; a driver "updated from X to Y" was X."""

from __future__ import annotations

from envguard.findings import Severity
from envguard.formatters.base import environment_rows
from envguard.knowledge import load_matrices
from envguard.reports import parse_environments
from tests.reports import error_messages, findings, first_snapshot, worst_severity

# m-bain/whisperX#954 (ctranslate2 4.4.0, built for cuDNN 8, beside torch 2.5.1's cuDNN 9)
WHISPERX = """I wanted to install torch 2.5.1 with CUDA 12.1 to use whisperX, however the current \
`requirements.txt` pins the version of `ctranslate2==4.4.0`. Running the default example present in the \
`README.md` file throws an error:
```
Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file: \
No such file or directory
Aborted
```
"""


def test_a_cudnn_8_library_missing_beside_torchs_cudnn_9_is_a_cudnn_mismatch() -> None:
    messages = error_messages(WHISPERX)
    assert "cuda-libs-missing" in messages
    assert any("cuDNN 8" in m and "9.1.0.70" in m for m in messages["cudnn-mismatch"])


def test_a_cudnn_library_of_the_environments_own_major_is_only_missing() -> None:
    # the same loader line beside torch 2.3.1+cu121, whose cuDNN is 8.9.2.26: the file is off the loader path
    text = WHISPERX.replace("torch 2.5.1 with CUDA 12.1", "torch 2.3.1+cu121")
    assert "cudnn-mismatch" not in error_messages(text)


# vllm-project/vllm#3147 (vllm 0.3.2's _C built for torch 2.1.2, under torch 2.2.1)
VLLM = """`ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.cpython-310-x86_64-linux-gnu.so: \
undefined symbol: \
_ZN2at4_ops15to_dtype_layout4callERKNS_6TensorEN3c108optionalINS5_10ScalarTypeEEENS6_INS5_6LayoutEEENS6_INS5_\
6DeviceEEENS6_IbEEbbNS6_INS5_12MemoryFormatEEE`

CUDA: 12.0.1
torch : 2.2.1
vllm: 0.3.2
"""


def test_an_extension_under_site_packages_asking_for_a_torch_symbol_is_built_for_another_torch() -> None:
    assert worst_severity(VLLM)["companion-mismatch"] is Severity.ERROR


def test_torchs_own_library_missing_a_symbol_is_not_an_extension_built_for_another_torch() -> None:
    matrices = load_matrices()
    line = ("ImportError: /usr/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: "
            "_ZN3c104cuda9SetDeviceEi")
    assert "torch-extension-undefined-symbol" not in {m.signature.id for m in matrices.errors.match([line])}


# frankkramer-lab/MIScnn#146 (Colab, TF 2.7 with a cudnn.h grep of cuDNN 7.6)
MISCNN = """I am getting the above error when I test kits19 dataset on Google Colab
error messgae:
`Failed to get convolution algorithm. This is probably because cuDNN failed to initialize`

Here is my environment;
**Tensorflow  - 2.7.0
Python 3.7.13
CUDA Version: 11.2**

Here is the cudnn output;
```
>> !cat /usr/include/cudnn.h | grep CUDNN_MAJOR -A 1
#define CUDNN_MAJOR 7
#define CUDNN_MINOR 6
--
#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)
```
"""


def test_a_cudnn_header_grep_with_one_line_after_gives_major_and_minor() -> None:
    snap = first_snapshot(MISCNN)
    assert [c.version for c in snap.cudnn] == ["7.6"]  # type: ignore[union-attr] # reason: read above
    assert snap.host.system == "Linux"  # Google Colab


def test_a_tensorflow_built_for_another_cudnn_major_than_the_reports_is_a_cudnn_mismatch() -> None:
    messages = error_messages(MISCNN)
    assert any("cuDNN 8.1" in m and "7.6" in m for m in messages["cudnn-mismatch"])
    # the fix names the CUDA of the build, not the cuDNN twice
    missing = [f for f in findings(MISCNN) if f.code == "cuda-libs-missing" and f.severity is Severity.ERROR]
    assert missing and all("CUDA 11.2 and cuDNN 8.1" in (f.fix or "") for f in missing)


def test_colab_named_beside_a_windows_os_leaves_the_os() -> None:
    snap = first_snapshot("It works on Google Colab.\nOS: Windows 10\ntorch 2.1.0")
    assert snap.host.system == "Windows"


# matifali/dockerdl#7 (TF 2.13 in an image built on nvidia/cuda 12.1.1)
DOCKERDL = """TF 2.13 in docker images doesnt work with GPU
```
==========
== CUDA ==
==========

CUDA Version 12.1.1

Container image Copyright (c) 2016-2023, NVIDIA CORPORATION & AFFILIATES. All rights reserved.

2023-07-13 15:38:30.515088: I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU \
will not be used.
```
"""


def test_the_cuda_image_banner_is_the_images_toolkit() -> None:
    snap = first_snapshot(DOCKERDL)
    assert [t.build for t in snap.toolkit_list()] == ["12.1.1"]
    assert worst_severity(DOCKERDL)["cuda-libs-missing"] is Severity.ERROR


def test_a_cuda_version_line_without_the_images_banner_is_not_a_toolkit() -> None:
    assert first_snapshot("torch 2.1.0\nCUDA Version 12.1.1\n").toolkit_list() == ()


def test_a_gpu_build_of_unknown_cuda_says_so_in_the_summary() -> None:
    snap = first_snapshot(DOCKERDL)
    rows = {r.label: r.value for r in environment_rows(snap)}
    assert rows["tensorflow"] == "2.13 (CUDA build, version unknown)"


# pytorch/pytorch#23778 (a CPU nightly picked while the day's CUDA builds were uploading)
CONDA_NIGHTLY = """My machine has GPU, but by default conda wants to install a CPU only version.
```
conda install pytorch-nightly cudatoolkit=10.0 -c pytorch

The following NEW packages will be INSTALLED:

  cpu-only           pytorch/linux-64::cpu-only-1.0-0
  pytorch-nightly    pytorch/linux-64::pytorch-nightly-1.2.0.dev20190805+cpu-py3.7_cpu_0
```
"""


def test_the_pytorch_channels_cpu_mutex_and_nightly_package_in_a_plan_are_a_cpu_build() -> None:
    envs = parse_environments(CONDA_NIGHTLY, "t", load_matrices())
    torch = envs[0].snapshot.framework("torch")
    assert torch is not None and torch.accelerator == "cpu" and torch.version == "1.2.0.dev20190805+cpu"
    assert not [n for n in envs[0].notes if "contradictory" in n]
    assert worst_severity(CONDA_NIGHTLY)["cpu-only-build"] is Severity.ERROR


# stemdeckapp/stemdeck#644 (a cu121 wheel of a torch never published for cu121; the CPU wheel restored)
STEMDECK = """[Bug]: Windows NVIDIA build setup loop: Fails to install torch==2.6.0+cu121 and forces CPU rollback
On Windows (NVIDIA portable build v0.17.2), the automated `gpu-setup` script attempts to hardcode the download of \
`torch==2.6.0+cu121`. Since this explicit wheel string combination is unavailable on PyPI/PyTorch index under that \
direct layout format, `pip` execution crashes with `No matching distribution found`.

As a result, the application purges local environments and falls back to `torch-2.6.0+cpu`, preventing native \
utilization of discrete GPUs (such as RTX 4060 Laptop GPU) during stem isolation pipelines.

- **OS:** Windows 11 x64
- **GPU:** NVIDIA GeForce RTX 4060 Laptop GPU
"""


def test_a_torch_an_install_failed_or_attempted_to_get_is_not_the_installed_one() -> None:
    torch = first_snapshot(STEMDECK).framework("torch")
    assert torch is not None and torch.version == "2.6.0+cpu"
    assert worst_severity(STEMDECK)["cpu-only-build"] is Severity.ERROR


# pytorch/pytorch#19164 (collect_env: CUDA 9.0.176 on driver 384.59, below NVIDIA's 384.81, with CUDA available)
COLLECT_ENV_WORKING = """PyTorch version: 1.0.1.post2
Is debug build: No
CUDA used to build PyTorch: 9.0.176

OS: Ubuntu 14.04.5 LTS
Python version: 3.6
Is CUDA available: Yes
CUDA runtime version: 9.0.176
GPU models and configuration:
GPU 0: GeForce GTX 1080 Ti

Nvidia driver version: 384.59
"""


def test_a_driver_below_the_floor_with_cuda_available_is_a_warning() -> None:
    found = [f for f in findings(COLLECT_ENV_WORKING) if f.code == "driver-too-old"]
    assert [f.severity for f in found] == [Severity.WARNING]
    assert any(e.fact == "torch.cuda.is_available()" for e in found[0].evidence)
    unavailable = COLLECT_ENV_WORKING.replace("Is CUDA available: Yes", "Is CUDA available: No")
    assert worst_severity(unavailable)["driver-too-old"] is Severity.ERROR


# PaddlePaddle/Paddle#72252 (an RTX 5080 Laptop GPU under a CUDA 11.8 Paddle)
PADDLE_BANNER = ("W0414 23:25:04.877511 18584 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: "
                 "{cc}, Driver API Version: 12.8, Runtime API Version: {runtime}\n")


def test_paddles_banner_with_a_runtime_older_than_the_gpus_family_is_an_error() -> None:
    assert worst_severity(PADDLE_BANNER.format(cc="12.0", runtime="11.8"))["arch-unsupported"] is Severity.ERROR
    # SASS of an older minor runs: an Ada GPU (8.9) under a CUDA 11.2 Paddle (8.x from CUDA 11.0)
    assert "arch-unsupported" not in worst_severity(PADDLE_BANNER.format(cc="8.9", runtime="11.2"))


# dotnet/machinelearning-modelbuilder#2357
def test_a_driver_updated_from_one_version_to_another_was_the_first() -> None:
    snap = first_snapshot("Updating driver from version 461.40 to 526.47 fix the issue")
    assert snap.driver.version == "461.40"  # type: ignore[union-attr] # reason: read above


# terrapkg/packages#11766 (Fedora Terra) and NVIDIA's rpm repositories' cuDNN package names
def test_rpm_cudnn_package_names_give_the_cudnn() -> None:
    for line, cudnn in (("cuda-cudnn-1:9.21.1.3-1.fc43.x86_64", "9.21.1.3"),
                        ("libcudnn8-8.9.7.29-1.cuda12.2.x86_64", "8.9.7.29"),
                        ("libcudnn9-cuda-12-9.1.0.70-1.x86_64", "9.1.0.70")):
        snap = first_snapshot(f"{line}\ntorch 2.1.0")
        assert [c.version for c in snap.cudnn] == [cudnn]  # type: ignore[union-attr] # reason: read above
    # a package named for one major with another's version is not a cuDNN package line
    assert first_snapshot("libcudnn8-9.1.0.70-1.x86_64\ntorch 2.1.0").cudnn == first_snapshot("torch 2.1.0").cudnn
