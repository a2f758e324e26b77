"""CPU/CUDA build facts a report states (reports.extract_builds → reports.variants) and the rules that judge them
(rules.cpu_report, the TF runtime check of rules.libraries), on real text: the corpus cases named in each test
(tests/data/reports; each case.json names its thread) and other public threads cited inline."""

from __future__ import annotations

import pytest
from packaging.version import Version

from envguard.findings import Severity
from envguard.knowledge import load_matrices
from envguard.reports import extract_builds, parse_environments
from envguard.reports.mentions import PROSE, TOOL
from envguard.rules import run_rules
from envguard.rules.libraries import runtime_file, same_cuda_runtime
from tests.reports import error_codes as errors


def build(text: str, name: str) -> tuple[str | None, str | None]:
    env = parse_environments(text, "t", load_matrices())[0].snapshot
    fw = env.framework(name)
    assert fw is not None
    return fw.accelerator, fw.gpu_intent


def kinds(lines: list[str]) -> list[tuple[str, str, str]]:
    return [(m.kind, m.key, m.value) for m in extract_builds.build_facts(lines, 0)]


# ---- the framework asked about itself ------------------------------------------------------------------------

TF215 = """```py
>>> import tensorflow as tf
>>> tf.test.is_built_with_cuda()
False
```

```
tensorflow                2.15.0          cuda120py311h5cbd639_1    conda-forge
tensorflow-base           2.15.0          cuda120py311h43b5e44_1    conda-forge
```"""


def test_is_built_with_cuda_false_overrides_a_cuda_build_string() -> None:
    # 237-conda-forge-tf215-cuda120-build-not-built-with-cuda (conda-forge/tensorflow-feedstock#365)
    found = kinds(TF215.splitlines())
    assert ("built_without_cuda", "tensorflow", "tf.test.is_built_with_cuda() False") in found
    assert ("conda_variant", "tensorflow", "12.0") in found
    accel, intent = build(TF215, "tensorflow")
    assert accel == "cpu" and intent is not None and "CUDA 12.0" in intent
    assert "cpu-only-build" in errors(TF215)


def test_is_built_with_cuda_true_or_inline_forms() -> None:
    assert not kinds(["tf.test.is_built_with_cuda()", "True"])
    # the inline form people type in prose (tensorflow/tensorflow#42354-style reports)
    assert kinds(["`tf.test.is_built_with_cuda()` returns `False`"])[0][:2] == ("built_without_cuda", "tensorflow")
    assert kinds(["print(paddle.device.is_compiled_with_cuda())", "False"])[0][:2] == ("built_without_cuda", "paddle")
    assert ("torch_cuda_none", "", "None") in kinds(["print(torch.version.cuda)", "None"])


def test_cuda_build_string_alone_is_a_cuda_build_without_error() -> None:
    text = TF215.split("```\n\n```")[1]
    accel, intent = build(text, "tensorflow")
    assert accel == "cuda" and intent is None
    assert "cpu-only-build" not in errors(text)


# ---- conda -------------------------------------------------------------------------------------------------

JAX_CONDA = """```
$ conda install jax cuda-nvcc -c conda-forge -c nvidia

The following NEW packages will be INSTALLED:

  jax                conda-forge/noarch::jax-0.4.4-pyhd8ed1ab_0
  jaxlib             conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1
```
### Which accelerator(s) are you using?

GPU
"""


def test_conda_cpu_jaxlib_on_a_gpu_request() -> None:
    # 207-jax044-conda-cpu-jaxlib-build (jax-ml/jax#14606)
    found = kinds(JAX_CONDA.splitlines())
    assert ("conda_variant", "jax", "cpu") in found
    assert ("cuda_request", "jax", "cuda-nvcc") in found
    assert ("gpu_present", "", "GPU") in found
    assert build(JAX_CONDA, "jax")[0] == "cpu"
    assert "cpu-only-build" in errors(JAX_CONDA)


def test_cpu_jaxlib_without_any_sign_of_a_gpu_is_not_an_error() -> None:
    text = "  jaxlib             conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1"
    assert build(text, "jax")[0] == "cpu"
    assert "cpu-only-build" not in errors(text)


