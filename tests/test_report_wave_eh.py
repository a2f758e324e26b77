"""Held-out sets EH, EI, EK and EM (issue 14, stop 28): what their first contact taught, each on a real report's text
(the public source above each). A hedge word is a whole word: a window cut through "notes" does not leave "no". An
aside in parentheses after a version is about something else, unless it opens with the negation. A version query
and its answer on one line ("torch.__version__ → 2.9.1+cpu") is the reporter quoting the interpreter. A CUDA in
parentheses right after a driver is the driver's CUDA. A package whose name ends in "-jax" is not JAX. The DGX Spark
is NVIDIA's GB10 machine. uv's "was included because" names what it installs. A cuDNN named by its major is enough
for a loader failing on another major."""

from __future__ import annotations

from envguard.findings import Severity
from envguard.knowledge import load_matrices
from envguard.reports import parse_environments
from envguard.snapshot import DriverInfo, PythonInfo
from tests.reports import error_codes, findings, first_snapshot

# noonghunna/club-3090#633 (title and summary; "notes" once ended the hedge window as "no")
ERROR_804 = """[bug] ik-llama cu13 digest pin requires a CUDA >=13.2 driver — on driver 580.159 (CUDA 13.0) it \
crash-loops with CUDA error 804; "driver 580.x+" requirement is insufficient

The digest-pinned ik-llama image (`ghcr.io/ikawrakow/ik-llama-cpp@sha256:5f914f1c…`, build 4574 / commit `e6f8112f`, \
CUDA 13.2 runtime — the compose header notes "cu13 = matches our CUDA 13.2 host driver") does not run on a driver \
**580.159.03** rig, whose driver-supported CUDA ceiling is **13.0**.

```
ggml_cuda_init: failed to initialize CUDA: forward compatibility was attempted on non supported HW
```
"""


def test_a_driver_s_cuda_in_parentheses_and_a_whole_word_window() -> None:
    snapshot = first_snapshot(ERROR_804)
    assert isinstance(snapshot.driver, DriverInfo) and snapshot.driver.cuda_driver_version == "13.0"
    assert [t.version for t in snapshot.toolkit_list()] == ["13.2"]
    assert "driver-too-old" in error_codes(ERROR_804)


# m-bain/whisperX#1158 (the Python in a sentence with an aside; the torch in "pinned torch to")
WHISPERX = """We've been trying to install `whisperx==3.3.4` for a project which uses python 3.12 (though not sure if \
the python version is relevant), but we keep running into issues related to the missing `libcudnn_ops_infer.so.8` file

We use `uv` for build, we've pinned torch to `2.5.1` & ctransla
"""


def test_an_aside_does_not_take_back_the_version_before_it() -> None:
    snapshot = first_snapshot(WHISPERX)
    assert isinstance(snapshot.python, PythonInfo) and snapshot.python.version == "3.12"
    assert [(b.name, b.version) for b in snapshot.frameworks] == [("torch", "2.5.1")]


def test_an_aside_that_opens_with_the_negation_still_takes_it_back() -> None:
    text = "I tried it with CUDA 11.8 (not installed here) and it fails, torch 2.1.0+cu118\n"  # constructed
    assert first_snapshot(text).toolkit_list() == ()


# pytorch/pytorch#169929 (the interpreter's answers quoted on one line; the failed cu121 attempt below them)
QUOTED = """**Result,**
torch.__version__ → 2.9.1+cpu
torch.version.cuda → None
torch.cuda.is_available() → False
**My system has a valid CUDA-enabled GPU**:
GPU: NVIDIA GeForce RTX 3080
Driver Version: 573.44
**I also tried:**

pip install torch==2.3.0+cu121 --index-url https://download.pytorch.org/whl/cu121

**but received:**

No matching distribution found for torch==2.3.0+cu121
"""


def test_a_quoted_version_answer_outranks_an_attempted_install() -> None:
    snapshot = first_snapshot(QUOTED)
    assert [(b.name, b.version) for b in snapshot.frameworks] == [("torch", "2.9.1+cpu")]
    assert "cpu-only-build" in error_codes(QUOTED)


# cantinilab/stories#5 (the project's own package, "stories-jax", is not JAX)
STORIES = """- GPU: NVIDIA GeForce RTX 5070 Ti Laptop GPU (Blackwell, sm_100)
- NVIDIA Driver: 580.126.09
- Python: 3.11
- stories-jax: 0.1.1 (installed in editable mode)

The package hard-pins `jax==0.4.26` and `jaxlib==0.4.26`, which was released before NVIDIA's Ada Lovelace (RTX 4xxx) \
and Blackwell (RTX 5xxx) GPU architectures were fully supported in JAX.

```
jaxlib.xla_extension.XlaRuntimeError: INTERNAL: ptxas exited with non-zero error code 65280
ptxas fatal   : Program with .target 'sm_90a' cannot be compiled to future architecture
```
"""


def test_a_package_named_something_jax_is_not_jax_and_ptxas_cannot_go_forward() -> None:
    env = parse_environments(STORIES, "t", load_matrices())[0]
    assert not any("contradictory jax" in n for n in env.notes)
    assert [(b.name, b.version) for b in env.snapshot.frameworks] == [("jax", "0.4.26")]
    assert "arch-unsupported" in error_codes(STORIES)


# eugr/spark-vllm-docker#263 (a DGX Spark; the torch uv put there)
SPARK = """I've faced this issue while trying to run some image using `sparkrun` on a DGX Spark.
```shell
    cuda:      13.2
    python:    3.12.3
    torch:     2.10.0+cpu
```
"""


def test_a_dgx_spark_is_a_gb10_machine() -> None:
    snapshot = first_snapshot(SPARK)
    assert [g.name for g in snapshot.gpu_list()] == ["NVIDIA GB10"]
    assert "cpu-only-build" in error_codes(SPARK)


# astral-sh/uv#15728 (a negative: a download timeout; uv's resolver names what it installs)
UV = """  ╰─▶ Failed to download distribution due to network timeout. Try increasing UV_HTTP_TIMEOUT (current value: \
30s).
  help: `nvidia-cudnn-cu12` (v9.10.2.21) was included because `torch` (v2.8.0) depends on `nvidia-cudnn-cu12`
"""


def test_uv_s_was_included_because_names_what_it_installs() -> None:
    snapshot = first_snapshot(UV)
    assert [(b.name, b.version) for b in snapshot.frameworks] == [("torch", "2.8.0")]
    assert "nvidia-cudnn-cu12" in snapshot.package_map()
    assert not [f for f in findings(UV) if f.severity is Severity.ERROR]


# jax-ml/jax#5464 (cuDNN stated by its major; the loader fails on the other major)
CUDNN7 = """I'm working on GeForce GTX 1080 Ti, cuda 11.0, cudnn7, but when training jax keeps telling me \
`Could not load dynamic library 'libcudnn.so.8'`.
"""


def test_a_cudnn_major_is_enough_against_a_loader_failing_on_another() -> None:
    found = [f for f in findings(CUDNN7) if f.code == "cudnn-mismatch"]
    assert found and found[0].severity is Severity.ERROR and "7.x" in found[0].message
