"""What the held-out sets AD-AK (stop 23) showed the report reader lacked, each class on its real lines.

Every line here is verbatim from the thread named above it unless marked constructed."""

from __future__ import annotations

import pytest

from envguard.findings import Severity
from envguard.knowledge import load_matrices
from envguard.reports import parse_environments
from envguard.snapshot import L4T_IMAGE_KEY, Snapshot, Unavailable
from tests.reports import first_snapshot, worst_severity

MATRICES = load_matrices()


def _read(text: str) -> Snapshot:
    return first_snapshot(text, MATRICES)


def _findings(text: str) -> dict[str, Severity]:
    return worst_severity(text, MATRICES)


# dusty-nv/jetson-containers#1227: the build banner, a box-drawn KEY VALUE table.
_JC_BANNER = (
    "### Environment\n\n"
    "┌───────────────────────┬────────────────────────┐\n"
    "│ L4T_VERSION   35.6.2  │ JETPACK_VERSION  5.1.5 │\n"
    "│ CUDA_VERSION  11.4    │ PYTHON_VERSION   3.8   │\n"
    "│ SYSTEM_ARCH   aarch64 │ LSB_RELEASE      20.04 │\n"
    "└───────────────────────┴────────────────────────┘\n")


def test_a_box_drawn_key_value_table_gives_its_fields() -> None:
    snap = _read(_JC_BANNER)
    assert not isinstance(snap.python, Unavailable) and snap.python.version == "3.8"
    assert [t.version for t in snap.toolkit_list()] == ["11.4"]
    assert snap.host.distro == "NVIDIA JetPack 5.1.5"
    assert _findings(_JC_BANNER) == {}  # a consistent JetPack 5 platform: the case is a negative


def test_a_box_cell_needs_a_known_key_and_a_version() -> None:
    # constructed: other tables drawn the same way state no environment key
    with pytest.raises(Exception, match="no environment facts"):
        _read("│ STATUS   12.1  │ NAME  x │\n│ BUILD_ID  3.8 │\n")


# dusty-nv/jetson-containers#1468 (a comment): the test of a jetson-containers image that got the CPU wheel.
_JC_CPU = (
    "│ > TESTING  whisper:r36.4.tegra-aarch64-cu126-22.04-pytorch_2.9 │\n\n"
    "docker run -t --rm --network=host --privileged --shm-size=8g --runtime=nvidia \\\n"
    "  whisper:r36.4.tegra-aarch64-cu126-22.04-pytorch_2.9 \\\n"
    "    /bin/bash -c 'python3 /test/test.py\n\n"
    "testing PyTorch...\nPyTorch version: 2.9.0+cpu\nCUDA available:  False\ncuDNN version:   None\n")


def test_a_jetson_containers_tag_names_the_l4t_release() -> None:
    snap = _read(_JC_CPU)
    assert snap.environment[L4T_IMAGE_KEY].startswith("36.4|")
    assert [t.version for t in snap.toolkit_list()] == ["12.6"]  # L4T r36.4 carries CUDA 12.6


def test_a_cpu_torch_in_a_jetson_image_is_an_error_though_no_gpu_is_named() -> None:
    assert _findings(_JC_CPU).get("cpu-only-build") is Severity.ERROR
    # the same image with a CUDA torch (constructed): nothing to say
    assert "cpu-only-build" not in _findings(_JC_CPU.replace("2.9.0+cpu", "2.9.0").replace(
        "CUDA available:  False", "CUDA available:  True"))


# dusty-nv/jetson-containers#3 (a comment): a JetPack 4 l4t image run without the NVIDIA runtime.
_L4T_NO_RUNTIME = (
    "Hi @dusty-nv I pulled the image by `docker pull nvcr.io/nvidia/l4t-pytorch:r32.4.2-pth1.5-py3` and the ran the "
    "container by `sudo docker run -it --rm --network host nvcr.io/nvidia/l4t-pytorch:r32.4.2-pth1.5-py3` but there "
    "is no libcudnn or cudnn header files in `/usr/include`. Are these missed in this image?\n")


def test_a_jetpack4_l4t_container_without_the_nvidia_runtime_lacks_cuda() -> None:
    assert _findings(_L4T_NO_RUNTIME).get("cuda-libs-missing") is Severity.ERROR