def test_conda_pytorch_request_the_channel_has_no_build_of() -> None:
    # 158-conda-pytorch190-cudatoolkit113-no-build-cpu (pytorch/pytorch#69202): 1.9.0 was built for 10.2 and 11.1
    text = ("I have tried to install cudatoolkit 11.3 with `conda install -c pytorch pytorch=1.9.0 torchvision "
            "cudatoolkit=11.3`. After successful installing pytorch, my GPU is not available anymore")
    accel, intent = build(text, "torch")
    assert accel == "cpu" and intent is not None and "cudatoolkit=11.3" in intent
    assert "cpu-only-build" in errors(text)
    ok = text.replace("11.3", "11.1")
    assert build(ok, "torch")[0] != "cpu"
    # another channel's builds are not the pytorch channel's
    assert build(text.replace("-c pytorch", "-c conda-forge"), "torch")[0] != "cpu"


def test_conda_channel_table_parses() -> None:
    builds = load_matrices().torch.conda_builds("1.9.0")
    assert builds is not None and builds.cuda == ("10.2", "11.1") and builds.prov.source.startswith("https://")
    assert load_matrices().torch.conda_builds("2.5.1") is None  # not read: unknown, not "no builds"


# ---- pip: a CUDA extra on a platform without CUDA builds ------------------------------------------------------

JAX_WINDOWS = """jax 0.4.6 does not provide the extra 'cuda12_pip' | No GPU/TPU found, falling back to CPU

```
 C:\\Users\\rosha\\Downloads\\Compressed\\appp>pip install --upgrade "jax[cuda12_pip]" -f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html
Collecting jax[cuda12_pip]
  Using cached jax-0.4.14-py3-none-any.whl
Collecting ml-dtypes>=0.2.0
  Using cached ml_dtypes-0.2.0-cp310-cp310-win_amd64.whl (938 kB)
```"""


def test_jax_cuda_extra_on_native_windows_is_the_cpu_build() -> None:
    # 242-jax-native-windows-cuda12-pip-extra-cpu-only (jax-ml/jax#17634)
    found = kinds(JAX_WINDOWS.splitlines())
    assert ("os", "", "Windows") in found and ("wheel_platform", "", "win_amd64") in found
    assert ("cuda_request", "jax", "jax[cuda12_pip]") in found
    assert build(JAX_WINDOWS, "jax")[0] == "cpu"
    assert "cpu-only-build" in errors(JAX_WINDOWS)


def test_jax_cuda_extra_on_linux_is_not_judged_cpu() -> None:
    text = JAX_WINDOWS.replace("win_amd64", "manylinux2014_x86_64").replace(
        " C:\\Users\\rosha\\Downloads\\Compressed\\appp>", "$ ")
    assert "cpu-only-build" not in errors(text)
    env = parse_environments(text, "t", load_matrices())[0].snapshot
    assert env.framework("jax") is None  # no jaxlib named, no platform rule: nothing invented


# ---- sentences -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "framework"), [
    # 130 (pytorch/pytorch#168065), 131 (pinokiocomputer/pinokio#1027), 146 (gkyle/startrails#18), 157 (#32369)
    ("Hi, noticing that trying to `pip install torch` resulted in the CPU version of torch stable.", "torch"),
    ("the system either fails with a 404 error or installs a CPU-only version of Torch.", "torch"),
    ("get_cuda_version() only matched the old label, so setup silently fell back to CPU-only torch even with a "
     "working GPU and driver.", "torch"),
    ("requested Pytorch Stable 1.4.0 with CUDA 10.1 but obtained Pytorch with cpuonly (which is not GPU enabled).",
     "torch"),
])
def test_cpu_claims(line: str, framework: str) -> None:
    found = [m for m in extract_builds.build_facts([line], 0) if m.kind == "cpu_claim"]
    assert [(m.key, m.tier) for m in found] == [(framework, PROSE)]


