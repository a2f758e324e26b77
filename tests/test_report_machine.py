"""Machine facts and build intents written in passing (reports.extract_machine), YOLO/Ultralytics banners
(reports.extract), a CPU-only jaxlib's platform list (errors.toml jax-no-cuda-platform), on real text: the corpus
cases named in each test (tests/data/reports; each case.json names its thread) and other public threads cited inline.
"""

from __future__ import annotations

import pytest

from envguard.reports import extract, extract_machine
from envguard.reports.extract_builds import CUDA_REQUEST
from envguard.reports.mentions import PROSE
from tests.reports import error_codes as errors


def gpus(line: str) -> list[str]:
    return [m.value for m in extract_machine.machine_facts([line], 0) if m.kind == "gpu"]


# ---- GPUs named in prose -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "want"), [
    # case 437 (ultralytics/ultralytics#20198)
    ("and it dont see my RTX3060 for some reasons(", ["RTX 3060"]),
    # ultralytics/yolov5#7639
    ("actually yolo is using only Cpu for traning instead of my gpu (gtx 1080 ) and it works fine.", ["GTX 1080"]),
    # ultralytics/yolov5#8247
    ("I have a 3070 GPU and a Ryzen 5 5600x processor.", ["GeForce RTX 3070"]),
    # pytorch/pytorch#76031
    ("I have decided to buy an eGPU and an Nvidia 3080ti to train my networks.", []),  # "buy": a hedge
    ("When I run the train.py file it detects that I have a 3080ti, but when it starts the epochs",
     ["GeForce RTX 3080 Ti"]),
    # ultralytics/yolov5#7173 (a field-like line is still a GPU named in prose)
    ("GPU   : NVIDIA RTX 3090", ["RTX 3090"]),
    ("Two 3090s on Ubuntu 22.04, torch 2.1", ["GeForce RTX 3090"]),
    ("I have a GeForce MX450 laptop", ["GeForce MX450"]),
    ("Training on an RTX A6000 and a Quadro P2000", ["RTX A6000", "Quadro P2000"]),
    # case 431 (2x RTX 5880 Ada): the Ada suffix is part of the name (an "RTX 5880" alone is no product)
    ("NCCL all-reduce hangs on 2x RTX 5880 Ada Generation GPUs", ["RTX 5880 Ada Generation"]),
])
def test_gpus_in_prose(line: str, want: list[str]) -> None:
    assert gpus(line) == want


@pytest.mark.parametrize("line", [
    "should I buy a 4090 or two 3090s?",
    "if you have a 3060 you can use cu118",
    "Exporting the 1080p video at 60fps",
    "the server listens on port 5080",
    "a 4090 would be faster than a 3090",
])
def test_not_gpus_in_prose(line: str) -> None:
    assert gpus(line) == []


def test_prose_gpus_rank_below_stronger_sources() -> None:
    # The sentence's GPU is the weakest tier: an nvidia-smi row or a banner decides the GPU list.
    facts = list(extract_machine.machine_facts(["my 4090 is not used"], 0))
    assert [(m.kind, m.tier) for m in facts] == [("gpu", PROSE)]


# ---- PyTorch CUDA index named: the user meant a CUDA build ---------------------------------------------------

@pytest.mark.parametrize(("line", "tag"), [
    # case 427 (Motphys/UniLab#624)
    ("Windows uv sync motrix resolves torch 2.7.0 cpu because pyproject maps torch to pytorch-cu128 only on linux.",
     "cu128"),
    # ScrollPrize/villa#1584
    ("`tool.uv.sources` sends torch to the `pytorch-cu128` index only under", "cu128"),
    # talmolab/sleap-nn#479
    ("{ index = \"pytorch-cu128\", extra = \"torch-cuda128\", marker = \"platform_machine == 'x86_64'\" }", "cu128"),
    # ultralytics/ultralytics#1495
    ("pip3 install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu117", "cu117"),
])
def test_torch_cuda_index_is_a_cuda_request(line: str, tag: str) -> None:
    facts = [m for m in extract_machine.machine_facts([line], 0) if m.kind == CUDA_REQUEST]
    assert [(m.key, m.value) for m in facts] == [("torch", f"PyTorch index {tag}")]