@pytest.mark.parametrize("run", [
    "sudo docker run -it --rm --runtime nvidia --network host nvcr.io/nvidia/l4t-pytorch:r32.4.2-pth1.5-py3",
    "docker run --gpus all -it nvcr.io/nvidia/l4t-pytorch:r32.4.2-pth1.5-py3",
    "docker run -it \\\n  --runtime=nvidia \\\n  nvcr.io/nvidia/l4t-pytorch:r32.4.2-pth1.5-py3 python3",
    # JetPack 5's images carry CUDA themselves: no finding
    "docker run -it --rm nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3",
])
def test_with_the_runtime_or_on_jetpack5_there_is_no_such_finding(run: str) -> None:
    # constructed from the line above
    assert "cuda-libs-missing" not in _findings(f"I ran `{run}` and then imported torch.\n")


# NVIDIA-ISAAC-ROS/isaac_ros_common#29: two environments, the second introduced in words after a separator line.
_ISAAC = (
    "cuda / gpu not available (agx orin) in docker container\n\n"
    "For example: \nadmin@agx-orin:/workspaces/isaac_ros-dev$ python3\n"
    "Python 3.8.10 (default, Mar 15 2022, 12:22:08) \n[GCC 9.4.0] on linux\n"
    ">>> import torch\n>>> print(torch.__version__)\n1.12.0\n>>> torch.cuda.is_available()\nFalse\n"
    "--------------------------------\n"
    "I have another docker container that was previously built using nvcr.io/nvidia/l4t-pytorch:r34.1.0-pth1.12-py3, "
    "and cuda and the gpu are available\n\n"
    "Python 3.8.10 (default, Mar 15 2022, 12:22:08) \n[GCC 9.4.0] on linux\n"
    ">>> import torch\n>>> print(torch.__version__)\n1.12.0a0+2c916ef.nv22.3\n>>> torch.cuda.is_available()\nTrue\n")


def test_the_second_environment_begins_at_the_separator_before_the_words_introducing_it() -> None:
    envs = parse_environments(_ISAAC, "report", MATRICES)
    assert len(envs) == 2
    first = envs[0].snapshot
    # the l4t-pytorch image named after the separator is the second environment's, not the first one's
    assert [b.index for b in first.frameworks if b.name == "torch"] != ["nvidia-jetson"]
    assert "(torch 1.12.0; report lines 1-11)" in envs[0].label


# PaddlePaddle/Paddle#21752: the build named as "paddleGPU", the cuDNN requirement said in Chinese.
_PADDLE_ZH = ("在v100机器上安装paddleGPU版本1.5.0.post97,安装完成后，在测试中提醒cudnn版本错误，cuda9需要7.3的cudnn，"
              "我本机上是7.1,按照教程将我这个环境下的cudnn 修改成了7.3（work账户下是有7.3的），在此测试仍然报错\n")


def test_paddle_gpu_named_with_version_in_chinese() -> None:
    builds = {b.name: b.version for b in _read(_PADDLE_ZH).frameworks}
    assert builds.get("paddle") == "1.5.0.post97"


def test_a_cudnn_requirement_said_in_chinese_is_judged() -> None:
    assert _findings(_PADDLE_ZH).get("cudnn-mismatch") is Severity.ERROR
    # constructed: the machine's cuDNN meets the requirement
    assert "cudnn-mismatch" not in _findings(_PADDLE_ZH.replace("我本机上是7.1", "我本机上是7.4"))


# Doubiiu/DynamiCrafter#86: xformers' detail line with "with CUDA None"; the torch installed is the one "you have".
def test_xformers_you_have_with_cuda_none() -> None:
    text = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.3.0+cu121 with CUDA None (you have 2.0.0+cu117)\n"
            "    Python  3.11.9 (you have 3.11.9)\n")
    assert {b.name: b.version for b in _read(text).frameworks}.get("torch") == "2.0.0+cu117"


