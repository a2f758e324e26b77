"""Held-out sets FT-FX and FY-GC (issue 14, eighth and ninth waves): what they taught, on a real report's text (the
public source above it). A report's pip lines meet torch's cuDNN/NCCL wheel pins as a probed environment's
Requires-Dist does; pip's log shapes (URL-encoded wheel names, "Collecting X==Y" then a download) are read; an install
command the text says failed states nothing; a CuPy wheel needs the CUDA its name gives; a report naming only a CUDA
toolkit and a driver has the driver judged against that toolkit; a GPU-flavoured image tag means a GPU was meant.
TensorFlow's import-time CUDA-runtime dlopen and torch's missing driver during an image build show no GPU machine;
NVRTC refusing the GPU's architecture settles the toolkit's."""

from __future__ import annotations

from envguard.findings import Severity
from envguard.snapshot import Unavailable
from tests.reports import error_codes, findings, first_snapshot, worst_severity

# Issue 14, item 6: the same pair installed in a venv gives cudnn-mismatch; a report of it must too.
FREEZE = "torch==2.4.0+cu121\nnvidia-cudnn-cu12==8.9.2.26\nnvidia-nccl-cu12==2.20.5\n"


def test_reported_pip_lines_meet_torch_s_cudnn_pin() -> None:
    found = [f for f in findings(FREEZE) if f.code == "cudnn-mismatch"]
    assert len(found) == 1 and found[0].severity is Severity.ERROR
    assert "nvidia-cudnn-cu12==9.1.0.70" in " ".join(e.value for e in found[0].evidence)
    # the evidence names the report line the wheel was read from (issue 14, item 6), not the whole report
    assert [e.source for e in found[0].evidence if e.fact == "nvidia-cudnn-cu12"] == ["report line 2: pip freeze"]
    # the pinned cuDNN, or a newer minor of its major, is fine; so is an older NCCL patch of the pinned minor
    assert "cudnn-mismatch" not in error_codes(FREEZE.replace("8.9.2.26", "9.1.0.70"))
    assert "cudnn-mismatch" not in error_codes(FREEZE.replace("8.9.2.26", "9.5.1.17"))
    assert not error_codes(FREEZE.replace("8.9.2.26", "9.1.0.70").replace("2.20.5", "2.20.3"))
    # an older NCCL minor than the pin is missing functions
    assert "nccl-mismatch" in error_codes(FREEZE.replace("8.9.2.26", "9.1.0.70").replace("2.20.5", "2.18.1"))


def test_the_pins_are_linux_wheels_and_pip_wheels() -> None:
    # Windows torch wheels bundle their DLLs and depend on no nvidia-* wheel
    assert "cudnn-mismatch" not in error_codes("OS: Microsoft Windows 11 Pro\n" + FREEZE)
    # a cuDNN wheel of another CUDA major is not the one torch loads
    assert "cudnn-mismatch" not in error_codes(FREEZE.replace("nvidia-cudnn-cu12", "nvidia-cudnn-cu11"))


# pytorch/builder#1666 (kept case 3284): pip's log writes the wheel's "+" as %2B; "Collecting X==Y" then a download
NIGHTLY = """Looking in indexes: https://download.pytorch.org/whl/nightly/cu121
Collecting torch
  Downloading https://download.pytorch.org/whl/nightly/cu121/torch-2.3.0.dev20240108%2Bcu121-cp310-cp310-\
linux_x86_64.whl (757.0 MB)
...
Collecting nvidia-nccl-cu12==2.19.3 (from torch)
  Downloading https://download.pytorch.org/whl/nightly/cu121/nvidia_nccl_cu12-2.19.3-py3-none-\
manylinux1_x86_64.whl (166.0 MB)
...
```python
python -c "import torch; print(torch.__version__); print(torch.cuda.nccl.version())"
2.3.0.dev20240108+cu121
(2, 18, 1)
```
"""