@pytest.mark.parametrize("line", [
    "If you want the CPU version of torch, use the cpu index.",  # instructs
    "I do not want the CPU-only torch.",  # wishes / negates
    "- PyTorch 1.8.1 (CPU mode)",  # 345-neg: a mode, not a build
    "The CPU version of torch is about 200 MB",  # no statement of what was installed
    "I installed torch, not the CPU version of torch.",
])
def test_not_cpu_claims(line: str) -> None:
    assert not [m for m in extract_builds.build_facts([line], 0) if m.kind == "cpu_claim"]


def test_cpu_claim_needs_a_gpu_or_driver_to_be_an_error() -> None:
    line = "Hi, noticing that trying to `pip install torch` resulted in the CPU version of torch stable."
    assert "cpu-only-build" not in errors(line)
    # an example is not the reporter's machine ("e.g." does not end the sentence, so its hedge holds) ...
    assert "cpu-only-build" not in errors(line + "\n1. Get an aarch64 machine, e.g. GB200")
    assert "cpu-only-build" in errors(line + "\nIt runs on a GB200 node.")  # constructed
    assert "cpu-only-build" in errors(line + "\nobserved on driver 610.47 / CUDA UMD Version 13.3")


def test_gpu_working_in_another_environment_of_the_same_machine() -> None:
    # 157: env2 is the cpuonly build; env1's collect_env says CUDA is available on this machine
    text = ("pytorch                   1.3.1           cuda100py37h53c1284_0\n" + "x\n" * 3
            + "pytorch                   1.4.0               py3.7_cpu_0  [cpuonly]  pytorch\n"
            + "x\n" * 3 + "PyTorch version: 1.3.1\nIs CUDA available: Yes\n")
    assert ("gpu_present", "", "Is CUDA available: Yes") in kinds(["**Is CUDA available: Yes"])
    assert "cpu-only-build" in errors(text)


@pytest.mark.parametrize(("line", "cuda"), [
    # 349-wsl2-tf2161-with-cuda118-cudnn86-libs-missing (tensorflow/tensorflow#63341)
    ("I have managed to install CUDA 11.8 and cudnn 8.6 on my device which are the exact the same version listed "
     "on doc.", "11.8"),
    ("I installed CUDA toolkit 12.1 from the runfile.", "12.1"),
    ("You need to install CUDA 11.8 for this release.", None),
    ("If you install CUDA 12.3 it should work.", None),
])
def test_installed_cuda_sentence(line: str, cuda: str | None) -> None:
    found = [m.value for m in extract_builds.build_facts([line], 0) if m.kind == "system_cuda"]
    assert found == ([cuda] if cuda else [])


# ---- TF's CUDA runtime: the minor counts before CUDA 11 ----------------------------------------------------------

TF21_WINDOWS = """**System information**
- OS Platform and Distribution (e.g., Linux Ubuntu 16.04):  windows 10 (profession)
- TensorFlow installed from (source or binary):
- TensorFlow version: 2.1.0
- Python version:  3.68
- CUDA/cuDNN version: 10.2 cuda / 7.6 cudnn
- GPU model and memory:  GTX 1050 2G
"""


def test_tf21_on_windows_with_cuda102_misses_cudart64_101() -> None:
    # tensorflow/tensorflow#37253 ("tf2.1 with gpu can't open cuda 10.2"); 206-tf21-win10-gtx1650-cuda102-needs-101
    env = parse_environments(TF21_WINDOWS, "t", load_matrices())[0].snapshot
    tf = env.framework("tensorflow")
    assert tf is not None and tf.accelerator == "cuda"
    report = run_rules(env, load_matrices())
    missing = [f for f in report.findings if f.code == "cuda-libs-missing"]
    assert missing and "cudart64_101.dll" in missing[0].message and missing[0].severity is Severity.ERROR
    assert "cuda-libs-missing" not in errors(TF21_WINDOWS.replace("10.2 cuda", "10.1 cuda"))


