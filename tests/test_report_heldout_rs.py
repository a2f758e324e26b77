"""What the held-out sets R and S (stop 22) showed the report reader lacked, each class on its real lines.

Every line here is verbatim from the thread named above it unless marked constructed."""

from __future__ import annotations

import pytest

from envguard.findings import Severity
from envguard.knowledge import load_matrices
from envguard.snapshot import Snapshot, Unavailable
from tests.reports import first_snapshot, worst_severity

MATRICES = load_matrices()


def _read(text: str) -> Snapshot:
    return first_snapshot(text, MATRICES)


def _findings(text: str) -> dict[str, Severity]:
    return worst_severity(text, MATRICES)


# tensorflow/tensorflow#99592 (new issue form): the GPU named as a series with its capability stated beside it, and
# the MLIR kernels that then failed to load.
_TF_RTX50 = (
    "### TensorFlow version\n\ntf 2.20\n\n### OS platform and distribution\n\nLinux Mint 22.1\n\n"
    "I’m currently running TensorFlow with an RTX 5000 series GPU (compute capability 12.0). At the moment, the only "
    "way I can get it to work is by using NVIDIA’s NGC container.\n"
    "W tensorflow/compiler/mlir/tools/kernel_gen/tf_gpu_runtime_wrappers.cc:40] 'cuModuleLoadData(&module, data)' "
    "failed with 'CUDA_ERROR_INVALID_PTX'\n")


def test_a_capability_stated_beside_the_gpu_name_is_the_gpus() -> None:
    gpus = _read(_TF_RTX50).gpu_list()
    assert [(g.name, g.compute_capability) for g in gpus] == [("RTX 5000", "12.0")]


def test_no_sass_for_the_gpu_and_a_kernel_that_failed_to_load_is_an_error() -> None:
    assert _findings(_TF_RTX50).get("arch-unsupported") is Severity.ERROR
    # the same report without the failed load: the PTX path may still work, a warning (constructed from it)
    without = _TF_RTX50.rsplit("W tensorflow", 1)[0]
    assert _findings(without).get("arch-unsupported") is Severity.WARNING


def test_a_title_naming_the_launch_failure_counts_as_the_failed_load() -> None:
    # tensorflow/tensorflow#90291: its title, then the issue form's fields
    text = ("TensorFlow with CUDA: RTX 5xxx series isn't supported (CUDA_ERROR_INVALID_HANDLE)\n\n"
            "### TensorFlow version\n\n2.18\n\n### OS platform and distribution\n\nWSL2\n\n"
            "### CUDA/cuDNN version\n\n12.8\n\n### GPU model and memory\n\n5070TI\n")
    assert _findings(text).get("arch-unsupported") is Severity.ERROR


@pytest.mark.parametrize(("sentence", "cc"), [
    ("I’m currently running TensorFlow with an RTX 5000 series GPU (compute capability 12.0).", "12.0"),  # #99592
    ("I have an RTX 3090 (cc 8.6) here.", "8.6"),  # constructed
    ("I have an RTX 3090 and compute capability 8.6 is listed.", None),  # constructed: not beside the name
])
def test_stated_capability_shapes(sentence: str, cc: str | None) -> None:
    gpus = _read(sentence + "\ntorch 2.5.1\n").gpu_list()
    assert [g.compute_capability for g in gpus] == [cc]


# tensorflow/tensorflow#121157: the pip line (its tail), then the framework asked in a shell one-liner
_AARCH64_NIGHTLY = (
    "TensorFlow PyPI aarch64 wheels aren't built with CUDA\n\n```shell\n"
    "Successfully installed absl-py-2.4.0 nvidia-cublas-cu12-12.9.2.10 nvidia-cuda-runtime-cu12-12.9.79 "
    "nvidia-cudnn-cu12-9.23.1.3 tf-nightly-2.22.0.dev20260530 wheel-0.47.0\n"
    "(tf.env) [vikren@n502 ~]$ python -c \"import tensorflow as tf; print(tf.test.is_built_with_cuda())\"\n"
    "False\n```\n")


