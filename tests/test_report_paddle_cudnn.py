"""PaddlePaddle's start-up lines name the CUDA runtime and the cuDNN it loaded, not its build's cuDNN: the cuDNN of
each Paddle build of that CUDA (paddle.toml, from each release's Tables.md) decides whether the loaded one can be
right (rules/paddle_cudnn.py). Every text below is verbatim from the thread named above it."""

from __future__ import annotations

from envguard.findings import Finding, Severity
from envguard.knowledge import load_matrices
from envguard.reports import parse_environments
from envguard.reports.libraries import PADDLE_RUNTIME_KEY
from envguard.rules import run_rules


def findings(text: str) -> list[Finding]:
    m = load_matrices()
    env = parse_environments(text, "t", m)[0]
    return list(run_rules(env.snapshot, m, notes=env.notes).findings)


def cudnn(text: str) -> list[tuple[Severity, str]]:
    return [(f.severity, f.message) for f in findings(text) if f.code == "cudnn-mismatch"]


# https://github.com/PaddlePaddle/Paddle/issues/52181 (CUDNN_STATUS_NOT_INITIALIZED on F.softmax)
P52181 = """W0327 15:14:02.087484 13770 gpu_resources.cc:61] Please NOTE: device: 0, GPU Compute Capability: 6.1, Driver API Version: 10.2, Runtime API Version: 10.2
W0327 15:14:02.092368 13770 gpu_resources.cc:91] device: 0, cuDNN Version: 8.1.
OSError: (External) CUDNN error(1), CUDNN_STATUS_NOT_INITIALIZED.
"""  # noqa: E501

# https://github.com/PaddlePaddle/Paddle/issues/34938 ("paddle2.1, cuda 10.2, cudnn8.2"; device_context.cc era)
P34938 = """W0816 10:46:37.607583 16306 device_context.cc:404] Please NOTE: device: 0, GPU Compute Capability: 3.5, Driver API Version: 10.2, Runtime API Version: 10.2
W0816 10:46:37.613322 16306 device_context.cc:422] device: 0, cuDNN Version: 8.2.
"""  # noqa: E501

# https://github.com/baidu/information-extraction/issues/1 (Paddle 1.x: "CUDA Capability: 61")
BAIDU_IE = """W0309 22:57:00.700938 37327 device_context.cc:263] Please NOTE: device: 0, CUDA Capability: 61, Driver API Version: 9.0, Runtime API Version: 9.0
W0309 22:57:00.701022 37327 device_context.cc:271] device: 0, cuDNN Version: 5.0.
"""  # noqa: E501

# https://github.com/PaddlePaddle/Paddle/issues/17399 (cuDNN 7.0 with a CUDA 9.0 build: the right major)
P17399 = """W0514 20:15:02.786365  6891 device_context.cc:261] Please NOTE: device: 0, CUDA Capability: 35, Driver API Version: 9.0, Runtime API Version: 9.0
W0514 20:15:02.798928  6891 device_context.cc:269] device: 0, cuDNN Version: 7.0.
"""  # noqa: E501

# https://github.com/PaddlePaddle/PaddleMIX/issues/678 (CUDA 11.8 runtime, cuDNN 8.9: every cu11 build is cuDNN 8)
PMIX678 = """W0815 21:42:07.605979  1704 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 12.2, Runtime API Version: 11.8
W0815 21:42:07.606978  1704 gpu_resources.cc:164] device: 0, cuDNN Version: 8.9.
"""  # noqa: E501


def test_cuda102_runtime_with_cudnn8_from_a_gpu_resources_line_is_an_error() -> None:
    found = cudnn(P52181)
    assert len(found) == 1 and found[0][0] is Severity.ERROR
    assert "CUDA 10.2" in found[0][1] and "cuDNN 7.x" in found[0][1] and "2.3+" in found[0][1]


def test_the_reader_records_runtime_and_the_file_that_printed_it() -> None:
    env = parse_environments(P52181, "t", load_matrices())[0].snapshot
    assert env.environment[PADDLE_RUNTIME_KEY].startswith("10.2|gpu_resources.cc|report line 1")
    legacy = parse_environments(BAIDU_IE, "t", load_matrices())[0].snapshot
    assert legacy.environment[PADDLE_RUNTIME_KEY].startswith("9.0|device_context.cc|")


def test_device_context_era_cuda102_cudnn8_is_not_judged_paddle_2_0_2_1_shipped_cudnn8_trt_wheels() -> None:
    # 2.0 and 2.1 list a CUDA 10.2 TensorRT wheel built with cuDNN 8.0/8.1 under the plain version string: a
    # device_context.cc line (Paddle <= 2.2) with cuDNN 8 may be that build. Unknown, not an error.
    assert cudnn(P34938) == []


def test_legacy_banner_cuda90_with_cudnn5_is_an_error() -> None:
    found = cudnn(BAIDU_IE)
    assert len(found) == 1 and found[0][0] is Severity.ERROR and "cuDNN 7.x" in found[0][1]


def test_matching_majors_are_clean() -> None:
    assert cudnn(P17399) == []
    assert cudnn(PMIX678) == []


def test_a_stated_build_cudnn_is_left_to_the_loaded_library_rule() -> None:
    # https://github.com/PaddlePaddle/Paddle/issues/58914: paddle.version.show() names the build's cuDNN 8.2.1.
    text = ("commit: 3a1b1659a405a044ce806fbe027cc146f1193e6d\ncuda: 11.2\ncudnn: 8.2.1\n\n"
            "W1110 17:34:13.218151  3418 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 7.5, "
            "Driver API Version: 11.4, Runtime API Version: 11.3\n"
            "W1110 17:34:13.224603  3418 gpu_resources.cc:149] device: 0, cuDNN Version: 5.1.\n")
    found = [f for f in findings(text) if f.code == "cudnn-mismatch"]
    assert len(found) == 1 and "compiled with cuDNN 8.2.1" in found[0].message


def test_paddle_toml_cudnn_per_cuda_build() -> None:
    paddle = load_matrices().paddle
    cu102 = {r.version: v.cudnn_builds() for r, v in paddle.cuda_builds("10.2")}
    assert cu102 == {"2.5": ("7",), "2.4": ("7",), "2.3": ("7",), "2.2": ("7",), "2.1": ("7", "8.1"),
                     "2.0": ("7", "8.0")}
    cu11 = paddle.cuda_builds("11.3", same_major=True)
    assert cu11 and all(v.cuda.startswith("11.") for _, v in cu11)
    assert {c.split(".")[0] for _, v in cu11 for c in v.cudnn_builds()} == {"8"}
    assert paddle.cuda_builds("not a version") == ()


def test_reader_and_rule_agree_on_the_key() -> None:
    from envguard.rules import paddle_cudnn
    assert paddle_cudnn.PADDLE_RUNTIME_KEY == PADDLE_RUNTIME_KEY
