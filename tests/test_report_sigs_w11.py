"""The error catalogue's long tail (issue 14, wave 11, w11-sigs): WSL's NVML block, the kernel log's legacy-branch
and open/proprietary-module lines, Secure Boot and a missing kernel module, NVIDIA container toolkit failures,
TensorFlow's Windows DLL self-check, XLA's ptxas fallback, CTranslate2's CUDA libraries, cuDNN 8's Windows DLLs,
toolkit floors (flash-attn, nvcc arch values), uv's platform line, and four recognised non-environment lines, through
`envguard explain` and `envguard check --from`. Texts are real lines or report excerpts from the public source named
above them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from envguard.cli import main
from envguard.findings import Severity
from tests.reports import findings as _findings


def _explained(line: str) -> list[tuple[str, str, str, dict[str, str]]]:
    result = CliRunner().invoke(main, ["explain", "--no-check", "--format", "json", line], catch_exceptions=False)
    assert result.exit_code == 0, result.stdout
    return [(m["signature"], m["code"], m["severity"], m["groups"]) for m in json.loads(result.stdout)["matches"]]


@pytest.mark.parametrize(("line", "expected"), [
    # microsoft/WSL#14339
    ("Failed to properly shut down NVML: GPU access blocked by the operating system",
     ("wsl-nvml-gpu-access-blocked", "driver-missing", "error", {})),
    # NixOS/nixos-hardware#1880
    ("[Sun May 17 15:55:50 2026] NVRM: The NVIDIA NVIDIA GeForce GTX 1050 GPU installed in this system is",
     ("nvrm-legacy-driver-ignores-gpu", "driver-missing", "error", {"gpu": "NVIDIA GeForce GTX 1050"})),
    # NVIDIA/open-gpu-kernel-modules#322
    ("               NVRM: installed in this system is not supported by open",
     ("nvrm-open-module-unsupported-gpu", "driver-missing", "error", {})),
    # kalininalab/alphafold_non_docker#75 (title)
    ("Error: Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 8.9",
     ("xla-ptxas-does-not-support-cc", "toolkit-mismatch", "warning", {"cc": "8.9"})),
    # RVC-Boss/GPT-SoVITS#727
    ("RuntimeError: Library libcublas.so.12 is not found or cannot be loaded",
     ("ctranslate2-cuda-library-not-loadable", "cuda-libs-missing", "error", {"lib": "libcublas.so.12"})),
    # NVIDIA/nvidia-container-runtime#41
    ("nvidia-container-cli: mount error: file creation failed: /var/lib/docker/aufs/mnt/e5827a97552f6cd9825b4b3e68f"
     "c565e3ae791addeb680394c12de943a5c64d4/usr/bin/nvidia-smi: file exists",
     ("nvidia-container-cli-mount-file-exists", "driver-library-mismatch", "warning", {})),
    # tensorflow/tensorflow#31701
    ("`ImportError: Could not find 'cudart64_100.dll'. TensorFlow requires that this DLL be installed in a directory "
     "that is named in your %PATH% environment variable. Download and install CUDA 10.0 from this URL: "
     "https://developer.nvidia.com/cuda-90-download-archive`",
     ("tf-windows-self-check-cuda-dll", "cuda-libs-missing", "error", {"lib": "cudart64_100.dll"})),
    # EvilPort2/Sign-Language#16
    ("ImportError: Could not find 'nvcuda.dll'. TensorFlow requires that this DLL be installed in a directory that is "
     "named in your %PATH% environment variable.",
     ("tf-windows-self-check-nvcuda", "driver-missing", "error", {})),
    # compiler-explorer/infra#1413
    ("Startup `modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-1015-aws`",
     ("modprobe-nvidia-module-not-found", "driver-missing", "error", {})),
    # NVIDIA/nvidia-container-toolkit#678
    ("nvidia-container-cli: mount error: failed to add device rules: unable to find any existing device filters "
     "attached to the cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation not permitted: unknown.",
     ("nvidia-container-cli-device-rules", "gpu-runtime-missing", "warning", {})),
    # haotian-liu/LLaVA#1140
    ("      RuntimeError: FlashAttention is only supported on CUDA 11.6 and above.  Note: make sure nvcc has a "
     "supported version by running nvcc -V.",
     ("flash-attn-nvcc-too-old", "toolkit-mismatch", "error", {"cuda": "11.6"})),
    # apache/tvm#4061 (title)
    ("nvcc fatal : Value 'sm_75' is not defined for option 'gpu-architecture'",
     ("nvcc-arch-value-not-defined", "toolkit-mismatch", "error", {"sm": "sm_75"})),
    # Softcatala/whisper-ctranslate2#41
    ("Could not load library cudnn_cnn_infer64_8.dll. Error code 126",
     ("cudnn-windows-dll-error-126", "cuda-libs-missing", "error", {"lib": "cudnn_cnn_infer64_8.dll"})),
    # microsoft/onnxruntime#18973 (title)
    ("Could not load library cudnn_cnn_infer64_8.dll. Error code 127",
     ("cudnn-windows-dll-error-127", "cudnn-mismatch", "warning", {"lib": "cudnn_cnn_infer64_8.dll"})),
    # csguoh/MambaIR#39
    ("Duplicate GPU detected : rank 2 and rank 0 both on CUDA device 4000",
     ("nccl-duplicate-gpu-detected", "not-environment", "info", {})),
    # google-research/multinerf#12
    ("I0808 20:59:00.842178 139857030612800 xla_bridge.py:328] Unable to initialize backend 'tpu_driver': NOT_FOUND: "
     "Unable to find driver in registry given worker: ",
     ("jax-tpu-backend-unavailable", "not-environment", "info", {})),
])
def test_explain_names_the_family(line: str, expected: tuple[str, str, str, dict[str, str]]) -> None:
    assert _explained(line) == [expected]


#: NVIDIA/nvidia-docker#1551 (WSL2; the issue text as pasted).
LIB_IN_IMAGE = (
    'When `sudo docker run --gpus all --runtime=nvidia -it --rm <my image name>`, there comes the issue\n'
    '\n'
    '>docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting con'
    'tainer process caused: process_linux.go:545: container init caused: Running hook #0:: error running '
    'hook: exit status 1, stdout: , stderr: nvidia-container-cli: mount error: file creation failed: /var'
    '/lib/docker/overlay2/706b1d1b6de681b6daf1cab979336a9d465d9b333962cc17db663f2e334d5776/merged/usr/lib'
    '/x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown.\n'
    '\n'
    'Is that releated to nvidia drivers?\n'
)

#: siderolabs/talos#8764 (dmesg as pasted).
TALOS_GT710 = """Currently, I get this when trying to spin up NVIDIA support:

```
kern:     err: [2024-05-20T02:46:53.856596762Z]: NVRM: The NVIDIA GeForce GT 710 GPU installed in this system is
 NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please
 NVRM:  visit http://www.nvidia.com/object/unix.html for more
 NVRM:  information.  The 535.129.03 NVIDIA driver will ignore
 NVRM:  this GPU.  Continuing probe...
 kern: warning: [2024-05-20T02:46:53.859954762Z]: NVRM: No NVIDIA GPU found.
```
"""

#: tensorflow/tensorflow#53184 (a working GPU: the NUMA line is noise).
TF_NUMA = (
    '>>> import tensorflow as tf\n'
    '>>> print("Num GPUs Available: ", len(tf.config.list_physical_devices(\'GPU\')))\n'
    '2021-11-24 09:01:58.877869: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:937] successful N'
    'UMA node read from SysFS had negative value (-1), but there must be at least one NUMA node, so retur'
    'ning NUMA node zero\n'
    '2021-11-24 09:01:58.899255: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:937] successful N'
    'UMA node read from SysFS had negative value (-1), but there must be at least one NUMA node, so retur'
    'ning NUMA node zero\n'
    'Num GPUs Available:  1\n'
)

#: astral-sh/uv#10843 (Windows against a cu124 index).
UV_WINDOWS = (
    'Resolved 64 packages in 4ms\n'
    "error: Distribution `torch==2.5.1 @ registry+https://download.pytorch.org/whl/cu124` can't be instal"
    "led because it doesn't have a source distribution or wheel for the current platform\n"
    '\n'
    "hint: You're on Windows (`win_amd64`), but `torch` (v2.5.1) only has wheels for the following platfo"
    'rm: `linux_aarch64`\n'
)

#: jaredpalmer/kev#34 (case 331's wording): the missing wheel is the interpreter's, not the platform's.
UV_PYTHON = (
    "error: Distribution `torch==2.8.0 @ registry+https://download.pytorch.org/whl/cpu` can't be installe"
    "d because it doesn't have a source distribution or wheel for the current platform\n"
    '\n'
    "hint: You're using CPython 3.14 (`cp314`), but `torch` (v2.8.0) only has wheels with the following P"
    'ython ABI tags: `cp39`, `cp310`, `cp311`, `cp312`, `cp313`, `cp313t`\n'
)


def test_check_from_an_image_carrying_driver_files_warns_of_a_driver_library_mismatch() -> None:
    found = [f for f in _findings(LIB_IN_IMAGE) if f.code == "driver-library-mismatch"]
    assert [f.severity for f in found] == [Severity.WARNING]
    assert "nvidia-container-cli: mount error: file creation failed" in found[0].message


def test_check_from_a_legacy_gpu_dmesg_is_a_driver_missing_error() -> None:
    errors = [f for f in _findings(TALOS_GT710) if f.severity is Severity.ERROR]
    assert {f.code for f in errors} == {"driver-missing"}


def test_check_from_a_working_tensorflow_with_the_numa_line_finds_nothing() -> None:
    assert _findings(TF_NUMA) == []


def test_check_from_uv_on_the_wrong_platform_warns_platform_unsupported() -> None:
    found = [(f.code, f.severity) for f in _findings(UV_WINDOWS)]
    assert ("platform-unsupported", Severity.WARNING) in found


def test_check_from_uv_with_a_python_tag_hint_is_python_not_platform() -> None:
    codes = {f.code for f in _findings(UV_PYTHON)}
    assert "python-unsupported" in codes
    assert "platform-unsupported" not in codes
