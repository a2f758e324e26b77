"""The error catalogue's long tail (issue 14, wave 8, w8-libs): Windows DLL loads (torch's core and CUDA DLLs, the
Visual C++ runtime, TensorFlow's native runtime), NVRTC's builtins library, cuDNN's zlibwapi.dll and optional cuBLAS
symbols, the toolkit's libcuda stub, libstdc++'s GLIBCXX versions, bitsandbytes' CUDA setup, "no GPU visible"
messages (NVML, torch, the CUDA runtime, JAX) and nvcc's host-compiler check, through `envguard explain` and
`envguard check --from`. Every text is a real line or report from the public thread named above it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from envguard.cli import main
from envguard.findings import Severity
from tests.reports import findings as _findings


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout


def _explained(line: str) -> list[tuple[str, str, str, dict[str, str]]]:
    code, out = _run("explain", "--no-check", "--format", "json", line)
    assert code == 0, out
    return [(m["signature"], m["code"], m["severity"], m["groups"]) for m in json.loads(out)["matches"]]


@pytest.mark.parametrize(("line", "expected"), [
    # AlexeyAB/darknet#8551
    ("Could not locate zlibwapi.dll. Please make sure it is in your library path!",
     ("cudnn-zlibwapi-missing", "cuda-libs-missing", "error", {"lib": "zlibwapi.dll"})),
    # aim-uofa/AdelaiDet#468 (title)
    ("RuntimeError: nvrtc: error: failed to open libnvrtc-builtins.so.11.1.",
     ("nvrtc-builtins-missing", "cuda-libs-missing", "error", {"lib": "libnvrtc-builtins.so.11.1"})),
    # zai-org/ChatGLM-6B#284 (title)
    ("[BUG/Help] 运行示例代码时报错，RuntimeError: nvrtc: error: failed to open nvrtc-builtins64_117.dll.",
     ("nvrtc-builtins-missing", "cuda-libs-missing", "error", {"lib": "nvrtc-builtins64_117.dll"})),
    # babysor/MockingBird#758 (title)
    ("每次跑训练时候 会报Could not load symbol cublasGetSmCountTarget from cublas64_11.dll. Error code 127",
     ("cudnn-optional-symbol-missing", "cuda-libs-missing", "warning",
      {"symbol": "cublasGetSmCountTarget", "lib": "cublas64_11.dll"})),
    # NVIDIA/cutlass#1636 (title)
    ("[QST] Error: Could not detect active GPU device ID [CUDA driver is a stub library]",
     ("cuda-driver-stub-library", "driver-missing", "error", {})),
    # pytorch/pytorch#157709 (title)
    ("/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found when IMPORT TORCH",
     ("libstdcxx-version-not-found", "platform-unsupported", "warning", {"lib": "libstdc++.so.6"})),
    # xszyou/Fay#130 (title)
    ('执行main.py的时候报"OSError: [WinError 126] 找不到指定的模块。 Error loading "D:\\environment\\pythton310\\lib'
     '\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies."',
     ("torch-windows-dll-load-failed", "platform-unsupported", "warning", {"lib": "fbgemm.dll"})),
    # SunOner/sunone_aimbot#66
    ('OSError: [WinError 126] Не найден указанный модуль. Error loading "C:\\Users\\USER\\AppData\\Local\\Programs'
     '\\Python\\Python311\\Lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.',
     ("torch-windows-cuda-dll-load-failed", "cuda-libs-missing", "warning", {"lib": "cudnn_cnn_infer64_8.dll"})),
    # tensorflow/tensorflow#79362 (title)
    ("ImportError: DLL load failed while importing _pywrap_tensorflow_internal: A dynamic link library (DLL) "
     "initialization routine failed.",
     ("tf-windows-pywrap-dll-load-failed", "platform-unsupported", "warning", {})),
    # tensorflow/tensorflow#18116 (title)
    ("ImportError : Could not find 'msvcp140.dll'",
     ("windows-vc-redist-missing", "platform-unsupported", "error", {})),
    # bitsandbytes-foundation/bitsandbytes#1559 (title)
    ("CUDA Setup failed despite GPU being available.",
     ("bitsandbytes-cuda-setup-failed", "cuda-libs-missing", "warning", {})),
    # SAI990323/TALLRec#27 (title)
    ("The installed version of bitsandbytes was compiled without GPU support.",
     ("bitsandbytes-cpu-library-loaded", "cuda-libs-missing", "warning", {})),
    # remsky/Kokoro-FastAPI#527 (title)
    ("Can't initialize NVML", ("torch-cant-initialize-nvml", "driver-missing", "warning", {})),
    # xianlin7/SAMUS#39 (title)
    ("RuntimeError: No CUDA GPUs are available",
     ("torch-no-cuda-gpus-available", "driver-missing", "warning", {})),
    # MasterBin-IIAU/CSA#5 (title)
    ("cuda runtime error (38) : no CUDA-capable device is detected",
     ("cuda-no-device-detected", "driver-missing", "warning", {})),
    # ZhengZerong/PaMIR#17 (title)
    ("RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
     ("cuda-devices-busy-or-unavailable", "not-environment", "info", {})),
    # jax-ml/jax#21299
    ("jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: No visible GPU devices.",
     ("jax-no-visible-gpu-devices", "driver-missing", "warning", {})),
    # google-deepmind/deepmind-research#420 (title)
    ("Unable to initialize backend 'cuda': module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'",
     ("jax-cpu-jaxlib-no-gpu-client", "cpu-only-build", "warning", {})),
    # ggml-org/llama.cpp#9205
    ("#error -- unsupported GNU version! gcc versions later than 13 are not supported!",
     ("nvcc-host-gcc-too-new", "toolkit-mismatch", "error", {})),
])
def test_explain_recognises_the_message(line: str, expected: tuple[str, str, str, dict[str, str]]) -> None:
    assert _explained(line) == [expected]


# pytorch/pytorch#87279: the title and its collect_env (cut where the excerpt ends)
GLIBCXX_REPORT = "\n".join((
    "ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required"
    ' by /home/***/lib/python3.10/site-packages/torch/lib/libtorch_python.so)',
    '',
    '### 🐛 Describe the bug',
    '',
    '`import torch` triggered this error.',
    '',
    '### Versions',
    '',
    'PyTorch version: 1.12.1.post200',
    'Is debug build: False',
    'CUDA used to build PyTorch: 11.2',
    'ROCM used to build PyTorch: N/A',
    '',
    'OS: Ubuntu 20.04.5 LTS (x86_64)',
    'GCC version: (conda-forge gcc 10.3.0-16) 10.3.0',
    'Clang version: Could not collect',
    'CMake version: version 3.16.3',
    'Libc version: glibc-2.31',
    '',
    'Python version: 3.10.2 | packaged by conda-forge | (main, Feb  1 2022, 19:28:35) [GCC 9.4.0]'
    ' (64-bit runtime)',
    'Python platform: Linux-5.4.0-128-generic-x86_64-with-glibc2.31',
    'Is CUDA available: True',
    'CUDA runtime version: 11.7.99',
    'CUDA_MODULE_LOADING set to: ',
    'GPU models and configuration: GPU 0: NVIDIA GeForce RTX 2080 Ti',
    'Nvidia driver version: 515.65.01',
)) + "\n"

# fboulnois/stable-diffusion-docker#22: the command, torch's warning and the traceback's head
STUB_REPORT = "\n".join((
    "$./build.sh run --W 256 --H 256 --half --attention-slicing  --prompt 'abstract art'",
    '',
    'load pipeline start: 2022-10-11T20:08:43.514057',
    '/usr/local/lib/python3.8/dist-packages/torch/cuda/__init__.py:83: UserWarning: CUDA initialization:'
    ' Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling'
    ' NumCudaDevices() that might have already set an error? Error 34: CUDA driver is a stub library'
    ' (Triggered internally at  ../c10/cuda/CUDAFunctions.cpp:109.)',
    '  return torch._C._cuda_getDeviceCount() > 0',
    'Fetching 16 files: 100%|██████████| 16/16 [00:00<00:00, 25448.94it/s]',
    'ftfy or spacy is not installed using BERT BasicTokenizer instead of ftfy.',
    'Traceback (most recent call last):',
    '  File "/usr/local/bin/docker-entrypoint.py", line 174, in <module>',
    '    main()',
)) + "\n"

# remsky/Kokoro-FastAPI#527: the NVML warning in a container where nvidia-smi works
NVML_REPORT = "\n".join((
    '**Describe the bug**',
    'On docker container start, receive the following:'
    ' "/app/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py:829: UserWarning: Can\'t initialize'
    ' NVML "',
    '',
    '**Branch / Deployment used**',
    'docker run --gpus all -p 8880:8880 ghcr.io/remsky/kokoro-fastapi-gpu:latest',
    '',
    '**Operating System**',
    'Gentoo Linux',
    'GPU 0: NVIDIA GeForce RTX 4060 Laptop GPU (UUID: GPU-3cb0bb58-f79f-2324-1cb9-f1e49b84af89)',
)) + "\n"


def _check(tmp_path: Path, text: str) -> tuple[int, str]:
    """`envguard check --from` on the text: its exit code and its JSON envelope."""
    report = tmp_path / "report.txt"
    report.write_text(text, encoding="utf-8")
    return _run("check", "--from", str(report), "--format", "json")


def test_check_from_a_collect_env_with_glibcxx_is_a_platform_warning_not_an_error(tmp_path: Path) -> None:
    found = _findings(GLIBCXX_REPORT)
    libstdcxx = [f for f in found if f.code == "platform-unsupported"]
    assert [f.severity for f in libstdcxx] == [Severity.WARNING]
    assert "GLIBCXX_3.4.30" in libstdcxx[0].message
    assert not [f for f in found if f.severity is Severity.ERROR]
    code, out = _check(tmp_path, GLIBCXX_REPORT)
    assert code == 0 and "libstdcxx-version-not-found" in out


def test_check_from_a_log_with_the_libcuda_stub_is_driver_missing(tmp_path: Path) -> None:
    errors = [f for f in _findings(STUB_REPORT) if f.severity is Severity.ERROR]
    assert [f.code for f in errors] == ["driver-missing"]
    assert "stub" in errors[0].message
    code, out = _check(tmp_path, STUB_REPORT)
    assert code == 1 and "cuda-driver-stub-library" in out


def test_check_from_the_nvml_warning_with_a_gpu_stays_a_warning() -> None:
    found = _findings(NVML_REPORT)
    assert [(f.code, f.severity) for f in found if f.code == "driver-missing"] == [("driver-missing", Severity.WARNING)]
    assert not [f for f in found if f.severity is Severity.ERROR]