def test_runtime_file_names() -> None:
    v = Version
    assert not same_cuda_runtime(v("10.2"), v("10.1"))
    assert same_cuda_runtime(v("11.8"), v("11.2")) and same_cuda_runtime(v("12.4"), v("12.3"))
    assert not same_cuda_runtime(v("11.8"), v("12.3"))
    assert runtime_file("cudart", v("10.1"), "windows") == "cudart64_101.dll"
    assert runtime_file("cudart", v("10.1"), "linux") == "libcudart.so.10.1"
    assert runtime_file("cudart", v("11.2"), "linux") == "libcudart.so.11.0"
    assert runtime_file("cudart", v("11.2"), "windows") == "cudart64_110.dll"
    assert runtime_file("cudart", v("12.3"), "linux") == "libcudart.so.12"


def test_machine_shapes_are_tool_or_message_tier() -> None:
    found = list(extract_builds.build_facts(["(venv) C:\\work>python -c \"import torch\"",
                                             "Collecting jax[cuda12]"], 0))
    assert [(m.kind, m.value) for m in found] == [("os", "Windows"), ("cuda_request", "jax[cuda12]")]
    assert found[1].tier == TOOL


@pytest.mark.parametrize("unit", ["cpu ", "CPU version of ", "torch cpu ", "a-1-cp3-x-", "jax[cuda", "C:\\a",
                                  "pip install jax[cuda12] ", "conda install pytorch=1.9 ", "install CUDA 1",
                                  "is_built_with_cuda() ", "-1.0-py3-none-", "0"])
def test_long_lines_stay_fast(unit: str) -> None:
    import time

    line = (unit * (200_000 // len(unit)))[:200_000] + ".whl"
    start = time.perf_counter()
    list(extract_builds.build_facts([line[:4000], line[:3999]], 0))
    assert time.perf_counter() - start < 0.2


# ---- a conda environment file's CUDA request; two listings of one version, different builds -------------------

#: meta-pytorch/data#315: the environment file asks for CUDA; with torchdata the solver took the CPU variant (first
#: listing), without it the CUDA one (second listing) — the same torch version in both.
TORCHDATA_315 = """1. Create `environment.yml`:
```
name: torchdata
channels:
  - pytorch
dependencies:
  - python=3.8
  - pip
  - pytorch
  - torchvision
  - torchaudio
  - cudatoolkit=11.3
  - torchdata
```

4. check for the installed PyTorch package:
```
❯ conda list | grep pytorch
cpuonly                   2.0                           0    pytorch
pytorch                   1.11.0              py3.8_cpu_0    pytorch
pytorch-mutex             1.0                         cpu    pytorch
torchaudio                0.11.0                 py38_cpu    pytorch
torchvision               0.12.0                 py38_cpu    pytorch
```

5. When removing `torchdata` from the dependency list:

```
❯ conda list | grep pytorch
pytorch                   1.11.0          py3.8_cuda11.3_cudnn8.2.0_0    pytorch
pytorch-mutex             1.0                        cuda    pytorch
torchaudio                0.11.0               py38_cu113    pytorch
"""


def test_an_environment_file_that_lists_a_cuda_package_asks_for_cuda() -> None:
    assert ("cuda_request", "", "cudatoolkit=11.3") in kinds(["  - cudatoolkit=11.3"])
    # asapdiscovery/asapdiscovery#743, conda/conda#14761: the same request spelled by newer environment files
    assert ("cuda_request", "", "pytorch-cuda=12.1") in kinds(["  - pytorch-cuda=12.1"])
    assert ("cuda_request", "", "cuda-version>=12") in kinds(["- cuda-version >=12"])
    # pytorch/pytorch#69009: mamba's transaction lists what it installs ("+ cudatoolkit"), it is no request
    assert not [k for k in kinds(["  + cudatoolkit                 11.3.1  h2bc3f7f_2  pkgs/main/linux-64"])
                if k[0] == "cuda_request"]


def test_two_listings_of_one_torch_version_with_different_builds_are_two_environments() -> None:
    envs = parse_environments(TORCHDATA_315, "t", load_matrices())
    assert len(envs) == 2
    m = load_matrices()
    codes = [{f.code for f in run_rules(e.snapshot, m, notes=e.notes).findings if f.severity is Severity.ERROR}
             for e in envs]
    # the CPU listing under a CUDA request is the CPU build on a CUDA machine; torch and its companions agree in
    # each listing, so no companion mismatch
    assert codes == [{"cpu-only-build"}, set()]
