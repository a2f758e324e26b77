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


# ---- the second wave of stop 25 (sets CP-CU) ----------------------------------------------------------------------

# tensorflow/tensorflow#41667 (TF 1.14 asked for, pip offering 2.2+ only: a Python 3.8 the report does not name)
TF114 = """Can't install Tensorflow 1.x
I am trying to install Tensorflow 1.14 for a package that I am trying to use. I tried:
`pip3 uninstall tensorflow`

`pip3 install tensorflow==1.14`

`ERROR: Could not find a version that satisfies the requirement tensorflow==1.14 (from versions: 2.2.0rc3, 2.2.0rc4, \
2.2.0, 2.3.0rc0, 2.3.0rc1, 2.3.0rc2)
ERROR: No matching distribution found for tensorflow==1.14`
"""


def test_offered_versions_imply_the_python_when_the_report_names_none() -> None:
    messages = error_messages(TF114)
    assert any("Python 3.8" in m for m in messages["python-unsupported"])


def test_a_title_with_a_framework_and_a_word_is_no_package_listing() -> None:
    # ml-struct-bio/cryodrgn#66's title, and natten's "Pytorch 11.8 allows ..." (a pip list row's 3rd column: a path)
    assert first_snapshot("pytorch 1.9 support\nPython 3.7").framework("torch") is None
    assert first_snapshot("Pytorch 11.8 allows the usage of CUDA 12.0 drivers\nPython 3.9").framework("torch") is None
    assert first_snapshot("torch    2.1.0    /usr/lib/python3/dist-packages    pip\n").framework("torch") is not None


def test_versions_and_systems_written_against_cjk_text_are_read() -> None:
    # PaddlePaddle/Paddle#30092 ("CUDA installed is version 10.0"), hiyouga/LlamaFactory#7666 ("under win10")
    snap = first_snapshot("服务器显卡是rtx3070，安装paddle后运行模型出错\ncuda装的是10.0版本\n")
    assert [t.version for t in snap.toolkit_list()] == ["10.0"]
    assert first_snapshot("win10下使用llama-factory遇到问题\ntorch 2.6.0").host.system == "Windows"


def test_a_python_upgraded_to_another_is_the_one_moved_to() -> None:
    # Akegarasu/lora-scripts#741 ("I upgraded python3.10 to 3.14")
    snap = first_snapshot("得，怪我自己作死把python3.10升级到3.14.\ntorch 2.7.0")
    assert snap.python.version == "3.14"  # type: ignore[union-attr] # reason: read above


def test_the_gpu_build_said_installed_needs_its_verb() -> None:
    cpu = "\n>>> torch.__version__\n'2.6.0+cpu'\n"
    assert worst_severity("我按照pytorch官网命令安装了gpu版本的torch" + cpu)["cpu-only-build"] is Severity.ERROR
    assert worst_severity("I installed the GPU version of PyTorch." + cpu)["cpu-only-build"] is Severity.ERROR
    # openmm/openmm-torch#94: a sentence about another package, on a machine without a GPU
    other = "openmm-torch uses a pytorch cuda version, but the pytorch installed is a cpu only version."
    assert "cpu-only-build" not in error_messages(other + cpu)


# openmm/openmm-torch#94 (a CUDA openmm-torch beside conda-forge's CPU pytorch, Python 3.11)
OPENMM = """Python 3.11.0 | packaged by conda-forge | (main, Jan 14 2023, 12:27:40) [GCC 11.3.0] on linux
>>> import openmmtorch
ImportError: libtorch_cuda.so: cannot open shared object file: No such file or directory

openmm-torch              1.0rc1          cuda112py311h756f8fe_0    conda-forge/label/openmm-torch_rc
pytorch                   1.13.1          cpu_py311h410fd25_0    conda-forge
"""


def test_an_extension_asking_for_libtorch_cuda_beside_a_cpu_torch_is_built_for_a_cuda_torch() -> None:
    severities = worst_severity(OPENMM)
    assert severities["companion-mismatch"] is Severity.ERROR
    # conda-forge built pytorch 1.13.1 for Python 3.11 (its build string says so): not python-unsupported
    assert "python-unsupported" not in severities
    assert "cpu-only-build" not in error_messages(OPENMM)


def test_paddle_failing_in_a_gpu_kernel_is_a_gpu_build() -> None:
    # PaddlePaddle/PaddleOCR#11965
    text = ("cuda 10.2\ncudnn:8.7\n\npaddlepaddle 2.5.2\n\nExternalError: CUDNN error(4), CUDNN_STATUS_INTERNAL_ERROR. "
            "(at ..\\paddle\\phi\\kernels\\gpu\\rnn_kernel.cu.cc:86)\n")
    paddle = first_snapshot(text).framework("paddle")
    assert paddle is not None and paddle.accelerator == "cuda" and paddle.cuda == "10.2"


# TaterTotterson/microWakeWord-Trainer-Nvidia-Docker#1 (the CPU onnxruntime package in a GPU image)
ORT_CPU = """🔧 Torch CUDA Available: True
  • Device name: NVIDIA GeForce RTX 4060 Ti

🔧 ONNX Runtime Providers:
  • ['AzureExecutionProvider', 'CPUExecutionProvider']
"""


def test_onnxruntimes_cpu_provider_list_on_a_gpu_machine_is_a_cpu_build() -> None:
    assert worst_severity(ORT_CPU)["cpu-only-build"] is Severity.ERROR
    alone = "  • ['AzureExecutionProvider', 'CPUExecutionProvider']\nonnxruntime 1.17.1\n"
    assert worst_severity(alone)["cpu-only-build"] is Severity.WARNING


def test_a_lone_cuda_version_field_is_not_the_drivers() -> None:
    # pytorch/pytorch#147953: the CUDA a user asks for, written as a field
    snap = first_snapshot("torch==2.5.1\nCUDA version: 12.4\n")
    assert getattr(snap.driver, "cuda_driver_version", None) != "12.4"


def test_a_typeinfo_symbol_of_torch_missing_from_an_extension_is_built_for_another_torch() -> None:
    # open-mmlab/mmdetection#4291
    line = ("ImportError: /home/e706/anaconda3/envs/mmdetection/lib/python3.7/site-packages/mmcv/_ext.cpython-37m-"
            "x86_64-linux-gnu.so: undefined symbol: _ZTIN3c1021AutogradMetaInterfaceE\npytorch1.7.1\n")
    assert worst_severity(line)["companion-mismatch"] is Severity.ERROR


def test_a_bare_model_number_before_gpu_is_a_gpu() -> None:
    # carson-katri/dream-textures#308
    assert [g.name for g in first_snapshot("generting plain green images.\n1650 gpu\n").gpu_list()] == [
        "GeForce GTX 1650"]
