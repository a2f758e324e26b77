"""The error catalogue's long tail (issue 14, wave 10, w10-sigs): pip's Requires-Python messages, conda/mamba's
__cuda virtual package, torch's cpp_extension compiler and CUDA checks, transformers' deformable-attention kernel,
extensions built for torch's split CUDA libraries, and CPU-only dispatch/deserialisation, through `envguard explain`
and `envguard check --from`. Texts are real lines or reports from the public source named above them, except where a
test says it pairs two real wordings to exercise a rule."""

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
    # issue 14's sample (pip's resolvelib wording, _report_requires_python_error)
    ("ERROR: Package 'torch' requires a different Python: 3.8.10 not in '>=3.9.0'",
     ("pip-framework-requires-different-python", "python-unsupported", "error", {"python": "3.8.10"})),
    # Nerogar/OneTrainer#191
    ("ERROR: Ignored the following versions that require a different python version: 1.21.2 Requires-Python "
     ">=3.7,<3.11; 1.21.3 Requires-Python >=3.7,<3.11",
     ("pip-ignored-requires-python", "python-unsupported", "warning", {})),
    # a conda-forge pytorch that would not pick up CUDA (code corpus notes)
    ("However, I have not managed to make it pick up CUDA (`nothing provides __cuda needed by "
     "pytorch-2.7.1-cuda129_mkl_py39_h77df7df_302`).",
     ("conda-nothing-provides-cuda", "driver-missing", "warning", {})),
    # an xgboost environment.yml README, 'if you don't have a Nvidia GPU' (code corpus)
    ("├─ libxgboost ==1.7.6 cuda120h75debf4_0 is uninstallable because it requires",
     None),
    # conda/conda tests/core/test_solve.py (libmamba branch)
    ("  - nothing provides __cuda >=9.0 needed by cudatoolkit-9.0-0",
     ("conda-cuda-virtual-package-too-old", "driver-too-old", "warning", {})),
    # probcomp/bayeslite#637
    ("  - feature:|@/linux-64::__cuda==10.2=0",
     ("conda-classic-cuda-virtual-package", "driver-too-old", "info", {"driver_cuda": "10.2"})),
    # qwopqwop200/GPTQ-for-LLaMa#33
    ("`RuntimeError: The current installed version of g++ (12.2.1) is greater than the maximum required version by "
     "CUDA 11.7 (11.5.0). Please make sure to use an adequate version of g++ (>=6.0.0, <=11.5.0).`",
     ("torch-extension-host-compiler-out-of-range", "toolkit-mismatch", "error", {})),
    # open-mmlab/mmdetection#71
    ("/usr/include/stdc-predef.h:59:1: fatal error: cuda_runtime.h: No such file or directory",
     ("cuda-runtime-header-missing", "toolkit-mismatch", "warning", {})),
    # fundamentalvision/Deformable-DETR#244: the transformers fallback is a warning, not cpp_extension's build error
    ("    Could not load the custom kernel for multi-scale deformable attention: CUDA_HOME environment variable is "
     "not set. Please set it to your CUDA install root.",
     ("hf-deformable-attention-kernel-cuda-home", "toolkit-mismatch", "warning", {})),
    # WangLongZJU/DeepAC#26
    ("> ImportError: .../torch/lib/libtorch_cuda_cu.so: cannot open shared object file: No such file or directory",
     ("torch-split-cuda-library-missing", "companion-mismatch", "error", {"lib": "libtorch_cuda_cu.so"})),
    # LaurentMazare/tch-rs#923 (a CUDA libtorch program)
    ("called `Result::unwrap()` on an `Err` value: Torch(\"Could not run 'aten::empty_strided' with arguments from "
     "the 'CUDA' backend. This could be because the operator doesn't exist for this backend",
     ("torch-aten-op-no-cuda-backend", "cpu-only-build", "warning", {})),
    # kleinlee/DH_live#22
    ("RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you "
     "are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your "
     "storages to the CPU.", ("torch-load-cuda-unavailable", "cpu-only-build", "warning", {})),
    # microsoft/SpareNet#34
    ("No CUDA runtime is found, using CUDA_HOME='/usr'",
     ("torch-extension-no-cuda-runtime", "cpu-only-build", "warning", {})),
])
def test_explain_recognises_the_message(line: str, expected: tuple[str, str, str, dict[str, str]] | None) -> None:
    found = _explained(line)
    if expected is None:
        assert not found
    else:
        assert found == [expected]