# iot-salzburg/gpu-jupyter#106: an image tagged cuda-11.6 whose nvcc is 12.1, on a host driver of CUDA 11.6.
_JUPYTER = (
    "This image does not work\n"
    "`docker run --gpus all -d -it -p 8848:8888 cschranz/gpu-jupyter:v1.5_cuda-11.6_ubuntu-20.04_python-only`\n\n"
    "> ```\n>Failed to initialize NVML: Driver/library version mismatch\n> nvcc --version\n"
    "> nvcc: NVIDIA (R) Cuda compiler driver\n> Copyright (c) 2005-2023 NVIDIA Corporation\n"
    "> Built on Tue_Feb__7_19:32:13_PST_2023\n> Cuda compilation tools, release 12.1, V12.1.66\n"
    "> Build cuda_12.1.r12.1/compiler.32415258_0\n> ```\n\n"
    "This works\n`docker run --gpus all nvidia/cuda:11.6.2-cudnn8-runtime-ubuntu20.04 nvidia-smi` \n\n"
    "This is the output from the VM, not the containers. \n> ```\n> Wed Mar 22 17:08:32 2023       \n"
    "> +-----------------------------------------------------------------------------+\n"
    "> | NVIDIA-SMI 510.108.03   Driver Version: 510.108.03   CUDA Version: 11.6     |\n")


def test_a_toolkit_of_a_newer_major_than_the_image_and_the_driver_is_judged() -> None:
    found = _findings(_JUPYTER)
    assert found.get("driver-too-old") is Severity.ERROR
    assert found.get("driver-library-mismatch") is Severity.ERROR
    # constructed: the toolkit of the image's own major is the image rule's, and the image fits the driver
    assert "driver-too-old" not in _findings(_JUPYTER.replace("release 12.1, V12.1.66", "release 11.6, V11.6.124")
                                            .replace("cuda_12.1.r12.1", "cuda_11.6.r11.6"))


# Comfy-Org/ComfyUI#9705: ComfyUI's system information, markdown bold with the colon inside ("**OS:** nt").
_COMFY = (
    "## System Information\n- **ComfyUI Version:** 0.3.56\n- **OS:** nt\n"
    "- **Python Version:** 3.12.9 (main, Feb 12 2025, 14:52:31) [MSC v.1942 64 bit (AMD64)]\n"
    "- **Embedded Python:** false\n- **PyTorch Version:** 2.8.0+cu129\n## Devices\n\n"
    "- **Name:** cuda:0 NVIDIA GeForce GTX 1070 : cudaMallocAsync\n  - **Type:** cuda\n")


def test_markdown_bold_fields_with_the_colon_inside() -> None:
    snap = _read(_COMFY)
    assert {b.name: b.version for b in snap.frameworks}.get("torch") == "2.8.0+cu129"
    assert snap.host.system == "Windows"  # Python's os.name "nt"


# PaddlePaddle/Paddle#44077: a hyphenated GPU name and "cuda使用10.2" (CUDA: I use 10.2), against Chinese text.
def test_a_hyphenated_gpu_name_and_cuda_used_in_chinese() -> None:
    snap = _read("显卡是 RTX-3060的 系统是win11 cuda使用10.2（只能下win10版本）。。。 "
                 "paddle.utils.run_check()执行后一直无反应\n")
    assert [g.name for g in snap.gpu_list()] == ["RTX 3060"]
    assert [t.version for t in snap.toolkit_list()] == ["10.2"]


@pytest.mark.parametrize(("gpu", "severity"), [
    ("Yup Quadro RTX 5000 is Turing card, not Ampere and not currently supported.", Severity.ERROR),  # #762
    ("GPU：Tesla V100S", Severity.ERROR),  # microsoft/MInference#51
    ("GPU: NVIDIA RTX A6000", Severity.WARNING),  # constructed: an Ampere GPU, the message is another cause
])
def test_flash_attention_below_ampere_with_the_gpu_named(gpu: str, severity: Severity) -> None:
    text = f"RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n\n{gpu}\n"
    assert _findings(text).get("arch-unsupported") is severity


# dme-compunet/YoloSharp#74: ONNX Runtime 1.19.1 (built with cuDNN 9) beside cuDNN 8.9.7, its CUDA provider failing.
_ORT = ("I am currently using ONNX Runtime with GPU support in a project based on the YoloV8.Gpu library. However, "
        "I am encountering a `LoadLibrary failed with error 126` when trying to use `onnxruntime_providers_cuda.dll`. "
        "I have CUDA 12.6 and cuDNN v8.9.7 installed. Could you please let me know which versions of CUDA and cuDNN "
        "are recommended for compatibility with ONNX Runtime version 1.19.1 in this context?\n")


def test_onnxruntime_built_with_another_cudnn_major() -> None:
    assert _findings(_ORT).get("cudnn-mismatch") is Severity.ERROR