def test_a_shell_one_liner_asking_the_framework_is_its_answer() -> None:
    tf = _read(_AARCH64_NIGHTLY).framework("tensorflow")
    assert tf is not None and tf.accelerator == "cpu"


def test_cuda_library_wheels_beside_a_cpu_build_say_it_was_meant_for_a_gpu() -> None:
    assert _findings(_AARCH64_NIGHTLY).get("cpu-only-build") is Severity.ERROR
    # the same CPU build with no CUDA wheel beside it says nothing about a GPU (constructed from it)
    alone = _AARCH64_NIGHTLY.replace("nvidia-cublas-cu12-12.9.2.10 nvidia-cuda-runtime-cu12-12.9.79 "
                                     "nvidia-cudnn-cu12-9.23.1.3 ", "")
    assert "cpu-only-build" not in _findings(alone)


def test_a_moving_gpu_image_tag_is_a_linux_gpu_build() -> None:
    # tensorflow/build#221 (a later comment): the image, its TensorFlow release and the cuDNN dpkg lists in it
    text = ("I tried to use the latest TensorFlow by running the `tensorflow/tensorflow:latest-gpu-jupyter` image, "
            "which currently ships with TensorFlow 2.19.0.\n\n"
            "After launching a container from this image and checking cuDNN with `dpkg -l | grep cudnn`, I found the "
            "following result:\n```\nii  libcudnn8  8.9.6.50-1+cuda12.2  amd64  cuDNN runtime libraries\n```\n")
    snapshot = _read(text)
    tf = snapshot.framework("tensorflow")
    assert snapshot.host.system == "Linux" and tf is not None and tf.accelerator == "cuda"
    assert _findings(text).get("cuda-libs-missing") is Severity.ERROR  # TF 2.19 loads libcudnn.so.9


def test_the_cpu_index_of_the_command_that_installed_the_release_is_its_build() -> None:
    # ultralytics/ultralytics#8869 (the reporter's comment; the screenshot link left out)
    text = ("> when i do pip list i get this even tho i installed it with this commend pip install torch==2.2.0 "
            "torchvision==0.17.0 torchaudio==2.2.0 --index-url https://download.pytorch.org/whl/cpu\n\n"
            "fixed it by uninstalling  and installing using pip3 install torch torchvision torchaudio --index-url "
            "https://download.pytorch.org/whl/cu121\n")
    torch = _read(text).framework("torch")
    assert torch is not None and (torch.version, torch.accelerator) == ("2.2.0+cpu", "cpu")
    assert _findings(text).get("cpu-only-build") is Severity.ERROR  # the cu121 command says a GPU was meant


def test_jax_template_answer_outranks_prose() -> None:
    # jax-ml/jax#12426 (jax's old issue template)
    text = ("I use jax==0.3.17 and jaxlib==0.3.14, when i downgrade them into jax==0.3.14 and jaxlib==0.3.10, the "
            "problem disappeared.\n\n### What jax/jaxlib version are you using?\n\njax==0.3.17 and jaxlib==0.3.14\n")
    packages = _read(text).packages
    assert not isinstance(packages, Unavailable)
    versions = {p.name: p.version for p in packages}
    assert (versions.get("jax"), versions.get("jaxlib")) == ("0.3.17", "0.3.14")


def test_the_container_toolkits_last_failed_alternative_is_a_driver_too_old() -> None:
    # NVIDIA/nvidia-docker#835: a V100 on 390.87 and a CUDA 10.0 image
    text = ("I'm trying to load a recent docker image with cuda 10 ( nvidia/cuda:10.0-devel-ubuntu18.04 ) on a system "
            "with a V100 and driver 390.87 , which should be enough\n"
            "nvidia-container-cli: requirement error: unsatisfied condition: driver < 385\\\\n\\\"\"\": unknown.\n")
    assert _findings(text).get("driver-too-old") is Severity.ERROR