def test_explain_does_not_read_a_dependency_refusing_python_as_the_framework() -> None:
    # pytorch/pytorch#47849: dataclasses (a dependency of torch 1.7) refused Python 3.8.5
    result = CliRunner().invoke(main, ["explain", "--no-check", "--format", "json",
                                       "2.ERROR: Package 'dataclasses' requires a different Python: 3.8.5 not in "
                                       "'>=3.6, <3.7'"], catch_exceptions=False)
    assert "pip-framework-requires-different-python" not in result.stdout


#: HelixNGC7293/DeforumStableDiffusionLocal#66 (description and the reporter's nvidia-smi comment, verbatim).
DEFORUM = """    raise RuntimeError('Attempting to deserialize object on a CUDA '
RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are \
running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to \
the CPU.

+-----------------------------------------------------------------------------+
| NVIDIA-SMI 510.76       Driver Version: 512.98       CUDA Version: 11.6     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA GeForce ...  On   | 00000000:01:00.0  On |                  N/A |
| N/A   54C    P8    20W /  N/A |    536MiB /  8192MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""

#: hkchengrex/Cutie#37 (description and the reporter's answer): a CPU-only machine.
CUTIE = """I got a problem,yestorday,I test the project ,but it show the error : Attempting to deserialize object \
on a CUDA '
RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are \
running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to \
the CPU.What should id do?
no,i'm not train,i have a model,but i only have cpu in my computer。
"""


def test_check_from_a_cuda_checkpoint_on_a_gpu_machine_is_a_cpu_only_build_error() -> None:
    errors = [f for f in _findings(DEFORUM) if f.severity is Severity.ERROR]
    assert [f.code for f in errors] == ["cpu-only-build"]
    assert any(e.fact in ("GPU", "NVIDIA driver") for e in errors[0].evidence)


def test_check_from_a_cuda_checkpoint_on_a_cpu_machine_stays_a_warning() -> None:
    found = [f for f in _findings(CUTIE) if f.code == "cpu-only-build"]
    assert found and all(f.severity is Severity.WARNING for f in found)


def test_the_aten_dispatch_message_stays_a_warning_on_a_gpu_machine() -> None:
    # Pairs tch-rs#923's line (a CUDA libtorch program whose libtorch_cuda was not linked) with Deforum#66's
    # nvidia-smi table: a GPU machine does not make the aten message a CPU-only build.
    text = DEFORUM.split("\n\n", 1)[1] + ("called `Result::unwrap()` on an `Err` value: Torch(\"Could not run "
                                          "'aten::empty_strided' with arguments from the 'CUDA' backend.\n")
    found = [f for f in _findings(text) if f.code == "cpu-only-build"]
    assert found and all(f.severity is Severity.WARNING for f in found)


#: SEN1221TUD/Q2_2024#7 (verbatim): the Requires-Python list is numpy's and scipy's; torch 2.3.1 failed on its tags.
SKIPLIST = """ERROR: Ignored the following versions that require a different python version: 1.10.0 Requires-Python \
<3.12,>=3.8; 1.10.0rc1 Requires-Python <3.12,>=3.8; 1.10.0rc2 Requires-Python <3.12,>=3.8; 1.10.1 Requires-Python \
<3.12,>=3.8; 1.21.2 Requires-Python >=3.7,<3.11; 1.21.3 Requires-Python >=3.7,<3.11; 1.21.4 Requires-Python \
>=3.7,<3.11; 1.21.5 Requires-Python >=3.7,<3.11; 1.21.6 Requires-Python >=3.7,<3.11; 1.6.2 Requires-Python \
>=3.7,<3.10; 1.6.3 Requires-Python >=3.7,<3.10; 1.7.0 Requires-Python >=3.7,<3.10; 1.7.1 Requires-Python >=3.7,<3.10; \
1.7.2 Requires-Python >=3.7,<3.11; 1.7.3 Requires-Python >=3.7,<3.11; 1.8.0 Requires-Python >=3.8,<3.11; 1.8.0rc1 \
Requires-Python >=3.8,<3.11; 1.8.0rc2 Requires-Python >=3.8,<3.11; 1.8.0rc3 Requires-Python >=3.8,<3.11; 1.8.0rc4 \
Requires-Python >=3.8,<3.11; 1.8.1 Requires-Python >=3.8,<3.11; 1.9.0 Requires-Python >=3.8,<3.12; 1.9.0rc1 \
Requires-Python >=3.8,<3.12; 1.9.0rc2 Requires-Python >=3.8,<3.12; 1.9.0rc3 Requires-Python >=3.8,<3.12; 1.9.1 \
Requires-Python >=3.8,<3.12
ERROR: Could not find a version that satisfies the requirement torch==2.3.1 (from versions: 2.2.0, 2.2.1, 2.2.2)
ERROR: No matching distribution found for torch==2.3.1
"""


def test_pips_skip_list_of_other_packages_is_not_an_error() -> None:
    from envguard.knowledge import load_matrices
    from envguard.reports import parse_environments
    from envguard.rules.signatures import SignatureRule
    m = load_matrices()
    snapshot = parse_environments(SKIPLIST, "t", m)[0].snapshot
    ignored = [f for f in SignatureRule().check(snapshot, m) if "Ignored the following versions" in f.message]
    assert [f.severity for f in ignored] == [Severity.WARNING]


def test_pips_skip_list_holding_the_pinned_release_is_an_error() -> None:
    # Pairs pip's two lines (factory.py's wording) as pip prints them when the pinned torch release itself is
    # skipped for its Requires-Python (torch 2.0.0 declares >=3.8.0; a Python 3.7 interpreter).
    text = ("ERROR: Ignored the following versions that require a different python version: 2.0.0 Requires-Python "
            ">=3.8.0; 2.0.1 Requires-Python >=3.8.0\n"
            "ERROR: Could not find a version that satisfies the requirement torch==2.0.0 (from versions: 1.13.0, "
            "1.13.1)\n")
    ignored = [f for f in _findings(text) if "Ignored the following versions" in f.message]
    assert [f.severity for f in ignored] == [Severity.ERROR]
    assert any("torch==2.0.0" in e.value for e in ignored[0].evidence)


def test_pip_names_the_interpreter_as_a_fact() -> None:
    from envguard.knowledge import load_matrices
    from envguard.reports import parse_environments
    m = load_matrices()
    env = parse_environments("ERROR: Package 'torchvision' requires a different Python: 3.6.9 not in '>=3.7'\n",
                             "t", m)[0]
    assert "3.6.9" in str(env.snapshot.python)


def test_conda_cuda_bound_above_the_reported_driver_is_a_driver_error() -> None:
    # Pairs conda's libmamba wording (tests/core/test_solve.py) with Deforum#66's nvidia-smi (driver CUDA 11.6).
    text = DEFORUM.split("\n\n", 1)[1] + "  - nothing provides __cuda >=12.1 needed by pytorch-cuda-12.1\n"
    found = [f for f in _findings(text) if f.code == "driver-too-old" and "__cuda" in f.message]
    assert [f.severity for f in found] == [Severity.ERROR]


def test_conda_cuda_bound_without_a_reported_driver_stays_a_warning() -> None:
    found = [f for f in _findings("  - nothing provides __cuda >=9.0 needed by cudatoolkit-9.0-0\n")
             if f.code == "driver-too-old"]
    assert [f.severity for f in found] == [Severity.WARNING]
