"""arch-unsupported from what a report's own messages list (issue 14, r-arch): real lines from the corpus cases."""

from __future__ import annotations

from envguard.commands.check import check_report
from envguard.findings import Severity
from envguard.knowledge import load_matrices


def _arch(text: str) -> list[Severity]:
    return [f.severity for f in check_report(text, "report").findings if f.code == "arch-unsupported"]


# case 114 (pytorch/pytorch#6515), as pasted
OLD_TORCH = """/home/azat/anaconda2/lib/python2.7/site-packages/torch/cuda/__init__.py:97: UserWarning:
    Found GPU0 GeForce 820M which is of cuda capability 2.1.
    PyTorch no longer supports this GPU because it is too old.
"""


def test_two_messages_of_one_code_keep_the_stronger_severity() -> None:
    """The capability line alone is a warning, the "too old" line an error; merged, the error must survive
    whichever line comes first."""
    assert _arch(OLD_TORCH) == [Severity.ERROR]
    first, _, rest = OLD_TORCH.partition("\n")
    swapped = "\n".join([first, *reversed(rest.strip("\n").split("\n"))]) + "\n"
    assert _arch(swapped) == [Severity.ERROR]
    assert _arch("Found GPU0 GeForce 820M which is of cuda capability 2.1.\n") == [Severity.WARNING]


# case 318 (artcc/freelingo#141), torch >= 2.7's warning with one line per compiled CC
NEW_TORCH = """UserWarning: Found GPU0 NVIDIA GeForce GTX 1080 which is of compute capability (CC) 6.1.
The following list shows the CCs this version of PyTorch was built for and the hardware CCs it supports:
- 7.5 which supports hardware CC >=7.5,<8.0
- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}
- 8.6 which supports hardware CC >=8.6,<9.0 except {8.7}
- 9.0 which supports hardware CC >=9.0,<10.0
- 10.0 which supports hardware CC >=10.0,<11.0 except {10.1}
- 12.0 which supports hardware CC >=12.0,<13.0
"""
# The Jetson Orin form: torch excludes 8.7 from the sm_80 range, yet sm_80 SASS runs on Orin (holohub#1687).
ORIN = """UserWarning: Found GPU0 Orin which is of compute capability (CC) 8.7.
The following list shows the CCs this version of PyTorch was built for and the hardware CCs it supports:
- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}
- 9.0 which supports hardware CC >=9.0,<10.0
"""


def test_a_gpu_in_none_of_the_listed_cc_ranges_is_an_error() -> None:
    assert _arch(NEW_TORCH) == [Severity.ERROR]
    assert _arch(ORIN) == [Severity.WARNING]
    # without the list, the capability line is only a warning
    assert _arch(NEW_TORCH.partition("\n")[0] + "\n") == [Severity.WARNING]


def test_an_entry_without_an_upper_bound_is_ptx_and_runs_forward() -> None:
    ptx = NEW_TORCH.replace("(CC) 6.1", "(CC) 12.1").replace(">=12.0,<13.0", ">=12.0")
    sass = NEW_TORCH.replace("(CC) 6.1", "(CC) 13.0")
    assert _arch(ptx) == [Severity.WARNING]
    assert _arch(sass) == [Severity.ERROR]


def test_the_old_torch_list_on_the_next_line_counts_too() -> None:
    """pytorch/pytorch#6515-era torch printed the capability and, on another line, the list of compiled archs."""
    text = ("Found GPU0 GeForce GTX 760 which is of cuda capability 3.0.\n"
            "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 compute_70.\n")
    assert _arch(text) == [Severity.ERROR]
    covered = text.replace("sm_37 sm_50", "sm_30 sm_37 sm_50")
    assert _arch(covered) == [Severity.WARNING]


# case 215 (PaddlePaddle/Paddle#56908): newer than every listed arch, and Paddle builds carry no PTX
PADDLE = "The GPU architecture in your current machine is Ampere, which is not compatible with Paddle installation " \
         "with arch: 52 60 61 70 75\n"


def test_a_gpu_newer_than_every_paddle_arch_has_no_kernels() -> None:
    findings = [f for f in check_report(PADDLE, "paddle").findings if f.code == "arch-unsupported"]
    assert [f.severity for f in findings] == [Severity.ERROR]
    assert any("cmake/cuda.cmake" in e.value for e in findings[0].evidence)