# ---- held-out sets T, U, V and the classes Q's misses named (stop 22) ----------------------------------------


def test_a_capability_in_the_gpu_field_joins_the_nvidia_smi_gpu() -> None:
    # tensorflow/tensorflow#38971 (the template field, then nvidia-smi's row)
    text = ("- GPU model and memory: GeForce 960M, compute capability: 5.0\n"
            "| NVIDIA-SMI 440.82       Driver Version: 440.82       CUDA Version: 10.2     |\n"
            "|   0  GeForce GTX 960M    Off  | 00000000:01:00.0 Off |                  N/A |\n"
            "| N/A   48C    P0    N/A /  N/A |      0MiB /  2004MiB |      0%      Default |\n")
    gpus = _read(text).gpu_list()
    assert [(g.name, g.compute_capability) for g in gpus] == [("GeForce GTX 960M", "5.0")]


def test_the_version_a_framework_was_upgraded_to_is_the_one_in_use() -> None:
    # tensorflow/tensorflow#37968
    text = ("It was going smooth since when Colaboratory decided to upgrade its VM's TF version from 2.1 to 2.2-rc1.")
    tf = _read(text).framework("tensorflow")
    assert tf is not None and tf.version.startswith("2.2")


def test_ultralytics_checks_table_keeps_the_torch_tag() -> None:
    # pytorch/pytorch#131958 (the banner, then `yolo checks`' aligned rows)
    text = ("Ultralytics YOLOv8.2.66 🚀 Python-3.10.9 torch-2.5.0.dev20240726+cu121 CUDA:0 (NVIDIA GeForce RTX 3080, "
            "12288MiB)\nSetup complete ✅ (12 CPUs, 31.9 GB RAM, 765.5/1863.0 GB disk)\n\n"
            "OS                  Windows-10-10.0.19045-SP0\nEnvironment         Windows\nPython              3.10.9\n"
            "CUDA                12.1\n\ntorch               ✅ 2.5.0.dev20240726+cu121>=1.8.0\n")
    snapshot = _read(text)
    torch = snapshot.framework("torch")
    assert torch is not None and (torch.version, torch.accelerator) == ("2.5.0.dev20240726+cu121", "cuda")
    assert snapshot.host.system == "Windows"
    assert "cpu-only-build" not in _findings(text)


def test_xformers_detail_names_the_installed_torch() -> None:
    # open-mmlab/PIA#30
    text = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)\n")
    torch = _read(text).framework("torch")
    assert torch is not None and (torch.version, torch.accelerator) == ("2.1.2+cpu", "cpu")


def test_conda_download_table_row_says_the_build() -> None:
    # pytorch/pytorch#92273 (the plan conda printed)
    text = ("conda install pytorch==1.12.1 torchvision==0.13.1 torchaudio==0.12.1 cudatoolkit=10.2 -c pytorch\n\n"
            "The following packages will be downloaded:\n\n    package                    |            build\n"
            "    ---------------------------|-----------------\n"
            "    cudatoolkit-10.2.89        |       h74a9793_1       317.2 MB  defaults\n"
            "    pytorch-1.12.1             |      py3.8_cpu_0       133.8 MB  pytorch\n")
    torch = _read(text).framework("torch")
    assert torch is not None and (torch.version, torch.accelerator) == ("1.12.1", "cpu")
    assert _findings(text).get("cpu-only-build") is Severity.ERROR  # cudatoolkit asked for: meant for a GPU


_ONLY_INDEX = ("  - Python: 3.14.3\n  - OS: Windows 11\n"
               "    pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu118\n"
               "    pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu124\n\n"
               "  All return: ERROR: No matching distribution found for torch\n")


def test_pip_limited_to_cu_indexes_without_a_release_for_the_python() -> None:
    # rohitg00/ai-engineering-from-scratch#192
    assert _findings(_ONLY_INDEX).get("python-unsupported") is Severity.ERROR
    # the same with the default index added: it may hold a release for this Python (constructed)
    extra = _ONLY_INDEX.replace("--index-url", "--extra-index-url")
    assert "python-unsupported" not in _findings(extra)
    # a Python the cu124 index's releases support (constructed)
    assert "python-unsupported" not in _findings(_ONLY_INDEX.replace("3.14.3", "3.12.4"))