@pytest.mark.parametrize(("text", "expected"), [
    # constructed from it: the same major (cuDNN 9) is fine
    (_ORT.replace("cuDNN v8.9.7", "cuDNN v9.3.0"), None),
    # constructed: onnxruntime-gpu named in a pip line, no failure shown: a warning
    ("pip install onnxruntime-gpu==1.19.2\nI have cuDNN 8.9.7 installed.\n", Severity.WARNING),
    # constructed: the plain CPU package without its CUDA provider failing is not judged
    ("pip install onnxruntime==1.19.2\nI have cuDNN 8.9.7 installed.\n", None),
    # constructed: a release the table does not hold (1.23+) is not judged
    ("pip install onnxruntime-gpu==1.23.0\nI have cuDNN 8.9.7 installed.\n", None),
])
def test_onnxruntime_cudnn_judgement(text: str, expected: Severity | None) -> None:
    assert _findings(text).get("cudnn-mismatch") is expected


def test_onnxruntime_table_rows() -> None:
    ort = MATRICES.onnxruntime
    assert [(b.cuda_major, b.cudnn_major) for b in map(ort.gpu_build, ("1.19.0", "1.18.1", "1.14.1", "1.4.0"))
            if b is not None] == [(12, 9), (11, 8), (11, 8), (10, 7)]
    assert ort.gpu_build("1.23.0") is None and ort.gpu_build("1.18.0+cu118") is None


# litagin02/Style-Bert-VITS2#185: a markdown table, one environment tried per row.
_TABLE = ("## バージョン情報\n\n以下の組み合わせを試しましたがいずれも同様でした。OSはWindows11です。\n\n"
          "| ソースコード | Python | PyTorch | 備考 |\n| --- | --- | --- | --- |\n"
          "| 065a7ffa0a3214516f17ef5288a80d20c4ffb598 | 3.10.11 | 2.3.1+cu121 | |\n"
          "| 065a7ffa0a3214516f17ef5288a80d20c4ffb598 | 3.10.11 | 2.2.2+cu121 | |\n"
          "| 2.6.0 |  3.9.13 | 2.3.1+cu121 | numpyがエラーになったため numpy==1.26.4 に置き換え |\n")


def test_a_markdown_table_of_environments() -> None:
    (env,) = parse_environments(_TABLE, "report", MATRICES)
    assert {b.name: b.version for b in env.snapshot.frameworks}.get("torch") == "2.3.1+cu121"
    assert any("2.2.2+cu121" in note for note in env.notes)  # the other row is said, not dropped silently
    assert _findings(_TABLE) == {}  # the case is a negative


def test_a_reference_table_does_not_replace_the_reporters_versions() -> None:
    # constructed: the reporter's versions, then a table copied from the docs
    text = ("My environment: Python 3.10, torch 2.1.0+cu118, CUDA 11.8, RTX 3090.\n"
            "For reference, the compatibility table from the docs:\n\n"
            "| PyTorch version | Python | Stable CUDA |\n| --- | --- | --- |\n| 2.5 | 3.9 | 11.8 |\n"
            "| 1.13 | 3.7 | 11.6 |\n")
    snap = _read(text)
    assert {b.name: b.version for b in snap.frameworks}.get("torch") == "2.1.0+cu118"
    assert not isinstance(snap.python, Unavailable) and snap.python.version == "3.10"


def test_a_table_without_a_separator_or_known_columns_gives_nothing() -> None:
    # constructed: a pipe-drawn line that is no markdown table, and a table of other columns
    with pytest.raises(Exception, match="no environment facts"):
        _read("| Python | PyTorch |\n| 3.10.11 | 2.3.1 |\n\n| Name | Size |\n| --- | --- |\n| a | 3.10 |\n")


# 3dem/model-angelo#60: nvidia-smi failing, then (the GPU allocated) its working table in the same report.
_SLURM = ("It doesnt show me the gpus.\n```\nnvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with "
          "the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n```\n\n"
          "I found the issue in my slurm-submission script. While asking for resources allocated on the gpu nodes, I "
          "didn't actually get a gpu allocated.\n```\nnvidia-smi\nThu Aug  3 10:06:03 2023       \n"
          "+-----------------------------------------------------------------------------+\n"
          "| NVIDIA-SMI 525.85.12    Driver Version: 525.85.12    CUDA Version: 12.0     |\n")


def test_nvidia_smi_failing_beside_its_own_working_table_is_a_warning() -> None:
    assert _findings(_SLURM).get("driver-missing") is Severity.WARNING
    # the failure alone (the report cut before the table): an error
    assert _findings(_SLURM.split("I found the issue", maxsplit=1)[0]).get("driver-missing") is Severity.ERROR