def test_cpu_index_is_no_cuda_request() -> None:
    assert list(extract_machine.machine_facts(["pip install torch --index-url https://download.pytorch.org/whl/cpu",
                                               "name = \"pytorch-cpu\""], 0)) == []


def test_uv_windows_cpu_torch_with_a_linux_only_cuda_index_is_cpu_only_build() -> None:
    # ScrollPrize/villa#1584: the tagged version in a later sentence says which build the bare one is.
    text = ("`tool.uv.sources` sends torch to the `pytorch-cu128` index only under `sys_platform == 'linux'`. "
            "I installed torch 2.12.1 on a Windows machine and got torch 2.12.1+cpu with torch.cuda.is_available() "
            "False.")
    assert "cpu-only-build" in errors(text)


def test_cpu_torch_without_any_sign_of_a_gpu_is_not_an_error() -> None:
    assert "cpu-only-build" not in errors("Local repro reports torch 2.7.0+cpu, torch.version.cuda None.")


# ---- YOLO / Ultralytics banners ------------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "python", "torch", "device"), [
    # case 437 (ultralytics/ultralytics#20198): 8.1+ banners dropped "YOLOv"
    ("Ultralytics 8.3.109 🚀 Python-3.11.0 torch-2.6.0+cpu CPU (12th Gen Intel Core(TM) i3-12100F)",
     "3.11.0", "2.6.0+cpu", True),
    # ultralytics/ultralytics#20123
    ("Ultralytics 8.3.106 🚀 Python-3.13.3 torch-2.6.0+cu126 CUDA:0 (NVIDIA GeForce RTX 4080 SUPER, 16376MiB)",
     "3.13.3", "2.6.0+cu126", False),
    # ultralytics/ultralytics#8869 (the emoji lost in the paste)
    ("Ultralytics YOLOv8.0.196  Python-3.10.5 torch-2.2.1+cpu CPU (12th Gen Intel Core(TM) i5-12600KF)",
     "3.10.5", "2.2.1+cpu", True),
    # dongdv95/yolov5#6: YOLOv5's git describe between the name and Python
    ('when i run the code, i get "YOLOv5  v6.2-109-g23701ea Python-3.8.13 torch-1.12.1+cpu CPU"',
     "3.8.13", "1.12.1+cpu", True),
    # ultralytics/yolov5#7639: 2022 YOLOv5, a date and no Python
    ("`YOLOv5  2022-4-22 torch 1.11.0+cpu CPU`", None, "1.11.0+cpu", True),
    # ultralytics/yolov5#1558: 2020 YOLOv5
    ("Using torch 1.6.0 CPU", None, "1.6.0", True),
])
def test_yolo_banners(line: str, python: str | None, torch: str, device: bool) -> None:
    facts = [(m.kind, m.key, m.value) for m in extract.messages_and_commands([line], 0)]
    assert ("package", "torch", torch) in facts
    assert (("python", "", python) in facts) if python else not any(k == "python" for k, _, _ in facts)
    assert (("device_cpu", "", "CPU") in facts) is device


def test_yolov5_banner_device_in_mb() -> None:
    # ultralytics/yolov5 (2020): "MB", not "MiB"
    facts = [(m.kind, m.value) for m in extract.messages_and_commands(
        ["Using torch 1.7.0+cu101 CUDA:0 (Tesla V100-SXM2-16GB, 16160MB)"], 0)]
    assert ("gpu", "Tesla V100-SXM2-16GB") in facts and ("package", "1.7.0+cu101") in facts


def test_yolo_cpu_banner_with_the_gpu_in_prose_is_cpu_only_build() -> None:
    # ultralytics/ultralytics#8869 with the reporter's GPU sentence; case 437 has the same shape
    text = ("my yolo uses the cpu, i have a rtx 3060\n"
            "Ultralytics YOLOv8.0.196  Python-3.10.5 torch-2.2.1+cpu CPU (12th Gen Intel Core(TM) i5-12600KF)\n")
    assert "cpu-only-build" in errors(text)


# ---- a jaxlib without a CUDA platform ------------------------------------------------------------------------