@pytest.mark.parametrize("text", [
    "I am trying to install PyTorch\nC:\\Python\\Python37-32\\Scripts>pip install torch==1.5.1+cpu",  # pytorch#41005
    "So please support python 3.13! （Windows10 32bit）\nthe Pytorch library",  # pytorch/pytorch#149823
    "Python 3.10.6 (tags/v3.10.6:9c7b4bd, Aug  1 2022, 21:38:17) [MSC v.1932 32 bit (Intel)]\nInstalling torch and "
    "torchvision",  # AUTOMATIC1111/stable-diffusion-webui#10592
])
def test_a_32bit_interpreter_has_no_torch(text: str) -> None:
    assert _findings(text).get("python-unsupported") is Severity.ERROR


def test_a_64bit_hint_is_not_a_32bit_interpreter() -> None:
    # milksense/venus#8 (the advice comment), with a Python named (constructed)
    text = "Install python 64bit not 32bit, then pip install torch\nPython 3.11.4"
    assert "python-unsupported" not in _findings(text)


def test_nccl_named_in_a_sentence_and_the_one_torch_loaded() -> None:
    # NVIDIA/nccl#238
    assert _nccl(_read("When I run nccl 2.4.2 across multiple nodes, the program hangs randomly.")) == ["2.4.2"]
    # NVIDIA/nccl#809: the answer later in the sentence; the system's NCCL named in prose does not override it
    text = ("Now, I installed nccl 2.15.5.\nBut,When I input `python -c \"import torch;"
            "print(torch.cuda.nccl.version())\"`  in Terminal, I can see (2, 10, 3).\n")
    assert _nccl(_read(text)) == ["2.10.3"]


def _nccl(snapshot: Snapshot) -> list[str]:
    return [] if isinstance(snapshot.nccl, Unavailable) else [n.version for n in snapshot.nccl]


def test_a_scripts_version_prints_answered_by_a_later_output_block() -> None:
    # pytorch/pytorch#79270
    text = ("```\nimport torch\nprint(torch.__version__)\nprint(np.__version__)\n" + "x = 1\n" * 12 +
            "```\n\noutput:\n```\n1.10.0\n1.22.3\n```\n")
    torch = _read(text).framework("torch")
    assert torch is not None and torch.version == "1.10.0"


def test_dash_bullets_and_the_tf_diagnostics_driver_pair() -> None:
    # tinkerhub/ComputerVision-with-PyTorch-Learning-Program#80
    snapshot = _read("* OS -Windows\n* PyTorch Version -1.5\n* Package Manager -pip\n")
    torch = snapshot.framework("torch")
    assert snapshot.host.system == "Windows" and torch is not None and torch.version == "1.5"
    # tensorflow/tensorflow#1158: the library TF loaded and the kernel module disagree
    text = ("I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] libcuda reported version is: 384.111.0\n"
            "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:193] kernel reported version is: 384.90.0\n"
            "\"\"\"NVRM version: NVIDIA UNIX x86_64 Kernel Module  384.90  Tue Sep 19 19:17:35 PDT 2017\n")
    assert _findings(text).get("driver-library-mismatch") is Severity.ERROR


def test_a_gpu_table_row_pasted_as_a_sentence() -> None:
    # pytorch/pytorch#14681
    gpus = _read("GPU is GeForce GT 740M | 3.0\ntorch 0.4.1").gpu_list()
    assert [(g.name, g.compute_capability) for g in gpus] == [("GeForce GT 740M", "3.0")]


# ---- held-out sets X, Y, W (stop 22) ------------------------------------------------------------------------