# facebookresearch/detectron2#1048: its collect_env's "detectron2 arch flags" against the GPUs it lists.
_D2 = ("sys.platform              linux\nPython                    3.7.6 (default, Jan  8 2020, 19:59:22) [GCC 7.3.0]\n"
       "detectron2                0.1.1 @/data/yang/detectron2/detectron2\ndetectron2 CUDA compiler  10.0\n"
       "detectron2 arch flags     sm_75\nPyTorch                   1.4.0 @/home/auv/anaconda3/envs/penguin/lib/"
       "python3.7/site-packages/torch\nCUDA available            True\nGPU 0                     GeForce RTX 2080\n"
       "GPU 1                     GeForce GTX 1070\n")


def test_detectron2_built_for_another_architecture() -> None:
    assert _findings(_D2).get("arch-unsupported") is Severity.ERROR
    # constructed: built for both GPUs; and a list with +PTX of an older capability runs (JIT)
    assert "arch-unsupported" not in _findings(_D2.replace("sm_75", "6.1, 7.5"))
    assert "arch-unsupported" not in _findings(_D2.replace("sm_75", "6.0+PTX"))


def test_a_gpu_with_its_arch_in_detectron2s_gpu_line() -> None:
    # facebookresearch/detectron2#235 (its collect_env): "GPU 0,1  GeForce GTX TITAN X (arch=5.2)"
    gpus = _read("GPU 0,1                 GeForce GTX TITAN X (arch=5.2)\n").gpu_list()
    assert [g.compute_capability for g in gpus] == ["5.2"]


# pytorch/vision#9174: print(torch.__version__, torch.cuda.is_available()) answered "2.6.0 True".
def test_the_version_and_cuda_flag_printed_together() -> None:
    text = ("pip3 install torch torchvision\n``` python\nimport torch\n"
            ">>> print(torch.__version__, torch.cuda.is_available())\n```\n"
            "2.6.0 True # OK  - but why did it install 2.6.\n"
            "  Successfully uninstalled torchvision 0.23.0\n")
    assert {b.name: b.version for b in _read(text).frameworks}.get("torch") == "2.6.0"


# NVIDIA/cutlass#2866: "my CUDA driver is 570.133.20".
def test_a_driver_said_with_is() -> None:
    driver = _read("My CUDA version is 12.9.41 and my CUDA driver is 570.133.20. May I ask if I need to "
                   "upgrade.\n").driver
    assert not isinstance(driver, Unavailable) and driver.version == "570.133.20"


# pytorch/pytorch#130112 (collect_env on macOS 14.5; its cut Python line completed): torch 2.3.1 on Python 3.12.
def test_python_312_with_torch_23_is_experimental_not_unsupported() -> None:
    text = ("PyTorch version: 2.3.1\nIs debug build: False\nCUDA used to build PyTorch: None\n"
            "OS: macOS 14.5 (arm64)\nPython version: 3.12.4 (main, Jun  6 2024, 18:26:44) [Clang 15.0.0 ] (64-bit "
            "runtime)\n")
    assert _findings(text).get("python-unsupported") is Severity.WARNING
    # torch 2.1 had no cp312 wheels at all: an error (constructed from it)
    assert _findings(text.replace("2.3.1", "2.1.2")).get("python-unsupported") is Severity.ERROR


# zai-org/ChatGLM-6B#549: "Torch not compiled with CUDA enabled" on an M1 Mac, where no CUDA build exists.
def test_torch_not_compiled_with_cuda_on_macos_is_a_warning() -> None:
    text = "[BUG/Help] M1上无法运行，报错“AssertionError: Torch not compiled with CUDA enabled”\n - OS: mac 13.0\n"
    assert _findings(text).get("cpu-only-build") is Severity.WARNING
    assert _findings(text.replace("mac 13.0", "Ubuntu 22.04")).get("cpu-only-build") is Severity.ERROR


