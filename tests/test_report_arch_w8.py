"""Library arch floors and CUDA runtime faults in pasted reports (issue 14, w8-arch): torch's cpp_extension naming an
arch it does not know, flash-attn's Ampere floor, vLLM's bfloat16 check, ptxas and PTX-ISA limits, and the CUDA
faults that are not environment problems. Real text from the cited threads, judged as `check --from` judges it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from envguard.findings import Severity
from envguard.knowledge import load_matrices
from envguard.reports import parse_environments
from tests.reports import findings

M = load_matrices()


def _codes(text: str) -> dict[str, Severity]:
    out: dict[str, Severity] = {}
    for f in findings(text, M):
        out[f.code] = max(out.get(f.code, f.severity), f.severity)
    return out


# ---- torch.utils.cpp_extension: "Unknown CUDA arch (X) or GPU not supported" -------------------------------------

# https://github.com/XPixelGroup/BasicSR/issues/354 (the issue body): torch 1.3 on an RTX 3090 (8.6).
BASICSR_354 = """Hi,xinntao!
EDVR is a amazing model!However, when I run "python setup.py develop", I come across such a problem.
ValueError: Unknown CUDA arch (8.6) or GPU not supported
env: python3.7, pytorch1.3, RTX 3090, CUDA11.1
How can I solve this problem？
"""

# https://github.com/yfeng95/DECA/issues/190 (the issue body): torch 1.6 on an RTX 4090 (8.9).
DECA_190 = """GPU:RTX4090
env cuda toolkit:10.2
torch version:1.6.0

error:ValueError: Unknown CUDA arch (8.9) or GPU not supported
"""

# https://github.com/OpenBMB/BMTrain/issues/83: the arch came from TORCH_CUDA_ARCH_LIST ('9.0+PTX'), no GPU named.
BMTRAIN_83 = """`ValueError: Unknown CUDA arch (9.0+PTX) or GPU not supported`