def test_jax_platform_list_without_cuda_on_a_gpu_machine_is_cpu_only_build() -> None:
    # kuixu/alphafold#8 (RTX TITAN; the message is as logged), wrapped like case 402 (jax-ml/jax#10349)
    text = ("my devices have a nvidia TITAN RTX GPU with 24G memory\n"
            "RuntimeError: Backend 'gpu' failed to initialize: NOT_FOUND: Could not find\n"
            "registered platform with name: \"cuda\". Available platform names are:\n"
            "Interpreter Host\n")
    assert "cpu-only-build" in errors(text)


def test_jax_platform_list_with_cuda_is_not_cpu_only_build() -> None:
    # jax-ml/jax#12335: the rocm backend's line on a working CUDA jaxlib, V100 and driver named
    text = ("V100 GPU,  Driver Version: 470.57.02,  CUDA Version: 11.4\n"
            "RuntimeError: Unable to initialize backend 'rocm': NOT_FOUND: Could not find registered platform with "
            "name: \"rocm\". Available platform names are: Interpreter CUDA Host\n")
    assert "cpu-only-build" not in errors(text)


@pytest.mark.parametrize(("line", "want"), [
    # ScrollPrize/villa#1584
    ("I installed torch on a Windows machine with a working CUDA device and got `2.12.1+cpu`", []),  # no "torch" next
    ("I installed torch 2.12.1 on a Windows machine and got torch 2.12.1+cpu with torch.cuda.is_available() False",
     ["2.12.1+cpu"]),
    # huggingface/lerobot#4093
    ("On Windows, running `uv sync` installs the CPU-only PyTorch build (`torch==2.11.0+cpu`)", ["2.11.0+cpu"]),
    # case 437's banner shape in prose (ultralytics/ultralytics#20198)
    ("it prints torch-2.6.0+cpu CPU", ["2.6.0+cpu"]),
    ("I expected torch 2.5.1+cu124 but got the CPU one", []),
])
def test_tagged_torch_versions_in_prose(line: str, want: list[str]) -> None:
    assert [m.value for m in extract_machine.machine_facts([line], 0) if m.kind == "torch_prose"] == want


# ---- the plain package-index torch wheel on Windows / macOS --------------------------------------------------

def test_untagged_windows_torch_wheel_on_a_gpu_machine_is_cpu_only_build() -> None:
    # ultralytics/ultralytics#13903: "it also will be automatically installed torch-2.3.1-cp39-cp39-win_amd64.whl,
    # which can't use gpu"; THU-MIG/yolov10#218 (a maintainer: on Windows the default pip torch is the CPU build)
    text = ("my gpu is a GTX 1660 Ti\n"
            "when I run the code `pip install --upgrade ultralytics boxmot` it also will be automatically installed "
            "torch-2.3.1-cp39-cp39-win_amd64.whl, which can't use gpu.\n")
    assert "cpu-only-build" in errors(text)


def test_pip_successfully_installed_untagged_torch_on_windows_is_cpu_only_build() -> None:
    # kyutai-labs/delayed-streams-modeling#131 / Motphys/UniLab#624 shape: a Windows prompt, pip's last line
    text = ("(venv) C:\\Users\\me\\proj> pip install torch torchvision\n"
            "Successfully installed filelock-3.13.1 torch-2.5.1 torchvision-0.20.1\n"
            "but my 4090 is not used, torch.cuda.is_available() is False\n")
    assert "cpu-only-build" in errors(text)


def test_pip_successfully_installed_reads_packages() -> None:
    facts = [(m.key, m.value) for m in extract_machine.machine_facts(
        ["Successfully installed MarkupSafe-2.1.5 jax-0.4.30 jaxlib-0.4.30 nvidia-cudnn-cu12-9.1.0.70 "
         "torch-2.3.1+cu121"], 0)]
    assert facts == [("jax", "0.4.30"), ("jaxlib", "0.4.30"), ("nvidia-cudnn-cu12", "9.1.0.70"),
                     ("torch", "2.3.1+cu121")]