def test_tensorflow_cpu_package_beside_tensorflow_gpu_before_2_1() -> None:
    # tensorflow/tensorflow#35113: both 1.14.0 packages listed (a V100 machine)
    text = ("tf version :\n```\ntensorboard          1.14.0\ntensorflow           1.14.0\n"
            "tensorflow-estimator 1.14.0\ntensorflow-gpu       1.14.0\n```\n")
    assert _findings(text).get("cpu-only-build") is Severity.ERROR
    # from 2.1 the plain package is the GPU build too: nothing to say (constructed)
    assert "cpu-only-build" not in _findings(text.replace("1.14.0", "2.4.1"))


def test_a_sentence_stating_the_required_and_the_loaded_cudnn() -> None:
    # googlecolab/colabtools#2600
    text = ("To use the Tensorflow object detection API, CuDNN version 8.1 is required but only version 8.0.5 is "
            "loaded.")
    assert _findings(text).get("cudnn-mismatch") is Severity.ERROR
    assert "cudnn-mismatch" not in _findings(text.replace("8.0.5", "8.2.1"))  # a newer minor satisfies it


def test_paddles_older_cudnn_message_is_an_error() -> None:
    # PaddlePaddle/models#4145: cuDNN's rule (same major, equal or newer minor) is broken, whatever Paddle goes on to do
    text = ("W1230 17:02:36.781242  9089 device_context.cc:244] device: 0, cuDNN Version: 7.4.\n"
            "W1230 17:02:36.781275  9089 device_context.cc:270] WARNING: device: 0. The installed Paddle is compiled "
            "with CUDNN 7.6, but CUDNN version in your machine is 7.4, which may cause serious incompatible bug. "
            "Please recompile or reinstall Paddle with compatible CUDNN version.\n")
    assert _findings(text).get("cudnn-mismatch") is Severity.ERROR


def test_rpm_nccl_rows_name_the_cuda_they_were_built_for() -> None:
    # NVIDIA/nccl#554 (CentOS 7, CUDA 10.1)
    text = ("- CUDA : Version 10.1.243\n- GPU : GeForce RTX 2080 Ti\n```\n[root@centos home]# rpm -qa | grep nccl\n"
            "libnccl-2.9.9-1+cuda11.3.x86_64\nlibnccl-static-2.9.9-1+cuda11.3.x86_64\n"
            "libnccl-devel-2.9.9-1+cuda11.3.x86_64\n```\n")
    assert _findings(text).get("nccl-mismatch") is Severity.ERROR


def test_a_release_that_could_not_be_installed_is_judged_against_the_python() -> None:
    # pytorch/pytorch#137853 (its first lines and collect_env's Python line)
    text = ("i have upgraded to python 3.13 in my local env(macos 15.0.1), but can not install pytorch 2.4.1\n"
            "Python version: 3.13.0 (main, Oct  7 2024, 05:02:14) [Clang 16.0.0 (clang-1600.0.26.3)] "
            "(64-bit runtime)\n")
    assert _findings(text).get("python-unsupported") is Severity.ERROR


# ---- held-out sets ZC, Z (stop 22) --------------------------------------------------------------------------


def test_uvs_using_cpython_line_is_the_interpreter() -> None:
    # astral-sh/uv#10262
    text = ("uv add torch\nUsing CPython 3.13.1\nCreating virtual environment at: .venv\nResolved 23 packages in 7ms\n"
            "error: Distribution `torch==2.5.1 @ registry+https://<index>/simple` can't be installed because it "
            "doesn't have a source distribution or wheel for the current platform\n")
    python = _read(text).python
    assert not isinstance(python, Unavailable) and python.version == "3.13.1"
    assert _findings(text).get("python-unsupported") is Severity.ERROR  # torch 2.5 has no cp313 wheels