`nvcc --version
nvcc: NVIDIA (R) Cuda compiler driver
Cuda compilation tools, release 11.7, V11.7.64
Build cuda_11.7.r11.7/compiler.31294372_0`
"""


@pytest.mark.parametrize("text", [BASICSR_354, DECA_190])
def test_unknown_arch_of_the_reported_gpu_is_an_error(text: str) -> None:
    assert _codes(text).get("arch-unsupported") is Severity.ERROR
    message = next(f for f in findings(text, M) if f.code == "arch-unsupported" and f.severity is Severity.ERROR)
    assert any("the arch the message names" in e.value for e in message.evidence)


def test_unknown_arch_from_an_arch_list_stays_a_warning() -> None:
    assert _codes(BMTRAIN_83).get("arch-unsupported") is Severity.WARNING


# ---- flash-attn: "FlashAttention only supports Ampere GPUs or newer." ---------------------------------------------

# https://github.com/Dao-AILab/flash-attention/issues/762 (the T4 comment, shortened): a Turing GPU (7.5).
FLASH_762 = """Hi @tridao, all of my GPUs are Tesla T4, but I still encountered this issue.
RuntimeError: FlashAttention only supports Ampere GPUs or newer.
"""

# https://github.com/Dao-AILab/flash-attention/issues/1540 (title): an RTX 5090 (12.0), newer than Ampere.
FLASH_1540 = ("RTX 5090 support - built from scratch but still getting - RuntimeError: FlashAttention only supports"
              " Ampere GPUs or newer.\n"
              "!!! Exception during processing !!! FlashAttention only supports Ampere GPUs or newer.\n")


def test_flash_attn_on_a_gpu_below_ampere_is_an_error() -> None:
    assert _codes(FLASH_762).get("arch-unsupported") is Severity.ERROR


def test_flash_attn_on_blackwell_stays_a_warning() -> None:
    """flash-attn <= 2.7.2 (and xformers' bundled copy) print the Ampere line on sm_120 too: not a GPU too old."""
    assert _codes(FLASH_1540).get("arch-unsupported") is Severity.WARNING


def test_flash_attn_alone_is_a_warning() -> None:
    assert _codes("RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n").get(
        "arch-unsupported") is Severity.WARNING


# ---- vLLM's bfloat16 check: not an environment problem, but it names the GPU --------------------------------------

# https://github.com/vllm-project/vllm/issues/1153
VLLM_1153 = """I am getting this error on an AWS EC2 T4 g4dn.xlarge:

ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. \
Your Tesla T4 GPU has compute capability 7.5.
"""


def test_vllm_bfloat16_names_the_gpu_and_is_no_finding() -> None:
    gpus = [(g.name, g.compute_capability)
            for e in parse_environments(VLLM_1153, "t", M) for g in e.snapshot.gpu_list()]
    assert ("Tesla T4", "7.5") in gpus
    assert not [f for f in findings(VLLM_1153, M) if f.severity is Severity.ERROR]


# ---- faults that are not environment problems, and the negatives' ptxas/PTX lines --------------------------------

@pytest.mark.parametrize("line", [
    # https://github.com/opendatalab/MinerU/issues/426
    "RuntimeError: CUDA error: unspecified launch failure",
    # https://github.com/vllm-project/vllm/issues/18045
    "RuntimeError: CUDA error: an illegal instruction was encountered",
    # https://github.com/pytorch/pytorch/issues/32893
    "RuntimeError: CUDA error: misaligned address",
    # https://github.com/pytorch/pytorch/issues/95082 (case 138)
    "ptxas /tmp/filelSnH8K, line 6; error   : PTX .version 7.4 does not support .target sm_89",
    # https://github.com/huggingface/diffusers/issues/5443 (title)
    ("DeferredCudaCallError: CUDA call failed lazily at initialization with error: device >= 0 && device < num_gpus "
     "INTERNAL ASSERT FAILED at \"../aten/src/ATen/cuda/CUDAContext.cpp\":50, please report a bug"),
])
def test_not_environment_faults_make_no_finding(line: str) -> None:
    text = line + "\nGPU 0: NVIDIA GeForce RTX 3090\ntorch 2.1.0+cu121\n"
    assert [f.code for f in findings(text, M) if f.severity is not Severity.INFO] == []


@pytest.mark.parametrize(("line", "code"), [
    # https://github.com/triton-lang/triton/issues/8539
    ("ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'", "toolkit-mismatch"),
    # https://github.com/PRONTOLab/GB-25/issues/7
    ("ptxas /tmp/mlir-gpumodname-nvptx64-nvidia-cuda-sm_90-ac1dae.ptx, line 5; fatal   : Unsupported .version 8.6; "
     "current version is '8.4'", "toolkit-mismatch"),
    # https://github.com/matteo-ronchetti/torch-radon/issues/11
    ("RuntimeError: CUDA error: invalid device function", "arch-unsupported"),
    # https://github.com/NVIDIA/cudf/issues/11382
    ("RuntimeError: CUDA error encountered at: /workspace/.conda-bld/work/cpp/src/bitmask/null_mask.cu:93: 801 "
     "cudaErrorNotSupported operation not supported.", "platform-unsupported"),
])
def test_weak_evidence_is_a_warning(line: str, code: str) -> None:
    assert _codes(line + "\n").get(code) is Severity.WARNING


def test_explain_names_the_families(tmp_path: Path) -> None:
    """`envguard explain --no-check` recognises the lead's lines (real, from the threads above)."""
    log = tmp_path / "log.txt"
    log.write_text("ValueError: Unknown CUDA arch (12.0) or GPU not supported\n"
                   "RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n"
                   "RuntimeError: GET was unable to find an engine to execute this computation\n"
                   "ptxas fatal   : Value 'sm_90a' is not defined for option 'gpu-name'\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "envguard", "explain", "--no-check", str(log)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert "4 known message(s)" in out.stdout, out.stdout[:400]
    for verdict in ("arch-unsupported (warning) — ValueError: Unknown CUDA arch (12.0)",
                    "arch-unsupported (warning) — RuntimeError: FlashAttention only supports Ampere",
                    "cudnn-mismatch (info) — RuntimeError: GET was unable",
                    "toolkit-mismatch (warning) — ptxas fatal"):
        assert verdict in out.stdout, (verdict, out.stdout[:1500])