def test_review_fixes_hold() -> None:
    # constructed (review of stop 23): each a healthy or later-broken state the first versions misjudged
    # ONNX Runtime's own message states its build's majors, which the installed CUDA/cuDNN match
    ort = ("onnxruntime-gpu==1.18.1\nCUDA 12.4, cuDNN 9.1.0\n[W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 "
           "onnxruntime::python::CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Require "
           "cuDNN 9.* and CUDA 12.*, and the latest MSVC runtime.\n")
    assert "cudnn-mismatch" not in _findings(ort)
    # 1.18's CUDA 12 build is published under the same version number: not judged against the CUDA 11.8 default
    assert _findings("pip install onnxruntime-gpu==1.18.0\nCUDA 12.2, cuDNN 8.9.2\n") == {}
    # nvidia-smi working yesterday, failing now: the failure is the current state
    smi = ("Yesterday nvidia-smi worked:\n"
           "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
           "After apt upgrade and a reboot:\n$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with "
           "the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n")
    assert _findings(smi).get("driver-missing") is Severity.ERROR
    # the daemon's default runtime is nvidia: docker run needs no --runtime
    jp4 = ('Jetson Nano, JetPack 4.6. My /etc/docker/daemon.json sets "default-runtime": "nvidia".\n'
           "$ docker run -it --rm nvcr.io/nvidia/l4t-pytorch:r32.7.1-pth1.10-py3\n>>> import torch\n"
           ">>> torch.cuda.is_available()\nTrue\n")
    assert "cuda-libs-missing" not in _findings(jp4)
    # without the libraries said missing, a JetPack 4 container without --runtime is a warning only
    assert _findings(jp4.replace('My /etc/docker/daemon.json sets "default-runtime": "nvidia".', "")
                     .replace("True", "")).get("cuda-libs-missing") is Severity.WARNING
    # a plain aarch64 torch in NVIDIA's l4t-pytorch image may be its Jetson build
    assert "cpu-only-build" not in _findings("docker run --runtime nvidia -it dustynv/l4t-pytorch:r35.2.1-pth2.0-py3\n"
                                             "pip list\ntorch 2.0.0\n")


# heavyai/heavydb#617: the driver's own PTX JIT (cuLinkAddFile, "ptxas application ptx input") refusing newer PTX.
def test_the_drivers_ptx_jit_refusing_newer_ptx_is_driver_too_old() -> None:
    text = ("NvidiaKernel.cpp:82 Check failed: cuLinkAddFile_v2( link_state, CU_JIT_INPUT_FATBINARY, "
            "gpu_rt_path.c_str(), 0, nullptr, nullptr) == CUDA_SUCCESS (218 == 0) ptxas application ptx input, line 9; "
            "fatal   : Unsupported .version 7.0; current version is '6.4'. what's the problem ?\n")
    assert _findings(text).get("driver-too-old") is Severity.ERROR
    # a toolkit's ptxas on a file (QwenLM/Qwen2.5-Omni#247's shape): which one is old is not known, a warning
    toolkit_ptxas = ("ptxas C:\\\\Users\\\\ai\\\\AppData\\\\Local\\\\Temp\\\\tmpkoko0xtp.ptx, line 5; fatal   : "
                     "Unsupported .version 8.8; current version is '8.7'\n")
    assert _findings(toolkit_ptxas) == {"toolkit-mismatch": Severity.WARNING}


# tensorflow/tensorflow#36776: "Key - Value" lines without a bullet; "CUDA/cuDNN version - 10.1" is the CUDA only.
def test_key_dash_value_lines_and_cuda_slash_cudnn() -> None:
    snap = _read("**System information** \nOS Platform and Distribution - Windows 10 home\nTensorFlow version - 2.1.0\n"
                 "Python version - 3.7.4\nCUDA/cuDNN version - 10.1\nGPU - NVIDIA GeForce GTX 1650\n")
    assert [t.version for t in snap.toolkit_list()] == ["10.1"]
    assert isinstance(snap.cudnn, Unavailable) or not snap.cudnn


# visualbruno/ComfyUI-Trellis2#131: pip pointed at a cu131 index, which no torch release has.
def test_no_torch_on_an_index_of_no_pytorch_variant_is_not_blamed_on_python() -> None:
    text = ("`pip install torch==2.10.0 torchvision torchaudio --index-url https://download.pytorch.org/whl/cu131`\n\n"
            "> Looking in indexes: https://download.pytorch.org/whl/cu131\n"
            "> ERROR: Could not find a version that satisfies the requirement torch==2.10.0 (from versions: none)\n")
    assert _findings(text).get("python-unsupported") is Severity.WARNING
    assert _findings(text.replace("cu131", "cu130")).get("python-unsupported") is Severity.ERROR  # constructed