@pytest.mark.parametrize("text", [
    # torch 1.x: the default-CUDA Windows wheel on download.pytorch.org was untagged (whl/cu100/torch-1.2.0-...)
    "C:\\Users\\me> pip install torch==1.2.0 -f https://download.pytorch.org/whl/torch_stable.html\n"
    "Successfully installed torch-1.2.0\nmy 2080 is not used\n",
    # Linux: the plain wheel is a CUDA build (torch.toml pypi_default)
    "$ pip install torch\nSuccessfully installed torch-2.5.1\nmy 4090 is not used\n",
    # a CUDA wheel's file name carries its tag
    "my RTX 3060\nDownloading https://download.pytorch.org/whl/cu121/torch-2.3.1%2Bcu121-cp39-cp39-win_amd64.whl\n",
])
def test_plain_wheel_rule_stays_out_of_other_builds(text: str) -> None:
    assert "cpu-only-build" not in errors(text)


# ---- the plain package-index torch wheel on Linux aarch64 (GH200 / GB200), up to 2.9 --------------------------

def test_untagged_aarch64_torch_on_a_server_gpu_is_cpu_only_build() -> None:
    # pytorch/pytorch#160162: "until pytorch 2.8, the pypi wheel ... only has CPU version pytorch on aarch64
    # platforms. if people use pytorch on GH200 / GB200, their `pip install torch` will install the CPU version";
    # the compound platform tag of PyPI's aarch64 wheel file names is read too
    text = ("GPU: NVIDIA GH200 480GB\n"
            "  Downloading torch-2.3.1-cp310-cp310-manylinux_2_17_aarch64.manylinux2014_aarch64.whl (88.1 MB)\n")
    assert "cpu-only-build" in errors(text)


def test_aarch64_pip_listing_with_an_nvidia_driver_is_cpu_only_build() -> None:
    # pytorch/pytorch#168065 (GB200, torch stable in Nov 2025: 2.9): `pip install torch`, `pip list` shows no cudnn
    text = ("| NVIDIA-SMI 570.86.15    Driver Version: 570.86.15    CUDA Version: 12.8     |\n"
            "Python platform: Linux-6.8.0-1017-nvidia-64k-aarch64-with-glibc2.39\n"
            "[pip3] torch==2.9.1\n")
    assert "cpu-only-build" in errors(text)


@pytest.mark.parametrize("text", [
    # Jetson: NVIDIA's JetPack wheels are untagged CUDA builds (torch-1.8.0-cp36-cp36m-linux_aarch64.whl)
    "Jetson Orin Nano, JetPack 6.0\nDownloading torch-2.3.0-cp310-cp310-linux_aarch64.whl\n",
    # from 2.11 the package index's aarch64 wheel is a CUDA build (torch.toml [[aarch64_index]]; 2.10 was still CPU)
    "GPU: NVIDIA GH200 480GB\nDownloading torch-2.11.0-cp312-cp312-manylinux_2_28_aarch64.whl (88.1 MB)\n",
    # a tagged build from the PyTorch CUDA index
    "GPU: NVIDIA GH200 480GB\n[pip3] torch==2.8.0+cu128\nPython platform: Linux-6.8.0-aarch64-with-glibc2.39\n",
])
def test_aarch64_rule_stays_out_of_other_builds(text: str) -> None:
    assert "cpu-only-build" not in errors(text)


def test_pip_cuda_extra_not_provided_on_a_gpu_machine_is_cpu_only_build() -> None:
    # cloudhan/jax-windows-builder#5 (pip's output as posted) with the machine's GPU named
    text = ("I have a RTX 3070.\n"
            "Processing c:\\users\\myname\\appdata\\local\\pip\\cache\\wheels\\09\\jax-0.3.4-py3-none-any.whl\n"
            "  WARNING: jax 0.3.4 does not provide the extra 'cuda111'\n"
            "Installing collected packages: jax\n"
            "Successfully installed jax-0.3.4\n")
    assert "cpu-only-build" in errors(text)


def test_pip_cuda_extra_not_provided_without_a_gpu_is_not_an_error() -> None:
    assert "cpu-only-build" not in errors("WARNING: jax 0.4.18 does not provide the extra 'cuda12'\n")