def test_pip_log_shapes_and_a_print_run_are_read() -> None:
    snap = first_snapshot(NIGHTLY)
    torch = snap.framework("torch")
    assert torch is not None and torch.version == "2.3.0.dev20240108+cu121" and torch.cuda == "12.1"
    assert snap.package_map()["nvidia-nccl-cu12"].version == "2.19.3"
    # the second print's answer is the NCCL tuple, not the first line of output
    assert not isinstance(snap.nccl, Unavailable) and snap.nccl[0].version == "2.18.1"
    assert "nccl-mismatch" in error_codes(NIGHTLY)


def test_collecting_without_a_download_is_not_installed() -> None:
    failed = "Collecting torch==1.4.0\nERROR: Could not find a version that satisfies the requirement torch==1.4.0\n"
    torch = first_snapshot(failed + "Python 3.11.4\n").framework("torch")
    assert torch is None or "Collecting" not in torch.source


# vt-vl-lab/3d-photo-inpainting#20 (kept case 3271, a negative): the command the next line says failed installed nothing
FAILED_CONDA = """I was trying running it on my mac 10.13.6 on terminal. Everything in the prerequisite is fine \
except that
`conda install pytorch==1.4.0 torchvision==0.5.0 cudatoolkit==10.1.243 -c pytorch
`
did not work.
"""


def test_an_install_command_that_did_not_work_states_no_build() -> None:
    raised = FAILED_CONDA + ("RuntimeError: Attempting to deserialize object on a CUDA device but "
                             "torch.cuda.is_available() is False.\n")
    assert first_snapshot(raised).framework("torch") is None
    assert "platform-unsupported" not in error_codes(raised)
    worked = FAILED_CONDA.replace("did not work.", "worked.")
    assert first_snapshot(worked).framework("torch") is not None


# googlecolab/colabtools#409 (kept case 3330): the wheel installed, not the one asked for
CUPY = """CuPy has stopped working
Hello, I'm a maintainer of CuPy project.
It seems that Colab container is now using CUDA 10.0 by default. However, CuPy installed in the container is \
`cupy-cuda92`, which is for CUDA 9.2, so it is not working. Could you change it to install `cupy-cuda100`?
"""


def test_a_cupy_wheel_needs_the_cuda_its_name_gives() -> None:
    found = [f for f in findings(CUPY) if f.code == "cuda-libs-missing"]
    assert len(found) == 1 and "cupy-cuda92" in found[0].message and "cupy-cuda100" in (found[0].fix or "")
    assert "cuda-libs-missing" not in error_codes(CUPY.replace("CUDA 10.0", "CUDA 9.2"))
    # a per-major wheel loads any minor of its major
    assert not error_codes("cupy-cuda12x 13.0.0\nCUDA toolkit: 12.4\n")
    assert "cuda-libs-missing" in error_codes("cupy-cuda12x 13.0.0\nnvcc: Cuda compilation tools, release 11.8, "
                                              "V11.8.89\n")


# NVIDIA/cudf#355 (kept case 3327): nothing but the toolkit and the driver
CUDF = """* On Ubuntu 18.04, the default nvidia driver is 390.87.
* Install CUDA 9.2.
"""


def test_a_report_s_toolkit_is_judged_against_its_driver() -> None:
    found = [f for f in findings(CUDF) if f.code == "driver-too-old"]
    assert len(found) == 1 and "396.26" in found[0].message
    assert not error_codes(CUDF.replace("390.87", "396.37"))
    # a framework build brings its own CUDA: the driver is judged against that instead
    assert "driver-too-old" not in error_codes(CUDF + "torch==1.1.0+cu90\n")


# ray-project/ray#15470 (kept case 3320): a CPU torch inside an image tagged for the GPU
RAY = """Pre-built `ray-ml` container images with `gpu` flavor contain a CPU only version of Torch
```
docker run -t -i rayproject/ray-ml:1.3.0-py38-gpu
(base) ray@6199db9c2fdc:~$ pip freeze | grep ^torch
torch==1.7.1+cpu
torchvision==0.8.2+cpu
```
"""