def test_conda_cpu_selector_and_a_program_asking_for_gpus() -> None:
    # Lightning-AI/pytorch-lightning#899
    text = ("pytorch_lightning.utilities.debugging.MisconfigurationException: \n"
            "            You requested GPUs: [0]\n            But your machine only has: []\n```\n```\n"
            "# Name                    Version                   Build  Channel\n"
            "_libgcc_mutex             0.1                        main  \n"
            "_pytorch_select           0.1                       cpu_0  \n")
    torch = _read(text).framework("torch")
    assert torch is not None and torch.accelerator == "cpu"
    assert _findings(text).get("cpu-only-build") is Severity.ERROR
    # the selector alone says the build, not that a GPU was meant (constructed)
    alone = text.split("```\n```\n", 1)[1] + "python 3.7\n"
    assert "cpu-only-build" not in _findings(alone)


# ---- held-out set ZB (stop 22) ------------------------------------------------------------------------------


def test_paddle_with_cuda_answered_with_the_cuda() -> None:
    # PaddlePaddle/Paddle#44140 (its form's answers) and the GPU it names
    text = ("paddle version: 2.3.0\npaddle with cuda: 10.2\n\npython version: 3.7\n\nGPU: NVIDIA GeForce RTX 3050\n")
    paddle = _read(text).framework("paddle")
    assert paddle is not None and (paddle.accelerator, paddle.cuda) == ("cuda", "10.2")
    assert _findings(text).get("arch-unsupported") is Severity.ERROR  # CUDA 10.2 has no sm_86


def test_a_gpu_name_written_against_chinese_text() -> None:
    # PaddlePaddle/Paddle#36440: the model number directly after a CJK character
    gpus = _read("而我们的rtx3060显卡只支持cuda11以上。\npaddle1.8.5").gpu_list()
    assert [g.name for g in gpus] == ["RTX 3060"]


# ---- held-out sets AA, AB, AC (stop 22) ---------------------------------------------------------------------


def test_an_applications_own_capability_floor() -> None:
    # iperov/DeepFaceLab#264 (its title, then the body)
    text = ("No CUDA device found with minimum required compute capability 3.5\n"
            "My graphic card is dual GeForce 780M with a compute capability 3.0.\n")
    gpus = _read(text).gpu_list()
    assert [g.compute_capability for g in gpus] == ["3.0"]
    assert _findings(text).get("arch-unsupported") is Severity.ERROR


def test_nvccs_v_number_is_no_gpu_and_an_installed_toolkit_is_gpu_intent() -> None:
    # pytorch/pytorch#49325: nvcc's banner ("V10.2.89" is no GPU), then collect_env's CPU build
    text = ("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 10.2, V10.2.89\n\n"
            "PyTorch version: 1.7.1+cpu\nIs debug build: False\nCUDA used to build PyTorch: Could not collect\n")
    assert _read(text).gpu_list() == ()
    assert _findings(text).get("cpu-only-build") is Severity.ERROR


def test_torchtext_built_for_another_torch() -> None:
    # pytorch/text#2272
    line = ("OSError: /usr/local/lib/python3.10/dist-packages/torchtext/lib/libtorchtext.so: undefined symbol: "
            "_ZN5torch3jit17parseSchemaOrNameERKSs")
    assert _findings(line).get("companion-mismatch") is Severity.ERROR


def test_a_pinned_companion_pip_did_not_offer_for_this_python() -> None:
    # JuergenFleiss/atrain_core#30
    text = ("ERROR: Could not find a version that satisfies the requirement torchaudio==2.2.0 (from atrain-core) "
            "(from versions: 2.6.0)\nERROR: No matching distribution found for torchaudio==2.2.0\n"
            "I have python 3.13.1 on my system and running the command with python 3.12 solves this problem.\n")
    assert _findings(text).get("python-unsupported") is Severity.ERROR


def test_cudnns_could_not_locate_line_quoted_in_a_sentence() -> None:
    # PaddlePaddle/Paddle#52865: the loader's line inside the reporter's sentence
    text = "执行paddle.utils.run_check()时，结果显示Could not locate cudnn_ops_infer64_8.dll.\nPaddle v2.4.2(CUDA 11.6)"
    assert _findings(text).get("cuda-libs-missing") is Severity.ERROR