def test_gpu_names_are_found_by_the_example_products_of_an_arch_row() -> None:
    """Reports name GPUs loosely ("Tesla P100", "P100", "H100"): the arch rows' example products identify them as
    whole words; one word that is not a model number never does, nor a longer model number."""
    gpu = load_matrices().gpu_arch
    found = {n: (row.cc if (row := gpu.lookup_name(n)) else None)
             for n in ("Tesla P100", "P100", "Tesla P100-SXM2-16GB", "H100", "V100", "Jetson AGX Orin", "A10",
                       "A1000", "Orin NX", "Quadro K4000", "Quadro K1100M")}
    assert found == {"Tesla P100": "6.0", "P100": "6.0", "Tesla P100-SXM2-16GB": "6.0", "H100": "9.0",
                     "V100": "7.0", "Jetson AGX Orin": "8.7", "A10": "8.6", "A1000": None, "Orin NX": "8.7",
                     "Quadro K4000": "3.0", "Quadro K1100M": None}


def test_kaggle_p100_with_a_cu128_torch_has_no_kernels() -> None:
    """case 304 (Kaggle/kaggle-cli#1151): the GPU named in prose, the torch build as text."""
    text = ("Requesting `machine_shape: \"NvidiaTeslaP100\"` successfully allocates a Tesla P100, but the CUDA kernel "
            "fails.\n- `torch 2.10.0+cu128`, `torch.version.cuda == \"12.8\"`\n")
    findings = [f for f in check_report(text, "kaggle").findings if f.code == "arch-unsupported"]
    assert findings and findings[0].severity is Severity.ERROR
    assert "sm_70" in findings[0].message


def test_a_paddle_image_tag_names_paddles_cuda() -> None:
    """case 336 (PaddlePaddle/PaddleOCR#9249): the image tag alone, and a GPU field that is only a model number."""
    from envguard.reports import extract, parse_report

    found = {(m.kind, m.value) for m in extract.messages_and_commands(
        ["docker pull paddlepaddle/paddle:3.0.0-gpu-cuda11.8-cudnn8.9-trt8.6"], 0)}
    assert {("package", "3.0.0"), ("paddle_cuda", "11.8")} <= found
    # a bare tag is Paddle's only with its TensorRT suffix
    assert not list(extract.messages_and_commands(["tag 1.2.3-gpu-cuda10.2-cudnn7"], 0))
    text = "环境：\n使用dockerhub安装：镜像[2.4.2-gpu-cuda10.2-cudnn7.6-trt7.0]\npaddleocr是2.6\nGPU:3090\n"
    snapshot, _ = parse_report(text, "paddleocr")
    paddle = snapshot.framework("paddle")
    assert paddle is not None and (paddle.version, paddle.cuda) == ("2.4.2", "10.2")
    assert [g.name for g in snapshot.gpu_list()] == ["3090"]
    findings = [f for f in check_report(text, "paddleocr").findings if f.code == "arch-unsupported"]
    assert [f.severity for f in findings] == [Severity.ERROR]
    assert "CUDA 10.2 predates compute capability 8.x" in findings[0].message


def test_a_fermi_gpu_has_no_kernels_in_a_build_made_with_cuda_9_or_later() -> None:
    """gpu-arch.toml's Fermi rows: CUDA 9.0 removed sm_20/sm_21, so any build made with CUDA >= 9 lacks them."""
    text = ("PyTorch version: 1.0.1\nCUDA used to build PyTorch: 9.0\n"
            "GPU models and configuration: GPU 0: GeForce GT 630M\n")
    findings = [f for f in check_report(text, "fermi").findings if f.code == "arch-unsupported"]
    assert [f.severity for f in findings] == [Severity.ERROR]
    assert "the last toolkit was 8.0" in findings[0].message
    row = load_matrices().gpu_arch.lookup_name("GeForce 820M")
    assert row is not None and row.cc == "2.1"


def test_the_runtime_enum_name_alone_is_the_no_kernel_image_error() -> None:
    text = "every CUDA operation fails with `cudaErrorNoKernelImageForDevice`; the same code works on a T4.\n"
    assert _arch(text) == [Severity.ERROR]