def test_a_gpu_image_tag_means_a_gpu_was_meant() -> None:
    assert "cpu-only-build" in error_codes(RAY)
    assert "cpu-only-build" not in error_codes(RAY.replace("-py38-gpu", "-py38-cpu"))


# patrick-kidger/diffrax#80 (kept case 3264): JAX's old fallback line, and the user's "I do have a GPU"
DIFFRAX = """Here's the full warning that I get (I do have a GPU):
WARNING:absl:No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)
"""


def test_the_user_saying_the_machine_has_a_gpu_makes_a_cpu_fallback_an_error() -> None:
    assert worst_severity(DIFFRAX)["cpu-only-build"] is Severity.ERROR
    assert worst_severity(DIFFRAX.replace(" (I do have a GPU)", ""))["cpu-only-build"] is Severity.WARNING


def test_prose_and_archive_shapes() -> None:
    # NVIDIA/k8s-device-plugin#97: "`nvidia-smi` shows 396.26, which doesn't support CUDA 10"
    smi = first_snapshot("Install DaemonSet v1.11. `nvidia-smi` shows 396.26, which doesn't support CUDA 10.\n")
    assert not isinstance(smi.driver, Unavailable) and smi.driver.version == "396.26"
    # pytorch/pytorch#44253 (kept case 3305): a lower-case model name, then a CJK letter
    assert [g.name for g in first_snapshot("新版本能不能支持下 tesla k40m的显卡\n").gpu_list()] == ["tesla k40m"]
    # tensorflow/tensorflow#59016 (kept case 3315): the C library's archive names its build, system and release
    archive = "No such object: tensorflow/libtensorflow/libtensorflow-gpu-windows-x86_64-2.11.0.zip\n"
    assert "platform-unsupported" in error_codes(archive)
    # pyannote/pyannote-audio#1675 (kept case 3276): a conditional's consequent is what happens
    pyannote = ("If I install pyannote.audio in an env in which torch with cuda is already installed, then during "
                "installation the torch with cuda is removed and torch cpu is installed.\n"
                "pip install torch torchaudio --index-url https://download.pytorch.org/whl/cu118\n")
    assert "cpu-only-build" in error_codes(pyannote)
    assert "cpu-only-build" not in error_codes("Python 3.10.12\nIf torch cpu is installed, reinstall it.\n"
                                               "pip install torch --index-url https://download.pytorch.org/whl/cu118\n")


# NVIDIA/k8s-device-plugin#97 (kept case 3324): CUDA named by its major, a driver older than any of its releases needs
K8S = """I want to use CUDA 10, but the device driver version in 1.11 uses 396.26.
Install DaemonSet v1.11 on k8s cluster. `nvidia-smi` shows 396.26, which doesn't support CUDA 10.
"""


def test_a_cuda_named_by_its_major_needs_its_oldest_release_s_driver() -> None:
    found = [f for f in findings(K8S) if f.code == "driver-too-old"]
    assert len(found) == 1 and "410.48" in found[0].message
    assert not error_codes(K8S.replace("396.26", "418.87"))
    # two majors name no one CUDA; a device string is no CUDA at all
    assert not error_codes("with CUDA 9 and 10 it is a lot slower. driver 384.90\n")
    assert not error_codes("model.to('cuda:0') on driver 390.10\n")


# huggingface/transformers#11793 (kept case 3372, a negative): TensorFlow's import-time dlopen of the CUDA runtime on
# Linux, beside a PyTorch job, with nothing in the report showing a GPU, driver or CUDA toolkit
HF = """r10i6n8: 2021-05-20 19:52:04.357654: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not \
load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or \
directory; LD_LIBRARY_PATH: [...]
r10i6n8: 2021-05-20 19:52:04.357677: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror \
if you do not have a GPU set up on your machine.
"""


def test_tensorflow_s_cudart_dlopen_is_a_warning_without_a_gpu_setup() -> None:
    assert worst_severity(HF)["cuda-libs-missing"] is Severity.WARNING
    # a CUDA toolkit the report names is a CUDA set up for a GPU (tensorflow#41990-like reports, kept case 1750)
    assert "cuda-libs-missing" in error_codes(HF + "nvcc: Cuda compilation tools, release 11.0, V11.0.194\n")


# NVIDIA/apex#486 (kept case 3357, a negative): torch finds no driver while an image builds
APEX = """Docker build fails on pytorch master since Aug 15, 2019 with "AssertionError: Found no NVIDIA driver on your \
system"
`RUN pip install -v --no-cache-dir --global-option="--cpp_ext" --global-option="--cuda_ext" apex/`
"""


def test_no_driver_during_an_image_build_is_a_warning() -> None:
    assert worst_severity(APEX)["driver-missing"] is Severity.WARNING
    ran = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU\n" \
          "Python 3.10.4\n"
    assert "driver-missing" in error_codes(ran)


# openmm/openmm#3756 (kept case 3380) and pytorch/pytorch (kept case 1832, a negative): NVRTC refusing the GPU's
# architecture is an error when the GPU is outside the toolkit the report names
OPENMM = """Hi! Im trying to install openmm using conda in ubuntu 20.04 with nvidia graphic card Quadro K2000. Have \
installed cuda 11.4.
CUDA platform error: Error compiling program: nvrtc: error: invalid value for --gpu-architecture (-arch)
"""


def test_nvrtc_refusing_the_architecture_settles_the_toolkit_arch_warning() -> None:
    assert "arch-unsupported" in error_codes(OPENMM)
    jiterator = ("nvrtc: error: invalid value for --gpu-architecture (-arch)\nRTX 4090\npytorch 1.14+cu117  nightly\n"
                 "cuda 11.8\n")
    assert "arch-unsupported" not in error_codes(jiterator)
    assert worst_severity(jiterator)["arch-unsupported"] is Severity.WARNING


# Held-out set GE (tenth wave): machines without an NVIDIA GPU, where "Torch not compiled with CUDA enabled" and
# "Found no NVIDIA driver" are the code asking for CUDA (Vaibhavs10/insanely-fast-whisper#107, kept case 3426;
# ShuweiShao/AF-SfMLearner#39, kept case 3434)
MAC = """AssertionError: Torch not compiled with CUDA enabled

I am using MacBook Air and I am getting this error:
"""
CPU_ZH = """RuntimeError: Found no NVIDIA driver on your system.

您好，在evaluate_depth.py的encoder.cuda()出现了报错信息：RuntimeError: Found no NVIDIA driver on your system.
运行这一步时我使用的是cpu，请问有办法规避这个报错吗？
"""


def test_a_machine_said_to_have_no_nvidia_gpu_makes_cuda_asks_warnings() -> None:
    assert worst_severity(MAC)["cpu-only-build"] is Severity.WARNING
    assert worst_severity(CPU_ZH)["driver-missing"] is Severity.WARNING
    # the same message beside an NVIDIA GPU stays an error
    assert "cpu-only-build" in error_codes(MAC.replace("MacBook Air", "an RTX 3060"))


# raryelcostasouza/pyTranscriber#56 (kept case 3437): "installed Torch without the CUDA version"
WHISPER = """The openai-whisper package installed Torch without the CUDA version, but I installed Torch using
`pip3 install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu126`
"""


def test_torch_without_the_cuda_version_is_a_cpu_build() -> None:
    torch = first_snapshot(WHISPER).framework("torch")
    assert torch is not None and torch.accelerator == "cpu"
    assert "cpu-only-build" in error_codes(WHISPER)


# fboulnois/stable-diffusion-docker#82 (kept case 3531, a negative, eleventh wave): docker run --gpus on a laptop whose
# only graphics is Intel's
XE = """docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].
I'm using Ubuntu 22.04.02 LTS
Graphics Mesa Intel® Xe Graphics (TGL GT2)
"""


def test_a_gpu_run_on_a_machine_with_only_intel_graphics_is_a_warning() -> None:
    assert worst_severity(XE)["gpu-runtime-missing"] is Severity.WARNING
    assert "gpu-runtime-missing" in error_codes(XE.replace("Mesa Intel® Xe Graphics (TGL GT2)", "RTX 3060"))
